"""A board in the browser: ``pingvinas serve`` plays either game against the engine on a local page.

:class:`App` is the API without HTTP (no dependency beyond the package). The HTTP server
(:func:`make_server`, :func:`serve`; :mod:`pingvinas.web.server`) is Starlette on uvicorn, the
``web`` extra: ``pip install "pingvinas[web]"``. The page (HTML, JavaScript, CSS in
``pingvinas/web/static/``) is served by the package itself, so nothing is fetched from the
network. The page talks to a small JSON API, which programs may use too:

- ``GET /api/variants``: the variants a new game may use.
- ``POST /api/games`` with ``{"variant": name, "human": seat, "seed": int}`` (all optional): a
  new game; the engine plays until it is the person's turn.
- ``GET /api/games/ID``: the game's state (below).
- ``POST /api/games/ID/move`` with ``{"move": notation or action}``: the person's move, then the
  engine's replies.
- ``POST /api/games/ID/undo``: back to the person's previous turn.
- ``GET /api/games/ID/record``: the game record (``pingvinas.GameRecord`` JSON).

A state is a JSON object: ``id``, ``game`` (``"fish"`` or ``"marathon"``), ``variant``,
``players``, ``human``, ``to_move`` (None when over), ``phase``, ``over``, ``ply``, ``svg`` (the
picture, with the last move marked), ``legal`` (the person's legal moves when it is their turn,
each with ``move``, ``action``, ``src``, ``dst`` and for Marathon ``piece``), ``moves`` (every
move so far: ``ply``, ``player``, ``move``, ``by``), ``scores``, ``ranking``, ``returns``,
``result`` (a sentence once over) and ``state`` (``state.to_json()``, the exact position).

A bad request gets a 4xx answer ``{"error": message}`` and never changes a game: 400 for a
body that is not a JSON object (or is nested too deeply) or a field of the wrong type, 404 for an
unknown game or path, 409 for a move when it is not the person's turn or the game is over (or an
undo with nothing to take back), 422 for an illegal move. The HTTP server adds its own refusals
(see :mod:`pingvinas.web.server`).

Games are kept in memory, bounded per client so that no client can push out the others' games:
each client (an IP address; an IPv6 client by its /64 network) keeps its ``games_per_client``
most recently used games, and when all clients together hold ``max_games``, the client holding
the most loses its least recently used one.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import Counter, OrderedDict
from importlib import resources
from typing import TYPE_CHECKING, Any, Optional, Union

import pingvinas as pv
from pingvinas._args import TIME, is_int
from pingvinas._core import AgentSpec
from pingvinas.playing.specs import spec_options

if TYPE_CHECKING:
    from pingvinas.web.server import Server

__all__ = ["ApiError", "App", "make_server", "serve"]

STATIC_FILES = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}
#: Games kept at once, all clients together (the default of ``App(max_games=)``).
MAX_GAMES = 1000
#: Games kept for one client (``App(games_per_client=)``): its least recently used goes first.
GAMES_PER_CLIENT = 100
#: The largest request body read (a move is a few dozen bytes).
MAX_BODY = 16 * 1024


class ApiError(Exception):
    """A request the API refuses: an HTTP status and a message for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _cell_name(game: str, cell: Optional[tuple[int, int]]) -> Optional[str]:
    """A cell as the pictures' ``data-cell`` attributes name it (Fish notation, Marathon
    ``row,col``)."""
    if cell is None:
        return None
    r, c = cell
    if game == "fish":
        letters, name = "", c
        while True:
            letters = chr(ord("a") + name % 26) + letters
            name = name // 26 - 1
            if name < 0:
                break
        return f"{letters}{r + 1}"
    return f"{r},{c}"


