"""Ray (``pip install "pingvinas[ray]"``): joining a cluster, streaming tasks, and evaluators
kept per worker or shared, for the matches (:mod:`pingvinas.playing.match`) and the self-play
(:mod:`pingvinas.learn.selfplay`) that run on a cluster.

Nothing here but :func:`init` is needed directly: ``pv.play_match(..., backend="ray")`` and
``pv.selfplay(..., backend="ray")`` use it. Both give the same results as the local backend
for the same seed, game for game (every game is dealt and searched from seeds derived from its
index alone; with iteration or depth budgets, as locally).

Where Ray runs: ``address=None`` joins the Ray instance this process already started
(``ray.init``), else the cluster that ``RAY_ADDRESS`` names, else starts a local instance on
this machine's cores; ``address="auto"`` joins the cluster this machine belongs to (after
``ray start --head`` here, or ``ray start --address=...``), and ``"ray://host:10001"`` a remote
cluster through Ray Client. Every node needs pingvinas installed (the same version), and the
evaluator's packages (onnxruntime, torch).

Evaluators on Ray, two ways:

- **Per worker**: pass a picklable evaluator (``evaluators.onnx(path)`` keeps the model's bytes,
  so workers need no file), or ``evaluators.per_worker(factory)``, which each worker builds with
  a zero-argument ``factory`` (a model loaded from a path every node has, a torch module). Each
  worker process unpickles or builds it once and keeps it for the tasks it runs. Good for CPU
  models: every worker evaluates its own batches, and the cluster's cores all work.
- **One shared actor**: ``evaluator=evaluators.shared(factory, num_gpus=1)`` starts one Ray
  actor that holds the model (on the GPU) and answers every worker's batches, one batch at a
  time. Good when there is one GPU: the workers run the search and send their leaves (all of a
  worker's live games' leaves in one batch) to the GPU.
"""

from __future__ import annotations

import importlib
import inspect
import os
import threading
from typing import Any, Callable, Optional

import numpy as np

__all__ = ["PerWorker", "SharedEvaluator", "init", "shared_evaluator"]


def _ray() -> Any:
    try:
        return importlib.import_module("ray")
    except ImportError as e:
        raise ImportError(
            'backend="ray" needs ray, which is not installed: pip install "ray>=2.9" (the '
            'extra "ray")'
        ) from e


def init(address: Optional[str] = None) -> Any:
    """Joins or starts Ray (unless this process already did) and returns the ``ray`` module.

    :param address: ``None``: the cluster ``RAY_ADDRESS`` names, else a new local instance on
        every core of this machine (without the dashboard); ``"auto"``: the cluster this machine
        belongs to; ``"ray://host:10001"``: a remote cluster through Ray Client. When Ray is
        already initialised in this process, that connection is used whatever ``address`` says.
    """
    ray = _ray()
    if not ray.is_initialized():
        options: dict[str, Any] = dict(address=address, ignore_reinit_error=True)
        if address is None and not os.environ.get("RAY_ADDRESS"):
            options["include_dashboard"] = False  # a local instance: start quickly
        ray.init(**options)
    return ray


#: How many times a lost task (its worker killed, a node gone) is run again. Games and self-play
#: chunks are deterministic from their seeds, so a retry gives the same result.
TASK_RETRIES = 3


def _cluster_cpus(ray: Any) -> int:
    try:
        return max(1, int(ray.cluster_resources().get("CPU", 1)))
    except Exception:  # Ray Client may not answer; a guess is fine here
        return os.cpu_count() or 1


#: Seconds that a failed run waits for its other tasks to finish before it cancels them.
SETTLE_SECONDS = 30.0


def _stream(
    ray: Any,
    submit: Callable[[int], Any],
    count: int,
    window: int,
    done: Callable[[int, Any], None],
    more: Callable[[], bool] = lambda: True,
) -> None:
    """Runs tasks ``submit(0..count)``, at most ``window`` at once, and calls ``done(i, value)``
    as each finishes (in the order they finish); once ``more()`` is false no task is submitted
    any more, and those under way finish. On an error no task is submitted any more, the
    tasks under way are given :data:`SETTLE_SECONDS` to finish (each one that does is reported),
    the rest are cancelled, and the exception is raised; on Ctrl-C they are cancelled at once.
    (A cancel that meets a task's own reply can abort the driver, Ray's ``Tried to complete task
    that was not pending``: ray-project/ray#54846. A test's failing agent met it in CI.)"""
    pending: dict[Any, int] = {}
    following = 0
    try:
        while (following < count and more()) or pending:
            while following < count and len(pending) < window and more():
                pending[submit(following)] = following
                following += 1
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                done(pending.pop(ref), ray.get(ref))
    except BaseException as e:
        settle = SETTLE_SECONDS if isinstance(e, Exception) else 0.0
        # Report the tasks that finish meanwhile (a failed task raises again: skip it), then
        # cancel the rest.
        try:
            finished, _ = ray.wait(list(pending), num_returns=len(pending), timeout=settle)
        except Exception:
            finished = []
        for ref in finished:
            try:
                value = ray.get(ref, timeout=0)
            except Exception:
                pending.pop(ref)
                continue
            done(pending.pop(ref), value)
        for ref in pending:
            try:
                ray.cancel(ref, force=True)
            except Exception:  # already finished or gone
                pass
        raise


