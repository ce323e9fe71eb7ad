#!/usr/bin/env bash
# The release path, as users get it. maturin makes the sdist; pip builds the abi3 wheel *from that
# sdist* through maturin's PEP 517 backend in the release profile (what `pip install pingvinas`
# does where no wheel fits, and what the published wheels are: fat LTO, one codegen unit); the
# wheel is installed into fresh virtual environments of the oldest and the newest CPython this
# machine has (pyenv's, >= 3.9) and smoke-tested in each (.ci/smoke.py: import from
# site-packages, every bundled variant, a searched game, pickling, the version, the CLI).
# Building the wheel from the sdist rather than from the checkout proves both at once with one
# compile: the sdist is complete (every source file, Cargo.lock, the package data, README and
# LICENSE; it builds from an unpacked copy outside the repository) and the release wheel works.
# A second, separate sdist install would compile everything again (~6 min on a busy 2-core
# machine) and prove nothing more.
#
# On Linux (x86_64, aarch64) that one wheel is the portable one PyPI takes: manylinux2014, built
# without Docker by linking through zig against glibc 2.17 (`maturin[zig]` brings zig from PyPI;
# MATURIN_PEP517_ARGS hands `--zig --compatibility manylinux2014` to the PEP 517 backend, and
# `--no-build-isolation` lets that backend find the ziglang of this environment). `auditwheel
# show` must then find it manylinux2014 (manylinux_2_17) or older, needing no shared library
# beyond the system ones that the policy allows. A plain local build is tagged linux_x86_64,
# which PyPI refuses. Elsewhere (macOS runners) the wheel is the platform's own.
# PINGVINAS_WHEELS_LOCAL=1 builds the local-tag wheel on Linux too (no zig download).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

manylinux=0
if [ "$(uname -s)" = Linux ] && [ "${PINGVINAS_WHEELS_LOCAL:-0}" != 1 ]; then
    case "$(uname -m)" in x86_64 | aarch64) manylinux=1 ;; esac
fi
if [ "$manylinux" = 1 ]; then
    python -m pip install --quiet "maturin[zig]>=1.7,<2" "auditwheel>=6"
else
    python -m pip install --quiet "maturin>=1.7,<2"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step() { echo "wheels: $* ($SECONDS s so far)"; }

