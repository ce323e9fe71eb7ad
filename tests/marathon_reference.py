"""A pure-Python reference model of Penguin Marathon, written from RULES.md (Game 2) alone.

It is deliberately simple (tuples, dicts, loops) and slow; it exists so that the tests can
check the Rust engine against an independent reading of the rules.

Positions
---------
A piece is the tuple ``(owner, kind, status, cell, facing)``:

- ``owner``: player index, ``kind``: ``"mama"`` | ``"papa"`` | ``"baby"``;
- ``status``: ``"waiting"`` | ``"on course"`` | ``"finished"``;
- ``cell``: ``(row, col)`` when on the course, else ``None``;
- ``facing``: ``None`` when upright (and always when off the course), else one of the 8
  direction names.

A position's pieces are a tuple of such pieces sorted by owner, then mama, papa, baby:
:func:`canon_pieces` gives the same canonical form for the engine's ``state.pieces``.

Decisions where RULES.md leaves room (see also the test report):

- A step *crosses the finish line* when it leaves a cell of the last row (the cells whose outer
  edge is the finish line) in a direction with a component across that edge (straight or either
  diagonal); for the bundled courses this is exactly "into one of the cells beyond the finish
  line, corners included".
- Plies count actions only; an automatic skip is not a ply.
- When the game is over, ``to_move`` is ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Directions clockwise from north; index i is i * 45 degrees.
DIR_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
DIRS = {
    "N": (-1, 0),
    "NE": (-1, 1),
    "E": (0, 1),
    "SE": (1, 1),
    "S": (1, 0),
    "SW": (1, -1),
    "W": (0, -1),
    "NW": (-1, -1),
}
KINDS = ("mama", "papa", "baby")
DISTANCE = {"mama": 1, "papa": 2, "baby": 3}
KIND_ORDER = {k: i for i, k in enumerate(KINDS)}

WAITING = "waiting"
ON_COURSE = "on course"
FINISHED = "finished"


def rotate(direction: str, k: int) -> str:
    """``direction`` turned by ``k`` x 45 degrees clockwise (k may be negative)."""
    return DIR_NAMES[(DIR_NAMES.index(direction) + k) % 8]


def add(cell, direction):
    dr, dc = DIRS[direction]
    return (cell[0] + dr, cell[1] + dc)


@dataclass(frozen=True)
class Course:
    """A course: its cells, its first row (start line outside it) and last row (finish line)."""

    name: str
    cells: frozenset
    start_cells: tuple  # the first-row cells, each with the start line on its outer edge
    start_inward: str  # the direction a straight entry moves in ("S" when entering from above)
    finish_cells: tuple  # the last-row cells, each with the finish line on its outer edge
    finish_outward: str  # the direction that crosses the finish line straight

    def entry_points(self):
        """(entry cell outside the start line, first-row cell in front of it) pairs."""
        back = rotate(self.start_inward, 4)
        return [(add(c, back), c) for c in self.start_cells]

    def crosses_finish(self, cell, direction) -> bool:
        if cell not in self.finish_cells:
            return False
        fr, fc = DIRS[self.finish_outward]
        dr, dc = DIRS[direction]
        return fr * dr + fc * dc > 0

    def draw(self) -> str:
        rows = [r for r, _ in self.cells]
        cols = [c for _, c in self.cells]
        lines = []
        for r in range(min(rows), max(rows) + 1):
            lines.append(
                "".join(
                    "x" if (r, c) in self.cells else " " for c in range(min(cols), max(cols) + 1)
                )
            )
        return "\n".join(lines)


def _rect(r0, r1, c0, c1):
    return {(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)}


def _make_courses():
    courses = {}
    courses["marathon"] = Course(
        "marathon",
        frozenset(_rect(0, 11, 0, 2)),
        tuple((0, c) for c in range(3)),
        "S",
        tuple((11, c) for c in range(3)),
        "S",
    )
    courses["marathon-5"] = Course(
        "marathon-5",
        frozenset(_rect(0, 14, 0, 2)),
        tuple((0, c) for c in range(3)),
        "S",
        tuple((14, c) for c in range(3)),
        "S",
    )
    # Upside-down L: a bar of two coasters on top (rows 0-2, cols 0-5) and a stem of two coasters
    # under the left one (rows 3-8, cols 0-2). Start below row 8 (enter moving N), finish right
    # of col 5 in rows 0-2.
    courses["marathon-l"] = Course(
        "marathon-l",
        frozenset(_rect(0, 2, 0, 5) | _rect(3, 8, 0, 2)),
        tuple((8, c) for c in range(3)),
        "N",
        tuple((r, 5) for r in range(3)),
        "E",
    )
    # Zigzag: rows 0-2 cols 0-2; rows 3-5 cols 0-5; rows 6-8 cols 3-5. Start above row 0,
    # finish below row 8 (cols 3-5).
    courses["marathon-zigzag"] = Course(
        "marathon-zigzag",
        frozenset(_rect(0, 2, 0, 2) | _rect(3, 5, 0, 5) | _rect(6, 8, 3, 5)),
        tuple((0, c) for c in range(3)),
        "S",
        tuple((8, c) for c in range(3, 6)),
        "S",
    )
    return courses


def course_from_map(name: str, text: str) -> Course:
    """A course from an ASCII map: ``#`` a cell, ``S`` a place just outside the start line,
    ``F`` a place just beyond the finish line (anything else: no cell). Coordinates count from
    the top-left course cell. Only for well-formed maps: nothing is validated here."""
    cells, starts, finishes = set(), [], []
    for r, line in enumerate(text.split("\n")):
        for c, ch in enumerate(line):
            if ch == "#":
                cells.add((r, c))
            elif ch == "S":
                starts.append((r, c))
            elif ch == "F":
                finishes.append((r, c))
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    cells = {(r - r0, c - c0) for r, c in cells}

    def beside(place):
        place = (place[0] - r0, place[1] - c0)
        for d in ("N", "E", "S", "W"):
            if add(place, d) in cells:
                return add(place, d), d
        raise ValueError(f"{place} is not beside a cell")

    start = [beside(p) for p in starts]
    finish = [beside(p) for p in finishes]
    return Course(
        name,
        frozenset(cells),
        tuple(sorted(c for c, _ in start)),
        start[0][1],  # from the S place onto its cell: the way pieces enter
        tuple(sorted(c for c, _ in finish)),
        rotate(finish[0][1], 4),  # from the cell out onto the F place
    )


COURSES = _make_courses()
ALIASES = {
    "standard": "marathon",
    "marathon": "marathon",
    "5": "marathon-5",
    "marathon-5": "marathon-5",
    "l": "marathon-l",
    "marathon-l": "marathon-l",
    "zigzag": "marathon-zigzag",
    "marathon-zigzag": "marathon-zigzag",
}


def course(name: str) -> Course:
    return COURSES[ALIASES[name]]


def sort_pieces(pieces):
    """The canonical order: by owner, then mama, papa, baby (the order ``state.pieces`` is
    documented to use)."""
    return tuple(sorted(pieces, key=lambda p: (p[0], KIND_ORDER[p[1]])))


def _get(obj, name):
    if isinstance(obj, dict):
        return obj[name]
    return getattr(obj, name)


def canon_piece(p):
    """An engine piece (object with attributes, a dict, or a tuple) as a reference piece tuple."""
    if isinstance(p, tuple):
        owner, kind, status, cell, facing = p
    else:
        owner, kind, status, cell, facing = (
            _get(p, "owner"),
            _get(p, "kind"),
            _get(p, "status"),
            _get(p, "cell"),
            _get(p, "facing"),
        )
    cell = None if cell is None else (int(cell[0]), int(cell[1]))
    return (int(owner), str(kind), str(status), cell, None if facing is None else str(facing))


def canon_pieces(pieces):
    return sort_pieces(canon_piece(p) for p in pieces)


@dataclass(frozen=True)
class State:
    pieces: tuple
    to_move: int | None
    ply: int
    over: bool = False
    winner: int | None = None

    def key(self):
        """What two positions must share to be the same position (the engine's reachable set)."""
        return (self.pieces, self.to_move)

    def piece(self, owner, kind):
        for p in self.pieces:
            if p[0] == owner and p[1] == kind:
                return p
        raise KeyError((owner, kind))


@dataclass(frozen=True)
class Action:
    """One raw action (before positions are deduplicated)."""

    owner: int
    kind: str
    type: str  # "slide" | "enter" | "stand"
    direction: str | None = None
    entry: tuple | None = None  # entry cell outside the start line (for "enter")
    result: str = ""  # "lying" | "stopped" | "finished" | "stood"
    cell: tuple | None = None
    facing: str | None = None


@dataclass
class Marathon:
    course_name: str = "marathon"  # a bundled course, an ASCII map, or a Course
    players: int = 2
    ply_limit: int = 500
    course: Course = field(init=False)

    def __post_init__(self):
        if not 2 <= self.players <= 5:
            raise ValueError("players must be 2 to 5")
        if isinstance(self.course_name, Course):
            self.course = self.course_name
        elif "#" in self.course_name:
            self.course = course_from_map("custom", self.course_name)
        else:
            self.course = course(self.course_name)

    # ----------------------------------------------------------------------------- positions
    def initial(self) -> State:
        pieces = sort_pieces(
            (o, k, WAITING, None, None) for o in range(self.players) for k in KINDS
        )
        return State(pieces, 0, 0)

    def position(self, pieces, to_move=0, ply=0) -> State:
        """A position from piece tuples; the player to move is skipped on as in play."""
        return self._settle(sort_pieces(pieces), ply, first=to_move)

    # ----------------------------------------------------------------------------- rules
    def _slide(self, occupied, start, direction, distance):
        """Slide from ``start`` (a course cell, or an entry point outside the start line).

        Returns None if illegal, ("finished",), ("stopped", cell) or ("lying", cell).
        """
        cells = self.course.cells
        cur = start
        steps = 0
        for _ in range(distance):
            nxt = add(cur, direction)
            if nxt in cells:
                if nxt in occupied:
                    return None  # blocked: no pushing, no stopping short
                cur = nxt
                steps += 1
                continue
            # The step leaves the course.
            if cur in cells and self.course.crosses_finish(cur, direction):
                return ("finished",)
            if steps == 0:
                return None  # cannot move even one cell (or a diagonal entry off the course)
            return ("stopped", cur)
        return ("lying", cur)

    def actions(self, st: State, player: int | None = None):
        """All raw actions of ``player`` (default: the player to move) with their resulting
        piece tuples, *before* turn passing: a list of (Action, new pieces)."""
        return list(self.iter_actions(st, player))

    def iter_actions(self, st: State, player: int | None = None):
        if player is None:
            player = st.to_move
        if player is None:
            return
        occupied = {p[3] for p in st.pieces if p[2] == ON_COURSE}
        for idx, (owner, kind, status, cell, facing) in enumerate(st.pieces):
            if owner != player:
                continue
            dist = DISTANCE[kind]
            starts = []  # (start point, direction, entry point or None)
            if status == ON_COURSE:
                dirs = DIR_NAMES if facing is None else (facing,)
                starts = [(cell, d, None) for d in dirs]
                if facing is not None:
                    new = list(st.pieces)
                    new[idx] = (owner, kind, ON_COURSE, cell, None)
                    yield (Action(owner, kind, "stand", result="stood", cell=cell), tuple(new))
            elif status == WAITING:
                inward = self.course.start_inward
                for entry, _first in self.course.entry_points():
                    for d in (rotate(inward, -1), inward, rotate(inward, 1)):
                        starts.append((entry, d, entry))
            for start, d, entry in starts:
                occ = occupied - {cell} if cell is not None else occupied
                res = self._slide(occ, start, d, dist)
                if res is None:
                    continue
                typ = "slide" if entry is None else "enter"
                if res[0] == "finished":
                    results = [(FINISHED, None, None)]
                elif res[0] == "stopped":
                    results = [(ON_COURSE, res[1], None)]
                else:
                    results = [(ON_COURSE, res[1], rotate(d, k)) for k in range(-dist, dist + 1)]
                for status2, cell2, facing2 in results:
                    new = list(st.pieces)
                    new[idx] = (owner, kind, status2, cell2, facing2)
                    result = {FINISHED: "finished"}.get(status2, "lying" if facing2 else "stopped")
                    yield (Action(owner, kind, typ, d, entry, result, cell2, facing2), tuple(new))

    def has_action(self, pieces, player) -> bool:
        if any(p[0] == player and p[4] is not None for p in pieces):
            return True  # a lying piece can always stand (a shortcut: iter_actions says so too)
        return next(self.iter_actions(State(pieces, player, 0), player), None) is not None

    def _pass_turn(self, pieces, ply, first):
        """The turn passes to the first player, from ``first`` on round all players, who has a
        legal action; if nobody has, the game is a draw."""
        for i in range(self.players):
            p = (first + i) % self.players
            if self.has_action(pieces, p):
                return State(pieces, p, ply)
        return State(pieces, None, ply, True, None)  # nobody can act: draw

    def _settle(self, pieces, ply, first):
        """A built position: a win, the ply-limit draw, or ``first`` to move (skipped on if
        they have no legal action)."""
        for p in range(self.players):
            if all(pc[2] == FINISHED for pc in pieces if pc[0] == p):
                return State(pieces, None, ply, True, p)
        if ply >= self.ply_limit:
            return State(pieces, None, ply, True, None)
        return self._pass_turn(pieces, ply, first)

    def apply(self, st: State, new_pieces) -> State:
        """The position after the player to move's action gave ``new_pieces``."""
        mover = st.to_move
        pieces = sort_pieces(new_pieces)
        ply = st.ply + 1
        if all(pc[2] == FINISHED for pc in pieces if pc[0] == mover):
            return State(pieces, None, ply, True, mover)  # a win on the last ply counts
        if ply >= self.ply_limit:
            return State(pieces, None, ply, True, None)
        return self._pass_turn(pieces, ply, (mover + 1) % self.players)

    def successors(self, st: State):
        """The legal moves as a dict: position key -> resulting State (deduplicated)."""
        if st.over:
            return {}
        out = {}
        for new in {new for _action, new in self.iter_actions(st)}:
            child = self.apply(st, new)
            out[child.key()] = child
        return out

    # ----------------------------------------------------------------------------- results
    def ranking(self, st: State):
        """Places per player (1 = first); None while the game is on."""
        if not st.over:
            return None
        if st.winner is None:
            return [1] * self.players
        return [1 if p == st.winner else 2 for p in range(self.players)]

    def returns(self, st: State):
        places = self.ranking(st)
        if places is None:
            return [0.0] * self.players
        n = self.players
        out = []
        for i in range(n):
            below = sum(1 for j in range(n) if places[j] > places[i])
            above = sum(1 for j in range(n) if places[j] < places[i])
            out.append((below - above) / (n - 1))
        return out


def opening_move_count(course_name: str, players: int = 2) -> int:
    m = Marathon(course_name, players)
    return len(m.successors(m.initial()))


if __name__ == "__main__":  # a quick self-check
    for name in COURSES:
        print(name, opening_move_count(name))
        print(COURSES[name].draw())
