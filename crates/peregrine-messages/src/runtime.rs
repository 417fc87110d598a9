//! The hand-written support every generated message, group and component uses: typed
//! value conversion ([`FixValue`], [`FixEnum`]), read access ([`FieldAccess`], [`Entries`])
//! and write access ([`FieldEncode`], [`GroupWriter`]).
//!
//! The generated code is a thin, documented layer of one-line methods over these generic
//! helpers, so that the bulk of the work is compiled once, here.

use peregrine_codec::value::{
    self, Date, Decimal, MonthYear, MonthYearQualifier, TimeOfDay, UtcTimestamp, ValueError,
};
use peregrine_codec::{FieldSlice, FromFixValue, Group, GroupEntries, MessageEncoder, MessageView};
use std::fmt;
use std::marker::PhantomData;

/// Why a typed getter could not convert a field's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldError {
    /// The bytes do not have the syntax of the field's type.
    Value(ValueError),
    /// The field is an enumeration and the value is none of its dictionary values
    /// (the raw bytes stay readable through [`FieldAccess::raw_field`]).
    UnknownValue,
}

impl From<ValueError> for FieldError {
    fn from(e: ValueError) -> Self {
        FieldError::Value(e)
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldError::Value(e) => e.fmt(f),
            FieldError::UnknownValue => {
                f.write_str("value is not one of the field's enumerated values")
            }
        }
    }
}

impl std::error::Error for FieldError {}

/// The outcome of a message nobody handles: what the generated `MessageHandler` methods
/// return by default (QuickFIX/J's `UnsupportedMessageType`). The session layer turns it
/// into a BusinessMessageReject (35=j, 380=3) through `From` (see
/// `peregrine_session::AppReject`).
///
/// ```
/// use peregrine_messages::UnsupportedMessageType;
/// assert_eq!(UnsupportedMessageType.to_string(), "unsupported message type");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct UnsupportedMessageType;

impl fmt::Display for UnsupportedMessageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unsupported message type")
    }
}

impl std::error::Error for UnsupportedMessageType {}

/// A generated enumeration of a field's dictionary values.
///
/// Conversion is by exact wire bytes: `Side::Buy` ⇄ `b"1"`. A value the dictionary does not
/// list reads as [`FieldError::UnknownValue`] (no `Other` variant: the raw bytes are always
/// available with [`FieldAccess::raw_field`], and an enum you can match exhaustively is worth
/// more than one that smuggles arbitrary bytes).
pub trait FixEnum: Copy + Eq + fmt::Debug + 'static {
    /// Every variant, in dictionary order.
    const ALL: &'static [Self];
    /// The variant whose wire value is `v`.
    fn from_bytes(v: &[u8]) -> Option<Self>;
    /// The wire value.
    fn as_bytes(self) -> &'static [u8];
    /// The dictionary's description of this value (e.g. `BUY`).
    fn description(self) -> &'static str;
}

