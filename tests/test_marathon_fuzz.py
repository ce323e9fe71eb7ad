"""Fuzzing the Marathon entry points that take outside data: ``MarathonState.from_json``,
``Marathon.from_config`` (a dict, or a path to a file) and ``game.position``.

Whatever the input, the only acceptable outcomes are a result or a clean Python exception
(ValueError and its subclasses, TypeError, KeyError, OverflowError): never a Rust panic
(``pyo3_runtime.PanicException``, a BaseException), a SystemError, a crash or a hang. Whatever
is accepted must then behave (moves, text, JSON round trip) without panicking either.
"""

from __future__ import annotations

import contextlib
import faulthandler
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import marathon_reference as ref
import pingvinas as pv

CLEAN = (ValueError, TypeError, KeyError, OverflowError)
COURSES = ["marathon", "marathon-5", "marathon-l", "marathon-zigzag"]
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
# No single call may take this long (they take microseconds): a hang kills the run with a
# traceback of where it hung.
HANG_SECONDS = 30


@contextlib.contextmanager
def watchdog():
    faulthandler.dump_traceback_later(HANG_SECONDS, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


def call(fn, *args, **kwargs):
    """``fn(...)``, or None if it raised a clean exception; anything else fails the test."""
    try:
        with watchdog():
            return fn(*args, **kwargs)
    except CLEAN:
        return None
    except BaseException as e:  # PanicException is a BaseException
        if isinstance(e, (KeyboardInterrupt, MemoryError)):
            raise
        pytest.fail(f"{type(e).__module__}.{type(e).__qualname__} from {fn.__name__}: {e!r}")


def exercise(state):
    """Use an accepted state a little: nothing may panic."""
    if state is None:
        return
    with watchdog():
        _exercise(state)


def _exercise(state):
    assert isinstance(str(state), str) and isinstance(repr(state), str)
    text = state.to_json()
    back = pv.MarathonState.from_json(text)
    assert back == state
    moves = state.legal_moves()
    assert len(moves) == len(state.legal_actions())
    state.ranking()
    state.returns()
    for m in moves[:5]:
        child = state.after(m)
        child.to_json()
        assert state.parse_move(str(m)) == m


def exercise_game(game):
    if game is None:
        return
    with watchdog():
        _exercise_game(game)


def _exercise_game(game):
    state = game.new_state()
    rng = random.Random(0)
    for _ in range(40):
        if state.is_over:
            break
        moves = state.legal_moves()
        assert moves, "a live state must have a legal move"
        state.play(rng.choice(moves))
    _exercise(state)


# --------------------------------------------------------------------------- strategies

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(
        ["mama", "papa", "baby", "waiting", "on course", "finished", "N", "SE", "marathon"]
    ),
)
json_values = st.recursive(
    json_leaf,
    lambda children: st.one_of(
        st.lists(children, max_size=6),
        st.dictionaries(st.text(max_size=10), children, max_size=6),
    ),
    max_leaves=40,
)


def sample_jsons():
    """A few valid state JSON texts from short random games."""
    out = []
    rng = random.Random(5)
    for course in COURSES:
        for players in (2, 5):
            state = pv.Marathon(players=players, course=course).new_state()
            for _ in range(rng.randrange(0, 60)):
                if state.is_over:
                    break
                state.play(rng.choice(state.legal_moves()))
            out.append(state.to_json())
    return out


SAMPLES = sample_jsons()


def mutate(value, draw):
    """Replace one random node of a JSON value by random JSON (or delete a key / item)."""
    if isinstance(value, dict) and value and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(value)))
        new = dict(value)
        choice = draw(st.integers(0, 3))
        if choice == 0:
            del new[key]
        elif choice == 1:
            new[key] = draw(json_values)
        else:
            new[key] = mutate(value[key], draw)
        return new
    if isinstance(value, list) and value and draw(st.booleans()):
        i = draw(st.integers(0, len(value) - 1))
        new = list(value)
        choice = draw(st.integers(0, 3))
        if choice == 0:
            del new[i]
        elif choice == 1:
            new[i] = draw(json_values)
        elif choice == 2:
            new.append(draw(json_values))
        else:
            new[i] = mutate(value[i], draw)
        return new
    return draw(json_values)


