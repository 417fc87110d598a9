#!/usr/bin/env bash
# The order router (examples/router.rs) between three clients (examples/client.rs
# as C1, C2 and C3, made from the router's acceptor template) and the exchange
# (examples/exchange.rs, over TLS: a CA and a certificate made here with openssl),
# file stores on every side, the router on one engine journal. While the clients
# send their orders the router is killed (SIGKILL) KILLS times at random points and
# restarted at once. Every client must see each of its orders filled exactly once (a
# New, then one Fill; an order the router rejected because its exchange session was not
# logged on yet is sent again within 100 ms under a new ClOrdID, as a client would):
# resent copies (PossDupFlag=Y) are recognised, a report sent twice as a new message
# is a failure; an order the exchange took twice would be filled twice.
#
# Then, when the QuickFIX/J peers are built (make deps), the same clients and exchange
# (fresh stores) against the same router on QuickFIX/J 2.3.1 (peers/quickfixj/.../
# firstapp/Router.java, settings peers/quickfixj/firstapp/router.cfg, a PKCS12 trust
# store made here from the CA with keytool), killed QFJ_KILLS times (default KILLS)
# with QFJ_ORDERS orders a client (default ORDERS): what each client and the exchange
# saw is measured and printed. And both routers' lengths (lines neither blank nor
# comments): examples/router.rs may not be the longer.
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
ORDERS=${ORDERS:-1500}
KILLS=${KILLS:-5}
QFJ_ORDERS=${QFJ_ORDERS:-$ORDERS}
QFJ_KILLS=${QFJ_KILLS:-$KILLS}

