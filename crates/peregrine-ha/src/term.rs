//! The fencing token: a leader's [`Term`], and the [`TermFence`] a standby keeps so
//! that it never applies a record of an older term.

use std::fmt;

/// A leadership term: the etcd revision at which the winner created its leader key
/// (the key's `create_revision`).
///
/// etcd gives every change of its key space one revision, from a single counter that
/// only grows, so a key created by a later winner has a greater create revision than
/// any key created before it: terms of one group are totally ordered by time of winning,
/// without any counter of ours. (A lease's ID is not ordered, and granting a lease
/// makes no revision, so the lease could not serve.)
///
/// ```
/// use peregrine_ha::Term;
/// let first = Term::new(7).unwrap();
/// let second = Term::new(12).unwrap();
/// assert!(second > first);
/// assert_eq!(Term::new(0), None); // revision 0 is "no key": never a term
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Term(u64);

impl Term {
    /// The term of a leader key created at `revision`; `None` for 0 (etcd's "absent").
    pub fn new(revision: u64) -> Option<Term> {
        (revision != 0).then_some(Term(revision))
    }

    /// The revision, as it is carried on the wire.
    pub fn get(self) -> u64 {
        self.0
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A record of an older term than one the standby already knows: refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StaleTerm {
    /// The term the record carried.
    pub record: Term,
    /// The newest term the standby knows of.
    pub current: Term,
}

impl fmt::Display for StaleTerm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a record of term {} refused: term {} has begun",
            self.record, self.current
        )
    }
}

impl std::error::Error for StaleTerm {}

/// What [`TermFence::admit`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admitted {
    /// The term the fence already held.
    Current,
    /// A newer term: the fence now holds it (`previous` is what it held, if anything).
    Newer {
        /// The term held before.
        previous: Option<Term>,
    },
}

/// The newest term a standby has seen, from records or from etcd: records of an older
/// term are refused, so a deposed leader that is still sending (it was paused, or cut
/// off from etcd but not from us) cannot change what the standby holds.
///
/// ```
/// use peregrine_ha::{Admitted, Term, TermFence};
/// let mut fence = TermFence::default();
/// let (t5, t9) = (Term::new(5).unwrap(), Term::new(9).unwrap());
/// assert_eq!(fence.admit(t5), Ok(Admitted::Newer { previous: None }));
/// assert_eq!(fence.admit(t5), Ok(Admitted::Current));
/// // etcd says a new leader won at revision 9: the old one's records are refused
/// // from now on, even before the new leader's first record arrives.
/// fence.raise(t9);
/// let refused = fence.admit(t5).unwrap_err();
/// assert_eq!((refused.record, refused.current), (t5, t9));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TermFence {
    highest: Option<Term>,
}

impl TermFence {
    /// The newest term seen, if any.
    pub fn current(&self) -> Option<Term> {
        self.highest
    }

    /// Checks a record's term: an older one is refused; the same or a newer one is
    /// admitted (a newer one becomes the fence's term).
    ///
    /// # Errors
    ///
    /// [`StaleTerm`] when `term` is older than the newest term seen.
    pub fn admit(&mut self, term: Term) -> Result<Admitted, StaleTerm> {
        match self.highest {
            Some(current) if term < current => Err(StaleTerm {
                record: term,
                current,
            }),
            Some(current) if term == current => Ok(Admitted::Current),
            previous => {
                self.highest = Some(term);
                Ok(Admitted::Newer { previous })
            }
        }
    }

    /// Learns of a term from elsewhere (etcd's leader key): never lowers the fence.
    pub fn raise(&mut self, term: Term) {
        self.highest = self.highest.max(Some(term));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(n: u64) -> Term {
        Term::new(n).unwrap()
    }

    #[test]
    fn older_terms_are_refused_and_the_fence_never_lowers() {
        let mut fence = TermFence::default();
        assert_eq!(fence.current(), None);
        assert_eq!(fence.admit(t(10)), Ok(Admitted::Newer { previous: None }));
        assert_eq!(
            fence.admit(t(11)),
            Ok(Admitted::Newer {
                previous: Some(t(10))
            })
        );
        assert_eq!(
            fence.admit(t(10)),
            Err(StaleTerm {
                record: t(10),
                current: t(11)
            })
        );
        fence.raise(t(3));
        assert_eq!(fence.current(), Some(t(11)));
        assert_eq!(fence.admit(t(11)), Ok(Admitted::Current));
        assert_eq!(
            fence.admit(t(10)).unwrap_err().to_string(),
            "a record of term 10 refused: term 11 has begun"
        );
    }
}
