"""``pingvinas ladder``: a round robin between players, rated on one Elo scale with 95%
intervals; the table as CSV and Markdown and a picture of the Elo axis, in ``--out``."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

import pingvinas as pv
from pingvinas._args import TIME, Range
from pingvinas._files import check_output, check_output_dir

from ._common import (
    MAX_MATCH_GAMES,
    MAX_SEED,
    MAX_WORKERS,
    UsageError,
    agent_spec,
    force_option,
    int_in,
    make_agent,
    ranged,
    sigterm_stops,
    time_budget,
    variant,
)

if TYPE_CHECKING:
    from ._common import Subparsers


#: The files a ladder writes in ``--out``.
OUTPUTS = ("ladder.csv", "ladder.md", "ladder.svg")


def run(args: argparse.Namespace) -> None:
    from pingvinas.playing.match import check_agents
    from pingvinas.rating.ladder import run_ladder

    # Before any game: --out can be made, and holds no earlier ladder unless --force, nor a
    # directory or device where a file goes.
    check_output_dir(args.out, writes=() if args.force else OUTPUTS, hint=": --force replaces them")
    for name in OUTPUTS:
        check_output(os.path.join(args.out, name), make_dirs=True)

    game = pv.load_game(args.game)
    names = args.roster
    if "human" in names:
        raise UsageError("human players take part in `pingvinas play` only")
    if len(set(names)) != len(names):
        raise UsageError(f"a player named twice: {' '.join(names)}")
    if len(names) < max(game.players, 2):
        raise UsageError(
            f"{len(names)} player(s) for a {game.players}-player game: a ladder needs at least "
            f"{max(game.players, 2)}"
        )
    agents = [make_agent(n, args.time, args.seed + i) for i, n in enumerate(names)]
    # The spec as the player's name, so that mcts:500 and mcts differ in the table.
    for agent, name in zip(agents, names):
        agent.name = name[4:] if name.startswith("cmd:") else name
    if args.anchor is not None and args.anchor not in [a.name for a in agents]:
        raise UsageError(
            f"--anchor {args.anchor}: no player of that name ({', '.join(a.name for a in agents)})"
        )
    try:
        check_agents(game, agents)
    except ValueError as e:
        raise UsageError(str(e)) from None
    title = f"{args.game}: {args.time:g} s a move, {args.games} games a table"
    print(f"ladder of {len(agents)} players on {title}")

    def table(here: list[str], result: Any) -> None:
        line = ", ".join(f"{a.name} {a.wins}-{a.draws}-{a.losses}" for a in result.agents)
        print(f"  {' vs '.join(here)}: {line} (wins-draws-losses)", flush=True)

    try:
        with sigterm_stops():
            ladder = run_ladder(
                game,
                agents,
                games=args.games,
                seed=args.seed,
                workers=args.workers,
                backend=args.backend,
                address=args.address,
                progress=not args.quiet,
                anchor=args.anchor,
                prior=args.prior,
                title=title,
                on_table=table,
            )
    except BaseException as e:  # an error or Ctrl-C: write the tables played so far
        partial = getattr(e, "ladder", None)
        if partial is not None:
            paths = _write(partial, args.out)
            print(
                f"pingvinas: stopped; wrote the ladder so far: {', '.join(paths)}", file=sys.stderr
            )
        raise
    print(ladder)
    print(f"wrote {', '.join(_write(ladder, args.out))}")


def _write(ladder: Any, out: str) -> list[str]:
    try:
        paths: list[str] = ladder.write(out)
    except OSError as e:
        raise ValueError(f"cannot write {e.filename or out}: {e.strerror or e}") from None
    return paths


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser(
        "ladder",
        help="a round robin rated in Elo with 95%% intervals: a table (CSV, Markdown) and an SVG",
        description="Every table of players (every pair, for a two-player game) plays --games "
        "games, seats rotating on shared deals; Plackett-Luce ratings of the games' finishing "
        "orders by maximum likelihood (Bradley-Terry with two players), random = 0 (or "
        "--anchor).",
    )
    p.add_argument(
        "--game", default="fish", type=variant, help="a bundled variant or a TOML config"
    )
    p.add_argument(
        "--agents",
        dest="roster",
        nargs="+",
        required=True,
        type=agent_spec,
        metavar="AGENT",
        help="the players: agent specs (random, greedy, mcts, alphabeta, auto, mcts:N, ...) or "
        "external engines, 'cmd:COMMAND'",
    )
    p.add_argument(
        "--time",
        type=time_budget,
        default=0.1,
        help=f"seconds per move for searches ({TIME}; default 0.1)",
    )
    p.add_argument(
        "--games",
        type=int_in(1, MAX_MATCH_GAMES),
        default=20,
        help=f"games per table (1 to {MAX_MATCH_GAMES:,}; default 20)",
    )
    p.add_argument("--out", required=True, metavar="DIR", help="where the table and SVG go")
    force_option(p, "the ladder files in --out (ladder.csv, ladder.md, ladder.svg)")
    p.add_argument("--seed", type=int_in(0, MAX_SEED), default=0, help="0 to 2**63 - 1 (default 0)")
    p.add_argument(
        "--workers",
        type=int_in(1, MAX_WORKERS),
        default=None,
        help=f"games played at once (1 to {MAX_WORKERS}; default 1; with --backend ray: twice "
        "the cluster's CPUs)",
    )
    p.add_argument("--backend", choices=["local", "ray"], default="local")
    p.add_argument("--address", default=None, help="with --backend ray: the cluster")
    p.add_argument("--anchor", default=None, help="the player rated 0 (default random)")
    p.add_argument(
        "--prior",
        type=ranged(Range(0, 1000, integer=False, above=True)),
        default=2.0,
        help="virtual draws between every two players who met, which keep the rating of a player "
        "who won or lost every game finite (above 0, at most 1,000; default 2, as BayesElo)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run)
