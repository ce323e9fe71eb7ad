"""Self-play training data at engine speed: games played by the search against itself.

With an evaluator, every live game's PUCT tree adds its leaves to one evaluator call per round
(so a network sees large batches); without one, plain MCTS with random playouts plays the
games on ``threads`` threads. Either way the games run in Rust and come back as numpy arrays.

>>> import pingvinas as pv
>>> data = pv.selfplay(pv.Fish(), games=2, simulations=8, seed=1)
>>> len(data) == len(data.policies) == len(data.observations)
True
>>> sorted(set(data.game_ids.tolist()))
[0, 1]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional, Union

from .games import Game
from .samples import DEFAULTS, MAX_GAMES, SelfPlayData, selfplay_local
from .searcher import Evaluator

__all__ = ["MAX_GAMES", "SelfPlayData", "selfplay"]


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
        :mod:`pingvinas.searcher`): PUCT with it, all live games' leaves in one call per round.
        ``None``: plain MCTS with random playouts.
    :param temperature: moves are drawn with probability proportional to
        ``visits ** (1 / temperature)``; 0 plays the most visited move.
    :param temperature_moves: plies played with the temperature (then the most visited
        move); ``None``: the whole game.
    :param dirichlet: ``(alpha, fraction)`` of root noise in full PUCT searches, or ``None``.
    :param batch_size: PUCT: the most leaves one game sends per round.
    :param threads: MCTS, or PUCT with a native :class:`~pingvinas.evaluators.Net`: games
        played at once on that many threads (``0``: every core); every game is the same as on
        one thread. A Python evaluator runs on the calling thread.
    :param resign: a player whose root value falls below this resigns (last place, the
        others share first); 10% of the games never resign, to check the threshold.
    :param playout_cap: ``(p, fast)``: KataGo's playout-cap randomisation: a move gets a full
        search (recorded) with probability ``p``, else ``fast`` simulations, without noise,
        unrecorded.
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
        progress=progress,
        root=root,
    )
    if backend == "ray":
        from .distributed import selfplay_ray

        return selfplay_ray(game, **settings, address=address)
    if backend != "local":
        raise ValueError(f"backend = {backend!r}: expected 'local' or 'ray'")
    return selfplay_local(game, **settings)
