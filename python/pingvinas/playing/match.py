"""Matches between agents: many games, in parallel, with a results table.

```pycon
>>> import pingvinas as pv
>>> from pingvinas.playing.match import play_match
>>> result = play_match(pv.Fish(), ["greedy", "random"], games=4, seed=1, progress=False)
>>> result.games
4
>>> print(result)  # doctest: +SKIP
agent   games  wins  draws  losses  score  95% CI         seat 0  seat 1
greedy      4     4      0       0  1.000  [1.000, 1.000]  ...

```
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import time as _time
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor
from concurrent.futures import wait as _wait
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Optional, Union

from .._args import is_int
from .._files import Output, check_output, named
from .._progress import Progress
from ..cluster import TASK_RETRIES, _cached, _cluster_cpus, _stream, init
from ..record import GameRecord as _WholeGame
from .agents import Agent, SearchAgent
from .one_game import GameResult, Playable, Stop, Stopped, game_seed, new_state, play_one
from .specs import as_agent

__all__ = ["AgentStats", "GameResult", "MatchResult", "play_match"]

#: The old name of :class:`GameResult` (the whole game is a :class:`pingvinas.record.GameRecord`).
GameRecord = GameResult


@dataclass
class AgentStats:
    """One agent's results over a match."""

    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    #: Per game: 1 for a win, 0 for a loss, 1/k when sharing first place with k - 1 others
    #: (two players: a draw is 1/2). More players: the return mapped to [0, 1].
    points: list[float] = field(default_factory=list)
    #: Per seat: the scores (Fish: fish) this agent made sitting there.
    seat_scores: dict[int, list[float]] = field(default_factory=dict)
    #: Games lost to a fault of this agent (an external engine), by reason.
    faults: dict[str, int] = field(default_factory=dict)

    @property
    def score_rate(self) -> float:
        return sum(self.points) / len(self.points) if self.points else float("nan")

    @property
    def ci95(self) -> tuple[float, float]:
        """A 95% confidence interval of the score rate (Wilson's interval on the mean score,
        which stays inside [0, 1] even at 0% or 100%)."""
        n = len(self.points)
        if n == 0:
            return (float("nan"), float("nan"))
        p = self.score_rate
        z = 1.959963984540054
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * math.sqrt(max(p * (1 - p), 0.0) / n + z * z / (4 * n * n)) / denom
        return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))

    def seat_average(self, seat: int) -> float:
        xs = self.seat_scores.get(seat, [])
        return sum(xs) / len(xs) if xs else float("nan")


