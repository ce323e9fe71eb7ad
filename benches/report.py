"""Every figure of the performance page, made by one command: the benchmarks and the strength
matches run in one process, one after another, and the page is written with, at its top, the
commit, the date, the machine and its load, and the command; each table says what it is
measured against, and every ratio is taken within this run.

    python benches/report.py --out docs/performance.md --force  # about 10 min, 2 quiet cores
    python benches/report.py --quick --out /tmp/perf.md         # every part at a tiny size (CI)

Build the package in release mode first (``pip install .``) and run it on a quiet machine: the
figures of a debug build or a busy machine mean little. The rows of the Rust examples build them
with ``cargo build --release`` (skipped with ``--quick`` or ``--no-cargo``). The parts are the
scripts beside this one, imported as modules: ``fish_playouts``, ``marathon_playouts``,
``vector_env``, ``search_overhead``, ``search_many``, ``strength_fish``, ``strength_marathon`` and
``strength_multiplayer``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import fish_playouts  # noqa: E402
import marathon_playouts  # noqa: E402
import search_many  # noqa: E402
import search_overhead  # noqa: E402
import strength_fish  # noqa: E402
import strength_marathon  # noqa: E402
import strength_multiplayer  # noqa: E402
import vector_env  # noqa: E402

import pingvinas as pv  # noqa: E402
from pingvinas._files import check_output, write_text  # noqa: E402


@dataclass(frozen=True)
class Size:
    """How much of each part to run."""

    fish_games: int  # batch playouts (and the Rust example), per policy and thread count
    fish_step_games: int  # the Python step API
    fish_reference_games: int  # the pure-Python reference model
    marathon_games: int  # the step API and the reference, each
    marathon_batch_games: int
    vector_seconds: float  # per vector-env measurement (taken in turns, vector_env.TURN)
    vector_envs: tuple[int, ...]
    overhead_calls: int
    search_seconds: float  # per search-speed measurement
    many_states: int  # trees of the search_many row
    many_seconds: float  # per search_many call
    many_rounds: int  # search_many calls on each count (after one not counted)
    ab_positions: int  # alpha-beta's time to depth (Rust example)
    ab_seconds: float
    ab_repeats: int
    move_time: float  # seconds a move in the strength matches
    fish_games_per_match: tuple[int, ...]  # one per strength_fish.matchups entry
    marathon_games_per_match: int
    multiplayer_games: int
    solver_positions: int
    workers: int


FULL = Size(
    fish_games=200_000,
    fish_step_games=1_000,
    fish_reference_games=50,
    marathon_games=10,
    marathon_batch_games=20_000,
    vector_seconds=2.0,
    vector_envs=(16, 64, 256, 1024),
    overhead_calls=3_000,
    search_seconds=2.0,
    many_states=256,
    many_seconds=1.0,
    many_rounds=7,
    ab_positions=12,
    ab_seconds=1.0,
    ab_repeats=5,
    move_time=0.1,
    fish_games_per_match=(30, 30, 60, 100),
    marathon_games_per_match=20,
    multiplayer_games=30,
    solver_positions=200,
    workers=2,
)

QUICK = Size(
    fish_games=2_000,
    fish_step_games=5,
    fish_reference_games=1,
    marathon_games=1,
    marathon_batch_games=200,
    vector_seconds=0.05,
    vector_envs=(16, 64),
    overhead_calls=20,
    search_seconds=0.05,
    many_states=8,
    many_seconds=0.05,
    many_rounds=1,
    ab_positions=1,
    ab_seconds=0.05,
    ab_repeats=1,
    move_time=0.01,
    fish_games_per_match=(2, 2, 2, 2),
    marathon_games_per_match=2,
    multiplayer_games=4,
    solver_positions=5,
    workers=2,
)


def fmt(x: float, digits: int = 0) -> str:
    return f"{x:,.{digits}f}"


def ratio(x: float) -> str:
    return f"x{x:.2f}" if x < 10 else f"x{x:.1f}" if x < 100 else f"x{x:,.0f}"


def table(head: list[str], rows: list[list[str]]) -> list[str]:
    return [
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return ""
    return out.stdout.strip()


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def cargo_build() -> Optional[float]:
    """Seconds to build the two engine examples the page runs in release mode (fat LTO: each
    links on its own, so only those two), or None without cargo."""
    t = time.perf_counter()
    cmd = ["cargo", "build", "--release", "-q", "-p", "pingvinas-engine"]
    cmd += ["--example", "fish_playouts", "--example", "alphabeta_threads"]
    try:
        subprocess.run(cmd, cwd=ROOT, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return time.perf_counter() - t


def example(name: str, *args: object) -> str:
    path = ROOT / "target" / "release" / "examples" / name
    return subprocess.run(
        [str(path), *map(str, args)], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout


# --- the parts: each returns the lines of its section ---


def fish_playouts_part(size: Size, cargo: bool) -> list[str]:
    rust = fish_playouts.rust_single_thread(size.fish_games) if cargo else {}
    rows: list[tuple[str, float]] = []
    notes = []
    for policy in ("uniform", "fast"):
        one = fish_playouts.batch(size.fish_games, 1, policy)
        two = fish_playouts.batch(size.fish_games, 2, policy)
        if policy in rust:
            rows.append((f"(a) Rust, 1 thread, `{policy}`", rust[policy]))
            notes.append(f"(a) / (c) on 1 thread, `{policy}`: {ratio(rust[policy] / one)}")
        rows += [
            (f"(c) `pv.fish.random_playouts`, 1 thread, `{policy}`", one),
            (f"(c) `pv.fish.random_playouts`, 2 threads, `{policy}`", two),
        ]
        notes.append(f"(c) 2 threads over 1, `{policy}`: {ratio(two / one)}")
    step = fish_playouts.step_api(size.fish_step_games)
    ref = fish_playouts.reference(size.fish_reference_games)
    rows += [
        ("(b) Python step API (`legal_actions` + `play` each ply)", step),
        ("(d) the pure-Python reference model, the same loop as (b)", ref),
    ]
    if not rust:
        notes.append("(a) not run (`--quick`, `--no-cargo` or no cargo)")
    return [
        "## Fish random playouts",
        "",
        "Standard 2-player Fish from the first placement to the end, uniformly random legal "
        "moves (`uniform`) or a penguin, a direction and a distance drawn in turn (`fast`). "
        "Measured against (d), the pure-Python reference model of `tests/fish_reference.py` "
        "(`benches/fish_playouts.py`).",
        "",
        *table(
            ["", "games/s", "per (d)"],
            [[name, fmt(v), ratio(v / ref)] for name, v in rows],
        ),
        "",
        "; ".join(notes) + ".",
    ]


def marathon_part(size: Size) -> list[str]:
    batch = marathon_playouts.batch(size.marathon_batch_games)
    step, _ = marathon_playouts.step_api(size.marathon_games)
    ref, _ = marathon_playouts.reference(size.marathon_games)
    rows = [
        ("`pv.marathon.random_playouts`, 1 thread", batch),
        ("Python step API (`legal_actions` + `play` each ply)", step),
        ("the pure-Python reference model, the same loop", ref),
    ]
    return [
        "## Penguin Marathon random playouts",
        "",
        "The standard course, 2 players, one thread. Measured against the pure-Python reference "
        "model of `tests/marathon_reference.py` (`benches/marathon_playouts.py`).",
        "",
        *table(
            ["", "plies/s", "per the reference"],
            [[name, fmt(v), ratio(v / ref)] for name, v in rows],
        ),
    ]


def vector_part(size: Size) -> list[str]:
    rows = []
    for name, make in vector_env.GAMES.items():
        game = make()
        loop, loop_cpu = vector_env.python_loop(game, 64, size.vector_seconds * 2)
        for envs in size.vector_envs:
            turns, rates = vector_env.in_turns(game, envs, (1, 2), size.vector_seconds)
            one, two = rates[1], rates[2]
            rows.append(
                [
                    name,
                    f"`VectorEnv`, {envs} envs",
                    fmt(one[0]),
                    fmt(two[0]),
                    ratio(turns.ratio(2, 1)),
                    fmt(one[1]),
                    ratio(one[1] / loop),
                ]
            )
        rows.append([name, "Python loop over 64 states", "", "", "", fmt(loop), ratio(1.0)])
    return [
        "## Vector env",
        "",
        "Env-steps per second with random legal actions, observations, masks and compact legal "
        'actions every step, and autoreset; standard 2-player games. "In `step`" counts the '
        f"time inside `env.step` (on 1 and 2 threads, {size.vector_seconds:g} s each, taken in "
        f"turns of {vector_env.TURN:g} s: the median rate of the turns, and the median of the "
        "ratios of the two within a turn, which a slower spell of a shared machine touches "
        'alike), "loop" the whole loop (the actions drawn in numpy included) on 1 thread. '
        "Measured against a Python loop over "
        "64 separate states doing the same work (`apply_action`, `observation_tensor`, "
        "`legal_action_mask`, `legal_actions`) (`benches/vector_env.py`). A step with less "
        "work than is worth sharing (16 envs here) runs on the calling thread whatever "
        "`threads` is: both counts then do the same work, and their ratio shows the noise of "
        "the measurement.",
        "",
        *table(
            [
                "game",
                "",
                "in `step`, 1 thread",
                "2 threads",
                "2 threads per 1",
                "loop, 1 thread",
                "loop per the Python loop",
            ],
            rows,
        ),
    ]


def overhead_part(size: Size) -> list[str]:
    measured = search_overhead.measure(size.overhead_calls)
    reference = {game: secs for game, call, secs in measured if call == "state.clone()"}
    rows = [
        [game, f"`{call}`", fmt(secs * 1e6, 1), ratio(secs / reference[game])]
        for game, call, secs in measured
    ]
    return [
        "## Search binding overhead",
        "",
        "Calls that search almost nothing, so that the time is what the binding adds (the "
        "arguments, the state, the worker thread, the result); a Fish position after placement "
        "and the Marathon opening. Measured against `state.clone()`, a binding call that "
        "searches nothing (`benches/search_overhead.py`).",
        "",
        *table(["game", "call", "µs per call", "per `state.clone()`"], rows),
    ]


def after_placement(seed: int) -> Any:
    state = pv.Fish().new_state(seed=seed)
    while state.phase == "placement":
        state.play(state.legal_actions()[0])
    return state


def search_part(size: Size, cargo: bool) -> list[str]:
    state = after_placement(1)
    rows = []
    # MCTS's threads share `memory_mb` (1 GiB by default) between their trees: two threads fill
    # their halves within seconds, and a full tree's playouts add no node and cost less. With
    # room to spare, one and two threads do the same work a playout.
    mcts_memory = 4096
    for label, algorithm, unit, count, options in [
        (
            "MCTS (Fish knowledge)",
            "mcts",
            "playouts/s",
            lambda r: r.iterations,
            {"memory_mb": mcts_memory, "reuse": False},
        ),
        ("alpha-beta (Fish evaluation)", "alphabeta", "nodes/s", lambda r: r.nodes, {}),
    ]:
        # Three searches on each count, in turns (1, 2, 1, 2, ...), so that a change in the
        # machine's load touches both counts alike; each count's searcher is kept for its three,
        # as in a game, so that its threads and memory are too. A first search each is not
        # counted: it maps the memory the searcher keeps and fills its threads' memo of region
        # hauls, which the first count to search would otherwise pay alone.
        searchers = {t: pv.Searcher(algorithm, threads=t, seed=1, **options) for t in (1, 2)}
        done = dict.fromkeys((1, 2), 0)
        spent = dict.fromkeys((1, 2), 0.0)
        for turn in range(4):
            for threads, searcher in searchers.items():
                if algorithm == "alphabeta":
                    searcher.clear()  # else its table would answer the same position
                r = searcher.search(state, time=size.search_seconds)
                if turn > 0:
                    done[threads] += count(r)
                    spent[threads] += r.time
        rates = {t: done[t] / spent[t] for t in done}
        rows.append([f"{label}, 1 thread", unit, fmt(rates[1]), ratio(1.0)])
        rows.append([f"{label}, 2 threads", unit, fmt(rates[2]), ratio(rates[2] / rates[1])])
    many = search_many.in_turns(
        pv.Fish(), size.many_states, (1, 2), size.many_seconds, rounds=size.many_rounds
    )
    label = f"`search_many`, {size.many_states} openings, trivial Python evaluator"
    rows.append([f"{label}, 1 thread", "leaves/s", fmt(many.rate(1)), ratio(1.0)])
    rows.append([f"{label}, 2 threads", "leaves/s", fmt(many.rate(2)), ratio(many.ratio(2, 1))])
    lines = [
        "## Search",
        "",
        f"`Searcher(algorithm, threads=T, seed=1).search(state, time={size.search_seconds})` "
        "on a standard 2-player Fish position after placement, measured against the same search "
        "on one thread: three searches on each count, taken in turns after one each that is not "
        "counted, by one searcher a count, kept as in a game (its threads and memory too); each "
        "search starts afresh, MCTS from an "
        "empty tree (`reuse=False`), alpha-beta from a cleared table. "
        f"MCTS searches with `memory_mb={mcts_memory}` so that no tree fills up: "
        "its threads' trees share that memory, and a full tree stops adding nodes, which makes "
        "its playouts cheaper (at the default 1 GiB two threads fill theirs within seconds, "
        "and then count more than twice the playouts of one). `pv.search_many` on standard "
        "2-player Fish openings, one leaf per tree and round (so the evaluator gets one batch "
        f"of a row per tree), against itself on one thread: {size.many_rounds} calls of "
        f"{size.many_seconds:g} s on each count, taken in turns after one each that is not "
        "counted, their median rate, and the median over the turns of the ratio within a turn "
        "(`benches/search_many.py`).",
        "",
        *table(["", "unit", "rate", "per 1 thread"], rows),
        "",
    ]
    if cargo:
        out = example(
            "alphabeta_threads", size.ab_positions, size.ab_seconds, 2, 0, size.ab_repeats
        )
        found = re.search(r"median x([\d.]+) \(min x([\d.]+), max x([\d.]+)\)", out)
        if found:
            median, low, high = found.groups()
            lines.append(
                f"Alpha-beta's time to the depth one thread completes in {size.ab_seconds} s "
                "in full width (no reductions or futility pruning, as a depth budget searches), "
                f"on 2 threads against 1 (fresh tables and threads, {size.ab_positions} "
                f"positions after placement, each pair of searches {size.ab_repeats} times in "
                "turns, `cargo run --release -p pingvinas-engine --example alphabeta_threads`): "
                f"median **x{median}** (x{low} to x{high})."
            )
    else:
        lines.append(
            "Alpha-beta's time to depth on 2 threads against 1: not run (`--quick`, "
            "`--no-cargo` or no cargo)."
        )
    return lines


def match_row(name: str, result: Any, target: Optional[str]) -> list[str]:
    stats = result.agents[0]
    lo, hi = stats.ci95
    return [
        name,
        str(stats.games),
        f"{stats.score_rate:.3f} [{lo:.3f}, {hi:.3f}]",
        f"{stats.wins}-{stats.draws}-{stats.losses}",
        target or "",
    ]


def strength_part(size: Size, seed: int) -> list[str]:
    t, w = size.move_time, size.workers
    rows = []
    fish = strength_fish.matchups(t)
    for (name, agents, target), games in zip(fish, size.fish_games_per_match):
        result = pv.play_match(pv.Fish(), agents, games=games, seed=seed, workers=w, progress=False)
        rows.append(match_row(f"Fish: {name}", result, f"at least {target:.2f}"))
    for name, agents, target in strength_marathon.matchups(t):
        result = pv.play_match(
            pv.Marathon(),
            agents,
            games=size.marathon_games_per_match,
            seed=seed,
            workers=w,
            progress=False,
        )
        rows.append(match_row(f"Marathon: {name}", result, f"wins at least {target:.2f}"))
    multi = []
    for players, agents in strength_multiplayer.lineups(t):
        games = max(players, size.multiplayer_games - size.multiplayer_games % players)
        result = pv.play_match(
            pv.Fish(players=players), agents, games=games, seed=seed, workers=w, progress=False
        )
        cells = []
        for stats in result.agents:
            lo, hi = stats.ci95
            cells.append(f"{stats.name}: {stats.score_rate:.3f} [{lo:.3f}, {hi:.3f}]")
        multi.append([str(players), str(games), "; ".join(cells)])
    agree, checked, region_agree, region_total = strength_fish.solver_check(
        size.solver_positions, seed
    )
    return [
        "## Strength",
        "",
        f"{t} s a move, seats swapped (every game's deal played from each seat), standard "
        "boards dealt from seeds; the score rate counts a win 1 and a draw 1/2, with its "
        "Wilson 95% interval. Each match is measured against its second player "
        "(`benches/strength_fish.py`, `benches/strength_marathon.py`). On standard 2-player "
        "Fish `auto` is alpha-beta with the shipped learned evaluation; `alphabeta` is "
        "alpha-beta with the hand-written one.",
        "",
        *table(["match", "games", "score rate [95%]", "won-drawn-lost", "target"], rows),
        "",
        "Fish with 3 and 4 players: paranoid alpha-beta, MCTS and greedy, seats rotated, "
        "measured against each other (`benches/strength_multiplayer.py`):",
        "",
        *table(["players", "games", "score rate [95%] per player"], multi),
        "",
        f"The exact solver agrees with a Python minimax on {agree} of {checked} random small "
        f"positions, and the region solver on {region_agree} of {region_total}.",
    ]


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", required=True, help="the page to write (docs/performance.md)")
    ap.add_argument(
        "--force", action="store_true", help="replace --out if it exists (default: refuse)"
    )
    ap.add_argument("--quick", action="store_true", help="every part at a tiny size (CI)")
    ap.add_argument("--no-cargo", action="store_true", help="skip the Rust examples' rows")
    ap.add_argument("--seed", type=int, default=2026, help="the strength matches' seed")
    args = ap.parse_args(argv)
    # Before the run: the page can be written there (and replaces one only with --force).
    try:
        check_output(args.out, replace=args.force, hint=": --force replaces it")
    except ValueError as e:
        ap.error(str(e))
    size = QUICK if args.quick else FULL
    cargo = not (args.quick or args.no_cargo)
    given = argv if argv is not None else sys.argv[1:]
    command = "`python benches/report.py " + " ".join(shlex.quote(a) for a in given) + "`"
    load_before = load()
    # The build measured is the tree as the run starts: a file edited during it is not.
    commit = git("rev-parse", "--short=12", "HEAD") or "unknown"
    if git("status", "--porcelain", "--untracked-files=no"):
        commit += " (with uncommitted changes)"
    started = time.perf_counter()
    build = cargo_build() if cargo else None
    cargo = cargo and build is not None

    sections: list[list[str]] = []
    parts: list[tuple[str, Callable[[], list[str]]]] = [
        ("Fish playouts", lambda: fish_playouts_part(size, cargo)),
        ("Marathon playouts", lambda: marathon_part(size)),
        ("vector env", lambda: vector_part(size)),
        ("search overhead", lambda: overhead_part(size)),
        ("search", lambda: search_part(size, cargo)),
        ("strength", lambda: strength_part(size, args.seed)),
    ]
    for name, part in parts:
        t = time.perf_counter()
        print(f"{name} ...", end=" ", file=sys.stderr, flush=True)
        sections.append(part())
        print(f"{time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
    minutes = (time.perf_counter() - started) / 60
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    machine = f"{cpu_model()}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}"
    took = f"{minutes:.1f} minutes"
    if build:
        took += f" ({build:.0f} s of them the release build of the examples)"
    if args.quick:
        command += " (a tiny size: the figures mean nothing)"
    about = [
        ["commit", f"`{commit}`"],
        ["date", date],
        ["machine", machine],
        ["load average (1 / 5 / 15 min)", f"{load_before} before, {load()} after"],
        ["software", f"pingvinas {pv.__version__}, Python {platform.python_version()}"],
        ["command", command],
        ["took", took],
    ]
    head = [
        "# Performance",
        "",
        "Every figure on this page comes from one run of the command below (the page is "
        "written by it: change `benches/report.py`, not this file). Ratios are taken within "
        "the run, so they compare like with like; absolute rates depend on the machine.",
        "",
        *table(["", ""], about),
        "",
    ]
    text = "\n".join(head + [line for section in sections for line in section + [""]])
    write_text(args.out, text.rstrip("\n") + "\n")
    print(f"wrote {args.out} in {minutes:.1f} minutes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
