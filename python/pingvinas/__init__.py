"""pingvinas: fast, exact engines for the penguin games Fish and Penguin Marathon.

>>> import pingvinas as pv
>>> state = pv.Fish().new_state(seed=7)
>>> state.phase, state.to_move
('placement', 0)
>>> state.play(state.legal_moves()[0])
>>> state.to_move
1
"""

# The old module names (search, selfplay) are imported before the functions of their names:
# imported later, they would rebind `pv.search` and `pv.selfplay` to the modules.
from . import evaluators, fish, marathon, nets, record, svg
from . import search as _search_module
from . import selfplay as _selfplay_module
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
    VectorEnv,
    __version__,
    variants,
)
from .agents import AlphaBetaAgent, GreedyAgent, MCTSAgent, RandomAgent, SearchAgent
from .games import Game, Move, State, load_game
from .match import play_match
from .record import GameRecord
from .searcher import Searcher, SearchResult, search, search_many
from .training import SelfPlayData, selfplay

del _search_module, _selfplay_module

__all__ = [
    "AlphaBetaAgent",
    "Fish",
    "FishMove",
    "FishState",
    "Game",
    "GameRecord",
    "GreedyAgent",
    "IllegalMoveError",
    "InvalidMoveError",
    "MCTSAgent",
    "Marathon",
    "MarathonMove",
    "MarathonPiece",
    "MarathonState",
    "Move",
    "RandomAgent",
    "SearchAgent",
    "SearchResult",
    "Searcher",
    "SelfPlayData",
    "State",
    "VectorEnv",
    "__version__",
    "agents",
    "distributed",
    "evaluators",
    "fish",
    "games",
    "load_game",
    "marathon",
    "match",
    "nets",
    "play_match",
    "record",
    "samples",
    "search",
    "search_many",
    "searcher",
    "selfplay",
    "svg",
    "training",
    "variants",
]
