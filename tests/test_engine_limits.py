"""Engine limits reachable from Python: sizes checked before allocating, clean
errors instead of aborts or panics, short error messages, placement JSON that the rules can
reach."""

import json

import pytest

import pingvinas as pv
from pingvinas.searching.searcher import search


def test_a_course_map_too_large_is_a_value_error():
    # Panicked with "capacity overflow" (an i32 overflow of rows * cols).
    crafted = "SSS\n#" + "\n" * 46341 + " " * 46341 + "#\nFFF\n"
    with pytest.raises(ValueError, match="at most 1024"):
        pv.Marathon(course=crafted)
    # 20000 x 20000 from a few cells: refused before building a 400 MB grid.
    wide = "SSS\n#" + "\n" * 1000 + " " * 1000 + "#\nFFF\n"
    with pytest.raises(ValueError, match="not connected"):
        pv.Marathon(course=wide)


def test_batches_too_large_or_with_too_many_threads_are_value_errors():
    # These aborted the interpreter or raised PanicException.
    with pytest.raises(ValueError, match="4294967296"):
        pv.fish.random_playouts(10**12)
    with pytest.raises(ValueError, match="4294967296"):
        pv.marathon.random_playouts(2**64 - 1)
    with pytest.raises(ValueError, match="256"):
        pv.fish.random_playouts(2000, threads=5000)
    with pytest.raises(ValueError, match="256"):
        pv.marathon.random_playouts(2000, threads=20_000)


def test_a_transposition_table_too_large_is_a_value_error():
    state = pv.Fish().new_state(seed=1)
    with pytest.raises(ValueError, match="4096|MiB"):
        search(state, algorithm="alphabeta", depth=1, tt_mb=65536)


def test_alphabeta_node_budgets_are_exact():
    state = pv.Fish().new_state(seed=1)
    for nodes in (1, 10, 500):
        result = search(state, algorithm="alphabeta", nodes=nodes)
        assert result.nodes <= nodes


def test_error_messages_quote_little_of_a_huge_input():
    huge = "x" * 1_400_000
    for state in (pv.Fish().new_state(seed=1), pv.Marathon().new_state()):
        with pytest.raises(ValueError) as err:
            state.play(huge)
        assert len(str(err.value)) < 1000
    with pytest.raises(ValueError) as err:
        pv.Fish.from_config({"game": "fish", "name": huge})
    assert len(str(err.value)) < 1000


def test_placement_json_must_be_reachable():
    state = pv.Fish().new_state(seed=3)
    state.play(state.legal_moves()[0])
    data = json.loads(state.to_json())
    three = next((r, c) for r, row in enumerate(data["board"]) for c, f in enumerate(row) if f == 3)
    bad = dict(data, penguins=[[list(three)], []])
    with pytest.raises(ValueError, match="one-fish"):
        pv.FishState.from_json(json.dumps(bad))
    bad = dict(data, scores=[[0, 0], [30, 10]])
    with pytest.raises(ValueError, match="nobody scores during placement"):
        pv.FishState.from_json(json.dumps(bad))
