"""Game records (``pingvinas.record``): JSON round trips, exact replays, JSON Lines, and a clear
``ValueError`` naming the field for every kind of bad record."""

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pingvinas as pv
from pingvinas.record import GameRecord, read_jsonl, write_jsonl

GAMES = {
    "fish": lambda: pv.Fish(),
    "fish-3p": lambda: pv.Fish.variant("fish-3p"),
    "fish-small": lambda: pv.Fish(
        board=[[1, 2, 3, 1], [3, 2, 1, 2], [1, 1, 2, 3]], penguins=2, order="snake"
    ),
    "marathon": lambda: pv.Marathon(),
    "marathon-zigzag-4p": lambda: pv.Marathon(players=4, course="zigzag", ply_limit=80),
    "marathon-custom": lambda: pv.Marathon.from_config(
        {
            "game": "marathon",
            "course": "SSS\n" + "###\n" * 6 + "FFF\n",
            "players": 3,
            "ply_limit": 60,
        }
    ),
}


def random_record(name, seed, moves, start_after, with_info):
    """A record of ``name`` with up to ``moves`` random moves, starting from the opening or (if
    ``start_after``) from a position that many random moves in."""
    game = GAMES[name]()
    rng = random.Random(seed)
    state = game.new_state(seed=seed)
    start = None
    if start_after:
        for _ in range(start_after):
            if state.is_over:
                break
            state.play(rng.choice(state.legal_moves()))
        start = state.copy()
    players = [
        f"player {i} ✓" if i % 2 else {"name": f"p{i}", "agent": "RandomAgent(seed=1)"}
        for i in range(game.players)
    ]
    record = GameRecord(
        game, seed=seed, start=start, players=players, meta={"round": seed % 7, "tags": ["x"]}
    )
    for i in range(moves):
        if state.is_over:
            break
        mv = rng.choice(state.legal_moves())
        info = (
            dict(value=rng.uniform(-1, 1), nodes=rng.randrange(10**6), time=rng.random(), depth=i)
            if with_info and i % 3
            else {}
        )
        record.add(rng.choice([mv, mv.action, str(mv)]), **info)
        state.play(mv)
    assert record.final_state() == state
    return record


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(sorted(GAMES)),
    seed=st.integers(0, 2**32),
    moves=st.integers(0, 120),
    start_after=st.sampled_from([0, 0, 3, 17]),
    with_info=st.booleans(),
)
def test_round_trip_and_replay(name, seed, moves, start_after, with_info):
    record = random_record(name, seed, moves, start_after, with_info)
    text = record.to_json()
    again = GameRecord.from_json(text)
    assert again == record
    assert again.to_json() == text
    assert json.loads(text)["version"] == 1
    states = again.states()
    assert len(states) == len(record) + 1
    assert states[0] == record.start_state()
    assert states[-1] == record.final_state()
    for before, mv, after in zip(states, record.moves, states[1:]):
        assert before.after(mv.action) == after
    assert [str(m) for m in again.moves] == [str(m) for m in record.moves]
    assert again.actions == record.actions
    assert again.result["returns"] == [float(x) for x in states[-1].returns()]


def test_jsonl(tmp_path):
    records = [random_record(name, i, 30 + i, 0, True) for i, name in enumerate(sorted(GAMES))]
    path = tmp_path / "games.jsonl"
    assert write_jsonl(path, records[:2]) == 2
    assert write_jsonl(path, records[2:], append=True) == len(records) - 2
    assert len(path.read_text().splitlines()) == len(records)
    assert read_jsonl(path) == records
    assert pv.record.read_jsonl(str(path))[0] == records[0]
    one = tmp_path / "one.json"
    records[3].write(one)
    assert GameRecord.read(one) == records[3]
    lines = path.read_text().splitlines()
    lines[1] = lines[1].replace('"version": 1', '"version": 7')
    path.write_text("\n".join(lines) + "\n\n")
    with pytest.raises(ValueError, match=r"games.jsonl, line 2: .*'version'"):
        read_jsonl(path)


def test_a_full_game_replays_its_result():
    game = pv.Fish(board=[[1, 2, 3, 1], [3, 2, 1, 2], [1, 1, 2, 3]], penguins=2)
    record = GameRecord(game, players=["a", "b"])
    state = game.new_state()
    while not state.is_over:
        mv = state.legal_moves()[-1]
        record.add(mv)
        state.play(mv)
    result = record.to_dict()["result"]
    assert result["over"] is True
    assert result["scores"] == [list(s) for s in state.scores]
    assert result["ranking"] == state.ranking()
    with pytest.raises(ValueError, match=r"moves\[\d+\].*after the end"):
        record.add(0)


def good():
    record = random_record("fish", 11, 12, 0, True)
    return record.to_dict()


def marathon_good():
    return random_record("marathon", 3, 10, 0, False).to_dict()


def mutate(path, value, base=good):
    data = base()
    target = data
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


