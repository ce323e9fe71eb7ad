"""Solved Fish: small board classes whose boards the exact solver finishes, the value of every
move of a position, and the published table (``docs/solved.md``) with its picture.

A *board class* is a rectangle of floes in the even-r layout with the standard board's mix of
fish (half the floes 1 fish, a sixth 3, the rest 2), shuffled per seed, and the game's rule
switches (players, penguins each, placement, order). Board 0 of each class is a bundled variant
(``pv.load_game("fish-mini-4x4")``), so anyone can load a solved board by name; board ``k`` is
:meth:`BoardClass.game` with ``seed=k``.

```pycon
>>> import pingvinas as pv
>>> mini = board_class("fish-mini-4x4")
>>> mini.board(0) == pv.load_game("fish-mini-4x4").new_state().board.tolist()
True
>>> values = move_values(mini.game(0).new_state())
>>> [values.values[m.action] for m in values.best] == [values.value] * len(values.best)
True

```

Values are *margins*: the final ``(fish, floes)`` of the player to move minus the opponent's
under optimal play from there on, compared fish first (two players; the solver's own objective).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Callable, Optional

from .._core import Fish, FishMove, FishState
from ..searching.searcher import FishSolution, solve_fish

__all__ = [
    "CLASSES",
    "BoardClass",
    "MoveValues",
    "Solver",
    "board_class",
    "margin",
    "move_values",
]

#: The solver's limit on positions for one solve, as :func:`pingvinas.fish.solve` has it.
MAX_NODES = 50_000_000


def _splitmix64(x: int) -> tuple[int, int]:
    """The next state and output of SplitMix64 (a fixed, documented generator, so that a class's
    boards do not depend on a library's random streams)."""
    x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return x, z ^ (z >> 31)


@dataclass(frozen=True)
class BoardClass:
    """A class of small Fish boards: their shape, fish mix and rules (see the module docs).

    :ivar name: the class's name, also that of the bundled variant holding its board 0.
    :ivar rows: rows of the rectangle (even-r layout: even rows shifted half a floe right).
    :ivar cols: floes in each row.
    :ivar penguins: penguins each.
    :ivar players: players (2: margins are the solver's two-player objective).
    :ivar placement: ``"one-fish"`` (the printed rules) or ``"any"``.
    :ivar order: ``"round-robin"`` or ``"snake"``.
    """

    name: str
    rows: int
    cols: int
    penguins: int
    players: int = 2
    placement: str = "one-fish"
    order: str = "round-robin"

    @property
    def fish(self) -> tuple[int, int, int]:
        """How many floes hold 1, 2 and 3 fish: the standard board's 30/20/10 mix, scaled."""
        cells = self.rows * self.cols
        ones, threes = cells // 2, cells // 6
        return ones, cells - ones - threes, threes

    @property
    def description(self) -> str:
        each = "1 penguin" if self.penguins == 1 else f"{self.penguins} penguins"
        ones, twos, threes = self.fish
        return (
            f"{self.rows}x{self.cols} floes ({ones}/{twos}/{threes} fish), {self.players} "
            f"players with {each} each: board 0 of a class of docs/solved.md"
        )

    def board(self, seed: int) -> list[list[int]]:
        """Board ``seed`` of the class: the fish mix shuffled by SplitMix64 from ``seed``
        (Fisher-Yates)."""
        ones, twos, threes = self.fish
        cells = [1] * ones + [2] * twos + [3] * threes
        x = seed & 0xFFFFFFFFFFFFFFFF
        for i in range(len(cells) - 1, 0, -1):
            x, r = _splitmix64(x)
            j = r % (i + 1)
            cells[i], cells[j] = cells[j], cells[i]
        return [cells[r * self.cols : (r + 1) * self.cols] for r in range(self.rows)]

    def config(self, seed: int) -> dict[str, object]:
        """The Fish config of board ``seed`` (``pv.Fish.from_config`` takes it)."""
        return {
            "game": "fish",
            "name": self.name if seed == 0 else f"{self.name}#{seed}",
            "players": self.players,
            "penguins": self.penguins,
            "placement": self.placement,
            "order": self.order,
            "board": self.board(seed),
        }

    def game(self, seed: int) -> Fish:
        """The game of board ``seed`` (board 0 is the bundled variant's)."""
        return Fish.from_config(self.config(seed))

    def shape(self) -> str:
        """The class in words, for tables: shape, fish, players, penguins, placement."""
        ones, twos, threes = self.fish
        return (
            f"{self.rows}x{self.cols}, {ones}/{twos}/{threes} fish, {self.players}p x "
            f"{self.penguins}, {self.placement}"
        )


#: The bundled board classes, smallest first (each one's board 0 is a bundled variant).
CLASSES: tuple[BoardClass, ...] = (
    BoardClass("fish-mini-4x4", 4, 4, 1),
    BoardClass("fish-mini-4x4-pairs", 4, 4, 2),
    BoardClass("fish-mini-4x5", 4, 5, 1),
    BoardClass("fish-mini-5x5", 5, 5, 1),
)


def board_class(name: str) -> BoardClass:
    """The bundled board class ``name``.

    :raises ValueError: for any other name, listing the classes.
    """
    for c in CLASSES:
        if c.name == name:
            return c
    names = ", ".join(c.name for c in CLASSES)
    raise ValueError(f"unknown board class {name!r}: expected one of {names}")


def margin(scores: Sequence[tuple[int, int]], player: int) -> tuple[int, int]:
    """``player``'s ``(fish, floes)`` minus the others' together (two players: the opponent's)."""
    fish = sum(f for f, _ in scores)
    floes = sum(n for _, n in scores)
    f, n = scores[player]
    return (2 * f - fish, 2 * n - floes)


class Solver:
    """The exact solver with a memory: each position is solved once (by its JSON), so that the
    table, the picture and the perfect-play benchmark, which meet the same positions again and
    again, pay for each once. Counts the nodes and seconds of the solves it ran.

    :param max_nodes: the limit of one solve (:func:`pingvinas.fish.solve`).
    :param time: the time limit of one solve in seconds (None: none); an attribute, so that a
        caller can give each solve what is left of its own time.
    """

    def __init__(self, max_nodes: int = MAX_NODES, time: Optional[float] = None) -> None:
        self.max_nodes = max_nodes
        self.time = time
        self.nodes = 0
        self.seconds = 0.0
        self._memo: dict[str, tuple[FishSolution, float]] = {}

    def solve(
        self,
        state: FishState,
        *,
        all_values: bool = False,
        progress: Optional[Callable[[int, float], object]] = None,
    ) -> FishSolution:
        """The solution of ``state`` (not over); with ``all_values``, with the exact value of
        every move (a solution of its own, memoized apart).

        :param progress: passed to :func:`pingvinas.fish.solve` when the solve runs.
        :raises ValueError: a finished game, or one too big for ``max_nodes`` (or ``time``).
        """
        return self.timed(state, all_values=all_values, progress=progress)[0]

    def timed(
        self,
        state: FishState,
        *,
        all_values: bool = False,
        progress: Optional[Callable[[int, float], object]] = None,
    ) -> tuple[FishSolution, float]:
        """The solution of ``state`` and the seconds its solve took (when it first ran)."""
        key = ("all " if all_values else "") + state.to_json()
        found = self._memo.get(key)
        if found is None:
            start = time.perf_counter()
            solution = solve_fish(
                state,
                max_nodes=self.max_nodes,
                time=self.time,
                all_values=all_values,
                progress=progress,
            )
            seconds = time.perf_counter() - start
            self.nodes += solution.nodes
            self.seconds += seconds
            found = self._memo[key] = (solution, seconds)
        return found

    def final_margin(self, state: FishState, player: int) -> tuple[int, int]:
        """``player``'s final margin after optimal play from ``state`` (which may be over)."""
        scores = state.scores if state.is_over else self.solve(state).scores
        return margin(scores, player)


@dataclass(frozen=True)
class MoveValues:
    """The value of every move of a position under optimal play afterwards.

    :ivar value: the position's value for the player to move (the best of ``values``).
    :ivar best: every optimal move, in the order of ``state.legal_moves()``.
    :ivar values: each legal move's value (by action) for the player to move.
    :ivar nodes: positions the solves searched (memoized solves count once).
    :ivar seconds: wall-clock time of the solves.
    """

    value: tuple[int, int]
    best: list[FishMove]
    values: dict[int, tuple[int, int]] = field(default_factory=dict)
    nodes: int = 0
    seconds: float = 0.0


def move_values(
    state: FishState,
    *,
    solver: Optional[Solver] = None,
    max_nodes: int = MAX_NODES,
    progress: Optional[Callable[[int, float], object]] = None,
) -> MoveValues:
    """The position's value, every optimal move and each move's value for the player to move,
    from one solve that finds the exact value of every move (``all_values``, one table for all
    of them). Two players only (a 3- or 4-player solve is paranoid for its own root player, so
    its moves' values are not the margins of the game).

    :param solver: a :class:`Solver` to share solves with (default: a fresh one).
    :param max_nodes: the limit of the solve, for a fresh solver.
    :param progress: called as ``progress(nodes, seconds)`` about every 0.25 s while the solve
        runs (as :func:`pingvinas.fish.solve` has it).
    :raises ValueError: a finished game, more than two players, or a position too big to solve.
    """
    if state.is_over:
        raise ValueError("cannot solve a finished game")
    if state.players != 2:
        raise ValueError(
            f"the value of every move needs 2 players, not {state.players} (a 3- or 4-player "
            "solve is paranoid for its own player to move: use pingvinas.fish.solve)"
        )
    solver = solver or Solver(max_nodes)
    nodes, seconds = solver.nodes, solver.seconds
    player = state.to_move
    assert player is not None
    solution = solver.solve(state, all_values=True, progress=progress)
    so_far = margin(state.scores, player)
    values = {
        m.action: (so_far[0] + fish, so_far[1] + floes)
        for m, (fish, floes) in solution.values.items()
    }
    value = max(values.values())
    return MoveValues(
        value=value,
        best=[m for m in state.legal_moves() if values[m.action] == value],
        values=values,
        nodes=solver.nodes - nodes,
        seconds=solver.seconds - seconds,
    )


def iter_boards(cls: BoardClass, boards: int) -> Iterator[tuple[int, FishState]]:
    """``(seed, start)`` of the class's first ``boards`` boards."""
    for seed in range(boards):
        yield seed, cls.game(seed).new_state()
