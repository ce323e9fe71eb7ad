"""The shipped tree speaks of the project, not of how it was built: no tracker numbers in the
docs, comments, docstrings and messages, and no dated runs in README.md and docs/ outside the
pages that a command writes (their header says when they were made) and the changelog."""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Where the words are checked: the docs, and the code's comments, docstrings and messages.
PATHS = [
    "README.md",
    "CONTRIBUTING.md",
    "ARCHITECTURE.md",
    "docs",
    "python",
    "rust",
    "benches",
    "examples",
    "tests",
    ".ci",
]
TRACKER = re.compile(r"\bissues?\s+#?\d+", re.I)
DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")
#: Pages written by a command, whose header dates the run that made them.
GENERATED = {"docs/performance.md", "docs/strength.md", "docs/strength.json", "docs/solved.md"}


def tracked_files() -> list[str]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "--", *PATHS], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout (an installed copy of the tests)")
    return [f for f in out.splitlines() if (ROOT / f).is_file()]


def text_of(path: str):
    try:
        return (ROOT / path).read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None  # a binary file: pictures, weights, fuzz seeds


def test_no_tracker_numbers():
    found = []
    for path in tracked_files():
        text = text_of(path)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if TRACKER.search(line):
                found.append(f"{path}:{n}: {line.strip()[:100]}")
    assert not found, "tracker numbers in the tree:\n" + "\n".join(found)


def test_no_dated_runs_in_the_docs():
    found = []
    for path in tracked_files():
        if not (path == "README.md" or path.startswith("docs/")) or path in GENERATED:
            continue
        text = text_of(path)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if DATE.search(line):
                found.append(f"{path}:{n}: {line.strip()[:100]}")
    assert not found, "dated runs in README.md or docs/:\n" + "\n".join(found)
