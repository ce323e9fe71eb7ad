"""The ``pingvinas`` command line: matches between engines, games for people, pictures, speed,
variants, exact solutions.

    pingvinas match --game fish --agents auto mcts --games 20 --time 0.1 --save games.jsonl
    pingvinas play --game marathon --agents human auto
    pingvinas show games.jsonl --move 12 --svg position.svg
    pingvinas bench --game my-board.toml
    pingvinas variants
    pingvinas serve --port 8000 --variant fish --engine auto --time 1
    pingvinas train --game fish --out runs/fish --minutes 20
    pingvinas solve fish-mini-4x4 --seed 3
    pingvinas solve --table

Every ``--game`` is a bundled variant or a path to a TOML config. A bad argument is reported
on one line of stderr with exit code 2 (as argparse does); an error
while running, on one line with exit code 1; Ctrl-C exits with 130.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Callable, NoReturn, Optional

import pingvinas as pv
from pingvinas._core import AgentSpec

if TYPE_CHECKING:
    from pingvinas.agents import Agent

#: The agent names ``--agents`` takes: the engine's agent specs (``AgentSpec.NAMES``; PUCT
#: plays a net file, ``net:PATH``), the same as the web server's engines.
AGENTS = AgentSpec.NAMES
#: ``pingvinas play`` also seats people.
PLAY_AGENTS = AGENTS + ("human",)

#: Bounds of the numeric arguments (a bad value is refused before anything runs).
MAX_SEED = 2**63 - 1
MAX_MATCH_GAMES = 1_000_000
MAX_BENCH_GAMES = 10_000_000
MAX_WORKERS = 256
MAX_SECONDS = 3600.0


def _quote(text: str, limit: int = 40) -> str:
    """``text`` for an error message, cut to ``limit`` characters."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _int_in(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {_quote(text)}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{_quote(text)} is out of range: expected {low:,} to {high:,}"
            )
        return value

    parse.__name__ = "integer"  # argparse names the type in some messages
    return parse


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {_quote(text)}") from None
    if not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
        raise argparse.ArgumentTypeError(
            f"{_quote(text)} is out of range: expected seconds above 0, at most {MAX_SECONDS:g}"
        )
    return value


def _agent(text: str) -> str:
    """An agent spec (``mcts:500`` and ``net:PATH`` too), or ``human`` (refused later outside
    ``play``)."""
    if text != "human":
        try:
            spec = AgentSpec(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
        if spec.net is not None and not os.path.isfile(spec.net):
            raise argparse.ArgumentTypeError(f"{_quote(text)}: no net file {_quote(spec.net)}")
    return text


def _variant(name: str) -> str:
    try:
        pv.load_game(name)
    except ValueError as e:
        if name.endswith(".toml") or "/" in name or "\\" in name:  # a config file: what is wrong
            raise argparse.ArgumentTypeError(" ".join(str(e).split())[:300]) from None
        raise argparse.ArgumentTypeError(
            f"unknown variant {_quote(name)}; bundled variants: {', '.join(pv.variants())}, "
            "or a path to a .toml config"
        ) from None
    return name


def _variant_or_config(name: str) -> str:
    """A bundled variant's name, or the path of a TOML config that exists."""
    if os.path.isfile(name):
        return name
    try:
        pv.load_game(name)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{_quote(name)} is neither a bundled variant ({', '.join(pv.variants())}) "
            "nor a config file"
        ) from None
    return name


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line (no usage block): exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def make_agent(name: str, seconds: float, seed: int) -> Agent:
    from pingvinas.agents import timed_agent

    return timed_agent(name, seconds, seed)


def _agents(args: argparse.Namespace) -> list[Agent]:
    return [make_agent(n, args.time, args.seed + i) for i, n in enumerate(args.agents)]


def _seats(args: argparse.Namespace) -> list[Optional[Agent]]:
    """``play``'s seats: an agent, or None for a person."""
    return [
        None if n == "human" else make_agent(n, args.time, args.seed + i)
        for i, n in enumerate(args.agents)
    ]