class Game:
    """One game on the server: the record (the source of truth), the position, whose seat is
    the person's, and the positions to go back to on undo."""

    def __init__(
        self,
        gid: str,
        name: str,
        variant: Any,
        human: int,
        seed: int,
        engine: str,
        time: float,
        client: str = "local",
        options: Optional[dict[str, Any]] = None,
    ) -> None:
        self.id = gid
        self.client = client  # who started it: its games are bounded together
        self.name = name
        self.variant = variant
        self.kind = "fish" if isinstance(variant, pv.Fish) else "marathon"
        self.human = human
        self.seed = seed
        self.engine = engine
        self.options = options or {}  # the engine's net, read once by the server
        self.time = time
        players = [
            "you" if p == human else f"pingvinas {engine} ({time:g} s)"
            for p in range(variant.players)
        ]
        self.record = pv.GameRecord(
            variant, seed=seed, players=players, meta={"source": "pingvinas serve"}
        )
        self.state: Any = self.record.start_state()  # either game's: `kind` says which
        self.by: list[str] = []  # "you" or "engine", per move
        self.undo_points: list[int] = []  # record lengths at the person's earlier turns
        self.lock = threading.Lock()

    # -- playing ------------------------------------------------------------------------------

    def engine_replies(self) -> None:
        """The engine plays every seat but the person's until the person is to move or the game
        is over."""
        while not self.state.is_over and self.state.to_move != self.human:
            spec = AgentSpec(self.engine)
            result = pv.search(
                self.state,
                algorithm=spec.algorithm,
                time=self.time,
                iterations=spec.iterations,
                depth=spec.depth,
                seed=self.seed + len(self.record),
                **self.options,
            )
            self.record.add_search(result.move, result)
            self.state.play(result.move)
            self.by.append("engine")

    def play(self, move: Any) -> None:
        if self.state.is_over:
            raise ApiError(409, "the game is over: start a new one or undo")
        if self.state.to_move != self.human:
            raise ApiError(409, f"it is not your turn: player {self.state.to_move} is to move")
        if isinstance(move, bool) or not isinstance(move, (str, int)):
            raise ApiError(
                400,
                f"'move' must be notation (a string) or an action (an int), not {json.dumps(move)}",
            )
        try:
            mv = self.state.parse_move(move)
        except ValueError as e:  # IllegalMoveError and InvalidMoveError
            raise ApiError(422, str(e)) from None
        self.undo_points.append(len(self.record))
        self.record.add(mv)
        self.state.play(mv)
        self.by.append("you")
        self.engine_replies()

    def undo(self) -> None:
        if not self.undo_points:
            raise ApiError(409, "nothing to undo: you have not moved yet")
        keep = self.undo_points.pop()
        while len(self.record) > keep:
            self.record.pop()
            self.by.pop()
        self.state = self.record.final_state()

    # -- showing ------------------------------------------------------------------------------

    def legal(self) -> list[dict[str, Any]]:
        if self.state.is_over or self.state.to_move != self.human:
            return []
        out = []
        for m in self.state.legal_moves():
            entry: dict[str, Any] = {"move": str(m), "action": m.action}
            if self.kind == "fish":
                entry["src"] = _cell_name("fish", m.src)
                entry["dst"] = _cell_name("fish", m.dst)
            else:
                entry.update(
                    piece=m.kind,
                    type=m.type,
                    finishes=m.finishes,
                    src=_cell_name("marathon", m.src),
                    dst=_cell_name("marathon", m.dst),
                    facing=m.facing,
                )
            out.append(entry)
        return out

    def result(self) -> Optional[str]:
        if not self.state.is_over:
            return None
        ranking = self.state.ranking()
        winners = [p for p, place in enumerate(ranking) if place == 1]
        if len(winners) == len(ranking):
            return "a draw"
        if winners == [self.human]:
            return "you win"
        if self.human in winners:
            return "you share first place"
        return (
            "the engine wins"
            if self.variant.players == 2
            else f"player {', '.join(map(str, winners))} wins"
        )

    def to_dict(self) -> dict[str, Any]:
        s = self.state
        moves = self.record.to_dict()["moves"]
        players = s.players
        last = moves[-1]["move"] if moves else None
        if self.kind == "fish":
            scores: list[Any] = [list(x) for x in s.scores]
        else:
            scores = [
                sum(1 for p in s.pieces if p.owner == k and p.status == "finished")
                for k in range(players)
            ]
        return {
            "id": self.id,
            "game": self.kind,
            "variant": self.name,
            "players": players,
            "human": self.human,
            "engine": self.engine,
            "seconds": self.time,
            "to_move": s.to_move,
            "phase": getattr(s, "phase", "over" if s.is_over else "playing"),
            "over": s.is_over,
            "ply": len(moves),
            "svg": str(s.svg(lastmove=last)),
            "legal": self.legal(),
            "moves": [
                {
                    "ply": i + 1,
                    "player": m["player"],
                    "move": m["move"],
                    "by": self.by[i],
                    **({"value": round(m["value"], 3)} if m.get("value") is not None else {}),
                }
                for i, m in enumerate(moves)
            ],
            "scores": scores,
            "ranking": s.ranking() if s.is_over else None,
            "returns": s.returns(),
            "result": self.result(),
            "can_undo": bool(self.undo_points),
            "state": s.to_json(),
        }


