"""The Fish solver on every board a config accepts: no crash, and its budgets hold.

The solver's search, and the region solver's below it, go a whole game deep (a thousand plies on
a 32x32 board), and on large boards one position takes milliseconds. A solve must still keep its
``time`` plus 10 ms, end at its ``max_nodes`` and stop within 200 ms of Ctrl-C, through
``pv.fish.solve``, ``pv.search(..., "solve")`` and an agent's time budget, on every board shape
up to 32x32 (and 16x64, the other 1,024-cell board). A position far beyond the node limit (the
start of a large open board) is refused at once, and a node limit bounds a solve's memory as
well as its work (``pingvinas solve`` on the largest board asked for 4.4 GB and aborted). Calls
that could crash the interpreter or the server run in a child process with a timeout, those
that could take much memory under a limit on it.
"""

from __future__ import annotations

import _thread
import json
import random
import re
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


def block(rows: int, cols: int) -> pv.FishState:
    """A long solve on a rows x cols board, which the solver takes on: an 8x9 block of floes
    (the whole board on 6x12 and 12x6), the rest water, one penguin each to place. The start of
    a large open board is refused at once (far beyond any node limit), so the budgets are put to
    the test on this: the default limit lets it run, and it does not finish."""
    height, width = (8, 9) if rows >= 8 and cols >= 9 else (rows, cols)
    grid = [[int(r < height and c < width) for c in range(cols)] for r in range(rows)]
    config = {"game": "fish", "players": 2, "penguins": 1, "board": grid}
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


#: The address space a child under a memory limit may take (the interpreter and the libraries
#: take about 200 MB of it).
MEMORY_LIMIT = 1536 << 20


#: A child's first lines under a memory limit: at most :data:`MEMORY_LIMIT` of address space
#: (an allocation past it fails, and an allocation failure the engine does not handle aborts).
#: Set by the child itself (a ``preexec_fn`` is not safe in a process with threads).
LIMIT_MEMORY = f"""
import resource
resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT}))
"""


def unix_only() -> None:
    if sys.platform != "linux":
        pytest.skip("a limit on the address space (RLIMIT_AS) and /proc: Linux")


def child(body: str, timeout: float = 60.0, memory: bool = False) -> dict:
    """Runs ``body`` in a fresh interpreter that reports one JSON line; fails the test if it
    hangs or dies (a segfault, an abort). With ``memory``, under :data:`MEMORY_LIMIT`."""
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
            [
                sys.executable,
                "-c",
                (LIMIT_MEMORY if memory else "") + prelude + textwrap.dedent(body),
            ],
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
    # Refused at once (far beyond the limit), the reason on the same line.
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("pingvinas: the position is too large to solve exactly (more than 2000 ")


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


# ------------------------------------------------------------------- memory, refusal at once


def limited_cli(argv: list[str], timeout: float = 60.0) -> tuple[int, str, float]:
    """``pingvinas ARGV`` in a child under :data:`MEMORY_LIMIT`: its exit code (negative when a
    signal ended it: an abort), its stderr and the seconds it took; fails the test if it hangs."""
    run = LIMIT_MEMORY + f"import runpy, sys\nsys.argv = {['pingvinas', *argv]!r}\n"
    run += "runpy.run_module('pingvinas', run_name='__main__', alter_sys=True)\n"
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", run], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"pingvinas {' '.join(argv)}: no answer within {timeout} s")
    return proc.returncode, proc.stderr, time.perf_counter() - t0


def fish_board(path: Path, rows: int, cols: int, penguins: int, seed: int) -> Path:
    """A config of 2 players, ``penguins`` each placed on any floe, and 1-3 fish on every cell
    (seeded)."""
    rng = random.Random(seed)
    grid = [[rng.randint(1, 3) for _ in range(cols)] for _ in range(rows)]
    path.write_text(
        f'game = "fish"\nname = "{path.stem}"\nplayers = 2\npenguins = {penguins}\n'
        f'placement = "any"\nboard = {json.dumps(grid)}\n'
    )
    return path


@pytest.mark.parametrize("max_nodes", [None, 1_000_000])
def test_the_solve_command_refuses_the_largest_board_at_once(tmp_path, max_nodes):
    # The largest board, 2 players with 4 penguins each placed anywhere, 1-3 fish. Before: the
    # default limit ran 171 s into an abort (a 4.4 GB allocation, the region solver's memo
    # growing), and 1,000,000 positions took a minute and 864 MB before the refusal.
    unix_only()
    config = fish_board(tmp_path / "b32.toml", 32, 32, 4, seed=46)
    argv = ["solve", str(config)] + ([] if max_nodes is None else ["--max-nodes", str(max_nodes)])
    code, err, seconds = limited_cli(argv)
    assert code == 1, (code, err[-2000:])
    last = err.strip().splitlines()[-1]
    limit = max_nodes or 50_000_000
    assert last.startswith(
        f"pingvinas: the position is too large to solve exactly (more than {limit} positions): "
        "an estimate from its lines of play puts its search at "
    ), last
    assert "(1024 floes in play, 8 placements to come)" in last, last
    assert seconds < 15, seconds


