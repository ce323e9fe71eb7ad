"""Records, configs, the command line and matches, as a hostile user would try them. One
regression test (or a few) per case; the Ray cases are in test_ray.py.

Ctrl-C cases run in a child interpreter with a timeout (as in test_hostile.py), so that a
regression fails the test instead of stalling the suite.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import pingvinas as pv
from pingvinas.record import GameRecord, read_jsonl
from test_cli import run as run_cli

#: Ctrl-C must stop a match within 500 ms; the assertion allows this much
#: for a loaded machine (the measured time is printed: ``pytest -rP`` shows it).
CTRL_C_LIMIT = 1.5
SMALL = pv.Fish(board=[[1, 2, 3, 1], [3, 2, 1, 2], [1, 1, 2, 3]], penguins=2)


def first_move(state):
    return state.legal_actions()[0]


# --------------------------------------------------------------------------- saving matches


def test_a_save_path_that_cannot_be_written_fails_before_the_first_game(tmp_path):
    calls = []

    def counting(state):
        calls.append(1)
        return first_move(state)

    for bad, why in (
        (tmp_path / "no" / "such" / "dir" / "x.jsonl", "does not exist"),
        (tmp_path, "a directory, not a file"),
    ):
        with pytest.raises(ValueError, match=why):
            pv.play_match(SMALL, [counting, "random"], games=4, progress=False, save=bad)
    assert calls == []  # not one move played


def test_cli_match_save_to_a_missing_directory_is_one_line(capsys, tmp_path):
    bad = str(tmp_path / "no" / "such" / "dir" / "x.jsonl")
    code, out, err = run_cli(
        capsys, "match", "--agents", "random", "random", "--games", "2", "--quiet", "--save", bad
    )
    assert code == 1, (code, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "cannot write" in err and "x.jsonl" in err and "does not exist" in err
    assert "wins" not in out  # no games were played


@pytest.mark.parametrize("workers", [None, 2])
def test_an_error_keeps_the_finished_games_in_the_file(tmp_path, workers):
    """An agent that fails in game 5: games 0 to 4 are in the save file (in game order) and on
    the exception; before, the file was written only after the last game."""
    path = tmp_path / "games.jsonl"
    # Every game is the same (a fixed board, deterministic agents): count seat 0's moves in one.
    one: list = []
    pv.play_match(
        SMALL, [lambda s: one.append(1) or first_move(s), first_move], games=1, progress=False
    )
    calls = []

    def fails_in_game_5(state):
        calls.append(1)
        if len(calls) > 5 * len(one):
            raise RuntimeError("the agent gives up")
        return first_move(state)

    with pytest.raises(RuntimeError, match="gives up") as info:
        pv.play_match(
            SMALL,
            [fails_in_game_5, first_move],
            games=12,
            progress=False,
            save=path,
            workers=workers,
            swap_seats=False,
        )
    kept = info.value.match_result
    saved = read_jsonl(path)
    assert kept.games == len(saved) >= 3
    if workers is None:
        assert kept.games == 5
        assert [r.meta["game"] for r in saved] == [0, 1, 2, 3, 4]
    assert [r.game for r in kept.records] == saved
    assert all(r.final_state().is_over for r in saved)


def test_a_complete_match_is_saved_in_game_order_with_workers(tmp_path):
    path = tmp_path / "games.jsonl"
    result = pv.play_match(
        pv.Marathon(ply_limit=30),
        ["random", "greedy"],
        games=7,
        progress=False,
        save=path,
        workers=3,
    )
    saved = read_jsonl(path)
    assert [r.meta["game"] for r in saved] == list(range(7))
    assert [r.game for r in result.records] == saved


_MATCH_CHILD = """
import signal, sys, time
import pingvinas as pv
# A child started in the background inherits SIGINT ignored: restore Python's handler.
signal.signal(signal.SIGINT, signal.default_int_handler)
agents = [pv.SearchAgent("mcts", time={seconds}), pv.SearchAgent("mcts", time={seconds})]
print("ready", flush=True)
try:
    pv.play_match(pv.Fish(board=[[1, 2, 1, 3], [2, 1, 3, 1]], penguins=1), agents, games=40,
                  workers={workers}, progress=False, save=sys.argv[1])
except KeyboardInterrupt as e:
    print(e.match_result.games, flush=True)
    sys.exit(130)
