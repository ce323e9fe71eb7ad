"""``pingvinas engine``: one of the project's agents as an engine speaking the engine protocol
on stdin and stdout (``docs/protocol.md``), for match managers and other programs."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ._common import MAX_SEED, agent_spec, int_in, make_agent

if TYPE_CHECKING:
    from ._common import Subparsers


def run(args: argparse.Namespace) -> None:
    from pingvinas.playing.protocol.engine import run_engine

    if args.agent == "human":
        raise ValueError("engine: an engine is one of the agents, not a person")
    # The time is each `go`'s; 1 s stands until the first one.
    agent = make_agent(args.agent, 1.0, args.seed)
    run_engine(agent, name=args.name or f"pingvinas {args.agent}", seed=args.seed)


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser(
        "engine",
        help="run an agent as an engine over stdin and stdout (the engine protocol, "
        "docs/protocol.md)",
    )
    p.add_argument(
        "--agent",
        default="auto",
        type=agent_spec,
        help="the agent: random, greedy, mcts, alphabeta, auto, mcts:N, alphabeta:D, net:PATH, "
        "... (default auto)",
    )
    p.add_argument(
        "--seed",
        type=int_in(0, MAX_SEED),
        default=0,
        help="seeds each game's agent (0 to 2**63 - 1; default 0)",
    )
    p.add_argument("--name", help="the name the engine gives (default: pingvinas AGENT)")
    p.set_defaults(run=run)