# The test profile's examples: in `make test` (PEREGRINE_BUILT=1) those its `cargo test` built.
[ -n "${PEREGRINE_BUILT:-}" ] || $CARGO build -q -p peregrine-examples --examples --profile test
bin=${CARGO_TARGET_DIR:-target}/debug/examples
qfj=peers/quickfixj/run.sh
qfj_jvm="-Xms256m -Xmx256m"
work=$(mktemp -d)
pids=()
router_pid=
cleanup() {
    for p in "${pids[@]}" $router_pid; do kill -9 "$p" 2>/dev/null || true; done
    if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

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
settings() { # FILE NAME [DIR]
    local dir=${3:-$work}
    sed -e "s|^SocketAcceptPort=9880|SocketAcceptPort=$gw_port|" \
        -e "s|^SocketConnectPort=9880|SocketConnectPort=$gw_port|" \
        -e "s|^SocketAcceptPort=9881|SocketAcceptPort=$ex_port|" \
        -e "s|^SocketConnectPort=9881|SocketConnectPort=$ex_port|" \
        -e "s|target/examples/tls|$tls|" \
        -e "s|^FileStorePath=.*|FileStorePath=$dir/$2-store|" \
        -e "s|^FileLogPath=.*|FileLogPath=$dir/$2-log|" \
        "$1" > "$dir/$2.cfg"
}
client_settings() { # DIR
    for c in C1 C2 C3; do
        sed -e "s|^SocketConnectPort=.*|SocketConnectPort=$gw_port|" \
            -e "s|^SenderCompID=.*|SenderCompID=$c|" -e "s|^TargetCompID=.*|TargetCompID=GW|" \
            -e "s|^FileStorePath=.*|FileStorePath=$1/$c-store|" \
            -e "s|^FileLogPath=.*|FileLogPath=$1/$c-log|" \
            examples/client.cfg > "$1/$c.cfg"
    done
}
# The exchange's message log: how many orders it took as new, and how many of them
# twice (a PossDupFlag=Y resend of one it had is the same order). Exit 3 if any twice.
exchange_check() { # LABEL DIR
    python3 - "$1" "$2"/exchange-log/*.messages.log <<'PY'
import collections, sys
new = collections.Counter()
for line in open(sys.argv[2], encoding="latin-1"):
    fields = dict(f.split("=", 1) for f in line.split(" : ", 1)[-1].strip().split("\x01") if "=" in f)
    if fields.get("35") == "D" and fields.get("49") == "GW" and fields.get("43") != "Y":
        new[fields.get("11")] += 1
twice = [k for k, n in new.items() if n > 1]
print(f"{sys.argv[1]}: the exchange took {len(new)} orders as new, {len(twice)} of them twice")
sys.exit(3 if twice else 0)
PY
}

gw_port=$(free_port)
ex_port=$(free_port)
settings examples/router.cfg router
settings examples/exchange.cfg exchange
client_settings "$work"

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
# No order may have come to the exchange twice as a new message.
exchange_check "router example" "$work" || status=1
if [ "$status" -ne 0 ]; then
    tail -n 20 "$work"/router-*.out "$work/exchange.out"
    exit 1
fi
echo "router example: 3 clients x $ORDERS orders each filled exactly once across $KILLS kills of the router"
for p in "${pids[@]}" $router_pid; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
pids=()
router_pid=

# The same with the router on QuickFIX/J. It stores a forward inside fromApp and the
# incoming MsgSeqNum after fromApp returns (each session its own file store), so a kill
# between the two makes the restarted router forward that message again as a new one:
# orders the exchange takes twice, reports a client gets twice. Those are measured and
# printed, not failures. The run fails if it could not start (the router never came up,
# a client did not log on, the exchange took no order: TLS or the initiator broken), or
# if any order went unanswered: every forward and sequence number is written to the
# operating system before the next step and a kill -9 does not lose what was written, so
# a loss would be a bug of Router.java or of this script, not QuickFIX/J's behaviour.
if [ ! -f peers/quickfixj/target/quickfixj-bench.jar ]; then
    echo "router example: QuickFIX/J router not built (make deps): its run skipped"
else
    label="router example (QuickFIX/J router)"
    qdir=$work/quickfixj
    mkdir -p "$qdir"
    keytool -importcert -noprompt -alias ca -file "$tls/ca.pem" -keystore "$tls/ca.p12" \
        -storetype PKCS12 -storepass changeit > /dev/null 2>&1
    gw_port=$(free_port)
    ex_port=$(free_port)
    settings peers/quickfixj/firstapp/router.cfg router "$qdir"
    settings examples/exchange.cfg exchange "$qdir"
    client_settings "$qdir"
    "$bin/exchange" "$qdir/exchange.cfg" > "$qdir/exchange.out" 2>&1 &
    pids+=($!)
    # The router's log of its exchange session: a restart has come up once it logs on.
    ex_log=$qdir/router-log/FIX.4.4-GW-EXCH.event.log
    logons() { cat "$ex_log" 2>/dev/null | grep -c 'Received logon' || true; }
    start_qfj_router() { # N: returns once its exchange session has logged on
        local before
        before=$(logons)
        PEREGRINE_JVM_OPTS="$qfj_jvm" "$qfj" firstapp.Router "$qdir/router.cfg" > "$qdir/router-$1.out" 2>&1 &
        router_pid=$!
        for _ in $(seq 1 300); do
            [ "$(logons)" -gt "$before" ] && return
            kill -0 "$router_pid" 2>/dev/null || break
            sleep 0.1
        done
        echo "$label: FAILED (the QuickFIX/J router did not start, or did not log on to the exchange in 30 s; make deps rebuilds it)"
        cat "$qdir/router-$1.out"
        exit 1
    }
    start_qfj_router 0
    client_pids=()
    for c in C1 C2 C3; do
        "$bin/client" "$qdir/$c.cfg" "$QFJ_ORDERS" > "$qdir/$c.out" 2>&1 &
        client_pids+=($!)
        pids+=($!)
    done
    answered() { awk '/^answered/ { n = $2 } END { print n + 0 }' "$qdir/C1.out" 2>/dev/null; }
    for k in $(seq 1 "$QFJ_KILLS"); do
        # A random point of the flow: 0.2 to 0.9 s after the router's exchange session
        # logged on (its JVM and TLS take a second or two to come up: killed earlier it
        # would have forwarded nothing yet).
        sleep "0.$((RANDOM % 8 + 2))"
        kill -9 "$router_pid"
        wait "$router_pid" 2>/dev/null || true
        echo "$label: router killed (SIGKILL) $k of $QFJ_KILLS times, C1 had $(answered) answers; restarting it"
        start_qfj_router "$k"
    done
    status=0
    for i in 0 1 2; do
        c=C$((i + 1))
        s=0
        wait "${client_pids[$i]}" || s=$?
        grep -v '^answered' "$qdir/$c.out" | sed "s|^|$label: $c: |" || true
        if ! grep -q "^orders $QFJ_ORDERS: .* not answered 0," "$qdir/$c.out"; then
            echo "$label: FAILED ($c exit $s: orders not answered, or no result)"
            status=1
        fi
    done
    s=0
    took=$(exchange_check "$label" "$qdir") || s=$?
    echo "$took"
    if [ "$s" -ne 0 ] && [ "$s" -ne 3 ] || [[ "$took" == *" took 0 orders"* ]]; then
        echo "$label: FAILED (the exchange's log unread, or no order reached the exchange)"
        status=1
    fi
    if [ "$status" -ne 0 ]; then
        tail -n 20 "$qdir"/router-*.out "$qdir/exchange.out"
        exit 1
    fi
    echo "$label: 3 clients x $QFJ_ORDERS orders, none lost across $QFJ_KILLS kills of the router; duplicates above are QuickFIX/J's at-least-once"
fi

# Lines that are neither blank nor comments.
code_lines() { grep -v -E '^\s*(//|$)' "$1" | wc -l; }
java_router=peers/quickfixj/src/main/java/peregrine/peers/firstapp/Router.java
ours=$(code_lines examples/router.rs)
theirs=$(code_lines "$java_router")
echo "router example: router: Peregrine $ours lines, QuickFIX/J $theirs lines (not blank, not comments)"
if [ "$ours" -gt "$theirs" ]; then
    echo "router example: FAILED (examples/router.rs is longer than $java_router)"
    exit 1
fi
