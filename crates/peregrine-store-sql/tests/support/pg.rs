//! A throwaway PostgreSQL cluster for a test: `initdb` in a temporary
//! directory, `pg_ctl start` on a free port of 127.0.0.1 with its socket in
//! that directory, stopped (immediate mode) when dropped. As root, the
//! server's commands run as the `postgres` user (the server refuses root).
//! The binaries: `$PEREGRINE_PG_BIN`, else the newest
//! `/usr/lib/postgresql/*/bin` (Debian's `postgresql` package), else `PATH`.
#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub struct PgCluster {
    dir: tempfile::TempDir,
    bin: PathBuf,
    as_postgres: bool,
    pub port: u16,
    running: bool,
}

fn bin_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PEREGRINE_PG_BIN") {
        return dir.into();
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, b)| b).unwrap_or_default() // empty: from PATH
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout.starts_with(b"0\n"))
        .unwrap_or(false)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

impl PgCluster {
    /// Creates and starts a cluster; panics with the tool's output if that fails.
    pub fn start() -> PgCluster {
        let dir = tempfile::Builder::new()
            .prefix("peregrine-pg-")
            .tempdir()
            .expect("tempdir");
        let as_postgres = is_root();
        if as_postgres {
            let ok = Command::new("chown")
                .arg("-R")
                .arg("postgres:")
                .arg(dir.path())
                .status()
                .expect("chown");
            assert!(ok.success(), "chown the cluster's directory to postgres");
        }
        let mut pg = PgCluster {
            dir,
            bin: bin_dir(),
            as_postgres,
            port: free_port(),
            running: false,
        };
        let data = pg.data();
        pg.run(
            "initdb",
            &[
                "-D",
                data.to_str().unwrap(),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--locale=C",
                "-N",
            ],
        );
        pg.start_server();
        pg
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    fn run(&self, tool: &str, args: &[&str]) -> Output {
        let exe = self.bin.join(tool);
        let mut cmd = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&exe);
            c
        } else {
            Command::new(&exe)
        };
        let out = cmd
            .args(args)
            .current_dir(self.dir.path())
            .output()
            .unwrap_or_else(|e| {
                panic!(
                    "run {}: {e} (is PostgreSQL installed? make deps)",
                    exe.display()
                )
            });
        assert!(
            out.status.success(),
            "{tool} {args:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Starts the server (again, after [`stop`](Self::stop)) on the same port.
    pub fn start_server(&mut self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50",
            self.port,
            self.dir.path().display()
        );
        let log = self.dir.path().join("server.log");
        self.run(
            "pg_ctl",
            &[
                "-D",
                self.data().to_str().unwrap(),
                "-o",
                &options,
                "-l",
                log.to_str().unwrap(),
                "-w",
                "-t",
                "60",
                "start",
            ],
        );
        self.running = true;
    }

    /// Stops the server (fast mode: connections are ended).
    pub fn stop(&mut self) {
        self.run(
            "pg_ctl",
            &[
                "-D",
                self.data().to_str().unwrap(),
                "-m",
                "fast",
                "-w",
                "stop",
            ],
        );
        self.running = false;
    }

    /// The client settings for database `postgres` as user `postgres`.
    pub fn config(&self) -> postgres::Config {
        let mut c = postgres::Config::new();
        c.host("127.0.0.1")
            .port(self.port)
            .user("postgres")
            .dbname("postgres");
        c
    }

    /// `jdbc:postgresql://127.0.0.1:PORT/postgres`.
    pub fn jdbc_url(&self) -> String {
        format!("jdbc:postgresql://127.0.0.1:{}/postgres", self.port)
    }

    /// A plain client, for looking at the tables.
    pub fn client(&self) -> postgres::Client {
        self.config().connect(postgres::NoTls).expect("connect")
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        if self.running {
            let exe = self.bin.join("pg_ctl");
            let data = self.data();
            let mut cmd = if self.as_postgres {
                let mut c = Command::new("runuser");
                c.args(["-u", "postgres", "--"]).arg(&exe);
                c
            } else {
                Command::new(&exe)
            };
            let _ = cmd
                .arg("-D")
                .arg(&data)
                .args(["-m", "immediate", "-w", "stop"])
                .output();
        }
    }
}
