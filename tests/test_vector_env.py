"""``pv.VectorEnv``: games stepped in Rust agree move for move with ``FishState`` /
``MarathonState`` objects stepped alone (same seeds, same actions, with autoreset), illegal
actions change nothing, seeds reproduce, threads do not matter, and the buffers alias as
documented."""

import multiprocessing
from typing import Any, Union

import numpy as np
import pytest

import pingvinas as pv

Game = Union[pv.Fish, pv.Marathon]

GAMES = {
    "fish-2": lambda: pv.Fish(players=2),
    "fish-3": lambda: pv.Fish(players=3),
    "fish-4": lambda: pv.Fish(players=4),
    "fish-fixed": lambda: pv.Fish(board=[[1, 2, 3, 1], [1, 1, 2, 3], [3, 1, 1, 2]], penguins=2),
    # Boards on the engine's 128-bit and 1024-bit bitboards.
    "fish-10x10": lambda: pv.Fish(board=[[1 + (r * c) % 3 for c in range(10)] for r in range(10)]),
    # 3 x 50 cut into islands by gap columns, so that games end within the test's steps.
    "fish-3x50": lambda: pv.Fish(
        board=[[0 if c % 5 == 4 else 1 + c % 3 for c in range(50)]] * 3, players=3
    ),
    # A short ply limit so that games end (in a draw) and autoreset is exercised.
    "marathon-2": lambda: pv.Marathon(players=2, ply_limit=60),
    "marathon-3": lambda: pv.Marathon(players=3, ply_limit=45),
}


