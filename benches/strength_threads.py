"""What a second thread is worth: ``auto`` with ``threads=2`` against ``auto`` with ``threads=1``
at the same time per move (standard 2-player Fish, seats swapped, one game at a time so that
the two-thread player has both cores).

Run alone on a quiet 2-core machine (about 40 minutes with the defaults):
``python benches/strength_threads.py [--games 200] [--time 0.2] [--seed 2026]``.
Prints the match runner's table (score rate with its 95% confidence interval) and whether the
target (a score of at least 0.58 for two threads) is met; exit status 0 if it is.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import pingvinas as pv
from pingvinas.playing.agents import SearchAgent
from pingvinas.playing.match import play_match


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--time", type=float, default=0.2, help="seconds per move")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    agents = [
        SearchAgent("auto", time=args.time, threads=2, name="auto-2-threads"),
        SearchAgent("auto", time=args.time, threads=1, name="auto-1-thread"),
    ]
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    res = play_match(pv.Fish(), agents, games=args.games, seed=args.seed, workers=1)
    rate = res.agents[0].score_rate
    lo, hi = res.agents[0].ci95
    print(
        f"\n{args.games} games, {args.time} s a move, {time.perf_counter() - t0:.0f} s, "
        f"load average {load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end\n{res}\n"
    )
    met = rate >= 0.58
    print(
        f"threads=2 against threads=1: {rate:.1%}, 95% CI [{lo:.1%}, {hi:.1%}], "
        f"target >= 58%: {'ok' if met else 'MISSED'}"
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
