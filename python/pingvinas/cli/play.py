"""``pingvinas play``: a game in the terminal, any seat a person."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Optional

import pingvinas as pv

from ._common import game_options, make_agent

if TYPE_CHECKING:
    from pingvinas.playing.agents import Agent

    from ._common import Subparsers


def _seats(args: argparse.Namespace) -> list[Optional[Agent]]:
    """``play``'s seats: an agent, or None for a person."""
    return [
        None if n == "human" else make_agent(n, args.time, args.seed + i)
        for i, n in enumerate(args.agents)
    ]


def run(args: argparse.Namespace) -> None:
    from pingvinas.console import play

    game = pv.load_game(args.game)
    seats = _seats(args)
    hint = max(args.time, 0.1)
    sys.exit(play(game, seats, seed=args.seed, hint_time=hint, names=args.agents))


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser(
        "play",
        help="play a game in the terminal, any seat human (? lists the moves, help the commands)",
    )
    game_options(p)
    p.add_argument("--verbose", "-v", action="store_true", help="(every move is shown anyway)")
    p.set_defaults(run=run)
