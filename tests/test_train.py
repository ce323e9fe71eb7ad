"""`pingvinas train` at a tiny budget: the whole pipeline (distillation, Gumbel self-play,
training with symmetry augmentation, export, strength checks, the curve), so that it can never
silently break; and the pieces it is made of."""

from __future__ import annotations

import importlib.util
import json
import re

import numpy as np
import pytest

import pingvinas as pv
from pingvinas.cli import main
from pingvinas.learn.train import Samples, Settings, Symmetries, distill, from_selfplay
from test_symmetry import hexagon

needs_jax = pytest.mark.skipif(
    importlib.util.find_spec("jax") is None or importlib.util.find_spec("optax") is None,
    reason='JAX and optax are not installed (pip install "pingvinas[train]")',
)


def played(game, seed, plies):
    state = game.new_state(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.play(int(legal[rng.integers(len(legal))]))
    return state


@pytest.mark.parametrize("game", [pv.Fish(), pv.Fish(board=hexagon(2)), pv.Marathon()])
def test_augmentation_is_the_transformed_state(game):
    # A sample under a symmetry is exactly the sample of the transformed state.
    sym = Symmetries(game)
    assert len(sym) == len(game.symmetries()) >= 1
    for k, s in enumerate(game.symmetries()):
        for seed, plies in [(1, 0), (2, 9), (3, 20)]:
            state = played(game, seed, plies)
            if state.is_terminal():
                continue
            policy = np.zeros(game.num_actions, np.float32)
            legal = state.legal_actions()
            policy[legal] = np.arange(1, len(legal) + 1, dtype=np.float32)
            row = Samples(
                state.observation_tensor().reshape(1, -1),
                state.legal_action_mask()[None],
                policy[None],
                np.zeros((1, game.players), np.float32),
            )
            image = sym.apply(k, row)
            other = state.transformed(s)
            np.testing.assert_array_equal(image.obs[0], other.observation_tensor().reshape(-1))
            np.testing.assert_array_equal(image.mask[0], other.legal_action_mask())
            want = np.zeros_like(policy)
            want[np.asarray(s.actions)[legal]] = policy[legal]
            np.testing.assert_array_equal(image.policy[0], want)


def test_augment_draws_symmetries_and_keeps_rows_consistent():
    game = pv.Fish(board=hexagon(3))
    sym = Symmetries(game)
    data = from_selfplay(pv.selfplay(game, games=1, simulations=4, seed=3))
    out = sym.augment(data, np.random.default_rng(0))
    # Every augmented row is its source row under one of the symmetries, not always the identity.
    ks = []
    for i in range(len(data)):
        row = Samples(data.obs[i : i + 1], data.mask[i : i + 1], data.policy[i : i + 1], data.value)
        hits = [
            k
            for k in range(len(sym))
            if np.array_equal(sym.apply(k, row).obs[0], out.obs[i])
            and np.array_equal(sym.apply(k, row).policy[0], out.policy[i])
        ]
        assert hits
        ks.append(hits[0])
    assert len(set(ks)) > 1
    np.testing.assert_array_equal(out.value, data.value)


def test_distillation_targets_are_alphabetas_moves_and_mixed_values():
    game = pv.Fish()
    rows = distill(game, games=1, depth=1, mix=0.5, seed=2)
    assert len(rows) > 10
    assert np.all(rows.policy.sum(axis=1) == 1) and np.all(rows.policy[~rows.mask] == 0)
    # Two players: the targets are zero-sum, inside [-1, 1], and not the bare outcome.
    np.testing.assert_allclose(rows.value[:, 0], -rows.value[:, 1], atol=1e-6)
    assert np.all(np.abs(rows.value) <= 1)
    assert not np.all(np.isin(rows.value, [-1.0, 0.0, 1.0]))


TINY = [
    "--games", "2", "--simulations", "4", "--hidden", "16", "--steps", "3", "--batch", "32",
    "--generations", "2", "--distill-games", "1", "--distill-depth", "1", "--check-every", "2",
    "--check-games", "2", "--check-time", "0.01", "--quiet",
]  # fmt: skip


@needs_jax
def test_the_whole_pipeline_at_a_tiny_budget(tmp_path):
    main(["train", "--game", "fish", "--out", str(tmp_path / "a"), "--seed", "5", *TINY])
    out = tmp_path / "a"
    names = sorted(p.name for p in out.iterdir())
    assert {"gen-000.safetensors", "gen-002.safetensors", "net.safetensors", "log.jsonl"} <= set(
        names
    )
    assert "curve.svg" in names
    events = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "settings" and "distill" in kinds and kinds.count("generation") == 2
    checks = [e for e in events if e["event"] == "check"]
    assert [c["generation"] for c in checks] == [0, 2]
    for c in checks:
        for opponent in ("mcts", "alphabeta"):
            r = c[opponent]
            assert r["games"] == 2 and 0 <= r["low"] <= r["score"] <= r["high"] <= 1
    gens = [e for e in events if e["event"] == "generation"]
    assert all(np.isfinite(e["policy_loss"]) and e["samples"] > 0 for e in gens)
    # The exported net loads, fits the game and searches.
    net = pv.evaluators.native(out / "net.safetensors")
    assert net.hidden == [16] and net.game == "fish"
    assert net.to_bytes() == pv.evaluators.native(out / "gen-002.safetensors").to_bytes()
    assert net.to_bytes() != pv.evaluators.native(out / "gen-000.safetensors").to_bytes()
    state = pv.Fish().new_state(seed=1)
    assert pv.search(state, "puct", evaluator=net, iterations=8).move in state.legal_moves()
    assert pv.search(state, "alphabeta", evaluator=net, depth=2).move in state.legal_moves()


@needs_jax
@pytest.mark.slow  # three runs, each compiling its update step
def test_training_is_reproducible_from_its_seed(tmp_path):
    from pingvinas.learn.train import train

    def run(name, seed):
        s = Settings(
            out=str(tmp_path / name), generations=2, games=2, simulations=4, hidden=(8,),
            steps=3, batch=16, distill_games=1, distill_depth=1, check_games=0, seed=seed,
        )  # fmt: skip
        return train(pv.Fish(), s).to_bytes()

    assert run("a", 1) == run("b", 1)
    assert run("c", 2) != run("a", 1)


def test_bad_settings_are_refused_before_anything_runs(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["train", "--out", str(tmp_path), "--games", "0"])
    assert e.value.code == 2
    with pytest.raises(SystemExit):
        main(["train", "--out", str(tmp_path), "--search-value-mix", "2"])
    assert "expected 0 to 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", "--out", str(tmp_path), "--playout-mix", "0.5", "--player", "alphabeta"])
    assert "only the PUCT players" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_the_learned_player_mixes_playouts_into_puct_only():
    from pingvinas.learn.train import learned_player

    net = pv.evaluators.Net.random(pv.Fish(), [8], seed=0)
    agent = learned_player(net, "puct-root", None, 0, playout_mix=0.5, iterations=8)
    assert agent.searcher.options["playout_mix"] == 0.5
    assert agent.searcher.options["root"] == "puct" and agent.searcher.options["batch_size"] == 1
    assert agent.budget["iterations"] == 8
    state = pv.Fish().new_state(seed=2)
    assert agent.choose(state) in state.legal_moves()
    with pytest.raises(ValueError, match="only the PUCT players"):
        learned_player(net, "alphabeta", 0.01, 0, playout_mix=0.5)


