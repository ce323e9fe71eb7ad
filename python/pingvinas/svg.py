"""Pictures of positions as SVG, for both games (in the manner of python-chess's ``chess.svg``).

>>> import pingvinas as pv
>>> state = pv.Fish().new_state(seed=7)
>>> state.play("b1")
>>> picture = state.svg(size=300)             # SVG text; Jupyter shows a state by itself
>>> picture.startswith("<svg")
True

Fish is drawn as pointy-topped hexes in the even-r layout (even rows shifted half a hex to the
right), each floe with its fish as dots, penguins as discs with their player's letter, the
coordinates of the notation along the edges (``a1`` top left) and the scores below. Penguin
Marathon is drawn as its course of 3x3 coasters with the start line (dashed) and the finish line
(chequered), each piece by size and colour: an upright piece is a triangle, a lying one an arrow
pointing where it faces, with 1 (baby), 2 (papa) or 3 (mama) pips; waiting and finished pieces
stand in a table beside the course.

Player colours come from the Okabe-Ito palette, which stays distinct for colour-blind readers;
each piece also carries its player's letter or sits in its player's row. The output is
deterministic: no random ids, fixed number formatting, the same text for the same position.
Elements carry ``class`` and ``data-cell`` attributes (``floe``, ``penguin``, ``cell``,
``piece``...; Fish cells in notation, ``a1``, Marathon cells as ``row,col``), and every
Marathon piece ``data-piece="owner kind"``, so that a page can find what is under a click.

:func:`state_svg` is what ``state.svg()`` calls, :func:`game` draws a whole game as a strip of
positions or an animation, :func:`to_png` writes a PNG and :func:`to_array` gives the pixels as
a numpy array (``render_mode="rgb_array"``); both need ``pip install 'pingvinas[png]'``.
"""

from __future__ import annotations

import math
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from typing import Any, Optional, Union

__all__ = ["PALETTE", "SvgText", "game", "state_svg", "to_array", "to_png"]

#: One colour per player: Okabe-Ito blue, vermillion, bluish green, reddish purple, orange.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00")
#: Text drawn on each player's colour (black where white would be faint).
_ON_PALETTE = ("#ffffff", "#ffffff", "#ffffff", "#000000", "#000000")
_LETTERS = "ABCDE"
_FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
_INK = "#1f1f1f"
_ARROW = "#000000"

Cell = tuple[int, int]


class SvgText(str):
    """SVG text that Jupyter shows as a picture."""

    def _repr_svg_(self) -> str:
        return str(self)


# --- small helpers ------------------------------------------------------------------------------


