"""pingvinas: fast, exact engines for the penguin games Fish and Penguin Marathon.

```pycon
>>> import pingvinas as pv
>>> state = pv.Fish().new_state(seed=7)
>>> state.phase, state.to_move
('placement', 0)
>>> state.play(state.legal_moves()[0])
>>> state.to_move
1

```
"""

from . import fish, games, marathon, record, svg
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
from .games import Game, Move, State, load_game
from .learn.selfplay import SelfPlayData, selfplay
from .playing.agents import AlphaBetaAgent, GreedyAgent, MCTSAgent, RandomAgent, SearchAgent
from .playing.match import play_match
from .record import GameRecord
from .searching.searcher import Searcher, SearchResult, search, search_many

# The packages by purpose, and short names for the modules users reach most.
from . import agents, cluster, evaluators, learn, match, nets, play, playing, rating, searching  # isort: skip

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
    "cluster",
    "evaluators",
    "fish",
    "games",
    "learn",
    "load_game",
    "marathon",
    "match",
    "nets",
    "play",
    "play_match",
    "playing",
    "rating",
    "record",
    "search",
    "search_many",
    "searching",
    "selfplay",
    "svg",
    "variants",
]
