"""Matches between agents, under a short name (``pv.match``): :mod:`pingvinas.playing.match`."""

from .playing.match import *  # noqa: F403
from .playing.match import __all__ as __all__
