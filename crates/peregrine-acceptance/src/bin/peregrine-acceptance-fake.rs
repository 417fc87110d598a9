//! `peregrine-acceptance-fake`: a stand-in acceptor for testing the runner and
//! its orchestration. It reads `SocketAcceptPort` and `AdminHttpPort` from the
//! cfg, answers admin requests with 200, and plays back the scripts of a
//! directory in sorted order (see `play_script`), then exits.
//!
//! usage: `peregrine-acceptance-fake --scripts DIR [--filter TEXT] [--config] FILE [ignored options]`
#![forbid(unsafe_code)]

use std::net::{Ipv4Addr, TcpListener};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use peregrine_acceptance::{list_scripts, play_script, FakeAdmin, Script};

fn setting(cfg: &str, key: &str) -> Option<u16> {
    cfg.lines()
        .filter_map(|l| l.split_once('='))
        .find(|(k, _)| k.trim() == key)
        .and_then(|(_, v)| v.trim().parse().ok())
}

fn run() -> Result<(), String> {
    let mut scripts = None;
    let mut filter = None;
    let mut cfg_path = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--scripts" => scripts = args.next().map(PathBuf::from),
            "--filter" => filter = args.next(),
            "--config" => cfg_path = args.next().map(PathBuf::from),
            "--store" | "--app" => {
                args.next();
            }
            other if !other.starts_with("--") => cfg_path = Some(PathBuf::from(other)),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let scripts = scripts.ok_or("--scripts DIR is required")?;
    let cfg_path = cfg_path.ok_or("a cfg file is required")?;
    let cfg =
        std::fs::read_to_string(&cfg_path).map_err(|e| format!("{}: {e}", cfg_path.display()))?;
    let port = setting(&cfg, "SocketAcceptPort").ok_or("no SocketAcceptPort")?;
    if let Some(admin_port) = setting(&cfg, "AdminHttpPort") {
        let admin = TcpListener::bind((Ipv4Addr::LOCALHOST, admin_port))
            .map_err(|e| format!("admin port {admin_port}: {e}"))?;
        FakeAdmin::start(admin, "200 OK").map_err(|e| e.to_string())?;
    }
    let listener =
        TcpListener::bind((Ipv4Addr::LOCALHOST, port)).map_err(|e| format!("port {port}: {e}"))?;
    let paths = list_scripts(&scripts, filter.as_deref()).map_err(|e| e.to_string())?;
    for path in paths {
        let script = Script::parse(&path).map_err(|e| e.to_string())?;
        play_script(&listener, &script, Duration::from_secs(20), &mut |_, m| m)
            .map_err(|e| format!("{}: {e}", script.name))?;
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("peregrine-acceptance-fake: {e}");
            ExitCode::FAILURE
        }
    }
}