# --- objects kept by worker processes ----------------------------------------------------------

#: Per kind (``"agents"``, ``"evaluator"``): the id of the Ray object a worker process built or
#: unpickled last, and the result. The tasks of one run that land on the same worker share it:
#: one model load per worker, not per task. One entry per kind (a worker outlives runs).
_WORKER_CACHE: dict[str, tuple[str, Any]] = {}


def _cached(kind: str, box: Optional[list[Any]], build: Optional[Callable[[Any], Any]]) -> Any:
    """The object in ``[ObjectRef]`` (boxed, so that Ray passes the reference, whose id is the
    cache key, and not the value), passed through ``build`` once per worker process."""
    if box is None:
        return None
    ref = box[0]
    key = ref.hex()
    hit = _WORKER_CACHE.get(kind)
    if hit is None or hit[0] != key:
        value = _ray().get(ref)
        hit = (key, build(value) if build is not None else value)
        _WORKER_CACHE[kind] = hit
    return hit[1]


class PerWorker:
    """An evaluator built by a factory at its first call, in each process that calls it: its
    pickle holds only the factory. Made by
    :func:`pingvinas.searching.evaluators.per_worker`."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        if not callable(factory):
            raise TypeError(f"factory = {type(factory).__name__}: expected a callable")
        self.factory = factory
        self._lock = threading.Lock()
        self._evaluator: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {"factory": self.factory}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.factory = state["factory"]
        self._lock = threading.Lock()
        self._evaluator = None

    def __call__(self, observations: np.ndarray, legal_mask: np.ndarray) -> Any:
        evaluator = self._evaluator
        if evaluator is None:
            with self._lock:
                if self._evaluator is None:
                    self._evaluator = self.factory()
                evaluator = self._evaluator
        return evaluator(observations, legal_mask)

    def __repr__(self) -> str:
        what = getattr(self.factory, "__name__", None) or repr(self.factory)
        return f"evaluators.per_worker({what})"


# --- one evaluator for everyone -------------------------------------------------------------


class _EvaluatorActor:
    """The Ray actor of :func:`shared_evaluator`: holds one evaluator, answers batches."""

    def __init__(self, payload: Any, is_factory: bool) -> None:
        self.evaluator = payload() if is_factory else payload

    def evaluate(self, observations: np.ndarray, legal_mask: np.ndarray) -> tuple[Any, Any]:
        logits, values = self.evaluator(observations, legal_mask)
        return np.asarray(logits, dtype=np.float32), np.asarray(values, dtype=np.float32)


class SharedEvaluator:
    """An evaluator forwarding each batch to one Ray actor (made by
    :func:`pingvinas.searching.evaluators.shared`). Picklable within a Ray job (it holds the actor's
    handle), so it goes to workers like any evaluator; the actor lives while a copy does."""

    def __init__(self, actor: Any, description: str) -> None:
        self.actor = actor
        self.description = description

    def __call__(self, observations: np.ndarray, legal_mask: np.ndarray) -> tuple[Any, Any]:
        ray = _ray()
        # Copies: the search reuses its buffers (Ray serialises the arrays here anyway).
        ref = self.actor.evaluate.remote(np.array(observations), np.array(legal_mask))
        logits, values = ray.get(ref)
        return logits, values

    def __repr__(self) -> str:
        return f"evaluators.shared({self.description})"


def _is_factory(obj: Any) -> bool:
    """A callable that takes no argument (an evaluator takes two)."""
    try:
        params = inspect.signature(obj).parameters.values()
    except (TypeError, ValueError):
        return False
    required = [
        p
        for p in params
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    return not required


def shared_evaluator(
    evaluator: Any,
    *,
    num_gpus: float = 0,
    num_cpus: float = 0,
    factory: Optional[bool] = None,
    address: Optional[str] = None,
) -> SharedEvaluator:
    """Starts the actor of :func:`pingvinas.searching.evaluators.shared` (which documents it)."""
    if not callable(evaluator):
        raise TypeError(f"evaluator = {type(evaluator).__name__}: expected a callable")
    is_factory = _is_factory(evaluator) if factory is None else bool(factory)
    ray = init(address)
    actor_class = ray.remote(num_gpus=num_gpus, num_cpus=num_cpus)(_EvaluatorActor)
    actor = actor_class.remote(evaluator, is_factory)
    what = getattr(evaluator, "__name__", None) or repr(evaluator)
    return SharedEvaluator(actor, f"{what}, num_gpus={num_gpus}")
