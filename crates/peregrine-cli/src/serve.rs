//! `peregrine acceptor` and `peregrine initiator`: run FIX sessions from a
//! QuickFIX-style `.cfg` file.
//!
//! SIGINT/SIGTERM log out every session (waiting up to `LogoutTimeout` for the
//! answers) and exit; a second signal exits at once. Logging goes to stderr;
//! `PEREGRINE_LOG=error|warn|info|debug|trace` sets the level (default info).
//!
//! Everything the settings say is applied by the library's
//! [`EngineBuilder`]: the store (the file store where `FileStorePath` is set,
//! unless `--store` says otherwise), dictionaries, `IdleStrategy`, logs, and
//! the admin HTTP interface when the first session's settings set
//! `AdminHttpPort` (on `AdminHttpAddress`, default 127.0.0.1, with
//! `AdminHttpToken` for the commands that change the engine).
//!
//! With `HaNodeName` (docs/standby.md) the command campaigns for its group's
//! leadership on etcd (`peregrine-ha`, the `ha` feature: see [`crate::ha`]) and
//! holds every session until this node leads: connections are closed
//! unanswered, initiators do not connect; when it stops leading, the
//! connections are closed without a Logout. On exit it resigns.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use peregrine_engine::config::ConnectionType;
use peregrine_engine::fix::LogApp;
use peregrine_engine::internal::DynApp;
use peregrine_engine::EngineBuilder;
use peregrine_session::EchoApp;

use crate::cli::{App, SessionArgs};
use crate::error::Error;
use crate::ha::{self, Leadership};
use tracing_appender::non_blocking::ErrorCounter;

/// The most `tracing` lines waiting for stderr; past it a line is left out and
/// counted (said at exit), so that a slow terminal never stalls the reactor.
const TRACING_LINES: usize = 10_000;

/// Sends `tracing` to stderr through a writer thread (the engine's events and
/// warnings are formatted on the thread that raised them, but not written by
/// it); the guard writes what is left when dropped.
fn init_tracing() -> Option<(tracing_appender::non_blocking::WorkerGuard, ErrorCounter)> {
    let level = match std::env::var("PEREGRINE_LOG")
        .unwrap_or_default()
        .to_ascii_lowercase()
        .as_str()
    {
        "error" => tracing::Level::ERROR,
        "warn" => tracing::Level::WARN,
        "debug" => tracing::Level::DEBUG,
        "trace" => tracing::Level::TRACE,
        _ => tracing::Level::INFO,
    };
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .buffered_lines_limit(TRACING_LINES)
        .lossy(true)
        .thread_name("peregrine-tracing")
        .finish(std::io::stderr());
    let left_out = writer.error_counter();
    tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(writer)
        .with_ansi(false)
        .try_init()
        .ok()
        .map(|()| (guard, left_out))
}

/// Says how many `tracing` lines the writer left out, if any, then lets the
/// guard write the rest.
fn finish_tracing(tracing: Option<(tracing_appender::non_blocking::WorkerGuard, ErrorCounter)>) {
    if let Some((guard, left_out)) = tracing {
        drop(guard);
        let n = left_out.dropped_lines();
        if n > 0 {
            eprintln!("{n} tracing lines left out (stderr was slower than the engine)");
        }
    }
}

fn run(role: ConnectionType, args: SessionArgs, app: App) -> Result<(), Error> {
    let tracing = init_tracing();
    let result = run_engine(role, args, app);
    finish_tracing(tracing);
    result
}

fn run_engine(role: ConnectionType, args: SessionArgs, app: App) -> Result<(), Error> {
    let mut builder = EngineBuilder::load(&args.config)
        .map_err(Error::Settings)?
        .only(role);
    let what = match role {
        ConnectionType::Acceptor => "acceptor",
        ConnectionType::Initiator => "initiator",
    };
    if !builder
        .settings()
        .sessions
        .iter()
        .any(|s| s.connection_type == role)
    {
        return Err(Error::NoSession {
            file: args.config,
            role: what,
        });
    }
    if let Some(store) = args.store {
        builder = builder.store(store.into());
    }
    let (builder, leadership) = ha::campaign(builder)?;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // A second signal while stopping exits at once.
        signal_hook::flag::register_conditional_shutdown(sig, 1, stop.clone())
            .and_then(|_| signal_hook::flag::register(sig, stop.clone()))
            .map_err(Error::engine("cannot install a signal handler"))?;
    }
    // Everything else (stores, dictionaries, idle strategy, logs, the admin
    // interface) is the library's EngineBuilder, as for any user.
    let running = builder
        .stop_flag(stop)
        .start(move |s| {
            tracing::info!("session {} ({what})", s.settings.session_name());
            DynApp(match app {
                App::Echo => Box::new(EchoApp::new(s.dictionaries.clone())),
                App::Log => Box::new(LogApp),
            })
        })
        .map_err(Error::Build)?;
    while !running.is_finished() {
        while let Some(event) = leadership.as_ref().and_then(Leadership::try_event) {
            tracing::info!("leadership: {event}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    running.stop().map_err(Error::engine("reactor failed"))?;
    // Resigns once the sessions are stopped (their Logouts were written as leader).
    ha::resign(leadership);
    tracing::info!("stopped");
    Ok(())
}

/// `peregrine acceptor --config FILE [--app echo|log] [--store memory|file]`.
pub fn acceptor(args: SessionArgs, app: App) -> Result<(), Error> {
    run(ConnectionType::Acceptor, args, app)
}

/// `peregrine initiator --config FILE [--app log|echo] [--store memory|file]`.
pub fn initiator(args: SessionArgs, app: App) -> Result<(), Error> {
    run(ConnectionType::Initiator, args, app)
}
