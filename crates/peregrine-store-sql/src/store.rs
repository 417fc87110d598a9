//! [`SqlStore`]: the session's state in memory, written to a database by
//! [`commit`](MessageStore::commit) as one transaction.

use std::collections::BTreeMap;

use peregrine_store::{MessageStore, StoreError, MAX_MESSAGE_LEN};

use crate::text::{check_message, seq_column, MAX_SEQ};

/// A session's row in the `sessions` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionRow {
    pub(crate) creation_time: i64,
    /// `incoming_seqnum`: the next expected incoming sequence number.
    pub(crate) incoming: u64,
    /// `outgoing_seqnum`: the next outgoing sequence number.
    pub(crate) outgoing: u64,
}

/// What a database does for a [`SqlStore`]; each method is one database
/// transaction.
pub trait Backend {
    /// Reads the session's row, inserting it (created at `now`, both numbers
    /// at 1) when it is absent.
    fn load_or_create(&mut self, now: i64) -> Result<SessionRow, StoreError>;
    /// Writes `messages` (an upsert each) and both sequence numbers.
    fn commit(
        &mut self,
        messages: &BTreeMap<u64, Vec<u8>>,
        incoming: i32,
        outgoing: i32,
    ) -> Result<(), StoreError>;
    /// Deletes the session's messages and sets its row to 1, 1, `creation_time`.
    fn reset(&mut self, creation_time: i64) -> Result<(), StoreError>;
    /// Visits the stored messages in `begin..=end`, in order.
    fn for_each(
        &mut self,
        begin: i32,
        end: i32,
        visitor: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<(), StoreError>;
}

/// A [`MessageStore`] on a database, in QuickFIX/J's `JdbcStore` layout; see
/// [`SqliteStore`](crate::SqliteStore) and
/// [`PostgresStore`](crate::PostgresStore).
///
/// Sequence numbers and stored messages change in memory; [`commit`]
/// writes what changed since the last commit as one database transaction:
/// the messages (an upsert each) and both sequence numbers in one `UPDATE`
/// of the session's row. A commit with nothing changed reaches no database.
/// Reads ([`for_each_in_range`]) see the messages stored but not committed
/// yet too. A failed commit keeps the changes, so the next commit writes
/// them all: nothing is lost and no sequence number is used twice.
///
/// Memory bound: the messages stored since the last commit (a session
/// commits once per batch of input).
///
/// [`commit`]: MessageStore::commit
/// [`for_each_in_range`]: MessageStore::for_each_in_range
pub struct SqlStore<B> {
    backend: B,
    next_sender: u64,
    next_target: u64,
    creation_time: i64,
    /// Stored since the last commit, by sequence number (a repeat replaces).
    pending: BTreeMap<u64, Vec<u8>>,
    /// The numbers as last committed: a commit writes them only if they moved.
    committed: (u64, u64),
}

impl<B: Backend> SqlStore<B> {
    pub(crate) fn with_backend(mut backend: B, now: i64) -> Result<Self, StoreError> {
        let row = backend.load_or_create(now)?;
        Ok(SqlStore {
            backend,
            next_sender: row.outgoing,
            next_target: row.incoming,
            creation_time: row.creation_time,
            pending: BTreeMap::new(),
            committed: (row.outgoing, row.incoming),
        })
    }

    pub(crate) fn backend(&self) -> &B {
        &self.backend
    }

    /// How many messages are stored and not committed yet.
    pub fn uncommitted(&self) -> usize {
        self.pending.len()
    }
}

impl<B> std::fmt::Debug for SqlStore<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqlStore")
            .field("next_sender", &self.next_sender)
            .field("next_target", &self.next_target)
            .field("creation_time", &self.creation_time)
            .field("uncommitted", &self.pending.len())
            .finish_non_exhaustive()
    }
}

fn check_seq(seq: u64) -> Result<u64, StoreError> {
    if seq == 0 || seq == u64::MAX {
        Err(StoreError::InvalidSeqNum(seq))
    } else {
        Ok(seq)
    }
}

impl<B: Backend> MessageStore for SqlStore<B> {
    fn next_sender_seq(&self) -> u64 {
        self.next_sender
    }

    fn next_target_seq(&self) -> u64 {
        self.next_target
    }

