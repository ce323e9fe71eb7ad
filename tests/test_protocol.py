"""The engine protocol: its parser against malformed lines, the engine side in this process, a
real engine process (``python -m pingvinas engine``) in matches, and every fault: an engine
that exits at once, one that never answers, one that writes what is not the protocol, and one
that plays an illegal move each lose every game with the reason, the match finishes, and no
engine process is left behind (also after Ctrl-C)."""

from __future__ import annotations

import io
import json
import os
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import pingvinas as pv
from pingvinas.agents import as_agent
from pingvinas.playing.protocol.driver import FAULTS, EngineAgent, EngineFault
from pingvinas.playing.protocol.engine import run_engine
from pingvinas.playing.protocol.grammar import (
    ProtocolError,
    format_go,
    format_newgame,
    format_position,
    parse_driver_line,
    parse_engine_line,
)

ENGINE = [sys.executable, "-m", "pingvinas", "engine"]
LINUX = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")


def processes_running(marker: str) -> list[int]:
    """The pids of the live processes with ``marker`` as one of their arguments (Linux's
    /proc)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().decode("utf-8", "replace")
            with open(f"/proc/{pid}/stat") as f:
                zombie = f.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            continue
        if marker in cmdline.split("\0") and not zombie:
            found.append(int(pid))
    return found


# --------------------------------------------------------------------------- the parser


@pytest.mark.parametrize(
    "line, kind",
    [
        ("id name My Engine 2.0\n", "id"),
        ("pepok 1", "pepok"),
        ("readyok\r\n", "readyok"),
        ("info depth 3 nodes 120 value -0.25", "info"),
        ("bestmove B 0,1 S 3,1 SE", "bestmove"),
        ("   ", "empty"),
    ],
)
def test_engine_lines_that_read(line, kind):
    assert parse_engine_line(line).kind == kind


def test_engine_line_fields():
    assert parse_engine_line("id name My Engine 2.0").text == "My Engine 2.0"
    assert parse_engine_line("pepok 1").version == 1
    assert parse_engine_line("bestmove  a1-c1 ").text == "a1-c1"
    info = parse_engine_line("info depth 3 nodes 120 value -0.25 string hello there")
    assert info.info == {"depth": 3, "nodes": 120, "value": -0.25}
    assert info.text == "hello there"
    # A fact that does not read is left out: info never breaks the protocol.
    bad = parse_engine_line("info depth deep nodes -4 value 7 value nan seldepth 9 x")
    assert bad.kind == "info" and bad.info == {}


@pytest.mark.parametrize(
    "line, says",
    [
        ("hello", "not a message"),
        ("uciok", "not a message"),
        ("bestmove", "without a move"),
        ("pepok", "pepok VERSION"),
        ("pepok one", "whole number"),
        ("pepok 1 2", "pepok VERSION"),
        ("pepok -1", "whole number"),
        ("id name", "id KEY TEXT"),
        ("readyok now", "nothing after"),
        ("bestmove a1\x00", "control characters"),
        ("x" * (1 << 20 | 1), "bytes"),
    ],
)
def test_malformed_engine_lines_are_refused(line, says):
    with pytest.raises(ProtocolError, match=says):
        parse_engine_line(line)


@pytest.mark.parametrize(
    "line, says",
    [
        ("pep", "whole number"),
        ("pep one", "whole number"),
        ("newgame", "not JSON"),
        ("newgame {oops", "not JSON"),
        ("newgame []", "not a JSON object"),
        ('newgame {"game": "chess", "config": {}}', "fish or marathon"),
        ('newgame {"game": "fish", "config": "standard"}', "'config'"),
        ("position {}", "'start'"),
        ('position {"start": {}, "moves": "a1 b1"}', "'moves'"),
        ('position {"start": {}, "moves": [1, 2]}', "'moves'"),
        ("position " + "[" * 100_000, "not JSON"),
        ("go", "go movetime"),
        ("go movetime", "go movetime"),
        ("go movetime -5", "whole number"),
        ("go movetime 1.5", "whole number"),
        ("go wtime 5 btime 5", "go movetime"),
        ("go timeleft 100 inc", "go movetime"),
    ],
)
def test_malformed_driver_lines_are_refused(line, says):
    with pytest.raises(ProtocolError, match=says):
        parse_driver_line(line)


def test_unknown_driver_commands_are_for_the_engine_to_ignore():
    assert parse_driver_line("setoption name Hash value 8").kind == "unknown"
    assert parse_driver_line("").kind == "empty"
    go = parse_driver_line("go timeleft 5000 inc 100")
    assert (go.kind, go.timeleft, go.inc, go.movetime) == ("go", 5000, 100, None)


@pytest.mark.parametrize(
    "game",
    [
        pv.Fish(),
        pv.Fish(board=[[1, 2, 3, 1], [3, 1, 1, 2], [1, 1, 2, 3]], penguins=1),
        pv.Marathon(),
        pv.load_game("marathon-zigzag"),
    ],
)
def test_messages_carry_the_variant_and_the_position(game):
    from pingvinas.playing.protocol.engine import _state_from

    newgame = parse_driver_line(format_newgame(game, 1))
    assert newgame.data["seat"] == 1 and newgame.data["players"] == game.players
    again = type(game).from_config(newgame.data["config"])
    assert again == game
    start = game.new_state(seed=5)
    state, moves = start.copy(), []
    for _ in range(4):
        mv = state.legal_moves()[len(moves) % len(state.legal_moves())]
        moves.append(mv)
        state.play(mv)
    position = parse_driver_line(format_position(start, moves))
    assert position.data["moves"] == [str(m) for m in moves]
    assert _state_from(position.data["start"], position.data["moves"]) == state


def test_go_in_whole_milliseconds():
    assert format_go(movetime=0.05) == "go movetime 50"
    assert format_go(movetime=0.0001) == "go movetime 1"
    assert format_go(timeleft=2.5, inc=0.1) == "go timeleft 2500 inc 100"
    with pytest.raises(ValueError):
        format_go()


# --------------------------------------------------------------------------- the engine side


def converse(lines, agent="greedy"):
    """The engine's answers to ``lines``, run in this process."""
    out = io.StringIO()
    run_engine(as_agent(agent), input=io.StringIO("".join(x + "\n" for x in lines)), output=out)
    return out.getvalue().splitlines()


