//! Fuzzes framing and decoding: whatever the bytes, the framer makes progress
//! and the decoder returns a value or an error, never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use peregrine_codec::{Decoder, DecoderConfig, Frame, Framer};

fuzz_target!(|data: &[u8]| {
    let framer = Framer::new(64 * 1024);
    let mut strict = Decoder::new(DecoderConfig::default());
    let mut lax = Decoder::new(DecoderConfig {
        validate_checksum: false,
        validate_body_length: false,
        reject_empty_values: false,
        ..Default::default()
    });
    let mut pos = 0;
    while pos < data.len() {
        match framer.next_frame(&data[pos..]) {
            Frame::Incomplete => break,
            Frame::Garbled { skip, .. } => {
                assert!(skip > 0);
                pos += skip;
            }
            Frame::Message { len } => {
                assert!(len > 0);
                let m = &data[pos..pos + len];
                if let Ok(v) = strict.decode(m) {
                    for f in v.fields() {
                        assert_eq!(v.get(f.tag).is_some(), true);
                    }
                }
                pos += len;
            }
        }
    }
    // The decoder on raw input too (not only on framed messages).
    if let Ok(v) = lax.decode(data) {
        let _ = v.first_repeated_tag();
        for f in v.fields() {
            let _ = v.get_all(f.tag).count();
        }
    }
});
