//! `peregrine acceptor` and `peregrine initiator`: run FIX sessions from a
//! QuickFIX-style `.cfg` file.

/// `peregrine acceptor --config FILE [--app echo] [--store memory|file]`.
pub fn acceptor(_args: &[String]) -> Result<(), String> {
    Err("the acceptor is not built yet (peregrine-engine)".into())
}

/// `peregrine initiator --config FILE`.
pub fn initiator(_args: &[String]) -> Result<(), String> {
    Err("the initiator is not built yet (peregrine-engine)".into())
}
