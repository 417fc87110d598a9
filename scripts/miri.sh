#!/usr/bin/env bash
# Miri over the modules with `unsafe` code (the codec's SIMD scanner and output
# window, the counting allocator), when a nightly toolchain with Miri is
# installed; otherwise says so and passes. Miri interprets the code and reports
# undefined behaviour (out-of-bounds reads, misaligned or dangling pointers)
# that the ordinary tests cannot see. It runs the SSE2 and scalar paths (Miri
# enables only the target's baseline features); the AVX2 and AVX-512 paths are
# checked against the scalar one by the ordinary tests.
set -euo pipefail
if ! cargo +nightly miri --version >/dev/null 2>&1; then
    echo "miri: skipped (no nightly toolchain with Miri; install with" \
         "'rustup toolchain install nightly --component miri rust-src')"
    exit 0
fi
# proptest persists failures under the working directory: Miri's isolation
# forbids getcwd, so it is lifted; few cases, as Miri is ~1000x slower.
export MIRIFLAGS="-Zmiri-disable-isolation"
export PROPTEST_CASES=4
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/miri-build"
cargo +nightly miri test -p peregrine-codec --lib -- simd:: out::
cargo +nightly miri test -p peregrine-alloc --doc
