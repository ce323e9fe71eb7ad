"""The vector env and self-play under hostile use: Ctrl-C stops a long
step, a step that raises changes nothing, memory that cannot be had is a ``MemoryError``
(never an abort or a ``PanicException``), the buffers handed out are read-only, and misuse
gets messages that name the real mistake."""

from __future__ import annotations

import _thread
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import pingvinas as pv


def first_legal(info) -> np.ndarray:
    return info["legal_actions"][:, 0].astype(np.int64)


def snapshot(env) -> list:
    return [s.to_json() for s in env.states()]


def test_ctrl_c_stops_a_step_with_a_searching_opponent_and_changes_nothing(python_sigint):
    env = pv.VectorEnv(pv.Fish(), 4, seed=3, opponent="mcts:1000000")
    obs, info = env.reset(seed=3)
    before = snapshot(env)
    obs_before = obs.copy()
    sent = []

    def interrupt():
        sent.append(time.perf_counter())
        _thread.interrupt_main()

    threading.Timer(0.5, interrupt).start()
    with pytest.raises(KeyboardInterrupt):
        env.step(first_legal(info))
    # Before: 34 s with 4 envs (the step ran to its end).
    assert time.perf_counter() - sent[0] < 0.2
    assert snapshot(env) == before
    assert np.array_equal(obs, obs_before)


def test_an_interrupted_step_played_again_gives_what_an_uninterrupted_one_gives(python_sigint):
    def make():
        # Room enough that no move runs into its time bound: the moves are the seed's alone.
        # Searches long enough (tenths of a second) that the interrupt lands inside the step.
        env = pv.VectorEnv(pv.Fish(), 3, seed=5, opponent="mcts:30000", opponent_time=600)
        return env, env.reset(seed=5)[1]

    plain, info = make()
    actions = first_legal(info)
    want = [np.array(x, copy=True) for x in plain.step(actions)[:4]]
    want_states = snapshot(plain)

    env, info = make()
    timer = threading.Timer(0.05, _thread.interrupt_main)
    timer.start()
    try:
        env.step(actions)
        interrupted = False
        timer.cancel()  # not to interrupt a later test
    except KeyboardInterrupt:
        interrupted = True
    if interrupted:
        got = env.step(actions)[:4]
    else:  # the step had finished first: then it stands as it is
        got = want
    assert snapshot(env) == want_states
    for g, w in zip(got, want):
        assert np.array_equal(g, w)


def test_the_buffers_are_read_only():
    env = pv.VectorEnv(pv.Fish(), 2, seed=1)
    obs, info = env.reset(seed=1)
    count = info["legal_action_count"].copy()
    with pytest.raises(ValueError, match="read-only"):
        info["legal_action_mask"][:] = True
    with pytest.raises(ValueError):
        info["legal_action_mask"].setflags(write=True)
    with pytest.raises(ValueError):
        obs.setflags(write=True)
    _, _, _, _, info = env.step(first_legal(info))
    assert info["legal_action_mask"].sum(axis=1).tolist() == info["legal_action_count"].tolist()
    assert count.tolist() != [0, 0]
    # copy=True hands out arrays the caller owns.
    mine = pv.VectorEnv(pv.Fish(), 2, seed=1, copy=True).reset(seed=1)[0]
    mine[:] = 0.0


def test_evaluator_inputs_refuse_to_become_writeable():
    seen = []

    def evaluator(obs, mask):
        for a in (obs, mask):
            try:
                a.setflags(write=True)
                seen.append("writeable")
            except ValueError:
                seen.append("refused")
        n, actions = mask.shape
        return np.zeros((n, actions), np.float32), np.zeros((n, 2), np.float32)

    pv.search(pv.Fish().new_state(seed=2), "puct", evaluator=evaluator, iterations=4)
    assert seen and set(seen) == {"refused"}


def test_two_threads_on_one_env_are_told_it_is_busy():
    env = pv.VectorEnv(pv.Fish(), 2, seed=1, opponent="mcts:200000")
    _, info = env.reset(seed=1)
    actions = first_legal(info)
    errors = []

    def step():
        try:
            env.step(actions)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    worker = threading.Thread(target=step)
    worker.start()
    time.sleep(0.2)
    with pytest.raises(RuntimeError, match="VectorEnv is busy"):
        env.step(actions)
    with pytest.raises(RuntimeError, match="VectorEnv is busy"):
        env.state(0)
    assert env.num_envs == 2  # settings stay readable
    worker.join()
    assert not errors


