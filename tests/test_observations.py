"""The observation planes: shapes as declared, and Markov for the returns (positions that
differ only in scores, phase, penguins to place, ply or the player to move look different)."""

import numpy as np
import pytest

import pingvinas as pv

GRID = [[1, 2, 3, 1], [1, 1, 2, 1], [3, 1, 1, 2]]


def test_shapes_are_declared_by_the_game():
    for name in pv.variants():
        game = pv.load_game(name)
        state = game.new_state(seed=3)
        obs = state.observation_tensor()
        assert obs.shape == game.observation_shape == state.game.observation_shape
        assert obs.dtype == np.float32
        for p in range(game.players):
            assert state.observation_tensor(player=p).shape == game.observation_shape


def test_fish_planes_count():
    for players in (2, 3, 4):
        assert pv.Fish(players=players).observation_shape == (4 + 5 * players, 8, 8)


def test_fish_scores_change_the_observation():
    game = pv.Fish(board=GRID)
    a = game.position(penguins=[[(0, 0)], [(2, 3)]], to_move=0, scores=[(0, 0), (0, 0)])
    b = game.position(penguins=[[(0, 0)], [(2, 3)]], to_move=0, scores=[(0, 0), (30, 10)])
    assert not np.array_equal(a.observation_tensor(), b.observation_tensor())
    n = 2
    fish_plane = b.observation_tensor(player=0)[3 + n + 1]
    total = sum(map(sum, GRID))
    assert np.allclose(fish_plane, 30 / total)
    floes_plane = b.observation_tensor(player=1)[3 + 2 * n]
    assert np.allclose(floes_plane, 10 / sum(f > 0 for row in GRID for f in row))


def test_fish_phase_and_penguins_to_place_are_seen():
    game = pv.Fish(players=2, penguins=2, board=GRID, placement="any")
    opening = game.new_state()
    obs = opening.observation_tensor()
    n = 2
    assert np.all(obs[3 + 5 * n] == 1)  # placement phase
    assert np.all(obs[3 + 3 * n] == 1) and np.all(obs[3 + 3 * n + 1] == 1)  # 2 of 2 to place
    opening.play("a1")
    obs = opening.observation_tensor(player=0)
    assert np.allclose(obs[3 + 3 * n], 0.5)  # player 0 placed one of two
    assert np.all(obs[3 + 3 * n + 1] == 1)
    assert np.all(obs[3 + 4 * n + 1] == 1) and np.all(obs[3 + 4 * n] == 0)  # seat 1 to move


def test_fish_to_move_is_seen_from_every_view():
    game = pv.Fish(board=GRID)
    a = game.position(penguins=[[(0, 0)], [(2, 3)]], to_move=0)
    b = game.position(penguins=[[(0, 0)], [(2, 3)]], to_move=1)
    assert not np.array_equal(a.observation_tensor(player=0), b.observation_tensor(player=0))


def test_marathon_ply_changes_the_observation():
    game = pv.Marathon()
    a = game.position(ply=0)
    b = game.position(ply=100)
    assert not np.array_equal(a.observation_tensor(), b.observation_tensor())
    plane = b.observation_tensor()[10 + 9 * game.players]
    assert np.allclose(plane, 100 / game.ply_limit)


def test_marathon_planes_count():
    for players in (2, 3, 5):
        assert pv.Marathon(players=players).observation_shape[0] == 11 + 10 * players


@pytest.mark.parametrize("name", pv.variants())
def test_observation_is_stable_through_json(name):
    game = pv.load_game(name)
    state = game.new_state(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(30):
        if state.is_over:
            break
        state.play(int(rng.choice(state.legal_actions())))
    twin = type(state).from_json(state.to_json())
    for p in range(game.players):
        assert np.array_equal(state.observation_tensor(p), twin.observation_tensor(p))