@pytest.mark.parametrize(
    "data, field",
    [
        (mutate(["format"], KeyError), "'format'.*missing"),
        (mutate(["format"], "chess game"), "'format'"),
        (mutate(["version"], 2), "'version'"),
        (mutate(["version"], "1"), "'version'"),
        (mutate(["game"], "chess"), "'game'"),
        (mutate(["config"], "fish"), "'config'"),
        (mutate(["config", "players"], 9), "'config'"),
        (mutate(["seed"], -1), "'seed'"),
        (mutate(["seed"], None), "'seed'.*needs its seed"),
        (mutate(["start"], {"nonsense": 1}), "'start'"),
        (mutate(["players"], ["a", "b", "c"]), "'players'"),
        (mutate(["players"], [{"agent": "x"}, "b"]), r"'players\[0\].name'"),
        (mutate(["moves"], "b1 c1"), "'moves'"),
        (mutate(["moves", 3], "b1"), r"'moves\[3\]'"),
        (mutate(["moves", 3, "move"], "a1-h8"), r"'moves\[3\]'"),
        (mutate(["moves", 3, "move"], 12), r"'moves\[3\].move'"),
        (mutate(["moves", 3, "action"], 1), r"'moves\[3\].action'"),
        (mutate(["moves", 3, "player"], 5), r"'moves\[3\].player'"),
        (mutate(["moves", 3, "nodes"], -5), r"'moves\[3\].nodes'"),
        (mutate(["moves", 3, "value"], "good"), r"'moves\[3\].value'"),
        (mutate(["moves", 3, "comment"], "nice"), r"'moves\[3\].comment'"),
        (mutate(["result", "returns"], [1.0, -1.0]), "'result.returns'"),
        (mutate(["result", "plies"], 99), "'result.plies'"),
        (mutate(["result"], [1, 2]), "'result'"),
        (mutate(["meta"], "x"), "'meta'"),
        (mutate(["bogus"], 1), "'bogus'.*unknown field"),
        (mutate(["config", "course"], "S\n#\nF\n", marathon_good), "'config'"),
        (mutate(["moves", 0, "move"], "M 0,0 S 1,0 S", marathon_good), r"'moves\[0\]'"),
        (mutate(["result", "winner"], 1, marathon_good), "'result.winner'"),
    ],
)
def test_bad_records(data, field):
    with pytest.raises(ValueError, match=field):
        GameRecord.from_dict(data)


def test_bad_json_and_arguments():
    with pytest.raises(ValueError, match="not JSON"):
        GameRecord.from_json("{")
    with pytest.raises(ValueError, match="JSON object"):
        GameRecord.from_json("[]")
    with pytest.raises(ValueError, match="'seed'"):
        GameRecord(pv.Fish())  # a shuffled board needs its seed
    with pytest.raises(TypeError):
        GameRecord("fish")
    with pytest.raises(ValueError, match=r"'moves\[0\]'"):
        GameRecord(pv.Fish(), seed=1, moves=["a1-b1"])
    with pytest.raises(ValueError, match="'start'"):
        GameRecord(pv.Fish(), start=pv.Marathon().new_state())


def test_custom_variants_replay_without_their_files(tmp_path):
    config = tmp_path / "tiny.toml"
    config.write_text('game = "fish"\nplayers = 2\npenguins = 1\nboard = [[1, 2, 3], [3, 2, 1]]\n')
    game = pv.Fish.from_config(str(config))
    record = GameRecord(game, moves=["a1", "c2"])
    text = record.to_json()
    config.unlink()
    again = GameRecord.from_json(text)
    assert again.game == game and again == record


def test_svg_game_draws_a_record():
    record = random_record("fish-small", 2, 100, 0, False)
    strip = pv.svg.game(record, columns=5)
    assert strip == pv.svg.game([str(m) for m in record.moves], record.start_state(), columns=5)
    assert strip.count('class="frame"') == len(record) + 1


def test_copy_is_independent():
    record = random_record("marathon", 1, 5, 0, False)
    twin = copy.deepcopy(record)
    twin.add(twin.final_state().legal_moves()[0])
    assert len(twin) == len(record) + 1


@pytest.mark.parametrize(
    "game",
    [
        pv.Fish(board=[[1, 2, 3, 1], [3, 2, 1, 2], [1, 1, 2, 3]], penguins=2),
        pv.Marathon(ply_limit=60),
    ],
)
def test_play_match_saves_every_game(tmp_path, game):
    path = tmp_path / "games.jsonl"
    result = pv.play_match(game, ["greedy", "random"], games=3, seed=4, progress=False, save=path)
    records = read_jsonl(path)
    assert len(records) == 3
    for summary, record in zip(result.records, records):
        assert summary.game == record
        assert len(record) == summary.moves
        assert record.result["returns"] == summary.returns
        assert [p["name"] for p in record.players] == [
            ["greedy", "random"][a] for a in summary.seats
        ]
        seat = summary.seats.index(0)  # the greedy agent's moves carry its search facts
        infos = [i for i, mv in zip(record.info, record.to_dict()["moves"]) if mv["player"] == seat]
        assert infos and all(i["algorithm"] == "greedy" and "nodes" in i for i in infos)
        assert record.states()[-1] == record.final_state()


def test_match_table_and_progress_off_a_terminal(capsys):
    result = pv.play_match(pv.Marathon(ply_limit=40), ["random", "random"], games=2, progress=True)
    err = capsys.readouterr().err
    assert "\r" not in err and err.strip().splitlines()[-1].startswith(
        "[" + "#" * 30 + "] 2/2 games"
    )
    text = str(result)
    assert "seat 0 return" in text and "mean return" in text
    fish = pv.play_match(
        pv.Fish(board=[[1, 2, 3], [3, 2, 1]], penguins=1),
        ["random", "random"],
        games=2,
        progress=False,
    )
    assert "seat 1 fish" in str(fish) and "mean fish" in str(fish)


def test_the_documented_example_reads():
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "records.md").read_text(
        encoding="utf-8"
    )
    block = doc.split("```json\n", 1)[1].split("```", 1)[0]
    record = GameRecord.from_json(block)
    assert [str(m) for m in record.moves] == ["a1", "c2"]
    assert record.to_dict() == json.loads(block)
