"""The ready evaluators (``pingvinas.searching.evaluators``): uniform, ONNX on onnxruntime, torch.

The ONNX models are built here with the ``onnx`` package (no downloaded weights): Flatten, then
MatMul + bias for the policy logits and MatMul + bias + Tanh for the values, so a numpy
computation with the same weights gives the expected outputs.
"""

import functools
import pickle
import random
import sys
import warnings

import numpy as np
import pytest

import pingvinas as pv
from pingvinas import evaluators
from pingvinas.searching.searcher import ALGORITHMS

GAMES = [pv.Fish(), pv.Fish(players=3), pv.Marathon(players=3)]


def batch(game, n=5, seed=1, read_only=True):
    """Observations and legal masks of ``n`` states along a random game, as the search passes
    them (C-contiguous, read-only)."""
    rng = random.Random(seed)
    state = game.new_state(seed=seed)
    obs, masks = [], []
    while len(obs) < n:
        if state.is_over:
            state = game.new_state(seed=rng.randrange(1000))
        obs.append(state.observation_tensor())
        masks.append(state.legal_action_mask())
        state.play(rng.choice(state.legal_moves()))
    o, m = np.stack(obs).astype(np.float32), np.stack(masks)
    if read_only:
        o.flags.writeable = m.flags.writeable = False
    return o, m


def test_uniform():
    for game in GAMES:
        o, m = batch(game)
        fn = evaluators.uniform(game)
        logits, values = fn(o, m)
        assert logits.shape == (5, game.num_actions) and logits.dtype == np.float32
        assert values.shape == (5, game.players) and values.dtype == np.float32
        assert not logits.any() and not values.any()
        again = pickle.loads(pickle.dumps(fn))
        assert np.array_equal(again(o, m)[1], values)


def test_per_worker_builds_at_the_first_call_and_pickles_as_its_factory():
    game = pv.Fish()
    built = []

    def factory():
        built.append(1)
        return evaluators.uniform(game)

    fn = evaluators.per_worker(factory)
    assert not built
    o, m = batch(game)
    assert fn(o, m)[0].shape == (5, game.num_actions) and fn(o, m)[1].shape == (5, 2)
    assert len(built) == 1  # once, then kept
    copy = pickle.loads(pickle.dumps(evaluators.per_worker(functools.partial(uniform_of, game))))
    assert copy._evaluator is None and copy(o, m)[1].shape == (5, 2)
    assert "per_worker" in repr(fn)
    with pytest.raises(TypeError, match="callable"):
        evaluators.per_worker(3)


def uniform_of(game):
    return evaluators.uniform(game)


# --- ONNX ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def onnx_mod():
    pytest.importorskip("onnxruntime")
    return pytest.importorskip("onnx")