class App:
    """The API without HTTP: :meth:`handle` takes a method, a path, a body and the client, and
    returns a status and a JSON-able answer (``ApiError`` becomes a 4xx answer).

    ``max_games`` bounds the games kept in memory, ``games_per_client`` those of one client (see
    the module's docstring)."""

    def __init__(
        self,
        variant: Union[str, Any] = "fish",
        *,
        engine: str = "auto",
        time: float = 1.0,
        variants: Optional[dict[str, Any]] = None,
        max_games: int = MAX_GAMES,
        games_per_client: int = GAMES_PER_CLIENT,
    ) -> None:
        for name, value in (("max_games", max_games), ("games_per_client", games_per_client)):
            if not is_int(value) or value < 1:
                raise ValueError(f"{name} must be a positive int, not {value!r}")
        try:
            spec = AgentSpec(engine)  # the CLI's agents
        except ValueError as e:
            raise ValueError(f"unknown engine: {e}") from None
        # A net file is read once, here, for every game (ValueError naming a bad file).
        self.engine_options = spec_options(spec)
        TIME.check("time", time)
        self.engine = engine
        self.time = float(time)
        # The variants a new game may use: the bundled ones, and the server's own.
        self.variants: dict[str, Any] = {}
        for name in pv.variants():
            self.variants[name] = None  # loaded when first used
        if variants:
            self.variants.update(variants)
        if isinstance(variant, str):
            if variant not in self.variants:
                loaded = pv.load_game(
                    variant
                )  # a bundled name or a config file (ValueError if neither)
                variant = getattr(loaded, "name", None) or variant
                self.variants[variant] = loaded
            self.default = variant
        else:
            name = getattr(variant, "name", None) or "custom"
            self.variants[name] = variant
            self.default = name
        self.max_games = max_games
        self.games_per_client = min(games_per_client, max_games)
        self.games: OrderedDict[str, Game] = OrderedDict()  # least recently used first
        self.per_client: Counter[str] = Counter()
        self.lock = threading.Lock()

    def _variant(self, name: str) -> Any:
        if name not in self.variants:
            raise ApiError(
                404, f"unknown variant {name!r}; this server offers: {', '.join(self.variants)}"
            )
        if self.variants[name] is None:
            self.variants[name] = pv.load_game(name)
        return self.variants[name]

    def _game(self, gid: str) -> Game:
        with self.lock:
            game = self.games.get(gid)
            if game is None:
                raise ApiError(
                    404, f"unknown game id {gid!r} (games are kept in memory while the server runs)"
                )
            self.games.move_to_end(gid)
            return game

    def _keep(self, game: Game) -> None:
        """Keeps a new game, making room first: the client's own least recently used game when it
        holds its share, then (all clients together at ``max_games``) that of the client holding
        the most. So one client's new games never push out another's while it holds more."""
        with self.lock:
            if self.per_client[game.client] >= self.games_per_client:
                self._evict(game.client)
            while len(self.games) >= self.max_games:
                self._evict(max(self.per_client, key=self.per_client.__getitem__))
            self.games[game.id] = game
            self.per_client[game.client] += 1

    def _evict(self, client: str) -> None:
        gid = next(g for g, game in self.games.items() if game.client == client)
        del self.games[gid]
        self.per_client[client] -= 1
        if not self.per_client[client]:
            del self.per_client[client]

    def new_game(self, body: dict[str, Any], client: str = "local") -> dict[str, Any]:
        unknown = set(body) - {"variant", "human", "seed"}
        if unknown:
            raise ApiError(
                400,
                f"unknown field(s) {', '.join(sorted(unknown))}: "
                "a new game takes variant, human, seed",
            )
        name = body.get("variant", self.default)
        if not isinstance(name, str):
            raise ApiError(400, f"'variant' must be a string, not {json.dumps(name)}")
        variant = self._variant(name)
        human = body.get("human", 0)
        if not is_int(human) or not 0 <= human < variant.players:
            raise ApiError(
                400,
                f"'human' must be a seat from 0 to {variant.players - 1}, not {json.dumps(human)}",
            )
        seed = body.get("seed")
        if seed is None:
            seed = secrets.randbelow(2**32)
        if not is_int(seed) or not 0 <= seed < 2**63:
            raise ApiError(400, f"'seed' must be a non-negative int, not {json.dumps(seed)}")
        game = Game(
            secrets.token_hex(8),
            name,
            variant,
            human,
            seed,
            self.engine,
            self.time,
            client,
            self.engine_options,
        )
        with game.lock:
            try:
                game.engine_replies()
            except ValueError as e:  # the engine's net was made for another game
                raise ApiError(400, f"the engine cannot play this game: {e}") from None
            answer = game.to_dict()
        self._keep(game)
        return answer

    def handle(
        self, method: str, path: str, body: Optional[bytes], client: str = "local"
    ) -> tuple[int, Any]:
        """Answers one API request: ``(status, JSON-able answer)``. ``client`` names who asks
        (the HTTP server passes the client's address): games are bounded per client."""
        try:
            return 200, self._route(method, path, body, client)
        except ApiError as e:
            return e.status, {"error": e.message}

    def _route(self, method: str, path: str, body: Optional[bytes], client: str) -> Any:
        parts = [p for p in path.split("/") if p][1:]  # after "api"
        if parts == ["variants"]:
            self._method(method, "GET")
            return {
                "default": self.default,
                "engine": self.engine,
                "seconds": self.time,
                "variants": [
                    {
                        "name": n,
                        "players": self._variant(n).players,
                        "game": "fish" if isinstance(self._variant(n), pv.Fish) else "marathon",
                    }
                    for n in self.variants
                ],
            }
        if parts == ["games"]:
            self._method(method, "POST")
            return self.new_game(_json_object(body, empty_ok=True), client)
        if len(parts) >= 2 and parts[0] == "games":
            game = self._game(parts[1])
            action = parts[2:]
            if action == []:
                self._method(method, "GET")
                with game.lock:
                    return game.to_dict()
            if action == ["record"]:
                self._method(method, "GET")
                with game.lock:
                    return json.loads(game.record.to_json())
            if action == ["move"]:
                self._method(method, "POST")
                request = _json_object(body)
                unknown = set(request) - {"move"}
                if "move" not in request or unknown:
                    raise ApiError(400, 'a move request is {"move": notation or action}')
                with game.lock:
                    game.play(request["move"])
                    return game.to_dict()
            if action == ["undo"]:
                self._method(method, "POST")
                _json_object(body, empty_ok=True)
                with game.lock:
                    game.undo()
                    return game.to_dict()
        raise ApiError(404, f"no such API path: {path}")

    @staticmethod
    def _method(method: str, allowed: str) -> None:
        # HEAD is GET without the body (the HTTP layer drops it), as for the page itself.
        if method != allowed and not (method == "HEAD" and allowed == "GET"):
            raise ApiError(405, f"use {allowed} here, not {method}")


