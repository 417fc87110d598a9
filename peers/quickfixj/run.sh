#!/usr/bin/env bash
# Runs a QuickFIX/J harness without Maven:
#   peers/quickfixj/run.sh CodecBench --dict crates/peregrine-dict/dictionaries/FIX44.xml [--cases ..] [--iters N] [--warmup N]
#   peers/quickfixj/run.sh TypedBench --dict crates/peregrine-dict/dictionaries/FIX44.xml
#   peers/quickfixj/run.sh RoundTrip --role acceptor|initiator --config balanced|optimized|fsync \
#       --port P --dir DIR --dict crates/peregrine-dict/dictionaries/FIX44.xml [--iters N --warmup W]
#   peers/quickfixj/run.sh Stream --role receiver|sender ...; run.sh ManySessions --role acceptor|load ...
#   peers/quickfixj/run.sh JdbcStoreTurn --port P --user U FIX.4.4 SENDER TARGET write N|dump  (QuickFIX/J JdbcStore on PostgreSQL)
# JVM options: PEREGRINE_JVM_OPTS (default: fixed 1 GiB heap, pre-touched, default G1 collector;
# ManySessions: -Xms32m -Xmx4g, see below).
# Build first with scripts/deps.sh (or `mvn -q -B package` here).
set -euo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -ge 1 ] || { echo "usage: $0 CodecBench|TypedBench|RoundTrip|Stream|ManySessions [args...]" >&2; exit 2; }
MAIN="$1"; shift
JAR="$DIR/target/quickfixj-bench.jar"
[ -f "$JAR" ] || { echo "missing $JAR: run scripts/deps.sh first" >&2; exit 2; }
# ManySessions (BENCHMARKS.md section 5) is measured by its RSS per session: its heap starts small
# and is touched as it grows (no pre-touched 1 GiB), unless PEREGRINE_JVM_OPTS says otherwise.
DEFAULT_JVM_OPTS="-Xms1g -Xmx1g -XX:+AlwaysPreTouch"
[ "$MAIN" = ManySessions ] && DEFAULT_JVM_OPTS="-Xms32m -Xmx4g"
# shellcheck disable=SC2086
exec java ${PEREGRINE_JVM_OPTS:-$DEFAULT_JVM_OPTS} \
    -cp "$JAR:$DIR/target/lib/*" "peregrine.peers.$MAIN" "$@"
