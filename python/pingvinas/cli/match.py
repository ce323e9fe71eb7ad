"""``pingvinas match``: many games between agents, and the results table."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

import pingvinas as pv

from ._common import (
    MAX_MATCH_GAMES,
    MAX_WORKERS,
    UsageError,
    check_outputs,
    elo,
    error_rate,
    game_options,
    int_in,
    make_agent,
    sigterm_stops,
)

if TYPE_CHECKING:
    from ._common import Subparsers


def run(args: argparse.Namespace) -> None:
    from pingvinas.playing.match import check_agents, first_appended, play_match

    if args.save is None and (args.force or args.append):
        raise ValueError("--force and --append are for --save FILE")
    test, until = _sprt(args)
    check_outputs(
        args.save,
        force=args.force or args.append,
        hint=": --append adds the games to it, --force replaces it",
    )
    game = pv.load_game(args.game)
    agents = [make_agent(n, args.time, args.seed + i) for i, n in enumerate(args.agents)]
    try:
        check_agents(game, agents)
    except ValueError as e:
        raise UsageError(str(e)) from None
    what = f"{args.games} games" if test is None else f"SPRT, at most {args.games} games"
    first = first_appended(args.save, len(agents)) if args.append else 0
    if first:
        what += f" (numbered from {first}, after the games in {args.save})"
    print(f"{what} of {args.game}, {args.time} s per move: {' vs '.join(a.name for a in agents)}")
    try:
        with sigterm_stops():
            result = play_match(
                game,
                agents,
                games=args.games,
                seed=args.seed,
                workers=args.workers,
                progress=not args.quiet,
                save=args.save,
                append=args.append,
                backend=args.backend,
                address=args.address,
                until=until,
            )
    except OSError as e:  # the save file
        raise ValueError(f"cannot write {e.filename or args.save}: {e.strerror or e}") from None
    except BaseException as e:  # an error or Ctrl-C: say what was kept
        partial = getattr(e, "match_result", None)
        if args.save and partial is not None:
            kept = (
                f"kept the {partial.games} finished game(s) in {args.save}"
                if partial.games
                else f"no game finished; {args.save} not written"
            )
            print(f"pingvinas: stopped; {kept}", file=sys.stderr)
        raise
    print(result)
    if test is not None:
        from pingvinas.rating.sprt import outcome_counts

        print(test.report(outcome_counts(result.records, pairs=not args.trinomial)))
    if args.save:
        print(f"saved {result.games} game records to {args.save}")


#: The most games of an SPRT match unless --games says otherwise.
SPRT_GAMES = 10_000


def _sprt(args: argparse.Namespace) -> tuple[Any, Any]:
    """The test of ``--sprt``, and the match's stopping rule, or ``(None, None)``; sets the
    default ``--games``. Refuses the test's options without it, and a test that cannot stop
    within ``--games``."""
    if args.sprt is None:
        given = [o for o in ("alpha", "beta", "trinomial") if getattr(args, o) not in (None, False)]
        if given:
            raise UsageError(f"{', '.join('--' + o for o in given)}: options of --sprt")
        if args.games is None:
            args.games = 20
        return None, None
    from pingvinas.rating.sprt import SPRT, outcome_counts

    if len(args.agents) != 2:
        raise UsageError("--sprt: a test of two players, for a two-player game")
    try:
        test = SPRT(
            args.sprt[0],
            args.sprt[1],
            0.05 if args.alpha is None else args.alpha,
            0.05 if args.beta is None else args.beta,
        )
    except ValueError as e:
        raise UsageError(f"--sprt: {e}") from None
    pairs = not args.trinomial
    if args.games is None:
        args.games = SPRT_GAMES
    if pairs and args.games % 2:
        raise UsageError(
            f"--games {args.games}: --sprt counts game pairs, so an even number "
            "(or --trinomial to count games)"
        )
    fewest = test.fewest_games(pentanomial=pairs)
    if fewest is None or fewest > args.games:
        need = f"{fewest:,} games" if fewest else f"more than {10**7:,} games"
        raise UsageError(
            f"--sprt {args.sprt[0]:g} {args.sprt[1]:g} cannot decide within --games "
            f"{args.games}: even when one player scores every point it needs {need}; widen "
            "ELO0 to ELO1, or give more --games"
        )

    def until(done: list[Any]) -> bool:
        counts = outcome_counts(done, pairs=pairs)
        return sum(counts) > 0 and test.decide(test.llr(counts)) != "continue"

    return test, until


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser("match", help="play many games between agents and print the results table")
    game_options(p)
    p.add_argument(
        "--games",
        type=int_in(1, MAX_MATCH_GAMES),
        default=None,
        help=f"games to play (1 to {MAX_MATCH_GAMES:,}; default 20); with --sprt, the most "
        f"(even, as it counts pairs, unless --trinomial; default {SPRT_GAMES:,})",
    )
    p.add_argument(
        "--workers",
        type=int_in(1, MAX_WORKERS),
        default=None,
        help=f"games played at once (1 to {MAX_WORKERS}; default 1; with --backend ray: twice "
        "the cluster's CPUs)",
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
        "--save",
        metavar="FILE",
        help="write every game to FILE as JSON Lines game records (each game as it ends, "
        "FILE whole when the match ends, however it ends; an existing FILE needs --append or "
        "--force)",
    )
    saving = p.add_mutually_exclusive_group()
    saving.add_argument(
        "--append",
        action="store_true",
        help="with --save: add the games after the records already in FILE",
    )
    saving.add_argument(
        "--force", action="store_true", help="with --save: replace FILE if it exists"
    )
    p.add_argument(
        "--sprt",
        nargs=2,
        type=elo,
        metavar=("ELO0", "ELO1"),
        help="a sequential test of H0: the first agent is ELO0 stronger, against H1: ELO1 "
        "(logistic Elo, each -2,000 to 2,000); stops when it accepts one (see "
        "pingvinas.rating.sprt)",
    )
    p.add_argument(
        "--alpha",
        type=error_rate,
        default=None,
        help="--sprt: the false H1 rate (above 0, below 0.5; default 0.05)",
    )
    p.add_argument(
        "--beta",
        type=error_rate,
        default=None,
        help="--sprt: the false H0 rate (above 0, below 0.5; default 0.05)",
    )
    p.add_argument(
        "--trinomial",
        action="store_true",
        help="--sprt: count games (losses, draws, wins) instead of game pairs on one deal",
    )
    p.set_defaults(run=run)
