//! The fields an application adds to a message the session sends, and their setters.

use peregrine_codec::{tag, MessageEncoder};

use super::{AdminMessage, Application};
use crate::config::SessionId;

// For the documentation's links only.
#[cfg(doc)]
use super::{Outbox, OutgoingMessage};

/// Header fields the session writes itself: [`AdminMessage`] does not replace them,
/// and [`Outbox::send_with_header`] refuses them.
pub(crate) fn session_owned(t: u32) -> bool {
    matches!(
        t,
        tag::BEGIN_STRING
            | tag::BODY_LENGTH
            | tag::MSG_TYPE
            | tag::MSG_SEQ_NUM
            | tag::SENDER_COMP_ID
            | tag::TARGET_COMP_ID
            | tag::SENDING_TIME
            | tag::POSS_DUP_FLAG
            | tag::ORIG_SENDING_TIME
            | tag::LAST_MSG_SEQ_NUM_PROCESSED
            | tag::CHECK_SUM
    )
}

/// The setters of the messages an application adds fields to ([`AdminMessage`] in
/// [`Application::to_admin`], [`OutgoingMessage`] in [`Application::to_app`]): one
/// definition, so both read and behave alike.
macro_rules! field_setters {
    ($ty:ident) => {
        /// Adds a field with this value, as its bytes.
        ///
        /// ```
        #[doc = concat!("# use peregrine_session::", stringify!($ty), ";")]
        /// use peregrine_codec::tag;
        #[doc = concat!("fn credentials(msg: &mut ", stringify!($ty), "<'_>) {")]
        ///     msg.str(tag::USERNAME, b"user").str(tag::PASSWORD, b"secret");
        /// }
        /// ```
        pub fn str(&mut self, tag: u32, value: &[u8]) -> &mut Self {
            self.fields.push(tag, value);
            self
        }

        /// Adds an unsigned integer field.
        ///
        /// ```
        #[doc = concat!("# use peregrine_session::", stringify!($ty), ";")]
        /// use peregrine_codec::tag;
        #[doc = concat!("fn appl_ver(msg: &mut ", stringify!($ty), "<'_>) {")]
        ///     msg.uint(tag::DEFAULT_APPL_VER_ID, 9); // FIX.5.0SP2
        /// }
        /// ```
        pub fn uint(&mut self, tag: u32, v: u64) -> &mut Self {
            let mut b = [0u8; 20];
            let n = peregrine_codec::value::format_u64(v, &mut b);
            self.str(tag, &b[..n])
        }

        /// Adds a signed integer field.
        ///
        /// ```
        #[doc = concat!("# use peregrine_session::", stringify!($ty), ";")]
        #[doc = concat!("fn offset(msg: &mut ", stringify!($ty), "<'_>) {")]
        ///     msg.int(9001, -5);
        /// }
        /// ```
        pub fn int(&mut self, tag: u32, v: i64) -> &mut Self {
            let mut b = [0u8; 20];
            let n = peregrine_codec::value::format_i64(v, &mut b);
            self.str(tag, &b[..n])
        }

        /// Adds a one-character field.
        ///
        /// ```
        #[doc = concat!("# use peregrine_session::", stringify!($ty), ";")]
        #[doc = concat!("fn cancel_on_disconnect(msg: &mut ", stringify!($ty), "<'_>) {")]
        ///     msg.char(35002, b'Y');
        /// }
        /// ```
        pub fn char(&mut self, tag: u32, v: u8) -> &mut Self {
            self.str(tag, &[v])
        }

        /// Adds a Boolean field (`Y` or `N`).
        ///
        /// ```
        #[doc = concat!("# use peregrine_session::", stringify!($ty), ";")]
        #[doc = concat!("fn flag(msg: &mut ", stringify!($ty), "<'_>) {")]
        ///     msg.bool(8013, true);
        /// }
        /// ```
        pub fn bool(&mut self, tag: u32, v: bool) -> &mut Self {
            self.char(tag, if v { b'Y' } else { b'N' })
        }

        /// Adds a data field after its length field (e.g. RawDataLength(95) and
        /// RawData(96)).
        ///
        /// ```
        #[doc = concat!("# use peregrine_session::", stringify!($ty), ";")]
        /// use peregrine_codec::tag;
        #[doc = concat!("fn signature(msg: &mut ", stringify!($ty), "<'_>, sig: &[u8]) {")]
        ///     msg.data(tag::RAW_DATA_LENGTH, tag::RAW_DATA, sig);
        /// }
        /// ```
        pub fn data(&mut self, length_tag: u32, data_tag: u32, bytes: &[u8]) -> &mut Self {
            self.uint(length_tag, bytes.len() as u64)
                .str(data_tag, bytes)
        }
    };
}
pub(super) use field_setters;

