"""Matches and self-play on a Ray cluster (``pip install "pingvinas[ray]"``).

Nothing here is needed directly: ``pv.play_match(..., backend="ray")`` and
``pv.selfplay(..., backend="ray")`` call it. Both give the same results as the local backend
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
import math
import os
import threading
from collections.abc import Sequence
from typing import Any, Callable, Optional

import numpy as np

from ._args import is_int
from ._play import Playable, play_one
from ._progress import Progress
from .games import Game
from .samples import SelfPlayData, selfplay_local
from .samples import _game_indices as samples_game_indices

__all__ = ["PerWorker", "SharedEvaluator", "init", "play_games", "selfplay_ray", "shared_evaluator"]


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
) -> None:
    """Runs tasks ``submit(0..count)``, at most ``window`` at once, and calls ``done(i, value)``
    as each finishes (in the order they finish). On an error no task is submitted any more, the
    tasks under way are given :data:`SETTLE_SECONDS` to finish (each one that does is reported),
    the rest are cancelled, and the exception is raised; on Ctrl-C they are cancelled at once.
    (A cancel that meets a task's own reply can abort the driver, Ray's ``Tried to complete task
    that was not pending``: ray-project/ray#54846. A test's failing agent met it in CI.)"""
    pending: dict[Any, int] = {}
    following = 0
    try:
        while following < count or pending:
            while following < count and len(pending) < window:
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


def _task_cpus(agents: Sequence[Any]) -> int:
    """CPUs one game reserves: the most search threads any of its agents uses."""
    threads = [1]
    for agent in agents:
        options = getattr(agent, "options", None)
        if isinstance(options, dict):
            t = options.get("threads", 1)
            if is_int(t):
                threads.append(t)
    return max(threads)


def _play_game(
    game: Playable,
    agents_box: list[Any],
    seats: list[int],
    index: int,
    seed: int,
    deal: int,
    max_moves: Optional[int],
    names: Optional[list[str]],
) -> Any:
    """A Ray task: one game of a match, exactly as the local backend plays it (the agents
    spawn fresh copies for each game, as locally; a worker unpickles them once per match)."""
    return play_one(
        game, _cached("agents", agents_box, None), seats, index, seed, deal, max_moves, names
    )


def play_games(
    game: Playable,
    agents: Sequence[Any],
    jobs: Sequence[tuple[list[int], int, int]],
    *,
    seed: int,
    max_moves: Optional[int],
    names: Optional[list[str]],
    address: Optional[str] = None,
    workers: Optional[int] = None,
    on_record: Optional[Callable[[int, Any], None]] = None,
) -> list[Any]:
    """Plays a match's games as Ray tasks, one task per game, and returns their
    :class:`~pingvinas.match.GameRecord` in game order (``play_match`` calls this).

    A game is played from its seeds alone, so a task lost with its worker (killed, out of
    memory, a node gone) is run again, up to :data:`TASK_RETRIES` times; an error raised by
    an agent is not retried (it would only fail again) and ends the match, after the games
    finished so far have been reported.

    :param jobs: ``(seats, index, deal)`` per game, as ``play_match`` deals them.
    :param workers: the most games in flight at once (default: twice the cluster's CPUs).
    :param on_record: called with ``(k, record)`` as game ``jobs[k]`` finishes, in this process
        (``play_match`` saves it and moves the progress bar).
    """
    ray = init(address)
    # Put once, shared by every task (not serialised again per game).
    game_ref, agents_box = ray.put(game), [ray.put(list(agents))]
    task = ray.remote(_play_game).options(
        num_cpus=_task_cpus(agents), max_retries=TASK_RETRIES, retry_exceptions=False
    )
    window = workers if workers is not None else 2 * _cluster_cpus(ray)
    records: list[Any] = [None] * len(jobs)

    def submit(i: int) -> Any:
        seats, index, deal = jobs[i]
        return task.remote(game_ref, agents_box, seats, index, seed, deal, max_moves, names)

    def done(i: int, record: Any) -> None:
        records[i] = record
        if on_record is not None:
            on_record(i, record)

    _stream(ray, submit, len(jobs), window, done)
    return records


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


def _worker_evaluator(box: Optional[list[Any]]) -> Any:
    """A self-play task's evaluator, unpickled once per worker (an ``evaluators.per_worker``
    one then builds its model once per worker too)."""
    return _cached("evaluator", box, None)


def _selfplay_chunk(
    game: Game,
    indices: list[int],
    box: Optional[list[Any]],
    threads: int,
    kwargs: dict[str, Any],
) -> SelfPlayData:
    """A Ray task: self-play of some game indices, with the local backend."""
    return selfplay_local(
        game,
        games=indices,
        evaluator=_worker_evaluator(box),
        threads=threads,
        progress=False,
        **kwargs,
    )


def _game_indices(games: Any) -> list[int]:
    """``pv.selfplay``'s game indices (checked there), sorted; at least one."""
    indices = sorted(samples_game_indices(games).tolist())
    if not indices:
        raise ValueError("games: no game indices given")
    return indices


def selfplay_ray(
    game: Game,
    games: Any,
    *,
    address: Optional[str] = None,
    evaluator: Any = None,
    evaluator_factory: Optional[Callable[[], Any]] = None,
    threads: int = 1,
    games_per_task: Optional[int] = None,
    progress: bool = False,
    **kwargs: Any,
) -> SelfPlayData:
    """Self-play on Ray: ``pv.selfplay(game, ..., backend="ray")`` calls this.

    The game indices (sorted) are split into runs of ``games_per_task``; each run is a Ray task
    calling ``pv.selfplay(game, games=run, backend="local", ...)`` with the same settings, and
    the parts are joined in game-id order (``SelfPlayData.concatenate``): the same samples as
    ``backend="local"``, whatever the split.

    :param games: an int ``n`` (indices ``0..n``) or a sequence of game indices.
    :param address: where Ray runs (see :func:`init`).
    :param evaluator: a picklable evaluator (``evaluators.onnx(path)``,
        ``evaluators.shared(...)``); sent once, and unpickled once per worker process.
    :param evaluator_factory: instead of ``evaluator``, a zero-argument callable that builds
        the evaluator, called once per worker process (for a model loaded from a path every
        node has, or a torch module built there): the same as
        ``evaluator=evaluators.per_worker(evaluator_factory)``, which ``pv.selfplay`` takes.
    :param threads: ``pv.selfplay``'s threads per task; each task reserves that many CPUs.
    :param games_per_task: games per task (default: the games spread over twice the cluster's
        CPUs). Larger tasks batch more leaves per evaluator call; smaller ones balance better.
    :param progress: a progress bar of finished games on stderr.
    :param kwargs: every other ``pv.selfplay`` setting (``simulations``, ``seed``,
        ``temperature``, ...), passed to each task unchanged.
    :returns: the ``SelfPlayData`` of all the games, in game-id order.
    """
    if evaluator is not None and evaluator_factory is not None:
        raise ValueError("give an evaluator or an evaluator_factory, not both")
    if evaluator_factory is not None and not callable(evaluator_factory):
        raise TypeError("evaluator_factory must be a callable taking no arguments")
    if not is_int(threads) or threads < 1:
        raise ValueError(f"threads = {threads!r}: expected a positive int")
    if games_per_task is not None and (not is_int(games_per_task) or games_per_task < 1):
        raise ValueError(f"games_per_task = {games_per_task!r}: expected a positive int")
    kwargs.pop("backend", None)  # the tasks run the local backend
    indices = _game_indices(games)
    ray = init(address)
    if games_per_task is None:
        games_per_task = max(1, math.ceil(len(indices) / (2 * _cluster_cpus(ray))))
    runs = [indices[i : i + games_per_task] for i in range(0, len(indices), games_per_task)]
    if evaluator_factory is not None:
        evaluator = PerWorker(evaluator_factory)
    box = None if evaluator is None else [ray.put(evaluator)]
    task = ray.remote(_selfplay_chunk).options(
        num_cpus=threads, max_retries=TASK_RETRIES, retry_exceptions=False
    )
    game_ref = ray.put(game)
    parts: list[Any] = [None] * len(runs)
    bar = Progress(len(indices), progress)

    def submit(i: int) -> Any:
        return task.remote(game_ref, runs[i], box, threads, kwargs)

    def done(i: int, part: Any) -> None:
        parts[i] = part
        bar.tick(len(runs[i]))

    _stream(ray, submit, len(runs), len(runs), done)
    return SelfPlayData.concatenate(parts)


class PerWorker:
    """An evaluator built by a factory at its first call, in each process that calls it: its
    pickle holds only the factory. Made by
    :func:`pingvinas.evaluators.per_worker`."""

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
    :func:`pingvinas.evaluators.shared`). Picklable within a Ray job (it holds the actor's
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
    """Starts the actor of :func:`pingvinas.evaluators.shared` (which documents it)."""
    if not callable(evaluator):
        raise TypeError(f"evaluator = {type(evaluator).__name__}: expected a callable")
    is_factory = _is_factory(evaluator) if factory is None else bool(factory)
    ray = init(address)
    actor_class = ray.remote(num_gpus=num_gpus, num_cpus=num_cpus)(_EvaluatorActor)
    actor = actor_class.remote(evaluator, is_factory)
    what = getattr(evaluator, "__name__", None) or repr(evaluator)
    return SharedEvaluator(actor, f"{what}, num_gpus={num_gpus}")
