"""Fish boards larger than the standard one: the engine keeps each board on the
narrowest bitboard that holds it (64, 128 or 1024 bits), and boards of up to 1,024 cells play
from Python, in batch playouts, in search and in the solver. Complete games against the
reference model on these boards are in ``test_fish_differential.py`` (category ``large``)."""

import random

import numpy as np
import pytest

import pingvinas as pv
from fish_reference import FishReference, move_name
from pingvinas.searching.searcher import search

SHAPES = [(20, 20), (32, 32), (50, 2), (2, 50), (9, 9), (64, 16)]


def board_of(shape, seed=0):
    rng = random.Random(f"{shape}-{seed}")
    rows, cols = shape
    return [
        [0 if rng.random() < 0.1 else rng.randint(1, 3) for _ in range(cols)] for _ in range(rows)
    ]


def test_the_size_limit_is_1024_cells_and_64_a_side():
    pv.Fish(board=[[1] * 32] * 32)
    pv.Fish(board=[[1] * 64] * 16)
    for rows, cols in [(33, 32), (65, 1), (1, 65), (8, 128), (40, 40)]:
        with pytest.raises(ValueError, match="at most 1024 cells and at most 64 rows"):
            pv.Fish(board=[[1] * cols] * rows)
    with pytest.raises(ValueError, match="at most 35000"):
        pv.Fish(board=[[200] * 30] * 30)


# Whole searched games on the largest boards take a minute or more (the evaluation's region
# solver is slow there): slow tests; the short test below searches them in the default run.
SEARCHED = [pytest.param(s, marks=[pytest.mark.slow] if s[0] * s[1] > 256 else []) for s in SHAPES]


@pytest.mark.parametrize(
    "shape",
    [(20, 20), pytest.param((32, 32), marks=pytest.mark.slow)],
    ids=lambda s: f"{s[0]}x{s[1]}",
)
def test_every_algorithm_searches_large_boards(shape):
    board = board_of(shape, 2)
    state = pv.Fish(board=board, players=2).new_state()
    rng = random.Random(4)
    for ply in range(41):
        if ply % 20 == 0:
            for algorithm, budget in [
                ("mcts", {"iterations": 50}),
                ("alphabeta", {"depth": 2, "nodes": 3000}),
                ("greedy", {}),
            ]:
                result = search(state, algorithm, **budget)
                assert result.action in state.legal_actions(), (ply, algorithm)
        state.play(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("shape", SEARCHED, ids=lambda s: f"{s[0]}x{s[1]}")
def test_searched_games_agree_with_the_reference(shape):
    # Every move chosen by a search (plain MCTS, and alpha-beta with the evaluation every tenth
    # move), the state checked against the reference model after each.
    board = board_of(shape)
    game = pv.Fish(board=board, players=3, penguins=2, placement="any")
    state = game.new_state()
    ref = FishReference(board, 3, 2, "any")
    ply = 0
    while not state.is_over:
        algorithm = "alphabeta" if ply % 10 == 9 else "mcts"
        # The evaluation's exact region solver is slow on large boards: MCTS goes without it.
        budget = {"iterations": 8, "knowledge": False} if algorithm == "mcts" else {"depth": 1}
        move = search(state, algorithm, seed=ply, **budget).move
        key = (None if move.src is None else tuple(move.src), tuple(move.dst))
        assert key in ref.legal_moves(), move_name(key)
        state.play(move)
        ref.play(key)
        assert state.board.tolist() == ref.board()
        assert [tuple(s) for s in state.scores] == ref.scores()
        assert state.to_move == ref.to_move
        ply += 1
    assert ref.is_over and list(state.ranking()) == ref.ranking()


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_batch_playouts_on_large_boards(shape):
    board = board_of(shape, 1)
    game = pv.Fish(board=board, players=2)
    fish, floes = pv.fish.random_playouts(12, seed=5, game=game, policy="uniform")
    total = sum(map(sum, board))
    assert fish.shape == (12, 2) and (fish.sum(axis=1) <= total).all()
    assert (floes >= 4).all() and len({tuple(f) for f in fish}) > 1
    again, _ = pv.fish.random_playouts(12, seed=5, threads=2, game=game, policy="uniform")
    np.testing.assert_array_equal(fish, again)
    # From a position too: the same scores as before it, and more.
    state = game.new_state()
    for _ in range(12):
        state.play(state.legal_actions()[0])
    fish, _ = pv.fish.random_playouts(10, seed=1, state=state, policy="fast")
    assert (fish >= np.array([s[0] for s in state.scores])).all()


def test_json_pickle_and_observations_on_a_large_board():
    import pickle

    game = pv.Fish(board=board_of((32, 32)), players=4)
    state = game.new_state()
    rng = random.Random(3)
    for _ in range(30):
        state.play(rng.choice(state.legal_actions()))
    assert pv.FishState.from_json(state.to_json()) == state
    assert pickle.loads(pickle.dumps(state)) == state
    obs = state.observation_tensor()
    assert obs.shape == game.observation_shape == (24, 32, 32)
    # The penguins of the player to move are on plane 3, where the state has them.
    cells = {tuple(c) for c in state.penguins[state.to_move]}
    assert {tuple(c) for c in np.argwhere(obs[3] == 1.0)} == cells
    mask = state.legal_action_mask()
    assert mask.shape == (game.num_actions,) and list(np.flatnonzero(mask)) == state.legal_actions()


def test_moves_name_columns_past_z():
    state = pv.Fish(board=[[1] * 50, [1] * 50]).position(penguins=[[(1, 49)], [(0, 0)]])
    names = {str(m) for m in state.legal_moves()}
    assert "ax2-aw2" in names and "ax2-a2" in names
    state.play("ax2-ab2")
    assert state.penguins[0] == [(1, 27)]


def test_the_solver_on_a_wide_board():
    # 2 x 50 with two small islands: the 128-bit board, solved exactly.
    board = [[0] * 50 for _ in range(2)]
    for c in (0, 1, 2, 47, 48, 49):
        board[0][c] = board[1][c] = 1 + c % 3
    state = pv.Fish(board=board).position(penguins=[[(0, 0)], [(1, 49)]])
    solution = pv.fish.solve(state)
    assert solution.scores == [(12, 6), (12, 6)]


def _uniform(obs, mask):
    return np.zeros(mask.shape, np.float32), np.zeros((len(obs), 2), np.float32)


@pytest.mark.parametrize("shape", [(9, 9), (20, 20), (50, 2)])
def test_puct_search_many_and_selfplay_on_wider_boards(shape):
    game = pv.Fish(board=board_of(shape, 3))
    state = game.new_state()
    r = search(state, "puct", evaluator=_uniform, iterations=32, batch_size=8, knowledge=False)
    assert r.move in state.legal_moves()
    many = pv.search_many([state, state.copy()], evaluator=_uniform, iterations=16, knowledge=False)
    assert all(m.move in state.legal_moves() for m in many)
    data = pv.selfplay(game, games=1, simulations=4, evaluator=_uniform, seed=1)
    assert data.observations.shape[1:] == game.observation_shape
    assert data.policies.shape[1] == game.num_actions
    assert len(pv.selfplay(game, games=1, simulations=4, seed=1)) > 0


def test_search_many_refuses_boards_of_different_words():
    small, wide = pv.Fish().new_state(seed=1), pv.Fish(board=board_of((9, 9))).new_state()
    with pytest.raises(ValueError, match="different size classes"):
        pv.search_many([small, wide], evaluator=_uniform, iterations=4)
