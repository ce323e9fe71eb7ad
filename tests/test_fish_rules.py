"""Hand-made Fish positions, one (or a few) per rule of RULES.md, Game 1.

The rule tests run twice: against the engine and against the pure-Python
reference model in ``fish_reference.py`` (so the reference the differential
tests trust is itself checked against hand-computed answers). The API tests
(errors, text, numpy) are for the engine alone.

Cells are ``(row, col)`` in the even-r offset layout: even rows are shifted
half a hex to the right. Boards below are drawn row by row; ``0`` is a gap.
"""

import json
import pickle
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import contract
import pingvinas
from fish_reference import DIRECTIONS, FishReference, move_name, step

# --------------------------------------------------------------------------- adapters


def _cell(cell):
    return None if cell is None else tuple(cell)


class RefView:
    """The reference model behind the small interface the rule tests use."""

    def __init__(self, ref):
        self.ref = ref

    def moves(self):
        return self.ref.legal_moves()

    def play(self, move):
        self.ref.play(move)

    def board(self):
        return self.ref.board()

    def penguins(self):
        return self.ref.penguins()

    def scores(self):
        return self.ref.scores()

    @property
    def to_move(self):
        return self.ref.to_move

    @property
    def phase(self):
        return self.ref.phase

    def ranking(self):
        return self.ref.ranking()

    def returns(self):
        return self.ref.returns()


class EngineView:
    """A ``pingvinas.FishState`` behind the same interface."""

    def __init__(self, state):
        self.state = state

    def moves(self):
        return {(_cell(m.src), _cell(m.dst)) for m in self.state.legal_moves()}

    def play(self, move):
        for m in self.state.legal_moves():
            if (_cell(m.src), _cell(m.dst)) == move:
                self.state.play(m)
                return
        raise AssertionError(
            f"{move!r} is not among the legal moves {sorted(self.moves(), key=str)}"
        )

    def board(self):
        return self.state.board.tolist()

    def penguins(self):
        return [[tuple(c) for c in cells] for cells in self.state.penguins]

    def scores(self):
        return [tuple(s) for s in self.state.scores]

    @property
    def to_move(self):
        return self.state.to_move

    @property
    def phase(self):
        return self.state.phase

    def ranking(self):
        return list(self.state.ranking())

    def returns(self):
        return list(self.state.returns())


class RefImpl:
    name = "reference"

    def new_game(self, board, players=2, penguins=None, placement="one-fish", order="round-robin"):
        return RefView(FishReference(board, players, penguins, placement, order))

    def position(self, board, penguins, to_move=0):
        return RefView(FishReference.from_position(board, penguins, to_move))


class EngineImpl:
    name = "engine"

    def __init__(self):
        import pingvinas

        self.pv = pingvinas

    def new_game(self, board, players=2, penguins=None, placement="one-fish", order="round-robin"):
        game = self.pv.Fish(
            players=players, penguins=penguins, board=board, placement=placement, order=order
        )
        return EngineView(game.new_state(seed=0))

    def position(self, board, penguins, to_move=0):
        game = self.pv.Fish(players=len(penguins))
        return EngineView(game.position(board=board, penguins=penguins, to_move=to_move))


@pytest.fixture(params=["engine", "reference"])
def impl(request):
    return EngineImpl() if request.param == "engine" else RefImpl()


@pytest.fixture(scope="module")
def pv():
    import pingvinas

    return pingvinas


def slides(src, cells):
    return {(src, dst) for dst in cells}


def places(cells):
    return {(None, c) for c in cells}


def ones(rows, cols):
    return [[1] * cols for _ in range(rows)]


# --------------------------------------------------------------------------- geometry


def test_reference_step_table():
    """The direction table of the brief, E NE NW W SW SE, from an even and an odd row."""
    assert DIRECTIONS == ("E", "NE", "NW", "W", "SW", "SE")
    assert [step((2, 2), d) for d in range(6)] == [(2, 3), (1, 3), (1, 2), (2, 1), (3, 2), (3, 3)]
    assert [step((3, 2), d) for d in range(6)] == [(3, 3), (2, 2), (2, 1), (3, 1), (4, 1), (4, 2)]


def test_six_directions_from_an_odd_row(impl):
    s = impl.position(ones(7, 7), [[(3, 3)], [(6, 0)]])
    assert s.to_move == 0
    assert s.moves() == slides(
        (3, 3),
        [
            (3, 4),
            (3, 5),
            (3, 6),  # E
            (2, 3),
            (1, 4),
            (0, 4),  # NE
            (2, 2),
            (1, 2),
            (0, 1),  # NW
            (3, 2),
            (3, 1),
            (3, 0),  # W
            (4, 2),
            (5, 2),
            (6, 1),  # SW
            (4, 3),
            (5, 4),
            (6, 4),  # SE
        ],
    )


def test_six_directions_from_an_even_row(impl):
    s = impl.position(ones(5, 5), [[(2, 2)], [(4, 4)]])
    assert s.moves() == slides(
        (2, 2),
        [
            (2, 3),
            (2, 4),  # E
            (1, 3),
            (0, 3),  # NE
            (1, 2),
            (0, 1),  # NW
            (2, 1),
            (2, 0),  # W
            (3, 2),
            (4, 1),  # SW
            (3, 3),
            (4, 3),  # SE
        ],
    )


