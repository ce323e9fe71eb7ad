"""Self-play: games played by the search against itself, at engine speed, as training samples
(:class:`SelfPlayData`). :func:`selfplay` plays them here (:func:`selfplay_local`) or as Ray
tasks (:func:`selfplay_ray`, each task running the local backend on some game indices).

With an evaluator, every live game's PUCT tree adds its leaves to one evaluator call per round
(so a network sees large batches); without one, plain MCTS with random playouts plays the
games on ``threads`` threads. Either way the games run in Rust and come back as numpy arrays.

```pycon
>>> import pingvinas as pv
>>> data = pv.selfplay(pv.Fish(), games=2, simulations=8, seed=1)
>>> len(data) == len(data.policies) == len(data.observations)
True
>>> sorted(set(data.game_ids.tolist()))
[0, 1]

```
"""

from __future__ import annotations

import math
import os
import stat
import struct
import zipfile
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import IO, Any, Callable, Optional, Union

import numpy as np

try:
    import lzma
except ImportError:  # a Python built without it (zipfile then reads no LZMA member either)
    lzma = None  # type: ignore[assignment]

from .._args import is_int, is_number
from .._core import selfplay as _engine_selfplay
from .._progress import Progress
from ..cluster import TASK_RETRIES, PerWorker, _cached, _cluster_cpus, _stream, init
from ..games import Game
from ..searching.searcher import Evaluator

__all__ = [
    "DEFAULTS",
    "MAX_GAMES",
    "MAX_LOAD_BYTES",
    "SelfPlayData",
    "SelfPlayDefaults",
    "selfplay",
    "selfplay_local",
    "selfplay_ray",
]


@dataclass(frozen=True)
class SelfPlayDefaults:
    """The defaults of the self-play settings, written once: :func:`selfplay` (which documents
    them) and :func:`selfplay_local` (which a Ray task of :func:`selfplay_ray` calls with only
    the settings its caller gave) both take theirs from :data:`DEFAULTS`. Settings that are off
    by default (``None``) are not listed."""

    games: int = 1
    simulations: int = 100
    temperature: float = 1.0
    dirichlet: Optional[tuple[float, float]] = (0.3, 0.25)
    batch_size: int = 8
    seed: int = 0
    threads: int = 1
    progress: bool = False
    root: str = "puct"


#: The one instance: ``simulations=DEFAULTS.simulations`` in both signatures.
DEFAULTS = SelfPlayDefaults()


#: What a damaged ``.npz`` file raises as it is read: zipfile's errors and its
#: decompressors' (bz2 raises ``OSError``).
_DAMAGED: tuple[type[BaseException], ...] = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    struct.error,
    OSError,
) + ((lzma.LZMAError,) if lzma is not None else ())

#: What :meth:`SelfPlayData.load` reads from one file by default: the arrays' bytes once read
#: (1 GiB; its ``max_bytes`` raises it).
MAX_LOAD_BYTES = 1 << 30

#: The dtype and number of dimensions of each array of :class:`SelfPlayData`.
_LAYOUT: dict[str, tuple[np.dtype[Any], int]] = {
    "observations": (np.dtype(np.float32), 4),
    "legal_masks": (np.dtype(np.bool_), 2),
    "policies": (np.dtype(np.float32), 2),
    "to_move": (np.dtype(np.int8), 1),
    "returns": (np.dtype(np.float32), 2),
    "game_ids": (np.dtype(np.int64), 1),
    "move_numbers": (np.dtype(np.int32), 1),
}


def _npz_name(path: Union[str, os.PathLike[str]]) -> str:
    """The file ``np.savez(path)`` wrote: ``path``, or ``path.npz`` when ``path`` has no such
    ending and no file of its own."""
    name = os.fspath(path)
    if not isinstance(name, str):
        raise TypeError(f"path must be a str or a path, got {type(name).__name__}")
    if not name.endswith(".npz") and not os.path.exists(name) and os.path.exists(name + ".npz"):
        return name + ".npz"
    return name


def _npy_header(f: IO[bytes]) -> tuple[tuple[int, ...], bool, np.dtype[Any]]:
    """The shape, Fortran order and dtype an ``.npy`` member's header declares."""
    fmt = np.lib.format
    version = fmt.read_magic(f)
    if version not in ((1, 0), (2, 0)):
        raise ValueError(f"an .npy format version {version} (expected 1.0 or 2.0)")
    reader = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
    try:
        return reader(f, max_header_size=10_000)  # type: ignore[call-arg,no-any-return,unused-ignore]
    except TypeError:  # numpy before 1.24 bounds the header itself
        return reader(f)  # type: ignore[no-any-return,unused-ignore]


