"""The search from Python: results, determinism, budgets, errors, interruption, threads, and the
exact Fish solver checked against a brute-force minimax written here in Python."""

import _thread
import multiprocessing
import random
import sys
import threading
import time

import numpy as np
import pytest

import pingvinas as pv
from pingvinas.searching.searcher import Searcher, search, solve_fish


def movement_state(seed=3, players=2):
    """A standard board just after placement (random placements)."""
    s = pv.Fish(players=players).new_state(seed=seed)
    rng = random.Random(seed)
    while s.phase == "placement":
        s.play(rng.choice(s.legal_moves()))
    return s


def finished_state(seed=5):
    s = pv.Fish().new_state(seed=seed)
    rng = random.Random(seed)
    while not s.is_over:
        s.play(rng.choice(s.legal_moves()))
    return s


# --- Results. ---------------------------------------------------------------------------------


def test_mcts_result_fields():
    s = movement_state()
    r = search(s, "mcts", iterations=500, seed=1)
    assert r.algorithm == "mcts"
    assert r.move in s.legal_moves()
    assert r.action == r.move.action
    assert r.iterations == 500
    assert -1.0 <= r.value <= 1.0
    assert r.visits.shape == (s.num_actions,) and r.visits.dtype == np.int64
    # Visits only on legal actions, summing to the playouts through the root's children.
    legal = set(s.legal_actions())
    assert set(np.nonzero(r.visits)[0]) <= legal
    assert 490 <= r.visits.sum() <= 500
    # The chosen move is the most visited one.
    assert r.visits[r.action] == r.visits.max()
    assert r.pv[0] == r.move and len(r.pv) >= 2
    assert r.time > 0 and r.nodes > 1


def test_alphabeta_result_fields():
    s = movement_state()
    r = search(s, "alphabeta", depth=3)
    assert r.algorithm == "alphabeta"
    assert r.depth == 3
    assert r.move in s.legal_moves()
    assert r.visits.sum() == 0
    # The principal variation is a legal line starting with the move.
    t = s.copy()
    for m in r.pv:
        assert m in t.legal_moves()
        t.play(m)
    assert r.pv[0] == r.move and len(r.pv) == 3


def test_auto_is_alphabeta_for_two_player_fish_and_mcts_elsewhere():
    # With 3 and 4 players MCTS valuing leaves by the evaluation beats paranoid alpha-beta
    # (docs/strength.md).
    assert search(movement_state(), time=0.05).algorithm == "alphabeta"
    assert search(movement_state(players=3), time=0.05).algorithm == "mcts"
    assert search(movement_state(players=4), time=0.05).algorithm == "mcts"
    assert search(pv.Marathon().new_state(), time=0.05).algorithm == "mcts"


def test_auto_values_leaves_of_multiplayer_fish_by_the_evaluation():
    # The same search as asking for it, with exploration 0.5 (one thread, fixed iterations:
    # deterministic), not MCTS's playouts; a playout or exploration named is kept.
    def visits(s: pv.fish.FishState, algorithm: str, **options: object) -> np.ndarray:
        return search(s, algorithm, iterations=300, seed=3, **options).visits

    for players in (3, 4):
        s = movement_state(players=players)
        evaluated = visits(s, "mcts", playout="evaluate", exploration=0.5)
        assert np.array_equal(visits(s, "auto"), evaluated)
        assert not np.array_equal(visits(s, "mcts", exploration=0.5), evaluated)
        assert np.array_equal(
            visits(s, "auto", playout="random", exploration=0.7),
            visits(s, "mcts", playout="random", exploration=0.7),
        )


