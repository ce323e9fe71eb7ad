"""pytest-benchmark suite for Fish playouts: `python -m pytest benches --benchmark-only`.

Each benchmark also checks its result, so a fast wrong answer fails.
"""

import random
import sys
from pathlib import Path

import pytest

import pingvinas as pv

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from fish_reference import FishReference, standard_board  # noqa: E402


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_random_playouts(benchmark, threads):
    fish, floes = benchmark(pv.fish.random_playouts, 20_000, seed=1, threads=threads)
    assert fish.shape == floes.shape == (20_000, 2)
    assert (floes.sum(axis=1) <= 60).all()


def test_step_api_random_game(benchmark):
    game = pv.Fish()
    rng = random.Random(1)

    def play():
        state = game.new_state(seed=rng.randrange(1 << 30))
        while not state.is_over:
            state.play(rng.choice(state.legal_actions()))
        return state

    state = benchmark(play)
    assert state.is_over and sum(f for f, _ in state.scores) > 0


def test_reference_random_game(benchmark):
    rng = random.Random(1)

    def play():
        state = FishReference(standard_board(rng.randrange(1 << 30)))
        while not state.is_over:
            state.play(rng.choice(sorted(state.legal_moves(), key=str)), check=False)
        return state

    state = benchmark.pedantic(play, rounds=20, iterations=1)
    assert state.is_over
