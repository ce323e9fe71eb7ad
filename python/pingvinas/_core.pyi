"""Type stubs of the compiled core, ``pingvinas._core`` (``rust/bindings/src``).

Checked against the built module by ``python -m mypy.stubtest pingvinas._core``
(``tests/test_stubs.py``). Notes for editing:

- PyO3 classes are constructed by ``__new__`` (there is no ``__init__``) and cannot be
  subclassed, so every class here is ``@final`` and declares ``__new__``.
- Parameter names and defaults are the runtime ones (``mv``, not ``move``: keywords work).
- ``#[getter]``s are properties; everything else is a method.
- The ``_``-prefixed aliases exist only for type checking: nothing of that name is in the
  runtime module.
"""

from collections.abc import Iterable, Sequence
from os import PathLike
from typing import (
    Any,
    Callable,
    NamedTuple,
    NoReturn,
    final,
)

import numpy as np
import numpy.typing as npt

__all__ = [
    "__version__",
    "IllegalMoveError",
    "InvalidMoveError",
    "variants",
    "seed_for",
    "Fish",
    "FishState",
    "FishMove",
    "fish_random_playouts",
    "Marathon",
    "MarathonState",
    "MarathonMove",
    "MarathonPiece",
    "marathon_random_playouts",
    "Net",
    "NnueNet",
    "load_net",
    "Symmetry",
    "Searcher",
    "AgentSpec",
    "fish_solve",
    "search_many",
    "selfplay",
    "ALGORITHMS",
    "MAX_TIME",
]

__version__: str

# `(row, col)`; where a cell is read, any pair of ints (a tuple, a list, an array) is accepted.
_Cell = tuple[int, int]
_CellLike = tuple[int, int] | Sequence[int]
# A grid of fish counts, one list per row (0 = gap): nested lists/tuples or a 2-D int array.
_Grid = Sequence[Sequence[int]] | npt.NDArray[np.integer[Any]]
# A config: a path to a TOML file, or a dict with the same keys (a dict, not any mapping).
_ConfigSource = str | PathLike[str] | dict[str, Any]
# fn(observations, legal_mask) -> (policy_logits, values): see pingvinas.searching.searcher.
_Evaluator = Callable[[npt.NDArray[np.float32], npt.NDArray[np.bool_]], tuple[Any, Any]]

class IllegalMoveError(ValueError):
    """A well-formed move that the rules forbid in this position."""

class InvalidMoveError(ValueError):
    """Move text or an action number that does not denote a move."""

def variants() -> list[str]:
    """The names of every bundled variant config, both games."""

def seed_for(seed: int, index: int) -> int:
    """The seed of item ``index`` of a batch seeded with ``seed`` (the engine's
    ``Rng::for_item``): a non-negative 63-bit int."""

# --- Fish -------------------------------------------------------------------------------------

@final
class Fish:
    """A Fish variant: the rules, and a fixed board or the standard board shuffled per game.

    Variants with equal rules and boards compare equal and hash alike; picklable.
    """

    def __new__(
        cls,
        players: int | None = None,
        *,
        penguins: int | None = None,
        board: _Grid | None = None,
        placement: str = "one-fish",
        order: str = "round-robin",
    ) -> Fish:
        """``players``: 2 to 4 (None: 2); ``penguins``: per player, 1 to 8 (default: the
        standard number for ``players``);
        ``board``: a fixed board (default: the standard board dealt afresh per game);
        ``placement``: ``"one-fish"`` or ``"any"``; ``order``: ``"round-robin"`` or ``"snake"``."""
    @staticmethod
    def variant(name: str) -> Fish:
        """A bundled variant by name (see ``pingvinas.variants()``)."""
    @staticmethod
    def from_config(source: _ConfigSource) -> Fish:
        """A variant from a TOML file (a path) or a dict with the same keys."""
    def to_config(self) -> dict[str, Any]:
        """The config as a dict (what ``Fish.from_config`` reads)."""
    @property
    def name(self) -> str | None:
        """The variant's name, if it came from a config that names it."""
    @property
    def description(self) -> str | None:
        """The variant's description, if its config has one."""
    @property
    def players(self) -> int: ...
    @property
    def penguins(self) -> int:
        """Penguins per player."""
    @property
    def placement(self) -> str:
        """``"one-fish"`` or ``"any"``."""
    @property
    def order(self) -> str:
        """``"round-robin"`` or ``"snake"``."""
    @property
    def rows(self) -> int: ...
    @property
    def cols(self) -> int: ...
    def symmetries(self) -> list[Symmetry]:
        """The maps of the board onto itself, the identity first (see ``Symmetry``)."""
    @property
    def num_actions(self) -> int:
        """Size of the fixed action space of this variant's board."""
    @property
    def observation_shape(self) -> tuple[int, int, int]:
        """Shape ``(planes, rows, cols)`` of ``state.observation_tensor()``."""
    @property
    def max_game_length(self) -> int:
        """The most actions a game can last: placements plus one per floe."""
    def new_state(self, seed: int | None = None) -> FishState:
        """The opening position; ``seed`` (any int, taken modulo 2**64) deals the standard
        board (a random one when None); a fixed board is used as it is."""
    def position(
        self,
        board: _Grid | None = None,
        penguins: Sequence[Sequence[_CellLike]] | None = None,
        to_move: int | None = None,
        scores: Sequence[tuple[int, int]] | None = None,
    ) -> FishState:
        """A movement-phase position built from a board (default: the variant's fixed board),
        the penguins of each player (any number each), the player to move (None: 0) and the
        ``(fish, floes)`` so far."""
    def __reduce__(self) -> tuple[Callable[[dict[str, Any]], Fish], tuple[dict[str, Any]]]: ...