def test_auto_selects_marathon_children_by_priors():
    # Marathon's auto is MCTS with PUCT selection (priors from the turns a move
    # saves) and exploration 2: the same search as asking for it, and not UCT's (one thread,
    # fixed iterations: deterministic). An exploration given is kept.
    s = pv.Marathon().new_state()

    def visits(algorithm: str, **options: object) -> np.ndarray:
        return search(s, algorithm, iterations=400, seed=3, **options).visits

    puct = visits("mcts", selection="puct", exploration=2.0)
    assert np.array_equal(visits("auto"), puct)
    assert not np.array_equal(visits("mcts"), puct)
    assert np.array_equal(
        visits("auto", exploration=0.7), visits("mcts", selection="puct", exploration=0.7)
    )
    # More players: the same.
    for players in (3, 5):
        s = pv.Marathon(players=players).new_state()
        assert np.array_equal(visits("auto"), visits("mcts", selection="puct", exploration=2.0))


def test_greedy_takes_the_richest_floe():
    # One penguin each; player 0 can reach a 3-fish floe or 1-fish floes.
    game = pv.Fish()
    s = game.position(board=[[1, 1, 3, 0], [2, 1, 1, 1]], penguins=[[(0, 0)], [(1, 3)]], to_move=0)
    r = search(s, "greedy")
    assert r.move.dst == (0, 2)


def test_same_seed_same_result_and_seeds_differ():
    s = movement_state(seed=8)
    a = search(s, "mcts", iterations=2000, seed=42)
    b = search(s, "mcts", iterations=2000, seed=42)
    c = search(s, "mcts", iterations=2000, seed=43)
    assert a.move == b.move and np.array_equal(a.visits, b.visits) and a.value == b.value
    assert not np.array_equal(a.visits, c.visits)


def test_time_budget_is_respected():
    s = movement_state()
    for algorithm in ("mcts", "alphabeta"):
        t0 = time.perf_counter()
        r = search(s, algorithm, time=0.2)
        took = time.perf_counter() - t0
        assert took < 1.0, (algorithm, took)
        assert r.time <= 0.5
    # MCTS uses (nearly) all of it.
    assert search(s, "mcts", time=0.2).time >= 0.19


def test_threads_share_the_iteration_budget():
    s = movement_state()
    r = search(s, "mcts", iterations=4000, threads=2, seed=1)
    assert r.iterations == 4000
    assert 3980 <= r.visits.sum() <= 4000


def test_alphabeta_on_two_threads_agrees_on_proven_results():
    # Small endgames searched to the end: threads sharing the work must find the same proven value.
    game = pv.Fish.from_config(
        {
            "game": "fish",
            "players": 2,
            "penguins": 1,
            "placement": "any",
            "board": [[1, 2, 3, 1], [2, 0, 1, 3], [3, 1, 2, 1]],
        }
    )
    rng = random.Random(4)
    checked = 0
    for seed in range(40):
        s = game.new_state(seed=seed)
        while not s.is_over and (s.phase == "placement" or rng.random() < 0.3):
            s.play(rng.choice(s.legal_actions()))
        if s.is_over or len(s.legal_actions()) < 2:
            continue
        one = search(s, "alphabeta", depth=30)
        two = search(s, "alphabeta", depth=30, threads=2)
        assert one.exact and two.exact
        assert one.value == two.value and s.is_legal(two.move)
        assert two.nodes > 0
        checked += 1
    assert checked >= 10


def test_searcher_reuses_its_tree():
    s = movement_state(seed=11)
    agent = Searcher("mcts", seed=1)
    first = agent.search(s, iterations=3000)
    # Play the expected line: the next search starts from a kept subtree, so its root
    # already has visits before this search's playouts.
    s.play(first.pv[0])
    s.play(first.pv[1])
    second = agent.search(s, iterations=100)
    assert second.visits.sum() > 100