def test_the_other_player_moves_the_other_penguins(impl):
    s = impl.position(ones(5, 5), [[(2, 2)], [(4, 4)]], to_move=1)
    assert s.to_move == 1
    # (4, 4) on an even row: E and the south side are off the board
    assert s.moves() == slides(
        (4, 4), [(4, 3), (4, 2), (4, 1), (4, 0), (3, 4), (2, 3), (1, 3), (0, 2)]
    )


def test_blocked_by_the_edge_and_the_missing_corner(impl):
    # two rows laid out like the top of the standard board: (0, 7) does not exist
    board = [[1, 1, 1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1, 1, 1]]
    s = impl.position(board, [[(0, 0)], [(1, 7)]])
    assert s.moves() == slides(
        (0, 0), [(0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (1, 0), (1, 1)]
    )
    s = impl.position(board, [[(0, 0)], [(1, 7)]], to_move=1)
    # from (1, 7): W along row 1, NW to (0, 6); NE would be (0, 7), a gap
    assert s.moves() == slides(
        (1, 7), [(1, 6), (1, 5), (1, 4), (1, 3), (1, 2), (1, 1), (1, 0), (0, 6)]
    )


def test_blocked_by_penguins_of_both_sides(impl):
    s = impl.position([[1] * 7], [[(0, 0), (0, 3)], [(0, 6)]])
    assert s.moves() == slides((0, 0), [(0, 1), (0, 2)]) | slides(
        (0, 3), [(0, 2), (0, 1), (0, 4), (0, 5)]
    )


def test_blocked_by_a_gap(impl):
    s = impl.position([[1, 1, 0, 1, 1]], [[(0, 0)], [(0, 4)]])
    assert s.moves() == {((0, 0), (0, 1))}


def test_blocked_by_a_removed_floe(impl):
    s = impl.position([[1, 2, 3, 1, 2, 3, 1]], [[(0, 3)], [(0, 6)]])
    s.play(((0, 3), (0, 1)))
    assert s.board() == [[1, 2, 3, 0, 2, 3, 1]]
    assert s.scores() == [(1, 1), (0, 0)]
    assert s.to_move == 1
    # (0, 3) is gone: player 1 cannot slide over it to (0, 2)
    assert s.moves() == slides((0, 6), [(0, 5), (0, 4)])


# --------------------------------------------------------------------------- moving and scoring


def test_a_move_keeps_the_source_floe(impl):
    board = [[3, 2, 1], [1, 2, 1], [1, 1, 2]]
    s = impl.position(board, [[(0, 0)], [(2, 2)]])
    s.play(((0, 0), (0, 2)))
    assert s.board() == [[0, 2, 1], [1, 2, 1], [1, 1, 2]]
    assert s.penguins() == [[(0, 2)], [(2, 2)]]
    assert s.scores() == [(3, 1), (0, 0)]
    assert s.to_move == 1
    assert ((2, 2), (1, 1)) not in s.moves()  # not a neighbour of an even-row cell
    s.play(((2, 2), (1, 2)))  # NW from an even row
    assert s.board() == [[0, 2, 1], [1, 2, 1], [1, 1, 0]]
    assert s.scores() == [(3, 1), (2, 1)]
    assert s.penguins() == [[(0, 2)], [(1, 2)]]
    assert s.to_move == 0
    assert s.phase == "movement"


def test_unreachable_floes_removed_after_a_move(impl):
    board = [
        [3, 1, 2, 2, 3],
        [0, 0, 0, 0, 0],
        [1, 1, 0, 0, 0],
    ]
    s = impl.position(board, [[(0, 1)], [(2, 0)]])
    s.play(((0, 1), (0, 3)))
    # (0, 0) is cut off from every penguin: removed, and nobody scores its 3 fish
    assert s.board() == [[0, 0, 2, 2, 3], [0, 0, 0, 0, 0], [1, 1, 0, 0, 0]]
    assert s.scores() == [(1, 1), (0, 0)]
    assert s.to_move == 1
    assert s.moves() == {((2, 0), (2, 1))}


def test_unreachable_floes_removed_in_a_position(impl):
    # the right-hand group holds no penguin; diagonal contact keeps (1, 1) in the left group
    board = [
        [1, 1, 0, 3, 3],
        [0, 2, 0, 0, 3],
    ]
    s = impl.position(board, [[(0, 0)], [(0, 1)]])
    assert s.board() == [[1, 1, 0, 0, 0], [0, 2, 0, 0, 0]]
    assert s.scores() == [(0, 0), (0, 0)]


def test_occupied_floes_keep_their_group(impl):
    # a penguin that cannot move still keeps its own floe (and its group) in the game
    board = [[2, 0, 1, 1], [0, 0, 0, 0]]
    s = impl.position(board, [[(0, 2)], [(0, 0)]])
    assert s.board() == [[2, 0, 1, 1], [0, 0, 0, 0]]
    assert s.to_move == 0


def test_stuck_player_lifts_while_others_continue(impl):
    board = [
        [1, 1, 1, 1, 1],
        [0, 0, 0, 0, 0],
        [2, 0, 3, 3, 3],
    ]
    s = impl.position(board, [[(0, 0)], [(2, 0)], [(2, 2)]])
    assert s.to_move == 0
    s.play(((0, 0), (0, 2)))
    # player 1 is stuck on a lone floe: lifted, keeps it, player 2 is to move
    assert s.to_move == 2
    assert s.scores() == [(1, 1), (2, 1), (0, 0)]
    assert s.penguins() == [[(0, 2)], [], [(2, 2)]]
    assert s.board() == [[0, 1, 1, 1, 1], [0, 0, 0, 0, 0], [0, 0, 3, 3, 3]]
    s.play(((2, 2), (2, 3)))
    assert s.to_move == 0  # player 1 takes no further turns
    s.play(((0, 2), (0, 1)))
    assert s.to_move == 2
    assert s.scores() == [(2, 2), (2, 1), (3, 1)]


def test_stuck_player_lifts_several_penguins(impl):
    board = [
        [2, 0, 3, 0, 1, 1, 1],
    ]
    s = impl.position(board, [[(0, 4)], [(0, 0), (0, 2)]])
    s.play(((0, 4), (0, 5)))
    assert s.scores() == [(1, 1), (5, 2)]
    assert s.penguins() == [[(0, 5)], []]
    assert s.board() == [[0, 0, 0, 0, 0, 1, 1]]
    assert s.to_move == 0


def test_lone_player_carries_on(impl):
    board = [
        [1, 2, 1, 3, 1],
        [0, 0, 0, 0, 0],
        [2, 0, 0, 0, 0],
    ]
    s = impl.position(board, [[(0, 0)], [(2, 0)]])
    assert s.to_move == 0
    s.play(((0, 0), (0, 1)))
    assert s.scores() == [(1, 1), (2, 1)]
    assert s.to_move == 0
    s.play(((0, 1), (0, 2)))
    assert s.to_move == 0
    s.play(((0, 2), (0, 3)))
    assert s.to_move == 0
    assert s.moves() == {((0, 3), (0, 4))}
    s.play(((0, 3), (0, 4)))
    # stuck on the last floe: lifted with it, and the game is over
    assert s.phase == "over"
    assert s.to_move is None
    assert s.moves() == set()
    assert s.penguins() == [[], []]
    assert s.board() == [[0] * 5, [0] * 5, [0] * 5]
    assert s.scores() == [(8, 5), (2, 1)]
    assert s.ranking() == [1, 2]
    assert s.returns() == [1.0, -1.0]


def test_stuck_player_to_move_in_a_position_is_lifted_at_once(impl):
    board = [[3, 0, 1, 1, 1]]
    s = impl.position(board, [[(0, 0)], [(0, 2)]], to_move=0)
    assert s.to_move == 1
    assert s.scores() == [(3, 1), (0, 0)]
    assert s.penguins() == [[], [(0, 2)]]


def test_player_without_penguins_is_out(impl):
    s = impl.position([[1] * 6], [[], [(0, 0)], [(0, 5)]], to_move=0)
    assert s.to_move == 1
    s.play(((0, 0), (0, 1)))
    assert s.to_move == 2
    s.play(((0, 5), (0, 4)))
    assert s.to_move == 1
    assert s.scores() == [(0, 0), (1, 1), (1, 1)]


def test_fish_tie_broken_by_floes(impl):
    board = [[3, 0, 1, 1, 1]]
    s = impl.position(board, [[(0, 0)], [(0, 2)]], to_move=0)
    s.play(((0, 2), (0, 3)))
    s.play(((0, 3), (0, 4)))
    assert s.phase == "over"
    assert s.scores() == [(3, 1), (3, 3)]
    assert s.ranking() == [2, 1]
    assert s.returns() == [-1.0, 1.0]


def test_more_fish_beats_more_floes(impl):
    board = [[4, 0, 1, 1, 1]]
    s = impl.position(board, [[(0, 0)], [(0, 2)]], to_move=1)
    s.play(((0, 2), (0, 3)))
    s.play(((0, 3), (0, 4)))
    assert s.scores() == [(4, 1), (3, 3)]
    assert s.ranking() == [1, 2]
    assert s.returns() == [1.0, -1.0]


def test_draw(impl):
    s = impl.position([[2, 0, 2]], [[(0, 0)], [(0, 2)]])
    assert s.phase == "over"
    assert s.scores() == [(2, 1), (2, 1)]
    assert s.ranking() == [1, 1]
    assert s.returns() == [0.0, 0.0]


@pytest.mark.parametrize(
    "fish, ranking, returns",
    [
        ([2, 3, 2], [2, 1, 2], [-0.5, 1.0, -0.5]),
        ([3, 3, 1], [1, 1, 3], [0.5, 0.5, -1.0]),
        ([1, 2, 3], [3, 2, 1], [-1.0, 0.0, 1.0]),
        ([2, 2, 2], [1, 1, 1], [0.0, 0.0, 0.0]),
        ([1, 3, 3, 2], [4, 1, 1, 3], [-1.0, 2 / 3, 2 / 3, -1 / 3]),
        ([2, 1, 2, 1], [1, 3, 1, 3], [2 / 3, -2 / 3, 2 / 3, -2 / 3]),
    ],
)
def test_shared_places(impl, fish, ranking, returns):
    # every penguin alone on its floe: all are lifted at once and the game is over
    board = [[]]
    for n in fish:
        board[0] += [n, 0]
    penguins = [[(0, 2 * i)] for i in range(len(fish))]
    s = impl.position(board, penguins)
    assert s.phase == "over"
    assert s.to_move is None
    assert s.scores() == [(n, 1) for n in fish]
    assert s.ranking() == ranking
    assert s.returns() == pytest.approx(returns)


def test_shared_place_needs_equal_floes_too(impl):
    # 3 fish each; player 1 has them on 3 floes, players 0 and 2 on one
    board = [[3, 0, 1, 1, 1, 0, 3]]
    s = impl.position(board, [[(0, 0)], [(0, 2)], [(0, 6)]], to_move=1)
    s.play(((0, 2), (0, 3)))
    s.play(((0, 3), (0, 4)))
    assert s.phase == "over"
    assert s.scores() == [(3, 1), (3, 3), (3, 1)]
    assert s.ranking() == [2, 1, 2]
    assert s.returns() == pytest.approx([-0.5, 1.0, -0.5])


# --------------------------------------------------------------------------- placement


def test_placement_only_on_one_fish_floes(impl):
    board = [[1, 2, 3], [3, 1, 2]]
    s = impl.new_game(board, players=2, penguins=1)
    assert s.phase == "placement"
    assert s.to_move == 0
    assert s.moves() == places([(0, 0), (1, 1)])
    s.play((None, (1, 1)))
    assert s.to_move == 1
    assert s.moves() == places([(0, 0)])  # an occupied floe is no longer free
    assert s.board() == board  # nothing is scored or removed while placing


def test_placement_on_any_floe(impl):
    board = [[1, 2, 3], [3, 0, 2]]
    s = impl.new_game(board, players=2, penguins=2, placement="any")
    assert s.moves() == places([(0, 0), (0, 1), (0, 2), (1, 0), (1, 2)])
    s.play((None, (0, 2)))
    assert s.moves() == places([(0, 0), (0, 1), (1, 0), (1, 2)])


def _placement_sequence(s):
    order = []
    while s.phase == "placement":
        order.append(s.to_move)
        s.play(min(s.moves()))
    return order


def test_round_robin_placement_order(impl):
    s = impl.new_game(ones(4, 6), players=3, penguins=2)
    assert _placement_sequence(s) == [0, 1, 2, 0, 1, 2]
    assert s.phase == "movement"
    assert s.to_move == 0
    assert [len(p) for p in s.penguins()] == [2, 2, 2]


def test_snake_placement_order(impl):
    s = impl.new_game(ones(4, 6), players=3, penguins=3, order="snake")
    assert _placement_sequence(s) == [0, 1, 2, 2, 1, 0, 0, 1, 2]
    assert s.to_move == 0


def test_movement_starts_with_player_0_after_a_snake(impl):
    # snake with 3 players and 2 penguins ends 0, 1, 2, 2, 1, 0: player 0 starts anyway
    s = impl.new_game(ones(4, 6), players=3, penguins=2, order="snake")
    assert _placement_sequence(s) == [0, 1, 2, 2, 1, 0]
    assert s.phase == "movement"
    assert s.to_move == 0
    # and with 2 players and 3 penguins, 0, 1, 1, 0, 0, 1: player 0 again
    s = impl.new_game(ones(4, 6), players=2, penguins=3, order="snake")
    assert _placement_sequence(s) == [0, 1, 1, 0, 0, 1]
    assert s.to_move == 0


def test_placements_follow_the_moves_played(impl):
    s = impl.new_game(ones(3, 3), players=2, penguins=2, order="snake")
    for cell in [(0, 0), (2, 2), (1, 1), (0, 2)]:
        s.play((None, cell))
    assert s.penguins() == [[(0, 0), (0, 2)], [(1, 1), (2, 2)]]


def test_placement_skipped_when_no_floe_is_left(impl):
    board = [[1, 1, 1, 2, 2, 2]]
    s = impl.new_game(board, players=2, penguins=2)
    assert _placement_sequence(s) == [0, 1, 0]
    # player 1's second placement is skipped: nowhere to put it
    assert [len(p) for p in s.penguins()] == [2, 1]
    assert s.phase == "movement"


def test_no_placement_at_all(impl):
    # no one-fish floe: nobody can place, every floe is unreachable, the game is over
    s = impl.new_game([[2, 3], [3, 2]], players=2, penguins=2)
    assert s.phase == "over"
    assert s.to_move is None
    assert s.board() == [[0, 0], [0, 0]]
    assert s.scores() == [(0, 0), (0, 0)]
    assert s.ranking() == [1, 1]
    assert s.returns() == [0.0, 0.0]


def test_unreachable_floes_removed_when_placement_ends(impl):
    board = [[1, 2, 0, 1, 3], [0, 0, 0, 0, 0], [1, 1, 0, 0, 2]]
    s = impl.new_game(board, players=2, penguins=1)
    s.play((None, (0, 3)))
    assert s.board() == board  # no removal during placement
    s.play((None, (0, 0)))
    # the group (2, 0), (2, 1) and the lone (2, 4) hold no penguin
    assert s.board() == [[1, 2, 0, 1, 3], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]
    assert s.phase == "movement"
    assert s.to_move == 0
    assert s.moves() == {((0, 3), (0, 4))}


def test_stuck_player_lifted_when_movement_starts(impl):
    # player 0 is placed where it cannot move: lifted at once, player 1 starts
    board = [[1, 0, 1, 1]]
    s = impl.new_game(board, players=2, penguins=1)
    s.play((None, (0, 0)))
    s.play((None, (0, 2)))
    assert s.phase == "movement"
    assert s.to_move == 1
    assert s.scores() == [(1, 1), (0, 0)]
    assert s.moves() == {((0, 2), (0, 3))}


# --------------------------------------------------------------------------- engine API


def test_standard_board(pv):
    game = pv.Fish()
    assert (game.players, game.penguins, game.rows, game.cols) == (2, 4, 8, 8)
    assert game.placement == "one-fish"
    assert game.order == "round-robin"
    state = game.new_state(seed=7)
    board = state.board
    assert board.shape == (8, 8)
    assert np.issubdtype(board.dtype, np.integer)
    for r in range(0, 8, 2):
        assert board[r, 7] == 0
    counts = {n: int((board == n).sum()) for n in range(4)}
    assert counts == {0: 4, 1: 30, 2: 20, 3: 10}
    # placements: exactly the one-fish floes
    ones_cells = {(r, c) for r in range(8) for c in range(8) if board[r, c] == 1}
    assert {_cell(m.dst) for m in state.legal_moves()} == ones_cells
    assert all(m.src is None for m in state.legal_moves())
    assert state.penguins == [[], []]
    assert state.scores == [(0, 0), (0, 0)]


def test_standard_board_seeds(pv):
    game = pv.Fish()
    boards = [game.new_state(seed=s).board for s in range(5)]
    assert np.array_equal(boards[0], game.new_state(seed=0).board)
    assert len({b.tobytes() for b in boards}) == 5


@pytest.mark.parametrize("players, penguins", [(2, 4), (3, 3), (4, 2)])
def test_default_penguins(pv, players, penguins):
    game = pv.Fish(players=players)
    assert game.penguins == penguins
    state = game.new_state(seed=1)
    n = 0
    while state.phase == "placement":
        state.play(state.legal_moves()[0])
        n += 1
    assert n == players * penguins
    assert [len(p) for p in state.penguins] == [penguins] * players


def test_variants(pv):
    names = pv.variants()
    for name in ["fish", "fish-3p", "fish-4p", "fish-snake-any"]:
        assert name in names
    g = pv.Fish.variant("fish-4p")
    assert (g.players, g.penguins) == (4, 2)
    g = pv.Fish.variant("fish-3p")
    assert (g.players, g.penguins) == (3, 3)
    g = pv.Fish.variant("fish-snake-any")
    assert (g.placement, g.order) == ("any", "snake")
    with pytest.raises(ValueError):
        pv.Fish.variant("no-such-variant")


def test_from_config(pv, tmp_path):
    config = {
        "game": "fish",
        "players": 3,
        "penguins": 1,
        "placement": "any",
        "order": "snake",
        "board": [[1, 2], [3, 1]],
    }
    game = pv.Fish.from_config(config)
    assert (game.players, game.penguins, game.rows, game.cols) == (3, 1, 2, 2)
    assert (game.placement, game.order) == ("any", "snake")
    state = game.new_state(seed=3)
    assert state.board.tolist() == [[1, 2], [3, 1]]
    assert len(state.legal_moves()) == 4
    path = tmp_path / "three.toml"
    path.write_text(
        'game = "fish"\nplayers = 3\npenguins = 1\nplacement = "any"\norder = "snake"\n'
        "board = [[1, 2], [3, 1]]\n"
    )
    from_file = pv.Fish.from_config(str(path))
    assert (from_file.players, from_file.penguins, from_file.placement, from_file.order) == (
        3,
        1,
        "any",
        "snake",
    )
    assert from_file.new_state(seed=3) == state
    minimal = pv.Fish.from_config({"game": "fish"})
    assert (minimal.players, minimal.penguins, minimal.rows, minimal.cols) == (2, 4, 8, 8)


def test_custom_board_used_as_is(pv):
    board = [[1, 5, 0], [9, 1, 2]]
    game = pv.Fish(board=board, penguins=1)
    assert (game.rows, game.cols) == (2, 3)
    for seed in (0, 1, 2):
        assert game.new_state(seed=seed).board.tolist() == board


def test_numpy_views(pv):
    game = pv.Fish()
    state = game.new_state(seed=2)
    mask = state.legal_action_mask()
    assert mask.shape == (state.num_actions,)
    assert state.num_actions == game.num_actions
    assert mask.dtype == np.bool_
    assert list(np.flatnonzero(mask)) == state.legal_actions()
    assert state.legal_actions() == sorted(state.legal_actions())
    assert state.legal_actions() == [m.action for m in state.legal_moves()]
    board = state.board
    if board.flags.writeable:
        board[0, 0] = 99  # a copy: writing to it does not touch the state
    assert state.board[0, 0] != 99
    # a position on a smaller board has its own action space
    small = game.position(board=[[1, 1, 1], [1, 1, 1]], penguins=[[(0, 0)], [(1, 2)]])
    assert small.board.shape == (2, 3)
    assert small.legal_action_mask().shape == (small.num_actions,)
    assert small.legal_action_mask().sum() == len(small.legal_moves())


def test_moves(pv):
    state = pv.Fish(board=[[1, 2, 1], [2, 1, 2], [1, 1, 1]], penguins=1).new_state(seed=0)
    m = state.parse_move("b2")
    assert m.src is None and _cell(m.dst) == (1, 1)
    assert str(m) == "b2"
    state.play("b2")
    state.play("a1")
    m = state.parse_move("b2-c2")
    assert (_cell(m.src), _cell(m.dst)) == ((1, 1), (1, 2))
    assert str(m) == "b2-c2"
    assert m == state.parse_move("b2-c2")
    assert hash(m) == hash(state.parse_move("b2-c2"))
    assert m != state.parse_move("b2-a2")
    assert str(m) in repr(m)
    # (2, 3) is d3 in the notation of the brief
    assert _cell(pv.Fish(board=ones(3, 4), penguins=1).new_state(seed=0).parse_move("d3").dst) == (
        2,
        3,
    )


def test_text(pv):
    state = pv.Fish().new_state(seed=5)
    text = str(state)
    assert text.count("\n") >= 7  # a board of 8 rows
    for digit in "123":
        assert digit in text
    child = state.after(state.legal_moves()[0])
    assert str(state) != str(child)  # the penguin shows
    assert repr(state) != repr(child)
    assert "Fish" in repr(state)
    moved = pv.Fish(players=2).position(board=[[1, 2, 3]], penguins=[[(0, 0)], [(0, 2)]])
    assert str(moved) != str(moved.after("a1-b1"))


def test_text_board_tells_gaps_from_removed_floes():
    # A cell that never held a floe (h1 of the standard board, a 0 of a custom board) is blank;
    # a floe removed in play is "."; players are letters, as in the prompt "A (player 0)".
    s = pingvinas.Fish().position(
        board=[[1, 2, 0], [3, 1, 1]], penguins=[[(0, 0)], [(1, 2)]], to_move=0
    )
    assert str(s.after("a1-b1")).splitlines()[:3] == ["     a  b  c", " 1    .  A", " 2  3  1  B"]
    standard = str(pingvinas.Fish().new_state(seed=7)).splitlines()
    # Even rows end at g, half a hex right of the odd rows' h: no mark where h1 would be.
    assert all(len(standard[1 + r]) == len(standard[2]) - 1 for r in (0, 2, 4, 6))
    assert "." not in "".join(standard[1:9])
    assert standard[-1] == "A to move (placement)"


def test_after_and_copy_are_independent(pv):
    state = pv.Fish().new_state(seed=4)
    before = state.to_json()
    child = state.after(state.legal_moves()[0])
    assert state.to_json() == before
    assert child != state
    twin = state.copy()
    clone = state.clone()
    assert twin == state and clone == state and hash(twin) == hash(state)
    twin.play(twin.legal_moves()[-1])
    assert twin != state
    assert clone == state
    assert state.to_json() == before


# --------------------------------------------------------------------------- errors


def _assert_unchanged(state, snapshot):
    json_before, moves_before = snapshot
    assert state.to_json() == json_before
    assert [(m.src, m.dst) for m in state.legal_moves()] == moves_before


def _snapshot(state):
    return state.to_json(), [(m.src, m.dst) for m in state.legal_moves()]


def test_illegal_move_error_is_a_value_error(pv):
    assert issubclass(pv.IllegalMoveError, ValueError)


def test_illegal_moves_are_named_and_change_nothing(pv):
    game = pv.Fish(board=[[1, 2, 1], [2, 1, 2], [1, 1, 3]], penguins=1)
    state = game.new_state(seed=0)
    snap = _snapshot(state)
    # a placement on a two-fish floe
    with pytest.raises(pv.IllegalMoveError, match="b1"):
        state.play("b1")
    _assert_unchanged(state, snap)
    with pytest.raises(pv.IllegalMoveError, match="b1"):
        state.parse_move("b1")
    _assert_unchanged(state, snap)
    # an int action that is not legal here
    legal = set(state.legal_actions())
    bad = next(a for a in range(state.num_actions) if a not in legal)
    with pytest.raises(pv.IllegalMoveError, match=str(bad)):
        state.play(bad)
    _assert_unchanged(state, snap)
    with pytest.raises(pv.IllegalMoveError):
        state.apply_action(bad)
    _assert_unchanged(state, snap)
    # a move object from another position
    state.play("a1")
    snap = _snapshot(state)
    other = game.new_state(seed=0)
    old = other.parse_move("a1")
    with pytest.raises(pv.IllegalMoveError, match="a1"):
        state.play(old)
    _assert_unchanged(state, snap)
    # a slide during placement
    with pytest.raises(pv.IllegalMoveError, match="a1-a2"):
        state.play("a1-a2")
    _assert_unchanged(state, snap)
    # after(...) raises the same way and leaves the state alone
    with pytest.raises(pv.IllegalMoveError):
        state.after(old)
    _assert_unchanged(state, snap)


def test_illegal_slides(pv):
    game = pv.Fish(players=2)
    state = game.position(board=[[1, 1, 0, 1], [1, 1, 1, 1]], penguins=[[(0, 0)], [(1, 3)]])
    snap = _snapshot(state)
    for text in ["a1-d1", "a1-c1", "d2-c2", "a1-a1", "b1-c1", "a1-b2-c2"]:
        with pytest.raises(ValueError):
            state.play(text)
        _assert_unchanged(state, snap)
    with pytest.raises(pv.IllegalMoveError, match="a1-d1"):
        state.play("a1-d1")  # over a gap
    with pytest.raises(pv.IllegalMoveError, match="d2-c2"):
        state.play("d2-c2")  # not player 1's turn
    _assert_unchanged(state, snap)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "z9",
        "a0",
        "a1-",
        "-a1",
        "a1--b1",
        "hello",
        "a1 b1",
        "1a",
        "a-1",
        "a99999999999999999999",
    ],
)
def test_malformed_notation(pv, text):
    state = pv.Fish().new_state(seed=0)
    snap = _snapshot(state)
    with pytest.raises(ValueError):
        state.play(text)
    with pytest.raises(ValueError):
        state.parse_move(text)
    _assert_unchanged(state, snap)