# The oldest and the newest CPython >= 3.9 under pyenv (the same machine image runs CI).
pythons=()
pyenv_versions="${PYENV_ROOT:-$HOME/.pyenv}/versions"
if [ -d "$pyenv_versions" ]; then
    # (bash 3 compatible: macOS runners.)
    found=$(
        for py in "$pyenv_versions"/*/bin/python3; do
            [ -x "$py" ] && "$py" -c 'import sys, venv; sys.exit(sys.version_info < (3, 9) or sys.implementation.name != "cpython")' 2>/dev/null \
                && echo "$("$py" -c 'import sys; print("%d.%03d" % sys.version_info[:2])') $py"
            true  # an unfit interpreter is left out, not an error
        done | sort | awk '{print $2}'
    )
    oldest=$(echo "$found" | head -n 1)
    newest=$(echo "$found" | tail -n 1)
    [ -n "$oldest" ] && pythons+=("$oldest")
    [ -n "$newest" ] && [ "$newest" != "$oldest" ] && pythons+=("$newest")
fi
if [ "${#pythons[@]}" -eq 0 ]; then
    echo "wheels: SKIPPED the pyenv interpreters: no CPython >= 3.9 under $pyenv_versions; smoke-testing with $(command -v python) only"
    pythons=("$(command -v python)")
elif [ "${#pythons[@]}" -eq 1 ]; then
    echo "wheels: only one CPython >= 3.9 under $pyenv_versions (${pythons[0]}): no second version to test"
fi

step "building the sdist, then the release abi3 wheel from it"
maturin sdist --out "$work/dist"
sdist=$(ls "$work"/dist/*.tar.gz)
# The repository's target directory keeps crates.io dependencies between local runs (on a clean
# clone it starts empty); the pingvinas crates compile from the sdist's own unpacked sources.
# (A zig-linked build keeps its own target directory: sharing one would rebuild everything
# each time the linker changes between this and the editable dev installs.)
# The sdist's files all carry one old timestamp and cargo hashes a crate's path relative to its
# workspace, so the pingvinas crates of an earlier run would look up to date and the wheel would
# hold an old extension: clean them (and only them) first, and never take pip's cached wheel.
clean_ours() {  # clean_ours TARGET_DIR [TRIPLE]
    # shellcheck disable=SC2086
    CARGO_TARGET_DIR="$1" cargo clean --quiet --release -p pingvinas-engine -p pingvinas-bindings \
        ${2:+--target "$2"}
}
if [ "$manylinux" = 1 ]; then
    clean_ours "$root/target/manylinux" "$(rustc -vV | sed -n 's/^host: //p')"
    env CARGO_TARGET_DIR="$root/target/manylinux" \
        MATURIN_PEP517_ARGS="--zig --compatibility manylinux2014" \
        python -m pip wheel --quiet --no-cache-dir --no-build-isolation --no-deps \
        --wheel-dir "$work/dist" "$sdist"
else
    clean_ours "$root/target"
    env -u MATURIN_PEP517_ARGS CARGO_TARGET_DIR="$root/target" \
        python -m pip wheel --quiet --no-cache-dir --no-deps --wheel-dir "$work/dist" "$sdist"
fi
wheel=$(ls "$work"/dist/*.whl)
case "$(basename "$wheel")" in
    *-cp39-abi3-*) ;;
    *) echo "wheels: $(basename "$wheel") is not a cp39-abi3 wheel" >&2; exit 1 ;;
esac
if [ "$manylinux" = 1 ]; then
    step "auditwheel show $(basename "$wheel")"
    python - "$wheel" <<'PY'
import re, subprocess, sys
wheel = sys.argv[1]
name = wheel.rsplit("/", 1)[-1]
out = subprocess.run(["auditwheel", "show", wheel], capture_output=True, text=True, check=True).stdout
print(out.strip())
text = " ".join(out.split())  # auditwheel wraps its lines
# Its tag names the newest glibc the wheel needs, and it lists libraries outside the policy.
tag = re.search(r'consistent with the following platform tag: "manylinux_(\d+)_(\d+)_\w+"', text)
if not tag:
    sys.exit("wheels: auditwheel found no manylinux tag for the wheel")
glibc = (int(tag[1]), int(tag[2]))
if glibc > (2, 17):
    sys.exit(f"wheels: the wheel needs glibc {glibc[0]}.{glibc[1]}, newer than manylinux2014's 2.17")
if "external shared libraries" in text:
    sys.exit("wheels: the wheel needs external shared libraries (see above)")
if "manylinux2014" not in name and "manylinux_2_17" not in name:
    sys.exit(f"wheels: {name} is not tagged manylinux2014")
print(f"wheels: {name}: manylinux_{glibc[0]}_{glibc[1]}, system libraries only")
PY
fi
# What users must find in the packages (a missing include would only show after release).
python - "$wheel" "$sdist" <<'PY'
import sys, tarfile, zipfile
wheel = zipfile.ZipFile(sys.argv[1]).namelist()
sdist = tarfile.open(sys.argv[2]).getnames()
def need(names, suffix, where):
    if not any(n.endswith(suffix) for n in names):
        sys.exit(f"wheels: {suffix} missing from the {where}")
# The bundled variants are compiled into the extension (rust/engine/variants/, read by the
# engine's table), so the sdist must carry them and the wheel needs no copy.
for suffix in ("pingvinas/_core.pyi", "pingvinas/py.typed", "pingvinas/web/static/index.html",
               "pingvinas/web/static/app.js", "pingvinas/web/static/style.css", "/LICENSE",
               "pingvinas/weights/fish-2p.safetensors"):
    need(wheel, suffix, "wheel")
for suffix in ("/LICENSE", "/Cargo.lock", "/pyproject.toml", "/rust/engine/Cargo.toml",
               "rust/engine/variants/fish.toml", "rust/engine/variants/marathon.toml",
               "pingvinas/web/static/app.js", "pingvinas/weights/fish-2p.safetensors"):
    need(sdist, suffix, "sdist")
print(f"wheels: {len(wheel)} files in the wheel, {len(sdist)} in the sdist")
PY
ls -l "$work/dist"

smoke() {  # smoke VENV: run the smoke test with that environment's python, outside the tree
    (cd "$work" && "$1/bin/python" "$root/.ci/smoke.py")
}

for py in "${pythons[@]}"; do
    step "the wheel on $("$py" --version)"
    venv="$work/venv-$(basename "$(dirname "$(dirname "$py")")")"
    "$py" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip
    "$venv/bin/python" -m pip install --quiet "$wheel"
    smoke "$venv"
done

step "done"
