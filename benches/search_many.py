"""Leaves per second of ``pv.search_many`` with a trivial Python evaluator (zero logits and
values, the same arrays every round), on one and two threads: what the engine adds to an
evaluator per leaf (selection, the observation and mask rows, the checks of the answers, the
backups), and how it shares that out to threads between evaluator calls.

    python benches/search_many.py [--states 256] [--batch-size 1] [--seconds 2.0]

``--states`` trees each add ``--batch-size`` leaves a round, so the evaluator sees batches of
``states * batch_size`` rows; each search runs for ``--seconds`` (all trees together), three
on each thread count, taken in turns after one each that is not counted: the median rate of
each count, and the median over the turns of their ratio.

Build the package in release mode first (``pip install .`` or ``maturin develop --release``).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, Callable

import numpy as np
from turns import Turns

import pingvinas as pv

GAMES: dict[str, Callable[[], Any]] = {"Fish": pv.Fish, "Marathon": pv.Marathon}


def trivial_evaluator(num_actions: int, players: int) -> Callable[..., Any]:
    """Zero logits and values, from arrays made once per batch size."""
    made: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def evaluate(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = len(obs)
        if n not in made:
            made[n] = (np.zeros((n, num_actions), np.float32), np.zeros((n, players), np.float32))
        return made[n]

    return evaluate


def leaves_and_seconds(
    game: Any, states: int, threads: int, seconds: float, batch_size: int = 1
) -> tuple[int, float]:
    """The leaves valued by one ``search_many`` call over ``states`` opening positions, and the
    seconds it took."""
    positions = [game.new_state(seed=k) for k in range(states)]
    evaluate = trivial_evaluator(game.num_actions, game.players)
    results = pv.search_many(
        positions, evaluator=evaluate, time=seconds, batch_size=batch_size, threads=threads
    )
    return sum(r.iterations for r in results), max(r.time for r in results)


def in_turns(
    game: Any,
    states: int,
    threads: Sequence[int],
    seconds: float,
    rounds: int = 3,
    batch_size: int = 1,
) -> Turns:
    """Leaves per second of each call on each count of ``threads``: ``rounds`` calls of
    ``seconds`` each, taken in turns (1, 2, 1, 2, ...), so that a change in the machine's load
    while they run touches every count alike, after one call each that is not counted (a
    process's first calls map the memory that the later ones find kept)."""
    runs: dict[int, list[float]] = {t: [] for t in threads}
    for turn in range(rounds + 1):
        for t in threads:
            n, s = leaves_and_seconds(game, states, t, seconds, batch_size)
            if turn > 0:
                runs[t].append(n / s)
    return Turns(runs)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--states", type=int, default=256, help="trees searched together")
    parser.add_argument("--batch-size", type=int, default=1, help="leaves per tree and round")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    args = parser.parse_args()
    for name, make in GAMES.items():
        turns = in_turns(make(), args.states, (1, 2), args.seconds, batch_size=args.batch_size)
        print(
            f"{name}: {turns.rate(1):,.0f} leaves/s on 1 thread, {turns.rate(2):,.0f} on 2 "
            f"(x{turns.ratio(2, 1):.2f}, the median of the turns)"
        )


if __name__ == "__main__":
    main()
