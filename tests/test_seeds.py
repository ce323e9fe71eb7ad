"""`_core.seed_for`, the engine's per-item seed, and the match seeds derived from it."""

import pytest

import pingvinas as pv
from pingvinas import _core
from pingvinas.agents import GreedyAgent, RandomAgent
from pingvinas.playing.match import play_match
from pingvinas.playing.one_game import game_seed

M = 2**64 - 1


def splitmix64(z):
    z = (z + 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M


def for_item_first(seed, index):
    """The first output of the engine's `Rng::for_item(seed, index)`, written from its source:
    xoshiro256++ seeded by SplitMix64."""
    z = splitmix64(seed ^ splitmix64((index + 0x5851F42D4C957F2D) & M))
    s = []
    for _ in range(4):
        z = (z + 0x9E3779B97F4A7C15) & M
        s.append(splitmix64(z))
    return (rotl((s[0] + s[3]) & M, 23) + s[0]) & M


@pytest.mark.parametrize("seed, index", [(0, 0), (1, 0), (0, 1), (7, 123), (2**64 - 1, 2**63)])
def test_seed_for_is_the_engines_item_generator(seed, index):
    assert _core.seed_for(seed, index) == for_item_first(seed, index) >> 1


def test_seed_for_takes_any_int_modulo_2_64_and_gives_63_bits():
    assert _core.seed_for(-1, 3) == _core.seed_for(2**64 - 1, 3)
    assert _core.seed_for(5, -1) == _core.seed_for(5, 2**64 - 1)
    assert _core.seed_for(2**64 + 5, 3) == _core.seed_for(5, 3)
    seeds = {_core.seed_for(9, i) for i in range(1000)}
    assert len(seeds) == 1000 and all(0 <= s < 2**63 for s in seeds)
    with pytest.raises(TypeError):
        _core.seed_for(True, 0)
    with pytest.raises(TypeError):
        _core.seed_for(0, "1")


def test_match_seeds_are_the_engines_and_depend_on_the_game_alone():
    agents = [GreedyAgent(), RandomAgent()]
    six = play_match(pv.Fish(), agents, games=6, seed=3, progress=False)
    # A rotation's two games share the deal of its first game.
    assert [r.seed for r in six.records] == [game_seed(3, i - i % 2, 0) for i in range(6)]
    # Game i is played from (seed, i) alone: the first four games of a longer match are the
    # games of a shorter one.
    four = play_match(pv.Fish(), agents, games=4, seed=3, progress=False)
    assert [r.scores for r in four.records] == [r.scores for r in six.records[:4]]
    other = play_match(pv.Fish(), agents, games=4, seed=4, progress=False)
    assert [r.seed for r in other.records] != [r.seed for r in four.records]