#: The most bytes read from an array at once: reading a member whole would hold its
#: decompressed bytes twice (zipfile's copy, then the array).
_CHUNK = 1 << 20


def _member_header(
    z: zipfile.ZipFile, info: zipfile.ZipInfo, field: str, name: str
) -> tuple[tuple[int, ...], bool, np.dtype[Any]]:
    """The shape, Fortran order and dtype of the array ``field``, checked against what
    :class:`SelfPlayData` holds and against the member's size, before its data is read."""
    want, ndim = _LAYOUT[field]
    with z.open(info) as f:
        try:
            shape, fortran, dtype = _npy_header(f)
        except ValueError as e:
            raise ValueError(f"{name!r}: array {field}: {e}") from None
        start = f.tell()
    if dtype != want or len(shape) != ndim:
        raise ValueError(
            f"{name!r}: array {field} is {dtype} of shape {shape}, expected {want} "
            f"with {ndim} dimensions"
        )
    # The header must say what the member holds: numpy would allocate the shape first.
    if start + math.prod(shape) * dtype.itemsize != info.file_size:
        raise ValueError(
            f"{name!r}: array {field}: its shape {shape} does not match its "
            f"{info.file_size:,} bytes"
        )
    return shape, fortran, dtype


def _read_npz(z: zipfile.ZipFile, name: str, max_bytes: int) -> dict[str, np.ndarray]:
    """The arrays of :class:`SelfPlayData` from an open ``.npz`` file: every array's size,
    dtype and shape, and the shapes together, checked against what the file declares before a
    byte of data is decompressed."""
    members = {}
    for field in _LAYOUT:
        try:
            members[field] = z.getinfo(field + ".npy")
        except KeyError:
            missing = [f for f in _LAYOUT if f + ".npy" not in z.namelist()]
            raise ValueError(f"{name!r} is no self-play data: no {missing}") from None
    declared = sum(info.file_size for info in members.values())
    if declared > max_bytes:
        raise ValueError(
            f"{name!r}: its arrays take {declared:,} bytes once read, more than max_bytes "
            f"({max_bytes:,}); pass a larger max_bytes to load it"
        )
    headers = {field: _member_header(z, info, field, name) for field, info in members.items()}
    _check_shapes({field: h[0] for field, h in headers.items()}, name)
    arrays = {}
    for field, info in members.items():
        shape, fortran, dtype = headers[field]
        flat = np.empty(math.prod(shape), dtype)
        view = flat.view(np.uint8).data
        with z.open(info) as f:
            _npy_header(f)
            done = 0
            while done < len(view):
                n = f.readinto(view[done : done + _CHUNK])  # type: ignore[attr-defined]
                if not n:
                    raise ValueError(f"{name!r}: array {field} is cut short")
                done += n
        arrays[field] = flat.reshape(shape, order="F" if fortran else "C")
    return arrays


def _check_shapes(shapes: dict[str, tuple[int, ...]], name: str) -> None:
    """The arrays' shapes agree: one row per sample in each, one policy and mask entry per
    action."""
    n = shapes["to_move"][0]
    lengths = {k: v[0] for k, v in shapes.items() if v[0] != n}
    if lengths:
        raise ValueError(f"{name!r}: {n} samples in to_move, but {lengths}")
    if shapes["legal_masks"] != shapes["policies"]:
        raise ValueError(
            f"{name!r}: legal_masks {shapes['legal_masks']} and policies "
            f"{shapes['policies']} differ in shape"
        )


def _check_players(arrays: dict[str, np.ndarray], name: str) -> None:
    """The players to move are within the returns' seats."""
    players = arrays["returns"].shape[1]
    to_move = arrays["to_move"]
    if len(to_move) and (to_move.min() < 0 or to_move.max() >= players):
        raise ValueError(f"{name!r}: to_move holds players outside 0 to {players - 1}")