def test_the_engine_side_answers_a_game():
    game = pv.Fish()
    start = game.new_state(seed=2)
    first = start.legal_moves()[0]
    answers = converse(
        [
            "pep 1",
            format_newgame(game, 1),
            "isready",
            "setoption name Hash value 8",  # ignored
            format_position(start, [first]),
            "go movetime 50",
            "quit",
            "isready",  # after quit: never read
        ]
    )
    assert answers[:4] == ["id name greedy", "id author pingvinas", "pepok 1", "readyok"]
    assert answers[-1].startswith("bestmove ")
    after = start.after(first)
    assert after.parse_move(answers[-1][len("bestmove ") :]) in after.legal_moves()
    assert len(answers) in (5, 6)  # an info line of the search facts, then the move


def test_the_engine_side_reports_bad_input_and_goes_on():
    game = pv.Marathon()
    start = game.new_state()
    answers = converse(
        [
            "go movetime 10",  # no position yet
            "newgame {broken",
            'position {"start": {"game": "go"}, "moves": []}',
            format_position(start, ["B -1,1 S 9,9 S"]),  # not a move there
            "go movetime 10",
            format_position(start, []),
            "go movetime 10",
        ],
        agent="random",
    )
    errors = [a for a in answers if a.startswith("info string error")]
    assert len(errors) == 5, answers
    assert answers.count("bestmove none") == 2
    assert start.parse_move(answers[-1][len("bestmove ") :]) in start.legal_moves()


# --------------------------------------------------------------------------- a real engine


def test_a_real_engine_plays_matches_of_both_games(tmp_path):
    board = pv.Fish(board=[[1, 2, 3, 1, 2], [3, 1, 1, 2, 2], [1, 1, 2, 3, 1]], penguins=2)
    for game in (board, pv.Marathon()):
        engine = EngineAgent(ENGINE + ["--agent", "greedy"], time=0.05, grace=5, startup=60)
        save = tmp_path / "games.jsonl"
        result = pv.play_match(game, [engine, "random"], games=2, save=save, progress=False)
        assert result.games == 2
        assert all(r.fault is None for r in result.records)
        assert result.agents[0].faults == {} and "faults" not in str(result)
        records = pv.record.read_jsonl(save)
        assert all(r.result["over"] for r in records)
        # The engine's own name (its id name) beside the name the table gives it.
        assert [p["engine"] for p in records[0].players if "engine" in p] == ["pingvinas greedy"]
        # Each move of the engine carries the time it took.
        seat = result.records[0].seats.index(0)
        mine = [
            i for m, i in zip(records[0].to_dict()["moves"], records[0].info) if m["player"] == seat
        ]
        assert mine and all("time" in i for i in mine)
    # A clock instead of a time per move: go timeleft ... inc ...
    engine = EngineAgent(ENGINE + ["--agent", "alphabeta"], clock=(2.0, 0.05), grace=5, startup=60)
    result = pv.play_match(board, [engine, "greedy"], games=1, progress=False)
    assert result.games == 1 and result.records[0].fault is None