/// A Rust type that a FIX field value converts from (zero-copy) and into.
pub trait FixValue<'a>: Sized {
    /// Parses the wire bytes.
    ///
    /// # Errors
    ///
    /// [`FieldError::Value`] when `v` does not have the syntax of the type, with the
    /// [`ValueError`] of the codec's parser for it (see
    /// [`peregrine_codec::value`]; for `&str`, [`ValueError::InvalidByte`] at the first byte
    /// that is not UTF-8); [`FieldError::UnknownValue`] for a [`FixEnum`] when `v` is none
    /// of its values. `&[u8]` never fails.
    ///
    /// ```
    /// use peregrine_messages::codec::value::ValueError;
    /// use peregrine_messages::{FieldError, FixValue};
    /// assert_eq!(<u64 as FixValue>::read(b"42"), Ok(42));
    /// assert_eq!(<u64 as FixValue>::read(b"4x"), Err(FieldError::Value(ValueError::InvalidByte { offset: 1 })));
    /// assert_eq!(<bool as FixValue>::read(b""), Err(FieldError::Value(ValueError::Empty)));
    /// ```
    fn read(v: &'a [u8]) -> Result<Self, FieldError>;
    /// Parses the wire bytes `v`, a sub-slice of `text` when the whole message is known to
    /// be valid UTF-8 (strings are then sliced out of it instead of validated one by one).
    ///
    /// # Errors
    ///
    /// Those of [`FixValue::read`] for the same bytes.
    #[inline]
    fn read_in(v: &'a [u8], text: Option<&'a str>) -> Result<Self, FieldError> {
        let _ = text;
        Self::read(v)
    }
    /// Writes `tag=value` through the encoder.
    fn write(self, tag: u32, enc: &mut MessageEncoder<'_>);
}

macro_rules! via_codec {
    ($($t:ty => |$s:ident, $tag:ident, $enc:ident| $w:expr;)*) => {$(
        impl<'a> FixValue<'a> for $t {
            #[inline]
            fn read(v: &'a [u8]) -> Result<Self, FieldError> {
                <$t as FromFixValue<'a>>::from_fix_value(v).map_err(FieldError::Value)
            }
            #[inline(always)]
            fn write(self, $tag: u32, $enc: &mut MessageEncoder<'_>) {
                let $s = self;
                $w;
            }
        }
    )*};
}

via_codec! {
    &'a [u8] => |s, tag, enc| enc.str(tag, s);
    i64 => |s, tag, enc| enc.int(tag, s);
    u64 => |s, tag, enc| enc.uint(tag, s);
    bool => |s, tag, enc| enc.bool(tag, s);
    Decimal => |s, tag, enc| enc.decimal(tag, s);
    char => |s, tag, enc| {
        if s.is_ascii() {
            enc.char(tag, s as u8)
        } else {
            enc.str(tag, s.encode_utf8(&mut [0u8; 4]).as_bytes())
        }
    };
    Date => |s, tag, enc| {
        let mut b = [0u8; 16];
        let n = value::format_date(&s, &mut b);
        enc.str(tag, &b[..n])
    };
    TimeOfDay => |s, tag, enc| {
        let mut b = [0u8; 24];
        let n = value::format_time(&s, s.precision, &mut b);
        enc.str(tag, &b[..n])
    };
    MonthYear => |s, tag, enc| {
        let mut b = [0u8; 8];
        let n = format_month_year(&s, &mut b);
        enc.str(tag, &b[..n])
    };
}

impl<'a> FixValue<'a> for &'a str {
    #[inline]
    fn read(v: &'a [u8]) -> Result<Self, FieldError> {
        <&'a str as FromFixValue<'a>>::from_fix_value(v).map_err(FieldError::Value)
    }
    #[inline]
    fn read_in(v: &'a [u8], text: Option<&'a str>) -> Result<Self, FieldError> {
        if let Some(text) = text {
            // `v` lies inside `text`: slice it out (two char-boundary checks) rather than
            // validate it again.
            let start = (v.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
            if let Some(s) = start
                .checked_add(v.len())
                .and_then(|end| text.get(start..end))
            {
                return Ok(s);
            }
        }
        Self::read(v)
    }
    #[inline(always)]
    fn write(self, tag: u32, enc: &mut MessageEncoder<'_>) {
        enc.str(tag, self.as_bytes());
    }
}

impl<'a> FixValue<'a> for UtcTimestamp {
    #[inline]
    fn read(v: &'a [u8]) -> Result<Self, FieldError> {
        match fast_timestamp(v) {
            Some(t) => Ok(t),
            None => value::parse_timestamp(v).map_err(FieldError::Value),
        }
    }
    #[inline(always)]
    fn write(self, tag: u32, enc: &mut MessageEncoder<'_>) {
        enc.timestamp(tag, &self, self.precision);
    }
}

/// The common UTCTimestamp (`YYYYMMDD-HH:MM:SS` with 0, 3, 6 or 9 fractional digits, day of
/// month at most 28, no leap second) without branches per digit; `None` sends everything
/// else, valid or not, to the codec's full parser, so both always agree.
#[inline]
fn fast_timestamp(v: &[u8]) -> Option<UtcTimestamp> {
    use value::{Date, TimePrecision};
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    // Eight bytes that must all be ASCII digits: each minus '0' is at most 9.
    #[inline(always)]
    fn digits8(x: u64) -> Option<u64> {
        let t = x.wrapping_sub(ZEROS);
        ((x | t | t.wrapping_add(0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080 == 0).then_some(t)
    }
    let (precision, scale) = match v.len() {
        17 => (TimePrecision::Seconds, 0),
        21 => (TimePrecision::Millis, 1_000_000),
        24 => (TimePrecision::Micros, 1_000),
        27 => (TimePrecision::Nanos, 1),
        _ => return None,
    };
    if v[8] != b'-' {
        return None;
    }
    // YYYYMMDD: pairs of digits combined in place (byte 2k = 10·d[2k] + d[2k+1]).
    let date = digits8(u64::from_le_bytes(v[0..8].try_into().ok()?))?;
    let date = (date.wrapping_mul(10) + (date >> 8)) & 0x00ff_00ff_00ff_00ff;
    // HH:MM:SS with the colons checked, then replaced by '0' for the digit test.
    let time = u64::from_le_bytes(v[9..17].try_into().ok()?);
    const COLONS: u64 = 0x0000_ff00_00ff_0000;
    if time & COLONS != 0x0000_3a00_003a_0000 {
        return None;
    }
    let time = digits8((time & !COLONS) | (ZEROS & COLONS))?;
    let digit = |i: u32| time >> (8 * i) & 0xff;
    let mut nanos = 0u32;
    if scale != 0 {
        if v[17] != b'.' {
            return None;
        }
        for &c in &v[18..] {
            let x = c.wrapping_sub(b'0');
            if x > 9 {
                return None;
            }
            nanos = nanos * 10 + x as u32;
        }
        nanos *= scale;
    }
    let year = (date & 0xff) * 100 + (date >> 16 & 0xff);
    let month = date >> 32 & 0xff;
    let day = date >> 48;
    let hour = digit(0) * 10 + digit(1);
    let minute = digit(3) * 10 + digit(4);
    let second = digit(6) * 10 + digit(7);
    if !(1..=12).contains(&month)
        || !(1..=28).contains(&day)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    Some(UtcTimestamp {
        date: Date {
            year: year as u16,
            month: month as u8,
            day: day as u8,
        },
        hour: hour as u8,
        minute: minute as u8,
        second: second as u8,
        nanos,
        picos: 0,
        precision,
    })
}

/// Writes `YYYYMM`, `YYYYMMDD` or `YYYYMMwN`; returns the length (at most 8).
fn format_month_year(m: &MonthYear, out: &mut [u8; 8]) -> usize {
    let y = m.year as usize;
    out[0] = b'0' + (y / 1000 % 10) as u8;
    out[1] = b'0' + (y / 100 % 10) as u8;
    out[2] = b'0' + (y / 10 % 10) as u8;
    out[3] = b'0' + (y % 10) as u8;
    out[4] = b'0' + m.month / 10 % 10;
    out[5] = b'0' + m.month % 10;
    match m.qualifier {
        MonthYearQualifier::None => 6,
        MonthYearQualifier::Day(d) => {
            out[6] = b'0' + d / 10 % 10;
            out[7] = b'0' + d % 10;
            8
        }
        MonthYearQualifier::Week(w) => {
            out[6] = b'w';
            out[7] = b'0' + w % 10;
            8
        }
    }
}

impl<'a, E: FixEnum> FixValue<'a> for E {
    #[inline]
    fn read(v: &'a [u8]) -> Result<Self, FieldError> {
        E::from_bytes(v).ok_or(FieldError::UnknownValue)
    }
    #[inline(always)]
    fn write(self, tag: u32, enc: &mut MessageEncoder<'_>) {
        enc.str(tag, self.as_bytes());
    }
}

/// The predicate telling which tags belong to a repeating group (nested groups included).
pub type IsMember = fn(u32) -> bool;

/// Read access shared by message views (O(1) lookup by tag) and group entries (a short
/// linear scan of the entry). Generated getters are one-line calls to these methods.
pub trait FieldAccess<'a> {
    /// The raw value of the first field with this tag in scope.
    fn raw_field(&self, tag: u32) -> Option<&'a [u8]>;
    /// The repeating group counted by `count_tag`, if its count field is present.
    fn raw_group<F: Fn(u32) -> bool>(&self, count_tag: u32, is_member: F) -> Option<Group<'a, F>>;
    /// The whole message as text, when it is valid UTF-8 (checked once when a typed view is
    /// made, so that string getters slice it instead of validating each value).
    #[inline]
    fn whole_text(&self) -> Option<&'a str> {
        None
    }

    /// The field converted to `T`: `None` when absent.
    #[inline]
    fn typed_field<T: FixValue<'a>>(&self, tag: u32) -> Option<Result<T, FieldError>> {
        let text = self.whole_text();
        self.raw_field(tag).map(|v| T::read_in(v, text))
    }

    /// The entries of a repeating group (empty when the group is absent).
    #[inline]
    fn typed_group<E: GroupEntry<'a>>(&self) -> Entries<'a, E> {
        match self.raw_group(E::COUNT_TAG, E::is_member) {
            Some(g) => Entries {
                declared: Some(g.declared_count()),
                entries: Some(g.entries()),
                text: self.whole_text(),
                _entry: PhantomData,
            },
            None => Entries {
                declared: None,
                entries: None,
                text: None,
                _entry: PhantomData,
            },
        }
    }
}

