"""A net file as a player wherever an agent is named: the agent spec (``net:PATH``,
``SPEC+net:PATH``), the vector env's opponents, ``play_match`` and ``as_agent``, the CLI and
``pingvinas serve``."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import numpy as np
import pytest

import pingvinas as pv
from pingvinas import cli
from pingvinas._core import AgentSpec, Net
from pingvinas.agents import SearchAgent, as_agent


@pytest.fixture(scope="module")
def nets(tmp_path_factory):
    """A Fish net and a Marathon net saved to files: (fish path, marathon path)."""
    root = tmp_path_factory.mktemp("nets")
    paths = []
    for game, name in ((pv.Fish(), "fish"), (pv.Marathon(), "marathon")):
        path = root / f"{name}.safetensors"
        Net.random(game, [16], seed=1).save(path)
        paths.append(str(path))
    return tuple(paths)


def test_the_spec_names_a_net_by_a_path_that_may_hold_colons():
    spec = AgentSpec(r"net:C:\nets\a+b.safetensors")
    assert (spec.algorithm, spec.net, spec.iterations) == ("puct", r"C:\nets\a+b.safetensors", None)
    assert str(spec) == r"net:C:\nets\a+b.safetensors"
    spec = AgentSpec("puct:24+net:n.st")
    assert (spec.algorithm, spec.iterations, spec.depth, spec.net) == ("puct", 24, None, "n.st")
    spec = AgentSpec("alphabeta:2+net:D:/x")
    assert (spec.algorithm, spec.depth, spec.net) == ("alphabeta", 2, "D:/x")
    # Specs without a net read as they always did.
    assert AgentSpec("mcts:7").net is None and str(AgentSpec("ab:3")) == "alphabeta:3"
    for bad in ("net:", "greedy+net:x", "puct:0+net:x", "puct"):
        with pytest.raises(ValueError):
            AgentSpec(bad)


def test_as_agent_reads_the_net_once_and_plays_it(nets, tmp_path):
    fish, marathon = nets
    state = pv.Fish().new_state(seed=3)
    for text in (f"puct:16+net:{fish}", f"alphabeta:1+net:{fish}", f"mcts:30+net:{fish}"):
        agent = as_agent(text)
        assert isinstance(agent, SearchAgent) and agent.name == text
        assert agent.choose(state) in state.legal_moves()
        # Its copies share the net read once.
        assert agent.spawn(seed=2).options["evaluator"] is agent.options["evaluator"]
    assert as_agent(f"net:{fish}").budget["time"] == 1.0
    assert as_agent(f"puct:8+net:{fish}").options["root"] == "gumbel"
    with pytest.raises(ValueError, match="cannot read"):
        as_agent(f"net:{tmp_path / 'missing.safetensors'}")
    # A Marathon net does not fit a Fish board.
    with pytest.raises(ValueError, match="made for a marathon"):
        as_agent(f"puct:8+net:{marathon}").choose(state)


def test_play_match_seats_a_net(tmp_path):
    tiny = pv.Fish.from_config(
        {
            "game": "fish",
            "name": "tiny",
            "players": 2,
            "penguins": 1,
            "board": [[1, 1, 2], [3, 1, 2], [1, 2, 1]],
        }
    )
    path = tmp_path / "tiny.safetensors"
    Net.random(tiny, [8], seed=2).save(path)
    result = pv.play_match(tiny, [f"puct:8+net:{path}", "greedy"], games=2, seed=1)
    assert result.games == 2 and len(result.records) == 2
    assert f"puct:8+net:{path}" in str(result)


def test_the_vector_env_plays_a_net_opponent(nets, tmp_path):
    fish, marathon = nets
    game = pv.Fish()
    for opponent in (f"net:{fish}", f"puct:8+net:{fish}", f"alphabeta:1+net:{fish}"):
        runs = []
        for _ in range(2):
            env = pv.VectorEnv(game, 2, seed=5, opponent=opponent)
            obs, info = env.reset(seed=5)
            steps = []
            for _ in range(3):
                actions = np.array([np.flatnonzero(m)[0] for m in info["legal_action_mask"]])
                obs, rewards, terms, truncs, info = env.step(actions)
                steps.append(obs.copy())
            runs.append(np.stack(steps))
        # Fixed simulations, seeded by the position: the same games every time.
        assert np.array_equal(runs[0], runs[1]), opponent
        assert env.opponent == opponent
    with pytest.raises(ValueError, match="cannot read"):
        pv.VectorEnv(game, 2, opponent=f"net:{tmp_path / 'none.safetensors'}")
    with pytest.raises(ValueError, match="made for a marathon"):
        pv.VectorEnv(game, 2, opponent=f"net:{marathon}")


def test_the_cli_plays_a_net(nets, capsys, tmp_path):
    fish, _ = nets
    cli.main(["match", "--agents", f"puct:8+net:{fish}", "greedy", "--games", "1"])
    out, _ = capsys.readouterr()
    assert f"puct:8+net:{fish}" in out
    with pytest.raises(SystemExit) as e:
        cli.main(["match", "--agents", f"net:{tmp_path / 'none.st'}", "greedy"])
    assert e.value.code == 2
    assert "no net file" in capsys.readouterr().err


def test_serve_plays_a_net(nets, tmp_path):
    pytest.importorskip("uvicorn")
    import threading

    from pingvinas.web import App, make_server

    fish, _ = nets
    app = App(pv.Fish(), engine=f"puct:8+net:{fish}", time=0.05)
    assert app.engine_options["root"] == "gumbel"
    httpd = make_server(app, "127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/api/games"
        req = urllib.request.Request(
            url, json.dumps({"human": 1}).encode(), {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=60) as resp:
            state = json.loads(resp.read())
        # The engine (seat 0) has moved with the net.
        assert state["moves"], state
    finally:
        httpd.shutdown()
        httpd.server_close()
    with pytest.raises(ValueError, match="cannot read"):
        App(pv.Fish(), engine=f"net:{tmp_path / 'none.st'}")
    # A net of another game: the new game is refused with the reason, not a server error.
    app = App(pv.Marathon(), engine=f"puct:8+net:{fish}", time=0.05)
    httpd = make_server(app, "127.0.0.1", 0, quiet=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/api/games"
        req = urllib.request.Request(
            url, json.dumps({"human": 1}).encode(), {"Content-Type": "application/json"}
        )
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req, timeout=60)
        assert e.value.code == 400
        assert "made for a fish" in json.loads(e.value.read())["error"]
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_net_agent_pickles_with_its_net(nets):
    import pickle

    fish, _ = nets
    agent = as_agent(f"puct:8+net:{fish}")
    again = pickle.loads(pickle.dumps(agent))
    assert again.options["evaluator"].to_bytes() == agent.options["evaluator"].to_bytes()
    state = pv.Fish().new_state(seed=2)
    assert again.choose(state) in state.legal_moves()


def test_the_gymnasium_and_pettingzoo_opponent_plays_a_net(nets):
    from pingvinas.envs._common import Opponent

    fish, _ = nets
    opponent = Opponent(f"puct:8+net:{fish}")
    assert opponent.spec == "puct" and opponent.budget["iterations"] == 8
    state = pv.Fish().new_state(seed=4)
    rng = np.random.default_rng(1)
    opponent.reset(rng)
    assert opponent.action(state, rng) in state.legal_actions()
