"""The engine's side of the protocol: :func:`run_engine` makes any of the project's agents a
protocol engine (``pingvinas engine --agent auto``)."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from typing import IO, Any, Optional, Union

from ..._core import (
    Fish,
    FishState,
    Marathon,
    MarathonState,
    seed_for,
)
from ...games import State
from ..agents import Agent
from .grammar import (
    MAX_LINE,
    VERSION,
    DriverMessage,
    EngineFault,
    ProtocolError,
    parse_driver_line,
)

__all__ = ["run_engine"]


def _state_from(data: dict[str, Any], moves: Sequence[str]) -> State:
    """The position of a ``position`` message (``ValueError`` naming what is wrong)."""
    kind = data.get("game")
    text = json.dumps(data)
    state: State
    if kind == "fish":
        state = FishState.from_json(text)
    elif kind == "marathon":
        state = MarathonState.from_json(text)
    else:
        raise ValueError(f"the start position's 'game' is {kind!r}: fish or marathon")
    for i, mv in enumerate(moves):
        try:
            state.play(mv)
        except ValueError as e:
            raise ValueError(f"move {i + 1} ({mv!r}): {e}") from None
    return state


def _seconds_for(msg: DriverMessage) -> float:
    """The time to spend on this move: the move time, or with a clock a twentieth of what is
    left plus most of the increment, never more than half of what is left."""
    if msg.movetime is not None:
        return max(msg.movetime / 1000, 0.001)
    left, inc = (msg.timeleft or 0) / 1000, msg.inc / 1000
    return max(min(left / 20 + 0.75 * inc, left / 2), 0.001)


def _facts_line(found: Any) -> Optional[str]:
    """``info depth D nodes N value V`` of a search result, if the agent searched."""
    if found is None:
        return None
    parts = []
    for key in ("depth", "nodes", "value"):
        value = getattr(found, key, None)
        if value is None or (isinstance(value, float) and not math.isfinite(value)):
            continue
        parts.append(f"{key} {value:.4f}" if key == "value" else f"{key} {int(value)}")
    return "info " + " ".join(parts) if parts else None


def _read_line(src: Any) -> Union[str, ProtocolError, None]:
    """The next line of ``src`` (a binary or a text stream), or ``None`` at the end of the input.
    A line of more than :data:`MAX_LINE` bytes (read to its end and dropped: no piece of it is
    read as a line) or not UTF-8 is a :class:`ProtocolError` instead."""
    raw = src.readline(MAX_LINE + 2)
    if not raw:
        return None
    newline: Any = b"\n" if isinstance(raw, bytes) else "\n"
    if len(raw) >= MAX_LINE + 2 and not raw.endswith(newline):
        while True:
            rest = src.readline(1 << 16)
            if not rest or rest.endswith(newline):
                break
        return ProtocolError(f"a line of more than {MAX_LINE:,} bytes")
    if isinstance(raw, bytes):
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as e:
            return ProtocolError(f"a line that is not UTF-8 (byte {e.start + 1})")
    return str(raw)


def run_engine(
    agent: Agent,
    *,
    name: Optional[str] = None,
    input: Optional[IO[str]] = None,
    output: Optional[IO[str]] = None,
    seed: int = 0,
) -> None:
    """Plays ``agent`` as a protocol engine on ``input`` and ``output`` (stdin and stdout by
    default, read and written as UTF-8 bytes whatever their encoding) until ``quit`` or the end
    of the input. Each ``newgame`` plays a fresh copy of the agent (``agent.spawn``, seeded from
    ``seed`` and the game's number); a search agent searches the time each ``go`` gives (with
    a count of its own, ``alphabeta:D`` or ``mcts:N``, the count or the time, whichever ends
    first), whatever input is waiting. A malformed line is answered with ``info string error:
    ...`` and otherwise ignored, as are commands the engine does not know; a ``go`` it cannot
    answer with a move (no position, a malformed ``go``, an agent that fails) with ``info
    string error: ...`` and ``bestmove none``."""
    src: Any = input if input is not None else getattr(sys.stdin, "buffer", sys.stdin)
    out: Any = output if output is not None else getattr(sys.stdout, "buffer", sys.stdout)
    binary = output is None and out is not sys.stdout

    def say(line: str) -> None:
        out.write((line + "\n").encode("utf-8") if binary else line + "\n")
        out.flush()

    def error(what: Any) -> None:
        say(f"info string error: {' '.join(str(what).split())}")

    player = agent.spawn(seed)

    def converse() -> None:
        nonlocal player
        games = 0
        state: Optional[State] = None
        while True:
            line = _read_line(src)
            if line is None:
                return
            try:
                if isinstance(line, ProtocolError):
                    raise line
                msg = parse_driver_line(line)
            except ProtocolError as e:
                error(e)
                if not isinstance(line, ProtocolError) and line.split()[:1] == ["go"]:
                    say("bestmove none")  # the driver waits for an answer
                continue
            if msg.kind == "pep":
                if msg.version != VERSION:
                    error(f"the driver speaks version {msg.version}, this engine 1")
                say(f"id name {name or agent.name}")
                say("id author pingvinas")
                say(f"pepok {VERSION}")
            elif msg.kind == "isready":
                say("readyok")
            elif msg.kind == "newgame":
                try:
                    loader = Fish if msg.data["game"] == "fish" else Marathon
                    loader.from_config(msg.data["config"])
                except ValueError as e:
                    error(f"the variant: {e}")
                _close(player)
                player = agent.spawn(seed_for(seed, games))
                player.reset()
                games += 1
                state = None
            elif msg.kind == "position":
                try:
                    state = _state_from(msg.data["start"], msg.data["moves"])
                except ValueError as e:
                    state = None
                    error(f"the position: {e}")
            elif msg.kind == "go":
                if state is None or state.is_over:
                    error("no position to move in")
                    say("bestmove none")
                    continue
                budget = getattr(player, "budget", None)
                if isinstance(budget, dict) and "time" in budget:
                    budget["time"] = _seconds_for(msg)
                try:
                    move = player.choose(state)
                except (ValueError, EngineFault) as e:  # a position it cannot solve in time, ...
                    error(e)
                    say("bestmove none")
                    continue
                facts = _facts_line(getattr(player, "last", None))
                if facts is not None:
                    say(facts)
                say(f"bestmove {move}")
            elif msg.kind == "quit":
                return

    try:
        converse()
    finally:  # an agent holding a process (an external engine) ends it with this one
        _close(player)


def _close(player: Agent) -> None:
    close = getattr(player, "close", None)
    if callable(close):
        close()
