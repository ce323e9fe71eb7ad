"""Fish in one place: the game (:class:`Fish`, :class:`FishState`, :class:`FishMove`, also at
the top of the package), many playouts at once in Rust with the GIL released, and the exact
solver."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ._core import Fish, FishMove, FishState, fish_random_playouts
from .searching.searcher import FishSolution, solve_fish

__all__ = ["Fish", "FishMove", "FishSolution", "FishState", "random_playouts", "solve"]


def random_playouts(
    n: int,
    *,
    seed: int = 0,
    threads: int = 1,
    game: Optional[Fish] = None,
    state: Optional[FishState] = None,
    policy: str = "uniform",
) -> tuple[np.ndarray, np.ndarray]:
    """Play ``n`` uniformly random games and return their final scores.

    :param n: number of games.
    :param seed: game ``i`` uses a generator derived from ``(seed, i)``, so results do not
        depend on ``threads``.
    :param threads: worker threads, 1 by default (``0``: one per core). The GIL is released
        meanwhile.
    :param game: the variant; by default the standard 2-player game, with a standard board
        dealt afresh for every game. A variant with a fixed board starts from its opening.
    :param state: start every game from this position instead.
    :param policy: ``"uniform"``: every legal move equally likely; ``"fast"``: a random penguin
        among those that can move, then a random open direction, then a random distance (not
        uniform over moves, and faster).
    :returns: ``(fish, floes)``, two int32 arrays of shape ``(n, players)``.

    ```pycon
    >>> fish, floes = random_playouts(100, seed=1)
    >>> fish.shape
    (100, 2)

    ```
    """
    return fish_random_playouts(
        n, seed=seed, threads=threads, game=game, state=state, policy=policy
    )


def solve(state: FishState, **options: Any) -> FishSolution:
    """The game-theoretic result of a small Fish position: see
    :func:`pingvinas.searching.searcher.solve_fish` (final scores and a best move)."""
    return solve_fish(state, **options)
