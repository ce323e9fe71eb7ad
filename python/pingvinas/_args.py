"""The one test of an int argument that the Python layer makes (Python counts ``True`` as the int
1; pingvinas never does), as the engine's ``args.rs`` does for the arguments it reads."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ._core import MAX_TIME

if TYPE_CHECKING:
    from typing_extensions import TypeGuard

__all__ = ["TIME", "Range", "is_int", "is_number"]


def is_int(value: object, *, numpy: bool = False) -> TypeGuard[int]:
    """``value`` is an int and not a bool (with ``numpy``, a numpy integer too)."""
    kinds = (int, np.integer) if numpy else int
    return isinstance(value, kinds) and not isinstance(value, bool)


def is_number(value: object, *, numpy: bool = False) -> TypeGuard[float]:
    """``value`` is an int or a float and not a bool (with ``numpy``, a numpy number too)."""
    kinds = (int, float, np.integer, np.floating) if numpy else (int, float)
    return isinstance(value, kinds) and not isinstance(value, bool)


@dataclass(frozen=True)
class Range:
    """The documented range of a numeric setting: ``low`` to ``high``, both included
    (``above``: ``low`` excluded; ``below``: ``high`` excluded); ``integer``: ints only.
    ``str()`` gives it as the docs and ``--help`` say it; :meth:`check` refuses a value outside
    it, naming the setting."""

    low: float
    high: float
    integer: bool = True
    above: bool = False
    below: bool = False

    def __str__(self) -> str:
        def fmt(x: float) -> str:
            if x == 2**63 - 1:
                return "2**63 - 1"
            return f"{int(x):,}" if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"

        top = f"below {fmt(self.high)}" if self.below else f"at most {fmt(self.high)}"
        if self.above:
            return f"above {fmt(self.low)}, {top}"
        return (
            f"{fmt(self.low)} or more, {top}"
            if self.below
            else f"{fmt(self.low)} to {fmt(self.high)}"
        )

    def holds(self, value: float) -> bool:
        """``value`` is within the range (a number, finite, an int if ``integer``)."""
        if not (is_int(value, numpy=True) if self.integer else is_number(value, numpy=True)):
            return False
        if not self.integer and not math.isfinite(value):
            return False
        low = self.low < value if self.above else self.low <= value
        return low and (value < self.high if self.below else value <= self.high)

    def check(self, name: str, value: object) -> None:
        """Raises ``ValueError`` (``TypeError`` for a value of the wrong kind) naming ``name``
        unless ``value`` is within the range."""
        kind = "an int" if self.integer else "a number"
        ok_kind = is_int(value, numpy=True) if self.integer else is_number(value, numpy=True)
        if not ok_kind:
            raise TypeError(f"{name} = {value!r}: expected {kind}, {self}")
        if not self.holds(value):  # type: ignore[arg-type]
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "..."
            raise ValueError(f"{name} = {shown}: expected {kind}, {self}")


#: Every time budget a user gives (``time=``, ``--time``, ``opponent_time``, an engine's
#: ``movetime``): seconds above 0, at most ``MAX_TIME`` (a week), the engine's own bound.
TIME = Range(0, MAX_TIME, integer=False, above=True)
