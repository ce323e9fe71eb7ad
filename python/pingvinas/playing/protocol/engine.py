"""The engine's side of the protocol: :func:`run_engine` makes any of the project's agents a
protocol engine (``pingvinas engine --agent auto``)."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from typing import IO, Any, Optional

from ..._core import (
    Fish,
    FishState,
    Marathon,
    MarathonState,
    seed_for,
)
from ...games import State
from ..agents import Agent
from .grammar import MAX_LINE, VERSION, DriverMessage, ProtocolError, parse_driver_line

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


def run_engine(
    agent: Agent,
    *,
    name: Optional[str] = None,
    input: Optional[IO[str]] = None,
    output: Optional[IO[str]] = None,
    seed: int = 0,
) -> None:
    """Plays ``agent`` as a protocol engine on ``input`` and ``output`` (stdin and stdout by
    default) until ``quit`` or the end of the input. Each ``newgame`` plays a fresh copy of
    the agent (``agent.spawn``, seeded from ``seed`` and the game's number); a search agent
    searches the time each ``go`` gives. A malformed line is answered with ``info string
    error: ...`` and otherwise ignored, as are commands the engine does not know."""
    src = sys.stdin if input is None else input
    out = sys.stdout if output is None else output

    def say(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    player = agent.spawn(seed)
    games = 0
    state: Optional[State] = None
    while True:
        raw = src.readline(MAX_LINE + 2)
        if not raw:
            return
        try:
            msg = parse_driver_line(raw)
        except ProtocolError as e:
            say(f"info string error: {' '.join(str(e).split())}")
            continue
        if msg.kind == "pep":
            if msg.version != VERSION:
                say(f"info string error: the driver speaks version {msg.version}, this engine 1")
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
                say(f"info string error: the variant: {' '.join(str(e).split())}")
            player = agent.spawn(seed_for(seed, games))
            player.reset()
            games += 1
            state = None
        elif msg.kind == "position":
            try:
                state = _state_from(msg.data["start"], msg.data["moves"])
            except ValueError as e:
                state = None
                say(f"info string error: the position: {' '.join(str(e).split())}")
        elif msg.kind == "go":
            if state is None or state.is_over:
                say("info string error: no position to move in")
                say("bestmove none")
                continue
            budget = getattr(player, "budget", None)
            if isinstance(budget, dict) and "time" in budget:
                budget["time"] = _seconds_for(msg)
            move = player.choose(state)
            facts = _facts_line(getattr(player, "last", None))
            if facts is not None:
                say(facts)
            say(f"bestmove {move}")
        elif msg.kind == "quit":
            return
