"""Search budgets hold on every board word and algorithm: a search's wall
time is at most its ``time`` plus 10 ms (allocation included), ``nodes`` bounds its work, and
``stop()`` or Ctrl-C end it within 200 ms.

The contract's 10 ms is what ``benches/search_budgets.py`` measures; these tests allow
``SLACK`` more for the scheduling noise of a loaded CI machine. Before the fix, the split board
took 4-8 s on ``time=0.05`` and the first search of a new ``Searcher`` 0.15-0.25 s on
``time=0.1``.
"""

from __future__ import annotations

import _thread
import threading
import time

import numpy as np
import pytest

import pingvinas as pv

#: The contract's margin over ``time``.
MARGIN = 0.010
#: Scheduling noise allowed on top of it in a test.
SLACK = 0.060


def split_board() -> pv.FishState:
    """10x13 (a 1,024-bit board word), cut in two by an empty column: each player alone in a
    region of about 60 floes, which the region solver cannot finish."""
    rng = np.random.default_rng(0)
    board = rng.integers(1, 4, (10, 13)).tolist()
    for r in range(10):
        board[r][6] = 0
    game = pv.Fish(board=board, penguins=1)
    return game.position(board=board, penguins=[[(0, 0)], [(9, 12)]])


def open_board(rows: int, cols: int, seed: int = 1) -> pv.FishState:
    """A rows x cols board of 1-3 fish, one penguin each in opposite corners."""
    board = np.random.default_rng(seed).integers(1, 4, (rows, cols)).tolist()
    game = pv.Fish(board=board, penguins=1)
    return game.position(board=board, penguins=[[(0, 0)], [(rows - 1, cols - 1)]])


BOARDS = {
    "split 10x13": split_board,
    "8x8": lambda: open_board(8, 8),
    "11x11 (u128)": lambda: open_board(11, 11),
    "32x32": lambda: open_board(32, 32),
    "16x64": lambda: open_board(16, 64),
}


def timed(f):
    t0 = time.perf_counter()
    r = f()
    return r, time.perf_counter() - t0


@pytest.mark.parametrize("board", list(BOARDS))
@pytest.mark.parametrize("algorithm", ["mcts", "alphabeta", "auto"])
def test_time_is_a_time_budget(board, algorithm):
    s = BOARDS[board]()
    for budget in (0.05, 0.2):
        r, wall = timed(lambda budget=budget: pv.search(s, algorithm, time=budget))
        assert wall <= budget + MARGIN + SLACK, (board, algorithm, budget, wall)
        assert r.move in s.legal_moves()


def test_the_first_search_of_a_new_searcher_is_within_its_time():
    s = open_board(8, 8)
    for tt_mb in (64, 1024):
        searcher = pv.Searcher("alphabeta", tt_mb=tt_mb)
        _, wall = timed(lambda searcher=searcher: searcher.search(s, time=0.1))
        assert wall <= 0.1 + MARGIN + SLACK, (tt_mb, wall)


@pytest.mark.parametrize("board", ["split 10x13", "32x32"])
def test_a_node_budget_is_a_small_search(board):
    s = BOARDS[board]()
    r, wall = timed(lambda: pv.search(s, "alphabeta", nodes=10))
    assert r.nodes <= 10
    # Before: 2.6 s for 10 nodes on the split board (the region solver ran to its own limit).
    assert wall < 0.5, wall


def test_stop_ends_a_search_on_the_split_board():
    s = split_board()
    searcher = pv.Searcher("alphabeta")
    stopped_at = []

    def stop():
        stopped_at.append(time.perf_counter())
        searcher.stop()

    threading.Timer(0.3, stop).start()
    r = searcher.search(s, time=60.0)
    assert r.interrupted
    assert time.perf_counter() - stopped_at[0] < 0.2


@pytest.mark.parametrize("algorithm", ["mcts", "alphabeta"])
def test_ctrl_c_ends_a_search_on_the_split_board(python_sigint, algorithm):
    s = split_board()
    sent = []

    def interrupt():
        sent.append(time.perf_counter())
        _thread.interrupt_main()

    threading.Timer(0.3, interrupt).start()
    with pytest.raises(KeyboardInterrupt):
        pv.search(s, algorithm, time=60.0)
    assert time.perf_counter() - sent[0] < 0.2


def test_a_search_agent_keeps_its_time_on_the_split_board():
    s = split_board()
    agent = pv.SearchAgent("auto", time=0.01)
    _, wall = timed(lambda: agent.choose(s))
    assert wall <= 0.01 + MARGIN + SLACK, wall
