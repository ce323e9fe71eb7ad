"""Search for both games: MCTS and alpha-beta written once in Rust, and the exact Fish solver.

```pycon
>>> import pingvinas as pv
>>> from pingvinas.searching.searcher import search
>>> state = pv.Fish().new_state(seed=1)
>>> result = search(state, algorithm="mcts", iterations=200, seed=3)
>>> result.move in state.legal_moves()
True
>>> result.visits.shape == (state.num_actions,)
True

```

The search itself runs in Rust with the GIL released; Ctrl-C stops it cleanly (and raises
``KeyboardInterrupt``).

**Learned evaluators.** ``algorithm="puct"`` is AlphaZero's search with an *evaluator*, any
callable ``fn(observations, legal_mask) -> (policy_logits, values)``:

- ``observations``: float32 ``(B, *game.observation_shape)``, each row the position's
  ``observation_tensor()`` from the view of the player to move; ``legal_mask``: bool
  ``(B, game.num_actions)``. Both are buffers the search reuses, passed read-only: copy what
  you keep.
- ``policy_logits``: ``(B, num_actions)`` (illegal entries are ignored; the priors are a
  softmax over the legal ones); ``values``: ``(B, players)``, ``values[b, k]`` the expected
  final return of *seat* ``k``, the player ``(to_move + k) % players``, clipped to
  ``[-1, 1]``. Any float (or int) array-like of exactly these shapes is read as float32.
- Output of another shape or dtype, NaN or infinite values, or NaN or ``+inf`` logits of
  legal actions raise ``ValueError`` naming the problem (``-inf`` logits are allowed, as long
  as one legal action per row has a finite logit); an exception raised by ``fn`` propagates
  unchanged.

The search gathers up to ``batch_size`` leaves per call (with virtual loss), values finished
and solved positions exactly without the evaluator, and backs values up per player, so any
player count works. :func:`search_many` searches many positions with one evaluator call per
round for all their trees.

```pycon
>>> def uniform(obs, mask):
...     return np.zeros(mask.shape, np.float32), np.zeros((len(obs), 2), np.float32)
>>> r = search(state, "puct", evaluator=uniform, iterations=64, batch_size=8)
>>> int(r.visits.sum()), r.algorithm
(64, 'puct')

```
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, TypedDict, Union, cast

import numpy as np

from pingvinas._core import FishMove, FishState, NnueNet

from .._args import is_int, is_number
from .._core import ALGORITHMS as _ALGORITHMS
from .._core import MAX_TIME as _MAX_TIME
from .._core import Searcher as _EngineSearcher
from .._core import fish_solve as _fish_solve
from .._core import search_many as _engine_search_many
from ..games import Move, State

__all__ = [
    "ALGORITHMS",
    "MAX_TIME",
    "Evaluator",
    "FishSolution",
    "SearchResult",
    "Searcher",
    "search",
    "search_many",
    "solve_fish",
]

#: An evaluator: ``fn(observations, legal_mask) -> (policy_logits, values)`` (see the module
#: docs).
Evaluator = Callable[[np.ndarray, np.ndarray], Any]

#: The names ``algorithm`` accepts, ``"auto"`` first (defined once, in the engine binding).
ALGORITHMS: tuple[str, ...] = tuple(_ALGORITHMS)

#: The longest time budget, in seconds (a week), wherever one is given: ``time=`` of a search
#: or an agent, ``opponent_time``, the command line's ``--time``, the protocol's ``movetime``.
#: Longer is refused as a mistake (milliseconds given as seconds, say) rather than run.
MAX_TIME: float = _MAX_TIME


def _move_of(state: State, action: int) -> Move:
    """The move object of ``action`` in ``state``."""
    try:
        return state.parse_move(int(action))
    except (TypeError, AttributeError):
        for m in state.legal_moves():
            if m.action == action:
                return m
        raise


def _moves_along(state: State, actions: Sequence[int]) -> list[Move]:
    """The move objects of a line of actions played from ``state`` (stops at the first that
    does not apply)."""
    s = state.copy()
    moves = []
    for a in actions:
        try:
            m = _move_of(s, a)
            s.play(m.action)
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
        playouts through it; PUCT: mean value backed up through it; alpha-beta: the minimax
        value, exact when ``exact``).
    :ivar pv: the principal variation (expected line of play), starting with ``move``.
    :ivar nodes: MCTS: tree nodes; alpha-beta: positions searched.
    :ivar iterations: MCTS playouts; PUCT: leaves valued below the root (0 for alpha-beta).
    :ivar depth: alpha-beta: last completed depth; MCTS: deepest tree line.
    :ivar time: seconds used.
    :ivar visits: MCTS and PUCT visit count of every action (an int64 array of size
        ``num_actions``, zeros for illegal actions); all zeros for other algorithms.
    :ivar exact: the value is proven.
    :ivar interrupted: ``stop()`` ended the search early.
    :ivar algorithm: the algorithm that ran (``auto`` resolved).
    :ivar improved_policy: PUCT with ``root="gumbel"``: Gumbel's improved policy at the root,
        ``softmax(logits + sigma(completed Q))`` over the moves it kept (a float32 array of size
        ``num_actions`` summing to 1, zeros elsewhere), the target self-play trains on; None for
        other searches.
    """

    # The searched state's own move: Any, so that the typed state of either game takes it back.
    move: Any
    action: int
    value: float
    pv: list[Any]
    nodes: int
    iterations: int
    depth: int
    time: float
    visits: np.ndarray = field(repr=False)
    exact: bool
    interrupted: bool
    algorithm: str
    improved_policy: Optional[np.ndarray] = field(default=None, repr=False)

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.time if self.time > 0 else 0.0


