#!/usr/bin/env bash
# The order router (examples/router.rs) between three clients (examples/client.rs
# as C1, C2 and C3, made from the router's acceptor template) and the exchange
# (examples/exchange.rs, over TLS: a CA and a certificate made here with openssl),
# file stores on every side, the router on one engine journal. While the clients
# send their orders the router is killed (SIGKILL) KILLS times at random points and
# restarted at once. Every client must see each of its orders answered exactly once
# (a New and one Fill, or one Rejected when the exchange was not logged on yet):
# resent copies (PossDupFlag=Y) are recognised, a report sent twice as a new message
# is a failure; an order the exchange took twice would be filled twice.
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
ORDERS=${ORDERS:-1500}
KILLS=${KILLS:-5}

$CARGO build -q -p peregrine-examples --examples
bin=${CARGO_TARGET_DIR:-target}/debug/examples
work=$(mktemp -d)
pids=()
router_pid=
cleanup() {
    for p in "${pids[@]}" $router_pid; do kill -9 "$p" 2>/dev/null || true; done
    if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
gw_port=$(free_port)
ex_port=$(free_port)

# TLS for the exchange: a CA, and a certificate for localhost signed by it.
tls=$work/tls
mkdir -p "$tls"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=router example CA" \
    -keyout "$tls/ca.key" -out "$tls/ca.pem" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
    -keyout "$tls/exchange.key" -out "$tls/exchange.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost\n' > "$tls/san.ext"
openssl x509 -req -days 2 -in "$tls/exchange.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" \
    -CAcreateserial -extfile "$tls/san.ext" -out "$tls/exchange.pem" 2>/dev/null

# The example's settings, with this run's ports and directories.
settings() { # FILE NAME
    sed -e "s|^SocketAcceptPort=9880|SocketAcceptPort=$gw_port|" \
        -e "s|^SocketConnectPort=9880|SocketConnectPort=$gw_port|" \
        -e "s|^SocketAcceptPort=9881|SocketAcceptPort=$ex_port|" \
        -e "s|^SocketConnectPort=9881|SocketConnectPort=$ex_port|" \
        -e "s|target/examples/tls|$tls|" \
        -e "s|^FileStorePath=.*|FileStorePath=$work/$2-store|" \
        -e "s|^FileLogPath=.*|FileLogPath=$work/$2-log|" \
        "$1" > "$work/$2.cfg"
}
settings examples/router.cfg router
settings examples/exchange.cfg exchange
for c in C1 C2 C3; do
    sed -e "s|^SocketConnectPort=.*|SocketConnectPort=$gw_port|" \
        -e "s|^SenderCompID=.*|SenderCompID=$c|" -e "s|^TargetCompID=.*|TargetCompID=GW|" \
        -e "s|^FileStorePath=.*|FileStorePath=$work/$c-store|" \
        -e "s|^FileLogPath=.*|FileLogPath=$work/$c-log|" \
        examples/client.cfg > "$work/$c.cfg"
done

"$bin/exchange" "$work/exchange.cfg" > "$work/exchange.out" 2>&1 &
pids+=($!)
start_router() {
    "$bin/router" "$work/router.cfg" > "$work/router-$1.out" 2>&1 &
    router_pid=$!
}
start_router 0
sleep 0.5
client_pids=()
for c in C1 C2 C3; do
    "$bin/client" "$work/$c.cfg" "$ORDERS" > "$work/$c.out" 2>&1 &
    client_pids+=($!)
    pids+=($!)
done

answered() { awk '/^answered/ { n = $2 } END { print n + 0 }' "$work/C1.out" 2>/dev/null; }
for k in $(seq 1 "$KILLS"); do
    # A random point of the flow: 0.2 to 0.9 s after the router came (back) up.
    sleep "0.$((RANDOM % 8 + 2))"
    kill -9 "$router_pid"
    wait "$router_pid" 2>/dev/null || true
    echo "router example: router killed (SIGKILL) $k of $KILLS times, C1 had $(answered) answers; restarting it"
    start_router "$k"
done

status=0
for i in 0 1 2; do
    c=C$((i + 1))
    s=0
    wait "${client_pids[$i]}" || s=$?
    grep -v '^answered' "$work/$c.out" | sed "s/^/router example: $c: /" || true
    if [ "$s" -ne 0 ] || ! grep -q "not answered 0, answered more than once 0" "$work/$c.out"; then
        echo "router example: FAILED ($c exit $s)"
        status=1
    fi
done
# The exchange's message log: no order may have come twice as a new message (a
# PossDupFlag=Y resend of one it had is the same order).
python3 - "$work"/exchange-log/*.messages.log <<'PY' || status=1
import collections, sys
new = collections.Counter()
for line in open(sys.argv[1], encoding="latin-1"):
    fields = dict(f.split("=", 1) for f in line.split(" : ", 1)[-1].strip().split("\x01") if "=" in f)
    if fields.get("35") == "D" and fields.get("49") == "GW" and fields.get("43") != "Y":
        new[fields.get("11")] += 1
twice = [k for k, n in new.items() if n > 1]
print(f"router example: the exchange took {len(new)} orders as new, {len(twice)} of them twice")
sys.exit(1 if twice else 0)
PY
if [ "$status" -ne 0 ]; then
    tail -n 20 "$work"/router-*.out "$work/exchange.out"
    exit 1
fi
echo "router example: 3 clients x $ORDERS orders each answered exactly once across $KILLS kills of the router"
