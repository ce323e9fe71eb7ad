"""Game records: one game of Fish or Penguin Marathon as versioned JSON, replayable exactly.

```pycon
>>> import pingvinas as pv
>>> record = pv.GameRecord(pv.Fish(), seed=7, moves=["b1", "c1"], players=["me", "greedy"])
>>> record.add("d1", value=0.25, nodes=900, time=0.1)   # notation, an action or a move
<FishMove d1 (action 3)>
>>> [str(m) for m in record.moves], record.actions
(['b1', 'c1', 'd1'], [1, 2, 3])
>>> again = pv.GameRecord.from_json(record.to_json())
>>> again == record, again.states()[-1] == record.final_state()
(True, True)

```

The format (version 1) is documented in ``docs/records.md``: a JSON object with the format
name and version, the game (``"fish"`` or ``"marathon"``) and its variant config inline (so a
custom variant replays without its file), the seed and/or the starting position, the players,
the moves (notation, action, the player who moved, and the search's value, nodes and time when
known), the result and free-form ``meta``. :func:`read_jsonl` and :func:`write_jsonl` keep many
records in a JSON Lines file, one per line. Reading checks every field and replays every move;
anything wrong raises ``ValueError`` naming the field.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Optional, Protocol, Union, cast

from ._args import is_int, is_number
from ._core import Fish, FishState, Marathon, MarathonState
from ._files import replacing, write_text
from .games import Game, Move, MoveLike, State


class SearchFacts(Protocol):
    """What a record keeps of a search (a :class:`~pingvinas.searching.searcher.SearchResult`
    has it all)."""

    @property
    def value(self) -> float: ...
    @property
    def nodes(self) -> int: ...
    @property
    def time(self) -> float: ...
    @property
    def depth(self) -> int: ...
    @property
    def algorithm(self) -> str: ...


__all__ = ["FORMAT", "VERSION", "GameRecord", "fault_outcome", "read_jsonl", "write_jsonl"]

#: The value of the ``format`` field.
FORMAT = "pingvinas game record"
#: The version this module writes (and the newest it reads).
VERSION = 1

#: The top-level fields, in the order written.
_FIELDS = (
    "format",
    "version",
    "game",
    "config",
    "seed",
    "start",
    "players",
    "moves",
    "result",
    "meta",
)

#: Search facts kept per move, when known.
INFO_KEYS = ("value", "nodes", "time", "depth", "algorithm")

_PathLike = Union[str, "os.PathLike[str]"]


def _err(field: str, message: str) -> ValueError:
    return ValueError(f"game record: field {field!r}: {message}")


def _game_name(game: object) -> str:
    if isinstance(game, Fish):
        return "fish"
    if isinstance(game, Marathon):
        return "marathon"
    raise TypeError(
        f"expected a pingvinas.Fish or pingvinas.Marathon game, got {type(game).__name__}"
    )


def _config(game: Game) -> dict[str, Any]:
    """The variant's config as a dict that ``from_config`` reads back."""
    return dict(game.to_config())


def _player(value: Any, where: str) -> dict[str, Any]:
    if isinstance(value, str):
        return {"name": value}
    if isinstance(value, dict):
        if not isinstance(value.get("name"), str):
            raise _err(f"{where}.name", f"expected a string, got {value.get('name')!r}")
        return dict(value)
    name = getattr(value, "name", None)
    if isinstance(name, str):  # an agent
        return {"name": name, "agent": repr(value)}
    raise _err(where, f"expected a name, a dict with a name, or an agent, got {value!r}")


