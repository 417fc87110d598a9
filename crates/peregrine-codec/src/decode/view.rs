//! The decoded message ([`MessageView`]) and runs of its fields
//! ([`FieldSlice`]): one set of field accessors over a slice of spans, the
//! view adding the tag index (O(1) lookups) on top.

use super::group::Group;
use super::index::TagIndex;
use super::FromFixValue;
use crate::span::FieldSpan;
use crate::value::ValueError;
use std::fmt;

/// One field: its tag and its value bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field<'a> {
    /// The tag number.
    pub tag: u32,
    /// The value, without `=` and SOH.
    pub value: &'a [u8],
}

/// A contiguous run of fields (a whole message, or one group entry).
/// Lookups here are linear: group entries are short.
#[derive(Clone, Copy)]
pub struct FieldSlice<'a> {
    msg: &'a [u8],
    spans: &'a [FieldSpan],
}

impl fmt::Debug for FieldSlice<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(
                self.iter()
                    .map(|fl| format!("{}={}", fl.tag, String::from_utf8_lossy(fl.value))),
            )
            .finish()
    }
}

impl<'a> FieldSlice<'a> {
    /// The fields of `msg` at `spans`.
    #[inline(always)]
    pub(super) fn new(msg: &'a [u8], spans: &'a [FieldSpan]) -> Self {
        FieldSlice { msg, spans }
    }

    /// Fields `start..end` of this slice.
    pub(super) fn range(&self, start: usize, end: usize) -> FieldSlice<'a> {
        FieldSlice {
            msg: self.msg,
            spans: &self.spans[start..end],
        }
    }

    /// The tag of the `i`-th field, if there is one.
    #[inline]
    pub(super) fn tag(&self, i: usize) -> Option<u32> {
        self.spans.get(i).map(|s| s.tag)
    }

    /// The tags in order.
    pub(super) fn tags(&self) -> impl Iterator<Item = u32> + 'a {
        self.spans.iter().map(|s| s.tag)
    }

    /// The value of the `i`-th field.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    #[inline(always)]
    pub(super) fn value(&self, i: usize) -> &'a [u8] {
        let span = self.spans[i];
        &self.msg[span.start as usize..span.end as usize]
    }

    /// Number of fields.
    #[inline]
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether it has no fields.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The `i`-th field.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    #[inline]
    pub fn field(&self, i: usize) -> Field<'a> {
        Field {
            tag: self.spans[i].tag,
            value: self.value(i),
        }
    }

    /// The fields in order.
    pub fn iter(&self) -> FieldIter<'a> {
        FieldIter {
            msg: self.msg,
            spans: self.spans.iter(),
        }
    }

    /// Index of the first field with this tag in this slice.
    pub fn position(&self, tag: u32) -> Option<usize> {
        self.spans.iter().position(|s| s.tag == tag)
    }

    /// Value of the first field with this tag in this slice.
    pub fn get(&self, tag: u32) -> Option<&'a [u8]> {
        self.position(tag).map(|i| self.value(i))
    }

    /// The first value of `tag` parsed as `T`.
    pub fn get_as<T: FromFixValue<'a>>(&self, tag: u32) -> Option<Result<T, ValueError>> {
        self.get(tag).map(T::from_fix_value)
    }

    /// A nested repeating group inside this slice (see [`MessageView::group`]).
    pub fn group<F: Fn(u32) -> bool>(&self, count_tag: u32, is_member: F) -> Option<Group<'a, F>> {
        let pos = self.position(count_tag)?;
        Some(self.group_at(pos, is_member))
    }

    /// The repeating group whose NumInGroup field is the field at `pos`.
    pub fn group_at<F: Fn(u32) -> bool>(&self, pos: usize, is_member: F) -> Group<'a, F> {
        Group::at(*self, pos, is_member)
    }

    /// Values of every field with this tag from field `from` on, in order.
    fn values_of(&self, tag: u32, from: usize) -> TagIter<'a> {
        TagIter {
            msg: self.msg,
            rest: self.spans[from..].iter(),
            tag,
        }
    }
}

/// A decoded message: a zero-copy index over its bytes.
///
/// Lookups by tag are O(1) (a hash of the tags of this message only); fields
/// are also reachable in wire order, repeated tags in order, and repeating
/// groups through [`MessageView::group`]. The field accessors are
/// [`FieldSlice`]'s (a view is its whole message as a slice, plus the index).
#[derive(Clone, Copy)]
pub struct MessageView<'a> {
    fields: FieldSlice<'a>,
    index: &'a TagIndex,
    first_empty: Option<u32>,
}

impl fmt::Debug for MessageView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.fields, f)
    }
}

impl<'a> MessageView<'a> {
    /// The view of a decoded message: its fields and their index.
    #[inline(always)]
    pub(super) fn new(
        fields: FieldSlice<'a>,
        index: &'a TagIndex,
        first_empty: Option<u32>,
    ) -> Self {
        MessageView {
            fields,
            index,
            first_empty,
        }
    }

