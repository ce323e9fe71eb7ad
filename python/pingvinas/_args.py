"""The one test of an int argument that the Python layer makes (Python counts ``True`` as the int
1; pingvinas never does), as the engine's ``args.rs`` does for the arguments it reads."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing_extensions import TypeGuard

__all__ = ["is_int", "is_number"]


def is_int(value: object, *, numpy: bool = False) -> TypeGuard[int]:
    """``value`` is an int and not a bool (with ``numpy``, a numpy integer too)."""
    kinds = (int, np.integer) if numpy else int
    return isinstance(value, kinds) and not isinstance(value, bool)


def is_number(value: object, *, numpy: bool = False) -> TypeGuard[float]:
    """``value`` is an int or a float and not a bool (with ``numpy``, a numpy number too)."""
    kinds = (int, float, np.integer, np.floating) if numpy else (int, float)
    return isinstance(value, kinds) and not isinstance(value, bool)