def _num(x: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros (deterministic text)."""
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _el(
    parent: Optional[ET.Element], tag: str, text: Optional[str] = None, /, **attrs: Any
) -> ET.Element:
    """An element with attributes in the order given (``stroke_width`` becomes ``stroke-width``,
    ``class_`` becomes ``class``; floats are formatted by :func:`_num`)."""
    values: dict[str, str] = {}
    for key, value in attrs.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        values[name] = _num(value) if isinstance(value, float) else str(value)
    e = ET.Element(tag, values) if parent is None else ET.SubElement(parent, tag, values)
    if text is not None:
        e.text = text
    return e


def _points(pts: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in pts)


def _player_disc(parent: ET.Element, x: float, y: float, player: int, r: float) -> None:
    """A player's disc in a legend: their colour with their letter (text 1 unit larger than
    the radius)."""
    _el(
        parent,
        "circle",
        cx=x,
        cy=y,
        r=r,
        fill=PALETTE[player % 5],
        stroke=_INK,
        stroke_width=1.0,
    )
    _text(
        parent,
        x,
        y,
        _LETTERS[player % 5],
        r + 1.0,
        fill=_ON_PALETTE[player % 5],
        font_weight="bold",
    )


def _text(parent: ET.Element, x: float, y: float, s: str, size: float, **attrs: Any) -> ET.Element:
    attrs.setdefault("text_anchor", "middle")
    attrs.setdefault("fill", _INK)
    return _el(
        parent,
        "text",
        s,
        x=x,
        y=y,
        font_size=size,
        font_family=_FONT,
        dominant_baseline="central",
        **attrs,
    )


def _arrow(
    parent: ET.Element,
    a: tuple[float, float],
    b: tuple[float, float],
    width: float,
    color: str,
    opacity: float,
    cls: str,
    end_gap: float = 0.0,
) -> None:
    """A straight arrow from ``a`` to ``b``: a shaft and a head, no markers (and so no ids).
    ``end_gap`` stops the head that far short of ``b``, at the edge of a piece standing there,
    so the head stays in sight (at most half the length goes)."""
    (x1, y1), (x2, y2) = a, b
    length = math.hypot(x2 - x1, y2 - y1)
    if length < 1e-9:
        return
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    gap = min(end_gap, length * 0.5)
    x2, y2, length = x2 - ux * gap, y2 - uy * gap, length - gap
    head = min(width * 2.6, length * 0.6)
    bx, by = x2 - ux * head, y2 - uy * head
    g = _el(parent, "g", class_=cls, fill=color, stroke=color, opacity=opacity)
    _el(g, "line", x1=x1, y1=y1, x2=bx, y2=by, stroke_width=width, stroke_linecap="round")
    px, py = -uy * width * 1.4, ux * width * 1.4
    _el(
        g,
        "polygon",
        points=_points([(x2, y2), (bx + px, by + py), (bx - px, by - py)]),
        stroke="none",
    )


def _root(width: float, height: float, size: Optional[float]) -> ET.Element:
    if size is not None:
        if isinstance(size, bool) or not isinstance(size, (int, float)) or not size > 0:
            raise ValueError(
                f"size = {size!r}: expected a positive number of pixels (the width) or None"
            )
        w, h = float(size), float(size) * height / width
    else:
        w, h = width, height
    return _el(
        None,
        "svg",
        xmlns="http://www.w3.org/2000/svg",
        version="1.1",
        width=_num(w),
        height=_num(h),
        viewBox=f"0 0 {_num(width)} {_num(height)}",
    )


def _tostring(root: ET.Element) -> SvgText:
    return SvgText(ET.tostring(root, encoding="unicode"))


def _cell(value: Any, what: str) -> Cell:
    try:
        r, c = value
        if isinstance(r, bool) or isinstance(c, bool):
            raise TypeError
        return (int(r), int(c))
    except (TypeError, ValueError):
        raise ValueError(f"{what} = {value!r}: expected a cell (row, col)") from None


def _is_fish(state: Any) -> bool:
    return hasattr(state, "board") and hasattr(state, "penguins")


def _kind(state: Any) -> str:
    if _is_fish(state):
        return "fish"
    if hasattr(state, "pieces"):
        return "marathon"
    raise TypeError(f"expected a FishState or a MarathonState, got {type(state).__name__}")


# --- moves and arrows as cells ------------------------------------------------------------------


def _fish_cell(text: str) -> Cell:
    """``"c4"`` -> ``(3, 2)`` (column letters, rows from 1 at the top)."""
    t = text.strip().lower()
    i = 0
    while i < len(t) and t[i].isalpha():
        i += 1
    letters, digits = t[:i], t[i:]
    if not letters or not digits.isdigit() or int(digits) < 1:
        raise ValueError(f"{text!r} is not a Fish cell (a column letter and a row number, like c4)")
    col = 0
    for ch in letters:
        col = col * 26 + (ord(ch) - ord("a") + 1)
    return (int(digits) - 1, col - 1)


def _marathon_cell(text: str) -> Cell:
    try:
        r, c = text.split(",")
        return (int(r), int(c))
    except ValueError:
        raise ValueError(f"{text!r} is not a Marathon cell (row,col)") from None


#: A move drawn: ``(src, dst, direction, stand)``; src None for a placement; dst None when a
#: Marathon piece finishes (then ``direction`` says where it went).
_Drawn = tuple[Optional[Cell], Optional[Cell], Optional[str], bool]


def _move_cells(kind: str, move: Any, what: str, rows: int, cols: int) -> _Drawn:
    """The cells of a move object, notation or a ``(src, dst)`` pair, checked to lie on the
    picture (the board, or for Marathon the course's box and the places around it)."""
    try:
        drawn = _move_cells_unchecked(kind, move, what)
    except ValueError as e:
        message = str(e)
        raise ValueError(
            message if message.startswith(what) else f"{what} = {move!r}: {message}"
        ) from None
    low = 0 if kind == "fish" else -1
    for cell in drawn[:2]:
        if cell is not None and not (low <= cell[0] < rows - low and low <= cell[1] < cols - low):
            raise ValueError(f"{what} = {move!r}: the cell {cell} is off the picture")
    return drawn


def _move_cells_unchecked(kind: str, move: Any, what: str) -> _Drawn:
    if isinstance(move, str):
        if kind == "fish":
            parts = move.split("-")
            if len(parts) == 1:
                return (None, _fish_cell(parts[0]), None, False)
            if len(parts) == 2:
                return (_fish_cell(parts[0]), _fish_cell(parts[1]), None, False)
            raise ValueError(f"{what} = {move!r}: expected Fish notation like d3 or a1-c1")
        tokens = move.split()
        if len(tokens) == 3 and tokens[2].lower() == "stand":
            return (_marathon_cell(tokens[1]), None, None, True)
        if len(tokens) in (4, 5):
            end = tokens[3]
            dst = None if end.lower() == "finish" else _marathon_cell(end)
            return (_marathon_cell(tokens[1]), dst, tokens[2].upper(), False)
        raise ValueError(f"{what} = {move!r}: expected Marathon notation like 'B 0,1 S 3,1 SE'")
    if hasattr(move, "dst"):
        if kind == "marathon":
            stand = bool(getattr(move, "is_stand", False))
            start = move.src if move.src is not None else getattr(move, "entry", None)
            return (start, move.dst, getattr(move, "direction", None), stand)
        return (move.src, move.dst, None, False)
    if isinstance(move, (tuple, list)) and len(move) == 2:
        first = None if move[0] is None else _cell(move[0], what)
        return (first, _cell(move[1], what), None, False)
    raise ValueError(
        f"{what} = {move!r}: expected a move, its notation or a pair of cells (src, dst)"
    )


def _arrow_list(kind: str, arrows: Any, rows: int, cols: int) -> list[tuple[Cell, Cell, str]]:
    """``arrows``: pairs ``(src, dst)`` of cells, triples ``(src, dst, colour)``, moves or
    notation (slides only)."""
    if arrows is None:
        return []
    if isinstance(arrows, (str, bytes)) or not hasattr(arrows, "__iter__"):
        raise ValueError(f"arrows = {arrows!r}: expected a list of (src, dst) pairs or moves")
    out = []
    for item in arrows:
        color = _ARROW
        if isinstance(item, (tuple, list)) and len(item) == 3:
            color = str(item[2])
            item = tuple(item[:2])
        src, dst, _, _ = _move_cells(kind, item, "arrow", rows, cols)
        if src is None or dst is None:
            raise ValueError(f"arrow {item!r}: an arrow needs two cells")
        out.append((src, dst, color))
    return out


# --- Fish ---------------------------------------------------------------------------------------


def _col_name(c: int) -> str:
    name = ""
    c += 1
    while c:
        c, rem = divmod(c - 1, 26)
        name = chr(ord("a") + rem) + name
    return name


def _fish_dots(fish: int, x: float, y: float, r: float) -> list[tuple[float, float]]:
    if fish == 1:
        return [(x, y)]
    if fish == 2:
        return [(x - r, y), (x + r, y)]
    return [(x - r, y + r * 0.55), (x + r, y + r * 0.55), (x, y - r * 0.75)]


def _fill_list(fill: Any, rows: int, cols: int, kind: str) -> list[tuple[Cell, str]]:
    """``fill``: a mapping of cells (pairs or, for Fish, notation) to colours."""
    if not fill:
        return []
    if not hasattr(fill, "items"):
        raise ValueError(f"fill = {fill!r}: expected a dict of cells to colours")
    out = []
    for cell, colour in fill.items():
        where = (
            _fish_cell(cell) if kind == "fish" and isinstance(cell, str) else _cell(cell, "fill")
        )
        if not (0 <= where[0] < rows and 0 <= where[1] < cols):
            raise ValueError(f"fill: the cell {cell!r} is off the board")
        out.append((where, str(colour)))
    return out


def _fish_svg(
    state: Any,
    size: Optional[float],
    lastmove: Any,
    arrows: Any,
    labels: bool,
    flipped: bool,
    fill: Any = None,
) -> ET.Element:
    board = state.board
    rows, cols = int(board.shape[0]), int(board.shape[1])
    penguins = state.penguins
    R = 24.0  # hex radius, centre to corner
    W = math.sqrt(3) * R  # hex width
    margin = 22.0 if labels else 4.0
    bw, bh = cols * W + W / 2, 2 * R + 1.5 * R * (rows - 1)
    players = len(penguins)
    entry = 150.0  # the width of one player's entry in the legend
    per_line = max(1, min(2, int((bw + margin) // entry)))
    legend_lines = (players + per_line - 1) // per_line
    legend = (28.0 + 20.0 * legend_lines) if labels else 0.0
    width = max(bw + 2 * margin, (entry + margin) if labels else 0.0)
    height = bh + 2 * margin + legend

    def centre(cell: Cell) -> tuple[float, float]:
        r, c = cell
        x = W / 2 + c * W + (W / 2 if r % 2 == 0 else 0.0)
        y = R + 1.5 * R * r
        if flipped:
            x, y = bw - x, bh - y
        return (margin + x, margin + y)

    def hexagon(cell: Cell, scale: float) -> str:
        x, y = centre(cell)
        return _points(
            (x + R * scale * math.cos(math.radians(a)), y + R * scale * math.sin(math.radians(a)))
            for a in (-90, -30, 30, 90, 150, 210)
        )

    def name(cell: Cell) -> str:
        return f"{_col_name(cell[1])}{cell[0] + 1}"

    root = _root(width, height, size)
    owner = {tuple(p): i for i, cells in enumerate(penguins) for p in cells}
    # The floes of the deal that are gone (taken or removed): a faint outline, nothing inside.
    dealt = state.start_board.tolist()
    if dealt:
        gone = _el(root, "g", class_="removed")
        for r, row in enumerate(dealt[:rows]):
            for c, fish in enumerate(row[:cols]):
                if fish and int(board[r, c]) <= 0:
                    _el(
                        gone,
                        "polygon",
                        data_cell=name((r, c)),
                        points=hexagon((r, c), 0.9),
                        fill="none",
                        stroke="#d3e2ec",
                        stroke_width=1.0,
                        stroke_dasharray="3,3",
                    )
    floes = _el(root, "g", class_="floes")
    for r in range(rows):
        for c in range(cols):
            fish = int(board[r, c])
            if fish <= 0:
                continue
            g = _el(floes, "g", class_="floe", data_cell=name((r, c)))
            _el(
                g,
                "polygon",
                points=hexagon((r, c), 0.95),
                fill="#e3f1fa",
                stroke="#7aa6c2",
                stroke_width=1.5,
            )
            x, y = centre((r, c))
            has_penguin = (r, c) in owner
            dy = R * 0.6 if has_penguin else 0.0
            if fish <= 3:
                dot = R * (0.09 if has_penguin else 0.12)
                for px, py in _fish_dots(fish, x, y + dy, R * (0.22 if has_penguin else 0.3)):
                    _el(g, "circle", class_="fish", cx=px, cy=py, r=dot, fill="#2d4b63")
            else:
                _text(
                    g,
                    x,
                    y + dy,
                    str(fish),
                    R * (0.35 if has_penguin else 0.6),
                    class_="fish",
                    font_weight="bold",
                    fill="#2d4b63",
                )

    drawn = _move_cells("fish", lastmove, "lastmove", rows, cols) if lastmove is not None else None
    if drawn is not None:
        src, dst, _, _ = drawn
        if src is not None:
            _el(
                root,
                "polygon",
                class_="lastmove-from",
                points=hexagon(src, 0.9),
                fill="none",
                stroke="#6d8fa6",
                stroke_width=1.5,
                stroke_dasharray="4,3",
            )
        if dst is not None:
            _el(
                root,
                "polygon",
                class_="lastmove-to",
                points=hexagon(dst, 0.86),
                fill="none",
                stroke=_ARROW,
                stroke_opacity=0.45,
                stroke_width=2.5,
            )

    for cell, colour in _fill_list(fill, rows, cols, "fish"):
        _el(
            root,
            "polygon",
            class_="fill",
            data_cell=name(cell),
            points=hexagon(cell, 0.95),
            fill=colour,
            fill_opacity=0.5,
            stroke="none",
        )

    for player, cells in enumerate(penguins):
        colour, ink = PALETTE[player % len(PALETTE)], _ON_PALETTE[player % len(PALETTE)]
        for cell in cells:
            x, y = centre(tuple(cell))
            g = _el(root, "g", class_=f"penguin player{player}", data_cell=name(tuple(cell)))
            _el(
                g,
                "circle",
                cx=x,
                cy=y - R * 0.12,
                r=R * 0.45,
                fill=colour,
                stroke=_INK,
                stroke_width=1.5,
            )
            _text(g, x, y - R * 0.12, _LETTERS[player % 5], R * 0.5, fill=ink, font_weight="bold")

    if drawn is not None and drawn[0] is not None and drawn[1] is not None:
        # The penguin that moved stands at the end (its disc sits R * 0.12 higher; R * 0.5
        # clears it in every direction): the head stops at its edge, not under it.
        x2, y2 = centre(drawn[1])
        _arrow(
            root, centre(drawn[0]), (x2, y2 - R * 0.12), R * 0.2, _ARROW, 0.5, "lastmove", R * 0.55
        )
    occupied = {tuple(cell) for cells in penguins for cell in cells}
    for src, dst, colour in _arrow_list("fish", arrows, rows, cols):
        x2, y2 = centre(dst)
        if dst in occupied:  # as for the last move: the head at the penguin's edge
            _arrow(root, centre(src), (x2, y2 - R * 0.12), R * 0.2, colour, 0.6, "arrow", R * 0.55)
        else:
            _arrow(root, centre(src), (x2, y2), R * 0.2, colour, 0.6, "arrow")

    if labels:
        coords = _el(root, "g", class_="coords")
        top, bottom = (rows - 1, 0) if flipped else (0, rows - 1)
        for c in range(cols):
            for r, y in ((top, margin / 2), (bottom, margin + bh + margin / 2)):
                _text(coords, centre((r, c))[0], y, _col_name(c), 11.0)
        for r in range(rows):
            y = centre((r, 0))[1]
            for x in (margin / 2, margin + bw + margin / 2):
                _text(coords, x, y, str(r + 1), 11.0)
        scores = state.scores
        to_move = state.to_move
        legend_g = _el(root, "g", class_="legend")
        top_y = 2 * margin + bh + 6
        for player in range(players):
            x = margin + (player % per_line) * bw / 2
            y = top_y + 20.0 * (player // per_line) + 8
            if to_move == player:
                _el(
                    legend_g,
                    "polygon",
                    points=_points([(x, y - 5), (x + 7, y), (x, y + 5)]),
                    fill=_INK,
                )
            _player_disc(legend_g, x + 18, y, player, 8.0)
            fish, nfloes = scores[player]
            _text(legend_g, x + 31, y, f"{fish} fish, {nfloes} floes", 12.0, text_anchor="start")
        phase = state.phase
        if phase == "over":
            ranking = state.ranking()
            winners = [_LETTERS[p] for p, place in enumerate(ranking) if place == 1]
            status = (
                f"game over: {' and '.join(winners)} {'win' if len(winners) > 1 else 'wins'}"
                if len(winners) < players
                else "game over: a draw"
            )
        else:
            status = f"{phase}, {_LETTERS[to_move % 5]} to move" if to_move is not None else phase
        _text(legend_g, margin, top_y + 20.0 * legend_lines + 8, status, 12.0, text_anchor="start")
    return root


# --- Penguin Marathon ---------------------------------------------------------------------------

_DIRS = {
    "N": (-1, 0),
    "NE": (-1, 1),
    "E": (0, 1),
    "SE": (1, 1),
    "S": (1, 0),
    "SW": (1, -1),
    "W": (0, -1),
    "NW": (-1, -1),
}
_SIZE = {"mama": 1.0, "papa": 0.8, "baby": 0.62}
_PIPS = {"mama": 3, "papa": 2, "baby": 1}
_DISTANCE = {"mama": 1, "papa": 2, "baby": 3}


def _coasters(cells: Sequence[Cell]) -> list[Cell]:
    """The top-left cells of the 3x3 coasters that tile the course (empty if they do not)."""
    left = set(cells)
    out = []
    for cell in sorted(cells):
        if cell not in left:
            continue
        block = [(cell[0] + i, cell[1] + j) for i in range(3) for j in range(3)]
        if not all(b in left for b in block):
            return []
        left.difference_update(block)
        out.append(cell)
    return out


def _edge(place: Cell, course: set[Cell]) -> Optional[tuple[Cell, Cell]]:
    """The side shared by an outside place and the course cell beside it, as its two corners
    in (row, col) grid units."""
    r, c = place
    if (r + 1, c) in course:
        return ((r + 1, c), (r + 1, c + 1))
    if (r - 1, c) in course:
        return ((r, c), (r, c + 1))
    if (r, c + 1) in course:
        return ((r, c + 1), (r + 1, c + 1))
    if (r, c - 1) in course:
        return ((r, c), (r + 1, c))
    return None


def _piece_shape(
    kind: str, facing: Optional[str], x: float, y: float, S: float
) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """The outline of a piece and the places of its pips: an upright triangle, or an arrow
    pointing along ``facing``."""
    k = _SIZE[kind]
    pips = _PIPS[kind]
    if facing is None:
        h = S * 0.8 * k
        half = h / math.sqrt(3)
        pts = [(x, y - h * 0.6), (x + half, y + h * 0.4), (x - half, y + h * 0.4)]
        py = y + h * 0.12
        gap = S * 0.11 * k
        dots = [(x + (i - (pips - 1) / 2) * gap, py) for i in range(pips)]
        return pts, dots
    dr, dc = _DIRS[facing]
    n = math.hypot(dr, dc)
    ux, uy = dc / n, dr / n  # along the facing, screen x right and y down
    vx, vy = -uy, ux
    length = S * 0.88 * k
    half = length * 0.34
    tip = (x + ux * length / 2, y + uy * length / 2)
    back = (x - ux * length / 2, y - uy * length / 2)
    notch = (back[0] + ux * length * 0.22, back[1] + uy * length * 0.22)
    pts = [
        tip,
        (back[0] + vx * half, back[1] + vy * half),
        notch,
        (back[0] - vx * half, back[1] - vy * half),
    ]
    gap = length * 0.14
    start = -0.02 * length
    dots = [
        (
            x + ux * (start + (i - (pips - 1) / 2) * gap),
            y + uy * (start + (i - (pips - 1) / 2) * gap),
        )
        for i in range(pips)
    ]
    return pts, dots


def _marathon_svg(
    state: Any,
    size: Optional[float],
    lastmove: Any,
    arrows: Any,
    labels: bool,
    flipped: bool,
    fill: Any = None,
) -> ET.Element:
    game = state.game
    rows, cols = int(game.rows), int(game.cols)
    cells = [tuple(c) for c in game.cells]
    course = set(cells)
    players = int(state.players)
    S = 40.0
    ring = S * 1.1  # room for the outside places, the lines and the coordinates
    panel_w = 240.0
    bw, bh = cols * S, rows * S
    # The table beside the course: a head row, one row per player, the status line.
    panel_h = 16.0 + S * players + (24.0 if labels else 0.0)
    width = bw + 2 * ring + panel_w
    height = max(bh + 2 * ring, panel_h + 2 * ring)

    def corner(r: float, c: float) -> tuple[float, float]:
        x, y = c * S, r * S
        if flipped:
            x, y = bw - x, bh - y
        return (ring + x, ring + y)

    def centre(cell: Cell) -> tuple[float, float]:
        return corner(cell[0] + 0.5, cell[1] + 0.5)

    def rect(r0: float, c0: float, r1: float, c1: float) -> dict[str, float]:
        (xa, ya), (xb, yb) = corner(r0, c0), corner(r1, c1)
        return dict(x=min(xa, xb), y=min(ya, yb), width=abs(xb - xa), height=abs(yb - ya))

    root = _root(width, height, size)
    board = _el(root, "g", class_="course")
    tiles = _coasters(cells)
    for r, c in tiles:
        _el(
            board,
            "rect",
            class_="coaster",
            rx=6.0,
            fill="#d9dde6",
            stroke="#6b7488",
            stroke_width=2.0,
            **rect(r + 0.04, c + 0.04, r + 2.96, c + 2.96),
        )
    for r, c in cells:
        _el(
            board,
            "rect",
            class_="cell",
            data_cell=f"{r},{c}",
            fill="#f4f5f8",
            stroke="#aab1c0",
            stroke_width=1.0,
            **rect(r + 0.08, c + 0.08, r + 0.92, c + 0.92),
        )

    lines = _el(root, "g", class_="lines")
    for place in game.start:
        e = _edge(tuple(place), course)
        if e is None:
            continue
        (x1, y1), (x2, y2) = corner(*e[0]), corner(*e[1])
        _el(
            lines, "line", class_="start", x1=x1, y1=y1, x2=x2, y2=y2, stroke=_INK, stroke_width=4.0
        )
    for place in game.finish:
        e = _edge(tuple(place), course)
        if e is None:
            continue
        (r0, c0), (r1, c1) = e
        # A chequered band outside the finish edge: two rows of squares.
        n = 6
        sq = 1.0 / n
        for i in range(n):
            for j in range(2):
                if r0 == r1:  # a horizontal edge
                    rr = r0 + (j * sq if place[0] >= r0 else -(j + 1) * sq)
                    box = rect(rr, c0 + i * sq, rr + sq, c0 + (i + 1) * sq)
                else:
                    cc = c0 + (j * sq if place[1] >= c0 else -(j + 1) * sq)
                    box = rect(r0 + i * sq, cc, r0 + (i + 1) * sq, cc + sq)
                _el(
                    lines,
                    "rect",
                    class_="finish",
                    fill=_INK if (i + j) % 2 == 0 else "#ffffff",
                    stroke="none",
                    **box,
                )

    if labels:
        coords = _el(root, "g", class_="coords")
        for c in range(cols):
            x = centre((0, c))[0]
            _text(coords, x, 9.0, str(c), 10.0)
        for r in range(rows):
            y = centre((r, 0))[1]
            _text(coords, 9.0, y, str(r), 10.0)
        # The words beside the lines, at the middle of each, outside the course.
        for places, word in ((game.start, "start"), (game.finish, "finish")):
            ends = [
                (tuple(p), e)
                for p, e in ((tuple(p), _edge(tuple(p), course)) for p in places)
                if e is not None
            ]
            if not ends:
                continue
            xs = [corner(*pt)[0] for _, e in ends for pt in e]
            ys = [corner(*pt)[1] for _, e in ends for pt in e]
            mx, my = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
            px, py = centre(ends[0][0])
            horizontal = max(ys) - min(ys) < 1e-6
            if horizontal:
                my += 22.0 if py > my else -22.0
                _text(coords, mx, my, word, 11.0, font_style="italic", fill="#555555")
            else:
                mx += 22.0 if px > mx else -22.0
                _text(
                    coords,
                    mx,
                    my,
                    word,
                    11.0,
                    font_style="italic",
                    fill="#555555",
                    transform=f"rotate(-90 {_num(mx)} {_num(my)})",
                )

    drawn = (
        _move_cells("marathon", lastmove, "lastmove", rows, cols) if lastmove is not None else None
    )
    if drawn is not None:
        src, dst, direction, stand = drawn
        if stand and src is not None:
            _el(
                root,
                "rect",
                class_="lastmove",
                fill="none",
                stroke=_ARROW,
                stroke_opacity=0.5,
                stroke_width=3.0,
                **rect(src[0] + 0.04, src[1] + 0.04, src[0] + 0.96, src[1] + 0.96),
            )
        elif src is not None and dst is None and direction is not None and direction in _DIRS:
            dr, dc = _DIRS[direction]
            end = src
            for _ in range(6):
                end = (end[0] + dr, end[1] + dc)
                if end not in course:
                    break
            dst = end
        if src is not None and dst is not None and not stand:
            # A piece lies or stands on the end cell (half a mama is 0.44 S long): the head
            # stops before it, in sight, rather than under it.
            gap = S * 0.48 if dst in course else 0.0
            _arrow(root, centre(src), centre(dst), S * 0.12, _ARROW, 0.45, "lastmove", gap)

    for cell, colour in _fill_list(fill, rows, cols, "marathon"):
        _el(
            root,
            "rect",
            class_="fill",
            data_cell=f"{cell[0]},{cell[1]}",
            fill=colour,
            fill_opacity=0.5,
            stroke="none",
            **rect(cell[0] + 0.08, cell[1] + 0.08, cell[0] + 0.92, cell[1] + 0.92),
        )

    pieces = _el(root, "g", class_="pieces")
    for p in state.pieces:
        if p.status != "on course" or p.cell is None:
            continue
        colour = PALETTE[p.owner % 5]
        facing = p.facing
        if facing is not None and flipped:
            dr, dc = _DIRS[facing]
            facing = next(k for k, v in _DIRS.items() if v == (-dr, -dc))
        x, y = centre(tuple(p.cell))
        outline, dots = _piece_shape(p.kind, facing, x, y, S)
        state_word = f"lying, facing {p.facing}" if p.facing else "upright"
        g = _el(
            pieces,
            "g",
            class_=f"piece player{p.owner} {p.kind}",
            data_cell=f"{p.cell[0]},{p.cell[1]}",
            data_piece=f"{p.owner} {p.kind}",
        )
        _el(g, "title", f"{_LETTERS[p.owner % 5]} (player {p.owner}) {p.kind}, {state_word}")
        _el(
            g,
            "polygon",
            points=_points(outline),
            fill=colour,
            stroke=_INK,
            stroke_width=1.5,
            stroke_linejoin="round",
        )
        for dx, dy in dots:
            _el(g, "circle", cx=dx, cy=dy, r=S * 0.045, fill=_ON_PALETTE[p.owner % 5])

    occupied = {tuple(p.cell) for p in state.pieces if p.status == "on course" and p.cell}
    for src, dst, colour in _arrow_list("marathon", arrows, rows, cols):
        gap = S * 0.48 if dst in occupied else 0.0
        _arrow(root, centre(src), centre(dst), S * 0.12, colour, 0.6, "arrow", gap)

    # The table of waiting and finished pieces, one row per player, centred beside the course
    # (a tall course left it at the top, over white). Every player has a place for each of
    # their three pieces in both columns: a piece that is elsewhere leaves a faint outline,
    # so the heads stand over something and a row reads "two of three still waiting".
    px = bw + 2 * ring
    table = _el(root, "g", class_="reserve")
    head_y = (height - panel_h) / 2 + 8
    columns = (("waiting", px + 40.0), ("finished", px + 140.0))
    for word, base in columns:
        _text(table, base + S * 0.7 * 1.5, head_y, word, 12.0)
    to_move = state.to_move
    slot = {"mama": 0, "papa": 1, "baby": 2}
    for player in range(players):
        y = head_y + 16 + S * (player + 0.5)
        if to_move == player:
            _el(
                table,
                "polygon",
                points=_points([(px + 2, y - 5), (px + 9, y), (px + 2, y + 5)]),
                fill=_INK,
            )
        _player_disc(table, px + 20, y, player, 9.0)
        off_course = {
            (p.kind, p.status): p
            for p in state.pieces
            if p.owner == player and p.status != "on course"
        }
        for status, base in zip(("waiting", "finished"), (c[1] for c in columns)):
            for kind in ("mama", "papa", "baby"):
                x = base + slot[kind] * S * 0.7 + S * 0.35
                outline, dots = _piece_shape(kind, None, x, y + S * 0.08, S * 0.85)
                if (kind, status) not in off_course:
                    _el(
                        table,
                        "polygon",
                        class_="slot",
                        points=_points(outline),
                        fill="none",
                        stroke="#c3c8d2",
                        stroke_width=1.0,
                        stroke_dasharray="3,2",
                        stroke_linejoin="round",
                    )
                    continue
                g = _el(
                    table,
                    "g",
                    class_=f"piece player{player} {kind} {status}",
                    data_piece=f"{player} {kind}",
                )
                _el(g, "title", f"{_LETTERS[player % 5]} (player {player}) {kind}, {status}")
                _el(
                    g,
                    "polygon",
                    points=_points(outline),
                    fill=PALETTE[player % 5],
                    stroke=_INK,
                    stroke_width=1.2,
                    stroke_linejoin="round",
                    opacity=0.55 if status == "finished" else None,
                )
                for dx, dy in dots:
                    _el(g, "circle", cx=dx, cy=dy, r=S * 0.04, fill=_ON_PALETTE[player % 5])
    if labels:
        y = head_y + 16 + S * players + 10
        if state.is_over:
            winner = state.winner
            status = "draw" if winner is None else f"{_LETTERS[winner % 5]} wins"
        else:
            status = f"{_LETTERS[(to_move or 0) % 5]} to move"
        _text(table, px + 8, y, f"ply {state.ply}: {status}", 12.0, text_anchor="start")
    return root


# --- public ---------------------------------------------------------------------------------------


def _element(
    state: Any,
    size: Optional[float],
    lastmove: Any,
    arrows: Any,
    labels: Any,
    flipped: Any,
    fill: Any = None,
) -> ET.Element:
    kind = _kind(state)
    draw = _fish_svg if kind == "fish" else _marathon_svg
    return draw(state, size, lastmove, arrows, bool(labels), bool(flipped), fill)


def state_svg(
    state: Any,
    size: Optional[float] = None,
    *,
    lastmove: Any = None,
    arrows: Optional[Iterable[Any]] = (),
    labels: bool = True,
    flipped: bool = False,
    fill: Optional[dict[Any, str]] = None,
) -> SvgText:
    """An SVG picture of a Fish or Penguin Marathon position (what ``state.svg()`` returns).

    :param size: the picture's width in pixels (the height follows); None: its natural size.
    :param lastmove: a move to mark (a move object, its notation, or a pair of cells
        ``(src, dst)``; ``src`` None for a Fish placement): an arrow from where it started,
        and for Fish a dashed outline of the floe it left.
    :param arrows: more arrows: pairs of cells ``(src, dst)``, triples
        ``(src, dst, colour)``, moves or notation.
    :param labels: coordinates along the edges and the scores (Fish) or status (Marathon).
    :param flipped: turn the board by 180 degrees.
    :param fill: cells to tint, ``{cell: colour}`` (cells as ``(row, col)``, or Fish notation),
        for example a selected piece's legal targets (``state.svg()`` does not take it; call
        this function).
    :returns: :class:`SvgText`, a ``str`` that Jupyter shows as a picture.
    :raises ValueError: for a size, move or arrow that cannot be drawn.
    """
    return _tostring(_element(state, size, lastmove, arrows, labels, flipped, fill))


#: ``game``'s defaults: at most this many positions in a strip, each this many pixels wide.
_MAX_FRAMES = 16
_FRAME_SIZE = 240.0


def _frames(source: Any, start: Any) -> tuple[list[Any], list[Any]]:
    """The states of a game and the move before each (None before the first)."""
    if hasattr(source, "states") and hasattr(source, "moves"):
        states = list(source.states())
        moves = [None] + list(source.moves)
        return states, moves[: len(states)]
    if start is None:
        raise ValueError(
            "start = None: a list of moves needs the state they start from (start=state)"
        )
    state = start.copy()
    states, moves = [state.copy()], [None]
    for _i, mv in enumerate(source):
        played = state.parse_move(mv)
        state.play(played)
        states.append(state.copy())
        moves.append(played)
    return states, moves


def game(
    source: Any,
    start: Any = None,
    *,
    size: Optional[float] = None,
    columns: Optional[int] = None,
    every: Optional[int] = None,
    animate: bool = False,
    seconds: float = 1.0,
    labels: bool = True,
    flipped: bool = False,
) -> SvgText:
    """A whole game as one picture: a strip (grid) of positions, or an animation.

    :param source: a :class:`~pingvinas.record.GameRecord`, or moves (objects, actions or
        notation) played from ``start``.
    :param start: the first position when ``source`` is a list of moves.
    :param size: the width in pixels of each position (strip; default 240, so that four
        columns fit a page) or of the animation (default: the position's own size). Captions
        keep a readable size at any scale.
    :param columns: positions per row of the strip (default: up to 4).
    :param every: draw every ``every``-th position (the last one is always drawn). Default:
        every position of a game of up to 16, else the smallest step that draws at most 16
        (a strip of a whole long game would be several thousand pixels tall); ``every=1``
        draws them all.
    :param animate: one position after the other, one every ``seconds``, looping (SMIL
        animation, shown by browsers).
    """
    if every is not None and (isinstance(every, bool) or not isinstance(every, int) or every < 1):
        raise ValueError(f"every = {every!r}: expected a positive int")
    if not (isinstance(seconds, (int, float)) and seconds > 0):
        raise ValueError(f"seconds = {seconds!r}: expected a positive number")
    states, moves = _frames(source, start)
    if every is None:
        # Steps of `every` from 0, and the last position: at most 15 + 1.
        every = 1 if len(states) <= _MAX_FRAMES else -(-(len(states) - 1) // (_MAX_FRAMES - 2))
    picks = list(range(0, len(states), every))
    if picks[-1] != len(states) - 1:
        picks.append(len(states) - 1)
    frames = [_element(states[i], None, moves[i], (), labels, flipped) for i in picks]
    fw = max(float(f.get("viewBox", "0 0 0 0").split()[2]) for f in frames)
    fh = max(float(f.get("viewBox", "0 0 0 0").split()[3]) for f in frames)
    if size is None and not animate:
        size = _FRAME_SIZE
    # Captions and gaps grow as the positions shrink, to read at 13 px whatever the scale.
    scale = max(1.0, fw / size) if isinstance(size, (int, float)) and size > 0 else 1.0
    caption = 20.0 * scale
    if animate:
        root = _root(fw, fh + caption, size)
        total = seconds * len(frames)
        for k, (i, frame) in enumerate(zip(picks, frames)):
            g = _el(root, "g", class_="frame", visibility="visible" if k == 0 else "hidden")
            _caption(g, fw / 2, fh + caption / 2, i, moves[i], scale)
            _nest(g, frame, 0.0, 0.0)
            if len(frames) > 1:
                a, b = k / len(frames), (k + 1) / len(frames)
                if k == 0:
                    values, times = "visible;hidden", f"0;{_num(b)}"
                elif k == len(frames) - 1:
                    values, times = "hidden;visible", f"0;{_num(a)}"
                else:
                    values, times = "hidden;visible;hidden", f"0;{_num(a)};{_num(b)}"
                _el(
                    g,
                    "animate",
                    attributeName="visibility",
                    calcMode="discrete",
                    values=values,
                    keyTimes=times,
                    dur=f"{_num(total)}s",
                    repeatCount="indefinite",
                )
        return _tostring(root)
    if columns is None:
        columns = min(4, len(frames))
    if isinstance(columns, bool) or not isinstance(columns, int) or columns < 1:
        raise ValueError(f"columns = {columns!r}: expected a positive int")
    gap = 10.0 * scale
    rows = (len(frames) + columns - 1) // columns
    width = columns * fw + (columns - 1) * gap
    height = rows * (fh + caption) + (rows - 1) * gap
    root = _root(width, height, size * width / fw)
    for k, (i, frame) in enumerate(zip(picks, frames)):
        x, y = (k % columns) * (fw + gap), (k // columns) * (fh + caption + gap)
        g = _el(root, "g", class_="frame")
        _nest(g, frame, x, y)
        _caption(g, x + fw / 2, y + fh + caption / 2, i, moves[i], scale)
    return _tostring(root)


def _caption(
    parent: ET.Element, x: float, y: float, ply: int, move: Any, scale: float = 1.0
) -> None:
    _text(parent, x, y, "start" if move is None else f"{ply}. {move}", 13.0 * scale)


def _nest(parent: ET.Element, frame: ET.Element, x: float, y: float) -> None:
    """``frame`` (an ``<svg>``) inside ``parent`` at ``(x, y)``, at its own size."""
    _, _, w, h = frame.get("viewBox", "0 0 0 0").split()
    inner = _el(parent, "svg", x=x, y=y, width=w, height=h, viewBox=f"0 0 {w} {h}")
    inner.extend(list(frame))


def to_png(svg: str, path: Union[str, Any, None] = None, *, scale: float = 1.0) -> bytes:
    """The picture as PNG bytes, written to ``path`` too if given. Needs cairosvg
    (``pip install 'pingvinas[png]'``).

    :raises ImportError: when cairosvg (or the cairo library it uses) is missing.
    """
    cairosvg = _cairosvg()
    data: bytes = cairosvg.svg2png(bytestring=str(svg).encode("utf-8"), scale=scale)
    if path is not None:
        with open(path, "wb") as f:
            f.write(data)
    return data


def _cairosvg() -> Any:
    try:
        import cairosvg  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except (ImportError, OSError) as e:  # OSError: cairosvg is there but libcairo is not
        raise ImportError(
            "pictures as pixels or PNG need cairosvg and the cairo library: "
            f"pip install 'cairosvg>=2.5' (the extra 'png') ({e})"
        ) from e
    return cairosvg


def to_array(svg: str, *, scale: float = 1.0) -> Any:
    """The picture's pixels on a white background: a ``uint8`` numpy array of shape
    ``(height, width, 3)`` (RGB), as Gymnasium's ``render_mode="rgb_array"`` wants. Needs
    cairosvg (``pip install 'pingvinas[png]'``).

    :raises ImportError: when cairosvg (or the cairo library it uses) is missing.
    """
    import numpy as np

    _cairosvg()  # a clear ImportError when it is missing
    from cairosvg.parser import Tree  # type: ignore[import-untyped,import-not-found,unused-ignore]
    from cairosvg.surface import PNGSurface  # type: ignore[import-untyped,import-not-found,unused-ignore]

    surface = PNGSurface(
        Tree(bytestring=str(svg).encode("utf-8")), None, 96, scale=scale, background_color="white"
    )
    image = surface.cairo
    image.flush()
    width, height, stride = image.get_width(), image.get_height(), image.get_stride()
    # ARGB32 in native byte order (little-endian: B, G, R, A), rows padded to the stride; the
    # white background makes every pixel opaque.
    raw = np.frombuffer(bytes(image.get_data()), dtype=np.uint8).reshape(height, stride // 4, 4)[
        :, :width
    ]
    order = [2, 1, 0] if sys.byteorder == "little" else [1, 2, 3]
    pixels = np.ascontiguousarray(raw[:, :, order])
    surface.finish()
    return pixels
