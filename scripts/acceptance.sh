#!/usr/bin/env bash
# Runs the QuickFIX acceptance scripts against `peregrine acceptor` over TCP,
# with the in-memory store and again with the file store. The scripts are the
# repository's copy (acceptance/quickfix) unless PEREGRINE_ACCEPTANCE_DIR names another;
# then the scripts QuickFIX/J adds (acceptance/quickfixj, compared by QuickFIX/J's rule).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DIR="${PEREGRINE_ACCEPTANCE_DIR:-$ROOT/acceptance/quickfix}"
if [ ! -d "$DIR/definitions" ]; then
    echo "acceptance: skipped, no acceptance scripts at $DIR (set PEREGRINE_ACCEPTANCE_DIR)"
    exit 0
fi
# Binaries are where cargo puts them: CARGO_TARGET_DIR when set, else target/; the
# release build's unless PEREGRINE_PROFILE names another directory (`make test`: debug,
# where the test profile's binaries are).
BIN="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/${PEREGRINE_PROFILE:-release}"
QFJ_DIR="$ROOT/acceptance/quickfixj"
for store in memory file; do
    echo "acceptance: store=$store"
    "$BIN/peregrine-acceptance" --acceptance-dir "$DIR" --store "$store" --jobs "${ACCEPTANCE_JOBS:-8}" \
        --acceptor-cmd "$BIN/peregrine acceptor --config {cfg} --app echo"
    echo "acceptance: QuickFIX/J's scripts, store=$store"
    "$BIN/peregrine-acceptance" --acceptance-dir "$QFJ_DIR" --store "$store" --jobs "${ACCEPTANCE_JOBS:-8}" \
        --acceptor-cmd "$BIN/peregrine acceptor --config {cfg} --app echo"
done
