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
        env = pv.VectorEnv(pv.Fish(), 3, seed=5, opponent="mcts:3000")
        return env, env.reset(seed=5)[1]

    plain, info = make()
    actions = first_legal(info)
    want = [np.array(x, copy=True) for x in plain.step(actions)[:4]]
    want_states = snapshot(plain)

    env, info = make()
    threading.Timer(0.05, _thread.interrupt_main).start()
    try:
        env.step(actions)
        interrupted = False
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
