"""The modules of :mod:`pingvinas.searching`, :mod:`pingvinas.playing` and
:mod:`pingvinas.rating` under the names they had when one package held them
(``pingvinas.play.search``, ``pingvinas.play.agents``, ...), kept as aliases until the first
release."""

import sys

from . import agents, cluster
from .playing import match, one_game
from .playing.protocol import driver
from .rating import ladder, sprt
from .searching import evaluators, nets, searcher

search = searcher
ray = cluster
game = one_game
protocol = driver

__all__ = [
    "agents",
    "evaluators",
    "game",
    "ladder",
    "match",
    "nets",
    "protocol",
    "ray",
    "search",
    "sprt",
]

for _name in __all__:
    sys.modules[f"{__name__}.{_name}"] = getattr(sys.modules[__name__], _name)
