//! A decoder taken the first time it is needed and given back after.
//!
//! A session decodes outgoing messages only for what some sessions do, some of
//! the time: reading back stored messages to resend them, and showing
//! [`Application::to_app`](crate::Application::to_app) an outgoing message it asks
//! to see. Such a decoder is taken from the thread's ([`LentDecoder`]) by its first
//! [`get`](OnDemandDecoder::get) and given back by [`release`](OnDemandDecoder::release)
//! once the resend step or the send is over, so a session holds none between calls:
//! owned by each session, made up front, the two cost every configured session 36
//! KiB of resident memory (BENCHMARKS.md §5, 10,000 sessions). Once the thread has
//! made its decoders, taking one allocates nothing.

use crate::lent_decoder::LentDecoder;
use peregrine_codec::Decoder;

/// A [`Decoder`] taken by its first [`get`](OnDemandDecoder::get), held until
/// [`release`](OnDemandDecoder::release).
#[derive(Default)]
pub(crate) struct OnDemandDecoder {
    max_message_size: usize,
    decoder: Option<LentDecoder>,
}

impl std::fmt::Debug for OnDemandDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnDemandDecoder")
            .field("held", &self.decoder.is_some())
            .finish()
    }
}

impl OnDemandDecoder {
    /// Nothing held yet; the decoder will take messages up to `max_message_size`.
    pub(crate) fn new(max_message_size: usize) -> Self {
        OnDemandDecoder {
            max_message_size,
            decoder: None,
        }
    }

    /// The decoder, taken now if none is held.
    pub(crate) fn get(&mut self) -> &mut Decoder {
        let max = self.max_message_size;
        self.decoder.get_or_insert_with(|| LentDecoder::take(max))
    }

    /// Gives the decoder back to the thread (nothing decoded with it is in use).
    pub(crate) fn release(&mut self) {
        self.decoder = None;
    }

    /// Whether one is held.
    #[cfg(test)]
    pub(crate) fn is_held(&self) -> bool {
        self.decoder.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taken_on_first_use_and_given_back() {
        let mut d = OnDemandDecoder::new(4096);
        assert!(!d.is_held());
        let msg = b"8=FIX.4.4\x019=5\x0135=0\x0110=163\x01";
        let view = d.get().decode(msg).expect("decoded");
        assert_eq!(view.msg_type(), b"0");
        assert!(d.is_held());
        d.release();
        assert!(!d.is_held());
        // The session's checks: a message over its size is refused.
        let mut small = OnDemandDecoder::new(10);
        assert!(small.get().decode(msg).is_err());
    }
}
