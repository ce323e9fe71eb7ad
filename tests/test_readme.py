"""The examples in README.md run and print what the README says."""

import doctest
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_examples():
    result = doctest.testfile(str(README), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10
    assert result.failed == 0


ROOT = README.parent


def test_install_commands_work_from_a_checkout():
    """No release is published yet: every `pip install` that README.md, CONTRIBUTING.md and the
    docs give installs from the checkout (`.`, `".[extra]"`) or a package from PyPI, never
    `pingvinas` by name; each extra it names exists; the main command shows the build's progress
    and says beside it what it needs (Rust) and takes."""
    import re

    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import pytest

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
    readme = README.read_text(encoding="utf-8")
    two = readme[readme.index("## Two commands") : readme.index("## A tour")]
    assert "pip install -v . && pingvinas match" in two and "bash .ci/run" in two
    assert "https://rustup.rs" in two and "minutes" in two and "python -m pytest" in two
    assert two.index("python -m pytest") < two.index("bash .ci/run")  # the quick run first
