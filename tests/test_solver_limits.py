"""The Fish solver on every board a config accepts: no crash, and its budgets hold.

The solver's search, and the region solver's below it, go a whole game deep (a thousand plies on
a 32x32 board), and on large boards one position takes milliseconds. A solve must still keep its
``time`` plus 10 ms, end at its ``max_nodes`` and stop within 200 ms of Ctrl-C, through
``pv.fish.solve``, ``pv.search(..., "solve")`` and an agent's time budget, on every board shape
up to 32x32 (and 16x64, the other 1,024-cell board). Calls that could crash the interpreter or
the server run in a child process with a timeout.
"""

from __future__ import annotations

import _thread
import json
import subprocess
import sys
import textwrap
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import pingvinas as pv

#: The contract's margin over ``time``.
MARGIN = 0.010
#: Scheduling noise allowed on top of it in a test (a loaded CI machine).
SLACK = 0.060
#: Ctrl-C must end a solve within 200 ms; this much is allowed for a loaded machine.
CTRL_C_LIMIT = 0.2 + 0.3

#: Board shapes (rows, columns): the three board words (64, 128 and 1,024 bits), square and
#: oblong, up to the largest boards.
SHAPES = [
    (8, 9),
    (9, 9),
    (10, 10),
    (11, 11),
    (12, 12),
    (6, 12),
    (12, 6),
    (16, 16),
    (32, 32),
    (16, 64),
]


def ones(rows: int, cols: int) -> list[list[int]]:
    return [[1] * cols for _ in range(rows)]


def board(rows: int, cols: int, penguins: int = 1) -> pv.FishState:
    """The start of a 2-player game on a rows x cols board of one fish a floe."""
    config = {"game": "fish", "players": 2, "penguins": penguins, "board": ones(rows, cols)}
    return pv.Fish.from_config(config).new_state()


def toml_board(path: Path, rows: int, cols: int, penguins: int, name: str) -> Path:
    grid = json.dumps(ones(rows, cols))  # a TOML array of arrays too
    path.write_text(
        f'game = "fish"\nname = "{name}"\nplayers = 2\npenguins = {penguins}\nboard = {grid}\n'
    )
    return path


def timed(f):
    t0 = time.perf_counter()
    try:
        out = f()
    except ValueError as e:
        out = e
    return out, time.perf_counter() - t0


def child(body: str, timeout: float = 60.0) -> dict:
    """Runs ``body`` in a fresh interpreter that reports one JSON line; fails the test if it
    hangs or dies (a segfault, an abort)."""
    prelude = textwrap.dedent(
        """
        import json, time
        import pingvinas as pv

        def B(n, penguins=1):
            config = {"game": "fish", "players": 2, "penguins": penguins, "board": [[1] * n] * n}
            return pv.Fish.from_config(config)

        def outcome(call):
            t = time.perf_counter()
            try:
                value = call()
            except BaseException as e:
                out = dict(error=type(e).__name__, message=str(e)[:500])
            else:
                out = dict(error=None, value=repr(value)[:500])
            print(json.dumps(dict(out, seconds=time.perf_counter() - t)), flush=True)
        """
    )
    try:
        proc = subprocess.run(
            [sys.executable, "-c", prelude + textwrap.dedent(body)],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"no answer within {timeout} s: the call hangs")
    assert proc.returncode == 0, f"the interpreter died (exit {proc.returncode}): {proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- no crash


@pytest.mark.parametrize(
    "call, words",
    [
        ("pv.fish.solve(B(32).new_state(), max_nodes=1000)", "more than 1000 positions"),
        ("pv.fish.solve(B(32).new_state(), max_nodes=20_000, time=1.0)", "positions"),
        ('pv.search(B(32).new_state(), "solve", time=0.5)', "too big to solve"),
        ('pv.search(B(32, 2).new_state(), "solve", time=0.5)', "too big to solve"),
        ('pv.SearchAgent("solve", time=0.3).choose(B(32).new_state())', "too big to solve"),
    ],
)
def test_a_solve_of_the_largest_board_is_a_clear_error(call, words):
    # A segfault (the stack of a thousand plies of search) before the fix.
    out = child(f"outcome(lambda: {call})")
    assert out["error"] == "ValueError" and words in out["message"], out


def test_the_solve_command_on_a_32x32_config_ends_with_one_line(tmp_path):
    config = toml_board(tmp_path / "b32.toml", 32, 32, 1, "b32")
    proc = subprocess.run(
        [sys.executable, "-m", "pingvinas", "solve", str(config), "--max-nodes", "2000"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-1000:])
    assert proc.stderr.strip().splitlines()[-1] == (
        "pingvinas: the position is too large to solve exactly (more than 2000 positions)"
    )