// The codec's message views and group entries read their own fields.
crate::__field_access!(MessageView);
crate::__field_access!(FieldSlice);

/// A generated message type: its MsgType, its name, and the typed writer of its body.
///
/// Implemented by every message view (`fix44::ExecutionReport<'_>` and so on) so that a
/// message type can be named where no message exists yet: the session's typed sends
/// (`Outbox::send_typed`, `Session::send_typed`, the engine's `Sender::send_typed`) take
/// the message type as a type parameter, write the header (BeginString, BodyLength,
/// MsgType, 49/56/34/52, and 43/122 on resends) and the trailer, and hand the closure the
/// message's [`Body`](Message::Body) writer over their own encoder. The body writer is the
/// full builder's type over a borrowed encoder (`ExecutionReportBody<'x, 'b>` is
/// `ExecutionReportBuilder<'b, &'x mut MessageEncoder<'b>>`): the same setters, the same
/// generated code.
///
/// ```
/// # #[cfg(feature = "fix44")] {
/// use peregrine_messages::codec::EncodeBuffer;
/// use peregrine_messages::fix44::{enums::{ExecType, OrdStatus, Side}, prelude::*, ExecutionReport};
/// use peregrine_messages::Message;
///
/// assert_eq!(ExecutionReport::MSG_TYPE, b"8");
/// assert_eq!(ExecutionReport::NAME, "ExecutionReport");
///
/// // What a session does with a typed body: its own header, then the body writer.
/// let mut buf = EncodeBuffer::new();
/// let mut enc = buf.start(b"FIX.4.4", ExecutionReport::MSG_TYPE);
/// enc.str(49, b"VENUE").str(56, b"CLIENT").uint(34, 7);
/// ExecutionReport::body(&mut enc)
///     .order_id("O-1")
///     .exec_id("E-1")
///     .exec_type(ExecType::New)
///     .ord_status(OrdStatus::New)
///     .side(Side::Buy);
/// let wire = enc.finish();
/// assert!(wire.windows(8).any(|w| w == b"\x0137=O-1\x01"));
/// # }
/// ```
pub trait Message {
    /// MsgType (35) of this message.
    const MSG_TYPE: &'static [u8];
    /// The message name in the dictionary.
    const NAME: &'static str;
    /// The writer of this message's body (the fields after the standard header) into an
    /// encoder someone else started: the message builder over a borrowed encoder.
    type Body<'x, 'b: 'x>: FieldEncode<'b>;
    /// Wraps an encoder (started with this message's MsgType, header written) in this
    /// message's body writer.
    fn body<'x, 'b: 'x>(enc: &'x mut MessageEncoder<'b>) -> Self::Body<'x, 'b>;
}

