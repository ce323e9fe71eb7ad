"""Native nets from the weights of any framework, and back: numpy arrays, a JAX/flax parameter
pytree, a torch ``state_dict``.

A :class:`~pingvinas._core.Net` (architecture ``pingvinas-mlp`` 1) is dense ReLU trunk layers
over the flattened observation (planes, then rows, then columns), a policy head of one logit per
action and a ``tanh`` value head of one value per seat counted from the player to move. The
helpers here check the shapes, naming the layer that does not fit, and hand the arrays to the
engine (:meth:`Net.from_arrays`), which checks them again and alone reads and writes the
``safetensors`` files (:meth:`Net.load`, :meth:`Net.save`): one file format, one reader.

```pycon
>>> import numpy as np
>>> import pingvinas as pv
>>> from pingvinas import nets
>>> game = pv.Fish()
>>> rng = np.random.default_rng(0)
>>> inputs = int(np.prod(game.observation_shape))
>>> layer = lambda o, i: (rng.normal(0, 0.05, (o, i)), np.zeros(o))
>>> net = nets.from_numpy(game, [layer(32, inputs)], layer(game.num_actions, 32), layer(2, 32))
>>> net.hidden
[32]
>>> nets.from_numpy(game, **nets.to_numpy(net)).to_bytes() == net.to_bytes()
True

```
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional, TypedDict

import numpy as np

from .._core import Net
from ..games import Game

__all__ = ["Layer", "Weights", "from_flax", "from_jax", "from_numpy", "from_torch", "to_numpy"]

#: A dense layer: ``(weight, bias)``, ``weight`` of shape ``(outputs, inputs)`` (as
#: ``torch.nn.Linear`` stores it) and ``bias`` of shape ``(outputs,)``.
Layer = tuple[np.ndarray, np.ndarray]


class Weights(TypedDict):
    """A net's layers as numpy float32 arrays (:func:`to_numpy`, :func:`from_numpy`)."""

    trunk: list[Layer]
    policy: Layer
    value: Layer


def _array(x: Any, what: str) -> np.ndarray:
    """``x`` as a float32 numpy array: numpy, JAX and torch arrays (a torch tensor is detached
    and moved to the CPU first)."""
    if hasattr(x, "detach"):  # torch.Tensor, without importing torch
        x = x.detach().cpu().numpy()
    try:
        a = np.asarray(x, dtype=np.float32)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{what}: expected an array of numbers, got {type(x).__name__}") from e
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{what}: has a value that is not a finite number")
    return a


def _layer(layer: Any, name: str, inputs: int, outputs: Optional[int]) -> Layer:
    """A ``(weight, bias)`` pair checked against the inputs it must take (and the outputs it
    must give, for the heads)."""
    try:
        weight, bias = layer
    except (TypeError, ValueError) as e:
        raise TypeError(f"{name}: expected a (weight, bias) pair") from e
    w, b = _array(weight, f"{name} weight"), _array(bias, f"{name} bias")
    want = f"({'any' if outputs is None else outputs}, {inputs})"
    if w.ndim != 2 or w.shape[1] != inputs or (outputs is not None and w.shape[0] != outputs):
        raise ValueError(
            f"{name} weight has shape {tuple(w.shape)}, expected {want}: weights are "
            "(outputs, inputs)"
        )
    if b.shape != (w.shape[0],):
        raise ValueError(f"{name} bias has shape {tuple(b.shape)}, expected ({w.shape[0]},)")
    if w.shape[0] == 0:
        raise ValueError(f"{name} has no outputs")
    return w, b


def from_numpy(game: Game, trunk: Sequence[Any], policy: Any, value: Any) -> Net:
    """A net for ``game`` from its layers, each a ``(weight, bias)`` pair of arrays (numpy, or
    anything ``numpy.asarray`` reads) with ``weight`` of shape ``(outputs, inputs)``:

    - ``trunk``: one or more layers, each followed by a ReLU; the first takes
      ``prod(game.observation_shape)`` inputs (the flattened observation), each next one the
      outputs of the one before;
    - ``policy``: ``(game.num_actions, width)`` logits from the last trunk layer of ``width``;
    - ``value``: ``(game.players, width)``, through ``tanh``.

    :raises ValueError: a layer of the wrong shape (named: ``trunk[1] weight has shape ...``),
        or a value that is not finite.
    :raises TypeError: a layer that is not a pair of arrays.
    """
    if isinstance(trunk, (str, bytes)) or not isinstance(trunk, Sequence) or not trunk:
        raise ValueError("trunk: expected a list of one or more (weight, bias) layers")
    inputs = int(np.prod(game.observation_shape))
    layers = []
    for k, layer in enumerate(trunk):
        w, b = _layer(layer, f"trunk[{k}]", inputs, None)
        layers.append((w, b))
        inputs = w.shape[0]
    heads = [
        _layer(policy, "policy", inputs, game.num_actions),
        _layer(value, "value", inputs, game.players),
    ]
    return Net.from_arrays(game, layers, *heads)


