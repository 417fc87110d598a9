//! The simulated network: one connection at a time between the two nodes,
//! a byte pipe each way with a bounded window (a socket buffer), bytes that
//! arrive only when the simulation delivers them (so any delay, any chunking),
//! and the ways a connection ends: closed (FIN after the last byte), reset
//! mid-stream (the bytes in flight cut at any point), or half-open (one end
//! never told).

use peregrine_session::{DisconnectReason, Nanos};

/// Bytes a writer may have in flight before it must wait (a socket buffer).
pub const WINDOW: usize = 256 * 1024;

/// How the stream towards a reader ends, once it has read everything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Still open.
    Open,
    /// The peer closed (or its process died): the reader sees EOF.
    Closed,
    /// The connection was reset: the reader sees an error.
    Reset,
    /// The connection is gone but this reader is never told (half-open).
    Silent,
}

/// Bytes towards one reader.
#[derive(Debug)]
pub struct Pipe {
    buf: Vec<u8>,
    head: usize,
    /// How it ends after the bytes in it.
    pub end: End,
    /// When the oldest byte in flight was written (`None` when empty).
    pub since: Option<Nanos>,
}

impl Pipe {
    fn new() -> Pipe {
        Pipe {
            buf: Vec::with_capacity(4096),
            head: 0,
            end: End::Open,
            since: None,
        }
    }

    /// Bytes in flight.
    pub fn len(&self) -> usize {
        self.buf.len() - self.head
    }

    /// Nothing in flight.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Room left in the window (0 once the stream is ending: writes vanish).
    pub fn room(&self) -> usize {
        if self.end == End::Open {
            WINDOW.saturating_sub(self.len())
        } else {
            usize::MAX
        }
    }

    /// Appends what a writer wrote at `now` (dropped when the connection is gone).
    pub fn write(&mut self, bytes: &[u8], now: Nanos) {
        if self.end == End::Open && !bytes.is_empty() {
            if self.is_empty() {
                self.since = Some(now);
            }
            self.buf.extend_from_slice(bytes);
        }
    }

    /// The next `n` bytes at most, without taking them.
    pub fn peek(&self, n: usize) -> &[u8] {
        let end = self.head + n.min(self.len());
        &self.buf[self.head..end]
    }

    /// Takes `n` bytes (after a [`peek`](Self::peek)).
    pub fn take(&mut self, n: usize) {
        self.head += n.min(self.len());
        if self.head == self.buf.len() {
            self.buf.clear();
            self.head = 0;
            self.since = None;
        } else if self.head > 64 * 1024 && self.head * 2 > self.buf.len() {
            self.buf.drain(..self.head);
            self.head = 0;
        }
    }

    /// Keeps only the first `n` bytes in flight and ends the stream with `end`.
    pub fn cut(&mut self, n: usize, end: End) {
        let keep = self.head + n.min(self.len());
        self.buf.truncate(keep);
        if self.is_empty() {
            self.since = None;
        }
        if self.end == End::Open || end == End::Silent {
            self.end = end;
        }
    }

    /// Ends the stream after what is in it.
    pub fn close(&mut self) {
        if self.end == End::Open {
            self.end = End::Closed;
        }
    }

    /// Corrupts the byte at `at` (modulo what is in flight) with `xor`.
    pub fn garble(&mut self, at: usize, xor: u8) -> bool {
        let n = self.len();
        if n == 0 {
            return false;
        }
        let i = self.head + at % n;
        self.buf[i] ^= xor;
        true
    }

    /// What a reader that has read everything learns: `None` while open (or
    /// half-open), else why the connection went.
    pub fn eof(&self) -> Option<DisconnectReason> {
        if !self.is_empty() {
            return None;
        }
        match self.end {
            End::Open | End::Silent => None,
            End::Closed => Some(DisconnectReason::PeerClosed),
            End::Reset => Some(DisconnectReason::Transport(
                std::io::ErrorKind::ConnectionReset,
            )),
        }
    }
}

/// The connection: `to[i]` carries bytes towards node `i`; `open[i]` says
/// whether node `i`'s session still has it.
#[derive(Debug)]
pub struct Link {
    /// Bytes towards each node.
    pub to: [Pipe; 2],
    /// Whether each node still uses it.
    pub open: [bool; 2],
}

impl Link {
    /// A new connection, both ends open.
    pub fn new() -> Link {
        Link {
            to: [Pipe::new(), Pipe::new()],
            open: [true, true],
        }
    }

    /// Nothing in flight either way.
    pub fn quiet(&self) -> bool {
        self.to[0].is_empty() && self.to[1].is_empty()
    }
}

impl Default for Link {
    fn default() -> Self {
        Link::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_keeps_a_prefix_then_resets() {
        let mut p = Pipe::new();
        p.write(b"8=FIX.4.4\x019=5\x01", 0);
        p.cut(4, End::Reset);
        assert_eq!(p.peek(100), b"8=FI");
        assert_eq!(p.eof(), None, "bytes first");
        p.take(4);
        assert!(matches!(p.eof(), Some(DisconnectReason::Transport(_))));
        p.write(b"more", 0);
        assert!(p.is_empty(), "writes after the reset vanish");
    }

    #[test]
    fn a_silent_end_is_never_seen() {
        let mut p = Pipe::new();
        p.cut(0, End::Silent);
        assert_eq!(p.eof(), None);
        let mut q = Pipe::new();
        q.write(b"abc", 0);
        assert!(q.garble(7, 0x20));
        assert_eq!(q.peek(3), b"aBc");
        q.take(3);
        q.close();
        assert_eq!(q.eof(), Some(DisconnectReason::PeerClosed));
    }
}
