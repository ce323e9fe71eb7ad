"""``pingvinas train``: a native net by Gumbel self-play, or an alpha-beta evaluation net."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

import pingvinas as pv

from ._common import MAX_SEED, fraction, int_in, positive, seconds, variant

if TYPE_CHECKING:
    from ._common import Subparsers


def run(args: argparse.Namespace) -> None:
    from pingvinas.learn.train import settings_from, train

    try:
        say = None if args.quiet else (lambda line: print(line, flush=True))
        if args.kind == "nnue":
            from pingvinas.learn.train_nnue import NnueSettings, train_nnue

            settings = NnueSettings(
                out=args.out,
                games=args.games,
                depth=args.depth,
                explore=args.explore,
                search_mix=args.search_value_mix,
                width=args.width,
                hidden=tuple(args.hidden),
                terms=args.terms,
                rounds=args.rounds,
                check_games=args.check_games,
                check_time=args.check_time,
                steps=args.steps,
                batch=args.batch,
                lr=args.lr,
                seed=args.seed,
            )
            train_nnue(pv.load_game(args.game), settings, log=say)
            return
        train(pv.load_game(args.game), settings_from(args), log=say)
    except ImportError as e:  # the `train` extra is missing: the message says what to install
        sys.exit(f"pingvinas: {e}")


def add_parser(sub: Subparsers) -> None:
    from pingvinas.learn.train import Settings

    d = Settings(out="")  # the defaults, once: train.Settings
    p = sub.add_parser(
        "train",
        help="train a native net by Gumbel self-play (JAX and optax: pip install "
        '"pingvinas[train]")',
        description="Trains a native net by Gumbel self-play; writes every generation's "
        "weights, log.jsonl and the learning curve (curve.svg, curve.png) to --out.",
    )
    p.add_argument(
        "--game", default="fish", type=variant, help="a bundled variant or a TOML config"
    )
    p.add_argument("--out", required=True, metavar="DIR", help="where the nets and the log go")
    p.add_argument("--seed", type=int_in(0, MAX_SEED), default=d.seed, help=f"default {d.seed}")
    p.add_argument(
        "--kind",
        choices=["mlp", "nnue"],
        default="mlp",
        help="mlp: a policy-and-value net by Gumbel self-play (the default); nnue: a residual "
        "NNUE evaluation for alpha-beta from alpha-beta's games (--games, --depth, --explore, "
        "--search-value-mix, --width, --terms, --hidden, --rounds, --steps, --batch, --lr)",
    )
    p.add_argument(
        "--depth", type=int_in(1, 64), default=3, help="nnue: alpha-beta's depth in its games (3)"
    )
    p.add_argument(
        "--explore",
        type=fraction,
        default=0.15,
        help="nnue: the share of plies played at random (0.15)",
    )
    p.add_argument(
        "--width",
        type=int_in(0, 4096),
        default=64,
        help="nnue: the accumulator's width (64; 0: no cell features, with --terms)",
    )
    p.add_argument(
        "--terms",
        action="store_true",
        help="nnue: the first dense layer also reads the hand-written evaluation's terms",
    )
    p.add_argument(
        "--rounds",
        type=int_in(1, 100_000),
        default=1,
        help="nnue: make the games and take the steps in this many rounds, each training on "
        "every position so far, with a check after each (1)",
    )
    p.add_argument(
        "--generations",
        type=int_in(1, 100_000),
        default=d.generations,
        help=f"at most this many ({d.generations})",
    )
    p.add_argument(
        "--minutes",
        type=positive,
        default=None,
        help="stop after this many minutes of self-play and training (default: no limit)",
    )
    p.add_argument(
        "--games",
        type=int_in(1, 100_000),
        default=d.games,
        help=f"self-play games a generation ({d.games})",
    )
    p.add_argument(
        "--simulations",
        type=int_in(1, 100_000),
        default=d.simulations,
        help=f"Gumbel simulations ({d.simulations})",
    )
    p.add_argument(
        "--hidden", type=int_in(1, 4096), nargs="+", default=list(d.hidden), help="trunk widths"
    )
    p.add_argument(
        "--steps",
        type=int_in(1, 1_000_000),
        default=d.steps,
        help=f"updates a generation ({d.steps})",
    )
    p.add_argument(
        "--batch", type=int_in(1, 65_536), default=d.batch, help=f"batch size ({d.batch})"
    )
    p.add_argument("--lr", type=positive, default=d.lr, help=f"Adam's learning rate ({d.lr})")
    p.add_argument(
        "--weight-decay",
        type=fraction,
        default=d.weight_decay,
        help=f"AdamW's decay ({d.weight_decay})",
    )
    p.add_argument(
        "--value-weight",
        type=positive,
        default=d.value_weight,
        help=f"value loss weight ({d.value_weight:g})",
    )
    p.add_argument(
        "--window",
        type=int_in(1, 10_000),
        default=d.window,
        help=f"generations of samples kept ({d.window})",
    )
    p.add_argument(
        "--distill-games",
        type=int_in(0, 100_000),
        default=d.distill_games,
        help=f"first distil alphabeta from this many games (default {d.distill_games}: none)",
    )
    p.add_argument(
        "--distill-depth",
        type=int_in(1, 64),
        default=d.distill_depth,
        help=f"its depth then ({d.distill_depth})",
    )
    p.add_argument(
        "--search-value-mix",
        type=fraction,
        default=d.search_value_mix,
        help="weight of the search value in the value targets that have one "
        f"({d.search_value_mix})",
    )
    p.add_argument(
        "--check-every",
        type=int_in(1, 100_000),
        default=d.check_every,
        help="generations between checks",
    )
    p.add_argument(
        "--check-games",
        type=int_in(0, 100_000),
        default=d.check_games,
        help=f"games against mcts and alphabeta in each check ({d.check_games}; 0: no checks)",
    )
    p.add_argument(
        "--check-time",
        type=seconds,
        default=d.check_time,
        help=f"seconds a move in checks ({d.check_time})",
    )
    p.add_argument(
        "--player",
        choices=["puct", "puct-root", "alphabeta", "mcts"],
        default=d.player,
        help=f"how the net plays in checks: Gumbel PUCT ({d.player}, the default), PUCT with "
        "PUCT at the root too, alpha-beta or MCTS with the net's value",
    )
    p.add_argument(
        "--playout-mix",
        type=float,
        default=d.playout_mix,
        help="PUCT players in checks: the share of a leaf's value taken from a playout "
        f"(AlphaGo's lambda; {d.playout_mix})",
    )
    p.add_argument(
        "--distill-steps",
        type=int,
        default=d.distill_steps,
        help="updates on the distillation samples (default: --steps)",
    )
    p.add_argument("--progress", action="store_true", help="progress bars for self-play")
    p.add_argument("--quiet", action="store_true", help="no line a generation")
    p.set_defaults(run=run)
