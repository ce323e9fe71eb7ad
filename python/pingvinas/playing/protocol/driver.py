"""The driver's side of the engine protocol (``docs/protocol.md``): :class:`EngineAgent` plays
an external engine process as an agent (``"cmd:./my-engine --flag"`` wherever agents are
named), beside the built-in ones:

```pycon
>>> import pingvinas as pv
>>> from pingvinas.playing.protocol.driver import EngineAgent
>>> engine = EngineAgent("pingvinas engine --agent greedy", time=0.1)  # doctest: +SKIP
>>> pv.play_match(pv.Fish(), [engine, "random"], games=2)               # doctest: +SKIP

```

An engine that faults (it exits, it misses its clock by more than the grace, it answers an
illegal or unreadable move, or it writes something that is not the protocol) raises
:class:`EngineFault` from ``choose``: a match scores that game as lost by it, with the reason,
and the next game starts a fresh process. No engine process outlives its game: each runs in a
process group of its own, which :meth:`EngineAgent.close` (called by the match after every
game, on errors and on Ctrl-C) and, at the latest, the interpreter's exit kill.
"""

from __future__ import annotations

import atexit
import math
import os
import queue
import shlex
import shutil
import signal
import subprocess
import threading
import time as _time
import weakref
from collections.abc import Sequence
from typing import Any, Optional, Union

from ..._core import (
    Fish,
    IllegalMoveError,
    InvalidMoveError,
    Marathon,
)
from ...games import Game, Move, State
from ..agents import Agent
from .grammar import (
    MAX_LINE,
    VERSION,
    EngineMessage,
    ProtocolError,
    _clip,
    format_go,
    format_newgame,
    format_position,
    parse_engine_line,
)

__all__ = ["FAULTS", "EngineAgent", "EngineFault", "engine_agent"]

#: The reasons a game is lost to a fault, with what each means.
FAULTS = {
    "crash": "the engine exited or closed its output",
    "time": "no answer within the clock and the grace",
    "illegal": "a move that is not legal, or not a move, in the position",
    "protocol": "a line that is not the protocol",
}  #: Seconds that ``close`` waits for an engine to quit before killing it.
QUIT_WAIT = 0.5


