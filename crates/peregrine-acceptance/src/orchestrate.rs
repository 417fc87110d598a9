//! Launching acceptors and running suites against them, several at a time.

use std::collections::{BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::fs::File;
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::matcher::{FieldPatterns, MatchRule};
use crate::runner::{list_scripts, run_suite_filtered, RunConfig, ScriptResult};

/// Environment variable naming the acceptance data directory.
pub const ACCEPTANCE_DIR_ENV: &str = "PEREGRINE_ACCEPTANCE_DIR";

/// The `AdminHttpToken` written into every derived acceptor cfg and sent with
/// `iSET_SESSION` (Peregrine refuses `/seqnum` without a token). The acceptor
/// listens on loopback for the length of a suite only.
pub const ADMIN_TOKEN: &str = "peregrine-acceptance";

/// The suites of the acceptance data, in their usual order: QuickFIX's four, then
/// those of the scripts QuickFIX/J adds (`acceptance/quickfixj`).
pub const SUITES: &[&str] = &[
    "server",
    "resendreqchunksize",
    "lastseqnumprocessed",
    "nextexpectedseqnum",
    "timestamps",
    "rejectGarbledMessages",
    "validateChecksum",
];

/// The FIX versions of the acceptance data, in order.
pub const VERSIONS: &[&str] = &[
    "fix40", "fix41", "fix42", "fix43", "fix44", "fix50", "fix50sp1", "fix50sp2",
];

/// One acceptor to launch and the scripts to run against it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptorSpec {
    /// The shared `.cfg` the acceptor's settings are derived from.
    pub cfg_path: PathBuf,
    /// The directory of `.def` scripts to run.
    pub suite_dir: PathBuf,
    /// The FIX port to give the acceptor (`SocketAcceptPort`); 0 picks a free
    /// one at launch.
    pub port: u16,
    /// The HTTP admin port to give the acceptor (`AdminHttpPort`); 0 picks a
    /// free one at launch.
    pub admin_port: u16,
}

impl AcceptorSpec {
    /// A label such as `server/fix44`: the suite directory's last two components.
    pub fn label(&self) -> String {
        let mut parts: Vec<String> = self
            .suite_dir
            .components()
            .rev()
            .take(2)
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        parts.reverse();
        parts.join("/")
    }
}

/// How to launch acceptors and run suites against them.
#[derive(Debug, Clone)]
pub struct Launcher {
    /// Command words; see [`acceptor_command_line`] for `{cfg}` and `{suite_dir}`.
    pub command: Vec<String>,
    /// Appended after the command (e.g. `--store file`).
    pub extra_args: Vec<String>,
    /// Where `FIXnn.xml` dictionaries are; `DataDictionary` settings point here.
    pub dictionaries_dir: PathBuf,
    /// Tags matched by pattern.
    pub patterns: FieldPatterns,
    /// How `E` lines are compared (see [`RunConfig::rule`]).
    pub rule: MatchRule,
    /// Only scripts whose file name contains this.
    pub filter: Option<String>,
    /// Longest wait for the acceptor's port to accept connections.
    pub startup_timeout: Duration,
    /// See [`RunConfig::timeout_expect`].
    pub timeout_expect: Duration,
    /// See [`RunConfig::timeout_disconnect`].
    pub timeout_disconnect: Duration,
    /// Keep each acceptor's working directory (cfg, logs, store) even when all passed.
    pub keep_work_dirs: bool,
}

impl Launcher {
    /// A launcher with default timeouts and no filter.
    pub fn new(command: Vec<String>, dictionaries_dir: PathBuf, patterns: FieldPatterns) -> Self {
        Launcher {
            command,
            extra_args: Vec::new(),
            dictionaries_dir,
            patterns,
            rule: MatchRule::Strict,
            filter: None,
            startup_timeout: Duration::from_secs(30),
            timeout_expect: Duration::from_secs(40),
            timeout_disconnect: Duration::from_secs(10),
            keep_work_dirs: false,
        }
    }
}

