"""The ``pingvinas`` command line: every bad argument is one line on stderr and exit code 2 (as
argparse does), never a traceback; the commands themselves run."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

import pingvinas as pv
from pingvinas import cli
from pingvinas.searching.searcher import ALGORITHMS


def run(capsys, *argv):
    """``main(argv)``: its exit code (0 when it returns) and what it printed."""
    try:
        cli.main(list(argv))
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, err):
    assert code == 2, (code, err)
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("pingvinas") and "error" in lines[0]
    assert len(lines[0]) < 600


BAD_ARGUMENTS = [
    ["match", "--seed", "99999999999999999999999"],
    ["play", "--seed", "99999999999999999999999"],
    ["play", "--seed", "-1"],
    ["play", "--seed", "seven"],
    ["match", "--seed", "9" * 5000],  # more digits than int() reads
    ["bench", "--games", "-1"],
    ["bench", "--games", "0"],
    ["bench", "--games", str(10**12)],
    ["bench", "--games", "1000000000000"],
    ["bench", "--games", "1e3"],
    ["match", "--games", str(10**12)],
    ["match", "--games", "-1"],
    ["match", "--games", "0"],
    ["match", "--time", "-1"],
    ["match", "--time", "0"],
    ["match", "--time", "nan"],
    ["match", "--time", "inf"],
    ["play", "--time", "1e300"],
    ["play", "--time", "soon"],
    ["match", "--workers", "0"],
    ["match", "--workers", "-3"],
    ["match", "--workers", str(10**9)],
    ["match", "--game", "no-such-variant"],
    ["play", "--game", "x" * 100_000],
    ["play", "--game", ""],
    ["match", "--agents", "deep-blue", "greedy"],
    ["match", "--agents", "auto"],  # one agent for two players
    ["match", "--game", "fish-3p"],  # the two default agents for three players
    ["play", "--agents", "auto", "greedy", "mcts"],
    ["no-such-command"],
    [],
    ["match", "--no-such-option"],
    ["serve", "--port", "-1"],
    ["serve", "--port", "70000"],
    ["serve", "--port", "http"],
    ["serve", "--time", "-1"],
    ["serve", "--time", "nan"],
    ["solve", "--time", "0", "fish-mini-4x4"],
    ["solve", "--time", "inf", "fish-mini-4x4"],
    ["solve", "--time", "604801", "fish-mini-4x4"],
    ["serve", "--variant", "no-such-variant"],
    ["serve", "--engine", "deep-blue"],
]


@pytest.mark.parametrize("argv", BAD_ARGUMENTS, ids=[" ".join(a)[:40] for a in BAD_ARGUMENTS])
def test_bad_arguments_are_one_line_and_exit_2(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert_one_line_error(code, err)


def test_the_error_quotes_a_long_argument_briefly(capsys):
    code, out, err = run(capsys, "play", "--game", "y" * 100_000)
    assert_one_line_error(code, err)
    assert "yyyy" in err and len(err) < 600


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "--games", "-1"],
        ["match", "--seed", "99999999999999999999999"],
        ["bench", "--games", "1000000000000"],
    ],
)
def test_bad_arguments_from_a_shell(argv):
    proc = subprocess.run(
        [sys.executable, "-m", "pingvinas", *argv], capture_output=True, text=True, timeout=120
    )
    assert_one_line_error(proc.returncode, proc.stderr)
    assert proc.stdout == ""


def _spec_errors():
    """What each way of naming an agent says of the slip "mcst"."""
    from pingvinas.envs import gym_env
    from pingvinas.playing.match import play_match

    def call(f):
        try:
            f()
        except ValueError as e:
            return str(e)
        raise AssertionError("no error")

    commands = [
        ["match", "--agents", "mcst", "greedy"],
        ["serve", "--engine", "mcst"],
        ["engine", "--agent", "mcst"],
    ]
    for argv in commands:
        proc = subprocess.run(
            [sys.executable, "-m", "pingvinas", *argv],
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert_one_line_error(proc.returncode, proc.stderr)
        yield argv[0], proc.stderr.split(" (see `")[0]
    yield "play_match", call(lambda: play_match(pv.Fish(), ["mcst", "greedy"], progress=False))
    yield "VectorEnv", call(lambda: pv.VectorEnv(pv.Fish(), 2, opponent="mcst"))
    yield "gym_env", call(lambda: gym_env("fish", opponent="mcst"))


def test_a_bad_agent_spec_is_said_whole_with_what_was_meant():
    pytest.importorskip("gymnasium")
    for where, message in _spec_errors():
        # The whole list of specs, not cut mid-word, and the name most like the slip.
        assert '"mcst": expected "random", "greedy", "mcts"' in message, (where, message)
        assert '"SPEC+net:PATH" (the net as the estimate of mcts, alphabeta or auto)' in message
        assert 'did you mean "mcts"?' in message and "characters)" not in message, message
    with pytest.raises(ValueError) as caught:
        pv.agents.as_agent("deep-blue")
    assert "did you mean" not in str(caught.value)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["match", "--game", "fish-3p", "--agents", "learned", "greedy", "random"], "learned"),
        (["match", "--game", "marathon", "--agents", "solve", "greedy"], "exact solver"),
        (["match", "--game", "fish-mini-4x4", "--agents", "greedy", "learned"], "[14, 4, 4]"),
        (["ladder", "--game", "fish-3p", "--agents", "random", "greedy", "learned"], "learned"),
        (["ladder", "--game", "marathon", "--agents", "random", "solve"], "exact solver"),
    ],
)
def test_an_agent_that_cannot_play_the_game_is_an_argument_error(capsys, tmp_path, argv, words):
    extra = ["--out", str(tmp_path / "l")] if argv[0] == "ladder" else []
    code, out, err = run(capsys, *argv, "--games", "2", "--quiet", *extra)
    assert_one_line_error(code, err)
    assert "cannot play this game" in err and words in err
    assert out == ""  # refused before the header, before any game


def test_play_match_refuses_an_agent_that_cannot_play_before_any_game(tmp_path):
    from pingvinas.playing.match import play_match

    save = tmp_path / "games.jsonl"
    with pytest.raises(ValueError, match="agent 'learned' cannot play this game: the net was"):
        play_match(pv.load_game("fish-3p"), ["random", "learned", "greedy"], save=save)
    assert not save.exists()


def test_agent_names_are_the_search_algorithms():
    # and "learned": alpha-beta with the net that ships in the package.
    assert set(cli.AGENTS) == set(ALGORITHMS) - {"puct"} | {"learned"}
    assert {"random", "greedy", "auto"} <= set(cli.AGENTS)


def test_help_and_version(capsys):
    code, out, err = run(capsys, "--help")
    assert code == 0 and "match" in out and "bench" in out
    code, out, err = run(capsys, "--version")
    assert code == 0 and pv.__version__ in out
    code, out, err = run(capsys, "match", "--help")
    assert code == 0 and all(name in out for name in cli.AGENTS)


def test_variants(capsys):
    code, out, err = run(capsys, "variants")
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == pv.variants()


def test_play(capsys):
    code, out, err = run(capsys, "play", "--agents", "greedy", "random", "--seed", "3", "-v")
    assert code == 0, err
    assert "game over:" in out and "A (player 0) plays" in out


@pytest.mark.parametrize("game", ["marathon", "fish-3p"])
def test_play_other_variants(capsys, game):
    agents = ["greedy", "random", "random"][: pv.load_game(game).players]
    code, out, err = run(capsys, "play", "--game", game, "--agents", *agents, "--seed", "1")
    assert code == 0, err
    assert "game over:" in out


def test_match(capsys):
    code, out, err = run(
        capsys, "match", "--agents", "greedy", "random", "--games", "2", "--quiet", "--seed", "5"
    )
    assert code == 0, err
    assert "2 games of fish" in out and "greedy" in out


def test_largest_seed_is_accepted(capsys):
    code, out, err = run(
        capsys, "play", "--agents", "random", "random", "--seed", str(cli.MAX_SEED)
    )
    assert code == 0, err


def test_bench(capsys):
    code, out, err = run(capsys, "bench", "--games", "200")
    assert code == 0, err
    assert out.count("games/s") == 2


# --- pingvinas solve. --------------------------------------------------------------------------


def _placed_mini():
    """fish-mini-4x4 after both placements: a movement position that solves in moments."""
    state = pv.load_game("fish-mini-4x4").new_state()
    while state.phase == "placement":
        state.play(state.legal_moves()[0])
    return state


def test_solve_prints_the_value_and_every_optimal_move(capsys, tmp_path):
    from pingvinas.solved import move_values

    state = _placed_mini()
    values = move_values(state)
    path = tmp_path / "state.json"
    path.write_text(state.to_json())
    for source in (state.to_json(), str(path)):
        code, out, err = run(capsys, "solve", source, "--all", "--quiet")
        assert code == 0, err
        assert out.startswith("the position given\n")
        value = f"{values.value[0]:+d} fish, {values.value[1]:+d} floes"
        assert f"value for player {state.to_move} ({'AB'[state.to_move]}): {value}" in out
        best = ", ".join(map(str, values.best))
        assert f"optimal moves ({len(values.best)} of {len(values.values)}): {best}" in out
        for m in state.legal_moves():  # --all: every move with its value
            v = values.values[m.action]
            assert f"  {str(m):<8} {v[0]:+d} fish, {v[1]:+d} floes" in out
        assert "nodes: " in out and err == ""


def test_solve_takes_a_board_class_and_its_seed_and_a_record(capsys, tmp_path):
    code, out, err = run(capsys, "solve", "fish-mini-4x5", "--seed", "3", "--max-nodes", "1000")
    assert code == 1 and "Traceback" not in err
    assert out.startswith("fish-mini-4x5 board 3 (4x5, 10/7/3 fish, 2p x 1, one-fish)\n")
    assert len(err.splitlines()) == 1 and "too large to solve exactly" in err
    games = tmp_path / "games.jsonl"
    code, out, err = run(
        capsys,
        "match",
        "--game",
        "fish-mini-4x4",
        "--agents",
        "greedy",
        "random",
        "--games",
        "1",
        "--quiet",
        "--save",
        str(games),
    )
    assert code == 0, err
    code, out, err = run(capsys, "solve", str(games), "--move", "4", "--quiet")
    assert code == 0, err
    assert out.startswith("the position after 4 moves\n") and "optimal moves (" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["solve"], "give a position"),
        (["solve", "marathon"], "Penguin Marathon"),
        (["solve", "no-such-board"], "unknown variant"),
    ],
)
def test_solve_errors_are_one_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 1 and len(err.splitlines()) == 1 and message in err, err


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "--table", "--boards", "fish-mini-9x9=3"],
        ["solve", "--table", "--boards", "fish-mini-4x4"],
        ["solve", "--table", "--boards", "fish-mini-4x4=-1"],
        ["solve", "--max-nodes", "0", "fish-mini-4x4"],
    ],
)
def test_bad_solve_arguments(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert_one_line_error(code, err)


@pytest.mark.slow
def test_solve_shows_the_solvers_progress_on_a_terminal(capsys, monkeypatch):
    # fish-mini-5x5 from the empty board takes seconds: the solver reports every 0.25 s.
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, out, err = run(capsys, "solve", "fish-mini-5x5")
    assert code == 0, err
    assert re.search(r"\rsolving: [\d,]+ nodes, \d+\.\d s", err), err
    assert "optimal moves" in out


@pytest.mark.slow
def test_solve_table_and_the_perfect_agent_run(capsys, tmp_path):
    out_md, img = tmp_path / "solved.md", tmp_path / "img" / "map.svg"
    code, out, err = run(
        capsys,
        "solve",
        "--table",
        "--quiet",
        "--out",
        str(out_md),
        "--img",
        str(img),
        "--boards",
        "fish-mini-4x4=2",
        "--boards",
        "fish-mini-4x4-pairs=0",
        "--boards",
        "fish-mini-4x5=0",
        "--games",
        "2",
    )
    assert code == 0, err
    page = out_md.read_text()
    assert "pingvinas solve --table --boards fish-mini-4x4=2" in page
    assert "| `fish-mini-4x4` | 4x4 | 8/6/2 | 2 x 1, one-fish | 2 |" in page
    assert img.read_text().startswith("<svg")
    code, out, err = run(
        capsys,
        "match",
        "--game",
        "fish-mini-4x4",
        "--agents",
        "solve",
        "greedy",
        "--games",
        "2",
        "--time",
        "1",
        "--quiet",
    )
    assert code == 0, err and "solve" in out


def _numeric_options():
    """Every option of every subcommand whose value is a number: (command, option, action)."""
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for command, p in sub.choices.items():
        for action in p._actions:
            kind = getattr(action.type, "__name__", "")
            if action.type in (int, float) or kind in ("integer", "number"):
                yield (
                    command,
                    action.option_strings[0] if action.option_strings else action.dest,
                    action,
                )


def test_every_numeric_option_documents_its_checked_range():
    options = list(_numeric_options())
    assert len(options) > 40
    for command, option, action in options:
        assert action.type not in (int, float), f"{command} {option}: a bare {action.type}"
        documented = " ".join((action.help or "").split())
        assert action.type.range in documented, (command, option, action.help)


@pytest.mark.parametrize(
    "argv",
    [
        ["train", "--out", "x", "--distill-steps", "10**30"],
        ["train", "--out", "x", "--distill-steps", str(10**30)],
        ["train", "--out", "x", "--playout-mix", "2"],
        ["train", "--out", "x", "--lr", "inf"],
        ["train", "--out", "x", "--minutes", "1e300"],
        ["train", "--out", "x", "--hidden", "8", "0"],
        ["show", "{}", "--move", str(10**12)],
        ["show", "{}", "--index", "-" + str(10**12)],
        ["solve", "--index", str(10**30)],
        ["solve", "--move", "1.5"],
        ["match", "--sprt", "0", "1e9"],
        ["match", "--sprt", "0", "10", "--alpha", "0.5"],
        ["ladder", "--agents", "random", "greedy", "--out", "x", "--prior", "-1"],
    ],
)
def test_a_number_out_of_range_is_refused_naming_the_option(capsys, argv, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv)
    assert_one_line_error(code, err)
    option = next(a for a in reversed(argv) if a.startswith("--"))
    assert f"argument {option}" in err
    assert list(tmp_path.iterdir()) == []


def test_serve_takes_the_vocabulary_of_the_other_commands():
    """``--game`` and ``--agents`` as in match, ladder and play; the old ``--variant`` and
    ``--engine`` still work and mean the same."""
    from pingvinas.cli import build_parser

    new = build_parser().parse_args(["serve", "--game", "marathon", "--agents", "mcts:5"])
    old = build_parser().parse_args(["serve", "--variant", "marathon", "--engine", "mcts:5"])
    assert new.engine == old.engine == "mcts:5"
    assert str(new.variant) == str(old.variant) and "marathon" in str(new.variant).lower()