class EngineFault(Exception):
    """An external engine lost its game: ``reason`` is one of :data:`FAULTS` (``"crash"``,
    ``"time"``, ``"illegal"``, ``"protocol"``), ``detail`` says what happened."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


#: Every engine process running, closed at the interpreter's exit at the latest.
_RUNNING: weakref.WeakSet[_Process] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for proc in list(_RUNNING):
        proc.kill()


_EOF = object()


class _Process:
    """One engine process: its own process group, a thread reading its lines into a queue
    (so that reads can time out), a thread writing to it (so that an engine that stops reading
    cannot block the driver past the clock), and a thread keeping the end of what it writes
    to stderr (for the crash report)."""

    def __init__(self, args: Sequence[str]) -> None:
        kwargs: dict[str, Any] = {}
        if os.name == "posix":
            kwargs["start_new_session"] = True  # its own group: Ctrl-C is ours to pass on
        else:  # pragma: no cover - Windows
            kwargs["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
        self.popen = subprocess.Popen(
            list(args),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            **kwargs,
        )
        _RUNNING.add(self)
        self.lines: queue.Queue[Any] = queue.Queue()
        self.stderr_tail = b""
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.err_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self.err_reader.start()
        self.outbox: queue.Queue[Optional[bytes]] = queue.Queue()
        self.write_failed = False
        self.writer = threading.Thread(target=self._write, daemon=True)
        self.writer.start()

    def _read(self) -> None:
        stream = self.popen.stdout
        assert stream is not None
        try:
            while True:
                raw = stream.readline(MAX_LINE + 2)
                if not raw:
                    break
                self.lines.put(raw)
        except (OSError, ValueError):  # closed under us by kill()
            pass
        self.lines.put(_EOF)

    def _read_stderr(self) -> None:
        stream = self.popen.stderr
        assert stream is not None
        try:
            while True:
                chunk = os.read(stream.fileno(), 4096)
                if not chunk:
                    break
                self.stderr_tail = (self.stderr_tail + chunk)[-2048:]
        except (OSError, ValueError):
            pass

    def _write(self) -> None:
        stdin = self.popen.stdin
        assert stdin is not None
        try:
            while True:
                data = self.outbox.get()
                if data is None:
                    break
                stdin.write(data)
                stdin.flush()
        except (OSError, ValueError):  # the engine is gone, or closed under us by kill()
            self.write_failed = True

    def send(self, line: str) -> None:
        """Queues a line for the engine; ``OSError`` once writing to it has failed."""
        if self.write_failed:
            raise OSError("the engine's input is closed")
        self.outbox.put(line.encode("utf-8") + b"\n")

    def exit_note(self) -> str:
        """How the process ended (after a short wait), and the last line of its stderr."""
        try:
            code = self.popen.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            code = None
        self.err_reader.join(timeout=0.2)
        note = "closed its output" if code is None else f"exited with code {code}"
        if code is not None and code < 0:
            try:
                note = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                pass
        tail = self.stderr_tail.decode("utf-8", "replace").strip().splitlines()
        return f"{note}: {tail[-1][:200]}" if tail else note

    def kill(self) -> None:
        """Ends the process and everything it started (its group), and reaps it."""
        if self.popen.poll() is None:
            try:
                if os.name == "posix":
                    os.killpg(self.popen.pid, signal.SIGKILL)
                else:  # pragma: no cover - Windows
                    self.popen.kill()
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process the kernel holds
            pass
        if os.name == "posix":  # what it left behind in its group
            try:
                os.killpg(self.popen.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self.outbox.put(None)
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        _RUNNING.discard(self)

    def close(self) -> None:
        """Asks the engine to quit, waits a moment, then kills what is left."""
        if self.popen.poll() is None:
            try:
                self.send("quit")
                self.popen.wait(timeout=QUIT_WAIT)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
        self.kill()


def _command(command: Union[str, Sequence[str]]) -> list[str]:
    if isinstance(command, str):
        try:
            args = shlex.split(command)
        except ValueError as e:
            raise ValueError(f"engine command {_clip(command)}: {e}") from None
    elif isinstance(command, (bytes, bytearray)):  # else read as a list of its byte values
        raise TypeError(f"engine command {command!r}: expected a str or a list of str, not bytes")
    else:
        args = [str(a) for a in command]
    if not args:
        raise ValueError("engine command: empty")
    return args


def _check_number(name: str, value: Any, positive: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} = {value!r}: expected a finite number of seconds")
    if value < 0 or (positive and value == 0):
        least = "above 0" if positive else "0 or more"
        raise ValueError(f"{name} = {value!r}: expected seconds, {least}")
    return float(value)


class EngineAgent(Agent):
    """An external engine, run as a process that speaks the protocol, as an agent.

    :param command: the command line (split as a shell would, without running a shell) or
        its arguments; the program must exist (``ValueError`` otherwise).
    :param time: seconds per move (``go movetime``), unless ``clock`` is given.
    :param clock: ``(seconds, increment)``: a clock per game instead (``go timeleft``); each
        move's time is taken off it, then the increment added.
    :param grace: seconds past the clock that an answer may take before the game is lost on
        time (the pipes and the process's own start are not the engine's fault).
    :param startup: seconds for the handshake and for ``readyok`` after each new game.
    :param name: for tables (default: the command line).

    One process per game: started at the engine's first move, closed by :meth:`close` (the
    match calls it after every game) or by :meth:`reset`. A fault raises
    :class:`EngineFault` and kills the process. ``facts`` holds the search facts of the last
    ``info`` lines (``depth``, ``nodes``, ``value``) and the time the move took.
    """

    def __init__(
        self,
        command: Union[str, Sequence[str]],
        *,
        time: float = 1.0,
        clock: Optional[tuple[float, float]] = None,
        grace: float = 1.0,
        startup: float = 10.0,
        name: Optional[str] = None,
    ) -> None:
        self.args = _command(command)
        program = self.args[0]
        if shutil.which(program) is None and not os.path.isfile(program):
            raise ValueError(f"engine command {_clip(program)}: no such program")
        self.time = _check_number("time", time)
        if clock is not None:
            if not isinstance(clock, (tuple, list)) or len(clock) != 2:
                raise ValueError(f"clock = {clock!r}: expected (seconds, increment)")
            clock = (_check_number("clock", clock[0]), _check_number("clock", clock[1], False))
        self.clock = clock
        self.grace = _check_number("grace", grace, positive=False)
        self.startup = _check_number("startup", startup)
        self.name = name or (command if isinstance(command, str) else shlex.join(self.args))
        #: The engine's own name, from its handshake.
        self.engine_name: Optional[str] = None
        self.facts: dict[str, Any] = {}
        self._proc: Optional[_Process] = None
        self._stopped = False
        self._start: Optional[State] = None
        self._moves: list[Any] = []
        self._left = 0.0

    # -- what a match calls ----------------------------------------------------------------

    def follow(self, start: State, moves: Sequence[Move]) -> None:
        """The game so far, before a move is asked for: where it started and the moves since
        (sent to the engine as they are; without it, the position asked about is sent)."""
        self._start = start
        self._moves = list(moves)

    def choose(self, state: State) -> Any:
        start: State = state if self._start is None else self._start
        moves = self._moves if self._start is not None else []
        self._start, self._moves = None, []
        if self._stopped:
            raise EngineFault("crash", "stopped")
        try:
            if self._proc is None:
                self._begin(state)
            return self._move(state, start, moves)
        except BaseException:  # a fault, Ctrl-C or an error of ours: no process left behind
            self._kill()
            raise

    def reset(self) -> None:
        """A new game: a running engine is closed, the next move starts a fresh one."""
        self.close()
        self._stopped = False

    def close(self) -> None:
        """Closes the engine process (``quit``, then kill), if one is running."""
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.close()

    def stop(self) -> None:
        """Stops a move in progress from another thread (the match is stopping)."""
        self._stopped = True
        self._kill()

    def spawn(self, seed: Optional[int] = None) -> EngineAgent:
        return EngineAgent(
            self.args,
            time=self.time,
            clock=self.clock,
            grace=self.grace,
            startup=self.startup,
            name=self.name,
        )

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.update(_proc=None, _start=None, _moves=[], _stopped=False, facts={})
        return state

    def __del__(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc is not None:
            try:
                proc.kill()
            except Exception:  # the interpreter may be shutting down
                pass

    def __repr__(self) -> str:
        return f"EngineAgent({shlex.join(self.args)!r})"

    # -- the conversation ------------------------------------------------------------------

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()

    def _send(self, line: str) -> None:
        assert self._proc is not None
        try:
            self._proc.send(line)
        except (OSError, ValueError):
            raise EngineFault("crash", self._proc.exit_note()) from None

    def _read(self, deadline: float, waiting: str) -> EngineMessage:
        """The engine's next message other than ``info`` (kept in ``facts``) by ``deadline``."""
        proc = self._proc
        assert proc is not None
        while True:
            left = deadline - _time.monotonic()
            if left <= 0:
                raise EngineFault("time", f"no {waiting} in time")
            try:
                raw = proc.lines.get(timeout=min(left, 0.25))
            except queue.Empty:
                continue
            if raw is _EOF:
                if self._stopped:
                    raise EngineFault("crash", "stopped")
                raise EngineFault("crash", proc.exit_note())
            text = raw.decode("utf-8", "replace")
            if not text.endswith("\n") and len(text) > MAX_LINE:
                raise EngineFault("protocol", f"a line of more than {MAX_LINE:,} bytes")
            try:
                msg = parse_engine_line(text)
            except ProtocolError as e:
                raise EngineFault("protocol", f"waiting for {waiting}: {e}") from None
            if msg.kind == "info":
                self.facts.update(msg.info)
                continue
            if msg.kind == "empty":
                continue
            return msg

    def _expect(self, kind: str, deadline: float) -> EngineMessage:
        while True:
            msg = self._read(deadline, kind)
            if msg.kind == kind:
                return msg
            if msg.kind == "id" and kind == "pepok":
                if msg.key == "name":
                    self.engine_name = msg.text
                continue
            raise EngineFault("protocol", f"{msg.kind} while waiting for {kind}")

    def _begin(self, state: State) -> None:
        """Starts the process: the handshake, the new game, and ``readyok``."""
        try:
            self._proc = _Process(self.args)
        except OSError as e:
            raise EngineFault("crash", f"cannot start {_clip(self.args[0])}: {e}") from None
        deadline = _time.monotonic() + self.startup
        self._send(f"pep {VERSION}")
        reply = self._expect("pepok", deadline)
        if reply.version != VERSION:
            raise EngineFault("protocol", f"the engine speaks version {reply.version}, not 1")
        game = _game_of(state)
        self._send(format_newgame(game, int(state.to_move or 0)))
        self._send("isready")
        self._expect("readyok", _time.monotonic() + self.startup)
        self._left = self.clock[0] if self.clock is not None else 0.0

    def _move(self, state: State, start: State, moves: Sequence[Any]) -> Any:
        self.facts = {}
        self._send(format_position(start, moves))
        if self.clock is None:
            allowed = self.time
            go = format_go(movetime=self.time)
        else:
            allowed = self._left
            go = format_go(timeleft=self._left, inc=self.clock[1])
        began = _time.monotonic()
        self._send(go)
        reply = self._expect("bestmove", began + allowed + self.grace)
        took = _time.monotonic() - began
        if self.clock is not None:
            self._left = max(self._left - took, 0.0) + self.clock[1]
        try:
            move = state.parse_move(reply.text)
        except (InvalidMoveError, IllegalMoveError, ValueError) as e:
            detail = " ".join(str(e).split())[:200]
            raise EngineFault("illegal", f"bestmove {_clip(reply.text)}: {detail}") from None
        self.facts["time"] = took
        return move


def _game_of(state: State) -> Game:
    """The variant a state is of, from its JSON (which holds the variant's rules)."""
    game: Any = getattr(state, "game", None)
    if isinstance(game, (Fish, Marathon)):
        return game
    raise TypeError(f"cannot tell the variant of {type(state).__name__}")


def engine_agent(spec: str, time: float = 1.0) -> EngineAgent:
    """The agent of a ``"cmd:COMMAND"`` spec (``ValueError`` for an empty or missing
    command)."""
    if not spec.startswith("cmd:"):
        raise ValueError(f"{_clip(spec)}: an engine spec starts with 'cmd:'")
    return EngineAgent(spec[4:], time=time, name=spec[4:].strip() or None)
