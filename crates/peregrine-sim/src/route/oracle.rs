//! The routing world's oracle: what each order and report may do.
//!
//! * **Routed iff committed** ([`routed`]): an order the client sent with
//!   MsgSeqNum `s` is stored on each of the router's venue sessions exactly
//!   once when the router's client session has committed `s` (its next
//!   target number is past `s`), and not at all otherwise; reports from a
//!   venue likewise on the client session. Checked on the journal's state after
//!   every restart, every few hundred steps and at the end.
//! * **Never twice as different messages** ([`Ledger::delivered`]): each
//!   venue receives each order, and the client each report, at one
//!   MsgSeqNum of the router's session only (a resend of it, PossDupFlag=Y,
//!   is the same message; a second forward is not).
//! * **Nothing lost** ([`Ledger::all_delivered`]): once faults stop and the
//!   sessions are in step, every order reached every venue and every
//!   report the client.

use std::collections::{BTreeMap, HashMap};

use peregrine_store::{MessageStore, SEQ_END};

/// The value of `tag` in a stored message.
pub fn field<'a>(m: &'a [u8], tag: &[u8]) -> Option<&'a [u8]> {
    m.split(|&b| b == 1).find_map(|f| {
        let eq = f.iter().position(|&b| b == b'=')?;
        (&f[..eq] == tag).then(|| &f[eq + 1..])
    })
}

/// The messages of `msg_type` a store holds, by MsgSeqNum: their ClOrdID(11).
pub fn stored(
    store: &mut dyn MessageStore,
    msg_type: &[u8],
) -> Result<Vec<(u64, Vec<u8>)>, String> {
    let mut out = Vec::new();
    store
        .for_each_in_range(1, SEQ_END, &mut |seq, m| {
            if field(m, b"35") == Some(msg_type) {
                out.push((seq, field(m, b"11").unwrap_or(b"?").to_vec()));
            }
        })
        .map_err(|e| format!("reading a store back: {e}"))?;
    Ok(out)
}

/// Checks that what `source` sent (MsgSeqNum → id) is on `dest` exactly
/// once when its number is below `committed` (the router's next expected
/// number on the source's session), and not at all otherwise.
pub fn routed(
    what: &str,
    source: &[(u64, Vec<u8>)],
    committed: u64,
    dest: &[(u64, Vec<u8>)],
) -> Result<(), String> {
    let mut count: HashMap<&[u8], usize> = HashMap::new();
    for (_, id) in dest {
        *count.entry(id.as_slice()).or_default() += 1;
    }
    for (seq, id) in source {
        let have = count.remove(id.as_slice()).unwrap_or(0);
        let want = usize::from(*seq < committed);
        if have != want {
            return Err(format!(
                "{what} {} (MsgSeqNum {seq}) stored {have} time(s) on its destination, the router's incoming number being {committed}",
                String::from_utf8_lossy(id)
            ));
        }
    }
    if let Some((id, n)) = count.into_iter().next() {
        return Err(format!(
            "{what} {} stored {n} time(s) on its destination, never sent",
            String::from_utf8_lossy(id)
        ));
    }
    Ok(())
}

/// Where each order and report arrived.
#[derive(Debug, Default)]
pub struct Ledger {
    /// (Venue, order id) → the router's MsgSeqNum it reached the venue with.
    at_venue: HashMap<(usize, Vec<u8>), u64>,
    /// Report id → the router's MsgSeqNum it reached the client with.
    at_client: HashMap<Vec<u8>, u64>,
    /// Orders the client sent, by its MsgSeqNum.
    pub orders: BTreeMap<u64, Vec<u8>>,
    /// Deliveries that were a resend (PossDupFlag=Y).
    pub poss_dups: u64,
}