    /// Changes the number in memory; the next commit writes it (an
    /// increment is not a row update of its own).
    fn set_next_sender_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.next_sender = check_seq(seq)?;
        Ok(())
    }

    fn set_next_target_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.next_target = check_seq(seq)?;
        Ok(())
    }

    fn creation_time(&self) -> i64 {
        self.creation_time
    }

    /// Keeps the message for the next commit.
    ///
    /// # Errors
    ///
    /// As every store ([`StoreError::InvalidSeqNum`],
    /// [`StoreError::MessageTooLarge`]), and [`StoreError::Database`] for a
    /// sequence number above the `INTEGER` column's range or a NUL byte.
    fn store(&mut self, seq: u64, msg: &[u8]) -> Result<(), StoreError> {
        check_seq(seq)?;
        if msg.len() > MAX_MESSAGE_LEN {
            return Err(StoreError::MessageTooLarge {
                len: msg.len(),
                max: MAX_MESSAGE_LEN,
            });
        }
        seq_column("MsgSeqNum", seq)?;
        check_message(seq, msg)?;
        match self.pending.get_mut(&seq) {
            Some(old) => {
                old.clear();
                old.extend_from_slice(msg);
            }
            None => {
                self.pending.insert(seq, msg.to_vec());
            }
        }
        Ok(())
    }

    /// One `SELECT ... ORDER BY msgseqnum`, merged with the messages not
    /// committed yet (which win over a row of the same number).
    fn for_each_in_range(
        &mut self,
        begin: u64,
        end: u64,
        visitor: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<(), StoreError> {
        let begin = begin.max(1);
        if begin > end {
            return Ok(());
        }
        let mut pending = self.pending.range(begin..=end).peekable();
        if begin <= MAX_SEQ {
            let db_end = end.min(MAX_SEQ) as i32;
            self.backend
                .for_each(begin as i32, db_end, &mut |seq, msg| {
                    while let Some((&p, m)) = pending.next_if(|(&p, _)| p < seq) {
                        visitor(p, m);
                    }
                    match pending.next_if(|(&p, _)| p == seq) {
                        Some((&p, m)) => visitor(p, m),
                        None => visitor(seq, msg),
                    }
                })?;
        }
        for (&p, m) in pending {
            visitor(p, m);
        }
        Ok(())
    }

    /// Deletes the session's messages and resets its row, in one database
    /// transaction; the uncommitted changes are dropped. On an error the
    /// store is left as it was.
    fn reset(&mut self, creation_time: i64) -> Result<(), StoreError> {
        self.backend.reset(creation_time)?;
        self.pending.clear();
        self.next_sender = 1;
        self.next_target = 1;
        self.committed = (1, 1);
        self.creation_time = creation_time;
        Ok(())
    }

    /// Commits, then reads the session's row again (another process may
    /// have moved the numbers).
    fn refresh(&mut self) -> Result<(), StoreError> {
        self.commit()?;
        let row = self.backend.load_or_create(self.creation_time)?;
        self.next_sender = row.outgoing;
        self.next_target = row.incoming;
        // The columns keep microseconds: the same time is kept as it was given.
        if row.creation_time != self.creation_time.div_euclid(1000) * 1000 {
            self.creation_time = row.creation_time;
        }
        self.committed = (row.outgoing, row.incoming);
        Ok(())
    }

    /// One database transaction: the messages stored since the last commit
    /// and both sequence numbers in one `UPDATE`. Nothing to write, no
    /// statement.
    ///
    /// # Errors
    ///
    /// [`StoreError::Database`] when the transaction fails (nothing of it is
    /// kept by the database; the changes stay here for the next commit) or a
    /// sequence number is above the `INTEGER` column's range.
    fn commit(&mut self) -> Result<(), StoreError> {
        let numbers = (self.next_sender, self.next_target);
        if self.pending.is_empty() && numbers == self.committed {
            return Ok(());
        }
        let outgoing = seq_column("the next sender sequence number", self.next_sender)?;
        let incoming = seq_column("the next target sequence number", self.next_target)?;
        self.backend.commit(&self.pending, incoming, outgoing)?;
        self.pending.clear();
        self.committed = numbers;
        Ok(())
    }

    /// A commit: a committed transaction is as durable as the database
    /// makes it (PostgreSQL's `synchronous_commit`, SQLite's
    /// `synchronous=FULL` here).
    fn sync(&mut self) -> Result<(), StoreError> {
        self.commit()
    }
}
