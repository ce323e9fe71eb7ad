"""Fish pictures: pointy-topped hexes in the even-r layout, floes with their fish as dots,
penguins as discs with their player's letter, coordinates along the edges, scores below."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from typing import Any, Optional

from .._core import FishState
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
    pair,
    player_disc,
    points,
    svg_root,
    write_text,
)

__all__ = ["draw", "fish_cell"]


def fish_cell(text: str) -> Cell:
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


def _read_move(move: Any, what: str) -> Drawn:
    if isinstance(move, str):
        parts = move.split("-")
        if len(parts) == 1:
            return (None, fish_cell(parts[0]), None, False)
        if len(parts) == 2:
            return (fish_cell(parts[0]), fish_cell(parts[1]), None, False)
        raise ValueError(f"{what} = {move!r}: expected Fish notation like d3 or a1-c1")
    if hasattr(move, "dst"):
        return (move.src, move.dst, None, False)
    return cell_pair(move, what)


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


def draw(
    state: FishState,
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
        return points(
            (x + R * scale * math.cos(math.radians(a)), y + R * scale * math.sin(math.radians(a)))
            for a in (-90, -30, 30, 90, 150, 210)
        )

    def name(cell: Cell) -> str:
        return f"{_col_name(cell[1])}{cell[0] + 1}"

    root = svg_root(width, height, size)
    owner = {pair(p): i for i, cells in enumerate(penguins) for p in cells}
    # The floes of the deal that are gone (taken or removed): a faint outline, nothing inside.
    dealt = state.start_board.tolist()
    if dealt:
        gone = el(root, "g", class_="removed")
        for r, row in enumerate(dealt[:rows]):
            for c, fish in enumerate(row[:cols]):
                if fish and int(board[r, c]) <= 0:
                    el(
                        gone,
                        "polygon",
                        data_cell=name((r, c)),
                        points=hexagon((r, c), 0.9),
                        fill="none",
                        stroke="#d3e2ec",
                        stroke_width=1.0,
                        stroke_dasharray="3,3",
                    )
    floes = el(root, "g", class_="floes")
    for r in range(rows):
        for c in range(cols):
            fish = int(board[r, c])
            if fish <= 0:
                continue
            g = el(floes, "g", class_="floe", data_cell=name((r, c)))
            el(
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
                    el(g, "circle", class_="fish", cx=px, cy=py, r=dot, fill="#2d4b63")
            else:
                write_text(
                    g,
                    x,
                    y + dy,
                    str(fish),
                    R * (0.35 if has_penguin else 0.6),
                    class_="fish",
                    font_weight="bold",
                    fill="#2d4b63",
                )

    drawn = (
        move_cells(_read_move, 0, lastmove, "lastmove", rows, cols)
        if lastmove is not None
        else None
    )
    if drawn is not None:
        src, dst, _, _ = drawn
        if src is not None:
            el(
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
            el(
                root,
                "polygon",
                class_="lastmove-to",
                points=hexagon(dst, 0.86),
                fill="none",
                stroke=ARROW_INK,
                stroke_opacity=0.45,
                stroke_width=2.5,
            )

    for cell, colour in fill_list(fill, rows, cols, fish_cell):
        el(
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
        colour, ink = PALETTE[player % len(PALETTE)], ON_PALETTE[player % len(PALETTE)]
        for cell in cells:
            x, y = centre(pair(cell))
            g = el(root, "g", class_=f"penguin player{player}", data_cell=name(pair(cell)))
            el(
                g,
                "circle",
                cx=x,
                cy=y - R * 0.12,
                r=R * 0.45,
                fill=colour,
                stroke=INK,
                stroke_width=1.5,
            )
            write_text(
                g, x, y - R * 0.12, LETTERS[player % 5], R * 0.5, fill=ink, font_weight="bold"
            )

    if drawn is not None and drawn[0] is not None and drawn[1] is not None:
        # The penguin that moved stands at the end (its disc sits R * 0.12 higher; R * 0.5
        # clears it in every direction): the head stops at its edge, not under it.
        x2, y2 = centre(drawn[1])
        arrow(
            root,
            centre(drawn[0]),
            (x2, y2 - R * 0.12),
            R * 0.2,
            ARROW_INK,
            0.5,
            "lastmove",
            R * 0.55,
        )
    occupied = {pair(cell) for cells in penguins for cell in cells}
    for src, dst, colour in arrow_list(_read_move, 0, arrows, rows, cols):
        x2, y2 = centre(dst)
        if dst in occupied:  # as for the last move: the head at the penguin's edge
            arrow(root, centre(src), (x2, y2 - R * 0.12), R * 0.2, colour, 0.6, "arrow", R * 0.55)
        else:
            arrow(root, centre(src), (x2, y2), R * 0.2, colour, 0.6, "arrow")

    if labels:
        coords = el(root, "g", class_="coords")
        top, bottom = (rows - 1, 0) if flipped else (0, rows - 1)
        for c in range(cols):
            for r, y in ((top, margin / 2), (bottom, margin + bh + margin / 2)):
                write_text(coords, centre((r, c))[0], y, _col_name(c), 11.0)
        for r in range(rows):
            y = centre((r, 0))[1]
            for x in (margin / 2, margin + bw + margin / 2):
                write_text(coords, x, y, str(r + 1), 11.0)
        scores = state.scores
        to_move = state.to_move
        legend_g = el(root, "g", class_="legend")
        top_y = 2 * margin + bh + 6
        for player in range(players):
            x = margin + (player % per_line) * bw / 2
            y = top_y + 20.0 * (player // per_line) + 8
            if to_move == player:
                el(
                    legend_g,
                    "polygon",
                    points=points([(x, y - 5), (x + 7, y), (x, y + 5)]),
                    fill=INK,
                )
            player_disc(legend_g, x + 18, y, player, 8.0)
            fish, nfloes = scores[player]
            write_text(
                legend_g, x + 31, y, f"{fish} fish, {nfloes} floes", 12.0, text_anchor="start"
            )
        phase = state.phase
        if phase == "over":
            ranking = state.ranking()
            winners = [LETTERS[p] for p, place in enumerate(ranking) if place == 1]
            status = (
                f"game over: {' and '.join(winners)} {'win' if len(winners) > 1 else 'wins'}"
                if len(winners) < players
                else "game over: a draw"
            )
        else:
            status = f"{phase}, {LETTERS[to_move % 5]} to move" if to_move is not None else phase
        write_text(
            legend_g, margin, top_y + 20.0 * legend_lines + 8, status, 12.0, text_anchor="start"
        )
    return root
