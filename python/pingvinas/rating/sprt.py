"""The sequential probability ratio test of a two-player match, as fishtest runs it.

```pycon
>>> from pingvinas.rating.sprt import SPRT
>>> test = SPRT(elo0=0, elo1=10)               # alpha = beta = 0.05
>>> [round(b, 3) for b in test.bounds]
[-2.944, 2.944]
>>> report = test.report([2, 10, 30, 20, 8])  # game pairs: LL, LD+DL, LW+DD+WL, DW+WD, WW
>>> report.decision, round(report.llr, 3)
('continue', 1.159)

```

**The test.** H0: the first player is ``elo0`` Elo stronger than the second; H1: ``elo1``
(logistic Elo: a difference ``d`` means an expected score ``1 / (1 + 10 ** (-d / 400))``).
After each game (or game pair) the log-likelihood ratio is compared with Wald's bounds
``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``: at or below the lower one the test
accepts H0, at or above the upper one H1, else it goes on.

**The statistic**, as fishtest computes it (Michel Van den Bergh's generalised SPRT): the
results are an empirical distribution of a score, over game pairs (pentanomial: a pair is two
games on the same deal with the seats swapped, scored 0, 1/4, 1/2, 3/4 or 1 for the first
player) or over games (trinomial: 0, 1/2, 1). The likelihood under each hypothesis is that of
the distribution nearest the observed one (maximum likelihood) whose expected score is the
hypothesis's; the LLR is their log ratio. Counts of zero are replaced by 0.001 first (fishtest's
regularisation), so that every outcome keeps some probability. Pairs are preferred: the two
games of a pair share the deal, so their correlation is measured, not ignored, which makes the
test faster and its error rates right.

**The Elo estimate**: the mean score with a 95% normal interval (1.96 standard errors of the
mean, over pairs or games), each end turned into Elo; ``elo95`` is half the interval's width,
as fishtest prints it (``Elo: 12.3 +/- 4.5``); ``los`` is the likelihood of superiority, the
probability that the first player is the stronger.

A test that always accepts H1 quickly needs a wide gap between ``elo0`` and ``elo1``: a pair
moves the LLR by at most ``log(s1 / s0)``, the log ratio of the two expected scores (a player
winning every pair needs a little more than ``log((1 - beta) / alpha) / log(s1 / s0)``
pairs: 104 for ``elo0 = 0, elo1 = 10``, 8 for ``0, 200``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

__all__ = [
    "SPRT",
    "SPRTReport",
    "elo_estimate",
    "expected_score",
    "llr_logistic",
    "mle",
    "outcome_counts",
]

#: What a count of zero becomes (fishtest's regularisation).
EPSILON = 1e-3
#: The 97.5% quantile of the standard normal distribution.
Z975 = 1.959963984540054


def expected_score(elo: float) -> float:
    """The expected score of a player ``elo`` logistic Elo stronger than its opponent."""
    return float(1.0 / (1.0 + 10.0 ** (-elo / 400.0)))


def elo_of_score(score: float) -> float:
    """The logistic Elo difference whose expected score is ``score`` (0 < score < 1)."""
    return -400.0 * math.log10(1.0 / score - 1.0)


def _check_counts(counts: Sequence[float]) -> list[float]:
    values = list(counts)
    if len(values) not in (3, 5):
        raise ValueError(
            f"counts = {values!r}: expected 3 (losses, draws, wins) or 5 (game pairs scored "
            "0, 1/4, 1/2, 3/4, 1) counts"
        )
    for x in values:
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not x >= 0:
            raise ValueError(f"counts = {values!r}: counts are numbers, 0 or more")
    return [float(x) for x in values]


def _pdf(counts: Sequence[float]) -> tuple[float, list[tuple[float, float]]]:
    """``(n, [(score, probability), ...])`` of the regularised counts."""
    regular = [x if x > 0 else EPSILON for x in _check_counts(counts)]
    n = sum(regular)
    last = len(regular) - 1
    return n, [(i / last, x / n) for i, x in enumerate(regular)]


def _stats(pdf: Sequence[tuple[float, float]]) -> tuple[float, float]:
    mean = sum(a * p for a, p in pdf)
    return mean, sum(p * (a - mean) ** 2 for a, p in pdf)


def mle(pdf: Sequence[tuple[float, float]], s: float) -> list[tuple[float, float]]:
    """The distribution on the same scores with expected score ``s`` that gives the observed
    ``pdf`` the greatest likelihood: ``q_i = p_i / (1 + x (a_i - s))`` where ``x`` solves
    ``sum p_i (a_i - s) / (1 + x (a_i - s)) = 0`` (found by bisection: the sum falls as ``x``
    grows). ``s`` must lie strictly between the lowest and the highest score."""
    d = [a - s for a, _ in pdf]
    if not (min(d) < 0 < max(d)):
        raise ValueError(f"expected score {s!r} is not inside the scores of the distribution")
    # Every 1 + x d_i stays positive on (-1 / max d, -1 / min d).
    lo, hi = -1.0 / max(d), -1.0 / min(d)

    def f(x: float) -> float:
        return sum(p * di / (1.0 + x * di) for (_, p), di in zip(pdf, d))

    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    x = (lo + hi) / 2
    return [(a, p / (1.0 + x * di)) for (a, p), di in zip(pdf, d)]


def llr_logistic(elo0: float, elo1: float, counts: Sequence[float]) -> float:
    """The generalised log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``), in
    logistic Elo, for trinomial ``[losses, draws, wins]`` or pentanomial ``[LL, LD+DL,
    LW+DD+WL, DW+WD, WW]`` counts (fishtest's ``LLR_logistic``)."""
    n, pdf = _pdf(counts)
    s0, s1 = expected_score(elo0), expected_score(elo1)
    q0, q1 = mle(pdf, s0), mle(pdf, s1)
    return n * sum(p * (math.log(b) - math.log(a)) for (_, p), (_, a), (_, b) in zip(pdf, q0, q1))


def elo_estimate(counts: Sequence[float]) -> tuple[float, float, float, float]:
    """``(elo, low, high, los)``: the Elo difference from the mean score, the ends of its 95%
    interval, and the likelihood of superiority (fishtest's ``get_elo``; the counts are
    regularised first, so that the ends stay finite)."""
    n, pdf = _pdf(counts)
    mean, var = _stats(pdf)
    se = math.sqrt(var / n)
    low = min(max(mean - Z975 * se, 1e-12), 1 - 1e-12)
    high = min(max(mean + Z975 * se, 1e-12), 1 - 1e-12)
    los = 0.5 * (1.0 + math.erf((mean - 0.5) / se / math.sqrt(2.0))) if se > 0 else 0.5
    return elo_of_score(mean), elo_of_score(low), elo_of_score(high), los


@dataclass(frozen=True)
class SPRTReport:
    """Where a test stands: the LLR and its bounds, the decision (``"H0"``, ``"H1"`` or
    ``"continue"``), and the Elo difference with its 95% interval. ``str()`` prints it as
    fishtest does."""

    elo0: float
    elo1: float
    alpha: float
    beta: float
    counts: tuple[int, ...]
    llr: float
    lower: float
    upper: float
    decision: str
    elo: float
    elo_low: float
    elo_high: float
    los: float

    @property
    def elo95(self) -> float:
        """Half the width of the 95% interval (fishtest's ``+/-``)."""
        return (self.elo_high - self.elo_low) / 2

    @property
    def pentanomial(self) -> bool:
        return len(self.counts) == 5

    @property
    def games(self) -> int:
        return sum(self.counts) * (2 if self.pentanomial else 1)

    def __str__(self) -> str:
        what = {
            "H1": "H1 accepted",
            "H0": "H0 accepted",
            "continue": "no decision yet",
        }[self.decision]
        counts = ", ".join(str(c) for c in self.counts)
        lines = [
            f"SPRT: elo0 = {self.elo0:g}, elo1 = {self.elo1:g} (logistic Elo), "
            f"alpha = {self.alpha:g}, beta = {self.beta:g}",
            f"LLR: {self.llr:.2f} ({self.lower:.2f}, {self.upper:.2f}): {what}",
            f"Elo: {self.elo:.1f} +/- {self.elo95:.1f} (95%: [{self.elo_low:.1f}, "
            f"{self.elo_high:.1f}]), LOS: {100 * self.los:.1f}%",
            (f"Ptnml(0-2): {counts} ({self.games} games)")
            if self.pentanomial
            else f"L-D-W: {counts} ({self.games} games)",
        ]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "counts": list(self.counts),
            "games": self.games,
            "llr": self.llr,
            "lower": self.lower,
            "upper": self.upper,
            "decision": self.decision,
            "elo": self.elo,
            "elo_low": self.elo_low,
            "elo_high": self.elo_high,
            "los": self.los,
        }


