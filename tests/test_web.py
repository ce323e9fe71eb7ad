"""The JSON API and the static files of `pingvinas serve`, through real HTTP requests to a server
on a free loopback port: games against the engine, and every kind of bad request answered with a
clear 4xx JSON error that leaves the game as it was; then hostile HTTP (smuggled requests, slow
and simultaneous connections, other hosts and origins, clients that vanish) and a load test."""

import json
import re
import socket
import threading
import time
import types
import urllib.error
import urllib.request

import pytest

import pingvinas as pv
from pingvinas.web import App, make_server

pytest.importorskip("uvicorn", reason='the web extra is not installed: pip install ".[web]"')
pytest.importorskip("starlette", reason='the web extra is not installed: pip install ".[web]"')

TINY = {
    "game": "fish",
    "name": "tiny",
    "players": 2,
    "penguins": 1,
    "board": [[1, 1, 2], [3, 1, 2], [1, 2, 1]],
}


#: The test server's deadline for a request's headers (and again for its body).
TIMEOUT = 1.0


@pytest.fixture(scope="module")
def site():
    """A server on a free loopback port: ``url``, ``port`` and its ``app``."""
    app = App(pv.Fish.from_config(TINY), engine="greedy", time=0.05)
    httpd = make_server(app, "127.0.0.1", 0, quiet=True, request_timeout=TIMEOUT)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    port = httpd.server_address[1]
    yield types.SimpleNamespace(url=f"http://127.0.0.1:{port}", port=port, app=app)
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def server(site):
    return site.url


