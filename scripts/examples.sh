#!/usr/bin/env bash
# The first application (examples/venue.rs, examples/client.rs) against each
# other over TCP on 127.0.0.1 with the file store: the client sends orders from
# another thread; once 300 are answered the venue is killed with SIGKILL and
# restarted. The client must see every order answered exactly once by its
# ClOrdID (resends recognised by PossDupFlag) and exit 0.
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
ORDERS=${ORDERS:-1000}

$CARGO build -q -p peregrine-examples --examples
bin=${CARGO_TARGET_DIR:-target}/debug/examples

work=$(mktemp -d)
venue_pid=
client_pid=
cleanup() {
    [ -n "$venue_pid" ] && kill -9 "$venue_pid" 2>/dev/null || true
    [ -n "$client_pid" ] && kill -9 "$client_pid" 2>/dev/null || true
    if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
for side in venue client; do
    sed -e "s|^SocketAcceptPort=.*|SocketAcceptPort=$port|" \
        -e "s|^SocketConnectPort=.*|SocketConnectPort=$port|" \
        -e "s|^FileStorePath=.*|FileStorePath=$work/$side-store|" \
        -e "s|^FileLogPath=.*|FileLogPath=$work/$side-log|" \
        "examples/$side.cfg" > "$work/$side.cfg"
done

"$bin/venue" "$work/venue.cfg" > "$work/venue-1.out" 2>&1 &
venue_pid=$!
"$bin/client" "$work/client.cfg" "$ORDERS" \
    > "$work/client.out" 2>&1 &
client_pid=$!

# Kill the venue in the middle of the flow.
answered() { awk '/^answered/ { n = $2 } END { print n + 0 }' "$work/client.out" 2>/dev/null; }
for _ in $(seq 1 600); do
    [ "$(answered)" -ge 300 ] && break
    sleep 0.05
done
[ "$(answered)" -ge 300 ] || { echo "examples: the client never got 300 answers"; cat "$work/client.out" "$work/venue-1.out"; exit 1; }
kill -9 "$venue_pid"
wait "$venue_pid" 2>/dev/null || true
echo "examples: venue killed (SIGKILL) after $(answered) answers; restarting it"
sleep 0.5
"$bin/venue" "$work/venue.cfg" > "$work/venue-2.out" 2>&1 &
venue_pid=$!

status=0
wait "$client_pid" || status=$?
client_pid=
cat "$work/client.out" | grep -v '^answered' || true
kill -TERM "$venue_pid"
wait "$venue_pid" 2>/dev/null || true
venue_pid=
if [ "$status" -ne 0 ]; then
    echo "examples: FAILED (client exit $status)"
    tail -20 "$work/venue-2.out" "$work/client.out"
    exit 1
fi
grep -q "answered once $ORDERS, not answered 0, answered more than once 0" "$work/client.out"
# The crash must have cost the venue orders that only the FIX resend brought back.
resent=$(sed -n 's/.*messages resent at the venue.s request \([0-9]*\).*/\1/p' "$work/client.out")
if [ "${resent:-0}" -eq 0 ]; then
    echo "examples: FAILED (the venue's crash was not recovered by a resend: the test proved nothing)"
    exit 1
fi
echo "examples: every one of $ORDERS orders answered exactly once across a venue crash ($resent messages resent at the restarted venue's request)"
