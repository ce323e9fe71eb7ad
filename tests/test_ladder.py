"""The rating ladder: the Bradley-Terry fit against closed forms and its own optimality
conditions, the pairwise results of many-player games, the table and picture, and small
ladders of both games through ``run_ladder`` and ``pingvinas ladder``."""

from __future__ import annotations

import csv
import io
import math
import re
import xml.etree.ElementTree as ET

import pytest

import pingvinas as pv
from pingvinas import cli
from pingvinas.rating.ladder import Ladder, Pairwise, fit, pairs_of_game, run_ladder
from pingvinas.rating.plackett_luce import fit_rankings

ELO = 400 / math.log(10)


@pytest.mark.parametrize("wins, draws, losses", [(7, 2, 1), (3, 0, 5), (40, 20, 40), (1, 8, 1)])
def test_two_players_have_the_closed_form(wins, draws, losses):
    # One pair: the maximum-likelihood score is the observed one, s = (W + D/2) / n, so the
    # difference is 400 log10(s / (1 - s)); the information is n s (1 - s) per nat squared.
    results = Pairwise(["random", "other"])
    results.add("other", "random", wins=wins, draws=draws, losses=losses)
    ratings = fit(results, prior=0)
    n = wins + draws + losses
    s = (wins + draws / 2) / n
    assert ratings.elo["random"] == 0 and ratings.low["random"] == ratings.high["random"] == 0
    assert ratings.elo["other"] == pytest.approx(400 * math.log10(s / (1 - s)), abs=1e-6)
    half = 1.959964 * ELO / math.sqrt(n * s * (1 - s))
    assert ratings.high["other"] - ratings.elo["other"] == pytest.approx(half, rel=1e-5)
    assert ratings.elo["other"] - ratings.low["other"] == pytest.approx(half, rel=1e-5)


def test_the_prior_adds_virtual_draws():
    results = Pairwise(["random", "other"])
    results.add("other", "random", wins=6)
    with pytest.raises(ValueError, match="prior"):
        fit(results, prior=0)  # a perfect score: no finite maximum
    ratings = fit(results, prior=2)  # 7 of 8 points
    assert ratings.elo["other"] == pytest.approx(400 * math.log10(7), abs=1e-6)


def test_many_players_meet_the_score_equations():
    # At the maximum, each player's expected points equal the points it made.
    names = ["random", "a", "b", "c"]
    results = Pairwise(names)
    results.add("a", "random", wins=8, draws=1, losses=1)
    results.add("b", "random", wins=9, losses=1)
    results.add("c", "random", wins=6, draws=2, losses=2)
    results.add("a", "b", wins=3, draws=2, losses=5)
    results.add("a", "c", wins=6, losses=4)
    results.add("b", "c", wins=5, draws=1, losses=4)
    ratings = fit(results, prior=0)
    for i, p in enumerate(names):
        made = expected = 0.0
        for j, q in enumerate(names):
            if i == j:
                continue
            n = results.wins[i, j] + results.wins[j, i] + results.draws[i, j]
            made += results.wins[i, j] + results.draws[i, j] / 2
            expected += n / (1 + 10 ** ((ratings.elo[q] - ratings.elo[p]) / 400))
        assert expected == pytest.approx(made, abs=1e-6), p
    assert ratings.ranked()[-1] == "random" and ratings.anchor == "random"
    for p in names[1:]:
        assert ratings.low[p] < ratings.elo[p] < ratings.high[p]
    # Another anchor moves every rating by the same amount.
    again = fit(results, prior=0, anchor="a")
    for p in names:
        assert again.elo[p] - again.elo["a"] == pytest.approx(ratings.elo[p] - ratings.elo["a"])


def test_bad_results_are_refused():
    with pytest.raises(ValueError, match="differ"):
        Pairwise(["a", "a"])
    results = Pairwise(["random", "a", "b"])
    with pytest.raises(ValueError, match="no player"):
        results.add("a", "z", wins=1)
    with pytest.raises(ValueError, match="itself"):
        results.add("a", "a", wins=1)
    with pytest.raises(ValueError, match="wins"):
        results.add("a", "b", wins=-1)
    results.add("a", "random", wins=2, losses=1)
    with pytest.raises(ValueError, match="link b"):
        fit(results)  # b never played
    with pytest.raises(ValueError, match="no player"):
        fit(results, anchor="z")


