//! One simulated node: a real [`Session`] over a [`SimStore`], its
//! application, and what a crash and restart do to them.

use std::path::{Path, PathBuf};

use peregrine_session::{Nanos, Session, SessionConfig};
use peregrine_store::{MemoryStore, StoreError};

use super::app::SimApp;
use crate::faults::Side;
use crate::store::{ReopenError, SimStore, StoreKind, Tear};

/// A session, its application and its store.
pub struct Node {
    /// Which side.
    pub side: Side,
    /// The real session.
    pub session: Session<SimStore>,
    /// Its application (the oracle's view of what it was handed).
    pub app: SimApp,
    config: SessionConfig,
    /// The store epoch the ledger last saw.
    pub epoch_seen: u64,
    /// Bytes written on the current connection, not yet a whole message.
    pub wire_carry: Vec<u8>,
    _dir: PathBuf,
}

impl Node {
    /// A fresh node.
    ///
    /// # Errors
    ///
    /// The file store could not be created in `dir`.
    pub fn new(
        side: Side,
        config: SessionConfig,
        kind: StoreKind,
        dir: &Path,
        now: Nanos,
    ) -> Result<Node, StoreError> {
        let store = SimStore::new(kind, dir, now)?;
        let mut app = SimApp::default();
        let mut session = Session::new(config.clone(), store, now);
        session.create(&mut app);
        Ok(Node {
            side,
            session,
            app,
            config,
            epoch_seen: 0,
            wire_carry: Vec::new(),
            _dir: dir.to_path_buf(),
        })
    }

    /// The store.
    pub fn store(&self) -> &SimStore {
        self.session.store()
    }

    /// The process dies and restarts: the session and everything not
    /// committed are gone; a new session opens the store as the crash left it.
    ///
    /// # Errors
    ///
    /// The store refused to reopen.
    pub fn crash(&mut self, tear: Tear, now: Nanos) -> Result<(), ReopenError> {
        // The session owns its store: swap a placeholder in to take it back.
        let placeholder = SimStore::from_memory(MemoryStore::new(now));
        let store = std::mem::replace(self.session.store_mut(), placeholder);
        let store = store.crash(tear, now)?;
        self.session = Session::new(self.config.clone(), store, now);
        self.session.create(&mut self.app);
        self.wire_carry.clear();
        Ok(())
    }
}