def request(url, method="GET", body=None, raw=None, headers=None):
    """(status, parsed JSON or text, headers) of one request; 4xx/5xx answers are returned too."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None and not (headers and "Content-Type" in headers):
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            status, text, h = resp.status, resp.read().decode(), resp.headers
    except urllib.error.HTTPError as e:
        status, text, h = e.code, e.read().decode(), e.headers
    if h.get("Content-Type", "").startswith("application/json"):
        return status, json.loads(text), h
    return status, text, h


def new_game(server, **body):
    status, state, _ = request(f"{server}/api/games", "POST", body)
    assert status == 200, state
    return state


def test_page_and_static_files(server):
    status, html, headers = request(server + "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert "/static/app.js" in html and "/static/style.css" in html
    assert "http://" not in html and "https://" not in html  # nothing from the network
    for name, kind in (("app.js", "text/javascript"), ("style.css", "text/css")):
        status, text, headers = request(f"{server}/static/{name}")
        assert status == 200 and headers["Content-Type"].startswith(kind) and len(text) > 100
        assert "http://" not in text and "https://" not in text
    for path in (
        "/static/../__init__.py",
        "/static/nothing.js",
        "/favicon.ico",
        "/static/%2e%2e/__init__.py",
    ):
        status, answer, _ = request(server + path)
        assert status == 404 and "error" in answer


def test_a_whole_game_and_its_record(server):
    state = new_game(server, seed=5)
    assert state["game"] == "fish" and state["variant"] == "tiny" and state["human"] == 0
    assert state["to_move"] == 0 and state["legal"] and state["svg"].startswith("<svg")
    gid = state["id"]
    while not state["over"]:
        move = state["legal"][0]["move"]
        ply = state["ply"]
        status, state, _ = request(f"{server}/api/games/{gid}/move", "POST", {"move": move})
        assert status == 200, state
        assert state["moves"][ply] == {"ply": ply + 1, "player": 0, "move": move, "by": "you"}
        assert all(m["by"] == "engine" for m in state["moves"][ply + 1 :])
        assert state["over"] or state["to_move"] == 0
    assert state["result"] and state["ranking"] and state["legal"] == []
    status, record, headers = request(f"{server}/api/games/{gid}/record")
    assert status == 200 and "attachment" in headers["Content-Disposition"]
    replay = pv.GameRecord.from_json(json.dumps(record))
    assert replay.final_state() == pv.FishState.from_json(state["state"])
    assert [str(m) for m in replay.moves] == [m["move"] for m in state["moves"]]


def test_the_engine_moves_first_when_the_person_takes_seat_1(server):
    state = new_game(server, human=1, seed=2)
    assert state["to_move"] == 1 and [m["by"] for m in state["moves"]] == ["engine"]


def test_undo(server):
    state = new_game(server, seed=3)
    gid, before = state["id"], state["state"]
    status, answer, _ = request(f"{server}/api/games/{gid}/undo", "POST")
    assert status == 409 and "nothing to undo" in answer["error"]
    status, after_move, _ = request(
        f"{server}/api/games/{gid}/move", "POST", {"move": state["legal"][0]["action"]}
    )
    assert status == 200 and after_move["ply"] == 2 and after_move["can_undo"]
    status, undone, _ = request(f"{server}/api/games/{gid}/undo", "POST")
    assert (
        status == 200 and undone["state"] == before and undone["ply"] == 0 and undone["moves"] == []
    )
    assert undone["legal"] == state["legal"]


def test_marathon_against_the_engine(server):
    state = new_game(server, variant="marathon", seed=1)
    assert state["game"] == "marathon" and len(state["legal"]) == 57
    entry = next(m for m in state["legal"] if m["move"] == "B -1,1 S 2,1 S")
    assert (
        entry["piece"] == "baby"
        and entry["src"] is None
        and entry["dst"] == "2,1"
        and entry["facing"] == "S"
    )
    status, state, _ = request(
        f"{server}/api/games/{state['id']}/move", "POST", {"move": "B -1,1 S 2,1 S"}
    )
    assert status == 200 and state["ply"] == 2 and state["moves"][1]["by"] == "engine"
    assert 'data-piece="0 baby"' in state["svg"]


BAD_MOVES = [
    ({"move": "a1-z9"}, 422, "off the board"),
    ({"move": 999999}, 422, ""),
    ({"move": True}, 400, "notation"),
    ({"move": None}, 400, "notation"),
    ({"move": ["a1"]}, 400, "notation"),
    ({}, 400, '{"move"'),
    ({"move": "a1", "extra": 1}, 400, '{"move"'),
]


@pytest.mark.parametrize(
    "body, status, words", BAD_MOVES, ids=[json.dumps(b) for b, _, _ in BAD_MOVES]
)
def test_bad_moves_change_nothing(server, body, status, words):
    state = new_game(server, seed=4)
    gid = state["id"]
    answer_status, answer, _ = request(f"{server}/api/games/{gid}/move", "POST", body)
    assert answer_status == status and words in answer["error"], answer
    assert request(f"{server}/api/games/{gid}")[1] == state


@pytest.mark.parametrize(
    "raw, words",
    [
        (b"{not json", "not JSON"),
        (b"\xff\xfe", "not JSON"),
        (b"[1, 2]", "JSON object"),
        (b'"a1"', "JSON object"),
        (b"", "needs a JSON object"),
    ],
)
def test_garbage_bodies_change_nothing(server, raw, words):
    state = new_game(server, seed=6)
    gid = state["id"]
    status, answer, _ = request(f"{server}/api/games/{gid}/move", "POST", raw=raw)
    assert status == 400 and words in answer["error"], answer
    assert request(f"{server}/api/games/{gid}")[1] == state


def test_a_move_after_the_end_is_refused(server):
    state = new_game(server, seed=8)
    gid = state["id"]
    while not state["over"]:
        state = request(
            f"{server}/api/games/{gid}/move", "POST", {"move": state["legal"][-1]["move"]}
        )[1]
    status, answer, _ = request(f"{server}/api/games/{gid}/move", "POST", {"move": "a1"})
    assert status == 409 and "over" in answer["error"]
    assert request(f"{server}/api/games/{gid}")[1] == state


def test_other_bad_requests(server):
    cases = [
        ("GET", "/api/games/0123456789abcdef", None, 404, "unknown game id"),
        ("POST", "/api/games/0123456789abcdef/move", {"move": "a1"}, 404, "unknown game id"),
        ("GET", "/api/games/0123456789abcdef/record", None, 404, "unknown game id"),
        ("POST", "/api/games", {"variant": "chess"}, 404, "unknown variant"),
        ("POST", "/api/games", {"variant": 3}, 400, "'variant'"),
        ("POST", "/api/games", {"human": 2}, 400, "'human'"),
        ("POST", "/api/games", {"human": True}, 400, "'human'"),
        ("POST", "/api/games", {"seed": -1}, 400, "'seed'"),
        ("POST", "/api/games", {"colour": "red"}, 400, "unknown field"),
        ("GET", "/api/games", None, 405, "use POST"),
        ("DELETE", "/api/variants", None, 405, "use GET"),
        ("GET", "/api/nothing", None, 404, "no such API path"),
    ]
    for method, path, body, status, words in cases:
        answer_status, answer, _ = request(server + path, method, body)
        assert (answer_status, words in answer.get("error", "")) == (status, True), (
            method,
            path,
            answer,
        )
    state = new_game(server, seed=9)
    status, answer, _ = request(
        f"{server}/api/games/{state['id']}/move", "POST", raw=b"{" + b" " * 20000 + b"}"
    )
    assert status == 413 and "too large" in answer["error"]
    assert request(f"{server}/api/games/{state['id']}")[1] == state


def test_variants_listed(server):
    status, info, _ = request(server + "/api/variants")
    assert status == 200 and info["default"] == "tiny" and info["engine"] == "greedy"
    names = {v["name"]: v for v in info["variants"]}
    assert set(pv.variants()) | {"tiny"} == set(names)
    assert names["fish-4p"]["players"] == 4 and names["marathon"]["game"] == "marathon"


def test_serve_refuses_a_bad_engine_time_or_variant():
    from pingvinas.cli import main

    with pytest.raises(SystemExit):
        main(["serve", "--engine", "chess"])
    with pytest.raises(ValueError, match="time = 0: expected a number, above 0, at most 604,800"):
        App("fish", time=0)
    with pytest.raises(ValueError, match="unknown variant"):
        App("no-such-variant")


def test_the_serve_command(tmp_path):
    """`pingvinas serve` on a free port, with a variant given as a TOML file: it says where it
    serves, and the page and a new game of that variant come from there."""
    import subprocess
    import sys

    config = tmp_path / "tiny.toml"
    config.write_text(
        'game = "fish"\nname = "tiny-file"\npenguins = 1\n'
        "board = [[1, 1, 2], [3, 1, 2], [1, 2, 1]]\n"
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pingvinas",
            "serve",
            "--port",
            "0",
            "--quiet",
            "--engine",
            "greedy",
            "--time",
            "0.05",
            "--variant",
            str(config),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert "tiny-file" in line and "http://127.0.0.1:" in line, line
        url = line.split(" at ")[1].split()[0].rstrip("/")
        assert request(url + "/")[0] == 200
        status, state, _ = request(url + "/api/games", "POST", {})
        assert status == 200 and state["variant"] == "tiny-file" and state["svg"].startswith("<svg")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_serve_refuses_a_taken_port():
    import subprocess
    import sys

    app = App("fish", engine="greedy", time=0.05)
    httpd = make_server(app, "127.0.0.1", 0, quiet=True)
    try:
        port = httpd.server_address[1]
        out = subprocess.run(
            [sys.executable, "-m", "pingvinas", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode != 0 and f"cannot serve on 127.0.0.1:{port}" in out.stderr
        assert "Traceback" not in out.stderr
    finally:
        httpd.server_close()


# --- hostile HTTP ----------------------------------------------------------------------------


def raw_request(method, path, port, body=b"", headers=(), host=None):
    """One request's bytes, framed by Content-Length unless ``headers`` frame it otherwise."""
    host = f"127.0.0.1:{port}" if host is None else host
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", *headers]
    if not any(h.lower().startswith(("content-length", "transfer-encoding")) for h in headers):
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def exchange(port, data, *, wait=4.0, source=None):
    """Sends ``data`` on one connection and returns all the server sends back until it closes the
    connection (or until ``wait`` seconds have passed)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=wait, source_address=source)
    with sock:
        sock.sendall(data)
        return read_until_closed(sock, time.monotonic() + wait)


def read_until_closed(sock, deadline):
    out = b""
    while True:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except (socket.timeout, ConnectionResetError):
            return out
        if not chunk:
            return out
        out += chunk


def statuses(raw):
    """The status of every answer in a stream of HTTP/1.1 answers."""
    return [int(s) for s in re.findall(rb"HTTP/1\.1 (\d{3}) ", raw)]


def json_error(raw):
    """The ``error`` of the last answer in ``raw`` (a JSON body)."""
    return json.loads(raw[raw.rindex(b"\r\n\r\n") + 4 :])["error"]


def smuggling_cases(port, gid, move):
    """(name, bytes, the one status expected): each carries a whole move request where a
    server that frames requests wrongly would read it as the next request."""
    path = f"/api/games/{gid}/move"
    inner = raw_request(
        "POST", path, port, json.dumps({"move": move}).encode(), ["Content-Type: application/json"]
    )
    chunked = (
        b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (inner, b" " * 17000))
        + b"0\r\n\r\n"
    )
    return [
        ("a body over the limit", raw_request("POST", path, port, inner + b" " * 17000), 413),
        ("a GET with a body", raw_request("GET", f"/api/games/{gid}", port, inner), 200),
        (
            "a chunked body over the limit",
            raw_request("POST", path, port, chunked, ["Transfer-Encoding: chunked"]),
            413,
        ),
        (
            "Content-Length and chunked both",
            raw_request(
                "POST",
                path,
                port,
                b"0\r\n\r\n" + inner,
                ["Content-Length: 5", "Transfer-Encoding: chunked"],
            ),
            400,
        ),
        (
            "a bad Content-Length",
            raw_request("POST", path, port, inner, ["Content-Length: -1"]),
            400,
        ),
    ]


def test_a_refused_or_ignored_body_is_never_read_as_a_request(site):
    """Regression: a 413 left the body unread, so a move inside it was played (ply 0 ->
    2); a GET's body was read as a request too."""
    for i in range(5):
        state = new_game(site.url, seed=10)
        case = smuggling_cases(site.port, state["id"], state["legal"][0]["move"])[i]
        name, data, expected = case
        raw = exchange(site.port, data)
        assert statuses(raw) == [expected], (name, raw[:300])
        if expected != 200:
            assert json_error(raw), name
        assert request(f"{site.url}/api/games/{state['id']}")[1] == state, name