def test_the_example_engine_of_the_docs_plays(tmp_path):
    page = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
    if not page.is_file():
        pytest.skip("no docs/ beside the tests (an installed copy)")
    code = page.read_text(encoding="utf-8").split("```py\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "random_engine.py"
    path.write_text(code)
    engine = EngineAgent([sys.executable, str(path)], time=0.05, grace=5, startup=60)
    result = pv.play_match(pv.Fish(), [engine, "greedy"], games=2, progress=False)
    assert result.games == 2 and all(r.fault is None for r in result.records)


def test_the_engine_of_any_installed_build_plays(tmp_path):
    """benches/pep_engine.py seats another installed build at the table through the protocol;
    here it plays with the build under test, on a time per move and on a clock."""
    script = Path(__file__).resolve().parent.parent / "benches" / "pep_engine.py"
    if not script.is_file():
        pytest.skip("no benches/ beside the tests (an installed copy)")
    board = pv.Fish(board=[[1, 2, 3, 1, 2], [3, 1, 1, 2, 2], [1, 1, 2, 3, 1]], penguins=2)
    for game, agent in ((board, "auto"), (pv.Marathon(), "mcts-plain")):
        cmd = [sys.executable, str(script), agent, "--seed", "3"]
        engine = EngineAgent(cmd, time=0.05, grace=5, startup=60)
        result = pv.play_match(game, [engine, "greedy"], games=2, progress=False)
        assert result.games == 2 and all(r.fault is None for r in result.records)
    cmd = [sys.executable, str(script), "alphabeta"]
    engine = EngineAgent(cmd, clock=(2.0, 0.05), grace=5, startup=60)
    result = pv.play_match(board, [engine, "greedy"], games=1, progress=False)
    assert result.games == 1 and result.records[0].fault is None


def test_two_installed_builds_play_a_match(tmp_path):
    """benches/versus_baseline.py: every seat a process of its own, the new seat going round,
    the score and move times written as JSON."""
    script = Path(__file__).resolve().parent.parent / "benches" / "versus_baseline.py"
    if not script.is_file():
        pytest.skip("no benches/ beside the tests (an installed copy)")
    here = str(Path(pv.__file__).resolve().parent.parent)
    out = tmp_path / "result.json"
    for players in (2, 3):
        cmd = [
            sys.executable,
            str(script),
            "--new",
            here,
            "--old",
            here,
            "--players",
            str(players),
            "--games",
            "3",
            "--time",
            "0.01",
            "--workers",
            "1",
            "--json",
            str(out),
        ]
        subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    two, three = (json.loads(line) for line in out.read_text().splitlines())
    assert (two["players"], three["players"]) == (2, 3)
    for r in (two, three):
        assert r["games"] == 3 and 0 <= r["ci95"][0] <= r["score"] <= r["ci95"][1] <= 1
        assert 0 < r["new_move_mean_s"] <= r["new_move_max_s"]
    assert "elo" in two and "elo" not in three


def test_cmd_agents_where_agents_are_named():
    agent = as_agent("cmd:pingvinas engine --agent random")
    assert isinstance(agent, EngineAgent) and agent.name == "pingvinas engine --agent random"
    assert agent.args[:2] == ["pingvinas", "engine"]
    with pytest.raises(ValueError, match="no such program"):
        as_agent("cmd:no-such-engine-anywhere --x")
    with pytest.raises(ValueError, match="empty"):
        as_agent("cmd:  ")
    with pytest.raises(ValueError, match="time"):
        EngineAgent(ENGINE, time=0)


# --------------------------------------------------------------------------- faults

#: Fake engines: each answers the handshake (but the first) and then faults its own way.
FAKES = {
    "exits": "import sys\nsys.exit(3)\n",
    "hangs": """
        import sys, time
        for line in sys.stdin:
            word = line.split()[0] if line.split() else ""
            if word == "pep":
                print("id name hang\\npepok 1", flush=True)
            elif word == "isready":
                print("readyok", flush=True)
            elif word == "go":
                time.sleep(3600)
        """,
    "garbage": """
        import sys
        for line in sys.stdin:
            word = line.split()[0] if line.split() else ""
            if word == "pep":
                print("pepok 1", flush=True)
            elif word == "isready":
                print("readyok", flush=True)
            elif word == "go":
                print("I think I will play e4", flush=True)
        """,
    "illegal": """
        import sys
        for line in sys.stdin:
            word = line.split()[0] if line.split() else ""
            if word == "pep":
                print("pepok 1", flush=True)
            elif word == "isready":
                print("readyok", flush=True)
            elif word == "go":
                print("info depth 1 string about to cheat\\nbestmove z99", flush=True)
        """,
    "silent": "import time\ntime.sleep(3600)\n",
}
REASONS = {
    "exits": "crash",
    "hangs": "time",
    "garbage": "protocol",
    "illegal": "illegal",
    "silent": "time",
}


def write_fakes(tmp_path):
    paths = {}
    for name, body in FAKES.items():
        path = tmp_path / f"fake_{name}_engine.py"
        path.write_text(textwrap.dedent(body))
        paths[name] = str(path)
    return paths


@LINUX
def test_every_fault_loses_every_game_and_leaves_no_process(tmp_path):
    paths = write_fakes(tmp_path)
    body = f"""
        import json, os, sys
        import pingvinas as pv
        from pingvinas.playing.protocol.driver import EngineAgent
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from test_protocol import processes_running
        out = {{}}
        for name, path in {paths!r}.items():
            # The silent one is given little time for its handshake; the others all they need.
            startup = 0.5 if name == "silent" else 20
            engine = EngineAgent([sys.executable, path], time=0.05, grace=0.3, startup=startup,
                                 name=name)
            save = os.path.join({str(tmp_path)!r}, name + ".jsonl")
            result = pv.play_match(pv.Fish(), [engine, "random"], games=2, save=save,
                                   progress=False)
            records = pv.record.read_jsonl(save)
            out[name] = dict(
                games=result.games,
                losses=result.agents[0].losses,
                faults=result.agents[0].faults,
                table=str(result),
                details=[r.fault["detail"] for r in result.records],
                saved=[r.meta["fault"]["reason"] for r in records],
                running=processes_running(path),
            )
        print(json.dumps(out))
    """
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(body)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    for name, reason in REASONS.items():
        got = out[name]
        assert got["games"] == 2 and got["losses"] == 2, (name, got)
        assert got["faults"] == {reason: 2}, (name, got)
        assert f"{reason}:2" in got["table"] and "faults:" in got["table"]
        assert got["saved"] == [reason] * 2
        assert got["running"] == [], f"{name}: engine processes left running"
    assert "exited with code 3" in out["exits"]["details"][0]
    assert "I think I will play e4" in out["garbage"]["details"][0]
    assert "z99" in out["illegal"]["details"][0]
    for path in paths.values():
        assert processes_running(path) == []


@LINUX
def test_an_engine_that_faults_raises_engine_fault_and_is_restarted(tmp_path):
    paths = write_fakes(tmp_path)
    engine = EngineAgent([sys.executable, paths["garbage"]], time=0.05, grace=0.5, startup=10)
    state = pv.Fish().new_state(seed=1)
    for _ in range(2):  # a fresh process each time
        with pytest.raises(EngineFault) as caught:
            engine.choose(state)
        assert caught.value.reason == "protocol" and caught.value.reason in FAULTS
        assert processes_running(paths["garbage"]) == []


def test_a_saved_game_lost_to_a_fault_says_who_lost(tmp_path):
    engine = EngineAgent([sys.executable, write_fakes(tmp_path)["illegal"]], time=0.05, grace=5)
    save = tmp_path / "games.jsonl"
    result = pv.play_match(pv.Fish(), [engine, "random"], games=2, save=save, progress=False)
    for record, game in zip(pv.record.read_jsonl(save), result.records):
        seat = game.fault["seat"]
        assert record.fault_seat == seat and record.result["over"] is True
        assert record.result["ranking"] == game.ranking and game.ranking[seat] == 2
        assert record.result["returns"] == game.returns and game.returns[seat] == -1.0
        # The position's own result, as a record may hold it, reads too.
        data = record.to_dict()
        data["result"] = dict(data["result"], over=False, ranking=[1, 1], returns=[0.0, 0.0])
        assert pv.GameRecord.from_dict(data).result == record.result
    lost = pv.GameRecord(pv.Marathon(), players=["a", "b"], meta={"fault": {"seat": 0}})
    assert lost.result["winner"] == 1 and lost.result["ranking"] == [2, 1]


@LINUX
@pytest.mark.slow
def test_ctrl_c_leaves_no_engine_process(tmp_path):
    paths = write_fakes(tmp_path)
    body = f"""
        import sys
        import pingvinas as pv
        from pingvinas.playing.protocol.driver import EngineAgent
        engine = EngineAgent([sys.executable, {paths["hangs"]!r}], time=600, startup=30)
        print("playing", flush=True)
        pv.play_match(pv.Fish(), [engine, engine.spawn()], games=4, workers=2, progress=False)
    """
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(body)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "playing"
        deadline = time.monotonic() + 60
        while len(processes_running(paths["hangs"])) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(processes_running(paths["hangs"])) >= 2, "the engines never started"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) != 0
    finally:
        proc.kill()
    deadline = time.monotonic() + 5
    while processes_running(paths["hangs"]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_running(paths["hangs"]) == []


@pytest.mark.parametrize(
    "argv, says",
    [
        (["match", "--agents", "cmd:no-such-engine-anywhere", "auto"], "no such program"),
        (["match", "--agents", "cmd:", "auto"], "empty"),
        (["match", "--agents", "cmd:'unclosed", "auto"], "quotation"),
        (["serve", "--engine", "cmd:pingvinas engine"], "built-in engines"),
        (["engine", "--agent", "nonsense"], "nonsense"),
    ],
)
def test_bad_engine_arguments_are_one_line(capsys, argv, says):
    from pingvinas import cli

    with pytest.raises(SystemExit) as caught:
        cli.main(argv)
    err = capsys.readouterr().err
    assert caught.value.code == 2 and len(err.splitlines()) == 1 and says in err, err


def test_pingvinas_engine_speaks_the_protocol():
    game = pv.Marathon()
    start = game.new_state()
    lines = [
        "pep 1",
        format_newgame(game, 0),
        "isready",
        format_position(start, []),
        "go movetime 50",
        "quit",
    ]
    proc = subprocess.run(
        ENGINE + ["--agent", "mcts", "--name", "tester"],
        input="".join(x + "\n" for x in lines),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert out[:4] == ["id name tester", "id author pingvinas", "pepok 1", "readyok"]
    assert out[-2].startswith("info depth") and out[-1].startswith("bestmove ")
    assert start.parse_move(out[-1][len("bestmove ") :]) in start.legal_moves()


# --------------------------------------------------------------------------- hostile engines

#: A fake engine that plays the first legal move. ``SETUP`` runs once at its start,
#: ``POSITION`` after each position is read and ``GO`` at each ``go`` before the answer (with
#: ``seat``, ``state``, ``say`` and ``helper`` at hand); ``PEPOK`` is its handshake's answer.
PLAYER = '''
import json, os, sys, threading, time
import pingvinas as pv

def say(text):  # UTF-8 whatever the locale, a whole line a write (threads may say too)
    sys.stdout.buffer.write((text + "\\n").encode("utf-8"))
    sys.stdout.buffer.flush()

def helper(keep):
    """Leaves a process behind in a session of its own, nobody's child, that sleeps with the
    descriptors of `keep` (of 0, 1, 2) still open and the others on /dev/null."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in {0, 1, 2} - set(keep):
                os.dup2(null, fd)
            time.sleep(3600)
        os._exit(0)
    os.wait()

seat = state = None
PEPOK = "pepok 1"
SETUP
for line in sys.stdin:
    word, _, rest = line.strip().partition(" ")
    if word == "pep":
        say("id name fake\\n" + PEPOK)
    elif word == "newgame":
        seat = json.loads(rest)["seat"]
    elif word == "isready":
        say("readyok")
    elif word == "position":
        data = json.loads(rest)
        kind = pv.FishState if data["start"]["game"] == "fish" else pv.MarathonState
        state = kind.from_json(json.dumps(data["start"]))
        for move in data["moves"]:
            state.play(move)
        POSITION
    elif word == "go":
        GO
        say(f"bestmove {state.legal_moves()[0]}")
    elif word == "quit":
        break
'''


@pytest.fixture
def fake_engine(tmp_path):
    """``fake_engine(name, setup=..., position=..., go=...)`` writes a :data:`PLAYER` and
    returns its path; whatever of its processes is left is killed after the test."""
    paths = []

    def write(name, setup="", position="pass", go="pass"):
        code = PLAYER.replace("SETUP", textwrap.dedent(setup))
        for key, snippet in (("POSITION", position), ("GO", go)):
            snippet = textwrap.indent(textwrap.dedent(snippet).strip(), " " * 8)
            code = code.replace(key, snippet.lstrip())
        path = tmp_path / f"{name}.py"
        path.write_text(code)
        paths.append(str(path))
        return str(path)

    yield write
    if os.path.isdir("/proc/self"):
        for path in paths:
            for pid in processes_running(path):
                os.kill(pid, signal.SIGKILL)


def in_child(body, timeout=60):
    """Runs ``body`` in a fresh interpreter and returns its last line, read as JSON; a child
    that does not end within ``timeout`` seconds fails the test."""
    try:
        proc = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(body)],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"no end within {timeout} s: it hangs")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def faults_of(path, games=2, opponent='"random"', setup="", **engine):
    """The faults of a match of ``games`` games of Fish between the engine at ``path`` and
    ``opponent``, played in a child process (with ``setup`` run before it)."""
    options = dict(time=0.05, grace=2, startup=30, **engine)
    return in_child(f"""
        import json, sys, threading, time
        import pingvinas as pv
        from pingvinas.playing.protocol.driver import EngineAgent
        {textwrap.indent(textwrap.dedent(setup), " " * 8).strip()}
        engine = EngineAgent([sys.executable, {path!r}], **{options!r})
        result = pv.play_match(pv.Fish(), [engine, {opponent}], games={games}, progress=False)
        print(json.dumps([r.fault for r in result.records]))
    """)


