"""AlphaZero on pingvinas, small enough for a laptop CPU.

    python examples/alphazero.py --game fish --minutes 60 --out runs/fish

needs ``pip install "pingvinas[onnx]" torch``. The loop:

1. Distil (optional, ``--distil-games``): self-play games of plain MCTS at
   ``--teacher-simulations`` playouts a move (:func:`pingvinas.selfplay` without an evaluator,
   at engine speed) give a first policy (the visit counts) and value (the outcomes), so the
   network's self-play starts from a net that already knows the game a little.
2. Rounds until the time is up: export the net to ONNX, play ``--games`` self-play games with
   PUCT at ``--simulations`` simulations per move (:func:`pingvinas.selfplay`, all games' leaves
   batched into one call of the ONNX evaluator), then train on a window of the latest samples.
3. Every ``--eval-every`` rounds (and once at the end, with ``--final-games``), the new net
   plays plain MCTS (random playouts) given the same number of simulations, and plain MCTS
   given the same time per move; a table row is printed after each round.

The net is a small residual tower over the observation planes with AlphaZero's two heads:
a policy over the whole action space (masked to the legal actions by the search) and one value
per seat, seat 0 being the player to move (the evaluator protocol of
:mod:`pingvinas.searching.searcher`).
"""

from __future__ import annotations

import argparse
import time
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import pingvinas as pv
from pingvinas import evaluators
from pingvinas.playing.agents import MCTSAgent, SearchAgent
from pingvinas.playing.match import MatchResult


