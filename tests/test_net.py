"""The native net (`pv.evaluators.Net`): files, the evaluator protocol, and searches and
self-play that run it in Rust."""

from __future__ import annotations

import numpy as np
import pytest

import pingvinas as pv
from pingvinas.searching.evaluators import Net, native


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


def test_alphabeta_and_mcts_take_the_net_as_their_estimate(game):
    net = Net.random(game, [16], seed=4)
    state = game.new_state(seed=7)
    for algorithm, budget in (("alphabeta", {"depth": 2}), ("mcts", {"iterations": 50})):

        def searcher(algorithm=algorithm):
            return pv.Searcher(algorithm, evaluator=net, playout="evaluate", seed=1)

        r = searcher().search(state, **budget)
        assert r.move in state.legal_moves()
        assert searcher().search(state, **budget).move == r.move  # seeded: the same again
    # At depth 1 alpha-beta picks the move whose child the net values best for the mover.
    p = state.to_move
    best = max(
        state.legal_moves(),
        key=lambda m: _value_for(net, state.after(m), p),
    )
    r = pv.Searcher("alphabeta", evaluator=net, knowledge=False).search(state, depth=1)
    assert _value_for(net, state.after(r.move), p) == pytest.approx(
        _value_for(net, state.after(best), p), abs=1e-4
    )
    with pytest.raises(ValueError, match="takes only a pingvinas Net"):
        pv.Searcher("alphabeta", evaluator=lambda o, m: net(o, m))


def _value_for(net, state, player):
    """Alpha-beta's two-player value of `state` for `player` from the net: half the difference
    of the two seats' values (the value head is per seat from the player to move)."""
    if state.is_over:
        return 2.0 * state.returns()[player]
    _, values = net(state.observation_tensor()[None], state.legal_action_mask()[None])
    mine = (player - state.to_move) % 2
    return 0.5 * float(values[0][mine] - values[0][1 - mine])


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
    with pytest.raises(ValueError, match=r"hidden = \[\]: expected 1 to 16 layer widths"):
        Net.random(pv.Fish(), [])
    with pytest.raises(ValueError, match="the net was made for a fish"):
        pv.Searcher("alphabeta", evaluator=net).search(pv.Fish().new_state(seed=1), depth=1)


def test_puct_with_a_net_searches_on_threads(game):
    net = Net.random(game, [16], seed=2)
    state = game.new_state(seed=5)
    searcher = pv.Searcher("puct", evaluator=net, threads=2, seed=1, batch_size=8)
    for move in range(2):
        r = searcher.search(state, iterations=400)
        # Threads sharing one tree keep its budget exactly (the second search keeps the
        # subtree of the first).
        assert r.iterations == 400
        assert int(r.visits.sum()) == 400 if move == 0 else int(r.visits.sum()) >= 400
        assert r.move in state.legal_moves()
        state.play(r.move)
    # One thread stays reproducible for a seed, and matches pv.search.
    one = [pv.search(state, "puct", evaluator=net, iterations=200, seed=3) for _ in range(2)]
    assert np.array_equal(one[0].visits, one[1].visits)
    timed = pv.search(state, "puct", evaluator=net, time=0.05, threads=2)
    assert timed.iterations > 0 and timed.move in state.legal_moves()


def test_search_many_and_selfplay_share_games_out_between_threads(game):
    net = Net.random(game, [16], seed=2)
    states = [game.new_state(seed=s) for s in range(5)]
    one = pv.search_many(states, evaluator=net, iterations=120, seed=4)
    two = pv.search_many(states, evaluator=net, iterations=120, seed=4, threads=2)
    assert [(r.action, r.value, r.visits.tolist()) for r in one] == [
        (r.action, r.value, r.visits.tolist()) for r in two
    ]
    a = pv.selfplay(game, games=3, simulations=8, evaluator=net, seed=2)
    b = pv.selfplay(game, games=3, simulations=8, evaluator=net, seed=2, threads=2)
    for k in ("observations", "policies", "returns", "game_ids", "to_move"):
        assert np.array_equal(getattr(a, k), getattr(b, k)), k


def test_a_gumbel_root_gives_its_improved_policy(game):
    net = Net.random(game, [16], seed=2)
    state = game.new_state(seed=1)
    r = pv.search(state, "puct", evaluator=net, iterations=64, root="gumbel", seed=1)
    p = r.improved_policy
    assert p.shape == (game.num_actions,) and p.dtype == np.float32
    assert abs(float(p.sum()) - 1) < 1e-5 and np.all(p[~state.legal_action_mask()] == 0)
    # The move Gumbel plays is one it kept.
    assert p[r.action] > 0
    assert pv.search(state, "puct", evaluator=net, iterations=64, seed=1).improved_policy is None
    assert pv.search(state, "greedy").improved_policy is None
    many = pv.search_many([state], evaluator=net, iterations=64, root="gumbel", seed=1)
    assert np.array_equal(many[0].improved_policy, p)
