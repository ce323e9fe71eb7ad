"""What both games' pictures share: the palette, SVG elements written deterministically (fixed
number formatting, attributes in the order given), text, arrows, and moves read as cells."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from typing import Any, Callable, Optional

from .._args import is_number

#: One colour per player: Okabe-Ito blue, vermillion, bluish green, reddish purple, orange.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00")
#: Text drawn on each player's colour (black where white would be faint).
ON_PALETTE = ("#ffffff", "#ffffff", "#ffffff", "#000000", "#000000")
LETTERS = "ABCDE"
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
INK = "#1f1f1f"
ARROW_INK = "#000000"

Cell = tuple[int, int]


class SvgText(str):
    """SVG text that Jupyter shows as a picture."""

    def _repr_svg_(self) -> str:
        return str(self)


def num(x: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros (deterministic text)."""
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def el(
    parent: Optional[ET.Element], tag: str, text: Optional[str] = None, /, **attrs: Any
) -> ET.Element:
    """An element with attributes in the order given (``stroke_width`` becomes ``stroke-width``,
    ``class_`` becomes ``class``; floats are formatted by :func:`num`)."""
    values: dict[str, str] = {}
    for key, value in attrs.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        values[name] = num(value) if isinstance(value, float) else str(value)
    e = ET.Element(tag, values) if parent is None else ET.SubElement(parent, tag, values)
    if text is not None:
        e.text = text
    return e


def points(pts: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{num(x)},{num(y)}" for x, y in pts)


def player_disc(parent: ET.Element, x: float, y: float, player: int, r: float) -> None:
    """A player's disc in a legend: their colour with their letter (text 1 unit larger than
    the radius)."""
    el(
        parent,
        "circle",
        cx=x,
        cy=y,
        r=r,
        fill=PALETTE[player % 5],
        stroke=INK,
        stroke_width=1.0,
    )
    write_text(
        parent,
        x,
        y,
        LETTERS[player % 5],
        r + 1.0,
        fill=ON_PALETTE[player % 5],
        font_weight="bold",
    )


def write_text(
    parent: ET.Element, x: float, y: float, s: str, size: float, **attrs: Any
) -> ET.Element:
    attrs.setdefault("text_anchor", "middle")
    attrs.setdefault("fill", INK)
    return el(
        parent,
        "text",
        s,
        x=x,
        y=y,
        font_size=size,
        font_family=FONT,
        dominant_baseline="central",
        **attrs,
    )


def arrow(
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
    g = el(parent, "g", class_=cls, fill=color, stroke=color, opacity=opacity)
    el(g, "line", x1=x1, y1=y1, x2=bx, y2=by, stroke_width=width, stroke_linecap="round")
    px, py = -uy * width * 1.4, ux * width * 1.4
    el(
        g,
        "polygon",
        points=points([(x2, y2), (bx + px, by + py), (bx - px, by - py)]),
        stroke="none",
    )


def svg_root(width: float, height: float, size: Optional[float]) -> ET.Element:
    if size is not None:
        if not is_number(size) or not size > 0:
            raise ValueError(
                f"size = {size!r}: expected a positive number of pixels (the width) or None"
            )
        w, h = float(size), float(size) * height / width
    else:
        w, h = width, height
    return el(
        None,
        "svg",
        xmlns="http://www.w3.org/2000/svg",
        version="1.1",
        width=num(w),
        height=num(h),
        viewBox=f"0 0 {num(width)} {num(height)}",
    )


def tostring(root: ET.Element) -> SvgText:
    return SvgText(ET.tostring(root, encoding="unicode"))


def pair(value: Sequence[int]) -> Cell:
    """A cell as a tuple (a state may hold its cells as lists)."""
    r, c = value
    return (r, c)


def as_cell(value: Any, what: str) -> Cell:
    try:
        r, c = value
        if isinstance(r, bool) or isinstance(c, bool):
            raise TypeError
        return (int(r), int(c))
    except (TypeError, ValueError):
        raise ValueError(f"{what} = {value!r}: expected a cell (row, col)") from None


#: A move drawn: ``(src, dst, direction, stand)``; src None for a placement; dst None when a
#: Marathon piece finishes (then ``direction`` says where it went).
Drawn = tuple[Optional[Cell], Optional[Cell], Optional[str], bool]
#: A game's reader of one move (an object, notation or a pair of cells) as the cells drawn.
MoveReader = Callable[[Any, str], Drawn]


def move_cells(read: MoveReader, low: int, move: Any, what: str, rows: int, cols: int) -> Drawn:
    """The cells of a move object, notation or a ``(src, dst)`` pair, checked to lie on the
    picture (the board, or for Marathon, ``low = -1``, the course's box and the places around
    it)."""
    try:
        drawn = read(move, what)
    except ValueError as e:
        message = str(e)
        raise ValueError(
            message if message.startswith(what) else f"{what} = {move!r}: {message}"
        ) from None
    for cell in drawn[:2]:
        if cell is not None and not (low <= cell[0] < rows - low and low <= cell[1] < cols - low):
            raise ValueError(f"{what} = {move!r}: the cell {cell} is off the picture")
    return drawn


def cell_pair(move: Any, what: str) -> Drawn:
    """A move given as a pair of cells ``(src, dst)`` (src None for a placement), the last
    form both games' readers try."""
    if isinstance(move, (tuple, list)) and len(move) == 2:
        first = None if move[0] is None else as_cell(move[0], what)
        return (first, as_cell(move[1], what), None, False)
    raise ValueError(
        f"{what} = {move!r}: expected a move, its notation or a pair of cells (src, dst)"
    )


def arrow_list(
    read: MoveReader, low: int, arrows: Any, rows: int, cols: int
) -> list[tuple[Cell, Cell, str]]:
    """``arrows``: pairs ``(src, dst)`` of cells, triples ``(src, dst, colour)``, moves or
    notation (slides only)."""
    if arrows is None:
        return []
    if isinstance(arrows, (str, bytes)) or not hasattr(arrows, "__iter__"):
        raise ValueError(f"arrows = {arrows!r}: expected a list of (src, dst) pairs or moves")
    out = []
    for item in arrows:
        color = ARROW_INK
        if isinstance(item, (tuple, list)) and len(item) == 3:
            color = str(item[2])
            item = tuple(item[:2])
        src, dst, _, _ = move_cells(read, low, item, "arrow", rows, cols)
        if src is None or dst is None:
            raise ValueError(f"arrow {item!r}: an arrow needs two cells")
        out.append((src, dst, color))
    return out


def fill_list(
    fill: Any, rows: int, cols: int, notation: Optional[Callable[[str], Cell]] = None
) -> list[tuple[Cell, str]]:
    """``fill``: a mapping of cells (pairs or, where the game has ``notation`` for cells,
    notation) to colours."""
    if not fill:
        return []
    if not hasattr(fill, "items"):
        raise ValueError(f"fill = {fill!r}: expected a dict of cells to colours")
    out = []
    for cell, colour in fill.items():
        where = (
            notation(cell)
            if notation is not None and isinstance(cell, str)
            else as_cell(cell, "fill")
        )
        if not (0 <= where[0] < rows and 0 <= where[1] < cols):
            raise ValueError(f"fill: the cell {cell!r} is off the board")
        out.append((where, str(colour)))
    return out
