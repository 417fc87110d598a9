//! # peregrine-session
//!
//! The FIX session layer as a deterministic **sans-IO** state machine: bytes and time
//! in; bytes out, application callbacks, events and the next deadline. No sockets, no
//! threads; the driver's `now` drives the timers (SendingTime is read from a
//! [`SessionClock`] as each message is encoded: the system clock, or the driver's
//! `now` for deterministic tests) — every protocol rule is testable in microseconds.
//!
//! It covers what the QuickFIX acceptance scripts check: Logon as acceptor and
//! initiator (HeartBtInt, ResetSeqNumFlag, DefaultApplVerID, NextExpectedMsgSeqNum),
//! heartbeats and test requests, sequence gaps (ResendRequest, optionally chunked, with
//! the too-high messages queued until the gap is filled), resends from the store with
//! PossDupFlag/OrigSendingTime and SequenceReset-GapFill, SequenceReset, rejects with
//! QuickFIX's exact reasons and texts (via `peregrine-dict`'s validator), ReverseRoute,
//! garbled messages ignored, the Logout handshake, LastMsgSeqNumProcessed and session
//! schedules.
//!
//! The engine drives a [`Session`]:
//!
//! ```
//! use peregrine_session::{EchoApp, Role, Session, SessionConfig, SessionEvent, SessionId};
//! use peregrine_store::MemoryStore;
//!
//! let mut now = 1_700_000_000_000_000_000i64; // nanoseconds since the epoch
//! let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
//! let mut session = Session::new(cfg, MemoryStore::new(now), now);
//! let mut app = EchoApp::new(None);
//!
//! session.on_connected(now, &mut app);
//! # fn fix(s: &str) -> Vec<u8> {
//! #     let mut f = s.split('|').filter(|f| !f.is_empty()).map(|f| f.split_once('=').unwrap());
//! #     let (_, begin) = f.next().unwrap();
//! #     let (_, msg_type) = f.next().unwrap();
//! #     let mut buf = peregrine_codec::EncodeBuffer::new();
//! #     let mut m = buf.start(begin.as_bytes(), msg_type.as_bytes());
//! #     for (t, v) in f { m.str(t.parse().unwrap(), v.as_bytes()); }
//! #     m.finish().to_vec()
//! # }
//! session.on_bytes(&fix("8=FIX.4.4|35=A|34=1|49=TW|52=20231114-22:13:20.000|56=ISLD|98=0|108=30"), now, &mut app);
//! // Commit what the input stored (one commit may follow many calls), then write
//! // session.outbound() to the socket:
//! session.commit()?;
//! let n = session.outbound().len();
//! session.consume_outbound(n, &mut app);
//! session.settle()?; // what the commit left for after the write (a file store's witness)
//! while let Some(ev) = session.poll_event() {
//!     if let SessionEvent::Disconnect(_) = ev { /* flush, close, on_disconnected */ }
//! }
//! // Time passes: call on_timer at the deadline; a Heartbeat goes out after 30 s.
//! now = session.next_deadline().unwrap();
//! session.on_timer(now, &mut app);
//! session.commit()?;
//! assert!(session.outbound().windows(5).any(|w| w == b"35=0\x01"));
//! # Ok::<(), peregrine_store::StoreError>(())
//! ```
//!
//! The application behind a session implements [`Application`]: QuickFIX/J's callbacks
//! (`on_create`, `on_logon`, `on_logout`, `to_admin`, `from_admin`, `to_app`, `from_app`)
//! without copies, plus `on_event` for the connection and session events ([`AppEvent`]);
//! only `from_app` is required.
//!
//! [`EchoApp`] is the acceptance scripts' echo application, reusable by the engine and
//! the CLI.
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![warn(clippy::missing_errors_doc)]

mod app;
mod config;
pub mod defaults;
mod echo;
mod lent_decoder;
pub mod metrics;
mod on_demand;
mod peers;
mod schedule;
mod session;

pub use app::{
    AdminMessage, AppReject, Application, DoNotSend, Outbox, OutgoingMessage, RefId, RejectLogon,
    SendError, SharedApp,
};
pub use config::{
    appl_ver_id_code, known_appl_ver_id, system_now, Clock, Nanos, Role, SessionClock,
    SessionConfig, SessionId, ValidationOptions, APPL_VER_IDS, DEFAULT_MAX_LOGON_SIZE,
    MAX_HEARTBEAT_SECS, MAX_SEQ_NUM, SECOND,
};
pub use echo::EchoApp;
pub use peers::{PeerStatus, Peers, SessionRef, To};
pub use peregrine_dict::Dictionaries;
pub use schedule::{DailyTime, Days, Schedule, TimeZone, Window, WindowState};
pub use session::{
    peek_session_id, AppEvent, DisconnectReason, Forward, LogoutReason, PeekError, RejectInfo,
    RejectKind, SendRefusal, Session, SessionEvent, SessionState,
};
