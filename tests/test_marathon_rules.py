"""Hand-made Penguin Marathon positions, one (or a few) per rule of RULES.md, Game 2.

The rule tests run twice: against the engine and against the pure-Python reference model in
``marathon_reference.py`` (so the reference that the differential tests trust is itself checked
against hand-computed answers). The API tests (config errors, illegal moves) are engine only.

Cells are ``(row, col)``, row 0 at the top. On ``marathon`` (12 x 3) pieces enter moving S from
above row 0 and finish below row 11. A piece's result is ``(status, cell, facing)``; ``up(c)`` is
upright on ``c``, ``spun(c, d, k)`` is lying on ``c`` pointed anywhere within k x 45 degrees of d.
"""

from __future__ import annotations

import random
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import contract
import marathon_reference as ref
import pingvinas

COURSES = ["marathon", "marathon-5", "marathon-l", "marathon-zigzag"]
FIN = ("finished", None, None)


def up(cell):
    return ("on course", cell, None)


def spun(cell, direction, k):
    return {("on course", cell, ref.rotate(direction, j)) for j in range(-k, k + 1)}


def lying(cell, *facings):
    return {("on course", cell, f) for f in facings}


def piece(owner, kind, cell=None, facing=None, status=None):
    """A piece tuple; status defaults to on course when a cell is given, else waiting."""
    if status is None:
        status = ref.ON_COURSE if cell is not None else ref.WAITING
    return (owner, kind, status, cell, facing)


def full_pieces(players, given):
    """``given`` completed with waiting pieces for every (owner, kind) not listed."""
    have = {(p[0], p[1]) for p in given}
    out = list(given)
    for o in range(players):
        for k in ref.KINDS:
            if (o, k) not in have:
                out.append(piece(o, k))
    return ref.sort_pieces(out)


# --------------------------------------------------------------------------- adapters


class View:
    """A position behind the small interface the rule tests use.

    ``children`` is a list of (key, child view), one per legal move (the engine's raw list, so
    duplicates would show); key = (canonical pieces, player to move or None when over).
    """

    def results(self, owner, kind):
        """The distinct states of piece (owner, kind) after the legal moves that change it."""
        before = self.piece(owner, kind)
        out = set()
        for key, _child in self.children():
            for p in key[0]:
                if (p[0], p[1]) == (owner, kind) and p != before:
                    out.add(p[2:])
        return out

    def piece(self, owner, kind):
        for p in self.pieces():
            if (p[0], p[1]) == (owner, kind):
                return p
        raise KeyError((owner, kind))

    def keys(self):
        return [k for k, _ in self.children()]

    def play_to(self, owner, kind, result):
        """The child where piece (owner, kind) ends as ``result``."""
        for key, child in self.children():
            for p in key[0]:
                if (p[0], p[1]) == (owner, kind) and p[2:] == result:
                    return child
        raise AssertionError(f"no legal move takes {owner}/{kind} to {result}")


class RefView(View):
    def __init__(self, model, st):
        self.model = model
        self.st = st

    def children(self):
        return [(k, RefView(self.model, c)) for k, c in self.model.successors(self.st).items()]

    def pieces(self):
        return self.st.pieces

    to_move = property(lambda self: self.st.to_move)
    ply = property(lambda self: self.st.ply)
    is_over = property(lambda self: self.st.over)
    winner = property(lambda self: self.st.winner)

    def ranking(self):
        return self.model.ranking(self.st)

    def returns(self):
        return self.model.returns(self.st)


class EngineView(View):
    def __init__(self, state):
        self.state = state

    def children(self):
        out = []
        for m in self.state.legal_moves():
            child = self.state.after(m)
            out.append((engine_key(child), EngineView(child)))
        return out

    def pieces(self):
        return ref.canon_pieces(self.state.pieces)

    to_move = property(lambda self: None if self.state.is_over else self.state.to_move)
    ply = property(lambda self: self.state.ply)
    is_over = property(lambda self: self.state.is_over)
    winner = property(lambda self: self.state.winner)

    def ranking(self):
        r = self.state.ranking()
        return None if r is None else list(r)

    def returns(self):
        return list(self.state.returns())


def engine_key(state):
    return (ref.canon_pieces(state.pieces), None if state.is_over else state.to_move)


def engine_pieces_arg(pieces):
    """Reference piece tuples in the form ``game.position(pieces=...)`` takes."""
    return [
        {"owner": o, "kind": k, "status": s, "cell": c, "facing": f} for (o, k, s, c, f) in pieces
    ]


class RefImpl:
    name = "reference"

    def opening(self, course="marathon", players=2, ply_limit=500):
        m = ref.Marathon(course, players, ply_limit)
        return RefView(m, m.initial())

    def position(self, given, course="marathon", players=2, to_move=0, ply=0, ply_limit=500):
        m = ref.Marathon(course, players, ply_limit)
        return RefView(m, m.position(full_pieces(players, given), to_move, ply))