@dataclass(frozen=True)
class SPRT:
    """A test of H0 ``elo0`` against H1 ``elo1`` (logistic Elo, ``elo0 < elo1``) with error
    rates ``alpha`` (accepting H1 when H0 holds) and ``beta`` (accepting H0 when H1 holds)."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{name} = {value!r}: expected a number")
            if not math.isfinite(value):
                raise ValueError(f"{name} = {value!r}: expected a finite number")
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 = {self.elo0!r}, elo1 = {self.elo1!r}: expected elo0 < elo1")
        if max(abs(self.elo0), abs(self.elo1)) > 2000:
            raise ValueError("elo0 and elo1 are Elo differences within -2000 to 2000")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0 < value < 0.5:
                raise ValueError(f"{name} = {value!r}: expected a probability above 0, below 0.5")
        s0, s1 = expected_score(self.elo0), expected_score(self.elo1)
        if not s0 < s1:
            raise ValueError(
                f"elo0 = {self.elo0!r}, elo1 = {self.elo1!r}: their expected scores do not "
                f"differ ({s0!r}), so no result can tell H0 from H1"
            )

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's bounds on the LLR: ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``."""
        return (
            math.log(self.beta / (1 - self.alpha)),
            math.log((1 - self.beta) / self.alpha),
        )

    def llr(self, counts: Sequence[float]) -> float:
        return llr_logistic(self.elo0, self.elo1, counts)

    def fewest_games(self, pentanomial: bool = True, most: int = 10**7) -> Optional[int]:
        """The fewest games after which the test can stop: those of a match in which one
        player scores every point (accepting H1, or H0 when the other does), whichever
        decides sooner; ``None`` if neither does within ``most`` games. Close hypotheses need
        many: a pair moves the LLR by at most ``log(s1 / s0)``."""
        size = 5 if pentanomial else 3
        per = 2 if pentanomial else 1

        def decided(n: int) -> bool:
            ones = [0] * size
            wins, losses = ones[:-1] + [n], [n] + ones[1:]
            return self.decide(self.llr(wins)) == "H1" or self.decide(self.llr(losses)) == "H0"

        # The LLR of a one-sided match grows with its length: find the first n by bisection.
        top = most // per
        if top < 1 or not decided(top):
            return None
        low, high = 0, 1
        while not decided(high):
            low, high = high, min(2 * high, top)
        while high - low > 1:
            mid = (low + high) // 2
            low, high = (low, mid) if decided(mid) else (mid, high)
        return high * per

    def decide(self, llr: float) -> str:
        lower, upper = self.bounds
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return "continue"

    def report(self, counts: Sequence[int]) -> SPRTReport:
        """Where the test stands after ``counts`` (3 trinomial or 5 pentanomial counts, from
        the first player's side)."""
        llr = self.llr(counts)
        lower, upper = self.bounds
        elo, low, high, los = elo_estimate(counts)
        return SPRTReport(
            elo0=float(self.elo0),
            elo1=float(self.elo1),
            alpha=float(self.alpha),
            beta=float(self.beta),
            counts=tuple(int(c) for c in counts),
            llr=llr,
            lower=lower,
            upper=upper,
            decision=self.decide(llr),
            elo=elo,
            elo_low=low,
            elo_high=high,
            los=los,
        )


