"""Two installed versions of pingvinas playing each other: the playing strength of one build's
player against another build's (``auto`` of this tree against ``auto`` of a release, say).

Every seat is played by a child process of its own, running one version (``PYTHONPATH`` set
to where that version is installed, e.g. ``pip install --no-deps --target DIR WHEEL``; a git
revision in place of a folder is built once and kept, ``benches/baseline.py``), which
speaks a line protocol on its standard input and output; this process keeps only the referee's
view (seats, moves, result) and never imports pingvinas itself. Every child replays every move,
so each player searches its own state with its own searcher (tables and trees kept between
moves, as a player does), and no two players share a process's caches (with two old players
in one process, the new one's 3-player share came out low even with both versions the same).

Run::

    python benches/versus_baseline.py --new DIR_NEW --old DIR_OLD --game fish --players 2 \\
        --games 400 --time 0.1 --workers 16

Two players: the seats alternate between games. More players: one seat of the new version
against old ones in every other seat, the new seat going round. Boards (Fish) are dealt from
the game's seed, which depends on ``--seed`` and the game's index only. ``--new-agent`` and
``--old-agent`` pick other players of either version: an algorithm of ``pv.Searcher`` with
its options (``auto``, ``alphabeta``, ``mcts,playout=evaluate``, ``mcts,exploration=0.7``,
``alphabeta,net=PATH``: with the net file at PATH as its evaluator), or ``mcts-plain``
(plain MCTS: random playouts, no knowledge).

Prints the new version's score (1 a win, 1/k a first place shared by k, 0 otherwise) with its
Wilson 95% interval and, for two players, the Elo difference with its interval; the mean and
largest search time of a move of each side (the largest tells whether ``--time`` held).
``--json PATH`` writes the same as a JSON object.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional

from baseline import installed

Z95 = 1.959963984540054


def wilson(points: list[float]) -> tuple[float, float, float]:
    """The mean of ``points`` (each in [0, 1]) and Wilson's 95% interval of it."""
    n = len(points)
    p = sum(points) / n
    denom = 1 + Z95 * Z95 / n
    centre = (p + Z95 * Z95 / (2 * n)) / denom
    half = Z95 * math.sqrt(max(p * (1 - p), 0.0) / n + Z95 * Z95 / (4 * n * n)) / denom
    # The interval holds p; the clamps keep rounding from putting it outside.
    return p, max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def elo(score: float) -> float:
    """The Elo difference of a two-player score rate."""
    score = min(max(score, 1e-4), 1 - 1e-4)
    return -400.0 * math.log10(1.0 / score - 1.0)


# --- the child: one version of pingvinas, driven over stdin/stdout ------------------------------


def serve() -> None:
    """The child's loop. Commands, one a line, each answered by one line:

    ``new GAME PLAYERS SEED AGENT BUDGET SEAT:SEARCHSEED...``: a new game (its deal from SEED)
    with a searcher for each seat listed; ``ok`` and the player to move.
    ``go SEAT``: the move of that seat's searcher; ``move ACTION SECONDS DEPTH``.
    ``play ACTION``: plays it; ``ok`` and the player to move, or ``over RANKING...`` when the
    game has ended.
    """
    import pingvinas as pv

    state: Any = None
    searchers: dict[int, Any] = {}
    out = sys.stdout
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "new":
            name, players, seed, agent, budget = (
                words[1],
                int(words[2]),
                int(words[3]),
                words[4],
                words[5],
            )
            game = pv.Fish(players=players) if name == "fish" else pv.Marathon(players=players)
            state = game.new_state(seed=seed)
            searchers = {}
            for item in words[6:]:
                seat, search_seed = (int(x) for x in item.split(":"))
                searchers[seat] = make_searcher(pv, agent, budget, search_seed)
            out.write(f"ok {state.to_move}\n")
        elif words[0] == "go":
            searcher = searchers[int(words[1])]
            t0 = time.perf_counter()
            result = searcher.search(state)
            spent = time.perf_counter() - t0
            out.write(f"move {result.action} {spent:.6f} {result.depth}\n")
        elif words[0] == "play":
            state.play(int(words[1]))
            if state.is_over:
                out.write("over " + " ".join(str(r) for r in state.ranking()) + "\n")
            else:
                out.write(f"ok {state.to_move}\n")
        else:
            out.write(f"error unknown command {words[0]!r}\n")
        out.flush()


def make_searcher(pv: Any, agent: str, budget: str, seed: int) -> Any:
    """A searcher of ``ALGORITHM[,KEY=VALUE...]`` (``mcts,playout=evaluate``; ``net=PATH``: that
    net file as the evaluator), or
    ``mcts-plain``, with the budget ``SECONDS`` or ``iN`` (N iterations) a move."""
    kwargs: dict[str, Any] = (
        {"iterations": int(budget[1:])} if budget.startswith("i") else {"time": float(budget)}
    )
    if agent == "mcts-plain":
        return pv.Searcher("mcts", seed=seed, knowledge=False, **kwargs)
    algorithm, *options = agent.split(",")
    for option in options:
        key, value = option.split("=", 1)
        if key == "net":
            kwargs["evaluator"] = pv.evaluators.native(value)
            continue
        kwargs[key] = float(value) if value.replace(".", "", 1).isdigit() else value
    return pv.Searcher(algorithm, seed=seed, **kwargs)


# --- the referee --------------------------------------------------------------------------------