class EngineImpl:
    name = "engine"

    def __init__(self):
        self.pv = pingvinas

    def game(self, course="marathon", players=2, ply_limit=500):
        return self.pv.Marathon(players=players, course=course, ply_limit=ply_limit)

    def opening(self, course="marathon", players=2, ply_limit=500):
        return EngineView(self.game(course, players, ply_limit).new_state())

    def position(self, given, course="marathon", players=2, to_move=0, ply=0, ply_limit=500):
        game = self.game(course, players, ply_limit)
        pieces = engine_pieces_arg(full_pieces(players, given))
        return EngineView(game.position(pieces=pieces, to_move=to_move, ply=ply))


@pytest.fixture(params=["engine", "reference"])
def impl(request):
    return EngineImpl() if request.param == "engine" else RefImpl()


@pytest.fixture(scope="module")
def pv():
    return pingvinas


def no_duplicates(view):
    keys = view.keys()
    assert len(keys) == len(set(keys)), "two legal moves reach the same position"
    return keys


# --------------------------------------------------------------------------- the opening

# The standard opening, worked by hand (entering S from above row 0, 3 columns).
OPENING_MAMA = (
    lying((0, 0), "W", "SW", "S", "SE")
    | lying((0, 1), "W", "SW", "S", "SE", "E")
    | lying((0, 2), "SW", "S", "SE", "E")
)
OPENING_PAPA = (
    lying((1, 0), "E", "SE", "S", "SW", "W", "NW")  # S from (-1,0); SW from (-1,2)
    | lying((1, 1), "E", "SE", "S", "SW", "W")  # S from (-1,1)
    | lying((1, 2), "NE", "E", "SE", "S", "SW", "W")  # S from (-1,2); SE from (-1,0)
    | {up((0, 0)), up((0, 2))}  # SW/SE from (-1,1): the second step is off the side
)
OPENING_BABY = (
    spun((2, 0), "S", 3)
    | spun((2, 1), "S", 3)
    | spun((2, 2), "S", 3)
    | {up((0, 0)), up((0, 2)), up((1, 0)), up((1, 2))}
)


def flip_for_l(results):
    """The standard opening seen on marathon-l, which is entered moving N from below row 8."""
    flip = {"N": "S", "S": "N", "NE": "SE", "SE": "NE", "NW": "SW", "SW": "NW", "E": "E", "W": "W"}
    return {(s, (8 - c[0], c[1]), None if f is None else flip[f]) for (s, c, f) in results}


def test_opening_counts_by_hand():
    assert (len(OPENING_MAMA), len(OPENING_PAPA), len(OPENING_BABY)) == (13, 19, 25)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("course", COURSES)
def test_opening_has_57_moves(impl, course, players):
    s = impl.opening(course, players)
    assert s.to_move == 0 and s.ply == 0 and not s.is_over
    keys = no_duplicates(s)
    assert len(keys) == 57
    # Every opening move belongs to player 0 and leaves player 1 to move.
    assert {k[1] for k in keys} == {1}


@pytest.mark.parametrize("course", COURSES)
def test_opening_entries_piece_by_piece(impl, course):
    s = impl.opening(course)
    fix = flip_for_l if course == "marathon-l" else (lambda r: r)
    assert s.results(0, "mama") == fix(OPENING_MAMA)
    assert s.results(0, "papa") == fix(OPENING_PAPA)
    assert s.results(0, "baby") == fix(OPENING_BABY)


# --------------------------------------------------------------------------- slides


def test_each_piece_slides_its_own_distance(impl):
    """Upright in the middle of the standard course: N and S are full slides, the rest reach
    the side. Mama 1, Papa 2, Baby 3 cells."""
    s = impl.position([piece(0, "mama", (5, 1)), piece(1, "mama", (9, 1))])
    expect = set()
    for d in ref.DIR_NAMES:
        expect |= spun(ref.add((5, 1), d), d, 1)
    assert s.results(0, "mama") == expect and len(expect) == 24

    s = impl.position([piece(0, "papa", (5, 1)), piece(1, "mama", (9, 1))])
    sides = {up((5, 2)), up((5, 0)), up((4, 2)), up((4, 0)), up((6, 2)), up((6, 0))}
    assert s.results(0, "papa") == spun((3, 1), "N", 2) | spun((7, 1), "S", 2) | sides

    s = impl.position([piece(0, "baby", (5, 1)), piece(1, "mama", (0, 1))])
    assert s.results(0, "baby") == spun((2, 1), "N", 3) | spun((8, 1), "S", 3) | sides


