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

from . import _core, fish
from ._core import (
    Fish,
    FishMove,
    FishState,
    IllegalMoveError,
    InvalidMoveError,
    __version__,
    variants,
)
from .agents import AlphaBetaAgent, GreedyAgent, MCTSAgent, RandomAgent, SearchAgent
from .match import play_match
from .search import Searcher, SearchResult, search

if hasattr(_core, "Marathon"):
    from . import marathon
    from ._core import Marathon, MarathonMove, MarathonPiece, MarathonState


def load_game(name: str) -> "Union[Fish, Marathon]":
    """A bundled variant of either game by name: ``load_game("fish-3p")``,
    ``load_game("marathon-zigzag")`` (``pingvinas.variants()`` lists them)."""
    games = [Fish] + ([Marathon] if hasattr(_core, "Marathon") else [])
    for game in games:
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
    "RandomAgent",
    "SearchAgent",
    "SearchResult",
    "Searcher",
    "__version__",
    "fish",
    "load_game",
    "play_match",
    "search",
    "variants",
]
if hasattr(_core, "Marathon"):
    __all__ += ["Marathon", "MarathonMove", "MarathonPiece", "MarathonState", "marathon"]