@final
class FishMove:
    """A placement (``src`` is None) or a slide from ``src`` to ``dst``; ``str(move)`` is its
    notation. Made by ``FishState`` (``legal_moves``, ``parse_move``); ``FishMove(src, dst,
    action)`` rebuilds one (pickle does)."""

    def __new__(cls, src: _Cell | None, dst: _Cell, action: int) -> FishMove:
        """Cells' rows and columns 0 to 65535; ``action`` 0 to 2**32 - 1."""
    def __reduce__(
        self,
    ) -> tuple[Callable[[_Cell | None, _Cell, int], FishMove], tuple[_Cell | None, _Cell, int]]: ...
    @property
    def src(self) -> _Cell | None: ...
    @property
    def dst(self) -> _Cell: ...
    @property
    def action(self) -> int:
        """The move's number in the action space."""
    @property
    def is_placement(self) -> bool: ...

# A move as ``play`` and friends take it: a move object, an int action or notation (``"c4"``,
# ``"a1-c1"``).
_MoveLike = FishMove | int | str

@final
class Net:
    """A policy-and-value network that pingvinas evaluates in Rust (architecture
    ``pingvinas-mlp`` 1: dense ReLU trunk layers over the flattened observation, a policy head
    of one logit per action and a ``tanh`` value head per seat from the observer), stored as a
    ``safetensors`` file whose header names the game's sizes.

    It is an evaluator: callable as ``fn(observations, legal_mask) -> (policy_logits, values)``,
    and a search or self-play given one runs it in Rust with the GIL released.
    """

    @staticmethod
    def load(path: str | PathLike[str]) -> Net:
        """Reads a net; ``ValueError`` says what is wrong with a file that is not one."""
    @staticmethod
    def from_bytes(data: bytes) -> Net: ...
    @staticmethod
    def random(game: Fish | Marathon, hidden: Sequence[int], *, seed: int | None = None) -> Net:
        """A net for ``game`` with seeded random weights and trunk layers of these widths (1
        to 16 layers, each 1 to 4096 wide); ``seed``: any int (modulo 2**64)."""
    @staticmethod
    def from_arrays(
        game: Fish | Marathon,
        trunk: Sequence[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]],
        policy: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]],
        value: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]],
    ) -> Net:
        """A net from its layers, ``(weight, bias)`` float32 pairs, ``weight`` of shape
        ``(outputs, inputs)`` (see :func:`pingvinas.nets.from_numpy`)."""
    def arrays(self) -> dict[str, Any]:
        """The layers as :meth:`from_arrays` takes them: ``trunk``, ``policy``, ``value``."""
    def save(self, path: str | PathLike[str]) -> None: ...
    def to_bytes(self) -> bytes: ...
    @property
    def game(self) -> str: ...
    @property
    def observation_shape(self) -> tuple[int, int, int]: ...
    @property
    def num_actions(self) -> int: ...
    @property
    def num_players(self) -> int: ...
    @property
    def hidden(self) -> list[int]: ...
    def __call__(
        self, observations: npt.NDArray[np.float32], legal_mask: npt.NDArray[np.bool_]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]: ...
    def __reduce__(self) -> tuple[Callable[[bytes], Net], tuple[bytes]]: ...