/// The body of a message of type `M` being written into an encoder that someone else
/// started and finishes (a session writing the header and trailer): it dereferences to
/// the message's body writer, so the message's setters are called on it directly.
///
/// This is what the typed sends of the session layer hand to their closure
/// (`|er: &mut Body<'_, '_, ExecutionReport>|`, or just `|er|` with the message type given
/// as `send_typed::<ExecutionReport>`).
///
/// ```
/// # #[cfg(feature = "fix44")] {
/// use peregrine_messages::codec::{EncodeBuffer, MessageEncoder};
/// use peregrine_messages::fix44::{enums::OrdStatus, prelude::*, ExecutionReport};
/// use peregrine_messages::{Body, Message};
///
/// /// A stand-in for a session: the header is its business, the body the caller's.
/// fn send_typed<M: Message>(buf: &mut EncodeBuffer, body: impl FnOnce(&mut Body<'_, '_, M>)) -> Vec<u8> {
///     let mut enc = buf.start(b"FIX.4.4", M::MSG_TYPE);
///     enc.str(49, b"VENUE").str(56, b"CLIENT").uint(34, 1);
///     body(&mut Body::new(&mut enc));
///     enc.finish().to_vec()
/// }
///
/// let mut buf = EncodeBuffer::new();
/// let wire = send_typed::<ExecutionReport>(&mut buf, |er| {
///     er.order_id("O-1").ord_status(OrdStatus::PartiallyFilled);
/// });
/// assert!(wire.windows(6).any(|w| w == b"\x0139=1\x01"));
/// # }
/// ```
///
/// The standard header and trailer are the session's (MsgSeqNum, SendingTime,
/// PossDupFlag, …): a body has no setters for them, so that it cannot write a
/// second MsgSeqNum or SendingTime after the session's.
///
/// ```compile_fail
/// use peregrine_messages::codec::EncodeBuffer;
/// use peregrine_messages::fix44::{prelude::*, ExecutionReport};
/// use peregrine_messages::{Body, Message};
/// let mut buf = EncodeBuffer::new();
/// let mut enc = buf.start(b"FIX.4.4", ExecutionReport::MSG_TYPE);
/// Body::<ExecutionReport>::new(&mut enc).msg_seq_num(7); // no such setter on a body
/// ```
///
/// A whole message built on its own (a test, a tool) has them:
///
/// ```
/// # #[cfg(feature = "fix44")] {
/// use peregrine_messages::codec::EncodeBuffer;
/// use peregrine_messages::fix44::{prelude::*, ExecutionReportBuilder};
/// let mut buf = EncodeBuffer::new();
/// let mut er = ExecutionReportBuilder::new(&mut buf);
/// er.msg_seq_num(7);
/// assert!(er.finish().windows(6).any(|w| w == b"\x0134=7\x01"));
/// # }
/// ```
pub struct Body<'x, 'b: 'x, M: Message + ?Sized> {
    writer: M::Body<'x, 'b>,
}

