"""Per-call overhead of the search binding, in two parts.

**Binding**: ``pv.search(state, "greedy")`` and a one-iteration MCTS, on a Fish position after
placement and on the Marathon opening. Both searches do almost no work, so the time per call is
what the binding adds (argument checks, taking the state, the worker thread, building the
result); ``state.clone()``, a binding call that searches nothing, is the reference.

**Table**: a one-shot ``pv.search(state, "alphabeta", depth=4)`` (a new searcher each call, as
users' loops do) against one ``Searcher("alphabeta")`` kept over the round, on 20 midgame
positions of one standard Fish deal, the two alternated round by round; each side's best round
is reported, and their ratio. A fresh searcher takes the transposition table a dropped one gave
back, cleared (a new generation), so it touches memory already backed; the target is fresh at
most x1.2 the kept searcher's time.

    python benches/search_overhead.py [--calls 20000] [--rounds 15] [--part binding|table]
"""

from __future__ import annotations

import argparse
import os
import random
import time

import pingvinas as pv

#: Fresh (one-shot) at most this many times the kept searcher's time.
TARGET_RATIO = 1.2


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


def midgame_positions(n: int = 20) -> list[pv.FishState]:
    """``n`` positions of one standard Fish deal (a kept searcher starts afresh on another
    board), each after placement and 12 random moves (seeded)."""
    start = pv.Fish().new_state(seed=1)
    out = []
    seed = 0
    while len(out) < n:
        rng = random.Random(seed)
        seed += 1
        s = start
        for _ in range(20):
            if s.is_over:
                break
            s = s.after(rng.choice(s.legal_moves()))
        if not s.is_over:
            out.append(s)
    return out


def table_part(rounds: int) -> None:
    positions = midgame_positions()

    def fresh_round() -> float:
        start = time.perf_counter()
        for s in positions:
            pv.search(s, "alphabeta", depth=4)
        return time.perf_counter() - start

    def kept_round() -> float:
        # A searcher of its own each round: kept across the round's positions, it does not
        # find them in its table from the rounds before.
        start = time.perf_counter()
        kept = pv.Searcher("alphabeta")
        for s in positions:
            kept.search(s, depth=4)
        return time.perf_counter() - start

    fresh_round(), kept_round()  # warm: the worker thread, the region solver's memo
    fresh = kept_best = float("inf")
    for _ in range(rounds):
        fresh = min(fresh, fresh_round())
        kept_best = min(kept_best, kept_round())
    ratio = fresh / kept_best
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"alpha-beta depth 4, {len(positions)} midgame positions, best of {rounds} rounds")
    print(f"{'searcher':<34} {'ms per round':>12}")
    print(f"{'one-shot pv.search (fresh)':<34} {fresh * 1e3:>12.1f}")
    print(f"{'one kept Searcher':<34} {kept_best * 1e3:>12.1f}")
    verdict = "within" if ratio <= TARGET_RATIO else "OVER"
    print(f"fresh / kept: x{ratio:.2f} ({verdict} the target x{TARGET_RATIO})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--part", choices=["binding", "table"], default=None)
    args = parser.parse_args()
    if args.part != "binding":
        table_part(args.rounds)
        if args.part == "table":
            return
        print()
    rows = measure(args.calls)
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'game':<10} {'call':<26} {'µs per call':>12}")
    for game, call, secs in rows:
        print(f"{game:<10} {call:<26} {secs * 1e6:>12.1f}")


if __name__ == "__main__":
    main()
