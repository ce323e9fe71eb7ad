"""The engine protocol's grammar: the lines each side writes, parsed and formatted
(``docs/protocol.md``). :mod:`~pingvinas.playing.protocol.engine` is the engine's side,
:mod:`~pingvinas.playing.protocol.driver` the driver's."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from ..._core import (
    MAX_TIME,
    Fish,
    Marathon,
)
from ...games import Game, State

__all__ = [
    "MAX_LINE",
    "MAX_MS",
    "VERSION",
    "DriverMessage",
    "EngineFault",
    "EngineMessage",
    "ProtocolError",
    "format_go",
    "format_newgame",
    "format_position",
    "parse_driver_line",
    "parse_engine_line",
]

#: The protocol version this module speaks.
VERSION = 1
#: The longest line either side reads, in bytes (a longer one is not the protocol).
MAX_LINE = 1 << 20
#: The most milliseconds a ``go`` gives: the longest time budget (``MAX_TIME``, a week).
MAX_MS = round(MAX_TIME * 1000)
#: The most digits of a number in a line (more is not a number the protocol has).
_MAX_DIGITS = 18


class ProtocolError(ValueError):
    """A line that is not the protocol (the message says what is wrong with it)."""


class EngineFault(Exception):
    """An external engine lost its game (the driver's
    :data:`~pingvinas.playing.protocol.driver.FAULTS`): ``reason`` is ``"crash"``,
    ``"time"``, ``"illegal"`` or ``"protocol"``, ``detail`` says what happened."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class EngineMessage:
    """A line from the engine: ``kind`` is ``"id"`` (``key``, ``text``), ``"pepok"``
    (``version``), ``"readyok"``, ``"info"`` (``info``: the search facts given, and
    ``text`` for ``info string ...``), ``"bestmove"`` (``text``: the move), or ``"empty"``."""

    kind: str
    key: str = ""
    text: str = ""
    version: int = 0
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DriverMessage:
    """A line from the driver: ``kind`` is ``"pep"`` (``version``), ``"newgame"`` (``data``:
    ``game``, ``config``, ``players``, ``seat``), ``"isready"``, ``"position"`` (``data``:
    ``start``, ``moves``), ``"go"`` (``movetime``, or ``timeleft`` and ``inc``, in
    milliseconds), ``"quit"``, ``"empty"``, or ``"unknown"`` (which an engine ignores)."""

    kind: str
    version: int = 0
    data: dict[str, Any] = field(default_factory=dict)
    movetime: Optional[int] = None
    timeleft: Optional[int] = None
    inc: int = 0