# --------------------------------------------------------------------------- from_json


@SETTINGS
@given(st.binary(max_size=400))
def test_from_json_random_bytes(data):
    exercise(call(pv.MarathonState.from_json, data.decode("utf-8", "replace")))
    call(pv.MarathonState.from_json, data)


@pytest.mark.slow
@SETTINGS
@given(json_values)
def test_from_json_random_structures(value):
    exercise(call(pv.MarathonState.from_json, json.dumps(value)))


@pytest.mark.slow
@SETTINGS
@given(st.sampled_from(SAMPLES), st.data())
def test_from_json_mutated_states(text, data):
    value = json.loads(text)
    for _ in range(data.draw(st.integers(1, 3))):
        value = mutate(value, data.draw)
    exercise(call(pv.MarathonState.from_json, json.dumps(value)))


@SETTINGS
@given(st.sampled_from(SAMPLES), st.integers(0, 10**6), st.binary(min_size=1, max_size=4))
def test_from_json_corrupted_text(text, pos, junk):
    pos %= len(text)
    corrupted = text[:pos] + junk.decode("latin-1") + text[pos + 1 :]
    exercise(call(pv.MarathonState.from_json, corrupted))
    exercise(call(pv.MarathonState.from_json, text[:pos]))


plausible_values = {
    "players": st.integers(-1, 7),
    "ply_limit": st.one_of(st.integers(-1, 600), st.sampled_from([2**31, 2**32, 2**63, 2**64])),
    "to_move": st.one_of(st.none(), st.integers(-1, 6)),
    "ply": st.one_of(st.integers(-1, 600), st.sampled_from([2**32 - 1, 2**32, 2**64])),
    "winner": st.one_of(st.none(), st.integers(-1, 6)),
    "version": st.integers(-1, 3),
    "game": st.sampled_from(["marathon", "fish", ""]),
}
piece_values = {
    "owner": st.integers(-1, 6),
    "kind": st.sampled_from(["mama", "papa", "baby", "MAMA", "pa"]),
    "status": st.sampled_from(["waiting", "on course", "finished", "on_course"]),
    "cell": st.one_of(st.none(), st.tuples(st.integers(-2, 16), st.integers(-2, 7)).map(list)),
    "facing": st.one_of(st.none(), st.sampled_from(ref.DIR_NAMES + ("up", "n"))),
}


@SETTINGS
@given(st.sampled_from(SAMPLES), st.data())
def test_from_json_plausible_values(text, data):
    """Well-typed but possibly inconsistent states: two pieces on a cell, a winner who has not
    finished, a ply past the limit, a player out of range, a different course map..."""
    value = json.loads(text)
    for _ in range(data.draw(st.integers(1, 4))):
        what = data.draw(st.sampled_from(["top", "piece", "piece", "course", "pieces"]))
        if what == "top":
            key = data.draw(st.sampled_from(sorted(plausible_values)))
            value[key] = data.draw(plausible_values[key])
        elif what == "piece" and value.get("pieces"):
            i = data.draw(st.integers(0, len(value["pieces"]) - 1))
            key = data.draw(st.sampled_from(sorted(piece_values)))
            value["pieces"][i][key] = data.draw(piece_values[key])
        elif what == "course":
            course = value["course"]
            pos = data.draw(st.integers(0, len(course) - 1))
            value["course"] = (
                course[:pos] + data.draw(st.sampled_from(list("#.SF \n"))) + course[pos + 1 :]
            )
        elif value.get("pieces"):
            pieces = value["pieces"]
            if data.draw(st.booleans()):
                del pieces[data.draw(st.integers(0, len(pieces) - 1))]
            else:
                pieces.append(dict(data.draw(st.sampled_from(pieces))))
    state = call(pv.MarathonState.from_json, json.dumps(value))
    exercise(state)
    if state is not None:
        # Accepted states are consistent: no two pieces share a cell, and the game is over
        # exactly when someone has won, the ply limit is reached, or nobody can move.
        cells = [p.cell for p in state.pieces if p.cell is not None]
        assert len(cells) == len(set(cells))
        assert state.ply <= state.game.ply_limit
        if state.winner is not None:
            assert state.is_over
            assert all(p.status == "finished" for p in state.pieces if p.owner == state.winner)
        if not state.is_over:
            assert 0 <= state.to_move < state.players and state.legal_moves()