def test_searcher_takes_its_budget_in_the_constructor():
    s = movement_state(seed=4)
    # A new user's first try, and DESIGN.md's form: the budget given once, used by each call.
    assert pv.Searcher("mcts", iterations=10).search(s).iterations == 10
    searcher = Searcher("mcts", iterations=40, reuse=False, seed=2)
    assert searcher.budget == dict(time=None, iterations=40, depth=None, nodes=None)
    assert searcher.search(s).iterations == 40
    # A call's budget replaces the constructor's whole (not capped by its iterations) ...
    assert searcher.search(s, iterations=70).iterations == 70
    timed = searcher.search(s, time=0.05)
    assert timed.iterations > 40 and timed.time >= 0.04
    # ... and the next call without one is back to the default.
    assert searcher.search(s).iterations == 40
    # The same result as the old per-call form, for a seed.
    old = Searcher("mcts", reuse=False, seed=2).search(s, iterations=40)
    assert (old.action, old.visits.tolist()) == (
        searcher.search(s).action,
        searcher.search(s).visits.tolist(),
    )
    assert Searcher("alphabeta", depth=2).search(s).depth == 2
    assert "iterations=40" in repr(searcher)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        (dict(iterations=0), ValueError),
        (dict(time=-1.0), ValueError),
        (dict(time=float("nan")), ValueError),
        (dict(depth=True), TypeError),
        (dict(nodes=1.5), TypeError),
        (dict(time="1"), TypeError),
    ],
)
def test_searcher_refuses_a_bad_budget_when_made(kwargs, error):
    with pytest.raises(error):
        Searcher("mcts", **kwargs)


def test_solved_endgame_is_exact():
    # Each penguin alone in its own region: the result is known without search.
    game = pv.Fish()
    s = game.position(
        board=[[1, 2, 0, 3, 1], [2, 1, 0, 1, 1]], penguins=[[(0, 0)], [(0, 4)]], to_move=0
    )
    r = search(s, "alphabeta", depth=5)
    # Player 0 can collect 1+2+1+2 = 6 fish on 4 floes, player 1 3+1+1+1 = 6 on 4: a draw.
    assert r.exact and r.value == 0.0
    sol = solve_fish(s)
    assert sol.scores == [(6, 4), (6, 4)] and sol.value == (0, 0)
    # One more fish on player 0's side makes it a proven win.
    s = game.position(
        board=[[1, 3, 0, 3, 1], [2, 1, 0, 1, 1]], penguins=[[(0, 0)], [(0, 4)]], to_move=0
    )
    r = search(s, "mcts", iterations=10)
    assert r.exact and r.value == 1.0
    r = search(s, "alphabeta", depth=3)
    assert r.exact and r.value == 1.0
    assert solve_fish(s).scores == [(7, 4), (6, 4)]


# --- Errors. ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(time=-1.0),
        dict(time=0.0),
        dict(time=float("nan")),
        dict(time=1e12),
        dict(iterations=0),
        dict(iterations=-5),
        dict(depth=0),
        dict(depth=10**6),
        dict(nodes=-1),
        dict(iterations=2**50),
    ],
)
def test_bad_budgets_raise_value_error(kwargs):
    with pytest.raises(ValueError):
        search(movement_state(), "mcts", **kwargs)


def test_finished_game_raises_value_error():
    s = finished_state()
    for algorithm in ("mcts", "alphabeta", "auto", "greedy", "random"):
        with pytest.raises(ValueError, match="finished"):
            search(s, algorithm, iterations=10)
    with pytest.raises(ValueError):
        solve_fish(s)


def test_bad_arguments():
    s = movement_state()
    with pytest.raises(ValueError):
        search(s, "minimax")
    with pytest.raises(TypeError):
        search(s, "mcts", iterations=1.5)
    with pytest.raises(TypeError):
        search("not a state", "mcts", iterations=10)
    with pytest.raises(ValueError):
        search(s, "mcts", iterations=10, threads=0)
    with pytest.raises(ValueError):
        search(s, "mcts", iterations=10, selection="best")
    with pytest.raises(ValueError):
        search(s, "mcts", depth=3)  # depth alone does not bound MCTS


def test_a_searcher_starts_afresh_on_another_game():
    agent = Searcher("mcts")
    agent.search(movement_state(), iterations=10)
    state = pv.Marathon().new_state()
    assert agent.search(state, iterations=10).move in state.legal_moves()
    fish = movement_state()
    assert agent.search(fish, iterations=10).move in fish.legal_moves()


# --- Interruption and threads. ------------------------------------------------------------------


