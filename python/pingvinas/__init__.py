"""pingvinas: fast, exact engines for the penguin games Fish and Penguin Marathon.

>>> import pingvinas as pv
>>> state = pv.Fish().new_state(seed=7)
>>> state.phase, state.to_move
('placement', 0)
>>> state.play(state.legal_moves()[0])
>>> state.to_move
1
"""

from typing import Union

from . import fish, marathon, svg
from ._core import (
    Fish,
    FishMove,
    FishState,
    IllegalMoveError,
    InvalidMoveError,
    Marathon,
    MarathonMove,
    MarathonPiece,
    MarathonState,
    __version__,
    variants,
)
from .agents import AlphaBetaAgent, GreedyAgent, MCTSAgent, RandomAgent, SearchAgent
from .match import play_match
from .search import Searcher, SearchResult, search


def load_game(name: str) -> "Union[Fish, Marathon]":
    """A bundled variant of either game by name: ``load_game("fish-3p")``,
    ``load_game("marathon-zigzag")`` (``pingvinas.variants()`` lists them)."""
    for game in (Fish, Marathon):
        try:
            return game.variant(name)
        except ValueError:
            continue
    raise ValueError(f"unknown variant {name!r}; bundled variants: {', '.join(variants())}")


__all__ = [
    "AlphaBetaAgent",
    "Fish",
    "FishMove",
    "FishState",
    "GreedyAgent",
    "IllegalMoveError",
    "InvalidMoveError",
    "MCTSAgent",
    "Marathon",
    "MarathonMove",
    "MarathonPiece",
    "MarathonState",
    "RandomAgent",
    "SearchAgent",
    "SearchResult",
    "Searcher",
    "__version__",
    "fish",
    "load_game",
    "marathon",
    "play_match",
    "search",
    "svg",
    "variants",
]
