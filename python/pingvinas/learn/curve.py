"""The learning curve of ``pingvinas train``: score against each opponent by training minute, with
the 95% intervals as bands, as an SVG (always) and a PNG (with cairosvg)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional
from xml.sax.saxutils import escape

from .._files import write_text

#: Opponent names and their line colours.
COLOURS = {"mcts": "#1f77b4", "alphabeta": "#d62728"}


#: What the training minutes of ``pingvinas train`` count.
MINUTES = "training minutes (self-play and updates)"


def curve_svg(checks: Sequence[dict[str, Any]], title: str = "", minutes: str = MINUTES) -> str:
    """The picture of the ``"check"`` events of a training log (each with ``minutes`` and, per
    opponent, ``score``, ``low`` and ``high``); ``minutes`` labels the horizontal axis."""
    w, h, left, right, top, bottom = 640, 400, 60, 120, 40, 50
    pw, ph = w - left - right, h - top - bottom
    span = max([float(c["minutes"]) for c in checks] + [1e-9])

    def x(m: float) -> float:
        return left + pw * m / span

    def y(v: float) -> float:
        return top + ph * (1 - v)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
        f'<text x="{w / 2}" y="22" text-anchor="middle" font-size="15">{escape(title)}</text>',
    ]
    for v in (0, 0.25, 0.5, 0.75, 1):
        dash = ' stroke-dasharray="4 3"' if v == 0.5 else ""
        parts.append(
            f'<line x1="{left}" x2="{left + pw}" y1="{y(v)}" y2="{y(v)}" stroke="#ccc"{dash}/>'
        )
        parts.append(f'<text x="{left - 6}" y="{y(v) + 4}" text-anchor="end">{v:.2f}</text>')
    for k in range(6):
        m = span * k / 5
        parts.append(f'<text x="{x(m)}" y="{top + ph + 18}" text-anchor="middle">{m:.1f}</text>')
    parts += [
        f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>',
        f'<text x="{left + pw / 2}" y="{h - 10}" text-anchor="middle">{escape(minutes)}</text>',
        f'<text transform="translate(16 {top + ph / 2}) rotate(-90)" text-anchor="middle">'
        "score rate at equal time</text>",
    ]
    for i, (name, colour) in enumerate(COLOURS.items()):
        pts = [c for c in checks if name in c]
        if not pts:
            continue
        band = [(x(c["minutes"]), y(c[name]["high"])) for c in pts]
        band += [(x(c["minutes"]), y(c[name]["low"])) for c in reversed(pts)]
        line = " ".join(f"{px:.1f},{py:.1f}" for px, py in band)
        parts.append(f'<polygon points="{line}" fill="{colour}" fill-opacity="0.15"/>')
        line = " ".join(f"{x(c['minutes']):.1f},{y(c[name]['score']):.1f}" for c in pts)
        parts.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for c in pts:
            parts.append(
                f'<circle cx="{x(c["minutes"]):.1f}" cy="{y(c[name]["score"]):.1f}" r="3" '
                f'fill="{colour}"/>'
            )
        ly = top + 20 + 20 * i
        parts.append(
            f'<line x1="{left + pw + 12}" x2="{left + pw + 32}" y1="{ly}" y2="{ly}" '
            f'stroke="{colour}" stroke-width="2"/>'
        )
        parts.append(f'<text x="{left + pw + 38}" y="{ly + 4}">vs {name}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def write_curve(
    checks: Sequence[dict[str, Any]],
    svg: Path,
    png: Optional[Path],
    title: str = "",
    minutes: str = MINUTES,
) -> bool:
    """Writes the SVG, and the PNG when cairosvg is installed; ``True`` if the PNG was written."""
    text = curve_svg(checks, title, minutes)
    write_text(svg, text)
    if png is None:
        return False
    from ..svg import to_png

    try:
        to_png(text, png)
    except ImportError:
        return False
    return True