@dataclass
class MatchResult:
    """The table of a match. ``str(result)`` prints it; ``rows()`` gives it as dicts."""

    agents: list[AgentStats]
    records: list[GameResult]
    players: int
    elapsed: float
    #: What the ``seat n`` columns average: ``"fish"`` (Fish) or ``"return"`` (other games).
    score_name: str = "fish"

    @property
    def games(self) -> int:
        return len(self.records)

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for a in self.agents:
            lo, hi = a.ci95
            row: dict[str, Any] = dict(
                agent=a.name,
                games=a.games,
                wins=a.wins,
                draws=a.draws,
                losses=a.losses,
                score=a.score_rate,
                ci_low=lo,
                ci_high=hi,
            )
            for s in range(self.players):
                row[f"seat{s}_avg"] = a.seat_average(s)
            row["faults"] = dict(a.faults)
            out.append(row)
        return out

    def __str__(self) -> str:
        head = ["agent", "games", "wins", "draws", "losses", "score", "95% CI"]
        head += [f"seat {s} {self.score_name}" for s in range(self.players)]
        faulted = any(a.faults for a in self.agents)
        if faulted:
            head.append("faults")
        lines = []
        for a in self.agents:
            lo, hi = a.ci95
            lines.append(
                [
                    a.name,
                    str(a.games),
                    str(a.wins),
                    str(a.draws),
                    str(a.losses),
                    f"{a.score_rate:.3f}",
                    f"[{lo:.3f}, {hi:.3f}]",
                ]
                # "-", not nan, for a seat the agent never sat in (5 players, few games).
                + [
                    f"{a.seat_average(s):.2f}" if a.seat_scores.get(s) else "-"
                    for s in range(self.players)
                ]
                + (
                    [" ".join(f"{k}:{v}" for k, v in sorted(a.faults.items())) or "-"]
                    if faulted
                    else []
                )
            )
        widths = [max(len(h), *(len(r[i]) for r in lines)) for i, h in enumerate(head)]

        def fmt(r: list[str]) -> str:
            return "  ".join(
                x.ljust(w) if i == 0 else x.rjust(w) for i, (x, w) in enumerate(zip(r, widths))
            )

        what = self.score_name
        if what != "fish":
            what = "return (+1 a win, -1/(players-1) a loss, 0 a draw)"
        notes = [
            "score: mean points per game with its 95% CI (1 a win, 0 a loss, 1/2 a two-player draw;"
            " more players: (return + 1) / 2);",
            f"seat n {self.score_name}: the agent's mean {what} in games it played from seat n"
            " (- where it never did).",
        ]
        if faulted:
            notes.append(
                "faults: games an external engine lost by faulting: crash (it exited), time "
                "(no move within the clock and grace), illegal (an illegal or unreadable move), "
                "protocol (output that is not the protocol)."
            )
        return "\n".join([fmt(head)] + [fmt(r) for r in lines] + notes)

    def _repr_html_(self) -> str:  # pragma: no cover - notebooks
        return "<pre>" + str(self) + "</pre>"


class _Saver:
    """The ``save`` file of a match, written as games finish: each record goes out as soon as
    every game before it has, so that the file stays in game order. ``close()`` also writes the
    finished games still waiting for an earlier one (after an error or Ctrl-C), in game order.

    The records go to a temporary file beside ``path``, made before the first game (so that a
    bad path fails at once) and renamed into place by ``close()``; with ``append``, to the end
    of ``path``, opened at the first record. Either way, until a game finishes nothing is
    written: a match stopped before then leaves no file, or the one that was there. Each record
    is written whole or not at all: a write that fails halfway (a full disk, a file size limit)
    is cut off again, so the file never ends in part of a line."""

    def __init__(self, path: Union[str, os.PathLike[str]], append: bool = False) -> None:
        self.path = check_output(path)
        self.output = None if append else Output(self.path, binary=True)
        self.file: Optional[IO[bytes]] = None if self.output is None else self.output.file
        self.size = 0  # the bytes of whole records in the file
        self.waiting: dict[int, _WholeGame] = {}
        self.next = 0
        self.written = 0

    def add(self, index: int, record: Optional[_WholeGame]) -> None:
        if record is None:
            return
        self.waiting[index] = record
        while self.next in self.waiting:
            # Waiting until written: one stopped halfway is written again by close().
            self._write(self.waiting[self.next])
            del self.waiting[self.next]
            self.next += 1

    def _write(self, record: _WholeGame) -> None:
        if self.file is None:
            self.file = open(self.path, "ab")
            self.size = self.file.seek(0, os.SEEK_END)
        fd = self.file.fileno()
        line = (record.to_json() + "\n").encode("utf-8")
        try:
            done = 0
            while done < len(line):
                done += os.write(fd, line[done:])
        except BaseException as e:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, self.size)
                os.lseek(fd, self.size, os.SEEK_SET)
            if isinstance(e, OSError):
                raise named(e, self.path, "") from None
            raise
        self.size += len(line)
        self.written += 1

    def close(self) -> None:
        try:
            for index in sorted(self.waiting):
                self._write(self.waiting[index])
                del self.waiting[index]
        finally:
            if self.output is None:
                if self.file is not None:
                    self.file.close()
            elif self.written:
                self.output.commit()
            else:
                self.output.discard()


