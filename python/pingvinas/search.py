"""The old name of :mod:`pingvinas.searcher` (``pv.search`` is the function): what it held
still imports from here."""

from .searcher import (
    ALGORITHMS,
    Evaluator,
    FishSolution,
    Searcher,
    SearchResult,
    search,
    search_many,
    solve_fish,
)

__all__ = [
    "ALGORITHMS",
    "Evaluator",
    "FishSolution",
    "SearchResult",
    "Searcher",
    "search",
    "search_many",
    "solve_fish",
]
