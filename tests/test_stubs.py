"""The type stubs: ``_core.pyi`` describes the compiled module (mypy's stubtest), and typed code
using the public API type-checks with them (and code misusing it does not).

mypy runs in a subprocess from a scratch directory, so that it checks the installed package
(the same one the other tests import), and its cache stays out of the source tree.
"""

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("mypy")

#: stubtest's allowlist (one regex per line, ``#`` comments), used if the file exists; none is
#: needed today: keep it that way unless stubtest genuinely cannot see a runtime fact.
ALLOWLIST = Path(__file__).with_name("stubtest_allowlist.txt")

#: A typed program using the public API. ``assert_type`` fails on ``Any`` as well as on a
#: wrong type, so this checks that the stubs give real types, not just that they load.
USAGE = """
import copy
import pickle
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt
from typing_extensions import assert_type

import pingvinas as pv
from pingvinas.searching.searcher import FishSolution, SearchResult


def play_fish() -> None:
    game = pv.Fish(players=2, placement="one-fish")
    assert_type(game.num_actions, int)
    state = game.new_state(seed=7)
    assert_type(state, pv.FishState)
    assert_type(state.phase, str)
    while state.phase == "placement":
        moves = state.legal_moves()
        assert_type(moves, List[pv.FishMove])
        state.play(moves[0])
    first = state.legal_moves()[0]
    assert_type(first.src, Optional[Tuple[int, int]])
    assert_type(first.dst, Tuple[int, int])
    state.play(first.action)
    child = state.after(str(state.legal_moves()[0]))
    assert_type(child.to_move, Optional[int])
    assert_type(child.scores, List[Tuple[int, int]])
    fish, floes = child.scores[0]
    assert fish + floes >= 0
    assert_type(child.board, npt.NDArray[np.int32])
    assert_type(child.legal_action_mask(), npt.NDArray[np.bool_])
    assert_type(child.observation_tensor(), npt.NDArray[np.float32])
    assert_type(child.legal_actions(), List[int])
    assert_type(child.returns(), List[float])
    assert_type(child.is_legal("a1"), bool)
    assert_type(copy.copy(child), pv.FishState)
    assert_type(pv.FishState.from_json(child.to_json()), pv.FishState)
    assert pickle.loads(pickle.dumps(child)) == child

    result = pv.search(child, "alphabeta", depth=2, seed=1)
    assert_type(result, SearchResult)
    assert_type(result.action, int)
    assert_type(result.value, float)
    child.play(result.action)

    searcher = pv.Searcher("mcts", threads=1, seed=2)
    found = searcher.search(child, iterations=50)
    child.apply_action(found.action)

    fixed = pv.Fish(board=[[1, 2, 3], [3, 2, 1]], penguins=1)
    small = fixed.position(penguins=[[(0, 0)], [(1, 2)]], to_move=0)
    solution = pv.fish.solve(small)
    assert_type(solution, FishSolution)
    assert_type(solution.scores, List[Tuple[int, int]])

    fish_scores, floe_scores = pv.fish.random_playouts(4, seed=1, game=pv.Fish.variant("fish"))
    assert fish_scores.shape == floe_scores.shape == (4, 2)


def play_marathon() -> None:
    game = pv.Marathon(players=2, course="standard")
    assert_type(game.cells, List[Tuple[int, int]])
    state = game.new_state()
    assert_type(state, pv.MarathonState)
    state.play("B -1,1 S 2,1 SE")
    piece = state.pieces[2]
    assert_type(piece, pv.MarathonPiece)
    assert_type(piece.cell, Optional[Tuple[int, int]])
    assert_type(piece.facing, Optional[str])
    move = state.legal_moves()[0]
    assert_type(move.dst, Optional[Tuple[int, int]])
    state.play(move)
    assert_type(state.winner, Optional[int])
    config: Dict[str, Any] = {"course": game.course, "players": 3}
    three = pv.Marathon.from_config(config)
    puzzle = three.position([{"owner": 0, "kind": "papa", "cell": (3, 1)}, (1, "baby")], to_move=1)
    assert_type(puzzle.game, pv.Marathon)
    result = pv.search(puzzle, "greedy", seed=0)
    puzzle.play(result.move)
    winners, plies = pv.marathon.random_playouts(3, seed=1, game=game)
    assert winners.shape == plies.shape == (3,)


def any_game(name: str) -> None:
    game = pv.load_game(name)
    state = game.new_state(seed=1)
    assert_type(state, Union[pv.FishState, pv.MarathonState])
    while not state.is_over:
        state.play(state.legal_actions()[0])
    assert_type(state.ranking(), List[int])


play_fish()
play_marathon()
any_game("fish-3p")
any_game("marathon-5")
"""

