"""The two games as one type: the aliases :data:`Game`, :data:`State`, :data:`Move` that the
package's signatures use, and :func:`load_game`, either game by variant name or config path.

```pycon
>>> import pingvinas as pv
>>> isinstance(pv.load_game("marathon-zigzag"), pv.Marathon)
True

```
"""

from __future__ import annotations

import os
import re
import stat
from typing import Union

from ._core import Fish, FishMove, FishState, Marathon, MarathonMove, MarathonState, variants

__all__ = ["MAX_CONFIG_BYTES", "Game", "Move", "MoveLike", "State", "load_game"]

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


#: The largest config file :func:`load_game` and ``from_config`` read, in bytes (1 MiB): the
#: largest board or course the games take is a few kilobytes of TOML. A larger file, or one that
#: is not a regular file (a directory, a device, a pipe), is refused before it is read.
MAX_CONFIG_BYTES = 1 << 20


def _config_text(path: str) -> str:
    """The text of the config file ``path``, checked before it is read: a regular file of at
    most :data:`MAX_CONFIG_BYTES`, in UTF-8."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise ValueError(f"no config file {_quote(path)}") from None
    except OSError as e:
        raise ValueError(f"cannot read config {_quote(path)}: {e.strerror or e}") from None
    if stat.S_ISDIR(info.st_mode):
        raise ValueError(f"config {_quote(path)}: a directory, not a config file")
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"config {_quote(path)}: not a regular file (a device, pipe or socket)")
    too_big = ValueError(
        f"config {_quote(path)}: {info.st_size:,} bytes, more than a config may take "
        f"({MAX_CONFIG_BYTES:,} bytes)"
    )
    if info.st_size > MAX_CONFIG_BYTES:
        raise too_big
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)  # a file that grew since is refused too
    except OSError as e:
        raise ValueError(f"cannot read config {_quote(path)}: {e.strerror or e}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise too_big
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"config {_quote(path)}: not UTF-8 text ({e})") from None


def load_game(name: Union[str, os.PathLike[str]]) -> Game:
    """A bundled variant of either game by name, ``load_game("fish-3p")``,
    ``load_game("marathon-zigzag")`` (``pingvinas.variants()`` lists them), or a config file of
    either game by path, ``load_game("my-board.toml")`` (its ``game = "fish"`` or
    ``"marathon"`` line says which; without one, the game whose keys it uses).

    :raises ValueError: an unknown variant, or a config file that is not a regular file, is
        larger than :data:`MAX_CONFIG_BYTES`, is not UTF-8 or not a valid config (the message
        names the file).
    """
    path = os.fspath(name)
    # A path object, a .toml name or a name with a directory in it is a file; a bare name is
    # a bundled variant (even when a file of that name happens to be here), else a file.
    is_file = not isinstance(name, str) or path.endswith(".toml") or os.sep in path or "/" in path
    if not is_file:
        for game in (Fish, Marathon):
            try:
                return game.variant(path)
            except ValueError:
                continue
        if not os.path.lexists(path):
            bundled = ", ".join(variants())
            raise ValueError(
                f"unknown variant {_quote(path)}; bundled variants: {bundled}, or a path to a "
                ".toml config"
            )
    said = re.search(r'^\s*game\s*=\s*"(\w+)"', _config_text(path), re.M)
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
