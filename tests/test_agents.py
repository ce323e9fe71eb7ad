"""Agents and the match runner."""

import math
import pickle
import random

import pytest

import pingvinas as pv
from pingvinas.agents import (
    AlphaBetaAgent,
    CallableAgent,
    GreedyAgent,
    MCTSAgent,
    RandomAgent,
    SearchAgent,
    as_agent,
)
from pingvinas.playing.match import play_match


def some_states(n=6, seed=1):
    rng = random.Random(seed)
    s = pv.Fish().new_state(seed=seed)
    out = []
    while not s.is_over and len(out) < n:
        out.append(s.copy())
        for _ in range(5):
            if s.is_over:
                break
            s.play(rng.choice(s.legal_moves()))
    return out


@pytest.mark.parametrize(
    "agent",
    [
        RandomAgent(seed=1),
        GreedyAgent(seed=1),
        MCTSAgent(iterations=200, seed=1),
        MCTSAgent(iterations=200, knowledge=False),
        AlphaBetaAgent(depth=2),
        SearchAgent("auto", time=0.02),
        CallableAgent(lambda s: s.legal_actions()[0]),
    ],
    ids=lambda a: repr(a),
)
def test_agents_choose_legal_moves(agent):
    for s in some_states():
        mv = agent.choose(s)
        assert mv in s.legal_moves()


def test_spawn_copies_settings_not_state():
    a = MCTSAgent(iterations=300, seed=5, exploration=0.7)
    b = a.spawn()
    assert b is not a and b.budget == a.budget and b.options == a.options
    assert b.searcher is not a.searcher
    s = some_states(1)[0]
    # Same settings and seed: the same move.
    assert a.spawn().choose(s) == b.choose(s)
    c = a.spawn(seed=99)
    assert c.options["seed"] == 99


@pytest.mark.parametrize(
    "agent",
    [
        RandomAgent(seed=3),
        GreedyAgent(seed=3),
        MCTSAgent(iterations=200, seed=3, exploration=0.7),
        AlphaBetaAgent(depth=2, tt_mb=8),
        SearchAgent("auto", depth=2, name="custom"),
    ],
    ids=repr,
)
def test_agents_pickle_as_their_settings(agent):
    """A pickled agent (as ``play_match(..., backend="ray")`` ships them) is a fresh agent with
    the same settings: it plays what a spawned copy plays."""
    s = some_states(3)[2]
    agent.choose(s)  # a search agent now holds trees and a last result
    copy = pickle.loads(pickle.dumps(agent))
    assert type(copy) is type(agent) and repr(copy) == repr(agent) and copy.name == agent.name
    if isinstance(agent, SearchAgent):
        assert copy.searcher is not agent.searcher and copy.last is None
        assert copy.options == agent.options and copy.budget == agent.budget
    assert copy.spawn(seed=11).choose(s) == agent.spawn(seed=11).choose(s)


def test_search_agent_keeps_its_last_result():
    a = AlphaBetaAgent(depth=2)
    s = some_states(1)[0]
    a.choose(s)
    assert a.last is not None and a.last.depth == 2


def test_as_agent():
    assert isinstance(as_agent("random"), RandomAgent)
    assert isinstance(as_agent("greedy"), GreedyAgent)
    assert as_agent("mcts").algorithm == "mcts"
    f = lambda s: s.legal_moves()[0]  # noqa: E731
    assert isinstance(as_agent(f), CallableAgent)
    a = RandomAgent()
    assert as_agent(a) is a
    with pytest.raises(ValueError):
        as_agent("minimax")
    with pytest.raises(TypeError):
        as_agent(42)


