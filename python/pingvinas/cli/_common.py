"""What the subcommands share: the bounds and parsers of their arguments, the agents they
seat, and the one-line error parser."""

from __future__ import annotations

import argparse
import math
import os
from typing import TYPE_CHECKING, Callable, NoReturn

import pingvinas as pv
from pingvinas._core import AgentSpec

if TYPE_CHECKING:
    from pingvinas.play.agents import Agent

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


def quote(text: str, limit: int = 40) -> str:
    """``text`` for an error message, cut to ``limit`` characters."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def int_in(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {quote(text)}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{quote(text)} is out of range: expected {low:,} to {high:,}"
            )
        return value

    parse.__name__ = "integer"  # argparse names the type in some messages
    return parse


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {quote(text)}") from None
    if not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
        raise argparse.ArgumentTypeError(
            f"{quote(text)} is out of range: expected seconds above 0, at most {MAX_SECONDS:g}"
        )
    return value


def number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {quote(text)}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {quote(text)}")
    return value


def positive(text: str) -> float:
    value = number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a number above 0, got {quote(text)}")
    return value


def fraction(text: str) -> float:
    value = number(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected 0 to 1, got {quote(text)}")
    return value


def agent_spec(text: str) -> str:
    """An agent spec (``mcts:500`` and ``net:PATH`` too), an external engine
    (``cmd:COMMAND``), or ``human`` (refused later outside ``play``)."""
    if text.startswith("cmd:"):
        from pingvinas.play.protocol import engine_agent

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


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line (no usage block): exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


#: The subparsers object each subcommand module adds its parser to.
if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[Parser]


def make_agent(name: str, seconds: float, seed: int) -> Agent:
    from pingvinas.play.agents import timed_agent

    return timed_agent(name, seconds, seed)


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
        type=seconds,
        default=0.1,
        help="seconds per move for search agents (default 0.1)",
    )
    p.add_argument("--seed", type=int_in(0, MAX_SEED), default=0, help="0 to 2**63 - 1 (default 0)")