def random_actions(info: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per env, from the compact legal actions."""
    count = info["legal_action_count"].astype(np.int64)
    pick = (rng.random(len(count)) * count).astype(np.int64)
    return info["legal_actions"][np.arange(len(count)), pick].astype(np.int64)


def check_row(env: pv.VectorEnv, obs: np.ndarray, info: dict[str, Any], i: int, state: Any) -> None:
    """Row ``i`` of the outputs shows ``state``, as the State API gives it."""
    assert env.state(i) == state
    np.testing.assert_array_equal(obs[i], state.observation_tensor())
    mask = state.legal_action_mask()
    np.testing.assert_array_equal(info["legal_action_mask"][i], mask)
    legal = state.legal_actions()
    count = int(info["legal_action_count"][i])
    assert count == len(legal)
    assert list(info["legal_actions"][i, :count]) == legal
    assert (info["legal_actions"][i, count:] == -1).all()
    assert info["to_move"][i] == state.to_move


@pytest.mark.parametrize("name", sorted(GAMES))
def test_envs_agree_with_states_stepped_alone(name: str) -> None:
    game = GAMES[name]()
    n, steps = 64, 100  # enough envs to use the pool
    env = pv.VectorEnv(game, n, seed=3, threads=2)
    obs, info = env.reset(seed=11)
    games = [0] * n
    mine = [game.new_state(seed=env.game_seed(i, 0)) for i in range(n)]
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(steps):
        for i in range(n):
            check_row(env, obs, info, i, mine[i])
        actions = random_actions(info, rng)
        obs, rewards, terminations, truncations, info = env.step(actions)
        assert rewards.shape == (n, game.players) and rewards.dtype == np.float32
        assert not truncations.any()
        for i in range(n):
            mine[i].apply_action(int(actions[i]))
            over = mine[i].is_over
            assert terminations[i] == over == info["final_mask"][i]
            returns = (
                np.array(mine[i].returns(), np.float32)
                if over
                else np.zeros(game.players, np.float32)
            )
            np.testing.assert_array_equal(rewards[i], returns)
            np.testing.assert_array_equal(info["final_returns"][i], returns)
            if over:
                ended += 1
                np.testing.assert_array_equal(
                    info["final_observation"][i], mine[i].observation_tensor()
                )
                games[i] += 1
                mine[i] = game.new_state(seed=env.game_seed(i, games[i]))
            else:
                assert not info["final_observation"][i].any()
    assert ended > 0
    assert list(env.game_index) == games


def trace(
    game: Game, threads: int, seed: int, steps: int = 60, **kw: Any
) -> list[tuple[np.ndarray, ...]]:
    # Enough envs that a step is shared out to the threads.
    env = pv.VectorEnv(game, 150, seed=seed, threads=threads, **kw)
    obs, info = env.reset()
    rng = np.random.default_rng(seed)
    out = []
    keys = ("legal_action_mask", "legal_actions", "to_move", "final_observation", "final_returns")
    for _ in range(steps):
        obs, rewards, terminations, _, info = env.step(random_actions(info, rng))
        out.append(
            (obs.copy(), rewards.copy(), terminations.copy(), *(info[k].copy() for k in keys))
        )
    return out


def same(a: list[tuple[np.ndarray, ...]], b: list[tuple[np.ndarray, ...]]) -> bool:
    return all(all(np.array_equal(x, y) for x, y in zip(s, t)) for s, t in zip(a, b))


@pytest.mark.parametrize("name", ["fish-3", "marathon-2"])
def test_threads_give_identical_results_and_seeds_reproduce(name: str) -> None:
    game = GAMES[name]()
    one = trace(game, 1, seed=5)
    assert same(one, trace(game, 2, seed=5))
    assert same(one, trace(game, 0, seed=5))
    assert not same(one, trace(game, 1, seed=6))


@pytest.mark.parametrize("name", ["fish-3", "marathon-2"])
@pytest.mark.parametrize("opponent", ["greedy", "mcts:4"])
def test_opponent_games_reproduce_whatever_the_threads(name: str, opponent: str) -> None:
    game = GAMES[name]()
    kw: dict[str, Any] = dict(opponent=opponent, learner="random", steps=15)
    one = trace(game, 1, seed=2, **kw)
    assert same(one, trace(game, 2, seed=2, **kw))
    assert same(one, trace(game, 0, seed=2, **kw))


def test_an_auto_opponent_plays_the_learned_net_on_standard_two_player_fish() -> None:
    def play(game: Game, opponent: str) -> list[np.ndarray]:
        env = pv.VectorEnv(game, 16, seed=3, opponent=opponent, learner=0)
        obs, info = env.reset()
        rng = np.random.default_rng(3)
        seen = []
        for _ in range(12):  # placement and the first slides (fixed depths are slow later)
            obs, *_, info = env.step(random_actions(info, rng))
            seen.append(obs.copy())
        return seen

    def same(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
        return all(np.array_equal(x, y) for x, y in zip(a, b))

    fish = pv.Fish()
    auto = play(fish, "auto")
    assert same(auto, play(fish, "learned:2"))  # auto's fixed depth is 2
    # The same net read from its file: an NNUE file is an estimate too, but not PUCT's net.
    assert same(auto, play(fish, f"alphabeta:2+net:{pv.evaluators.LEARNED}"))
    with pytest.raises(ValueError, match="PUCT needs a policy-and-value net"):
        pv.VectorEnv(fish, 2, opponent=f"net:{pv.evaluators.LEARNED}")
    assert not same(auto, play(fish, "alphabeta:2"))
    three = pv.Fish(players=3)
    # With 3 players auto is MCTS on the evaluation's values, not alpha-beta or playouts.
    auto3 = play(three, "auto")
    assert not same(auto3, play(three, "alphabeta:2"))
    assert not same(auto3, play(three, "mcts"))
    assert same(auto3, play(three, "auto"))
    with pytest.raises(ValueError, match='opponent "learned": the net was made for'):
        pv.VectorEnv(three, 2, opponent="learned")


def test_an_auto_opponent_is_the_auto_player_on_penguin_marathon() -> None:
    # The auto agent's MCTS selects children by PUCT at every player count; the vector env's
    # auto opponent too (both at the opponents' fixed iterations), so it is not plain MCTS.
    def play(game: Game, opponent: str) -> list[np.ndarray]:
        env = pv.VectorEnv(game, 8, seed=5, opponent=opponent, learner=0)
        obs, info = env.reset()
        rng = np.random.default_rng(5)
        seen = []
        for _ in range(6):
            obs, *_, info = env.step(random_actions(info, rng))
            seen.append(obs.copy())
        return seen

    for players in (2, 3):
        game = pv.Marathon(players=players)
        auto, plain = play(game, "auto"), play(game, "mcts")
        assert not all(np.array_equal(x, y) for x, y in zip(auto, plain)), players
        again = play(game, "auto")
        assert all(np.array_equal(x, y) for x, y in zip(auto, again)), players


def _steps(env: pv.VectorEnv, info: dict[str, Any], seed: int) -> list[float]:
    rng = np.random.default_rng(seed)
    sums = []
    for _ in range(20):
        obs, rewards, _, _, info = env.step(random_actions(info, rng))
        sums.append(float(obs.sum()) + float(rewards.sum()))
    return sums


def _steps_in_child(env: pv.VectorEnv, info: dict[str, Any], queue: Any) -> None:
    queue.put(_steps(env, info, 9))


def test_an_env_made_before_a_fork_steps_in_the_child() -> None:
    # The env's pool has its threads in the parent only: the forked child must start its own
    # instead of waiting on them forever, and step exactly as the parent does.
    env = pv.VectorEnv(pv.Fish(players=3), 150, seed=4, threads=2)  # enough envs for the pool
    _, info = env.reset()
    _, _, _, _, info = env.step(random_actions(info, np.random.default_rng(4)))
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_steps_in_child, args=(env, info, queue))
    child.start()
    child.join(60)
    if child.is_alive():
        child.kill()
        pytest.fail("a vector env made before a fork did not step in the child")
    assert child.exitcode == 0
    assert queue.get(timeout=5) == _steps(env, info, 9)


def test_reset_without_seed_starts_the_next_game_of_each_stream() -> None:
    env = pv.VectorEnv(pv.Fish(), 3, seed=7)
    first = env.states()
    assert first == [pv.Fish().new_state(seed=env.game_seed(i, 0)) for i in range(3)]
    env.reset()
    assert list(env.game_index) == [1, 1, 1]
    assert env.state(2) == pv.Fish().new_state(seed=env.game_seed(2, 1))
    env.reset(seed=7)
    assert env.states() == first
    assert env.seed == 7
    assert len({s.board.tobytes() for s in first}) == 3  # a board per env
    assert all(s.game == pv.Fish() for s in first)  # the variant that deals them


def test_an_illegal_action_leaves_every_env_unchanged() -> None:
    env = pv.VectorEnv(pv.Fish(), 20, seed=1)
    obs, info = env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(10):
        obs, _, _, _, info = env.step(random_actions(info, rng))
    states = env.states()
    snapshot = {k: v.copy() for k, v in info.items()}
    obs_before = obs.copy()
    actions = random_actions(info, rng)
    bad = actions.copy()
    bad[17] = int(np.flatnonzero(~info["legal_action_mask"][17])[0])
    with pytest.raises(pv.IllegalMoveError, match=rf"^env 17: action {bad[17]} is illegal"):
        env.step(bad)
    bad = actions.copy()
    bad[4] = env.num_actions
    with pytest.raises(
        pv.InvalidMoveError, match=r"^env 4: action 2752 is not in the action space"
    ):
        env.step(bad)
    bad[4] = -3
    with pytest.raises(pv.InvalidMoveError, match=r"^env 4: action -3"):
        env.step(bad)
    with pytest.raises(TypeError, match="bools"):
        env.step(np.ones(20, dtype=bool))
    with pytest.raises(TypeError, match="float64"):
        env.step(actions.astype(np.float64))
    with pytest.raises(ValueError, match=r"shape \(20,\)"):
        env.step(actions[:5])
    with pytest.raises(ValueError, match=r"shape \(20,\)"):
        env.step(actions.reshape(4, 5))
    with pytest.raises(TypeError):
        env.step("a1")
    assert env.states() == states
    np.testing.assert_array_equal(obs, obs_before)
    for k, v in info.items():
        np.testing.assert_array_equal(v, snapshot[k])
    # Any integer dtype and plain lists work.
    env.step(list(actions.astype(np.int16)))


def test_returned_arrays_are_the_envs_buffers_unless_copy() -> None:
    env = pv.VectorEnv(pv.Marathon(), 4, seed=0)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    obs2, rewards, terminations, truncations, info2 = env.step(random_actions(info, rng))
    assert obs2 is obs
    assert all(info2[k] is info[k] for k in info)
    kept = obs.copy()
    obs3, rewards3, *_ = env.step(random_actions(info2, rng))
    assert obs3 is obs and rewards3 is rewards
    assert not np.array_equal(obs, kept)  # overwritten in place
    fresh = pv.VectorEnv(pv.Marathon(), 4, seed=0, copy=True)
    a, info_a = fresh.reset(seed=0)
    b, *_, info_b = fresh.step(random_actions(info_a, rng))
    assert a is not b and not np.shares_memory(a, b)
    assert not np.shares_memory(info_a["legal_action_mask"], info_b["legal_action_mask"])


def test_single_agent_steps_are_the_learners_decisions() -> None:
    game = pv.Marathon(players=3, ply_limit=90)
    env = pv.VectorEnv(game, 8, seed=4, opponent="random", learner=1)
    obs, info = env.reset(seed=4)
    assert list(env.learners) == [1] * 8
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(100):
        before = [s.ply for s in env.states()]
        for i, s in enumerate(env.states()):
            assert s.to_move == 1
            np.testing.assert_array_equal(obs[i], s.observation_tensor(player=1))
        obs, rewards, terminations, _, info = env.step(random_actions(info, rng))
        assert rewards.shape == (8,)
        for i, s in enumerate(env.states()):
            if terminations[i]:
                ended += 1
                assert rewards[i] == info["final_returns"][i][1]
                assert s.ply == 1  # the new game: player 0 has moved
            else:
                assert rewards[i] == 0
                # the learner and both opponents moved (nobody is skipped on this course)
                assert s.ply == before[i] + 3
    assert ended > 0


def test_score_rewards_sum_to_the_final_fish_lead() -> None:
    env = pv.VectorEnv(pv.Fish(players=3), 6, seed=0, reward="score")
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(3)
    totals = np.zeros((6, 3))
    checked = 0
    while checked < 6:
        states = env.states()
        actions = random_actions(info, rng)
        obs, rewards, terminations, _, info = env.step(actions)
        np.testing.assert_allclose(rewards.sum(axis=1), 0, atol=1e-4)
        totals += rewards
        for i in np.flatnonzero(terminations):
            end = states[i].after(int(actions[i]))
            fish = np.array([f for f, _ in end.scores], float)
            lead = fish - (fish.sum() - fish) / 2
            np.testing.assert_allclose(totals[i], lead, atol=1e-3)
            np.testing.assert_array_equal(info["final_returns"][i], np.float32(end.returns()))
            totals[i] = 0
            checked += 1
    with pytest.raises(ValueError, match="score"):
        pv.VectorEnv(pv.Marathon(), 2, reward="score")


def test_set_state_and_states() -> None:
    game = pv.Fish()
    env = pv.VectorEnv(game, 3, seed=0)
    obs, info = env.reset(seed=0)
    s = game.new_state(seed=99)
    s.play(s.legal_actions()[0])
    env.set_state(1, s)
    assert env.state(1) == s and env.state(-2) == s
    np.testing.assert_array_equal(obs[1], s.observation_tensor())
    assert info["to_move"][1] == 1
    states = env.states()
    assert isinstance(states[0], pv.FishState)
    states[1].play(states[1].legal_actions()[0])  # a copy
    assert env.state(1) == s
    with pytest.raises(ValueError, match="another game"):
        env.set_state(0, pv.Fish(players=3).new_state(seed=1))
    with pytest.raises(TypeError, match="FishState"):
        env.set_state(0, pv.Marathon().new_state())
    with pytest.raises(IndexError):
        env.state(3)
    over = game.position(board=[[1, 1]], penguins=[[(0, 0)], [(0, 1)]])
    with pytest.raises(ValueError):
        env.set_state(0, over)


def test_constructor_checks_its_arguments() -> None:
    game = pv.Fish()
    with pytest.raises(ValueError):
        pv.VectorEnv(game, 0)
    with pytest.raises(TypeError):
        pv.VectorEnv(game, True)
    with pytest.raises(TypeError):
        pv.VectorEnv("fish", 2)
    with pytest.raises(ValueError, match="threads"):
        pv.VectorEnv(game, 2, threads=257)
    with pytest.raises(ValueError, match="opponent"):
        pv.VectorEnv(game, 2, opponent="alphazero")
    with pytest.raises(ValueError, match="opponent"):
        pv.VectorEnv(game, 2, opponent="mcts:0")
    with pytest.raises(ValueError, match="learner"):
        pv.VectorEnv(game, 2, opponent="random", learner=2)
    with pytest.raises(ValueError, match="learner"):
        pv.VectorEnv(game, 2, learner=1)
    with pytest.raises(ValueError, match="reward"):
        pv.VectorEnv(game, 2, reward="fish")
    env = pv.VectorEnv(game, 2, opponent="mcts:20", learner=1)
    assert env.num_envs == len(env) == 2
    assert env.observation_shape == game.observation_shape
    assert env.num_actions == game.num_actions and env.players == 2
    assert env.game is game and env.opponent == "mcts:20" and env.reward == "returns"
    assert repr(env) == 'VectorEnv(Fish(players=2, penguins=4), 2, opponent="mcts:20", learner=1)'
    obs, info = env.reset(seed=0)
    obs, rewards, *_ = env.step(random_actions(info, np.random.default_rng(0)))
    assert env.states()[0].to_move == 1
    import pickle

    with pytest.raises(TypeError, match="pickle"):
        pickle.dumps(env)


# --- Gymnasium ---------------------------------------------------------------------------------


def test_gymnasium_vector_env() -> None:
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.vector import AutoresetMode

    from pingvinas.envs.vector import PingvinasVectorEnv, gym_vector_env

    env = gym_vector_env("fish-3p", num_envs=5, opponent="greedy", threads=2)
    assert isinstance(env, gymnasium.vector.VectorEnv)
    assert isinstance(env, PingvinasVectorEnv)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, info = env.reset(seed=3)
    assert obs in env.observation_space
    obs2, _ = env.reset(seed=3)
    assert all(np.array_equal(obs[k], obs2[k]) for k in obs)
    ended = 0
    for _ in range(60):
        mask = obs["action_mask"]
        actions = np.array([np.flatnonzero(m)[0] for m in mask])
        assert actions in env.action_space
        kept = {k: v.copy() for k, v in obs.items()}
        obs, rewards, terminations, truncations, info = env.step(actions)
        # Gymnasium's rule: returned data is not reused.
        assert all(np.array_equal(kept[k], v) for k, v in kept.items())
        assert obs in env.observation_space
        assert rewards.shape == terminations.shape == truncations.shape == (5,)
        if terminations.any():
            ended += int(terminations.sum())
            assert list(info["_final_obs"]) == list(terminations)
            i = int(np.flatnonzero(terminations)[0])
            assert info["final_obs"][i] in env.single_observation_space
            assert info["final_info"]["returns"][i][env.learners[i]] == rewards[i]
    assert ended > 0
    env.close()


def test_gymnasium_make_vec() -> None:
    gymnasium = pytest.importorskip("gymnasium")
    import pingvinas.envs.vector  # noqa: F401  (registers the vector entry points)

    env = gymnasium.make_vec("pingvinas/Marathon-v0", num_envs=3, opponent="random")
    assert env.num_envs == 3
    obs, info = env.reset(seed=0)
    assert obs["observation"].shape == (3, *pv.Marathon().observation_shape)
    assert obs["action_mask"].dtype == np.int8
    env.close()
    fish = gymnasium.make_vec(
        "pingvinas/Fish-v0", num_envs=2, vectorization_mode="vector_entry_point"
    )
    assert fish.unwrapped.game.players == 2
