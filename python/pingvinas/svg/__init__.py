"""Pictures of positions as SVG, for both games (in the manner of python-chess's ``chess.svg``).

```pycon
>>> import pingvinas as pv
>>> state = pv.Fish().new_state(seed=7)
>>> state.play("b1")
>>> picture = state.svg(size=300)             # SVG text; Jupyter shows a state by itself
>>> picture.startswith("<svg")
True

```

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

import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Optional, Union, cast

from .._args import is_int
from .._core import FishState, MarathonState
from ..games import MoveLike, State
from . import fish, marathon
from ._draw import PALETTE, SvgText, el, num, svg_root, tostring, write_text

if TYPE_CHECKING:
    from ..record import GameRecord

__all__ = ["PALETTE", "SvgText", "game", "state_svg", "to_array", "to_png"]


def _is_fish(state: object) -> bool:
    return hasattr(state, "board") and hasattr(state, "penguins")


def _kind(state: object) -> str:
    if _is_fish(state):
        return "fish"
    if hasattr(state, "pieces"):
        return "marathon"
    raise TypeError(f"expected a FishState or a MarathonState, got {type(state).__name__}")


def _element(
    state: Any,
    size: Optional[float],
    lastmove: Any,
    arrows: Any,
    labels: Any,
    flipped: Any,
    fill: Any = None,
) -> ET.Element:
    # By what the state has (any object with a Fish state's or a Marathon state's attributes).
    if _kind(state) == "fish":
        return fish.draw(
            cast(FishState, state), size, lastmove, arrows, bool(labels), bool(flipped), fill
        )
    return marathon.draw(
        cast(MarathonState, state), size, lastmove, arrows, bool(labels), bool(flipped), fill
    )


def state_svg(
    state: State,
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
    return tostring(_element(state, size, lastmove, arrows, labels, flipped, fill))


#: ``game``'s defaults: at most this many positions in a strip, each this many pixels wide.
_MAX_FRAMES = 16
_FRAME_SIZE = 240.0


def _frames(
    source: Union[GameRecord, Iterable[MoveLike]], start: Optional[State]
) -> tuple[list[State], list[Any]]:
    """The states of a game and the move before each (None before the first)."""
    if hasattr(source, "states") and hasattr(source, "moves"):
        states = list(source.states())
        moves = [None] + list(source.moves)
        return states, moves[: len(states)]
    if start is None:
        raise ValueError(
            "start = None: a list of moves needs the state they start from (start=state)"
        )
    state: Any = start.copy()  # either game's: its parse_move checks the moves
    states, moves = [state.copy()], [None]
    for _i, mv in enumerate(source):
        played = state.parse_move(mv)
        state.play(played)
        states.append(state.copy())
        moves.append(played)
    return states, moves


def game(
    source: Union[GameRecord, Iterable[MoveLike]],
    start: Optional[State] = None,
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
    if every is not None and (not is_int(every) or every < 1):
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
        root = svg_root(fw, fh + caption, size)
        total = seconds * len(frames)
        for k, (i, frame) in enumerate(zip(picks, frames)):
            g = el(root, "g", class_="frame", visibility="visible" if k == 0 else "hidden")
            _caption(g, fw / 2, fh + caption / 2, i, moves[i], scale)
            _nest(g, frame, 0.0, 0.0)
            if len(frames) > 1:
                a, b = k / len(frames), (k + 1) / len(frames)
                if k == 0:
                    values, times = "visible;hidden", f"0;{num(b)}"
                elif k == len(frames) - 1:
                    values, times = "hidden;visible", f"0;{num(a)}"
                else:
                    values, times = "hidden;visible;hidden", f"0;{num(a)};{num(b)}"
                el(
                    g,
                    "animate",
                    attributeName="visibility",
                    calcMode="discrete",
                    values=values,
                    keyTimes=times,
                    dur=f"{num(total)}s",
                    repeatCount="indefinite",
                )
        return tostring(root)
    if columns is None:
        columns = min(4, len(frames))
    if not is_int(columns) or columns < 1:
        raise ValueError(f"columns = {columns!r}: expected a positive int")
    gap = 10.0 * scale
    rows = (len(frames) + columns - 1) // columns
    width = columns * fw + (columns - 1) * gap
    height = rows * (fh + caption) + (rows - 1) * gap
    assert size is not None  # the strip's default size is set above
    root = svg_root(width, height, size * width / fw)
    for k, (i, frame) in enumerate(zip(picks, frames)):
        x, y = (k % columns) * (fw + gap), (k // columns) * (fh + caption + gap)
        g = el(root, "g", class_="frame")
        _nest(g, frame, x, y)
        _caption(g, x + fw / 2, y + fh + caption / 2, i, moves[i], scale)
    return tostring(root)


def _caption(
    parent: ET.Element, x: float, y: float, ply: int, move: Any, scale: float = 1.0
) -> None:
    write_text(parent, x, y, "start" if move is None else f"{ply}. {move}", 13.0 * scale)


def _nest(parent: ET.Element, frame: ET.Element, x: float, y: float) -> None:
    """``frame`` (an ``<svg>``) inside ``parent`` at ``(x, y)``, at its own size."""
    _, _, w, h = frame.get("viewBox", "0 0 0 0").split()
    inner = el(parent, "svg", x=x, y=y, width=w, height=h, viewBox=f"0 0 {w} {h}")
    inner.extend(list(frame))


def to_png(svg: str, path: Union[str, Any, None] = None, *, scale: float = 1.0) -> bytes:
    """The picture as PNG bytes, written to ``path`` too if given. Needs cairosvg
    (``pip install 'pingvinas[png]'``).

    :raises ImportError: when cairosvg (or the cairo library it uses) is missing.
    """
    cairosvg = _cairosvg()
    data: bytes = cairosvg.svg2png(bytestring=str(svg).encode("utf-8"), scale=scale)
    if path is not None:
        from .._files import write_bytes

        write_bytes(path, data)  # whole or not at all
    return data


def _cairosvg() -> Any:
    try:
        import cairosvg
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
    from cairosvg.parser import Tree
    from cairosvg.surface import PNGSurface

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