def test_a_many_player_game_is_pairs_by_place():
    # Three seats: agent 2 in seat 0 first, agent 0 and agent 1 share second.
    pairs = pairs_of_game(["x", "y", "z"], seats=[2, 0, 1], ranking=[1, 2, 2])
    assert sorted(pairs) == [("x", "y", 0.5), ("z", "x", 1.0), ("z", "y", 1.0)]


def _ladder():
    results = Pairwise(["random", "greedy", "mcts"])
    results.add("greedy", "random", wins=7, draws=2, losses=1)
    results.add("mcts", "random", wins=9, losses=1)
    results.add("mcts", "greedy", wins=6, losses=4)
    return Ladder(results, fit(results), title="a test", faults={"mcts": {"time": 1}})


def test_the_table_as_csv_markdown_and_text():
    ladder = _ladder()
    rows = list(csv.DictReader(io.StringIO(ladder.to_csv())))
    assert [r["player"] for r in rows] == ladder.ratings.ranked()
    assert [r["rank"] for r in rows] == ["1", "2", "3"]
    top = rows[0]
    assert float(top["low"]) < float(top["elo"]) < float(top["high"])
    assert top["games"] == "20" and top["faults"] == "time:1"
    md = ladder.to_markdown()
    assert "| rank | player | Elo | 95% interval | games | score | faults |" in md
    assert "random = 0" in md and md.count("\n| ") == 4
    assert "random" in str(ladder) and "faults time:1" in str(ladder)


def test_the_picture_has_every_player_on_the_axis(tmp_path):
    ladder = _ladder()
    root = ET.fromstring(str(ladder.svg()))
    ns = "{http://www.w3.org/2000/svg}"
    assert len(root.findall(f".//{ns}circle")) == 3
    texts = [t.text for t in root.iter(f"{ns}text")]
    for p in ("random", "greedy", "mcts", "Elo (logistic)", "a test"):
        assert p in texts
    paths = ladder.write(tmp_path / "out")
    assert sorted(p.rsplit("/", 1)[1] for p in paths) == ["ladder.csv", "ladder.md", "ladder.svg"]


@pytest.mark.parametrize("game", [pv.Fish(), pv.Marathon(), pv.load_game("fish-3p")])
def test_run_ladder_plays_every_table(game):
    players = ["random", "greedy", "mcts:30"]
    tables = []
    ladder = run_ladder(
        game,
        players,
        games=2,
        progress=False,
        on_table=lambda names, result: tables.append((names, result.games)),
    )
    if game.players == 2:
        assert tables == [
            (["random", "greedy"], 2),
            (["random", "mcts"], 2),
            (["greedy", "mcts"], 2),
        ]
        assert all(ladder.results.games(p) == 4 for p in ("random", "greedy", "mcts"))
    else:  # one table of three: each game a result between every two players
        assert tables == [(["random", "greedy", "mcts"], 2)]
        assert all(ladder.results.games(p) == 4 for p in ("random", "greedy", "mcts"))
    # The ratings are those of the games' finishing orders, each game counted once.
    assert ladder.rankings is not None and ladder.rankings.games == len(tables) * 2
    elo, low, high = fit_rankings(ladder.rankings, anchor="random", prior=2)
    assert ladder.ratings.elo == pytest.approx(elo) and ladder.ratings.low == pytest.approx(low)
    assert ladder.ratings.elo["random"] == 0
    assert all(ladder.ratings.low[p] <= ladder.ratings.high[p] for p in ladder.ratings.players)


def test_ladder_command(tmp_path, capsys):
    out = tmp_path / "ladder"
    try:
        cli.main(
            ["ladder", "--agents", "random", "greedy", "--games", "2", "--quiet"]
            + ["--out", str(out), "--time", "0.01"]
        )
    except SystemExit as e:
        assert e.code in (0, None)
    printed = capsys.readouterr().out
    assert "random vs greedy" in printed and "wrote" in printed
    assert (out / "ladder.svg").read_text().startswith("<svg")
    rows = list(csv.DictReader(io.StringIO((out / "ladder.csv").read_text())))
    assert {r["player"] for r in rows} == {"random", "greedy"}
    assert [r for r in rows if r["player"] == "random"][0]["elo"] == "0.0"


