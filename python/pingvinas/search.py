"""Search for both games: MCTS and alpha-beta written once in Rust, and the exact Fish solver.

>>> import pingvinas as pv
>>> from pingvinas.search import search
>>> state = pv.Fish().new_state(seed=1)
>>> result = search(state, algorithm="mcts", iterations=200, seed=3)
>>> result.move in state.legal_moves()
True
>>> result.visits.shape == (state.num_actions,)
True

The search itself runs in Rust with the GIL released; Ctrl-C stops it cleanly (and raises
``KeyboardInterrupt``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, TypedDict

import numpy as np

from . import _core

__all__ = ["ALGORITHMS", "FishSolution", "SearchResult", "Searcher", "search", "solve_fish"]

#: The names ``algorithm`` accepts, ``"auto"`` first (defined once, in the engine binding).
ALGORITHMS: Tuple[str, ...] = tuple(_core.ALGORITHMS)


def _move_of(state: Any, action: int) -> Any:
    """The move object of ``action`` in ``state``."""
    try:
        return state.parse_move(int(action))
    except (TypeError, AttributeError):
        for m in state.legal_moves():
            if m.action == action:
                return m
        raise


def _moves_along(state: Any, actions: Sequence[int]) -> List[Any]:
    """The move objects of a line of actions played from ``state`` (stops at the first that
    does not apply)."""
    s = state.copy()
    moves = []
    for a in actions:
        try:
            m = _move_of(s, a)
            s.play(m)
        except ValueError:
            break
        moves.append(m)
    return moves


@dataclass(frozen=True)
class SearchResult:
    """What a search found.

    :ivar move: the move to play (a ``FishMove`` or ``MarathonMove``).
    :ivar action: the same as an int in the game's action space.
    :ivar value: its value for the player to move, in ``[-1, 1]`` (MCTS: mean return of the
        playouts through it; alpha-beta: the minimax value, exact when ``exact``).
    :ivar pv: the principal variation (expected line of play), starting with ``move``.
    :ivar nodes: MCTS: tree nodes; alpha-beta: positions searched.
    :ivar iterations: MCTS playouts (0 for alpha-beta).
    :ivar depth: alpha-beta: last completed depth; MCTS: deepest tree line.
    :ivar time: seconds used.
    :ivar visits: MCTS visit count of every action (an int64 array of size
        ``num_actions``, zeros for illegal actions); all zeros for other algorithms.
    :ivar exact: the value is proven.
    :ivar interrupted: ``stop()`` ended the search early.
    :ivar algorithm: the algorithm that ran (``auto`` resolved).
    """

    move: Any
    action: int
    value: float
    pv: List[Any]
    nodes: int
    iterations: int
    depth: int
    time: float
    visits: np.ndarray = field(repr=False)
    exact: bool
    interrupted: bool
    algorithm: str

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.time if self.time > 0 else 0.0


def _check_int(name: str, value: Any) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    return int(value)


def _require_int(name: str, value: Any) -> int:
    """``_check_int`` for a setting that must be given (None is refused here, not in Rust)."""
    checked = _check_int(name, value)
    if checked is None:
        raise TypeError(f"{name} must be an int, got NoneType")
    return checked


def _check_time(value: Any) -> Optional[float]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"time must be a number of seconds, got {type(value).__name__}")
    return float(value)


class _Options(TypedDict):
    """The keyword settings of ``_core.Searcher`` (``Searcher.options``)."""

    threads: int
    seed: int
    exploration: Optional[float]
    selection: str
    playout: str
    knowledge: bool
    tt_mb: int
    memory_mb: int
    reuse: bool


class Searcher:
    """A search player that keeps its MCTS trees and transposition table between moves (use
    one per seat). Thread-safe: ``stop()`` may be called from another thread.

    :param algorithm: ``"auto"`` (Fish: alpha-beta, paranoid for 3 or 4 players; Marathon:
        MCTS; both with the game's knowledge), ``"mcts"``, ``"alphabeta"``, ``"greedy"`` (the best-looking move
        now: most fish on the landing floe; most progress in Marathon) or ``"random"``.
    :param threads: threads searching at once: root-parallel MCTS, lazy-SMP alpha-beta
        (one thread is deterministic for a seed).
    :param seed: seed of playouts and tie-breaks, any int (taken modulo 2**64); one thread
        with an iteration budget always gives the same result.
    :param exploration: MCTS exploration constant (default 1.0).
    :param selection: ``"uct"`` or ``"puct"`` (priors from the game's move ordering).
    :param playout: ``"auto"`` (the game's playout policy), ``"random"`` or ``"evaluate"``
        (value leaves with the evaluation, no playouts).
    :param knowledge: use the game's evaluation (Fish: regions solved exactly, territory,
        mobility; Marathon: turns still needed). ``False``: plain MCTS with random playouts.
    :param tt_mb: alpha-beta transposition table size in MiB (at most 4096, and the memory
        available).
    :param memory_mb: the most memory MCTS trees may take, in MiB; past it a search stops
        expanding and goes on refining the tree it has.
    :param reuse: keep MCTS trees between moves.
    """

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
        memory_mb: int = 1024,
        reuse: bool = True,
    ) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm = {algorithm!r}: expected one of {', '.join(ALGORITHMS)}")
        self.algorithm = algorithm
        self.options: _Options = dict(
            threads=_require_int("threads", threads),
            seed=_require_int("seed", seed),
            exploration=exploration,
            selection=selection,
            playout=playout,
            knowledge=bool(knowledge),
            tt_mb=_require_int("tt_mb", tt_mb),
            memory_mb=_require_int("memory_mb", memory_mb),
            reuse=bool(reuse),
        )
        self._core = _core.Searcher(algorithm, **self.options)

    def search(
        self,
        state: Any,
        *,
        time: Optional[float] = None,
        iterations: Optional[int] = None,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
    ) -> SearchResult:
        """Searches ``state`` within the budget (the first limit reached ends it; none given:
        one second) and returns a :class:`SearchResult`.

        :raises ValueError: the game is over, a budget is negative, zero or absurd, or the
            state is not of a game this searcher can play.
        """
        raw = self._core.search(
            state,
            time=_check_time(time),
            iterations=_check_int("iterations", iterations),
            nodes=_check_int("nodes", nodes),
            depth=_check_int("depth", depth),
        )
        return SearchResult(*raw)

    def stop(self) -> None:
        """Asks a running search to stop now; it returns its best move so far."""
        self._core.stop()

    def clear(self) -> None:
        """Forgets the kept trees and transposition table (for a new game)."""
        self._core.clear()

    def __repr__(self) -> str:
        return f"Searcher({self.algorithm!r}, threads={self.options['threads']}, seed={self.options['seed']})"


def search(
    state: Any,
    algorithm: str = "auto",
    *,
    time: Optional[float] = None,
    iterations: Optional[int] = None,
    depth: Optional[int] = None,
    nodes: Optional[int] = None,
    threads: int = 1,
    seed: int = 0,
    **options: Any,
) -> SearchResult:
    """Searches ``state`` once and returns a :class:`SearchResult`.

    :param algorithm: ``"auto"``, ``"mcts"``, ``"alphabeta"``, ``"greedy"`` or ``"random"``.
    :param time: seconds (a float); ``iterations`` (MCTS playouts), ``depth`` (alpha-beta
        plies) and ``nodes`` bound the search too; the first limit reached ends it. With no
        limit at all the search takes one second.
    :param threads: threads searching at once (MCTS and alpha-beta).
    :param seed: the search's seed (same seed, one thread, iteration budget: same result).
    :param options: further :class:`Searcher` settings (``exploration``, ``selection``,
        ``playout``, ``knowledge``, ``tt_mb``).
    :raises ValueError: for a finished game, a negative or absurd budget, or a bad option.

    >>> import pingvinas as pv
    >>> from pingvinas.search import search
    >>> s = pv.Fish().new_state(seed=2)
    >>> search(s, "alphabeta", depth=2).depth
    2
    """
    searcher = Searcher(algorithm, threads=threads, seed=seed, reuse=False, **options)
    return searcher.search(state, time=time, iterations=iterations, depth=depth, nodes=nodes)


@dataclass(frozen=True)
class FishSolution:
    """The exact result of a Fish position under optimal play.

    :ivar scores: final ``(fish, floes)`` of every player.
    :ivar move: the best move of the player to move.
    :ivar pv: the optimal line (it may stop early, where every remaining region has one owner
        and the rest of the game is that owner's alone).
    :ivar value: ``(fish, floes)`` still to gain by the player to move minus the opponent's
        (two players) or the others' together (more players, paranoid).
    :ivar nodes: positions searched.
    """

    scores: List[Tuple[int, int]]
    move: Any
    pv: List[Any]
    value: Tuple[int, int]
    nodes: int


def solve_fish(state: Any, *, max_nodes: int = 50_000_000) -> FishSolution:
    """Solves a small Fish position exactly.

    Two players: each maximises their final fish minus the opponent's, floes breaking ties.
    Three or four: *paranoid*: the player to move maximises their own final fish minus the
    others' total (floes breaking ties) and the others all minimise it.

    :raises ValueError: the game is over, or the position needs more than ``max_nodes``
        positions (solve smaller positions, for example late in the game).
    """
    raw = _core.fish_solve(state, max_nodes=_require_int("max_nodes", max_nodes))
    best = raw["best"]
    return FishSolution(
        scores=[tuple(s) for s in raw["scores"]],
        move=None if best is None else _move_of(state, best),
        pv=_moves_along(state, raw["pv"]),
        value=tuple(raw["value"]),
        nodes=int(raw["nodes"]),
    )
