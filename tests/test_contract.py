"""The shared contract of both games, on every bundled variant (``pv.variants()``).

In the spirit of OpenSpiel's ``basic_tests``: seeded random games in which every legal action
applies; the mask, the action list and the move list agree; JSON, pickle, copy and deepcopy
round-trip; ``after`` leaves the original alone; returns are zeros before the end and zero-sum
at it, agreeing with the ranking; rejected moves raise the documented error and change nothing;
observations have the declared shape; games have a length bound; states know their game; games
are value objects. The checks themselves live in ``contract.py`` (the rules modules reuse them on
custom games and hand-built positions).
"""

from __future__ import annotations

import copy
import functools
import pickle
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

import contract as c
import pingvinas as pv

VARIANTS = pv.variants()
# Hypothesis draws the seeds (the board's and the one choosing the moves); no shrinking: a seed
# does not shrink into a simpler game, and the failing seeds are printed as they were found.
SETTINGS = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
#: Chance that a ply gets the heavier checks (children, round trips): about 6 per game.
HEAVY = {"fish": 0.1, "marathon": 0.02}

seeds = st.integers(0, 2**32 - 1)


@functools.cache
def load(name):
    return pv.load_game(name)


def kind(game):
    return "fish" if isinstance(game, pv.Fish) else "marathon"


def random_state(game, seed, play_seed, rng=None):
    """A state somewhere in a seeded random game (its start and its end included)."""
    rng = random.Random(play_seed) if rng is None else rng
    state = game.new_state(seed=seed)
    r = rng.random()
    plies = 0 if r < 0.1 else 10**9 if r > 0.8 else rng.randrange(game_length_guess(game))
    return c.play_random(state, rng, plies)


def game_length_guess(game):
    return 80 if isinstance(game, pv.Fish) else 400


def test_every_game_has_bundled_variants():
    # A game that is missing must fail here, not skip somewhere else.
    assert any(isinstance(load(n), pv.Fish) for n in VARIANTS)
    assert any(isinstance(load(n), pv.Marathon) for n in VARIANTS)
    assert len(set(VARIANTS)) == len(VARIANTS)


# --------------------------------------------------------------------------- random games


@pytest.mark.parametrize("name", VARIANTS)
@settings(SETTINGS, max_examples=30)
@given(seed=seeds, play_seed=seeds)
def test_random_games(name, seed, play_seed):
    game, rng = load(name), random.Random(play_seed)
    state = game.new_state(seed=seed)
    assert state.num_actions == game.num_actions and state.players == game.players
    assert not state.is_over
    heavy = HEAVY[kind(game)]
    while True:
        c.check_actions(state)
        if state.is_over:
            break
        if rng.random() < heavy:
            c.check_children(state)
            c.check_round_trips(state)
            c.check_same_future(state, random.Random(seed), random.Random(seed))
        moves = state.legal_moves()
        state.play(moves[rng.randrange(len(moves))])
    c.check_terminal(state)
    c.check_round_trips(state)


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(seed=seeds, play_seed=seeds)
def test_max_game_length_bounds_the_plies(name, seed, play_seed):
    rng = random.Random(play_seed)
    game = load(name)
    limit = game.max_game_length
    assert type(limit) is int and limit > 0
    state = game.new_state(seed=seed)
    plies = 0
    while not state.is_over:
        state.play(state.legal_actions()[rng.randrange(len(state.legal_actions()))])
        plies += 1
        assert plies <= limit
    assert state.returns() != [] and plies <= limit


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(seed=seeds, play_seed=seeds)
def test_observation_shape_is_declared(name, seed, play_seed):
    game = load(name)
    c.check_observation(random_state(game, seed, play_seed), game)


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(seed=seeds, play_seed=seeds)
def test_states_know_their_game(name, seed, play_seed):
    game = load(name)
    c.check_knows_its_game(random_state(game, seed, play_seed), game)


@pytest.mark.parametrize("name", VARIANTS)
def test_same_seed_same_game(name):
    game = load(name)
    a, b = game.new_state(seed=5), game.new_state(seed=5)
    assert a == b and hash(a) == hash(b) and a.to_json() == b.to_json()
    c.play_random(a, random.Random(1))
    c.play_random(b, random.Random(1))
    assert a == b


