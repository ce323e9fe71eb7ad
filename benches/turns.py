"""Rates of one measure on several thread counts, taken in turns (1, 2, 1, 2, ...) on a shared
machine: each count's median, and the ratio of two counts as the median over the turns of
their ratio within a turn, so that a slower spell of the machine, or a turn that another
process interrupts, falls on both counts or on neither."""

from __future__ import annotations

import statistics


class Turns:
    """``runs[t]``: the rate of each turn on ``t`` threads, in the order they ran."""

    def __init__(self, runs: dict[int, list[float]]) -> None:
        self.runs = runs

    def rate(self, threads: int) -> float:
        """The median rate on ``threads``."""
        return statistics.median(self.runs[threads])

    def ratio(self, a: int, b: int) -> float:
        """The median over the turns of count ``a``'s rate over count ``b``'s."""
        return statistics.median(x / y for x, y in zip(self.runs[a], self.runs[b]))