@pytest.mark.parametrize("bad", [None, 1.5, [0, 1], (0, 1), b"a1", {"src": None}])
def test_wrong_types(pv, bad):
    state = pv.Fish().new_state(seed=0)
    snap = _snapshot(state)
    with pytest.raises(TypeError):
        state.play(bad)
    _assert_unchanged(state, snap)


def test_out_of_range_actions(pv):
    # An action number that denotes no move is invalid, not illegal.
    state = pv.Fish().new_state(seed=0)
    snap = _snapshot(state)
    for a in [-1, state.num_actions, state.num_actions + 1, 2**40, 2**80, -(2**80)]:
        with pytest.raises(pv.InvalidMoveError, match="not in the action space"):
            state.play(a)
        _assert_unchanged(state, snap)


def test_moves_after_the_end(pv):
    state = pv.Fish(players=2).position(board=[[2, 0, 2]], penguins=[[(0, 0)], [(0, 2)]])
    assert state.is_over
    assert state.legal_moves() == [] and state.legal_actions() == []
    assert not state.legal_action_mask().any()
    snap = _snapshot(state)
    with pytest.raises(pv.IllegalMoveError):
        state.play(0)
    _assert_unchanged(state, snap)


NEGATIVE = (ValueError, OverflowError)  # a negative number may fail as an unsigned conversion


