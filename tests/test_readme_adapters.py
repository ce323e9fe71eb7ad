"""The framework examples of README.md ("Learning frameworks") run, each where its framework
is installed (plain code blocks: the README doctest does not run them)."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
FRAMEWORKS = {"Gymnasium": "gymnasium", "PettingZoo": "pettingzoo", "OpenSpiel": "pyspiel"}


def example(heading):
    """The first python code block under ``### heading`` of README.md."""
    text = README.read_text(encoding="utf-8")
    section = text.split(f"\n### {heading}\n", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.mark.parametrize("heading", list(FRAMEWORKS))
def test_framework_example_runs(heading, capsys):
    pytest.importorskip(FRAMEWORKS[heading])
    exec(compile(example(heading), f"README.md ({heading})", "exec"), {})
    assert capsys.readouterr().out.strip()