def test_fifty_simultaneous_new_games(server):
    """Regression: with a listen backlog of 5, 50 simultaneous new games reset 19-29
    connections."""
    barrier = threading.Barrier(50)
    answers = []

    def one(seed):
        barrier.wait()
        try:
            answers.append(request(f"{server}/api/games", "POST", {"seed": seed})[0])
        except OSError as e:
            answers.append(repr(e))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert answers == [200] * 50


def test_slow_requests_time_out_and_hold_no_thread(site):
    """Regression: partial requests never timed out, and each held a thread (300 slow
    connections, 302 threads). Now a request has TIMEOUT s for its headers and as long for its
    body, then gets 408 and its connection is closed; meanwhile the server answers others."""
    port = site.port
    games = len(site.app.games)
    threads = threading.active_count()
    partial = [  # headers never finished; a body never finished
        f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/html\r\n".encode(),
        raw_request("POST", "/api/games", port, b"{", ["Content-Length: 99"]),
    ]
    socks = []
    start = time.monotonic()
    for i in range(60):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(partial[i % 2])
        socks.append(sock)
    assert threading.active_count() < threads + 10  # connections cost no thread
    assert request(site.url + "/api/variants")[0] == 200
    deadline = start + TIMEOUT + 4
    answers = []
    for sock in socks:
        with sock:
            answers.append(statuses(read_until_closed(sock, deadline)))
    took = time.monotonic() - start
    assert answers == [[408]] * 60 and took < TIMEOUT + 3, (answers, took)
    assert len(site.app.games) == games  # no partial request made a game