/// The results of one suite against one acceptor.
#[derive(Debug, Clone)]
pub struct SuiteOutcome {
    /// The suite's label, e.g. `server/fix44`.
    pub label: String,
    /// One result per script, names prefixed with the label.
    pub results: Vec<ScriptResult>,
    /// The acceptor's working directory (derived cfg, its output, logs, store),
    /// if it was kept: always when a script failed.
    pub work_dir: Option<PathBuf>,
}

/// Where the repository keeps its copy of the acceptance data, relative to its root
/// (`definitions/`, `cfg/`, the QuickFIX README and `LICENSE.quickfix`).
pub const IN_REPO_ACCEPTANCE_DIR: &str = "acceptance/quickfix";

/// Where the repository keeps the acceptance scripts QuickFIX/J 2.3.1 adds to
/// QuickFIX's (with `LICENSE.quickfixj`), relative to its root; they are compared by
/// [`MatchRule::QuickFixJ`].
pub const IN_REPO_QUICKFIXJ_DIR: &str = "acceptance/quickfixj";

/// Where the repository keeps the QuickFIX dictionaries, relative to its root.
pub const IN_REPO_DICTIONARIES_DIR: &str = "crates/peregrine-dict/dictionaries";

/// The acceptance data directory: `$PEREGRINE_ACCEPTANCE_DIR`, else the repository's
/// copy, `<repo_root>/acceptance/quickfix` ([`IN_REPO_ACCEPTANCE_DIR`]); `None` if it
/// does not exist.
pub fn acceptance_dir(repo_root: &Path) -> Option<PathBuf> {
    let dir = match std::env::var_os(ACCEPTANCE_DIR_ENV) {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => repo_root.join(IN_REPO_ACCEPTANCE_DIR),
    };
    dir.is_dir().then_some(dir)
}

/// The `FIXnn.xml` dictionaries for the acceptance data in `acceptance_dir`: a
/// `fix-dictionaries` directory beside it when there is one (the layout of QuickFIX's
/// data outside this repository, which `PEREGRINE_ACCEPTANCE_DIR` may name), else the
/// repository's copy, `<repo_root>/crates/peregrine-dict/dictionaries`
/// ([`IN_REPO_DICTIONARIES_DIR`]).
pub fn dictionaries_dir(acceptance_dir: &Path) -> PathBuf {
    let beside = acceptance_dir.join("../fix-dictionaries");
    if beside.is_dir() {
        beside
    } else {
        repo_root().join(IN_REPO_DICTIONARIES_DIR)
    }
}

/// The repository root this crate was built from.
pub fn repo_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// The message to print when the acceptance data is missing.
pub fn skip_message(repo_root: &Path) -> String {
    match std::env::var_os(ACCEPTANCE_DIR_ENV) {
        Some(d) if !d.is_empty() => format!(
            "skipping: QuickFIX acceptance data not found at {} (from {ACCEPTANCE_DIR_ENV})",
            Path::new(&d).display()
        ),
        _ => format!(
            "skipping: QuickFIX acceptance data not found (set {ACCEPTANCE_DIR_ENV}, or place it at {})",
            repo_root.join(IN_REPO_ACCEPTANCE_DIR).display()
        ),
    }
}

/// A currently free TCP port on 127.0.0.1, never the same twice in this process
/// (the OS picks; another process could take it before it is used, which is
/// unlikely).
///
/// # Errors
///
/// The [`std::io::Error`] of binding a listener to `127.0.0.1:0` or reading
/// its address.
pub fn free_port() -> std::io::Result<u16> {
    static HANDED_OUT: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());
    loop {
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?
            .local_addr()?
            .port();
        if HANDED_OUT.lock().expect("ports lock").insert(port) {
            return Ok(port);
        }
    }
}

/// The specs for `suites` × `versions` that exist under `acceptance_dir`
/// (`cfg/<suite>/<ver>.cfg` and `definitions/<suite>/<ver>/`), in that order,
/// with ports 0: free ports are picked when each acceptor is launched.
pub fn suite_specs(
    acceptance_dir: &Path,
    suites: &[String],
    versions: &[String],
) -> Vec<AcceptorSpec> {
    let mut specs = Vec::new();
    for suite in suites {
        for version in versions {
            let cfg_path = acceptance_dir
                .join("cfg")
                .join(suite)
                .join(format!("{version}.cfg"));
            let suite_dir = acceptance_dir.join("definitions").join(suite).join(version);
            if cfg_path.is_file() && suite_dir.is_dir() {
                specs.push(AcceptorSpec {
                    cfg_path,
                    suite_dir,
                    port: 0,
                    admin_port: 0,
                });
            }
        }
    }
    specs
}

