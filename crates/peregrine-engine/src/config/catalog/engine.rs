//! The engine's own keys: templates, the admin interface, the idle strategy,
//! slow consumers and high availability.

use peregrine_session::defaults as d;

use super::{flag, number, text, DefaultValue, Key, OURS, QFJ};
use crate::config::ha::{DEFAULT_HA_GROUP, DEFAULT_HA_LEASE_TTL};

const QUEUE: (&str, u64, u64) = ("bytes", 4_096, 1 << 36);

pub(super) const KEYS: &[Key] = &[
    flag(
        "AcceptorTemplate",
        QFJ,
        false,
        "acceptor, Y: the session is a template, not a session: `SenderCompID`, `TargetCompID` (or both) may be `*`, and a Logon on its port that no configured session takes but that fits it creates a session with the Logon's CompIDs (QuickFIX/J's dynamic sessions), with the template's other keys; `*` without it is an error. Example: [examples/acceptor-template.cfg](../../examples/acceptor-template.cfg)",
    ),
    number(
        "MaxTemplateSessions",
        OURS,
        ("count", 1, 1_000_000),
        DefaultValue::Number(1_000),
        "the most sessions a template keeps at once ({range}); a Logon past it is refused (the connection closed, a `tracing` warning saying why), as each session holds a store and logs. Sessions a template made before a restart come back whatever the bound, and count against it. Only with `AcceptorTemplate=Y`",
    ),
    text(
        "AllowedTargetCompIDs",
        OURS,
        "CompIDs, comma-separated",
        "none (any)",
        "a template's allow list: the counterparties' CompIDs (our `TargetCompID`), comma-separated; a Logon from another is refused like one naming no session. Only with `AcceptorTemplate=Y`",
    ),
    number(
        "AdminHttpPort",
        OURS,
        ("port", 0, 65_535),
        DefaultValue::Text("none (off)"),
        "the operator's HTTP interface ([Admin HTTP](#admin-http)) listens on this port; absent or 0 = no admin interface; {range}. Taken from the first session",
    ),
    text(
        "AdminHttpAddress",
        OURS,
        "an IP address",
        "127.0.0.1",
        "the IP address it listens on (e.g. `::1`, or `0.0.0.0` for every interface: plain HTTP, so a trusted network only); not an IP address = error",
    ),
    text(
        "AdminHttpToken",
        OURS,
        "printable ASCII, no spaces",
        "none",
        "bearer token the commands that change the engine (`/seqnum`) need; without it they are refused (403). Printable ASCII, no spaces; never logged",
    ),
    text(
        "IdleStrategy",
        OURS,
        "busy-spin, spin-then-yield[:SPINS], backoff[:MAX_MICROS] or block",
        "block",
        "`busy-spin`, `spin-then-yield[:SPINS]` (SPINS 1 to 1000000000, default 100), `backoff[:MAX_MICROS]` (Agrona's back-off: 10 spins, 5 yields, then parks from 1 µs doubling up to MAX_MICROS, 1 to 1000000, default 1000), `block` (epoll). From the first session; the strategies are `peregrine-agent`'s, shared with the topology and the Aeron loops. Under a strategy that never waits in `epoll` (all but `block`), a turn reads and writes every ready socket and takes commands and log flushes every time, but runs the timers pass (heartbeats, reconnects, timeouts, which visits every session) at most once a millisecond per 1,000 sessions. Under `busy-spin` (the engine's thread owns its core) an engine turned by its own loop (`run`, `turn`; not `poll`) with 1 to 4 connections reads their sockets directly and asks epoll every 8th turn (accepts, connects): one system call less per message (BENCHMARKS §4: −0.8 µs per round trip); those sockets are out of epoll while it does (no epoll wake-up on each incoming segment: −0.3 µs more), a write that would block is tried again each direct turn, and a fifth connection (or `poll`, or a runner's `do_work` asked to wait) puts them back",
    ),
    number(
        "MaxOutboundQueueBytes",
        OURS,
        QUEUE,
        DefaultValue::Number(d::MAX_OUTBOUND_QUEUE_BYTES as u64),
        "slow-consumer limit on a session's unsent bytes; {range}",
    ),
    text(
        "SlowConsumerAction",
        OURS,
        "disconnect or flag",
        "disconnect",
        "`disconnect`, or `flag` (visible in `/sessions` and the event log)",
    ),
    number(
        "SlowConsumerHardLimit",
        OURS,
        ("bytes", 4_096, 1 << 38),
        DefaultValue::Text("4 × `MaxOutboundQueueBytes`"),
        "unsent bytes past which the session is disconnected even with `flag`, and which its outbound buffer never exceeds by more than the one message of a resend in progress and the GapFill before it (a new message that would is stored, for the resend, not queued); {range}, at least `MaxOutboundQueueBytes`",
    ),
    text(
        "HaNodeName",
        OURS,
        "letters, digits, -, _, .",
        "none (no high availability)",
        "this node's name in its session group's leadership on etcd ([docs/standby.md](../../docs/standby.md)); letters, digits, `-`, `_`, `.`; the other `Ha` keys need it. `peregrine acceptor`/`initiator` then hold their sessions until this node leads its group; a program using the library starts `peregrine-ha`'s `Leadership` and passes its gate (`EngineOptions::write_gate`). One per engine",
    ),
    text(
        "HaPeers",
        OURS,
        "names, comma-separated",
        "none",
        "the other nodes' names, comma-separated; not this node, none twice. One per engine",
    ),
    text(
        "HaEtcdEndpoints",
        OURS,
        "host:port or http://host:port, comma-separated",
        "none (required with `HaNodeName`)",
        "etcd's client endpoints, comma-separated `host:port` or `http://host:port` (no TLS yet). One per engine",
    ),
    number(
        "HaLeaseTTL",
        OURS,
        ("seconds", 1, 3_600),
        DefaultValue::Number(DEFAULT_HA_LEASE_TTL),
        "the leadership lease's TTL in seconds (etcd may grant more: its minimum); a node that cannot renew it stops counting itself leader a tenth of it (at least 100 ms) before it could expire; {range}. One per engine",
    ),
    text(
        "HaGroup",
        OURS,
        "a name",
        DEFAULT_HA_GROUP,
        "the session group whose leader this session follows (one leader key per group); may differ per session",
    ),
];
