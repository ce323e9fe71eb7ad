"""Type stubs of the compiled core, ``pingvinas._core``."""

from os import PathLike
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

Cell = Tuple[int, int]

class IllegalMoveError(ValueError):
    """A well-formed move that the rules forbid in this position."""

class InvalidMoveError(ValueError):
    """Move text or an action number that does not denote a move."""

def variants() -> List[str]:
    """The names of every bundled variant config, both games."""

class Fish:
    """A Fish variant: the rules, and a fixed board or the standard board shuffled per game."""

    def __init__(
        self,
        players: int = 2,
        *,
        penguins: Optional[int] = None,
        board: Optional[Sequence[Sequence[int]]] = None,
        placement: str = "one-fish",
        order: str = "round-robin",
    ) -> None: ...
    @staticmethod
    def variant(name: str) -> Fish:
        """A bundled variant by name (see ``pingvinas.variants()``)."""
    @staticmethod
    def from_config(source: Union[str, PathLike[str], Mapping[str, Any]]) -> Fish:
        """A variant from a TOML file or a dict with the same keys."""
    @property
    def name(self) -> Optional[str]: ...
    @property
    def players(self) -> int: ...
    @property
    def penguins(self) -> int:
        """Penguins per player."""
    @property
    def placement(self) -> str: ...
    @property
    def order(self) -> str: ...
    @property
    def rows(self) -> int: ...
    @property
    def cols(self) -> int: ...
    @property
    def num_actions(self) -> int: ...
    def new_state(self, seed: Optional[int] = None) -> FishState:
        """The opening position; ``seed`` deals the standard board."""
    def position(
        self,
        board: Optional[Sequence[Sequence[int]]] = None,
        penguins: Optional[Sequence[Sequence[Cell]]] = None,
        to_move: int = 0,
        scores: Optional[Sequence[Tuple[int, int]]] = None,
    ) -> FishState:
        """A movement-phase position built from a board and the penguins of each player."""

class FishMove:
    """A placement (``src`` is None) or a slide from ``src`` to ``dst``."""

    @property
    def src(self) -> Optional[Cell]: ...
    @property
    def dst(self) -> Cell: ...
    @property
    def action(self) -> int: ...
    @property
    def is_placement(self) -> bool: ...

MoveLike = Union[FishMove, int, str]

class FishState:
    """A Fish position; ``play`` changes it in place."""

    def __init__(self, json: str) -> None: ...
    @staticmethod
    def from_json(text: str) -> FishState: ...
    def to_json(self) -> str: ...
    @property
    def to_move(self) -> Optional[int]: ...
    def current_player(self) -> int: ...
    @property
    def phase(self) -> str: ...
    @property
    def is_over(self) -> bool: ...
    def is_terminal(self) -> bool: ...
    @property
    def players(self) -> int: ...
    @property
    def num_actions(self) -> int: ...
    def legal_moves(self) -> List[FishMove]: ...
    def legal_actions(self) -> List[int]: ...
    def legal_action_mask(self) -> npt.NDArray[np.bool_]: ...
    def is_legal(self, move: MoveLike) -> bool: ...
    def parse_move(self, move: MoveLike) -> FishMove: ...
    def play(self, move: MoveLike) -> None: ...
    def apply_action(self, action: int) -> None: ...
    def after(self, move: MoveLike) -> FishState: ...
    def copy(self) -> FishState: ...
    def clone(self) -> FishState: ...
    @property
    def scores(self) -> List[Tuple[int, int]]: ...
    def ranking(self) -> List[int]: ...
    def returns(self) -> List[float]: ...
    @property
    def board(self) -> npt.NDArray[np.int32]: ...
    @property
    def penguins(self) -> List[List[Cell]]: ...
    @property
    def zobrist_hash(self) -> int: ...
    def observation_tensor(self, player: Optional[int] = None) -> npt.NDArray[np.float32]: ...

def fish_random_playouts(
    n: int,
    *,
    seed: int = 0,
    threads: int = 1,
    game: Optional[Fish] = None,
    state: Optional[FishState] = None,
    policy: str = "uniform",
) -> Tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]: ...

# --- Penguin Marathon -------------------------------------------------------------------------

from typing import NamedTuple

class MarathonPiece(NamedTuple):
    """A piece: ``(owner, kind, status, cell, facing)``."""

    owner: int
    kind: str
    """``"mama"``, ``"papa"`` or ``"baby"``."""
    status: str
    """``"waiting"``, ``"on course"`` or ``"finished"``."""
    cell: Optional[Cell]
    """``(row, col)`` on the course, else None."""
    facing: Optional[str]
    """None when upright (or off the course), else ``"N"`` … ``"NW"``."""

PieceLike = Union[
    Mapping[str, Any],
    Tuple[int, str],
    Tuple[int, str, str],
    Tuple[int, str, str, Optional[Cell]],
    Tuple[int, str, str, Optional[Cell], Optional[str]],
]

