"""Playing strength of the Fish players, and the exact solvers against brute force.

Run: ``python benches/strength_fish.py [--games 200] [--time 0.1] [--workers 2] [--quick]``.
Prints one table per match and a summary of the targets (see README "Search"):

* MCTS beats random >= 99% and greedy >= 90% (2 players, seats swapped, 0.1 s a move);
* ``auto`` beats plain MCTS with random playouts and the same budget >= 70%;
* ``auto`` (on standard 2-player Fish: alpha-beta with the shipped learned evaluation) beats
  ``alphabeta`` (alpha-beta with the hand-written evaluation) at the same budget >= 50%;
* the exact solver and the region solver agree with brute force on 500 random small positions.

Exit status 0 when every target is met, 1 otherwise.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import pingvinas as pv
from pingvinas.playing.agents import GreedyAgent, MCTSAgent, RandomAgent, SearchAgent


def brute(state):
    """Python minimax, two players: the (fish, floes) the player to move still gains minus the
    opponent's, under optimal play by both."""
    if state.is_over:
        return (0, 0)
    p = state.to_move
    best = None
    for m in state.legal_moves():
        c = state.after(m)
        gain = [
            (c.scores[q][0] - state.scores[q][0], c.scores[q][1] - state.scores[q][1])
            for q in range(2)
        ]
        d = (gain[p][0] - gain[1 - p][0], gain[p][1] - gain[1 - p][1])
        rest = brute(c)
        if not c.is_over and c.to_move != p:
            rest = (-rest[0], -rest[1])
        v = (d[0] + rest[0], d[1] + rest[1])
        if best is None or v > best:
            best = v
    return best


def final_returns(state, value):
    """Returns for the player to move of a result worth ``value`` (a (fish, floes) gain
    difference), for comparing with a search's exact value."""
    p = state.to_move
    mine = (state.scores[p][0] + 0, state.scores[p][1])
    other = state.scores[1 - p]
    d = (mine[0] - other[0] + value[0], mine[1] - other[1] + value[1])
    return 1.0 if d > (0, 0) else (-1.0 if d < (0, 0) else 0.0)


def solver_check(positions: int, seed: int) -> tuple:
    """The exact solver against Python brute force on random small positions; and, on those
    whose regions each have one owner, the region solver (the search's exact value) too."""
    rng = random.Random(seed)
    game = pv.Fish(penguins=1, placement="any")
    agree = region_agree = region_total = checked = 0
    while checked < positions:
        rows, cols = rng.choice([(2, 4), (3, 3), (2, 5), (3, 4)])
        board = [[rng.choice([0, 1, 1, 2, 3]) for _ in range(cols)] for _ in range(rows)]
        cells = [(r, c) for r in range(rows) for c in range(cols) if board[r][c]]
        if len(cells) < 3 or len(cells) > 9:
            continue
        a, b = rng.sample(cells, 2)
        s = game.position(board=board, penguins=[[a], [b]], to_move=rng.randrange(2))
        if s.is_over:
            continue
        truth = brute(s)
        checked += 1
        agree += pv.fish.solve(s).value == truth
        r = pv.search(s, "alphabeta", depth=1)
        if r.exact:
            # Every region has one owner: the region solver decided the game at depth 1.
            region_total += 1
            region_agree += r.value == final_returns(s, truth)
    return agree, checked, region_agree, region_total


def matchups(t: float) -> list[tuple[str, list, float]]:
    """The matches of standard 2-player Fish at ``t`` seconds a move: (name, the two agents,
    the least score rate of the first that meets the target)."""
    return [
        ("mcts vs random", [MCTSAgent(time=t), RandomAgent()], 0.99),
        ("mcts vs greedy", [MCTSAgent(time=t), GreedyAgent()], 0.90),
        (
            "auto vs plain mcts (random playouts)",
            [SearchAgent("auto", time=t), MCTSAgent(time=t, knowledge=False, name="plain-mcts")],
            0.70,
        ),
        (
            "auto vs alphabeta (hand-written evaluation)",
            [SearchAgent("auto", time=t), SearchAgent("alphabeta", time=t)],
            0.50,
        ),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--time", type=float, default=0.1, help="seconds per move")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--positions", type=int, default=500)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--quick", action="store_true", help="20 games per match, 100 positions")
    args = ap.parse_args()
    if args.quick:
        args.games, args.positions = 20, 100
    t, n = args.time, args.games
    ok = True
    lines = []

    def match(name, agents, target):
        nonlocal ok
        t0 = time.perf_counter()
        res = pv.play_match(pv.Fish(), agents, games=n, seed=args.seed, workers=args.workers)
        rate = res.agents[0].score_rate
        lo, hi = res.agents[0].ci95
        print(
            f"\n{name} ({n} games, {t} s a move, {time.perf_counter() - t0:.0f} s)\n{res}\n",
            flush=True,
        )
        met = rate >= target
        ok &= met
        lines.append(
            f"{name:<40} {rate:6.1%}  95% CI [{lo:.1%}, {hi:.1%}]  target >= {target:.0%}  "
            f"{'ok' if met else 'MISSED'}"
        )

    for name, agents, target in matchups(t):
        match(name, agents, target)

    t0 = time.perf_counter()
    agree, checked, region_agree, region_total = solver_check(args.positions, args.seed)
    solver_ok = agree == checked and region_agree == region_total
    ok &= solver_ok
    lines.append(
        f"{'exact solver = brute force':<40} {agree}/{checked} positions; "
        f"region solver {region_agree}/{region_total} "
        f"({time.perf_counter() - t0:.0f} s)  {'ok' if solver_ok else 'MISSED'}"
    )
    print("\n".join(["", "Summary:"] + lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
