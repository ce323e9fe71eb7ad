"""Board symmetries: ``game.symmetries()`` and ``state.transformed(symmetry)``, both games.

Checked: the symmetries form a group (the identity first, closed under composition and
inverses); the standard Fish board has exactly its left-right mirror (RULES.md's even-r layout:
odd rows of 8 floes, even rows of 7 shifted half a hex right), a hexagon of hexes has 12, and the
straight Marathon courses their mirror; over seeded random games on every bundled variant a
transformed state's legal actions are the permuted legal actions, its observation is the
transformed observation and playing commutes with the transform; values are equal under search
(the exact solver on small boards, fixed-depth alpha-beta on both games).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import pingvinas as pv

VARIANTS = pv.variants()


def load(name):
    return pv.load_game(name)


def perm_key(sym):
    return (tuple(sym.actions), tuple(sym.cells), tuple(sym.planes))


def compose(a, b):
    """``a`` then ``b``, as arrays."""
    return tuple(np.asarray(x)[np.asarray(y)] for x, y in zip(perm_key(b), perm_key(a)))


def inverse(a):
    out = []
    for p in perm_key(a):
        inv = np.empty(len(p), dtype=np.int64)
        inv[np.asarray(p)] = np.arange(len(p))
        out.append(inv)
    return out


def transform_observation(sym, obs):
    planes = len(sym.planes)
    flat = obs.reshape(planes, -1)
    out = np.empty_like(flat)
    out[sym.planes[:, None], sym.cells[None, :]] = flat
    return out.reshape(obs.shape)


def hexagon(radius, fish=lambda ring: 1):
    """A hexagon of hexes (a rectangle of fish counts, 0 outside) with fish by ring."""
    n = 2 * radius + 1

    def axial(row, col):
        return col - (row + (row & 1)) // 2, row

    cq, cr = axial(radius, radius)
    grid = []
    for row in range(n):
        line = []
        for col in range(n):
            q, r = axial(row, col)
            ring = (abs(q - cq) + abs(r - cr) + abs(q - cq + r - cr)) // 2
            line.append(fish(ring) if ring <= radius else 0)
        grid.append(line)
    return grid


@pytest.mark.parametrize("name", VARIANTS)
def test_the_symmetries_are_a_group(name):
    game = load(name)
    syms = game.symmetries()
    keys = [perm_key(s) for s in syms]
    assert syms[0].name == "identity"
    n, cells = game.num_actions, game.rows * game.cols
    assert keys[0] == (tuple(range(n)), tuple(range(cells)), tuple(range(len(syms[0].planes))))
    assert len(set(keys)) == len(keys)
    for s in syms:
        assert sorted(s.actions) == list(range(n))
        assert sorted(s.cells) == list(range(cells))
        assert tuple(tuple(x) for x in inverse(s)) in keys
        for t in syms:
            assert tuple(tuple(x) for x in compose(s, t)) in keys


def test_the_standard_board_has_exactly_its_mirror():
    syms = pv.Fish().symmetries()
    assert [s.name for s in syms] == ["identity", "mirror"]
    mirror = syms[1]
    for r in range(8):
        for c in range(8):
            if r % 2 == 0 and c == 7:
                assert mirror.cells[r * 8 + c] == r * 8 + c  # no floe: left alone
                continue
            to = (r, 7 - c) if r % 2 else (r, 6 - c)
            assert mirror.cells[r * 8 + c] == to[0] * 8 + to[1], (r, c)
    assert list(mirror.planes) == list(range(len(mirror.planes)))


def test_custom_boards():
    assert len(pv.Fish(board=hexagon(2)).symmetries()) == 12
    assert len(pv.Fish(board=hexagon(3, lambda ring: 1 + ring % 3)).symmetries()) == 12
    lopsided = hexagon(2)
    lopsided[0][1] = 3
    assert len(pv.Fish(board=lopsided).symmetries()) < 12
    assert [s.name for s in pv.Fish(board=[[1, 1, 1], [2, 1, 0]]).symmetries()] == ["identity"]


def test_marathon_courses():
    names = {n: [s.name for s in load(n).symmetries()] for n in VARIANTS if "marathon" in n}
    assert names == {
        "marathon": ["identity", "mirror"],
        "marathon-5": ["identity", "mirror"],
        "marathon-l": ["identity"],
        "marathon-zigzag": ["identity"],
    }
    mirror = load("marathon").symmetries()[1]
    assert all(mirror.cells[r * 3 + c] == r * 3 + 2 - c for r in range(12) for c in range(3))


def states_along(game, seed, plies=60):
    rng = random.Random(seed)
    state = game.new_state(seed=seed)
    for _ in range(plies):
        if state.is_over:
            return
        yield state
        state = state.after(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("name", VARIANTS + ["hexagon"])
def test_transformed_states_have_the_permuted_legal_actions(name):
    game = pv.Fish(board=hexagon(2), penguins=2) if name == "hexagon" else load(name)
    syms = game.symmetries()
    for seed in range(2):
        for state in states_along(game, seed, plies=40):
            legal = state.legal_actions()
            obs = state.observation_tensor()
            for sym in syms:
                image = state.transformed(sym)
                assert sorted(sym.actions[legal].tolist()) == image.legal_actions(), sym.name
                assert image.to_move == state.to_move
                if isinstance(state, pv.FishState):
                    assert image.scores == state.scores
                got = image.observation_tensor()
                np.testing.assert_array_equal(got, transform_observation(sym, obs))
                a = legal[len(legal) // 2]
                assert state.after(a).transformed(sym) == image.after(int(sym.actions[a]))
                if sym.name == "identity":
                    assert image == state


def test_a_symmetry_of_another_board_is_refused():
    hexagonal = pv.Fish(board=hexagon(2)).symmetries()
    with pytest.raises(ValueError, match="not a symmetry"):
        pv.Fish().new_state(seed=1).transformed(hexagonal[1])
    with pytest.raises(ValueError, match="not a symmetry"):
        load("marathon").new_state().transformed(hexagonal[1])


def test_values_are_equal_under_the_solver():
    game = pv.Fish(board=hexagon(2, lambda ring: 3 - ring), penguins=1, placement="any")
    syms = game.symmetries()
    assert len(syms) == 12
    for seed in range(2):
        for i, state in enumerate(states_along(game, seed)):
            if i < 6:
                continue
            value = pv.fish.solve(state).value
            for sym in syms:
                assert pv.fish.solve(state.transformed(sym)).value == value, (seed, i, sym.name)


@pytest.mark.parametrize("name", ["fish", "marathon"])
def test_values_are_equal_under_alpha_beta(name):
    game = load(name)
    mirror = game.symmetries()[1]
    for seed in range(2):
        for i, state in enumerate(states_along(game, seed, plies=24)):
            if i % 6:
                continue
            value = pv.search(state, algorithm="alphabeta", depth=2, threads=1).value
            image = state.transformed(mirror)
            assert pv.search(image, algorithm="alphabeta", depth=2, threads=1).value == value
