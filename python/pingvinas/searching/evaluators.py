"""Ready evaluators for the PUCT search and self-play: ``fn(observations, legal_mask) ->
(policy_logits, values)``.

```pycon
>>> import numpy as np
>>> import pingvinas as pv
>>> from pingvinas import evaluators
>>> game = pv.Fish()
>>> fn = evaluators.uniform(game)
>>> state = game.new_state(seed=1)
>>> logits, values = fn(state.observation_tensor()[None], state.legal_action_mask()[None])
>>> logits.shape == (1, game.num_actions), values.shape == (1, game.players)
(True, True)

```

The protocol (what the search passes and expects):

- ``observations``: float32 ``(B, *game.observation_shape)``, each row the state's
  ``observation_tensor()`` (seen from the player to move); ``legal_mask``: bool
  ``(B, game.num_actions)``. Both are buffers the search reuses, passed read-only: an evaluator
  that keeps them must copy them.
- It returns ``policy_logits`` ``(B, num_actions)`` (illegal entries are ignored: the search
  takes a softmax over the legal ones) and ``values`` ``(B, players)``: ``values[b, k]`` is the
  expected final return, in ``[-1, 1]``, of seat ``k`` counted from the player to move (player
  ``(to_move + k) % players``), the seat order of the observation planes.

A net that pingvinas evaluates itself, with no Python per leaf: :func:`native` loads one
(a :class:`~pingvinas._core.Net` from a ``safetensors`` file; ``Net.random(game, [64, 64])``
makes one). It is called like any evaluator, and a search or self-play given one runs it in Rust
with the GIL released. :func:`native` also reads an :class:`~pingvinas._core.NnueNet`, an
evaluation-only net for alpha-beta (``NnueNet.random(game)`` makes one): ``pv.search(state,
"alphabeta", evaluator=net)`` takes its values as the position estimate.

The adapters, each an optional extra:

- :func:`onnx`: an ONNX model on onnxruntime (``pip install "pingvinas[onnx]"``). Picklable: it
  keeps the model's bytes and builds its session again after unpickling, so it can be shipped to
  other processes and to Ray workers.
- :func:`torch`: a ``torch.nn.Module`` (``pip install "pingvinas[torch]"``); picklable when the
  module is. :func:`export_onnx` writes such a module as an ONNX model that :func:`onnx` reads.
- :func:`per_worker`: an evaluator each process builds for itself from a factory (a model
  loaded on each Ray worker).
- :func:`shared`: one evaluator in one Ray actor (for example on the one GPU), called by every
  worker of a Ray run (``pip install "pingvinas[ray]"``; see :mod:`pingvinas.cluster`).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable, NamedTuple, Optional, Union

import numpy as np
import numpy.typing as npt

from .._args import is_int
from .._core import Net, NnueNet, load_net
from ..cluster import PerWorker, shared_evaluator
from ..games import Game
from .searcher import Evaluator

__all__ = [
    "LEARNED",
    "Evaluator",
    "Net",
    "NnueNet",
    "OnnxEvaluator",
    "PerWorker",
    "TorchEvaluator",
    "UniformEvaluator",
    "export_onnx",
    "learned",
    "native",
    "onnx",
    "per_worker",
    "shared",
    "torch",
    "uniform",
]

_Float32 = npt.NDArray[np.float32]


def _optional(module: str, extra: str, what: str) -> Any:
    """Imports an optional dependency, or raises an ImportError naming the extra."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(
            f"{what} needs {module}, which is not installed: pip install {module} "
            f'(the extra "{extra}")'
        ) from e


class _Facts(NamedTuple):
    """What an evaluator checks a batch against: the game's sizes."""

    name: str
    observation_shape: tuple[int, ...]
    num_actions: int
    players: int