@dataclass(frozen=True, eq=False)
class SelfPlayData:
    """Training samples: one row per recorded position, ordered by game id, then move number.

    :ivar observations: float32 ``(N, C, H, W)``: ``observation_tensor()`` from the view of the
        player to move.
    :ivar legal_masks: bool ``(N, A)``.
    :ivar policies: float32 ``(N, A)``: the root visit-count distribution of the search.
    :ivar to_move: int8 ``(N,)``: the player to move.
    :ivar returns: float32 ``(N, players)``: the game's final returns in absolute player order
        (a resigning player places last, the others share first).
    :ivar game_ids: int64 ``(N,)``: the game index of each sample.
    :ivar move_numbers: int32 ``(N,)``: the ply of each sample (0: the opening position).
    """

    observations: np.ndarray
    legal_masks: np.ndarray
    policies: np.ndarray
    to_move: np.ndarray
    returns: np.ndarray
    game_ids: np.ndarray
    move_numbers: np.ndarray

    def __len__(self) -> int:
        return int(self.to_move.shape[0])

    def __eq__(self, other: object) -> bool:
        """Equal arrays (values, shapes and dtypes) in every field."""
        if not isinstance(other, SelfPlayData):
            return NotImplemented
        return all(
            getattr(self, f.name).dtype == getattr(other, f.name).dtype
            and np.array_equal(getattr(self, f.name), getattr(other, f.name))
            for f in fields(self)
        )

    __hash__ = None  # type: ignore[assignment]

    def value_targets(self) -> np.ndarray:
        """``(N, players)`` returns rolled to seat order from the player to move:
        ``[i, k]`` is the return of player ``(to_move[i] + k) % players``, what an
        evaluator's ``values`` predict."""
        n = self.returns.shape[1] if self.returns.ndim == 2 else 0
        if len(self) == 0 or n == 0:
            return self.returns.copy()
        seats = (self.to_move.astype(np.int64)[:, None] + np.arange(n)[None, :]) % n
        return np.take_along_axis(self.returns, seats, axis=1)

    def save(self, path: Union[str, os.PathLike[str]]) -> None:
        """Writes the arrays to an ``.npz`` file (uncompressed; numpy adds ``.npz`` to a name
        without it, and :meth:`load` finds the file under the same name)."""
        np.savez(path, **{f.name: getattr(self, f.name) for f in fields(self)})

    @classmethod
    def load(
        cls, path: Union[str, os.PathLike[str]], *, max_bytes: int = MAX_LOAD_BYTES
    ) -> SelfPlayData:
        """Reads a file :meth:`save` wrote (``load("run2")`` reads ``run2.npz`` as ``save``
        wrote it when no ``run2`` exists).

        Every array is checked before it is read: its dtype and shape (as :class:`SelfPlayData`
        documents them, one row per sample in each), and its size, which the file declares: the
        arrays together may take at most ``max_bytes`` (default :data:`MAX_LOAD_BYTES`, 1 GiB)
        once read, so that a small compressed file cannot claim gigabytes.

        :raises ValueError: a file that is not self-play data: not a regular file, not an
            ``.npz`` file, damaged or cut short (its compressed data too), encrypted, without
            an array, or with an array of the wrong dtype, shape or length, or larger than
            ``max_bytes`` in all.
        :raises OSError: the file cannot be opened (``FileNotFoundError``: there is none).
        """
        if not is_int(max_bytes) or max_bytes < 0:
            raise ValueError(f"max_bytes = {max_bytes!r}: expected an int of 0 or more")
        name = _npz_name(path)
        # Opened without waiting for a writer: a pipe is refused, not read for ever.
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise ValueError(
                f"{name!r} is no self-play data: not a regular file (a directory, device, "
                "pipe or socket)"
            )
        with open(fd, "rb") as raw:
            if raw.read(6) == b"\x93NUMPY":
                raise ValueError(f"{name!r} is one .npy array, not self-play data (an .npz file)")
            raw.seek(0)
            try:
                with zipfile.ZipFile(raw) as z:
                    arrays = _read_npz(z, name, max_bytes)
            except _DAMAGED as e:
                raise ValueError(
                    f"{name!r} is no self-play data: a damaged .npz file ({e})"
                ) from None
            except NotImplementedError as e:  # a compression zipfile cannot read
                raise ValueError(f"{name!r} is no self-play data: {e}") from None
            except RuntimeError:  # zipfile's only one: a member that needs a password
                raise ValueError(f"{name!r} is no self-play data: an encrypted .npz file") from None
        _check_players(arrays, name)
        return cls(**arrays)

    @classmethod
    def concatenate(cls, parts: Iterable[SelfPlayData]) -> SelfPlayData:
        """The samples of all ``parts`` in one, ordered by game id, then move number.

        :raises ValueError: no parts, or parts of different shapes.
        """
        parts = list(parts)
        if not parts:
            raise ValueError("concatenate needs at least one SelfPlayData")
        joined = {f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)}
        order = np.lexsort((joined["move_numbers"], joined["game_ids"]))
        return cls(**{k: v[order] for k, v in joined.items()})


