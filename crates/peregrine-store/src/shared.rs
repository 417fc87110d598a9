//! A store another holder can read while its session owns it: what an
//! engine gives its sessions so that a callback of one can read another's
//! messages and numbers (QuickFIX/J's `Session.lookupSession(id).getStore()`).

use std::sync::{Arc, Mutex, MutexGuard};

use crate::{MessageStore, Recovery, StoreError, StoreObserver};

/// A store shared between its session, which writes it through this value
/// (a [`MessageStore`]), and readers ([`SharedStore::reader`]). Each
/// operation takes a lock that is uncontended unless a reader holds it: on
/// an engine's thread the session and its readers take turns, so it costs
/// an uncontended lock and unlock (tens of nanoseconds).
///
/// ```
/// use peregrine_store::{MemoryStore, MessageStore, SharedStore, SEQ_END};
/// let mut store = SharedStore::new(MemoryStore::new(0));
/// let reader = store.reader();
/// store.store(1, b"35=D|11=ORD-1|")?;
/// store.incr_next_sender_seq()?;
/// let mut seen = Vec::new();
/// reader.for_each_in_range(1, SEQ_END, &mut |seq, m| seen.push((seq, m.to_vec())))?;
/// assert_eq!(seen, [(1, b"35=D|11=ORD-1|".to_vec())]);
/// assert_eq!(reader.next_sender_seq(), 2);
/// # Ok::<(), peregrine_store::StoreError>(())
/// ```
#[derive(Debug)]
pub struct SharedStore<S> {
    store: Arc<Mutex<S>>,
    /// What the store found on opening (it is not changed after).
    recovery: Option<Recovery>,
}

impl<S: MessageStore + Send + 'static> SharedStore<S> {
    /// Shares `store`.
    pub fn new(store: S) -> Self {
        let recovery = store.recovery().cloned();
        SharedStore {
            store: Arc::new(Mutex::new(store)),
            recovery,
        }
    }

    /// A handle that reads the store (its messages and numbers) from
    /// elsewhere.
    pub fn reader(&self) -> StoreReader {
        StoreReader(self.store.clone())
    }
}

impl<S> SharedStore<S> {
    fn lock(&self) -> MutexGuard<'_, S> {
        // A panic while it was held leaves a store whose every operation
        // completed or failed as a whole.
        self.store.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The reading side of a [`SharedStore`].
#[derive(Clone)]
pub struct StoreReader(Arc<Mutex<dyn MessageStore + Send>>);

impl std::fmt::Debug for StoreReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StoreReader")
    }
}

impl StoreReader {
    fn lock(&self) -> MutexGuard<'_, dyn MessageStore + Send + 'static> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands `visitor` each stored message from `begin` to `end` (inclusive;
    /// [`SEQ_END`](crate::SEQ_END) for all after `begin`), in order, as the
    /// store's [`MessageStore::for_each_in_range`]. Do not call it from
    /// inside `visitor`.
    ///
    /// # Errors
    ///
    /// The store's read errors.
    pub fn for_each_in_range(
        &self,
        begin: u64,
        end: u64,
        visitor: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<(), StoreError> {
        self.lock().for_each_in_range(begin, end, visitor)
    }

    /// The next outgoing MsgSeqNum, as the store holds it.
    pub fn next_sender_seq(&self) -> u64 {
        self.lock().next_sender_seq()
    }

    /// The next incoming MsgSeqNum expected, as the store holds it.
    pub fn next_target_seq(&self) -> u64 {
        self.lock().next_target_seq()
    }
}

impl<S: MessageStore> MessageStore for SharedStore<S> {
    fn next_sender_seq(&self) -> u64 {
        self.lock().next_sender_seq()
    }
    fn next_target_seq(&self) -> u64 {
        self.lock().next_target_seq()
    }
    fn set_next_sender_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.lock().set_next_sender_seq(seq)
    }
    fn set_next_target_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.lock().set_next_target_seq(seq)
    }
    fn incr_next_sender_seq(&mut self) -> Result<(), StoreError> {
        self.lock().incr_next_sender_seq()
    }
    fn incr_next_target_seq(&mut self) -> Result<(), StoreError> {
        self.lock().incr_next_target_seq()
    }
    fn creation_time(&self) -> i64 {
        self.lock().creation_time()
    }
    fn store(&mut self, seq: u64, msg: &[u8]) -> Result<(), StoreError> {
        self.lock().store(seq, msg)
    }
    fn for_each_in_range(
        &mut self,
        begin: u64,
        end: u64,
        visitor: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<(), StoreError> {
        self.lock().for_each_in_range(begin, end, visitor)
    }
    fn reset(&mut self, creation_time: i64) -> Result<(), StoreError> {
        self.lock().reset(creation_time)
    }
    fn refresh(&mut self) -> Result<(), StoreError> {
        self.lock().refresh()
    }
    fn commit(&mut self) -> Result<(), StoreError> {
        self.lock().commit()
    }
    fn settle(&mut self) -> Result<(), StoreError> {
        self.lock().settle()
    }
    fn sync(&mut self) -> Result<(), StoreError> {
        self.lock().sync()
    }
    fn sync_interval(&self) -> Option<std::time::Duration> {
        self.lock().sync_interval()
    }
    fn sync_if_due(&mut self) -> Result<bool, StoreError> {
        self.lock().sync_if_due()
    }
    fn recovery(&self) -> Option<&Recovery> {
        self.recovery.as_ref()
    }
    fn set_observer(&mut self, observer: Option<Arc<dyn StoreObserver>>) {
        self.lock().set_observer(observer)
    }
}