@final
class NnueNet:
    """An evaluation-only network for alpha-beta in the manner of Stockfish's NNUE
    (architecture ``pingvinas-nnue`` 1, Fish only): per-player accumulators over 0/1 cell
    features (a floe of 1, 2 or 3 fish, a penguin of each seat, from that player's view), then
    dense ReLU layers and a ``tanh`` value per seat, stored as a ``safetensors`` file like
    :class:`Net`. A move changes a few features, so an accumulator can be updated from its
    parent's; the searches that take one (``alphabeta``, ``mcts``, ``auto``, as
    ``evaluator=``) update each thread's last leaf's accumulators to the next leaf. A residual
    net (a ``base`` layer) corrects the hand-written evaluation's estimate, and a net may
    also read that evaluation's terms, which mean the same on every board. Not an evaluator
    for ``puct`` (no policy).
    """

    @staticmethod
    def load(path: str | PathLike[str]) -> NnueNet:
        """Reads a net; ``ValueError`` says what is wrong with a file that is not one (a
        :class:`Net`'s file included)."""
    @staticmethod
    def from_bytes(data: bytes) -> NnueNet: ...
    @staticmethod
    def random(
        game: Fish, width: int = 64, hidden: Sequence[int] = ..., *, seed: int | None = None
    ) -> NnueNet:
        """A net for ``game`` with seeded random weights, accumulators of ``width`` (1 to 4096)
        and dense layers of the widths ``hidden`` (default ``[32, 32]``; 1 to 16 layers, each 1
        to 4096 wide); ``seed``: any int (modulo 2**64)."""
    @staticmethod
    def from_arrays(
        game: Fish,
        features: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]],
        dense: Sequence[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]],
        value: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]],
        base: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]] | None = None,
    ) -> NnueNet:
        """A net from its layers, ``(weight, bias)`` float32 pairs, ``weight`` of shape
        ``(outputs, inputs)``: ``features`` ``(width, (3 + players) * cells)``, the ``dense``
        layers (the first takes ``players * width + players`` inputs, or ``players * 11``
        more to read the hand-written evaluation's terms, :meth:`inputs`; ``width`` may be 0
        then), the ``value`` head;
        ``base`` (``(1, 1)``, ``(1,)``) makes a residual net: each seat's value is then
        ``tanh(value + base_weight * atanh(e) + base_bias)``, ``e`` the hand-written
        evaluation's estimate of the seat."""
    def arrays(self) -> dict[str, Any]:
        """The layers as :meth:`from_arrays` takes them: ``features``, ``dense``, ``value``,
        ``base`` (``None`` for a net without one)."""
    def inputs(self, states: Sequence[FishState]) -> dict[str, npt.NDArray[Any]]:
        """What the net reads of each state, each seat from the player to move on:
        ``features`` (uint8 ``(n, players, features)``), ``scores`` and ``estimate`` (float32
        ``(n, players)``, the hand-written evaluation's estimate that a residual net
        corrects) and ``terms`` (float32 ``(n, players, 11)``, a tenth of each of that
        evaluation's terms, which a net whose first dense layer takes ``players * 11`` more
        inputs reads)."""
    def save(self, path: str | PathLike[str]) -> None: ...
    def to_bytes(self) -> bytes: ...
    @property
    def game(self) -> str: ...
    @property
    def observation_shape(self) -> tuple[int, int, int]: ...
    @property
    def num_players(self) -> int: ...
    @property
    def width(self) -> int: ...
    @property
    def hidden(self) -> list[int]: ...
    def value(self, state: FishState) -> list[float]:
        """The net's value of ``state`` for each player, player 0 first."""
    def __reduce__(self) -> tuple[Callable[[bytes], NnueNet], tuple[bytes]]: ...

def load_net(path: str | PathLike[str]) -> Net | NnueNet:
    """Reads a net file of either kind, as its header's ``format`` says."""

@final
class Symmetry:
    """A map of a board onto itself (``game.symmetries()``): ``actions[a]`` is the image of
    action ``a``, ``cells[i]`` of observation cell ``i = row * cols + col``, ``planes[p]`` the
    plane that plane ``p``'s values move to."""

    @property
    def name(self) -> str: ...
    @property
    def actions(self) -> npt.NDArray[np.int64]: ...
    @property
    def cells(self) -> npt.NDArray[np.int64]: ...
    @property
    def planes(self) -> npt.NDArray[np.int64]: ...