def test_the_solve_command_refuses_the_standard_board_at_once():
    # Before: 107 s (silent off a terminal) and 826 MB before the refusal.
    unix_only()
    code, err, seconds = limited_cli(["solve", "fish"])
    assert code == 1, (code, err[-2000:])
    last = err.strip().splitlines()[-1]
    assert "more than 50000000 positions): an estimate" in last, last
    assert "(60 floes in play, 8 placements to come)" in last, last
    assert seconds < 15, seconds


def test_a_node_limit_bounds_the_memory_of_a_solve(tmp_path):
    # The largest board cut in two by a column of water, a penguin on each side: each side is
    # the region solver's, which searches as far as the node limit lets it. Before, its memo
    # grew without bound within one search of a region (a table entry of 265 bytes a split).
    # Now: at most 48 bytes a position for the solver's table, and the region solver's memos
    # at most 1.5 times their 36 MiB (docs/solved.md).
    unix_only()
    rng = random.Random(7)
    grid = [[0 if c == 1 else rng.randint(1, 3) for c in range(32)] for _ in range(32)]
    config = {"game": "fish", "players": 2, "penguins": 1, "placement": "any", "board": grid}
    state = pv.Fish.from_config(config).position(penguins=[[(0, 0)], [(16, 16)]])
    path = tmp_path / "split.json"
    path.write_text(state.to_json())
    nodes = 300_000
    out = child(
        f"""
        from pingvinas import cli

        def peak():
            status = open("/proc/self/status").read()
            return int(status.split("VmHWM:")[1].split()[0]) * 1024

        def run():
            before = peak()
            try:
                cli.main(["solve", {str(path)!r}, "--max-nodes", "{nodes}", "--quiet"])
            except SystemExit as e:
                return e.code, peak() - before
            return 0, peak() - before

        outcome(run)
        """,
        timeout=120,
        memory=True,
    )
    code, grown = eval(out["value"])
    assert code == 1, out
    bound = 48 * nodes + int(1.5 * (36 << 20)) + (24 << 20)  # and stacks, allocator slack
    assert grown <= bound, (grown, bound)


def test_the_solve_command_keeps_its_time_and_reports_progress_off_a_terminal(
    tmp_path, capsys, monkeypatch
):
    # Before: no --time, and off a terminal nothing until the end (107 s on the standard
    # board). A line every PROGRESS_EVERY seconds (10), here every 0.3 s.
    from pingvinas import cli
    from pingvinas.cli import solve as solve_command

    monkeypatch.setattr(solve_command, "PROGRESS_EVERY", 0.3)
    path = tmp_path / "block.json"
    path.write_text(block(8, 9).to_json())
    for quiet in (False, True):
        t0 = time.perf_counter()
        with pytest.raises(SystemExit) as e:
            cli.main(["solve", str(path), "--time", "1.5"] + ["--quiet"] * quiet)
        wall = time.perf_counter() - t0
        assert e.value.code == 1
        err = capsys.readouterr().err.splitlines()
        assert err[-1].startswith("pingvinas: the position was not solved within 1.500 s ("), err
        assert wall < 1.5 + 0.5, wall
        lines = [line for line in err if line.startswith("solving: ")]
        assert len(lines) == (0 if quiet else len(err) - 1), err
        if not quiet:
            assert len(lines) >= 2, err
            assert all(re.fullmatch(r"solving: [\d,]+ nodes, \d+\.\d s", x) for x in lines)


# --------------------------------------------------------------------------- budgets


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("how", ["fish.solve", "search"])
def test_time_is_a_time_budget(shape, how):
    s = block(*shape)
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
    s = block(*shape)
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
    s = block(*shape)
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
    s = block(16, 16)
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
    # A position it can solve in its time (a second: a loaded machine may need more than 0.1 s
    # for the whole search): the solver's move.
    s = pv.load_game("fish-mini-4x4").new_state()
    assert timed_agent("solve", 1.0).choose(s) in pv.fish.solve(s).moves


def test_match_with_the_solve_agent_keeps_its_time():
    # 48 s on the first move before (the time did not bound solve): now an error in time.
    t0 = time.perf_counter()
    command = [sys.executable, "-m", "pingvinas", "match", "--agents", "solve", "greedy"]
    command += ["--time", "0.1", "--games", "1"]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr[-1000:]
    assert "too big to solve" in proc.stderr.strip().splitlines()[-1]
    assert time.perf_counter() - t0 < 30
