//! Messages that arrived ahead of a sequence gap, held until the gap is
//! filled (by the resend the session asked for), within a stated bound.
//!
//! Every queued message costs its buffer's capacity plus [`ENTRY_OVERHEAD`]
//! bytes (the map node and the buffer's header); the sum never exceeds the
//! limit (`MaxInboundQueueBytes`). Buffers are recycled for the next message,
//! but at most [`MAX_SPARE`] of them, each at most [`MAX_SPARE_LEN`] bytes,
//! so a long gap does not leave memory behind once it is filled.

use std::collections::BTreeMap;

/// What one queued message costs beyond its bytes (the B-tree slot and the
/// `Vec` header, rounded up).
pub(crate) const ENTRY_OVERHEAD: usize = 64;
/// Buffers kept for reuse.
const MAX_SPARE: usize = 16;
/// Largest buffer kept for reuse.
const MAX_SPARE_LEN: usize = 64 * 1024;

/// The queue was full: the message was not queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct QueueFull;

#[derive(Debug)]
pub(crate) struct GapQueue {
    pub(super) map: BTreeMap<u64, Vec<u8>>,
    pub(super) spare: Vec<Vec<u8>>,
    pub(super) bytes: usize,
    pub(super) limit: usize,
}

impl GapQueue {
    pub(crate) fn new(limit: usize) -> Self {
        GapQueue {
            map: BTreeMap::new(),
            spare: Vec::new(),
            bytes: 0,
            limit,
        }
    }

    /// Bytes accounted to the queued messages.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    pub(super) fn cost(buf: &Vec<u8>) -> usize {
        buf.capacity() + ENTRY_OVERHEAD
    }

    /// Queues a copy of `msg` under `seq` (replacing an earlier one).
    pub(crate) fn insert(&mut self, seq: u64, msg: &[u8]) -> Result<(), QueueFull> {
        let replaced = self.map.get(&seq).map_or(0, Self::cost);
        let mut buf = match self.spare.iter().position(|b| b.capacity() >= msg.len()) {
            Some(i) => self.spare.swap_remove(i),
            None => Vec::new(),
        };
        buf.clear();
        buf.reserve_exact(msg.len());
        let cost = Self::cost(&buf);
        if self.bytes - replaced + cost > self.limit {
            self.recycle(buf);
            return Err(QueueFull);
        }
        buf.extend_from_slice(msg);
        self.bytes = self.bytes - replaced + cost;
        if let Some(old) = self.map.insert(seq, buf) {
            self.recycle(old);
        }
        Ok(())
    }

    /// Drops what is below `expected` and takes the message numbered
    /// `expected`, if it is queued.
    pub(crate) fn take(&mut self, expected: u64) -> Option<Vec<u8>> {
        while let Some((&k, _)) = self.map.first_key_value() {
            if k >= expected {
                break;
            }
            if let Some(v) = self.map.remove(&k) {
                self.bytes -= Self::cost(&v);
                self.recycle(v);
            }
        }
        let v = self.map.remove(&expected)?;
        self.bytes -= Self::cost(&v);
        Some(v)
    }

    /// Gives a buffer back for reuse.
    pub(crate) fn recycle(&mut self, buf: Vec<u8>) {
        if self.spare.len() < MAX_SPARE && buf.capacity() <= MAX_SPARE_LEN {
            self.spare.push(buf);
        }
    }

    /// Forgets every queued message and returns their memory.
    pub(crate) fn clear(&mut self) {
        self.map.clear();
        self.spare.clear();
        self.bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_replace_take_and_recycle() {
        let mut q = GapQueue::new(3 * (100 + ENTRY_OVERHEAD));
        let m = [b'x'; 100];
        q.insert(5, &m).unwrap();
        q.insert(6, &m).unwrap();
        q.insert(6, &m).unwrap(); // replaces: no extra cost
        q.insert(7, &m).unwrap();
        assert_eq!(q.insert(8, &m), Err(QueueFull));
        assert!(q.bytes() <= 3 * (100 + ENTRY_OVERHEAD));
        assert_eq!(q.take(5).as_deref(), Some(&m[..]));
        // 6 is dropped when 7 is expected.
        assert_eq!(q.take(7).as_deref(), Some(&m[..]));
        assert_eq!(q.take(8), None);
        assert_eq!(q.bytes(), 0);
        for i in 0..100 {
            q.recycle(vec![0; 10 + i]);
        }
        assert!(q.spare.len() <= MAX_SPARE);
        q.recycle(vec![0; MAX_SPARE_LEN + 1]);
        assert!(q.spare.iter().all(|b| b.capacity() <= MAX_SPARE_LEN));
        q.insert(9, &m).unwrap();
        q.clear();
        assert_eq!((q.bytes(), q.spare.len()), (0, 0));
    }
}
