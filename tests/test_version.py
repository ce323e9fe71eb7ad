"""One version: `[workspace.package] version` in Cargo.toml, which maturin writes into the package
metadata (`dynamic = ["version"]`, in PEP 440 spelling) and the extension module reports as
``pv.__version__`` (Cargo's spelling: the same for plain releases such as ``0.1.0``)."""

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pingvinas as pv

CARGO_TOML = Path(__file__).resolve().parent.parent / "Cargo.toml"


def python_version(cargo_version: str) -> str:
    """A Cargo (semver) version as maturin writes it into Python metadata: ``1.2.0-alpha.3``
    becomes ``1.2.0a3``, ``1.2.0-rc.1`` becomes ``1.2.0rc1``, ``1.2.0-dev0`` becomes
    ``1.2.0.dev0``."""
    m = re.fullmatch(r"(\d+\.\d+\.\d+)(?:-(alpha|beta|rc|dev)\.?(\d+))?", cargo_version)
    assert m, f"unexpected Cargo version {cargo_version!r}"
    release, pre, n = m.groups()
    return release + (
        {"alpha": "a", "beta": "b", "rc": "rc", "dev": ".dev"}[pre] + n if pre else ""
    )


def test_version_agrees_with_metadata():
    assert python_version(pv.__version__) == importlib.metadata.version("pingvinas")


def test_version_comes_from_cargo_toml():
    if not CARGO_TOML.exists():  # the tests run from an installed copy without the sources
        return
    text = CARGO_TOML.read_text()
    section = text.split("[workspace.package]", 1)[1].split("\n[", 1)[0]
    cargo_version = re.search(r'^version\s*=\s*"([^"]+)"', section, re.M).group(1)
    assert cargo_version == pv.__version__


def test_cli_version():
    out = subprocess.run(
        [sys.executable, "-m", "pingvinas", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"pingvinas {pv.__version__}"


def test_the_version_says_what_it_is():
    """A development version (``X.Y.Z-devN``) until a release is made; a release's version has
    its dated section in the changelog."""
    changelog = CARGO_TOML.parent / "CHANGELOG.md"
    if not changelog.exists():
        return
    text = changelog.read_text(encoding="utf-8")
    if "-dev" in pv.__version__:
        assert "## [Unreleased]" in text
    else:
        assert re.search(
            rf"^## \[{re.escape(pv.__version__)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", text, re.M
        ), f"CHANGELOG.md has no dated section for the release {pv.__version__}"
