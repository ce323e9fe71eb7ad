"""The engine protocol: its parser against malformed lines, the engine side in this process, a
real engine process (``python -m pingvinas engine``) in matches, and every fault: an engine
that exits at once, one that never answers, one that writes what is not the protocol, and one
that plays an illegal move each lose every game with the reason, the match finishes, and no
engine process is left behind (also after Ctrl-C)."""

from __future__ import annotations

import io
import json
import os
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
        ("x" * (1 << 20 | 1), "characters"),
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
