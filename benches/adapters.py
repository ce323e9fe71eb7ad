"""Seconds per full random game through each framework adapter, against the bare State API.

    python benches/adapters.py --games 200 [--game fish|marathon]

Every loop plays uniformly random legal actions and builds what its framework hands a learner
each decision (observation and mask); the State loop does the same by hand
(``legal_actions`` + ``observation_tensor`` + ``legal_action_mask`` + ``apply_action``).
Wall and CPU time per game are printed (on a shared machine CPU time is the steadier one).
Frameworks that are not installed are skipped. The OpenSpiel loop loads one game per Fish board
(`seed` is a game parameter), as a user who wants fresh boards must.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import pingvinas as pv


def state_loop(game, games, rng):
    for g in range(games):
        s = game.new_state(seed=g)
        while not s.is_over:
            s.observation_tensor()
            s.legal_action_mask()
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])


def gymnasium_loop(game, games, rng):
    from pingvinas import envs

    env = envs.gym_env(game, opponent="random")
    for g in range(games):
        obs, info = env.reset(seed=g)
        done = False
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            obs, _, done, _, info = env.step(int(legal[int(rng.integers(len(legal)))]))


def pettingzoo_loop(game, games, rng):
    from pingvinas import envs

    env = envs.pettingzoo_env(game)
    for g in range(games):
        env.reset(seed=g)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[int(rng.integers(len(legal)))]))


def openspiel_loop(game, games, rng):
    import pyspiel

    import pingvinas.envs.openspiel

    pingvinas.envs.openspiel.register()
    if isinstance(game, pv.Fish):
        spiel_games = [
            pyspiel.load_game("pingvinas_fish", {"variant": "fish", "seed": g})
            for g in range(games)
        ]
    else:
        spiel_games = [pyspiel.load_game("pingvinas_marathon", {"variant": "marathon"})] * games
    for sg in spiel_games:
        s = sg.new_initial_state()
        while not s.is_terminal():
            s.observation_tensor(s.current_player())
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--game", choices=["fish", "marathon"], default="fish")
    args = parser.parse_args()
    game = pv.Fish() if args.game == "fish" else pv.Marathon()
    loops = [
        ("State API", state_loop),
        ("Gymnasium", gymnasium_loop),
        ("PettingZoo", pettingzoo_loop),
        ("OpenSpiel", openspiel_loop),
    ]
    base = base_cpu = None
    print(f"{args.game}, {args.games} random games each")
    for name, loop in loops:
        rng = np.random.default_rng(0)
        try:
            t, c = time.perf_counter(), time.process_time()
            loop(game, args.games, rng)
            secs = (time.perf_counter() - t) / args.games
            cpu = (time.process_time() - c) / args.games
        except ImportError as e:
            print(f"{name:11} skipped ({e})")
            continue
        base = base or secs
        base_cpu = base_cpu or cpu
        print(
            f"{name:11} {secs * 1e3:8.2f} ms/game wall, {cpu * 1e3:8.2f} ms CPU"
            f"  ({cpu / base_cpu:4.1f}x the State API's CPU time)"
        )


if __name__ == "__main__":
    main()