def test_set_state_names_the_board_size_that_differs():
    env = pv.VectorEnv(pv.Fish(), 2, seed=1)
    big = pv.Fish(board=[[1] * 20] * 20).new_state()
    with pytest.raises(ValueError, match="20x20"):
        env.set_state(0, big)
    with pytest.raises(TypeError, match="expected a FishState"):
        env.set_state(0, pv.Marathon().new_state())


def test_a_game_over_before_its_first_move_is_refused():
    game = pv.Fish(board=[[2, 3], [3, 2]], penguins=1)
    with pytest.raises(ValueError, match="over before its first move"):
        pv.VectorEnv(game, 2)


def test_a_uint64_action_beyond_int64_is_reported_as_given():
    env = pv.VectorEnv(pv.Fish(), 2, seed=1)
    env.reset(seed=1)
    with pytest.raises(pv.InvalidMoveError, match="9223372036854775808"):
        env.step(np.array([2**63, 1], dtype=np.uint64))


def test_game_seed_counts_back_from_the_current_game():
    env = pv.VectorEnv(pv.Fish(), 2, seed=1)
    assert env.game_seed(0, -1) == env.game_seed(0) == env.game_seed(0, 0)
    with pytest.raises(ValueError, match="-1 is its current game"):
        env.game_seed(0, -2)


def test_too_many_envs_is_a_memory_error_before_allocating():
    # 16,777,216 envs (the documented maximum) need over 100 GB: before, an abort.
    with pytest.raises(MemoryError, match="16777216 envs .* need about"):
        pv.VectorEnv(pv.Fish(), 16_777_216)