/// Derives the acceptor's `.cfg` from a shared one: `SocketAcceptPort` and
/// `AdminHttpPort` set to the given ports, `AdminHttpToken` to
/// [`ADMIN_TOKEN`], dictionary settings pointed at
/// `dictionaries_dir` (keeping their file names), and `FileLogPath` /
/// `FileStorePath` under `work_dir`.
///
/// ```
/// use std::path::Path;
/// let cfg = "[DEFAULT]\r\nSocketAcceptPort=5005\r\n\r\n[SESSION]\r\nDataDictionary=../spec/FIX44.xml\r\n";
/// let out = peregrine_acceptance::derive_cfg(cfg, 7001, 7002, Path::new("/d"), Path::new("/w"));
/// assert!(out.starts_with("[DEFAULT]\nAdminHttpPort=7002\n"));
/// assert!(out.contains("\nSocketAcceptPort=7001\n"));
/// assert!(out.contains("\nFileStorePath=/w/store\n"));
/// assert!(out.contains("\nAdminHttpToken=peregrine-acceptance\n"));
/// assert!(out.contains("DataDictionary=/d/FIX44.xml\n"));
/// ```
pub fn derive_cfg(
    original: &str,
    port: u16,
    admin_port: u16,
    dictionaries_dir: &Path,
    work_dir: &Path,
) -> String {
    let key_of = |line: &str| line.split_once('=').map(|(k, _)| k.trim().to_string());
    let present: Vec<String> = original.lines().filter_map(key_of).collect();
    let has = |k: &str| present.iter().any(|p| p == k);
    let mut defaults = Vec::new();
    for (key, value) in [
        ("SocketAcceptPort", port.to_string()),
        ("AdminHttpPort", admin_port.to_string()),
        ("FileLogPath", work_dir.join("log").display().to_string()),
        (
            "FileStorePath",
            work_dir.join("store").display().to_string(),
        ),
        ("AdminHttpToken", ADMIN_TOKEN.to_string()),
    ] {
        if !has(key) {
            defaults.push(format!("{key}={value}"));
        }
    }

    let mut out = String::new();
    let mut saw_default = false;
    for line in original.lines() {
        let line = line.trim_end_matches('\r');
        if line.trim().eq_ignore_ascii_case("[DEFAULT]") {
            saw_default = true;
            out.push_str(line);
            out.push('\n');
            for d in &defaults {
                out.push_str(d);
                out.push('\n');
            }
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let key = key.trim();
        let value = value.trim();
        let new_value = match key {
            "SocketAcceptPort" => port.to_string(),
            "AdminHttpPort" => admin_port.to_string(),
            "AdminHttpToken" => ADMIN_TOKEN.to_string(),
            "FileLogPath" => work_dir.join("log").display().to_string(),
            "FileStorePath" => work_dir.join("store").display().to_string(),
            "DataDictionary" | "TransportDataDictionary" | "AppDataDictionary" => {
                let file = Path::new(value).file_name().unwrap_or_default();
                dictionaries_dir.join(file).display().to_string()
            }
            _ => value.to_string(),
        };
        let _ = writeln!(out, "{key}={new_value}");
    }
    if !saw_default && !defaults.is_empty() {
        let mut head = String::from("[DEFAULT]\n");
        for d in &defaults {
            head.push_str(d);
            head.push('\n');
        }
        head.push('\n');
        out.insert_str(0, &head);
    }
    out
}

/// The command line for an acceptor: in each word `{cfg}` is replaced by the
/// derived cfg's path (which is appended if no word contains `{cfg}`) and
/// `{suite_dir}` by the scripts' directory; then the extra arguments follow. A
/// relative program path containing `/` is made absolute against the current
/// directory.
///
/// ```
/// use std::path::Path;
/// let words = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
/// let line = peregrine_acceptance::acceptor_command_line(
///     &words(&["/bin/peregrine", "acceptor", "--config"]),
///     &words(&["--store", "file"]),
///     Path::new("/tmp/a.cfg"),
///     Path::new("/defs"),
/// );
/// assert_eq!(line, words(&["/bin/peregrine", "acceptor", "--config", "/tmp/a.cfg", "--store", "file"]));
/// ```
pub fn acceptor_command_line(
    command: &[String],
    extra_args: &[String],
    cfg_path: &Path,
    suite_dir: &Path,
) -> Vec<String> {
    let cfg = cfg_path.display().to_string();
    let suite = suite_dir.display().to_string();
    let mut words: Vec<String> = command
        .iter()
        .map(|w| w.replace("{cfg}", &cfg).replace("{suite_dir}", &suite))
        .collect();
    if !command.iter().any(|w| w.contains("{cfg}")) {
        words.push(cfg);
    }
    words.extend(extra_args.iter().cloned());
    if let Some(program) = words.first_mut() {
        let path = Path::new(program.as_str());
        if path.is_relative() && program.contains('/') {
            if let Ok(cwd) = std::env::current_dir() {
                *program = cwd.join(path).display().to_string();
            }
        }
    }
    words
}

/// Kills the acceptor process when dropped.
struct AcceptorProcess(Child);

impl Drop for AcceptorProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

static WORK_DIR_COUNTER: AtomicUsize = AtomicUsize::new(0);

fn make_work_dir(label: &str) -> std::io::Result<PathBuf> {
    let n = WORK_DIR_COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "peregrine-acceptance-{}-{n}-{}",
        std::process::id(),
        label.replace('/', "-")
    ));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

