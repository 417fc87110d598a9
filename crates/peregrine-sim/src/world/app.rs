//! The application behind each simulated session: it remembers what it was
//! given (the oracle reads it after every step) and accepts everything.

use peregrine_codec::MessageView;
use peregrine_session::{AppReject, Application, Outbox, SessionId};

/// One application message handed to `from_app`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// The sender's message id (ClOrdID(11)); `u64::MAX` when missing or bad.
    pub id: u64,
    /// PossDupFlag(43)=Y.
    pub poss_dup: bool,
    /// MsgSeqNum(34).
    pub seq: u64,
}

/// The simulated application.
#[derive(Debug, Default)]
pub struct SimApp {
    /// Deliveries since the oracle last read them.
    pub deliveries: Vec<Delivery>,
}

fn number(v: Option<&[u8]>) -> u64 {
    v.and_then(|v| std::str::from_utf8(v).ok())
        .and_then(|s| s.parse().ok())
        .unwrap_or(u64::MAX)
}

impl Application for SimApp {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        self.deliveries.push(Delivery {
            id: number(msg.get(11)),
            poss_dup: msg.get(43) == Some(b"Y"),
            seq: number(msg.get(34)),
        });
        Ok(())
    }
}