# The budgets are checked here: the engine reads them as plain numbers, to which Python's bools
# convert. The other settings it reads with args.rs, which refuses bools itself.


def _check_int(name: str, value: Any) -> Optional[int]:
    if value is None:
        return None
    if not is_int(value, numpy=True):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    return int(value)


def _check_time(value: Any) -> Optional[float]:
    if value is None:
        return None
    if not is_number(value, numpy=True):
        raise TypeError(f"time must be a number of seconds, got {type(value).__name__}")
    try:
        return float(value)
    except OverflowError:  # an int beyond every float: beyond every limit, refused as such
        return float("inf")


class _Options(TypedDict):
    """The keyword settings of the engine's ``Searcher`` (``Searcher.options``)."""

    threads: int
    seed: int
    exploration: Optional[float]
    selection: str
    playout: str
    knowledge: bool
    tt_mb: int
    memory_mb: int
    reuse: bool
    evaluator: Optional[Union[Evaluator, NnueNet]]
    batch_size: int
    dirichlet: Optional[tuple[float, float]]
    root: str
    playout_mix: float


class _Budget(TypedDict):
    """The limits of one search (``Searcher.budget``); None: no such limit."""

    time: Optional[float]
    iterations: Optional[int]
    depth: Optional[int]
    nodes: Optional[int]


def _budget(
    time: Any, iterations: Any, depth: Any, nodes: Any, *, positive: bool = False
) -> _Budget:
    """The budget checked for types (and, with ``positive``, for values: a constructor's
    budget is refused when it is made, not at the first search)."""
    budget: _Budget = dict(
        time=_check_time(time),
        iterations=_check_int("iterations", iterations),
        depth=_check_int("depth", depth),
        nodes=_check_int("nodes", nodes),
    )
    if positive:
        for name, value in budget.items():
            # `not value > 0` also refuses a NaN time.
            if value is not None and not value > 0:  # type: ignore[operator]
                what = "a positive number of seconds" if name == "time" else "positive"
                raise ValueError(f"{name} must be {what}, got {value}")
    return budget


