"""What the evaluator protocol costs: PUCT searches valued by a Python callable.

1. A trivial numpy evaluator (it returns slices of preallocated zero arrays) at batch sizes 1,
   16 and 256 (one tree with ``batch_size`` 1 and 16; 16 trees of 16 in ``search_many`` for
   256): evaluator calls per second, leaves per second, the time per leaf spent outside the
   evaluator (total time minus the time inside it), and of that the protocol's own share: the
   same searches run by the engine alone with answers of zeros (the example ``puct_zeros``,
   no Python at all) take the search's own time; the difference is what crossing into Python
   adds per leaf (the call, the read-only views, reading and checking the answers).
2. PUCT iterations per second with a small torch net (two 3x3 convolutions and two linear
   heads) on the CPU, one search and 16 searches at once; skipped when torch is absent.

Build with ``maturin develop --release`` for figures worth quoting: the script builds the
example with ``cargo build --release``, and against a dev build of the extension the protocol
column means nothing.

    python benches/evaluator_protocol.py [--leaves 200000] [--game fish|marathon|both]
    PYTHONPATH=/work/pylibs python benches/evaluator_protocol.py   # with torch
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from pathlib import Path

import numpy as np

import pingvinas as pv

ROOT = Path(__file__).resolve().parent.parent


def fish_position():
    s = pv.Fish().new_state(seed=1)
    while s.phase == "placement":
        s.play(s.legal_actions()[0])
    return s


def marathon_position():
    s = pv.Marathon().new_state()
    for _ in range(4):
        s.play(s.legal_actions()[0])
    return s


class Trivial:
    """Zero logits and values from preallocated arrays; counts calls, rows and its own time."""

    def __init__(self, num_actions: int, players: int, rows: int = 4096) -> None:
        self.p = np.zeros((rows, num_actions), np.float32)
        self.v = np.zeros((rows, players), np.float32)
        self.calls = self.rows = 0
        self.inside = 0.0

    def __call__(self, obs: np.ndarray, mask: np.ndarray):
        t = clock()
        n = len(obs)
        out = self.p[:n], self.v[:n]
        self.calls += 1
        self.rows += n
        self.inside += clock() - t
        return out


#: CPU time of this thread: the searches run on the calling thread (the GIL released, not
#: another thread), and the machine may be shared; wall time would count other processes.
clock = time.thread_time


def search_alone_program() -> str:
    """The engine example that times PUCT alone, its leaves answered with zeros: built now."""
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "pingvinas-engine", "--example", "puct_zeros"],
        cwd=ROOT,
        check=True,
    )
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return str(target / "release" / "examples" / "puct_zeros")


def search_alone(
    program: str, state, trees: int, iterations: int, batch: int, knowledge: bool
) -> float:
    """The CPU seconds of ``trees`` searches of ``state`` in the engine alone, as
    ``search_many`` runs them (seed 0)."""
    args = [program, str(trees), str(iterations), str(batch)]
    args += [] if knowledge else ["--no-knowledge"]
    run = subprocess.run(args, input=state.to_json(), capture_output=True, text=True, check=True)
    return float(run.stdout)


def protocol(program: str, state, batch: int, leaves: int, knowledge: bool, repeats: int) -> dict:
    trees, per_tree = (16, batch // 16) if batch >= 256 else (1, batch)
    players = len(state.returns())
    ev = Trivial(state.num_actions, players)
    iterations = max(leaves // trees, 1)
    states = [state] * trees
    opts = dict(batch_size=per_tree, knowledge=knowledge)
    pv.search_many(states, evaluator=ev, iterations=min(iterations, 500), **opts)
    # The Python-driven searches and the engine's alone alternate; the least of each is kept.
    best: dict = {}
    native = float("inf")
    for _ in range(repeats):
        ev.calls = ev.rows = 0
        ev.inside = 0.0
        t = clock()
        pv.search_many(states, evaluator=ev, iterations=iterations, **opts)
        total = clock() - t
        if not best or total < best["total"]:
            best = dict(
                calls=ev.calls,
                leaves=ev.rows,
                total=total,
                inside=ev.inside,
                mean_batch=ev.rows / max(ev.calls, 1),
            )
        alone = search_alone(program, state, trees, iterations, per_tree, knowledge)
        native = min(native, alone)
    best["native"] = native
    return best


def torch_rows(state, iterations: int) -> list[tuple[str, float, float]]:
    try:
        import torch
    except ImportError:
        print("torch is not installed: the torch benchmark is skipped")
        return []
    import warnings

    # The observations are read-only buffers the search reuses; the net only reads them.
    warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
    torch.set_num_threads(1)
    c, h, w = state.observation_tensor().shape
    a = state.num_actions
    players = len(state.returns())

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = torch.nn.Sequential(
                torch.nn.Conv2d(c, 32, 3, padding=1),
                torch.nn.ReLU(),
                torch.nn.Conv2d(32, 32, 3, padding=1),
                torch.nn.ReLU(),
                torch.nn.Flatten(),
            )
            self.policy = torch.nn.Linear(32 * h * w, a)
            self.value = torch.nn.Linear(32 * h * w, players)

        def forward(self, x):
            z = self.body(x)
            return self.policy(z), torch.tanh(self.value(z))

    net = Net().eval()

    def evaluate(obs, mask):
        with torch.inference_mode():
            p, v = net(torch.from_numpy(obs))
        return p.numpy(), v.numpy()

    rows = []
    for trees, batch in ((1, 1), (1, 16), (16, 16)):
        states = [state] * trees
        pv.search_many(states, evaluator=evaluate, iterations=32, batch_size=batch)
        t = time.perf_counter()
        results = pv.search_many(
            states, evaluator=evaluate, iterations=iterations, batch_size=batch
        )
        secs = time.perf_counter() - t
        done = sum(r.iterations for r in results)
        rows.append((f"{trees} tree(s) x batch {batch}", done / secs, secs))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--leaves", type=int, default=200_000)
    parser.add_argument("--game", choices=["fish", "marathon", "both"], default="both")
    parser.add_argument("--torch-iterations", type=int, default=800)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--no-knowledge",
        action="store_true",
        help="search without the game's knowledge (Fish: no solved regions, no pruning)",
    )
    args = parser.parse_args()
    games = []
    if args.game in ("fish", "both"):
        games.append(("Fish", fish_position()))
    if args.game in ("marathon", "both"):
        games.append(("Marathon", marathon_position()))
    program = search_alone_program()
    print(f"Trivial numpy evaluator (CPU time of the calling thread, least of {args.repeats}):")
    head = (
        f"{'game':<9} {'batch':>5} {'mean B':>7} {'calls/s':>10} {'leaves/s':>11} "
        f"{'µs/leaf total':>14} {'outside fn':>11} {'search alone':>13} {'protocol':>9}"
    )
    print(head)
    for name, state in games:
        for batch in (1, 16, 256):
            leaves = args.leaves if batch > 1 else args.leaves // 4
            r = protocol(program, state, batch, leaves, not args.no_knowledge, args.repeats)
            print(
                f"{name:<9} {batch:>5} {r['mean_batch']:>7.1f} {r['calls'] / r['total']:>10.0f} "
                f"{r['leaves'] / r['total']:>11.0f} {r['total'] / r['leaves'] * 1e6:>14.2f} "
                f"{(r['total'] - r['inside']) / r['leaves'] * 1e6:>11.2f} "
                f"{r['native'] / r['leaves'] * 1e6:>13.2f} "
                f"{(r['total'] - r['inside'] - r['native']) / r['leaves'] * 1e6:>9.2f}"
            )
    print("(µs per leaf; 'protocol' = outside fn - search alone)")
    for name, state in games:
        rows = torch_rows(state, args.torch_iterations)
        if rows:
            print(f"\nPUCT with a small torch net (CPU, 1 torch thread), {name}:")
            print(f"{'searches':<24} {'iterations/s':>13} {'seconds':>8}")
            for what, rate, secs in rows:
                print(f"{what:<24} {rate:>13.0f} {secs:>8.2f}")


if __name__ == "__main__":
    main()