@pytest.mark.parametrize(
    "board, penguins, to_move, errors",
    [
        ([[1, 0, 1]], [[(0, 1)], [(0, 2)]], 0, ValueError),  # penguin on a gap
        ([[1, 1, 1]], [[(0, 1)], [(0, 1)]], 0, ValueError),  # two penguins on one floe
        ([[1, 1, 1]], [[(0, 1), (0, 1)], [(0, 2)]], 0, ValueError),  # the same, for one player
        ([[1, 1, 1]], [[(0, 3)], [(0, 2)]], 0, ValueError),  # off the board (column)
        ([[1, 1, 1]], [[(1, 0)], [(0, 2)]], 0, ValueError),  # off the board (row)
        ([[1, 1, 1]], [[(-1, 0)], [(0, 2)]], 0, NEGATIVE),  # negative row
        ([[1, 1, 1]], [[(0, -1)], [(0, 2)]], 0, NEGATIVE),  # negative column
        ([[1, 1, 1]], [[(0, 0)], [(0, 2)]], 2, ValueError),  # to_move is not a player
        ([[1, 1, 1]], [[(0, 0)], [(0, 2)]], -1, NEGATIVE),  # to_move is not a player
        ([[1, 1, 1]], [[(0, 0)]], 0, ValueError),  # one player list for a 2-player game
        ([[1, 1, 1]], [[(0, 0)], [(0, 1)], [(0, 2)]], 0, ValueError),  # three for 2 players
        ([[1, 1, 1], [1, 1]], [[(0, 0)], [(0, 2)]], 0, ValueError),  # ragged board
        ([], [[], []], 0, ValueError),  # empty board
        ([[1, -1, 1]], [[(0, 0)], [(0, 2)]], 0, NEGATIVE),  # negative fish
        ([[1, 1, 1]], [[(0, 0, 0)], [(0, 2)]], 0, (ValueError, TypeError)),  # 3 coordinates
    ],
)
def test_malformed_positions(pv, board, penguins, to_move, errors):
    game = pv.Fish(players=2)
    with pytest.raises(errors):
        game.position(board=board, penguins=penguins, to_move=to_move)


