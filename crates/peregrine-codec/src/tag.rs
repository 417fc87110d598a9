//! Tag numbers of the fields the session layer and the engine read and write,
//! by their names in the FIX specification (`MsgSeqNum` is [`MSG_SEQ_NUM`]).
//!
//! Application fields of every FIX version are generated from the
//! dictionaries (`peregrine_messages::<version>::tags`); these are the ones a
//! session needs whatever the version: the standard header and trailer, and
//! the fields of the administrative messages.
//!
//! ```
//! use peregrine_codec::{tag, EncodeBuffer};
//! let mut buf = EncodeBuffer::new();
//! let mut m = buf.start(b"FIX.4.4", b"0");
//! m.uint(tag::MSG_SEQ_NUM, 2).str(tag::SENDER_COMP_ID, b"A").str(tag::TARGET_COMP_ID, b"B");
//! assert!(m.finish().windows(5).any(|w| w == b"\x0134=2"));
//! ```

// Standard header.
/// BeginString(8).
pub const BEGIN_STRING: u32 = 8;
/// BodyLength(9).
pub const BODY_LENGTH: u32 = 9;
/// MsgType(35).
pub const MSG_TYPE: u32 = 35;
/// MsgSeqNum(34).
pub const MSG_SEQ_NUM: u32 = 34;
/// PossDupFlag(43).
pub const POSS_DUP_FLAG: u32 = 43;
/// SenderCompID(49).
pub const SENDER_COMP_ID: u32 = 49;
/// SenderSubID(50).
pub const SENDER_SUB_ID: u32 = 50;
/// SendingTime(52).
pub const SENDING_TIME: u32 = 52;
/// TargetCompID(56).
pub const TARGET_COMP_ID: u32 = 56;
/// TargetSubID(57).
pub const TARGET_SUB_ID: u32 = 57;
/// SecureDataLen(90).
pub const SECURE_DATA_LEN: u32 = 90;
/// SecureData(91).
pub const SECURE_DATA: u32 = 91;
/// PossResend(97).
pub const POSS_RESEND: u32 = 97;
/// OnBehalfOfCompID(115).
pub const ON_BEHALF_OF_COMP_ID: u32 = 115;
/// OnBehalfOfSubID(116).
pub const ON_BEHALF_OF_SUB_ID: u32 = 116;
/// OrigSendingTime(122).
pub const ORIG_SENDING_TIME: u32 = 122;
/// DeliverToCompID(128).
pub const DELIVER_TO_COMP_ID: u32 = 128;
/// DeliverToSubID(129).
pub const DELIVER_TO_SUB_ID: u32 = 129;
/// SenderLocationID(142).
pub const SENDER_LOCATION_ID: u32 = 142;
/// TargetLocationID(143).
pub const TARGET_LOCATION_ID: u32 = 143;
/// OnBehalfOfLocationID(144).
pub const ON_BEHALF_OF_LOCATION_ID: u32 = 144;
/// DeliverToLocationID(145).
pub const DELIVER_TO_LOCATION_ID: u32 = 145;
/// XmlDataLen(212).
pub const XML_DATA_LEN: u32 = 212;
/// XmlData(213).
pub const XML_DATA: u32 = 213;
/// MessageEncoding(347).
pub const MESSAGE_ENCODING: u32 = 347;
/// LastMsgSeqNumProcessed(369).
pub const LAST_MSG_SEQ_NUM_PROCESSED: u32 = 369;
/// OnBehalfOfSendingTime(370).
pub const ON_BEHALF_OF_SENDING_TIME: u32 = 370;
/// NoHops(627).
pub const NO_HOPS: u32 = 627;
/// HopCompID(628).
pub const HOP_COMP_ID: u32 = 628;
/// HopSendingTime(629).
pub const HOP_SENDING_TIME: u32 = 629;
/// HopRefID(630).
pub const HOP_REF_ID: u32 = 630;
/// ApplVerID(1128).
pub const APPL_VER_ID: u32 = 1128;
/// CstmApplVerID(1129).
pub const CSTM_APPL_VER_ID: u32 = 1129;
/// ApplExtID(1156).
pub const APPL_EXT_ID: u32 = 1156;

// Standard trailer.
/// CheckSum(10).
pub const CHECK_SUM: u32 = 10;
/// SignatureLength(93).
pub const SIGNATURE_LENGTH: u32 = 93;
/// Signature(89).
pub const SIGNATURE: u32 = 89;