impl<'x, 'b: 'x, M: Message + ?Sized> Body<'x, 'b, M> {
    /// The body writer of `M` over `enc` (started with `M`'s MsgType; its header written).
    ///
    /// ```
    /// # #[cfg(feature = "fix44")] {
    /// use peregrine_messages::codec::EncodeBuffer;
    /// use peregrine_messages::fix44::Heartbeat;
    /// use peregrine_messages::{Body, Message};
    /// let mut buf = EncodeBuffer::new();
    /// let mut enc = buf.start(b"FIX.4.4", Heartbeat::MSG_TYPE);
    /// Body::<Heartbeat>::new(&mut enc).test_req_id("T1");
    /// assert!(enc.finish().windows(8).any(|w| w == b"\x01112=T1\x01"));
    /// # }
    /// ```
    #[inline(always)]
    pub fn new(enc: &'x mut MessageEncoder<'b>) -> Self {
        Body {
            writer: M::body(enc),
        }
    }
}

impl<'x, 'b: 'x, M: Message + ?Sized> std::ops::Deref for Body<'x, 'b, M> {
    type Target = M::Body<'x, 'b>;
    #[inline(always)]
    fn deref(&self) -> &M::Body<'x, 'b> {
        &self.writer
    }
}

impl<'x, 'b: 'x, M: Message + ?Sized> std::ops::DerefMut for Body<'x, 'b, M> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut M::Body<'x, 'b> {
        &mut self.writer
    }
}

impl<'x, 'b: 'x, M: Message + ?Sized> fmt::Debug for Body<'x, 'b, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Body").field("message", &M::NAME).finish()
    }
}

/// A generated typed message view.
pub trait TypedMessage<'a>: Message + FieldAccess<'a> + Sized {
    /// Wraps a decoded message without checking its MsgType.
    fn wrap(view: MessageView<'a>) -> Self;
    /// The underlying decoded message.
    fn view(&self) -> MessageView<'a>;
    /// Wraps a decoded message if its MsgType is this message's.
    #[inline]
    fn from_view(view: MessageView<'a>) -> Option<Self> {
        (view.msg_type() == Self::MSG_TYPE).then(|| Self::wrap(view))
    }
}

/// A generated group entry view.
pub trait GroupEntry<'a>: Sized {
    /// The NumInGroup tag that counts the entries.
    const COUNT_TAG: u32;
    /// Whether `tag` belongs to an entry of this group (nested groups included).
    fn is_member(tag: u32) -> bool;
    /// Wraps the fields of one entry (`text`: the whole message, if valid UTF-8).
    fn wrap(fields: FieldSlice<'a>, text: Option<&'a str>) -> Self;
}

