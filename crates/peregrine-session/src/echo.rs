//! The echo application of the QuickFIX acceptance scripts.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use peregrine_codec::MessageView;
use peregrine_dict::{Dictionaries, FlatScope};

use crate::app::{AppReject, Application, Outbox};
use crate::config::{is_pre_fix42, SessionId};
use peregrine_codec::msg_type;
use peregrine_codec::tag::{self, is_standard_header, is_standard_trailer};

/// ClOrdID(11): the echo remembers it to drop resent duplicates.
const CL_ORD_ID: u32 = 11;

/// The echo application the QuickFIX acceptance scripts expect behind an acceptor:
///
/// * NewOrderSingle (35=D) and, from FIX.4.2 on, SecurityDefinition (35=d) are sent back
///   on the same session: the same body fields, values as received, in ascending tag
///   order (a repeating group stays in one piece, its entries in their order), under a
///   fresh standard header; PossResend(97)=Y is carried over.
/// * A message with PossResend(97)=Y whose ClOrdID(11) was already seen since the
///   Logon is dropped silently.
/// * Any other application message is unsupported: BusinessMessageReject (35=j, 380=3)
///   from FIX.4.2 on, a session Reject before.
///
/// ClOrdIDs are remembered as 64-bit fingerprints in a set reserved up front, so that
/// echoing allocates nothing in the steady state.
///
/// ```
/// use peregrine_session::{EchoApp, Role, Session, SessionConfig, SessionId};
/// use peregrine_store::MemoryStore;
/// let now = 1_700_000_000_000_000_000i64;
/// let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
/// let mut s = Session::new(cfg, MemoryStore::new(now), now);
/// let mut app = EchoApp::new(None);
/// s.on_connected(now, &mut app);
/// # fn fix(s: &str) -> Vec<u8> {
/// #     let mut f = s.split('|').filter(|f| !f.is_empty()).map(|f| f.split_once('=').unwrap());
/// #     let (_, begin) = f.next().unwrap();
/// #     let (_, msg_type) = f.next().unwrap();
/// #     let mut buf = peregrine_codec::EncodeBuffer::new();
/// #     let mut m = buf.start(begin.as_bytes(), msg_type.as_bytes());
/// #     for (t, v) in f { m.str(t.parse().unwrap(), v.as_bytes()); }
/// #     m.finish().to_vec()
/// # }
/// s.on_bytes(&fix("8=FIX.4.4|35=A|34=1|49=TW|52=20231114-22:13:20.000|56=ISLD|98=0|108=30"), now, &mut app);
/// s.commit()?;
/// s.consume_outbound(s.outbound().len(), &mut app);
/// s.on_bytes(&fix("8=FIX.4.4|35=D|34=2|49=TW|52=20231114-22:13:20.000|56=ISLD|55=X|11=A|54=1"), now, &mut app);
/// s.commit()?;
/// let out = String::from_utf8_lossy(s.outbound()).replace('\x01', "|");
/// assert!(out.contains("|56=TW|11=A|54=1|55=X|10="), "{out}");
/// # Ok::<(), peregrine_store::StoreError>(())
/// ```
#[derive(Debug)]
pub struct EchoApp {
    dicts: Option<Arc<Dictionaries>>,
    seen: HashSet<u64, BuildHasherDefault<Identity>>,
    items: Vec<(u32, u32, u32)>,
}

/// The set's keys are already FNV-1a fingerprints: hashing them again is wasted work.
#[derive(Default)]
struct Identity(u64);

impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// FNV-1a, 64 bits.
fn fingerprint(v: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in v {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The end (exclusive index) of the group whose first entry starts at field `i`.
fn group_end(scope: FlatScope<'_>, msg: &MessageView<'_>, mut i: usize, depth: usize) -> usize {
    while i < msg.len() {
        let field_tag = msg.field(i).tag;
        if field_tag == tag::CHECK_SUM || !scope.contains(field_tag) {
            break;
        }
        i += 1;
        if depth < 16 {
            if let Some(g) = scope.group(field_tag) {
                i = group_end(g, msg, i, depth + 1);
            }
        }
    }
    i
}

impl EchoApp {
    /// An echo application; with dictionaries, header fields and repeating groups are
    /// recognised from them (else from the standard header tags, without groups).
    pub fn new(dicts: Option<Arc<Dictionaries>>) -> Self {
        EchoApp {
            dicts,
            seen: HashSet::with_capacity_and_hasher(1 << 14, Default::default()),
            items: Vec::with_capacity(256),
        }
    }

    fn is_header(&self, tag: u32) -> bool {
        match &self.dicts {
            Some(d) => d.transport().is_header_tag(tag),
            None => is_standard_header(tag),
        }
    }

    fn is_trailer(&self, tag: u32) -> bool {
        match &self.dicts {
            Some(d) => d.transport().is_trailer_tag(tag),
            None => is_standard_trailer(tag),
        }
    }

    /// Collects the body as (tag, first field, end field) items sorted by tag.
    fn collect_body(&mut self, msg: &MessageView<'_>) {
        self.items.clear();
        let dicts = self.dicts.clone();
        let scope = dicts.as_ref().and_then(|d| {
            std::str::from_utf8(msg.msg_type()).ok().and_then(|t| {
                // A FIXT session with a dictionary per ApplVerID: the message's.
                msg.get(tag::APPL_VER_ID)
                    .and_then(|v| d.application_for(v))
                    .unwrap_or(d.application())
                    .message_scope(t)
            })
        });
        let mut i = 0;
        while i < msg.len() {
            let tag = msg.field(i).tag;
            if self.is_header(tag) || self.is_trailer(tag) {
                i += 1;
                continue;
            }
            let mut end = i + 1;
            if let Some(g) = scope.and_then(|s| s.group(tag)) {
                end = group_end(g, msg, i + 1, 0);
            }
            self.items.push((tag, i as u32, end as u32));
            i = end;
        }
        self.items.sort_unstable_by_key(|&(t, s, _)| (t, s));
    }
}

impl Application for EchoApp {
    fn on_logon(&mut self, _id: &SessionId, _out: &mut Outbox<'_>) {
        self.seen.clear();
    }

    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        let kind = msg.msg_type();
        let echo = kind == msg_type::NEW_ORDER_SINGLE
            || (kind == msg_type::SECURITY_DEFINITION && !is_pre_fix42(msg.begin_string()));
        if !echo {
            return Err(AppReject::UnsupportedMessageType);
        }
        let poss_resend = msg.get(tag::POSS_RESEND) == Some(b"Y");
        if let Some(id) = msg.get(CL_ORD_ID) {
            let fp = fingerprint(id);
            if !self.seen.insert(fp) && poss_resend {
                return Ok(());
            }
        }
        self.collect_body(msg);
        let header: &[(u32, &[u8])] = if poss_resend {
            &[(tag::POSS_RESEND, b"Y")]
        } else {
            &[]
        };
        let items = &self.items;
        let _ = out.send_with_header(kind, header, |m| {
            for &(_, start, end) in items {
                for j in start..end {
                    let f = msg.field(j as usize);
                    m.str(f.tag, f.value);
                }
            }
        });
        Ok(())
    }
}
