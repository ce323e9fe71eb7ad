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
from pingvinas.console import load_shown, play, show

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


def test_engines_alone_play_to_the_end():
    out = io.StringIO()
    play(
        small_game(),
        [pv.GreedyAgent(seed=1), pv.RandomAgent(seed=2)],
        stdin=io.StringIO(""),
        out=out,
    )
    assert "game over: " in out.getvalue()