def _json_object(body: Optional[bytes], empty_ok: bool = False) -> dict[str, Any]:
    if not body or not body.strip():
        if empty_ok:
            return {}
        raise ApiError(400, "the request needs a JSON object as its body")
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ApiError(400, f"the body is not JSON: {e}") from None
    except RecursionError:  # json.loads recurses once per level of nesting
        raise ApiError(400, "the body is nested too deeply to be a request") from None
    if not isinstance(data, dict):
        raise ApiError(400, f"the body must be a JSON object, not {type(data).__name__}")
    return data


def _static(name: str) -> bytes:
    return resources.files("pingvinas.web").joinpath("static", name).read_bytes()


def make_server(
    app: App,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    quiet: bool = False,
    request_timeout: float = 10.0,
    allowed_hosts: Optional[Any] = None,
) -> Server:
    """An HTTP server for ``app``, bound and listening but not yet serving (call
    ``serve_forever()``; ``shutdown()`` from another thread stops it). ``port=0`` picks a free
    port (``server.server_address[1]``). Needs the ``web`` extra; see
    :class:`pingvinas.web.server.Server` for ``request_timeout`` and ``allowed_hosts``."""
    from pingvinas.web.server import Server

    return Server(
        app,
        host,
        port,
        quiet=quiet,
        request_timeout=request_timeout,
        allowed_hosts=allowed_hosts,
    )


def serve(
    variant: Union[str, Any] = "fish",
    *,
    port: int = 8000,
    host: str = "127.0.0.1",
    engine: str = "auto",
    time: float = 1.0,
    open_browser: bool = False,
    quiet: bool = False,
) -> None:
    """Serves the page until Ctrl-C (what ``pingvinas serve`` runs). Raises ``ImportError``
    saying what to install without the ``web`` extra, ``OSError`` when it cannot listen."""
    from pingvinas.web.server import Server  # first: without the extra, say so before anything

    app = App(variant, engine=engine, time=time)
    server = Server(app, host, port, quiet=quiet)
    url = server.url
    print(
        f"pingvinas: playing {app.default} against {engine} ({time:g} s a move) at {url}  "
        "(Ctrl-C stops)",
        flush=True,
    )
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
