"""The two games as one type: the aliases :data:`Game`, :data:`State`, :data:`Move` that the
package's signatures use, and :func:`load_game`, either game by variant name or config path.

>>> import pingvinas as pv
>>> isinstance(pv.load_game("marathon-zigzag"), pv.Marathon)
True
"""

from __future__ import annotations

import os
import re
from typing import Union

from ._core import Fish, FishMove, FishState, Marathon, MarathonMove, MarathonState, variants

__all__ = ["Game", "Move", "MoveLike", "State", "load_game"]

#: A game (a variant): :class:`pingvinas.Fish` or :class:`pingvinas.Marathon`.
Game = Union[Fish, Marathon]
#: A position of either game.
State = Union[FishState, MarathonState]
#: A move of either game.
Move = Union[FishMove, MarathonMove]
#: What ``state.play`` takes: a move object, an action or notation.
MoveLike = Union[Move, int, str]


def _quote(text: str) -> str:
    """``repr(text)``, cut to 120 characters (errors never echo a huge input whole, and the
    list of bundled variants after it stays readable)."""
    r = repr(text)
    return r if len(r) <= 120 else f"{r[:120]}... ({len(text)} characters)"


def load_game(name: Union[str, os.PathLike[str]]) -> Game:
    """A bundled variant of either game by name, ``load_game("fish-3p")``,
    ``load_game("marathon-zigzag")`` (``pingvinas.variants()`` lists them), or a config file of
    either game by path, ``load_game("my-board.toml")`` (its ``game = "fish"`` or
    ``"marathon"`` line says which; without one, the game whose keys it uses)."""
    path = os.fspath(name)
    # A path object, a .toml name or a name with a directory in it is a file; a bare name is
    # a bundled variant (even when a file of that name happens to be here).
    if not isinstance(name, str) or path.endswith(".toml") or os.sep in path or "/" in path:
        if not os.path.isfile(path):
            raise ValueError(f"no config file {_quote(path)}")
        with open(path, encoding="utf-8") as f:
            said = re.search(r'^\s*game\s*=\s*"(\w+)"', f.read(), re.M)
        kind = said.group(1) if said else ""
        errors = []
        if kind in ("fish", ""):
            try:
                return Fish.from_config(path)
            except ValueError as e:
                errors.append(str(e))
        if kind in ("marathon", ""):
            try:
                return Marathon.from_config(path)
            except ValueError as e:
                errors.append(str(e))
        unknown = f"{_quote(path)}: unknown game {kind!r} (expected fish or marathon)"
        raise ValueError(errors[0] if errors else unknown)
    for game in (Fish, Marathon):
        try:
            return game.variant(path)
        except ValueError:
            continue
    bundled = ", ".join(variants())
    raise ValueError(
        f"unknown variant {_quote(path)}; bundled variants: {bundled}, or a path to a .toml config"
    )