def test_spins_are_limited_by_the_cells_slid(impl):
    """A full slide of n cells ends pointed within n x 45 degrees of the slide direction."""
    # On the top bar of marathon-l sliding E: Mama 1 cell, Papa 2, Baby 3.
    given = [piece(0, "mama", (0, 0)), piece(0, "papa", (1, 0)), piece(0, "baby", (2, 0))]
    s = impl.position(given, course="marathon-l")
    east = {r for r in s.results(0, "mama") if r[1] == (0, 1)}
    assert east == lying((0, 1), "NE", "E", "SE")
    east = {r for r in s.results(0, "papa") if r[1] == (1, 2)}
    assert east == lying((1, 2), "N", "NE", "E", "SE", "S")
    east = {r for r in s.results(0, "baby") if r[1] == (2, 3)}
    assert east == lying((2, 3), "NE", "E", "SE", "S", "SW", "N", "NW")
    assert ("on course", (2, 3), "W") not in s.results(0, "baby")


def test_a_lying_piece_slides_only_where_it_points(impl):
    s = impl.position([piece(0, "baby", (5, 1), "N"), piece(1, "mama", (9, 1))])
    assert s.results(0, "baby") == spun((2, 1), "N", 3) | {up((5, 1))}
    # Pointed SE from the side: two cells, then off the side: stops upright.
    s = impl.position([piece(0, "baby", (5, 0), "SE"), piece(1, "mama", (9, 1))])
    assert s.results(0, "baby") == {up((7, 2)), up((5, 0))}
    # Pointed off the course: it cannot slide at all, only stand.
    s = impl.position([piece(0, "mama", (5, 0), "W"), piece(1, "mama", (9, 1))])
    assert s.results(0, "mama") == {up((5, 0))}
    s = impl.position([piece(0, "papa", (0, 2), "NE"), piece(1, "mama", (9, 1))])
    assert s.results(0, "papa") == {up((0, 2))}


def test_stand(impl):
    s = impl.position([piece(0, "papa", (5, 1), "SW"), piece(1, "mama", (9, 1))], ply=3)
    after = s.play_to(0, "papa", up((5, 1)))
    assert after.piece(0, "papa") == piece(0, "papa", (5, 1))
    assert after.to_move == 1 and after.ply == 4
    # An upright piece cannot stand (no move leaves it where it is).
    s = impl.position([piece(0, "papa", (5, 1)), piece(1, "mama", (9, 1))])
    assert all(r[1] != (5, 1) for r in s.results(0, "papa"))
    # Waiting pieces cannot stand either: the opening has no move that changes nothing.
    opening = impl.opening()
    assert all(k[0] != opening.pieces() for k in opening.keys())


def test_a_blocked_slide_is_illegal(impl):
    sides = {up((5, 2)), up((5, 0)), up((4, 2)), up((4, 0)), up((6, 2)), up((6, 0))}
    south = spun((8, 1), "S", 3)
    # Blocked by an opponent on the way, or on the last cell: no stopping short, no pushing.
    for blocker in [(4, 1), (3, 1), (2, 1)]:
        s = impl.position([piece(0, "baby", (5, 1)), piece(1, "mama", blocker)])
        assert s.results(0, "baby") == south | sides, blocker
    # Blocked by one of the player's own pieces.
    s = impl.position(
        [piece(0, "baby", (5, 1)), piece(0, "papa", (3, 1)), piece(1, "mama", (11, 0))]
    )
    assert s.results(0, "baby") == south | sides
    # Blocked before reaching the side: no stop short of the blocker either.
    s = impl.position([piece(0, "baby", (5, 1)), piece(1, "mama", (4, 2))])
    assert s.results(0, "baby") == spun((2, 1), "N", 3) | south | (sides - {up((4, 2))})
    s = impl.position([piece(0, "papa", (5, 0)), piece(1, "papa", (5, 2))])
    assert all(r[1] not in {(5, 1), (5, 2)} for r in s.results(0, "papa"))


def test_a_stop_at_the_side_is_upright_with_no_spin(impl):
    # Papa from (5,1) E: (5,2), then off the side.
    s = impl.position([piece(0, "papa", (5, 1)), piece(1, "mama", (9, 1))])
    assert {r for r in s.results(0, "papa") if r[1] == (5, 2)} == {up((5, 2))}
    # Reaching the edge cell with exactly the full distance is a full slide.
    s = impl.position([piece(0, "papa", (5, 0)), piece(1, "mama", (9, 1))])
    assert {r for r in s.results(0, "papa") if r[1] == (5, 2)} == spun((5, 2), "E", 2)
    # Back over the start line counts as a side.
    s = impl.position([piece(0, "baby", (1, 1)), piece(1, "mama", (9, 1))])
    assert {r for r in s.results(0, "baby") if r[1][0] == 0} == {up((0, 1)), up((0, 0)), up((0, 2))}
    # On the first row, N, NE and NW cannot move even one cell.
    s = impl.position([piece(0, "mama", (0, 1)), piece(1, "mama", (9, 1))])
    assert s.results(0, "mama") == (
        spun((0, 2), "E", 1)
        | spun((0, 0), "W", 1)
        | spun((1, 1), "S", 1)
        | spun((1, 2), "SE", 1)
        | spun((1, 0), "SW", 1)
    )