impl Ledger {
    /// Venue `k` (`Some(k)`) or the client received `id` with the router's
    /// MsgSeqNum `seq`.
    ///
    /// # Errors
    ///
    /// It had received `id` with another MsgSeqNum: routed twice.
    pub fn delivered(
        &mut self,
        venue: Option<usize>,
        id: &[u8],
        seq: u64,
        poss_dup: bool,
    ) -> Result<(), String> {
        self.poss_dups += u64::from(poss_dup);
        let before = match venue {
            Some(k) => self.at_venue.insert((k, id.to_vec()), seq),
            None => self.at_client.insert(id.to_vec(), seq),
        };
        match before {
            Some(before) if before != seq => Err(format!(
                "{} {} arrived at {} twice as different messages: the router's MsgSeqNum {before} and {seq}",
                if venue.is_some() { "order" } else { "report" },
                String::from_utf8_lossy(id),
                venue.map_or("the client".to_string(), |k| format!("venue {k}"))
            )),
            _ => Ok(()),
        }
    }

    /// Every order reached each of `venues` venues, and every report in
    /// `reports` the client.
    ///
    /// # Errors
    ///
    /// The first one missing.
    pub fn all_delivered(&self, venues: usize, reports: &[(u64, Vec<u8>)]) -> Result<(), String> {
        for k in 1..=venues {
            let missing = self
                .orders
                .iter()
                .find(|(_, id)| !self.at_venue.contains_key(&(k, id.to_vec())));
            if let Some((seq, id)) = missing {
                return Err(format!(
                    "order {} (the client's MsgSeqNum {seq}) never reached venue {k}",
                    String::from_utf8_lossy(id)
                ));
            }
        }
        if let Some((seq, id)) = reports
            .iter()
            .find(|(_, id)| !self.at_client.contains_key(id))
        {
            return Err(format!(
                "report {} (the venue's MsgSeqNum {seq}) never reached the client",
                String::from_utf8_lossy(id)
            ));
        }
        Ok(())
    }

    /// How many orders reached a venue (counted once per venue).
    pub fn orders_routed(&self) -> usize {
        self.at_venue.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[(u64, &str)]) -> Vec<(u64, Vec<u8>)> {
        v.iter().map(|(s, i)| (*s, i.as_bytes().to_vec())).collect()
    }

    #[test]
    fn routed_wants_each_committed_source_once_and_no_other() {
        let src = ids(&[(2, "a"), (3, "b"), (5, "c")]);
        assert!(routed("order", &src, 4, &ids(&[(1, "a"), (2, "b")])).is_ok());
        assert!(
            routed("order", &src, 4, &ids(&[(1, "a")])).is_err(),
            "b lost"
        );
        let twice = ids(&[(1, "a"), (2, "b"), (3, "a")]);
        assert!(routed("order", &src, 4, &twice).is_err(), "a twice");
        let early = ids(&[(1, "a"), (2, "b"), (3, "c")]);
        assert!(routed("order", &src, 4, &early).is_err(), "c not committed");
        assert!(routed("order", &src, 4, &ids(&[(1, "a"), (2, "b"), (3, "z")])).is_err());
    }

    #[test]
    fn an_order_at_two_numbers_is_a_duplicate_and_a_resend_is_not() {
        let mut l = Ledger::default();
        assert!(l.delivered(Some(1), b"1", 7, false).is_ok());
        assert!(l.delivered(Some(1), b"1", 7, true).is_ok());
        assert!(
            l.delivered(Some(2), b"1", 4, false).is_ok(),
            "another venue"
        );
        assert!(l.delivered(Some(1), b"1", 9, true).is_err());
        l.orders.insert(3, b"2".to_vec());
        assert!(l.all_delivered(1, &[]).is_err());
        assert!(l.delivered(Some(1), b"2", 8, true).is_ok());
        assert!(l.all_delivered(1, &[]).is_ok());
        assert!(l.all_delivered(2, &[]).is_err(), "not at venue 2");
        assert!(l.all_delivered(1, &ids(&[(1, "r")])).is_err());
        assert!(l.delivered(None, b"r", 5, false).is_ok());
        assert!(l.all_delivered(1, &ids(&[(1, "r")])).is_ok());
    }
}
