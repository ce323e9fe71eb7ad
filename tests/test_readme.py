"""README.md: its Python runs (as the docs' code does, tests/test_docs.py), it stays a front door
(short, an example on the first screen, no benchmark tables), and its commands are the ones that
work from a checkout and the ones CI runs."""

import re
from pathlib import Path

import pytest

from test_docs import blocks, run_page

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def test_readme_code_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert len(list(blocks(README))) >= 1
    run_page(README)


def test_readme_is_a_front_door():
    text = README.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines (at most 200)"
    first = [n for n, line in enumerate(lines, 1) if line.startswith("```python")]
    assert first and first[0] <= 60, "README.md needs a Python example within its first 60 lines"
    example = next(code for _, code in blocks(README))
    for call in ("new_state", "legal_moves", "pv.search", "pv.VectorEnv"):
        assert call in example, f"README's first example does not show {call}"
    # Figures live on docs/performance.md alone: no table of rates or ratios here.
    for line in lines:
        if line.startswith("|"):
            assert not re.search(r"\d[\d,.]*\s*(/s|µs|ms|x\b)|\bx\d|\d\.\d{2}", line), line
    assert "docs/performance.md" in text


def test_the_player_table_says_what_auto_is_at_each_player_count():
    """`auto` is a different player with two players and with more: README's row says what it
    is in each case, and the strength page, not README, ranks the players."""
    text = README.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `auto` |"))
    two, more = row.split("3 or more")
    assert "2 players" in two and "learned evaluation" in two and "PUCT" in two
    assert "MCTS valuing its leaves" in more and "PUCT" in more and "stronger" not in more
    table = text[text.index("## Which player should I use") :]
    assert "(docs/strength.md)" in table[: table.index("| agent |")]


def test_the_test_commands_are_the_ones_ci_runs():
    """README's quick test command is pytest's default run; `.ci/run` runs the same pytest with
    the slow tests as README says it does."""
    readme = README.read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    two = readme[readme.index("## Two commands") : readme.index("## In a program")]
    assert "pip install -v . && pingvinas match" in two and "bash .ci/run" in two
    assert "https://rustup.rs" in two and "minutes" in two and "&& python -m pytest\n" in two
    assert two.index("python -m pytest") < two.index("bash .ci/run")  # the quick run first
    said = re.search(r'`python -m\s+pytest -m "" tests`', two)
    assert said, "README says which pytest command .ci/run runs"
    ran = re.findall(r"^python -m pytest .*$", ci, re.M)
    assert any('-m ""' in r and r.endswith(" tests") for r in ran), ran


def test_install_commands_work_from_a_checkout():
    """No release is published yet: every `pip install` that README.md, CONTRIBUTING.md and the
    docs give installs from the checkout (`.`, `".[extra]"`) or a package from PyPI, never
    `pingvinas` by name; each extra it names exists."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        tomllib = pytest.importorskip("tomli")
    pyproject = ROOT / "pyproject.toml"
    docs = ROOT / "docs"
    if not pyproject.exists() or not docs.exists():  # an installed copy of the tests
        return
    extras = set(tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"])
    pages = [README, ROOT / "CONTRIBUTING.md", *sorted(docs.glob("*.md"))]
    seen = 0
    for page in pages:
        # Joined lines: a command in backticks may wrap.
        text = " ".join(page.read_text(encoding="utf-8").split())
        for found in re.finditer(r"pip install ([^`#&;)]+)", text):
            command = found.group(1)
            seen += 1
            if "once" in text[max(0, found.start() - 60) : found.start()].lower():
                continue  # "once a release is published, `pip install pingvinas` will ..."
            for arg in command.split():
                name = arg.strip("\"'`")
                assert not re.match(r"pingvinas\b", name), f"{page.name}: pip install {command}"
                extra = re.fullmatch(r"\.\[([\w,]+)\]", name)
                for e in extra.group(1).split(",") if extra else ():
                    assert e in extras, f"{page.name}: no extra {e!r} (pip install {command})"
    assert seen > 5
