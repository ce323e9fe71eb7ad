"""The exact Fish solver (``pv.fish.solve``): values against brute force and full-depth
alpha-beta, every optimal move listed, the limits (nodes, time, memory, Ctrl-C) and progress."""

from __future__ import annotations

import _thread
import random
import threading
import time

import pytest

import pingvinas as pv
from pingvinas.searching.searcher import search, solve_fish


def brute_moves(state):
    """The value of each move for the player to move, by minimax in Python (two players):
    own future fish minus the opponent's, then floes."""

    def value(s):
        vals = brute_moves(s)
        return max(vals.values()) if vals else (0, 0)

    if state.is_over:
        return {}
    p = state.to_move
    out = {}
    for m in state.legal_moves():
        c = state.after(m)
        gain = [
            (c.scores[q][0] - state.scores[q][0], c.scores[q][1] - state.scores[q][1])
            for q in range(2)
        ]
        rest = value(c) if not c.is_over else (0, 0)
        if not c.is_over and c.to_move != p:
            rest = (-rest[0], -rest[1])
        out[m] = (gain[p][0] - gain[1 - p][0] + rest[0], gain[p][1] - gain[1 - p][1] + rest[1])
    return out


def random_state(rng, rows, cols, plies, penguins=1, players=2):
    board = [[rng.choice([0, 1, 1, 2, 3]) for _ in range(cols)] for _ in range(rows)]
    if sum(1 for row in board for f in row if f) < players * penguins + 1:
        return None
    game = pv.Fish(players=players, penguins=penguins, board=board, placement="any")
    s = game.new_state()
    for _ in range(plies):
        if s.is_over:
            break
        s = s.after(rng.choice(s.legal_moves()))
    return None if s.is_over else s


def test_every_optimal_move_is_listed_with_its_value():
    rng = random.Random(5)
    checked = 0
    while checked < 30:
        s = random_state(rng, 2, 4, rng.randrange(1, 4))
        if s is None:
            continue
        truth = brute_moves(s)
        best = max(truth.values())
        sol = solve_fish(s, all_values=checked % 2 == 1)
        assert sol.value == best
        assert set(sol.moves) == {m for m, v in truth.items() if v == best}
        assert sol.move == sol.moves[0] and sol.pv[0] == sol.move
        if checked % 2:
            assert sol.values == truth
            assert list(sol.values.values()) == sorted(sol.values.values(), reverse=True)
        else:
            assert sol.values == {m: best for m in sol.moves}
        checked += 1


def test_solver_agrees_with_full_depth_alphabeta():
    # Alpha-beta to the end gives the exact outcome (win, draw or loss for the player to move),
    # the sign of the final margin, scores so far included.
    rng = random.Random(8)
    checked = 0
    while checked < 20:
        s = random_state(rng, 3, 3, rng.randrange(2, 5), penguins=1)
        # (A search plays a forced move at once, unproven.)
        if s is None or len(s.legal_moves()) < 2:
            continue
        sol = solve_fish(s)
        p = s.to_move
        margin = (
            s.scores[p][0] - s.scores[1 - p][0] + sol.value[0],
            s.scores[p][1] - s.scores[1 - p][1] + sol.value[1],
        )
        expected = (margin > (0, 0)) - (margin < (0, 0))
        r = search(s, "alphabeta", depth=30)
        assert r.exact, s
        assert r.value == float(expected), (s, sol.value)
        checked += 1


def placed_on(grid, cells, penguins):
    """The position on ``grid`` after players 0, 1, 0, 1, ... place on ``cells`` in turn."""
    game = pv.Fish.from_config(
        {"game": "fish", "players": 2, "penguins": penguins, "placement": "any", "board": grid}
    )
    s = game.new_state()
    for cell in cells:
        s.play(next(m for m in s.legal_moves() if m.dst == cell))
    return s