def test_a_trickled_request_times_out(site):
    """A byte now and then does not keep a request alive (uvicorn's own keep-alive timer is reset
    by every byte)."""
    data = raw_request("GET", "/api/variants", site.port)
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", site.port), timeout=5) as sock:
        sock.settimeout(0.2)
        answer = b""
        for byte in data[:-1]:
            if time.monotonic() - start > TIMEOUT + 3:
                break
            try:
                sock.sendall(bytes([byte]))
                answer += sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                break
            if not answer or answer.endswith(b"}"):
                break
    assert statuses(answer) == [408] and time.monotonic() - start < TIMEOUT + 2, answer


HOSTS = [
    ("127.0.0.1:{port}", 200),
    ("localhost:{port}", 200),
    ("LocalHost:{port}", 200),
    ("[::1]:{port}", 200),
    ("evil.example:{port}", 400),
    ("localhost.evil.example:{port}", 400),
    ("127.0.0.1:1", 400),  # the wrong port
    ("127.0.0.1", 400),
    ("", 400),
]


@pytest.mark.parametrize("host, status", HOSTS, ids=[h for h, _ in HOSTS])
def test_only_loopback_host_names_are_served(site, host, status):
    """Regression: no Host check, so a page could reach the server by DNS rebinding."""
    host = host.format(port=site.port)
    games = len(site.app.games)
    for method, path in (("GET", "/"), ("GET", "/api/variants"), ("POST", "/api/games")):
        raw = exchange(
            site.port,
            raw_request(method, path, site.port, headers=["Connection: close"], host=host),
        )
        assert statuses(raw) == [status], (method, path, raw[:300])
        if status == 400:
            assert "this server answers to" in json_error(raw)
    assert len(site.app.games) == games + (status == 200)


