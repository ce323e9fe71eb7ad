"""What running a net in Rust gains: PUCT iterations per second on the standard 2-player Fish
board after placement, with one `pv.evaluators.Net` (random weights) evaluated by the engine,
and the same net called through the Python evaluator protocol (a lambda around it), at batch
sizes 1 and 16; then one tree searched by 1 and by 2 threads (``threads=2``: tree-parallel with
virtual loss; the target is x1.6 on a quiet machine), measured in turns so that a
change in the machine's load hits both; plain MCTS with random playouts for scale. Last,
alpha-beta's nodes per second with the hand-written evaluation, the `Net`'s value head and an
`NnueNet` (accumulator 64, dense 32, 32; refreshed at each leaf) as its estimate.

Build with ``maturin develop --release`` (or install a release wheel) for figures worth
quoting, and run it alone:

    python benches/native_net.py [--hidden 64,64] [--time 2] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import time

import pingvinas as pv
from pingvinas.searching.evaluators import Net, NnueNet


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hidden", default="64,64", help="trunk widths")
    ap.add_argument("--time", type=float, default=2.0, help="seconds a search")
    ap.add_argument("--rounds", type=int, default=3, help="turns of 1 and 2 threads")
    args = ap.parse_args()
    game = pv.Fish()
    state = game.new_state(seed=1)
    while state.phase == "placement":
        state.play(state.legal_actions()[0])
    net = Net.random(game, [int(w) for w in args.hidden.split(",")], seed=1)
    print(f"{net!r}, load average {os.getloadavg()[0]:.2f}")
    rates = {}
    for batch in (1, 16):
        for name, evaluator in (("Rust", net), ("Python", lambda o, m: net(o, m))):
            r = pv.search(
                state, "puct", evaluator=evaluator, time=args.time, batch_size=batch, seed=1
            )
            rates[name, batch] = r.iterations / r.time
            print(f"PUCT, net in {name:<6}, batch {batch:>2}: {rates[name, batch]:>9.0f} it/s")
        print(
            f"  Rust / Python at batch {batch}: "
            f"x{rates['Rust', batch] / rates['Python', batch]:.1f}"
        )
    # Iterations per second of wall time (the target), and per second of this process's CPU
    # time: on a busy machine the second shows what the threads waste (spinning, the lock)
    # when the first cannot show what they gain.
    wall = {1: 0.0, 2: 0.0}
    cpu = {1: 0.0, 2: 0.0}
    for _ in range(args.rounds):
        for threads in wall:
            start = time.process_time()
            r = pv.search(
                state, "puct", evaluator=net, time=args.time, batch_size=16, threads=threads
            )
            wall[threads] += r.iterations / r.time
            cpu[threads] += r.iterations / max(time.process_time() - start, 1e-9)
    one, two = (wall[t] / args.rounds for t in (1, 2))
    print(
        f"PUCT, net in Rust, batch 16, one tree: {one:.0f} it/s on 1 thread, {two:.0f} on 2: "
        f"x{two / one:.2f} (load average now {os.getloadavg()[0]:.2f})"
    )
    print(
        f"  per CPU second: {cpu[1] / args.rounds:.0f} it on 1 thread, "
        f"{cpu[2] / args.rounds:.0f} on 2"
    )
    r = pv.search(state, "mcts", time=args.time, knowledge=False, seed=1)
    print(f"plain MCTS (random playouts):     {r.iterations / r.time:>9.0f} it/s")
    nnue = NnueNet.random(game, 64, [32, 32], seed=1)
    for name, estimate in (("hand-written", None), ("Net", net), ("NnueNet", nnue)):
        r = pv.search(state, "alphabeta", evaluator=estimate, time=args.time, threads=1)
        print(f"alpha-beta, {name:<12} estimate: {r.nodes / r.time:>9.0f} nodes/s")


if __name__ == "__main__":
    main()
