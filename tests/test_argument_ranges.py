"""Arguments out of range get a short ValueError that names the argument and its range (never an
``OverflowError ... C long`` that names neither), and arguments that contradict each other are
refused rather than one of them silently ignored."""

from __future__ import annotations

import re

import numpy as np
import pytest

import pingvinas as pv
from pingvinas import _core

Net, NnueNet = pv.evaluators.Net, pv.evaluators.NnueNet

HUGE = [2**64, 10**30, -(2**64)]


def expect(call, name: str, range_: str) -> None:
    """``call()`` raises a ValueError that names ``name`` and the range ``range_``, briefly."""
    with pytest.raises(ValueError) as e:
        call()
    text = str(e.value)
    assert re.search(rf"\b{re.escape(name)}\b", text), text
    assert range_ in text, text
    assert len(text) < 200, text


@pytest.fixture(scope="module")
def state() -> pv.FishState:
    return pv.Fish().new_state(seed=1)


@pytest.mark.parametrize("value", HUGE)
@pytest.mark.parametrize(
    "name, range_",
    [("iterations", "1 to 1099511627776"), ("nodes", "1 to 1099511627776"), ("depth", "1 to 1000")],
)
def test_search_budgets_name_themselves_and_their_range(state, name, range_, value):
    algorithm = "alphabeta" if name == "depth" else "mcts"
    expect(lambda: pv.search(state, algorithm, **{name: value}), name, range_)
    expect(lambda: pv.Searcher(algorithm).search(state, **{name: value}), name, range_)


def test_zero_and_absurd_times_are_short_and_say_the_range(state):
    for value in (1e308, 0, -1.0, float("nan"), float("inf"), 10**400):
        expect(lambda v=value: pv.search(state, "mcts", time=v), "time", "at most 604800")
    expect(lambda: pv.search(state, "mcts", iterations=0), "iterations", "1 to")


def test_every_time_budget_has_the_one_bound(state):
    """A search's ``time``, a vector env's ``opponent_time``, an engine's ``time``, the web
    board's ``time`` and every command's ``--time`` take up to ``MAX_TIME`` (a week), and refuse
    the next float above it."""
    from pingvinas.cli import main
    from pingvinas.playing.protocol.driver import EngineAgent
    from pingvinas.playing.protocol.grammar import MAX_MS
    from pingvinas.searching import searcher
    from pingvinas.web import App

    most = searcher.MAX_TIME
    over = float(np.nextafter(most, np.inf))
    assert most == 7 * 24 * 3600 and MAX_MS == most * 1000
    assert pv.Searcher("mcts", time=most).budget["time"] == most
    expect(lambda: pv.search(state, "mcts", time=over), "time", "at most 604800")
    assert pv.VectorEnv(pv.Fish(), 1, opponent="random", opponent_time=most).opponent_time == most
    expect(
        lambda: pv.VectorEnv(pv.Fish(), 1, opponent="random", opponent_time=over),
        "opponent_time",
        "at most 604800",
    )
    assert App("fish", time=most).time == most
    expect(lambda: App("fish", time=over), "time", "at most 604,800")
    import sys

    assert EngineAgent([sys.executable, "-c", "pass"], time=most).time == most
    expect(lambda: EngineAgent([sys.executable, "-c", "pass"], time=over), "time", "604800")
    for command in (["match"], ["solve", "fish"], ["ladder", "random", "greedy"], ["serve"]):
        with pytest.raises(SystemExit) as e:
            main([*command, "--time", repr(over)])
        assert e.value.code == 2


@pytest.mark.parametrize("value", HUGE + [0])
def test_the_solver_names_its_node_limit_and_table_size(state, value):
    expect(lambda: pv.fish.solve(state, max_nodes=value), "max_nodes", "1 to 1099511627776")
    expect(lambda: pv.fish.solve(state, tt_mb=value), "tt_mb", "1 to 65536")


