"""The evaluators PUCT and self-play search with, under a short name (``pv.evaluators``):
:mod:`pingvinas.searching.evaluators`."""

from .searching.evaluators import *  # noqa: F403
from .searching.evaluators import __all__ as __all__
