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
# Called by .ci/run (inside its virtual environment); runs alone too: bash .ci/wheels.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

python -m pip install --quiet "maturin>=1.7,<2"
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
env -u MATURIN_PEP517_ARGS CARGO_TARGET_DIR="$root/target" \
    python -m pip wheel --quiet --no-deps --wheel-dir "$work/dist" "$sdist"
wheel=$(ls "$work"/dist/*.whl)
case "$(basename "$wheel")" in
    *-cp39-abi3-*) ;;
    *) echo "wheels: $(basename "$wheel") is not a cp39-abi3 wheel" >&2; exit 1 ;;
esac
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
               "pingvinas/web/static/app.js", "pingvinas/web/static/style.css", "/LICENSE"):
    need(wheel, suffix, "wheel")
for suffix in ("/LICENSE", "/Cargo.lock", "/pyproject.toml", "/rust/engine/Cargo.toml",
               "rust/engine/variants/fish.toml", "rust/engine/variants/marathon.toml",
               "pingvinas/web/static/app.js"):
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
