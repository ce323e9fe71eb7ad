"""The Ray backend (``pingvinas.cluster``): matches and self-play on a local Ray instance
(two CPUs), compared game for game with the local backend.

Small on purpose: a local instance takes a few seconds to start, and the machine has two cores.
"""

import functools
import os

import numpy as np
import pytest

import pingvinas as pv
from pingvinas import cluster as ray_backend
from pingvinas import evaluators
from pingvinas.agents import (
    AlphaBetaAgent,
    CallableAgent,
    GreedyAgent,
    MCTSAgent,
    RandomAgent,
    SearchAgent,
)
from pingvinas.learn import selfplay as selfplay_module
from pingvinas.playing.match import play_match
from pingvinas.playing.one_game import game_seed
from pingvinas.record import read_jsonl
from pingvinas.searching.searcher import ALGORITHMS

ray = pytest.importorskip("ray", reason='ray is not installed (pip install "pingvinas[ray]")')


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray instance for the module, shut down after it."""
    started = not ray.is_initialized()
    if started:
        # A small object store: the tests move little data, and CI machines have small /dev/shm.
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            object_store_memory=200 * 2**20,
        )
    yield ray
    if started:
        ray.shutdown()


def facts(result):
    """Everything a match's records say about each game (not the time it took)."""
    return [
        (r.index, r.seed, r.seats, r.ranking, r.returns, r.scores, r.moves) for r in result.records
    ]


MATCHES = [
    (pv.Fish(), [MCTSAgent(iterations=60), AlphaBetaAgent(depth=2)], 4),
    (pv.Fish(players=3), [RandomAgent(), GreedyAgent(), MCTSAgent(iterations=30)], 3),
    (pv.Marathon(players=2), [MCTSAgent(iterations=30, seed=4), "random"], 2),
]


@pytest.mark.parametrize("game, agents, games", MATCHES, ids=lambda x: repr(x)[:20])
def test_match_on_ray_is_the_local_match(local_ray, tmp_path, game, agents, games):
    local = play_match(game, agents, games=games, seed=5, progress=False, save=tmp_path / "a")
    remote = play_match(
        game, agents, games=games, seed=5, progress=False, save=tmp_path / "b", backend="ray"
    )
    assert facts(remote) == facts(local)
    assert str(remote) == str(local)  # the same table
    for a, b in zip(local.records, remote.records):
        assert a.game.actions == b.game.actions  # the same moves, one by one
        assert a.game.players == b.game.players


@pytest.mark.skipif("puct" not in ALGORITHMS, reason="the search has no 'puct' algorithm yet")
def test_puct_match_on_ray_is_the_local_match(local_ray):
    """PUCT agents with an evaluator: pickled with the agents, or one shared actor."""
    game = pv.Fish(players=3)
    uniform = evaluators.uniform(game)

    def agents(evaluator):
        puct = SearchAgent("puct", iterations=24, evaluator=evaluator, batch_size=4, name="puct")
        return [puct, MCTSAgent(iterations=24), GreedyAgent()]

    local = play_match(game, agents(uniform), games=3, seed=2, progress=False)
    remote = play_match(game, agents(uniform), games=3, seed=2, progress=False, backend="ray")
    assert facts(remote) == facts(local)
    shared = evaluators.shared(uniform)
    on_actor = play_match(game, agents(shared), games=3, seed=2, progress=False, backend="ray")
    assert facts(on_actor) == facts(local)


def test_match_on_ray_progress_and_workers(local_ray, capsys):
    agents = [RandomAgent(seed=1), GreedyAgent(seed=2)]
    result = play_match(pv.Fish(), agents, games=5, seed=2, backend="ray", workers=1)
    assert "5/5 games" in capsys.readouterr().err
    assert facts(result) == facts(play_match(pv.Fish(), agents, games=5, seed=2, progress=False))


def test_match_on_ray_raises_the_workers_error(local_ray):
    def broken(state):
        raise RuntimeError("this agent gives up")

    with pytest.raises(RuntimeError, match="this agent gives up"):
        play_match(pv.Fish(), [CallableAgent(broken), "random"], games=3, backend="ray")


