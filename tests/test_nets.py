"""The export helpers (pingvinas.searching.nets): native nets from numpy arrays, JAX/flax parameters
and torch state_dicts, checked against a forward pass written here in numpy."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import pingvinas as pv
from pingvinas import nets
from pingvinas.searching.evaluators import Net


@pytest.fixture(params=["fish", "marathon"])
def game(request):
    return pv.Fish() if request.param == "fish" else pv.Marathon()


def layers(game, hidden, seed=0):
    rng = np.random.default_rng(seed)
    sizes = [int(np.prod(game.observation_shape)), *hidden]
    trunk = [
        (rng.normal(0, 0.1, (o, i)).astype(np.float32), rng.normal(0, 0.1, o).astype(np.float32))
        for i, o in zip(sizes, sizes[1:])
    ]
    width = sizes[-1]
    policy = (rng.normal(0, 0.1, (game.num_actions, width)), rng.normal(0, 0.1, game.num_actions))
    value = (rng.normal(0, 0.1, (game.players, width)), rng.normal(0, 0.1, game.players))
    return trunk, policy, value


def numpy_forward(trunk, policy, value, obs):
    x = obs.reshape(len(obs), -1).astype(np.float64)
    for w, b in trunk:
        x = np.maximum(x @ np.asarray(w, np.float64).T + b, 0)
    logits = x @ np.asarray(policy[0], np.float64).T + policy[1]
    return logits, np.tanh(x @ np.asarray(value[0], np.float64).T + value[1])


def batch(game, n=4):
    states = [game.new_state(seed=s) for s in range(n)]
    for k, s in enumerate(states):  # some positions past the opening
        for _ in range(k * 3):
            if not s.is_terminal():
                s.play(s.legal_actions()[0])
    obs = np.stack([s.observation_tensor() for s in states])
    mask = np.stack([s.legal_action_mask() for s in states])
    return obs, mask


def assert_evaluates_as(net, trunk, policy, value, game):
    obs, mask = batch(game)
    logits, values = net(obs, mask)
    want_logits, want_values = numpy_forward(trunk, policy, value, obs)
    np.testing.assert_allclose(logits[mask], want_logits[mask], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(values, want_values, rtol=1e-4, atol=1e-5)


def test_from_numpy_evaluates_the_layers_given(game, tmp_path):
    trunk, policy, value = layers(game, [24, 16])
    net = nets.from_numpy(game, trunk, policy, value)
    assert net.hidden == [24, 16] and net.num_actions == game.num_actions
    assert net.game == type(game).__name__.lower()
    assert_evaluates_as(net, trunk, policy, value, game)
    # The engine's file round-trips, and searches with it.
    net.save(tmp_path / "net.safetensors")
    again = pv.evaluators.native(tmp_path / "net.safetensors")
    assert again.to_bytes() == net.to_bytes()
    state = game.new_state(seed=5)
    assert pv.search(state, "puct", evaluator=again, iterations=8).move in state.legal_moves()


def test_to_numpy_gives_the_layers_back(game):
    trunk, policy, value = layers(game, [8])
    w = nets.to_numpy(nets.from_numpy(game, trunk, policy, value))
    np.testing.assert_array_equal(w["trunk"][0][0], trunk[0][0])
    np.testing.assert_allclose(w["policy"][1], policy[1].astype(np.float32))
    random = Net.random(game, [12, 6], seed=2)
    assert nets.from_numpy(game, **nets.to_numpy(random)).to_bytes() == random.to_bytes()


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t, p, v: ([(t[0][0][:, :-1], t[0][1])], p, v), r"trunk\[0\] weight has shape"),
        (lambda t, p, v: ([(t[0][0], t[0][1][:-1])], p, v), r"trunk\[0\] bias has shape"),
        (lambda t, p, v: (t, (p[0][:-1], p[1][:-1]), v), r"policy weight has shape"),
        (lambda t, p, v: (t, p, (v[0][:, :3], v[1])), r"value weight has shape"),
        (lambda t, p, v: ([], p, v), "one or more"),
        (lambda t, p, v: (t, p, (v[0] * np.nan, v[1])), "not a finite number"),
    ],
)
def test_wrong_shapes_are_named(change, message):
    game = pv.Fish()
    trunk, policy, value = layers(game, [8])
    with pytest.raises(ValueError, match=message):
        nets.from_numpy(game, *change(trunk, policy, value))


def test_a_layer_that_is_not_a_pair_is_a_type_error():
    game = pv.Fish()
    trunk, policy, value = layers(game, [8])
    with pytest.raises(TypeError, match="policy: expected a"):
        nets.from_numpy(game, trunk, policy[0], value)


def flax_params(trunk, policy, value):
    params = {f"trunk_{k}": {"kernel": w.T, "bias": b} for k, (w, b) in enumerate(trunk)}
    params["policy"] = {"kernel": policy[0].T, "bias": policy[1]}
    params["value"] = {"kernel": value[0].T, "bias": value[1]}
    return {"params": params}


def test_from_jax_reads_flax_layouts_as_numpy():
    # The layout alone (kernels [inputs, outputs]) is checked here with numpy arrays; the test
    # below repeats it with JAX arrays where JAX is installed.
    game = pv.Fish()
    trunk, policy, value = layers(game, [16, 8])
    net = nets.from_jax(game, flax_params(trunk, policy, value))
    assert_evaluates_as(net, trunk, policy, value, game)
    assert nets.from_flax is nets.from_jax
    bad = flax_params(trunk, policy, value)["params"]
    bad["trunk_2"] = bad.pop("trunk_1")
    with pytest.raises(ValueError, match="expected trunk_0, trunk_1"):
        nets.from_jax(game, bad)
    with pytest.raises(ValueError, match="unexpected layer 'head'"):
        nets.from_jax(game, {**bad, "head": {}})


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="JAX is not installed")
def test_from_jax_takes_jax_arrays():
    import jax.numpy as jnp

    game = pv.Fish()
    trunk, policy, value = layers(game, [16])
    params = flax_params(trunk, policy, value)
    as_jax = {
        "params": {
            k: {n: jnp.asarray(a) for n, a in v.items()} for k, v in params["params"].items()
        }
    }
    assert_evaluates_as(nets.from_jax(game, as_jax), trunk, policy, value, game)


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_from_torch_reads_the_documented_module():
    import torch

    game = pv.Fish()

    class PolicyValue(torch.nn.Module):
        def __init__(self, inputs, hidden, actions, players):
            super().__init__()
            layers = []
            for width in hidden:
                layers += [torch.nn.Linear(inputs, width), torch.nn.ReLU()]
                inputs = width
            self.trunk = torch.nn.Sequential(*layers)
            self.policy = torch.nn.Linear(inputs, actions)
            self.value = torch.nn.Linear(inputs, players)

        def forward(self, x):
            h = self.trunk(x.flatten(1))
            return self.policy(h), torch.tanh(self.value(h))

    torch.manual_seed(0)
    module = PolicyValue(int(np.prod(game.observation_shape)), [16, 8], game.num_actions, 2)
    net = nets.from_torch(game, module.state_dict())
    obs, mask = batch(game)
    with torch.no_grad():
        logits, values = module(torch.from_numpy(obs))
    got_logits, got_values = net(obs, mask)
    np.testing.assert_allclose(got_logits[mask], logits.numpy()[mask], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got_values, values.numpy(), rtol=1e-4, atol=1e-5)


def test_from_torch_layout_without_torch():
    # A state_dict is a mapping of names to arrays: its layout is checked with numpy arrays
    # (trunk.0, trunk.2: the ReLU modules between hold no tensors).
    game = pv.Fish()
    trunk, policy, value = layers(game, [16, 8])
    sd = {"trunk.0.weight": trunk[0][0], "trunk.0.bias": trunk[0][1]}
    sd |= {"trunk.2.weight": trunk[1][0], "trunk.2.bias": trunk[1][1]}
    sd |= {"policy.weight": policy[0], "policy.bias": policy[1]}
    sd |= {"value.weight": value[0], "value.bias": value[1]}
    assert_evaluates_as(nets.from_torch(game, sd), trunk, policy, value, game)
    with pytest.raises(ValueError, match="no 'trunk.2.bias'"):
        nets.from_torch(game, {k: v for k, v in sd.items() if k != "trunk.2.bias"})
    with pytest.raises(ValueError, match="unexpected tensor 'extra.weight'"):
        nets.from_torch(game, {**sd, "extra.weight": value[0]})