// Administrative messages.
/// BeginSeqNo(7), of a ResendRequest.
pub const BEGIN_SEQ_NO: u32 = 7;
/// EndSeqNo(16), of a ResendRequest.
pub const END_SEQ_NO: u32 = 16;
/// NewSeqNo(36), of a SequenceReset.
pub const NEW_SEQ_NO: u32 = 36;
/// RefSeqNum(45), of a Reject.
pub const REF_SEQ_NUM: u32 = 45;
/// Text(58).
pub const TEXT: u32 = 58;
/// RawDataLength(95).
pub const RAW_DATA_LENGTH: u32 = 95;
/// RawData(96).
pub const RAW_DATA: u32 = 96;
/// EncryptMethod(98), of a Logon.
pub const ENCRYPT_METHOD: u32 = 98;
/// HeartBtInt(108), of a Logon.
pub const HEART_BT_INT: u32 = 108;
/// TestReqID(112), of a TestRequest and the Heartbeat answering it.
pub const TEST_REQ_ID: u32 = 112;
/// GapFillFlag(123), of a SequenceReset.
pub const GAP_FILL_FLAG: u32 = 123;
/// ResetSeqNumFlag(141), of a Logon.
pub const RESET_SEQ_NUM_FLAG: u32 = 141;
/// RefTagID(371), of a Reject.
pub const REF_TAG_ID: u32 = 371;
/// RefMsgType(372), of a Reject or BusinessMessageReject.
pub const REF_MSG_TYPE: u32 = 372;
/// SessionRejectReason(373), of a Reject.
pub const SESSION_REJECT_REASON: u32 = 373;
/// BusinessRejectRefID(379), of a BusinessMessageReject.
pub const BUSINESS_REJECT_REF_ID: u32 = 379;
/// BusinessRejectReason(380), of a BusinessMessageReject.
pub const BUSINESS_REJECT_REASON: u32 = 380;
/// MaxMessageSize(383), of a Logon.
pub const MAX_MESSAGE_SIZE: u32 = 383;
/// Username(553), of a Logon.
pub const USERNAME: u32 = 553;
/// Password(554), of a Logon.
pub const PASSWORD: u32 = 554;
/// NextExpectedMsgSeqNum(789), of a Logon.
pub const NEXT_EXPECTED_MSG_SEQ_NUM: u32 = 789;
/// DefaultApplVerID(1137), of a FIXT.1.1 Logon.
pub const DEFAULT_APPL_VER_ID: u32 = 1137;

/// Whether `tag` belongs to the standard header of some FIX version (the
/// fields a resend keeps in the header it writes again).
///
/// ```
/// use peregrine_codec::tag;
/// assert!(tag::is_standard_header(tag::ON_BEHALF_OF_COMP_ID));
/// assert!(!tag::is_standard_header(tag::TEXT));
/// ```
pub fn is_standard_header(tag: u32) -> bool {
    matches!(
        tag,
        BEGIN_STRING
            | BODY_LENGTH
            | MSG_TYPE
            | MSG_SEQ_NUM
            | POSS_DUP_FLAG
            | SENDER_COMP_ID
            | SENDER_SUB_ID
            | SENDING_TIME
            | TARGET_COMP_ID
            | TARGET_SUB_ID
            | SECURE_DATA_LEN
            | SECURE_DATA
            | POSS_RESEND
            | ON_BEHALF_OF_COMP_ID
            | ON_BEHALF_OF_SUB_ID
            | ORIG_SENDING_TIME
            | DELIVER_TO_COMP_ID
            | DELIVER_TO_SUB_ID
            | SENDER_LOCATION_ID
            | TARGET_LOCATION_ID
            | ON_BEHALF_OF_LOCATION_ID
            | DELIVER_TO_LOCATION_ID
            | XML_DATA_LEN
            | XML_DATA
            | MESSAGE_ENCODING
            | LAST_MSG_SEQ_NUM_PROCESSED
            | ON_BEHALF_OF_SENDING_TIME
            | NO_HOPS
            | HOP_COMP_ID
            | HOP_SENDING_TIME
            | HOP_REF_ID
            | APPL_VER_ID
            | CSTM_APPL_VER_ID
            | APPL_EXT_ID
    )
}

/// Whether `tag` belongs to the standard trailer.
///
/// ```
/// assert!(peregrine_codec::tag::is_standard_trailer(10));
/// ```
pub fn is_standard_trailer(tag: u32) -> bool {
    matches!(tag, CHECK_SUM | SIGNATURE_LENGTH | SIGNATURE)
}
