"""Searching: :mod:`~pingvinas.searching.searcher` (``Searcher``, ``pv.search``,
``pv.search_many``, the exact Fish solver and the evaluator protocol, over the engine's search),
and what PUCT evaluates with: :mod:`~pingvinas.searching.evaluators` (ready evaluators, the
shipped learned evaluation) and :mod:`~pingvinas.searching.nets` (nets the engine runs itself,
from numpy, torch or JAX weights)."""
