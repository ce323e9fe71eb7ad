"""Property tests (hypothesis) of the Marathon Python API on reachable and hand-built positions:
action <-> move bijection, notation round trip, JSON / pickle / copy round trips, and a rejected
move leaving the state unchanged."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import marathon_reference as ref

pv = pytest.importorskip("pingvinas")
if not hasattr(pv, "Marathon"):  # pragma: no cover - only before the engine is built
    pytest.skip("pingvinas.Marathon is not built yet", allow_module_level=True)

COURSES = ["marathon", "marathon-5", "marathon-l", "marathon-zigzag"]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_GAMES = {}


def game_for(course, players, ply_limit=500):
    key = (course, players, ply_limit)
    if key not in _GAMES:
        _GAMES[key] = pv.Marathon(players=players, course=course, ply_limit=ply_limit)
    return _GAMES[key]


@st.composite
def played_states(draw):
    """A state reached by random play (possibly over) on a random course and player count."""
    course = draw(st.sampled_from(COURSES))
    players = draw(st.integers(2, 5))
    ply_limit = draw(st.sampled_from([500, 500, 500, 30, 3]))
    state = game_for(course, players, ply_limit).new_state()
    choices = draw(st.lists(st.integers(0, 10**6), max_size=120))
    for c in choices:
        if state.is_over:
            break
        moves = state.legal_moves()
        state.play(moves[c % len(moves)])
    return state


@st.composite
def built_states(draw):
    """A position built with ``game.position`` from random (valid) pieces."""
    course = draw(st.sampled_from(COURSES))
    players = draw(st.integers(2, 5))
    cells = sorted(ref.COURSES[course].cells)
    pieces = []
    used = set()
    for o in range(players):
        for k in ref.KINDS:
            status = draw(st.sampled_from([ref.WAITING, ref.ON_COURSE, ref.ON_COURSE, ref.FINISHED]))
            if status == ref.ON_COURSE:
                cell = draw(st.sampled_from(cells))
                if cell in used:
                    status, cell = ref.WAITING, None
                else:
                    used.add(cell)
                facing = draw(st.sampled_from([None, *ref.DIR_NAMES])) if cell else None
                pieces.append((o, k, status, cell, facing))
            else:
                pieces.append((o, k, status, None, None))
    # Nobody may have finished all three already.
    for o in range(players):
        if all(p[2] == ref.FINISHED for p in pieces if p[0] == o):
            i = next(i for i, p in enumerate(pieces) if p[0] == o)
            pieces[i] = (o, pieces[i][1], ref.WAITING, None, None)
    to_move = draw(st.integers(0, players - 1))
    ply = draw(st.integers(0, 400))
    game = game_for(course, players)
    model = ref.Marathon(course, players)
    expected = model.position(ref.sort_pieces(pieces), to_move, ply)
    state = game.position(
        pieces=[{"owner": o, "kind": k, "status": s, "cell": c, "facing": f} for o, k, s, c, f in pieces],
        to_move=to_move,
        ply=ply,
    )
    return state, expected, model


any_state = st.one_of(played_states(), built_states().map(lambda t: t[0]))


def snapshot(state):
    return (state.to_json(), ref.canon_pieces(state.pieces), state.to_move, state.ply, state.is_over)


# --------------------------------------------------------------------------- bijection


@SETTINGS
@given(any_state)
def test_actions_and_moves_are_a_bijection(state):
    moves = state.legal_moves()
    actions = state.legal_actions()
    assert [m.action for m in moves] == list(actions)
    assert list(actions) == sorted(set(actions)), "legal actions must be ascending and distinct"
    n = state.num_actions
    assert all(0 <= a < n for a in actions)
    mask = np.asarray(state.legal_action_mask())
    assert mask.shape == (n,)
    assert set(np.flatnonzero(mask).tolist()) == set(actions)
    assert state.is_over == (len(moves) == 0)
    before = {(p.owner, p.kind): p for p in state.pieces}
    keys = set()
    for m in moves:
        by_move = state.after(m)
        by_action = state.after(m.action)
        assert by_move == by_action
        copy = state.copy()
        copy.apply_action(m.action)
        assert copy == by_move
        assert by_move.ply == state.ply + 1
        keys.add((ref.canon_pieces(by_move.pieces), by_move.to_move))
        # The move describes what it does: the moving piece's state after it, and nothing else
        # changes.
        assert m.player == state.to_move
        assert m.kind == m.piece and m.kind in ref.KINDS
        after = {(p.owner, p.kind): p for p in by_move.pieces}
        moved = after[(m.player, m.kind)]
        old = before[(m.player, m.kind)]
        assert {k for k in after if after[k] != before[k]} == {(m.player, m.kind)}
        assert moved.cell == m.dst and moved.facing == m.facing
        assert (moved.status == "finished") == m.finishes
        assert m.is_entry == (old.status == "waiting") == (m.type == "enter")
        assert m.is_stand == (m.direction is None) == (m.type == "stand")
        if m.is_stand:
            assert old.facing is not None and moved.cell == old.cell and moved.facing is None
        else:
            assert m.direction in ref.DIR_NAMES
            assert m.src == old.cell
            if old.facing is not None:
                assert m.direction == old.facing  # a lying piece slides where it points
    assert len(keys) == len(moves), "two moves reach the same position"


@SETTINGS
@given(built_states())
def test_built_positions_agree_with_the_reference(pair):
    """``game.position`` and the legal moves from it, against the reference model."""
    state, expected, model = pair
    assert ref.canon_pieces(state.pieces) == expected.pieces
    assert state.is_over == expected.over
    assert state.ply == expected.ply
    if not expected.over:
        assert state.to_move == expected.to_move
    children = [state.after(m) for m in state.legal_moves()]
    got = [(ref.canon_pieces(c.pieces), None if c.is_over else c.to_move) for c in children]
    assert len(set(got)) == len(got), "two moves reach the same position"
    assert set(got) == set(model.successors(expected))


# --------------------------------------------------------------------------- notation


@SETTINGS
@given(any_state)
def test_notation_round_trip(state):
    for m in state.legal_moves():
        text = str(m)
        assert isinstance(text, str) and text
        assert state.parse_move(text) == m
        assert state.parse_move(text.lower()) == m
        assert state.after(text) == state.after(m)


# --------------------------------------------------------------------------- serialisation


@SETTINGS
@given(any_state)
def test_json_round_trip(state):
    text = state.to_json()
    json.loads(text)  # valid JSON
    back = pv.MarathonState.from_json(text)
    assert back == state
    assert hash(back) == hash(state)
    assert back.to_json() == text
    assert [str(m) for m in back.legal_moves()] == [str(m) for m in state.legal_moves()]
    assert back.legal_actions() == state.legal_actions()
    assert str(back) == str(state)


@SETTINGS
@given(any_state)
def test_pickle_and_copy_round_trip(state):
    back = pickle.loads(pickle.dumps(state))
    assert back == state and hash(back) == hash(state)
    assert back.to_json() == state.to_json()
    assert back.legal_actions() == state.legal_actions()
    twin = state.copy()
    assert twin == state
    if not state.is_over:
        twin.play(twin.legal_moves()[0])
        assert twin != state  # the copy is independent
        assert state == back


# --------------------------------------------------------------------------- rejected moves


@SETTINGS
@given(any_state, st.data())
def test_a_rejected_move_leaves_the_state_unchanged(state, data):
    before = snapshot(state)
    legal = set(state.legal_actions())
    n = state.num_actions
    illegal = [a for a in range(n) if a not in legal]
    bad = data.draw(
        st.one_of(
            st.sampled_from(illegal) if illegal else st.just(-1),
            st.integers(n, n + 10**6),
            st.integers(-(10**6), -1),
        )
    )
    with pytest.raises(ValueError):
        state.apply_action(bad)
    assert snapshot(state) == before
    with pytest.raises(ValueError):
        state.play(bad)
    assert snapshot(state) == before
    text = data.draw(st.sampled_from(["", "X 0,0 N", "M 99,99 S", "B 0,1 S 3,1 SE extra", "P stand"]))
    with pytest.raises(ValueError):
        state.play(text)
    assert snapshot(state) == before


KINDS = {"mama": 0, "papa": 1, "baby": 2}
FACINGS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]


@SETTINGS
@given(any_state, st.integers(0, 4))
def test_observation_tensor_shows_every_piece_from_the_players_view(state, me):
    n = len(state.returns())
    me %= n
    planes = state.observation_tensor(me)
    assert planes.dtype == np.float32 and planes.shape[0] == 11 + 10 * n
    facing, status = 1 + 3 * n, 10 + 3 * n
    ply_plane, to_move = 10 + 9 * n, 11 + 9 * n
    assert np.allclose(planes[ply_plane], state.ply / state.game.ply_limit)
    for seat in range(n):
        assert planes[to_move + seat].all() == (state.to_move == (me + seat) % n)
    planes = planes[:ply_plane]
    assert set(np.unique(planes)) <= {0.0, 1.0}
    on_course = 0
    for p in state.pieces:
        index = 3 * ((p.owner - me) % n) + KINDS[p.kind]
        waiting, finished = planes[status + 2 * index], planes[status + 2 * index + 1]
        assert waiting.all() == (p.status == "waiting") and finished.all() == (p.status == "finished")
        assert waiting.any() == waiting.all() and finished.any() == finished.all()
        if p.status == "on course":
            on_course += 1
            r, c = p.cell
            assert planes[0, r, c] == 1 and planes[1 + index].sum() == 1 and planes[1 + index, r, c] == 1
            assert planes[facing + (8 if p.facing is None else FACINGS.index(p.facing)), r, c] == 1
        else:
            assert planes[1 + index].sum() == 0
    # Pieces only stand on course cells, and each once in the facing planes.
    assert planes[1:facing].sum() == on_course == planes[facing:status].sum()
    assert (planes[1:status].sum(axis=0) <= 2 * planes[0]).all()
    # The default view is the player to move's.
    if state.to_move is not None:
        assert np.array_equal(state.observation_tensor(), state.observation_tensor(state.to_move))
    with pytest.raises(ValueError):
        state.observation_tensor(n)