def test_match_on_ray_retries_a_game_whose_worker_died(local_ray, tmp_path):
    """Regression: a worker killed mid-game (here: by the agent, once) loses that task
    only; Ray runs it again, and the match is the local one, game for game."""
    marker = str(tmp_path / "killed-once")

    def kills_its_worker_once(state):
        if not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(1)  # the worker process dies, as under the OOM killer
        return state.legal_actions()[0]

    def first_legal(state):  # (defined here: Ray pickles a test module's functions by name)
        return state.legal_actions()[0]

    game = pv.Fish(board=[[1, 2, 3, 1], [3, 2, 1, 2], [1, 1, 2, 3]], penguins=2)
    remote = play_match(
        game,
        [CallableAgent(kills_its_worker_once), "random"],
        games=4,
        seed=3,
        progress=False,
        backend="ray",
        save=tmp_path / "g.jsonl",
    )
    assert os.path.exists(marker)  # the worker did die
    local = play_match(
        game, [CallableAgent(first_legal), "random"], games=4, seed=3, progress=False
    )
    assert facts(remote) == facts(local)
    assert len(read_jsonl(tmp_path / "g.jsonl")) == 4


def test_match_on_ray_keeps_the_finished_games_when_an_agent_fails(local_ray, tmp_path):
    """Regression: an agent that fails in game 4 (of 8, one at a time): games 0 to 3
    reach the save file and the exception (before, all were lost)."""
    game = pv.Fish()

    # Rotation k (games 2k and 2k + 1, seed 0, two seats) is dealt game_seed(0, 2k, 0): fail on
    # the first deal whose first row differs from those of rotations 0 and 1 (placements, the
    # agent's first moves, remove no floe).
    def row(state):
        return tuple(int(x) for x in state.board[0])

    rows = [row(game.new_state(seed=game_seed(0, 2 * k, 0))) for k in range(8)]
    bad = next(r for r in rows[2:] if r not in rows[:2])
    first_bad = 2 * rows.index(bad)

    def fails_on_some_boards(state):
        if row(state) == bad:
            raise RuntimeError("this agent gives up")
        return state.legal_actions()[0]

    path = tmp_path / "g.jsonl"
    with pytest.raises(RuntimeError, match="this agent gives up") as info:
        play_match(
            game,
            [CallableAgent(fails_on_some_boards), "random"],
            games=16,
            progress=False,
            backend="ray",
            workers=1,
            save=path,
        )
    kept = info.value.match_result
    assert kept.games == first_bad >= 4
    assert [r.meta["game"] for r in read_jsonl(path)] == list(range(first_bad))


def test_cli_match_on_ray(local_ray, capsys):
    from pingvinas import cli

    argv = ["match", "--agents", "greedy", "random", "--games", "2", "--quiet", "--seed", "5"]
    cli.main(argv)
    local = capsys.readouterr().out
    cli.main(argv + ["--backend", "ray"])
    assert capsys.readouterr().out == local  # the same table


def test_match_backend_arguments():
    with pytest.raises(ValueError, match="backend"):
        play_match(pv.Fish(), ["random", "random"], games=1, backend="dask")
    with pytest.raises(ValueError, match="address"):
        play_match(pv.Fish(), ["random", "random"], games=1, address="auto")


def test_shared_evaluator(local_ray):
    """One actor answers the driver and the tasks alike, with the evaluator's own outputs."""
    game = pv.Fish(players=3)
    state = game.new_state(seed=2)
    obs = np.stack([state.observation_tensor()] * 3)
    mask = np.stack([state.legal_action_mask()] * 3)
    obs.flags.writeable = mask.flags.writeable = False

    def fn(o, m):  # values depend on the input, to see that they went through
        return np.where(m, 1.0, 0.0), np.full((len(o), 3), float(o.sum()) / 1e4)

    want = fn(obs, mask)
    for shared in (evaluators.shared(fn), evaluators.shared(lambda: fn)):
        got = shared(obs, mask)
        assert np.array_equal(got[0], want[0]) and np.allclose(got[1], want[1])

        @ray.remote
        def use(f, o, m):
            return f(o, m)

        remote = ray.get(use.remote(shared, obs, mask))
        assert np.array_equal(remote[0], want[0])
        assert "shared" in repr(shared)