@final
class FishState:
    """A Fish position; ``play`` changes it in place, ``after`` and ``copy`` make new ones.

    Picklable and copyable; equal positions compare equal and hash alike.
    """

    def __new__(cls, json: str) -> FishState:
        """A state from its JSON (the same as ``FishState.from_json``); used by pickle."""
    @staticmethod
    def from_json(text: str) -> FishState: ...
    def to_json(self) -> str: ...
    @property
    def game(self) -> Fish:
        """The game of this state: its rules with this state's board."""
    @property
    def to_move(self) -> int | None:
        """The player to move, None when the game is over."""
    def current_player(self) -> int:
        """OpenSpiel's name: the player to move, or -4 (terminal) when the game is over."""
    @property
    def phase(self) -> str:
        """``"placement"``, ``"movement"`` or ``"over"``."""
    @property
    def is_over(self) -> bool: ...
    def is_terminal(self) -> bool:
        """OpenSpiel's name for ``is_over``."""
    @property
    def players(self) -> int: ...
    def transformed(self, symmetry: Symmetry) -> FishState:
        """The image of this state under one of ``game.symmetries()``."""
    @property
    def num_actions(self) -> int: ...
    def legal_moves(self) -> list[FishMove]:
        """The legal moves, in ascending action order."""
    def legal_actions(self) -> list[int]:
        """The legal actions, ascending (empty only when the game is over)."""
    def legal_action_mask(self) -> npt.NDArray[np.bool_]:
        """A bool array over the action space, True for legal actions."""
    def is_legal(self, mv: _MoveLike) -> bool: ...
    def parse_move(self, mv: _MoveLike) -> FishMove:
        """The legal move ``mv`` denotes; ``IllegalMoveError``/``InvalidMoveError`` if none."""
    def play(self, mv: _MoveLike) -> None:
        """Plays a move in place; raises ``IllegalMoveError`` (state unchanged) if illegal."""
    def apply_action(self, action: int) -> None:
        """OpenSpiel's name: plays an int action (checked)."""
    def after(self, mv: _MoveLike) -> FishState:
        """A new state with the move played; this one is unchanged."""
    def action_to_string(self, action: _MoveLike) -> str:
        """The notation of a legal action."""
    def copy(self) -> FishState: ...
    def clone(self) -> FishState:
        """OpenSpiel's name for ``copy``."""
    def __copy__(self) -> FishState: ...
    def __deepcopy__(self, memo: Any, /) -> FishState: ...
    def __reduce__(self) -> tuple[Callable[[str], FishState], tuple[str]]: ...
    @property
    def scores(self) -> list[tuple[int, int]]:
        """``(fish, floes)`` collected by each player so far."""
    def ranking(self) -> list[int]:
        """Places per player, 1 = first; equal players share a place (``[1, 1, 3]``)."""
    def returns(self) -> list[float]:
        """Zero-sum returns at the end (two players: +1/-1, 0/0 for a draw); zeros before."""
    @property
    def board(self) -> npt.NDArray[np.int32]:
        """Fish on each remaining floe, shape ``(rows, cols)``; 0 for gaps and removed floes."""
    @property
    def start_board(self) -> npt.NDArray[np.int32]:
        """The board at the start of the game, shape ``(rows, cols)``: fish on every floe,
        those gone since included; 0 for gaps."""
    @property
    def penguins(self) -> list[list[_Cell]]:
        """Penguins on the board, one list of ``(row, col)`` per player."""
    @property
    def zobrist_hash(self) -> int: ...
    def svg(
        self,
        size: float | None = None,
        *,
        lastmove: FishMove | str | tuple[_Cell | None, _Cell] | None = None,
        arrows: Iterable[Any] | None = None,
        labels: bool = True,
        flipped: bool = False,
    ) -> str:
        """An SVG picture (``pingvinas.svg.state_svg``): ``size`` is the width in pixels
        (None: natural); ``lastmove`` marked by an arrow; ``arrows``: ``(src, dst)`` pairs,
        ``(src, dst, colour)`` triples or moves; ``labels``: coordinates and scores;
        ``flipped``: turned by 180 degrees."""
    def _repr_svg_(self) -> str:
        """The picture Jupyter shows."""
    def observation_tensor(self, player: int | None = None) -> npt.NDArray[np.float32]:
        """Planes ``game.observation_shape`` = ``(4 + 5 * players, rows, cols)`` from
        ``player``'s view (default: the player to move): floes with 1, 2 and 3+ fish, the
        penguins of each seat, then per seat fish and floes collected and penguins still to
        place (scaled), the seat to move, and a placement-phase plane (README)."""

