"""Nets the engine evaluates itself, under a short name (``pv.nets``):
:mod:`pingvinas.searching.nets`."""

from .searching.nets import *  # noqa: F403
from .searching.nets import __all__ as __all__
