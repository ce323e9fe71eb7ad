"""Every figure of the strength page, made by one command: ladders of every shipped player for
both games at every player count, the largest time a move of ``auto`` in them, and, given an
earlier build, ``auto`` against that build's ``auto`` at every player count.

    python benches/strength.py --out docs/strength.md --force               # the page
    python benches/strength.py --out docs/strength.md --force --baseline REV  # and the comparison
    python benches/strength.py --out docs/strength.md --force --only fish-3 fish-4 \\
        --baseline REV                                                      # two parts again
    python benches/strength.py --quick --out /tmp/strength.md               # tiny, for CI

``REV`` is an earlier build: a git revision of this repository (built once and kept,
``benches/baseline.py``) or a folder it is installed in (``pip install --no-deps --target DIR
WHEEL``); the comparison runs ``benches/versus_baseline.py`` (every seat a process of its
own). Build this package in release mode first (``pip install .``) and run on a quiet
machine: the players search for a time, so a slower or busier machine plays weaker moves. The
page is one part for each game at each player count, each with the line that made it (the
command, the commit, the date, the machine and its load), and the ladders' pictures
(``docs/img/strength-*.svg``, beside ``--out``'s folder). The parts are kept beside the page
(``docs/strength.json``): ``--only`` remakes some of them and keeps the others, writing each
as it is done (a long run stopped halfway keeps what it finished), and a part it remakes
without ``--baseline`` keeps its comparison, with the line that made it; without ``--only`` the
page is made whole.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import report  # noqa: E402
from baseline import installed  # noqa: E402

import pingvinas as pv  # noqa: E402
from pingvinas._files import check_output, write_text  # noqa: E402
from pingvinas.agents import Agent, timed_agent  # noqa: E402
from pingvinas.rating.ladder import run_ladder  # noqa: E402

#: Every shipped algorithm an agent spec names, the weakest first.
PLAYERS = ["random", "greedy", "mcts", "alphabeta", "auto"]
#: Each game at every player count it supports.
GAMES = [("fish", 2), ("fish", 3), ("fish", 4)] + [("marathon", n) for n in (2, 3, 4, 5)]
#: The name of each game's part (``--only``), in the page's order.
KEYS = [f"{g}-{n}" for g, n in GAMES]


@dataclass(frozen=True)
class Size:
    time: float  # seconds a move
    games: int  # games per table of the ladders
    baseline_games: int  # games a game and player count against the earlier build (0: 400
    # with 2 players, 300 with more)
    workers: int


FULL = Size(time=0.1, games=20, baseline_games=0, workers=2)
QUICK = Size(time=0.01, games=2, baseline_games=4, workers=2)


class Clocked(Agent):
    """An agent whose moves are timed: the largest and the mean time of ``choose``."""

    def __init__(self, inner: Agent, log: list[float], lock: threading.Lock) -> None:
        self.inner, self.log, self.lock = inner, log, lock
        self.name = inner.name

    def choose(self, state: Any) -> Any:
        t = time.perf_counter()
        move = self.inner.choose(state)
        elapsed = time.perf_counter() - t
        with self.lock:
            self.log.append(elapsed)
        return move

    def spawn(self, seed: Optional[int] = None) -> Clocked:
        return Clocked(self.inner.spawn(seed), self.log, self.lock)

    def reset(self) -> None:
        self.inner.reset()

    def close(self) -> None:
        getattr(self.inner, "close", lambda: None)()

    def stop(self) -> None:
        getattr(self.inner, "stop", lambda: None)()


def make_game(name: str, players: int) -> Any:
    return pv.Fish(players=players) if name == "fish" else pv.Marathon(players=players)


def title(name: str, players: int) -> str:
    return f"{'Fish' if name == 'fish' else 'Penguin Marathon'}, {players} players"


def ladder_part(
    name: str, players: int, size: Size, seed: int, img: Path, rel: str
) -> tuple[list[str], list[float]]:
    """One ladder: its table and picture, and the times of ``auto``'s moves in it."""
    times: list[float] = []
    lock = threading.Lock()
    agents: list[Agent] = []
    for spec in PLAYERS:
        agent = timed_agent(spec, size.time, seed)
        agents.append(Clocked(agent, times, lock) if spec == "auto" else agent)
    # Whole rotations: every player sits in every seat of each deal.
    games = -(-size.games // players) * players
    t = time.perf_counter()
    ladder = run_ladder(
        make_game(name, players),
        agents,
        games=games,
        seed=seed,
        workers=size.workers,
        progress=False,
        title=title(name, players),
    )
    minutes = (time.perf_counter() - t) / 60
    svg = img / f"strength-{name}-{players}p.svg"
    write_text(svg, str(ladder.svg()) + "\n")
    lines = [
        f"### {title(name, players)}",
        "",
        f"Every table of {players} of the players plays {games} games "
        f"({int(ladder.rankings.games)} games in all, {minutes:.1f} minutes).",
        "",
        ladder.to_markdown().split("\n\n", 1)[-1].rstrip()
        if ladder.title
        else ladder.to_markdown().rstrip(),
        "",
        f"![{title(name, players)}: each player's Elo with its 95% interval]({rel}/{svg.name})",
    ]
    return lines, times


def baseline_part(
    name: str, players: int, size: Size, games: int, seed: int, baseline: str
) -> dict[str, Any]:
    """This build's ``auto`` in one seat against the earlier build's in the others."""
    new = str(Path(pv.__file__).resolve().parent.parent)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.json")
        cmd = [
            sys.executable,
            str(HERE / "versus_baseline.py"),
            "--new", new, "--old", baseline,
            "--game", name, "--players", str(players),
            "--games", str(games), "--time", str(size.time),
            "--workers", str(size.workers), "--seed", str(seed), "--json", out,
        ]  # fmt: skip
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        return json.loads(Path(out).read_text(encoding="utf-8").splitlines()[-1])


def part_of(
    name: str,
    players: int,
    size: Size,
    seed: int,
    img: Path,
    baseline: Optional[tuple[str, str]],
    made: str,
) -> dict[str, Any]:
    """Every figure of one game at one player count, and the line that says how it was made.
    ``baseline``: the earlier build as given (a revision or a folder) and where it is installed.
    """
    print(f"ladder: {title(name, players)}", file=sys.stderr, flush=True)
    started = time.perf_counter()
    ladder, times = ladder_part(name, players, size, seed, img, "img")
    timing = [
        title(name, players),
        f"{size.time} s",
        str(len(times)),
        f"{sum(times) / len(times):.3f} s",
        f"{max(times):.3f} s",
    ]
    versus = None
    if baseline:
        print(f"against the baseline: {title(name, players)}", file=sys.stderr, flush=True)
        games = size.baseline_games or (400 if players == 2 else 300)
        r = baseline_part(name, players, size, games, seed + 100, baseline[1])
        lo, hi = r["ci95"]
        elo = ""
        if "elo" in r:
            elo = f"{r['elo']:+.0f} [{r['elo95'][0]:+.0f}, {r['elo95'][1]:+.0f}]"
        versus = [
            title(name, players),
            f"`{baseline[0]}`",
            f"{r['time']} s",
            str(r["games"]),
            f"{r['score']:.3f} [{lo:.3f}, {hi:.3f}]",
            f"{r['fair_share']:.3f}",
            elo,
            f"{r['new_move_max_s']:.3f} s",
        ]
    minutes = (time.perf_counter() - started) / 60
    return {
        "ladder": ladder,
        "timing": timing,
        "versus": versus,
        "made": f"{made}, in {minutes:.1f} minutes",
    }


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", required=True, help="the page to write (docs/strength.md)")
    ap.add_argument("--force", action="store_true", help="replace --out if it exists")
    ap.add_argument("--quick", action="store_true", help="every part at a tiny size (CI)")
    ap.add_argument(
        "--baseline",
        help="an earlier build: a git revision (built once, benches/baseline.py) or a folder "
        "it is installed in",
    )
    ap.add_argument(
        "--baseline-games",
        type=int,
        help="games a game and player count against --baseline (default 400 with 2 players, "
        "300 with more)",
    )
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--time", type=float, help=f"seconds a move (default {FULL.time})")
    ap.add_argument("--games", type=int, help=f"games a ladder table (default {FULL.games})")
    ap.add_argument(
        "--only",
        nargs="+",
        metavar="GAME-N",
        help="remake these parts only (fish-3, marathon-5, ...), keeping the page's others",
    )
    args = ap.parse_args(argv)
    try:
        check_output(args.out, replace=args.force, hint=": --force replaces it")
    except ValueError as e:
        ap.error(str(e))
    baseline = None
    if args.baseline:
        try:
            baseline = (args.baseline, str(installed(args.baseline)))
        except ValueError as e:
            ap.error(f"--baseline: {e}")
    size = QUICK if args.quick else FULL
    if args.time is not None or args.games is not None or args.baseline_games is not None:
        if (
            not (args.time is None or 0 < args.time <= 60)
            or not (args.games is None or 1 <= args.games <= 100_000)
            or not (args.baseline_games is None or 1 <= args.baseline_games <= 100_000)
        ):
            ap.error("--time: seconds above 0, at most 60; --games, --baseline-games: 1 to 100,000")
        size = Size(
            time=size.time if args.time is None else args.time,
            games=size.games if args.games is None else args.games,
            baseline_games=args.baseline_games or size.baseline_games,
            workers=size.workers,
        )
    wanted = args.only or KEYS
    unknown = [k for k in wanted if k not in KEYS]
    if unknown:
        ap.error(f"--only {' '.join(unknown)}: each one of {', '.join(KEYS)}")
    out = Path(args.out)
    img = out.parent / "img"
    img.mkdir(parents=True, exist_ok=True)
    # The parts the page is written from, kept beside it so that a part can be remade alone.
    store = out.with_suffix(".json")
    parts: dict[str, Any] = {}
    if args.only and store.is_file():
        parts = json.loads(store.read_text(encoding="utf-8"))
    given = argv if argv is not None else sys.argv[1:]
    commit = report.git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = " (with uncommitted changes)" if report.git("status", "--porcelain", "-uno") else ""
    for k, (name, players) in enumerate(GAMES):
        if KEYS[k] not in wanted:
            continue
        made = (
            f"`python benches/strength.py {' '.join(given)}` at commit {commit}{dirty} on "
            f"{datetime.date.today().isoformat()}, on {report.cpu_model()} "
            f"({os.cpu_count()} cores, load {report.load()}), Python "
            f"{sys.version.split()[0]}, pingvinas {pv.__version__}, "
            f"{size.time} s a move, {size.workers} games at once"
        )
        part = part_of(name, players, size, args.seed + k, img, baseline, made)
        kept = parts.get(KEYS[k])
        if part["versus"] is None and kept and kept["versus"]:
            # Remade without --baseline: the comparison stays, with the line that made it.
            part["versus"] = kept["versus"]
            part["versus_made"] = kept.get("versus_made", kept["made"])
        parts[KEYS[k]] = part
        if args.only:
            # Each remade part is written as it is done: a run stopped later keeps it.
            save(out, store, parts)
    save(out, store, parts)
    print(f"wrote {out}", file=sys.stderr)
    return 0


def save(out: Path, store: Path, parts: dict[str, Any]) -> None:
    """Writes the parts (``store``) and the page made from them (``out``)."""
    write_text(store, json.dumps(parts, indent=1) + "\n")
    lines = page([parts[k] for k in KEYS if k in parts])
    write_text(out, "\n".join(lines).rstrip("\n") + "\n")


def page(parts: list[dict[str, Any]]) -> list[str]:
    """The page's lines from its parts."""
    lines = [
        "# Playing strength",
        "",
        "<!-- Written by benches/strength.py: edit that script, not this page. -->",
        "",
        "Made by `benches/strength.py`, one part for each game at each player count: each part "
        "says the command, the commit and the machine that made it (`--only GAME-N` remakes "
        "one part and keeps the others).",
        "",
        "## How it is measured",
        "",
        "**Ladders.** Every shipped player (`random`, `greedy`, `mcts`, `alphabeta`, `auto`: the "
        "agent specs of the same names, [Search and players](search.md)) plays a round robin "
        "for each game at each player count: every table of as many of them as the game seats "
        "plays the same number of games, the players rotating through the seats on shared "
        "deals, one search thread each. The ratings are Plackett-Luce fits of every game's "
        "finishing order (`pingvinas.rating.plackett_luce`; Bradley-Terry with two players) in "
        "logistic Elo, `random` at 0, with 95% intervals: `pingvinas ladder` makes the same "
        "tables ([SPRT matches and rating ladders](ladder.md)). The score column is the share "
        "of the pairwise results won (a better place than another player at the table).",
        "",
        "**Against an earlier build.** This build's `auto` in one seat, the earlier build's "
        "`auto` in every other seat, the seat going round over each deal; every player a "
        "process of its own (`benches/versus_baseline.py`). The score is 1 for a sole win, "
        "1/k for a first place shared by k, 0 otherwise, with Wilson's 95% interval; the fair "
        "share is one over the players.",
        "",
        "**Time a move.** The mean and the largest time `auto` took for a move in the ladders, "
        "against the time it was given.",
        "",
        "## Ladders",
        "",
    ]
    for part in parts:
        ladder = part["ladder"]
        lines += [ladder[0], "", f"Made by {part['made']}."]
        if "versus_made" in part:
            lines += [
                "",
                f"Its comparison with an earlier build was made by {part['versus_made']}.",
            ]
        lines += [*ladder[1:], ""]
    lines += [
        "## Time a move",
        "",
        *report.table(["game", "given", "moves", "mean", "largest"], [p["timing"] for p in parts]),
        "",
        "## Against an earlier build",
        "",
    ]
    versus = [p["versus"] for p in parts if p["versus"]]
    if versus:
        head = "game, earlier build, time a move, games, score, fair share, Elo, largest move"
        lines += report.table(head.split(", "), versus)
    else:
        lines.append("Not part of this run: `--baseline REV` adds it.")
    return lines


if __name__ == "__main__":
    sys.exit(main())
