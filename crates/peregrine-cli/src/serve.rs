//! `peregrine acceptor` and `peregrine initiator`: run FIX sessions from a
//! QuickFIX-style `.cfg` file.
//!
//! SIGINT/SIGTERM log out every session (waiting up to `LogoutTimeout` for the
//! answers) and exit; a second signal exits at once. Logging goes to stderr;
//! `PEREGRINE_LOG=error|warn|info|debug|trace` sets the level (default info).
//!
//! The admin HTTP interface starts only when the first session's settings set
//! `AdminHttpPort`, on `AdminHttpAddress` (default 127.0.0.1), with
//! `AdminHttpToken` for the commands that change the engine.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use peregrine_engine::admin::AdminOptions;
use peregrine_engine::config::{ConnectionType, Settings};
use peregrine_engine::fix::{build_session, BoxedFixSession, LogApp, StoreKind};
use peregrine_engine::{now_nanos, spawn_admin_server, Engine, EngineOptions};
use peregrine_session::{Application, EchoApp};

use crate::error::Error;

struct Args {
    config: PathBuf,
    app: String,
    store: StoreKind,
}

fn parse_args(args: &[String], default_app: &str, usage: &str) -> Result<Args, Error> {
    let mut config = None;
    let mut app = default_app.to_string();
    let mut store = StoreKind::Memory;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| Error::Usage(format!("{a} needs a value\n{usage}")))
        };
        match a.as_str() {
            "--config" => config = Some(PathBuf::from(value()?)),
            "--app" => app = value()?,
            "--store" => {
                store = match value()?.as_str() {
                    "memory" => StoreKind::Memory,
                    "file" => StoreKind::File,
                    other => {
                        return Err(Error::Usage(format!(
                            "--store must be memory or file, not {other:?}"
                        )))
                    }
                }
            }
            other => return Err(Error::Usage(format!("unknown argument {other:?}\n{usage}"))),
        }
    }
    if app != "echo" && app != "log" {
        return Err(Error::Usage(format!(
            "--app must be echo or log, not {app:?}"
        )));
    }
    let config =
        config.ok_or_else(|| Error::Usage(format!("--config FILE is required\n{usage}")))?;
    Ok(Args { config, app, store })
}

fn init_tracing() {
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
    let _ = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

fn run(role: ConnectionType, args: Args) -> Result<(), Error> {
    init_tracing();
    let settings = Settings::load(&args.config).map_err(Error::Settings)?;
    let sessions: Vec<_> = settings
        .sessions
        .iter()
        .filter(|s| s.connection_type == role)
        .collect();
    let what = match role {
        ConnectionType::Acceptor => "acceptor",
        ConnectionType::Initiator => "initiator",
    };
    let Some(first) = sessions.first() else {
        return Err(Error::NoSession {
            file: args.config,
            role: what,
        });
    };

    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // A second signal while stopping exits at once.
        signal_hook::flag::register_conditional_shutdown(sig, 1, stop.clone())
            .and_then(|_| signal_hook::flag::register(sig, stop.clone()))
            .map_err(Error::engine("cannot install a signal handler"))?;
    }
    let options = EngineOptions {
        idle: first.idle_strategy,
        message_logs: true,
        stop_flag: Some(stop),
        ..EngineOptions::default()
    };
    let mut engine: Engine<BoxedFixSession> =
        Engine::new(options).map_err(Error::engine("cannot start the reactor"))?;
    let now = now_nanos();
    for s in &sessions {
        let app_name = args.app.as_str();
        let mut make_app = |dicts| -> Box<dyn Application + Send> {
            match app_name {
                "echo" => Box::new(EchoApp::new(dicts)),
                _ => Box::new(LogApp),
            }
        };
        let driver = build_session(s, args.store, now, &mut make_app).map_err(Error::Settings)?;
        engine
            .add_session(s, driver)
            .map_err(Error::engine(s.session_name()))?;
        tracing::info!("session {} ({what})", s.session_name());
    }
    // Off unless AdminHttpPort is set; loopback unless AdminHttpAddress says
    // otherwise. The token is passed on, never logged.
    if let Some(port) = first.admin_http_port {
        let addr = SocketAddr::new(first.admin_http_address, port);
        let options = AdminOptions {
            token: first.admin_http_token.clone(),
            ..AdminOptions::default()
        };
        let changes = if options.token.is_some() {
            "/seqnum with the AdminHttpToken"
        } else {
            "read-only: /seqnum refused until AdminHttpToken is set"
        };
        match spawn_admin_server(addr, engine.handle(), options) {
            Ok(a) => tracing::info!("admin interface on http://{a}/sessions ({changes})"),
            Err(e) => tracing::warn!("no admin interface: cannot listen on {addr}: {e}"),
        }
    }
    engine.run().map_err(Error::engine("reactor failed"))?;
    tracing::info!("stopped");
    Ok(())
}

/// `peregrine acceptor --config FILE [--app echo|log] [--store memory|file]`.
pub fn acceptor(args: &[String]) -> Result<(), Error> {
    const USAGE: &str =
        "usage: peregrine acceptor --config FILE [--app echo|log] [--store memory|file]";
    run(ConnectionType::Acceptor, parse_args(args, "echo", USAGE)?)
}

/// `peregrine initiator --config FILE [--app log|echo] [--store memory|file]`.
pub fn initiator(args: &[String]) -> Result<(), Error> {
    const USAGE: &str =
        "usage: peregrine initiator --config FILE [--app log|echo] [--store memory|file]";
    run(ConnectionType::Initiator, parse_args(args, "log", USAGE)?)
}
