"""Random playouts of the standard 2-player Fish game, from the first placement to the end,
measured four ways in one run so that the ratios between them are meaningful:

(a) Rust on one thread (the `fish_playouts` example, built in release mode),
(b) the Python step API (`legal_actions` and `play` each ply),
(c) the batch call `pv.fish.random_playouts(n, seed=, threads=)` on 1 and 2 threads,
(a) and (c) for both playout policies ("uniform" over legal moves, and "fast"),
(d) the pure-Python reference model (`tests/fish_reference.py`) on the same loop as (b).

    python benches/fish_playouts.py            # from the repository root, package installed
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pingvinas as pv

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from fish_reference import FishReference, standard_board  # noqa: E402


def rate(games: int, seconds: float) -> float:
    return games / seconds


def rust_single_thread(games: int) -> dict:
    """Games/s of (a) per policy (empty when cargo is not available)."""
    cmd = [
        "cargo",
        "run",
        "--release",
        "-q",
        "-p",
        "pingvinas-engine",
        "--example",
        "fish_playouts",
        "--",
        str(games),
        "1",
    ]
    try:
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    return {
        m.group(1).lower(): float(m.group(2))
        for m in re.finditer(r"(\w+) policy, 1 thread\(s\):.* = (\d+) games/s", out)
    }


def batch(games: int, threads: int, policy: str) -> float:
    pv.fish.random_playouts(1000, seed=0, threads=threads, policy=policy)  # warm up
    t = time.perf_counter()
    fish, _ = pv.fish.random_playouts(games, seed=1, threads=threads, policy=policy)
    elapsed = time.perf_counter() - t
    assert fish.shape == (games, 2) and fish.min() >= 0
    return rate(games, elapsed)


def step_api(games: int) -> float:
    game = pv.Fish()
    rng = random.Random(1)
    t = time.perf_counter()
    for i in range(games):
        state = game.new_state(seed=i)
        while not state.is_over:
            state.play(rng.choice(state.legal_actions()))
    return rate(games, time.perf_counter() - t)


def reference(games: int) -> float:
    rng = random.Random(1)
    t = time.perf_counter()
    for i in range(games):
        state = FishReference(standard_board(i))
        while not state.is_over:
            state.play(rng.choice(sorted(state.legal_moves(), key=str)), check=False)
    return rate(games, time.perf_counter() - t)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=200_000, help="games for (a) and (c)")
    parser.add_argument("--step-games", type=int, default=2_000, help="games for (b)")
    parser.add_argument("--reference-games", type=int, default=100, help="games for (d)")
    args = parser.parse_args()

    rows = []
    ratios = []
    a = rust_single_thread(args.games)
    for policy in ("uniform", "fast"):
        c1 = batch(args.games, 1, policy)
        c2 = batch(args.games, 2, policy)
        if policy in a:
            rows.append((f"(a) Rust, 1 thread, {policy}", a[policy]))
            ratios.append((f"(a) / (c, 1 thread), {policy}", a[policy] / c1, "at most 1.5"))
        rows += [(f"(c) batch, threads=1, {policy}", c1), (f"(c) batch, threads=2, {policy}", c2)]
        ratios.append((f"(c, 2 threads) / (c, 1), {policy}", c2 / c1, "above 1"))
    b = step_api(args.step_games)
    d = reference(args.reference_games)
    rows += [("(b) Python step API", b), ("(d) pure-Python reference", d)]
    ratios.append(("(b) / (d)", b / d, "at least 30"))

    print(f"{'random playouts, standard 2-player Fish':<42} {'games/s':>12}")
    for name, value in rows:
        print(f"{name:<42} {value:>12,.0f}")
    print()
    for name, value, target in ratios:
        print(f"{name:<42} {value:>8.2f}   (target: {target})")


if __name__ == "__main__":
    main()