def _facts(game: Game) -> _Facts:
    try:
        return _Facts(
            name=repr(game),
            observation_shape=tuple(int(d) for d in game.observation_shape),
            num_actions=int(game.num_actions),
            players=int(game.players),
        )
    except AttributeError as e:
        raise TypeError(
            f"game = {type(game).__name__}: expected a pingvinas game (pv.Fish(...), "
            "pv.Marathon(...)) with observation_shape, num_actions and players"
        ) from e


def _check_batch(
    who: str, facts: Optional[_Facts], observations: np.ndarray, legal_mask: np.ndarray
) -> None:
    """The inputs fit each other (and the game, when known)."""
    if observations.ndim < 1 or legal_mask.ndim != 2 or legal_mask.shape[0] != len(observations):
        raise ValueError(
            f"{who}: observations {observations.shape} and legal_mask {legal_mask.shape}: "
            "expected (B, *observation_shape) and (B, num_actions)"
        )
    if facts is not None and (
        observations.shape[1:] != facts.observation_shape
        or legal_mask.shape[1] != facts.num_actions
    ):
        raise ValueError(
            f"{who} was made for {facts.name}: observations (B, "
            f"{', '.join(map(str, facts.observation_shape))}) and legal_mask (B, "
            f"{facts.num_actions}), got {observations.shape} and {legal_mask.shape}"
        )


def _check_outputs(
    who: str, facts: Optional[_Facts], batch: int, num_actions: int, logits: Any, values: Any
) -> tuple[_Float32, _Float32]:
    """The outputs as float32 arrays of the right shapes, or a ValueError saying what is wrong."""
    try:
        logits = np.asarray(logits, dtype=np.float32)
        values = np.asarray(values, dtype=np.float32)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{who}: its outputs cannot be read as float32 arrays ({e})") from e
    if logits.shape != (batch, num_actions):
        raise ValueError(
            f"{who}: policy logits of shape {logits.shape}, expected ({batch}, {num_actions}) "
            "(batch, num_actions)"
        )
    players = facts.players if facts is not None else None
    if values.ndim != 2 or values.shape[0] != batch or (players and values.shape[1] != players):
        want = f"({batch}, {players})" if players else f"({batch}, players)"
        raise ValueError(f"{who}: values of shape {values.shape}, expected {want} (batch, players)")
    return logits, values


class UniformEvaluator:
    """Zero logits (a uniform prior over the legal moves) and zero values, for tests and
    benchmarks. Made by :func:`uniform`."""

    def __init__(self, game: Game) -> None:
        self.facts = _facts(game)

    def __call__(
        self, observations: np.ndarray, legal_mask: np.ndarray
    ) -> tuple[_Float32, _Float32]:
        batch = len(legal_mask)
        return (
            np.zeros((batch, self.facts.num_actions), dtype=np.float32),
            np.zeros((batch, self.facts.players), dtype=np.float32),
        )

    def __repr__(self) -> str:
        return f"evaluators.uniform({self.facts.name})"


def native(path: Union[str, os.PathLike[str]]) -> Union[Net, NnueNet]:
    """The net in the ``safetensors`` file at ``path``, evaluated by the engine: a
    :class:`~pingvinas._core.Net` (policy and value, for every search) or an
    :class:`~pingvinas._core.NnueNet` (value only, for alpha-beta, MCTS and ``auto``), as the
    file's header says.

    ```pycon
    >>> import pingvinas as pv
    >>> net = pv.evaluators.Net.random(pv.Fish(), [32], seed=1)
    >>> state = pv.Fish().new_state(seed=2)
    >>> pv.search(state, "puct", evaluator=net, iterations=16).move in state.legal_moves()
    True

    ```
    """
    return load_net(path)


#: The learned evaluation shipped in the package (``learned()``).
LEARNED = Path(__file__).parent.parent / "weights" / "fish-2p.safetensors"