#: The most games one call plays (as ``VectorEnv`` bounds ``num_envs``).
MAX_GAMES = 1 << 24


def _game_indices(games: Union[int, range, Sequence[int]]) -> np.ndarray:
    """The game indices as an int64 array, checked before anything is expanded."""
    if isinstance(games, bool):
        raise TypeError("games must be an int or a sequence of game indices, not a bool")
    if isinstance(games, (int, np.integer)):
        if games < 0:
            raise ValueError(f"games = {games}: expected a count of 0 or more")
        if games > MAX_GAMES:
            raise ValueError(f"games = {games}: at most {MAX_GAMES} games in one call")
        return np.arange(int(games), dtype=np.int64)
    if isinstance(games, range):
        if len(games) > MAX_GAMES:
            raise ValueError(f"games: {len(games)} games, at most {MAX_GAMES} in one call")
        if len(games) and min(games[0], games[-1]) < 0:
            raise ValueError("games: game indices must not be negative")
        if len(games) and max(games[0], games[-1]) >= 2**63:
            raise ValueError(f"games: game indices must be below 2**63, got {games}")
        return np.arange(games.start, games.stop, games.step, dtype=np.int64)
    if isinstance(games, (str, bytes)) or not isinstance(games, Iterable):
        raise TypeError(
            f"games must be an int or a sequence of game indices, got {type(games).__name__}"
        )
    ids: list[int] = []
    for g in games:
        if not is_int(g, numpy=True):
            raise TypeError(f"game index {g!r}: expected an int")
        if not 0 <= g < 2**63:
            raise ValueError(f"game index {g}: expected 0 to 2**63 - 1 (not negative)")
        if len(ids) == MAX_GAMES:
            raise ValueError(f"games: more than {MAX_GAMES} games in one call")
        ids.append(int(g))
    array = np.array(ids, dtype=np.int64)
    if len(np.unique(array)) != len(array):
        raise ValueError("games: the game indices repeat; give each index at most once")
    return array


def _number(name: str, value: object) -> float:
    """``value`` as a float for the engine (which checks its range), or a ``TypeError`` naming
    ``name``."""
    if not is_number(value, numpy=True):
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "..."
        raise TypeError(f"{name} = {shown}: expected a number")
    return float(value)


def selfplay_local(
    game: Game,
    *,
    games: Union[int, range, Sequence[int]] = DEFAULTS.games,
    simulations: int = DEFAULTS.simulations,
    evaluator: Optional[Evaluator] = None,
    temperature: float = DEFAULTS.temperature,
    temperature_moves: Optional[int] = None,
    dirichlet: Optional[tuple[float, float]] = DEFAULTS.dirichlet,
    batch_size: int = DEFAULTS.batch_size,
    seed: int = DEFAULTS.seed,
    threads: int = DEFAULTS.threads,
    resign: Optional[float] = None,
    playout_cap: Optional[tuple[float, int]] = None,
    max_live: Optional[int] = None,
    progress: bool = DEFAULTS.progress,
    root: str = DEFAULTS.root,
) -> SelfPlayData:
    """:func:`selfplay` with ``backend="local"``, which documents the settings (the defaults are
    :data:`DEFAULTS`, as there: a Ray task of :func:`selfplay_ray` passes only those its caller
    gave)."""
    ids = _game_indices(games)
    bar = None
    if progress:
        bar = Progress(len(ids), True)

    def tick(k: int) -> None:
        assert bar is not None
        for _ in range(k):
            bar.tick()

    raw = _engine_selfplay(
        game,
        ids,
        simulations=simulations,
        evaluator=evaluator,
        temperature=_number("temperature", temperature),
        temperature_moves=temperature_moves,
        dirichlet=dirichlet,
        batch_size=batch_size,
        seed=seed,
        threads=threads,
        resign=None if resign is None else _number("resign", resign),
        playout_cap=playout_cap,
        max_live=max_live,
        progress=tick if bar is not None else None,
        root=root,
    )
    return SelfPlayData(**{f.name: raw[f.name] for f in fields(SelfPlayData)})


