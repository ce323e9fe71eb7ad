"""The ``pingvinas`` command line: matches between engines, games for people, pictures, speed,
variants, exact solutions.

    pingvinas match --game fish --agents auto mcts --games 20 --time 0.1 --save games.jsonl
    pingvinas match --agents auto mcts --sprt 0 10 --games 2000
    pingvinas ladder --game fish --agents random greedy mcts auto --games 20 --out ladder
    pingvinas engine --agent auto
    pingvinas play --game marathon --agents human auto
    pingvinas show games.jsonl --move 12 --svg position.svg
    pingvinas bench --game my-board.toml
    pingvinas variants
    pingvinas serve --port 8000 --variant fish --engine auto --time 1
    pingvinas train --game fish --out runs/fish --minutes 20
    pingvinas solve fish-mini-4x4 --seed 3
    pingvinas solve --table

Every ``--game`` is a bundled variant or a path to a TOML config. A bad argument is reported
on one line of stderr with exit code 2 (as argparse does); an error while running, on one
line with exit code 1; Ctrl-C exits with 130 (SIGTERM stops ``match`` and ``ladder`` as Ctrl-C
does, keeping what they finished, and exits with 143). No command replaces an existing file
unless asked (``--force``; ``match --save`` also takes ``--append``); output paths are checked
before any work, and each file is written through a temporary file beside it, renamed into
place once complete.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import NoReturn, Optional

import pingvinas as pv

from . import bench, engine, ladder, match, play, serve, show, solve, train, variants
from ._common import AGENTS, MAX_SEED, PLAY_AGENTS, Parser, Terminated, UsageError

__all__ = ["AGENTS", "MAX_SEED", "PLAY_AGENTS", "build_parser", "main"]

#: The subcommands, in the order ``--help`` lists them; each module adds its parser.
COMMANDS = (match, ladder, engine, play, show, bench, serve, train, solve, variants)


def build_parser() -> Parser:
    parser = Parser(
        prog="pingvinas", description="Engines for the penguin games Fish and Penguin Marathon."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {pv.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def _fail(message: str, code: int) -> NoReturn:
    print(f"pingvinas: {message}", file=sys.stderr)
    sys.exit(code)


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    if hasattr(args, "agents"):
        players = pv.load_game(args.game).players
        if args.command == "play":  # a person against the engine
            default = ["human"] + ["auto"] * (players - 1)
        else:
            default = ["auto", "greedy"]
        args.agents = args.agents or default
        if len(args.agents) != players:
            parser.error(
                f"{args.command}: {players} agents needed for {args.game}, got "
                f"{len(args.agents)}: {' '.join(args.agents)}"
            )
        if args.command != "play" and "human" in args.agents:
            parser.error(f"{args.command}: human players take part in `pingvinas play` only")
    try:
        args.run(args)
    except UsageError as e:
        parser.error(f"{args.command}: {e}")
    except KeyboardInterrupt as e:
        sys.exit(143 if isinstance(e, Terminated) else 130)
    except (ValueError, TypeError, OverflowError, RuntimeError, OSError) as e:
        if isinstance(e, OSError) and e.strerror:  # a file: which, and what the system said
            text = f"{e.filename}: {e.strerror}" if e.filename else e.strerror
        else:
            text = " ".join(str(e).split())
        _fail(text if len(text) <= 300 else text[:300] + "...", 1)


if __name__ == "__main__":
    main()