def fish_random_playouts(
    n: int,
    *,
    seed: int | None = None,
    threads: int | None = None,
    game: Fish | None = None,
    state: FishState | None = None,
    policy: str = "uniform",
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """``(fish, floes)`` of ``n`` random games (0 to 2**32), each of shape ``(n, players)``;
    ``seed``: any int (modulo 2**64); ``threads``: 0 (every core) to 256; ``policy``:
    ``"uniform"`` or ``"fast"``; ``state``, when ``game`` is given too, a position of that game
    (else ``ValueError``). Wrapped by ``pingvinas.fish.random_playouts``."""

# --- Penguin Marathon -------------------------------------------------------------------------

class MarathonPiece(NamedTuple):
    """A piece: ``(owner, kind, status, cell, facing)``."""

    owner: int
    kind: str
    """``"mama"``, ``"papa"`` or ``"baby"``."""
    status: str
    """``"waiting"``, ``"on course"`` or ``"finished"``."""
    cell: _Cell | None
    """``(row, col)`` on the course, else None."""
    facing: str | None
    """None when upright (or off the course), else ``"N"`` … ``"NW"``."""

# A piece as ``Marathon.position`` takes it: a dict with the keys ``owner``, ``kind`` and
# optionally ``status``, ``cell``, ``facing``, or a tuple (or list) in that order of which the
# last three may be left out. A ``MarathonPiece`` is such a tuple.
_PieceLike = (
    dict[str, Any]
    | tuple[int, str]
    | tuple[int, str, str | None]
    | tuple[int, str, str | None, _Cell | None]
    | tuple[int, str, str | None, _Cell | None, str | None]
    | list[Any]
)

@final
class Marathon:
    """A Penguin Marathon variant: a course, a number of players and a ply limit.

    Equal variants compare equal and hash alike; picklable.
    """

    def __new__(
        cls,
        players: int | None = None,
        course: str = "marathon",
        *,
        ply_limit: int | None = None,
    ) -> Marathon:
        """``players``: 2 to 5 (None: 2). ``course``: ``"marathon"``/``"standard"``,
        ``"marathon-5"``/``"5"``, ``"marathon-l"``/``"l"``, ``"marathon-zigzag"``/``"zigzag"``,
        or an ASCII course map. ``ply_limit``: a game reaching this many actions is a draw, 0
        to 2**32 - 1 (None: 500)."""
    @staticmethod
    def variant(name: str) -> Marathon:
        """A bundled variant by name (see ``pingvinas.variants()``; the short names work too)."""
    @staticmethod
    def from_config(source: _ConfigSource) -> Marathon:
        """A variant from a TOML file (a path) or a dict with the same keys."""
    @property
    def name(self) -> str | None: ...
    @property
    def description(self) -> str | None: ...
    @property
    def players(self) -> int: ...
    @property
    def ply_limit(self) -> int: ...
    @property
    def course(self) -> str:
        """The course as an ASCII map."""
    @property
    def cells(self) -> list[_Cell]:
        """Course cells in row-major order (the order of the action encoding)."""
    @property
    def rows(self) -> int: ...
    @property
    def cols(self) -> int: ...
    @property
    def start(self) -> list[_Cell]:
        """The outside places pieces enter from."""
    @property
    def finish(self) -> list[_Cell]:
        """The outside places just beyond the finish line."""
    def symmetries(self) -> list[Symmetry]:
        """The maps of the board onto itself, the identity first (see ``Symmetry``)."""
    @property
    def num_actions(self) -> int:
        """Size of the fixed action space: ``3 * (9 * cells + 1)``."""
    @property
    def observation_shape(self) -> tuple[int, int, int]:
        """Shape ``(planes, rows, cols)`` of ``state.observation_tensor()``."""
    @property
    def max_game_length(self) -> int:
        """The most actions a game can last: the ply limit (the game is then a draw)."""
    def to_config(self) -> dict[str, Any]:
        """The config as a dict (what ``from_config`` reads)."""
    def to_toml(self) -> str:
        """The config as TOML text (readable by ``Marathon.from_config``)."""
    def new_state(self, seed: int | None = None) -> MarathonState:
        """The opening position (``seed`` is ignored: the game has no chance)."""
    def position(
        self,
        pieces: Sequence[_PieceLike] | None = None,
        to_move: int | None = None,
        ply: int | None = None,
    ) -> MarathonState:
        """Any position from a list of pieces (dicts or tuples); unlisted pieces wait.
        ``to_move`` and ``ply`` (actions already played) default to 0."""
    def __reduce__(self) -> tuple[Callable[[dict[str, Any]], Marathon], tuple[dict[str, Any]]]: ...

@final
class MarathonMove:
    """A move; ``str(move)`` is its notation. Made by ``MarathonState`` (``legal_moves``,
    ``parse_move``); the constructor rebuilds one from its parts (pickle does)."""

    def __new__(
        cls,
        action: int,
        player: int,
        kind: str,
        src: _Cell | None,
        entry: _Cell | None,
        direction: str | None,
        dst: _Cell | None,
        facing: str | None,
    ) -> MarathonMove:
        """``action`` 0 to 2**32 - 1; ``player`` 0 to 7; cells' coordinates 32-bit ints."""
    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]: ...
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
    def direction(self) -> str | None:
        """The slide direction (``"N"`` … ``"NW"``); None for a stand."""
    @property
    def src(self) -> _Cell | None:
        """The cell before the move; None for an entry."""
    @property
    def entry(self) -> _Cell | None:
        """For an entry, the outside place it entered from."""
    @property
    def dst(self) -> _Cell | None:
        """The cell it ends on; None when it finishes."""
    @property
    def facing(self) -> str | None:
        """The facing it ends with; None when upright or finished."""

# A move as ``play`` and friends take it: a move object, an int action or notation
# (``"B 0,1 S 3,1 SE"``).
_MarathonMoveLike = MarathonMove | int | str