def cmd_match(args: argparse.Namespace) -> None:
    from pingvinas.match import play_match

    game = pv.load_game(args.game)
    agents = _agents(args)
    print(
        f"{args.games} games of {args.game}, {args.time} s per move: "
        f"{' vs '.join(a.name for a in agents)}"
    )
    try:
        result = play_match(
            game,
            agents,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            progress=not args.quiet,
            save=args.save,
            backend=args.backend,
            address=args.address,
        )
    except OSError as e:  # the save file (opened before the first game)
        raise ValueError(f"cannot write {e.filename or args.save}: {e.strerror or e}") from None
    except BaseException as e:  # an error or Ctrl-C: say what was kept
        partial = getattr(e, "match_result", None)
        if args.save and partial is not None:
            print(
                f"pingvinas: stopped; kept the {partial.games} finished game(s) in {args.save}",
                file=sys.stderr,
            )
        raise
    print(result)
    if args.save:
        print(f"saved {args.games} game records to {args.save}")


def cmd_play(args: argparse.Namespace) -> None:
    from pingvinas.console import play

    game = pv.load_game(args.game)
    seats = _seats(args)
    hint = max(args.time, 0.1)
    sys.exit(play(game, seats, seed=args.seed, hint_time=hint, names=args.agents))


def _move_number(args: argparse.Namespace) -> Optional[int]:
    """``--move`` as the number of moves played: a negative one counts positions back from the
    end as Python indexes ``record.states()``, so that -1 is the last position (the default)
    and ``-(moves + 1)`` the start."""
    move: Optional[int] = args.move
    if move is None or move >= 0:
        return move
    from pingvinas.console import load_shown

    shown = load_shown(args.source, args.index)
    if not isinstance(shown, pv.GameRecord):
        return move  # a single position: show() says that --move needs a record
    positions = len(shown) + 1
    if move < -positions:
        raise ValueError(
            f"--move {move}: the game has {len(shown)} moves ({-positions} to {len(shown)}; "
            "-1 is the last position)"
        )
    return move + positions


def cmd_show(args: argparse.Namespace) -> None:
    from pingvinas.console import show

    try:
        where = dict(move=_move_number(args), index=args.index)
        show(args.source, svg=args.svg, png=args.png, size=args.size, **where)
    except ImportError as e:  # --png without cairosvg
        raise ValueError(str(e)) from None
    except OSError as e:
        raise ValueError(f"cannot write {e.filename}: {e.strerror}") from None


def cmd_bench(args: argparse.Namespace) -> None:
    game = pv.load_game(args.game)
    title = "Fish" if isinstance(game, pv.Fish) else "Penguin Marathon"
    label = f"{getattr(game, 'name', None) or args.game}, {game.players} players"
    for threads in (1, 2):
        t = time.perf_counter()
        if isinstance(game, pv.Fish):
            pv.fish.random_playouts(args.games, seed=1, threads=threads, game=game)
        else:
            pv.marathon.random_playouts(args.games, seed=1, threads=threads, game=game)
        seconds = time.perf_counter() - t
        print(
            f"{title} random playouts, {label}, {threads} thread(s): "
            f"{args.games / seconds:,.0f} games/s"
        )


def cmd_serve(args: argparse.Namespace) -> None:
    from pingvinas.web import serve

    try:
        serve(
            args.variant,
            port=args.port,
            host=args.host,
            engine=args.engine,
            seconds=args.time,
            open_browser=args.open,
            quiet=args.quiet,
        )
    except OSError as e:  # the port is taken, or the host is not this machine's
        sys.exit(f"pingvinas: cannot serve on {args.host}:{args.port}: {e.strerror or e}")
    except ImportError as e:  # the `web` extra is missing: the message says what to install
        sys.exit(f"pingvinas: {e}")


