//! [`Decimal64`], the wire form of FIX prices and quantities.

use peregrine_codec::value::Decimal;

/// A fixed-point decimal on the wire: `mantissa × 10^exponent`.
///
/// FIX decimals convert exactly: `150.25` is `{ mantissa: 15025, exponent: -2 }`, which is
/// [`peregrine_codec::value::Decimal`] `{ mantissa: 15025, scale: 2 }`. [`Decimal64::NULL`]
/// (mantissa `i64::MIN`) stands for "absent", e.g. the price of a market order.
///
/// ```
/// use peregrine_aeron::messages::Decimal64;
/// use peregrine_codec::value::Decimal;
///
/// let px = Decimal64::new(15025, -2); // 150.25
/// assert_eq!(px.to_decimal(), Some(Decimal::new(15025, 2)));
/// assert_eq!(Decimal64::from_decimal(Decimal::new(15025, 2)), Some(px));
///
/// // A positive exponent is multiplied out: 12 × 10^3 is 12000 with no decimals.
/// assert_eq!(Decimal64::new(12, 3).to_decimal(), Some(Decimal::new(12_000, 0)));
/// // The price of a market order.
/// assert!(Decimal64::NULL.is_null());
/// assert_eq!(Decimal64::NULL.to_decimal(), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decimal64 {
    /// The digits as an integer.
    pub mantissa: i64,
    /// The power of ten they are scaled by (negative: digits after the point).
    pub exponent: i8,
}

impl Decimal64 {
    /// The absent value.
    pub const NULL: Decimal64 = Decimal64 {
        mantissa: i64::MIN,
        exponent: 0,
    };
    /// Zero.
    pub const ZERO: Decimal64 = Decimal64 {
        mantissa: 0,
        exponent: 0,
    };

    /// `mantissa × 10^exponent`.
    #[inline]
    pub const fn new(mantissa: i64, exponent: i8) -> Self {
        Decimal64 { mantissa, exponent }
    }

    /// Whether this is [`Decimal64::NULL`].
    #[inline]
    pub const fn is_null(self) -> bool {
        self.mantissa == i64::MIN
    }

    /// The FIX decimal this is, if it is not null and fits (a positive exponent is
    /// multiplied out; a scale above 127 cannot occur).
    pub fn to_decimal(self) -> Option<Decimal> {
        if self.is_null() {
            return None;
        }
        if self.exponent <= 0 {
            Some(Decimal::new(self.mantissa, self.exponent.unsigned_abs()))
        } else {
            let f = 10i64.checked_pow(self.exponent as u32)?;
            Some(Decimal::new(self.mantissa.checked_mul(f)?, 0))
        }
    }

    /// The wire form of a FIX decimal; `None` if its scale exceeds 128 digits.
    pub fn from_decimal(d: Decimal) -> Option<Self> {
        let exponent = i8::try_from(-i16::from(d.scale)).ok()?;
        Some(Decimal64 {
            mantissa: d.mantissa,
            exponent,
        })
    }
}
