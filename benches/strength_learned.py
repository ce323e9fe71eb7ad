"""Playing strength of a learned net: the net's player against plain MCTS
(random playouts) and against ``alphabeta`` with the hand-written evaluation (what ``auto``
played before it played the shipped net), at equal time a move, seats swapped, standard boards
dealt from seeds.

Run: ``python benches/strength_learned.py NET.safetensors [--games 200] [--time 0.1]
[--player puct|puct-root|alphabeta|mcts] [--playout-mix L] [--seed 0]``. ``--iterations N``
measures quality apart from speed instead: the net and plain MCTS at N iterations a move,
``alphabeta`` at ``--alphabeta-depth`` plies (2); with ``--player alphabeta``, ``--depth D``
plays the net's alpha-beta and the hand-written one both at D plies (``--against alphabeta``:
how good the evaluation is, apart from its speed). Prints each match's table and a summary line per
opponent with the score rate and its Wilson 95% interval; the targets are 0.70 against
plain MCTS and 0.55 against ``alphabeta`` (exit status 0 when both are met, 1 otherwise);
``--against greedy`` adds a weaker reference.
"""

from __future__ import annotations

import argparse
import sys

import pingvinas as pv
from pingvinas.learn.train import PLAYERS, learned_player
from pingvinas.playing.agents import GreedyAgent, SearchAgent
from pingvinas.playing.match import play_match

#: The targets; greedy (most fish now) is a reference below them, without one.
TARGETS = {"mcts": 0.70, "alphabeta": 0.55, "greedy": None}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("net")
    p.add_argument("--game", default="fish")
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--time", type=float, default=0.1)
    p.add_argument("--player", choices=sorted(PLAYERS), default="puct")
    p.add_argument("--playout-mix", type=float, default=0.0)
    p.add_argument("--iterations", type=int, default=None)
    p.add_argument("--alphabeta-depth", type=int, default=2)
    p.add_argument("--depth", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--against", nargs="+", choices=sorted(TARGETS), default=["mcts", "alphabeta"])
    args = p.parse_args()
    if args.depth is not None and (args.player != "alphabeta" or args.against != ["alphabeta"]):
        p.error(
            "--depth plays the net's alpha-beta against the hand-written one: add --player "
            "alphabeta --against alphabeta"
        )
    game = pv.load_game(args.game)
    net = pv.evaluators.native(args.net)
    met = True
    fixed = args.iterations is not None
    seconds = None if fixed else args.time
    budget = f"{args.iterations} iterations" if fixed else f"{args.time} s"
    if args.depth is not None:
        budget = f"{args.depth} plies"
    for name in args.against:
        if name == "mcts":
            opponent = SearchAgent(
                "mcts", time=seconds, iterations=args.iterations, knowledge=False, name="mcts"
            )
        elif name == "greedy":
            opponent = GreedyAgent(seed=args.seed)
        elif args.depth is not None:
            opponent = SearchAgent("alphabeta", depth=args.depth, name="alphabeta")
        elif fixed:
            opponent = SearchAgent("alphabeta", depth=args.alphabeta_depth, name="alphabeta")
        else:
            opponent = SearchAgent("alphabeta", time=args.time, name="alphabeta")
        if args.depth is not None:
            learned = SearchAgent("alphabeta", depth=args.depth, evaluator=net, name="net")
        else:
            learned = learned_player(
                net, args.player, seconds, args.seed, args.playout_mix, args.iterations
            )
        result = play_match(game, [learned, opponent], games=args.games, seed=args.seed)
        print(result, flush=True)
        stats = result.agents[0]
        lo, hi = stats.ci95
        target = TARGETS[name]
        verdict = "no target"
        if target is not None:
            ok = stats.score_rate >= target
            met &= ok
            verdict = f"target {target:.2f}: {'met' if ok else 'not met'}"
        print(
            f"net ({args.player}) vs {name}: {stats.score_rate:.3f} [{lo:.3f}, {hi:.3f}] over "
            f"{stats.games} games at {budget} a move, playout mix {args.playout_mix} ({verdict})",
            flush=True,
        )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
