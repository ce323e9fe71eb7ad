"""A pure-Python reference model of the Fish rules, for differential tests.

Written from ``RULES.md`` (Game 1) and the engine's documented decisions, and
deliberately naive: floes are a dict ``{(row, col): fish}``, penguins a dict
``{(row, col): player}``, and every rule is a plain loop over cells. It shares
no code with the Rust engine; speed only matters in that the differential test
plays thousands of games through it.

Conventions (the same as the engine's):

* A cell is ``(row, col)``, row 0 at the top, in the "even-r" offset layout
  (even rows are shifted half a hex to the right).
* The six directions, indices 0..5, are E, NE, NW, W, SW, SE.
* A move is a tuple ``(src, dst)``; ``src`` is ``None`` for a placement.
* Scores are ``(fish, floes)`` per player.
* Placement: ``P`` players with ``N`` penguins each get ``P * N`` turns, given
  out ``round-robin`` (turn ``t`` -> player ``t % P``) or ``snake`` (round
  ``t // P`` even: ``t % P``, odd: ``P - 1 - t % P``). As soon as there is no
  free eligible floe at a placement turn, every remaining placement is skipped.
* When placement ends the unreachable floes go, and movement starts with
  player 0 (lifted and passed on if stuck, like any turn).
"""

from __future__ import annotations

import functools
import random

PLACEMENTS = ("one-fish", "any")
ORDERS = ("round-robin", "snake")
DIRECTIONS = ("E", "NE", "NW", "W", "SW", "SE")
DEFAULT_PENGUINS = {2: 4, 3: 3, 4: 2}


def step(cell, direction):
    """The neighbour of ``cell`` in ``direction`` (0..5), on an unbounded grid."""
    r, c = cell
    even = r % 2 == 0
    if direction == 0:  # E
        return (r, c + 1)
    if direction == 1:  # NE
        return (r - 1, c + 1) if even else (r - 1, c)
    if direction == 2:  # NW
        return (r - 1, c) if even else (r - 1, c - 1)
    if direction == 3:  # W
        return (r, c - 1)
    if direction == 4:  # SW
        return (r + 1, c) if even else (r + 1, c - 1)
    if direction == 5:  # SE
        return (r + 1, c + 1) if even else (r + 1, c)
    raise ValueError(f"no direction {direction!r}")


@functools.cache
def neighbours(cell):
    """The six cells around ``cell``, floes or not (a tuple, cached: it is
    the reference's hottest function)."""
    return tuple(step(cell, d) for d in range(6))


def standard_cells():
    """The 60 cells of the standard board: 8 x 8, without ``(even row, 7)``."""
    return [(r, c) for r in range(8) for c in range(8) if not (r % 2 == 0 and c == 7)]


def standard_board(seed=None):
    """A shuffled standard board as a grid (8 lists of 8 fish counts, 0 = gap)."""
    fish = [1] * 30 + [2] * 20 + [3] * 10
    random.Random(seed).shuffle(fish)
    grid = [[0] * 8 for _ in range(8)]
    for (r, c), n in zip(standard_cells(), fish):
        grid[r][c] = n
    return grid


def column_name(c):
    """Letters of column ``c`` (from 0): ``a`` to ``z``, then ``aa``, ``ab``, ... as in
    spreadsheets."""
    name = ""
    c += 1
    while c:
        c, rem = divmod(c - 1, 26)
        name = chr(ord("a") + rem) + name
    return name


def cell_name(cell):
    """Notation of a cell: column letters, then the 1-based row (row 1 at the top)."""
    r, c = cell
    return f"{column_name(c)}{r + 1}"


def move_name(move):
    """Notation of a move: ``"d3"`` for a placement, ``"a1-c1"`` for a slide."""
    src, dst = move
    if src is None:
        return cell_name(dst)
    return f"{cell_name(src)}-{cell_name(dst)}"