# --------------------------------------------------------------------------- rejected moves


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(seed=seeds, play_seed=seeds, data=st.data())
def test_illegal_actions_raise_the_documented_error(name, seed, play_seed, data):
    # In the action space, a move the rules forbid is illegal; a number that names no move
    # (a Fish slide off the grid) is invalid.
    state = random_state(load(name), seed, play_seed)
    legal = set(state.legal_actions())
    illegal = [a for a in range(state.num_actions) if a not in legal]
    for action in data.draw(st.lists(st.sampled_from(illegal), min_size=1, max_size=8)):
        error = c.rejection_error(state, action)
        c.check_rejected(state, action, error)
        c.check_rejected(state, action, error, methods=("apply_action",))
        assert not state.is_legal(action)


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(seed=seeds, play_seed=seeds, data=st.data())
def test_out_of_range_actions_raise_invalid_move_error(name, seed, play_seed, data):
    state = random_state(load(name), seed, play_seed)
    n = state.num_actions
    bad = data.draw(
        st.lists(
            st.one_of(
                st.integers(n, n + 10**6),
                st.integers(-(10**6), -1),
                st.sampled_from([n, -1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64, 2**100, -(2**100)]),
            ),
            min_size=1,
            max_size=5,
        )
    )
    for action in bad:
        c.check_rejected(state, action, pv.InvalidMoveError)
        c.check_rejected(state, action, pv.InvalidMoveError, methods=("apply_action",))


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(seed=seeds, play_seed=seeds)
def test_wrong_types_raise_type_error(name, seed, play_seed):
    state = random_state(load(name), seed, play_seed)
    for bad in c.WRONG_TYPES:
        c.check_rejected(state, bad, TypeError)


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("flag", c.BOOLS)
def test_bools_are_not_actions(name, flag):
    state = load(name).new_state(seed=1)
    c.check_rejected(state, flag, TypeError)
    c.check_rejected(state, flag, TypeError, methods=("apply_action",))
    # is_legal answers for anything (False for what is not a legal move), and a bool is none,
    # even where action 0 or 1 is legal.
    assert state.is_legal(flag) is False


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(seed=seeds, play_seed=seeds)
def test_garbage_text_raises_invalid_move_error(name, seed, play_seed):
    state = random_state(load(name), seed, play_seed)
    for text in c.GARBAGE_TEXT:
        c.check_rejected(state, text, pv.InvalidMoveError)


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(seed=seeds, play_seed=seeds, text=st.text(max_size=24))
def test_random_text_is_a_legal_move_or_rejected(name, seed, play_seed, text):
    state = random_state(load(name), seed, play_seed)
    children = {child.to_json() for child in map(state.after, state.legal_actions())}
    snap = c.snapshot(state)
    try:
        move = state.parse_move(text)
    except ValueError as e:
        assert isinstance(e, (pv.IllegalMoveError, pv.InvalidMoveError)), type(e)
        c.check_rejected(state, text, type(e))
    else:
        c.assert_unchanged(state, snap)
        assert move.action in state.legal_actions()
        state.play(text)
        assert state.to_json() in children


@pytest.mark.parametrize("name", VARIANTS)
# On a small fixed board (fish-mini-*) two random positions often share their legal moves, so
# many examples are filtered out.
@settings(
    SETTINGS, suppress_health_check=[*SETTINGS.suppress_health_check, HealthCheck.filter_too_much]
)
@given(seed=seeds, other_seed=seeds, play_seed=seeds)
def test_moves_of_another_position_raise_illegal_move_error(name, seed, other_seed, play_seed):
    rng = random.Random(play_seed)
    game = load(name)
    state = random_state(game, seed, play_seed, rng)
    other = random_state(game, other_seed, play_seed, rng)
    legal = set(state.legal_actions())
    foreign = [m for m in other.legal_moves() if m.action not in legal]
    assume(foreign)
    for m in foreign[:10]:
        c.check_rejected(state, m, pv.IllegalMoveError)


@pytest.mark.parametrize("name", VARIANTS)
def test_moves_after_the_end_raise(name):
    state = c.play_random(load(name).new_state(seed=3), random.Random(3))
    assert state.is_over
    c.check_terminal(state)
    for action in range(0, state.num_actions, max(1, state.num_actions // 50)):
        c.check_rejected(state, action, c.rejection_error(state, action))


# --------------------------------------------------------------------------- games as values


@pytest.mark.parametrize("name", VARIANTS)
def test_games_are_value_objects(name):
    game = load(name)
    twins = [
        game,
        pv.load_game(name),
        type(game).variant(name),
        pickle.loads(pickle.dumps(game)),
        pickle.loads(pickle.dumps(game, protocol=pickle.HIGHEST_PROTOCOL)),
        copy.copy(game),
        copy.deepcopy(game),
    ]
    for twin in twins:
        assert type(twin) is type(game)
        assert twin == game and not (twin != game)
        assert hash(twin) == hash(game)
        assert twin.num_actions == game.num_actions and twin.players == game.players
        assert twin.new_state(seed=9) == game.new_state(seed=9)
    others = [load(n) for n in VARIANTS if n != name]
    assert all(o != game for o in others)
    assert len({hash(g) for g in [game, *others]}) == len(VARIANTS)


@pytest.mark.parametrize("name", VARIANTS)
def test_game_attributes(name):
    game = load(name)
    assert type(game.num_actions) is int and game.num_actions > 0
    assert type(game.players) is int and 2 <= game.players <= 5
    assert isinstance(game.observation_shape, tuple)
    assert type(game.max_game_length) is int and game.max_game_length > 0
    state = game.new_state(seed=0)
    assert state.legal_action_mask().shape == (game.num_actions,)
    assert state.observation_tensor().shape == game.observation_shape
    assert np.asarray(state.returns()).shape == (game.players,)
