"""``pingvinas bench``: random playouts a second, on one and two threads."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING

import pingvinas as pv

from ._common import MAX_BENCH_GAMES, int_in, variant

if TYPE_CHECKING:
    from ._common import Subparsers


def run(args: argparse.Namespace) -> None:
    game = pv.load_game(args.game)
    title = "Fish" if isinstance(game, pv.Fish) else "Penguin Marathon"
    label = f"{getattr(game, 'name', None) or args.game}, {game.players} players"
    for threads in (1, 2):
        t = time.perf_counter()
        if isinstance(game, pv.Fish):
            pv.fish.random_playouts(args.games, seed=1, threads=threads, game=game)
        else:
            pv.marathon.random_playouts(args.games, seed=1, threads=threads, game=game)
        seconds = time.perf_counter() - t
        print(
            f"{title} random playouts, {label}, {threads} thread(s): "
            f"{args.games / seconds:,.0f} games/s"
        )


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser("bench", help="random playouts per second")
    p.add_argument(
        "--game",
        default="fish",
        type=variant,
        help="a bundled variant or a path to a TOML config; default fish",
    )
    p.add_argument(
        "--games",
        type=int_in(1, MAX_BENCH_GAMES),
        default=200_000,
        help=f"random playouts on each thread count (1 to {MAX_BENCH_GAMES:,}; default 200,000)",
    )
    p.set_defaults(run=run)
