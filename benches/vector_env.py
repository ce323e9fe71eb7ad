"""Env-steps per second of ``pv.VectorEnv`` (observations, masks and compact legal actions for
every env, every step) at 1, 64 and 1024 envs on one and two threads (taken in turns of 0.05 s),
against a Python loop over separate State objects doing the same work, Fish (standard, 2
players) and Marathon (standard course, 2 players), in one run so that the ratios are fair.

    python benches/vector_env.py [--seconds 1.0]

Every loop plays uniformly random legal actions and starts a new game when one ends:

- ``VectorEnv``: ``env.step(actions)`` with the actions drawn in numpy from
  ``info["legal_actions"]`` / ``info["legal_action_count"]``. "step" counts the time inside
  ``env.step`` alone (the median of the turns), "loop" the whole loop (drawing the actions
  included).
- Python loop: per state and step ``apply_action`` + ``observation_tensor()`` +
  ``legal_action_mask()``, and ``random.choice(legal_actions())`` for the next action.

The "cpu" columns divide by the process's CPU time instead of the wall clock (all threads
summed): on a shared machine, where the wall clock counts the time other processes hold the
cores, they measure the work itself.

Build the package in release mode first (``pip install .`` or ``maturin develop --release``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any, Callable

import numpy as np
from turns import Turns

import pingvinas as pv

GAMES: dict[str, Callable[[], Any]] = {"Fish": pv.Fish, "Marathon": pv.Marathon}

# Seconds of one turn: the shorter the turns, the less a change of a shared machine's load
# falls on one count alone.
TURN = 0.05


class Stepper:
    """One vector env stepped with uniformly random legal actions; its counts add up over
    the runs."""

    def __init__(self, game: Any, num_envs: int, threads: int) -> None:
        self.env = pv.VectorEnv(game, num_envs, seed=0, threads=threads)
        _, info = self.env.reset(seed=0)
        self.legal, self.count = info["legal_actions"], info["legal_action_count"]
        self.rng = np.random.default_rng(0)
        self.rows = np.arange(num_envs)
        self.env_steps = 0
        self.total = self.cpu = 0.0
        # Env-steps per second inside ``step``, of each run.
        self.runs: list[float] = []

    def run(self, seconds: float) -> None:
        """Steps for about ``seconds``."""
        steps = 0
        inside = 0.0
        cpu = time.process_time()
        start = time.perf_counter()
        while True:
            pick = (self.rng.random(len(self.rows)) * self.count).astype(np.int64)
            actions = self.legal[self.rows, pick]
            t = time.perf_counter()
            self.env.step(actions)
            inside += time.perf_counter() - t
            steps += 1
            if steps % 8 == 0 and time.perf_counter() - start > seconds:
                break
        self.total += time.perf_counter() - start
        self.cpu += time.process_time() - cpu
        self.env_steps += steps * len(self.rows)
        self.runs.append(steps * len(self.rows) / inside)

    def rates(self) -> tuple[float, float, float]:
        """(env-steps/s inside ``step``, the median of the runs; of the whole loop; of the
        whole loop per CPU second)."""
        n = self.env_steps
        return statistics.median(self.runs), n / self.total, n / self.cpu


def in_turns(
    game: Any, num_envs: int, threads: Sequence[int], seconds: float, turn: float = TURN
) -> tuple[Turns, dict[int, tuple[float, float, float]]]:
    """Steps on each count of ``threads``, ``seconds`` each in all, taken in turns of
    ``turn`` seconds (1, 2, 1, 2, ...), so that a change in the machine's load while they run
    touches every count alike: the rates in step of each turn, and :meth:`Stepper.rates` of
    each count."""
    steppers = {t: Stepper(game, num_envs, t) for t in threads}
    for _ in range(max(1, round(seconds / turn))):
        for stepper in steppers.values():
            stepper.run(min(turn, seconds))
    runs = Turns({t: stepper.runs for t, stepper in steppers.items()})
    return runs, {t: stepper.rates() for t, stepper in steppers.items()}


def python_loop(game: Any, num_envs: int, seconds: float) -> tuple[float, float]:
    """Env-steps/s of the same work over separate State objects (wall clock, CPU time)."""
    rng = random.Random(0)
    states = [game.new_state(seed=i) for i in range(num_envs)]
    actions = [rng.choice(s.legal_actions()) for s in states]
    steps = 0
    cpu = time.process_time()
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
    return steps / (time.perf_counter() - start), steps / (time.process_time() - cpu)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    args = parser.parse_args()
    head = (
        "game",
        "envs",
        "threads",
        "step env-steps/s",
        "loop env-steps/s",
        "loop cpu env-steps/s",
    )
    print(f"{head[0]:<9} {head[1]:>5} {head[2]:>7} {head[3]:>17} {head[4]:>17} {head[5]:>21}")
    results: dict[tuple[str, int, int], tuple[float, float, float]] = {}
    for name, make in GAMES.items():
        game = make()
        for num_envs in (1, 64, 1024):
            _, rates = in_turns(game, num_envs, (1, 2), args.seconds)
            for threads, r in rates.items():
                results[name, num_envs, threads] = r
                rates = f"{r[0]:>17,.0f} {r[1]:>17,.0f} {r[2]:>21,.0f}"
                print(f"{name:<9} {num_envs:>5} {threads:>7} {rates}")
        loop, loop_cpu = python_loop(game, 64, args.seconds * 2)
        print(f"{name:<9} {'64':>5} {'Python':>7} {'':>17} {loop:>17,.0f} {loop_cpu:>21,.0f}")
        step, whole, whole_cpu = results[name, 1024, 1]
        two = results[name, 1024, 2][1]
        print(
            f"{name}, 1024 envs, 1 thread, over the Python loop: {step / loop:.1f}x inside step, "
            f"{whole / loop:.1f}x for the whole loop, {whole_cpu / loop_cpu:.1f}x per CPU second; "
            f"2 threads over 1 (whole loop): {two / whole:.2f}x"
        )


if __name__ == "__main__":
    main()
