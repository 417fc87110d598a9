#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum OrdRejReason {
    BrokerOption = 0x0_u8,
    UnknownSymbol = 0x1_u8,
    ExchangeClosed = 0x2_u8,
    OrderExceedsLimit = 0x3_u8,
    TooLateToEnter = 0x4_u8,
    UnknownOrder = 0x5_u8,
    DuplicateOrder = 0x6_u8,
    Other = 0x63_u8,
    #[default]
    NullVal = 0xff_u8,
}
impl From<u8> for OrdRejReason {
    #[inline]
    fn from(v: u8) -> Self {
        match v {
            0x0_u8 => Self::BrokerOption,
            0x1_u8 => Self::UnknownSymbol,
            0x2_u8 => Self::ExchangeClosed,
            0x3_u8 => Self::OrderExceedsLimit,
            0x4_u8 => Self::TooLateToEnter,
            0x5_u8 => Self::UnknownOrder,
            0x6_u8 => Self::DuplicateOrder,
            0x63_u8 => Self::Other,
            _ => Self::NullVal,
        }
    }
}
impl From<OrdRejReason> for u8 {
    #[inline]
    fn from(v: OrdRejReason) -> Self {
        match v {
            OrdRejReason::BrokerOption => 0x0_u8,
            OrdRejReason::UnknownSymbol => 0x1_u8,
            OrdRejReason::ExchangeClosed => 0x2_u8,
            OrdRejReason::OrderExceedsLimit => 0x3_u8,
            OrdRejReason::TooLateToEnter => 0x4_u8,
            OrdRejReason::UnknownOrder => 0x5_u8,
            OrdRejReason::DuplicateOrder => 0x6_u8,
            OrdRejReason::Other => 0x63_u8,
            OrdRejReason::NullVal => 0xff_u8,
        }
    }
}
impl core::str::FromStr for OrdRejReason {
    type Err = ();

    #[inline]
    fn from_str(v: &str) -> core::result::Result<Self, Self::Err> {
        match v {
            "BrokerOption" => Ok(Self::BrokerOption),
            "UnknownSymbol" => Ok(Self::UnknownSymbol),
            "ExchangeClosed" => Ok(Self::ExchangeClosed),
            "OrderExceedsLimit" => Ok(Self::OrderExceedsLimit),
            "TooLateToEnter" => Ok(Self::TooLateToEnter),
            "UnknownOrder" => Ok(Self::UnknownOrder),
            "DuplicateOrder" => Ok(Self::DuplicateOrder),
            "Other" => Ok(Self::Other),
            _ => Ok(Self::NullVal),
        }
    }
}
impl core::fmt::Display for OrdRejReason {
    #[inline]
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::BrokerOption => write!(f, "BrokerOption"),
            Self::UnknownSymbol => write!(f, "UnknownSymbol"),
            Self::ExchangeClosed => write!(f, "ExchangeClosed"),
            Self::OrderExceedsLimit => write!(f, "OrderExceedsLimit"),
            Self::TooLateToEnter => write!(f, "TooLateToEnter"),
            Self::UnknownOrder => write!(f, "UnknownOrder"),
            Self::DuplicateOrder => write!(f, "DuplicateOrder"),
            Self::Other => write!(f, "Other"),
            Self::NullVal => write!(f, "NullVal"),
        }
    }
}