def test_match_table_and_seat_rotation():
    result = play_match(pv.Fish(), [GreedyAgent(), RandomAgent()], games=6, seed=3, progress=False)
    assert result.games == 6 and result.players == 2
    for a in result.agents:
        assert a.games == 6
        assert a.wins + a.draws + a.losses == 6
        assert 0.0 <= a.ci95[0] <= a.score_rate <= a.ci95[1] <= 1.0
        # Three games in each seat.
        assert len(a.seat_scores[0]) == 3 and len(a.seat_scores[1]) == 3
    g, r = result.agents
    assert g.wins == r.losses and g.draws == r.draws
    assert g.score_rate + r.score_rate == pytest.approx(1.0)
    # Games of one rotation share a deal, seats swapped.
    assert result.records[0].seed == result.records[1].seed
    assert result.records[0].seats == [0, 1] and result.records[1].seats == [1, 0]
    text = str(result)
    assert "greedy" in text and "95% CI" in text
    assert result.rows()[0]["agent"] == "greedy"


def test_match_without_swapping_and_with_workers():
    result = play_match(
        pv.Fish(),
        [RandomAgent(), RandomAgent()],
        games=4,
        seed=1,
        swap_seats=False,
        workers=2,
        progress=False,
    )
    assert all(rec.seats == [0, 1] for rec in result.records)
    assert [a.name for a in result.agents] == ["random#0", "random#1"]
    # Same seed, same match, whatever the number of workers.
    again = play_match(
        pv.Fish(),
        [RandomAgent(), RandomAgent()],
        games=4,
        seed=1,
        swap_seats=False,
        workers=1,
        progress=False,
    )
    assert [r.scores for r in result.records] == [r.scores for r in again.records]


def test_mcts_beats_random():
    result = play_match(
        pv.Fish(),
        [MCTSAgent(iterations=300), RandomAgent()],
        games=4,
        seed=2,
        workers=2,
        progress=False,
    )
    assert result.agents[0].wins == 4


def test_three_player_match():
    result = play_match(
        pv.Fish(players=3),
        ["greedy", "random", RandomAgent(seed=2)],
        games=3,
        seed=1,
        progress=False,
    )
    assert result.players == 3
    for a in result.agents:
        assert a.games == 3 and set(a.seat_scores) == {0, 1, 2}


def test_a_five_player_table_has_no_nan_for_seats_never_played():
    # Two games of five players: seats rotate, so each agent sits in two seats of five.
    agents = ["greedy"] + ["random"] * 4
    result = play_match(pv.Marathon(players=5), agents, games=2, seed=1, progress=False)
    text = str(result)
    assert "nan" not in text
    greedy = text.splitlines()[1].split()
    assert greedy[0] == "greedy" and greedy[-5:] == ["1.00", "1.00", "-", "-", "-"]
    # The rows keep nan, as data for code.
    averages = [row[f"seat{s}_avg"] for row in result.rows() for s in range(5)]
    assert any(math.isnan(x) for x in averages)


def test_match_errors():
    with pytest.raises(ValueError):
        play_match(pv.Fish(), ["random"], games=2, progress=False)
    with pytest.raises(ValueError):
        play_match(pv.Fish(), ["random", "random"], games=0, progress=False)
    with pytest.raises(ValueError):
        play_match(pv.Fish(), ["random", "random"], games=2, workers=0, progress=False)


def test_agent_spec_budget_is_the_engines_fixed_budget():
    from pingvinas import _core
    from pingvinas.envs._common import OPPONENT_BUDGETS, Opponent

    budget = {t: _core.AgentSpec(t).budget for t in ["random", "mcts:7", "alphabeta:3", "auto"]}
    assert budget["random"] == {}
    assert budget["mcts:7"] == {"iterations": 7}
    assert budget["alphabeta:3"] == {"depth": 3, "tt_mb": 1}
    assert budget["auto"] == {"iterations": 200, "depth": 2, "tt_mb": 1}
    assert OPPONENT_BUDGETS["mcts"] == {"iterations": 200}
    assert OPPONENT_BUDGETS["alphabeta"] == {"depth": 2, "tt_mb": 1}
    # An env opponent plays the spec's budget, the caller's settings over it.
    assert Opponent("mcts:9").budget == {"iterations": 9}
    assert Opponent("alphabeta", {"depth": 4}).budget == {"depth": 4, "tt_mb": 1}