def test_other_pages_may_not_change_games(site):
    """Regression: with no Origin check any page could drive the server. Now a request
    that may change a game from another origin gets 403; programs (no Origin) and the page
    itself are served, and reading stays allowed (the browser keeps the answer from the
    other page: no CORS header)."""
    url, port = site.url, site.port
    state = new_game(url, seed=11)
    move = {"move": state["legal"][0]["move"]}
    games = len(site.app.games)
    for origin in ("http://evil.example", "null", f"http://localhost:{port}", "https://127.0.0.1"):
        for path, body in (("/api/games", {}), (f"/api/games/{state['id']}/move", move)):
            status, answer, _ = request(url + path, "POST", body, headers={"Origin": origin})
            assert status == 403 and "other pages" in answer["error"], (origin, path, answer)
        status, _, headers = request(f"{url}/api/games/{state['id']}", headers={"Origin": origin})
        assert status == 200 and "Access-Control-Allow-Origin" not in headers
    assert len(site.app.games) == games
    assert request(f"{url}/api/games/{state['id']}")[1] == state
    for origin, host in ((url, None), (f"http://localhost:{port}", f"localhost:{port}")):
        headers = {"Origin": origin, **({"Host": host} if host else {})}
        assert request(f"{url}/api/games", "POST", {}, headers=headers)[0] == 200


def test_a_server_bound_to_another_host_serves_any_name():
    """Started with --host on purpose (here 0.0.0.0), the server answers to the names the
    network knows it by; other pages still may not change games."""
    app = App(pv.Fish.from_config(TINY), engine="greedy", time=0.05)
    httpd = make_server(app, "0.0.0.0", 0, quiet=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}"
        host = {"Host": f"board.lan:{httpd.server_address[1]}"}
        assert request(url + "/", headers=host)[0] == 200
        assert request(url + "/api/games", "POST", {}, headers=host)[0] == 200
        other = {**host, "Origin": "http://evil.example"}
        assert request(url + "/api/games", "POST", {}, headers=other)[0] == 403
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_one_clients_new_games_never_evict_anothers(site):
    """Regression: 201 new games from one client evicted every other client's game. Games
    are now bounded per client (here 127.0.0.2 against 127.0.0.1): a client's new games push out
    only its own least recently used ones."""
    import http.client

    mine = new_game(site.url, seed=12)
    try:
        conn = http.client.HTTPConnection(
            "127.0.0.1", site.port, timeout=30, source_address=("127.0.0.2", 0)
        )
        conn.connect()
    except OSError as e:
        pytest.skip(f"127.0.0.2 is not a loopback address here: {e}")
    theirs = []
    try:
        for seed in range(201):
            conn.request("POST", "/api/games", body=json.dumps({"seed": seed}))
            answer = conn.getresponse()
            assert answer.status == 200
            theirs.append(json.loads(answer.read())["id"])
    finally:
        conn.close()
    assert request(f"{site.url}/api/games/{mine['id']}")[1] == mine
    kept = [request(f"{site.url}/api/games/{gid}")[0] for gid in theirs]
    per_client = site.app.games_per_client
    assert kept == [404] * (201 - per_client) + [200] * per_client


