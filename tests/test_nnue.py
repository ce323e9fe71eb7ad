"""The NNUE-style evaluation net (`pv.evaluators.NnueNet`): files of its own kind, arrays,
values, and alpha-beta and MCTS using it as their position estimate."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import pingvinas as pv
from pingvinas.searching.evaluators import Net, NnueNet, native


def test_a_random_net_round_trips_through_files_bytes_arrays_and_pickle(tmp_path):
    game = pv.Fish(players=3)
    net = NnueNet.random(game, 24, [16, 8], seed=3)
    assert (net.game, net.num_players, net.width, net.hidden) == ("fish", 3, 24, [16, 8])
    assert net.observation_shape == game.observation_shape
    path = tmp_path / "nnue.safetensors"
    net.save(path)
    again = native(path)
    assert isinstance(again, NnueNet)
    assert again.to_bytes() == net.to_bytes() == NnueNet.load(path).to_bytes()
    assert pickle.loads(pickle.dumps(net)).to_bytes() == net.to_bytes()
    arrays = net.arrays()
    cells = game.observation_shape[1] * game.observation_shape[2]
    assert arrays["features"][0].shape == (24, (3 + 3) * cells)
    assert [w.shape for w, _ in arrays["dense"]] == [(16, 3 * 24 + 3), (8, 16)]
    assert arrays["value"][0].shape == (3, 8)
    rebuilt = NnueNet.from_arrays(game, arrays["features"], arrays["dense"], arrays["value"])
    assert rebuilt.to_bytes() == net.to_bytes()
    # Seeded.
    assert NnueNet.random(game, 24, [16, 8], seed=3).to_bytes() == net.to_bytes()
    assert NnueNet.random(game, 24, [16, 8], seed=4).to_bytes() != net.to_bytes()


def test_values_are_per_player_and_change_with_the_position():
    game = pv.Fish()
    net = NnueNet.random(game, seed=1)
    state = game.new_state(seed=2)
    v = net.value(state)
    assert len(v) == 2 and all(-1 <= x <= 1 for x in v)
    child = state.after(state.legal_moves()[0])
    assert net.value(child) != v
    assert net.value(state) == v


def test_a_file_of_the_other_kind_or_game_is_refused_clearly(tmp_path):
    nnue = NnueNet.random(pv.Fish(), 8, [4], seed=1)
    mlp = Net.random(pv.Fish(), [8], seed=1)
    (tmp_path / "nnue.safetensors").write_bytes(nnue.to_bytes())
    (tmp_path / "mlp.safetensors").write_bytes(mlp.to_bytes())
    assert isinstance(native(tmp_path / "mlp.safetensors"), Net)
    with pytest.raises(ValueError, match="nnue.safetensors: .*NNUE net"):
        Net.load(tmp_path / "nnue.safetensors")
    with pytest.raises(ValueError, match="mlp.safetensors: .*policy-and-value net"):
        NnueNet.load(tmp_path / "mlp.safetensors")
    with pytest.raises(ValueError, match="the net was made for a fish"):
        nnue.value(pv.Fish(players=3).new_state(seed=1))
    with pytest.raises(ValueError, match="the net was made for a fish"):
        pv.search(pv.Fish(players=3).new_state(seed=1), "alphabeta", evaluator=nnue, depth=1)
    with pytest.raises(ValueError, match="reads Fish boards"):
        NnueNet.random(pv.Marathon())
    with pytest.raises(ValueError, match="evaluation-only"):
        pv.search(pv.Fish().new_state(seed=1), "puct", evaluator=nnue, iterations=8)
    arrays = nnue.arrays()
    w, b = arrays["dense"][0]
    with pytest.raises(ValueError, match="dense.0.weight takes"):
        NnueNet.from_arrays(pv.Fish(), arrays["features"], [(w[:, 1:], b)], arrays["value"])


def test_alphabeta_and_mcts_take_the_net_as_their_estimate():
    game = pv.Fish()
    net = NnueNet.random(game, 32, [16], seed=4)
    state = game.new_state(seed=7)
    for algorithm, budget in (("alphabeta", {"depth": 2}), ("mcts", {"iterations": 50})):
        r = pv.Searcher(algorithm, evaluator=net, playout="evaluate", seed=1).search(
            state, **budget
        )
        assert r.move in state.legal_moves()
    # At depth 1 alpha-beta picks the move whose child the net values best for the mover.
    p = state.to_move

    def value_for(child):
        v = net.value(child)
        return 0.5 * (v[p] - v[1 - p])

    best = max(value_for(state.after(m)) for m in state.legal_moves())
    r = pv.Searcher("alphabeta", evaluator=net, knowledge=False).search(state, depth=1)
    assert value_for(state.after(r.move)) == pytest.approx(best, abs=1e-4)
    # Another net, another choice somewhere: the estimate is really the net's.
    other = NnueNet.random(game, 32, [16], seed=5)
    states = [game.new_state(seed=s) for s in range(8)]
    moves = [
        [
            pv.Searcher("alphabeta", evaluator=n, knowledge=False).search(s, depth=1).move
            for s in states
        ]
        for n in (net, other)
    ]
    assert moves[0] != moves[1]


def test_an_agent_spec_reads_an_nnue_file(tmp_path):
    path = tmp_path / "nnue.safetensors"
    NnueNet.random(pv.Fish(), 16, [8], seed=2).save(path)
    agent = pv.agents.as_agent(f"alphabeta:1+net:{path}")
    state = pv.Fish().new_state(seed=3)
    assert agent.choose(state) in state.legal_moves()


def test_from_arrays_takes_any_memory_layout():
    game = pv.Fish()
    net = NnueNet.random(game, 8, [4], seed=6)
    arrays = net.arrays()
    w, b = arrays["features"]
    fortran = np.asfortranarray(w)
    again = NnueNet.from_arrays(game, (fortran, b), arrays["dense"], arrays["value"])
    assert again.to_bytes() == net.to_bytes()


def test_a_residual_net_with_a_zero_head_plays_the_hand_written_estimate():
    game = pv.Fish()
    arrays = NnueNet.random(game, 16, [8], seed=1).arrays()
    assert arrays["base"] is None
    w, b = arrays["value"]
    one = (np.ones((1, 1), np.float32), np.zeros(1, np.float32))
    net = NnueNet.from_arrays(game, arrays["features"], arrays["dense"], (w * 0, b * 0), base=one)
    assert net.arrays()["base"][0].tolist() == [[1.0]]
    assert NnueNet.from_bytes(net.to_bytes()).to_bytes() == net.to_bytes()
    states = [game.new_state(seed=s) for s in range(4)]
    for s in states[:2]:
        for m in s.legal_moves()[:3]:
            states.append(s.after(m))
    x = net.inputs(states)
    cells = game.observation_shape[1] * game.observation_shape[2]
    assert x["features"].shape == (len(states), 2, 5 * cells)
    for k, s in enumerate(states):
        v = net.value(s)
        p = s.to_move
        assert v[p] == pytest.approx(x["estimate"][k][0], abs=1e-5)
        assert v[1 - p] == pytest.approx(x["estimate"][k][1], abs=1e-5)
    # Seat 1's features are seat 0's with the two penguin planes swapped.
    f = x["features"][-1].reshape(2, 5, cells)
    assert (f[0, :3] == f[1, :3]).all() and (f[0, 3] == f[1, 4]).all()
    with pytest.raises(ValueError, match="base.weight"):
        NnueNet.from_arrays(
            game,
            arrays["features"],
            arrays["dense"],
            arrays["value"],
            base=(np.ones((1, 2), np.float32), np.zeros(1, np.float32)),
        )


def test_the_shipped_learned_net_plays_as_the_agent_spec_learned():
    from pingvinas.agents import as_agent, expand_spec, timed_agent
    from pingvinas.cli._common import agent_spec as _agent

    net = pv.evaluators.learned()
    assert isinstance(net, NnueNet) and net is pv.evaluators.learned()
    layers = net.arrays()
    # It reads the hand-written terms (2 seats x 11) and the scores, no cell features.
    assert layers["features"][0].shape[0] == 0 and layers["dense"][0][0].shape[1] == 2 + 2 * 11
    assert layers["base"] is not None
    state = pv.Fish().new_state(seed=5)
    for _ in range(10):
        state.play(state.legal_moves()[0])
    x = net.inputs([state])
    assert x["terms"].shape == (1, 2, 11) and x["terms"].any()
    assert expand_spec("learned:2") == f"alphabeta:2+net:{pv.evaluators.LEARNED}"
    assert expand_spec("mcts:5") == "mcts:5"
    for agent in (as_agent("learned:1"), timed_agent("learned", 0.02)):
        assert agent.choose(state) in state.legal_moves()
    assert as_agent("learned").name == "learned"
    assert _agent("learned:3") == "learned:3"
    from pingvinas.web import App

    status, _ = App("fish", engine="learned:1", time=0.01).handle("POST", "/api/games", b"{}")
    assert status == 200
    # The learned search differs from the hand-written one somewhere.
    states = [pv.Fish().new_state(seed=k) for k in range(6)]
    for s in states:
        for ply in range(12):
            s.play(s.legal_moves()[ply % len(s.legal_moves())])
    picks = [
        (
            pv.search(s, "alphabeta", depth=2).move,
            pv.search(s, "alphabeta", evaluator=net, depth=2).move,
        )
        for s in states
    ]
    assert any(a != b for a, b in picks)


def test_auto_searches_with_the_learned_net_on_standard_two_player_fish_only():
    net = pv.evaluators.learned()

    def played(state):
        for ply in range(12):
            state.play(state.legal_moves()[ply % len(state.legal_moves())])
        return state

    def result(state, **options):
        r = pv.Searcher(**options).search(state, depth=2)
        return r.move, r.value, r.nodes

    dealt = [played(pv.Fish().new_state(seed=k)) for k in range(4)]
    # The standard board given floe by floe is standard too.
    given = pv.Fish(board=pv.Fish().new_state(seed=9).board)
    for s in dealt + [played(given.new_state())]:
        learned = result(s, algorithm="alphabeta", evaluator=net)
        assert result(s, algorithm="auto") == learned
        assert result(s, algorithm="auto", knowledge=False) == result(
            s, algorithm="alphabeta", knowledge=False
        )
    assert any(result(s, algorithm="auto") != result(s, algorithm="alphabeta") for s in dealt)
    # Other two-player boards get alpha-beta with the hand-written evaluation (with more
    # players auto is MCTS: test_search.py says so).
    for game in (pv.Fish(penguins=3), pv.Fish.variant("fish-mini-4x4")):
        s = game.new_state(seed=2)
        assert result(s, algorithm="auto") == result(s, algorithm="alphabeta")
