"""``pingvinas train``: a native net by Gumbel self-play, or an alpha-beta evaluation net."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

import pingvinas as pv
from pingvinas._args import Range
from pingvinas._files import check_output_dir

from ._common import force_option, ranged, variant

if TYPE_CHECKING:
    from ._common import Subparsers


def run(args: argparse.Namespace) -> None:
    from pingvinas.learn.train import OUTPUTS, settings_from, train

    # Before any work (and before JAX is looked for): --out can be made, and holds no earlier
    # run's files unless --force.
    check_output_dir(
        args.out,
        writes=() if args.force else OUTPUTS,
        hint=": --force replaces the earlier run's files, or give another --out",
    )
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
    from pingvinas.learn.train import RANGES, WIDTH, Settings
    from pingvinas.learn.train_nnue import NNUE_RANGES

    d = Settings(out="")  # the defaults, once: train.Settings
    p = sub.add_parser(
        "train",
        help="train a native net by Gumbel self-play (JAX and optax: pip install "
        '"pingvinas[train]")',
        description="Trains a native net by Gumbel self-play; writes every generation's "
        "weights, log.jsonl and the learning curve (curve.svg, curve.png) to --out.",
    )

    def number(name: str, help: str, default: Any, ranges: dict[str, Range] = RANGES) -> None:
        """An option whose range is that of the setting ``name`` (the help gives it)."""
        r = ranges[name]
        p.add_argument(
            "--" + name.replace("_", "-"),
            type=ranged(r),
            default=default,
            help=f"{help} ({r}; default {default})",
        )

    p.add_argument(
        "--game", default="fish", type=variant, help="a bundled variant or a TOML config"
    )
    p.add_argument("--out", required=True, metavar="DIR", help="where the nets and the log go")
    force_option(p, "the files of an earlier run in --out")
    p.add_argument(
        "--seed", type=ranged(RANGES["seed"]), default=d.seed, help=f"0 to 2**63 - 1 ({d.seed})"
    )
    p.add_argument(
        "--kind",
        choices=["mlp", "nnue"],
        default="mlp",
        help="mlp: a policy-and-value net by Gumbel self-play (the default); nnue: a residual "
        "NNUE evaluation for alpha-beta from alpha-beta's games (--games, --depth, --explore, "
        "--search-value-mix, --width, --terms, --hidden, --rounds, --steps, --batch, --lr)",
    )
    number("depth", "nnue: alpha-beta's depth in its games", 3, NNUE_RANGES)
    number("explore", "nnue: the share of plies played at random", 0.15, NNUE_RANGES)
    number(
        "width",
        "nnue: the accumulator's width (0: no cell features, with --terms)",
        64,
        NNUE_RANGES,
    )
    p.add_argument(
        "--terms",
        action="store_true",
        help="nnue: the first dense layer also reads the hand-written evaluation's terms",
    )
    number(
        "rounds",
        "nnue: make the games and take the steps in this many rounds, each training on every "
        "position so far, with a check after each",
        1,
        NNUE_RANGES,
    )
    number("generations", "at most this many", d.generations)
    r = RANGES["minutes"]
    p.add_argument(
        "--minutes",
        type=ranged(r),
        default=None,
        help=f"stop after this many minutes of self-play and training ({r}; default: no limit)",
    )
    number("games", "self-play games a generation (nnue: alpha-beta's games)", d.games)
    number("simulations", "Gumbel simulations", d.simulations)
    p.add_argument(
        "--hidden",
        type=ranged(WIDTH),
        nargs="+",
        default=list(d.hidden),
        help=f"trunk widths, each {WIDTH} (default {' '.join(map(str, d.hidden))})",
    )
    number("steps", "updates a generation", d.steps)
    number("batch", "batch size", d.batch)
    number("lr", "Adam's learning rate", d.lr)
    number("weight_decay", "AdamW's decay", d.weight_decay)
    number("value_weight", "value loss weight", d.value_weight)
    number("window", "generations of samples kept", d.window)
    number(
        "distill_games", "first distil alphabeta from this many games (0: none)", d.distill_games
    )
    number("distill_depth", "its depth then", d.distill_depth)
    number(
        "search_value_mix",
        "weight of the search value in the value targets that have one",
        d.search_value_mix,
    )
    number("check_every", "generations between checks", d.check_every)
    number(
        "check_games",
        "games against mcts and alphabeta in each check (0: no checks)",
        d.check_games,
    )
    number("check_time", "seconds a move in checks", d.check_time)
    p.add_argument(
        "--player",
        choices=["puct", "puct-root", "alphabeta", "mcts"],
        default=d.player,
        help=f"how the net plays in checks: Gumbel PUCT ({d.player}, the default), PUCT with "
        "PUCT at the root too, alpha-beta or MCTS with the net's value",
    )
    number(
        "playout_mix",
        "PUCT players in checks: the share of a leaf's value taken from a playout "
        "(AlphaGo's lambda)",
        d.playout_mix,
    )
    r = RANGES["distill_steps"]
    p.add_argument(
        "--distill-steps",
        type=ranged(r),
        default=d.distill_steps,
        help=f"updates on the distillation samples ({r}; default: --steps)",
    )
    p.add_argument("--progress", action="store_true", help="progress bars for self-play")
    p.add_argument("--quiet", action="store_true", help="no line a generation")
    p.set_defaults(run=run)
