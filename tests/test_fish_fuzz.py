"""Fuzz the Fish entry points that take untrusted input.

Random bytes and random structures go into ``pv.FishState.from_json``,
``pv.Fish.from_config`` (a dict, or the path of a file of random bytes),
``pv.Fish(...)``, ``game.position(...)`` and ``state.play(...)``. Whatever
the input, the engine must either accept it (and then give a state or game
that works) or raise one of these clean Python exceptions:

* ``ValueError`` (this includes ``pv.IllegalMoveError``, ``json`` and TOML
  errors, and ``UnicodeError`` for text that is not valid UTF-8),
* ``TypeError`` (a value of the wrong type),
* ``OverflowError`` (an int that does not fit the engine's integer types),
* ``KeyError`` (a missing key),
* and, for ``from_config`` given a string or path, ``OSError`` (no such file).

Anything else fails the test: a Rust panic (``pyo3_runtime.PanicException``,
a ``BaseException``), ``SystemError``, ``RecursionError``, ``MemoryError``,
``AttributeError``, or a crash. A watchdog (``faulthandler``) aborts the run
with a traceback if a single test hangs.
"""

import faulthandler
import json
import os
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pingvinas as pv

CLEAN = (ValueError, TypeError, OverflowError, KeyError)
CLEAN_PATH = CLEAN + (OSError,)
WATCHDOG_SECONDS = 300

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(autouse=True)
def watchdog():
    faulthandler.dump_traceback_later(WATCHDOG_SECONDS, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


BOUNDARY_INTS = st.sampled_from(
    [
        0,
        1,
        2,
        3,
        4,
        5,
        7,
        8,
        10,
        255,
        256,
        2**16,
        2**31 - 1,
        2**31,
        2**32,
        2**63 - 1,
        2**63,
        2**64,
        2**100,
        -1,
        -2,
        -(2**31),
        -(2**63),
        -(2**64),
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-10, 300),
    BOUNDARY_INTS,
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(
        ["fish", "marathon", "one-fish", "any", "snake", "round-robin", "a1", "b2-c2", ""]
    ),
)
STRUCTURES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=6),
        st.dictionaries(st.text(max_size=10), children, max_size=6),
        st.tuples(children, children),
    ),
    max_leaves=30,
)
JSONABLE = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-10, 300),
        BOUNDARY_INTS,
        st.floats(allow_nan=False),
        st.text(max_size=12),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=6), st.dictionaries(st.text(max_size=10), children, max_size=6)
    ),
    max_leaves=30,
)
CONFIG_KEYS = ["game", "players", "penguins", "placement", "order", "board", "name", "rows", "cols"]