def _info(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _err(where, f"expected a dict of search facts, got {value!r}")
    out: dict[str, Any] = {}
    for key, x in value.items():
        if key not in INFO_KEYS:
            raise _err(f"{where}.{key}", f"unknown search fact (known: {', '.join(INFO_KEYS)})")
        if x is None:
            continue
        if key == "algorithm":
            if not isinstance(x, str):
                raise _err(f"{where}.{key}", f"expected a string, got {x!r}")
        elif key in ("nodes", "depth"):
            if not is_int(x) or x < 0:
                raise _err(f"{where}.{key}", f"expected a non-negative int, got {x!r}")
        elif not is_number(x):
            raise _err(f"{where}.{key}", f"expected a number, got {x!r}")
        else:
            x = float(x)
            # NaN fails both comparisons.
            if key == "value" and not -1.0 <= x <= 1.0:
                raise _err(f"{where}.{key}", f"{x!r}: a value is in [-1, 1], for the mover")
            if key == "time" and not 0.0 <= x < math.inf:
                raise _err(f"{where}.{key}", f"{x!r}: expected seconds, finite and not negative")
        out[key] = x
    return out


def fault_outcome(players: int, seat: int) -> tuple[list[int], list[float]]:
    """The ranking and returns of a game lost by a fault of ``seat`` (an external engine that
    crashed, ran out of time, or broke the rules or the protocol): it is last, and the others
    share first place and what it loses (-1 for it, ``1 / (players - 1)`` for each other)."""
    ranking = [players if s == seat else 1 for s in range(players)]
    returns = [-1.0 if s == seat else 1.0 / (players - 1) for s in range(players)]
    return ranking, returns


def _same(a: Any, b: Any) -> bool:
    """JSON equality that tells a bool from a number (in Python ``True == 1``)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _jsonable(value: Any, where: str) -> Any:
    """``value``, if :meth:`GameRecord.to_json` can write it (else the error names ``where``)."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise _err(where, f"not JSON: {e}") from None
    except RecursionError:
        raise _err(where, "not JSON: nested too deeply") from None
    return value


class GameRecord:
    """One game: the variant, where it started, who played, every move, and how it ended.

    :param game: the variant (``pv.Fish(...)``, ``pv.Marathon(...)``, ``pv.load_game(...)``).
    :param seed: the seed of ``game.new_state(seed)`` that dealt the board (Fish's shuffled
        standard board needs it unless ``start`` is given).
    :param start: the starting position when it is not ``game.new_state(seed)`` (a state).
    :param moves: the moves played so far: move objects, actions or notation.
    :param players: one per seat: names, agents, or dicts with a ``name`` (and anything else).
    :param info: per move, the search facts known (``value``, ``nodes``, ``time``, ``depth``,
        ``algorithm``), or None.
    :param meta: free-form facts about the game (a JSON-able dict).
    :raises ValueError: for a move that is not legal where it is played (naming it).
    """

    def __init__(
        self,
        game: Game,
        *,
        seed: Optional[int] = None,
        start: Optional[State] = None,
        moves: Iterable[MoveLike] = (),
        players: Sequence[Any] = (),
        info: Optional[Sequence[Optional[dict[str, Any]]]] = None,
        meta: Optional[dict[str, Any]] = None,
    ) -> None:
        self.game_name = _game_name(game)
        self.game = game
        if seed is not None and (not is_int(seed) or seed < 0):
            raise _err("seed", f"expected a non-negative int or null, got {seed!r}")
        self.seed = seed
        state_class = FishState if self.game_name == "fish" else MarathonState
        if start is not None and not isinstance(start, state_class):
            raise _err("start", f"expected a {state_class.__name__}, got {type(start).__name__}")
        if (
            start is None
            and isinstance(game, Fish)
            and seed is None
            and game.to_config().get("board") == "standard"
        ):
            raise _err(
                "seed",
                "a Fish game on the shuffled standard board needs its seed or its start position",
            )
        self.start = start.copy() if start is not None else None
        self.players: list[dict[str, Any]] = [
            _player(p, f"players[{i}]") for i, p in enumerate(players)
        ]
        self.meta: dict[str, Any] = _jsonable(dict(meta or {}), "meta")
        for i, p in enumerate(self.players):
            _jsonable(p, f"players[{i}]")
        self._moves: list[Move] = []
        self._info: list[dict[str, Any]] = []
        # Either game's position: its own parse_move checks that a move is of its game.
        self._final: Any = self.start_state()
        moves = list(moves)
        if info is not None and len(info) != len(moves):
            raise _err("info", f"{len(info)} entries for {len(moves)} moves")
        for i, mv in enumerate(moves):
            self.add(mv, **(info[i] or {} if info is not None else {}))

    # -- building ------------------------------------------------------------------------------

    def start_state(self) -> State:
        """A fresh copy of the starting position."""
        if self.start is not None:
            return self.start.copy()
        return self.game.new_state(seed=self.seed)

    def add(self, move: MoveLike, **info: Any) -> Move:
        """Plays ``move`` (a move object, an action or notation) at the end of the record, with
        its search facts (``value=``, ``nodes=``, ``time=``, ``depth=``, ``algorithm=``), and
        returns the move object.

        :raises ValueError: when the game is over or the move is not legal there.
        """
        where = f"moves[{len(self._moves)}]"
        if self._final.is_over:
            raise _err(where, f"{move!r} after the end of the game")
        try:
            mv: Move = self._final.parse_move(move)
        except (ValueError, TypeError) as e:
            raise _err(where, str(e)) from None
        facts = _info(info, where)
        self._final.play(mv)
        self._moves.append(mv)
        self._info.append(facts)
        return mv

    def pop(self) -> Move:
        """Takes back the last move and returns it (``IndexError`` when there is none)."""
        if not self._moves:
            raise IndexError("pop from a game record without moves")
        mv = self._moves.pop()
        self._info.pop()
        state = self.start_state()
        for m in self._moves:
            state.play(m.action)
        self._final = state
        return mv

    def add_search(self, move: MoveLike, result: SearchFacts) -> Move:
        """:meth:`add` with the facts of a :class:`~pingvinas.searching.searcher.SearchResult`."""
        return self.add(
            move,
            value=result.value,
            nodes=result.nodes,
            time=result.time,
            depth=result.depth,
            algorithm=result.algorithm,
        )

    # -- reading ---------------------------------------------------------------------------------

    @property
    def moves(self) -> list[Move]:
        """The move objects, in order (``str(move)`` is the notation)."""
        return list(self._moves)

    @property
    def actions(self) -> list[int]:
        return [int(m.action) for m in self._moves]

    @property
    def info(self) -> list[dict[str, Any]]:
        """Per move, the search facts recorded (empty dicts where none)."""
        return [dict(x) for x in self._info]

    def __len__(self) -> int:
        return len(self._moves)

    def final_state(self) -> State:
        """The position after the last move (a copy)."""
        final: State = self._final.copy()
        return final

    def states(self) -> list[State]:
        """Every position of the game, from the start to after the last move
        (``len(record) + 1`` states), replayed from the start."""
        state = self.start_state()
        out = [state.copy()]
        for mv in self._moves:
            state.play(mv.action)
            out.append(state.copy())
        return out

    @property
    def fault_seat(self) -> Optional[int]:
        """The seat that lost the game by a fault, as ``meta["fault"]["seat"]`` says (a match
        writes ``meta.fault`` for a game an external engine lost), or None."""
        fault = self.meta.get("fault")
        seat = fault.get("seat") if isinstance(fault, dict) else None
        players = len(self._final.returns())
        return seat if is_int(seat) and 0 <= seat < players else None

    @property
    def result(self) -> dict[str, Any]:
        """How the game ended, or stands after the last move: ``over``, ``plies``, ``ranking``,
        ``returns``, and ``scores`` (Fish: fish and floes per player) or ``winner``
        (Marathon). A game lost by a fault (:attr:`fault_seat`) is over: its seat last, the others
        first, the returns of :func:`fault_outcome`; the scores are those when it ended, the
        winner the other player of two (else None)."""
        out = self._position_result()
        seat = self.fault_seat
        if seat is not None:
            players = len(out["ranking"])
            out["over"] = True
            out["ranking"], out["returns"] = fault_outcome(players, seat)
            if "winner" in out:
                out["winner"] = 1 - seat if players == 2 else None
        return out

    def _position_result(self) -> dict[str, Any]:
        """The result of the position after the last move, by the rules alone."""
        s = self._final
        out: dict[str, Any] = {
            "over": bool(s.is_over),
            "plies": len(self._moves),
            "ranking": [int(x) for x in s.ranking()],
            "returns": [float(x) for x in s.returns()],
        }
        if self.game_name == "fish":
            out["scores"] = [[int(f), int(n)] for f, n in s.scores]
        else:
            out["winner"] = s.winner
        return out

    # -- JSON ------------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-able dict (the documented format)."""
        before = self.start_state()
        moves = []
        for mv, facts in zip(self._moves, self._info):
            entry: dict[str, Any] = {
                "move": str(mv),
                "action": int(mv.action),
                "player": before.to_move,
            }
            entry.update(facts)
            moves.append(entry)
            before.play(mv.action)
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game_name,
            "config": _config(self.game),
            "seed": self.seed,
            "start": None if self.start is None else json.loads(self.start.to_json()),
            "players": [dict(p) for p in self.players],
            "moves": moves,
            "result": self.result,
            "meta": dict(self.meta),
        }

    def to_json(self, indent: Optional[int] = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        """A record from :meth:`to_dict`'s dict, checked field by field and replayed.

        :raises ValueError: naming the first field that is missing, of the wrong type, not
            legal in the game, or not what the replay gives.
        """
        if not isinstance(data, dict):
            raise ValueError(f"game record: expected a JSON object, got {type(data).__name__}")
        for key in ("format", "version", "game", "config", "moves"):
            if key not in data:
                raise _err(key, "missing")
        for key in data:
            if key not in _FIELDS:
                raise _err(
                    key, f"unknown field (the fields: {', '.join(_FIELDS)}; put your own in meta)"
                )
        if data["format"] != FORMAT:
            raise _err("format", f"expected {FORMAT!r}, got {data['format']!r}")
        version = data["version"]
        if not is_int(version) or not 1 <= version <= VERSION:
            raise _err("version", f"this pingvinas reads versions 1 to {VERSION}, got {version!r}")
        game_name = data["game"]
        if game_name not in ("fish", "marathon"):
            raise _err("game", f"expected 'fish' or 'marathon', got {game_name!r}")
        config = data["config"]
        if not isinstance(config, dict):
            raise _err("config", f"expected an object, got {config!r}")
        game_class = Fish if game_name == "fish" else Marathon
        try:
            game = game_class.from_config(config)
        except (ValueError, TypeError) as e:
            raise _err("config", str(e)) from None
        seed = data.get("seed")
        if seed is not None and (not is_int(seed) or seed < 0):
            raise _err("seed", f"expected a non-negative int or null, got {seed!r}")
        start = data.get("start")
        start_state = None
        if start is not None:
            if not isinstance(start, (dict, str)):
                raise _err("start", f"expected a state (a JSON object) or null, got {start!r}")
            state_class = FishState if game_name == "fish" else MarathonState
            try:
                start_state = state_class.from_json(
                    start if isinstance(start, str) else json.dumps(start)
                )
            except (ValueError, TypeError) as e:
                raise _err("start", str(e)) from None
            except RecursionError:
                raise _err("start", "nested too deeply") from None
            if start_state.players != game.players:
                raise _err(
                    "start",
                    f"a {start_state.players}-player position for a {game.players}-player game",
                )
        players = data.get("players", [])
        if not isinstance(players, list):
            raise _err("players", f"expected a list, got {players!r}")
        meta = data.get("meta", {})
        if meta is None:
            meta = {}
        if not isinstance(meta, dict):
            raise _err("meta", f"expected an object, got {meta!r}")
        moves = data["moves"]
        if not isinstance(moves, list):
            raise _err("moves", f"expected a list, got {moves!r}")
        record = cls(game, seed=seed, start=start_state, players=players, meta=meta)
        if len(record.players) not in (0, game.players):
            raise _err("players", f"{len(record.players)} players for a {game.players}-player game")
        for i, entry in enumerate(moves):
            where = f"moves[{i}]"
            if not isinstance(entry, dict):
                raise _err(where, f"expected an object with move and action, got {entry!r}")
            if "move" not in entry and "action" not in entry:
                raise _err(where, "needs a move (notation) or an action")
            text, action = entry.get("move"), entry.get("action")
            if text is not None and not isinstance(text, str):
                raise _err(f"{where}.move", f"expected notation (a string), got {text!r}")
            if action is not None and (not is_int(action)):
                raise _err(f"{where}.action", f"expected an int, got {action!r}")
            player = record._final.to_move
            mv = record.add(
                # Neither given: add refuses None, naming the field.
                cast(MoveLike, text if text is not None else action),
                **{k: v for k, v in entry.items() if k not in ("move", "action", "player")},
            )
            if action is not None and int(mv.action) != action:
                raise _err(
                    f"{where}.action",
                    f"{action} does not match the move {text!r} (action {mv.action})",
                )
            if "player" in entry and not _same(entry["player"], player):
                raise _err(
                    f"{where}.player", f"{entry['player']!r}, but player {player} was to move"
                )
        result = data.get("result")
        if result is not None:
            if not isinstance(result, dict):
                raise _err("result", f"expected an object, got {result!r}")
            replayed = record.result
            if record.fault_seat is not None and not _same(result.get("over"), True):
                replayed = record._position_result()  # a fault's record with the position's
            for key, value in result.items():
                if key not in replayed:
                    raise _err(f"result.{key}", f"unknown key (the keys: {', '.join(replayed)})")
                if not _same(replayed[key], value):
                    raise _err(
                        f"result.{key}", f"{value!r}, but the replay gives {replayed[key]!r}"
                    )
        return record

    @classmethod
    def from_json(cls, text: Union[str, bytes]) -> GameRecord:
        """A record from JSON text (see :meth:`from_dict`)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"game record: not JSON: {e}") from None
        except RecursionError:  # the decoder recurses once per level of nesting
            raise ValueError("game record: not a record: JSON nested too deeply") from None
        return cls.from_dict(data)

    def write(self, path: _PathLike, indent: Optional[int] = 2) -> None:
        """Writes the record as one JSON file (through a temporary file renamed into place: an
        error halfway leaves the file that was there)."""
        write_text(path, self.to_json(indent=indent) + "\n")

    @classmethod
    def read(cls, path: _PathLike) -> GameRecord:
        """Reads a record written by :meth:`write` (or a JSON Lines file holding one)."""
        with open(path, encoding="utf-8") as f:
            return cls.from_json(f.read())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameRecord):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        variant = getattr(self.game, "name", None) or self.game_name
        status = "over" if self._final.is_over else "in progress"
        return f"<GameRecord {variant}, {len(self._moves)} moves, {status}>"


def read_jsonl(path: _PathLike) -> list[GameRecord]:
    """Every record of a JSON Lines file (one record per line; blank lines are skipped).

    :raises ValueError: naming the line and the field of the first bad record.
    """
    return list(iter_jsonl(path))


def iter_jsonl(path: _PathLike) -> Iterator[GameRecord]:
    """The records of a JSON Lines file one at a time (for files too big to hold)."""
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                yield GameRecord.from_json(line)
            except ValueError as e:
                raise ValueError(f"{os.fspath(path)}, line {number}: {e}") from None


def write_jsonl(path: _PathLike, records: Iterable[GameRecord], *, append: bool = False) -> int:
    """Writes records to a JSON Lines file, one per line (``append``: after those there; else
    through a temporary file renamed into place, so that an error halfway leaves the file that
    was there); returns how many."""
    n = 0
    with open(path, "a", encoding="utf-8") if append else replacing(path) as f:
        for record in records:
            f.write(record.to_json() + "\n")
            n += 1
    return n
