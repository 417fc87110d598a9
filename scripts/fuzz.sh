#!/usr/bin/env bash
# The cargo-fuzz targets, FUZZ_SECONDS (default 60) each: `decode` (the codec's decoder)
# and `session` (the simulator's actions, from fuzzer bytes, through two real sessions,
# every invariant checked). Needs a nightly toolchain and cargo-fuzz (`make deps`
# installs cargo-fuzz when a nightly toolchain is there); otherwise says so and passes.
# New inputs go to target/fuzz-corpus/<target> (the committed seeds in fuzz/corpus are
# read, never written); a crash is saved in fuzz/artifacts and fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_EACH=${FUZZ_SECONDS:-60}
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly' || ! cargo +nightly fuzz --help >/dev/null 2>&1; then
    echo "fuzz: skipped (no nightly toolchain with cargo-fuzz; 'rustup toolchain install nightly'," \
         "then 'make deps' installs cargo-fuzz)"
    exit 0
fi
for target in decode session; do
    scratch="$ROOT/${CARGO_TARGET_DIR:-target}/fuzz-corpus/$target"
    mkdir -p "$scratch"
    seeds=()
    [ -d "$ROOT/fuzz/corpus/$target" ] && seeds=("$ROOT/fuzz/corpus/$target")
    echo "fuzz: $target for ${SECONDS_EACH} s"
    (cd fuzz && cargo +nightly fuzz run "$target" "$scratch" "${seeds[@]}" -- \
        -max_total_time="$SECONDS_EACH" -print_final_stats=1 2>&1 | tail -n 12)
done
