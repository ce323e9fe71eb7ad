"""``docs/solved.md`` and its picture, made by ``pingvinas solve --table``: every board class of
:mod:`pingvinas.solved.boards` solved from seeds, the value map of a bundled solved board, how
far each player is from perfect play on solved boards (also ``benches/perfect_play.py``).
What was measured apart, on boards too big for this command, is a record of its own page
(``docs/solver-records.md``)."""

from __future__ import annotations

import json
import math
import os
import platform
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Callable, Optional

from .. import fish
from .._core import FishState, __version__
from .._files import check_output, write_text
from ..playing.agents import Agent
from ..playing.specs import timed_agent
from .boards import CLASSES, BoardClass, MoveValues, Solver, margin, move_values

#: The table's data (``table.json`` beside this module): the boards solved per class by default
#: (sized so that the whole command takes about a minute on a small machine with a release
#: build; a class past ``--max-nodes`` is left out, saying so in the table), and the players of the
#: perfect-play table with the time budgets they are measured at (``None``: no budget).
DATA = json.loads(resources.files(__package__).joinpath("table.json").read_text("utf-8"))
BOARDS: dict[str, int] = DATA["boards"]
PLAYERS: tuple[tuple[str, Optional[float]], ...] = tuple(
    (name, seconds) for name, seconds in DATA["players"]
)


@dataclass
class ClassRow:
    """One board class solved from seeds ``0 .. boards - 1``."""

    cls: BoardClass
    boards: int = 0
    margins: Counter[tuple[int, int]] = field(default_factory=Counter)
    nodes: int = 0
    seconds: float = 0.0
    #: Why the class was left out (a board past the node limit), else None.
    left_out: Optional[str] = None

    @property
    def wins(self) -> tuple[int, int, int]:
        """Boards the first player wins, draws and loses (fish first, then floes)."""
        won = sum(n for m, n in self.margins.items() if m > (0, 0))
        lost = sum(n for m, n in self.margins.items() if m < (0, 0))
        return won, self.boards - won - lost, lost


def solve_class(
    cls: BoardClass,
    boards: int,
    max_nodes: int,
    progress: Optional[Callable[[str], None]] = None,
) -> ClassRow:
    """Solves the class's first ``boards`` boards from the empty board (placement included)."""
    row = ClassRow(cls)
    for seed in range(boards):
        if progress is not None:
            progress(f"{cls.name}: board {seed + 1}/{boards}")
        state = cls.game(seed).new_state()
        start = time.perf_counter()
        try:
            solution = fish.solve(state, max_nodes=max_nodes)
        except ValueError as e:
            row.left_out = f"board {seed}: {e}"
            return row
        row.seconds += time.perf_counter() - start
        row.nodes += solution.nodes
        row.margins[margin(solution.scores, 0)] += 1
        row.boards += 1
    return row


# --- The picture: a solved board's placements coloured by their value. ------------------------

#: The ends of the colour scale (Okabe-Ito blue and vermillion) and its middle.
GOOD, BAD, EVEN = (0, 114, 178), (213, 94, 0), (238, 238, 238)


def value_colour(value: int, scale: int) -> str:
    """The colour of a fish margin: blue for the first player's wins, vermillion for losses,
    deeper the larger; light grey for a draw of fish."""
    t = min(1.0, abs(value) / max(scale, 1))
    end = GOOD if value > 0 else BAD if value < 0 else EVEN
    mixed = [round(e + (w - e) * (1.0 - 0.25 - 0.75 * t)) for e, w in zip(end, (255, 255, 255))]
    if value == 0:
        mixed = list(EVEN)
    return "#{:02x}{:02x}{:02x}".format(*mixed)