sys.exit(3)  # ran to the end: the signal was never seen
"""


def interrupted_match(path, seconds, workers, after):
    """Runs a match in a child, sends SIGINT ``after`` seconds in; returns (exit code, seconds
    from the signal to the exit, the games the exception carried)."""
    code = textwrap.dedent(_MATCH_CHILD.format(seconds=seconds, workers=workers))
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        time.sleep(after)
        assert proc.poll() is None, proc.stderr.read()
        sent = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        try:
            rc = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pytest.fail(f"workers={workers}: still running 20 s after Ctrl-C")
        took = time.perf_counter() - sent
        out, err = proc.communicate()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert rc == 130, f"exit {rc}: {err[-1500:]}"
    return rc, took, int(out.strip().splitlines()[-1])


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_keeps_the_finished_games_and_stops_at_once(tmp_path, workers):
    """Short moves, so that games finish before the signal: they are all in the file."""
    path = tmp_path / "games.jsonl"
    _, took, kept = interrupted_match(path, seconds=0.02, workers=workers, after=2.0)
    print(f"\nCtrl-C, {workers} worker(s), 0.02 s moves: exit after {took * 1000:.0f} ms")
    saved = read_jsonl(path)
    assert kept >= 1 and len(saved) == kept
    assert all(r.final_state().is_over for r in saved)
    assert took < CTRL_C_LIMIT


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_stops_the_searches_in_flight_with_workers(tmp_path):
    """Two games in flight on two threads, each move a 3 s search: Ctrl-C stops both searches
    at once rather than waiting for both games to end."""
    _, took, kept = interrupted_match(tmp_path / "g.jsonl", seconds=3.0, workers=2, after=1.0)
    print(f"\nCtrl-C, 2 workers, 3 s moves: exit after {took * 1000:.0f} ms")
    assert kept == 0
    assert took < CTRL_C_LIMIT, f"{took:.2f} s from SIGINT to exit"


def test_an_agent_error_stops_the_other_games_in_flight():
    """A failing game stops the game beside it at once (its search is stopped), instead of
    waiting for it to end."""
    slow = pv.SearchAgent("mcts", time=5.0)

    def fails_after_a_moment(state):
        time.sleep(0.3)
        raise RuntimeError("the agent gives up")

    t = time.perf_counter()
    with pytest.raises(RuntimeError, match="gives up"):
        pv.play_match(pv.Fish(), [slow, fails_after_a_moment], games=2, workers=2, progress=False)
    assert time.perf_counter() - t < 3.0


# --------------------------------------------------------------------------- records

GOOD = GameRecord(pv.Fish(), seed=1, moves=[], players=["a", "b"])
GOOD.add(GOOD.final_state().legal_moves()[0], value=0.5, nodes=10, time=0.1)
GOOD.add(GOOD.final_state().legal_moves()[0])


def mutated(path, value):
    data = json.loads(GOOD.to_json())
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


@pytest.mark.parametrize(
    "path, value, field",
    [
        (["moves", 0, "value"], 5.0, r"'moves\[0\].value'.*\[-1, 1\]"),
        (["moves", 0, "value"], -1.5, r"'moves\[0\].value'"),
        (["moves", 0, "value"], float("nan"), r"'moves\[0\].value'"),
        (["moves", 0, "time"], float("inf"), r"'moves\[0\].time'.*finite"),
        (["moves", 0, "time"], -0.5, r"'moves\[0\].time'"),
        (["moves", 0, "time"], float("nan"), r"'moves\[0\].time'"),
        (["moves", 1, "player"], True, r"'moves\[1\].player'"),  # True == 1 in Python
        (["result", "winner"], 0, r"'result.winner'.*unknown key"),
        (["result", "comment"], "nice", r"'result.comment'.*unknown key"),
        (["result", "over"], 0, r"'result.over'"),  # 0 == False in Python
        (["result", "plies"], 2.5, r"'result.plies'"),
    ],
)
def test_record_fields_out_of_range_are_refused(path, value, field):
    with pytest.raises(ValueError, match=field):
        GameRecord.from_dict(mutated(path, value))
    # The same through JSON text (NaN and Infinity as Python's json writes them).
    with pytest.raises(ValueError, match=field):
        GameRecord.from_json(json.dumps(mutated(path, value)))


def test_the_edges_of_the_ranges_are_accepted():
    for value in (-1.0, 1.0, 0):
        assert GameRecord.from_dict(mutated(["moves", 0, "value"], value)).info[0]["value"] == value
    assert GameRecord.from_dict(mutated(["moves", 0, "time"], 0)).info[0]["time"] == 0.0


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"a":' * 100_000 + "1" + "}" * 100_000,
        '{"format": "pingvinas game record", "meta": ' + "[" * 50_000 + "]" * 50_000 + "}",
    ],
    ids=["list", "object", "inside meta"],
)
def test_deeply_nested_json_is_a_value_error(text, tmp_path):
    with pytest.raises(ValueError, match="nested too deeply"):
        GameRecord.from_json(text)
    path = tmp_path / "deep.jsonl"
    path.write_text(text + "\n")
    with pytest.raises(ValueError, match="line 1.*nested too deeply"):
        read_jsonl(path)


def test_records_refuse_what_they_could_not_write():
    with pytest.raises(ValueError, match="'meta'.*not JSON"):
        GameRecord(pv.Fish(), seed=1, meta={"when": object()})
    with pytest.raises(ValueError, match="'meta'.*not JSON"):
        GameRecord(pv.Fish(), seed=1, meta={"x": float("nan")})
    with pytest.raises(ValueError, match=r"'players\[1\]'.*not JSON"):
        GameRecord(pv.Fish(), seed=1, players=["a", {"name": "b", "rating": {1, 2}}])
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(ValueError, match="'meta'.*nested too deeply"):
        GameRecord(pv.Fish(), seed=1, meta={"deep": deep})
    with pytest.raises(ValueError, match="'start'.*nested too deeply"):
        GameRecord.from_dict({**json.loads(GOOD.to_json()), "start": {"deep": deep}})


# --------------------------------------------------------------------------- configs

#: What a config error must never say: serde's words, Rust types, positions in JSON text
#: that the user never wrote.
SERDE_WORDS = (
    "untagged enum",
    "invalid type",
    "usize",
    "i64",
    "u8",
    "line 1 column",
    "any variant of",
)

FISH_CASES = [
    ({"board": [[1, -1]]}, "board[0][1] = -1", "0 to 255"),
    ({"board": [[1, 2], [3, "x"]]}, 'board[1][1] = "x"', "0 to 255"),
    ({"board": [[1, 10**9]]}, "board[0][1] = 1000000000", "0 to 255"),
    ({"board": [[1, 2.5]]}, "board[0][1] = 2.5", "fish count"),
    ({"board": [[1, None]]}, "board[0][1] = null", "fish count"),
    ({"board": [1, 2]}, "board[0] = 1", "a row"),
    ({"board": 7}, "board = 7", '"standard" or a grid'),
    ({"board": "huge"}, 'board = "huge"', '"standard" or a grid'),
    ({"players": float("nan")}, "players = NaN", "2 to 4 players"),
    ({"players": float("inf")}, "players = Infinity", "2 to 4 players"),
    ({"players": 2**100}, "players = 1267650600228229401496703205376", "2 to 4 players"),
    ({"players": 10**5000}, "players = <an int of", "2 to 4 players"),
    ({"players": -1}, "players = -1", "2 to 4 players"),
    ({"players": "3"}, 'players = "3"', "2 to 4 players"),
    ({"players": True}, "players = true", "2 to 4 players"),
    ({"penguins": 10**9}, "penguins = 1000000000", "1 to 8 penguins"),
    ({"placement": "all"}, 'placement = "all"', '"one-fish" or "any"'),
    ({"order": 1}, "order = 1", '"round-robin" or "snake"'),
    ({"name": 5}, "name = 5", "a string"),
    ({"plyers": 3}, 'unknown key "plyers"', "players"),
    ({"game": 1}, "game = 1", '"fish"'),
    ({"board": {"a": object()}}, "board.a = <object", "not a config value"),
    ({1: 2}, "key 1", "strings"),
]


@pytest.mark.parametrize("extra, says, allowed", FISH_CASES, ids=[c[1] for c in FISH_CASES])
def test_fish_config_errors_name_the_key_the_value_and_what_is_allowed(extra, says, allowed):
    with pytest.raises(ValueError) as info:
        pv.Fish.from_config({"game": "fish", **extra})
    message = str(info.value)
    assert message.startswith("Fish config: ") and says in message and allowed in message, message
    assert not any(w in message for w in SERDE_WORDS), message
    assert len(message) < 400


MARATHON_COURSE = "SSS\n###\n###\n###\nFFF\n"
MARATHON_CASES = [
    ({"players": float("nan")}, "players = NaN", "2 to 5 players"),
    ({"players": 2**100}, "players = 1267650600228229401496703205376", "2 to 5 players"),
    ({"players": "2"}, 'players = "2"', "2 to 5 players"),
    ({"ply_limit": 0}, "ply_limit = 0", "positive number of actions"),
    ({"ply_limit": 2**40}, "ply_limit = 1099511627776", "at most 4294967295"),
    ({"course": 5}, "course = 5", "ASCII map"),
    ({"course": None}, "course is missing", "ASCII map"),
    ({"name": ["x"]}, 'name = ["x"]', "a string"),
    ({"penguins": 2}, 'unknown key "penguins"', "ply_limit"),
]


@pytest.mark.parametrize("extra, says, allowed", MARATHON_CASES, ids=[c[1] for c in MARATHON_CASES])
def test_marathon_config_errors_name_the_key_the_value_and_what_is_allowed(extra, says, allowed):
    with pytest.raises(ValueError) as info:
        pv.Marathon.from_config({"course": MARATHON_COURSE, **extra})
    message = str(info.value)
    assert says in message and allowed in message, message
    assert not any(w in message for w in SERDE_WORDS), message


@pytest.mark.parametrize(
    "text, says",
    [
        ('game = "fish"\nboard = [[1, -1]]\n', "board[0][1] = -1 (line 2)"),
        ('game = "fish"\nboard = [[1, "x"]]\n', 'board[0][1] = "x"'),
        ('game = "fish"\nplayers = 2.5\n', "players = 2.5 (line 2): expected 2 to 4 players"),
        ('game = "fish"\n\nplyers = 3\n', 'unknown key "plyers" (line 3)'),
        ('game = "marathon"\nplayers = 9\ncourse = "SSS"\n', "players = 9 (line 2)"),
        ('game = "marathon"\nply_limit = "long"\ncourse = "SSS"\n', 'ply_limit = "long"'),
    ],
)
def test_toml_config_errors_too(tmp_path, text, says):
    path = tmp_path / "my.toml"
    path.write_text(text)
    with pytest.raises(ValueError) as info:
        pv.load_game(str(path))
    message = str(info.value)
    assert says in message and "my.toml" in message, message
    assert not any(w in message for w in SERDE_WORDS), message


def test_a_file_that_is_not_a_config_is_named_and_not_quoted(tmp_path):
    secret = tmp_path / "secrets.txt"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\npassword hunter2\n")
    for path in ("/etc/passwd", str(secret)):
        if not os.path.isfile(path):
            continue
        with pytest.raises(ValueError) as info:
            pv.load_game(path)
        message = str(info.value)
        assert path in message and "not a TOML config" in message, message
        assert "root:" not in message and "hunter2" not in message, message
        for game in (pv.Fish, pv.Marathon):
            with pytest.raises(ValueError, match="not a TOML config") as info:
                game.from_config(path)
            assert path in str(info.value) and "root:" not in str(info.value)
    binary = tmp_path / "x.toml"
    binary.write_bytes(b"\xff\xfe\x00game")
    with pytest.raises(ValueError, match="x.toml.*not UTF-8"):
        pv.Fish.from_config(str(binary))


def test_configs_that_nest_too_deep_or_refer_to_themselves():
    loop: dict = {"game": "fish"}
    loop["board"] = loop
    with pytest.raises(ValueError, match="nests more than"):
        pv.Fish.from_config(loop)
    deep: list = [1]
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(ValueError, match="nests more than"):
        pv.Marathon.from_config({"course": deep})


def test_good_configs_still_read():
    for name in pv.variants():
        game = pv.load_game(name)
        if isinstance(game, pv.Fish):
            assert pv.Fish.from_config(game.to_config()).to_config() == game.to_config()
    fish = pv.Fish.from_config({"game": "fish", "players": 3.0, "board": [[1, 2.0, 3]] * 2})
    assert fish.players == 3 and fish.to_config()["board"] == [[1, 2, 3]] * 2
    marathon = pv.Marathon.from_config({"course": MARATHON_COURSE, "players": 3, "name": None})
    assert marathon.players == 3 and marathon.name == "custom"


# --------------------------------------------------------------------------- small ones


def test_show_move_minus_one_is_the_last_position(capsys, tmp_path):
    record = GameRecord(pv.Fish(), seed=3)
    for _ in range(10):
        record.add(record.final_state().legal_moves()[0])
    path = tmp_path / "g.json"
    record.write(path)
    expect = {
        None: "after move 10 of 10",
        "-1": "after move 10 of 10",
        "-2": "after move 9 of 10",
        "-11": "after move 0 of 10, the start",
        "0": "after move 0 of 10",
        "10": "after move 10 of 10",
    }
    for move, says in expect.items():
        code, out, err = run_cli(capsys, "show", str(path), *(["--move", move] if move else []))
        assert code == 0, err
        assert out.splitlines()[0].endswith(says) or says in out.splitlines()[0], (move, out)
    last = run_cli(capsys, "show", str(path), "--move", "-1")[1]
    assert last == run_cli(capsys, "show", str(path))[1]
    for move in ("-12", "11"):
        code, _, err = run_cli(capsys, "show", str(path), "--move", move)
        assert code == 1 and "Traceback" not in err and "10 moves" in err, err
    assert "-11 to 10" in run_cli(capsys, "show", str(path), "--move", "-12")[2]


def test_show_move_on_a_single_position_is_refused(capsys, tmp_path):
    path = tmp_path / "s.json"
    path.write_text(pv.Fish().new_state(seed=1).to_json())
    code, _, err = run_cli(capsys, "show", str(path), "--move", "-1")
    assert code == 1 and "needs a game record" in err, err
