"""``pingvinas match``: many games between agents, and the results table."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

import pingvinas as pv

from ._common import MAX_MATCH_GAMES, MAX_WORKERS, game_options, int_in, make_agent

if TYPE_CHECKING:
    from ._common import Subparsers


def run(args: argparse.Namespace) -> None:
    from pingvinas.play.match import play_match

    game = pv.load_game(args.game)
    agents = [make_agent(n, args.time, args.seed + i) for i, n in enumerate(args.agents)]
    print(
        f"{args.games} games of {args.game}, {args.time} s per move: "
        f"{' vs '.join(a.name for a in agents)}"
    )
    try:
        result = play_match(
            game,
            agents,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            progress=not args.quiet,
            save=args.save,
            backend=args.backend,
            address=args.address,
        )
    except OSError as e:  # the save file (opened before the first game)
        raise ValueError(f"cannot write {e.filename or args.save}: {e.strerror or e}") from None
    except BaseException as e:  # an error or Ctrl-C: say what was kept
        partial = getattr(e, "match_result", None)
        if args.save and partial is not None:
            print(
                f"pingvinas: stopped; kept the {partial.games} finished game(s) in {args.save}",
                file=sys.stderr,
            )
        raise
    print(result)
    if args.save:
        print(f"saved {args.games} game records to {args.save}")


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser("match", help="play many games between agents and print the results table")
    game_options(p)
    p.add_argument("--games", type=int_in(1, MAX_MATCH_GAMES), default=20)
    p.add_argument(
        "--workers",
        type=int_in(1, MAX_WORKERS),
        default=None,
        help="games played at once (default 1; with --backend ray: twice the cluster's CPUs)",
    )
    p.add_argument(
        "--backend",
        choices=["local", "ray"],
        default="local",
        help='where the games run: here, or on Ray (pip install "ray>=2.9")',
    )
    p.add_argument(
        "--address",
        default=None,
        help="with --backend ray: the cluster (auto, ray://HOST:10001; default: RAY_ADDRESS, "
        "else a local Ray instance)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--save", metavar="FILE", help="write every game to FILE as JSON Lines game records"
    )
    p.set_defaults(run=run)