def test_regions_shared_by_both_players_do_not_add():
    # Why the solver adds only single-owner regions (the module docs of fish/solver.rs): two
    # regions of four floes split by a column of holes, a penguin of each player in each, A to
    # move. The whole position's value is none of the sums of the regions' own values, whoever
    # moves first in each.
    grid = [[3, 2, 0, 3, 3], [1, 1, 0, 2, 1]]
    left = [[3, 2, 0, 0, 0], [1, 1, 0, 0, 0]]
    right = [[0, 0, 0, 3, 3], [0, 0, 0, 2, 1]]
    a1, b1, a2, b2 = (1, 0), (1, 1), (0, 4), (1, 4)
    whole = solve_fish(placed_on(grid, [a1, b1, a2, b2], 2)).value

    def region(g, a, b):
        """A's value in one region: A moving first, and B moving first."""
        first = solve_fish(placed_on(g, [a, b], 1)).value
        second = solve_fish(placed_on(g, [b, a], 1)).value  # B's penguin as player 0
        return [first, (-second[0], -second[1])]

    sums = {(x[0] + y[0], x[1] + y[1]) for x in region(left, a1, b1) for y in region(right, a2, b2)}
    assert whole == (2, 0)
    assert whole not in sums, sums


def test_symmetry_and_table_size_never_change_a_value():
    rng = random.Random(3)
    for _ in range(6):
        s = random_state(rng, 3, 4, 1)
        if s is None:
            continue
        a = solve_fish(s)
        b = solve_fish(s, symmetry=False, tt_mb=1)
        assert a.value == b.value and set(a.moves) == set(b.moves)


def test_three_and_four_players_are_paranoid():
    # The value of the root player's side against the others together: the optimal moves
    # are those of the best value.
    rng = random.Random(11)
    for players in (3, 4):
        s = None
        while s is None:
            s = random_state(rng, 3, 4, players + 2, players=players)
        sol = solve_fish(s, all_values=True)
        assert sol.value == max(sol.values.values())
        assert set(sol.moves) == {m for m, v in sol.values.items() if v == sol.value}


def test_limits_raise_clear_errors():
    s = pv.Fish(penguins=1, placement="any", board=[[1, 2, 3, 1, 2]] * 5).new_state()
    with pytest.raises(ValueError, match="1000 positions"):
        solve_fish(s, max_nodes=1000)
    with pytest.raises(ValueError, match="within"):
        solve_fish(s, time=0.01)
    for bad in (0, -1, 10**9):
        with pytest.raises(ValueError, match="tt_mb"):
            solve_fish(s, tt_mb=bad)
    for bad_time in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError):
            solve_fish(s, time=bad_time)
    # A time past what the clock holds is no limit (no overflow).
    small = pv.Fish(penguins=1, placement="any", board=[[1, 2, 3]]).new_state()
    assert solve_fish(small, time=1e300).value == solve_fish(small).value
    with pytest.raises(TypeError):
        solve_fish(s, tt_mb=1.5)
    with pytest.raises(TypeError):
        solve_fish(s, progress=3)


class Enough(Exception):
    pass


def test_progress_is_reported_and_can_stop_the_solve():
    s = pv.Fish(penguins=1, placement="any", board=[[1, 2, 3, 1, 2, 3]] * 5).new_state()
    calls = []

    def progress(nodes, seconds):
        calls.append((nodes, seconds))
        if len(calls) == 2:
            raise Enough

    t = time.monotonic()
    with pytest.raises(Enough):
        solve_fish(s, progress=progress)
    assert time.monotonic() - t < 5.0
    assert all(isinstance(n, int) and isinstance(x, float) for n, x in calls)
    assert calls[1][0] > calls[0][0] > 0 and calls[1][1] > calls[0][1] > 0


def test_a_search_from_the_progress_callback_does_not_wait_for_the_solve():
    # Long calls share one kept worker thread per calling thread; a call made from a progress
    # callback, while that worker solves, must get a thread of its own, not wait behind it.
    s = pv.Fish(penguins=1, placement="any", board=[[1, 2, 3, 1, 2, 3]] * 5).new_state()
    found = []

    def progress(nodes, seconds):
        found.append(pv.search(s, "mcts", time=0.05, seed=1).move)
        raise Enough

    t = time.monotonic()
    with pytest.raises(Enough):
        solve_fish(s, time=120.0, progress=progress)
    assert time.monotonic() - t < 20.0
    assert found and found[0] in s.legal_moves()


def test_ctrl_c_stops_a_long_solve(python_sigint):
    s = pv.Fish(penguins=1, placement="any", board=[[1, 2, 3, 1, 2, 3]] * 5).new_state()
    timer = threading.Timer(0.3, _thread.interrupt_main)
    t = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        solve_fish(s)
    took = time.monotonic() - t
    timer.join()
    # It stops within 200 ms of the signal (slack for a loaded machine).
    assert took < 0.3 + 1.0, took
