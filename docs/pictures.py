"""Draws the picture of each game that README.md (and so the documentation's home page) shows
first, with the package's own pictures (``state.svg()``): a standard Fish board in mid-game and
a Penguin Marathon race under way, each reached by a seeded game of MCTS on one thread, so that
the same rules and search draw the same files byte for byte.

    python docs/pictures.py              # rewrites docs/img/fish-game.svg, marathon-race.svg
    python docs/pictures.py --out DIR    # the same files into DIR
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pingvinas as pv

IMG = Path(__file__).resolve().parent / "img"


def played(state: pv.State, plies: int) -> tuple[pv.State, pv.Move]:
    """``state`` after ``plies`` moves of MCTS (seeded by the ply), and the last move."""
    move = None
    for ply in range(plies):
        move = pv.search(state, algorithm="mcts", iterations=200, seed=ply).move
        state.play(move)
    assert move is not None
    return state, move


def pictures() -> dict[str, str]:
    """The file name and SVG text of each picture."""
    fish, fish_move = played(pv.Fish().new_state(seed=7), 20)
    race, race_move = played(pv.Marathon().new_state(), 24)
    return {
        "fish-game.svg": fish.svg(size=400, lastmove=fish_move),
        "marathon-race.svg": race.svg(size=300, lastmove=race_move),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=IMG, help="the folder (default: docs/img)")
    out = parser.parse_args(argv).out
    for name, svg in pictures().items():
        (out / name).write_text(svg, encoding="utf-8")
        print(out / name)


if __name__ == "__main__":
    main()
