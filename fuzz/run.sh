#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 60) each, starting from the committed seeds, and
# fails if any target finds a crash (a panic, an abort, a timeout or too much memory). Findings
# land in fuzz/artifacts/<target>/ (add them to fuzz/seeds/<target>/ once fixed), the growing
# corpus in fuzz/corpus/ (both ignored by git). CI runs `bash fuzz/run.sh 20`.
#   bash fuzz/run.sh [SECONDS] [TARGET...]
set -uo pipefail
cd "$(dirname "$0")"
seconds=${1:-60}
shift || true
if ! command -v cargo-fuzz >/dev/null; then
    # Installed once into ~/.cargo/bin (cached with it).
    cargo install cargo-fuzz --locked --quiet || exit 1
fi
export RUSTC_BOOTSTRAP=1
# Safe Rust needs no AddressSanitizer; debug assertions catch integer overflow.
flags=(--sanitizer none --debug-assertions)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo fuzz list)
cargo fuzz build "${flags[@]}" || exit 1
failed=()
for target in "${targets[@]}"; do
    # Inputs long enough to reach the size limits (course maps: 128 KiB).
    case "$target" in
        course_map | marathon_config) max_len=140000 ;;
        fish_json | marathon_json | fish_config) max_len=16384 ;;
        search | batch) max_len=256 ;;
        *) max_len=4096 ;;
    esac
    mkdir -p "corpus/$target"
    echo "== $target"
    if ! cargo fuzz run "${flags[@]}" "$target" "corpus/$target" "seeds/$target" -- \
        -max_total_time="$seconds" -max_len="$max_len" -timeout=20 -rss_limit_mb=1024 \
        >"corpus/$target.log" 2>&1; then
        failed+=("$target")
        grep -E "panicked|SUMMARY|artifact|ERROR" "corpus/$target.log"
    fi
    grep -E "^Done" "corpus/$target.log"
done
[ ${#failed[@]} -eq 0 ] || { echo "crashes in: ${failed[*]}"; exit 1; }