def test_native_calls_name_their_integer_arguments(state):
    expect(lambda: _core.fish_solve(state, max_nodes=2**64), "max_nodes", "1 to")
    net = Net.random(state.game, [1])
    expect(
        lambda: _core.search_many([state], evaluator=net, iterations=2**64), "iterations", "1 to"
    )
    expect(
        lambda: _core.search_many([state], evaluator=net, iterations=4, batch_size=2**64),
        "batch_size",
        "1 to 65536",
    )
    fish = pv.Fish()
    expect(lambda: NnueNet.random(fish, width=2**64), "width", "1 to 4096")
    expect(lambda: NnueNet.random(fish, hidden=[32, 2**64]), "hidden", "each 1 to 4096")
    expect(lambda: NnueNet.random(fish, hidden=[]), "hidden", "1 to 16 layer widths")
    expect(lambda: Net.random(fish, [10**9]), "hidden", "each 1 to 4096")
    expect(lambda: pv.FishMove(None, (0, 2**64), 1), "dst", "0 to 65535")
    expect(lambda: pv.FishMove((-1, 0), (0, 1), 1), "src", "0 to 65535")
    expect(lambda: pv.FishMove(None, (0, 1), 2**64), "action", "0 to 4294967295")
    expect(
        lambda: pv.MarathonMove(1, 2**64, "runner", None, None, None, None, None),
        "player",
        "0 to",
    )
    expect(
        lambda: pv.selfplay(fish, games=1, simulations=8, playout_cap=(0.5, 2**64)),
        "playout_cap's fast simulations",
        "1 to",
    )
    # In range they still work.
    assert pv.FishMove(None, (0, 1), 1).dst == (0, 1)
    assert NnueNet.random(fish, width=8, hidden=[4]).width == 8


def test_an_agent_spec_without_its_algorithm_says_so():
    with pytest.raises(ValueError) as e:
        _core.AgentSpec("+net:x")
    assert "the algorithm's name is missing" in str(e.value)
    assert '""' not in str(e.value)


def test_a_gumbel_root_needs_puct():
    for algorithm in ("mcts", "alphabeta", "auto", "greedy"):
        with pytest.raises(ValueError, match='root = "gumbel" is a root rule of PUCT'):
            pv.Searcher(algorithm, root="gumbel")
    pv.Searcher("mcts", root="puct")  # the default, whatever the algorithm


def test_playouts_refuse_a_state_of_another_game():
    two = pv.Fish().new_state(seed=1)
    with pytest.raises(ValueError, match="2-player state, a 3-player game"):
        pv.fish.random_playouts(4, game=pv.Fish(players=3), state=two)
    board = [[1, 2, 3, 1]] * 3
    fixed = pv.Fish(board=board)
    with pytest.raises(ValueError, match="not a position of game"):
        pv.fish.random_playouts(4, game=fixed, state=two)
    # The state's own game, or a dealing variant of its rules, is fine.
    fish, _ = pv.fish.random_playouts(4, game=pv.Fish(), state=two)
    assert fish.shape == (4, 2)
    own = fixed.new_state()
    assert pv.fish.random_playouts(4, game=fixed, state=own)[0].shape == (4, 2)
    marathon = pv.Marathon().new_state()
    with pytest.raises(ValueError, match="2-player state, a 3-player game"):
        pv.marathon.random_playouts(4, game=pv.Marathon(players=3), state=marathon)
    winners, _ = pv.marathon.random_playouts(4, game=pv.Marathon(), state=marathon)
    assert winners.shape == (4,) and winners.dtype == np.int8


def test_an_engine_agent_says_the_range_it_takes_and_refuses_bytes():
    import sys

    from pingvinas.playing.protocol.driver import EngineAgent

    command = [sys.executable, "-c", "pass"]
    assert EngineAgent(command, grace=0).grace == 0.0
    expect(lambda: EngineAgent(command, grace=-1), "grace", "seconds, 0 or more")
    expect(lambda: EngineAgent(command, time=0), "time", "seconds, above 0")
    with pytest.raises(TypeError, match="b'ls'.*not bytes"):
        EngineAgent(b"ls")
