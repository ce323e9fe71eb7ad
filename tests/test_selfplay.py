"""Self-play data: shapes, determinism, subsets of game indices, resign, playout cap, files."""

from __future__ import annotations

import _thread
import threading

import numpy as np
import pytest

import pingvinas as pv
from pingvinas.learn.selfplay import SelfPlayData

FIELDS = ["observations", "legal_masks", "policies", "to_move", "returns", "game_ids"]


def uniform(players):
    def fn(obs, mask):
        return np.zeros(mask.shape, np.float32), np.zeros((len(obs), players), np.float32)

    return fn


def same(a: SelfPlayData, b: SelfPlayData) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in [*FIELDS, "move_numbers"])


def subset(data: SelfPlayData, ids) -> SelfPlayData:
    keep = np.isin(data.game_ids, list(ids))
    return SelfPlayData(**{f: getattr(data, f)[keep] for f in [*FIELDS, "move_numbers"]})


@pytest.mark.parametrize("with_evaluator", [False, True])
def test_arrays_have_the_documented_shapes(with_evaluator):
    game = pv.Fish()
    ev = uniform(2) if with_evaluator else None
    d = pv.selfplay(game, games=3, simulations=16, evaluator=ev, seed=2)
    n = len(d)
    assert n > 30
    shape = game.observation_shape
    assert d.observations.shape == (n, *shape) and d.observations.dtype == np.float32
    assert d.legal_masks.shape == (n, game.num_actions) and d.legal_masks.dtype == np.bool_
    assert d.policies.shape == (n, game.num_actions) and d.policies.dtype == np.float32
    assert d.to_move.dtype == np.int8 and d.game_ids.dtype == np.int64
    assert d.move_numbers.dtype == np.int32 and d.returns.dtype == np.float32
    assert d.returns.shape == (n, 2)
    np.testing.assert_allclose(d.policies.sum(axis=1), 1.0, rtol=1e-5)
    assert not (d.policies[~d.legal_masks] > 0).any()
    np.testing.assert_allclose(d.returns.sum(axis=1), 0.0, atol=1e-6)
    assert sorted(set(d.game_ids.tolist())) == [0, 1, 2]
    order = np.lexsort((d.move_numbers, d.game_ids))
    assert (order == np.arange(n)).all()
    # Seat 0 of the value targets is the player to move.
    vt = d.value_targets()
    np.testing.assert_array_equal(vt[:, 0], d.returns[np.arange(n), d.to_move])
    # The observation plane of the player to move: Fish's constant plane 3n+seat.
    assert (d.observations[:, 3 + 2 + 3 * 2, 0, 0] == 1).all()


def test_same_seed_same_data_and_any_subset_of_games():
    game = pv.Fish()
    for ev in (None, uniform(2)):
        full = pv.selfplay(game, games=5, simulations=12, evaluator=ev, seed=7)
        assert same(full, pv.selfplay(game, games=5, simulations=12, evaluator=ev, seed=7))
        other = pv.selfplay(game, games=5, simulations=12, evaluator=ev, seed=8)
        assert not same(full, other)
        part = pv.selfplay(game, games=range(2, 4), simulations=12, evaluator=ev, seed=7)
        assert same(part, subset(full, [2, 3]))
        picked = pv.selfplay(game, games=[4, 0], simulations=12, evaluator=ev, seed=7)
        assert same(picked, subset(full, [0, 4]))
    # Threads do not change MCTS games.
    a = pv.selfplay(game, games=4, simulations=12, seed=3, threads=1)
    b = pv.selfplay(game, games=4, simulations=12, seed=3, threads=2)
    assert same(a, b)


def test_concatenate_save_and_load(tmp_path):
    game = pv.Fish(players=3)
    full = pv.selfplay(game, games=4, simulations=8, seed=1, evaluator=uniform(3))
    parts = [
        pv.selfplay(game, games=[3, 2], simulations=8, seed=1, evaluator=uniform(3)),
        pv.selfplay(game, games=[0, 1], simulations=8, seed=1, evaluator=uniform(3)),
    ]
    joined = SelfPlayData.concatenate(parts)
    assert same(joined, full)
    path = tmp_path / "data.npz"
    full.save(path)
    back = SelfPlayData.load(path)
    assert same(back, full) and len(back) == len(full)
    assert back == full and joined == full and not (back != full)
    assert full != parts[0] and full != "data"
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(ValueError, match="no self-play data"):
        SelfPlayData.load(tmp_path / "other.npz")
    with pytest.raises(ValueError):
        SelfPlayData.concatenate([])


@pytest.mark.parametrize("players", [2, 3, 5])
def test_marathon_self_play(players):
    game = pv.Marathon(players=players)
    d = pv.selfplay(game, games=1, simulations=8, seed=1, evaluator=uniform(players))
    assert len(d) > 10 and d.returns.shape == (len(d), players)
    np.testing.assert_allclose(d.returns.sum(axis=1), 0.0, atol=1e-5)