def serve_parser(sub: argparse._SubParsersAction[_Parser]) -> None:
    p = sub.add_parser("serve", help="play against the engine on a page in your browser")
    p.add_argument(
        "--port", type=_int_in(0, 65535), default=8000, help="default 8000; 0 picks a free port"
    )
    p.add_argument("--host", default="127.0.0.1", help="default 127.0.0.1 (this machine only)")
    p.add_argument(
        "--variant",
        "--game",
        dest="variant",
        default="fish",
        type=_variant_or_config,
        help="the first game's variant: a bundled name or a TOML config (default fish)",
    )
    p.add_argument(
        "--engine",
        default="auto",
        type=_agent,
        help=f"the engine: {', '.join(AGENTS)}, mcts:N, alphabeta:D or a net file: net:PATH "
        "(PUCT), SPEC+net:PATH (default auto)",
    )
    p.add_argument("--time", type=_seconds, default=1.0, help="seconds per engine move (default 1)")
    p.add_argument("--open", action="store_true", help="open the page in the web browser")
    p.add_argument("--quiet", action="store_true", help="no request log")
    p.set_defaults(run=cmd_serve)


def cmd_train(args: argparse.Namespace) -> None:
    from pingvinas.train import settings_from, train

    try:
        say = None if args.quiet else (lambda line: print(line, flush=True))
        if args.kind == "nnue":
            from pingvinas.train_nnue import NnueSettings, train_nnue

            settings = NnueSettings(
                out=args.out,
                games=args.games,
                depth=args.depth,
                explore=args.explore,
                search_mix=args.search_value_mix,
                width=args.width,
                hidden=tuple(args.hidden),
                terms=args.terms,
                rounds=args.rounds,
                check_games=args.check_games,
                check_time=args.check_time,
                steps=args.steps,
                batch=args.batch,
                lr=args.lr,
                seed=args.seed,
            )
            train_nnue(pv.load_game(args.game), settings, log=say)
            return
        train(pv.load_game(args.game), settings_from(args), log=say)
    except ImportError as e:  # the `train` extra is missing: the message says what to install
        sys.exit(f"pingvinas: {e}")


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {_quote(text)}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {_quote(text)}")
    return value


def _positive(text: str) -> float:
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a number above 0, got {_quote(text)}")
    return value


