"""``benches/strength.py --quick`` writes the whole strength page at a tiny size: the header,
a ladder with its picture for each game at every player count, and the time a move; with
``--only`` it remakes one part and keeps the others. It checks that the command works, not the
figures."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benches" / "strength.py"


@pytest.mark.slow
@pytest.mark.skipif(not SCRIPT.exists(), reason="no benches/ beside the tests (an installed copy)")
def test_quick_strength_page(tmp_path):
    out = tmp_path / "docs" / "strength.md"
    out.parent.mkdir()
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    page = out.read_text(encoding="utf-8")
    assert page.startswith("# Playing strength\n")
    assert f"benches/strength.py --quick --out {out}" in page
    ladders = re.findall(r"^### (Fish|Penguin Marathon), (\d) players$", page, re.M)
    assert ladders == [("Fish", "2"), ("Fish", "3"), ("Fish", "4")] + [
        ("Penguin Marathon", str(n)) for n in (2, 3, 4, 5)
    ]
    for game, n in ladders:
        slug = "fish" if game == "Fish" else "marathon"
        svg = out.parent / "img" / f"strength-{slug}-{n}p.svg"
        assert svg.read_text().startswith("<svg") and f"img/{svg.name}" in page
    # Every shipped player is in every ladder, ranked, with an interval.
    rows = re.findall(r"^\| \d \| (\w+) \| [+-]\d+ \| \[[+-]\d+, [+-]\d+\] \|", page, re.M)
    assert len(rows) == 5 * len(ladders) and set(rows) == {
        "random",
        "greedy",
        "mcts",
        "alphabeta",
        "auto",
    }
    assert "## Time a move" in page and "Not part of this run: `--baseline REV`" in page
    # Again: an existing page is replaced only with --force.
    again = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert again.returncode == 2 and "--force" in again.stderr
    # One part remade: its line says so, every other part is kept as it was; remade without
    # --baseline, it keeps its comparison with an earlier build and the line that made that.
    store = out.with_suffix(".json")
    parts = json.loads(store.read_text(encoding="utf-8"))
    row = "Fish, 3 players|`abc1234`|0.01 s|4|0.500 [0.150, 0.850]|0.333||0.011 s".split("|")
    parts["fish-3"]["versus"] = row
    store.write_text(json.dumps(parts), encoding="utf-8")
    before = page.split("\n### ")
    only = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--out", str(out), "--force", "--only", "fish-3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert only.returncode == 0, only.stderr[-3000:]
    after = out.read_text(encoding="utf-8").split("\n### ")
    assert len(after) == len(before)
    for old, new in zip(before[1:], after[1:]):
        remade = new.startswith("Fish, 3 players")
        assert ("--only fish-3" in new.split("\n\n")[1]) == remade
        if not remade:
            assert new.split("\n## ")[0] == old.split("\n## ")[0]
        else:
            kept = new.split("\n\n")[2]
            assert kept.startswith("Its comparison with an earlier build was made by `python")
            assert "--only" not in kept
    assert "| " + " | ".join(row) + " |" in after[-1]


@pytest.mark.skipif(not SCRIPT.exists(), reason="no benches/ beside the tests (an installed copy)")
def test_the_baseline_is_a_folder_with_pingvinas_or_a_revision(tmp_path):
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import baseline
    finally:
        sys.path.remove(str(SCRIPT.parent))
    folder = tmp_path / "old"
    (folder / "pingvinas").mkdir(parents=True)
    (folder / "pingvinas" / "__init__.py").write_text("")
    assert baseline.installed(str(folder)) == folder
    if (ROOT / ".git").exists():
        assert len(baseline.commit_of("HEAD")) == 40
    with pytest.raises(ValueError, match="neither a folder with pingvinas installed nor a commit"):
        baseline.installed(str(tmp_path / "nowhere"))
    # The page's command says so before it plays a game.
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(tmp_path / "s.md"), "--baseline", "no-such-rev"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2 and "--baseline: 'no-such-rev' is neither" in run.stderr
