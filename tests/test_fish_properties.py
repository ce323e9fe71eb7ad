"""Property tests (hypothesis) for the Fish state API.

States are reached by random games: a game (standard board with 2-4 players,
a bundled variant, or a small custom board with random rules), a seed, and a
list of choices picking the moves played. On such states:

* legal actions and legal moves are one and the same list (a bijection);
* move notation round-trips through ``str`` and ``parse_move``/``play``;
* JSON and pickle round-trip (equality, hash, legal moves, same future);
* a rejected move (random ints, random strings, moves of another position)
  raises and leaves the state exactly as it was.
"""

import copy
import pickle

import numpy as np
import pingvinas as pv

from fish_reference import step
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _cell(cell):
    return None if cell is None else tuple(cell)


def _key(move):
    return (_cell(move.src), _cell(move.dst))


@st.composite
def custom_boards(draw, max_rows=6, max_cols=6):
    rows = draw(st.integers(1, max_rows))
    cols = draw(st.integers(1, max_cols))
    cells = draw(st.lists(st.integers(0, 4), min_size=rows * cols, max_size=rows * cols))
    board = [cells[r * cols:(r + 1) * cols] for r in range(rows)]
    if not any(cells):
        board[0][0] = 1
    return board


@st.composite
def games(draw):
    kind = draw(st.sampled_from(["standard", "variant", "custom"]))
    if kind == "standard":
        return pv.Fish(players=draw(st.integers(2, 4)))
    if kind == "variant":
        return pv.Fish.variant(draw(st.sampled_from(["fish", "fish-3p", "fish-4p", "fish-snake-any"])))
    return pv.Fish(
        players=draw(st.integers(2, 4)),
        penguins=draw(st.integers(1, 4)),
        board=draw(custom_boards()),
        placement=draw(st.sampled_from(["one-fish", "any"])),
        order=draw(st.sampled_from(["round-robin", "snake"])),
    )


def play_random(state, choices):
    for choice in choices:
        if state.is_over:
            break
        moves = state.legal_moves()
        state.play(moves[choice % len(moves)])
    return state


@st.composite
def game_states(draw, game=None):
    """A state somewhere in a random game (possibly at its start or its end)."""
    if game is None:
        game = draw(games())
    state = game.new_state(seed=draw(st.integers(0, 2**32 - 1)))
    choices = draw(st.lists(st.integers(0, 2**16), max_size=80))
    return play_random(state, choices)


def _snapshot(state):
    return state.to_json(), [_key(m) for m in state.legal_moves()], state.copy()


def _assert_unchanged(state, snap):
    text, moves, twin = snap
    assert state.to_json() == text
    assert [_key(m) for m in state.legal_moves()] == moves
    assert state == twin


# --------------------------------------------------------------------------- actions and moves


@SETTINGS
@given(game_states())
def test_actions_and_moves_are_a_bijection(state):
    moves = state.legal_moves()
    actions = state.legal_actions()
    assert [m.action for m in moves] == actions
    assert actions == sorted(set(actions))
    assert all(0 <= a < state.num_actions for a in actions)
    assert len({_key(m) for m in moves}) == len(moves)
    assert len(set(moves)) == len(moves)
    assert len({str(m) for m in moves}) == len(moves)
    mask = state.legal_action_mask()
    assert mask.shape == (state.num_actions,)
    assert mask.dtype == np.bool_
    assert np.flatnonzero(mask).tolist() == actions
    assert (len(moves) == 0) == state.is_over
    for m in moves:
        by_action = state.after(m.action)
        by_move = state.after(m)
        assert by_action == by_move
        assert by_action.to_json() == by_move.to_json()
        if state.phase == "placement":
            assert m.src is None
        else:
            assert m.src is not None and _cell(m.src) in [tuple(c) for c in state.penguins[state.to_move]]


@SETTINGS
@given(game_states())
def test_distinct_moves_lead_to_distinct_states(state):
    children = [state.after(m) for m in state.legal_moves()]
    assert len({c.to_json() for c in children}) == len(children)
    assert len(set(children)) == len(children)  # hash and == agree with to_json


@SETTINGS
@given(game_states())
def test_notation_round_trip(state):
    for m in state.legal_moves():
        text = str(m)
        parsed = state.parse_move(text)
        assert parsed == m
        assert parsed.action == m.action
        assert _key(parsed) == _key(m)
        assert state.after(text) == state.after(m)
        if m.src is None:
            assert "-" not in text
        else:
            assert text.count("-") == 1