def test_sides_of_the_l_and_the_zigzag(impl):
    # marathon-l: the inner corner. NE from (4,1): (3,2) then (2,3) on the bar: a full slide.
    s = impl.position([piece(0, "papa", (4, 1)), piece(1, "mama", (8, 0))], course="marathon-l")
    res = s.results(0, "papa")
    assert spun((2, 3), "NE", 2) <= res
    # E from (4,1): (4,2), then off the side.
    assert {r for r in res if r[1] == (4, 2)} == {up((4, 2))}
    s = impl.position([piece(0, "papa", (3, 1)), piece(1, "mama", (8, 0))], course="marathon-l")
    assert {r for r in s.results(0, "papa") if r[1][0] == 3} == {up((3, 2)), up((3, 0))}
    # marathon-zigzag: S from (4,2) stops on (5,2) (no cell below it); NE stops on (3,3)
    # (no cell at (2,4)); E is a full slide along the middle coasters.
    s = impl.position(
        [piece(0, "baby", (4, 2)), piece(1, "mama", (0, 0))], course="marathon-zigzag"
    )
    res = s.results(0, "baby")
    assert {r for r in res if r[1] == (5, 2)} == {up((5, 2))}
    assert {r for r in res if r[1] == (3, 3)} == {up((3, 3))}
    assert {r for r in res if r[1] == (4, 5)} == spun((4, 5), "E", 3)
    # SE from (5,2) crosses the inner corner onto the bottom coaster: a full slide.
    s = impl.position(
        [piece(0, "papa", (5, 2)), piece(1, "mama", (0, 0))], course="marathon-zigzag"
    )
    res = s.results(0, "papa")
    assert spun((7, 4), "SE", 2) <= res
    assert all(r[1] != (6, 2) for r in res)


# --------------------------------------------------------------------------- entering


def test_diagonal_entries(impl):
    s = impl.opening()
    mama = s.results(0, "mama")
    # Lying E on (0,1) only comes from the SE entry at (-1,0); lying W on (0,0) only from the SW
    # entry at (-1,1).
    assert ("on course", (0, 1), "E") in mama
    assert ("on course", (0, 0), "W") in mama
    # SW from (-1,0) and SE from (-1,2) would step off the course first: illegal, so a Mama
    # always lands on the first row.
    assert {r[1] for r in mama} == {(0, 0), (0, 1), (0, 2)}
    # A Baby entering diagonally from a corner stops at the side after two cells.
    baby = s.results(0, "baby")
    assert up((1, 2)) in baby and up((1, 0)) in baby
    assert not any(r[1] == (2, 3) or r[1] == (2, -1) for r in baby)


def test_entry_blocked_in_the_first_row(impl):
    s = impl.position([piece(1, "mama", (0, 1))])
    assert s.results(0, "mama") == lying((0, 0), "W", "SW", "S", "SE") | lying(
        (0, 2), "SW", "S", "SE", "E"
    )
    assert s.results(0, "papa") == (
        spun((1, 0), "S", 2) | spun((1, 2), "S", 2) | {up((0, 0)), up((0, 2))}
    )
    assert s.results(0, "baby") == (
        spun((2, 0), "S", 3) | spun((2, 2), "S", 3) | {up((0, 0)), up((0, 2))}
    )


def test_entry_blocked_further_in(impl):
    # (1,1) taken: the straight Papa and Baby entries at (-1,1) are blocked on their second
    # cell (no stopping short on (0,1)); the diagonal ones through (0,1) still pass.
    s = impl.position([piece(1, "mama", (1, 1))])
    papa = s.results(0, "papa")
    assert not any(r[1] in {(0, 1), (1, 1)} for r in papa)
    assert papa == (
        lying((1, 0), "E", "SE", "S", "SW", "W", "NW")
        | lying((1, 2), "NE", "E", "SE", "S", "SW", "W")
        | {up((0, 0)), up((0, 2))}
    )
    baby = s.results(0, "baby")
    assert not any(r[1] in {(0, 1), (1, 1), (2, 1)} for r in baby)


def test_entering_on_the_l_moves_north(impl):
    s = impl.position([piece(1, "mama", (8, 0))], course="marathon-l")
    assert s.results(0, "mama") == lying((8, 1), "W", "NW", "N", "NE", "E") | lying(
        (8, 2), "NW", "N", "NE", "E"
    )


# --------------------------------------------------------------------------- finishing


def finishing_moves(view, owner, kind):
    return [k for k in view.keys() if (owner, kind, "finished", None, None) in k[0]]


def test_straight_and_diagonal_finish_are_one_move(impl):
    s = impl.position([piece(0, "baby", (11, 1)), piece(1, "mama", (0, 0))])
    # S, SE and SW all cross the finish line (overshooting by two cells): one move.
    assert len(finishing_moves(s, 0, "baby")) == 1
    assert s.results(0, "baby") == (
        {FIN} | spun((8, 1), "N", 3) | {up((11, 2)), up((11, 0)), up((10, 2)), up((10, 0))}
    )