@pytest.mark.parametrize(
    "kwargs, errors",
    [
        ({"players": 1}, ValueError),
        ({"players": 5}, ValueError),
        ({"players": 0}, ValueError),
        ({"players": -2}, NEGATIVE),
        ({"penguins": 0}, ValueError),
        ({"penguins": -1}, NEGATIVE),
        ({"placement": "two-fish"}, ValueError),
        ({"order": "random"}, ValueError),
        ({"board": [[1, 2], [1]]}, ValueError),
        ({"board": []}, ValueError),
        ({"board": [[]]}, ValueError),
        ({"board": [[1, -2]]}, NEGATIVE),
    ],
)
def test_malformed_games(pv, kwargs, errors):
    with pytest.raises(errors):
        pv.Fish(**kwargs)


@pytest.mark.parametrize(
    "text",
    ["", "{", "[]", "null", "42", '"fish"', "{}", '{"board": 1}', "{'a': 1}", "\x00", '{"a":1}}'],
)
def test_broken_json(pv, text):
    with pytest.raises(ValueError):
        pv.FishState.from_json(text)


def test_json_with_wrong_values(pv):
    state = pv.Fish().new_state(seed=0)
    for _ in range(3):
        state.play(state.legal_moves()[0])
    data = json.loads(state.to_json())
    assert isinstance(data, dict)
    assert pv.FishState.from_json(json.dumps(data)) == state
    rejected = 0
    for key in list(data):
        variants = [{k: v for k, v in data.items() if k != key}]
        for value in [None, -1, "x", [], {}, [[1, 2], [3]], 10**30, 1.5]:
            variants.append({**data, key: value})
        for broken in variants:
            try:
                loaded = pv.FishState.from_json(json.dumps(broken))
            except (ValueError, TypeError, OverflowError, KeyError):
                rejected += 1
                continue
            # accepted: then it must be a usable state
            assert loaded.to_json()
            loaded.legal_moves()
    assert rejected > 0