class FishReference:
    """One game of Fish, played by the rules and nothing else.

    :param board: a rectangular grid (list of rows) of fish counts, 0 = gap.
    :param players: 2, 3 or 4.
    :param penguins: penguins per player (default 4/3/2 for 2/3/4 players).
    :param placement: ``"one-fish"`` or ``"any"``.
    :param order: ``"round-robin"`` or ``"snake"``.

    A new game is in the placement phase with player 0 to move (or already
    further on if nobody can place). Use :meth:`from_position` for a
    movement-phase position.
    """

    def __init__(self, board, players=2, penguins=None, placement="one-fish", order="round-robin"):
        if players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4, not {players!r}")
        if penguins is None:
            penguins = DEFAULT_PENGUINS[players]
        if penguins < 1:
            raise ValueError(f"penguins must be at least 1, not {penguins!r}")
        if placement not in PLACEMENTS:
            raise ValueError(f"unknown placement {placement!r}")
        if order not in ORDERS:
            raise ValueError(f"unknown order {order!r}")
        self.players = players
        self.penguins_each = penguins
        self.placement = placement
        self.order = order
        self._set_board(board)
        self.owner = {}  # cell -> player, for every penguin on the board
        self.score = [[0, 0] for _ in range(players)]  # [fish, floes]
        self.phase = "placement"
        self.to_move = None
        self.placement_turn = 0
        self._start_placement_turn()

    @classmethod
    def from_position(cls, board, penguins, to_move=0):
        """A movement-phase position, as ``game.position(board, penguins, to_move)``.

        ``penguins`` is a list (one per player) of lists of cells. The
        unreachable floes are removed, and the turn passes on at once if the
        player to move is stuck or has no penguins.
        """
        players = len(penguins)
        self = cls.__new__(cls)
        if players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4, not {players!r}")
        if not 0 <= to_move < players:
            raise ValueError(f"to_move {to_move!r} is not a player")
        self.players = players
        self.penguins_each = max([len(p) for p in penguins] + [1])
        self.placement = "one-fish"
        self.order = "round-robin"
        self._set_board(board)
        self.owner = {}
        for player, cells in enumerate(penguins):
            for cell in cells:
                cell = tuple(cell)
                if cell not in self.fish:
                    raise ValueError(f"penguin on {cell!r}, which is not a floe")
                if cell in self.owner:
                    raise ValueError(f"two penguins on {cell!r}")
                self.owner[cell] = player
        self.score = [[0, 0] for _ in range(players)]
        self.phase = "movement"
        self.to_move = None
        self.placement_turn = players * self.penguins_each
        self._remove_unreachable()
        self._pass_turn_from(to_move)
        return self

    def _set_board(self, board):
        rows = len(board)
        if rows == 0 or len(board[0]) == 0:
            raise ValueError("empty board")
        cols = len(board[0])
        self.fish = {}  # cell -> fish, for every floe still in the game
        for r, row in enumerate(board):
            if len(row) != cols:
                raise ValueError("board is not rectangular")
            for c, n in enumerate(row):
                if n < 0:
                    raise ValueError(f"negative fish count at {(r, c)!r}")
                if n > 0:
                    self.fish[(r, c)] = n
        self.rows = rows
        self.cols = cols

    def copy(self):
        other = self.__class__.__new__(self.__class__)
        other.__dict__.update(self.__dict__)
        other.fish = dict(self.fish)
        other.owner = dict(self.owner)
        other.score = [list(s) for s in self.score]
        return other

    # ------------------------------------------------------------------ queries

    def board(self):
        """The fish grid: fish on every remaining floe, 0 for gaps and removed floes."""
        return [[self.fish.get((r, c), 0) for c in range(self.cols)] for r in range(self.rows)]

    def penguins(self):
        """Penguins on the board per player, each list sorted by (row, col)."""
        result = [[] for _ in range(self.players)]
        for cell, player in self.owner.items():
            result[player].append(cell)
        for cells in result:
            cells.sort()
        return result

    def scores(self):
        return [(fish, floes) for fish, floes in self.score]

    @property
    def is_over(self):
        return self.phase == "over"

    def placement_player(self, turn):
        p = self.players
        if self.order == "round-robin":
            return turn % p
        if (turn // p) % 2 == 0:
            return turn % p
        return p - 1 - turn % p

    def _is_free_floe(self, cell):
        return cell in self.fish and cell not in self.owner

    def _eligible_placements(self):
        cells = set()
        for cell, n in self.fish.items():
            if cell in self.owner:
                continue
            if self.placement == "any" or n == 1:
                cells.add(cell)
        return cells

    def _slides(self, src):
        """Every cell the penguin on ``src`` can slide to."""
        result = []
        for d in range(6):
            cell = step(src, d)
            while self._is_free_floe(cell):
                result.append(cell)
                cell = step(cell, d)
        return result

    def _can_move(self, player):
        for cell, owner in self.owner.items():
            if owner != player:
                continue
            for d in range(6):
                if self._is_free_floe(step(cell, d)):
                    return True
        return False

    def legal_moves(self):
        """The set of legal moves ``(src, dst)``; empty when the game is over."""
        if self.phase == "placement":
            return {(None, cell) for cell in self._eligible_placements()}
        if self.phase == "movement":
            moves = set()
            for cell, owner in self.owner.items():
                if owner == self.to_move:
                    for dst in self._slides(cell):
                        moves.add((cell, dst))
            return moves
        return set()

    def ranking(self):
        """Place per player, 1 = best, by (fish, floes); ties share a place."""
        keys = self.scores()
        return [1 + sum(1 for other in keys if other > mine) for mine in keys]

    def returns(self):
        """(players placed below - players placed above) / (players - 1), per player."""
        keys = self.scores()
        result = []
        for mine in keys:
            below = sum(1 for other in keys if other < mine)
            above = sum(1 for other in keys if other > mine)
            result.append((below - above) / (self.players - 1))
        return result

    # ------------------------------------------------------------------ changes

    def play(self, move, check=True):
        """Play ``(src, dst)``. With ``check``, an illegal move raises ValueError."""
        src, dst = move
        if check and (src, dst) not in self.legal_moves():
            raise ValueError(f"illegal move {move!r}")
        player = self.to_move
        if self.phase == "placement":
            self.owner[dst] = player
            self.placement_turn += 1
            self._start_placement_turn()
            return
        # movement: the penguin leaves its floe, which the mover keeps
        del self.owner[src]
        self.owner[dst] = player
        self.score[player][0] += self.fish.pop(src)
        self.score[player][1] += 1
        self._remove_unreachable()
        self._pass_turn_from(player + 1)

    def _start_placement_turn(self):
        if self.placement_turn < self.players * self.penguins_each and self._eligible_placements():
            self.to_move = self.placement_player(self.placement_turn)
            return
        # nobody can (or needs to) place any more
        self.placement_turn = self.players * self.penguins_each
        self.phase = "movement"
        self._remove_unreachable()
        self._pass_turn_from(0)

    def _pass_turn_from(self, first):
        """Give the turn to the first player from ``first`` on (cyclically) who
        has penguins; lift them if they are stuck and go on from the next one."""
        player = first % self.players
        while True:
            if not self.owner:
                self.phase = "over"
                self.to_move = None
                return
            while player not in self.owner.values():
                player = (player + 1) % self.players
            if self._can_move(player):
                self.to_move = player
                return
            self._lift(player)
            self._remove_unreachable()
            player = (player + 1) % self.players

    def _lift(self, player):
        for cell in [cell for cell, owner in self.owner.items() if owner == player]:
            del self.owner[cell]
            self.score[player][0] += self.fish.pop(cell)
            self.score[player][1] += 1

    def _remove_unreachable(self):
        """Remove every connected group of floes that holds no penguin: keep
        exactly the floes connected (6-neighbour adjacency, through floes) to
        a penguin's floe."""
        connected = set(self.owner)
        todo = list(self.owner)
        while todo:
            cell = todo.pop()
            for n in neighbours(cell):
                if n in self.fish and n not in connected:
                    connected.add(n)
                    todo.append(n)
        for cell in list(self.fish):
            if cell not in connected:
                del self.fish[cell]

    def __repr__(self):
        return (
            f"FishReference(phase={self.phase!r}, to_move={self.to_move!r}, "
            f"scores={self.scores()!r}, penguins={self.penguins()!r}, board={self.board()!r})"
        )
