"""A hostile user's cases through the Python API, one regression test (or a few) each.

Nothing reachable from Python may return a wrong result, abort the interpreter, panic, hang or
ignore Ctrl-C. Calls that could abort or hang run in a child interpreter (``sys.executable -c``)
with a timeout, so a regression fails the test instead of killing or stalling the suite; their
outcome comes back as one JSON line.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import random
import re
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pingvinas as pv
from pingvinas.searching.searcher import Searcher, search

#: A node budget may be overrun by at most this many nodes: alpha-beta looks at the clock and
#: the node count every 1,024 nodes, MCTS after each iteration (one expansion). The docs of
#: ``pv.search`` give the same interval.
NODE_SLACK = 1024
#: Ctrl-C must stop a long call within 200 ms; the assertion allows this much, for a
#: loaded machine (the measured time is printed: ``pytest -s`` or ``-rP`` shows it).
CTRL_C_LIMIT = 2.0
HUGE_COURSE = "SSS\n#" + "\n" * 46341 + " " * 46341 + "#\nFFF\n"

SLOW = pytest.mark.slow
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def movement_state(seed=3, players=2, game=None):
    """A Fish state just after (random) placement."""
    s = (game or pv.Fish(players=players)).new_state(seed=seed)
    rng = random.Random(seed)
    while s.phase == "placement":
        s.play(rng.choice(s.legal_moves()))
    return s


# --------------------------------------------------------------------------- child interpreters

_PRELUDE = """
import json, sys, time
import pingvinas as pv

def report(**fields):
    print(json.dumps(fields), flush=True)

def peak_mb():
    '''This process's peak resident memory in MB (Linux; None elsewhere). Not ru_maxrss: on
    Linux that keeps the parent's peak across fork and exec.'''
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None

def outcome(call):
    '''Runs call() and reports how it ended: its value, or the exception's type and message.'''
    t = time.perf_counter()
    try:
        value = call()
    except BaseException as e:  # PanicException is a BaseException
        report(error=type(e).__name__, message=str(e)[:2000], seconds=time.perf_counter() - t,
               maxrss_mb=peak_mb())
    else:
        report(error=None, value=repr(value)[:2000], seconds=time.perf_counter() - t,
               maxrss_mb=peak_mb())