def test_games_are_bounded_fairly_between_clients():
    """The cap on all games together takes from the client holding the most, least recently
    used first; a client's own cap takes from itself."""
    app = App(
        pv.Fish.from_config(TINY), engine="greedy", time=0.05, max_games=4, games_per_client=2
    )

    def new(client):
        status, state = app.handle("POST", "/api/games", b"{}", client)
        assert status == 200
        return state["id"]

    def alive(gid):
        return app.handle("GET", f"/api/games/{gid}", None, "anyone")[0] == 200

    a1 = new("a")
    b1, b2 = new("b"), new("b")
    c1 = new("c")
    assert all(map(alive, (a1, b1, b2, c1)))
    assert alive(b1)  # b1 is now b's most recently used game
    c2 = new("c")  # four games kept: b, holding the most, loses its least recently used one
    assert [alive(g) for g in (a1, b1, b2, c1, c2)] == [True, True, False, True, True]
    c3 = new("c")  # c holds its share (2): its own oldest goes
    assert [alive(g) for g in (a1, b1, c1, c2, c3)] == [True, True, False, True, True]
    with pytest.raises(ValueError, match="games_per_client"):
        App("fish", games_per_client=0)


def test_deeply_nested_json_is_a_400(site):
    """Regression: 16 KB of nested JSON gave a 500 with a traceback."""
    state = new_game(site.url, seed=13)
    for path, body in (
        (f"/api/games/{state['id']}/move", b'{"move": ' + b"[" * 16000),
        ("/api/games", b"[" * 16000),
        (f"/api/games/{state['id']}/undo", b'{"a": ' * 2000),
    ):
        status, answer, _ = request(site.url + path, "POST", raw=body)
        assert status == 400 and "nested too deeply" in answer["error"], (path, answer)
    assert request(f"{site.url}/api/games/{state['id']}")[1] == state


def test_http_that_cannot_be_parsed_gets_a_json_400(site):
    for data in (
        b"NOT HTTP AT ALL\r\n\r\n",
        f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{site.port}\r\nNo colon\r\n\r\n".encode(),
        b"GET / HTTP/1.1\r\n\r\n",  # no Host
        raw_request("GET", "/", site.port, headers=["Host: evil.example"]),  # two
    ):
        raw = exchange(site.port, data)
        assert statuses(raw) == [400] and "invalid HTTP request" in json_error(raw), raw[:200]
        assert b"400 Bad Request\r\n" in raw


def test_head_serves_the_page_without_a_body(server):
    status, text, headers = request(server + "/", "HEAD")
    assert status == 200 and text == "" and headers["Content-Type"].startswith("text/html")


def test_head_on_api_paths_is_get_without_a_body(server):
    """Regression: HEAD on API paths got 405."""
    req = urllib.request.Request(server + "/api/variants", method="HEAD")
    with urllib.request.urlopen(req, timeout=30) as resp:
        assert resp.status == 200 and resp.read() == b""
        assert resp.headers["Content-Type"].startswith("application/json")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(urllib.request.Request(server + "/api/games", method="HEAD"))
    assert e.value.code == 405  # a POST path stays one


def test_clients_that_vanish_print_nothing(tmp_path):
    """Regression: each client gone before its answer printed two BrokenPipeError
    tracebacks, even with --quiet."""
    import struct
    import subprocess
    import sys

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pingvinas",
            "serve",
            "--port",
            "0",
            "--quiet",
            "--engine",
            "mcts",
            "--time",
            "0.2",
            "--variant",
            "fish",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = proc.stdout.readline().split(" at ")[1].split()[0].rstrip("/")
        port = int(url.rsplit(":", 1)[1])
        for i in range(6):
            # The engine thinks first (seat 1), so the answer meets a connection reset meanwhile.
            what = [
                raw_request("POST", "/api/games", port, b'{"human": 1}'),
                raw_request("GET", "/static/app.js", port),
                raw_request("POST", "/api/games", port, b'{"hum'),
            ][i % 3]
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(what)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()
        time.sleep(1.0)  # the answers meet the closed connections
        assert request(url + "/api/variants")[0] == 200
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert err == "", err