def make_model(
    onnx_mod,
    obs_shape,
    actions,
    players,
    *,
    mask=False,
    swap=False,
    outputs=2,
    batch_dim="B",
    seed=0,
):
    """A small ONNX model and its weights: logits = flat @ Wp + bp (masked to -1e9 where the
    legal mask input, if any, is False), values = tanh(flat @ Wv + bv)."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    f = int(np.prod(obs_shape))
    w = {
        "Wp": rng.normal(0, 0.1, (f, actions)).astype(np.float32),
        "bp": rng.normal(0, 0.1, actions).astype(np.float32),
        "Wv": rng.normal(0, 0.1, (f, players)).astype(np.float32),
        "bv": rng.normal(0, 0.1, players).astype(np.float32),
    }
    if mask:
        w["low"] = np.array(-1e9, dtype=np.float32)
    nodes = [
        helper.make_node("Flatten", ["obs"], ["flat"], axis=1),
        helper.make_node("MatMul", ["flat", "Wp"], ["lp"]),
        helper.make_node("Add", ["lp", "bp"], ["raw" if mask else "logits"]),
        helper.make_node("MatMul", ["flat", "Wv"], ["lv"]),
        helper.make_node("Add", ["lv", "bv"], ["pre"]),
        helper.make_node("Tanh", ["pre"], ["values"]),
    ]
    inputs = [helper.make_tensor_value_info("obs", TensorProto.FLOAT, [batch_dim, *obs_shape])]
    if mask:
        nodes.append(helper.make_node("Where", ["mask", "raw", "low"], ["logits"]))
        inputs.append(helper.make_tensor_value_info("mask", TensorProto.BOOL, ["B", actions]))
    outs = [
        helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["B", actions]),
        helper.make_tensor_value_info("values", TensorProto.FLOAT, ["B", players]),
    ]
    if swap:
        outs.reverse()
    outs = outs[:outputs]
    inits = [numpy_helper.from_array(v, k) for k, v in w.items()]
    graph = helper.make_graph(nodes, "net", inputs, outs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # readable by every onnxruntime the extra allows
    onnx_mod.checker.check_model(model)
    return model, w


def expected(w, o, m=None):
    flat = o.reshape(len(o), -1).astype(np.float64)
    logits = flat @ w["Wp"] + w["bp"]
    if m is not None:
        logits = np.where(m, logits, -1e9)
    return logits, np.tanh(flat @ w["Wv"] + w["bv"])


@pytest.mark.parametrize("game", GAMES, ids=repr)
@pytest.mark.parametrize("mask", [False, True], ids=["obs", "obs+mask"])
def test_onnx_outputs_match_numpy(onnx_mod, tmp_path, game, mask):
    model, w = make_model(
        onnx_mod, game.observation_shape, game.num_actions, game.players, mask=mask
    )
    path = tmp_path / "net.onnx"
    onnx_mod.save(model, str(path))
    fn = evaluators.onnx(path, game=game, threads=1)
    assert isinstance(fn, evaluators.OnnxEvaluator)
    o, m = batch(game, n=7)
    logits, values = fn(o, m)
    assert logits.dtype == np.float32 and values.dtype == np.float32
    want_logits, want_values = expected(w, o, m if mask else None)
    np.testing.assert_allclose(logits, want_logits, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(values, want_values, rtol=1e-4, atol=1e-5)
    # A batch of one, and the model given as bytes or as a ModelProto: the same.
    one = evaluators.onnx(model.SerializeToString())(o[:1], m[:1])
    np.testing.assert_allclose(one[0], logits[:1], rtol=1e-5, atol=1e-5)
    assert np.array_equal(evaluators.onnx(model)(o, m)[1], values)


def test_onnx_pickles_without_its_file(onnx_mod, tmp_path):
    game = pv.Fish()
    model, _ = make_model(onnx_mod, game.observation_shape, game.num_actions, game.players)
    path = tmp_path / "net.onnx"
    onnx_mod.save(model, str(path))
    fn = evaluators.onnx(str(path), game=game)
    o, m = batch(game)
    want = fn(o, m)
    path.unlink()  # the copy keeps the model's bytes, not the path
    blob = pickle.dumps(fn)
    copy = pickle.loads(blob)
    assert copy._session is None  # built lazily, at the first call
    got = copy(o, m)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert copy._session is not None
    assert pickle.loads(pickle.dumps(copy)).source == str(path)
    assert "net.onnx" in repr(copy)


def test_onnx_models_that_do_not_fit_the_game(onnx_mod):
    fish, fish3, marathon = GAMES
    model, _ = make_model(onnx_mod, fish.observation_shape, fish.num_actions, fish.players)
    # Fish's 2-player model on 3 players: the planes and the value head differ.
    with pytest.raises(ValueError) as e:
        evaluators.onnx(model, game=fish3)
    text = str(e.value)
    assert "the observations input is (B, 14, 8, 8)" in text
    assert "the values output is (B, 2)" in text
    assert "observations (B, 19, 8, 8)" in text and "values (B, 3)" in text
    # On Marathon: observations and the action space.
    with pytest.raises(ValueError, match=r"the policy output is \(B, 2752\).*\(B, 975\)"):
        evaluators.onnx(model, game=marathon)
    # Outputs in the wrong order.
    swapped, _ = make_model(
        onnx_mod, fish.observation_shape, fish.num_actions, fish.players, swap=True
    )
    with pytest.raises(ValueError, match="other order"):
        evaluators.onnx(swapped, game=fish)
    # One output only.
    single, _ = make_model(
        onnx_mod, fish.observation_shape, fish.num_actions, fish.players, outputs=1
    )
    with pytest.raises(ValueError, match="1 outputs.*two outputs"):
        evaluators.onnx(single)
    # Flat observations where the game has planes.
    flat, _ = make_model(onnx_mod, (14 * 8 * 8,), fish.num_actions, fish.players)
    with pytest.raises(ValueError, match=r"the observations input is \(B, 896\)"):
        evaluators.onnx(flat, game=fish)


def test_onnx_batches_that_do_not_fit(onnx_mod):
    fish, fish3, _ = GAMES
    model, _ = make_model(onnx_mod, fish.observation_shape, fish.num_actions, fish.players)
    unchecked = evaluators.onnx(model)  # no game: checked against the model at each call
    o3, m3 = batch(fish3)
    with pytest.raises(
        ValueError, match=r"takes observations \(B, 14, 8, 8\), got \(5, 19, 8, 8\)"
    ):
        unchecked(o3, m3)
    checked = evaluators.onnx(model, game=fish)
    with pytest.raises(ValueError, match=r"made for Fish\(players=2.*\(B, 14, 8, 8\)"):
        checked(o3, m3)
    o, m = batch(fish)
    with pytest.raises(ValueError, match="legal_mask"):
        checked(o, m[:2])
    # A model exported with a fixed batch of one says so.
    fixed, _ = make_model(
        onnx_mod, fish.observation_shape, fish.num_actions, fish.players, batch_dim=1
    )
    fn = evaluators.onnx(fixed, game=fish)
    assert fn(o[:1], m[:1])[0].shape == (1, fish.num_actions)
    with pytest.raises(ValueError, match="dynamic batch axis"):
        fn(o, m)


def test_onnx_unreadable_models(onnx_mod, tmp_path):
    with pytest.raises(ValueError, match="cannot read the ONNX model"):
        evaluators.onnx(tmp_path / "missing.onnx")
    with pytest.raises(ValueError, match="onnxruntime cannot load"):
        evaluators.onnx(b"not a model")
    with pytest.raises(TypeError, match="expected a path"):
        evaluators.onnx(12)
    with pytest.raises(ValueError, match="threads"):
        evaluators.onnx(b"", threads=0)


def test_missing_optional_packages_name_the_extra(monkeypatch):
    # The package to install from PyPI now (no pingvinas release is published yet) and the extra.
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails
    with pytest.raises(ImportError, match=r'pip install onnxruntime \(the extra "onnx"\)'):
        evaluators.onnx(b"")
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(ImportError, match=r'pip install torch \(the extra "torch"\)'):
        evaluators.torch(object())
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match=r'pip install "ray>=2.9" \(the extra "ray"\)'):
        pv.play_match(pv.Fish(), ["random", "random"], games=1, backend="ray")
    with pytest.raises(ImportError, match=r'pip install "ray>=2.9" \(the extra "ray"\)'):
        evaluators.shared(evaluators.uniform(pv.Fish()))


def test_onnx_drives_the_puct_search(onnx_mod):
    """The adapter in the search it is made for (once the search has ``"puct"``)."""
    if "puct" not in ALGORITHMS:
        pytest.skip("the search has no 'puct' algorithm yet")
    for game in GAMES:
        model, _ = make_model(onnx_mod, game.observation_shape, game.num_actions, game.players)
        fn = evaluators.onnx(model, game=game, threads=1)
        state = game.new_state(seed=3)
        result = pv.search(state, algorithm="puct", evaluator=fn, iterations=64, seed=1)
        assert result.move in state.legal_moves()
        again = pv.search(state, algorithm="puct", evaluator=fn, iterations=64, seed=1)
        assert np.array_equal(result.visits, again.visits)


# --- torch --------------------------------------------------------------------------------------


try:  # module level, so that the nets below pickle
    import torch
except ImportError:
    torch = None

if torch is not None:

    class LinearNet(torch.nn.Module):
        """Flatten + Linear heads (the same shape of net as the ONNX models above)."""

        def __init__(self, game):
            super().__init__()
            f = int(np.prod(game.observation_shape))
            self.policy = torch.nn.Linear(f, game.num_actions)
            self.value = torch.nn.Linear(f, game.players)

        def forward(self, x):
            x = x.flatten(1)
            return self.policy(x), torch.tanh(self.value(x))

    class MaskedLinearNet(LinearNet):
        def forward(self, x, legal_mask):
            logits, values = super().forward(x)
            return logits.masked_fill(~legal_mask, -1e9), values


@pytest.fixture(scope="module")
def torch_mod():
    if torch is None:
        pytest.skip(
            "torch is not installed: CI does not install it because the default wheel brings "
            "several GB of CUDA libraries (the ONNX adapter is tested instead)"
        )
    return torch


def linear_net(torch, game, mask=False):
    torch.manual_seed(0)
    return (MaskedLinearNet if mask else LinearNet)(game).eval()


def torch_weights(net):
    return {
        "Wp": net.policy.weight.detach().numpy().T,
        "bp": net.policy.bias.detach().numpy(),
        "Wv": net.value.weight.detach().numpy().T,
        "bv": net.value.bias.detach().numpy(),
    }


@pytest.mark.parametrize("mask", [False, True], ids=["obs", "obs+mask"])
def test_torch_outputs_match_numpy(torch_mod, mask):
    for game in GAMES:
        net = linear_net(torch_mod, game, mask)
        fn = evaluators.torch(net, game=game)
        assert fn.with_mask is mask
        o, m = batch(game, n=4)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no warning about the read-only buffers
            logits, values = fn(o, m)
        assert logits.dtype == np.float32 and values.shape == (4, game.players)
        want_logits, want_values = expected(torch_weights(net), o, m if mask else None)
        np.testing.assert_allclose(logits, want_logits, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(values, want_values, rtol=1e-4, atol=1e-5)


def test_torch_pickles_and_checks(torch_mod):
    game = pv.Fish()
    fn = evaluators.torch(linear_net(torch_mod, game), game=game)
    o, m = batch(game)
    copy = pickle.loads(pickle.dumps(fn))
    assert np.array_equal(copy(o, m)[0], fn(o, m)[0])
    o3, m3 = batch(pv.Fish(players=3))
    with pytest.raises(ValueError, match="made for Fish"):
        fn(o3, m3)
    single = evaluators.torch(lambda x: x.flatten(1))
    with pytest.raises(ValueError, match="expected a pair"):
        single(o, m)
    wrong = evaluators.torch(lambda x: (x.flatten(1), x[:, 0, 0, :3]), game=game)
    with pytest.raises(ValueError, match=r"policy logits of shape \(5, 896\)"):
        wrong(o, m)


@pytest.mark.parametrize("mask", [False, True], ids=["obs", "obs+mask"])
def test_export_onnx(torch_mod, onnx_mod, tmp_path, mask):
    game = pv.Fish(players=3)
    net = linear_net(torch_mod, game, mask)
    path = tmp_path / "exported.onnx"
    fn = evaluators.export_onnx(net, game, path)
    assert path.exists() and isinstance(fn, evaluators.OnnxEvaluator)
    assert [p.name for p in fn.inputs] == ["observations", "legal_mask"][: 1 + mask]
    o, m = batch(game, n=9)  # another batch size than the export's
    want = evaluators.torch(net)(o, m)
    got = evaluators.onnx(path, game=game)(o, m)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-4, atol=1e-5)
