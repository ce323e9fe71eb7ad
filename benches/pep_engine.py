"""A protocol engine (``docs/protocol.md``) made of whichever pingvinas build is importable, so
that an older build, one without ``pingvinas engine``, can sit at the table in ``match``,
``match --sprt`` and ``ladder`` beside this one::

    pip install --no-deps --target /tmp/old OLD_WHEEL
    pingvinas ladder --game fish --agents auto \\
        "cmd:env PYTHONPATH=/tmp/old python benches/pep_engine.py auto" --time 0.1 --out ladder

The player is named as in ``versus_baseline.py`` (``auto``, ``alphabeta``, ``mcts-plain``,
``mcts,exploration=2``). Only the API that every build has is used: states from their JSON,
``play`` with the notation, ``action_to_string`` and ``Searcher``. A searcher lives for a game,
so its tables and trees are kept between moves as a player keeps them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from versus_baseline import make_searcher  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agent", nargs="?", default="auto", help="the player (default auto)")
    parser.add_argument("--seed", type=int, default=0, help="seeds each game's searcher")
    args = parser.parse_args()

    import pingvinas as pv

    games, searcher, seconds, state = 0, None, None, None

    def say(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        word, _, rest = line.strip().partition(" ")
        if word == "pep":
            say(f"id name {args.agent} (pingvinas {getattr(pv, '__version__', '?')})")
            say("pepok 1")
        elif word == "isready":
            say("readyok")
        elif word == "newgame":
            games, searcher = games + 1, None
        elif word == "position":
            data: dict[str, Any] = json.loads(rest)
            start = json.dumps(data["start"])
            state_type = pv.FishState if data["start"]["game"] == "fish" else pv.MarathonState
            state = state_type.from_json(start)
            for mv in data["moves"]:
                state.play(mv)
        elif word == "go":
            opts = rest.split()
            ms = dict(zip(opts[::2], (float(x) for x in opts[1::2])))
            time = ms["movetime"] / 1000 if "movetime" in ms else ms["timeleft"] / 20000
            if searcher is None or time != seconds:
                seed = args.seed * 1_000_003 + games
                searcher, seconds = make_searcher(pv, args.agent, str(time), seed), time
            result = searcher.search(state)
            say(f"info depth {result.depth}")
            say(f"bestmove {state.action_to_string(result.action)}")
        elif word == "quit":
            return


if __name__ == "__main__":
    main()
