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
and the next game starts a fresh process. No engine process outlives its game:
:meth:`EngineAgent.close` (called by the match after every game, on errors and on Ctrl-C) and,
at the latest, the interpreter's exit kill the engine's process group and, on Linux, every
process whose environment carries the engine's token (:data:`ENGINE_MARK`), so also what it
started in a session of its own. The driver never waits on a pipe, so a process that escapes
both (one that left the session and dropped the token, or any on other systems) holds up
nothing.
"""

from __future__ import annotations

import atexit
import collections
import itertools
import math
import os
import queue
import secrets
import select
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
    MAX_TIME,
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
    EngineFault,
    EngineMessage,
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
}
#: Seconds that ``close`` waits for an engine to quit before killing it.
QUIT_WAIT = 0.5


#: Every engine process running, closed at the interpreter's exit at the latest.
_RUNNING: weakref.WeakSet[_Process] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for proc in list(_RUNNING):
        proc.kill()


#: The environment variable that marks what an engine runs: each engine process gets a token
#: of its own added to it, which whatever it starts inherits (a driver inside an engine adds
#: its own), so that ``kill`` finds them even after they left the engine's process group.
ENGINE_MARK = "PINGVINAS_ENGINE"
#: Bytes read from a pipe at once.
_CHUNK = 1 << 16
#: Whether the pipes are read by threads of their own: where ``poll`` does not take pipes.
_THREADED = not hasattr(select, "poll")
_tokens = itertools.count()


def _marked(token: str) -> list[int]:
    """The live processes whose environment carries ``token`` in :data:`ENGINE_MARK`, this
    process aside (Linux's /proc; none where there is no /proc)."""
    key = ENGINE_MARK.encode() + b"="
    word = token.encode()
    found = []
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []
    for pid in pids:
        if pid == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                environ = f.read()
        except OSError:  # gone, or another user's
            continue
        for entry in environ.split(b"\0"):
            if entry.startswith(key) and word in entry[len(key) :].split():
                found.append(pid)
    return found


class _Process:
    """One engine process, in a process group of its own, and its three pipes.

    The pipes move bytes only in :meth:`pump`, which the thread playing the engine calls while
    it waits for an answer: lines for the engine wait in ``outbox`` until it reads them, and
    what it writes stays in the pipe, where a busy engine waits once the pipe is full, until
    the driver waits for an answer again. The driver so holds at most one line of an engine's
    output (:data:`MAX_LINE` bytes) and one read, and nothing blocks on a pipe: a process the
    engine started that keeps a pipe open delays nothing. Where ``poll`` does not take pipes
    (Windows) a thread reads each pipe and one writes, a bounded queue between them and
    ``pump``."""

    def __init__(self, args: Sequence[str]) -> None:
        kwargs: dict[str, Any] = {}
        if os.name == "posix":
            kwargs["start_new_session"] = True  # its own group: Ctrl-C is ours to pass on
        else:  # pragma: no cover - Windows
            kwargs["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
        self.token = f"{os.getpid()}.{next(_tokens)}.{secrets.token_hex(4)}"
        env = dict(os.environ)
        env[ENGINE_MARK] = f"{env.get(ENGINE_MARK, '')} {self.token}".strip()
        self.popen = subprocess.Popen(
            list(args),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            env=env,
            **kwargs,
        )
        _RUNNING.add(self)
        self.outbox = bytearray()  # for the engine's input, not written yet
        self.partial = bytearray()  # the engine's output after its last whole line
        self.lines: collections.deque[bytes] = collections.deque()  # whole lines, not taken
        self.stderr_tail = b""
        self.eof = False  # the output is closed
        self.err_eof = False
        self.too_long = False  # a line of more than MAX_LINE bytes
        self.write_failed = False
        self.closed = False
        self.threads: Optional[_PipeThreads] = None
        if _THREADED:  # where poll takes no pipes (Windows)
            self.threads = _PipeThreads(self)
        else:
            for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
                assert stream is not None
                os.set_blocking(stream.fileno(), False)

    # -- moving bytes ----------------------------------------------------------------------

    def _got(self, data: bytes) -> None:
        """Output read: whole lines into ``lines``, the rest kept for the next read."""
        if not data:
            self.eof = True
            return
        self.partial += data
        if b"\n" in data:
            *whole, rest = self.partial.split(b"\n")
            self.lines.extend(bytes(line) for line in whole)
            self.partial = rest
        if len(self.partial) > MAX_LINE + 1:  # + 1: a "\r" before the "\n"
            self.too_long = True
            self.partial = bytearray()

    def _got_err(self, data: bytes) -> None:
        if not data:
            self.err_eof = True
        self.stderr_tail = (self.stderr_tail + data)[-2048:]

    def reading(self) -> bool:
        """Whether the engine's output is still read (no whole line is waiting, no fault)."""
        return not (self.lines or self.eof or self.too_long or self.closed)

    def pump(self, timeout: float) -> int:
        """Moves bytes for at most ``timeout`` seconds: writes what the engine takes of
        ``outbox``, keeps the end of its stderr, and reads its output until a whole line is
        in ``lines`` (no further). Returns the bytes of output read."""
        if self.threads is not None:
            return self.threads.pump(timeout)
        stdin, stdout, stderr = self.popen.stdin, self.popen.stdout, self.popen.stderr
        assert stdin is not None and stdout is not None and stderr is not None
        if self.closed:
            return 0
        poller = select.poll()
        if self.reading():
            poller.register(stdout, select.POLLIN)
        if not self.err_eof:
            poller.register(stderr, select.POLLIN)
        if self.outbox and not self.write_failed:
            poller.register(stdin, select.POLLOUT)
        read = 0
        for fd, _ in poller.poll(max(timeout, 0.0) * 1000):
            if fd == stdout.fileno():
                while self.reading():
                    try:
                        data = os.read(fd, _CHUNK)
                    except BlockingIOError:
                        break
                    except OSError:
                        data = b""
                    read += len(data)
                    self._got(data)
            elif fd == stderr.fileno():
                try:
                    self._got_err(os.read(fd, _CHUNK))
                except BlockingIOError:
                    pass
                except OSError:
                    self._got_err(b"")
            else:
                try:
                    del self.outbox[: os.write(fd, self.outbox)]
                except BlockingIOError:
                    pass
                except OSError:  # the engine closed its input, or exited
                    self.write_failed = True
        return read

    def send(self, line: str) -> None:
        """Queues a line for the engine; ``OSError`` once writing to it has failed."""
        if self.write_failed or self.closed:
            raise OSError("the engine's input is closed")
        self.outbox += line.encode("utf-8") + b"\n"
        self.pump(0)

    # -- the process -----------------------------------------------------------------------

    def exit_note(self) -> str:
        """How the process ended (after a short wait), and the last line of its stderr."""
        try:
            code = self.popen.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            code = None
        deadline = _time.monotonic() + 0.2
        while not self.err_eof and _time.monotonic() < deadline:
            self.lines.clear()
            self.pump(0.02)
        note = "closed its output" if code is None else f"exited with code {code}"
        if code is not None and code < 0:
            try:
                note = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                pass
        tail = self.stderr_tail.decode("utf-8", "replace").strip().splitlines()
        return f"{note}: {tail[-1][:200]}" if tail else note

    def terminate(self) -> None:
        """Kills the process, its group and every process found with its token (any thread
        may call it), and reaps the process."""
        if os.name != "posix":  # pragma: no cover - Windows: the engine alone
            try:
                self.popen.kill()
            except OSError:
                pass
        # What is found is killed; what it started meanwhile, in the next round.
        for _ in range(3 if os.name == "posix" else 0):
            try:
                os.killpg(self.popen.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            found = _marked(self.token)
            for pid in found:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            if not found:
                break
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process the kernel holds
            pass

    def kill(self) -> None:
        """:meth:`terminate`, then closes the pipes (only the thread playing the engine, or
        the interpreter's exit, calls it: never while it pumps)."""
        self.terminate()
        self.closed = True
        if self.threads is not None:
            self.threads.close()
        else:
            for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
                if stream is not None:
                    stream.close()  # unbuffered: closing never waits
        _RUNNING.discard(self)

    def close(self) -> None:
        """Asks the engine to quit, waits a moment, then kills what is left."""
        if self.popen.poll() is None:
            try:
                self.send("quit")
            except OSError:
                pass
            deadline = _time.monotonic() + QUIT_WAIT
            while self.popen.poll() is None and _time.monotonic() < deadline:
                self.lines.clear()  # what it says now is read by no one
                self.pump(min(0.05, deadline - _time.monotonic()))
        self.kill()


class _PipeThreads:
    """The pipes of a :class:`_Process` where ``poll`` does not take pipes: a thread reads each
    of the output pipes into a bounded queue, which ``pump`` empties, and one writes. Each
    holds its pipe's file and closes it when the pipe ends; none holds a lock while it
    blocks."""

    def __init__(self, proc: _Process) -> None:
        self.proc = proc
        self.chunks: queue.Queue[tuple[bool, bytes]] = queue.Queue(maxsize=16)
        self.outgoing: queue.Queue[Optional[bytes]] = queue.Queue()
        popen = proc.popen
        for target, stream in (
            (self._read, (popen.stdout, True)),
            (self._read, (popen.stderr, False)),
            (self._write, (popen.stdin,)),
        ):
            threading.Thread(target=target, args=stream, daemon=True).start()

    def _read(self, stream: Any, out: bool) -> None:
        with stream:
            while True:
                try:
                    data = os.read(stream.fileno(), _CHUNK)
                except OSError:
                    data = b""
                while not self.proc.closed:  # a full queue: the engine waits with its output
                    try:
                        self.chunks.put((out, data), timeout=0.5)
                        break
                    except queue.Full:
                        pass
                if not data or self.proc.closed:
                    return

    def _write(self, stream: Any) -> None:
        with stream:
            while True:
                data = self.outgoing.get()
                if data is None:
                    return
                try:
                    while data:
                        data = data[os.write(stream.fileno(), data) :]
                except OSError:
                    self.proc.write_failed = True
                    return

    def pump(self, timeout: float) -> int:
        proc = self.proc
        if proc.outbox:
            self.outgoing.put(bytes(proc.outbox))
            proc.outbox.clear()
        read = 0
        if not proc.reading() and proc.err_eof:  # nothing to wait for but the time
            _time.sleep(max(timeout, 0.0))
            return read
        deadline = _time.monotonic() + max(timeout, 0.0)
        while proc.reading() or not proc.err_eof:
            try:
                out, data = self.chunks.get(timeout=max(deadline - _time.monotonic(), 0.0))
            except queue.Empty:
                break
            if out:
                read += len(data)
                proc._got(data)
            else:
                proc._got_err(data)
            if proc.lines:
                break
        return read

    def close(self) -> None:
        self.outgoing.put(None)


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


def _check_number(name: str, value: Any, positive: bool = True, most: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} = {value!r}: expected a finite number of seconds")
    if value < 0 or (positive and value == 0):
        least = "above 0" if positive else "0 or more"
        raise ValueError(f"{name} = {value!r}: expected seconds, {least}")
    if value > most:
        raise ValueError(f"{name} = {value!r}: expected at most {most:g} seconds (a week)")
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
        most = MAX_TIME
        self.time = _check_number("time", time, most=most)
        if clock is not None:
            if not isinstance(clock, (tuple, list)) or len(clock) != 2:
                raise ValueError(f"clock = {clock!r}: expected (seconds, increment)")
            clock = (
                _check_number("clock", clock[0], most=most),
                _check_number("clock", clock[1], False, most),
            )
        self.clock = clock
        self.grace = _check_number("grace", grace, positive=False)
        self.startup = _check_number("startup", startup)
        self.name = name or (command if isinstance(command, str) else shlex.join(self.args))
        #: The engine's own name, from its handshake.
        self.engine_name: Optional[str] = None
        self.facts: dict[str, Any] = {}
        #: The text of the engine's last ``info string`` of the move.
        self.said = ""
        self._proc: Optional[_Process] = None
        self._stopped = False
        self._synced = False  # readyok read since the last bestmove
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
        """Stops a move in progress from another thread (the match is stopping): the engine is
        killed at once, its pipes closed by the thread playing it (within a tenth of a
        second)."""
        self._stopped = True
        proc = self._proc
        if proc is not None:
            proc.terminate()

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
        state.update(
            _proc=None, _start=None, _moves=[], _stopped=False, _synced=False, facts={}, said=""
        )
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

    def _message(self, raw: bytes, waiting: str) -> EngineMessage:
        """A line of the engine's, read; ``info`` is kept in ``facts`` (its ``string`` in
        ``said``)."""
        if len(raw.rstrip(b"\r")) > MAX_LINE:
            raise EngineFault("protocol", f"a line of more than {MAX_LINE:,} bytes")
        try:
            msg = parse_engine_line(raw.decode("utf-8", "replace"))
        except ValueError as e:
            raise EngineFault("protocol", f"waiting for {waiting}: {e}") from None
        if msg.kind == "info":
            self.facts.update(msg.info)
            if msg.text:
                self.said = msg.text
        return msg

    def _read(self, deadline: float, waiting: str) -> EngineMessage:
        """The engine's next message other than ``info`` and empty lines, by ``deadline``."""
        proc = self._proc
        assert proc is not None
        while True:
            if proc.lines:
                msg = self._message(proc.lines.popleft(), waiting)
                if msg.kind in ("info", "empty"):
                    continue
                return msg
            if self._stopped:
                raise EngineFault("crash", "stopped")
            if proc.too_long:
                raise EngineFault("protocol", f"a line of more than {MAX_LINE:,} bytes")
            # An engine that exited is gone even while a process it started holds its output.
            if proc.eof or (proc.popen.poll() is not None and not proc.pump(0)):
                raise EngineFault("crash", proc.exit_note())
            left = deadline - _time.monotonic()
            if left <= 0:
                raise EngineFault("time", f"no {waiting} in time")
            proc.pump(min(left, 0.1))

    def _expect(self, kind: str, deadline: float) -> EngineMessage:
        while True:
            msg = self._read(deadline, kind)
            if msg.kind == kind:
                return msg
            if msg.kind == "id" and kind == "pepok":
                if msg.key == "name":
                    self.engine_name = msg.text
                continue
            if msg.kind == "bestmove":
                detail = f"bestmove {_clip(msg.text)} that answers no go (before one, or a second)"
                raise EngineFault("protocol", detail)
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
        self._synced = True
        self._left = self.clock[0] if self.clock is not None else 0.0

    def _move(self, state: State, start: State, moves: Sequence[Any]) -> Any:
        if self._synced:
            self._synced = False
        else:  # a bestmove written since the last one is read before readyok: it answers no go
            self._send("isready")
            self._expect("readyok", _time.monotonic() + self.startup)
        self.facts, self.said = {}, ""
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
            if reply.text == "none":  # the engine could not move, and says why
                detail = f"no move ({_clip(self.said, 200)})" if self.said else "no move"
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
