#!/usr/bin/env bash
# Runs a QuickFIX/J harness without Maven:
#   peers/quickfixj/run.sh CodecBench --dict crates/peregrine-dict/dictionaries/FIX44.xml [--cases ..] [--iters N] [--warmup N]
#   peers/quickfixj/run.sh TypedBench --dict crates/peregrine-dict/dictionaries/FIX44.xml
#   peers/quickfixj/run.sh RoundTrip --role acceptor|initiator --config balanced|optimized|fsync \
#       --port P --dir DIR --dict crates/peregrine-dict/dictionaries/FIX44.xml [--iters N --warmup W]
# JVM options: PEREGRINE_JVM_OPTS (default: fixed 1 GiB heap, pre-touched, default G1 collector).
# Build first with scripts/deps.sh (or `mvn -q -B package` here).
set -euo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -ge 1 ] || { echo "usage: $0 CodecBench|TypedBench|RoundTrip [args...]" >&2; exit 2; }
MAIN="$1"; shift
JAR="$DIR/target/quickfixj-bench.jar"
[ -f "$JAR" ] || { echo "missing $JAR: run scripts/deps.sh first" >&2; exit 2; }
# shellcheck disable=SC2086
exec java ${PEREGRINE_JVM_OPTS:--Xms1g -Xmx1g -XX:+AlwaysPreTouch} \
    -cp "$JAR:$DIR/target/lib/*" "peregrine.peers.$MAIN" "$@"