"""


def child(body: str, timeout: float = 60.0) -> dict:
    """Runs ``body`` (after ``_PRELUDE``) in a fresh interpreter; returns its last JSON line.
    Fails the test if the child hangs past ``timeout`` or dies (abort, segfault, exit != 0)."""
    code = _PRELUDE + textwrap.dedent(body)
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"no answer within {timeout} s: the call hangs")
    assert proc.returncode == 0, (
        f"the interpreter died (exit {proc.returncode}): {proc.stderr[-1500:]}"
    )
    lines = proc.stdout.strip().splitlines()
    assert lines, f"no report from the child: {proc.stderr[-1500:]}"
    return json.loads(lines[-1])


def numbers_in(text: str) -> set:
    return {int(m.replace(",", "").replace("_", "")) for m in re.findall(r"\d[\d,_]*", text)}


# --------------------------------------------------------------------------- reused searchers


@pytest.mark.parametrize("pair", range(10))
def test_reused_mcts_searcher_plays_legal_moves_on_another_board(pair):
    a, b = pv.Fish().new_state(seed=2 * pair + 1), pv.Fish().new_state(seed=2 * pair + 2)
    searcher = Searcher("mcts", seed=pair)
    searcher.search(a, iterations=2000)
    result = searcher.search(b, iterations=1)
    assert result.move in b.legal_moves() and b.is_legal(result.action)
    assert all(m in b.legal_moves() for m in result.pv[:1])


COURSES = ["marathon", "marathon-5", "marathon-l", "marathon-zigzag"]


@pytest.mark.parametrize("first", COURSES)
@pytest.mark.parametrize("second", COURSES)
def test_reused_mcts_searcher_plays_legal_moves_on_another_course(first, second):
    if first == second:
        pytest.skip("the same course")
    a, b = pv.Marathon(course=first).new_state(), pv.Marathon(course=second).new_state()
    searcher = Searcher("mcts", seed=1)
    searcher.search(a, iterations=3000)
    result = searcher.search(b, iterations=1)
    assert result.move in b.legal_moves() and b.is_legal(result.action)


def _twin_positions(seed):
    """Two standard 2-player boards with the same placements (placement on any floe, so the
    same actions apply to both): positions equal in everything but the board."""
    game = pv.Fish.variant("fish-snake-any")
    a, b = game.new_state(seed=2 * seed + 1), game.new_state(seed=2 * seed + 2)
    rng = random.Random(seed)
    while a.phase == "placement":
        action = rng.choice(sorted(set(a.legal_actions()) & set(b.legal_actions())))
        a.play(action)
        b.play(action)
    return a, b


@pytest.mark.parametrize(
    "seed", [0, 1, *(pytest.param(s, marks=pytest.mark.slow) for s in range(2, 6))]
)
def test_reused_alphabeta_searcher_agrees_with_a_fresh_one(seed):
    a, b = _twin_positions(seed)
    assert a.penguins == b.penguins and a != b and a.to_json() != b.to_json()
    reused = Searcher("alphabeta", threads=1)
    reused.search(a, depth=4)
    got = reused.search(b, depth=4)
    fresh = Searcher("alphabeta", threads=1).search(b, depth=4)
    assert (got.action, got.value, got.exact) == (fresh.action, fresh.value, fresh.exact)
    assert got.move in b.legal_moves()


def test_positions_on_other_boards_or_courses_differ():
    for seed in range(3):
        a, b = _twin_positions(seed)
        assert a != b
        assert len({a, b}) == 2
    openings = [pv.Marathon(course=c).new_state() for c in COURSES]
    assert len(set(openings)) == len(COURSES)
    assert all(x != y for i, x in enumerate(openings) for y in openings[i + 1 :])


# --------------------------------------------------------------------------- budgets


@pytest.mark.parametrize("algorithm", ["auto", "alphabeta"])
def test_an_iteration_budget_ends_or_is_refused(algorithm):
    out = child(
        f"""
        import random
        s = pv.Fish().new_state(seed=3)
        rng = random.Random(3)
        while s.phase == "placement":
            s.play(rng.choice(s.legal_moves()))
        outcome(lambda: pv.search(s, {algorithm!r}, iterations=10).move in s.legal_moves())
        """,
        timeout=30,
    )
    if out["error"] is None:
        assert out["value"] == "True" and out["seconds"] < 20
    else:
        assert out["error"] == "ValueError", out
        assert "iteration" in out["message"], out


def test_a_searcher_with_only_an_iteration_budget_ends_or_is_refused():
    out = child(
        """
        s = pv.Fish().new_state(seed=4)
        outcome(lambda: pv.Searcher("alphabeta").search(s, iterations=10).move in s.legal_moves())
        """,
        timeout=30,
    )
    assert out["error"] in (None, "ValueError"), out
    assert out["error"] or out["value"] == "True"


@pytest.mark.parametrize("algorithm", ["alphabeta", "mcts"])
@pytest.mark.parametrize("nodes", [1, 100, 5000, 50_000])
def test_node_budgets_are_honoured(algorithm, nodes):
    s = movement_state()
    result = search(s, algorithm, nodes=nodes)
    assert result.move in s.legal_moves()
    assert result.nodes <= nodes + NODE_SLACK, (result.nodes, nodes)


# --------------------------------------------------------------------------- unreachable JSON


def _placement_state():
    s = pv.Fish().new_state(seed=6)  # one-fish placement
    s.play(s.legal_actions()[0])
    s.play(s.legal_actions()[0])
    return s


def _pickled_from(state, text):
    """A pickle that rebuilds ``state``'s class from ``text`` the way ``state``'s own pickles do."""
    rebuild, args = state.__reduce__()[:2]
    good = state.to_json()
    args = tuple(text if a == good else a for a in args)
    assert text in args, "the state's pickle no longer carries its JSON: update this test"

    class Crafted:
        def __reduce__(self):
            return rebuild, args

    return pickle.dumps(Crafted())


def _refused_everywhere(state, data):
    text = json.dumps(data)
    with pytest.raises(ValueError):
        type(state).from_json(text)
    with pytest.raises(ValueError):
        pickle.loads(_pickled_from(state, text))


def test_placement_json_with_a_penguin_on_a_three_fish_floe_is_refused():
    s = _placement_state()
    data = json.loads(s.to_json())
    assert pv.FishState.from_json(json.dumps(data)) == s  # the untouched JSON loads
    board = s.board
    three = next((r, c) for r in range(8) for c in range(8) if board[r, c] == 3)
    data["penguins"][0][0] = list(three)
    _refused_everywhere(s, data)


@pytest.mark.parametrize("scores", [[[5, 2], [0, 0]], [[0, 0], [1, 1]], [[3, 0], [0, 0]]])
def test_placement_json_with_scores_is_refused(scores):
    s = _placement_state()  # nothing has been collected during placement
    data = json.loads(s.to_json())
    data["scores"] = scores
    _refused_everywhere(s, data)


def test_movement_json_with_impossible_scores_is_refused():
    s = movement_state(seed=8)
    for _ in range(6):
        s.play(s.legal_actions()[0])
    data = json.loads(s.to_json())
    removed = 60 - int((s.board > 0).sum()) - sum(len(p) for p in s.penguins)
    for scores in (
        [[3 * (removed + 10), removed + 10], [0, 0]],  # more floes than were removed
        [[1000, 1], [0, 0]],  # more fish than one floe holds
        [[0, 5], [0, 0]],  # floes without fish
    ):
        _refused_everywhere(s, {**data, "scores": scores})


# --------------------------------------------------------------------------- shared searchers


@pytest.mark.slow
@pytest.mark.parametrize(
    "algorithm, budget", [("mcts", "iterations=20000"), ("alphabeta", "depth=5")]
)
def test_two_threads_on_one_searcher_neither_hang_nor_crash(algorithm, budget):
    out = child(
        f"""
        import threading
        s = pv.Fish().new_state(seed=3)
        searcher = pv.Searcher({algorithm!r}, seed=1)
        results, errors = [], []
        def work():
            try:
                results.append(searcher.search(s, {budget}).move in s.legal_moves())
            except RuntimeError as e:
                errors.append(str(e))
        threads = [threading.Thread(target=work) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        report(results=results, errors=errors)
        """,
        timeout=90,
    )
    assert out["results"] and all(out["results"]), out
    assert len(out["results"]) + len(out["errors"]) == 2
    assert all("busy" in e for e in out["errors"]), out


# --------------------------------------------------------------------------- huge batch sizes


@pytest.mark.parametrize(
    "call, n",
    [
        ("pv.fish.random_playouts", 10**12),
        ("pv.fish.random_playouts", 2**64 - 1),
        ("pv.marathon.random_playouts", 10**11),
        ("pv.marathon.random_playouts", 2**64 - 1),
    ],
)
def test_absurd_playout_counts_raise_value_error_with_the_limit(call, n):
    out = child(f"outcome(lambda: {call}({n}, seed=1))", timeout=60)
    assert out["error"] == "ValueError", out
    assert numbers_in(out["message"]) - {n}, f"no limit named in {out['message']!r}"
    assert out["seconds"] < 5


# --------------------------------------------------------------------------- table size


@pytest.mark.parametrize("tt_mb", [65536, 2**40])
def test_a_huge_transposition_table_is_refused_or_capped(tt_mb):
    out = child(
        f"""
        s = pv.Fish().new_state(seed=2)
        outcome(lambda: pv.search(s, "alphabeta", depth=2, tt_mb={tt_mb}).move in s.legal_moves())
        """,
        timeout=120,
    )
    if out["error"] is None:
        assert out["value"] == "True"
    else:
        assert out["error"] == "ValueError", out
        assert "tt_mb" in out["message"] or "table" in out["message"], out


# --------------------------------------------------------------------------- course maps


@pytest.mark.parametrize(
    "how",
    [
        "pv.Marathon(course=COURSE)",
        'pv.Marathon.from_config({"game": "marathon", "course": COURSE})',
        "pv.MarathonState.from_json(json.dumps({**json.loads(pv.Marathon().new_state().to_json()),"
        ' "course": COURSE}))',
        "pickle.loads(crafted)",
    ],
    ids=["Marathon", "from_config", "from_json", "pickle"],
)
@pytest.mark.parametrize("size", [46341, pytest.param(20000, marks=pytest.mark.slow)])
def test_huge_course_maps_are_refused_before_allocating(how, size):
    out = child(
        f"""
        import pickle
        COURSE = "SSS\\n#" + "\\n" * {size} + " " * {size} + "#\\nFFF\\n"
        state = pv.Marathon().new_state()
        good = state.to_json()
        rebuild, args = state.__reduce__()[:2]
        text = json.dumps({{**json.loads(good), "course": COURSE}})
        class Crafted:
            def __reduce__(self):
                return rebuild, tuple(text if a == good else a for a in args)
        crafted = pickle.dumps(Crafted())
        outcome(lambda: {how})
        """,
        timeout=60,
    )
    assert out["error"] == "ValueError", out
    assert out["seconds"] < 5, out
    if out["maxrss_mb"] is not None:
        assert out["maxrss_mb"] < 300, f"{out['maxrss_mb']:.0f} MB used to refuse a 90 KB map"


# --------------------------------------------------------------------------- Ctrl-C

CTRL_C_CALLS = {
    "fish, 1 thread": "pv.fish.random_playouts(10_000_000, seed=1, threads=1)",
    "fish, 2 threads": "pv.fish.random_playouts(10_000_000, seed=1, threads=2)",
    "marathon, 1 thread": "pv.marathon.random_playouts(2_000_000, seed=1, threads=1)",
    "marathon, 2 threads": "pv.marathon.random_playouts(2_000_000, seed=1, threads=2)",
    "search, mcts": 'pv.search(pv.Fish().new_state(seed=1), "mcts", time=60)',
    "search, alphabeta": 'pv.search(pv.Fish().new_state(seed=1), "alphabeta", time=60)',
}


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
@pytest.mark.parametrize(
    "call",
    # One playout call and one search run by default, all of them with -m slow.
    [
        pytest.param(call, marks=[] if call in ("fish, 2 threads", "search, mcts") else [SLOW])
        for call in CTRL_C_CALLS
    ],
    ids=list(CTRL_C_CALLS),
)
def test_ctrl_c_stops_long_calls(call):
    code = textwrap.dedent(
        f"""
        import signal, sys
        import pingvinas as pv
        # A child started in the background inherits SIGINT ignored: restore Python's handler.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        print("ready", flush=True)
        try:
            {CTRL_C_CALLS[call]}
        except KeyboardInterrupt:
            sys.exit(130)
        sys.exit(3)  # ran to the end: the signal was never seen
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        time.sleep(0.5)  # well inside the call
        assert proc.poll() is None, proc.stderr.read()
        sent = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{call}: still running 10 s after Ctrl-C")
        took = time.perf_counter() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    print(f"\nCtrl-C during {call}: exit {code} after {took * 1000:.0f} ms")
    assert code == 130, f"exit {code}: {proc.stderr.read()[-1500:]}"
    assert took < CTRL_C_LIMIT, f"{took:.2f} s from SIGINT to exit"


# --------------------------------------------------------------------------- thread counts


@pytest.mark.parametrize(
    "call, threads",
    [
        ("pv.fish.random_playouts", 5000),
        pytest.param("pv.fish.random_playouts", 20000, marks=pytest.mark.slow),
        pytest.param("pv.fish.random_playouts", 2**40, marks=pytest.mark.slow),
        ("pv.marathon.random_playouts", 5000),
        pytest.param("pv.marathon.random_playouts", 20000, marks=pytest.mark.slow),
        pytest.param("pv.marathon.random_playouts", 2**40, marks=pytest.mark.slow),
    ],
)
def test_absurd_thread_counts_are_refused_or_capped_quickly(call, threads):
    out = child(f"outcome(lambda: {call}(2000, seed=1, threads={threads})[0].shape)", timeout=20)
    assert out["error"] in (None, "ValueError"), out
    assert out["seconds"] < 5, out


def test_threads_zero_means_all_cores_in_both_batch_calls():
    for call in (pv.fish.random_playouts, pv.marathon.random_playouts):
        first, _ = call(300, seed=4, threads=0)
        again, _ = call(300, seed=4, threads=1)
        assert np.array_equal(first, again)  # results do not depend on the thread count


# --------------------------------------------------------------------------- bools


def _states():
    fish = pv.Fish().new_state(seed=1)
    marathon = pv.Marathon().new_state()
    return [fish, movement_state(), marathon, marathon.after(marathon.legal_actions()[0])]


@pytest.mark.parametrize("flag", [True, False])
@pytest.mark.parametrize("method", ["play", "after", "parse_move", "apply_action"])
def test_bools_are_not_actions(method, flag):
    for s in _states():
        before = s.to_json()
        with pytest.raises(TypeError):
            getattr(s, method)(flag)
        assert s.to_json() == before
        assert s.is_legal(flag) is False  # even where action int(flag) is legal


@pytest.mark.parametrize("flag", [True, False])
def test_bools_are_not_players(flag):
    for s in _states():
        with pytest.raises(TypeError):
            s.observation_tensor(flag)
        with pytest.raises(TypeError):
            s.observation_tensor(player=flag)
    with pytest.raises(TypeError):
        pv.Fish().position(board=[[1, 1, 1]], penguins=[[(0, 0)], [(0, 2)]], to_move=flag)
    with pytest.raises(TypeError):
        pv.Marathon().position(to_move=flag)


# --------------------------------------------------------------------------- invalid actions


@pytest.mark.parametrize("game", [pv.Fish(), pv.Marathon()], ids=["fish", "marathon"])
def test_out_of_range_actions_are_invalid_and_illegal_ones_illegal(game):
    s = game.new_state(seed=1)
    n = s.num_actions
    for bad in (n, n + 1, -1, -n, 2**63, 2**64, 2**200, -(2**200)):
        for method in ("play", "after", "parse_move", "apply_action"):
            with pytest.raises(pv.InvalidMoveError):
                getattr(s, method)(bad)
    illegal = next(a for a in range(n) if not s.is_legal(a))  # a placement or an entry
    with pytest.raises(pv.IllegalMoveError) as caught:
        s.play(illegal)
    assert not isinstance(caught.value, pv.InvalidMoveError)
    assert issubclass(pv.InvalidMoveError, ValueError) and issubclass(
        pv.IllegalMoveError, ValueError
    )


# --------------------------------------------------------------------------- pickling


def _value_objects():
    fish = movement_state()
    race = pv.Marathon(players=3, course="zigzag").new_state()
    race.play(race.legal_actions()[5])
    return [
        pv.Fish(),
        pv.Fish(players=3),
        pv.Fish(board=[[1, 2, 0], [3, 1, 1]], penguins=1, placement="any", order="snake"),
        pv.Fish.variant("fish-4p"),
        pv.Marathon(),
        pv.Marathon(players=5, course="l", ply_limit=40),
        pv.Fish().new_state(seed=1).legal_moves()[0],  # a placement
        fish.legal_moves()[0],  # a slide
        race.legal_moves()[0],
        race.pieces[0],
        pv.Fish().new_state(seed=1),
        fish,
        race,
    ]


@pytest.mark.parametrize("index", range(13))
def test_value_objects_pickle_and_copy(index):
    value = _value_objects()[index]
    for twin in (
        pickle.loads(pickle.dumps(value)),
        pickle.loads(pickle.dumps(value, protocol=2)),
        copy.copy(value),
        copy.deepcopy(value),
    ):
        assert type(twin) is type(value)
        assert twin == value and hash(twin) == hash(value)
        assert str(twin) == str(value) and repr(twin) == repr(value)


def test_search_results_pickle():
    s = movement_state()
    result = search(s, "mcts", iterations=100)
    twin = pickle.loads(pickle.dumps(result))
    assert twin.move == result.move and twin.pv == result.pv
    assert np.array_equal(twin.visits, result.visits)


@pytest.mark.parametrize("make", [lambda: Searcher("mcts"), lambda: pv._core.Searcher("mcts")])
def test_searchers_refuse_pickling_clearly(make):
    searcher = make()
    for attempt in (pickle.dumps, copy.deepcopy):
        with pytest.raises(TypeError, match="Searcher"):
            attempt(searcher)


# --------------------------------------------------------------------------- seeds

ANY_SEED = [-1, -(2**63), 2**63, 2**64 - 1, 2**64, 2**100, -(2**100)]


@SETTINGS
@given(st.one_of(st.integers(), st.sampled_from(ANY_SEED)))
def test_new_state_takes_any_int_seed(seed):
    for game in (pv.Fish(), pv.Fish.variant("fish-3p"), pv.Marathon()):
        a, b = game.new_state(seed=seed), game.new_state(seed=seed)
        assert a == b


@pytest.mark.parametrize("seed", ANY_SEED)
def test_every_seed_parameter_takes_any_int(seed):
    s = movement_state()
    for call in (pv.fish.random_playouts, pv.marathon.random_playouts):
        first, second = call(20, seed=seed), call(20, seed=seed)
        assert np.array_equal(first[0], second[0])
    a = search(s, "mcts", iterations=200, seed=seed)
    b = search(s, "mcts", iterations=200, seed=seed)
    assert np.array_equal(a.visits, b.visits) and a.move in s.legal_moves()
    c = Searcher("mcts", seed=seed).search(s, iterations=200)
    assert np.array_equal(a.visits, c.visits)
    r = pv.Marathon().new_state()
    assert search(r, "mcts", iterations=50, seed=seed).move in r.legal_moves()


def test_seeds_are_still_ints():
    with pytest.raises(TypeError):
        pv.Fish().new_state(seed=1.5)
    with pytest.raises(TypeError):
        pv.fish.random_playouts(5, seed="1")


# --------------------------------------------------------------------------- long inputs

MEGA = "x" * 1_000_000


@pytest.mark.parametrize("game", [pv.Fish(), pv.Marathon()], ids=["fish", "marathon"])
@pytest.mark.parametrize("text", [MEGA, "a1-" + MEGA, "B 0,1 S " + MEGA], ids=["x", "a1-x", "B-x"])
def test_errors_quote_a_short_piece_of_a_long_move(game, text):
    s = game.new_state(seed=1)
    for method in ("play", "after", "parse_move"):
        with pytest.raises(ValueError) as caught:
            getattr(s, method)(text)
        assert len(str(caught.value)) <= 400, len(str(caught.value))


@pytest.mark.parametrize(
    "call",
    [
        lambda: pv.FishState.from_json(MEGA),
        lambda: pv.MarathonState.from_json(MEGA),
        lambda: pv.Fish.variant(MEGA),
        lambda: pv.Marathon.variant(MEGA),
        lambda: pv.load_game(MEGA),
        lambda: pv.Marathon(course=MEGA),
        lambda: pv.Fish(placement=MEGA),
        lambda: pv.Fish.from_config({"game": "fish", "order": MEGA}),
    ],
    ids=[
        "fish-json",
        "marathon-json",
        "fish-variant",
        "marathon-variant",
        "load_game",
        "course",
        "placement",
        "config",
    ],
)
def test_errors_quote_a_short_piece_of_any_long_input(call):
    with pytest.raises(ValueError) as caught:
        call()
    assert len(str(caught.value)) <= 400, len(str(caught.value))


LONG = "n" * 100_000


@pytest.mark.parametrize("key", ["name", "description"])
def test_long_names_and_descriptions_are_refused(key):
    assert pv.Fish.from_config({"game": "fish", key: "a fine name"})  # short ones are fine
    with pytest.raises(ValueError):
        pv.Fish.from_config({"game": "fish", key: LONG})
    config = {"game": "marathon", "course": pv.Marathon().course}
    assert pv.Marathon.from_config({**config, key: "a fine name"})
    with pytest.raises(ValueError):
        pv.Marathon.from_config({**config, key: LONG})
    state = pv.Marathon().new_state()
    data = json.loads(state.to_json())
    assert key in data
    with pytest.raises(ValueError):
        pv.MarathonState.from_json(json.dumps({**data, key: LONG}))


# --------------------------------------------------------------------------- memory


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="a long search in a child process")
def test_a_long_mcts_search_stays_within_a_memory_bound():
    out = child(
        """
        import random
        s = pv.Fish().new_state(seed=3)
        outcome(lambda: pv.search(s, "mcts", time=12).move in s.legal_moves())
        """,
        timeout=120,
    )
    assert out["error"] is None, out
    if out["maxrss_mb"] is not None:
        assert out["maxrss_mb"] < 1024, f"{out['maxrss_mb']:.0f} MB for a 12 s search"


def test_environment_can_run_children():
    # The child-interpreter tests need the package importable from sys.executable.
    out = child("outcome(lambda: pv.__version__)", timeout=60)
    assert out["error"] is None and out["value"].strip("'") == pv.__version__
    assert os.path.exists(sys.executable)