def test_from_json_wrong_types():
    for value in [None, 1, 1.5, [], {}, object(), b"{}"]:
        call(pv.MarathonState.from_json, value)


# --------------------------------------------------------------------------- from_config

course_chars = st.sampled_from(list("###...SF \n\n") + ["\t", "x", "\r", "\u00e9", "S", "F"])
course_maps = st.one_of(
    st.text(course_chars, max_size=200),
    # Grids of coasters with random markers around them: mostly nearly valid.
    st.builds(
        lambda rows, extra: "\n".join(rows) + extra,
        st.lists(
            st.text(st.sampled_from("#.SF "), min_size=1, max_size=10), min_size=1, max_size=22
        ),
        st.text(course_chars, max_size=4),
    ),
)
config_keys = st.sampled_from(["game", "name", "description", "players", "ply_limit", "course"])


@st.composite
def configs(draw):
    cfg = {}
    if draw(st.integers(0, 9)):
        cfg["course"] = (
            draw(st.one_of(course_maps, json_values))
            if draw(st.integers(0, 5))
            else draw(course_maps)
        )
    for key in draw(st.lists(config_keys, max_size=4)):
        cfg[key] = draw(
            st.one_of(
                json_values, st.integers(-(2**70), 2**70), st.sampled_from(["marathon", "fish"])
            )
        )
    if draw(st.integers(0, 5)) == 0:
        cfg[draw(st.text(max_size=8))] = draw(json_values)
    return cfg


@pytest.mark.slow
@SETTINGS
@given(configs())
def test_from_config_random_dicts(cfg):
    exercise_game(call(pv.Marathon.from_config, cfg))


@SETTINGS
@given(
    st.sampled_from(["marathon", "marathon-5", "marathon-l", "marathon-zigzag"]),
    st.dictionaries(
        st.sampled_from(["game", "name", "description", "players", "ply_limit"]),
        st.one_of(json_leaf, st.integers(-3, 8), st.sampled_from([0, 1, 2**32, 2**64])),
    ),
)
def test_from_config_bundled_course_with_random_settings(name, extra):
    cfg = {"course": pv.Marathon.variant(name).course}
    cfg.update(extra)
    game = call(pv.Marathon.from_config, cfg)
    exercise_game(game)
    if game is not None:
        assert 2 <= game.players <= 5 and game.ply_limit >= 1


STANDARD_MAP = "SSS\n" + "###\n" * 12 + "FFF\n"


@SETTINGS
@given(st.integers(0, len(STANDARD_MAP) - 1), st.sampled_from(list("#.SF x\t\n")))
def test_from_config_one_character_changed(pos, ch):
    course = STANDARD_MAP[:pos] + ch + STANDARD_MAP[pos + 1 :]
    exercise_game(call(pv.Marathon.from_config, {"course": course, "players": 3}))


