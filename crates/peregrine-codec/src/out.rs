//! The encoder's output buffer, with its pointer and length held in the
//! cursor itself: behind a `&mut Vec<u8>` they are reloaded from memory
//! after every byte written (the compiler cannot tell that the bytes do not
//! overlap the vector's own fields), which cost the encoder two loads and
//! three compares per field.
//!
//! Safety argument: `ptr` and `len` always describe `vec`'s initialised
//! contents. They are taken from `vec` when the cursor is made and again
//! after the only call that changes `vec` ([`OutBuf::reserve`]); nothing
//! else can touch `vec` while the cursor holds its exclusive borrow. Every
//! window handed out is checked to lie inside `len` first.
#![allow(unsafe_code)]

/// A growable output buffer borrowed for the time of one message.
#[derive(Debug)]
pub(crate) struct OutBuf<'b> {
    vec: &'b mut Vec<u8>,
    ptr: *mut u8,
    len: usize,
}

impl<'b> OutBuf<'b> {
    /// A cursor over `vec`'s current contents.
    #[inline(always)]
    pub(crate) fn new(vec: &'b mut Vec<u8>) -> Self {
        let (ptr, len) = (vec.as_mut_ptr(), vec.len());
        OutBuf { vec, ptr, len }
    }

    /// Makes the buffer at least `want` bytes long.
    #[inline(always)]
    pub(crate) fn reserve(&mut self, want: usize) {
        if want > self.len {
            // A free function given the vector, not `self`: taking the
            // cursor's address would keep it in memory on the hot path too.
            let (ptr, len) = grow_to(self.vec, want);
            self.ptr = ptr;
            self.len = len;
        }
    }

    /// The `N` bytes at `at`, after growing the buffer if they do not fit.
    #[inline(always)]
    pub(crate) fn window<const N: usize>(&mut self, at: usize) -> &mut [u8; N] {
        // One add and one compare on the hot path.
        match at.checked_add(N) {
            Some(end) if end <= self.len => {}
            // (`reserve` panics on a size that cannot be allocated.)
            end => self.reserve(end.unwrap_or(usize::MAX)),
        }
        debug_assert!(at + N <= self.len);
        // SAFETY: `at + N <= len` (checked above, or made so by `reserve`,
        // which grows to at least `at + N`), and `ptr`/`len` describe
        // `vec`'s initialised bytes (module comment); the returned borrow
        // holds `self` exclusively.
        unsafe { &mut *(self.ptr.add(at) as *mut [u8; N]) }
    }

    /// Runs `f` on the vector itself (for writes larger than a window),
    /// then takes up its pointer and length again. `f` gets the vector, not
    /// the cursor, whose address must not escape (see [`OutBuf::reserve`]).
    #[inline(always)]
    pub(crate) fn with_vec<R>(&mut self, f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
        let r = f(self.vec);
        self.ptr = self.vec.as_mut_ptr();
        self.len = self.vec.len();
        r
    }

    /// The whole buffer, for the less travelled paths.
    #[inline(always)]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.vec[..]
    }

    /// The whole buffer, read-only.
    #[inline(always)]
    pub(crate) fn as_slice(&self) -> &[u8] {
        &self.vec[..]
    }

    /// Ends the cursor, returning `start..end` of the buffer.
    #[inline(always)]
    pub(crate) fn into_slice(self, start: usize, end: usize) -> &'b [u8] {
        let vec: &'b Vec<u8> = self.vec;
        &vec[start..end]
    }
}

/// Grows `vec` to at least `want` bytes (doubling), returning its new
/// pointer and length.
#[cold]
#[inline(never)]
fn grow_to(vec: &mut Vec<u8>, want: usize) -> (*mut u8, usize) {
    let want = want.max(vec.len() * 2);
    vec.resize(want, 0);
    (vec.as_mut_ptr(), vec.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Also run under Miri (see the codec README): the windows before and
    // after growth, at the very end of the buffer, and past it.
    #[test]
    fn windows_write_where_they_say_and_growth_keeps_the_bytes() {
        let mut vec = vec![0u8; 16];
        let mut out = OutBuf::new(&mut vec);
        out.window::<8>(0).copy_from_slice(b"abcdefgh");
        out.window::<8>(8).copy_from_slice(b"ijklmnop");
        // Past the end: grows, keeping what was written.
        out.window::<4>(15).copy_from_slice(b"PQRS");
        out.window::<64>(100)[63] = b'!';
        let n = out.with_vec(|v| {
            v[0] = b'A';
            v.len()
        });
        assert!(n >= 164);
        out.window::<1>(1)[0] = b'B';
        assert_eq!(out.into_slice(0, 19), b"ABcdefghijklmnoPQRS");
        assert_eq!(vec[163], b'!');
    }

    #[test]
    #[should_panic]
    fn a_window_at_an_absurd_offset_panics_instead_of_writing() {
        let mut vec = vec![0u8; 16];
        let mut out = OutBuf::new(&mut vec);
        out.window::<8>(usize::MAX - 4)[0] = 1;
    }
}
