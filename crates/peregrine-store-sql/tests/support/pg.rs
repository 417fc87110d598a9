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
    /// Extra server options (`-c ...`).
    options: String,
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
        Self::create(false)
    }

    /// As [`start`](Self::start), with TLS on and only TLS connections taken
    /// over TCP: a certificate for 127.0.0.1 signed by a CA of its own, whose
    /// certificate is `dir()/ca.pem`.
    pub fn start_tls() -> PgCluster {
        Self::create(true)
    }

    fn create(tls: bool) -> PgCluster {
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
            options: String::new(),
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
        if tls {
            pg.make_certificates();
        }
        pg.start_server();
        pg
    }

    fn make_certificates(&mut self) {
        let d = self.dir.path().to_path_buf();
        let openssl = |args: &[&str]| {
            let out = Command::new("openssl")
                .args(args)
                .current_dir(&d)
                .output()
                .expect("openssl (make deps installs it)");
            assert!(
                out.status.success(),
                "openssl {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        let ec = [
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
        ];
        openssl(
            &[
                &["req", "-x509"][..],
                &ec,
                &[
                    "-keyout",
                    "ca.key",
                    "-out",
                    "ca.pem",
                    "-days",
                    "2",
                    "-subj",
                    "/CN=peregrine test CA",
                ],
            ]
            .concat(),
        );
        openssl(
            &[
                &["req"][..],
                &ec,
                &[
                    "-keyout",
                    "server.key",
                    "-out",
                    "server.csr",
                    "-subj",
                    "/CN=127.0.0.1",
                ],
            ]
            .concat(),
        );
        std::fs::write(d.join("san.ext"), "subjectAltName=IP:127.0.0.1\n").unwrap();
        openssl(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "san.ext",
        ]);
        // Over TCP, TLS only.
        std::fs::write(
            self.data().join("pg_hba.conf"),
            "local all all trust\nhostssl all all 127.0.0.1/32 trust\n",
        )
        .unwrap();
        let key = d.join("server.key");
        let mut perms = std::fs::metadata(&key).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o600);
        std::fs::set_permissions(&key, perms).unwrap();
        if self.as_postgres {
            let ok = Command::new("chown")
                .arg("-R")
                .arg("postgres:")
                .arg(&d)
                .status()
                .unwrap();
            assert!(ok.success());
        }
        self.options = format!(
            " -c ssl=on -c ssl_cert_file={} -c ssl_key_file={}",
            d.join("server.pem").display(),
            key.display()
        );
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
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50{}",
            self.port,
            self.dir.path().display(),
            self.options
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
