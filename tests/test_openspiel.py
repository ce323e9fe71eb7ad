"""The OpenSpiel adapter (``pingvinas[openspiel]``): OpenSpiel's random simulation test on every
bundled variant, its MCTSBot playing whole games, and the translation itself."""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import mcts  # noqa: E402

import pingvinas as pv  # noqa: E402
import pingvinas.envs.openspiel as po  # noqa: E402

po.register()


@pytest.mark.parametrize("variant", po.FISH_VARIANTS)
def test_random_sim_fish(variant):
    game = pyspiel.load_game("pingvinas_fish", {"variant": variant, "seed": 3})
    assert game.num_players() == pv.Fish.variant(variant).players
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


@pytest.mark.parametrize("variant", po.MARATHON_VARIANTS)
def test_random_sim_marathon(variant):
    game = pyspiel.load_game("pingvinas_marathon", {"variant": variant})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_random_sim_marathon_3_players():
    game = pyspiel.load_game("pingvinas_marathon", {"variant": "marathon", "players": 3})
    assert game.num_players() == 3
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize(
    "name, params, simulations, rollout_length",
    [
        ("pingvinas_fish", {}, 10, None),
        ("pingvinas_fish", {"variant": "fish-3p"}, 10, None),
        ("pingvinas_marathon", {}, 4, 30),
    ],
)
def test_mcts_bot_plays_a_whole_game(name, params, simulations, rollout_length):
    game = pyspiel.load_game(name, params)
    rng = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(
        n_rollouts=1, random_state=rng, max_length=rollout_length
    )
    bots = [
        mcts.MCTSBot(
            game, uct_c=2.0, max_simulations=simulations, evaluator=evaluator, random_state=rng
        )
        for _ in range(game.num_players())
    ]
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))
    assert state.returns() == state.pingvinas_state.returns()
    assert sum(state.returns()) == pytest.approx(0.0)


def test_translation():
    game = pyspiel.load_game("pingvinas_fish", {"seed": 7})
    state = game.new_initial_state()
    ours = pv.Fish().new_state(seed=7)
    assert state.pingvinas_state == ours
    assert game.num_distinct_actions() == pv.Fish().num_actions
    assert state.legal_actions() == ours.legal_actions()
    action = state.legal_actions()[0]
    assert state.action_to_string(state.current_player(), action) == str(ours.parse_move(action))
    np.testing.assert_array_equal(
        np.asarray(state.observation_tensor(1)).reshape(game.observation_tensor_shape()),
        ours.observation_tensor(player=1),
    )
    assert str(state) == str(ours)
    child = state.child(action)
    ours.apply_action(action)
    assert child.pingvinas_state == ours and state.pingvinas_state != ours  # clone is deep
    # Serialization round trip (OpenSpiel's own, through the state's JSON pickle).
    text = pyspiel.serialize_game_and_state(game, child)
    game2, child2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game) and child2.pingvinas_state == ours
    assert child2.history() == child.history()
    with pytest.raises(ValueError):
        pyspiel.load_game("pingvinas_fish", {"variant": "marathon"})


def test_other_seeds_deal_other_boards():
    a = pyspiel.load_game("pingvinas_fish", {"seed": 1}).new_initial_state()
    b = pyspiel.load_game("pingvinas_fish", {"seed": 2}).new_initial_state()
    assert a.pingvinas_state != b.pingvinas_state


def test_marathon_terminal_and_utilities():
    game = pyspiel.load_game("pingvinas_marathon", {"variant": "marathon-l", "players": 3})
    assert (game.min_utility(), game.max_utility()) == (-0.5, 1.0)
    assert game.max_game_length() == pv.Marathon(players=3, course="marathon-l").ply_limit
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert state.current_player() == pyspiel.PlayerId.TERMINAL
    assert state.returns() == state.pingvinas_state.returns()


def test_rl_environment():
    """OpenSpiel's RL environment (what its learning algorithms step) runs a whole game; the
    game loads from its string form too."""
    from open_spiel.python import rl_environment

    game = pyspiel.load_game("pingvinas_fish(variant=fish-3p,seed=4)")
    env = rl_environment.Environment(game)
    step = env.reset()
    rng = np.random.default_rng(0)
    while not step.last():
        player = step.observations["current_player"]
        step = env.step([int(rng.choice(step.observations["legal_actions"][player]))])
    assert len(step.observations["info_state"][0]) == int(
        np.prod(pv.Fish.variant("fish-3p").observation_shape)
    )
    assert sum(step.rewards) == pytest.approx(0.0) and any(step.rewards)