def _clip(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _int_token(token: str, what: str, line: str, most: Optional[int] = None) -> int:
    if not token.isdigit() or not token.isascii():
        raise ProtocolError(f"{_clip(line)}: {what} is {_clip(token)}, expected a whole number")
    if len(token) > _MAX_DIGITS or (most is not None and int(token) > most):
        limit = f"{most:,}" if most is not None else f"{_MAX_DIGITS} digits"
        raise ProtocolError(f"{_clip(line)}: {what} is {_clip(token)}, above the most ({limit})")
    return int(token)


def _check_length(line: str) -> None:
    size = len(line) if len(line) * 4 <= MAX_LINE else len(line.encode("utf-8", "surrogatepass"))
    if size > MAX_LINE:
        raise ProtocolError(f"a line of {size:,} bytes (the most is {MAX_LINE:,})")


#: ``info`` keys, the kind of value each takes, and the record's name for it.
_INFO = {"depth": int, "nodes": int, "value": float}


def _parse_info(rest: list[str]) -> tuple[dict[str, Any], str]:
    """The search facts of an ``info`` line's tokens, and the text after ``string``. A fact
    whose value does not read is left out: ``info`` never breaks the protocol."""
    facts: dict[str, Any] = {}
    i = 0
    while i < len(rest):
        key = rest[i]
        if key == "string":
            return facts, " ".join(rest[i + 1 :])
        if i + 1 < len(rest) and key in _INFO:
            token = rest[i + 1]
            try:
                value = _INFO[key](token)
            except ValueError:
                value = None
            if key == "value" and value is not None and not -1.0 <= value <= 1.0:
                value = None  # NaN too
            if key in ("depth", "nodes") and value is not None and value < 0:
                value = None
            if value is not None:
                facts[key] = value
        i += 2
    return facts, ""


def parse_engine_line(line: str) -> EngineMessage:
    """Reads a line an engine wrote. :raises ProtocolError: for anything else."""
    line = line.rstrip("\r\n")
    _check_length(line)
    if any(ord(c) < 32 and c != "\t" for c in line):
        raise ProtocolError(f"{_clip(line)}: control characters in a line")
    tokens = line.split()
    if not tokens:
        return EngineMessage("empty")
    word, rest = tokens[0], tokens[1:]
    if word == "id":
        if len(rest) < 2:
            raise ProtocolError(f"{_clip(line)}: expected 'id KEY TEXT' (id name My Engine)")
        return EngineMessage("id", key=rest[0], text=" ".join(rest[1:]))
    if word == "pepok":
        if len(rest) != 1:
            raise ProtocolError(f"{_clip(line)}: expected 'pepok VERSION'")
        return EngineMessage("pepok", version=_int_token(rest[0], "the version", line))
    if word == "readyok":
        if rest:
            raise ProtocolError(f"{_clip(line)}: 'readyok' takes nothing after it")
        return EngineMessage("readyok")
    if word == "info":
        facts, text = _parse_info(rest)
        return EngineMessage("info", text=text, info=facts)
    if word == "bestmove":
        if not rest:
            raise ProtocolError(f"{_clip(line)}: 'bestmove' without a move")
        return EngineMessage("bestmove", text=" ".join(rest))
    raise ProtocolError(
        f"{_clip(line)}: not a message of the protocol (id, pepok, readyok, info, bestmove)"
    )


def _json_object(text: str, what: str, line: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise ProtocolError(f"{_clip(line)}: {what} is not JSON: {e}") from None
    if not isinstance(data, dict):
        raise ProtocolError(f"{_clip(line)}: {what} is not a JSON object")
    return data


def parse_driver_line(line: str) -> DriverMessage:
    """Reads a line the driver wrote (an engine's side). A command the engine does not know is
    ``"unknown"``, to be ignored. :raises ProtocolError: for a known command that is malformed
    (naming what is wrong)."""
    line = line.rstrip("\r\n")
    _check_length(line)
    stripped = line.strip()
    if not stripped:
        return DriverMessage("empty")
    word, _, rest = stripped.partition(" ")
    rest = rest.strip()
    if word == "pep":
        return DriverMessage("pep", version=_int_token(rest, "the version", line))
    if word in ("isready", "quit"):
        return DriverMessage(word)
    if word == "newgame":
        data = _json_object(rest, "the game", line)
        if data.get("game") not in ("fish", "marathon"):
            raise ProtocolError(f"{_clip(line)}: 'game' is {data.get('game')!r}: fish or marathon")
        if not isinstance(data.get("config"), dict):
            raise ProtocolError(f"{_clip(line)}: 'config' is not a JSON object")
        return DriverMessage("newgame", data=data)
    if word == "position":
        data = _json_object(rest, "the position", line)
        if not isinstance(data.get("start"), dict):
            raise ProtocolError(f"{_clip(line)}: 'start' is not a JSON object (a position)")
        moves = data.get("moves", [])
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise ProtocolError(f"{_clip(line)}: 'moves' is not a list of moves in notation")
        return DriverMessage("position", data={"start": data["start"], "moves": moves})
    if word == "go":
        tokens = rest.split()
        if len(tokens) == 2 and tokens[0] == "movetime":
            return DriverMessage("go", movetime=_int_token(tokens[1], "movetime", line, MAX_MS))
        if len(tokens) == 4 and tokens[0] == "timeleft" and tokens[2] == "inc":
            return DriverMessage(
                "go",
                timeleft=_int_token(tokens[1], "timeleft", line, MAX_MS),
                inc=_int_token(tokens[3], "inc", line, MAX_MS),
            )
        raise ProtocolError(f"{_clip(line)}: expected 'go movetime MS' or 'go timeleft MS inc MS'")
    return DriverMessage("unknown")


def _game_name(game: Any) -> str:
    if isinstance(game, Fish):
        return "fish"
    if isinstance(game, Marathon):
        return "marathon"
    raise TypeError(f"an engine plays pingvinas.Fish or pingvinas.Marathon, not {type(game)}")


def format_newgame(game: Game, seat: int) -> str:
    """``newgame {...}``: the variant (its config, as ``to_config()`` gives it), the number of
    players and the engine's seat."""
    data = {
        "game": _game_name(game),
        "config": game.to_config(),
        "players": game.players,
        "seat": seat,
    }
    return "newgame " + json.dumps(data, separators=(",", ":"))


def format_position(start: State, moves: Sequence[Any]) -> str:
    """``position {"start": STATE, "moves": [...]}``: the position the moves start from (the
    state's JSON) and the moves since, in notation."""
    data = {"start": json.loads(start.to_json()), "moves": [str(m) for m in moves]}
    return "position " + json.dumps(data, separators=(",", ":"))


def format_go(
    movetime: Optional[float] = None, timeleft: Optional[float] = None, inc: float = 0.0
) -> str:
    """``go movetime MS`` (seconds for this move) or ``go timeleft MS inc MS`` (the engine's
    clock and what each move adds), in whole milliseconds, at least 1 and at most
    :data:`MAX_MS`."""

    def ms(seconds: float, least: int) -> int:
        return min(max(least, round(seconds * 1000)), MAX_MS)

    if movetime is not None:
        return f"go movetime {ms(movetime, 1)}"
    if timeleft is None:
        raise ValueError("go: give movetime or timeleft")
    return f"go timeleft {ms(timeleft, 1)} inc {ms(inc, 0)}"