def selfplay(
    game: Game,
    *,
    games: Union[int, range, Sequence[int]] = DEFAULTS.games,
    simulations: int = DEFAULTS.simulations,
    evaluator: Optional[Evaluator] = None,
    temperature: float = DEFAULTS.temperature,
    temperature_moves: Optional[int] = None,
    dirichlet: Optional[tuple[float, float]] = DEFAULTS.dirichlet,
    batch_size: int = DEFAULTS.batch_size,
    seed: int = DEFAULTS.seed,
    threads: int = DEFAULTS.threads,
    resign: Optional[float] = None,
    playout_cap: Optional[tuple[float, int]] = None,
    max_live: Optional[int] = None,
    progress: bool = DEFAULTS.progress,
    root: str = DEFAULTS.root,
    backend: str = "local",
    address: Optional[str] = None,
) -> SelfPlayData:
    """Plays games with the search against itself and returns the samples.

    :param game: a ``Fish`` or ``Marathon`` game (a Fish game without a fixed board deals a
        board per game).
    :param games: a count ``n`` (game indices ``0..n``) or a ``range``/sequence of indices.
        Game ``g`` is dealt, searched and played from seeds derived from ``(seed, g)`` alone:
        any subset of indices, played anywhere, gives the same samples for those indices.
    :param simulations: search iterations per move (PUCT leaves, or MCTS playouts).
    :param evaluator: ``fn(observations, legal_mask) -> (policy_logits, values)`` (see
        :mod:`pingvinas.searching.searcher`): PUCT with it, all live games' leaves in one call per
        round. ``None``: plain MCTS with random playouts.
    :param temperature: moves are drawn with probability proportional to
        ``visits ** (1 / temperature)``; 0 plays the most visited move.
    :param temperature_moves: plies played with the temperature (then the most visited
        move); ``None``: the whole game.
    :param dirichlet: ``(alpha, fraction)`` of root noise in full PUCT searches, or ``None``.
    :param batch_size: PUCT: the most leaves one game sends per round.
    :param threads: MCTS, or PUCT with a native :class:`~pingvinas.searching.evaluators.Net`: games
        played at once on that many threads (1 by default, ``0``: every core); every game is the
        same as on one thread. A Python evaluator runs on the calling thread.
    :param resign: a player whose root value falls below this resigns (last place, the
        others share first); 10% of the games never resign, to check the threshold.
    :param playout_cap: ``(p, fast)``: KataGo's playout-cap randomisation: a move gets a full
        search (recorded) with probability ``p``, else ``fast`` simulations, without noise,
        unrecorded.
    :param max_live: with an evaluator: the most games in play at once, whose trees' leaves
        share each evaluator call (1 to 2**20; default 256, split among the ``threads`` of a
        native net). Fewer bound the trees' memory, more give the evaluator larger batches; the
        samples are the same either way.
    :param progress: draw a progress bar on stderr.
    :param root: with an evaluator, how PUCT's root picks moves: ``"puct"``, or ``"gumbel"``
        (Gumbel AlphaZero: the policy recorded is the improved policy ``softmax(logits +
        sigma(completed Q))``, the move played the one the search chooses, without temperature
        or Dirichlet noise).
    :param backend: ``"local"`` or ``"ray"`` (``pingvinas[ray]``; the games are spread over a
        Ray cluster at ``address``, results identical to ``"local"``).
    :raises ValueError: a bad setting or evaluator output; an evaluator's own exception
        propagates.
    """
    settings: dict[str, Any] = dict(
        games=games,
        simulations=simulations,
        evaluator=evaluator,
        temperature=temperature,
        temperature_moves=temperature_moves,
        dirichlet=dirichlet,
        batch_size=batch_size,
        seed=seed,
        threads=threads,
        resign=resign,
        playout_cap=playout_cap,
        max_live=max_live,
        progress=progress,
        root=root,
    )
    if backend == "ray":
        return selfplay_ray(game, **settings, address=address)
    if backend != "local":
        raise ValueError(f"backend = {backend!r}: expected 'local' or 'ray'")
    return selfplay_local(game, **settings)


# --- self-play on Ray ------------------------------------------------------------------------


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


def _sorted_indices(games: Any) -> list[int]:
    """``pv.selfplay``'s game indices (checked there), sorted; at least one."""
    indices = sorted(_game_indices(games).tolist())
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
    indices = _sorted_indices(games)
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