def _game_score(result: Any, agent: int) -> float:
    """``agent``'s score in a two-player game: 1 a win, 1/2 a draw, 0 a loss."""
    seat = list(result.seats).index(agent)
    place = result.ranking[seat]
    if place != 1:
        return 0.0
    return 0.5 if sum(1 for p in result.ranking if p == 1) > 1 else 1.0


def outcome_counts(results: Sequence[Any], agent: int = 0, pairs: bool = True) -> list[int]:
    """The counts of a two-player match's games from ``agent``'s side: with ``pairs``, the
    pentanomial counts of the complete pairs (games ``2k`` and ``2k + 1``, which
    ``play_match`` plays on one deal with the seats swapped; a pair whose other game has not
    finished is left out), else the trinomial ``[losses, draws, wins]`` of every game. Takes
    game results with ``index``, ``seats`` and ``ranking`` (``pingvinas.match.GameResult``)."""
    if not pairs:
        counts = [0, 0, 0]
        for r in results:
            counts[int(2 * _game_score(r, agent))] += 1
        return counts
    by_index = {r.index: r for r in results}
    counts = [0, 0, 0, 0, 0]
    for i, r in by_index.items():
        if i % 2 == 0 and i + 1 in by_index:
            total = _game_score(r, agent) + _game_score(by_index[i + 1], agent)
            counts[int(round(2 * total))] += 1
    return counts
