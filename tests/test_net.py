"""The native net (`pv.evaluators.Net`): files, the evaluator protocol, and searches and
self-play that run it in Rust."""

from __future__ import annotations

import numpy as np
import pytest

import pingvinas as pv
from pingvinas.evaluators import Net, native


@pytest.fixture(params=["fish", "marathon"])
def game(request):
    return pv.Fish() if request.param == "fish" else pv.Marathon()


def test_a_random_net_fits_its_game_and_round_trips(game, tmp_path):
    net = Net.random(game, [24, 12], seed=3)
    assert net.observation_shape == game.observation_shape
    assert (net.num_actions, net.num_players, net.hidden) == (game.num_actions, 2, [24, 12])
    assert net.game == ("fish" if isinstance(game, pv.Fish) else "marathon")
    path = tmp_path / "net.safetensors"
    net.save(path)
    again = native(path)
    assert again.to_bytes() == net.to_bytes() == Net.from_bytes(net.to_bytes()).to_bytes()
    # Seeded: the same seed makes the same net, another seed another.
    assert Net.random(game, [24, 12], seed=3).to_bytes() == net.to_bytes()
    assert Net.random(game, [24, 12], seed=4).to_bytes() != net.to_bytes()


def test_the_net_is_an_evaluator_by_the_protocol(game):
    net = Net.random(game, [16], seed=1)
    states = [game.new_state(seed=s) for s in range(3)]
    obs = np.stack([s.observation_tensor() for s in states])
    mask = np.stack([s.legal_action_mask() for s in states])
    logits, values = net(obs, mask)
    assert logits.shape == (3, game.num_actions) and values.shape == (3, 2)
    assert logits.dtype == np.float32 and values.dtype == np.float32
    assert np.all(logits[~mask] == 0) and np.all(np.abs(values) <= 1)
    # Row by row gives the same; a flat observation reads the same.
    for i in range(3):
        one, v = net(obs[i : i + 1].reshape(1, -1), mask[i : i + 1])
        np.testing.assert_allclose(one[0], logits[i], rtol=1e-6)
        np.testing.assert_allclose(v[0], values[i], rtol=1e-6)
    with pytest.raises(ValueError, match="observations of shape"):
        net(obs[:, :1], mask)
    with pytest.raises(ValueError, match="legal_mask of shape"):
        net(obs, mask[:2])


def test_searches_and_selfplay_run_the_net(game):
    net = Net.random(game, [16], seed=2)
    state = game.new_state(seed=5)
    r = pv.search(state, "puct", evaluator=net, iterations=64, seed=1)
    assert r.move in state.legal_moves() and r.iterations >= 64
    # The net in Rust and the same net called through Python search alike.
    through_python = pv.search(
        state, "puct", evaluator=lambda o, m: net(o, m), iterations=64, seed=1
    )
    assert through_python.move == r.move
    np.testing.assert_array_equal(through_python.visits, r.visits)
    results = pv.search_many([state, game.new_state(seed=6)], evaluator=net, iterations=16)
    assert len(results) == 2
    data = pv.selfplay(game, games=2, simulations=8, evaluator=net, seed=3)
    assert len(data.observations) > 0


def test_a_net_of_another_game_or_a_bad_file_is_refused(tmp_path):
    net = Net.random(pv.Fish(players=3), [8])
    with pytest.raises(ValueError, match="the net was made for a fish"):
        pv.search(pv.Fish().new_state(seed=1), "puct", evaluator=net, iterations=8)
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"not a net at all")
    with pytest.raises(ValueError, match="bad.safetensors: not a safetensors file"):
        native(bad)
    with pytest.raises(ValueError, match="cannot read"):
        native(tmp_path / "missing.safetensors")
    with pytest.raises(ValueError, match="trunk widths"):
        Net.random(pv.Fish(), [])
