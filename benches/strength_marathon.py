"""Playing strength of the default Penguin Marathon player (``auto``: MCTS with the turn-count
evaluation and greedy playouts).

Run: ``python benches/strength_marathon.py [--games 100] [--time 0.1] [--workers 2]``.
Targets (see README "Search"): the best default player beats random in 100% of 100 games and
greedy in >= 90% (2 players, standard course, seats swapped). Exit status 0 when both are met.
"""

from __future__ import annotations

import argparse
import sys
import time

import pingvinas as pv
from pingvinas.playing.agents import GreedyAgent, RandomAgent, SearchAgent


def matchups(t: float) -> list[tuple[str, list, float]]:
    """(name, the two agents, the least share of wins of the first that meets the target)."""
    return [
        ("auto vs random", [SearchAgent("auto", time=t), RandomAgent()], 1.0),
        ("auto vs greedy", [SearchAgent("auto", time=t), GreedyAgent()], 0.9),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--time", type=float, default=0.1, help="seconds per move")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--course", default="marathon")
    args = ap.parse_args()
    game = pv.Marathon.variant(args.course) if args.course != "marathon" else pv.Marathon()
    ok = True
    lines = []
    for name, agents, target in matchups(args.time):
        t0 = time.perf_counter()
        res = pv.play_match(
            game,
            agents,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
        )
        a = res.agents[0]
        lo, hi = a.ci95
        print(
            f"\n{name} ({args.games} games, {args.time} s a move, "
            f"{time.perf_counter() - t0:.0f} s)\n{res}\n",
            flush=True,
        )
        met = a.wins / a.games >= target
        ok &= met
        lines.append(
            f"{name:<20} wins {a.wins}/{a.games} ({a.wins / a.games:.0%}), "
            f"score {a.score_rate:.1%} [{lo:.1%}, {hi:.1%}]  target >= {target:.0%}  "
            f"{'ok' if met else 'MISSED'}"
        )
    print("\n".join(["", "Summary:"] + lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
