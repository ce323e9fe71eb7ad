"""Env-steps per second of ``pv.VectorEnv`` (observations, masks and compact legal actions for
every env, every step) at 1, 64 and 1024 envs on one and two threads, against a Python loop
over separate State objects doing the same work, Fish (standard, 2 players) and Marathon
(standard course, 2 players), in one run so that the ratios are fair.

    python benches/vector_env.py [--seconds 1.0]

Every loop plays uniformly random legal actions and starts a new game when one ends:

- ``VectorEnv``: ``env.step(actions)`` with the actions drawn in numpy from
  ``info["legal_actions"]`` / ``info["legal_action_count"]``. "step" counts the time inside
  ``env.step`` alone, "loop" the whole loop (drawing the actions included).
- Python loop: per state and step ``apply_action`` + ``observation_tensor()`` +
  ``legal_action_mask()``, and ``random.choice(legal_actions())`` for the next action.

Build the package in release mode first (``pip install .`` or ``maturin develop --release``).
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any, Callable, Dict, Tuple

import numpy as np

import pingvinas as pv

GAMES: Dict[str, Callable[[], Any]] = {"Fish": pv.Fish, "Marathon": pv.Marathon}


def vector(game: Any, num_envs: int, threads: int, seconds: float) -> Tuple[float, float]:
    """(env-steps/s inside ``step``, env-steps/s of the whole loop)."""
    env = pv.VectorEnv(game, num_envs, seed=0, threads=threads)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    rows = np.arange(num_envs)
    legal, count = info["legal_actions"], info["legal_action_count"]
    steps, inside = 0, 0.0
    start = time.perf_counter()
    while True:
        pick = (rng.random(num_envs) * count).astype(np.int64)
        actions = legal[rows, pick]
        t = time.perf_counter()
        env.step(actions)
        inside += time.perf_counter() - t
        steps += 1
        if steps % 8 == 0 and time.perf_counter() - start > seconds:
            break
    total = time.perf_counter() - start
    return steps * num_envs / inside, steps * num_envs / total


def python_loop(game: Any, num_envs: int, seconds: float) -> float:
    """Env-steps/s of the same work over separate State objects."""
    rng = random.Random(0)
    states = [game.new_state(seed=i) for i in range(num_envs)]
    actions = [rng.choice(s.legal_actions()) for s in states]
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for i, state in enumerate(states):
            state.apply_action(actions[i])
            if state.is_over:
                state = states[i] = game.new_state(seed=steps + i)
            state.observation_tensor()
            state.legal_action_mask()
            actions[i] = rng.choice(state.legal_actions())
        steps += num_envs
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    args = parser.parse_args()
    print(f"{'game':<9} {'envs':>5} {'threads':>7} {'step env-steps/s':>17} {'loop env-steps/s':>17}")
    results: Dict[Tuple[str, int, int], Tuple[float, float]] = {}
    for name, make in GAMES.items():
        game = make()
        for num_envs in (1, 64, 1024):
            for threads in (1, 2):
                r = results[name, num_envs, threads] = vector(game, num_envs, threads, args.seconds)
                print(f"{name:<9} {num_envs:>5} {threads:>7} {r[0]:>17,.0f} {r[1]:>17,.0f}")
        loop = python_loop(game, 64, args.seconds * 2)
        print(f"{name:<9} {'64':>5} {'Python':>7} {'':>17} {loop:>17,.0f}")
        step, whole = results[name, 1024, 1]
        two = results[name, 1024, 2][0]
        print(
            f"{name}: 1024 envs, 1 thread: {step / loop:.1f}x the Python loop inside step, "
            f"{whole / loop:.1f}x for the whole loop; 2 threads over 1: {two / step:.2f}x"
        )


if __name__ == "__main__":
    main()
