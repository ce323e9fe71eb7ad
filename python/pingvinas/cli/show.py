"""``pingvinas show``: a position or a game record as text, or as a picture."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Optional

import pingvinas as pv

from ._common import MAX_INDEX, check_outputs, force_option, int_in

if TYPE_CHECKING:
    from ._common import Subparsers


def _move_number(args: argparse.Namespace) -> Optional[int]:
    """``--move`` as the number of moves played: a negative one counts positions back from the
    end as Python indexes ``record.states()``, so that -1 is the last position (the default)
    and ``-(moves + 1)`` the start."""
    move: Optional[int] = args.move
    if move is None or move >= 0:
        return move
    from pingvinas.console import load_shown

    shown = load_shown(args.source, args.index)
    if not isinstance(shown, pv.GameRecord):
        return move  # a single position: show() says that --move needs a record
    positions = len(shown) + 1
    if move < -positions:
        raise ValueError(
            f"--move {move}: the game has {len(shown)} moves ({-positions} to {len(shown)}; "
            "-1 is the last position)"
        )
    return move + positions


def run(args: argparse.Namespace) -> None:
    from pingvinas.console import show

    check_outputs(args.svg, args.png, force=args.force)
    try:
        where = dict(move=_move_number(args), index=args.index)
        show(args.source, svg=args.svg, png=args.png, size=args.size, **where)
    except ImportError as e:  # --png without cairosvg
        raise ValueError(str(e)) from None
    except OSError as e:
        raise ValueError(f"cannot write {e.filename}: {e.strerror}") from None


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser("show", help="show a position or a game record as text, or draw it")
    p.add_argument(
        "source",
        metavar="FILE_OR_JSON",
        help="a state's JSON, a game record or a JSON Lines file of records (a file or the JSON)",
    )
    p.add_argument(
        "--move",
        type=int_in(-MAX_INDEX, MAX_INDEX),
        help="the position after this many moves of a record (default: the last; negative: "
        "counted from the end, -1 the last position, as Python indexes; -1,000,000,000 to "
        "1,000,000,000)",
    )
    p.add_argument(
        "--index",
        type=int_in(-MAX_INDEX, MAX_INDEX),
        default=0,
        help="which record of a JSON Lines file (-1,000,000,000 to 1,000,000,000; negative: "
        "from the end; default 0)",
    )
    pictures = p.add_mutually_exclusive_group()
    pictures.add_argument("--svg", metavar="OUT", help="write an SVG picture to OUT")
    pictures.add_argument(
        "--png", metavar="OUT", help="write a PNG picture to OUT (needs pingvinas[png])"
    )
    p.add_argument(
        "--size", type=int_in(16, 10_000), help="the picture's width in pixels (16 to 10,000)"
    )
    force_option(p, "the picture OUT")
    p.set_defaults(run=run)
