"""The command line's parts for people: ``pingvinas show`` (a position or a game record, as text
or a picture) and ``pingvinas play`` (a game in the terminal, any seat a person).

Both take their input and output streams as arguments, so that tests can drive them; the
argument parsing lives in :mod:`pingvinas.cli`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, Optional, TextIO

from ._core import FishState, MarathonState
from ._files import check_output, write_text
from .games import Game, State
from .playing.protocol.driver import EngineFault
from .record import FORMAT, GameRecord

__all__ = ["load_shown", "play", "show"]

_LETTERS = "ABCDE"


# --- show ---------------------------------------------------------------------------------------


def _object(data: Any, where: str) -> Any:
    """A game record or a state from one parsed JSON object."""
    if not isinstance(data, dict):
        raise ValueError(
            f"{where}: expected a JSON object (a state or a game record), got {type(data).__name__}"
        )
    if "format" in data:
        if data["format"] != FORMAT:
            raise ValueError(f"{where}: unknown format {data['format']!r} (expected {FORMAT!r})")
        return GameRecord.from_dict(data)
    game = data.get("game")
    if game == "fish":
        return FishState.from_json(json.dumps(data))
    if game == "marathon":
        return MarathonState.from_json(json.dumps(data))
    raise ValueError(f'{where}: neither a state (its "game" is fish or marathon) nor a game record')


def load_shown(source: str, index: int = 0) -> Any:
    """The game record or state that ``source`` holds: a file (a state's JSON, a record, or a
    JSON Lines file of records, of which the ``index``-th) or JSON text itself."""
    if os.path.isfile(source):
        with open(source, encoding="utf-8") as f:
            text = f.read()
        where = source
    elif source.lstrip().startswith("{"):
        text, where = source, "the JSON given"
    else:
        raise ValueError(f"{source!r} is neither a file nor JSON text")
    try:
        items = [json.loads(text)]
    except json.JSONDecodeError as whole:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) < 2:
            raise ValueError(f"{where}: not JSON: {whole}") from None
        items = []
        for number, line in enumerate(lines, start=1):
            try:
                items.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"{where}, line {number}: not JSON: {e}") from None
    if not -len(items) <= index < len(items):
        raise ValueError(f"{where} holds {len(items)} game(s); there is no game {index}")
    position = index % len(items)
    return _object(items[position], where if len(items) == 1 else f"{where}, line {position + 1}")


def _position(shown: Any, move: Optional[int]) -> tuple[Any, Any, str]:
    """The state to show, the move before it (or None), and a line saying which it is."""
    if isinstance(shown, GameRecord):
        n = len(shown) if move is None else move
        if not -len(shown) <= n <= len(shown):
            raise ValueError(f"--move {move}: the game has {len(shown)} moves (0 to {len(shown)})")
        if n < 0:  # counted back from the end: -1 is the position before the last move
            n += len(shown)
        state = shown.states()[n]
        last = shown.moves[n - 1] if n else None
        names = [p.get("name", "?") for p in shown.players]
        who = f" ({' vs '.join(names)})" if names else ""
        line = f"{shown.game_name}{who}: after move {n} of {len(shown)}" + (
            f", last {last}" if last else ", the start"
        )
        return state, last, line
    if move not in (None, 0):
        raise ValueError("--move needs a game record; this is a single position")
    return shown, None, "position"


def show(
    source: str,
    *,
    move: Optional[int] = None,
    index: int = 0,
    svg: Optional[str] = None,
    png: Optional[str] = None,
    size: Optional[float] = None,
    out: Optional[TextIO] = None,
) -> None:
    """Shows a position or a record's position after ``move`` moves (default: the last) as
    the text board on ``out`` (default: stdout), or writes it as an SVG or PNG picture."""
    out = sys.stdout if out is None else out
    state, last, line = _position(load_shown(source, index), move)
    if svg is None and png is None:
        print(line, file=out)
        print(state, file=out)
        return
    picture = state.svg(size, lastmove=last)
    if svg is not None:
        write_text(svg, picture)
        print(f"wrote {svg}", file=out)
    if png is not None:
        from .svg import to_png

        to_png(picture, png)
        print(f"wrote {png}", file=out)


# --- play ---------------------------------------------------------------------------------------

_HELP = """commands: a move in notation (like {example}), ? (the legal moves), undo (take back your
last move), hint (the engine's suggestion), save FILE (the game record so far; save! FILE
replaces a file), quit"""


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _who(player: int) -> str:
    return f"{_LETTERS[player % 5]} (player {player})"


def _width(stream: Any) -> int:
    """The width to wrap lines at: the terminal's, or 80 for a file or a pipe."""
    if _isatty(stream):
        import shutil

        return max(20, shutil.get_terminal_size((80, 24)).columns)
    return 80


