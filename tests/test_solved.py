"""Solved Fish: the bundled board classes, the value of every move, the perfect
player (the agent spec ``solve``) and the table of ``docs/solved.md``."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

import pingvinas as pv
from pingvinas import solved
from pingvinas._core import AgentSpec
from pingvinas.agents import SearchAgent
from pingvinas.searching.searcher import ALGORITHMS
from pingvinas.solved import BoardClass, Solver, margin, move_values
from pingvinas.solved.table import perfect_play, solve_class, value_map, write_table

TINY = BoardClass("tiny-3x3", 3, 3, 1)


def placed(cls: BoardClass, seed: int = 0) -> pv.FishState:
    """Board ``seed`` of ``cls`` after each penguin is placed on its first legal floe."""
    state = cls.game(seed).new_state()
    while state.phase == "placement":
        state.play(state.legal_moves()[0])
    return state


@pytest.mark.parametrize("cls", solved.CLASSES, ids=lambda c: c.name)
def test_board_zero_of_each_class_is_its_bundled_variant(cls):
    game = pv.load_game(cls.name)
    assert cls.name in pv.variants()
    assert isinstance(game, pv.Fish) and game.players == cls.players
    assert game.penguins == cls.penguins
    start = game.new_state(seed=5)  # a fixed board: the seed deals nothing
    assert start.board.tolist() == cls.board(0) == cls.game(0).new_state().board.tolist()
    counts = np.bincount(start.board.ravel(), minlength=4)[1:].tolist()
    assert tuple(counts) == cls.fish
    assert cls.shape().startswith(f"{cls.rows}x{cls.cols}")


def test_boards_of_a_class_are_shuffles_of_one_mix_fixed_by_the_seed():
    cls = solved.board_class("fish-mini-4x5")
    boards = [cls.board(seed) for seed in range(6)]
    assert boards == [cls.board(seed) for seed in range(6)]
    assert len({str(b) for b in boards}) == 6
    for b in boards:
        assert sorted(itertools.chain(*b)) == sorted(itertools.chain(*boards[0]))
    # The generator is SplitMix64, fixed here: board 1 of the 4x4 class is always this one.
    assert solved.board_class("fish-mini-4x4").board(1) == solved.board_class(
        "fish-mini-4x4-pairs"
    ).board(1)
    with pytest.raises(ValueError, match="unknown board class 'fish-mini-9x9'"):
        solved.board_class("fish-mini-9x9")


def test_margin_is_the_players_final_lead():
    assert margin([(13, 9), (13, 7)], 0) == (0, 2)
    assert margin([(13, 9), (10, 7)], 1) == (-3, -2)
    assert margin([(5, 2), (4, 1), (3, 3)], 0) == (-2, -2)  # against the others together


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_move_values_agree_with_the_solver_at_the_root_and_at_each_child(seed):
    state = TINY.game(seed).new_state()
    values = move_values(state)
    root = pv.fish.solve(state)
    assert values.value == margin(root.scores, 0)
    assert root.move in values.best  # the solver's move is one of the optimal ones
    assert {m.action for m in state.legal_moves()} == set(values.values)
    for m in state.legal_moves():
        child = pv.fish.solve(state.after(m))
        assert values.values[m.action] == margin(child.scores, 0)
        assert (m in values.best) == (values.values[m.action] == values.value)
    assert values.nodes > 0 and values.seconds >= 0.0


def test_move_values_in_movement_and_a_shared_solver_solves_each_position_once():
    state = placed(solved.board_class("fish-mini-4x4"))
    solver = Solver()
    first = move_values(state, solver=solver)
    nodes = solver.nodes
    again = move_values(state, solver=solver)
    assert again.values == first.values and again.nodes == 0 and solver.nodes == nodes
    assert first.value == margin(pv.fish.solve(state).scores, state.to_move)
    seen = []
    move_values(state, progress=lambda nodes, seconds: seen.append((nodes, seconds)))
    assert all(n >= 0 and s >= 0.0 for n, s in seen)  # (a solve under 0.25 s reports nothing)


def old_move_values(state: pv.FishState) -> dict[int, tuple[int, int]]:
    """Each move's value the way ``move_values`` had it before one ``all_values`` solve: every
    child solved on its own."""
    solver = Solver()
    player = state.to_move
    return {m.action: solver.final_margin(state.after(m), player) for m in state.legal_moves()}


@pytest.mark.parametrize(
    "state",
    [
        solved.board_class("fish-mini-4x4").game(3).new_state(),
        placed(solved.board_class("fish-mini-4x4-pairs"), 1),
        placed(solved.board_class("fish-mini-4x5"), 2),
    ],
    ids=["4x4-start", "pairs-placed", "4x5-placed"],
)
def test_move_values_from_one_solve_equal_solving_each_child(state):
    values = move_values(state)
    old = old_move_values(state)
    assert values.values == old
    assert values.value == max(old.values())
    assert [m.action for m in values.best] == [
        m.action for m in state.legal_moves() if old[m.action] == values.value
    ]


def test_move_values_refuses_what_it_cannot_compare():
    three = pv.Fish.from_config(
        {"game": "fish", "players": 3, "penguins": 1, "board": [[1] * 4] * 3}
    )
    with pytest.raises(ValueError, match="needs 2 players, not 3"):
        move_values(three.new_state())
    over = placed(TINY)
    while not over.is_over:
        over.play(over.legal_moves()[0])
    with pytest.raises(ValueError, match="finished game"):
        move_values(over)
    with pytest.raises(ValueError, match="too large"):
        move_values(pv.Fish().new_state(seed=1), max_nodes=1000)


# --- The perfect player: algorithm and agent spec "solve". -------------------------------------


def test_solve_is_an_algorithm_and_an_agent_spec():
    assert "solve" in ALGORITHMS and "solve" in AgentSpec.NAMES
    spec = AgentSpec("solve")
    assert (spec.algorithm, spec.iterations, spec.depth, str(spec)) == (
        "solve",
        None,
        None,
        "solve",
    )
    with pytest.raises(ValueError, match='"solve"'):
        AgentSpec("solve:3")


def test_search_with_solve_plays_an_optimal_move_exactly():
    state = TINY.game(1).new_state()
    result = pv.search(state, algorithm="solve")
    values = move_values(state)
    assert result.exact and result.algorithm == "solve"
    assert result.move in values.best
    assert result.pv[0] == result.move and result.nodes > 0
    # value: the returns of the final scores for the player to move, so its sign is the margin's
    assert np.sign(result.value) == np.sign(values.value[0] or values.value[1])


def test_solve_says_when_a_position_is_too_big_for_its_budget():
    big = pv.Fish().new_state(seed=3)
    with pytest.raises(ValueError, match="too big to solve within its budget .1000 positions"):
        pv.search(big, algorithm="solve", nodes=1000)
    with pytest.raises(ValueError, match="too big to solve within its budget .* or 0.050 s"):
        pv.search(big, algorithm="solve", time=0.05)
    before = big.to_json()
    with pytest.raises(ValueError):
        SearchAgent("solve", nodes=500).choose(big)
    assert big.to_json() == before
    with pytest.raises(ValueError, match="exact solver"):
        pv.search(pv.Marathon().new_state(seed=1), algorithm="solve")


def test_the_perfect_player_keeps_the_value_in_a_match():
    game = TINY.game(2)
    fish = move_values(game.new_state()).value[0]  # player 0's fish margin under perfect play
    result = pv.play_match(game, ["solve", "greedy"], games=2, progress=False)
    for r in result.records:
        seat = r.seats.index(0)  # where the perfect player sat
        lead = r.scores[seat] - r.scores[1 - seat]
        assert lead >= (fish if seat == 0 else -fish)
    both = pv.play_match(game, ["solve", "solve"], games=1, progress=False, swap_seats=False)
    assert both.records[0].scores[0] - both.records[0].scores[1] == fish


def test_the_vector_env_takes_solve_as_its_opponent():
    game = TINY.game(0)
    env = pv.VectorEnv(game, 2, seed=0, opponent="solve")
    obs, info = env.reset(seed=0)
    done = np.zeros(2, bool)
    for _ in range(40):
        actions = np.array([np.flatnonzero(m)[0] for m in info["legal_action_mask"]])
        obs, rewards, term, trunc, info = env.step(actions)
        done |= term
        if done.all():
            break
    assert done.all()


# --- The table. --------------------------------------------------------------------------------


def test_solve_class_counts_wins_and_margins_from_the_solver():
    row = solve_class(TINY, 5, 50_000_000)
    assert row.boards == 5 and row.left_out is None and row.nodes > 0
    direct = [margin(pv.fish.solve(TINY.game(s).new_state()).scores, 0) for s in range(5)]
    assert sorted(row.margins.elements()) == sorted(direct)
    w, d, lost = row.wins
    assert (w, d, lost) == (
        sum(m > (0, 0) for m in direct),
        sum(m == (0, 0) for m in direct),
        sum(m < (0, 0) for m in direct),
    )
    stopped = solve_class(solved.board_class("fish-mini-4x5"), 3, 1000)
    assert stopped.boards == 0 and "too large" in (stopped.left_out or "")


def test_perfect_play_scores_the_perfect_player_perfect():
    rows = perfect_play(TINY, 2, [("solve", None), ("random", None)])
    perfect, random_row = rows
    assert perfect.decisions > 0 and perfect.optimal == perfect.kept == perfect.decisions
    assert perfect.fish_lost == 0 and perfect.lost_per_game == 0
    assert random_row.games == 2
    assert 0 <= random_row.optimal <= random_row.kept <= random_row.decisions
    assert random_row.fish_lost >= 0


def test_value_map_labels_every_placement_with_its_value():
    state = TINY.game(0).new_state()
    values = move_values(state)
    picture = value_map(state, values)
    assert picture.startswith("<svg")
    labels = re.findall(r'<text[^>]*class="value"[^>]*>([^<]*)</text>', picture)
    expected = sorted(
        f"{values.values[m.action][0]:+d}" if values.values[m.action][0] else "0"
        for m in state.legal_moves()
    )
    assert sorted(labels) == expected
    assert picture.count('class="optimal"') == len(values.best)


def test_write_table_writes_the_page_and_its_picture(tmp_path):
    out, img = tmp_path / "solved.md", tmp_path / "img" / "map.svg"
    page = write_table(
        out=str(out),
        img=str(img),
        boards={TINY.name: 3},
        play_games=2,
        players=[("greedy", None), ("solve", None)],
        classes=[TINY],
        quiet=True,
    )
    assert out.read_text() == page and img.read_text().startswith("<svg")
    assert "](img/map.svg)" in page
    row = next(line for line in page.splitlines() if line.startswith("| `tiny-3x3`"))
    assert "| 3 |" in row
    assert re.search(r"\| solve \| 2 \| \d+ \| 100% \| 100% \| 0.00 \|", page)
    assert "Machine: " in page and "pingvinas solve --table" in page
    # What was measured apart is a record of its own page, not this command's.
    assert "## Standard-board endgames" not in page