def exercise_state(state, moves=200):
    """Use a state the engine accepted: everything must work or fail cleanly."""
    str(state)
    repr(state)
    _ = (state.board, state.penguins, state.scores)
    state.ranking()
    state.returns()
    state.legal_action_mask()
    assert state.legal_actions() == [m.action for m in state.legal_moves()]
    text = state.to_json()
    assert pv.FishState.from_json(text) == state
    for _ in range(moves):
        if state.is_over:
            break
        legal = state.legal_moves()
        assert legal, "the player to move always has a legal move"
        state.play(legal[len(legal) // 2])
    return state


def exercise_game(game):
    assert game.players in (2, 3, 4)
    exercise_state(game.new_state(seed=1))


def _valid_states():
    states = []
    for players in (2, 3, 4):
        state = pv.Fish(players=players).new_state(seed=players)
        for i in range(3 * players):
            states.append(state.to_json())
            moves = state.legal_moves()
            state.play(moves[i % len(moves)])
        while not state.is_over and len(states) < 40 * players:
            states.append(state.to_json())
            moves = state.legal_moves()
            state.play(moves[len(moves) // 3])
        states.append(state.to_json())
    small = pv.Fish(
        players=3, penguins=2, board=[[1, 2, 0], [1, 1, 3]], placement="any", order="snake"
    )
    states.append(small.new_state(seed=0).to_json())
    return states


VALID_STATES = _valid_states()


@st.composite
def mutated(draw, document):
    """``document`` (parsed JSON) with a few random nodes replaced or removed."""
    data = json.loads(json.dumps(document))
    for _ in range(draw(st.integers(1, 3))):
        node = data
        path = []
        while isinstance(node, (dict, list)) and node and draw(st.booleans()):
            key = draw(
                st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node)))
            )
            path.append((node, key))
            node = node[key]
        if not path:
            continue
        parent, key = path[-1]
        action = draw(st.sampled_from(["replace", "bump", "delete", "scalar"]))
        if action == "delete":
            del parent[key]
        elif action == "bump" and isinstance(node, int) and not isinstance(node, bool):
            parent[key] = node + draw(
                st.sampled_from([-(2**64), -256, -2, -1, 1, 2, 7, 256, 2**64])
            )
        elif action == "scalar":
            parent[key] = draw(
                st.one_of(BOUNDARY_INTS, st.none(), st.text(max_size=4), st.booleans())
            )
        else:
            parent[key] = draw(JSONABLE)
    return data


# --------------------------------------------------------------------------- FishState.from_json


@SETTINGS
@given(st.binary(max_size=300))
def test_from_json_random_bytes(raw):
    for text in (raw.decode("latin-1"), raw.decode("utf-8", errors="surrogateescape")):
        try:
            state = pv.FishState.from_json(text)
        except CLEAN:
            continue
        exercise_state(state)


@SETTINGS
@given(JSONABLE)
def test_from_json_random_structures(data):
    try:
        state = pv.FishState.from_json(json.dumps(data))
    except CLEAN:
        return
    exercise_state(state)


@SETTINGS
@given(st.data())
def test_from_json_mutated_states(data):
    document = json.loads(data.draw(st.sampled_from(VALID_STATES)))
    broken = data.draw(mutated(document))
    try:
        state = pv.FishState.from_json(json.dumps(broken))
    except CLEAN:
        return
    exercise_state(state)


@SETTINGS
@given(STRUCTURES)
def test_from_json_wrong_types(value):
    try:
        state = pv.FishState.from_json(value)
    except CLEAN:
        return
    exercise_state(state)


@pytest.mark.parametrize("depth", [10, 1000, 100000])
def test_from_json_deep_nesting(depth):
    for text in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth, "[" * depth):
        with pytest.raises(ValueError):
            pv.FishState.from_json(text)


# --------------------------------------------------------------------------- Fish.from_config


@pytest.mark.slow
@SETTINGS
@given(STRUCTURES)
def test_from_config_random_structures(config):
    try:
        game = pv.Fish.from_config(config)
    except CLEAN_PATH:
        return
    exercise_game(game)


@pytest.mark.slow
@SETTINGS
@given(st.dictionaries(st.sampled_from(CONFIG_KEYS), STRUCTURES, max_size=5))
def test_from_config_random_fish_configs(config):
    config = {**config, "game": "fish"}
    try:
        game = pv.Fish.from_config(config)
    except CLEAN:
        return
    exercise_game(game)


@st.composite
def plausible_configs(draw):
    """Mostly well-formed configs, with now and then a wrong value."""
    odd = st.sampled_from([False] * 9 + [True])  # one time in 10
    config = {"game": "fish"}
    if draw(st.booleans()):
        config["players"] = draw(
            st.one_of(st.integers(0, 6), BOUNDARY_INTS) if draw(odd) else st.integers(2, 4)
        )
    if draw(st.booleans()):
        config["penguins"] = draw(
            st.one_of(st.integers(0, 9), BOUNDARY_INTS) if draw(odd) else st.integers(1, 4)
        )
    if draw(st.booleans()):
        wrong = ["ANY", "", "two-fish", None, 1]
        config["placement"] = draw(st.sampled_from(wrong if draw(odd) else ["one-fish", "any"]))
    if draw(st.booleans()):
        wrong = ["Snake", "", "round_robin", None, 0]
        config["order"] = draw(st.sampled_from(wrong if draw(odd) else ["round-robin", "snake"]))
    if draw(st.booleans()):
        rows = draw(st.integers(0, 12) if draw(odd) else st.integers(1, 10))
        cols = draw(st.integers(0, 12) if draw(odd) else st.integers(1, 10))
        cell = st.one_of(st.integers(0, 4), BOUNDARY_INTS) if draw(odd) else st.integers(0, 4)
        board = draw(
            st.lists(st.lists(cell, min_size=cols, max_size=cols), min_size=rows, max_size=rows)
        )
        if board and draw(odd):
            board[-1] = board[-1][:-1]
        config["board"] = board
    if draw(odd):
        config[draw(st.sampled_from(CONFIG_KEYS + ["extra"]))] = draw(STRUCTURES)
    return config


@SETTINGS
@given(plausible_configs())
def test_from_config_plausible_configs(config):
    try:
        game = pv.Fish.from_config(config)
    except CLEAN:
        return
    exercise_game(game)