    /// The whole message as received.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.fields.msg
    }

    /// Number of fields, header and trailer included.
    #[inline]
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Always false for a decoded message (it has at least 8, 9, 35 and 10).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// The `i`-th field in wire order.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    #[inline]
    pub fn field(&self, i: usize) -> Field<'a> {
        self.fields.field(i)
    }

    /// All fields in wire order.
    pub fn fields(&self) -> FieldIter<'a> {
        self.fields.iter()
    }

    /// The fields as a [`FieldSlice`] (for group walking).
    pub fn as_slice(&self) -> FieldSlice<'a> {
        self.fields
    }

    /// Index (in wire order) of the first field with this tag.
    #[inline]
    pub fn position(&self, tag: u32) -> Option<usize> {
        self.index.find(tag).map(|first| first as usize)
    }

    /// Value of the first field with this tag.
    #[inline]
    pub fn get(&self, tag: u32) -> Option<&'a [u8]> {
        Some(self.fields.value(self.index.find(tag)? as usize))
    }

    /// Whether the tag is present.
    #[inline]
    pub fn contains(&self, tag: u32) -> bool {
        self.index.find(tag).is_some()
    }

    /// Values of every field with this tag, in wire order.
    pub fn get_all(&self, tag: u32) -> TagIter<'a> {
        // From the first occurrence on (the rest of the message is scanned).
        let from = self.position(tag).unwrap_or(self.len());
        self.fields.values_of(tag, from)
    }

    /// How many fields carry this tag.
    pub fn count(&self, tag: u32) -> usize {
        self.get_all(tag).count()
    }

    /// The tag of the first field (in wire order) that repeats an earlier
    /// tag. Found on demand: the fields are checked against the index of
    /// first occurrences (work proportional to the message).
    pub fn first_repeated_tag(&self) -> Option<u32> {
        self.fields
            .tags()
            .enumerate()
            .find(|&(i, tag)| self.index.find(tag) != Some(i as u32))
            .map(|(_, tag)| tag)
    }

    /// The first tag whose value was empty, if any.
    pub fn first_empty_value(&self) -> Option<u32> {
        self.first_empty
    }

    /// BeginString(8).
    pub fn begin_string(&self) -> &'a [u8] {
        self.fields.value(0)
    }

    /// MsgType(35).
    pub fn msg_type(&self) -> &'a [u8] {
        self.fields.value(2)
    }

    /// The first value of `tag` parsed as `T`: `None` when absent.
    ///
    /// ```
    /// use peregrine_codec::{Decoder, DecoderConfig, value::Decimal};
    /// let msg = b"8=FIX.4.4\x019=20\x0135=D\x0144=150.50\x0138=7\x0110=147\x01";
    /// let mut d = Decoder::new(DecoderConfig { validate_checksum: false, ..Default::default() });
    /// let v = d.decode(msg).unwrap();
    /// assert_eq!(v.get_as::<Decimal>(44), Some(Ok(Decimal::new(15050, 2))));
    /// assert_eq!(v.get_as::<u64>(38), Some(Ok(7)));
    /// assert_eq!(v.get_as::<u64>(99), None);
    /// ```
    pub fn get_as<T: FromFixValue<'a>>(&self, tag: u32) -> Option<Result<T, ValueError>> {
        self.get(tag).map(T::from_fix_value)
    }

    /// The repeating group whose NumInGroup field is `count_tag` (first occurrence),
    /// with `is_member` telling which tags belong to an entry (nested groups'
    /// tags included). The first field after the count is the delimiter that
    /// starts each entry. `None` when the count field is absent.
    ///
    /// ```
    /// use peregrine_codec::{Decoder, DecoderConfig};
    /// let msg = b"8=FIX.4.4\x019=34\x0135=V\x01267=2\x01269=0\x01269=1\x01146=1\x0155=X\x0110=000\x01";
    /// let mut d = Decoder::new(DecoderConfig { validate_checksum: false, ..Default::default() });
    /// let v = d.decode(msg).unwrap();
    /// let g = v.group(267, |t| t == 269).unwrap();
    /// assert_eq!(g.declared_count(), Ok(2));
    /// let types: Vec<_> = g.entries().map(|e| e.get(269).unwrap()).collect();
    /// assert_eq!(types, [&b"0"[..], b"1"]);
    /// ```
    pub fn group<F: Fn(u32) -> bool>(&self, count_tag: u32, is_member: F) -> Option<Group<'a, F>> {
        let pos = self.position(count_tag)?;
        Some(self.fields.group_at(pos, is_member))
    }
}

/// Iterator over fields in wire order.
#[derive(Clone, Debug)]
pub struct FieldIter<'a> {
    msg: &'a [u8],
    spans: std::slice::Iter<'a, FieldSpan>,
}

impl<'a> Iterator for FieldIter<'a> {
    type Item = Field<'a>;
    #[inline]
    fn next(&mut self) -> Option<Field<'a>> {
        let span = self.spans.next()?;
        Some(Field {
            tag: span.tag,
            value: &self.msg[span.start as usize..span.end as usize],
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.spans.size_hint()
    }
}

impl ExactSizeIterator for FieldIter<'_> {}

/// Iterator over the values of one repeated tag.
#[derive(Clone, Debug)]
pub struct TagIter<'a> {
    msg: &'a [u8],
    rest: std::slice::Iter<'a, FieldSpan>,
    tag: u32,
}

impl<'a> Iterator for TagIter<'a> {
    type Item = &'a [u8];
    fn next(&mut self) -> Option<&'a [u8]> {
        let tag = self.tag;
        let span = self.rest.find(|s| s.tag == tag)?;
        Some(&self.msg[span.start as usize..span.end as usize])
    }
}
