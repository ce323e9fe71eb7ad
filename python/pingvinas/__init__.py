"""pingvinas: fast, exact engines for the penguin games Fish and Penguin Marathon.

>>> import pingvinas as pv
>>> state = pv.Fish().new_state(seed=7)
>>> state.phase, state.to_move
('placement', 0)
>>> state.play(state.legal_moves()[0])
>>> state.to_move
1
"""

from . import fish
from ._core import (
    Fish,
    FishMove,
    FishState,
    IllegalMoveError,
    InvalidMoveError,
    __version__,
    variants,
)

__all__ = [
    "Fish",
    "FishMove",
    "FishState",
    "IllegalMoveError",
    "InvalidMoveError",
    "__version__",
    "fish",
    "variants",
]