@LINUX
@pytest.mark.parametrize("go", ["pass", "sys.exit(3)"], ids=["plays", "exits"])
def test_a_helper_holding_the_pipes_neither_stalls_the_match_nor_outlives_the_game(fake_engine, go):
    path = fake_engine("daemon", setup="helper((0, 1, 2))", go=go)
    faults = faults_of(path)
    if go == "pass":
        assert faults == [None, None]
    else:  # it exited: a crash, though its helper still holds its output open
        assert [f["reason"] for f in faults] == ["crash", "crash"]
        assert "exited with code 3" in faults[0]["detail"]
    assert processes_running(path) == []


@LINUX
@pytest.mark.parametrize("workers, finished", [(1, [0]), (3, [0, 2, 4])])
def test_ctrl_c_stops_a_match_whose_engines_left_helpers_and_keeps_the_finished_games(
    fake_engine, tmp_path, workers, finished
):
    hanging = tmp_path / "hanging"
    hanging.mkdir()
    # It plays from seat 0 and hangs from seat 1: the even games finish, the odd ones hang.
    go = f"""
        if seat == 1:
            open(os.path.join({str(hanging)!r}, str(os.getpid())), "w").close()
            time.sleep(3600)
    """
    path = fake_engine("daemon_hangs", setup="helper((0, 1, 2))", go=go)
    save = tmp_path / "games.jsonl"
    command = [sys.executable, "-m", "pingvinas", "match", "--agents"]
    command += [f"cmd:{shlex.join([sys.executable, path])}", "random", "--games", "6"]
    command += ["--workers", str(workers), "--time", "600", "--save", str(save), "--quiet"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while len(os.listdir(hanging)) < workers and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()[1][-2000:]
            time.sleep(0.1)
        assert len(os.listdir(hanging)) == workers, "the engines never hung"
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            pytest.fail("Ctrl-C did not stop the match")
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == 130, err[-2000:]
    assert f"kept the {len(finished)} finished game(s) in {save}" in err
    assert [r.meta["game"] for r in pv.record.read_jsonl(save)] == finished
    assert processes_running(path) == []


@LINUX
def test_a_helper_holding_only_stderr_leaves_no_thread_and_no_process(fake_engine):
    path = fake_engine("stderr_daemon", setup="helper((2,))")
    out = in_child(f"""
        import json, sys, threading
        import pingvinas as pv
        from pingvinas.playing.protocol.driver import EngineAgent
        engine = EngineAgent([sys.executable, {path!r}], time=0.05, grace=2, startup=30)
        before = threading.active_count()
        result = pv.play_match(pv.Fish(), [engine, "random"], games=4, progress=False)
        print(json.dumps(dict(faults=[r.fault for r in result.records],
                              threads=threading.active_count() - before)))
    """)
    assert out == {"faults": [None] * 4, "threads": 0}
    assert processes_running(path) == []


def test_pipes_read_by_threads_play_and_fault_alike(monkeypatch, tmp_path):
    """Where ``poll`` does not take pipes (Windows), threads read them: the same games, and
    the same faults."""
    from pingvinas.playing.protocol import driver

    monkeypatch.setattr(driver, "_THREADED", True)
    board = pv.Fish(board=[[1, 2, 3, 1, 2], [3, 1, 1, 2, 2], [1, 1, 2, 3, 1]], penguins=2)
    engine = EngineAgent(ENGINE + ["--agent", "greedy"], time=0.05, grace=5, startup=60)
    result = pv.play_match(board, [engine, "random"], games=2, progress=False)
    assert [r.fault for r in result.records] == [None, None]
    garbage = write_fakes(tmp_path)["garbage"]
    engine = EngineAgent([sys.executable, garbage], time=0.05, grace=5, startup=60)
    result = pv.play_match(board, [engine, "random"], games=2, progress=False)
    assert [r.fault["reason"] for r in result.records] == ["protocol", "protocol"]


#: This process's peak resident memory in MB (Linux), for code run in a child.
PEAK_MB = """
def peak_mb():
    with open("/proc/self/status") as f:
        return next(int(x.split()[1]) / 1024 for x in f if x.startswith("VmHWM:"))
"""


@LINUX
def test_an_engine_that_writes_without_end_does_not_grow_the_driver(fake_engine):
    """Info lines written non-stop, also while the other player thinks: the driver holds at
    most a line of them, and the engine still plays."""
    flood = """
        def flood():
            while True:
                say("info string " + "x" * 1000)
        threading.Thread(target=flood, daemon=True).start()
    """
    path = fake_engine("flood", setup=flood)
    out = in_child(
        PEAK_MB
        + f"""
import json, sys, time
import pingvinas as pv
from pingvinas.playing.agents import CallableAgent
from pingvinas.playing.protocol.driver import EngineAgent

def slow(state):
    time.sleep(1.0)
    return state.legal_moves()[0]

engine = EngineAgent([sys.executable, {path!r}], time=0.2, grace=2, startup=30)
before = peak_mb()
result = pv.play_match(
    pv.Fish(), [engine, CallableAgent(slow)], games=1, max_moves=5, progress=False
)
print(json.dumps(dict(fault=result.records[0].fault, grew=peak_mb() - before)))
"""
    )
    assert out["grew"] < 50, f"the driver grew by {out['grew']:.0f} MB"
    assert out["fault"] is None


@pytest.mark.parametrize(
    "hostile, reason, says",
    [
        # A version too long for int(): the engine's fault, not the match's end.
        (dict(setup="PEPOK = 'pepok ' + '1' * 5000"), "protocol", "above the most"),
        # Answers that answer no go: one before it, or a second one.
        (dict(position="say(f'bestmove {state.legal_moves()[0]}')"), "protocol", "answers no go"),
        (dict(go="say(f'bestmove {state.legal_moves()[0]}')"), "protocol", "answers no go"),
        # Over 1 MiB in bytes, though not in characters.
        (dict(go="say('info string ' + 'é' * 600_000)"), "protocol", "1,048,576 bytes"),
        (dict(go="say('bestmove none')"), "illegal", "no move"),
    ],
    ids=["huge-version", "early-bestmove", "second-bestmove", "long-line", "none"],
)
def test_hostile_answers_lose_the_engine_its_games_with_the_reason(
    fake_engine, hostile, reason, says
):
    faults = faults_of(fake_engine("hostile", **hostile))
    assert [f["reason"] for f in faults] == [reason, reason], faults
    assert says in faults[0]["detail"], faults


# --------------------------------------------------------------------------- a hostile driver


def engine_answers(data, agent="greedy", timeout=120, **env):
    """``pingvinas engine --agent AGENT``'s exit code and lines for ``data`` (lines, or bytes)
    written at once, with ``env`` added to its environment."""
    if not isinstance(data, bytes):
        data = "".join(line + "\n" for line in data).encode("utf-8")
    proc = subprocess.run(
        ENGINE + ["--agent", agent],
        input=data,
        capture_output=True,
        timeout=timeout,
        env=dict(os.environ, **env),
    )
    return proc.returncode, proc.stdout.decode("utf-8").splitlines()


def a_game(*then, seed=1):
    """The lines of a game of Fish up to its first position, then ``then``."""
    game = pv.Fish()
    start = game.new_state(seed=seed)
    return ["pep 1", format_newgame(game, 0), "isready", format_position(start, []), *then]


@pytest.mark.parametrize(
    "bad",
    [
        "go movetime 604800001",  # a millisecond over 7 days
        "go movetime " + "9" * 30,
        "go timeleft 1000 inc " + "9" * 5000,
        "pep " + "1" * 5000,
    ],
    ids=["over-7-days", "30-digits", "5000-digits", "pep-5000-digits"],
)
def test_the_engine_answers_numbers_out_of_range_and_goes_on(bad):
    code, out = engine_answers(a_game(bad, "isready", "quit"))
    assert code == 0, out
    errors = [line for line in out if line.startswith("info string error")]
    assert len(errors) == 1 and "above the most" in errors[0], out
    assert ("bestmove none" in out) == bad.startswith("go")
    assert out[-1] == "readyok"


def test_the_engine_answers_a_position_it_cannot_solve_in_time():
    code, out = engine_answers(a_game("go movetime 10", "isready", "quit"), agent="solve")
    assert code == 0, out
    assert out[-3].startswith("info string error") and out[-2:] == ["bestmove none", "readyok"]


def test_the_engine_answers_a_line_that_is_not_utf8_and_the_lines_around_it():
    # Strict decoding, as PYTHONIOENCODING or a UTF-8 locale would make the standard input's.
    code, out = engine_answers(b"isready\n\xff\nisready\n", PYTHONIOENCODING="utf-8")
    assert code == 0
    assert out[0] == "readyok" and "UTF-8" in out[1] and out[2] == "readyok", out


def test_the_engine_drops_a_line_over_1_mib_whole():
    # Over 1 MiB in characters, with "quit" where the line would be cut; over 1 MiB in bytes.
    long = "info " + "x" * ((1 << 20) + 2 - 5) + "quit"
    wide = "info " + "é" * 600_000
    code, out = engine_answers(["isready", long, wide, "isready", "quit"])
    assert code == 0
    assert out[0] == "readyok" and out[-1] == "readyok", out[:1] + out[-1:]
    assert out[1:-1] == ["info string error: a line of more than 1,048,576 bytes"] * 2


def test_the_engine_side_counts_a_text_line_in_bytes():
    answers = converse(["info " + "é" * 600_000, "isready"])
    assert answers == [
        "info string error: a line of 1,200,005 bytes (the most is 1,048,576)",
        "readyok",
    ]


def test_the_engine_searches_to_its_count_whatever_input_is_waiting():
    """``position``, ``go`` and the lines after it written at once: the search is not cut
    short (alpha-beta to depth 4 well within its time)."""
    state = pv.Fish().new_state(seed=1)
    while state.phase == "placement":
        state.play(state.legal_moves()[0])
    lines = a_game(format_position(state, []), "go movetime 60000", "isready", "quit")
    code, out = engine_answers(lines, agent="alphabeta:4")
    assert code == 0 and out[-1] == "readyok", out
    facts = [line for line in out if line.startswith("info depth")]
    assert facts and facts[-1].startswith("info depth 4 "), out


@LINUX
def test_an_engine_over_an_engine_that_faults_answers_and_goes_on(fake_engine):
    inner = fake_engine("exits", go="sys.exit(3)")
    agent = f"cmd:{shlex.join([sys.executable, inner])}"
    code, out = engine_answers(a_game("go movetime 1000", "isready", "quit"), agent=agent)
    assert code == 0, out
    assert out[-3].startswith("info string error: crash: exited with code 3"), out
    assert out[-2:] == ["bestmove none", "readyok"]


@LINUX
@pytest.mark.parametrize("go", ["sys.exit(3)", "say('bestmove z99')"], ids=["exits", "illegal"])
def test_a_person_keeps_the_game_an_engine_lost(fake_engine, tmp_path, go):
    engine = f"cmd:{shlex.join([sys.executable, fake_engine('faults', go=go)])}"
    first = str(pv.Fish().new_state(seed=0).legal_moves()[0])
    saved = tmp_path / "game.json"
    proc = subprocess.run(
        [sys.executable, "-m", "pingvinas", "play", "--agents", "human", engine],
        input=f"{first}\nhello\nsave {saved}\nquit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert "B (player 1) loses, its engine faulted" in proc.stdout
    assert "the game is over" in proc.stdout and "bye" in proc.stdout
    record = pv.GameRecord.read(saved)
    assert [str(m) for m in record.moves] == [first]
    assert record.fault_seat == 1 and record.result["ranking"] == [1, 2]