@needs_jax
def test_the_exported_net_computes_what_was_trained():
    # The JAX forward pass and the engine's evaluation of the exported net agree, so that the
    # search plays the net that the losses describe.
    from pingvinas.learn.train import _Trainer, forward

    game = pv.Fish()
    trainer = _Trainer(game, Settings(out="", hidden=(32, 16), seed=3))
    data = from_selfplay(pv.selfplay(game, games=1, simulations=4, seed=1))
    trainer.fit(data, 5, 64, Symmetries(game), np.random.default_rng(0))
    logits, values = forward(trainer.jnp, trainer.params, data.obs)
    net_logits, net_values = trainer.net(game)(
        data.obs.reshape(len(data), *game.observation_shape), data.mask
    )
    np.testing.assert_allclose(net_logits[data.mask], np.asarray(logits)[data.mask], atol=1e-4)
    np.testing.assert_allclose(net_values, np.asarray(values), atol=1e-5)


def test_puct_backs_up_the_nets_value_for_the_player_who_moved():
    # The net's values are per seat from the player to move; after one leaf PUCT's value of
    # its move must be the net's value of the child position for the root's mover (a sign or
    # seat slip here makes the search prefer what the net thinks loses).
    game = pv.Fish()
    net = pv.evaluators.Net.random(game, [32], seed=4)
    checked = 0
    for seed in range(12):
        state = played(game, seed, 8 + 3 * seed)
        if state.is_terminal():
            continue
        me = state.to_move
        r = pv.search(state, "puct", evaluator=net, iterations=1, seed=1, knowledge=False)
        child = state.clone()
        child.play(int(r.action))
        if child.is_terminal():
            continue
        _, values = net(child.observation_tensor()[None], child.legal_action_mask()[None])
        assert r.value == pytest.approx(float(values[0][(me - child.to_move) % 2]), abs=1e-6)
        checked += 1
    assert checked >= 8