@functools.lru_cache(maxsize=1)
def learned() -> NnueNet:
    """The learned evaluation for 2-player Fish on the standard board's sizes that ships in
    the package: an :class:`~pingvinas._core.NnueNet` reading the hand-written evaluation's
    terms (a small dense layer over them, on top of that evaluation's estimate), for
    ``alphabeta`` (the agent spec ``"learned"``), and what ``"auto"`` searches with on standard
    2-player Fish (the engine holds the same file). The same net every call.
    ``docs/training.md`` gives the command that makes it and how it plays.

    ```pycon
    >>> import pingvinas as pv
    >>> state = pv.Fish().new_state(seed=2)
    >>> net = pv.evaluators.learned()
    >>> pv.search(state, "alphabeta", evaluator=net, depth=2).move in state.legal_moves()
    True

    ```
    """
    net = load_net(LEARNED)
    assert isinstance(net, NnueNet)
    return net


def uniform(game: Game) -> UniformEvaluator:
    """An evaluator giving zero logits and zero values for every position of ``game``: PUCT with
    it spreads its visits by the exploration term alone."""
    return UniformEvaluator(game)


# --- ONNX -------------------------------------------------------------------------------------

#: onnxruntime's element types that the adapter can feed, and the numpy type of each.
_ORT_TYPES: dict[str, type[np.generic]] = {
    "tensor(float)": np.float32,
    "tensor(float16)": np.float16,
    "tensor(double)": np.float64,
    "tensor(bool)": np.bool_,
    "tensor(int64)": np.int64,
    "tensor(int32)": np.int32,
    "tensor(uint8)": np.uint8,
    "tensor(int8)": np.int8,
}


def _dims(shape: Sequence[Any]) -> str:
    """A model's tensor shape as text: static dims as numbers, dynamic ones by name or ``?``."""
    return "(" + ", ".join(str(d) if isinstance(d, int) else (d or "?") for d in shape) + ")"


def _fits(shape: Sequence[Any], want: Sequence[Any]) -> bool:
    """A model's tensor shape can take ``want``: the same rank, and every static dim equal
    (a ``want`` that is not an int, such as ``"B"`` or ``None``, takes any dim)."""
    return len(shape) == len(want) and all(
        not isinstance(d, int) or not isinstance(w, int) or d == w for d, w in zip(shape, want)
    )


class _Port(NamedTuple):
    """One input or output of a model: its name, shape (ints where static) and element type."""

    name: str
    shape: tuple[Any, ...]
    type: str


