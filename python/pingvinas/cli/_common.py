"""What the subcommands share: the bounds and parsers of their arguments, the agents they
seat, and the one-line error parser."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Callable, NoReturn, Optional

import pingvinas as pv
from pingvinas._args import TIME, Range
from pingvinas._core import AgentSpec
from pingvinas._files import check_output

if TYPE_CHECKING:
    from pingvinas.playing.agents import Agent

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
#: ``--move`` and ``--index`` (of a record, of a JSON Lines file): negative ones count back.
MAX_INDEX = 10**9


def quote(text: str, limit: int = 40) -> str:
    """``text`` for an error message, cut to ``limit`` characters."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def ranged(r: Range) -> Callable[[str], Any]:
    """The argparse type of a numeric option of range ``r``; its ``range`` attribute is the
    range as ``--help`` gives it (every numeric option's help says it)."""
    kind = "an integer" if r.integer else "a number"

    def parse(text: str) -> Any:
        try:
            value = int(text) if r.integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {kind}, got {quote(text)}") from None
        if not r.holds(value):
            raise argparse.ArgumentTypeError(f"{quote(text)} is out of range: expected {r}")
        return value

    parse.__name__ = "integer" if r.integer else "number"  # argparse names the type sometimes
    parse.range = str(r)  # type: ignore[attr-defined]
    return parse


def int_in(low: int, high: int) -> Callable[[str], int]:
    """An integer option from ``low`` to ``high``."""
    return ranged(Range(low, high))


#: A time budget in seconds (``--time``): the range of every time budget, ``pingvinas._args.TIME``.
time_budget: Callable[[str], float] = ranged(TIME)
#: A share, 0 to 1.
fraction: Callable[[str], float] = ranged(Range(0, 1, integer=False))
#: An Elo difference (``match --sprt``), as ``pingvinas.rating.sprt.SPRT`` takes it.
elo: Callable[[str], float] = ranged(Range(-2000, 2000, integer=False))
#: An error rate of ``--sprt`` (``--alpha``, ``--beta``).
error_rate: Callable[[str], float] = ranged(Range(0, 0.5, integer=False, above=True, below=True))


def agent_spec(text: str) -> str:
    """An agent spec (``mcts:500`` and ``net:PATH`` too), an external engine
    (``cmd:COMMAND``), or ``human`` (refused later outside ``play``)."""
    if text.startswith("cmd:"):
        from pingvinas.playing.protocol.driver import engine_agent

        try:
            engine_agent(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    elif text != "human":
        try:
            spec = AgentSpec(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
        if spec.net is not None and not os.path.isfile(spec.net):
            raise argparse.ArgumentTypeError(f"{quote(text)}: no net file {quote(spec.net)}")
    return text


def variant(name: str) -> str:
    """A bundled variant's name, or the path of a config file that loads (else what is wrong
    with it)."""
    try:
        pv.load_game(name)
    except ValueError as e:
        # A config file (or a name that is one): what is wrong with it.
        if name.endswith(".toml") or "/" in name or "\\" in name or os.path.lexists(name):
            raise argparse.ArgumentTypeError(" ".join(str(e).split())[:300]) from None
        raise argparse.ArgumentTypeError(
            f"unknown variant {quote(name)}; bundled variants: {', '.join(pv.variants())}, "
            "or a path to a .toml config"
        ) from None
    return name


def check_outputs(
    *paths: Optional[str],
    force: bool,
    hint: str = ": --force replaces it",
    make_dirs: bool = False,
) -> None:
    """Before any work: each output path (``None``: not asked for) can be written (its
    directory exists, or with ``make_dirs`` can be made, and takes files; it is no directory),
    and exists only if ``force`` (``hint`` follows the message then: how to ask)."""
    for path in paths:
        if path is not None:
            check_output(path, replace=force, hint=hint, make_dirs=make_dirs)


def force_option(p: argparse.ArgumentParser, what: str) -> None:
    """``--force``: replace ``what`` if it exists (by default an existing file is refused)."""
    p.add_argument(
        "--force",
        action="store_true",
        help=f"replace {what} if it exists (default: refuse, and write nothing)",
    )


class UsageError(ValueError):
    """A bad argument that only the command itself can see (an agent that cannot play the
    game, a name no player has): reported before any work, as argparse reports one (exit
    code 2)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises ``KeyboardInterrupt``: the command stops as on
    Ctrl-C, keeping what it finished (exit code 143)."""


@contextlib.contextmanager
def sigterm_stops() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` (in the main thread; elsewhere it
    keeps its handler), so that a command stopped by ``kill`` or a scheduler saves its finished
    work as on Ctrl-C instead of dying with it unwritten."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise Terminated

    before = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line (no usage block): exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


#: The subparsers object each subcommand module adds its parser to.
if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[Parser]


def make_agent(name: str, time: float, seed: int) -> Agent:
    from pingvinas.playing.specs import timed_agent

    return timed_agent(name, time, seed)


def game_options(p: argparse.ArgumentParser) -> None:
    """``--game``, ``--agents``, ``--time`` and ``--seed``: the options of the commands that seat
    agents."""
    p.add_argument(
        "--game",
        default="fish",
        type=variant,
        help="a bundled variant (see `pingvinas variants`) or a path to a TOML config; "
        "default fish",
    )
    p.add_argument(
        "--agents",
        nargs="+",
        type=agent_spec,
        help=f"one per player: {', '.join(PLAY_AGENTS)}, mcts:N, alphabeta:D, a net file: "
        "net:PATH (PUCT), SPEC+net:PATH, or an external engine: 'cmd:COMMAND' (see "
        "docs/protocol.md) (default: auto greedy; play: human auto; human only in play)",
    )
    p.add_argument(
        "--time",
        type=time_budget,
        default=0.1,
        help="seconds per move for search agents, solve too (a position it cannot solve in time "
        f"is an error; {TIME}; default 0.1)",
    )
    p.add_argument("--seed", type=int_in(0, MAX_SEED), default=0, help="0 to 2**63 - 1 (default 0)")