def test_serve_without_the_web_extra_says_what_to_install():
    """Without starlette and uvicorn, `pingvinas serve` says how to install them (and the API
    without HTTP, App, still works)."""
    import subprocess
    import sys

    script = (
        "import sys; sys.modules['uvicorn'] = None\n"
        "from pingvinas.web import App\n"
        "assert App('fish', engine='greedy').handle('POST', '/api/games', b'{}')[0] == 200\n"
        "from pingvinas.cli import main\n"
        "main(['serve', '--port', '0'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert 'pip install "pingvinas[web]"' in out.stderr and '".[web]"' in out.stderr
    assert "uvicorn" in out.stderr


@pytest.mark.slow
def test_load_fifty_clients_a_hundred_requests_each():
    """50 clients on kept-alive connections, 100 requests each (new game, moves, undos, the
    state, the record, the variants and the page's script), all at once: every answer right."""
    import http.client

    app = App(pv.Fish.from_config(TINY), engine="greedy", time=0.01)
    httpd = make_server(app, "127.0.0.1", 0, quiet=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    port = httpd.server_address[1]
    barrier = threading.Barrier(50)
    failures = []
    counts = []

    def client(seed):
        n = 0
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

        def ask(method, path, body=None):
            nonlocal n
            n += 1
            conn.request(method, path, body=None if body is None else json.dumps(body))
            answer = conn.getresponse()
            data = answer.read()
            if answer.status != 200:
                raise AssertionError(f"{method} {path}: {answer.status} {data[:200]!r}")
            return data

        try:
            barrier.wait()
            state = json.loads(ask("POST", "/api/games", {"seed": seed}))
            gid = state["id"]
            while n < 100:
                if state["legal"]:
                    move = state["legal"][seed % len(state["legal"])]["move"]
                    ply = state["ply"]
                    state = json.loads(ask("POST", f"/api/games/{gid}/move", {"move": move}))
                    assert state["moves"][ply] == {
                        "ply": ply + 1,
                        "player": 0,
                        "move": move,
                        "by": "you",
                    }
                else:
                    state = json.loads(ask("POST", f"/api/games/{gid}/undo"))
                again = json.loads(ask("GET", f"/api/games/{gid}"))
                assert again["state"] == state["state"]
                extra = n % 3
                if extra == 0:
                    assert json.loads(ask("GET", f"/api/games/{gid}/record"))["moves"] is not None
                elif extra == 1:
                    assert json.loads(ask("GET", "/api/variants"))["default"] == "tiny"
                else:
                    assert b"fetch" in ask("GET", "/static/app.js")
        except Exception as e:  # noqa: BLE001 (reported below)
            failures.append(f"client {seed}: {type(e).__name__}: {e}")
        finally:
            conn.close()
            counts.append(n)

    start = time.monotonic()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    took = time.monotonic() - start
    httpd.shutdown()
    httpd.server_close()
    assert failures == [], failures[:5]
    assert len(counts) == 50 and min(counts) >= 100, counts
    print(f"load: {sum(counts)} requests from 50 clients in {took:.1f} s")


@pytest.mark.slow
def test_ctrl_c_does_not_wait_for_the_engine():
    """Ctrl-C while the engine thinks (20 s a move) stops the server within the 2 s grace: the
    waiting request gets 503 and nothing is printed (--quiet)."""
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "pingvinas", "serve", "--port", "0", "--quiet"]
        + ["--engine", "mcts", "--time", "20"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    answers = []
    try:
        url = proc.stdout.readline().split(" at ")[1].split()[0].rstrip("/")
        waiting = threading.Thread(
            target=lambda: answers.append(request(url + "/api/games", "POST", {"human": 1}))
        )
        waiting.start()
        time.sleep(0.5)
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        took = time.monotonic() - start
        waiting.join(30)
    finally:
        proc.kill()
    assert took < 5 and err == "", (took, err)
    assert answers[0][0] == 503 and "stopping" in answers[0][1]["error"]