def first_appended(path: Union[str, os.PathLike[str]], players: int) -> int:
    """The number of the first game that a match of ``players`` appends to the JSON Lines file
    ``path``: after the last game of its records (``meta["game"]``), a whole rotation of the
    seats on (0 for no file), so that the appended games' deals and seeds continue the
    sequence instead of repeating it.

    :raises ValueError: ``path`` holds a line that is not JSON, or ends in a cut line.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        return 0
    after = 0
    with open(path, "rb") as f:
        for number, line in enumerate(f, 1):
            if not line.endswith(b"\n"):
                raise ValueError(
                    f"{path}, line {number}: cut short (no newline at the end of the file): "
                    "mend or remove it before appending"
                )
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except ValueError:
                raise ValueError(
                    f"{path}, line {number}: not JSON, so no game record: cannot append to it"
                ) from None
            meta = data.get("meta") if isinstance(data, dict) else None
            game = meta.get("game") if isinstance(meta, dict) else None
            if is_int(game) and game >= 0:
                after = max(after, game + 1)
    return -(-after // players) * players


def play_match(
    game: Playable,
    agents: Sequence[Any],
    *,
    games: int = 100,
    seed: int = 0,
    swap_seats: bool = True,
    workers: Optional[int] = None,
    progress: bool = True,
    max_moves: Optional[int] = None,
    save: Union[str, os.PathLike[str], None] = None,
    append: bool = False,
    backend: str = "local",
    address: Optional[str] = None,
    until: Optional[Callable[[list[GameResult]], bool]] = None,
) -> MatchResult:
    """Plays ``games`` games between ``agents`` and tabulates the results.

    :param game: a game object with ``new_state(seed=...)`` (``pv.Fish(...)``,
        ``pv.Marathon(...)``) and as many players as ``agents``.
    :param agents: one per seat: :class:`~pingvinas.playing.agents.Agent` objects, names
        (``"random"``, ``"greedy"``, ``"mcts"``, ``"alphabeta"``, ``"auto"``) or callables.
    :param seed: seeds the deals and the agents; the same seed plays the same match (with
        iteration or depth budgets; time budgets depend on the machine). Game ``i``'s seeds
        derive from ``(seed, i)`` alone (its deal, with ``swap_seats``, from its rotation's
        first game), by the engine's rule (``pingvinas._core.seed_for``).
    :param swap_seats: rotate the agents through the seats: game ``i`` puts agent ``a`` in seat
        ``(a + i) mod n``, and the ``n`` games of a rotation share one deal, so that no agent
        gains from its seat or its boards.
    :param workers: games played at once: locally, threads (the searches release the GIL;
        default 1); with Ray, the most games in flight (default: twice the cluster's CPUs).
    :param progress: draw a progress bar on stderr.
    :param max_moves: stop a game after this many moves (it is then scored as it stands).
    :param save: a path: write every game there as a JSON Lines file of game records
        (:mod:`pingvinas.record`, in game order, with the search facts of each move), and keep
        each in ``result.records[i].game``. A path that cannot be written raises at once
        (``ValueError``, or ``OSError`` from the system). Each game is written as it ends (once
        the games before it are) to a temporary file beside ``save``, renamed to ``save`` when
        the match ends, however it ends: after an error or Ctrl-C the file holds every game
        that finished, and a match stopped before any game finished writes no file (one that
        was there stays as it was).
    :param append: with ``save``: add the games after the records already in the file,
        appended as they end, each whole or not at all (default: replace the file). The games
        are numbered on from the last game the file holds (``meta["game"]`` of its records;
        a whole rotation of the seats on), so that their deals and seeds continue the
        sequence: a file grown by appending holds no deal twice. A file with a line that is
        not JSON, or that ends in a cut line, is refused (``ValueError``) before any game.
    :param backend: ``"local"`` (this process) or ``"ray"`` (``pip install
        "pingvinas[ray]"``): every game a Ray task, on a local Ray instance or a cluster, each
        reserving as many CPUs as its agents' most search ``threads``. The agents are pickled
        to the workers (a search agent as its settings), and each game is played exactly as
        locally: the same records for the same seed (with iteration or depth budgets; a
        callable agent must not keep state between games). See :mod:`pingvinas.cluster`.
    :param address: with ``backend="ray"``: ``None`` (Ray already started here, else
        ``RAY_ADDRESS``, else a new local instance), ``"auto"`` (the cluster this machine is a
        node of) or ``"ray://host:10001"``.
    :param until: a stopping rule (an SPRT, :mod:`pingvinas.rating.sprt`): called as each game
        ends with the games finished so far, in game order; once it returns True no game
        starts any more, the games under way finish, and the match ends with fewer than
        ``games`` games.
    :returns: a :class:`MatchResult`: wins, draws, losses, score rate with its 95% confidence
        interval, and average scores per seat, for each agent.
    :raises ValueError: before any game, for an agent that cannot play ``game`` (a net made
        for another game, ``"solve"`` on a game without a solver; see :func:`check_agents`).
    :raises Exception: whatever an agent raises, and ``KeyboardInterrupt`` on Ctrl-C: the
        games in flight are then stopped (their searches too, within half a second with several
        workers), and the exception carries the games that finished as ``e.match_result`` (a
        :class:`MatchResult`).
    """
    agents = [as_agent(a) for a in agents]
    n = len(agents)
    if not is_int(games) or games < 1:
        raise ValueError(f"games = {games!r}: expected a positive int")
    if workers is not None and (not is_int(workers) or workers < 1):
        raise ValueError(f"workers = {workers!r}: expected a positive int")
    if backend not in ("local", "ray"):
        raise ValueError(f"backend = {backend!r}: expected 'local' or 'ray'")
    if address is not None and backend != "ray":
        raise ValueError('address is for backend="ray"')
    if not is_int(seed) or seed < 0:
        raise ValueError(f"seed = {seed!r}: expected a non-negative int")
    probe = new_state(game, 0)
    players = len(probe.returns())
    if n != players:
        raise ValueError(f"{n} agents for a {players}-player game: give one agent per seat")
    raw_names = [a.name for a in agents]
    names = [
        f"{name}#{i}" if raw_names.count(name) > 1 else name for i, name in enumerate(raw_names)
    ]

    # Checked before the first game: a path that cannot be written fails now, not at the end.
    if append and save is None:
        raise ValueError("append is for a save file: give save=PATH")
    check_agents(game, agents)
    first = first_appended(check_output(save), n) if append and save is not None else 0
    saver = _Saver(save, append) if save is not None else None

    jobs = []
    for i in range(first, first + games):
        r = i % n if swap_seats else 0
        seats = [(s - r) % n for s in range(n)]  # agent a sits in seat (a + r) mod n
        deal = game_seed(seed, i - r, 0)  # a rotation's games share its first game's deal
        jobs.append((seats, i, deal))

    bar = Progress(games, progress)
    start = _time.monotonic()
    keep = names if save is not None else None
    records: list[Optional[GameResult]] = [None] * games
    halted = [False]

    def finished(k: int, rec: GameResult) -> None:
        records[k] = rec
        if saver is not None:
            saver.add(k, rec.game)
        bar.tick()
        if until is not None and not halted[0]:
            halted[0] = bool(until([r for r in records if r is not None]))

    def more() -> bool:
        return not halted[0]

    def result() -> MatchResult:
        done = [r for r in records if r is not None]
        return _tabulate(done, names, probe, _time.monotonic() - start)

    try:
        if backend == "ray":
            play_games(
                game,
                agents,
                jobs,
                seed=seed,
                max_moves=max_moves,
                names=keep,
                address=address,
                workers=workers,
                on_record=finished,
                more=more,
            )
        elif workers is None or workers == 1:
            for k, (seats, i, deal) in enumerate(jobs):
                if not more():
                    break
                finished(k, play_one(game, agents, seats, i, seed, deal, max_moves, keep))
        else:
            _play_threads(game, agents, jobs, seed, max_moves, keep, workers, finished, more)
    except BaseException as e:
        # The games that did finish reach the caller on the exception (and the save file).
        try:
            e.match_result = result()  # type: ignore[attr-defined]
        except Exception:  # an exception type without attributes; the file still has them
            pass
        raise
    finally:
        bar.close()
        if saver is not None:
            saver.close()
    return result()


def check_agents(game: Playable, agents: Sequence[Agent]) -> None:
    """Refuses an agent that cannot play ``game``, before any game: each search agent plays
    one move of a position near the end of a random game on a tiny budget, which fails at
    once for a net made for another game, or ``"solve"`` on a game without a solver.

    :raises ValueError: naming the agent and what is wrong.
    """
    searchers = [a for a in agents if isinstance(a, SearchAgent)]
    if not searchers:
        return
    state = new_state(game, 0)
    rng = random.Random(0)
    near_end = state.copy()
    while not state.is_over:
        near_end = state.copy()
        state.play(rng.choice(state.legal_actions()))
    if near_end.is_over:  # a game over before its first move: nothing to search
        return
    for agent in searchers:
        try:
            agent.spawn(seed=0).searcher.search(near_end, iterations=1, depth=1, time=1.0)
        except ValueError as e:
            raise ValueError(f"agent {agent.name!r} cannot play this game: {e}") from None


def _play_threads(
    game: Playable,
    agents: Sequence[Agent],
    jobs: Sequence[tuple[list[int], int, int]],
    seed: int,
    max_moves: Optional[int],
    names: Optional[list[str]],
    workers: int,
    finished: Callable[[int, GameResult], None],
    more: Callable[[], bool] = lambda: True,
) -> None:
    """Plays ``jobs`` on ``workers`` threads (a few games queued ahead), calling
    ``finished(k, record)`` here, in this thread, as each ends. On an error in a game or in
    ``finished``, or Ctrl-C, the games in flight are stopped (their searches too) within a
    fraction of a second, the finished ones still reported, and the exception raised."""
    stopper = Stop()
    pool = ThreadPoolExecutor(max_workers=workers)
    running: dict[Future[GameResult], int] = {}
    following = 0

    def collect(done: Any) -> Optional[BaseException]:
        """Reports the finished games among ``done``; returns the first game's error."""
        error = None
        for fut in done:
            k = running.pop(fut)
            if fut.cancelled():
                continue
            failure = fut.exception()
            if failure is None:
                finished(k, fut.result())
            elif error is None and not isinstance(failure, Stopped):
                error = failure
        return error

    try:
        while (following < len(jobs) and more()) or running:
            while following < len(jobs) and len(running) < 2 * workers and more():
                seats, i, deal = jobs[following]
                fut = pool.submit(
                    play_one, game, agents, seats, i, seed, deal, max_moves, names, stopper
                )
                running[fut] = following
                following += 1
            # A timeout, so that Ctrl-C is seen here on every platform.
            done, _ = _wait(list(running), timeout=0.1, return_when=FIRST_COMPLETED)
            error = collect(done)
            if error is not None:
                raise error
    except BaseException:
        stopper.stop()
        pool.shutdown(wait=False, cancel_futures=True)
        # The searches in flight were told to stop; a game between two moves sees the flag
        # before its next one, and a search that started after the first stop() is stopped
        # again here.
        deadline = _time.monotonic() + 0.4
        while any(not f.done() for f in running) and _time.monotonic() < deadline:
            _wait(list(running), timeout=0.02)
            stopper.stop()
        try:
            collect([f for f in list(running) if f.done()])
        except Exception:  # the first error is the one raised
            pass
        raise
    pool.shutdown(wait=True)


def _tabulate(
    records: list[GameResult], names: list[str], probe: Any, elapsed: float
) -> MatchResult:
    """The table of the games in ``records``."""
    n = len(names)
    stats = [AgentStats(name=names[a]) for a in range(n)]
    for rec in records:
        firsts = sum(1 for place in rec.ranking if place == 1)
        for seat, a in enumerate(rec.seats):
            st = stats[a]
            st.games += 1
            place = rec.ranking[seat]
            if place == 1 and firsts == 1:
                st.wins += 1
            elif place == 1:
                st.draws += 1
            else:
                st.losses += 1
            if n == 2:
                st.points.append(
                    {1.0: 1.0, 0.0: 0.5, -1.0: 0.0}.get(
                        rec.returns[seat], (rec.returns[seat] + 1) / 2
                    )
                )
            else:
                st.points.append((rec.returns[seat] + 1) / 2)
            st.seat_scores.setdefault(seat, []).append(rec.scores[seat])
            fault = rec.fault
            if fault is not None and fault["seat"] == seat:
                st.faults[fault["reason"]] = st.faults.get(fault["reason"], 0) + 1
    score_name = "fish" if hasattr(probe, "board") and hasattr(probe, "scores") else "return"
    return MatchResult(
        agents=stats, records=records, players=n, elapsed=elapsed, score_name=score_name
    )


# --- games on Ray -----------------------------------------------------------------------------


def _task_cpus(agents: Sequence[Any]) -> int:
    """CPUs one game reserves: the most search threads any of its agents uses."""
    threads = [1]
    for agent in agents:
        options = getattr(agent, "options", None)
        if isinstance(options, dict):
            t = options.get("threads", 1)
            if is_int(t):
                threads.append(t)
    return max(threads)


def _play_game(
    game: Playable,
    agents_box: list[Any],
    seats: list[int],
    index: int,
    seed: int,
    deal: int,
    max_moves: Optional[int],
    names: Optional[list[str]],
) -> Any:
    """A Ray task: one game of a match, exactly as the local backend plays it (the agents
    spawn fresh copies for each game, as locally; a worker unpickles them once per match)."""
    return play_one(
        game, _cached("agents", agents_box, None), seats, index, seed, deal, max_moves, names
    )


def play_games(
    game: Playable,
    agents: Sequence[Any],
    jobs: Sequence[tuple[list[int], int, int]],
    *,
    seed: int,
    max_moves: Optional[int],
    names: Optional[list[str]],
    address: Optional[str] = None,
    workers: Optional[int] = None,
    on_record: Optional[Callable[[int, Any], None]] = None,
    more: Callable[[], bool] = lambda: True,
) -> list[Any]:
    """Plays a match's games as Ray tasks, one task per game, and returns their
    :class:`~pingvinas.playing.match.GameRecord` in game order (``play_match`` calls this).

    A game is played from its seeds alone, so a task lost with its worker (killed, out of
    memory, a node gone) is run again, up to :data:`TASK_RETRIES` times; an error raised by
    an agent is not retried (it would only fail again) and ends the match, after the games
    finished so far have been reported.

    :param jobs: ``(seats, index, deal)`` per game, as ``play_match`` deals them.
    :param workers: the most games in flight at once (default: twice the cluster's CPUs).
    :param on_record: called with ``(k, record)`` as game ``jobs[k]`` finishes, in this process
        (``play_match`` saves it and moves the progress bar).
    """
    ray = init(address)
    # Put once, shared by every task (not serialised again per game).
    game_ref, agents_box = ray.put(game), [ray.put(list(agents))]
    task = ray.remote(_play_game).options(
        num_cpus=_task_cpus(agents), max_retries=TASK_RETRIES, retry_exceptions=False
    )
    window = workers if workers is not None else 2 * _cluster_cpus(ray)
    records: list[Any] = [None] * len(jobs)

    def submit(i: int) -> Any:
        seats, index, deal = jobs[i]
        return task.remote(game_ref, agents_box, seats, index, seed, deal, max_moves, names)

    def done(i: int, record: Any) -> None:
        records[i] = record
        if on_record is not None:
            on_record(i, record)

    _stream(ray, submit, len(jobs), window, done, more)
    return records
