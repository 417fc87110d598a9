#!/usr/bin/env bash
# Trading-topology round trip (BENCHMARKS.md §3) with Artio 0.175 (and its Aeron), without Maven:
#   peers/e2e-artio/run.sh [--warmup N] [--iters N] [--threading SHARED|DEDICATED] [--spins N] [--timeout-ms MS]
# (--dict PATH and --cases LIST are accepted and ignored.) One JSON line on stdout, progress on stderr.
# JVM options: PEREGRINE_JVM_OPTS (default below: fixed 1 GiB heap, pre-touched, default G1 collector,
# plus Artio's latency flags: codec validation off, Agrona bounds checks off, and the module
# exports Agrona 2.x / Aeron need on JDK 17).
# Build first with scripts/deps.sh (or `mvn -q -B package` here).
set -euo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
JAR="$DIR/target/e2e-artio.jar"
[ -f "$JAR" ] || { echo "missing $JAR: run scripts/deps.sh first" >&2; exit 2; }
DEFAULT_OPTS="-Xms1g -Xmx1g -XX:+AlwaysPreTouch \
 -Dfix.codecs.no_validation=true -Dagrona.disable.bounds.checks=true \
 -XX:+UnlockDiagnosticVMOptions -XX:GuaranteedSafepointInterval=300000 \
 --add-exports java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED \
 --add-opens java.base/java.nio=ALL-UNNAMED"
# shellcheck disable=SC2086
exec java ${PEREGRINE_JVM_OPTS:-$DEFAULT_OPTS} \
    -cp "$JAR:$DIR/target/lib/*" peregrine.peers.e2e.E2eArtio "$@"