def test_selfplay_ray_arguments(local_ray):
    game = pv.Fish()
    with pytest.raises(ValueError, match="not both"):
        selfplay_module.selfplay_ray(
            game, 2, evaluator=evaluators.uniform(game), evaluator_factory=lambda: None
        )
    with pytest.raises(ValueError, match="repeat"):
        selfplay_module.selfplay_ray(game, [1, 2, 1])
    with pytest.raises(ValueError, match="games"):
        selfplay_module.selfplay_ray(game, 0)
    with pytest.raises(ValueError, match="games_per_task"):
        selfplay_module.selfplay_ray(game, 2, games_per_task=0)


def same_data(a, b):
    """Two ``SelfPlayData`` hold the same samples, field by field."""
    assert len(a) == len(b) > 0
    for name in (
        "observations",
        "legal_masks",
        "policies",
        "to_move",
        "returns",
        "game_ids",
        "move_numbers",
    ):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name


def test_selfplay_on_ray_is_the_local_selfplay(local_ray):
    game = pv.Fish()
    settings = dict(simulations=16, seed=3, batch_size=4)
    uniform = evaluators.uniform(game)
    local = pv.selfplay(game, games=5, evaluator=uniform, **settings)
    assert list(np.unique(local.game_ids)) == [0, 1, 2, 3, 4]
    same_data(pv.selfplay(game, games=5, evaluator=uniform, backend="ray", **settings), local)
    # Split over tasks in other ways, the evaluator sent as an object or built per worker.
    one_each = selfplay_module.selfplay_ray(
        game, 5, evaluator=uniform, games_per_task=1, **settings
    )
    same_data(one_each, local)
    factory = selfplay_module.selfplay_ray(
        game,
        range(5),
        evaluator_factory=functools.partial(evaluators.uniform, game),
        games_per_task=2,
        **settings,
    )
    same_data(factory, local)
    per_worker = evaluators.per_worker(functools.partial(evaluators.uniform, game))
    same_data(pv.selfplay(game, games=5, evaluator=per_worker, backend="ray", **settings), local)
    # A subset of the indices, anywhere: the same games.
    part = selfplay_module.selfplay_ray(game, [4, 1], evaluator=uniform, **settings)
    keep = np.isin(local.game_ids, [1, 4])
    assert np.array_equal(part.game_ids, local.game_ids[keep])
    assert np.array_equal(part.policies, local.policies[keep])


def test_selfplay_on_ray_without_evaluator_and_with_a_shared_one(local_ray):
    game = pv.Fish(players=3)
    plain = dict(games=3, simulations=12, seed=1)
    same_data(pv.selfplay(game, backend="ray", **plain), pv.selfplay(game, **plain))
    uniform = evaluators.uniform(game)
    local = pv.selfplay(game, evaluator=uniform, **plain)
    shared = evaluators.shared(uniform)
    same_data(pv.selfplay(game, evaluator=shared, backend="ray", **plain), local)


def test_worker_objects_are_built_once_per_process(local_ray):
    """A worker unpickles a run's evaluator (and a per-worker one builds its model) once."""
    box = [ray.put(evaluators.per_worker(object))]  # a factory of distinct objects
    first = selfplay_module._worker_evaluator(box)
    assert selfplay_module._worker_evaluator(box) is first
    assert first._evaluator is None  # built at its first call only
    other = selfplay_module._worker_evaluator([ray.put(evaluators.per_worker(object))])
    assert other is not first  # a new run: a new object
    assert selfplay_module._worker_evaluator(None) is None
    agents = [ray.put([RandomAgent(seed=1)])]
    assert ray_backend._cached("agents", agents, None) is ray_backend._cached(
        "agents", agents, None
    )