def test_finish_with_overshoot(impl):
    # Baby two rows from the end: S slides one cell and crosses with one cell left.
    s = impl.position([piece(0, "baby", (10, 1)), piece(1, "mama", (0, 0))])
    assert FIN in s.results(0, "baby")
    # Papa SE from (10,0): (11,1), then across the finish line.
    s = impl.position([piece(0, "papa", (10, 0)), piece(1, "mama", (0, 0))])
    assert FIN in s.results(0, "papa")
    assert not any(r[1] == (11, 1) for r in s.results(0, "papa"))
    # A blocked cell before the line still blocks the finish.
    s = impl.position(
        [
            piece(0, "baby", (9, 0)),
            piece(1, "mama", (11, 0)),
            piece(1, "papa", (11, 1)),
            piece(1, "baby", (10, 1)),
        ]
    )
    assert FIN not in s.results(0, "baby")


def test_diagonal_finish_through_the_corners(impl):
    # Mama on (11,0): SW steps to the cell beyond the corner of the finish line.
    s = impl.position([piece(0, "mama", (11, 0), "SW"), piece(1, "mama", (0, 0))])
    assert s.results(0, "mama") == {FIN, up((11, 0))}
    s = impl.position([piece(0, "mama", (11, 2), "SE"), piece(1, "mama", (0, 0))])
    assert s.results(0, "mama") == {FIN, up((11, 2))}
    # Pointed along the last row, off the side: not a finish.
    s = impl.position([piece(0, "mama", (11, 2), "E"), piece(1, "mama", (0, 0))])
    assert s.results(0, "mama") == {up((11, 2))}
    # One row short, a diagonal off the side is not a finish (and cannot move at all).
    s = impl.position([piece(0, "mama", (10, 0), "SW"), piece(1, "mama", (0, 0))])
    assert s.results(0, "mama") == {up((10, 0))}


def test_finish_on_the_l_and_the_zigzag(impl):
    # marathon-l finishes E of col 5 in rows 0-2.
    s = impl.position([piece(0, "mama", (0, 5)), piece(1, "mama", (8, 0))], course="marathon-l")
    assert s.results(0, "mama") == (
        {FIN} | spun((0, 4), "W", 1) | spun((1, 4), "SW", 1) | spun((1, 5), "S", 1)
    )
    assert len(finishing_moves(s, 0, "mama")) == 1
    s = impl.position(
        [piece(0, "papa", (1, 4), "E"), piece(1, "mama", (8, 0))], course="marathon-l"
    )
    assert s.results(0, "papa") == {FIN, up((1, 4))}
    s = impl.position(
        [piece(0, "papa", (2, 5), "SE"), piece(1, "mama", (8, 0))], course="marathon-l"
    )
    assert s.results(0, "papa") == {FIN, up((2, 5))}
    # SE from (2,4) steps off the side below the bar (not across the finish line): illegal.
    s = impl.position(
        [piece(0, "papa", (2, 4), "SE"), piece(1, "mama", (8, 0))], course="marathon-l"
    )
    assert s.results(0, "papa") == {up((2, 4))}
    # marathon-zigzag finishes below row 8 in cols 3-5; SW from (8,3) crosses the corner.
    s = impl.position(
        [piece(0, "mama", (8, 3)), piece(1, "mama", (0, 0))], course="marathon-zigzag"
    )
    assert s.results(0, "mama") == (
        {FIN} | spun((7, 3), "N", 1) | spun((7, 4), "NE", 1) | spun((8, 4), "E", 1)
    )
    # No finish below the middle coasters' left half: (5,1) S is off the side.
    s = impl.position(
        [piece(0, "mama", (5, 1), "S"), piece(1, "mama", (0, 0))], course="marathon-zigzag"
    )
    assert s.results(0, "mama") == {up((5, 1))}


# --------------------------------------------------------------------------- turns and the end


def full_first_row():
    """Player 0 fills the first row; its Papa lies pointed N, so it can only stand (or it can
    slide the others out of the row)."""
    return [piece(0, "mama", (0, 0)), piece(0, "papa", (0, 1), "N"), piece(0, "baby", (0, 2))]


def test_a_player_with_no_legal_action_is_skipped(impl):
    # Player 1's pieces all wait, and every first-row cell is taken: no entry is possible.
    s = impl.position(full_first_row() + [piece(2, "mama", (6, 1))], players=3, ply=10)
    after = s.play_to(0, "papa", up((0, 1)))
    assert after.to_move == 2 and after.ply == 11 and not after.is_over
    # Had player 0 left the row, player 1 would move.
    after = s.play_to(0, "mama", ("on course", (1, 0), "S"))
    assert after.to_move == 1 and after.ply == 11
    # With two players the turn comes straight back.
    s = impl.position(full_first_row(), players=2)
    after = s.play_to(0, "papa", up((0, 1)))
    assert after.to_move == 0 and after.ply == 1
    # A built position passes the turn on the same way.
    s = impl.position(full_first_row() + [piece(2, "mama", (6, 1))], players=3, to_move=1, ply=10)
    assert s.to_move == 2 and s.ply == 10 and not s.is_over
    # Skipped twice in a row: 5 players, players 1, 2 and 3 waiting.
    s = impl.position(full_first_row() + [piece(4, "baby", (7, 2))], players=5)
    assert s.play_to(0, "papa", up((0, 1))).to_move == 4