class Marathon:
    """A Penguin Marathon variant: a course, a number of players and a ply limit."""

    def __init__(self, players: int = 2, course: str = "marathon", *, ply_limit: int = 500) -> None:
        """``course``: ``"marathon"``/``"standard"``, ``"marathon-5"``/``"5"``,
        ``"marathon-l"``/``"l"``, ``"marathon-zigzag"``/``"zigzag"``, or an ASCII course map."""
    @staticmethod
    def variant(name: str) -> Marathon:
        """A bundled variant by name (see ``pingvinas.variants()``)."""
    @staticmethod
    def from_config(source: Union[str, PathLike[str], Mapping[str, Any]]) -> Marathon:
        """A variant from a TOML file or a dict with the same keys."""
    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def players(self) -> int: ...
    @property
    def ply_limit(self) -> int: ...
    @property
    def course(self) -> str:
        """The course as an ASCII map."""
    @property
    def cells(self) -> List[Cell]:
        """Course cells in row-major order (the order of the action encoding)."""
    @property
    def rows(self) -> int: ...
    @property
    def cols(self) -> int: ...
    @property
    def start(self) -> List[Cell]:
        """The outside places pieces enter from."""
    @property
    def finish(self) -> List[Cell]:
        """The outside places just beyond the finish line."""
    @property
    def num_actions(self) -> int: ...
    def to_toml(self) -> str: ...
    def new_state(self, seed: Optional[int] = None) -> MarathonState:
        """The opening position (``seed`` is ignored: the game has no chance)."""
    def position(
        self,
        pieces: Optional[Sequence[PieceLike]] = None,
        to_move: int = 0,
        ply: int = 0,
    ) -> MarathonState:
        """Any position from a list of pieces (dicts or tuples); unlisted pieces wait."""

class MarathonMove:
    """A move; ``str(move)`` is its notation."""

    @property
    def action(self) -> int: ...
    @property
    def player(self) -> int: ...
    @property
    def kind(self) -> str:
        """``"mama"``, ``"papa"`` or ``"baby"``."""
    @property
    def piece(self) -> str:
        """The same as ``kind``."""
    @property
    def type(self) -> str:
        """``"enter"``, ``"slide"`` or ``"stand"``."""
    @property
    def is_stand(self) -> bool: ...
    @property
    def is_entry(self) -> bool: ...
    @property
    def finishes(self) -> bool: ...
    @property
    def direction(self) -> Optional[str]: ...
    @property
    def src(self) -> Optional[Cell]:
        """The cell before the move; None for an entry."""
    @property
    def entry(self) -> Optional[Cell]:
        """For an entry, the outside place it entered from."""
    @property
    def dst(self) -> Optional[Cell]:
        """The cell it ends on; None when it finishes."""
    @property
    def facing(self) -> Optional[str]:
        """The facing it ends with; None when upright or finished."""

MarathonMoveLike = Union[MarathonMove, int, str]

class MarathonState:
    """A Penguin Marathon position; ``play`` changes it in place."""

    def __init__(self, json: str) -> None: ...
    @staticmethod
    def from_json(text: str) -> MarathonState: ...
    def to_json(self) -> str: ...
    @property
    def game(self) -> Marathon: ...
    @property
    def to_move(self) -> Optional[int]: ...
    def current_player(self) -> int: ...
    @property
    def is_over(self) -> bool: ...
    def is_terminal(self) -> bool: ...
    @property
    def winner(self) -> Optional[int]: ...
    @property
    def ply(self) -> int: ...
    @property
    def players(self) -> int: ...
    @property
    def num_actions(self) -> int: ...
    @property
    def pieces(self) -> List[MarathonPiece]: ...
    def legal_moves(self) -> List[MarathonMove]: ...
    def legal_actions(self) -> List[int]: ...
    def legal_action_mask(self) -> npt.NDArray[np.bool_]: ...
    def is_legal(self, move: MarathonMoveLike) -> bool: ...
    def parse_move(self, move: MarathonMoveLike) -> MarathonMove: ...
    def play(self, move: MarathonMoveLike) -> None: ...
    def apply_action(self, action: int) -> None: ...
    def after(self, move: MarathonMoveLike) -> MarathonState: ...
    def copy(self) -> MarathonState: ...
    def clone(self) -> MarathonState: ...
    def ranking(self) -> List[int]: ...
    def returns(self) -> List[float]: ...
    @property
    def zobrist_hash(self) -> int: ...

def marathon_random_playouts(
    n: int,
    *,
    seed: int = 0,
    threads: int = 1,
    game: Optional[Marathon] = None,
    state: Optional[MarathonState] = None,
) -> Tuple[npt.NDArray[np.int8], npt.NDArray[np.int32]]: ...

class Searcher:
    """A search engine for either game (MCTS, alpha-beta, greedy, random) that keeps its tree
    and transposition table between searches; ``pingvinas.search.Searcher`` wraps it."""

    def __init__(
        self,
        algorithm: str = "auto",
        *,
        threads: int = 1,
        seed: int = 0,
        exploration: Optional[float] = None,
        selection: str = "uct",
        playout: str = "auto",
        knowledge: bool = True,
        tt_mb: int = 64,
        reuse: bool = True,
    ) -> None: ...
    def search(
        self,
        state: Union[FishState, MarathonState],
        *,
        time: Optional[float] = None,
        iterations: Optional[int] = None,
        nodes: Optional[int] = None,
        depth: Optional[int] = None,
    ) -> Dict[str, Any]: ...
    def stop(self) -> None: ...
    def clear(self) -> None: ...
    @property
    def algorithm(self) -> str: ...

def fish_solve(state: FishState, *, max_nodes: int = 50_000_000) -> Dict[str, Any]:
    """The exact result of a small Fish position: final scores, best move, value."""
