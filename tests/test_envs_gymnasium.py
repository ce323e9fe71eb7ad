"""The Gymnasium adapter (``pingvinas[gymnasium]``): Gymnasium's own checker, seeding,
rewards, opponents and the registered ids."""

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import pingvinas as pv  # noqa: E402
from pingvinas import envs  # noqa: E402


def play_episode(env, seed, action_seed=0):
    """A whole episode of uniformly random legal actions; the trajectory as plain data."""
    rng = np.random.default_rng(action_seed)
    obs, info = env.reset(seed=seed)
    trajectory = [
        (obs["observation"].tobytes(), obs["action_mask"].tobytes(), info["legal_actions"])
    ]
    rewards = []
    while True:
        assert env.observation_space.contains(obs)
        assert np.flatnonzero(obs["action_mask"]).tolist() == info["legal_actions"]
        action = int(rng.choice(info["legal_actions"]))
        obs, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        trajectory.append(
            (obs["observation"].tobytes(), reward, terminated, truncated, info["legal_actions"])
        )
        assert truncated is False
        if terminated:
            assert env.observation_space.contains(obs)
            return trajectory, rewards, info
        assert reward == 0.0


@pytest.mark.parametrize(
    "env_id, game", [("pingvinas/Fish-v0", "fish"), ("pingvinas/Marathon-v0", "marathon")]
)
def test_check_env_on_the_default_env(env_id, game):
    # check_env steps with unmasked random actions: the default env (illegal_action="lose")
    # passes it as a new user first calls it, through gymnasium.make and directly.
    check_env(gymnasium.make(env_id).unwrapped)
    check_env(envs.gym_env(game))


@pytest.mark.parametrize(
    "game", ["fish", "fish-3p", "fish-snake-any", "marathon", pv.Marathon(players=3)]
)
def test_random_episodes(game):
    env = envs.gym_env(game)
    trajectory, rewards, info = play_episode(env, seed=5)
    assert rewards[-1] == info["returns"][0] == env.state.returns()[0]
    assert env.state.is_over
    # The same seed and actions give the same episode; another seed deals another Fish board.
    assert play_episode(envs.gym_env(game), seed=5)[0] == trajectory
    if env.game.players == 2 and isinstance(env.game, pv.Fish):
        other, _ = envs.gym_env(game).reset(seed=6)
        assert other["observation"].tobytes() != trajectory[0][0]


def test_observation_is_the_learners_view():
    env = envs.gym_env("fish-3p", seat=2)
    obs, info = env.reset(seed=1)
    assert env.state.to_move == 2  # seats 0 and 1 moved first
    np.testing.assert_array_equal(obs["observation"], env.state.observation_tensor(player=2))
    assert obs["observation"].shape == envs.observation_shape(env.game)
    assert obs["action_mask"].dtype == np.int8


def test_illegal_action_raise_leaves_the_state():
    env = envs.gym_env("fish", illegal_action="raise")
    obs, info = env.reset(seed=3)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = env.state.copy()
    with pytest.raises(pv.IllegalMoveError):
        env.step(illegal)
    assert env.state == before


@pytest.mark.parametrize("outside", [False, True], ids=["masked", "outside the space"])
def test_illegal_action_loses_by_default(outside):
    env = envs.gym_env("fish")
    obs, info = env.reset(seed=3)
    illegal = env.game.num_actions if outside else int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    with pytest.raises(RuntimeError):
        env.step(info["legal_actions"][0])
    with pytest.raises(ValueError, match="illegal_action"):
        envs.gym_env("fish", illegal_action="ignore")


@pytest.mark.parametrize(
    "opponent",
    [
        "greedy",
        "mcts",
        "alphabeta",
        "auto",
        pv.RandomAgent(),
        pv.GreedyAgent(),
        lambda s: s.legal_actions()[-1],
    ],
    ids=["greedy", "mcts", "alphabeta", "auto", "RandomAgent", "GreedyAgent", "callable"],
)
def test_opponents(opponent):
    env = envs.gym_env("fish", opponent=opponent, seat=1)
    first, rewards, info = play_episode(env, seed=11)
    assert rewards[-1] == env.state.returns()[1]
    # Opponents draw their seeds from the env's generator: the episode repeats.
    again, _, _ = play_episode(envs.gym_env("fish", opponent=opponent, seat=1), seed=11)
    assert again == first


def test_opponent_per_seat_and_marathon_greedy():
    env = envs.gym_env("fish-3p", opponent=["greedy", "random"], seat=1)
    play_episode(env, seed=2)
    play_episode(envs.gym_env("marathon", opponent="greedy"), seed=2)
    with pytest.raises(ValueError):
        envs.gym_env("fish-3p", opponent=["greedy"])
    with pytest.raises(ValueError):
        envs.gym_env("fish", opponent="nobody")


def test_render_ansi():
    env = gymnasium.make("pingvinas/Fish-v0", render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == str(env.unwrapped.state)


def test_registered_ids_take_variants():
    env = gymnasium.make("pingvinas/Fish-v0", game="fish-4p", opponent="greedy")
    assert env.unwrapped.game == pv.Fish.variant("fish-4p")
    assert env.action_space.n == env.unwrapped.game.num_actions
    env = gymnasium.make("pingvinas/Marathon-v0", game=pv.Marathon(players=3, course="zigzag"))
    obs, _ = env.reset(seed=0)
    assert obs["observation"].shape == env.unwrapped.state.observation_tensor().shape


def test_gymnasium_sync_vector_env():
    """Gymnasium's own vector env over the adapter (Python envs in a loop, until
    ``pv.VectorEnv``): infos stack, games end and reset by themselves (next-step autoreset)."""
    vec = gymnasium.make_vec("pingvinas/Fish-v0", num_envs=3, vectorization_mode="sync")
    obs, info = vec.reset(seed=0)
    assert obs["observation"].shape == (3, *envs.observation_shape(pv.Fish()))
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(80):
        actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in obs["action_mask"]]
        obs, rewards, terminations, truncations, info = vec.step(np.array(actions))
        ended += int(terminations.sum())
        assert not truncations.any()
    assert ended >= 3
    vec.close()


def test_rgb_array_renders_the_picture():
    pytest.importorskip("cairosvg")
    for game in ("fish", "marathon"):
        env = envs.gym_env(game, render_mode="rgb_array")
        env.reset(seed=1)
        frame = env.render()
        assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
        assert frame.min() < 255  # something is drawn on the white background
