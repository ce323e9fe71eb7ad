"""``pingvinas solve``: the exact value and every optimal move of a small Fish position, and
the published table of solved boards (``--table``)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TYPE_CHECKING

import pingvinas as pv
from pingvinas._args import TIME

from ._common import MAX_INDEX, MAX_SEED, check_outputs, force_option, int_in, quote, time_budget

if TYPE_CHECKING:
    from ._common import Subparsers


def _solve_position(args: argparse.Namespace) -> tuple[pv.FishState, str]:
    """The position ``pingvinas solve`` solves, and a line saying which it is."""
    from pingvinas import solved

    source: str = args.source
    try:
        cls = solved.board_class(source)
    except ValueError:
        cls = None
    if cls is not None:
        label = f"{cls.name} board {args.seed} ({cls.shape()})"
        return cls.game(args.seed).new_state(), label
    stripped = source.lstrip()
    if source.endswith(".toml") or (not stripped.startswith("{") and not os.path.isfile(source)):
        game = pv.load_game(source)
        if not isinstance(game, pv.Fish):
            raise ValueError(f"{quote(source)} is a Penguin Marathon variant: the solver is Fish's")
        return game.new_state(seed=args.seed), f"{source}, seed {args.seed}"
    from pingvinas.console import load_shown

    shown = load_shown(source, args.index)
    if isinstance(shown, pv.GameRecord):
        n = len(shown) if args.move is None else args.move
        if not -len(shown) <= n <= len(shown):
            raise ValueError(f"--move {n}: the game has {len(shown)} moves (0 to {len(shown)})")
        state, label = shown.states()[n], f"the position after {n % (len(shown) + 1)} moves"
    else:
        state, label = shown, "the position given"
    if not isinstance(state, pv.FishState):
        raise ValueError("a Penguin Marathon position: the solver is Fish's")
    return state, label


def _signed(value: tuple[int, int]) -> str:
    return f"{value[0]:+d} fish, {value[1]:+d} floes"


#: Seconds between two progress lines off a terminal (a log, CI), as a match's bar has them.
PROGRESS_EVERY = 10.0


def run(args: argparse.Namespace) -> None:
    if args.table:
        if args.time is not None:
            raise ValueError("--time limits the solve of one position, not --table")
        from pingvinas.solved.table import write_table

        # Before any solving: neither file exists unasked, and both can be written.
        check_outputs(args.out, force=args.force)
        check_outputs(args.img, force=args.force, make_dirs=True)

        boards = dict(args.boards or [])
        command = "pingvinas solve --table" + "".join(
            f" --boards {k}={v}" for k, v in boards.items()
        )
        if args.games != 20:
            command += f" --games {args.games}"
        if args.max_nodes != 50_000_000:
            command += f" --max-nodes {args.max_nodes}"
        if args.force:  # the page says how to make it again, over itself
            command += " --force"
        write_table(
            out=args.out,
            img=args.img,
            boards=boards,
            play_games=args.games,
            max_nodes=args.max_nodes,
            command=command,
            quiet=args.quiet,
        )
        print(f"wrote {args.out} and {args.img}")
        return
    if args.source is None:
        raise ValueError(
            "solve: give a position (a board class, a Fish variant or config, a state's JSON "
            "or a game record) or --table"
        )
    from pingvinas import solved

    state, label = _solve_position(args)
    if state.is_over:
        raise ValueError(f"{label}: the game is over")
    print(label)
    print(state)
    letter = "ABCD"[state.to_move or 0]
    who = f"player {state.to_move} ({letter})"
    tty = sys.stderr.isatty()
    shown = [0.0]  # when the last line off a terminal was printed

    def progress(nodes: int, seconds: float) -> None:
        # The solver's own report, about every 0.25 s of a long solve: on a terminal one line
        # redrawn, elsewhere a line every PROGRESS_EVERY seconds.
        if args.quiet:
            return
        if tty:
            print(f"\rsolving: {nodes:,} nodes, {seconds:.1f} s   ", end="", file=sys.stderr)
        elif seconds - shown[0] >= PROGRESS_EVERY:
            shown[0] = seconds
            print(f"solving: {nodes:,} nodes, {seconds:.1f} s", file=sys.stderr, flush=True)

    def done() -> None:
        if tty and not args.quiet:
            print("\r" + " " * 50 + "\r", end="", file=sys.stderr)

    start = time.perf_counter()
    if state.players != 2:  # paranoid: one best move, no comparison of children
        try:
            sol = pv.fish.solve(state, max_nodes=args.max_nodes, time=args.time, progress=progress)
        finally:
            done()
        print(f"value for {who} (paranoid: against all the others): {_signed(sol.value)} to come")
        print(f"best move: {sol.move}")
        print(f"nodes: {sol.nodes:,}; time: {time.perf_counter() - start:.3f} s")
        return

    solver = solved.Solver(args.max_nodes, time=args.time)
    try:
        values = solved.move_values(state, solver=solver, progress=progress)
    finally:
        done()
    seconds = time.perf_counter() - start
    best = values.best
    after = state.after(best[0])
    line = solver.solve(state, all_values=True)  # the solve above, kept
    if line.move is not None and line.move.action == best[0].action:
        final = line.scores
    elif after.is_over:
        final = after.scores
    else:
        if args.time is not None:  # what is left of it
            solver.time = max(args.time - (time.perf_counter() - start), 0.001)
        final = solver.solve(after).scores
    scores = ", ".join(f"{'ABCD'[p]} {f} fish {n} floes" for p, (f, n) in enumerate(final))
    print(f"value for {who}: {_signed(values.value)} at the end ({scores})")
    print(f"optimal moves ({len(best)} of {len(values.values)}): {', '.join(map(str, best))}")
    if args.all:
        moves = state.legal_moves()
        order = sorted(moves, key=lambda m: values.values[m.action], reverse=True)
        for m in order:
            print(f"  {str(m):<8} {_signed(values.values[m.action])}")
    print(f"nodes: {values.nodes:,}; time: {seconds:.3f} s")


def _class_boards(text: str) -> tuple[str, int]:
    """``CLASS=N`` of ``--boards``."""
    from pingvinas import solved

    name, sep, count = text.partition("=")
    try:
        solved.board_class(name)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    if not sep:
        raise argparse.ArgumentTypeError(f"expected CLASS=N, got {quote(text)}")
    return name, int_in(0, 100_000)(count)


def add_parser(sub: Subparsers) -> None:
    from pingvinas.solved.boards import CLASSES

    p = sub.add_parser(
        "solve",
        help="the exact value and every optimal move of a small Fish position; --table writes "
        "docs/solved.md",
    )
    p.add_argument(
        "source",
        nargs="?",
        metavar="POSITION",
        help=f"a board class ({', '.join(c.name for c in CLASSES)}: board --seed of it), a Fish "
        "variant or TOML config (its start, dealt from --seed), or a state's JSON or a game "
        "record (a file or the JSON)",
    )
    p.add_argument(
        "--seed", type=int_in(0, MAX_SEED), default=0, help="the board (0 to 2**63 - 1; default 0)"
    )
    p.add_argument(
        "--move",
        type=int_in(-MAX_INDEX, MAX_INDEX),
        help="of a record: the position after this many moves (-1,000,000,000 to "
        "1,000,000,000; negative: from the end)",
    )
    p.add_argument(
        "--index",
        type=int_in(-MAX_INDEX, MAX_INDEX),
        default=0,
        help="which record of a JSON Lines file (-1,000,000,000 to 1,000,000,000; default 0)",
    )
    p.add_argument(
        "--max-nodes",
        type=int_in(1, 10**12),
        default=50_000_000,
        help="give up on a solve past this many positions (1 to 1,000,000,000,000; default "
        "50,000,000)",
    )
    p.add_argument(
        "--time",
        type=time_budget,
        help=f"give up on a solve past this many seconds ({TIME}; default: no limit)",
    )
    p.add_argument("--all", action="store_true", help="also print the value of every move")
    p.add_argument(
        "--quiet",
        action="store_true",
        help="no progress on stderr (on a terminal a line redrawn, elsewhere a line every 10 s)",
    )
    p.add_argument(
        "--table",
        action="store_true",
        help="solve every board class from seeds, measure each player against perfect play "
        "and write --out and --img",
    )
    p.add_argument("--out", default="docs/solved.md", help="--table's page (docs/solved.md)")
    p.add_argument(
        "--img",
        default="docs/img/solved-fish-mini-4x4.svg",
        help="--table's picture (docs/img/solved-fish-mini-4x4.svg)",
    )
    force_option(p, "--table's --out and --img")
    p.add_argument(
        "--boards",
        type=_class_boards,
        action="append",
        metavar="CLASS=N",
        help="--table: solve N boards of CLASS, N 0 to 100,000 (default: the table's own counts)",
    )
    p.add_argument(
        "--games",
        type=int_in(0, 100_000),
        default=20,
        help="--table: games per player against perfect play (0 to 100,000; default 20)",
    )
    p.set_defaults(run=run)
