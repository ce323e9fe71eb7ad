"""``pingvinas variants``: the bundled variants with their descriptions."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

import pingvinas as pv

if TYPE_CHECKING:
    from ._common import Subparsers


def run(args: argparse.Namespace) -> None:
    names = pv.variants()
    width = max(len(n) for n in names)
    for name in names:
        description = getattr(pv.load_game(name), "description", None) or ""
        print(f"{name.ljust(width)}  {description}".rstrip())


def add_parser(sub: Subparsers) -> None:
    p = sub.add_parser("variants", help="list the bundled variants with their descriptions")
    p.set_defaults(run=run)
