"""How far each player is from perfect play: each of ``greedy``, ``mcts``,
``alphabeta`` and ``auto`` (and ``random`` as the floor), at each time budget, plays the
boards of a solved board class against the perfect player; at each of its decisions the solver
says whether its move is optimal and how many fish of its final margin it gives away.

    python benches/perfect_play.py [--class fish-mini-4x4] [--games 20]

``pingvinas solve --table`` runs the same measurement into ``docs/solved.md``; this prints
the table alone. Times per move are wall-clock: on a loaded machine a search sees less of its
budget, so say the load average (printed first) with the figures.
"""

from __future__ import annotations

import argparse
import os

from pingvinas.solved import CLASSES, Solver, board_class
from pingvinas.solved.table import PLAYERS, perfect_play


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--class", dest="cls", default="fish-mini-4x4", choices=[c.name for c in CLASSES]
    )
    parser.add_argument("--games", type=int, default=20, help="games per player (default 20)")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; {args.games} games per player on {args.cls}")
    solver = Solver()
    rows = perfect_play(board_class(args.cls), args.games, PLAYERS, solver)
    print(f"{'player, time per move':<24} {'decisions':>9} {'optimal':>8} {'fish lost/game':>15}")
    for r in rows:
        print(f"{r.label:<24} {r.decisions:>9} {r.share:>8.0%} {r.lost_per_game:>15.2f}")
    print(f"solver: {solver.nodes:,} nodes in {solver.seconds:.1f} s")


if __name__ == "__main__":
    main()
