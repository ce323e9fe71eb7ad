"""Random Penguin Marathon games (standard course, 2 players) through the Python step API and
through the pure-Python reference model (`tests/marathon_reference.py`), on the same loop, in
one run so that their ratio is meaningful; plus the batch call for comparison.

    python benches/marathon_playouts.py [--games 20]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import pingvinas as pv

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import marathon_reference as ref  # noqa: E402


def batch(games: int = 20_000) -> float:
    """Plies/s of ``pv.marathon.random_playouts`` on one thread."""
    t = time.perf_counter()
    _, plies = pv.marathon.random_playouts(games, seed=1, threads=1)
    return int(plies.sum()) / (time.perf_counter() - t)


def step_api(games: int) -> tuple[float, int]:
    """Plies/s of `legal_actions` + `play` each ply."""
    game = pv.Marathon(players=2)
    rng = random.Random(1)
    plies = 0
    t = time.perf_counter()
    for _ in range(games):
        state = game.new_state()
        while not state.is_over:
            state.play(rng.choice(state.legal_actions()))
            plies += 1
    return plies / (time.perf_counter() - t), plies


def reference(games: int) -> tuple[float, int]:
    """Plies/s of the reference: its deduplicated legal moves each ply, one taken at random."""
    model = ref.Marathon("marathon", 2)
    rng = random.Random(1)
    plies = 0
    t = time.perf_counter()
    for _ in range(games):
        state = model.initial()
        while not state.over:
            children = list(model.successors(state).values())
            state = rng.choice(children)
            plies += 1
    return plies / (time.perf_counter() - t), plies


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20, help="games for each Python loop")
    args = parser.parse_args()
    c = batch()
    b, nb = step_api(args.games)
    d, nd = reference(args.games)
    print(f"batch call, 1 thread      {c:>14,.0f} plies/s")
    print(f"Python step API           {b:>14,.0f} plies/s ({nb} plies)")
    print(f"pure-Python reference     {d:>14,.0f} plies/s ({nd} plies)")
    print(f"step API / reference      {b / d:>14.1f}   (target: at least 30)")


if __name__ == "__main__":
    main()