/// The entries of a repeating group, as typed entry views; empty if the group is absent.
#[derive(Clone, Debug)]
pub struct Entries<'a, E> {
    declared: Option<Result<u64, ValueError>>,
    entries: Option<GroupEntries<'a>>,
    text: Option<&'a str>,
    _entry: PhantomData<E>,
}

impl<'a, E> Entries<'a, E> {
    /// The NumInGroup value as sent, `None` when the count field is absent.
    #[inline]
    pub fn declared_count(&self) -> Option<Result<u64, FieldError>> {
        self.declared.map(|r| r.map_err(FieldError::Value))
    }

    /// Whether the count field is present.
    #[inline]
    pub fn is_present(&self) -> bool {
        self.declared.is_some()
    }
}

impl<'a, E: GroupEntry<'a>> Iterator for Entries<'a, E> {
    type Item = E;
    #[inline]
    fn next(&mut self) -> Option<E> {
        let text = self.text;
        self.entries.as_mut()?.next().map(|f| E::wrap(f, text))
    }
}

/// Write access shared by message builders and group entry builders. Generated setters are
/// one-line calls to these methods; fields are written in the order they are called.
pub trait FieldEncode<'b> {
    /// The encoder fields are written to.
    fn encoder(&mut self) -> &mut MessageEncoder<'b>;

    /// Writes one typed field.
    #[inline(always)]
    fn put_field<'v, T: FixValue<'v>>(&mut self, tag: u32, v: T) -> &mut Self {
        v.write(tag, self.encoder());
        self
    }

    /// Writes a length-prefixed data field pair (`length_tag=len|data_tag=bytes|`).
    #[inline]
    fn put_data(&mut self, length_tag: u32, data_tag: u32, v: &[u8]) -> &mut Self {
        self.encoder().data(length_tag, data_tag, v);
        self
    }

    /// Writes the NumInGroup field `count_tag=n` and returns the writer of the `n` entries.
    #[inline]
    fn put_group<'x, E: EntryBuilder<'x, 'b>>(
        &'x mut self,
        count_tag: u32,
        n: usize,
    ) -> GroupWriter<'x, 'b, E>
    where
        'b: 'x,
    {
        let enc = self.encoder();
        enc.uint(count_tag, n as u64);
        GroupWriter {
            entry: E::wrap(enc),
            declared: n,
            written: 0,
            _enc: PhantomData,
        }
    }
}

impl<'b> FieldEncode<'b> for MessageEncoder<'b> {
    #[inline]
    fn encoder(&mut self) -> &mut MessageEncoder<'b> {
        self
    }
}

impl<'b> FieldEncode<'b> for &mut MessageEncoder<'b> {
    #[inline]
    fn encoder(&mut self) -> &mut MessageEncoder<'b> {
        self
    }
}

/// A generated group entry builder.
pub trait EntryBuilder<'x, 'b: 'x>: FieldEncode<'b> {
    /// Wraps the encoder the entries are written to.
    fn wrap(enc: &'x mut MessageEncoder<'b>) -> Self;
}

/// Writes the entries of one repeating group, after its count field.
///
/// Call [`GroupWriter::entry`] once per entry, then set the entry's fields, delimiter (the
/// group's first field) first. Debug builds check that no more entries are written than
/// were declared.
#[derive(Debug)]
pub struct GroupWriter<'x, 'b, E> {
    entry: E,
    declared: usize,
    written: usize,
    _enc: PhantomData<&'x mut MessageEncoder<'b>>,
}

impl<'x, 'b, E> GroupWriter<'x, 'b, E> {
    /// Starts the next entry and returns its builder.
    #[inline]
    pub fn entry(&mut self) -> &mut E {
        self.written += 1;
        debug_assert!(
            self.written <= self.declared,
            "more group entries written than declared ({})",
            self.declared
        );
        &mut self.entry
    }

    /// Entries started so far.
    pub fn written(&self) -> usize {
        self.written
    }

    /// Entries declared in the count field.
    pub fn declared(&self) -> usize {
        self.declared
    }
}

