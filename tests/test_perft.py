"""Perft: the counts of ``tests/perft/<variant>.perft`` (one file per bundled variant, the same
files ``cargo test`` and the criterion bench assert) through the Python API, and the small depths
again from the pure-Python reference models, so that the files are not only the engine's word.

What perft counts (each action one ply; automatic steps part of the action; a game that ends
sooner adds nothing) and the file format are in each file's header and in the docs of the Rust
module ``pingvinas_engine::perft``. The files are written by
``cargo run --release -p pingvinas-engine --example perft -- --regenerate``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import marathon_reference as mref
import pingvinas as pv
from fish_reference import FishReference

PERFT_DIR = Path(__file__).parent / "perft"
#: A count is checked through the Python API when its depth-1 level has at most this many
#: positions (depth 1 is counted without playing, as the engine does), ...
ENGINE_PARENTS = 10_000
#: ... and against the reference models when it has at most this many.
REFERENCE_PARENTS = 1_500


def read_perft_file(path):
    """The positions of a perft file: ``[{"id", "json", "counts": [(depth, nodes), ...]}]``."""
    positions, current = [], None
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith("#"):
            continue
        if not line.strip():
            current = None
            continue
        key, _, rest = line.partition(" ")
        if key == "id":
            current = {"id": rest.strip(), "json": None, "counts": []}
            positions.append(current)
        elif key == "json" and current is not None:
            current["json"] = rest.strip()
        elif key == "perft" and current is not None:
            depth, nodes = (int(x) for x in rest.split())
            current["counts"].append((depth, nodes))
        else:
            raise ValueError(f"{path.name}:{number}: unexpected line {line!r}")
    return positions


def cases():
    out = []
    for path in sorted(PERFT_DIR.glob("*.perft")):
        for p in read_perft_file(path):
            out.append(pytest.param(path.stem, p, id=f"{path.stem}-{p['id']}"))
    return out


def checked(counts, limit):
    """The ``(depth, nodes)`` whose depth-1 level has at most ``limit`` positions."""
    parents = dict(counts)
    parents[0] = 1
    return [(d, n) for d, n in counts if parents.get(d - 1, limit + 1) <= limit]


def load(text):
    game = json.loads(text)["game"]
    return (pv.FishState if game == "fish" else pv.MarathonState).from_json(text)


def engine_perft(state, depth):
    actions = state.legal_actions()
    if depth == 1:
        return len(actions)
    return sum(engine_perft(state.after(a), depth - 1) for a in actions)


def fish_reference(state):
    data = json.loads(state.to_json())
    board = state.board.tolist()
    if state.phase == "placement":
        assert data["turn"] == 0, "the perft files place nothing before a placement position"
        return FishReference(
            board, data["players"], data["penguins_per_player"], data["placement"], data["order"]
        )
    penguins = [[tuple(c) for c in cells] for cells in state.penguins]
    return FishReference.from_position(board, penguins, state.to_move)


def fish_reference_perft(ref, depth):
    moves = ref.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child = ref.copy()
        child.play(move, check=False)
        total += fish_reference_perft(child, depth - 1)
    return total


def marathon_reference(state):
    data = json.loads(state.to_json())
    model = mref.Marathon(data["course"], data["players"], data["ply_limit"])
    st = mref.State(mref.canon_pieces(state.pieces), state.to_move, data["ply"])
    return model, st


def marathon_reference_perft(model, st, depth):
    children = model.successors(st)
    if depth == 1:
        return len(children)
    return sum(marathon_reference_perft(model, c, depth - 1) for c in children.values())


def test_every_bundled_variant_has_a_perft_file():
    files = {p.stem for p in PERFT_DIR.glob("*.perft")}
    assert set(pv.variants()) <= files
    for name in pv.variants():
        positions = read_perft_file(PERFT_DIR / f"{name}.perft")
        assert len(positions) >= 3, name
        assert all(p["json"] and p["counts"] for p in positions), name


@pytest.mark.parametrize("variant, position", cases())
def test_perft_through_the_python_api(variant, position):
    state = load(position["json"])
    assert json.loads(state.to_json()) == json.loads(position["json"])
    todo = checked(position["counts"], ENGINE_PARENTS)
    assert todo, "no depth small enough to check"
    for depth, nodes in todo:
        assert engine_perft(state, depth) == nodes, f"{variant} {position['id']}: perft {depth}"


@pytest.mark.parametrize("variant, position", cases())
def test_perft_agrees_with_the_reference_model(variant, position):
    state = load(position["json"])
    todo = checked(position["counts"], REFERENCE_PARENTS)
    assert len(todo) >= 2, "the reference checks at least two depths"
    for depth, nodes in todo:
        if isinstance(state, pv.FishState):
            got = fish_reference_perft(fish_reference(state), depth)
        else:
            got = marathon_reference_perft(*marathon_reference(state), depth)
        assert got == nodes, f"{variant} {position['id']}: reference perft {depth}"
