"""Self-play samples: :class:`SelfPlayData`, and the engine playing given game indices (the local
backend of :func:`pingvinas.training.selfplay`, and what each Ray task of
:mod:`pingvinas.distributed` runs).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Optional, Union

import numpy as np

import pingvinas._core as _core

from ._args import is_int
from ._progress import Progress
from .games import Game
from .searcher import Evaluator

__all__ = ["DEFAULTS", "MAX_GAMES", "SelfPlayData", "SelfPlayDefaults", "selfplay_local"]


@dataclass(frozen=True)
class SelfPlayDefaults:
    """The defaults of the self-play settings, written once: :func:`pingvinas.selfplay` (which
    documents them) and :func:`selfplay_local` (which a Ray task of
    :func:`pingvinas.distributed.selfplay_ray` calls with only the settings its caller gave)
    both take theirs from :data:`DEFAULTS`. Settings that are off by default (``None``) are not
    listed."""

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
        """Writes the arrays to an ``.npz`` file (uncompressed)."""
        np.savez(path, **{f.name: getattr(self, f.name) for f in fields(self)})

    @classmethod
    def load(cls, path: Union[str, os.PathLike[str]]) -> SelfPlayData:
        """Reads a file :meth:`save` wrote.

        :raises ValueError: a file without the arrays of self-play data.
        """
        with np.load(path, allow_pickle=False) as f:
            missing = [x.name for x in fields(cls) if x.name not in f.files]
            if missing:
                raise ValueError(f"{os.fspath(path)!r} is no self-play data: no {missing}")
            return cls(**{x.name: f[x.name] for x in fields(cls)})

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
    progress: bool = DEFAULTS.progress,
    root: str = DEFAULTS.root,
) -> SelfPlayData:
    """:func:`pingvinas.selfplay` with ``backend="local"``, which documents the settings (the
    defaults are :data:`DEFAULTS`, as there: a Ray task of
    :func:`pingvinas.distributed.selfplay_ray` passes only those its caller gave)."""
    ids = _game_indices(games)
    bar = None
    if progress:
        bar = Progress(len(ids), True)

    def tick(k: int) -> None:
        assert bar is not None
        for _ in range(k):
            bar.tick()

    raw = _core.selfplay(
        game,
        ids,
        simulations=simulations,
        evaluator=evaluator,
        temperature=float(temperature),
        temperature_moves=temperature_moves,
        dirichlet=dirichlet,
        batch_size=batch_size,
        seed=seed,
        threads=threads,
        resign=None if resign is None else float(resign),
        playout_cap=playout_cap,
        progress=tick if bar is not None else None,
        root=root,
    )
    return SelfPlayData(**{f.name: raw[f.name] for f in fields(SelfPlayData)})