class OnnxEvaluator:
    """An ONNX model as an evaluator, on onnxruntime. Made by :func:`onnx`, which documents the
    model it expects.

    It keeps the model's bytes (not its path), so that a pickled copy, for example on a Ray
    worker of another machine, needs no file; the onnxruntime session is built again, lazily, in
    the process that unpickles it. One session serves concurrent calls (onnxruntime's ``run``
    is thread-safe).
    """

    def __init__(
        self,
        model: Union[str, os.PathLike[str], bytes, Any],
        *,
        providers: Optional[Sequence[Any]] = None,
        threads: Optional[int] = None,
        game: Optional[Game] = None,
    ) -> None:
        if isinstance(model, (bytes, bytearray, memoryview)):
            self.model_bytes, self.source = bytes(model), f"<{len(model)} bytes>"
        elif hasattr(model, "SerializeToString"):  # an onnx.ModelProto
            self.model_bytes, self.source = model.SerializeToString(), "<onnx.ModelProto>"
        elif isinstance(model, (str, os.PathLike)):
            path = os.fspath(model)
            try:
                with open(path, "rb") as f:
                    self.model_bytes = f.read()
            except OSError as e:
                raise ValueError(f"cannot read the ONNX model {path!r}: {e}") from e
            self.source = path
        else:
            raise TypeError(
                f"model = {type(model).__name__}: expected a path, the model's bytes or an "
                "onnx.ModelProto"
            )
        if threads is not None and (not is_int(threads) or threads < 1):
            raise ValueError(f"threads = {threads!r}: expected a positive int or None")
        self.providers = list(providers) if providers is not None else None
        self.threads = threads
        self.facts = None if game is None else _facts(game)
        self._lock = threading.Lock()
        self._session: Any = None
        session = self._get_session()
        self.inputs = [_Port(i.name, tuple(i.shape), i.type) for i in session.get_inputs()]
        self.outputs = [_Port(o.name, tuple(o.shape), o.type) for o in session.get_outputs()]
        self._check_model()

    # The session is not picklable: a copy keeps the bytes and builds its own.
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["_lock"], state["_session"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
        self._session = None

    def _get_session(self) -> Any:
        session = self._session
        if session is not None:
            return session
        with self._lock:
            if self._session is None:
                ort = _optional("onnxruntime", "onnx", "pingvinas.evaluators.onnx")
                options = ort.SessionOptions()
                if self.threads is not None:
                    options.intra_op_num_threads = self.threads
                    options.inter_op_num_threads = 1
                providers = self.providers
                if providers is None:
                    providers = ort.get_available_providers()
                try:
                    self._session = ort.InferenceSession(
                        self.model_bytes, sess_options=options, providers=providers
                    )
                except Exception as e:
                    # onnxruntime raises its own exception types for unreadable models.
                    raise ValueError(f"onnxruntime cannot load {self.source}: {e}") from e
            return self._session

    def _fail(self, message: str) -> ValueError:
        return ValueError(f"ONNX model {self.source}: {message}")

    def _signature(self) -> str:
        ins = ", ".join(f"{p.name} {_dims(p.shape)} {p.type}" for p in self.inputs)
        outs = ", ".join(f"{p.name} {_dims(p.shape)} {p.type}" for p in self.outputs)
        return f"inputs [{ins}], outputs [{outs}]"

    def _check_model(self) -> None:
        """The model has the evaluator's inputs and outputs (and the game's sizes, if known):
        a ValueError names each mismatch, what the game needs and what the model has."""
        facts = self.facts
        if facts is None:
            game, obs_want, actions, players = "an evaluator", "(B, C, H, W)", "num_actions", "P"
        else:
            game = f"{facts.name}"
            obs_want = _dims(("B", *facts.observation_shape))
            actions, players = str(facts.num_actions), str(facts.players)
        expected = (
            f"{game} needs one input, observations {obs_want} float (optionally a second, the "
            f"legal mask (B, {actions})), and two outputs in this order, policy logits "
            f"(B, {actions}) and values (B, {players})"
        )
        problems = []
        if not 1 <= len(self.inputs) <= 2:
            problems.append(f"{len(self.inputs)} inputs")
        if len(self.outputs) != 2:
            problems.append(f"{len(self.outputs)} outputs")
        for port in self.inputs + self.outputs:
            if port.type not in _ORT_TYPES:
                problems.append(f"{port.name} has element type {port.type}")
        if not problems:
            obs, policy, values = self.inputs[0], self.outputs[0], self.outputs[1]
            mask = self.inputs[1] if len(self.inputs) == 2 else None
            if obs.type not in ("tensor(float)", "tensor(float16)", "tensor(double)"):
                problems.append(f"the observations input is {obs.type}, not float")
            if facts is not None and not _fits(obs.shape, ("B", *facts.observation_shape)):
                problems.append(f"the observations input is {_dims(obs.shape)}")
            if mask is not None and not _fits(mask.shape, ("B", facts and facts.num_actions)):
                problems.append(f"the legal mask input is {_dims(mask.shape)}")
            if facts is not None and (
                _fits(policy.shape, ("B", facts.players))
                and _fits(values.shape, ("B", facts.num_actions))
                and facts.players != facts.num_actions
            ):
                problems.append("its outputs come in the other order (values first)")
            else:
                if not _fits(policy.shape, ("B", facts and facts.num_actions)):
                    problems.append(f"the policy output is {_dims(policy.shape)}")
                if not _fits(values.shape, ("B", facts and facts.players)):
                    problems.append(f"the values output is {_dims(values.shape)}")
        if problems:
            raise self._fail(
                f"{'; '.join(problems)}. {expected}. The model has {self._signature()}"
            )

    def __call__(
        self, observations: np.ndarray, legal_mask: np.ndarray
    ) -> tuple[_Float32, _Float32]:
        who = f"ONNX model {self.source}"
        _check_batch(who, self.facts, observations, legal_mask)
        obs = self.inputs[0]
        if len(observations.shape) != len(obs.shape) or any(
            isinstance(d, int) and d != got for d, got in zip(obs.shape, observations.shape)
        ):
            fixed = isinstance(obs.shape[0], int) and obs.shape[0] != len(observations)
            hint = "; its batch size is fixed: export it with a dynamic batch axis" if fixed else ""
            raise self._fail(
                f"it takes observations {_dims(obs.shape)}, got {observations.shape}{hint}"
            )
        feed = {obs.name: np.ascontiguousarray(observations, dtype=_ORT_TYPES[obs.type])}
        if len(self.inputs) == 2:
            mask = self.inputs[1]
            feed[mask.name] = np.ascontiguousarray(legal_mask, dtype=_ORT_TYPES[mask.type])
        logits, values = self._get_session().run(None, feed)
        return _check_outputs(
            who, self.facts, len(observations), legal_mask.shape[1], logits, values
        )

    def __repr__(self) -> str:
        return f"evaluators.onnx({self.source!r})"


def onnx(
    path: Union[str, os.PathLike[str], bytes, Any],
    *,
    providers: Optional[Sequence[Any]] = None,
    threads: Optional[int] = None,
    game: Optional[Game] = None,
) -> OnnxEvaluator:
    """An evaluator running an ONNX model on onnxruntime (``pip install "pingvinas[onnx]"``).

    The model takes one input (named anything): the observations, float ``(B, C, H, W)`` with
    a dynamic batch axis; if it has a second input, that one receives the legal mask
    ``(B, num_actions)`` (bool, or cast to the input's type). It gives two outputs, in this
    order: policy logits ``(B, num_actions)`` and values ``(B, players)`` (seat ``k`` counted
    from the player to move). :func:`export_onnx` writes a torch module in this form.

    :param path: the ``.onnx`` file (or the model's bytes, or an ``onnx.ModelProto``). The
        evaluator keeps the bytes, so its pickled copies need no file.
    :param providers: onnxruntime execution providers, for example ``["CUDAExecutionProvider",
        "CPUExecutionProvider"]``; default: every provider this onnxruntime build has, in its
        order of preference.
    :param threads: onnxruntime's intra-op threads (default: onnxruntime's choice, all cores).
        With several evaluators or Ray workers on one machine, 1 each is usually best.
    :param game: check the model against this game's sizes now (observation shape, number of
        actions, players) and every batch against them, with errors that say what was expected.
    :raises ImportError: onnxruntime is not installed.
    :raises ValueError: the model cannot be read, or its inputs and outputs do not fit.
    """
    return OnnxEvaluator(path, providers=providers, threads=threads, game=game)


# --- torch ------------------------------------------------------------------------------------


def _takes_mask(module: Any) -> bool:
    """Whether ``module``'s forward takes a second positional argument (the legal mask)."""
    try:
        params = inspect.signature(module.forward if hasattr(module, "forward") else module)
    except (TypeError, ValueError):
        return False
    positional = [
        p
        for p in params.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    return len(positional) >= 2


def _from_numpy(torch: Any, array: np.ndarray) -> Any:
    """``torch.from_numpy`` without a copy, also for the read-only buffers the search passes
    (torch warns about those; the evaluator never writes to them)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*not writable.*", category=UserWarning)
        return torch.from_numpy(array)


class TorchEvaluator:
    """A ``torch.nn.Module`` as an evaluator. Made by :func:`torch`, which documents it.
    Picklable when the module is (its pickle holds the module)."""

    def __init__(
        self,
        module: Any,
        *,
        device: Any = "cpu",
        game: Optional[Game] = None,
        with_mask: Optional[bool] = None,
    ) -> None:
        torch = _optional("torch", "torch", "pingvinas.evaluators.torch")
        if not isinstance(module, torch.nn.Module) and not callable(module):
            raise TypeError(f"module = {type(module).__name__}: expected a torch.nn.Module")
        self.device = str(torch.device(device))
        if isinstance(module, torch.nn.Module):
            module = module.to(self.device)
        self.module = module
        self.with_mask = _takes_mask(module) if with_mask is None else bool(with_mask)
        self.facts = None if game is None else _facts(game)

    def __call__(
        self, observations: np.ndarray, legal_mask: np.ndarray
    ) -> tuple[_Float32, _Float32]:
        who = f"torch module {type(self.module).__name__}"
        _check_batch(who, self.facts, observations, legal_mask)
        torch = _optional("torch", "torch", "pingvinas.evaluators.torch")
        with torch.inference_mode():
            x = _from_numpy(torch, np.ascontiguousarray(observations, dtype=np.float32))
            args = [x.to(self.device, non_blocking=True)]
            if self.with_mask:
                m = _from_numpy(torch, np.ascontiguousarray(legal_mask, dtype=np.bool_))
                args.append(m.to(self.device, non_blocking=True))
            out = self.module(*args)
            if not isinstance(out, (tuple, list)) or len(out) != 2:
                raise ValueError(
                    f"{who}: it returned {type(out).__name__}, expected a pair "
                    "(policy_logits (B, num_actions), values (B, players))"
                )
            logits, values = (t.detach().to("cpu", torch.float32).numpy() for t in out)
        return _check_outputs(
            who, self.facts, len(observations), legal_mask.shape[1], logits, values
        )

    def __repr__(self) -> str:
        return f"evaluators.torch({type(self.module).__name__}, device={self.device!r})"


def torch(
    module: Any,
    *,
    device: Any = "cpu",
    game: Optional[Game] = None,
    with_mask: Optional[bool] = None,
) -> TorchEvaluator:
    """An evaluator running a torch module (``pip install "pingvinas[torch]"``).

    ``module(observations)`` (or ``module(observations, legal_mask)``: see ``with_mask``) takes
    a float32 tensor ``(B, *game.observation_shape)`` and returns a pair of tensors, policy
    logits ``(B, num_actions)`` and values ``(B, players)``. Each call runs under
    ``torch.inference_mode()``; on the CPU the observations reach the module without a copy.

    .. warning:: The evaluator does not change the module's mode: call ``module.eval()`` first
       when it has dropout or batch norm, and ``module.train()`` again before training it.

    :param device: where the module runs (``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``); the
        module is moved there (``module.to(device)``, in place), and each batch too.
    :param game: check every batch against this game's sizes, with errors that say what was
        expected.
    :param with_mask: pass the legal mask (a bool tensor) as a second argument; default: when
        the module's ``forward`` takes two positional arguments.
    :raises ImportError: torch is not installed.
    """
    return TorchEvaluator(module, device=device, game=game, with_mask=with_mask)


def export_onnx(
    module: Any,
    game: Game,
    path: Union[str, os.PathLike[str]],
    *,
    with_mask: Optional[bool] = None,
    opset: Optional[int] = None,
) -> OnnxEvaluator:
    """Writes a torch module as an ONNX model that :func:`onnx` reads: input ``observations``
    ``(B, *game.observation_shape)`` (and ``legal_mask`` ``(B, num_actions)`` bool when the
    module takes it) with a dynamic batch axis, outputs ``policy_logits`` and ``values``.

    The module is exported as it is (call ``module.eval()`` first when it has dropout or batch
    norm). Returns the model as an :class:`OnnxEvaluator`, checked against ``game``.

    :param with_mask: as for :func:`torch`.
    :param opset: the ONNX opset version (default: the exporter's).
    :raises ImportError: torch or onnxruntime is not installed.
    """
    torch_ = _optional("torch", "torch", "pingvinas.evaluators.export_onnx")
    _optional("onnxruntime", "onnx", "pingvinas.evaluators.export_onnx")
    facts = _facts(game)
    mask = _takes_mask(module) if with_mask is None else bool(with_mask)
    try:
        device = next(module.parameters()).device
    except (StopIteration, AttributeError):
        device = torch_.device("cpu")
    batch = 2  # not 1, which exporters may treat as a constant
    args: tuple[Any, ...] = (torch_.zeros((batch, *facts.observation_shape), device=device),)
    names = ["observations"]
    if mask:
        args += (torch_.ones((batch, facts.num_actions), dtype=torch_.bool, device=device),)
        names.append("legal_mask")
    outputs = ["policy_logits", "values"]
    dynamic_axes = {name: {0: "batch"} for name in names + outputs}
    kwargs: dict[str, Any] = dict(
        input_names=names, output_names=outputs, dynamic_axes=dynamic_axes
    )
    if opset is not None:
        kwargs["opset_version"] = opset
    params = inspect.signature(torch_.onnx.export).parameters
    if "dynamo" in params:
        # torch >= 2.5: the legacy TorchScript exporter, which needs no onnxscript; one file
        # (no external data), so the model travels as bytes.
        kwargs["dynamo"] = False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch_.onnx.export(module, args, os.fspath(path), **kwargs)
    return OnnxEvaluator(path, game=game)


def per_worker(factory: Callable[[], Any]) -> PerWorker:
    """An evaluator that each process builds for itself: ``factory()`` (no arguments) is called
    at the first evaluation in a process, and its pickle carries only the factory. On Ray
    (``pv.selfplay(..., evaluator=evaluators.per_worker(factory), backend="ray")``) every worker
    process builds it once and keeps it for all its tasks: for a model loaded from a path every
    node has, or a torch module built on the worker (its own device, its own threads).

    ```pycon
    >>> import pingvinas as pv
    >>> from pingvinas import evaluators
    >>> fn = evaluators.per_worker(lambda: evaluators.uniform(pv.Fish()))
    >>> s = pv.Fish().new_state(seed=1)
    >>> fn(s.observation_tensor()[None], s.legal_action_mask()[None])[0].shape
    (1, 2752)

    ```
    """
    return PerWorker(factory)


def shared(
    evaluator: Union[Evaluator, Callable[[], Evaluator]],
    *,
    num_gpus: float = 0,
    num_cpus: float = 0,
    factory: Optional[bool] = None,
    address: Optional[str] = None,
) -> Evaluator:
    """One evaluator in one Ray actor, shared by every worker of a Ray run: for a single GPU,
    or a model too big to load in every worker. Returns a picklable evaluator that forwards each
    batch to the actor and waits for its answer (``pip install "pingvinas[ray]"``; starts or
    joins Ray as :func:`pingvinas.cluster.init` does). See :mod:`pingvinas.cluster`.

    :param evaluator: an evaluator (picklable: it is sent to the actor), or a zero-argument
        factory that the actor calls once to build it (for example one that loads a model onto
        the GPU there).
    :param num_gpus: GPUs the actor reserves (``1`` for a GPU evaluator).
    :param num_cpus: CPUs the actor reserves (default none: a worker waiting for the actor's
        answer leaves its own CPU idle meanwhile; reserve some for a busy CPU model).
    :param factory: whether ``evaluator`` is a factory; default: a plain function or class
        taking no argument is taken as one (evaluators take two).
    :param address: where Ray runs, as for :func:`pingvinas.cluster.init`.
    :raises ImportError: ray is not installed.

    ```pycon
    >>> from pingvinas import evaluators
    >>> fn = evaluators.shared(lambda: evaluators.onnx("net.onnx"), num_gpus=1)  # doctest: +SKIP
    >>> pv.selfplay(game, games=1000, evaluator=fn, backend="ray")  # doctest: +SKIP

    ```
    """
    return shared_evaluator(
        evaluator, num_gpus=num_gpus, num_cpus=num_cpus, factory=factory, address=address
    )