def test_resign_and_playout_cap():
    game = pv.Fish()
    # Every value is 0: below a threshold of 0.5 the first searched player resigns at once,
    # but in the games that never resign (about 1 in 10).
    d = pv.selfplay(game, games=20, simulations=8, seed=1, evaluator=uniform(2), resign=0.5)
    per_game = np.bincount(d.game_ids)
    assert (per_game == 1).sum() >= 14 and (per_game > 1).any()
    one = np.flatnonzero(per_game == 1)
    rows = np.isin(d.game_ids, one)
    np.testing.assert_array_equal(d.returns[rows][np.arange(rows.sum()), d.to_move[rows]], -1.0)
    full = pv.selfplay(game, games=2, simulations=16, seed=1, evaluator=uniform(2))
    capped = pv.selfplay(
        game, games=2, simulations=16, seed=1, evaluator=uniform(2), playout_cap=(0.25, 4)
    )
    assert 0 < len(capped) < len(full) / 2
    # Temperature 0 plays the most visited move: the next sample's position follows it.
    cold = pv.selfplay(game, games=1, simulations=16, seed=1, temperature=0.0, evaluator=uniform(2))
    assert len(cold) > 10


def test_bad_settings_and_evaluator_errors():
    game = pv.Fish()
    with pytest.raises(ValueError, match="backend"):
        pv.selfplay(game, backend="cluster")
    with pytest.raises(ValueError, match="simulations"):
        pv.selfplay(game, simulations=0)
    with pytest.raises(ValueError, match="negative"):
        pv.selfplay(game, games=[-1])
    with pytest.raises(ValueError, match="at most once"):
        pv.selfplay(game, games=[1, 1])
    with pytest.raises(TypeError, match="games"):
        pv.selfplay(game, games=True)
    with pytest.raises(ValueError, match="temperature"):
        pv.selfplay(game, temperature=-1.0)
    with pytest.raises(ValueError, match="resign"):
        pv.selfplay(game, resign=2.0)
    with pytest.raises(ValueError, match="playout_cap"):
        pv.selfplay(game, simulations=8, playout_cap=(0.5, 20))
    with pytest.raises(ValueError, match="dirichlet"):
        pv.selfplay(game, dirichlet=(0.0, 0.25), evaluator=uniform(2))
    with pytest.raises(TypeError, match="game"):
        pv.selfplay("fish")
    with pytest.raises(TypeError, match="callable"):
        pv.selfplay(game, evaluator=3)
    with pytest.raises(ValueError, match="the evaluator's values"):
        pv.selfplay(game, evaluator=uniform(3))
    assert len(pv.selfplay(game, games=0)) == 0

    class Boom(Exception):
        pass

    def boom(obs, mask):
        raise Boom("net down")

    with pytest.raises(Boom, match="net down"):
        pv.selfplay(game, games=2, evaluator=boom)


def test_ctrl_c_stops_self_play(python_sigint):
    game = pv.Fish()
    for ev in (None, uniform(2)):
        timer = threading.Timer(0.3, _thread.interrupt_main)
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                pv.selfplay(game, games=10_000, simulations=200, evaluator=ev)
        finally:
            timer.cancel()


def test_the_self_play_defaults_live_once():
    import dataclasses
    import inspect

    from pingvinas.learn import selfplay as samples

    for f in (samples.selfplay, samples.selfplay_local):
        params = inspect.signature(f).parameters
        for field in dataclasses.fields(samples.SelfPlayDefaults):
            assert params[field.name].default == getattr(samples.DEFAULTS, field.name), field.name
    # Every setting with a default that is not off (None) is in DEFAULTS.
    defaults = {p.name for p in inspect.signature(samples.selfplay_local).parameters.values()}
    listed = {f.name for f in dataclasses.fields(samples.SelfPlayDefaults)}
    off = {
        p.name
        for p in inspect.signature(samples.selfplay_local).parameters.values()
        if p.default is None
    }
    assert defaults - {"game"} == listed | off


def test_max_live_bounds_the_games_in_play_and_not_the_samples():
    game = pv.Fish.variant("fish-mini-4x4")
    net = pv.evaluators.Net.random(game, [16], seed=1)
    kw = dict(games=5, simulations=8, evaluator=net, seed=3)
    assert pv.selfplay(game, **kw, max_live=2) == pv.selfplay(game, **kw)
    for bad in (0, 2**21):
        with pytest.raises(ValueError, match="max_live"):
            pv.selfplay(game, **kw, max_live=bad)
    with pytest.raises(TypeError, match="max_live"):
        pv.selfplay(game, **kw, max_live=1.5)


@pytest.mark.parametrize("name", ["temperature", "resign"])
@pytest.mark.parametrize("value", ["x", None, [1.0]])
def test_a_setting_that_is_no_number_is_named(name, value):
    if name == "resign" and value is None:
        return  # resign=None turns resigning off
    with pytest.raises(TypeError, match=f"^{name} = "):
        pv.selfplay(pv.Fish(), games=1, simulations=4, **{name: value})
