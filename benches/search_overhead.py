"""Per-call overhead of the search binding: ``pv.search(state, "greedy")`` and a one-iteration
MCTS, on a Fish position after placement and on the Marathon opening. Both searches do almost
no work, so the time per call is what the binding adds (argument checks, taking the state,
the worker thread, building the result); ``state.clone()``, a binding call that searches
nothing, is the reference.

    python benches/search_overhead.py [--calls 20000]
"""

from __future__ import annotations

import argparse
import os
import time

import pingvinas as pv


def per_call(fn, calls: int) -> float:
    fn()
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def measure(calls: int) -> list[tuple[str, str, float]]:
    """(game, call, seconds per call), the best of three rounds of ``calls`` calls each."""
    fish = pv.Fish().new_state(seed=1)
    while fish.phase == "placement":
        fish.play(fish.legal_actions()[0])
    marathon = pv.Marathon().new_state()
    rows = []
    for name, state in (("Fish", fish), ("Marathon", marathon)):
        # A binding call that searches nothing, for reference.
        rows.append((name, "state.clone()", per_call(state.clone, calls)))
        rows.append((name, "greedy", per_call(lambda s=state: pv.search(s, "greedy"), calls)))
        rows.append(
            (
                name,
                "mcts, 1 iteration",
                per_call(lambda s=state: pv.search(s, "mcts", iterations=1), calls),
            )
        )
        mcts = pv.Searcher("mcts")
        rows.append(
            (
                name,
                "Searcher mcts, 1 iteration",
                per_call(lambda r=mcts, s=state: r.search(s, iterations=1), calls),
            )
        )
        searcher = pv.Searcher("greedy")
        rows.append(
            (
                name,
                "Searcher.search greedy",
                per_call(lambda r=searcher, s=state: r.search(s), calls),
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=5000)
    args = parser.parse_args()
    rows = measure(args.calls)
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'game':<10} {'call':<26} {'µs per call':>12}")
    for game, call, secs in rows:
        print(f"{game:<10} {call:<26} {secs * 1e6:>12.1f}")


if __name__ == "__main__":
    main()