def _fraction(text: str) -> float:
    value = _number(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected 0 to 1, got {_quote(text)}")
    return value


def train_parser(sub: argparse._SubParsersAction[_Parser]) -> None:
    from pingvinas.train import Settings

    d = Settings(out="")  # the defaults, once: train.Settings
    p = sub.add_parser(
        "train",
        help="train a native net by Gumbel self-play (JAX and optax: pip install "
        '"pingvinas[train]")',
        description="Trains a native net by Gumbel self-play; writes every generation's "
        "weights, log.jsonl and the learning curve (curve.svg, curve.png) to --out.",
    )
    p.add_argument(
        "--game", default="fish", type=_variant, help="a bundled variant or a TOML config"
    )
    p.add_argument("--out", required=True, metavar="DIR", help="where the nets and the log go")
    p.add_argument("--seed", type=_int_in(0, MAX_SEED), default=d.seed, help=f"default {d.seed}")
    p.add_argument(
        "--kind",
        choices=["mlp", "nnue"],
        default="mlp",
        help="mlp: a policy-and-value net by Gumbel self-play (the default); nnue: a residual "
        "NNUE evaluation for alpha-beta from alpha-beta's games (--games, --depth, --explore, "
        "--search-value-mix, --width, --terms, --hidden, --rounds, --steps, --batch, --lr)",
    )
    p.add_argument(
        "--depth", type=_int_in(1, 64), default=3, help="nnue: alpha-beta's depth in its games (3)"
    )
    p.add_argument(
        "--explore",
        type=_fraction,
        default=0.15,
        help="nnue: the share of plies played at random (0.15)",
    )
    p.add_argument(
        "--width",
        type=_int_in(0, 4096),
        default=64,
        help="nnue: the accumulator's width (64; 0: no cell features, with --terms)",
    )
    p.add_argument(
        "--terms",
        action="store_true",
        help="nnue: the first dense layer also reads the hand-written evaluation's terms",
    )
    p.add_argument(
        "--rounds",
        type=_int_in(1, 100_000),
        default=1,
        help="nnue: make the games and take the steps in this many rounds, each training on "
        "every position so far, with a check after each (1)",
    )
    p.add_argument(
        "--generations",
        type=_int_in(1, 100_000),
        default=d.generations,
        help=f"at most this many ({d.generations})",
    )
    p.add_argument(
        "--minutes",
        type=_positive,
        default=None,
        help="stop after this many minutes of self-play and training (default: no limit)",
    )
    p.add_argument(
        "--games",
        type=_int_in(1, 100_000),
        default=d.games,
        help=f"self-play games a generation ({d.games})",
    )
    p.add_argument(
        "--simulations",
        type=_int_in(1, 100_000),
        default=d.simulations,
        help=f"Gumbel simulations ({d.simulations})",
    )
    p.add_argument(
        "--hidden", type=_int_in(1, 4096), nargs="+", default=list(d.hidden), help="trunk widths"
    )
    p.add_argument(
        "--steps",
        type=_int_in(1, 1_000_000),
        default=d.steps,
        help=f"updates a generation ({d.steps})",
    )
    p.add_argument(
        "--batch", type=_int_in(1, 65_536), default=d.batch, help=f"batch size ({d.batch})"
    )
    p.add_argument("--lr", type=_positive, default=d.lr, help=f"Adam's learning rate ({d.lr})")
    p.add_argument(
        "--weight-decay",
        type=_fraction,
        default=d.weight_decay,
        help=f"AdamW's decay ({d.weight_decay})",
    )
    p.add_argument(
        "--value-weight",
        type=_positive,
        default=d.value_weight,
        help=f"value loss weight ({d.value_weight:g})",
    )
    p.add_argument(
        "--window",
        type=_int_in(1, 10_000),
        default=d.window,
        help=f"generations of samples kept ({d.window})",
    )
    p.add_argument(
        "--distill-games",
        type=_int_in(0, 100_000),
        default=d.distill_games,
        help=f"first distil alphabeta from this many games (default {d.distill_games}: none)",
    )
    p.add_argument(
        "--distill-depth",
        type=_int_in(1, 64),
        default=d.distill_depth,
        help=f"its depth then ({d.distill_depth})",
    )
    p.add_argument(
        "--search-value-mix",
        type=_fraction,
        default=d.search_value_mix,
        help="weight of the search value in the value targets that have one "
        f"({d.search_value_mix})",
    )
    p.add_argument(
        "--check-every",
        type=_int_in(1, 100_000),
        default=d.check_every,
        help="generations between checks",
    )
    p.add_argument(
        "--check-games",
        type=_int_in(0, 100_000),
        default=d.check_games,
        help=f"games against mcts and alphabeta in each check ({d.check_games}; 0: no checks)",
    )
    p.add_argument(
        "--check-time",
        type=_seconds,
        default=d.check_time,
        help=f"seconds a move in checks ({d.check_time})",
    )
    p.add_argument(
        "--player",
        choices=["puct", "puct-root", "alphabeta", "mcts"],
        default=d.player,
        help=f"how the net plays in checks: Gumbel PUCT ({d.player}, the default), PUCT with "
        "PUCT at the root too, alpha-beta or MCTS with the net's value",
    )
    p.add_argument(
        "--playout-mix",
        type=float,
        default=d.playout_mix,
        help="PUCT players in checks: the share of a leaf's value taken from a playout "
        f"(AlphaGo's lambda; {d.playout_mix})",
    )
    p.add_argument(
        "--distill-steps",
        type=int,
        default=d.distill_steps,
        help="updates on the distillation samples (default: --steps)",
    )
    p.add_argument("--progress", action="store_true", help="progress bars for self-play")
    p.add_argument("--quiet", action="store_true", help="no line a generation")
    p.set_defaults(run=cmd_train)


def _solve_position(args: argparse.Namespace) -> tuple[pv.FishState, str]:
    """The position ``pingvinas solve`` solves, and a line saying which it is."""
    from pingvinas import solved

    source: str = args.source
    try:
        cls = solved.board_class(source)
    except ValueError:
        cls = None
    if cls is not None:
        label = f"{cls.name} board {args.seed} ({cls.shape()})"
        return cls.game(args.seed).new_state(), label
    stripped = source.lstrip()
    if source.endswith(".toml") or (not stripped.startswith("{") and not os.path.isfile(source)):
        game = pv.load_game(source)
        if not isinstance(game, pv.Fish):
            raise ValueError(
                f"{_quote(source)} is a Penguin Marathon variant: the solver is Fish's"
            )
        return game.new_state(seed=args.seed), f"{source}, seed {args.seed}"
    from pingvinas.console import load_shown

    shown = load_shown(source, args.index)
    if isinstance(shown, pv.GameRecord):
        n = len(shown) if args.move is None else args.move
        if not -len(shown) <= n <= len(shown):
            raise ValueError(f"--move {n}: the game has {len(shown)} moves (0 to {len(shown)})")
        state, label = shown.states()[n], f"the position after {n % (len(shown) + 1)} moves"
    else:
        state, label = shown, "the position given"
    if not isinstance(state, pv.FishState):
        raise ValueError("a Penguin Marathon position: the solver is Fish's")
    return state, label


def _signed(value: tuple[int, int]) -> str:
    return f"{value[0]:+d} fish, {value[1]:+d} floes"


def cmd_solve(args: argparse.Namespace) -> None:
    if args.table:
        from pingvinas._solved_table import write_table

        boards = dict(args.boards or [])
        command = "pingvinas solve --table" + "".join(
            f" --boards {k}={v}" for k, v in boards.items()
        )
        if args.games != 20:
            command += f" --games {args.games}"
        if args.max_nodes != 50_000_000:
            command += f" --max-nodes {args.max_nodes}"
        write_table(
            out=args.out,
            img=args.img,
            boards=boards,
            play_games=args.games,
            max_nodes=args.max_nodes,
            command=command,
            quiet=args.quiet,
        )
        print(f"wrote {args.out} and {args.img}")
        return
    if args.source is None:
        raise ValueError(
            "solve: give a position (a board class, a Fish variant or config, a state's JSON "
            "or a game record) or --table"
        )
    from pingvinas import solved

    state, label = _solve_position(args)
    if state.is_over:
        raise ValueError(f"{label}: the game is over")
    print(label)
    print(state)
    letter = "ABCD"[state.to_move or 0]
    who = f"player {state.to_move} ({letter})"
    tty = sys.stderr.isatty() and not args.quiet

    def progress(nodes: int, seconds: float) -> None:
        # The solver's own report, about every 0.25 s of a long solve.
        if tty:
            print(f"\rsolving: {nodes:,} nodes, {seconds:.1f} s   ", end="", file=sys.stderr)

    def done() -> None:
        if tty:
            print("\r" + " " * 50 + "\r", end="", file=sys.stderr)

    start = time.perf_counter()
    if state.players != 2:  # paranoid: one best move, no comparison of children
        try:
            sol = pv.fish.solve(state, max_nodes=args.max_nodes, progress=progress)
        finally:
            done()
        print(f"value for {who} (paranoid: against all the others): {_signed(sol.value)} to come")
        print(f"best move: {sol.move}")
        print(f"nodes: {sol.nodes:,}; time: {time.perf_counter() - start:.3f} s")
        return

    solver = solved.Solver(args.max_nodes)
    try:
        values = solved.move_values(state, solver=solver, progress=progress)
    finally:
        done()
    seconds = time.perf_counter() - start
    best = values.best
    after = state.after(best[0])
    final = after.scores if after.is_over else solver.solve(after).scores
    scores = ", ".join(f"{'ABCD'[p]} {f} fish {n} floes" for p, (f, n) in enumerate(final))
    print(f"value for {who}: {_signed(values.value)} at the end ({scores})")
    print(f"optimal moves ({len(best)} of {len(values.values)}): {', '.join(map(str, best))}")
    if args.all:
        moves = state.legal_moves()
        order = sorted(moves, key=lambda m: values.values[m.action], reverse=True)
        for m in order:
            print(f"  {str(m):<8} {_signed(values.values[m.action])}")
    print(f"nodes: {values.nodes:,}; time: {seconds:.3f} s")


def _class_boards(text: str) -> tuple[str, int]:
    """``CLASS=N`` of ``--boards``."""
    from pingvinas import solved

    name, sep, count = text.partition("=")
    try:
        solved.board_class(name)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    if not sep:
        raise argparse.ArgumentTypeError(f"expected CLASS=N, got {_quote(text)}")
    return name, _int_in(0, 100_000)(count)


def solve_parser(sub: argparse._SubParsersAction[_Parser]) -> None:
    from pingvinas.solved import CLASSES

    p = sub.add_parser(
        "solve",
        help="the exact value and every optimal move of a small Fish position; --table writes "
        "docs/solved.md",
    )
    p.add_argument(
        "source",
        nargs="?",
        metavar="POSITION",
        help=f"a board class ({', '.join(c.name for c in CLASSES)}: board --seed of it), a Fish "
        "variant or TOML config (its start, dealt from --seed), or a state's JSON or a game "
        "record (a file or the JSON)",
    )
    p.add_argument("--seed", type=_int_in(0, MAX_SEED), default=0, help="the board (default 0)")
    p.add_argument("--move", type=int, help="of a record: the position after this many moves")
    p.add_argument("--index", type=int, default=0, help="which record of a JSON Lines file")
    p.add_argument(
        "--max-nodes",
        type=_int_in(1, 10**12),
        default=50_000_000,
        help="give up on a solve past this many positions (default 50,000,000)",
    )
    p.add_argument("--all", action="store_true", help="also print the value of every move")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument(
        "--table",
        action="store_true",
        help="solve every board class from seeds, measure each player against perfect play "
        "and write --out and --img",
    )
    p.add_argument("--out", default="docs/solved.md", help="--table's page (docs/solved.md)")
    p.add_argument(
        "--img",
        default="docs/img/solved-fish-mini-4x4.svg",
        help="--table's picture (docs/img/solved-fish-mini-4x4.svg)",
    )
    p.add_argument(
        "--boards",
        type=_class_boards,
        action="append",
        metavar="CLASS=N",
        help="--table: solve N boards of CLASS (default: the table's own counts)",
    )
    p.add_argument(
        "--games",
        type=_int_in(0, 100_000),
        default=20,
        help="--table: games per player against perfect play (default 20)",
    )
    p.set_defaults(run=cmd_solve)


def cmd_variants(args: argparse.Namespace) -> None:
    names = pv.variants()
    width = max(len(n) for n in names)
    for name in names:
        description = getattr(pv.load_game(name), "description", None) or ""
        print(f"{name.ljust(width)}  {description}".rstrip())


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="pingvinas", description="Engines for the penguin games Fish and Penguin Marathon."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {pv.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    def game_options(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--game",
            default="fish",
            type=_variant,
            help="a bundled variant (see `pingvinas variants`) or a path to a TOML config; "
            "default fish",
        )
        p.add_argument(
            "--agents",
            nargs="+",
            type=_agent,
            help=f"one per player: {', '.join(PLAY_AGENTS)}, mcts:N, alphabeta:D or a net file: "
            "net:PATH (PUCT), SPEC+net:PATH (default: auto greedy; play: human auto; human only "
            "in play)",
        )
        p.add_argument(
            "--time",
            type=_seconds,
            default=0.1,
            help="seconds per move for search agents (default 0.1)",
        )
        p.add_argument(
            "--seed", type=_int_in(0, MAX_SEED), default=0, help="0 to 2**63 - 1 (default 0)"
        )

    p = sub.add_parser("match", help="play many games between agents and print the results table")
    game_options(p)
    p.add_argument("--games", type=_int_in(1, MAX_MATCH_GAMES), default=20)
    p.add_argument(
        "--workers",
        type=_int_in(1, MAX_WORKERS),
        default=None,
        help="games played at once (default 1; with --backend ray: twice the cluster's CPUs)",
    )
    p.add_argument(
        "--backend",
        choices=["local", "ray"],
        default="local",
        help='where the games run: here, or on Ray (pip install "ray>=2.9")',
    )
    p.add_argument(
        "--address",
        default=None,
        help="with --backend ray: the cluster (auto, ray://HOST:10001; default: RAY_ADDRESS, "
        "else a local Ray instance)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--save", metavar="FILE", help="write every game to FILE as JSON Lines game records"
    )
    p.set_defaults(run=cmd_match)

    p = sub.add_parser(
        "play",
        help="play a game in the terminal, any seat human (? lists the moves, help the commands)",
    )
    game_options(p)
    p.add_argument("--verbose", "-v", action="store_true", help="(every move is shown anyway)")
    p.set_defaults(run=cmd_play)

    p = sub.add_parser("show", help="show a position or a game record as text, or draw it")
    p.add_argument(
        "source",
        metavar="FILE_OR_JSON",
        help="a state's JSON, a game record or a JSON Lines file of records (a file or the JSON)",
    )
    p.add_argument(
        "--move",
        type=int,
        help="the position after this many moves of a record (default: the last; negative: "
        "counted from the end, -1 the last position, as Python indexes)",
    )
    p.add_argument(
        "--index", type=int, default=0, help="which record of a JSON Lines file (default 0)"
    )
    pictures = p.add_mutually_exclusive_group()
    pictures.add_argument("--svg", metavar="OUT", help="write an SVG picture to OUT")
    pictures.add_argument(
        "--png", metavar="OUT", help="write a PNG picture to OUT (needs pingvinas[png])"
    )
    p.add_argument("--size", type=_int_in(16, 10_000), help="the picture's width in pixels")
    p.set_defaults(run=cmd_show)

    p = sub.add_parser("bench", help="random playouts per second")
    p.add_argument(
        "--game",
        default="fish",
        type=_variant,
        help="a bundled variant or a path to a TOML config; default fish",
    )
    p.add_argument("--games", type=_int_in(1, MAX_BENCH_GAMES), default=200_000)
    p.set_defaults(run=cmd_bench)

    serve_parser(sub)
    train_parser(sub)
    solve_parser(sub)

    p = sub.add_parser("variants", help="list the bundled variants with their descriptions")
    p.set_defaults(run=cmd_variants)
    return parser


def _fail(message: str, code: int) -> NoReturn:
    print(f"pingvinas: {message}", file=sys.stderr)
    sys.exit(code)


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    if hasattr(args, "agents"):
        players = pv.load_game(args.game).players
        if args.command == "play":  # a person against the engine
            default = ["human"] + ["auto"] * (players - 1)
        else:
            default = ["auto", "greedy"]
        args.agents = args.agents or default
        if len(args.agents) != players:
            parser.error(
                f"{args.command}: {players} agents needed for {args.game}, got "
                f"{len(args.agents)}: {' '.join(args.agents)}"
            )
        if args.command != "play" and "human" in args.agents:
            parser.error(f"{args.command}: human players take part in `pingvinas play` only")
    try:
        args.run(args)
    except KeyboardInterrupt:
        sys.exit(130)
    except (ValueError, TypeError, OverflowError, RuntimeError) as e:
        text = " ".join(str(e).split())
        _fail(text if len(text) <= 300 else text[:300] + "...", 1)


if __name__ == "__main__":
    main()
