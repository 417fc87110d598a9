//! [`Locations`]: the index's entries in an anonymous memory mapping reserved
//! up front, so that storing a message never calls the allocator.
//!
//! A store keeps an entry for every message it holds, so its index grows as
//! long as the session lives. As a `Vec` it doubled now and then, an
//! allocation (and a copy) on the way of the message that found it full:
//! the only allocations left on an order gateway's path (BENCHMARKS.md §8).
//! Here, once an index holds [`SWITCH`] entries, room for [`RESERVED`] is
//! reserved in virtual memory (`MAP_NORESERVE`: no swap is set aside, and the
//! kernel backs a page only once it is written), which costs address space,
//! not memory: the index uses its entries' bytes rounded up to pages, as the
//! `Vec` did. Smaller indexes (most sessions hold a few messages: a Logon)
//! stay in a `Vec`, whose few early growths come with a connection's first
//! messages, so that an idle session does not hold a page for one entry.
//! The move happens where the store keeps room ahead (`settle`, after the
//! messages have left), or on a push that finds the `Vec` full. Past
//! [`RESERVED`] entries (two million messages without a reset) it moves to a
//! mapping four times as large, a copy as a `Vec` makes.
//!
//! Where a mapping cannot be made (`vm.max_map_count` reached, or a strict
//! overcommit policy refusing the reservation), the entries live in a `Vec`
//! as before: slower to grow, never wrong.
//!
//! The one `unsafe` block views the mapping as `[Location]`. memmap2 makes
//! and unmaps the mapping (no `unsafe` for an anonymous one).

#![allow(unsafe_code)]

use memmap2::{MmapMut, MmapOptions};

use crate::index::Location;

/// Entries reserved per index in a mapping: 2 Mi entries, 48 MiB of address
/// space.
pub(crate) const RESERVED: usize = 2 << 20;

/// Entries from which an index lives in a mapping (12 KiB in a `Vec`).
pub(crate) const SWITCH: usize = 512;

const ENTRY: usize = std::mem::size_of::<Location>();

// The view below needs every bit pattern to be a valid `Location` (the
// kernel hands out zeroed pages; entries are plain integers) and the
// mapping's alignment (a page) to suit it.
const _: () = assert!(ENTRY == 24 && std::mem::align_of::<Location>() <= 4096);

/// The entries, in a mapping or (where none could be made) a `Vec`.
#[derive(Debug)]
pub(crate) enum Locations {
    Mapped {
        map: MmapMut,
        /// Entries in use: `[0, len)`.
        len: usize,
    },
    Heap(Vec<Location>),
}

impl Default for Locations {
    fn default() -> Self {
        Locations::Heap(Vec::new())
    }
}

impl Locations {
    /// Room for at least `n` entries: from [`SWITCH`] on a mapping for
    /// [`RESERVED`] or more, else (or where no mapping can be made) a `Vec`
    /// of capacity `n`.
    pub(crate) fn with_room(n: usize) -> Self {
        if n >= SWITCH {
            if let Some(map) = reserve(n.max(RESERVED)) {
                return Locations::Mapped { map, len: 0 };
            }
        }
        Locations::Heap(Vec::with_capacity(n))
    }

    /// Entries it holds without moving.
    pub(crate) fn capacity(&self) -> usize {
        match self {
            Locations::Mapped { map, .. } => map.len() / ENTRY,
            Locations::Heap(v) => v.capacity(),
        }
    }

    /// Makes room for `additional` more entries, moving to a mapping when
    /// that makes [`SWITCH`] or more.
    pub(crate) fn reserve(&mut self, additional: usize) {
        let need = self.len() + additional;
        match self {
            Locations::Heap(v) if need > v.capacity() && need >= SWITCH => {
                match reserve(need.max(RESERVED)) {
                    Some(mut map) => {
                        whole_mut(&mut map)[..v.len()].copy_from_slice(v);
                        *self = Locations::Mapped { map, len: v.len() };
                    }
                    None => v.reserve(additional),
                }
            }
            Locations::Heap(v) => v.reserve(additional),
            Locations::Mapped { map, len } if map.len() / ENTRY < need => {
                match reserve(need.max(map.len() / ENTRY * 4)) {
                    Some(mut bigger) => {
                        bigger[..*len * ENTRY].copy_from_slice(&map[..*len * ENTRY]);
                        *map = bigger;
                    }
                    None => {
                        let mut v = Vec::with_capacity(need);
                        v.extend_from_slice(self.as_slice());
                        *self = Locations::Heap(v);
                    }
                }
            }
            Locations::Mapped { .. } => {}
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Locations::Mapped { len, .. } => *len,
            Locations::Heap(v) => v.len(),
        }
    }

    pub(crate) fn clear(&mut self) {
        match self {
            Locations::Mapped { len, .. } => *len = 0,
            Locations::Heap(v) => v.clear(),
        }
    }

