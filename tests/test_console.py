"""The command line for people (``pingvinas.console``): ``pingvinas show`` and ``pingvinas play``
(driven through stdin in a subprocess, as a person would), ``--game`` with a config path,
``variants``, ``match --save``."""

import io
import json
import os
import subprocess
import sys

import pytest

import pingvinas as pv
from pingvinas.console import load_shown, move_listing, play, show

SMALL = [[1, 2, 3, 1], [3, 1, 1, 2], [1, 1, 2, 3]]


def small_game():
    return pv.Fish(board=SMALL, penguins=2)


def cli(*args, stdin="", cwd=None, timeout=300):
    """``python -m pingvinas ARGS`` with ``stdin``: (exit code, stdout, stderr)."""
    proc = subprocess.run(
        [sys.executable, "-m", "pingvinas", *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture
def tiny_toml(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text('game = "fish"\nplayers = 2\npenguins = 2\nboard = ' + json.dumps(SMALL) + "\n")
    return path


def test_load_game_takes_a_path(tiny_toml, tmp_path):
    assert pv.load_game(tiny_toml) == small_game()
    assert pv.load_game(str(tiny_toml)) == small_game()
    course = tmp_path / "course.toml"
    course.write_text(
        'game = "marathon"\nname = "short"\ncourse = """\nSSS\n' + "###\n" * 6 + 'FFF\n"""\n'
    )
    assert pv.load_game(course).rows == 6
    with pytest.raises(ValueError, match="no config file"):
        pv.load_game(tmp_path / "missing.toml")
    with pytest.raises(ValueError, match="unknown variant 'nope'"):
        pv.load_game("nope")


# --- show ---------------------------------------------------------------------------------------


def game_record():
    record = pv.GameRecord(small_game(), players=["ann", "bob"])
    state = record.final_state()
    while not state.is_over:
        record.add(state.legal_moves()[len(record) % len(state.legal_moves())])
        state = record.final_state()
    return record


def test_show_a_record_and_a_state(tmp_path):
    record = game_record()
    path = tmp_path / "game.json"
    record.write(path)
    out = io.StringIO()
    show(str(path), move=2, out=out)
    text = out.getvalue()
    assert text.startswith(
        f"fish (ann vs bob): after move 2 of {len(record)}, last {record.moves[1]}\n"
    )
    assert str(record.states()[2]) in text
    out = io.StringIO()
    show(record.states()[3].to_json(), out=out)
    assert out.getvalue() == "position\n" + str(record.states()[3]) + "\n"
    svg = tmp_path / "pos.svg"
    show(str(path), move=-1, svg=str(svg), out=io.StringIO())
    assert svg.read_text() == record.states()[-2].svg(lastmove=record.moves[-2])
    jsonl = tmp_path / "games.jsonl"
    pv.record.write_jsonl(jsonl, [record, pv.GameRecord(pv.Marathon(), moves=["B -1,1 S 2,1 S"])])
    assert isinstance(load_shown(str(jsonl), 1), pv.GameRecord)
    assert load_shown(str(jsonl), 1).game_name == "marathon"
    with pytest.raises(ValueError, match="no game 2"):
        load_shown(str(jsonl), 2)
    with pytest.raises(ValueError, match="--move"):
        show(str(path), move=len(record) + 1, out=io.StringIO())
    with pytest.raises(ValueError, match="--move needs a game record"):
        show(record.states()[3].to_json(), move=1, out=io.StringIO())
    with pytest.raises(ValueError, match="neither a file nor JSON"):
        show("no-such-file.json", out=io.StringIO())
    with pytest.raises(ValueError, match="neither a state"):
        show('{"x": 1}', out=io.StringIO())


# --- play (in process) --------------------------------------------------------------------------


def test_play_commands_in_process(tmp_path):
    saved = tmp_path / "saved.json"
    typed = "\n".join(
        [
            "?",
            "zz",
            "a1-c1",
            "b1",
            "a1",
            "undo",
            "undo",
            "a1",
            "hint",
            f"save {saved}",
            "save",
            "quit",
        ]
    )
    out = io.StringIO()
    code = play(
        small_game(),
        [None, pv.GreedyAgent(seed=1)],
        hint_time=0.02,
        stdin=io.StringIO(typed + "\n"),
        out=out,
    )
    text = out.getvalue()
    assert code == 0
    assert "6 legal moves: a1 d1 b2 c2 a3 b3" in text
    assert 'invalid cell "zz"' in text
    assert "penguins are still being placed" in text
    assert "b1 has 2 fish" in text
    assert "B (player 1) plays" in text
    assert "took back to move 0" in text
    assert "nothing to undo" in text
    assert "hint: " in text
    assert "save needs a file name" in text
    assert text.rstrip().endswith("bye")
    record = pv.GameRecord.read(saved)
    assert [str(m) for m in record.moves][:1] == ["a1"] and len(record) == 2
    assert "Traceback" not in text


def listed_moves(text, separator):
    """The moves of a ``?`` listing (header, then lines of columns), each line whole."""
    lines = text.splitlines()
    assert lines[0].endswith("legal moves:")
    return [m.strip() for line in lines[1:] for m in line.strip().split(separator)]


@pytest.mark.parametrize("width", [30, 80, 120])
@pytest.mark.parametrize("game", ["marathon", "fish"])
def test_the_move_listing_never_breaks_a_move(game, width):
    state = pv.load_game(game).new_state(seed=3)
    for _ in range(8 if game == "fish" else 3):  # Fish: into movement, long slides "e1-f2"
        state.play(state.legal_moves()[len(state.legal_moves()) // 2])
    while getattr(state, "phase", None) == "placement":
        state.play(state.legal_moves()[0])
    moves = [str(m) for m in state.legal_moves()]
    text = move_listing(moves, width)
    assert all(len(line) <= width for line in text.splitlines())
    # Marathon moves hold spaces: columns split by " | "; every entry one whole legal move.
    separator = " | " if game == "marathon" else "  "
    entries = [m for m in listed_moves(text, separator) if m]
    assert entries == moves
    for entry in entries:
        state.after(entry)


def test_a_short_listing_stays_on_one_line():
    assert move_listing(["a1", "d1", "b2"]) == "3 legal moves: a1 d1 b2"
    assert move_listing(["B 0,1 S 3,1 SE"]) == "1 legal moves:\n  B 0,1 S 3,1 SE"


def test_question_mark_in_marathon_lists_moves_in_columns():
    out = io.StringIO()
    play(pv.Marathon(), [None, pv.GreedyAgent()], stdin=io.StringIO("?\nquit\n"), out=out)
    text = out.getvalue()
    start = text.index("57 legal moves:")
    listing = text[start:].split("\nA (player 0) to move>")[0]
    assert listed_moves(listing, " | ")[:2] == ["M -1,0 S 0,0 SE", "M -1,0 S 0,0 S"]
    assert all(len(line) <= 80 for line in listing.splitlines())


def test_engines_alone_play_to_the_end():
    out = io.StringIO()
    play(
        small_game(),
        [pv.GreedyAgent(seed=1), pv.RandomAgent(seed=2)],
        stdin=io.StringIO(""),
        out=out,
    )
    assert "game over: " in out.getvalue()


# --- the command line, in a subprocess -----------------------------------------------------------


def no_traceback(*texts):
    for text in texts:
        assert "Traceback" not in text


def test_variants_lists_descriptions():
    code, out, err = cli("variants")
    assert code == 0, err
    lines = out.splitlines()
    for name in pv.variants():
        line = next(x for x in lines if x.split()[0] == name)
        description = pv.load_game(name).description
        if description:
            assert description in line


@pytest.mark.slow  # several subprocesses; test_show_a_record_and_a_state covers the rest
def test_show_command(tmp_path):
    record = game_record()
    path = tmp_path / "game.json"
    record.write(path)
    code, out, err = cli("show", path, "--move", 3)
    assert code == 0, err
    assert str(record.states()[3]) in out
    code, out, err = cli("show", record.states()[2].to_json())
    assert code == 0 and str(record.states()[2]) in out, err
    code, out, err = cli("show", path, "--svg", tmp_path / "x.svg")
    assert code == 0, err
    assert (tmp_path / "x.svg").read_text().startswith("<svg")
    for args in (
        ["no-such.json"],
        [path, "--move", 999],
        ['{"game": "chess"}'],
        [path, "--svg", tmp_path / "no" / "x.svg"],
    ):
        code, out, err = cli("show", *args)
        assert code != 0
        assert len(err.strip().splitlines()) == 1 and err.startswith("pingvinas: "), err
        no_traceback(out, err)


@pytest.mark.slow  # several subprocesses; test_show_a_record_and_a_state covers the rest
def test_show_png(tmp_path):
    pytest.importorskip("cairosvg")
    code, out, err = cli("show", pv.Marathon().new_state().to_json(), "--png", tmp_path / "x.png")
    assert code == 0, err
    assert (tmp_path / "x.png").read_bytes()[:4] == b"\x89PNG"


def test_play_as_a_person(tmp_path, tiny_toml):
    saved = tmp_path / "game.json"
    typed = ["?", "nonsense", "a1-c1", "b1", "a1", "hint", "undo", "a1", f"save {saved}", "quit"]
    code, out, err = cli(
        "play",
        "--game",
        tiny_toml,
        "--agents",
        "human",
        "greedy",
        "--time",
        "0.02",
        stdin="\n".join(typed) + "\n",
    )
    assert code == 0, err
    no_traceback(out, err)
    assert "legal moves: a1 d1 b2 c2 a3 b3" in out
    assert "hint: " in out and "took back" in out and "bye" in out
    assert out.count("B (player 1) plays") == 2
    assert pv.GameRecord.read(saved).moves[0].action == 0


def test_two_people_play_a_whole_game(tiny_toml):
    state, typed = small_game().new_state(), []
    while not state.is_over:
        typed.append(str(state.legal_moves()[-1]))
        state.play(typed[-1])
    code, out, err = cli(
        "play", "--game", tiny_toml, "--agents", "human", "human", stdin="\n".join(typed) + "\n"
    )
    assert code == 0, err
    assert "game over: " in out
    assert out.rstrip().endswith(f"returns {', '.join(f'{r:+g}' for r in state.returns())}")


def test_play_ends_quietly_at_end_of_input(tiny_toml):
    code, out, err = cli("play", "--game", tiny_toml, "--agents", "human", "auto", stdin="")
    assert code == 0 and "bye" in out, err
    no_traceback(out, err)


def test_match_saves_records(tmp_path, tiny_toml):
    path = tmp_path / "games.jsonl"
    code, out, err = cli(
        "match",
        "--game",
        tiny_toml,
        "--agents",
        "greedy",
        "random",
        "--games",
        2,
        "--save",
        path,
        "--quiet",
    )
    assert code == 0, err
    assert "seat 0 fish" in out
    records = pv.record.read_jsonl(path)
    assert len(records) == 2 and all(r.final_state().is_over for r in records)
    code, out, err = cli("match", "--agents", "human", "auto", "--games", 1)
    assert code != 0 and "human" in err
    no_traceback(out, err)


def test_bench_takes_a_game(tiny_toml):
    code, out, err = cli("bench", "--game", "marathon", "--games", 200)
    assert code == 0, err
    assert "games/s" in out
    code, out, err = cli("bench", "--game", tiny_toml, "--games", 200)
    assert code == 0 and "games/s" in out, err
