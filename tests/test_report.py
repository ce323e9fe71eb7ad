"""``benches/report.py --quick`` writes the whole performance page at a tiny size: the header
(commit, date, machine, load, command) and every table with its reference row. It checks that
the command works, not the figures."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "benches" / "report.py"


@pytest.mark.slow
@pytest.mark.skipif(not REPORT.exists(), reason="no benches/ beside the tests (an installed copy)")
def test_quick_report_writes_the_page(tmp_path):
    out = tmp_path / "performance.md"
    run = subprocess.run(
        [sys.executable, str(REPORT), "--quick", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    page = out.read_text(encoding="utf-8")
    assert page.startswith("# Performance\n")
    head = dict(
        re.findall(
            r"^\| (commit|date|machine|load average[^|]*|command|took) \| (.+) \|$", page, re.M
        )
    )
    assert set(head) >= {"commit", "date", "machine", "command", "took"}, head
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", head["date"])
    assert re.search(r"\d+ cores", head["machine"])
    assert "--quick" in head["command"] and str(out) in head["command"]
    load = next(v for k, v in head.items() if k.startswith("load average"))
    assert re.fullmatch(r"[\d./ ]+ before, [\d./ ]+ after", load), load
    commit = subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    if commit:
        assert head["commit"].startswith(f"`{commit}")
    sections = re.split(r"^## ", page, flags=re.M)[1:]
    titles = [s.splitlines()[0] for s in sections]
    assert titles == [
        "Fish random playouts",
        "Penguin Marathon random playouts",
        "Vector env",
        "Search binding overhead",
        "Search",
        "Strength",
    ]
    for section in sections[:-1]:
        # Each speed table says what it is measured against and has that row at x1.00.
        assert "Measured against" in section or "measured against" in section
        assert "| x1.00 |" in section, section
        rates = re.findall(r"\| ([\d,]+(?:\.\d)?) \| x[\d.,]+ \|", section)
        assert rates and all(float(r.replace(",", "")) > 0 for r in rates), section
    strength = sections[-1]
    rows = re.findall(
        r"^\| (Fish|Marathon): .+ \| (\d+) \| ([\d.]+) \[([\d.]+), ([\d.]+)\] \|", strength, re.M
    )
    assert len(rows) == 6
    for _, games, rate, lo, hi in rows:
        assert int(games) > 0 and 0 <= float(lo) <= float(rate) <= float(hi) <= 1
    assert re.search(r"agrees with a Python minimax on (\d+) of \1 ", strength)
