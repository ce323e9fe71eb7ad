"""The JSON API and the static files of `pingvinas serve`, through real HTTP requests to a server
on a free loopback port: games against the engine, and every kind of bad request answered with a
clear 4xx JSON error that leaves the game as it was."""

import json
import threading
import urllib.error
import urllib.request

import pytest

import pingvinas as pv
from pingvinas.web import App, make_server

TINY = {
    "game": "fish",
    "name": "tiny",
    "players": 2,
    "penguins": 1,
    "board": [[1, 1, 2], [3, 1, 2], [1, 2, 1]],
}


@pytest.fixture(scope="module")
def server():
    app = App(pv.Fish.from_config(TINY), engine="greedy", seconds=0.05)
    httpd = make_server(app, "127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


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
    with pytest.raises(ValueError, match="time per engine move"):
        App("fish", seconds=0)
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

    app = App("fish", engine="greedy", seconds=0.05)
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