def _dense(params: Any, name: str) -> Layer:
    """A flax ``Dense`` layer's ``{"kernel": (inputs, outputs), "bias": (outputs,)}`` as
    ``(weight, bias)`` in the engine's ``(outputs, inputs)`` order."""
    if not isinstance(params, Mapping) or "kernel" not in params or "bias" not in params:
        raise ValueError(f"{name}: expected a dense layer's {{'kernel', 'bias'}}")
    kernel = _array(params["kernel"], f"{name} kernel")
    if kernel.ndim != 2:
        raise ValueError(
            f"{name} kernel has shape {tuple(kernel.shape)}, expected (inputs, outputs)"
        )
    return kernel.T, _array(params["bias"], f"{name} bias")


def _numbered(keys: Sequence[str], prefix: str, sep: str) -> list[tuple[int, str]]:
    """The keys ``{prefix}{sep}{k}`` with their numbers ``k``, in numerical order."""
    out = []
    for key in keys:
        head, _, tail = key.partition(sep)
        if head == prefix and tail.isdigit():
            out.append((int(tail), key))
    return sorted(out)


def from_jax(game: Game, params: Mapping[str, Any]) -> Net:
    """A net for ``game`` from JAX/flax parameters: a pytree (nested mappings) of arrays with a
    dense layer ``{"kernel": (inputs, outputs), "bias": (outputs,)}`` (flax ``nn.Dense``'s
    layout) under each of the names ``trunk_0``, ``trunk_1``, ... (in number order, each followed
    by a ReLU), ``policy`` and ``value`` (``tanh``), optionally under a top-level ``"params"``,
    as ``module.init`` returns them. The flax module::

        class PolicyValue(nn.Module):
            hidden: Sequence[int]
            actions: int
            players: int

            @nn.compact
            def __call__(self, x):
                x = x.reshape((x.shape[0], -1))
                for k, width in enumerate(self.hidden):
                    x = nn.relu(nn.Dense(width, name=f"trunk_{k}")(x))
                policy = nn.Dense(self.actions, name="policy")(x)
                return policy, jnp.tanh(nn.Dense(self.players, name="value")(x))

    :raises ValueError: a missing or unexpected layer name, or a layer of the wrong shape.
    """
    if isinstance(params, Mapping) and set(params) == {"params"}:
        params = params["params"]
    if not isinstance(params, Mapping):
        raise TypeError(f"params: expected a mapping of layers, got {type(params).__name__}")
    trunk = _numbered(list(params), "trunk", "_")
    known = {key for _, key in trunk} | {"policy", "value"}
    unexpected = sorted(set(params) - known)
    if unexpected:
        raise ValueError(
            f"params: unexpected layer {unexpected[0]!r}: expected trunk_0, trunk_1, ..., "
            "policy and value"
        )
    if [k for k, _ in trunk] != list(range(len(trunk))):
        raise ValueError(
            f"params: trunk layers {[key for _, key in trunk]}: expected trunk_0, trunk_1, ..."
        )
    for head in ("policy", "value"):
        if head not in params:
            raise ValueError(f"params: no {head!r} layer")
    return from_numpy(
        game,
        [_dense(params[key], key) for _, key in trunk],
        _dense(params["policy"], "policy"),
        _dense(params["value"], "value"),
    )


#: :func:`from_jax` reads flax's parameters.
from_flax = from_jax


def from_torch(game: Game, state_dict: Mapping[str, Any]) -> Net:
    """A net for ``game`` from the ``state_dict()`` of a torch module of this layout::

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

    The trunk's ``Linear`` layers are taken in the order of their ``trunk.<k>`` numbers (the
    ``ReLU`` modules between them hold no tensors).

    :raises ValueError: a missing or unexpected tensor, or a layer of the wrong shape.
    """
    keys = list(state_dict)
    trunk: dict[int, dict[str, str]] = {}
    for key in keys:
        parts = key.split(".")
        if len(parts) == 2 and parts[0] in ("policy", "value") and parts[1] in ("weight", "bias"):
            continue
        if (
            len(parts) == 3
            and parts[0] == "trunk"
            and parts[1].isdigit()
            and parts[2]
            in (
                "weight",
                "bias",
            )
        ):
            trunk.setdefault(int(parts[1]), {})[parts[2]] = key
            continue
        raise ValueError(
            f"state_dict: unexpected tensor {key!r}: expected trunk.<k>.weight/bias, "
            "policy.weight/bias and value.weight/bias"
        )
    for k, pair in sorted(trunk.items()):
        for part in ("weight", "bias"):
            if part not in pair:
                raise ValueError(f"state_dict: no 'trunk.{k}.{part}'")
    for name in ("policy.weight", "policy.bias", "value.weight", "value.bias"):
        if name not in state_dict:
            raise ValueError(f"state_dict: no {name!r}")
    return from_numpy(
        game,
        [(state_dict[p["weight"]], state_dict[p["bias"]]) for _, p in sorted(trunk.items())],
        (state_dict["policy.weight"], state_dict["policy.bias"]),
        (state_dict["value.weight"], state_dict["value.bias"]),
    )


def to_numpy(net: Net) -> Weights:
    """A net's layers as float32 arrays, in :func:`from_numpy`'s layout (to train a net
    further, or to look at it): ``from_numpy(game, **to_numpy(net))`` is the same net."""
    arrays = net.arrays()
    return Weights(trunk=list(arrays["trunk"]), policy=arrays["policy"], value=arrays["value"])