@pytest.mark.parametrize("players", [2, 3, 5])
def test_the_first_player_to_finish_all_three_wins(impl, players):
    winner = players - 1
    given = [
        piece(winner, "mama", status="finished"),
        piece(winner, "papa", status="finished"),
        piece(winner, "baby", (11, 1)),
        piece(0, "mama", status="finished"),
        piece(0, "papa", status="finished"),
        piece(0, "baby", (10, 0)),
    ]
    s = impl.position(given, players=players, to_move=winner, ply=57)
    assert s.to_move == winner and not s.is_over
    end = s.play_to(winner, "baby", FIN)
    assert end.is_over and end.winner == winner and end.ply == 58
    assert end.keys() == []
    places = [1 if p == winner else 2 for p in range(players)]
    assert end.ranking() == places
    loser = -1 / (players - 1)
    assert end.returns() == pytest.approx([1.0 if p == winner else loser for p in range(players)])
    # Finishing only two of three is not a win.
    s = impl.position(
        given[:2] + [piece(winner, "baby", (5, 1))] + given[3:], players=players, to_move=winner
    )
    assert not s.play_to(winner, "baby", up((5, 2))).is_over


def test_a_win_on_the_last_ply_counts(impl):
    given = [
        piece(0, "mama", status="finished"),
        piece(0, "papa", status="finished"),
        piece(0, "baby", (11, 1)),
        piece(1, "mama", (3, 1)),
    ]
    s = impl.position(given, ply=9, ply_limit=10)
    end = s.play_to(0, "baby", FIN)
    assert end.is_over and end.winner == 0 and end.ranking() == [1, 2]
    assert end.returns() == pytest.approx([1.0, -1.0])


@pytest.mark.parametrize("players", [2, 3, 5])
def test_the_ply_limit_is_a_draw(impl, players):
    given = [piece(0, "mama", (4, 1)), piece(1, "mama", (8, 1))]
    s = impl.position(given, players=players, ply=9, ply_limit=10)
    assert not s.is_over and s.ply == 9
    end = s.play_to(0, "mama", ("on course", (5, 1), "S"))
    assert end.is_over and end.winner is None and end.ply == 10
    assert end.keys() == []
    assert end.ranking() == [1] * players
    assert end.returns() == pytest.approx([0.0] * players)
    # One ply earlier the game goes on.
    s = impl.position(given, players=players, ply=8, ply_limit=10)
    assert not s.play_to(0, "mama", ("on course", (5, 1), "S")).is_over


def test_the_ply_limit_from_the_opening(impl):
    s = impl.opening(ply_limit=4)
    for ply in range(4):
        assert not s.is_over and s.ply == ply
        s = s.children()[0][1]
    assert s.is_over and s.winner is None and s.ply == 4 and s.ranking() == [1, 1]


# --------------------------------------------------------------------------- the bundled maps


def read_map(text):
    """cells, S places, F places of an ASCII course map, in course coordinates."""
    cells, starts, finishes = set(), set(), set()
    for line_no, line in enumerate(text.split("\n")):
        for col, ch in enumerate(line):
            {"#": cells, "S": starts, "F": finishes}.get(ch, set()).add((line_no, col))
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    shift = lambda s: {(r - r0, c - c0) for r, c in s}  # noqa: E731
    return shift(cells), shift(starts), shift(finishes)


@pytest.mark.parametrize("course", COURSES)
def test_bundled_config_files_draw_the_courses_of_rules_md(course):
    """The bundled TOML maps are the courses the reference model took from RULES.md."""
    import pathlib

    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    path = pathlib.Path(__file__).parent.parent / "rust" / "engine" / "variants" / f"{course}.toml"
    cfg = tomllib.loads(path.read_text(encoding="utf-8"))
    cells, starts, finishes = read_map(cfg["course"])
    c = ref.COURSES[course]
    assert cells == set(c.cells)
    assert starts == {e for e, _ in c.entry_points()}
    assert finishes == {ref.add(x, c.finish_outward) for x in c.finish_cells}
    assert cfg.get("ply_limit", 500) == 500


# --------------------------------------------------------------------------- API: errors (engine)

SIX_ROWS = "SSS\n" + "###\n" * 6 + "FFF\n"


def test_a_custom_course_plays_by_the_same_rules(pv):
    game = pv.Marathon.from_config({"course": SIX_ROWS, "players": 3})
    assert game.players == 3 and game.ply_limit == 500
    assert len(game.new_state().legal_moves()) == 57
    # Two coasters long: a Baby upright on (4,1) finishes S, SE or SW (one move).
    s = EngineView(game.position(pieces=[(0, "baby", "on course", (4, 1), None)]))
    assert len(finishing_moves(s, 0, "baby")) == 1
    assert s.results(0, "baby") == (
        {FIN} | spun((1, 1), "N", 3) | {up((4, 2)), up((4, 0)), up((3, 2)), up((3, 0))}
    )


