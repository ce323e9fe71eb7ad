"""An earlier build of pingvinas to measure against, named by a folder it is installed in or by
a git revision of this repository (built once, a release wheel, and kept).

    python benches/baseline.py 43b0d3a        # prints the folder it is installed in

``benches/strength.py --baseline`` and ``benches/versus_baseline.py --new/--old`` take either,
so that a page's command names the build it was measured against and remakes it anywhere.
Builds are kept in ``$PINGVINAS_BASELINES`` (default ``~/.cache/pingvinas/baselines``), one
folder a commit, with one cargo target folder for all of them (dependencies built once).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(
    os.environ.get("PINGVINAS_BASELINES", Path.home() / ".cache" / "pingvinas" / "baselines")
)


def is_installed(folder: Path) -> bool:
    return (folder / "pingvinas" / "__init__.py").is_file()


def commit_of(revision: str) -> str:
    """The full hash of ``revision`` in this repository; ``ValueError`` when it names none."""
    r = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        raise ValueError(f"{revision!r} is neither a folder with pingvinas installed nor a commit")
    return r.stdout.strip()


def installed(spec: str) -> Path:
    """The folder holding the pingvinas that ``spec`` names: a folder where one is installed
    (``pip install --no-deps --target DIR WHEEL``), or a git revision, built here the first
    time (a few minutes) and kept.
    """
    if is_installed(Path(spec)):
        return Path(spec)
    commit = commit_of(spec)
    dest = CACHE / commit
    if is_installed(dest):
        return dest
    print(f"building pingvinas at {commit[:12]} into {dest}", file=sys.stderr, flush=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        src, wheels, partial = Path(tmp, "src"), Path(tmp, "wheels"), Path(tmp, "installed")
        tree = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True)
        with tarfile.open(fileobj=io.BytesIO(tree.stdout)) as tar:
            tar.extractall(src, filter="data")
        env = {**os.environ, "CARGO_TARGET_DIR": str(CACHE / "target")}
        pip = [sys.executable, "-m", "pip", "--quiet"]
        subprocess.run([*pip, "wheel", "--no-deps", "-w", wheels, src], env=env, check=True)
        (wheel,) = wheels.glob("*.whl")
        subprocess.run([*pip, "install", "--no-deps", "--target", partial, wheel], check=True)
        # Moved in whole, so that a build stopped halfway is never taken for one.
        shutil.move(partial, dest)
    return dest


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} FOLDER_OR_REVISION")
    try:
        print(installed(sys.argv[1]))
    except ValueError as e:
        sys.exit(str(e))
