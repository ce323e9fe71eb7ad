"""Speed of the paths a change to the state layer must not slow down, in one process: Fish
random playouts (uniform and fast, one thread), the Python step API (``legal_actions`` +
``play`` over whole games) and plain MCTS iterations. Run it with two builds alternately to
compare them:

    python benches/state_speed.py
"""

from __future__ import annotations

import time

import pingvinas as pv


def best_of_three(fn) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def step_api(games: int) -> None:
    for g in range(games):
        state = pv.Fish().new_state(seed=g)
        while not state.is_over:
            actions = state.legal_actions()
            state.play(actions[g % len(actions)])


def main() -> None:
    n, games, iterations = 50_000, 300, 20_000
    uniform = best_of_three(lambda: pv.fish.random_playouts(n, seed=1, threads=1))
    fast = best_of_three(lambda: pv.fish.random_playouts(n, seed=1, threads=1, policy="fast"))
    steps = best_of_three(lambda: step_api(games))
    state = pv.Fish().new_state(seed=3)
    while state.phase == "placement":
        state.play(state.legal_actions()[0])
    mcts = best_of_three(lambda: pv.search(state, "mcts", iterations=iterations, knowledge=False))
    print(
        f"uniform {n / uniform:,.0f} games/s  fast {n / fast:,.0f} games/s  "
        f"step API {games / steps:,.0f} games/s  mcts {iterations / mcts:,.0f} it/s"
    )


if __name__ == "__main__":
    main()