/// The fields [`Application::to_admin`] adds to one admin message, kept by the
/// session between messages (cleared, never shrunk: after the first messages, adding
/// fields allocates nothing).
#[derive(Debug, Default)]
pub(crate) struct AddedFields {
    bytes: Vec<u8>,
    /// (tag, start, end) in `bytes`, in the order added.
    fields: Vec<(u32, usize, usize)>,
}

impl AddedFields {
    /// Asks the application for the fields of an admin message of `msg_type` numbered
    /// `seq`.
    pub(crate) fn collect(
        &mut self,
        app: &mut dyn Application,
        msg_type: &[u8],
        seq: u64,
        id: &SessionId,
    ) {
        self.clear();
        app.to_admin(&mut AdminMessage::new(msg_type, seq, self), id);
    }

    /// No fields (a message written as it is).
    pub(crate) fn none() -> &'static AddedFields {
        static NONE: AddedFields = AddedFields {
            bytes: Vec::new(),
            fields: Vec::new(),
        };
        &NONE
    }

    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.fields.clear();
    }

    /// How many fields were added (a tag added twice counts twice).
    pub(super) fn len(&self) -> usize {
        self.fields.len()
    }

    /// Whether nothing was added (or only fields the session owns, which it ignores).
    pub(crate) fn is_empty(&self) -> bool {
        self.fields.iter().all(|&(t, _, _)| session_owned(t))
    }

    fn get(&self, i: usize) -> (u32, &[u8]) {
        let (t, s, e) = self.fields[i];
        (t, &self.bytes[s..e])
    }

    /// The value added last for `t` (a tag added twice keeps its last value); `None`
    /// for a tag the session owns.
    pub(crate) fn value_of(&self, t: u32) -> Option<&[u8]> {
        if session_owned(t) {
            return None;
        }
        (0..self.fields.len())
            .rev()
            .map(|i| self.get(i))
            .find(|&(added, _)| added == t)
            .map(|(_, v)| v)
    }

    /// The fields added, each tag once with its last value, in the order added,
    /// except those the session owns and those `present` says the message has.
    pub(crate) fn absent(
        &self,
        present: impl Fn(u32) -> bool,
    ) -> impl Iterator<Item = (u32, &[u8])> {
        let last = |i: usize| !self.fields[i + 1..].iter().any(|f| f.0 == self.fields[i].0);
        (0..self.fields.len())
            .filter(move |&i| last(i))
            .map(|i| self.get(i))
            .filter(move |&(t, _)| !session_owned(t) && !present(t))
    }

    /// The header fields added (those the session writes itself left out).
    pub(crate) fn header(&self) -> impl Iterator<Item = (u32, &[u8])> {
        (0..self.fields.len())
            .map(|i| self.get(i))
            .filter(|&(t, _)| tag::is_standard_header(t) && !session_owned(t))
    }

    /// Writes the body fields added, in the order added.
    pub(crate) fn write_body(&self, m: &mut MessageEncoder<'_>) {
        for i in 0..self.fields.len() {
            let (t, v) = self.get(i);
            if !tag::is_standard_header(t) && !session_owned(t) {
                m.str(t, v);
            }
        }
    }

    pub(super) fn push(&mut self, t: u32, value: &[u8]) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(value);
        self.fields.push((t, start, self.bytes.len()));
    }
}