@needs_jax
def test_the_nnue_pipeline_trains_exports_and_searches_with_a_residual_net(tmp_path):
    import jax

    from pingvinas.learn.train_nnue import NnueSettings, init_params, to_net, train_nnue
    from pingvinas.searching.evaluators import NnueNet, native

    game = pv.Fish()
    # Before training the net is the hand-written estimate exactly (zero head, base weight 1).
    cells = game.observation_shape[1] * game.observation_shape[2]
    start = to_net(game, init_params(jax, jax.random.PRNGKey(0), 5 * cells, 2, 8, (4,)))
    state = game.new_state(seed=3)
    x = start.inputs([state])
    assert start.value(state)[state.to_move] == pytest.approx(x["estimate"][0][0], abs=1e-5)
    s = NnueSettings(
        out=str(tmp_path), games=2, depth=1, width=8, hidden=(4,), steps=3, batch=16, seed=1
    )
    net = train_nnue(game, s)
    again = native(tmp_path / "net.safetensors")
    assert isinstance(again, NnueNet) and again.to_bytes() == net.to_bytes()
    assert net.arrays()["base"] is not None
    log = json.loads((tmp_path / "log.jsonl").read_text())
    assert log["positions"] > 20 and log["loss_after"] >= 0
    # Seeded: the same settings make the same net.
    assert (
        train_nnue(game, NnueSettings(**{**s.__dict__, "out": str(tmp_path / "b")})).to_bytes()
        == net.to_bytes()
    )
    r = pv.search(state, "alphabeta", evaluator=net, depth=2)
    assert r.move in state.legal_moves()


@needs_jax
def test_a_net_of_the_hand_written_terms_computes_in_the_engine_what_it_trained(tmp_path):
    import jax.numpy as jnp

    from pingvinas.learn.train_nnue import NnueSettings, forward, train_nnue

    game = pv.Fish()
    s = NnueSettings(
        out=str(tmp_path),
        games=3,
        depth=1,
        width=0,
        terms=True,
        hidden=(6,),
        steps=30,
        seed=2,
        check_games=1,
        check_time=0.005,
    )
    net = train_nnue(game, s)
    # The learning curve: checks before training and after each quarter of the steps.
    events = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    checks = [e for e in events if e.get("event") == "check"]
    assert [c["step"] for c in checks] == [0, 7, 15, 22, 30]
    assert all(c["mcts"]["games"] == 1 == c["alphabeta"]["games"] for c in checks)
    assert (tmp_path / "curve.svg").read_text().startswith("<svg")
    layers = net.arrays()
    assert layers["features"][0].shape == (0, 5 * 64) and layers["dense"][0][0].shape[1] == 24
    states = [game.new_state(seed=k) for k in range(3)]
    for k, state in enumerate(states):  # placement, and movement
        for ply in range(7 * k):
            state.play(state.legal_actions()[ply % len(state.legal_actions())])
    x = net.inputs(states)
    want = forward(
        jnp, layers, x["features"].astype(np.float32), x["scores"], x["estimate"], x["terms"]
    )
    for k, state in enumerate(states):
        values = net.value(state)
        got = [values[(state.to_move + seat) % 2] for seat in range(2)]
        assert got == pytest.approx(np.asarray(want[k]).tolist(), abs=1e-5)
    with pytest.raises(ValueError, match="terms"):
        train_nnue(game, NnueSettings(out=str(tmp_path / "b"), width=0))


