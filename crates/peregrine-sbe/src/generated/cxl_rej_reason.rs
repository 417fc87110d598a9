#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum CxlRejReason {
    TooLateToCancel = 0x0_u8,
    UnknownOrder = 0x1_u8,
    BrokerOption = 0x2_u8,
    AlreadyPendingCancelOrReplace = 0x3_u8,
    DuplicateClOrdId = 0x6_u8,
    Other = 0x63_u8,
    #[default]
    NullVal = 0xff_u8,
}
impl From<u8> for CxlRejReason {
    #[inline]
    fn from(v: u8) -> Self {
        match v {
            0x0_u8 => Self::TooLateToCancel,
            0x1_u8 => Self::UnknownOrder,
            0x2_u8 => Self::BrokerOption,
            0x3_u8 => Self::AlreadyPendingCancelOrReplace,
            0x6_u8 => Self::DuplicateClOrdId,
            0x63_u8 => Self::Other,
            _ => Self::NullVal,
        }
    }
}
impl From<CxlRejReason> for u8 {
    #[inline]
    fn from(v: CxlRejReason) -> Self {
        match v {
            CxlRejReason::TooLateToCancel => 0x0_u8,
            CxlRejReason::UnknownOrder => 0x1_u8,
            CxlRejReason::BrokerOption => 0x2_u8,
            CxlRejReason::AlreadyPendingCancelOrReplace => 0x3_u8,
            CxlRejReason::DuplicateClOrdId => 0x6_u8,
            CxlRejReason::Other => 0x63_u8,
            CxlRejReason::NullVal => 0xff_u8,
        }
    }
}
impl core::str::FromStr for CxlRejReason {
    type Err = ();

    #[inline]
    fn from_str(v: &str) -> core::result::Result<Self, Self::Err> {
        match v {
            "TooLateToCancel" => Ok(Self::TooLateToCancel),
            "UnknownOrder" => Ok(Self::UnknownOrder),
            "BrokerOption" => Ok(Self::BrokerOption),
            "AlreadyPendingCancelOrReplace" => Ok(Self::AlreadyPendingCancelOrReplace),
            "DuplicateClOrdId" => Ok(Self::DuplicateClOrdId),
            "Other" => Ok(Self::Other),
            _ => Ok(Self::NullVal),
        }
    }
}
impl core::fmt::Display for CxlRejReason {
    #[inline]
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::TooLateToCancel => write!(f, "TooLateToCancel"),
            Self::UnknownOrder => write!(f, "UnknownOrder"),
            Self::BrokerOption => write!(f, "BrokerOption"),
            Self::AlreadyPendingCancelOrReplace => write!(f, "AlreadyPendingCancelOrReplace"),
            Self::DuplicateClOrdId => write!(f, "DuplicateClOrdId"),
            Self::Other => write!(f, "Other"),
            Self::NullVal => write!(f, "NullVal"),
        }
    }
}