def move_listing(moves: Sequence[str], width: int = 80) -> str:
    """The legal moves for ``?``: on one line when they fit, else in aligned columns, one move a
    column, whole moves on every line (the terminal never wraps one in the middle). Marathon
    moves contain spaces, so their columns are split by `` | ``."""
    header = f"{len(moves)} legal moves:"
    spaced = any(" " in m for m in moves)
    if not spaced and len(header) + sum(len(m) + 1 for m in moves) <= width:
        return " ".join([header, *moves])
    sep = " | " if spaced else "  "
    indent = "  "
    cell = max(len(m) for m in moves)
    per_line = max(1, (width - len(indent) + len(sep)) // (cell + len(sep)))
    lines = [header]
    for i in range(0, len(moves), per_line):
        row = moves[i : i + per_line]
        lines.append(indent + sep.join(m.ljust(cell) for m in row).rstrip())
    return "\n".join(lines)


def _value(v: float) -> str:
    return f"{v:+.2f}"


def play(
    game: Game,
    seats: Sequence[Any],
    *,
    seed: Optional[int] = None,
    hint_time: float = 0.5,
    names: Optional[Sequence[str]] = None,
    stdin: Optional[TextIO] = None,
    out: Optional[TextIO] = None,
) -> int:
    """Plays one game in the terminal. ``seats``: one per player, an agent or None for a person
    typing moves (read from ``stdin``, default: standard input). Draws the board after every
    move on ``out`` (default: stdout). Returns the exit status (0)."""
    stdin = sys.stdin if stdin is None else stdin
    out = sys.stdout if out is None else out
    from .searching.searcher import search

    record = GameRecord(
        game,
        seed=seed,
        players=list(names) if names else ["human" if a is None else a for a in seats],
    )
    humans = [p for p, a in enumerate(seats) if a is None]
    saved: set[str] = set()  # the files this game wrote (save may replace them)
    for agent in seats:
        if agent is not None:
            agent.reset()

    def say(*parts: Any) -> None:
        print(*parts, file=out)
        out.flush()

    def save(command: str, path: str) -> None:
        if not path:
            say("save needs a file name: save FILE")
            return
        # A file this game did not write is replaced only when asked (save!).
        replace = command == "save!" or path in saved
        try:
            check_output(path, replace=replace, hint=f": save! {path} replaces it")
            record.write(path)
        except ValueError as e:
            say(f"not saved: {e}")
            return
        except OSError as e:
            say(f"cannot save to {path}: {e.strerror or e}")
            return
        saved.add(path)
        say(f"saved the game ({len(record)} moves) to {path}")

    def board() -> None:
        state = record.final_state()
        say()
        say(state)
        if len(record):
            say(f"last move: {record.moves[-1]}")

    board()
    state = record.final_state()
    example = str(state.legal_moves()[0])
    if humans:
        say(_HELP.format(example=example))
    while not state.is_over:
        player = state.to_move
        assert player is not None
        agent = seats[player]
        if agent is not None:
            try:
                mv = agent.choose(state)
            except EngineFault as e:  # an external engine lost the game: the person keeps it
                name = record.players[player]["name"] if record.players else _who(player)
                record.meta["fault"] = {
                    "seat": player,
                    "reason": e.reason,
                    "detail": e.detail,
                    "player": name,
                }
                say()
                say(f"game over: {_who(player)} loses, its engine faulted ({e})")
                return _after_game(humans, save, say, stdin, out)
            found = getattr(agent, "last", None)
            mv = record.add_search(mv, found) if found is not None else record.add(mv)
            value = f" (value {_value(found.value)})" if found is not None else ""
            say(f"{_who(player)} plays {mv}{value}")
            state = record.final_state()
            board()
            continue
        out.write(f"{_who(player)} to move> ")
        out.flush()
        line = stdin.readline()
        if not line:  # end of input
            say()
            say("bye (end of input)")
            return 0
        if not _isatty(stdin):  # typed by a program: show it as if typed here
            out.write(line if line.endswith("\n") else line + "\n")
        text = line.strip()
        command, _, rest = text.partition(" ")
        command = command.lower()
        if not text:
            continue
        if command in ("quit", "exit", "q"):
            say("bye")
            return 0
        if command in ("?", "moves"):
            moves = [str(m) for m in state.legal_moves()]
            say(move_listing(moves, _width(out)))
            continue
        if command in ("help", "h"):
            say(_HELP.format(example=example))
            continue
        if command == "hint":
            result = search(state, algorithm="auto", time=hint_time, seed=len(record))
            value = _value(result.value)
            say(f"hint: {result.move} (value {value} for {_who(player)}, {result.nodes} nodes)")
            continue
        if command == "undo":
            movers = [m["player"] for m in record.to_dict()["moves"]]
            mine = [i for i, mover in enumerate(movers) if mover == player]
            if not mine:
                say("nothing to undo: you have not moved yet")
                continue
            while len(record) > mine[-1]:
                record.pop()
            for agent in seats:
                if agent is not None:
                    agent.reset()
            state = record.final_state()
            say(f"took back to move {len(record)}")
            board()
            continue
        if command in ("save", "save!"):
            save(command, rest.strip())
            continue
        try:
            mv = record.add(text)
        except ValueError as e:
            message = str(e)
            prefix = "game record: field "
            if message.startswith(prefix):  # "game record: field 'moves[3]': <why>"
                message = message.split(": ", 2)[-1]
            say(f"{message} (? lists the legal moves, help the commands)")
            continue
        state = record.final_state()
        board()
    say()
    say("game over: " + _result(state))
    return 0


def _after_game(
    humans: list[int],
    save: Callable[[str, str], None],
    say: Callable[..., None],
    stdin: TextIO,
    out: TextIO,
) -> int:
    """The prompt after a game that an engine's fault ended: ``save FILE`` keeps the game,
    ``quit`` (or the end of the input) ends. Nothing to ask with no person at the table."""
    if not humans:
        return 0
    say("save FILE keeps the game record; quit ends")
    while True:
        out.write("game over> ")
        out.flush()
        line = stdin.readline()
        if not line:
            say()
            return 0
        if not _isatty(stdin):
            out.write(line if line.endswith("\n") else line + "\n")
        command, _, rest = line.strip().partition(" ")
        command = command.lower()
        if command in ("quit", "exit", "q"):
            say("bye")
            return 0
        if command in ("save", "save!"):
            save(command, rest.strip())
        elif command:
            say("the game is over: save FILE keeps it, quit ends")


def _result(state: State) -> str:
    ranking = state.ranking()
    winners = [p for p, place in enumerate(ranking) if place == 1]
    if len(winners) == len(ranking):
        text = "a draw"
    else:
        text = " and ".join(_who(p) for p in winners) + (" win" if len(winners) > 1 else " wins")
    scores: list[Any] = []
    if hasattr(state, "scores"):
        scores = [
            f"{_LETTERS[p]} {fish} fish, {floes} floes"
            for p, (fish, floes) in enumerate(state.scores)
        ]
    returns = ", ".join(f"{r:+g}" for r in state.returns())
    return text + (f" ({'; '.join(scores)})" if scores else "") + f"; returns {returns}"
