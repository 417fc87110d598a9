//! A decoder made the first time it is needed.
//!
//! A session keeps decoders for what only some sessions ever do: reading back stored
//! messages to resend them, and showing [`Application::to_app`](crate::Application::to_app)
//! an outgoing message it asks to see. Each decoder holds about 17.8 KB once made (an
//! 8 KiB tag index, the vector scratch and span tables), written when made; made up
//! front, the two cost every configured session 36 KiB of resident memory, of the
//! 81 KiB a session took before it connected (BENCHMARKS.md §5, 10,000 sessions).
//! Made on first use instead, a session pays for them once it resends or its
//! application looks, and the allocation happens then, once.

use peregrine_codec::{Decoder, DecoderConfig};

/// A [`Decoder`] made by its first [`get`](OnDemandDecoder::get).
#[derive(Debug)]
pub(crate) struct OnDemandDecoder {
    config: DecoderConfig,
    decoder: Option<Box<Decoder>>,
}

impl OnDemandDecoder {
    /// Nothing made yet; `config` is what the decoder will have.
    pub(crate) fn new(config: DecoderConfig) -> Self {
        OnDemandDecoder {
            config,
            decoder: None,
        }
    }

    /// The decoder, made now if this is the first call.
    pub(crate) fn get(&mut self) -> &mut Decoder {
        let config = &self.config;
        self.decoder
            .get_or_insert_with(|| Box::new(Decoder::new(config.clone())))
    }

    /// Whether it has been made.
    #[cfg(test)]
    pub(crate) fn is_made(&self) -> bool {
        self.decoder.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_on_first_use_with_its_config() {
        let config = DecoderConfig {
            validate_checksum: false,
            ..DecoderConfig::default()
        };
        let mut d = OnDemandDecoder::new(config);
        assert!(!d.is_made());
        // A wrong checksum: accepted only because the config says so.
        let msg = b"8=FIX.4.4\x019=5\x0135=0\x0110=000\x01";
        let view = d.get().decode(msg).expect("decoded with its config");
        assert_eq!(view.msg_type(), b"0");
        assert!(d.is_made());
    }
}