@needs_jax
def test_nnue_training_in_rounds_plays_the_same_games_and_checks_after_each_round(tmp_path):
    from pingvinas.learn.train_nnue import NnueSettings, train_nnue

    game = pv.Fish()
    kw = dict(games=5, depth=1, width=0, terms=True, hidden=(4,), steps=10, batch=32, seed=4)
    train_nnue(game, NnueSettings(out=str(tmp_path / "one"), **kw))
    s = NnueSettings(out=str(tmp_path / "three"), rounds=3, check_games=1, check_time=0.005, **kw)
    net = train_nnue(game, s)
    one = json.loads((tmp_path / "one" / "log.jsonl").read_text().splitlines()[0])
    lines = (tmp_path / "three" / "log.jsonl").read_text().splitlines()
    record, events = json.loads(lines[0]), [json.loads(line) for line in lines[1:]]
    # The rounds together play the games of one round: the same positions.
    assert record["positions"] == one["positions"]
    rounds = [e for e in events if e["event"] == "round"]
    assert [(e["games"], e["step"]) for e in rounds] == [(1, 3), (3, 6), (5, 10)]
    assert rounds[0]["positions"] < rounds[1]["positions"] < record["positions"]
    # A check before training and after each round, in training minutes that grow.
    checks = [e for e in events if e["event"] == "check"]
    assert [c["step"] for c in checks] == [0, 3, 6, 10]
    minutes = [c["minutes"] for c in checks]
    assert minutes == sorted(minutes)
    again = NnueSettings(**{**s.__dict__, "out": str(tmp_path / "again"), "check_games": 0})
    assert train_nnue(game, again).to_bytes() == net.to_bytes()
    with pytest.raises(ValueError, match="rounds = 6"):
        train_nnue(game, NnueSettings(**{**kw, "out": str(tmp_path / "b"), "rounds": 6}))


def test_nnue_training_holds_out_whole_games():
    # A game's positions share its board, which a net learns by heart: rows held out from the
    # games it trains on would measure that, not how it does on new boards.
    from pingvinas.learn.train_nnue import split_by_game

    game_of = np.repeat(np.arange(40), np.random.default_rng(0).integers(1, 30, 40))
    held, train = split_by_game(game_of, 40, np.random.default_rng(1))
    assert len(np.unique(game_of[held])) == 4
    assert not set(game_of[held]) & set(game_of[train])
    assert sorted(np.concatenate([held, train])) == list(range(len(game_of)))


@pytest.mark.parametrize(
    "name, value",
    [
        ("distill_steps", 10**30),
        ("generations", 0),
        ("steps", 10**7),
        ("lr", float("inf")),
        ("lr", 0.0),
        ("playout_mix", 2.0),
        ("check_time", 1e308),
        ("minutes", -1.0),
        ("seed", 2**64),
    ],
)
def test_every_numeric_setting_has_a_checked_range(tmp_path, name, value):
    from pingvinas.learn.train import RANGES, train

    assert name in RANGES
    out = tmp_path / "run"
    with pytest.raises(
        ValueError, match=f"^{name} = .*: expected .*{re.escape(str(RANGES[name]))}"
    ):
        train(pv.Fish(), Settings(out=str(out), **{name: value}))
    with pytest.raises(TypeError, match=f"^{name} = "):
        train(pv.Fish(), Settings(out=str(out), **{name: "1"}))
    with pytest.raises(ValueError, match="hidden"):
        train(pv.Fish(), Settings(out=str(out), hidden=(8, 0)))
    assert not out.exists()


@pytest.mark.parametrize(
    "name, value", [("steps", 10**30), ("games", 0), ("explore", 1.5), ("width", 10**6)]
)
def test_every_numeric_nnue_setting_has_a_checked_range(tmp_path, name, value):
    from pingvinas.learn.train_nnue import NNUE_RANGES, NnueSettings, train_nnue

    assert name in NNUE_RANGES
    out = tmp_path / "run"
    with pytest.raises(ValueError, match=f"^{name} = .*: expected"):
        train_nnue(pv.Fish(), NnueSettings(out=str(out), **{name: value}))
    assert not out.exists()


def test_an_out_that_cannot_be_a_directory_is_a_value_error(tmp_path):
    from pingvinas.learn.train import train

    (tmp_path / "file").write_text("precious")
    for out in ("file", "file/sub"):
        with pytest.raises(ValueError, match="not a directory|a file, not a directory"):
            train(pv.Fish(), Settings(out=str(tmp_path / out)))
    assert (tmp_path / "file").read_text() == "precious"