fn wait_for_port(
    addr: SocketAddr,
    child: &mut Child,
    deadline: Instant,
    out_path: &Path,
) -> Result<(), String> {
    loop {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Ok(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            let output = std::fs::read_to_string(out_path).unwrap_or_default();
            let tail: Vec<&str> = output.lines().rev().take(5).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            return Err(format!(
                "acceptor exited ({status}) before accepting on {addr}: {}",
                tail.join(" / ")
            ));
        }
        if Instant::now() >= deadline {
            return Err(format!("acceptor did not accept on {addr} in time"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Launches an acceptor for `spec`, waits until its port accepts (and its admin
/// port, when the suite uses `iSET_SESSION`), runs the suite, then kills it.
/// If the acceptor cannot be started, every script of the suite fails: the
/// first with the reason, the others pointing at it.
pub fn run_with_acceptor(spec: &AcceptorSpec, launcher: &Launcher) -> SuiteOutcome {
    let label = spec.label();
    let scripts = list_scripts(&spec.suite_dir, launcher.filter.as_deref()).unwrap_or_default();
    // The first script carries the reason; the others point at it.
    let fail_all = |why: &str, work_dir: Option<PathBuf>| {
        let names: Vec<String> = scripts
            .iter()
            .map(|p| {
                format!(
                    "{label}/{}",
                    p.file_stem().unwrap_or_default().to_string_lossy()
                )
            })
            .collect();
        let results = names
            .iter()
            .enumerate()
            .map(|(i, name)| match i {
                0 => ScriptResult::failed(name, why),
                _ => ScriptResult::failed(name, format!("not run, see {}", names[0])),
            })
            .collect();
        SuiteOutcome {
            label: label.clone(),
            results,
            work_dir,
        }
    };
    if scripts.is_empty() {
        return SuiteOutcome {
            label: label.clone(),
            results: Vec::new(),
            work_dir: None,
        };
    }
    let work_dir = match make_work_dir(&label) {
        Ok(d) => d,
        Err(e) => return fail_all(&format!("cannot create a work directory: {e}"), None),
    };
    let pick = |port: u16| if port == 0 { free_port() } else { Ok(port) };
    let (port, admin_port) = match pick(spec.port).and_then(|p| Ok((p, pick(spec.admin_port)?))) {
        Ok(ports) => ports,
        Err(e) => return fail_all(&format!("cannot pick ports: {e}"), Some(work_dir)),
    };
    let prepared = std::fs::read_to_string(&spec.cfg_path)
        .map_err(|e| format!("cannot read {}: {e}", spec.cfg_path.display()))
        .and_then(|text| {
            let cfg = derive_cfg(
                &text,
                port,
                admin_port,
                &launcher.dictionaries_dir,
                &work_dir,
            );
            let path = work_dir.join("acceptor.cfg");
            std::fs::write(&path, cfg)
                .map(|()| path)
                .map_err(|e| format!("cannot write the cfg: {e}"))
        });
    let cfg_path = match prepared {
        Ok(p) => p,
        Err(e) => return fail_all(&e, Some(work_dir)),
    };
    let words = acceptor_command_line(
        &launcher.command,
        &launcher.extra_args,
        &cfg_path,
        &spec.suite_dir,
    );
    let out_path = work_dir.join("acceptor.out");
    let spawned = File::create(&out_path).and_then(|out| {
        let err = out.try_clone()?;
        Command::new(&words[0])
            .args(&words[1..])
            .current_dir(&work_dir)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
    });
    let mut process = match spawned {
        Ok(child) => AcceptorProcess(child),
        Err(e) => {
            return fail_all(
                &format!("cannot start acceptor {:?}: {e}", words.join(" ")),
                Some(work_dir),
            )
        }
    };
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let admin_addr = SocketAddr::from((Ipv4Addr::LOCALHOST, admin_port));
    let deadline = Instant::now() + launcher.startup_timeout;
    let uses_admin = scripts
        .iter()
        .any(|p| std::fs::read(p).is_ok_and(|b| b.windows(11).any(|w| w == b"SET_SESSION")));
    let mut ready = wait_for_port(addr, &mut process.0, deadline, &out_path);
    if ready.is_ok() && uses_admin {
        ready = wait_for_port(admin_addr, &mut process.0, deadline, &out_path);
    }
    if let Err(e) = ready {
        return fail_all(&e, Some(work_dir));
    }

    let mut cfg = RunConfig::new(addr, admin_addr, launcher.patterns.clone());
    cfg.admin_token = Some(ADMIN_TOKEN.to_string());
    cfg.rule = launcher.rule;
    cfg.timeout_expect = launcher.timeout_expect;
    cfg.timeout_disconnect = launcher.timeout_disconnect;
    let results = match run_suite_filtered(&spec.suite_dir, &cfg, launcher.filter.as_deref()) {
        Ok(results) => results,
        Err(e) => return fail_all(&format!("cannot list scripts: {e}"), Some(work_dir)),
    };
    drop(process);
    let results: Vec<ScriptResult> = results
        .into_iter()
        .map(|mut r| {
            r.name = format!("{label}/{}", r.name);
            r
        })
        .collect();
    let keep = launcher.keep_work_dirs || results.iter().any(|r| !r.passed);
    let work_dir = if keep {
        Some(work_dir)
    } else {
        let _ = std::fs::remove_dir_all(&work_dir);
        None
    };
    SuiteOutcome {
        label,
        results,
        work_dir,
    }
}

/// Runs [`run_with_acceptor`] for every spec, up to `jobs` at a time on
/// threads; the outcomes come back in the order of `specs`. `on_done` is
/// called (from the worker threads) as each suite finishes.
pub fn run_parallel(
    specs: &[AcceptorSpec],
    launcher: &Launcher,
    jobs: usize,
    on_done: &(dyn Fn(&SuiteOutcome) + Sync),
) -> Vec<SuiteOutcome> {
    let queue: Mutex<VecDeque<usize>> = Mutex::new((0..specs.len()).collect());
    let slots: Mutex<Vec<Option<SuiteOutcome>>> = Mutex::new(vec![None; specs.len()]);
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, specs.len().max(1)) {
            scope.spawn(|| loop {
                let Some(i) = queue.lock().expect("queue lock").pop_front() else {
                    break;
                };
                let outcome = run_with_acceptor(&specs[i], launcher);
                on_done(&outcome);
                slots.lock().expect("slots lock")[i] = Some(outcome);
            });
        }
    });
    slots
        .into_inner()
        .expect("slots lock")
        .into_iter()
        .map(|o| o.expect("every suite ran"))
        .collect()
}