class Searcher:
    """A search player that keeps its MCTS trees and transposition table between moves (use
    one per seat). Thread-safe: ``stop()`` may be called from another thread.

    ```pycon
    >>> import pingvinas as pv
    >>> searcher = pv.Searcher("mcts", iterations=100, seed=1)   # the budget of every search
    >>> state = pv.Fish().new_state(seed=1)
    >>> searcher.search(state).iterations
    100
    >>> searcher.search(state, iterations=50).iterations         # a call's budget replaces it
    50

    ```

    :param algorithm: ``"auto"`` (Fish: alpha-beta with 2 players, with the shipped learned
        evaluation, :func:`pingvinas.searching.evaluators.learned`, on standard 2-player Fish,
        and MCTS with ``playout="evaluate"`` and ``exploration=0.5`` with 3 or 4; Marathon:
        MCTS with ``selection="puct"`` and ``exploration=2.0``; both with the game's
        knowledge), ``"mcts"``, ``"alphabeta"``,
        ``"greedy"`` (the best-looking move now: most fish on the landing floe; most progress
        in Marathon), ``"random"`` or ``"solve"`` (Fish: perfect play by the exact solver,
        within ``nodes`` and ``time``; ``ValueError`` for a position too big for them).
    :param time: the default budget of :meth:`search`, as for :func:`search`: seconds;
        ``iterations`` (MCTS and PUCT playouts), ``depth`` (alpha-beta plies) and ``nodes``
        bound it too, the first limit reached ending the search. A call to :meth:`search` that
        gives any budget uses that budget alone; with none given here or there, one second.
    :param threads: threads searching at once, 1 by default (the only count that is
        reproducible for a seed): MCTS searches a tree on each thread and adds up their root
        statistics (the trees share ``memory_mb``); alpha-beta's threads share each iteration's
        work and one table; PUCT with a native :class:`~pingvinas.searching.evaluators.Net`
        searches its tree with that many threads at once (tree-parallel, virtual losses keeping
        them apart); PUCT with a Python evaluator searches on the calling thread and ignores
        it. What a second thread gains is measured in the documentation's performance page
        (``docs/performance.md``, Search).
    :param seed: seed of playouts and tie-breaks, any int (taken modulo 2**64); one thread
        with an iteration budget always gives the same result.
    :param exploration: the exploration constant `c` (MCTS: default 1.0; PUCT: 1.25).
    :param selection: ``"uct"`` or ``"puct"`` (priors from the game's move ordering).
    :param playout: ``"auto"`` (the game's playout policy), ``"random"`` or ``"evaluate"``
        (value leaves with the evaluation, no playouts).
    :param knowledge: use the game's evaluation (Fish: regions solved exactly, territory,
        mobility; Marathon: turns still needed). ``False``: plain MCTS with random playouts.
    :param tt_mb: alpha-beta transposition table size in MiB (at most 4096, and the memory
        available). A searcher dropped gives its table back for the next one of that size
        (up to 256 MiB kept in all), which takes it cleared.
    :param memory_mb: the most memory MCTS trees may take, in MiB (1024 by default), shared
        equally between the threads' trees; past it a search stops expanding and goes on
        refining the tree it has.
    :param reuse: keep MCTS and PUCT trees between moves.
    :param evaluator: required by ``algorithm="puct"``: the evaluator
        ``fn(observations, legal_mask) -> (policy_logits, values)`` (see the module docs; a
        :class:`~pingvinas.searching.evaluators.Net` runs in Rust). The other algorithms take a
        ``Net`` or an :class:`~pingvinas.searching.evaluators.NnueNet` only, as their estimate of
        positions: alpha-beta's leaves, and MCTS's with ``playout="evaluate"`` (the game's exact
        endgame values and move ordering stay).
    :param batch_size: PUCT: the most leaves sent to the evaluator in one call.
    :param dirichlet: PUCT: ``(alpha, fraction)`` of Dirichlet noise mixed into the root's
        priors (for self-play), or ``None``.
    :param root: PUCT only: how the root picks its moves: ``"puct"``, or ``"gumbel"`` (Gumbel
        AlphaZero: Gumbel-top-k sampling of up to 16 moves and sequential halving over the
        iterations, mctx's settings; strong at a few iterations; the move played is the one
        it chooses, no Dirichlet noise). Below the root, PUCT either way.
    :param playout_mix: PUCT: AlphaGo's lambda, the share of each leaf's value taken from a
        playout of the game's playout policy (the rest from the evaluator): 0 (the default)
        plays no playouts; a weak value net with a useful policy plays better with some.
    """

    def __init__(
        self,
        algorithm: str = "auto",
        *,
        time: Optional[float] = None,
        iterations: Optional[int] = None,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
        threads: int = 1,
        seed: int = 0,
        exploration: Optional[float] = None,
        selection: str = "uct",
        playout: str = "auto",
        knowledge: bool = True,
        tt_mb: int = 64,
        memory_mb: int = 1024,
        reuse: bool = True,
        evaluator: Optional[Union[Evaluator, NnueNet]] = None,
        batch_size: int = 16,
        dirichlet: Optional[tuple[float, float]] = None,
        root: str = "puct",
        playout_mix: float = 0.0,
    ) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm = {algorithm!r}: expected one of {', '.join(ALGORITHMS)}")
        self.algorithm = algorithm
        #: The budget of a :meth:`search` call that gives none.
        self.budget = _budget(time, iterations, depth, nodes, positive=True)
        self.options: _Options = dict(
            threads=threads,
            seed=seed,
            exploration=exploration,
            selection=selection,
            playout=playout,
            knowledge=bool(knowledge),
            tt_mb=tt_mb,
            memory_mb=memory_mb,
            reuse=bool(reuse),
            evaluator=evaluator,
            batch_size=batch_size,
            dirichlet=dirichlet,
            root=root,
            playout_mix=float(playout_mix),
        )
        self._core = _EngineSearcher(algorithm, **self.options)

    def search(
        self,
        state: State,
        *,
        time: Optional[float] = None,
        iterations: Optional[int] = None,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
    ) -> SearchResult:
        """Searches ``state`` within the budget and returns a :class:`SearchResult`.

        The first limit reached ends the search. A call that gives any of ``time``,
        ``iterations``, ``depth``, ``nodes`` searches within those alone; one that gives none
        uses the constructor's budget (:attr:`budget`), and with none there either, one second.

        :raises ValueError: the game is over, a budget is negative, zero or absurd, or the
            state is not of a game this searcher can play.
        """
        budget = _budget(time, iterations, depth, nodes)
        if all(v is None for v in budget.values()):
            budget = self.budget
        raw = self._core.search(state, **budget)
        return SearchResult(*raw)

    def stop(self) -> None:
        """Asks a running search to stop now; it returns its best move so far."""
        self._core.stop()

    def clear(self) -> None:
        """Forgets the kept trees and transposition table (for a new game)."""
        self._core.clear()

    def __repr__(self) -> str:
        threads, seed = self.options["threads"], self.options["seed"]
        budget = "".join(f", {k}={v}" for k, v in self.budget.items() if v is not None)
        return f"Searcher({self.algorithm!r}{budget}, threads={threads}, seed={seed})"