def test_the_server_survives_a_solve_engine_on_a_32x32_board(tmp_path):
    pytest.importorskip("uvicorn", reason='the web extra is not installed: pip install ".[web]"')
    config = toml_board(tmp_path / "b32x2.toml", 32, 32, 2, "b32x2")
    command = [sys.executable, "-m", "pingvinas", "serve", "--port", "0", "--quiet"]
    command += ["--engine", "solve", "--time", "0.2", "--variant", str(config)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert "b32x2" in line and "http://127.0.0.1:" in line, line
        url = line.split(" at ")[1].split()[0].rstrip("/")
        request = urllib.request.Request(
            url + "/api/games",
            data=json.dumps({"human": 1}).encode(),
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(request, timeout=60)
        assert answer.value.code == 400
        assert "too big to solve" in json.loads(answer.value.read())["error"]
        # Still serving.
        with urllib.request.urlopen(url + "/", timeout=30) as page:
            assert page.status == 200
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(timeout=30)


# --------------------------------------------------------------------------- budgets


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("how", ["fish.solve", "search"])
def test_time_is_a_time_budget(shape, how):
    s = board(*shape)
    for budget in (0.05, 0.2):
        if how == "fish.solve":
            out, wall = timed(lambda budget=budget: pv.fish.solve(s, time=budget))
        else:
            out, wall = timed(lambda budget=budget: pv.search(s, "solve", time=budget))
        # Too big to solve in the time: the budget ends it with an error that says so.
        assert isinstance(out, ValueError), out
        assert wall <= budget + MARGIN + SLACK, (shape, how, budget, wall)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_node_limit_is_a_small_solve(shape):
    s = board(*shape)
    seen = []
    out, wall = timed(
        lambda: pv.fish.solve(s, max_nodes=1000, progress=lambda n, _: seen.append(n))
    )
    assert isinstance(out, ValueError) and "more than 1000 positions" in str(out), out
    assert all(n <= 1001 for n in seen), seen
    # Its region solves are bounded by the node limit too (before: minutes on 9x9 to 16x16).
    assert wall < 5.0, (shape, wall)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_ctrl_c_ends_a_solve_and_progress_counts_positions(python_sigint, shape):
    s = board(*shape)
    seen = []
    sent = []

    def interrupt():
        sent.append(time.perf_counter())
        _thread.interrupt_main()

    threading.Timer(0.6, interrupt).start()
    with pytest.raises(KeyboardInterrupt):
        pv.fish.solve(s, progress=lambda n, _: seen.append(n))
    assert time.perf_counter() - sent[0] < CTRL_C_LIMIT
    # The progress report counts positions from the start (before: 0 for a minute on 16x16,
    # the region solver running before the first count).
    assert seen and seen[0] > 0, seen


def test_stop_ends_a_solve_search_on_a_large_board():
    s = board(16, 16)
    searcher = pv.Searcher("solve")
    stopped_at = []

    def stop():
        stopped_at.append(time.perf_counter())
        searcher.stop()

    threading.Timer(0.3, stop).start()
    with pytest.raises((ValueError, KeyboardInterrupt)):
        searcher.search(s, time=60.0)
    assert time.perf_counter() - stopped_at[0] < CTRL_C_LIMIT


# --------------------------------------------------------------------------- agents


def test_a_solve_agent_keeps_the_clis_time():
    from pingvinas.agents import timed_agent

    agent = timed_agent("solve", 0.1)
    assert agent.budget["time"] == 0.1
    out, wall = timed(lambda: agent.choose(board(16, 16)))
    assert isinstance(out, ValueError) and "too big to solve" in str(out), out
    assert wall <= 0.1 + MARGIN + SLACK, wall
    # A position it can solve in the time: the solver's move.
    s = pv.load_game("fish-mini-4x4").new_state()
    assert agent.choose(s) in pv.fish.solve(s).moves


def test_match_with_the_solve_agent_keeps_its_time():
    # 48 s on the first move before (the time did not bound solve): now an error in time.
    t0 = time.perf_counter()
    command = [sys.executable, "-m", "pingvinas", "match", "--agents", "solve", "greedy"]
    command += ["--time", "0.1", "--games", "1"]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr[-1000:]
    assert "too big to solve" in proc.stderr.strip().splitlines()[-1]
    assert time.perf_counter() - t0 < 30
