"""Ratings from finishing orders: the Plackett-Luce model, for games of any number of players.

```pycon
>>> from pingvinas.rating.plackett_luce import Rankings, fit_rankings
>>> results = Rankings(["random", "greedy", "mcts"])
>>> results.add(["mcts", "greedy", "random"], [1, 2, 3], count=6)
>>> results.add(["greedy", "mcts", "random"], [1, 2, 3], count=2)
>>> results.add(["random", "greedy", "mcts"], [1, 1, 3], count=1)
>>> elo, low, high = fit_rankings(results, anchor="random")
>>> [name for name in sorted(elo, key=elo.get, reverse=True)]
['mcts', 'greedy', 'random']

```

**The model.** Player ``i`` has a strength ``r_i`` (logistic Elo, ``r = 400 log10(w)``). A game's
finishing order is drawn place by place: the winner among all its players with probability
``w_i / sum(w)``, then the runner-up among the rest in the same way, and so on. With two players
this is Bradley-Terry (Ordo's and BayesElo's model): ``i`` beats ``j`` with probability
``1 / (1 + 10 ** ((r_j - r_i) / 400))``. Unlike counting each game as results of every pair of
its players, the likelihood counts a game once, so the intervals are right for any number of
players.

**Ties.** A game with equal places has the mean log-likelihood of the orders that break its
ties (a draw between two players is half a win and half a loss, as in Bradley-Terry).

**The fit** maximises the log-likelihood (Newton's method; it is concave), with ``prior``
virtual draws between every two players who shared a table (BayesElo's default is 2), which keep
the rating of a player who always won or always lost finite. The anchor is fixed at 0; the 95%
intervals are 1.96 standard errors from the inverse of the observed information at the maximum,
relative to the anchor.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Optional

import numpy as np

__all__ = ["Rankings", "fit_rankings", "log_likelihood"]

#: Logistic Elo per unit of the natural log of a strength.
ELO_PER_NAT = 400 / math.log(10)
Z975 = 1.959963984540054
#: Tied places of more players than this are not expanded into orders (120 orders at 5).
MAX_TIE = 6


class Rankings:
    """Finishing orders of games among named players: each game is its table (the players who
    sat at it) and their places (1 the best; equal places for a shared place)."""

    def __init__(self, players: Sequence[str]) -> None:
        names = list(players)
        if len(set(names)) != len(names):
            raise ValueError(f"players = {names!r}: the names must differ")
        if len(names) < 2:
            raise ValueError("ratings need at least two players")
        self.players = names
        self.index = {name: i for i, name in enumerate(names)}
        #: ``(table, places) -> games``: tables as tuples of player indices.
        self.counts: dict[tuple[tuple[int, ...], tuple[int, ...]], float] = defaultdict(float)

    def _at(self, name: str) -> int:
        try:
            return self.index[name]
        except KeyError:
            raise ValueError(f"no player {name!r} (players: {', '.join(self.players)})") from None

    def add(self, table: Sequence[str], places: Sequence[int], *, count: float = 1) -> None:
        """One game (or ``count`` alike): ``places[k]`` is the place of ``table[k]``."""
        seats = tuple(self._at(name) for name in table)
        if len(seats) < 2 or len(set(seats)) != len(seats):
            raise ValueError(f"table {list(table)!r}: two or more different players")
        if len(places) != len(seats) or any(
            isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 1 for p in places
        ):
            raise ValueError(f"places {list(places)!r}: a place from 1 for each of {len(seats)}")
        if sum(1 for p in places if p == min(places)) > MAX_TIE:
            raise ValueError(f"places {list(places)!r}: at most {MAX_TIE} players may tie")
        if not (isinstance(count, (int, float)) and math.isfinite(count) and count > 0):
            raise ValueError(f"count = {count!r}: expected a number of games above 0")
        self.counts[(seats, tuple(int(p) for p in places))] += float(count)

    @property
    def games(self) -> float:
        return sum(self.counts.values())

    def met(self) -> np.ndarray:
        """``met[i, j]``: players ``i`` and ``j`` shared a table."""
        n = len(self.players)
        out = np.zeros((n, n), dtype=bool)
        for seats, _ in self.counts:
            for i, j in itertools.combinations(seats, 2):
                out[i, j] = out[j, i] = True
        return out


def _orders(seats: tuple[int, ...], places: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every order of the players that agrees with the places (ties broken every way)."""
    groups: dict[int, list[int]] = defaultdict(list)
    for player, place in zip(seats, places):
        groups[place].append(player)
    parts = [list(itertools.permutations(groups[p])) for p in sorted(groups)]
    return [tuple(itertools.chain.from_iterable(combo)) for combo in itertools.product(*parts)]