@SETTINGS
@given(st.binary(max_size=600))
def test_from_config_file_of_random_bytes(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("cfg") / "random.toml"
    path.write_bytes(data)
    exercise_game(call(pv.Marathon.from_config, str(path)))
    exercise_game(call(pv.Marathon.from_config, path))


@SETTINGS
@given(st.text(max_size=300))
def test_from_config_file_of_random_text(tmp_path_factory, text):
    for suffix in (".toml", ".json"):
        path = tmp_path_factory.mktemp("cfg") / ("random" + suffix)
        path.write_text(text, encoding="utf-8")
        exercise_game(call(pv.Marathon.from_config, str(path)))


def test_from_config_odd_arguments(tmp_path):
    for value in [
        None,
        3,
        2.5,
        [],
        b"course",
        str(tmp_path),
        str(tmp_path / "missing.toml"),
        object(),
    ]:
        call(pv.Marathon.from_config, value)


# --------------------------------------------------------------------------- position

piece_fields = {
    "owner": st.one_of(st.integers(-3, 7), st.integers(-(2**70), 2**70), json_leaf),
    "kind": st.one_of(st.sampled_from(["mama", "papa", "baby", "Mama", "x", ""]), json_leaf),
    "status": st.one_of(st.sampled_from(["waiting", "on course", "finished", "gone"]), json_leaf),
    "cell": st.one_of(
        st.none(),
        st.tuples(st.integers(-2, 16), st.integers(-2, 7)),
        st.tuples(st.integers(-(2**70), 2**70), st.integers(-(2**70), 2**70)),
        st.lists(st.integers(-3, 20), max_size=3),
        json_leaf,
    ),
    "facing": st.one_of(
        st.none(), st.sampled_from(ref.DIR_NAMES + ("n", "up", "", "X")), json_leaf
    ),
}


@st.composite
def random_piece(draw):
    fields = draw(st.lists(st.sampled_from(sorted(piece_fields)), unique=True))
    if draw(st.integers(0, 3)):
        fields = sorted(piece_fields)  # mostly complete pieces
    p = {f: draw(piece_fields[f]) for f in fields}
    if draw(st.integers(0, 9)) == 0:
        p[draw(st.text(max_size=5))] = draw(json_leaf)
    return p


@pytest.mark.slow
@SETTINGS
@given(
    st.sampled_from(COURSES),
    st.integers(2, 5),
    st.lists(random_piece(), max_size=18),
    st.one_of(st.integers(-2, 7), st.integers(-(2**70), 2**70), json_leaf),
    st.one_of(st.integers(-2, 600), st.integers(-(2**70), 2**70), json_leaf),
)
def test_position_random_pieces(course, players, pieces, to_move, ply):
    game = pv.Marathon(players=players, course=course)
    exercise(call(game.position, pieces=pieces, to_move=to_move, ply=ply))


@pytest.mark.slow
@SETTINGS
@given(st.sampled_from(COURSES), st.integers(2, 5), st.data())
def test_position_mutated_valid_pieces(course, players, data):
    game = pv.Marathon(players=players, course=course)
    cells = sorted(ref.COURSES[course].cells)
    pieces = []
    free = list(cells)
    rng = random.Random(data.draw(st.integers(0, 10**9)))
    for o in range(players):
        for k in ref.KINDS:
            cell = free.pop(rng.randrange(len(free))) if rng.random() < 0.5 else None
            status = "on course" if cell else rng.choice(["waiting", "finished"])
            pieces.append(
                {
                    "owner": o,
                    "kind": k,
                    "status": status,
                    "cell": cell,
                    "facing": rng.choice([None, *ref.DIR_NAMES]) if cell else None,
                }
            )
    for _ in range(data.draw(st.integers(1, 3))):
        pieces = mutate(pieces, data.draw)
    exercise(call(game.position, pieces=pieces, to_move=0, ply=0))


def test_position_odd_arguments():
    game = pv.Marathon(players=2)
    for pieces in [None, 3, "pieces", [None], [[]], [{}], {"owner": 0}, [1, 2, 3]]:
        exercise(call(game.position, pieces=pieces))
