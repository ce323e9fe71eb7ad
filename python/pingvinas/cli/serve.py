"""``pingvinas serve``: play against the engine on a page in the browser."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from pingvinas._args import TIME

from ._common import AGENTS, agent_spec, int_in, time_budget, variant

if TYPE_CHECKING:
    from ._common import Subparsers


def run(args: argparse.Namespace) -> None:
    from pingvinas.web import serve

    try:
        serve(
            args.variant,
            port=args.port,
            host=args.host,
            engine=args.engine,
            time=args.time,
            open_browser=args.open,
            quiet=args.quiet,
        )
    except OSError as e:  # the port is taken, or the host is not this machine's
        sys.exit(f"pingvinas: cannot serve on {args.host}:{args.port}: {e.strerror or e}")
    except ImportError as e:  # the `web` extra is missing: the message says what to install
        sys.exit(f"pingvinas: {e}")


def _engine(text: str) -> str:
    """A built-in agent: the page's engine runs in the server (no external engines)."""
    if text.startswith("cmd:"):
        raise argparse.ArgumentTypeError("the page plays the built-in engines, not 'cmd:' ones")
    return agent_spec(text)


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser("serve", help="play against the engine on a page in your browser")
    p.add_argument(
        "--port",
        type=int_in(0, 65535),
        default=8000,
        help="0 to 65,535 (default 8000; 0 picks a free port)",
    )
    p.add_argument("--host", default="127.0.0.1", help="default 127.0.0.1 (this machine only)")
    p.add_argument(
        "--game",
        "--variant",
        dest="variant",
        default="fish",
        type=variant,
        help="the first game's variant: a bundled name or a TOML config (default fish)",
    )
    p.add_argument(
        "--agents",
        "--agent",
        "--engine",
        dest="engine",
        metavar="AGENT",
        default="auto",
        type=_engine,
        help=f"the engine's agent (--engine is the same): {', '.join(AGENTS)}, mcts:N, "
        "alphabeta:D or a net file: net:PATH (PUCT), SPEC+net:PATH (default auto)",
    )
    p.add_argument(
        "--time",
        type=time_budget,
        default=1.0,
        help=f"seconds per engine move, solve too ({TIME}; default 1)",
    )
    p.add_argument("--open", action="store_true", help="open the page in the web browser")
    p.add_argument("--quiet", action="store_true", help="no request log")
    p.set_defaults(run=run)