def test_stop_from_another_thread():
    s = movement_state()
    agent = Searcher("mcts")
    threading.Timer(0.2, agent.stop).start()
    t0 = time.perf_counter()
    r = agent.search(s, time=30.0)
    assert time.perf_counter() - t0 < 5.0
    assert r.interrupted and r.move in s.legal_moves()


def test_ctrl_c_interrupts_a_search(python_sigint):
    s = movement_state()
    threading.Timer(0.2, _thread.interrupt_main).start()
    t0 = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        search(s, "alphabeta", time=30.0)
    assert time.perf_counter() - t0 < 5.0


def test_two_python_threads_search_at_once():
    states = [movement_state(seed=21), movement_state(seed=22)]
    expected = [search(st, "mcts", iterations=3000, seed=7) for st in states]
    results = [None, None]

    def work(i):
        results[i] = search(states[i], "mcts", iterations=3000, seed=7)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got, want in zip(results, expected):
        assert got.move == want.move and np.array_equal(got.visits, want.visits)


def _search_in_child(queue):
    s = movement_state()
    queue.put([search(s, "alphabeta", time=0.1, threads=t).depth for t in (1, 2)])


@pytest.mark.skipif(sys.platform != "linux", reason="fork is the Linux default only")
def test_searches_work_in_a_forked_process():
    # Long calls run on a kept worker thread (and alpha-beta keeps its helpers): a fork copies
    # those pools but not their threads, so the child must build its own instead of waiting.
    s = movement_state()
    for threads in (1, 2):
        search(s, "alphabeta", time=0.05, threads=threads)
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_search_in_child, args=(queue,))
    child.start()
    child.join(60)
    if child.is_alive():
        child.kill()
        pytest.fail("a search in a forked process did not finish")
    assert child.exitcode == 0
    assert all(d >= 1 for d in queue.get(timeout=5))


# --- The exact solver against brute force. ------------------------------------------------------


def brute(state, root):
    """Minimax in Python on the public API: the value for the player to move of
    (own final fish - opponent's, then floes), two players."""
    if state.is_over:
        return (0, 0)
    p = state.to_move
    best = None
    for m in state.legal_moves():
        c = state.after(m)
        gain = [
            (c.scores[q][0] - state.scores[q][0], c.scores[q][1] - state.scores[q][1])
            for q in range(2)
        ]
        d = (gain[p][0] - gain[1 - p][0], gain[p][1] - gain[1 - p][1])
        rest = brute(c, root)
        if not c.is_over and c.to_move != p:
            rest = (-rest[0], -rest[1])
        v = (d[0] + rest[0], d[1] + rest[1])
        if best is None or v > best:
            best = v
    return best


def test_solver_agrees_with_python_brute_force():
    rng = random.Random(17)
    game = pv.Fish(penguins=1, placement="any")
    checked = 0
    while checked < 25:
        board = [[rng.choice([0, 1, 1, 2, 3]) for _ in range(4)] for _ in range(2)]
        cells = [(r, c) for r in range(2) for c in range(4) if board[r][c]]
        if len(cells) < 3:
            continue
        a, b = rng.sample(cells, 2)
        s = game.position(board=board, penguins=[[a], [b]], to_move=rng.randrange(2))
        if s.is_over:
            continue
        sol = solve_fish(s)
        assert sol.value == brute(s, s.to_move), (board, a, b)
        assert sol.move in s.legal_moves()
        checked += 1


# --- Marathon. ----------------------------------------------------------------------------------


def test_marathon_search():
    s = pv.Marathon().new_state()
    for algorithm in ("mcts", "alphabeta", "greedy", "random"):
        r = search(s, algorithm, iterations=300, depth=2, seed=1)
        assert r.move in s.legal_moves()
    r = search(s, time=0.05)
    assert r.algorithm == "mcts"
    # Same seed, one thread, iterations: same result.
    a = search(s, "mcts", iterations=500, seed=9)
    b = search(s, "mcts", iterations=500, seed=9)
    assert np.array_equal(a.visits, b.visits)
