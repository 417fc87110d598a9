//! The everyday forms of a getter's answer: the value or the Reject the FIX rules ask for
//! ([`FieldResult::required`], [`FieldResult::optional`]), or the value when it is there and
//! readable ([`FieldResult::value`]).

use peregrine_dict::{SessionRejectReason, ValidationError};

use crate::FieldError;

/// What a typed getter returns, `Option<Result<T, FieldError>>`, read the way an
/// application usually wants it. One generic trait for every getter, so the generated code
/// does not grow; the tag is given by the caller (`tags::CL_ORD_ID`), as the getter's value
/// does not carry it.
///
/// The error is the session-level Reject (35=3) the FIX rules ask for, a
/// [`ValidationError`] with the tag as RefTagID(371) and the SessionRejectReason(373) the
/// session's own validator would give:
///
/// | the field | reason |
/// | --- | --- |
/// | absent (`None`) | 1 Required tag missing (only from [`required`](FieldResult::required)) |
/// | not of its type (`FieldError::Value`) | 6 Incorrect data format for value |
/// | an enumerated field with a value the dictionary does not list (`FieldError::UnknownValue`) | 5 Value is incorrect (out of range) for this tag |
///
/// `peregrine_session::AppReject` converts from it, so `?` inside `from_app` (or a
/// `MessageHandler` method returning `AppReject`) has the session send that Reject.
///
/// ```
/// # #[cfg(feature = "fix44")] {
/// use peregrine_messages::codec::{Decoder, DecoderConfig, EncodeBuffer};
/// use peregrine_messages::fix44::{enums::Side, prelude::*, tags, NewOrderSingle};
/// use peregrine_messages::{SessionRejectReason, ValidationError};
///
/// let mut buf = EncodeBuffer::new();
/// let mut b = NewOrderSingle::builder(&mut buf);
/// b.cl_ord_id("ORD1").side(Side::Buy);
/// b.put_field(tags::ORDER_QTY, "ten"); // not a quantity
/// let wire = b.finish().to_vec();
/// let mut decoder = Decoder::new(DecoderConfig::default());
/// let order = NewOrderSingle::from_view(decoder.decode(&wire).unwrap()).unwrap();
///
/// // Present and readable: the value.
/// assert_eq!(order.cl_ord_id().required(tags::CL_ORD_ID), Ok("ORD1"));
/// assert_eq!(order.side().optional(tags::SIDE), Ok(Some(Side::Buy)));
/// // Absent: required is a Reject 373=1 on the tag, optional is Ok(None).
/// let missing = ValidationError::new(SessionRejectReason::RequiredTagMissing, Some(55));
/// assert_eq!(order.symbol().required(tags::SYMBOL), Err(missing));
/// assert_eq!(order.symbol().optional(tags::SYMBOL), Ok(None));
/// // Present but not a quantity: a Reject 373=6 on the tag, from either form.
/// let bad = ValidationError::new(SessionRejectReason::IncorrectDataFormatForValue, Some(38));
/// assert_eq!(order.order_qty().required(tags::ORDER_QTY), Err(bad));
/// assert_eq!(order.order_qty().optional(tags::ORDER_QTY), Err(bad));
/// // Or just the value when it is there and readable.
/// assert_eq!(order.order_qty().value(), None);
/// assert_eq!(order.side().value(), Some(Side::Buy));
/// # }
/// ```
pub trait FieldResult<T> {
    /// The value, or the Reject for an absent (373=1) or unreadable (373=6, or 5 for an
    /// enumerated field's unknown value) field with RefTagID(371) = `tag`.
    ///
    /// # Errors
    /// The [`ValidationError`] the session sends as a Reject (see the table above).
    fn required(self, tag: u32) -> Result<T, ValidationError>;

    /// `Ok(None)` when the field is absent, `Ok(Some(value))` when it is readable, the
    /// Reject (373=6, or 5) with RefTagID(371) = `tag` when it is present but unreadable.
    ///
    /// # Errors
    /// The [`ValidationError`] for a present but unreadable value.
    fn optional(self, tag: u32) -> Result<Option<T>, ValidationError>;

    /// The value when present and readable; `None` when absent or unreadable (what
    /// `.and_then(Result::ok)` gives). The raw bytes of an unreadable value stay readable
    /// through [`FieldAccess::raw_field`](crate::FieldAccess::raw_field).
    fn value(self) -> Option<T>;
}

/// The Reject reason for a value that did not convert, as the session's validator gives it.
fn reject(e: FieldError, tag: u32) -> ValidationError {
    let reason = match e {
        FieldError::Value(_) => SessionRejectReason::IncorrectDataFormatForValue,
        FieldError::UnknownValue => SessionRejectReason::ValueIsIncorrect,
    };
    ValidationError::new(reason, Some(tag))
}

impl<T> FieldResult<T> for Option<Result<T, FieldError>> {
    #[inline]
    fn required(self, tag: u32) -> Result<T, ValidationError> {
        match self {
            Some(Ok(v)) => Ok(v),
            Some(Err(e)) => Err(reject(e, tag)),
            None => Err(ValidationError::new(
                SessionRejectReason::RequiredTagMissing,
                Some(tag),
            )),
        }
    }

    #[inline]
    fn optional(self, tag: u32) -> Result<Option<T>, ValidationError> {
        self.map(|r| r.map_err(|e| reject(e, tag))).transpose()
    }

    #[inline]
    fn value(self) -> Option<T> {
        self.and_then(Result::ok)
    }
}