def value_map(state: FishState, values: MoveValues, size: float = 420.0) -> str:
    """An SVG of ``state`` (a placement position) with each placement cell tinted by the mover's
    exact fish margin after placing there and labelled with it (``+3``, ``-1``); the optimal
    placements are outlined in black."""
    from .. import svg
    from ..svg._draw import el, write_text
    from ..svg.fish import _col_name

    def name(cell: tuple[int, int]) -> str:
        return f"{_col_name(cell[1])}{cell[0] + 1}"

    moves = {name(m.dst): m for m in state.legal_moves()}
    best = {m.action for m in values.best}
    scale = max((abs(values.values[m.action][0]) for m in moves.values()), default=1)
    fill = {n: value_colour(values.values[m.action][0], scale) for n, m in moves.items()}
    ET.register_namespace("", "http://www.w3.org/2000/svg")
    root = ET.fromstring(svg.state_svg(state, size, fill=fill))
    ns = "{http://www.w3.org/2000/svg}"
    for poly in list(root.iter(f"{ns}polygon")):
        move = moves.get(poly.get("data-cell", ""))
        if move is None or poly.get("class") != "fill":
            continue
        pts = [tuple(map(float, p.split(","))) for p in (poly.get("points") or "").split()]
        x = sum(p[0] for p in pts) / len(pts)
        top = min(p[1] for p in pts)
        fish = values.values[move.action][0]
        write_text(
            root,
            x,
            top + 12.0,
            f"{fish:+d}" if fish else "0",
            11.0,
            font_weight="bold",
            class_="value",
            data_cell=poly.get("data-cell"),
        )
        if move.action in best:
            el(
                root,
                "polygon",
                class_="optimal",
                data_cell=poly.get("data-cell"),
                points=poly.get("points"),
                fill="none",
                stroke="#000000",
                stroke_width=2.5,
            )
    return ET.tostring(root, encoding="unicode")


# --- How far from perfect play. ----------------------------------------------------------------


@dataclass
class PlayRow:
    """One player at one budget against perfect play."""

    label: str
    games: int = 0
    decisions: int = 0
    optimal: int = 0
    #: Decisions whose move keeps the position's result (win, draw or loss), if not its margin.
    kept: int = 0
    fish_lost: int = 0
    seconds: float = 0.0

    @property
    def share(self) -> float:
        return self.optimal / self.decisions if self.decisions else math.nan

    @property
    def lost_per_game(self) -> float:
        return self.fish_lost / self.games if self.games else math.nan


def _result(value: tuple[int, int]) -> int:
    """1, 0 or -1: a won, drawn or lost margin (fish first, then floes)."""
    return (value > (0, 0)) - (value < (0, 0))


def make_player(name: str, time: Optional[float], seed: int) -> Agent:
    """The agent ``name`` with ``time`` seconds a move (the CLI's agents)."""
    return timed_agent(name, time if time is not None else 0.1, seed)


