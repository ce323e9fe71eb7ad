"""One game of a match, played by its agents from its seeds alone (``play_match`` plays it
locally or on threads, :mod:`pingvinas.cluster` as a Ray task)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Protocol, cast

from .._core import seed_for
from ..games import Game
from ..record import GameRecord, fault_outcome
from .agents import Agent
from .protocol.driver import EngineFault

__all__ = ["GameResult", "Playable", "Stop", "Stopped", "game_seed", "new_state", "play_one"]


def game_seed(seed: int, index: int, item: int) -> int:
    """Seed ``item`` of game ``index`` of a match seeded with ``seed``: item 0 is its deal,
    item ``1 + s`` the agent in seat ``s``. The engine's ``seed_for`` twice: game ``index``'s
    seeds depend on ``(seed, index)`` alone, whoever plays the other games, and wherever."""
    return seed_for(seed_for(seed, index), item)


class Playable(Protocol):
    """What a match plays: ``pv.Fish(...)``, ``pv.Marathon(...)``, or any game whose
    ``new_state(seed=...)`` (or ``new_state()``) starts a game with the State API."""

    def new_state(self, *args: Any, **kwargs: Any) -> Any: ...


@dataclass
class GameResult:
    """One game of a match: which agent sat in each seat, and how it ended (the whole game,
    move by move, is a :class:`pingvinas.record.GameRecord`)."""

    index: int
    seed: int
    seats: list[int]  # seats[s] = index of the agent in seat s
    ranking: list[int]  # place of each seat (1 = first, shared places for ties)
    returns: list[float]  # per seat
    scores: list[float]  # per seat: fish (Fish), or the return (other games)
    moves: int
    #: The whole game (:class:`pingvinas.record.GameRecord`) when the match keeps it (``save``).
    game: Optional[GameRecord] = field(default=None, repr=False)
    #: How an external engine lost the game, if one faulted: ``seat``, ``reason`` (one of
    #: ``pingvinas.playing.protocol.driver.FAULTS``) and ``detail``.
    fault: Optional[dict[str, Any]] = None


class Stopped(Exception):
    """A game given up because its match is stopping (an error elsewhere, or Ctrl-C)."""


class Stop:
    """Stops a match's games in flight: the games check ``flag`` between moves, and ``stop()``
    also stops the searches their agents are running (``Agent.stop``, where an agent has it)."""

    def __init__(self) -> None:
        self.flag = threading.Event()
        self.lock = threading.Lock()
        self.players: list[Any] = []

    def enter(self, players: list[Any]) -> None:
        with self.lock:
            self.players.extend(players)

    def leave(self, players: list[Any]) -> None:
        with self.lock:
            for p in players:
                self.players.remove(p)

    def stop(self) -> None:
        self.flag.set()
        with self.lock:
            playing = list(self.players)
        for p in playing:
            stop = getattr(p, "stop", None)
            if callable(stop):
                try:
                    stop()
                except Exception:  # stopping is best effort; the flag ends the game anyway
                    pass


def new_state(game: Playable, seed: int) -> Any:
    try:
        return game.new_state(seed=seed)
    except TypeError:
        return game.new_state()


def play_one(
    game: Playable,
    agents: Sequence[Agent],
    seats: list[int],
    index: int,
    seed: int,
    deal: int,
    max_moves: Optional[int],
    names: Optional[list[str]] = None,
    stopper: Optional[Stop] = None,
) -> GameResult:
    state = new_state(game, deal)
    # Fresh copies per game, seeded per game and seat.
    players = [agents[a].spawn(seed=game_seed(seed, index, 1 + s)) for s, a in enumerate(seats)]
    try:
        if stopper is None:
            return _play_seated(game, agents, players, seats, index, deal, state, max_moves, names)
        stopper.enter(players)
        try:
            return _play_seated(
                game, agents, players, seats, index, deal, state, max_moves, names, stopper
            )
        finally:
            stopper.leave(players)
    finally:
        # Players holding a process (external engines) end it with the game, however it ends.
        for p in players:
            close = getattr(p, "close", None)
            if callable(close):
                close()


def _play_seated(
    game: Playable,
    agents: Sequence[Agent],
    players: list[Agent],
    seats: list[int],
    index: int,
    deal: int,
    state: Any,
    max_moves: Optional[int],
    names: Optional[list[str]],
    stopper: Optional[Stop] = None,
) -> GameResult:
    for p in players:
        p.reset()
    full = None
    if names is not None:  # keep the whole game
        seated = [{"name": names[a], "agent": repr(agents[a])} for a in seats]
        # A record is of a pingvinas game: GameRecord refuses any other.
        full = GameRecord(cast(Game, game), seed=deal, players=seated, meta={"game": index})
    moves = 0
    start = state.copy()
    played: list[Any] = []
    fault = None
    while not state.is_over:
        if max_moves is not None and moves >= max_moves:
            break
        if stopper is not None and stopper.flag.is_set():
            raise Stopped
        p = state.to_move
        follow = getattr(players[p], "follow", None)
        if callable(follow):  # an external engine is sent the game's moves so far
            follow(start, played)
        try:
            mv = players[p].choose(state)
        except EngineFault as e:
            if stopper is not None and stopper.flag.is_set():  # killed by the stop
                raise Stopped from None
            fault = {"seat": p, "reason": e.reason, "detail": e.detail}
            break
        if stopper is not None and stopper.flag.is_set():  # a stopped search's move
            raise Stopped
        if full is not None:
            found = getattr(players[p], "last", None)
            facts = getattr(players[p], "facts", None)
            if found is not None:
                mv = full.add_search(mv, found)
            elif facts:
                mv = full.add(mv, **facts)
            else:
                mv = full.add(mv)
        played.append(mv)
        state.play(mv)
        moves += 1
    ranking = list(state.ranking())
    returns = [float(x) for x in state.returns()]
    if full is not None:  # an external engine's own name, from its handshake
        for s, player in enumerate(players):
            engine = getattr(player, "engine_name", None)
            if isinstance(engine, str):
                full.players[s]["engine"] = engine
    if fault is not None:
        # The engine that faulted is last; the others share first place and its loss.
        ranking, returns = fault_outcome(len(ranking), fault["seat"])
        if full is not None:
            full.meta["fault"] = dict(fault, player=full.players[fault["seat"]]["name"])
    try:
        scores = [float(s[0]) for s in state.scores]
    except (AttributeError, TypeError, IndexError):
        scores = returns
    return GameResult(
        index=index,
        seed=deal,
        seats=seats,
        ranking=ranking,
        returns=returns,
        scores=scores,
        moves=moves,
        game=full,
        fault=fault,
    )