    pub(crate) fn as_slice(&self) -> &[Location] {
        match self {
            Locations::Mapped { map, len } => &whole(map)[..*len],
            Locations::Heap(v) => v,
        }
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [Location] {
        match self {
            Locations::Mapped { map, len } => &mut whole_mut(map)[..*len],
            Locations::Heap(v) => v,
        }
    }

    pub(crate) fn push(&mut self, entry: Location) {
        self.insert(self.len(), entry);
    }

    /// Puts `entry` at `at`, moving the entries from there one place on.
    pub(crate) fn insert(&mut self, at: usize, entry: Location) {
        if self.len() == self.capacity() {
            self.reserve(1);
        }
        if let Locations::Heap(v) = self {
            v.insert(at, entry);
            return;
        }
        if let Locations::Mapped { map, len } = self {
            let all = whole_mut(map);
            all.copy_within(at..*len, at + 1);
            all[at] = entry;
            *len += 1;
        }
    }

    /// Writes `blank` over the room for the next `ahead` entries (at most to
    /// the capacity), so that the kernel backs those pages now rather than
    /// on the way of a message; what the index holds is kept.
    pub(crate) fn touch_ahead(&mut self, ahead: usize, blank: Location) {
        match self {
            Locations::Mapped { map, len } => {
                let all = whole_mut(map);
                let end = (*len + ahead).min(all.len());
                all[*len..end].fill(blank);
            }
            Locations::Heap(v) => {
                let len = v.len();
                v.resize(len + ahead.min(v.capacity() - len), blank);
                v.truncate(len);
            }
        }
    }
}

/// A mapping for `n` entries, `None` if the system makes none.
fn reserve(n: usize) -> Option<MmapMut> {
    MmapOptions::new()
        .len(n.checked_mul(ENTRY)?)
        .no_reserve_swap()
        .map_anon()
        .ok()
}

/// The whole mapping as entries, those in use and the zeroed room after.
fn whole(map: &MmapMut) -> &[Location] {
    // SAFETY: the mapping is page-aligned (asserted above to suit
    // `Location`) and `map.len()` bytes long, so it holds
    // `map.len() / ENTRY` entries; every byte is initialised (zeroed by the
    // kernel, or written as a `Location`), and every bit pattern is a valid
    // `Location` (three integers and padding). The slice borrows `map`, so
    // the mapping outlives it and nothing else writes it meanwhile.
    unsafe { std::slice::from_raw_parts(map.as_ptr().cast::<Location>(), map.len() / ENTRY) }
}

fn whole_mut(map: &mut MmapMut) -> &mut [Location] {
    // SAFETY: as in `whole`; the slice borrows `map` mutably, so it is the
    // only view of the mapping while it lives.
    unsafe {
        std::slice::from_raw_parts_mut(map.as_mut_ptr().cast::<Location>(), map.len() / ENTRY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(seq: u64) -> Location {
        Location {
            seq,
            offset: seq * 10,
            len: seq as u32,
        }
    }

    #[test]
    fn pushes_inserts_and_grows_past_its_reservation_keeping_every_entry() {
        let mut l = Locations::with_room(SWITCH);
        assert!(matches!(l, Locations::Mapped { .. }));
        assert_eq!(l.capacity(), RESERVED);
        for s in (2..=20).step_by(2) {
            l.push(e(s));
        }
        l.insert(0, e(1));
        l.insert(2, e(3));
        let seqs: Vec<u64> = l.as_slice().iter().map(|x| x.seq).collect();
        assert_eq!(seqs, [1, 2, 3, 4, 6, 8, 10, 12, 14, 16, 18, 20]);
        l.as_mut_slice()[0] = e(0);
        assert_eq!(l.as_slice()[0], e(0));
        // Past the reservation: a larger mapping, the entries kept.
        l.reserve(RESERVED);
        assert!(l.capacity() >= l.len() + RESERVED);
        assert!(matches!(l, Locations::Mapped { .. }));
        assert_eq!(l.as_slice()[11], e(20));
        l.touch_ahead(1000, e(0));
        assert_eq!(l.len(), 12);
        l.clear();
        assert!(l.as_slice().is_empty());
    }

    #[test]
    fn a_small_index_is_a_vec_until_it_holds_switch_entries() {
        let mut l = Locations::default();
        for s in 0..SWITCH as u64 - 1 {
            l.push(e(s));
        }
        assert!(matches!(l, Locations::Heap(_)));
        l.push(e(SWITCH as u64 - 1));
        l.push(e(SWITCH as u64));
        assert!(matches!(l, Locations::Mapped { .. }));
        assert_eq!(l.len(), SWITCH + 1);
        let seqs: Vec<u64> = l.as_slice().iter().map(|x| x.seq).collect();
        assert_eq!(seqs, (0..=SWITCH as u64).collect::<Vec<_>>());
    }

    #[test]
    fn a_full_index_grows_on_push() {
        let mut l = Locations::with_room(SWITCH);
        if let Locations::Mapped { len, .. } = &mut l {
            *len = RESERVED - 1; // zeroed entries: valid, not sorted (not needed here)
        }
        l.push(e(7));
        l.push(e(8));
        assert_eq!(l.len(), RESERVED + 1);
        assert!(l.capacity() >= RESERVED * 4);
        assert_eq!(l.as_slice()[RESERVED - 1], e(7));
        assert_eq!(l.as_slice()[RESERVED], e(8));
    }
}
