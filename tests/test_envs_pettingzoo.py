"""The PettingZoo adapter (``pingvinas[pettingzoo]``): PettingZoo's own api_test, seed_test and
render_test on both games at every tested player count, and what the env promises.

``max_cycles_test`` does not apply: it needs a ``parallel_env(max_cycles=...)`` of
simultaneous moves and steps with unmasked random actions; PettingZoo's own test runner skips it
(and the parallel API test) for its turn-based "classic" games as well.
"""

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

import pingvinas as pv  # noqa: E402
from pingvinas import envs  # noqa: E402

GAMES = {
    "fish-2": pv.Fish(players=2),
    "fish-3": pv.Fish.variant("fish-3p"),
    "fish-4": pv.Fish.variant("fish-4p"),
    "fish-snake-any": pv.Fish.variant("fish-snake-any"),
    "marathon-2": pv.Marathon(players=2),
    "marathon-3": pv.Marathon(players=3),
}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", list(GAMES))
def test_pettingzoo_checkers(name):
    game = GAMES[name]
    api_test(envs.pettingzoo_env(game), num_cycles=1000)
    seed_test(lambda: envs.pettingzoo_env(game), num_cycles=500)
    render_test(lambda render_mode=None: envs.pettingzoo_env(game, render_mode=render_mode))


def play(env, seed, action_seed=0):
    """One game of random legal actions through the AEC loop; the data seen, and the final
    rewards."""
    rng = np.random.default_rng(action_seed)
    env.reset(seed=seed)
    seen, final = [], {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        assert truncated is False
        if terminated:
            final[agent] = reward
            env.step(None)
            continue
        player = int(agent.split("_")[1])
        assert player == env.state.to_move
        np.testing.assert_array_equal(
            obs["observation"], env.state.observation_tensor(player=player)
        )
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        assert legal == env.state.legal_actions()
        action = int(rng.choice(legal))
        seen.append((agent, action))
        env.step(action)
    return seen, final


@pytest.mark.parametrize("name", ["fish-3", "marathon-3"])
def test_rewards_are_the_returns(name):
    env = envs.pettingzoo_env(GAMES[name])
    seen, final = play(env, seed=4)
    returns = env.state.returns()
    assert final == {f"player_{i}": returns[i] for i in range(len(returns))}
    assert env.agents == []
    assert play(envs.pettingzoo_env(GAMES[name]), seed=4) == (seen, final)


def test_other_views_and_masks():
    env = envs.pettingzoo_env("fish-3p")
    env.reset(seed=0)
    assert env.agent_selection == "player_0"
    other = env.observe("player_2")
    np.testing.assert_array_equal(other["observation"], env.state.observation_tensor(player=2))
    assert other["action_mask"].dtype == np.int8 and not other["action_mask"].any()


def test_illegal_action_raises():
    env = envs.pettingzoo_env("fish")
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    before = env.state.copy()
    with pytest.raises(pv.IllegalMoveError):
        env.step(int(np.flatnonzero(mask == 0)[0]))
    assert env.state == before


def test_marathon_ply_limit_is_a_termination():
    env = envs.pettingzoo_env(pv.Marathon(players=2, ply_limit=10))
    seen, final = play(env, seed=0)
    assert len(seen) == 10 and env.state.is_over and env.state.winner is None
    assert final == {"player_0": 0.0, "player_1": 0.0}


def test_seeds_deal_fish_boards():
    a, b = envs.pettingzoo_env("fish"), envs.pettingzoo_env("fish")
    a.reset(seed=1)
    b.reset(seed=2)
    assert a.state != b.state
    b.reset(seed=1)
    assert a.state == b.state


def test_render():
    env = envs.pettingzoo_env("marathon", render_mode="ansi")
    env.reset()
    assert env.render() == str(env.state)
    assert str(env) == "pingvinas_marathon_v0"


def test_rgb_array_renders_the_picture():
    pytest.importorskip("cairosvg")
    env = envs.pettingzoo_env("fish", render_mode="rgb_array")
    env.reset(seed=2)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.shape[2] == 3
