//! Fuzzes framing and decoding: whatever the bytes, the framer makes progress
//! and the decoder returns a value or an error, never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use peregrine_codec::Level;
use peregrine_codec::{Decoder, DecoderConfig, Frame, Framer, MessageView};

/// What a decode produced, to compare the fast paths with the general walk.
fn outcome(v: &MessageView<'_>) -> Vec<(u32, Vec<u8>, Option<Vec<u8>>)> {
    v.fields()
        .map(|f| (f.tag, f.value.to_vec(), v.get(f.tag).map(<[u8]>::to_vec)))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let framer = Framer::new(64 * 1024);
    let mut strict = Decoder::new(DecoderConfig::default());
    let mut lax = Decoder::new(DecoderConfig {
        validate_checksum: false,
        validate_body_length: false,
        reject_empty_values: false,
        ..Default::default()
    });
    // The general walk with scalar code: the reference every fast path must match.
    let mut reference = Decoder::new(DecoderConfig::default());
    reference.set_paths(Level::Scalar, false);
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
                let want = reference.decode(m).map(|v| outcome(&v));
                let got = strict.decode(m).map(|v| outcome(&v));
                assert_eq!(got, want, "fast path and general walk differ");
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