/// Implements [`FieldAccess`] for `$ty`: with no more arguments for a codec type with
/// `get` and `group` of its own; for a typed view (`__message!`, `__group!`), through its
/// `$fields` (a `MessageView` or a `FieldSlice`) and its message text `$text`.
#[doc(hidden)]
#[macro_export]
macro_rules! __field_access {
    ($ty:ident $(, $fields:ident, $text:ident)?) => {
        impl<'a> $crate::FieldAccess<'a> for $ty<'a> {
            #[inline]
            fn raw_field(&self, tag: u32) -> Option<&'a [u8]> {
                self$(.$fields)?.get(tag)
            }
            #[inline]
            fn raw_group<F: Fn(u32) -> bool>(
                &self,
                count_tag: u32,
                is_member: F,
            ) -> Option<$crate::codec::Group<'a, F>> {
                self$(.$fields)?.group(count_tag, is_member)
            }
            $(
                #[inline]
                fn whole_text(&self) -> Option<&'a str> {
                    self.$text
                }
            )?
        }
    };
}

/// Defines a typed message view and its builder (used by the generated code).
#[doc(hidden)]
#[macro_export]
macro_rules! __message {
    ($name:ident, $builder:ident, $body:ident, $msg_type:expr, $begin:expr) => {
        $crate::__field_access!($name, view, text);
        impl<'a> $crate::Message for $name<'a> {
            const MSG_TYPE: &'static [u8] = $msg_type;
            const NAME: &'static str = stringify!($name);
            type Body<'x, 'b: 'x> = $body<'x, 'b>;
            #[inline(always)]
            fn body<'x, 'b: 'x>(enc: &'x mut $crate::codec::MessageEncoder<'b>) -> $body<'x, 'b> {
                $builder {
                    enc,
                    _encoder: ::core::marker::PhantomData,
                }
            }
        }
        impl<'a> $crate::TypedMessage<'a> for $name<'a> {
            #[inline]
            fn wrap(view: $crate::codec::MessageView<'a>) -> Self {
                $name {
                    view,
                    text: ::core::str::from_utf8(view.as_bytes()).ok(),
                }
            }
            #[inline]
            fn view(&self) -> $crate::codec::MessageView<'a> {
                self.view
            }
        }
        impl<'a> $name<'a> {
            /// Starts writing this message into `buf` (BeginString and MsgType are written
            /// for you; BodyLength and CheckSum by [`finish`]).
            ///
            /// [`finish`]: $builder::finish
            #[inline]
            pub fn builder(buf: &mut $crate::codec::EncodeBuffer) -> $builder<'_> {
                $builder::new(buf)
            }
        }
        impl<'b> $builder<'b> {
            /// Starts writing the message into `buf`.
            #[inline]
            pub fn new(buf: &'b mut $crate::codec::EncodeBuffer) -> Self {
                $builder {
                    enc: buf.start($begin, $msg_type),
                    _encoder: ::core::marker::PhantomData,
                }
            }
            /// Writes BodyLength and CheckSum and returns the complete message.
            #[inline]
            pub fn finish(self) -> &'b [u8] {
                self.enc.finish()
            }
        }
        impl<'b, E: $crate::FieldEncode<'b>> $crate::FieldEncode<'b> for $builder<'b, E> {
            #[inline(always)]
            fn encoder(&mut self) -> &mut $crate::codec::MessageEncoder<'b> {
                $crate::FieldEncode::encoder(&mut self.enc)
            }
        }
    };
}

/// Defines a typed group entry view and its builder (used by the generated code).
#[doc(hidden)]
#[macro_export]
macro_rules! __group {
    ($name:ident, $builder:ident, $count_tag:expr, |$t:ident| $is_member:expr) => {
        impl<'a> $crate::GroupEntry<'a> for $name<'a> {
            const COUNT_TAG: u32 = $count_tag;
            #[inline(always)]
            fn is_member($t: u32) -> bool {
                $is_member
            }
            #[inline]
            fn wrap(fields: $crate::codec::FieldSlice<'a>, text: Option<&'a str>) -> Self {
                $name { fields, text }
            }
        }
        $crate::__field_access!($name, fields, text);
        impl<'a> $name<'a> {
            /// The fields of this entry (nested groups included).
            #[inline]
            pub fn fields(&self) -> $crate::codec::FieldSlice<'a> {
                self.fields
            }
        }
        impl<'x, 'b: 'x> $crate::EntryBuilder<'x, 'b> for $builder<'x, 'b> {
            #[inline]
            fn wrap(enc: &'x mut $crate::codec::MessageEncoder<'b>) -> Self {
                $builder { enc }
            }
        }
        impl<'x, 'b> $crate::FieldEncode<'b> for $builder<'x, 'b> {
            #[inline]
            fn encoder(&mut self) -> &mut $crate::codec::MessageEncoder<'b> {
                self.enc
            }
        }
    };
}
