//! What the decoder checks ([`DecoderConfig`]) and which fields carry raw
//! data of a declared length ([`DataFields`]).

/// Length-prefixed data fields: (length tag, data tag). The data field's value
/// is exactly `length` bytes and may contain SOH.
pub const STANDARD_DATA_FIELDS: &[(u32, u32)] = &[
    (90, 91),
    (93, 89),
    (95, 96),
    (212, 213),
    (348, 349),
    (350, 351),
    (352, 353),
    (354, 355),
    (356, 357),
    (358, 359),
    (360, 361),
    (362, 363),
    (364, 365),
    (445, 446),
    (618, 619),
    (621, 622),
    (1184, 1185),
    (1277, 1278),
    (1280, 1281),
    (1282, 1283),
    (1359, 1360),
    (1397, 1398),
    (1401, 1402),
    (1403, 1404),
    (1468, 1469),
    (1618, 1619),
    (1620, 1621),
];

/// The set of length-prefixed data field pairs the decoder honours.
#[derive(Clone, Debug)]
pub struct DataFields {
    // Bit per tag below BITMAP_TAGS marking length tags; pairs sorted by length tag.
    pub(super) bitmap: [u64; BITMAP_TAGS / 64],
    pairs: Vec<(u32, u32)>,
}

const BITMAP_TAGS: usize = 2048;

impl DataFields {
    /// No data fields (every SOH ends a value).
    pub fn none() -> Self {
        DataFields {
            bitmap: [0; BITMAP_TAGS / 64],
            pairs: Vec::new(),
        }
    }

    /// The standard FIX pairs ([`STANDARD_DATA_FIELDS`]).
    pub fn standard() -> Self {
        let mut d = DataFields::none();
        for &(len, data) in STANDARD_DATA_FIELDS {
            d.insert(len, data);
        }
        d
    }

    /// Adds a (length tag, data tag) pair, e.g. from a custom dictionary.
    pub fn insert(&mut self, length_tag: u32, data_tag: u32) {
        if (length_tag as usize) < BITMAP_TAGS {
            self.bitmap[length_tag as usize / 64] |= 1 << (length_tag % 64);
        }
        match self.pairs.binary_search_by_key(&length_tag, |p| p.0) {
            Ok(i) => self.pairs[i].1 = data_tag,
            Err(i) => self.pairs.insert(i, (length_tag, data_tag)),
        }
    }

    /// A quick filter: false means `tag` is certainly not a length tag.
    #[inline(always)]
    pub fn may_be_length_tag(&self, tag: u32) -> bool {
        (tag as usize) >= BITMAP_TAGS || self.bitmap[tag as usize / 64] & (1 << (tag % 64)) != 0
    }

    /// Whether `tag` announces a data field: a bit test for tags below 2048.
    #[inline(always)]
    pub fn is_length_tag(&self, tag: u32) -> bool {
        if (tag as usize) < BITMAP_TAGS {
            self.bitmap[tag as usize / 64] & (1 << (tag % 64)) != 0
        } else {
            self.data_tag_for(tag).is_some()
        }
    }

    /// The data tag that `length_tag` announces, if it is a length tag.
    #[inline]
    pub fn data_tag_for(&self, length_tag: u32) -> Option<u32> {
        if (length_tag as usize) < BITMAP_TAGS
            && self.bitmap[length_tag as usize / 64] & (1 << (length_tag % 64)) == 0
        {
            return None;
        }
        self.pairs
            .binary_search_by_key(&length_tag, |p| p.0)
            .ok()
            .map(|i| self.pairs[i].1)
    }
}

impl Default for DataFields {
    fn default() -> Self {
        DataFields::standard()
    }
}

/// Which checks the decoder performs. Defaults: everything on.
#[derive(Clone, Debug)]
pub struct DecoderConfig {
    /// Check CheckSum(10) against the byte sum.
    pub validate_checksum: bool,
    /// Check BodyLength(9) against the actual body length.
    pub validate_body_length: bool,
    /// Fail on a field with an empty value ("tag specified without a value").
    /// When off, [`MessageView::first_empty_value`](super::MessageView::first_empty_value) still reports it.
    pub reject_empty_values: bool,
    /// Messages longer than this are refused.
    pub max_message_size: usize,
    /// Length-prefixed data fields.
    pub data_fields: DataFields,
}

impl Default for DecoderConfig {
    fn default() -> Self {
        DecoderConfig {
            validate_checksum: true,
            validate_body_length: true,
            reject_empty_values: true,
            max_message_size: crate::frame::DEFAULT_MAX_MESSAGE_SIZE,
            data_fields: DataFields::standard(),
        }
    }
}
