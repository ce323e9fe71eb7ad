"""Penguin Marathon pictures: the course of 3x3 coasters with the start line (dashed) and the
finish line (chequered), each piece by size and colour (an upright piece a triangle, a lying one
an arrow pointing where it faces, with 1, 2 or 3 pips), and the table of waiting and finished
pieces beside the course."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any, Optional

from .._core import MarathonState
from ._draw import (
    ARROW_INK,
    INK,
    LETTERS,
    ON_PALETTE,
    PALETTE,
    Cell,
    Drawn,
    arrow,
    arrow_list,
    cell_pair,
    el,
    fill_list,
    move_cells,
    num,
    pair,
    player_disc,
    points,
    svg_root,
    write_text,
)

__all__ = ["draw", "marathon_cell"]


def marathon_cell(text: str) -> Cell:
    try:
        r, c = text.split(",")
        return (int(r), int(c))
    except ValueError:
        raise ValueError(f"{text!r} is not a Marathon cell (row,col)") from None


def _read_move(move: Any, what: str) -> Drawn:
    if isinstance(move, str):
        tokens = move.split()
        if len(tokens) == 3 and tokens[2].lower() == "stand":
            return (marathon_cell(tokens[1]), None, None, True)
        if len(tokens) in (4, 5):
            end = tokens[3]
            dst = None if end.lower() == "finish" else marathon_cell(end)
            return (marathon_cell(tokens[1]), dst, tokens[2].upper(), False)
        raise ValueError(f"{what} = {move!r}: expected Marathon notation like 'B 0,1 S 3,1 SE'")
    if hasattr(move, "dst"):
        stand = bool(getattr(move, "is_stand", False))
        start = move.src if move.src is not None else getattr(move, "entry", None)
        return (start, move.dst, getattr(move, "direction", None), stand)
    return cell_pair(move, what)


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


def draw(
    state: MarathonState,
    size: Optional[float],
    lastmove: Any,
    arrows: Any,
    labels: bool,
    flipped: bool,
    fill: Any = None,
) -> ET.Element:
    game = state.game
    rows, cols = int(game.rows), int(game.cols)
    cells = [pair(c) for c in game.cells]
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

    root = svg_root(width, height, size)
    board = el(root, "g", class_="course")
    tiles = _coasters(cells)
    for r, c in tiles:
        el(
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
        el(
            board,
            "rect",
            class_="cell",
            data_cell=f"{r},{c}",
            fill="#f4f5f8",
            stroke="#aab1c0",
            stroke_width=1.0,
            **rect(r + 0.08, c + 0.08, r + 0.92, c + 0.92),
        )

    lines = el(root, "g", class_="lines")
    for place in game.start:
        e = _edge(pair(place), course)
        if e is None:
            continue
        (x1, y1), (x2, y2) = corner(*e[0]), corner(*e[1])
        el(lines, "line", class_="start", x1=x1, y1=y1, x2=x2, y2=y2, stroke=INK, stroke_width=4.0)
    for place in game.finish:
        e = _edge(pair(place), course)
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
                el(
                    lines,
                    "rect",
                    class_="finish",
                    fill=INK if (i + j) % 2 == 0 else "#ffffff",
                    stroke="none",
                    **box,
                )

    if labels:
        coords = el(root, "g", class_="coords")
        for c in range(cols):
            x = centre((0, c))[0]
            write_text(coords, x, 9.0, str(c), 10.0)
        for r in range(rows):
            y = centre((r, 0))[1]
            write_text(coords, 9.0, y, str(r), 10.0)
        # The words beside the lines, at the middle of each, outside the course.
        for places, word in ((game.start, "start"), (game.finish, "finish")):
            ends = [
                (pair(p), e)
                for p, e in ((pair(p), _edge(pair(p), course)) for p in places)
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
                write_text(coords, mx, my, word, 11.0, font_style="italic", fill="#555555")
            else:
                mx += 22.0 if px > mx else -22.0
                write_text(
                    coords,
                    mx,
                    my,
                    word,
                    11.0,
                    font_style="italic",
                    fill="#555555",
                    transform=f"rotate(-90 {num(mx)} {num(my)})",
                )

    drawn = (
        move_cells(_read_move, -1, lastmove, "lastmove", rows, cols)
        if lastmove is not None
        else None
    )
    if drawn is not None:
        src, dst, direction, stand = drawn
        if stand and src is not None:
            el(
                root,
                "rect",
                class_="lastmove",
                fill="none",
                stroke=ARROW_INK,
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
            arrow(root, centre(src), centre(dst), S * 0.12, ARROW_INK, 0.45, "lastmove", gap)

    for cell, colour in fill_list(fill, rows, cols):
        el(
            root,
            "rect",
            class_="fill",
            data_cell=f"{cell[0]},{cell[1]}",
            fill=colour,
            fill_opacity=0.5,
            stroke="none",
            **rect(cell[0] + 0.08, cell[1] + 0.08, cell[0] + 0.92, cell[1] + 0.92),
        )

    pieces = el(root, "g", class_="pieces")
    for p in state.pieces:
        if p.status != "on course" or p.cell is None:
            continue
        colour = PALETTE[p.owner % 5]
        facing = p.facing
        if facing is not None and flipped:
            dr, dc = _DIRS[facing]
            facing = next(k for k, v in _DIRS.items() if v == (-dr, -dc))
        x, y = centre(pair(p.cell))
        outline, dots = _piece_shape(p.kind, facing, x, y, S)
        state_word = f"lying, facing {p.facing}" if p.facing else "upright"
        g = el(
            pieces,
            "g",
            class_=f"piece player{p.owner} {p.kind}",
            data_cell=f"{p.cell[0]},{p.cell[1]}",
            data_piece=f"{p.owner} {p.kind}",
        )
        el(g, "title", f"{LETTERS[p.owner % 5]} (player {p.owner}) {p.kind}, {state_word}")
        el(
            g,
            "polygon",
            points=points(outline),
            fill=colour,
            stroke=INK,
            stroke_width=1.5,
            stroke_linejoin="round",
        )
        for dx, dy in dots:
            el(g, "circle", cx=dx, cy=dy, r=S * 0.045, fill=ON_PALETTE[p.owner % 5])

    occupied = {pair(p.cell) for p in state.pieces if p.status == "on course" and p.cell}
    for src, dst, colour in arrow_list(_read_move, -1, arrows, rows, cols):
        gap = S * 0.48 if dst in occupied else 0.0
        arrow(root, centre(src), centre(dst), S * 0.12, colour, 0.6, "arrow", gap)

    # The table of waiting and finished pieces, one row per player, centred beside the course
    # (a tall course left it at the top, over white). Every player has a place for each of
    # their three pieces in both columns: a piece that is elsewhere leaves a faint outline,
    # so the heads stand over something and a row reads "two of three still waiting".
    px = bw + 2 * ring
    table = el(root, "g", class_="reserve")
    head_y = (height - panel_h) / 2 + 8
    columns = (("waiting", px + 40.0), ("finished", px + 140.0))
    for word, base in columns:
        write_text(table, base + S * 0.7 * 1.5, head_y, word, 12.0)
    to_move = state.to_move
    slot = {"mama": 0, "papa": 1, "baby": 2}
    for player in range(players):
        y = head_y + 16 + S * (player + 0.5)
        if to_move == player:
            el(
                table,
                "polygon",
                points=points([(px + 2, y - 5), (px + 9, y), (px + 2, y + 5)]),
                fill=INK,
            )
        player_disc(table, px + 20, y, player, 9.0)
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
                    el(
                        table,
                        "polygon",
                        class_="slot",
                        points=points(outline),
                        fill="none",
                        stroke="#c3c8d2",
                        stroke_width=1.0,
                        stroke_dasharray="3,2",
                        stroke_linejoin="round",
                    )
                    continue
                g = el(
                    table,
                    "g",
                    class_=f"piece player{player} {kind} {status}",
                    data_piece=f"{player} {kind}",
                )
                el(g, "title", f"{LETTERS[player % 5]} (player {player}) {kind}, {status}")
                el(
                    g,
                    "polygon",
                    points=points(outline),
                    fill=PALETTE[player % 5],
                    stroke=INK,
                    stroke_width=1.2,
                    stroke_linejoin="round",
                    opacity=0.55 if status == "finished" else None,
                )
                for dx, dy in dots:
                    el(g, "circle", cx=dx, cy=dy, r=S * 0.04, fill=ON_PALETTE[player % 5])
    if labels:
        y = head_y + 16 + S * players + 10
        if state.is_over:
            winner = state.winner
            status = "draw" if winner is None else f"{LETTERS[winner % 5]} wins"
        else:
            status = f"{LETTERS[(to_move or 0) % 5]} to move"
        write_text(table, px + 8, y, f"ply {state.ply}: {status}", 12.0, text_anchor="start")
    return root
