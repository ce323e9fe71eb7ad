"""Solved Fish: the board classes that the exact solver finishes and the value of every move
(:mod:`~pingvinas.solved.boards`), and the published table of ``docs/solved.md``, rendered from
the data file ``table.json`` by :mod:`~pingvinas.solved.table` (``pingvinas solve --table``)."""

from .boards import CLASSES, BoardClass, MoveValues, Solver, board_class, margin, move_values

__all__ = [
    "CLASSES",
    "BoardClass",
    "MoveValues",
    "Solver",
    "board_class",
    "margin",
    "move_values",
]