def perfect_play(
    cls: BoardClass,
    games: int,
    players: Sequence[tuple[str, Optional[float]]] = PLAYERS,
    solver: Optional[Solver] = None,
    progress: Optional[Callable[[str], None]] = None,
) -> list[PlayRow]:
    """Plays each player against the perfect player on the class's boards: game ``g`` on board
    ``g // 2``, the player in seat ``g % 2`` (so each board is played from both seats). At every
    decision of the player (a position with two or more legal moves) the solver says whether its
    move is optimal and how many fish of its margin it gives away; the perfect player answers
    with the solver's best move."""
    solver = solver or Solver()
    rows = []
    for name, seconds in players:
        label = name if seconds is None else f"{name}, {seconds:g} s"
        row = PlayRow(label)
        for g in range(games):
            if progress is not None:
                progress(f"perfect play: {label}: game {g + 1}/{games}")
            agent = make_player(name, seconds, seed=g)
            state = cls.game(g // 2).new_state()
            seat = g % 2
            while not state.is_over:
                if state.to_move != seat:
                    solution = solver.solve(state)
                    assert solution.move is not None
                    state.play(solution.move)
                    continue
                start = time.perf_counter()
                move = agent.choose(state)
                row.seconds += time.perf_counter() - start
                if len(state.legal_moves()) > 1:
                    best = solver.final_margin(state, seat)
                    got = solver.final_margin(state.after(move), seat)
                    row.decisions += 1
                    row.optimal += got == best
                    row.kept += _result(got) == _result(best)
                    row.fish_lost += best[0] - got[0]
                state.play(move)
            row.games += 1
        rows.append(row)
    return rows


# --- The page. ---------------------------------------------------------------------------------


def machine() -> str:
    """This machine in one line: CPU, cores, Python, load average."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return (
        f"{cpu}, {os.cpu_count()} cores, {platform.system()}, Python "
        f"{platform.python_version()}, pingvinas {__version__}; load average {load}"
    )


def _margins(row: ClassRow) -> str:
    fish: Counter[int] = Counter()
    for (f, _), n in row.margins.items():
        fish[f] += n
    return " ".join(f"`{f:+d}`: {n}" if f else f"`0`: {n}" for f, n in sorted(fish.items()))


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def render(
    rows: Sequence[ClassRow],
    play: Sequence[PlayRow],
    play_class: BoardClass,
    play_games: int,
    picture: tuple[str, str],
    command: str,
    started: str,
    took: float,
) -> str:
    """The page ``docs/solved.md``."""
    out = [
        "# Solved boards",
        "",
        "The exact value of small Fish boards under perfect play, placement included, found by",
        "the solver (`fish.solve`), and how far each engine player is from perfect play.",
        "Every figure on this page is made by one command, from seeds:",
        "",
        "```sh",
        command,
        "```",
        "",
        f"Machine: {started}. The whole command took {took:.0f} s; times are wall-clock",
        "and vary with the machine's load, node counts do not.",
        "",
        "## Board classes",
        "",
        "A *board class* is a rectangle of floes in the even-r layout with the standard board's",
        "mix of fish (half the floes 1 fish, a sixth 3 fish, the rest 2), shuffled per seed",
        "(`pingvinas.solved.CLASSES`); board 0 of each class is a bundled variant of the same",
        'name, so `load_game("fish-mini-4x4")` loads a solved board. Values are the first',
        "player's final margin, fish first and floes breaking ties (a *draw* is equal fish and",
        "floes). Two players, round-robin order, penguins placed on 1-fish floes.",
        "",
        "| class | board | fish (1/2/3) | players x penguins | boards solved "
        "| first player wins / draws / loses | first player's fish margin: boards | mean nodes "
        "| mean time |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        c = row.cls
        ones, twos, threes = c.fish
        head = (
            f"| `{c.name}` | {c.rows}x{c.cols} | {ones}/{twos}/{threes} | "
            f"{c.players} x {c.penguins}, {c.placement} |"
        )
        if row.boards == 0:
            why = row.left_out or f"not in this run (`--boards {c.name}=N` adds it)"
            out.append(f"{head} 0 | left out: {why} | | | |")
            continue
        w, d, lost = row.wins
        out.append(
            f"{head} {row.boards} | {_share(w, row.boards)} / {_share(d, row.boards)} / "
            f"{_share(lost, row.boards)} | {_margins(row)} | "
            f"{row.nodes / row.boards:,.0f} | {row.seconds / row.boards:.3g} s |"
        )
    left = [r for r in rows if r.left_out and r.boards]
    if left:
        out += [""] + [
            f"`{r.cls.name}` stopped after {r.boards} boards ({r.left_out}); "
            "its row counts the boards solved."
            for r in left
        ]
    out += ["", "## A solved board", ""]
    link, note = picture
    out += [f"![The value map of a solved board]({link})", "", note]
    out += [
        "",
        "## How far from perfect play",
        "",
        f"Each player plays {play_games} games on the boards of `{play_class.name}` (game g on",
        "board g // 2, the player in seat g % 2, so each board from both seats) against the",
        "perfect player (the solver's best move). At each of its *decisions* (a position with",
        "two or more legal moves) the solver says whether its move keeps the position's value",
        "(fish, then floes) and how many fish of its final margin it gives away. The budget is",
        "the time per move (search players only). The engine's players search for the",
        "*result* (their returns are win, draw or loss), not the margin, so a move that keeps",
        "a won game won but by less counts as not optimal here; the column of moves that keep",
        "the result tells the two apart.",
        "",
        "| player, time per move | games | decisions | optimal moves | moves that keep the "
        "result | fish lost per game |",
        "|---|---|---|---|---|---|",
    ]
    for p in play:
        out.append(
            f"| {p.label} | {p.games} | {p.decisions} | {_share(p.optimal, p.decisions)} | "
            f"{_share(p.kept, p.decisions)} | {p.lost_per_game:.2f} |"
        )
    out += [
        "",
        'The perfect player is also an agent: `SearchAgent("solve")`, the agent spec',
        "`solve` (`pingvinas match --game fish-mini-4x4 --agents solve greedy`, the vector env's",
        '`opponent="solve"`, `pingvinas serve --engine solve`). On a position too big for its',
        "budget it raises `ValueError` saying so (a `nodes=` budget raises the limit).",
        "",
        "`pingvinas solve fish-mini-4x4` prints a position's value and every optimal move;",
        "`benches/perfect_play.py` runs the perfect-play table alone.",
        "",
    ]
    return "\n".join(out)


def write_table(
    out: str = "docs/solved.md",
    img: str = "docs/img/solved-fish-mini-4x4.svg",
    boards: Optional[dict[str, int]] = None,
    play_games: int = 20,
    max_nodes: int = 50_000_000,
    players: Sequence[tuple[str, Optional[float]]] = PLAYERS,
    classes: Sequence[BoardClass] = CLASSES,
    command: str = "pingvinas solve --table",
    quiet: bool = False,
) -> str:
    """Solves every class (``boards`` of each: :data:`BOARDS` by default), draws the value map
    of board 0 of the first class, plays each of ``players`` ``play_games`` games against
    perfect play on the first class's boards, and writes the page ``out`` and the picture
    ``img`` (its directory made if need be); returns the page.

    :raises ValueError: ``out`` or ``img`` cannot be written (checked before any work).
    """
    check_output(out)
    check_output(img, make_dirs=True)

    def progress(line: str) -> None:
        if not quiet:
            end = "\r" if sys.stderr.isatty() else "\n"
            print(f"{line:<60}", end=end, file=sys.stderr, flush=True)

    started = machine()
    start = time.perf_counter()
    counts = dict(BOARDS, **(boards or {}))
    rows = [solve_class(c, counts.get(c.name, 0), max_nodes, progress) for c in classes]
    first = classes[0]
    state = first.game(0).new_state()
    solver = Solver(max_nodes)
    progress(f"the picture: every placement of {first.name}")
    values = move_values(state, solver=solver)
    picture = value_map(state, values)
    note = (
        f"`{first.name}` before the first placement: each floe where player A may place is "
        f"tinted by A's exact fish margin after placing there (blue: A wins, vermillion: A "
        f"loses; the number is the margin) and the optimal placements are outlined. Its value: "
        f"{values.value[0]:+d} fish, {values.value[1]:+d} floes for A."
    )
    play = perfect_play(first, play_games, players, solver, progress)
    link = os.path.relpath(img, os.path.dirname(out) or ".").replace(os.sep, "/")
    page = render(
        rows,
        play,
        first,
        play_games,
        (link, note),
        command,
        started,
        time.perf_counter() - start,
    )
    os.makedirs(os.path.dirname(img) or ".", exist_ok=True)
    write_text(img, picture + "\n")
    write_text(out, page)
    if not quiet and sys.stderr.isatty():
        print(file=sys.stderr)  # past the progress line
    return page