def _write(raw, suffix=".toml"):
    fd, path = tempfile.mkstemp(suffix=suffix)
    with os.fdopen(fd, "wb") as f:
        f.write(raw)
    return path


@SETTINGS
@given(
    st.one_of(
        st.binary(max_size=300),
        st.text(max_size=300).map(lambda t: t.encode("utf-8")),
        st.lists(
            st.sampled_from(
                [
                    b'game = "fish"\n',
                    b"players = 3\n",
                    b"penguins = -1\n",
                    b"board = [[1, 2], [3]]\n",
                    b'order = "snake"\n',
                    b"[game]\n",
                    b"players = 99999999999999999999999\n",
                    b"\x00",
                    b'placement = "any"\n',
                    b"board = [[1, 0], [0, 1]]\n",
                    b"players = 2.5\n",
                ]
            ),
            max_size=6,
        ).map(b"".join),
    )
)
def test_from_config_file_of_random_bytes(raw):
    path = _write(raw)
    try:
        try:
            game = pv.Fish.from_config(path)
        except CLEAN:
            return
        exercise_game(game)
    finally:
        os.unlink(path)


def test_from_config_missing_file(tmp_path):
    with pytest.raises(CLEAN_PATH):
        pv.Fish.from_config(str(tmp_path / "nope.toml"))
    with pytest.raises(CLEAN_PATH):
        pv.Fish.from_config(str(tmp_path))  # a directory


# ------------------------------------------------------------------- Fish(...) and game.position


@pytest.mark.slow
@SETTINGS
@given(
    st.dictionaries(
        st.sampled_from(["players", "penguins", "board", "placement", "order"]),
        STRUCTURES,
        max_size=5,
    )
)
def test_fish_constructor_random_arguments(kwargs):
    try:
        game = pv.Fish(**kwargs)
    except CLEAN:
        return
    exercise_game(game)


@pytest.mark.slow
@SETTINGS
@given(STRUCTURES, STRUCTURES, STRUCTURES)
def test_position_random_structures(board, penguins, to_move):
    game = pv.Fish(players=2)
    try:
        state = game.position(board=board, penguins=penguins, to_move=to_move)
    except CLEAN:
        return
    exercise_state(state)


@st.composite
def plausible_positions(draw):
    """Mostly well-formed positions, with now and then one thing wrong."""
    players = draw(st.integers(2, 4))
    limit = {2: 4, 3: 3, 4: 2}[players]
    rows = draw(st.integers(1, 11))
    cols = draw(st.integers(1, 11))
    odd = st.sampled_from([False] * 9 + [True])  # one time in 10
    cell_value = st.one_of(st.integers(0, 4), BOUNDARY_INTS) if draw(odd) else st.integers(0, 4)
    board = draw(
        st.lists(st.lists(cell_value, min_size=cols, max_size=cols), min_size=rows, max_size=rows)
    )
    if draw(odd):
        board[-1] = board[-1][:-1]  # ragged, or an empty row
    if draw(odd):
        board = []
    floes = [(r, c) for r, row in enumerate(board) for c, n in enumerate(row) if n]
    if floes and not draw(odd):
        cells = draw(st.lists(st.sampled_from(floes), unique=True, max_size=players * limit))
        penguins = [cells[i::players] for i in range(players)]
    else:
        coord = st.one_of(st.integers(-1, 12), BOUNDARY_INTS)
        lists = draw(st.sampled_from([players - 1, players, players + 1]))
        penguins = draw(
            st.lists(st.lists(st.tuples(coord, coord), max_size=5), min_size=lists, max_size=lists)
        )
    to_move = (
        draw(st.one_of(st.integers(-1, 5), BOUNDARY_INTS))
        if draw(odd)
        else draw(st.integers(0, players - 1))
    )
    return players, board, penguins, to_move


@SETTINGS
@given(plausible_positions())
def test_position_plausible_inputs(args):
    players, board, penguins, to_move = args
    game = pv.Fish(players=players)
    try:
        state = game.position(board=board, penguins=penguins, to_move=to_move)
    except CLEAN:
        return
    exercise_state(state)


# --------------------------------------------------------------------------- state.play


@pytest.mark.slow
@SETTINGS
@given(st.sampled_from(VALID_STATES), st.lists(STRUCTURES, max_size=5))
def test_play_random_structures(text, inputs):
    state = pv.FishState.from_json(text)
    for value in inputs:
        before = state.to_json()
        try:
            state.play(value)
        except CLEAN:
            assert state.to_json() == before
    exercise_state(state)