@final
class MarathonState:
    """A Penguin Marathon position; ``play`` changes it in place, ``after`` and ``copy`` make
    new ones.

    Picklable and copyable; equal positions compare equal and hash alike.
    """

    def __new__(cls, json: str) -> MarathonState:
        """A state from its JSON (the same as ``MarathonState.from_json``); used by pickle."""
    @staticmethod
    def from_json(text: str) -> MarathonState: ...
    def to_json(self) -> str: ...
    @property
    def game(self) -> Marathon:
        """The variant this state belongs to."""
    @property
    def to_move(self) -> int | None:
        """The player to move, None when the game is over."""
    def current_player(self) -> int:
        """OpenSpiel's name: the player to move, or -4 (terminal) when the game is over."""
    @property
    def is_over(self) -> bool: ...
    def is_terminal(self) -> bool:
        """OpenSpiel's name for ``is_over``."""
    @property
    def winner(self) -> int | None:
        """The player whose family came home first; None while the game is on or after a draw."""
    @property
    def ply(self) -> int:
        """Actions played so far."""
    @property
    def players(self) -> int: ...
    def transformed(self, symmetry: Symmetry) -> MarathonState:
        """The image of this state under one of ``game.symmetries()``."""
    @property
    def num_actions(self) -> int: ...
    @property
    def pieces(self) -> list[MarathonPiece]:
        """Every piece, by owner then kind."""
    def legal_moves(self) -> list[MarathonMove]:
        """The legal moves, in ascending action order."""
    def legal_actions(self) -> list[int]:
        """The legal actions, ascending (empty only when the game is over)."""
    def legal_action_mask(self) -> npt.NDArray[np.bool_]:
        """A bool array over the action space, True for legal actions."""
    def is_legal(self, mv: _MarathonMoveLike) -> bool: ...
    def parse_move(self, mv: _MarathonMoveLike) -> MarathonMove:
        """The legal move ``mv`` denotes; ``IllegalMoveError``/``InvalidMoveError`` if none."""
    def play(self, mv: _MarathonMoveLike) -> None:
        """Plays a move in place; raises ``IllegalMoveError`` (state unchanged) if illegal."""
    def apply_action(self, action: int) -> None:
        """OpenSpiel's name: plays an int action (checked)."""
    def after(self, mv: _MarathonMoveLike) -> MarathonState:
        """A new state with the move played; this one is unchanged."""
    def action_to_string(self, action: _MarathonMoveLike) -> str:
        """The notation of a legal action."""
    def copy(self) -> MarathonState: ...
    def clone(self) -> MarathonState:
        """OpenSpiel's name for ``copy``."""
    def __copy__(self) -> MarathonState: ...
    def __deepcopy__(self, memo: Any, /) -> MarathonState: ...
    def __reduce__(self) -> tuple[Callable[[str], MarathonState], tuple[str]]: ...
    def ranking(self) -> list[int]:
        """Places per player: the winner 1 and everyone else 2; all 1 in a draw or while the
        game is on."""
    def returns(self) -> list[float]:
        """Zero-sum returns: the winner +1, the others -1/(players-1); zeros for a draw and
        while the game is on."""
    @property
    def zobrist_hash(self) -> int:
        """The 64-bit Zobrist hash (pieces and the player to move; not the ply)."""
    def svg(
        self,
        size: float | None = None,
        *,
        lastmove: MarathonMove | str | tuple[_Cell | None, _Cell] | None = None,
        arrows: Iterable[Any] | None = None,
        labels: bool = True,
        flipped: bool = False,
    ) -> str:
        """An SVG picture (``pingvinas.svg.state_svg``): ``size`` is the width in pixels
        (None: natural); ``lastmove`` marked by an arrow; ``arrows``: ``(src, dst)`` pairs,
        ``(src, dst, colour)`` triples or moves; ``labels``: coordinates and scores;
        ``flipped``: turned by 180 degrees."""
    def _repr_svg_(self) -> str:
        """The picture Jupyter shows."""
    def observation_tensor(self, player: int | None = None) -> npt.NDArray[np.float32]:
        """Planes ``game.observation_shape`` = ``(11 + 10 * players, rows, cols)`` over the
        course's bounding box from ``player``'s view (default: the player to move; seats follow
        in turn order): the course cells; where each piece stands (seat by seat: mama, papa,
        baby); lying pieces by facing (N ... NW) and upright pieces; per piece a plane of ones
        while it waits and one once it has finished; the ply over the ply limit; the seat to
        move (README)."""

def marathon_random_playouts(
    n: int,
    *,
    seed: int | None = None,
    threads: int | None = None,
    game: Marathon | None = None,
    state: MarathonState | None = None,
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int32]]:
    """``(winners, plies)`` of ``n`` random games (0 to 2**32), each of shape ``(n,)`` (winner
    -1: a draw); ``seed``: any int (modulo 2**64); ``threads``: 0 (every core) to 256;
    ``state``, when ``game`` is given too, a position of that game (else ``ValueError``).
    Wrapped by ``pingvinas.marathon.random_playouts``."""

