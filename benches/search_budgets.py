"""How closely searches keep their budgets: the wall time of ``pv.search`` (and of the first
search of a new ``Searcher``) beyond its ``time``, on every board word and algorithm, and how
long ``stop()`` takes to end a search. The contract is ``time`` + 10 ms and 200 ms.

    python benches/search_budgets.py [--repeats 5] [--time 0.1]

Run it on a quiet machine (no build or benchmark beside it): scheduling noise adds to every
figure. It prints the median and the worst overrun per board and algorithm.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

import pingvinas as pv  # noqa: E402
from test_budgets import BOARDS  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--time", type=float, default=0.1)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; time = {args.time} s, {args.repeats} runs")
    print(f"{'board':<14} {'algorithm':<13} {'median over (ms)':>17} {'worst over (ms)':>16}")
    for name, make in BOARDS.items():
        s = make()
        for algorithm in ("mcts", "alphabeta", "auto", "new searcher"):
            overs = []
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                if algorithm == "new searcher":
                    pv.Searcher("alphabeta").search(s, time=args.time)
                else:
                    pv.search(s, algorithm, time=args.time)
                overs.append((time.perf_counter() - t0 - args.time) * 1000)
            print(
                f"{name:<14} {algorithm:<13} {statistics.median(overs):>17.1f} {max(overs):>16.1f}"
            )
    for name, make in BOARDS.items():
        s = make()
        searcher = pv.Searcher("alphabeta")
        asked = []

        def stop(searcher=searcher, asked=asked):
            asked.append(time.perf_counter())
            searcher.stop()

        threading.Timer(0.2, stop).start()
        searcher.search(s, time=60.0)
        print(f"{name:<14} stop() returned after {(time.perf_counter() - asked[0]) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