# --------------------------------------------------------------------------- serialisation


@SETTINGS
@given(game_states(), st.lists(st.integers(0, 2**16), max_size=30))
def test_json_round_trip(state, future):
    text = state.to_json()
    twin = pv.FishState.from_json(text)
    assert twin == state
    assert hash(twin) == hash(state)
    assert twin.to_json() == text
    assert [_key(m) for m in twin.legal_moves()] == [_key(m) for m in state.legal_moves()]
    assert twin.legal_actions() == state.legal_actions()
    assert (twin.to_move, twin.phase, twin.scores, twin.penguins) == (
        state.to_move, state.phase, state.scores, state.penguins
    )
    assert np.array_equal(twin.board, state.board)
    # the same future from both
    play_random(twin, future)
    play_random(state, future)
    assert twin == state
    assert twin.to_json() == state.to_json()


@SETTINGS
@given(game_states(), st.lists(st.integers(0, 2**16), max_size=30))
def test_pickle_and_copy_round_trip(state, future):
    for twin in (pickle.loads(pickle.dumps(state)), copy.copy(state), copy.deepcopy(state), state.clone()):
        assert twin == state
        assert hash(twin) == hash(state)
        assert twin.legal_actions() == state.legal_actions()
        assert twin.scores == state.scores
        assert twin.ranking() == state.ranking()
        assert twin.returns() == state.returns()
    twin = pickle.loads(pickle.dumps(state))
    play_random(twin, future)
    before = state.to_json()
    play_random(state.copy(), future)
    assert state.to_json() == before  # copies are independent
    play_random(state, future)
    assert twin == state


# --------------------------------------------------------------------------- rejected moves


def _denotes_a_move(state, action):
    """Whether an action number names a placement or a slide that stays on the grid (README,
    "Actions"), legal or not."""
    rows, cols = state.board.shape
    n, span = rows * cols, max(rows, cols) - 1
    if not 0 <= action < state.num_actions:
        return False
    if action < n:
        return True
    cell, k = divmod(action - n, span)
    (r, c), d = divmod(cell // 6, cols), cell % 6
    for _ in range(k + 1):
        r, c = step((r, c), d)
    return 0 <= r < rows and 0 <= c < cols


@SETTINGS
@given(game_states(), st.data())
def test_rejected_int_changes_nothing(state, data):
    legal = set(state.legal_actions())
    action = data.draw(
        st.one_of(
            st.integers(0, state.num_actions + 10),
            st.integers(-(2**70), 2**70),
            st.sampled_from([-1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64]),
        )
    )
    assume(action not in legal)
    snap = _snapshot(state)
    # In the action space a move the rules forbid is illegal; a number that denotes no move
    # (outside the space, or a slide off the board) is invalid.
    denotes_a_move = _denotes_a_move(state, action)
    expected = pv.IllegalMoveError if denotes_a_move else pv.InvalidMoveError
    with pytest.raises(expected):
        state.play(action)
    _assert_unchanged(state, snap)
    with pytest.raises(expected):
        state.apply_action(action)
    _assert_unchanged(state, snap)
    with pytest.raises((ValueError, OverflowError)):
        state.after(action)
    _assert_unchanged(state, snap)


NOTATION_LIKE = st.from_regex(r"[a-m][0-9]{1,2}(-[a-m][0-9]{1,2})?", fullmatch=True)


@SETTINGS
@given(game_states(), st.one_of(st.text(max_size=12), NOTATION_LIKE))
def test_rejected_string_changes_nothing(state, text):
    snap = _snapshot(state)
    children = {c.to_json() for c in (state.after(m) for m in state.legal_moves())}
    try:
        state.play(text)
    except ValueError:
        _assert_unchanged(state, snap)
        with pytest.raises(ValueError):
            state.parse_move(text)
        _assert_unchanged(state, snap)
    else:
        # accepted: then it was one of the legal moves
        assert state.to_json() in children


@SETTINGS
@given(st.data())
def test_moves_of_another_position_change_nothing(data):
    game = data.draw(games())
    state = data.draw(game_states(game))
    other = data.draw(game_states(game))
    legal = {_key(m) for m in state.legal_moves()}
    foreign = [m for m in other.legal_moves() if _key(m) not in legal]
    assume(foreign)
    snap = _snapshot(state)
    for m in foreign[:20]:
        with pytest.raises(pv.IllegalMoveError):
            state.play(m)
        _assert_unchanged(state, snap)