# --- Search -----------------------------------------------------------------------------------

@final
class AgentSpec:
    NAMES: tuple[str, ...]
    def __new__(cls, text: str) -> AgentSpec: ...
    @property
    def algorithm(self) -> str: ...
    @property
    def iterations(self) -> int | None: ...
    @property
    def depth(self) -> int | None: ...
    @property
    def budget(self) -> dict[str, int]:
        """The fixed budget of a move as ``pingvinas.search`` keywords."""
    @property
    def net(self) -> str | None: ...
    @property
    def learned(self) -> bool:
        """Whether it is ``"learned"`` (alpha-beta with ``pingvinas.evaluators.learned()``)."""
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Searcher:
    """A search engine for either game (MCTS, alpha-beta, greedy, random) that keeps its tree
    and transposition table between searches; ``pingvinas.searching.searcher.Searcher`` wraps it."""

    def __new__(
        cls,
        algorithm: str = "auto",
        *,
        threads: int | None = None,
        seed: int | None = None,
        exploration: float | None = None,
        selection: str = "uct",
        playout: str = "auto",
        knowledge: bool = True,
        tt_mb: int | None = None,
        memory_mb: int | None = None,
        reuse: bool = True,
        evaluator: _Evaluator | NnueNet | None = None,
        batch_size: int | None = None,
        dirichlet: tuple[float, float] | None = None,
        root: str = "puct",
        playout_mix: float = 0.0,
    ) -> Searcher:
        """``threads``: threads searching at once, 1 (the default) to 256, as
        ``pingvinas.searching.searcher.Searcher`` describes; ``seed``: any int (modulo 2**64);
        ``exploration``: 0 to 1e6;
        ``tt_mb``: 1 to 4096; ``memory_mb``: 1 to 2**20; ``batch_size``: 1 to 65536;
        ``dirichlet``: ``(alpha, fraction)``, alpha 0.001 to 1000, fraction 0 to 1; ``root``:
        ``"puct"``, or ``"gumbel"`` with ``algorithm="puct"`` only; ``playout_mix``: 0 to 1.
        A value out of range raises ``ValueError`` naming it."""
    def search(
        self,
        state: FishState | MarathonState,
        *,
        time: float | None = None,
        iterations: int | None = None,
        nodes: int | None = None,
        depth: int | None = None,
    ) -> tuple[Any, ...]:
        """The fields of ``pingvinas.searching.searcher.SearchResult``, in order (move, action,
        value, pv, nodes, iterations, depth, time, visits, exact, interrupted, algorithm). ``time``:
        seconds above 0, at most 604800 (a week); ``iterations`` and ``nodes``: 1 to 2**40;
        ``depth``: 1 to 1000; a value out of range raises ``ValueError`` naming it."""
    def stop(self) -> None:
        """Asks a running search to stop now (it returns its best move so far). Thread-safe."""
    def clear(self) -> None:
        """Forgets the kept trees and transposition table."""
    @property
    def algorithm(self) -> str: ...
    def __reduce__(self) -> NoReturn:
        """Raises ``TypeError``: a searcher holds search trees and is not pickled."""

def fish_solve(
    state: FishState,
    *,
    max_nodes: int = 50_000_000,
    time: float | None = None,
    tt_mb: int = 512,
    symmetry: bool = True,
    all_values: bool = False,
    progress: Callable[[int, float], object] | None = None,
) -> dict[str, Any]:
    """The exact result of a small Fish position: a dict with scores, best (action, None when
    over), moves (every optimal action), values ([(action, (fish, floes))]), pv, value, nodes,
    time. ``max_nodes``: 1 to 2**40; ``time``: seconds above 0 (None: no limit); ``tt_mb``: 1
    to 65536. Wrapped by ``pingvinas.searching.searcher.solve_fish``."""

def search_many(
    states: Sequence[FishState] | Sequence[MarathonState],
    *,
    evaluator: _Evaluator,
    time: float | None = None,
    iterations: int | None = None,
    nodes: int | None = None,
    batch_size: int | None = None,
    seed: int | None = None,
    exploration: float | None = None,
    dirichlet: tuple[float, float] | None = None,
    knowledge: bool = True,
    memory_mb: int | None = None,
    root: str = "puct",
    threads: int | None = None,
) -> list[tuple[Any, ...]]:
    """PUCT searches of many states, one tree each, every round's leaves of all trees in one
    evaluator call; one result tuple per state. The ranges of ``Searcher`` and
    ``Searcher.search``. Wrapped by ``pingvinas.searching.searcher.search_many``."""