def _stages(rankings: Rankings, prior: float) -> list[tuple[int, np.ndarray, float]]:
    """The likelihood as weighted choices: ``(chosen, remaining, weight)``, the player placed
    next among those remaining, summed over games, their tie-breaking orders and the prior."""
    stages: dict[tuple[int, tuple[int, ...]], float] = defaultdict(float)
    for (seats, places), count in rankings.counts.items():
        orders = _orders(seats, places)
        w = count / len(orders)
        for order in orders:
            for k in range(len(order) - 1):
                stages[(order[k], tuple(sorted(order[k:])))] += w
    if prior > 0:
        met = rankings.met()
        for i, j in zip(*np.nonzero(np.triu(met))):
            pair = (int(i), int(j))
            stages[(pair[0], pair)] += prior / 2
            stages[(pair[1], pair)] += prior / 2
    return [(c, np.array(rest), w) for (c, rest), w in stages.items()]


def log_likelihood(
    rankings: Rankings, theta: np.ndarray, prior: float = 0.0
) -> tuple[float, np.ndarray, np.ndarray]:
    """The log-likelihood of strengths ``theta`` (natural log units), its gradient and its
    Hessian."""
    return _curvature(_stages(rankings, prior), theta)


def _curvature(
    stages: list[tuple[int, np.ndarray, float]], theta: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    n = len(theta)
    value, grad, hess = 0.0, np.zeros(n), np.zeros((n, n))
    for chosen, rest, w in stages:
        t = theta[rest]
        top = t.max()
        e = np.exp(t - top)
        total = e.sum()
        pi = e / total
        value += w * (theta[chosen] - top - math.log(total))
        grad[chosen] += w
        grad[rest] -= w * pi
        hess[np.ix_(rest, rest)] -= w * (np.diag(pi) - np.outer(pi, pi))
    return value, grad, hess


def fit_rankings(
    rankings: Rankings, *, anchor: Optional[str] = None, prior: float = 2.0, steps: int = 100
) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """Plackett-Luce ratings by maximum likelihood: each player's Elo and the low and high ends
    of its 95% interval (the anchor's are all 0).

    :param anchor: the player rated 0 (default ``"random"`` if it plays, else the first).
    :param prior: virtual draws added between every two players who shared a table.
    :raises ValueError: when some players are not linked to the anchor by games, or with
        ``prior = 0`` a player placed first (or last) in every game (no finite maximum).
    """
    names = rankings.players
    n = len(names)
    if anchor is None:
        anchor = "random" if "random" in rankings.index else names[0]
    a = rankings._at(anchor)
    if isinstance(prior, bool) or not isinstance(prior, (int, float)) or not prior >= 0:
        raise ValueError(f"prior = {prior!r}: expected a number of virtual draws, 0 or more")
    met = rankings.met()
    reached, frontier = {a}, [a]
    while frontier:
        i = frontier.pop()
        for j in np.flatnonzero(met[i]):
            if int(j) not in reached:
                reached.add(int(j))
                frontier.append(int(j))
    if len(reached) != n:
        lost = [names[i] for i in range(n) if i not in reached]
        raise ValueError(f"no games link {', '.join(lost)} to {anchor!r}: cannot rate them")
    stages = _stages(rankings, prior)
    free = [i for i in range(n) if i != a]
    theta = np.zeros(n)
    for _ in range(steps):
        _, grad, hess = _curvature(stages, theta)
        try:
            step = np.linalg.solve(hess[np.ix_(free, free)], -grad[free])
        except np.linalg.LinAlgError:
            raise ValueError("the ratings have no maximum: give prior > 0") from None
        # Long steps are cut: the likelihood is concave, but Newton from 0 can overshoot.
        biggest = float(np.max(np.abs(step))) if step.size else 0.0
        if biggest > 2.0:
            step *= 2.0 / biggest
        theta[free] += step
        if biggest < 1e-10:
            break
    if not np.all(np.isfinite(theta)) or float(np.max(np.abs(theta))) > 50:
        raise ValueError("a player placed first or last in every game: give prior > 0 to rate it")
    _, _, hess = _curvature(stages, theta)
    cov = np.linalg.inv(-hess[np.ix_(free, free)])
    sd = np.zeros(n)
    sd[free] = np.sqrt(np.maximum(np.diag(cov), 0.0))
    elo = theta * ELO_PER_NAT
    half = Z975 * sd * ELO_PER_NAT
    return (
        {p: float(elo[i]) for i, p in enumerate(names)},
        {p: float(elo[i] - half[i]) for i, p in enumerate(names)},
        {p: float(elo[i] + half[i]) for i, p in enumerate(names)},
    )