@pytest.mark.parametrize(
    "course, words",
    [
        # Two coasters with an empty row between them: (4,0) is map line 6 (line 1 is SSS).
        ("SSS\n###\n###\n###\n...\n###\n###\n###\nFFF\n", ["not connected", "line 6", "(4, 0)"]),
        ("###\n" * 6 + "FFF\n", ["no start line"]),
        ("SSS\n" + "###\n" * 6, ["no finish line"]),
        ("SSS\n###\n#@#\n###\n###\n###\n###\nFFF\n", ["'@'", "line 3, column 2"]),
        ("SSS\n###\n###\n##.\nFFF\n", ["3×3", "line 2, column 1"]),
    ],
    ids=["not-connected", "no-start", "no-finish", "unknown-symbol", "not-whole-coasters"],
)
def test_malformed_courses_are_rejected_saying_where(pv, course, words):
    with pytest.raises(ValueError) as err:
        pv.Marathon.from_config({"course": course})
    for w in words:
        assert w in str(err.value), (w, str(err.value))
    # The same map given straight to the constructor.
    with pytest.raises(ValueError):
        pv.Marathon(course=course)


def test_a_config_file_error_names_the_file_line_and_column(pv, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(
        'game = "marathon"\nplayers = 3\ncourse = """\nSSS\n###\n#@#\n###\nFFF\n"""\n',
        encoding="utf-8",
    )
    with pytest.raises(ValueError) as err:
        pv.Marathon.from_config(str(path))
    assert str(path) in str(err.value)
    assert "line 6, column 2" in str(err.value)  # the '@', counted in the file


def test_bad_settings_are_value_errors(pv):
    for kwargs in [dict(players=1), dict(players=6), dict(course="nope"), dict(ply_limit=0)]:
        with pytest.raises(ValueError):
            pv.Marathon(**kwargs)
    with pytest.raises(ValueError, match="nope"):
        pv.Marathon.variant("nope")


def test_bad_positions_are_value_errors_naming_the_problem(pv):
    game = pv.Marathon(players=2)
    cases = [
        (
            [(0, "mama", "on course", (3, 1), None), (1, "papa", "on course", (3, 1), None)],
            "(3, 1)",
        ),
        ([(0, "mama", "on course", (12, 1), None)], "(12, 1)"),
        ([(0, "auntie")], "auntie"),
        ([(2, "mama")], "2"),
        ([(0, "mama", "on course", (3, 1), "UP")], "UP"),
        ([(0, "mama"), (0, "mama")], "mama"),
    ]
    for pieces, word in cases:
        with pytest.raises(ValueError) as err:
            game.position(pieces=pieces)
        assert word in str(err.value), (pieces, str(err.value))
    with pytest.raises(ValueError):
        game.position(to_move=2)
    with pytest.raises(ValueError):
        game.position(ply=501)


def test_an_illegal_move_names_the_move_and_changes_nothing(pv):
    state = pv.Marathon(players=2).new_state()
    state.play("B -1,1 S 2,1 SE")
    before = (state.to_json(), state.copy(), list(state.pieces), state.to_move, state.ply)
    for bad in ["B -1,1 S 5,1 S", "M 0,0 stand", "B 2,1 N 0,1 up"]:
        with pytest.raises(pv.IllegalMoveError) as err:
            state.play(bad)
        assert bad in str(err.value)
        assert isinstance(err.value, ValueError)
        assert (state.to_json(), state, list(state.pieces), state.to_move, state.ply) == (
            before[0],
            before[1],
            before[2],
            before[3],
            before[4],
        )
    # The Baby lies pointed SE: sliding S is illegal; as an action number too.
    legal = set(state.legal_actions())
    illegal = next(a for a in range(state.num_actions) if a not in legal)
    with pytest.raises(pv.IllegalMoveError) as err:
        state.apply_action(illegal)
    assert str(illegal) in str(err.value)
    with pytest.raises(ValueError):
        state.play(state.num_actions)
    with pytest.raises(ValueError):
        state.after("nonsense")
    # A move of another position is checked against this one.
    other = pv.Marathon(players=2).new_state()
    foreign = next(m for m in other.legal_moves() if str(m) == "B -1,1 S 2,1 SE")
    with pytest.raises(pv.IllegalMoveError):
        state.play(foreign)
    assert state.to_json() == before[0] and state == before[1]
    # A finished game rejects every move.
    end = pv.Marathon(players=2).position(
        pieces=[(0, "mama", "finished"), (0, "papa", "finished"), (0, "baby", "on course", (11, 1))]
    )
    end.play(next(m for m in end.legal_moves() if m.finishes))
    assert end.is_over and end.winner == 0
    snapshot = end.to_json()
    with pytest.raises(ValueError):
        end.play("M -1,0 S 0,0 S")
    assert end.to_json() == snapshot


@pytest.mark.parametrize("course", COURSES)
def test_engine_courses_are_the_courses_of_rules_md(pv, course):
    c = ref.COURSES[course]
    for name in {course, *[a for a, full in ref.ALIASES.items() if full == course]}:
        game = pv.Marathon(course=name)
        assert sorted(map(tuple, game.cells)) == sorted(c.cells), name
        assert sorted(map(tuple, game.start)) == sorted(e for e, _ in c.entry_points())
        assert sorted(map(tuple, game.finish)) == sorted(
            ref.add(x, c.finish_outward) for x in c.finish_cells
        )
        assert game.ply_limit == 500 and game.players == 2
    assert pv.Marathon.variant(course).course == pv.Marathon(course=course).course


# --------------------------------------------------------------------------- properties
#
# The contract of ``contract.py`` (checked on the bundled variants by ``test_contract.py``) on
# what no variant covers: 2 to 5 players, short ply limits, and positions built with
# ``game.position``; plus what a Marathon move and observation say, against the reference.

PROPERTY_SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)