def selfplay(
    game: Fish | Marathon,
    games: npt.NDArray[np.int64],
    *,
    simulations: int,
    evaluator: _Evaluator | None = None,
    temperature: float = 1.0,
    temperature_moves: int | None = None,
    dirichlet: tuple[float, float] | None = None,
    batch_size: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    resign: float | None = None,
    playout_cap: tuple[float, int] | None = None,
    exploration: float | None = None,
    max_live: int | None = None,
    progress: Callable[[int], object] | None = None,
    root: str = "puct",
) -> dict[str, npt.NDArray[Any]]:
    """Self-play games as a dict of numpy arrays (the fields of
    ``pingvinas.learn.selfplay.SelfPlayData``, plus ``game_list``, ``game_lengths`` and
    ``game_resigned`` per game). ``games``: at most 2**24 indices, none negative;
    ``simulations``: 1 to 2**40; ``temperature``: 0 to 100; ``temperature_moves``: 0 to
    2**32 - 1; ``batch_size``: 1 to 65536; ``threads``: 0 (every core) to 256; ``resign``: a
    root value from -1 to 1; ``playout_cap``: ``(p, fast)``, ``p`` 0 to 1 and ``fast`` 1 to
    ``simulations``; ``max_live``: 1 to 2**20. Wrapped by ``pingvinas.learn.selfplay.selfplay``."""

#: The names ``Searcher(algorithm=...)`` accepts, ``"auto"`` first.
ALGORITHMS: tuple[str, ...]
#: The longest time budget, in seconds (a week), wherever one is given.
MAX_TIME: float

# --- Vector environment -------------------------------------------------------------------------

__all__ += ["VectorEnv"]

@final
class VectorEnv:
    """``num_envs`` games of one game stepped together in Rust, outputs in numpy buffers the env
    owns (the same arrays on every call: copy what you keep, or pass ``copy=True``). Autoreset
    is Gymnasium's same-step mode. See ``help(pingvinas.VectorEnv)``."""

    def __new__(
        cls,
        game: Fish | Marathon,
        num_envs: int,
        *,
        seed: int | None = None,
        threads: int | None = None,
        opponent: str | None = None,
        learner: int | str | None = None,
        opponent_time: float | None = None,
        reward: str = "returns",
        copy: bool = False,
    ) -> VectorEnv:
        """``num_envs``: 1 to 2**24; ``seed``: any int (modulo 2**64); ``threads``: the most
        threads a call shares its envs out to (the calling thread and helpers kept between
        calls; a batch too small to pay for it stays on the calling thread), one by default
        (None), 0 (every core) to 256; results do not depend on it (docs/performance.md
        measures it); ``learner``: a seat of the game or ``"random"``, and ``opponent_time``:
        seconds above 0, at most ``MAX_TIME`` (a week), bounding each opponent move (None:
        1.0), both with an ``opponent`` only."""
    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, npt.NDArray[Any]]]:
        """``(observations, info)`` of a new game in every env (game 0 of each env's stream
        from ``seed``, or the next game of each stream without one)."""
    def step(
        self, actions: npt.NDArray[np.integer[Any]] | Sequence[int]
    ) -> tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, npt.NDArray[Any]],
    ]:
        """``(observations, rewards, terminations, truncations, info)`` after ``actions[i]`` in
        env ``i``; raises ``IllegalMoveError`` / ``InvalidMoveError`` naming the first bad env,
        and then no env has moved."""
    def state(self, i: int) -> FishState | MarathonState:
        """The state of env ``i`` (a copy)."""
    def states(self) -> list[FishState | MarathonState]:
        """Every env's state (copies)."""
    def set_state(self, i: int, state: FishState | MarathonState) -> None:
        """Loads ``state`` into env ``i`` (same rules, players and size) and updates its row of
        the buffers."""
    def game_seed(self, env: int, game: int | None = None) -> int:
        """The seed of game ``game`` (default: the current one) of env ``env``."""
    @property
    def game_index(self) -> npt.NDArray[np.int64]: ...
    @property
    def learners(self) -> npt.NDArray[np.int32] | None: ...
    @property
    def num_envs(self) -> int: ...
    @property
    def observation_shape(self) -> tuple[int, int, int]: ...
    @property
    def num_actions(self) -> int: ...
    @property
    def legal_width(self) -> int: ...
    @property
    def players(self) -> int: ...
    @property
    def game(self) -> Fish | Marathon: ...
    @property
    def threads(self) -> int: ...
    @property
    def opponent(self) -> str | None: ...
    @property
    def opponent_time(self) -> float | None:
        """The bound on each opponent move in seconds; None without an opponent."""
    @property
    def reward(self) -> str: ...
    @property
    def seed(self) -> int: ...
    def __len__(self) -> int: ...
