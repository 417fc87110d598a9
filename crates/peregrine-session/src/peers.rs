//! The other sessions of an engine, as a callback sees them: how it names
//! one ([`SessionRef`], [`To`]) and what it may know of it ([`PeerStatus`]),
//! through the engine's [`Peers`].
//!
//! A session alone (sans-IO, no engine) has no peers: a callback's
//! [`Outbox::send_to`](crate::Outbox::send_to) then answers
//! [`SendError::NoSuchSession`](crate::SendError::NoSuchSession).

use std::fmt;

use peregrine_store::StoreError;

use crate::config::SessionId;
use crate::SessionState;

/// A session of an engine, named cheaply: its slot and the generation of the
/// session in it, so that a reference to a session that was removed is
/// refused rather than sent to another that took its place. Made by the
/// engine that hosts the session (meaningless to another engine).
///
/// ```
/// use peregrine_session::SessionRef;
/// let r = SessionRef::new(3, 1);
/// assert_eq!((r.index(), r.generation()), (3, 1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SessionRef {
    index: u32,
    generation: u32,
}

impl SessionRef {
    /// The session in slot `index`, of that slot's `generation`.
    pub const fn new(index: u32, generation: u32) -> Self {
        SessionRef { index, generation }
    }

    /// Its slot in the engine.
    pub const fn index(&self) -> u32 {
        self.index
    }

    /// The generation of the session in that slot.
    pub const fn generation(&self) -> u32 {
        self.generation
    }
}

/// Where a callback sends: a session of its engine, by [`SessionId`] or by
/// [`SessionRef`] (what the engine gave when the session was made, also for
/// sessions made from a template or added at run time).
///
/// ```
/// use peregrine_session::{SessionId, SessionRef, To};
/// let venue = SessionId::new("FIX.4.4", "GW", "VENUE");
/// let by_id: To<'_> = (&venue).into();
/// let by_ref: To<'_> = SessionRef::new(0, 1).into();
/// assert_eq!(by_id.to_string(), "FIX.4.4:GW->VENUE");
/// assert_eq!(by_ref.to_string(), "session #0/1");
/// ```
#[derive(Clone, Copy, Debug)]
pub enum To<'a> {
    /// By its identity (BeginString, CompIDs, qualifier).
    Id(&'a SessionId),
    /// By the engine's reference.
    Ref(SessionRef),
}

impl<'a> From<&'a SessionId> for To<'a> {
    fn from(id: &'a SessionId) -> Self {
        To::Id(id)
    }
}

impl From<SessionRef> for To<'_> {
    fn from(r: SessionRef) -> Self {
        To::Ref(r)
    }
}

impl fmt::Display for To<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            To::Id(id) => write!(f, "{id}"),
            To::Ref(r) => write!(f, "session #{}/{}", r.index, r.generation),
        }
    }
}

/// What a callback may know of another session of its engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerStatus {
    /// How the engine names it.
    pub reference: SessionRef,
    /// Where it is (disconnected, awaiting a Logon, logged on, …), as of its
    /// last commit.
    pub state: SessionState,
    /// Both Logons exchanged.
    pub logged_on: bool,
    /// An application message sent while it is not logged on is stored and
    /// resent after its next Logon (`true`: `QueueWhileLoggedOut=Y`, and it
    /// keeps its messages across that Logon — `PersistMessages=Y`, no
    /// `ResetOnLogon` or `ResetOnDisconnect`), or refused in the callback.
    pub queue_while_logged_out: bool,
    /// Its next outgoing MsgSeqNum, as of its last commit.
    pub next_sender_seq: u64,
    /// The MsgSeqNum it expects next, as of its last commit.
    pub next_target_seq: u64,
}

/// The sessions of an engine, as its callbacks see them: what the engine
/// gives each of its sessions ([`Session::set_peers`](crate::Session::set_peers)).
pub trait Peers: Send + Sync + fmt::Debug {
    /// The session `to` names, if the engine has it.
    fn find(&self, to: &To<'_>) -> Option<PeerStatus>;

    /// Hands `visitor` each message the session `to` has stored from `begin`
    /// to `end` (inclusive), in order: `None` when the engine has no such
    /// session or cannot read its store.
    fn read_stored(
        &self,
        to: &To<'_>,
        begin: u64,
        end: u64,
        visitor: &mut dyn FnMut(u64, &[u8]),
    ) -> Option<Result<(), StoreError>> {
        let _ = (to, begin, end, visitor);
        None
    }
}
