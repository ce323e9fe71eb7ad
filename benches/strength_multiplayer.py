"""Fish with 3 and 4 players: paranoid alpha-beta against MCTS (both with Fish knowledge) and
greedy, seats rotated, the same time per move. Answers which search ``algorithm="auto"`` should
pick for more than two players (it picks paranoid alpha-beta).

Run: ``python benches/strength_multiplayer.py [--games 60] [--time 0.1] [--workers 2]``.
Prints the match runner's table for each player count: score rate (1 for a win, 0.5 for a
shared first place...) with its 95% confidence interval, and mean fish per agent.
"""

from __future__ import annotations

import argparse
import time

import pingvinas as pv
from pingvinas.playing.agents import AlphaBetaAgent, GreedyAgent, MCTSAgent


def lineups(t: float) -> list[tuple[int, list]]:
    """(players, one agent per seat) at ``t`` seconds a move: alpha-beta, MCTS (two seats with
    4 players) and greedy."""
    return [
        (3, [AlphaBetaAgent(time=t), MCTSAgent(time=t), GreedyAgent()]),
        (
            4,
            [
                AlphaBetaAgent(time=t),
                MCTSAgent(time=t),
                MCTSAgent(time=t, name="mcts-2"),
                GreedyAgent(),
            ],
        ),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--games", type=int, default=60, help="games per player count (a multiple of it)"
    )
    ap.add_argument("--time", type=float, default=0.1, help="seconds per move")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    t = args.time
    for players, agents in lineups(t):
        games = args.games - args.games % players
        t0 = time.perf_counter()
        res = pv.play_match(
            pv.Fish(players=players), agents, games=games, seed=args.seed, workers=args.workers
        )
        print(
            f"\n{players} players ({games} games, {t} s a move, "
            f"{time.perf_counter() - t0:.0f} s)\n{res}\n",
            flush=True,
        )


if __name__ == "__main__":
    main()
