//! QuickFIX/J 2.3.1's own `JdbcStore` on a test's cluster: peers/quickfixj's
//! `JdbcStoreTurn` (built by `make deps`), for session FIX.4.4 BANK->VENUE.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

use super::pg::PgCluster;

fn peers_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../peers/quickfixj")
}

/// Runs `JdbcStoreTurn` (`write N` or `dump`) on the cluster; its standard
/// output.
pub fn jdbc_store_turn(pg: &PgCluster, args: &[&str]) -> String {
    let dir = peers_dir();
    let jar = dir.join("target/quickfixj-bench.jar");
    assert!(
        jar.exists(),
        "{} is missing: run make deps (scripts/deps.sh builds peers/quickfixj)",
        jar.display()
    );
    let cp = format!("{}:{}/target/lib/*", jar.display(), dir.display());
    let port = pg.port.to_string();
    let out = Command::new("java")
        // QuickFIX/J writes creation_time in the JVM's zone; Peregrine reads UTC.
        .args([
            "-Duser.timezone=UTC",
            "-cp",
            &cp,
            "peregrine.peers.JdbcStoreTurn",
        ])
        .args([
            "--host",
            "127.0.0.1",
            "--port",
            &port,
            "--user",
            "postgres",
            "--db",
            "postgres",
        ])
        .args(["FIX.4.4", "BANK", "VENUE"])
        .args(args)
        .output()
        .expect("run java");
    assert!(
        out.status.success(),
        "JdbcStoreTurn {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}
