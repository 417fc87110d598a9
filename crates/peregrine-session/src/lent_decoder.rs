//! The decoder a session reads its messages with, lent by the thread that drives
//! it for one call instead of owned by every session.
//!
//! Between calls a session keeps bytes (an incomplete tail, messages held for a
//! gap), never a decoded message: its decoder is scratch, about 18 KB written
//! when made (an 8 KiB tag index, vector scratch, span tables), the same whichever
//! session uses it. An engine drives all its sessions from one thread, so one
//! decoder serves them all; owned by each session, the decoders of 10,000
//! configured sessions took 178 MB (BENCHMARKS.md §5). A call inside another (an
//! application that drives a second session from a callback) takes a second
//! decoder, kept in turn for the next such call: once the thread has made what it
//! needs, lending allocates nothing.

use std::cell::RefCell;
use std::ops::{Deref, DerefMut};

use peregrine_codec::{Decoder, DecoderConfig};

/// The most decoders a thread keeps for later calls (calls nested this deep).
const KEPT: usize = 4;

thread_local! {
    // Boxed: lending moves a pointer, not the decoder's ~600-byte struct.
    #[allow(clippy::vec_box)]
    static SPARE: RefCell<Vec<Box<Decoder>>> = const { RefCell::new(Vec::new()) };
}

/// What a session decodes with: QuickFIX's checks of BodyLength and CheckSum, an
/// empty value reported rather than refused (the session rejects it), messages
/// up to `max_message_size`.
pub(crate) fn session_config(max_message_size: usize) -> DecoderConfig {
    DecoderConfig {
        reject_empty_values: false,
        max_message_size,
        ..DecoderConfig::default()
    }
}

/// A decoder with [`session_config`], lent for one call: it goes back to the
/// thread's spares when dropped.
pub(crate) struct LentDecoder(Option<Box<Decoder>>);

impl LentDecoder {
    /// One of the thread's spare decoders, or a new one, set for messages up to
    /// `max_message_size` (the one setting that differs between sessions).
    pub(crate) fn take(max_message_size: usize) -> LentDecoder {
        // `try_with`: while the thread ends its spares may be gone; make one then.
        let spare = SPARE.try_with(|s| s.borrow_mut().pop()).ok().flatten();
        let decoder = match spare {
            Some(mut d) => {
                d.config_mut().max_message_size = max_message_size;
                d
            }
            None => Box::new(Decoder::new(session_config(max_message_size))),
        };
        LentDecoder(Some(decoder))
    }

    /// How many decoders this thread keeps (for tests).
    #[cfg(test)]
    pub(crate) fn spares() -> usize {
        SPARE.with(|s| s.borrow().len())
    }
}

impl Deref for LentDecoder {
    type Target = Decoder;

    fn deref(&self) -> &Decoder {
        self.0.as_deref().expect("lent until dropped")
    }
}

impl DerefMut for LentDecoder {
    fn deref_mut(&mut self) -> &mut Decoder {
        self.0.as_deref_mut().expect("lent until dropped")
    }
}

impl Drop for LentDecoder {
    fn drop(&mut self) {
        let Some(decoder) = self.0.take() else {
            return;
        };
        let _ = SPARE.try_with(|s| {
            let mut spare = s.borrow_mut();
            if spare.len() < KEPT {
                spare.push(decoder);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decoder_is_lent_again_with_the_next_sessions_limit() {
        std::thread::spawn(|| {
            let msg = b"8=FIX.4.4\x019=5\x0135=0\x0110=163\x01";
            {
                let mut d = LentDecoder::take(10);
                assert!(d.decode(msg).is_err(), "longer than 10 bytes");
            }
            assert_eq!(LentDecoder::spares(), 1);
            let mut d = LentDecoder::take(4096);
            assert_eq!(LentDecoder::spares(), 0, "the spare is lent, not a new one");
            assert_eq!(d.decode(msg).expect("decoded").msg_type(), b"0");
            // A call inside another: a second decoder, kept too.
            let inner = LentDecoder::take(4096);
            drop((d, inner));
            assert_eq!(LentDecoder::spares(), 2);
        })
        .join()
        .unwrap();
    }
}