#: Misuse, one error per line marked ``# E``: the stubs must be precise enough to catch it.
MISUSE = """
import pingvinas as pv

game = pv.Fish(players="2")  # E: a str for an int
state = game.new_state(seed=1)
state.play(1.5)  # E: not a move
state.is_over()  # E: a property, not a method
total = state.scores[0] + 1  # E: a tuple, not an int
nxt: int = state.to_move  # E: None when the game is over
pv.Marathon(course="standard").new_state().play(state.legal_moves()[0])  # E: a Fish move
pv.FishState(json=1)  # E: JSON text
pv.Searcher(threads="all")  # E: an int


class MyFish(pv.Fish):  # E: PyO3 classes cannot be subclassed
    ...
"""


def run(args: list[str], cwd: Path) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for this module's mypy runs (numpy's stubs are the slow part)."""
    return tmp_path_factory.mktemp("mypy_cache")


def mypy(tmp_path: Path, cache: Path, name: str, source: str) -> "subprocess.CompletedProcess[str]":
    """``mypy --strict`` on ``source``, written to ``tmp_path / name``."""
    (tmp_path / name).write_text(textwrap.dedent(source), encoding="utf-8")
    return run(
        [
            "mypy",
            "--strict",
            "--no-error-summary",
            "--show-error-codes",
            "--cache-dir",
            str(cache),
            name,
        ],
        cwd=tmp_path,
    )


def test_stubtest_core(tmp_path: Path) -> None:
    """``python -m mypy.stubtest pingvinas._core`` finds no mismatch."""
    args = ["mypy.stubtest", "pingvinas._core"]
    if ALLOWLIST.exists():
        args += ["--allowlist", str(ALLOWLIST)]
    proc = run(args, cwd=tmp_path)
    output = proc.stdout + proc.stderr
    print(output)
    assert proc.returncode == 0, f"stubtest found mismatches:\n{output}"


def test_typed_usage_checks_and_runs(tmp_path: Path, mypy_cache: Path) -> None:
    """A typed program using the public API passes ``mypy --strict`` and runs."""
    proc = mypy(tmp_path, mypy_cache, "usage.py", USAGE)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"mypy --strict rejects typed use of pingvinas:\n{output}"
    # The program is real: it runs, against the same installed package.
    proc = run(["usage"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_misuse_is_rejected(tmp_path: Path, mypy_cache: Path) -> None:
    """Each misuse marked ``# E`` gets a mypy error on its line, and nothing else does."""
    proc = mypy(tmp_path, mypy_cache, "misuse.py", MISUSE)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    lines = textwrap.dedent(MISUSE).splitlines()
    expected = {i for i, line in enumerate(lines, start=1) if "# E" in line}
    errors: dict[int, list[str]] = {}
    for m in re.finditer(r"^misuse\.py:(\d+): error: (.*)$", output, re.M):
        errors.setdefault(int(m.group(1)), []).append(m.group(2))
    missed = {f"{i}: {lines[i - 1].strip()}" for i in expected - errors.keys()}
    extra = {f"{i}: {msg}" for i in errors.keys() - expected for msg in errors[i]}
    assert not missed and not extra, (
        f"missed: {sorted(missed)}\nunexpected: {sorted(extra)}\n{output}"
    )
