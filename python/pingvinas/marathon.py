"""Penguin Marathon in one place: the game (:class:`Marathon`, :class:`MarathonState`,
:class:`MarathonMove`, :class:`MarathonPiece`, also at the top of the package), and many playouts
at once in Rust with the GIL released.

The game itself is :class:`pingvinas.Marathon` (a variant: course, players, ply limit) and
:class:`pingvinas.MarathonState` (a position); see their docstrings. In short:

```pycon
>>> import pingvinas as pv
>>> game = pv.Marathon(players=2, course="standard")
>>> state = game.new_state()
>>> len(state.legal_moves())
57
>>> state.play("B -1,1 S 2,1 SE")      # Baby enters straight, slides 3 cells, lies facing SE
>>> state.pieces[2]
MarathonPiece(owner=0, kind='baby', status='on course', cell=(2, 1), facing='SE')

```

**Notation** (one line, words separated by spaces, read case-insensitively): the piece letter
(``M``, ``P``, ``B``; of the player to move), the cell it starts on (for a waiting piece: the
outside place before the start line it enters from, e.g. ``-1,0``), then ``stand``, or the slide
direction and the result: the end cell and the facing (``up`` when it stopped upright at a side
edge), or ``finish``::

    B 0,1 S 3,1 SE     P 4,1 stand     M -1,0 SE 0,1 E     B 1,1 NW 0,0 up     B 10,1 S finish

**Actions**: with ``n`` course cells (row-major, ``game.cells``) and ``R = 9 n + 1``,
``action = kind * R + result`` where kind is 0 mama, 1 papa, 2 baby and result is
``cell * 9 + facing`` (facing 0..7 = N, NE, E, SE, S, SW, W, NW), ``cell * 9 + 8`` (upright on
``cell``), or ``9 n`` (finished). An action names the moving piece's state after the move, so
each legal move has exactly one action (``game.num_actions == 3 R``, 975 on the standard course).
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ._core import Marathon, MarathonMove, MarathonPiece, MarathonState, marathon_random_playouts

__all__ = ["Marathon", "MarathonMove", "MarathonPiece", "MarathonState", "random_playouts"]


def random_playouts(
    n: int,
    *,
    seed: int = 0,
    threads: int = 1,
    game: Optional[Marathon] = None,
    state: Optional[MarathonState] = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Play ``n`` games of uniformly random legal moves to the end.

    :param n: number of games.
    :param seed: game ``i`` uses a generator derived from ``(seed, i)``, so results do not
        depend on ``threads``.
    :param threads: worker threads, 1 by default (``0``: one per core). The GIL is released
        meanwhile.
    :param game: the variant; by default the standard course with 2 players.
    :param state: start every game from this position instead of the opening.
    :returns: ``(winners, plies)``: an int8 array of shape ``(n,)`` with each game's winner
        (``-1`` for a draw) and an int32 array with the plies each game lasted.

    ```pycon
    >>> winners, plies = random_playouts(100, seed=1)
    >>> winners.shape, plies.dtype
    ((100,), dtype('int32'))

    ```
    """
    return marathon_random_playouts(n, seed=seed, threads=threads, game=game, state=state)