def test_pickle_and_json_round_trip(pv):
    state = pv.Fish(players=3).new_state(seed=11)
    for _ in range(12):
        state.play(state.legal_moves()[-1])
    for twin in (pickle.loads(pickle.dumps(state)), pv.FishState.from_json(state.to_json())):
        assert twin == state
        assert hash(twin) == hash(state)
        assert twin.legal_actions() == state.legal_actions()
        assert twin.scores == state.scores
        assert twin.to_json() == state.to_json()


def test_reference_move_names():
    assert move_name((None, (0, 0))) == "a1"
    assert move_name((None, (2, 3))) == "d3"
    assert move_name(((0, 0), (0, 2))) == "a1-c1"


# ----------------------------------------------------------------------- properties on custom games
#
# The contract of ``contract.py`` (checked on the bundled variants by ``test_contract.py``) on
# games no variant covers: small custom boards with random rules and 2 to 4 players, plus the
# Fish-specific shape of moves and notation.

PROPERTY_SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)


@st.composite
def custom_boards(draw, max_rows=6, max_cols=6):
    rows = draw(st.integers(1, max_rows))
    cols = draw(st.integers(1, max_cols))
    cells = draw(st.lists(st.integers(0, 4), min_size=rows * cols, max_size=rows * cols))
    board = [cells[r * cols : (r + 1) * cols] for r in range(rows)]
    if not any(cells):
        board[0][0] = 1
    return board