def test_ladder_command_refuses_a_player_twice(capsys):
    with pytest.raises(SystemExit) as caught:
        cli.main(["ladder", "--agents", "random", "random", "--out", "x", "--quiet"])
    assert caught.value.code == 2 and "twice" in capsys.readouterr().err


def _ladder_run(capsys, *argv):
    """``pingvinas ladder ARGV``: its exit code, stdout and stderr."""
    try:
        cli.main(["ladder", "--game", "fish-mini-4x4", "--quiet", "--games", "2", *argv])
        code = 0
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--agents", "random", "greedy", "--anchor", "gredy"], "--anchor gredy: no player"),
        (["--agents", "random"], "1 player(s) for a 2-player game"),
        (["--agents", "random", "greedy", "--prior", "0"], "--prior"),
    ],
)
def test_ladder_arguments_are_refused_before_any_game(capsys, tmp_path, argv, words):
    code, out, err = _ladder_run(capsys, *argv, "--out", str(tmp_path / "l"))
    assert code == 2 and words in err and len(err.splitlines()) == 1, err
    assert out == "" and not (tmp_path / "l").exists()


def test_run_ladder_checks_its_settings_before_any_table():
    tables = []
    for settings, words in (({"anchor": "nobody"}, "anchor = 'nobody'"), ({"prior": -1}, "prior")):
        with pytest.raises(ValueError, match=words):
            run_ladder(
                pv.Fish.variant("fish-mini-4x4"),
                ["random", "greedy"],
                games=2,
                progress=False,
                on_table=lambda names, result: tables.append(names),
                **settings,
            )
    assert tables == []


def test_a_stopped_ladder_writes_the_tables_played(capsys, tmp_path, monkeypatch):
    from pingvinas.playing import match

    tables = []
    play = match.play_match

    def stopped_at_the_third(*args, **kwargs):  # Ctrl-C during the third table
        tables.append(args[1])
        if len(tables) == 3:
            raise KeyboardInterrupt
        return play(*args, **kwargs)

    monkeypatch.setattr(match, "play_match", stopped_at_the_third)
    out = tmp_path / "l"
    code, stdout, err = _ladder_run(
        capsys, "--agents", "random", "greedy", "mcts:10", "alphabeta:1", "--out", str(out)
    )
    assert code == 130 and "stopped; wrote the ladder so far" in err, err
    rows = list(csv.DictReader(io.StringIO((out / "ladder.csv").read_text())))
    # Tables 1 and 2 (random against greedy, then mcts) rate those three.
    assert sorted(r["player"] for r in rows) == ["greedy", "mcts:10", "random"]
    assert all(r["games"] == "2" for r in rows if r["player"] != "random")
    page = (out / "ladder.md").read_text()
    assert "stopped after 2 of 6 tables; not rated yet: alphabeta:1" in page


def test_the_markdown_table_shows_any_name_literally():
    results = Pairwise(["random", "a|b", "<b>bold</b> & *em*"])
    results.add("a|b", "random", wins=3, losses=1)
    results.add("<b>bold</b> & *em*", "random", wins=2, losses=2)
    md = Ladder(results, fit(results), title="names | <i>").to_markdown()
    rows = [line for line in md.splitlines() if line.startswith("| ") and "rank" not in line]
    # Six cells a row: seven bars that are not escaped.
    assert [len(re.findall(r"(?<!\\)\|", row)) for row in rows] == [7, 7, 7]
    assert "<b>" not in md and "<i>" not in md
    assert "a\\|b" in md and "\\<b\\>bold\\</b\\> \\& \\*em\\*" in md


def test_an_engine_that_faults_loses_its_ladder_games(tmp_path):
    import sys

    from pingvinas.playing.protocol.driver import EngineAgent

    script = tmp_path / "crashing_engine.py"
    script.write_text("import sys\nsys.exit(1)\n")
    engine = EngineAgent([sys.executable, str(script)], time=0.05, name="crasher")
    ladder = run_ladder(pv.Fish(), ["random", "greedy", engine], games=2, progress=False)
    assert ladder.faults == {"crasher": {"crash": 4}}
    assert ladder.results.score("crasher") == 0.0
    assert ladder.ratings.ranked()[-1] == "crasher"
    assert "crash:4" in ladder.to_markdown()