def test_self_play_game_counts_are_bounded_before_anything_is_built():
    game = pv.Fish()
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="at most"):
        pv.selfplay(game, games=10**9, simulations=1)
    with pytest.raises(ValueError, match="at most"):
        pv.selfplay(game, games=3 * 10**7, simulations=1)
    with pytest.raises(ValueError, match="at most"):
        pv.selfplay(game, games=range(10**12), simulations=1)
    assert time.perf_counter() - t0 < 1.0  # nothing of 10**9 games was built
    with pytest.raises(ValueError, match="2\\*\\*63"):
        pv.selfplay(game, games=[2**70], simulations=1)
    # The Ray backend checks the same bounds before it starts Ray.
    with pytest.raises(ValueError, match="at most"):
        pv.selfplay(game, games=10**9, simulations=1, backend="ray")
    with pytest.raises(ValueError, match="2\\*\\*63"):
        pv.selfplay(game, games=[2**70], simulations=1, backend="ray")
    data = pv.selfplay(game, games=range(3, 5), simulations=2, seed=1)
    assert sorted(set(data.game_ids.tolist())) == [3, 4]


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is Linux's")
def test_numpy_memory_errors_stay_memory_errors():
    # Under a 3 GB address-space limit numpy cannot make the buffers: before, Rust panicked
    # on the null pointer (PanicException).
    code = textwrap.dedent(
        """
        import resource
        import pingvinas as pv
        game = pv.Fish(board=[[1] * 32] * 32)
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        try:
            pv.VectorEnv(game, 100_000)
        except MemoryError as e:
            print("MemoryError", e)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "MemoryError" in out.stdout, (out.stdout, out.stderr)
    assert "PanicException" not in out.stderr


def run_child(code: str, timeout: float = 60.0) -> str:
    """Runs ``code`` in a fresh interpreter and returns its output; fails the test if it hangs
    or dies (an abort, a segfault, a panic that reached Python)."""
    try:
        out = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"no answer within {timeout} s")
    assert out.returncode == 0, out.stderr[-2000:]
    assert "PanicException" not in out.stderr and "internal error" not in out.stdout
    return out.stdout


def test_an_opponent_that_cannot_move_fails_the_step_cleanly_and_changes_nothing():
    # Before: a panic after 44 s ("a search of a game that is not over ..."), surfacing as
    # RuntimeError, with the learner's move left applied.
    out = run_child(
        """
        import time
        import numpy as np
        import pingvinas as pv

        env = pv.VectorEnv(pv.Fish(), 1, seed=0, opponent="solve", learner=0)
        obs, info = env.reset()
        before, obs_before = [s.to_json() for s in env.states()], obs.copy()
        actions = info["legal_actions"][:, 0].astype(np.int64)
        for _ in range(2):
            t = time.perf_counter()
            try:
                env.step(actions)
                print("stepped")
            except ValueError as e:
                print("ValueError", round(time.perf_counter() - t, 1), e)
            assert [s.to_json() for s in env.states()] == before
            assert np.array_equal(obs, obs_before)
        print("unchanged")
        """
    )
    lines = out.splitlines()
    assert lines[-1] == "unchanged", out
    for line in lines[:2]:
        kind, seconds, message = line.split(" ", 2)
        assert kind == "ValueError", out
        # The default bound on an opponent's move: 1 s, and then the solver gives up.
        assert float(seconds) < 10, out
        assert message.startswith("env 0: the opponent cannot move"), out
        assert "too big to solve" in message and "no env changed" in message, out


def test_a_failed_step_with_many_envs_changes_no_env():
    out = run_child(
        """
        import numpy as np
        import pingvinas as pv

        game = pv.Fish.from_config(
            {"game": "fish", "players": 2, "penguins": 1, "board": [[1, 2, 3, 1]] * 3}
        )
        # Solvable boards: most steps play; none may leave an env half stepped.
        env = pv.VectorEnv(game, 8, seed=1, opponent="solve", opponent_time=5)
        obs, info = env.reset(seed=1)
        rng = np.random.default_rng(0)
        steps = 0
        for _ in range(30):
            before = [s.to_json() for s in env.states()]
            pick = (rng.random(8) * info["legal_action_count"]).astype(np.int64)
            actions = info["legal_actions"][np.arange(8), pick].astype(np.int64)
            try:
                obs, rewards, term, trunc, info = env.step(actions)
                steps += 1
            except ValueError as e:
                assert [s.to_json() for s in env.states()] == before, e
        print("steps", steps)
        """
    )
    assert int(out.split()[-1]) > 0, out


@pytest.mark.parametrize("time_arg", [None, 0.2])
def test_an_opponent_move_is_bounded_by_its_time(time_arg):
    # Before: "alphabeta:64" took minutes a step.
    out = run_child(
        f"""
        import time
        import numpy as np
        import pingvinas as pv

        env = pv.VectorEnv(pv.Fish(), 2, seed=0, opponent="alphabeta:64", learner=1,
                           opponent_time={time_arg})
        t = time.perf_counter()
        obs, info = env.reset(seed=0)
        print(round(time.perf_counter() - t, 2))
        t = time.perf_counter()
        env.step(info["legal_actions"][:, 0].astype(np.int64))
        print(round(time.perf_counter() - t, 2), env.opponent_time)
        """
    )
    reset, step, bound = out.split()
    assert float(bound) == (time_arg or 1.0)
    # Two envs, one opponent move each (learner 1: the opponent places first, at the reset).
    assert float(reset) < 2 * float(bound) + 3, out
    assert float(step) < 2 * float(bound) + 3, out


def test_ctrl_c_stops_a_step_within_a_long_opponent_time(python_sigint):
    env = pv.VectorEnv(pv.Fish(), 2, seed=3, opponent="alphabeta:64", opponent_time=3600)
    obs, info = env.reset(seed=3)
    before = snapshot(env)
    sent = []

    def interrupt():
        sent.append(time.perf_counter())
        _thread.interrupt_main()

    threading.Timer(0.5, interrupt).start()
    with pytest.raises(KeyboardInterrupt):
        env.step(first_legal(info))
    assert time.perf_counter() - sent[0] < 0.5
    assert snapshot(env) == before


def test_opponent_time_and_learner_are_checked():
    game = pv.Fish()
    for bad in (0, -1, 0.0, float("nan"), float("inf"), 1e308, 604801, 10**400):
        with pytest.raises(ValueError, match="opponent_time") as e:
            pv.VectorEnv(game, 1, opponent="random", opponent_time=bad)
        assert "604800" in str(e.value) and len(str(e.value)) < 120, e.value
    for bad in (True, "1", [1]):
        with pytest.raises(TypeError, match="opponent_time"):
            pv.VectorEnv(game, 1, opponent="random", opponent_time=bad)
    with pytest.raises(ValueError, match="give an opponent"):
        pv.VectorEnv(game, 1, opponent_time=1.0)
    # A learner names a seat against an opponent: without one it is a mistake, even seat 0.
    for learner in (0, 1, "random"):
        with pytest.raises(ValueError, match="give an opponent"):
            pv.VectorEnv(game, 1, learner=learner)
    env = pv.VectorEnv(game, 1, opponent="mcts:5", opponent_time=2.5)
    assert env.opponent_time == 2.5
    assert repr(env) == (
        'VectorEnv(Fish(players=2, penguins=4), 1, opponent="mcts:5", opponent_time=2.5)'
    )
    assert pv.VectorEnv(game, 1, opponent="random").opponent_time == 1.0
    assert pv.VectorEnv(game, 1).opponent_time is None
