#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 60) each, starting from the committed seeds, and
# fails if any target finds a crash. Findings land in fuzz/artifacts/<target>/, the growing
# corpus in fuzz/corpus/ (both ignored by git).
set -uo pipefail
cd "$(dirname "$0")"
seconds=${1:-60}
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
export RUSTC_BOOTSTRAP=1
failed=()
for target in $(cargo fuzz list); do
    mkdir -p "corpus/$target"
    echo "== $target"
    if ! cargo fuzz run "$target" "corpus/$target" "seeds/$target" -- -max_total_time="$seconds" >"corpus/$target.log" 2>&1; then
        failed+=("$target")
        grep -E "panicked|SUMMARY|artifact" "corpus/$target.log"
    fi
    grep -E "^Done" "corpus/$target.log"
done
[ ${#failed[@]} -eq 0 ] || { echo "crashes in: ${failed[*]}"; exit 1; }
