//! The Logon handshake: an initiator's Logon, an acceptor's answer, and the
//! terms either side refuses.

use peregrine_codec::{msg_type, tag, value, MessageView};
use peregrine_store::MessageStore;

use crate::app::Application;
use crate::config::{appl_ver_id_code, Role, APPL_VER_IDS, MAX_HEARTBEAT_SECS};

use super::core::{Core, Live, State};
use super::events::{DisconnectReason, Escaped, SessionEvent};
use super::verify::{parse_seq, SeqCheck};

/// Terms of a Logon we cannot accept, as the Text(58) of the Logout that refuses it:
/// encryption (we support EncryptMethod(98)=0 only) or a HeartBtInt(108) outside
/// `0..=MAX_HEARTBEAT_SECS` (QuickFIX's range: an `int`, not negative).
pub(super) fn logon_terms_problem(msg: &MessageView<'_>) -> Option<&'static [u8]> {
    if msg.get(tag::ENCRYPT_METHOD).is_some_and(|v| v != b"0") {
        return Some(b"Unsupported EncryptMethod(98): only 0 (none) is supported");
    }
    if msg
        .get(tag::HEART_BT_INT)
        .is_some_and(|v| heartbeat_secs(v).is_none())
    {
        return Some(b"HeartBtInt(108) must be an integer from 0 to 2147483647");
    }
    None
}

/// HeartBtInt(108) in seconds, if it is in `0..=MAX_HEARTBEAT_SECS`.
pub(super) fn heartbeat_secs(v: &[u8]) -> Option<u32> {
    value::parse_u64(v)
        .ok()
        .filter(|&n| n <= u64::from(MAX_HEARTBEAT_SECS))
        .map(|n| n as u32)
}

/// What a Logon we send says beside EncryptMethod(98)=0 and, in a FIXT session,
/// the configured DefaultApplVerID(1137).
pub(super) struct LogonTerms {
    /// HeartBtInt(108).
    pub(super) heartbeat_secs: u64,
    /// ResetSeqNumFlag(141)=Y.
    pub(super) reset: bool,
    /// The configured Username(553) and Password(554) (an initiator's Logon).
    pub(super) credentials: bool,
    /// NextExpectedMsgSeqNum(789).
    pub(super) next_expected: Option<u64>,
}

impl<S: MessageStore> Core<S> {
    /// Whether a DefaultApplVerID(1137) from the wire is an ApplVerID: one of
    /// [`APPL_VER_IDS`]' codes (`0` … `10`: QuickFIX's own scripts log on with FIX
    /// Latest's `10`, which QuickFIX's FIXT11 dictionary does not list), or one the
    /// transport dictionary gives ApplVerID(1128) (QuickFIX/J's check: a custom
    /// dictionary may add values, or allow any).
    pub(super) fn is_appl_ver_id(&self, v: &[u8]) -> bool {
        APPL_VER_IDS.iter().any(|(code, _)| code.as_bytes() == v)
            || self
                .config
                .dictionaries
                .as_ref()
                .filter(|_| self.config.validation.use_data_dictionary)
                .and_then(|d| d.transport().field(tag::APPL_VER_ID))
                .is_some_and(|f| {
                    f.allow_other_values || f.values.iter().any(|e| e.value.as_bytes() == v)
                })
    }

    /// NextExpectedMsgSeqNum(789) for a Logon that opens or resets the session:
    /// the next target number, when the field is enabled.
    pub(super) fn next_expected_to_send(&self) -> Option<u64> {
        self.config
            .enable_next_expected_msg_seq_num
            .then(|| self.outgoing.store.next_target_seq())
    }

    /// Sends a Logon with these terms: the one writer of an initiator's Logon, an
    /// acceptor's answer and an in-session reset.
    pub(super) fn write_logon(&mut self, terms: LogonTerms, app: &mut dyn Application) {
        let appl = self
            .config
            .default_appl_ver_id
            .as_deref()
            .filter(|_| self.config.id.is_fixt())
            .map(|a| appl_ver_id_code(a).to_owned());
        let (user, password) = if terms.credentials {
            (self.config.username.clone(), self.config.password.clone())
        } else {
            (None, None)
        };
        self.send_admin(
            msg_type::LOGON,
            &[],
            &mut |m| {
                m.uint(tag::ENCRYPT_METHOD, 0)
                    .uint(tag::HEART_BT_INT, terms.heartbeat_secs);
                if terms.reset {
                    m.char(tag::RESET_SEQ_NUM_FLAG, b'Y');
                }
                if let Some(u) = &user {
                    m.str(tag::USERNAME, u.as_bytes());
                }
                if let Some(p) = &password {
                    m.str(tag::PASSWORD, p.as_bytes());
                }
                if let Some(n) = terms.next_expected {
                    m.uint(tag::NEXT_EXPECTED_MSG_SEQ_NUM, n);
                }
                if let Some(a) = &appl {
                    m.str(tag::DEFAULT_APPL_VER_ID, a.as_bytes());
                }
            },
            app,
        );
    }

    /// An initiator's Logon on a new connection (with ResetSeqNumFlag when
    /// `ResetOnLogon`), Username/Password and NextExpectedMsgSeqNum as configured.
    pub(super) fn send_logon(&mut self, app: &mut dyn Application) {
        let reset = self.config.reset_on_logon;
        if reset {
            self.reset_store();
        }
        let terms = LogonTerms {
            heartbeat_secs: u64::from(self.config.heartbeat_interval_secs),
            reset,
            credentials: true,
            next_expected: self.next_expected_to_send(),
        };
        self.write_logon(terms, app);
        self.state = State::LogonSent {
            since: self.now(),
            reset_sent: reset,
        };
    }

    /// A Logon: checked (state, schedule, sequence number, terms, the
    /// application's word, NextExpectedMsgSeqNum), answered by an acceptor (or by
    /// an initiator whose peer asked for a reset), and the session is logged on.
    pub(super) fn on_logon(&mut self, msg: &MessageView<'_>, app: &mut dyn Application) {
        let seq = parse_seq(msg.get(tag::MSG_SEQ_NUM)).unwrap_or(0);
        let reset_flag = msg.get(tag::RESET_SEQ_NUM_FLAG) == Some(b"Y");
        // Our Logon with ResetSeqNumFlag=Y, at logon or in session, that this one
        // answers.
        let reset_sent = matches!(
            self.state,
            State::LogonSent {
                reset_sent: true,
                ..
            }
        ) || self.live().is_some_and(|l| l.reset_sent);
        if self.logged_on() && !reset_flag {
            self.disconnect(DisconnectReason::InvalidState);
            return;
        }
        if self.config.refresh_on_logon && self.outgoing.store.refresh().is_err() {
            self.store_failed();
        }
        // A new session period began after this connection was made (its
        // Logon crossed the boundary): the sequence numbers on both ends are
        // still the ended period's. Logging on with them would only last until
        // the schedule timer logs out and the reset discards what was sent.
        // Refused; the next connection starts the period afresh on both sides
        // (QuickFIX/J checks the period before it accepts a Logon, QFJ-357 and
        // QFJ-926). A Logon that resets the numbers goes on as before.
        if !self.calendar.open() || (!reset_flag && !self.logged_on() && self.new_period()) {
            self.disconnect(DisconnectReason::OutsideSchedule);
            return;
        }
        if reset_flag && !reset_sent {
            self.reset_store();
        }
        if self.config.role == Role::Acceptor && self.config.reset_on_logon && !reset_flag {
            self.reset_store();
        }
        self.outgoing.writer.last_processed = seq;
        if !self.verify(msg, SeqCheck::TooLow, app) {
            return;
        }
        if let Some(text) = logon_terms_problem(msg) {
            self.send_logout(Some(text), app);
            self.disconnect(DisconnectReason::InvalidLogon);
            return;
        }
        if let Some(v) = msg
            .get(tag::DEFAULT_APPL_VER_ID)
            .filter(|v| self.config.id.is_fixt() && !self.is_appl_ver_id(v))
        {
            // QuickFIX/J's answer and text (LogonUnknownDefaultApplVerID).
            self.logout_and_disconnect(
                format_args!("Invalid DefaultApplVerID={}", Escaped(v)),
                DisconnectReason::InvalidLogon,
                app,
            );
            return;
        }
        if self.config.id.is_fixt() {
            self.peer_appl_ver_id = msg
                .get(tag::DEFAULT_APPL_VER_ID)
                .and_then(|v| std::str::from_utf8(v).ok())
                .map(Into::into);
        }
        if let Err(r) = self.app_from_admin(msg, app) {
            self.send_logout(Some(r.text.as_bytes()), app);
            self.disconnect(DisconnectReason::LogonRejected);
            return;
        }
        let next_expected = if self.config.enable_next_expected_msg_seq_num {
            parse_seq(msg.get(tag::NEXT_EXPECTED_MSG_SEQ_NUM))
        } else {
            None
        };
        if let Some(n) = next_expected {
            let next_sender = self.outgoing.store.next_sender_seq();
            if n > next_sender {
                self.logout_and_disconnect(
                    format_args!(
                        "Tag 789 (NextExpectedMsgSeqNum) is higher than expected. Expected {next_sender}, Received {n}"
                    ),
                    DisconnectReason::NextExpectedTooHigh,
                    app,
                );
                return;
            }
        }
        let expected = self.expected();
        let next_sender_before = self.outgoing.store.next_sender_seq();
        let mut heartbeat_secs = self.config.heartbeat_interval_secs;
        if !reset_sent && (self.config.role == Role::Acceptor || reset_flag) {
            // We answer: with the peer's HeartBtInt.
            heartbeat_secs = msg
                .get(tag::HEART_BT_INT)
                .and_then(self::heartbeat_secs)
                .unwrap_or(self.config.heartbeat_interval_secs);
            let heartbeat = u64::from(heartbeat_secs);
            let our_next_expected =
                (self.config.enable_next_expected_msg_seq_num).then_some(if seq == expected {
                    expected + 1
                } else {
                    expected
                });
            let terms = LogonTerms {
                heartbeat_secs: heartbeat,
                reset: reset_flag,
                credentials: false,
                next_expected: our_next_expected,
            };
            self.write_logon(terms, app);
        }
        self.state = State::LoggedOn(Live::new(heartbeat_secs, self.now()));
        self.events.push_back(SessionEvent::LoggedOn);
        self.outgoing.counters.logged_on();
        if let Some(n) = next_expected {
            let next_sender = self.outgoing.store.next_sender_seq();
            if n < next_sender_before {
                self.resend(n, next_sender - 1, app);
            }
        }
        if seq > expected && !reset_flag {
            if next_expected.is_some() {
                self.too_high_logon_awaiting_resend(msg, seq, app);
            } else {
                self.too_high(msg, seq, app);
            }
        } else {
            self.incr_target();
        }
        self.flush_events(app);
        self.with_outbox(true, |id, out| app.on_logon(id, out));
        self.send_kept(app);
    }
}