class Child:
    """One version's process."""

    def __init__(self, path: str) -> None:
        env = dict(os.environ, PYTHONPATH=path, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def ask(self, line: str) -> list[str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().split()
        if not answer or answer[0] == "error":
            raise RuntimeError(f"child {self.proc.pid} answered {answer!r} to {line!r}")
        return answer

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=10)


def seed_of(seed: int, index: int, item: int) -> int:
    """A 63-bit seed from the match seed, the game's index and an item (0: the deal)."""
    x = (seed * 1_000_003 + index) * 1_000_033 + item
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9 & (2**64 - 1)
    x = (x ^ (x >> 27)) * 0x94D049BB133111EB & (2**64 - 1)
    return (x ^ (x >> 31)) >> 1


def play_game(
    args: argparse.Namespace, index: int, table: list[Child]
) -> tuple[float, list[float], list[float], int]:
    """Game ``index`` on ``table`` (the new version's process, then one of the old version's
    for every other seat): the new version's points, each side's move times, the plies."""
    players = args.players
    new_seat = index % players
    deal = seed_of(args.seed, index, 0)
    budget = f"i{args.iterations}" if args.iterations else str(args.time)
    # Seat by seat, the process that plays it: the new one, and the old ones in turn.
    movers = table[1:]
    movers.insert(new_seat, table[0])
    for seat, child in enumerate(movers):
        agent = args.new_agent if seat == new_seat else args.old_agent
        seat_seed = f"{seat}:{seed_of(args.seed, index, 1 + seat)}"
        answer = child.ask(f"new {args.game} {players} {deal} {agent} {budget} {seat_seed}")
    to_move = int(answer[1])
    times: tuple[list[float], list[float]] = ([], [])
    plies = 0
    while True:
        _, action, spent, _depth = movers[to_move].ask(f"go {to_move}")
        times[0 if to_move == new_seat else 1].append(float(spent))
        answers = [child.ask(f"play {action}") for child in table]
        plies += 1
        if any(a != answers[0] for a in answers):
            raise RuntimeError(f"game {index}: the versions disagree: {answers}")
        if answers[0][0] == "over":
            ranking = [int(r) for r in answers[0][1:]]
            firsts = ranking.count(1)
            points = 1.0 / firsts if ranking[new_seat] == 1 else 0.0
            return points, times[0], times[1], plies
        # Whoever the state says (a player with no move is skipped).
        to_move = int(answers[0][1])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--new", help="the new version: where it is installed, or a git revision")
    p.add_argument("--old", help="the old version: where it is installed, or a git revision")
    p.add_argument("--game", choices=["fish", "marathon"], default="fish")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--time", type=float, default=0.1, help="seconds a move, both sides")
    p.add_argument(
        "--iterations", type=int, default=None, help="MCTS iterations a move instead of a time"
    )
    p.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 0))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--new-agent", default="auto")
    p.add_argument("--old-agent", default="auto")
    p.add_argument("--label", default="")
    p.add_argument("--json", default=None, help="also write the result as JSON here")
    args = p.parse_args()
    if args.serve:
        serve()
        return 0
    if not args.new or not args.old:
        p.error("--new and --old are required")
    try:
        args.new, args.old = (str(installed(v)) for v in (args.new, args.old))
    except ValueError as e:
        p.error(str(e))
    return run_match(args)


def run_match(args: argparse.Namespace) -> int:
    local = threading.local()
    children: list[Child] = []
    lock = threading.Lock()

    def table() -> list[Child]:
        # A process for every seat: players in one process would share its caches.
        if not hasattr(local, "table"):
            local.table = [Child(args.new)] + [Child(args.old) for _ in range(args.players - 1)]
            with lock:
                children.extend(local.table)
        return local.table  # type: ignore[no-any-return]

    t0 = time.perf_counter()
    results: list[Optional[tuple[float, list[float], list[float], int]]] = [None] * args.games
    try:
        with ThreadPoolExecutor(args.workers) as pool:
            futures = {
                pool.submit(lambda i=i: play_game(args, i, table())): i for i in range(args.games)
            }
            for f, i in futures.items():
                results[i] = f.result()
    finally:
        for c in children:
            try:
                c.close()
            except Exception:
                c.proc.kill()
    done = [r for r in results if r is not None]
    points = [r[0] for r in done]
    new_times = [t for r in done for t in r[1]]
    old_times = [t for r in done for t in r[2]]
    score, lo, hi = wilson(points)
    budget_text = f"{args.iterations} iterations" if args.iterations else f"{args.time} s"
    out: dict[str, Any] = {
        "label": args.label,
        "game": args.game,
        "players": args.players,
        "games": len(done),
        "time": None if args.iterations else args.time,
        "iterations": args.iterations,
        "new_agent": args.new_agent,
        "old_agent": args.old_agent,
        "score": score,
        "ci95": [lo, hi],
        "fair_share": 1.0 / args.players,
        "new_move_mean_s": sum(new_times) / len(new_times),
        "new_move_max_s": max(new_times),
        "old_move_mean_s": sum(old_times) / len(old_times),
        "old_move_max_s": max(old_times),
        "plies_mean": sum(r[3] for r in done) / len(done),
        "wall_s": time.perf_counter() - t0,
    }
    text = (
        f"{args.label or 'new'} ({args.new_agent}) vs old {args.old_agent}, {args.game} "
        f"{args.players}p, {budget_text} a move: score {score:.3f} [{lo:.3f}, {hi:.3f}] over "
        f"{len(done)} games (fair share {1 / args.players:.3f})"
    )
    if args.players == 2:
        out["elo"] = elo(score)
        out["elo95"] = [elo(lo), elo(hi)]
        text += f", Elo {elo(score):+.0f} [{elo(lo):+.0f}, {elo(hi):+.0f}]"
    text += (
        f"; move time new {out['new_move_mean_s']:.3f} s (max {out['new_move_max_s']:.3f}),"
        f" old {out['old_move_mean_s']:.3f} s (max {out['old_move_max_s']:.3f})"
    )
    print(text, flush=True)
    if args.json:
        with open(args.json, "a", encoding="utf-8") as f:
            f.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