def search(
    state: State,
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

    :param algorithm: ``"auto"``, ``"mcts"``, ``"alphabeta"``, ``"greedy"``, ``"random"``,
        ``"solve"`` (Fish: the exact solver) or ``"puct"`` (with ``evaluator=``).
    :param time: seconds (a float); ``iterations`` (MCTS playouts), ``depth`` (alpha-beta
        plies) and ``nodes`` bound the search too; the first limit reached ends it. With no
        limit at all the search takes one second.
    :param threads: threads searching at once, 1 by default (MCTS, alpha-beta, PUCT with a
        native ``Net``), as for :class:`Searcher`; only one thread is reproducible for a seed.
    :param seed: the search's seed (same seed, one thread, iteration budget: same result).
    :param options: further :class:`Searcher` settings (``exploration``, ``selection``,
        ``playout``, ``knowledge``, ``tt_mb``; for PUCT ``evaluator``, ``batch_size``,
        ``dirichlet``, ``root`` and ``playout_mix``).
    :raises ValueError: for a finished game, a negative or absurd budget, or a bad option.

    ```pycon
    >>> import pingvinas as pv
    >>> from pingvinas.searching.searcher import search
    >>> s = pv.Fish().new_state(seed=2)
    >>> search(s, "alphabeta", depth=2).depth
    2

    ```
    """
    searcher = Searcher(algorithm, threads=threads, seed=seed, reuse=False, **options)
    return searcher.search(state, time=time, iterations=iterations, depth=depth, nodes=nodes)


def search_many(
    states: Sequence[State],
    *,
    evaluator: Evaluator,
    time: Optional[float] = None,
    iterations: Optional[int] = None,
    nodes: Optional[int] = None,
    batch_size: int = 16,
    seed: int = 0,
    exploration: Optional[float] = None,
    dirichlet: Optional[tuple[float, float]] = None,
    knowledge: bool = True,
    memory_mb: int = 1024,
    algorithm: str = "puct",
    root: str = "puct",
    threads: int = 1,
) -> list[SearchResult]:
    """PUCT searches of many positions at once: one tree per state; each round every tree
    adds up to ``batch_size`` leaves and all of them go to ONE call of ``evaluator``, so a
    network sees large batches. Tree ``i`` is seeded from ``(seed, i)``: its result does not
    depend on the other states (``search_many([s], seed=k)[0]`` is ``search(s, "puct",
    seed=k)``). ``iterations`` and ``nodes`` are per tree; ``time`` is for all.

    :param states: states of one game (Fish boards may differ, their shapes may not).
    :param root: ``"puct"`` or ``"gumbel"``, as for :class:`Searcher`.
    :param threads: 1 to 256, 1 by default; with a native
        :class:`~pingvinas.searching.evaluators.Net`, the trees are shared out between this many
        threads; a Python evaluator runs on the calling thread, and each round's work on the
        trees (selection, observation rows, checks, backups) is shared out between this many
        threads around its calls. Each tree's result is the one of one thread.
    :raises ValueError: a finished game, a bad budget or option, or a bad evaluator output.

    ```pycon
    >>> import pingvinas as pv
    >>> def uniform(obs, mask):
    ...     return np.zeros(mask.shape, np.float32), np.zeros((len(obs), 2), np.float32)
    >>> states = [pv.Fish().new_state(seed=k) for k in range(3)]
    >>> results = search_many(states, evaluator=uniform, iterations=32)
    >>> len(results), {int(r.visits.sum()) for r in results}
    (3, {32})

    ```
    """
    if algorithm != "puct":
        raise ValueError(f"search_many runs PUCT only, not algorithm = {algorithm!r}")
    raws = _engine_search_many(
        # One game's states, as the engine checks (a list of either game's, to the stubs).
        cast("list[FishState]", list(states)),
        evaluator=evaluator,
        time=_check_time(time),
        iterations=_check_int("iterations", iterations),
        nodes=_check_int("nodes", nodes),
        batch_size=batch_size,
        seed=seed,
        exploration=exploration,
        dirichlet=dirichlet,
        knowledge=bool(knowledge),
        memory_mb=memory_mb,
        root=root,
        threads=threads,
    )
    return [SearchResult(*raw) for raw in raws]


@dataclass(frozen=True)
class FishSolution:
    """The exact result of a Fish position under optimal play.

    :ivar scores: final ``(fish, floes)`` of every player.
    :ivar move: the best move of the player to move (the first of ``moves``).
    :ivar pv: the optimal line (it may stop early, where every remaining region has one owner
        and the rest of the game is that owner's alone).
    :ivar value: ``(fish, floes)`` still to gain by the player to move minus the opponent's
        (two players) or the others' together (more players, paranoid).
    :ivar nodes: positions searched.
    :ivar moves: every optimal move of the player to move, ``move`` first.
    :ivar values: the exact value (as ``value``) of each move searched exactly, best first:
        the optimal moves, or every legal move when solved with ``all_values=True``.
    :ivar time: seconds the solve took.
    """

    scores: list[tuple[int, int]]
    move: Optional[FishMove]
    pv: list[FishMove]
    value: tuple[int, int]
    nodes: int
    moves: list[FishMove] = field(default_factory=list)
    values: dict[FishMove, tuple[int, int]] = field(default_factory=dict)
    time: float = 0.0


def solve_fish(
    state: FishState,
    *,
    max_nodes: int = 50_000_000,
    time: Optional[float] = None,
    tt_mb: int = 512,
    symmetry: bool = True,
    all_values: bool = False,
    progress: Optional[Callable[[int, float], object]] = None,
) -> FishSolution:
    """Solves a small Fish position exactly, listing every optimal move.

    Two players: each maximises their final fish minus the opponent's, floes breaking ties.
    Three or four: *paranoid*: the player to move maximises their own final fish minus the
    others' total (floes breaking ties) and the others all minimise it (a guarantee against
    any coalition, not a prediction of selfish play).

    It runs off the GIL; Ctrl-C stops it (``KeyboardInterrupt``) within a few milliseconds.

    :param max_nodes: give up after this many positions; it bounds the memory too (the table
        takes at most 48 bytes a position, the region solver's memos at most 54 MiB), and a
        position whose search an estimate puts past a thousandfold of it is refused at once
        (docs/search.md).
    :param time: give up after this many seconds (None: no limit).
    :param tt_mb: the most memory the transposition table may take, in MiB (it grows only as
        needed).
    :param symmetry: fold symmetric positions into one table entry (values are the same
        either way; off for comparisons).
    :param all_values: find the exact value of every legal move (``values``), not only of the
        optimal ones (slower).
    :param progress: called as ``progress(nodes, seconds)`` about every 0.25 s while the solve
        runs (a command line's progress line); an exception it raises stops the solve and is
        raised.
    :raises ValueError: the game is over, the position needs more than ``max_nodes``
        positions or ``time`` seconds (solve smaller positions, for example late in the
        game), or ``tt_mb`` is out of range.
    :raises MemoryError: ``tt_mb`` MiB are more than the memory available.
    """
    if not is_int(max_nodes, numpy=True):
        raise TypeError(f"max_nodes must be an int, got {type(max_nodes).__name__}")
    if not is_int(tt_mb, numpy=True):
        raise TypeError(f"tt_mb must be an int, got {type(tt_mb).__name__}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable, got {type(progress).__name__}")
    raw = _fish_solve(
        state,
        max_nodes=int(max_nodes),
        time=_check_time(time),
        tt_mb=int(tt_mb),
        symmetry=bool(symmetry),
        all_values=bool(all_values),
        progress=progress,
    )
    best = raw["best"]
    return FishSolution(
        scores=[tuple(s) for s in raw["scores"]],
        move=None if best is None else cast(FishMove, _move_of(state, best)),
        pv=cast("list[FishMove]", _moves_along(state, raw["pv"])),
        value=tuple(raw["value"]),
        nodes=int(raw["nodes"]),
        moves=[cast(FishMove, _move_of(state, a)) for a in raw["moves"]],
        values={cast(FishMove, _move_of(state, a)): tuple(v) for a, v in raw["values"]},
        time=float(raw["time"]),
    )