_GAMES = {}


def game_for(course, players, ply_limit=500):
    key = (course, players, ply_limit)
    if key not in _GAMES:
        _GAMES[key] = pingvinas.Marathon(players=players, course=course, ply_limit=ply_limit)
    return _GAMES[key]


@st.composite
def played_states(draw):
    """A state reached by random play (possibly over) on a random course and player count."""
    course = draw(st.sampled_from(COURSES))
    players = draw(st.integers(2, 5))
    ply_limit = draw(st.sampled_from([500, 500, 500, 30, 3]))
    state = game_for(course, players, ply_limit).new_state()
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    return contract.play_random(state, rng, draw(st.integers(0, 120)))


@st.composite
def built_states(draw):
    """A position built with ``game.position`` from random (valid) pieces, with the reference
    model's view of it."""
    course = draw(st.sampled_from(COURSES))
    players = draw(st.integers(2, 5))
    cells = sorted(ref.COURSES[course].cells)
    pieces = []
    used = set()
    for o in range(players):
        for k in ref.KINDS:
            status = draw(
                st.sampled_from([ref.WAITING, ref.ON_COURSE, ref.ON_COURSE, ref.FINISHED])
            )
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
        pieces=[
            {"owner": o, "kind": k, "status": s, "cell": c, "facing": f} for o, k, s, c, f in pieces
        ],
        to_move=to_move,
        ply=ply,
    )
    return state, expected, model


any_state = st.one_of(played_states(), built_states().map(lambda t: t[0]))


@PROPERTY_SETTINGS
@given(any_state)
def test_contract_on_more_players_short_games_and_built_positions(state):
    contract.check_state(state)


@PROPERTY_SETTINGS
@given(any_state)
def test_moves_say_what_they_do(state):
    moves = state.legal_moves()
    before = {(p.owner, p.kind): p for p in state.pieces}
    keys = set()
    for m in moves:
        text = str(m)
        assert state.parse_move(text.lower()) == m
        by_move = state.after(m)
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


@PROPERTY_SETTINGS
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


@PROPERTY_SETTINGS
@given(any_state)
def test_a_rejected_move_leaves_the_pieces_unchanged(state):
    before = (ref.canon_pieces(state.pieces), state.to_move, state.ply, state.is_over)
    for text in ["X 0,0 N", "M 99,99 S", "P stand"]:
        with pytest.raises(ValueError):
            state.play(text)
    assert (ref.canon_pieces(state.pieces), state.to_move, state.ply, state.is_over) == before


OBS_KINDS = {"mama": 0, "papa": 1, "baby": 2}
FACINGS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]


@PROPERTY_SETTINGS
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
        index = 3 * ((p.owner - me) % n) + OBS_KINDS[p.kind]
        waiting, finished = planes[status + 2 * index], planes[status + 2 * index + 1]
        assert waiting.all() == (p.status == "waiting")
        assert finished.all() == (p.status == "finished")
        assert waiting.any() == waiting.all() and finished.any() == finished.all()
        if p.status == "on course":
            on_course += 1
            r, c = p.cell
            assert planes[0, r, c] == 1
            assert planes[1 + index].sum() == 1 and planes[1 + index, r, c] == 1
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


def test_marathon_5_is_a_course_not_a_player_count():
    # "marathon-5" reads like "fish-4p": its description and the docs say it counts coasters.
    five = pingvinas.Marathon.variant("marathon-5")
    assert five.players == 2 and "not a five-player game" in five.description
    assert "players=5" in five.description
    assert pingvinas.Marathon(players=5).players == 5
    assert pingvinas.Marathon(players=5, course="marathon-5").players == 5
    for name in pingvinas.variants():
        if name.startswith("marathon"):
            # Every Marathon description names its default player count.
            assert "2 players" in pingvinas.load_game(name).description, name