class Block(nn.Module):
    """A residual block: two 3x3 convolutions with batch norm."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(x + self.bn2(self.conv2(y)))


class Net(nn.Module):
    """Observation planes in; policy logits over the action space and per-seat values out."""

    def __init__(self, game: Any, channels: int = 32, blocks: int = 2) -> None:
        super().__init__()
        planes, rows, cols = game.observation_shape
        area = rows * cols
        self.stem = nn.Sequential(
            nn.Conv2d(planes, channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(channels),
            nn.ReLU(),
        )
        self.tower = nn.Sequential(*(Block(channels) for _ in range(blocks)))
        self.policy = nn.Sequential(
            nn.Conv2d(channels, 4, 1, bias=False),
            nn.BatchNorm2d(4),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(4 * area, game.num_actions),
        )
        self.value = nn.Sequential(
            nn.Conv2d(channels, 2, 1, bias=False),
            nn.BatchNorm2d(2),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(2 * area, 64),
            nn.ReLU(),
            nn.Linear(64, game.players),
            nn.Tanh(),
        )

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.tower(self.stem(x))
        return self.policy(h), self.value(h)


def export(net: Net, game: Any, path: Path) -> Any:
    """Writes the net as ONNX (dynamic batch) and returns an ONNX evaluator on it (one
    onnxruntime thread: the search and the evaluator take turns on the cores)."""
    net.eval()
    evaluators.export_onnx(net, game, path)
    return evaluators.onnx(path, threads=1, game=game)


def distil(
    game: Any, games: int, simulations: int, seed: int, threads: int
) -> dict[str, np.ndarray]:
    """Samples from self-play of plain MCTS at ``simulations`` playouts a move (the visit
    counts as policy targets, the outcomes as values): a teacher that costs no network
    evaluation and runs at engine speed on every core."""
    data = pv.selfplay(
        game,
        games=games,
        simulations=simulations,
        seed=seed + 1,
        threads=threads,
        temperature_moves=12,
    )
    return as_samples(data)


def as_samples(data: pv.SelfPlayData) -> dict[str, np.ndarray]:
    return {
        "observations": data.observations,
        "legal_masks": data.legal_masks,
        "policies": data.policies,
        "values": data.value_targets().astype(np.float32),
    }


def train(
    net: Net, opt: torch.optim.Optimizer, window: deque, steps: int, batch: int, rng: Any
) -> tuple[float, float]:
    """``steps`` minibatches drawn uniformly from the window; mean policy and value losses."""
    data = {k: np.concatenate([part[k] for part in window]) for k in window[0]}
    n = len(data["observations"])
    net.train()
    lp = lv = 0.0
    for _ in range(steps):
        idx = rng.integers(0, n, size=min(batch, n))
        x = torch.from_numpy(data["observations"][idx])
        mask = torch.from_numpy(data["legal_masks"][idx])
        pi = torch.from_numpy(data["policies"][idx])
        z = torch.from_numpy(data["values"][idx])
        logits, v = net(x)
        logits = logits.masked_fill(~mask, -1e9)
        loss_p = -(pi * F.log_softmax(logits, dim=1)).sum(dim=1).mean()
        loss_v = F.mse_loss(v, z)
        opt.zero_grad()
        (loss_p + loss_v).backward()
        opt.step()
        lp += loss_p.item()
        lv += loss_v.item()
    return lp / steps, lv / steps


def evaluate(
    game: Any, evaluator: Any, simulations: int, games: int, seed: int, batch_size: int
) -> tuple[MatchResult, MatchResult, float]:
    """The net (PUCT) against plain MCTS at equal simulations, then at equal time."""
    puct = SearchAgent(
        "puct", iterations=simulations, evaluator=evaluator, batch_size=batch_size, name="net"
    )
    equal_sims = pv.play_match(
        game,
        [puct, MCTSAgent(iterations=simulations, knowledge=False, name="mcts")],
        games=games,
        seed=seed,
        progress=False,
    )
    # Plain MCTS gets as much time per move as the net's searches take.
    per_move = _seconds_per_move(game, evaluator, simulations, batch_size, seed)
    equal_time = pv.play_match(
        game,
        [puct.spawn(), MCTSAgent(time=per_move, knowledge=False, name="mcts")],
        games=games,
        seed=seed + 1,
        progress=False,
    )
    return equal_sims, equal_time, per_move


def _seconds_per_move(
    game: Any, evaluator: Any, simulations: int, batch_size: int, seed: int
) -> float:
    """The mean time of one PUCT search over the positions of a few random games."""
    searcher = pv.Searcher("puct", evaluator=evaluator, batch_size=batch_size, seed=seed)
    rng = np.random.default_rng(seed)
    spent, searches = 0.0, 0
    for g in range(4):
        state = game.new_state(seed=seed + g)
        while not state.is_over:
            start = time.perf_counter()
            searcher.search(state, iterations=simulations)
            spent += time.perf_counter() - start
            searches += 1
            state.apply_action(int(rng.choice(state.legal_actions())))
    return spent / searches


def rate(result: MatchResult) -> str:
    """The net's score rate with its 95% interval."""
    net = result.agents[0]
    lo, hi = net.ci95
    return f"{100 * net.score_rate:5.1f}% [{100 * lo:.0f}-{100 * hi:.0f}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=["fish", "marathon"], default="fish")
    ap.add_argument("--minutes", type=float, default=60.0, help="total time budget")
    ap.add_argument("--simulations", type=int, default=64, help="PUCT simulations per move")
    ap.add_argument("--games", type=int, default=48, help="self-play games per round")
    ap.add_argument("--batch-size", type=int, default=8, help="leaves per tree per round")
    ap.add_argument("--distil-games", type=int, default=1000, help="0: no distillation")
    ap.add_argument("--teacher-simulations", type=int, default=400)
    ap.add_argument("--distil-steps", type=int, default=1500)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--train-steps", type=int, default=100)
    ap.add_argument("--window", type=int, default=8, help="rounds of samples kept")
    ap.add_argument("--eval-every", type=int, default=2)
    ap.add_argument("--eval-games", type=int, default=40)
    ap.add_argument("--final-games", type=int, default=200)
    ap.add_argument("--channels", type=int, default=32)
    ap.add_argument("--blocks", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("runs/alphazero"))
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    game = pv.Fish() if args.game == "fish" else pv.Marathon()
    args.out.mkdir(parents=True, exist_ok=True)
    net = Net(game, args.channels, args.blocks)
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    window: deque = deque(maxlen=args.window)
    start = time.monotonic()
    deadline = start + 60 * args.minutes

    def clock() -> str:
        return f"{(time.monotonic() - start) / 60:5.1f}"

    print(f"{game}: observation {game.observation_shape}, {game.num_actions} actions")
    if args.distil_games:
        teacher = distil(game, args.distil_games, args.teacher_simulations, args.seed, args.threads)
        window.append(teacher)
        lp, lv = train(net, opt, window, args.distil_steps, 256, rng)
        print(
            f"[{clock()} min] distilled {args.distil_games} games of MCTS at "
            f"{args.teacher_simulations} playouts "
            f"({len(window[0]['observations'])} samples): policy loss {lp:.3f}, value loss {lv:.3f}"
        )

    print(
        "round  minutes  samples  policy loss  value loss  "
        "vs MCTS @ equal sims  vs MCTS @ equal time"
    )
    rnd = 0
    next_game = 0
    evaluator = export(net, game, args.out / "net-0.onnx")
    while rnd == 0 or time.monotonic() < deadline:  # at least one round
        rnd += 1
        data = pv.selfplay(
            game,
            games=range(next_game, next_game + args.games),
            simulations=args.simulations,
            evaluator=evaluator,
            temperature_moves=12,
            batch_size=args.batch_size,
            seed=args.seed,
            threads=args.threads,
        )
        next_game += args.games
        window.append(as_samples(data))
        lp, lv = train(net, opt, window, args.train_steps, 256, rng)
        evaluator = export(net, game, args.out / f"net-{rnd}.onnx")
        row = f"{rnd:5d}  {clock():>7}  {len(data):7d}  {lp:11.3f}  {lv:10.3f}"
        if rnd % args.eval_every == 0:
            sims, timed, _ = evaluate(
                game, evaluator, args.simulations, args.eval_games, 10_000 + rnd, args.batch_size
            )
            row += f"  {rate(sims):>20}  {rate(timed):>20}"
        print(row, flush=True)

    sims, timed, per_move = evaluate(
        game, evaluator, args.simulations, args.final_games, 99_999, args.batch_size
    )
    print(
        f"\nfinal net (round {rnd}, {clock()} min) over {args.final_games} games each:\n"
        f"  vs plain MCTS at {args.simulations} playouts: {rate(sims)}\n"
        f"  vs plain MCTS at equal time ({1000 * per_move:.2f} ms a move): {rate(timed)}"
    )
    print(sims)
    print(timed)


if __name__ == "__main__":
    main()
