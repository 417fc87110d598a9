//! Repeating groups ([`Group`]) and their entries ([`GroupEntries`]), over a
//! run of a message's fields.

use super::FieldSlice;
use crate::value::{self, ValueError};

/// A repeating group: its declared count and its entries.
pub struct Group<'a, F> {
    count_value: &'a [u8],
    slice: FieldSlice<'a>,
    delimiter: Option<u32>,
    is_member: F,
}

impl<'a, F: Fn(u32) -> bool> Group<'a, F> {
    /// The group whose NumInGroup field is field `pos` of `fields`: the
    /// fields after it while they are members, the first of them the
    /// delimiter (see [`FieldSlice::group_at`]).
    pub(super) fn at(fields: FieldSlice<'a>, pos: usize, is_member: F) -> Self {
        let count = fields.field(pos);
        let body_start = pos + 1;
        let delimiter = fields.tag(body_start).filter(|&t| is_member(t));
        // The group extends while fields are members.
        let mut end = body_start;
        if delimiter.is_some() {
            while fields.tag(end).is_some_and(&is_member) {
                end += 1;
            }
        }
        Group {
            count_value: count.value,
            slice: fields.range(body_start, end),
            delimiter,
            is_member,
        }
    }

    /// The NumInGroup value as sent.
    ///
    /// # Errors
    ///
    /// As [`value::parse_u64`]: [`ValueError::Empty`] for an empty value,
    /// [`ValueError::InvalidByte`] at the first byte that is not a digit,
    /// [`ValueError::Overflow`] beyond [`u64::MAX`].
    pub fn declared_count(&self) -> Result<u64, ValueError> {
        value::parse_u64(self.count_value)
    }

    /// The delimiter (first field of every entry), if the group has any field.
    pub fn delimiter(&self) -> Option<u32> {
        self.delimiter
    }

    /// All fields of all entries.
    pub fn fields(&self) -> FieldSlice<'a> {
        self.slice
    }

    /// Whether `tag` belongs to this group.
    pub fn is_member(&self, tag: u32) -> bool {
        (self.is_member)(tag)
    }

    /// The entries, each starting at a delimiter field.
    pub fn entries(&self) -> GroupEntries<'a> {
        GroupEntries {
            rest: self.slice,
            delimiter: self.delimiter,
        }
    }

    /// Number of entries actually present.
    pub fn actual_count(&self) -> usize {
        self.entries().count()
    }
}

/// Iterator over the entries of a [`Group`].
#[derive(Clone, Copy, Debug)]
pub struct GroupEntries<'a> {
    rest: FieldSlice<'a>,
    delimiter: Option<u32>,
}

impl<'a> Iterator for GroupEntries<'a> {
    type Item = FieldSlice<'a>;
    fn next(&mut self) -> Option<FieldSlice<'a>> {
        let delimiter = self.delimiter?;
        if self.rest.is_empty() {
            return None;
        }
        // The entry runs to the next delimiter (or the end of the group).
        let end = self
            .rest
            .tags()
            .skip(1)
            .position(|t| t == delimiter)
            .map_or(self.rest.len(), |p| p + 1);
        let entry = self.rest.range(0, end);
        self.rest = self.rest.range(end, self.rest.len());
        Some(entry)
    }
}