@st.composite
def custom_games(draw):
    if draw(st.booleans()):
        return pingvinas.Fish(players=draw(st.integers(2, 4)))
    return pingvinas.Fish(
        players=draw(st.integers(2, 4)),
        penguins=draw(st.integers(1, 4)),
        board=draw(custom_boards()),
        placement=draw(st.sampled_from(["one-fish", "any"])),
        order=draw(st.sampled_from(["round-robin", "snake"])),
    )


@st.composite
def custom_states(draw):
    """A state somewhere in a random game of a random custom game (its start and end too)."""
    game = draw(custom_games())
    state = game.new_state(seed=draw(st.integers(0, 2**32 - 1)))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    return contract.play_random(state, rng, draw(st.integers(0, 200)))


def _key(move):
    return (_cell(move.src), _cell(move.dst))


@PROPERTY_SETTINGS
@given(custom_states())
def test_contract_on_custom_games(state):
    contract.check_state(state)


@PROPERTY_SETTINGS
@given(custom_states())
def test_moves_have_the_shape_of_their_phase(state):
    moves = state.legal_moves()
    assert len({_key(m) for m in moves}) == len(moves)
    assert len(set(moves)) == len(moves)
    assert len({str(m) for m in moves}) == len(moves)
    mine = [tuple(c) for c in state.penguins[state.to_move]] if not state.is_over else []
    for m in moves:
        text = str(m)
        assert _key(state.parse_move(text)) == _key(m)
        if state.phase == "placement":
            assert m.src is None and m.is_placement and "-" not in text
        else:
            assert _cell(m.src) in mine and not m.is_placement and text.count("-") == 1


@PROPERTY_SETTINGS
@given(custom_states())
def test_json_keeps_every_field(state):
    twin = pingvinas.FishState.from_json(state.to_json())
    assert (twin.to_move, twin.phase, twin.scores, twin.penguins) == (
        state.to_move,
        state.phase,
        state.scores,
        state.penguins,
    )
    assert np.array_equal(twin.board, state.board)


NOTATION_LIKE = st.from_regex(r"[a-m][0-9]{1,2}(-[a-m][0-9]{1,2})?", fullmatch=True)


@PROPERTY_SETTINGS
@given(custom_states(), st.one_of(st.text(max_size=12), NOTATION_LIKE))
def test_notation_like_text_is_a_legal_move_or_rejected(state, text):
    snap = contract.snapshot(state)
    children = {c.to_json() for c in map(state.after, state.legal_moves())}
    try:
        state.play(text)
    except ValueError:
        contract.assert_unchanged(state, snap)
        with pytest.raises(ValueError):
            state.parse_move(text)
        contract.assert_unchanged(state, snap)
    else:
        assert state.to_json() in children  # accepted: then it was one of the legal moves
