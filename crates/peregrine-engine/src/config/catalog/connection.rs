//! The session's identity, how it connects, its sockets and TLS.

use super::{
    flag, number, text, with_suffix, DefaultValue, Key, KeySuffix, GO, OURS, QF, QFJ, QFJ_GO,
};

const PORT: u64 = 65_535;
const BUFFER: (&str, u64, u64) = ("bytes", 1_024, 1 << 30);

pub(super) const KEYS: &[Key] = &[
    text(
        "BeginString",
        QF,
        "FIX.4.0 … FIX.4.4, FIXT.1.1",
        "required",
        "the session's FIX version",
    ),
    text(
        "SenderCompID",
        QF,
        "a CompID",
        "required",
        "our CompID(49); `*` in a template (`AcceptorTemplate`)",
    ),
    text(
        "TargetCompID",
        QF,
        "a CompID",
        "required",
        "the counterparty's CompID(56); `*` in a template (`AcceptorTemplate`)",
    ),
    text(
        "SessionQualifier",
        QF,
        "text",
        "none",
        "tells apart sessions with the same BeginString and CompIDs",
    ),
    text(
        "ConnectionType",
        QF,
        "acceptor or initiator",
        "acceptor",
        "`acceptor` or `initiator`",
    ),
    number(
        "SocketAcceptPort",
        QF,
        ("port", 0, PORT),
        DefaultValue::Text("required for acceptors"),
        "{range} (0: any free port, for tests); sessions with the same port share one listener and are routed by CompIDs",
    ),
    text(
        "SocketAcceptAddress",
        QFJ,
        "an address",
        "0.0.0.0",
        "the address listened on; `SocketAcceptHost` is the same key (different values = error)",
    ),
    text(
        "SocketAcceptHost",
        GO,
        "an address",
        "0.0.0.0",
        "QuickFIX/Go's name for `SocketAcceptAddress` (different values = error)",
    ),
    with_suffix(
        text(
            "SocketConnectHost",
            QF,
            "a host name or address",
            "required for initiators",
            "the host an initiator connects to, with `SocketConnectPort`; `SocketConnectHost1`/`SocketConnectPort1`, … make a failover list: the next address after a failed or timed-out connect (logon timeout) or a connection that ends before its Logon is answered (a refused logon); a host that took the Logon is kept (reconnects go to it first, as QuickFIX/J users asked in its #1260); one attempt per reconnect interval (`ReconnectInterval`), no growing back-off",
        ),
        KeySuffix::Number,
    ),
    with_suffix(
        number(
            "SocketConnectPort",
            QF,
            ("port", 1, PORT),
            DefaultValue::Text("required for initiators"),
            "the port of `SocketConnectHost` (`SocketConnectPort1` of `SocketConnectHost1`, …); {range}",
        ),
        KeySuffix::Number,
    ),
    number(
        "ReconnectInterval",
        QF,
        ("seconds", 1, 86_400),
        DefaultValue::Number(30),
        "seconds between connection attempts; {range}",
    ),
    flag("SocketNodelay", QF, true, "TCP_NODELAY"),
    number(
        "SocketSendBufferSize",
        QF,
        BUFFER,
        DefaultValue::Text("OS"),
        "SO_SNDBUF in bytes; {range}",
    ),
    number(
        "SocketReceiveBufferSize",
        QF,
        BUFFER,
        DefaultValue::Text("OS"),
        "SO_RCVBUF in bytes; {range}",
    ),
    flag(
        "SocketUseSSL",
        QFJ_GO,
        false,
        "Y: the connection speaks TLS (rustls, TLS 1.2 and 1.3); an acceptor's TLS is its port's: every session on a port must set the same TLS keys",
    ),
    text(
        "SocketCertificateFile",
        GO,
        "a PEM file",
        "none",
        "PEM: our certificate chain (ours first); required for an acceptor, an initiator's client certificate for mutual TLS; a file that does not read stops start-up naming file, line and key",
    ),
    text(
        "SocketPrivateKeyFile",
        GO,
        "a PEM file",
        "none",
        "PEM: the key of `SocketCertificateFile` (PKCS#8, PKCS#1 or SEC1); a file that does not read or a key that does not match stops start-up naming file, line and key",
    ),
    text(
        "SocketCAFile",
        GO,
        "a PEM file",
        "none",
        "PEM: the certificates a peer's chain must lead to; an initiator without it trusts Mozilla's roots (built in, `webpki-roots`); an acceptor with it checks a client certificate when one is offered",
    ),
    flag(
        "NeedClientAuth",
        QFJ,
        false,
        "acceptor, Y: the initiator must present a certificate leading to `SocketCAFile` (mutual TLS; needs `SocketCAFile`)",
    ),
    text(
        "SocketServerName",
        GO,
        "a DNS name or an IP address",
        "the connect host",
        "initiator: the name sent as SNI and checked against the acceptor's certificate (a DNS name or an IP address)",
    ),
    text(
        "SocketMinimumTLSVersion",
        GO,
        "TLS12 or TLS13",
        "TLS12",
        "TLS12 (1.2 and 1.3) or TLS13 (1.3 only); older versions are refused",
    ),
    text(
        "Username",
        OURS,
        "text",
        "none",
        "Username(553) in an initiator's Logon; an acceptor's application checks it in `from_admin` (a refusal is a Logout with its text)",
    ),
    text(
        "Password",
        OURS,
        "text",
        "none",
        "Password(554) in an initiator's Logon, with `Username`",
    ),
];
