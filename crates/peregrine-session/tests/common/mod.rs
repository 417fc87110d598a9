//! In-process runner of the QuickFIX acceptance scripts against a `Session` + `EchoApp`
//! with a virtual clock (no sockets, no sleeps).
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use peregrine_acceptance::{
    complete_message, frame_message, logout_before_disconnect, render, FieldPatterns, FrameOutcome,
    Script, Step,
};
use peregrine_dict::{Dictionaries, Dictionary};
use peregrine_session::{
    EchoApp, Nanos, Role, Session, SessionClock, SessionConfig, SessionEvent, SessionId, SECOND,
};
use peregrine_store::MessageStore;

/// 2026-11-22 10:00:00.250 UTC: a fraction of a second, as a real clock would have.
pub const T0: Nanos = 1_795_341_600_250_000_000;

pub fn repo_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// The acceptance scripts: `PEREGRINE_ACCEPTANCE_DIR`, else the repository's copy
/// (`acceptance/quickfix`).
pub fn acceptance_dir() -> Option<PathBuf> {
    peregrine_acceptance::acceptance_dir(&repo_root())
}

/// One suite × version: its settings and scripts.
pub struct Suite {
    pub label: String,
    pub config: SessionConfig,
    pub dicts: Option<Arc<Dictionaries>>,
    pub scripts: Vec<PathBuf>,
}

fn parse_cfg(path: &Path) -> HashMap<String, String> {
    let text = std::fs::read_to_string(path).expect("cfg");
    let mut map = HashMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('[') {
            continue;
        }
        if let Some((k, v)) = line.split_once('=') {
            map.insert(k.trim().to_string(), v.trim().to_string());
        }
    }
    map
}

fn dict_path(dicts_dir: &Path, cfg_value: &str) -> PathBuf {
    let name = Path::new(cfg_value)
        .file_name()
        .expect("dictionary file name");
    dicts_dir.join(name)
}

pub fn load_suites(dir: &Path, filter: Option<&str>) -> Vec<Suite> {
    let dicts_dir = peregrine_acceptance::dictionaries_dir(dir);
    let mut cache: HashMap<String, Arc<Dictionaries>> = HashMap::new();
    let load = |p: PathBuf| -> Dictionary { Dictionary::from_file(&p).expect("dictionary") };
    let mut suites = Vec::new();
    for suite in [
        "server",
        "resendreqchunksize",
        "lastseqnumprocessed",
        "nextexpectedseqnum",
    ] {
        for ver in [
            "fix40", "fix41", "fix42", "fix43", "fix44", "fix50", "fix50sp1", "fix50sp2",
        ] {
            let cfg_path = dir.join(format!("cfg/{suite}/{ver}.cfg"));
            let def_dir = dir.join(format!("definitions/{suite}/{ver}"));
            if !cfg_path.is_file() || !def_dir.is_dir() {
                continue;
            }
            let label = format!("{suite}/{ver}");
            let c = parse_cfg(&cfg_path);
            let get = |k: &str| c.get(k).map(String::as_str);
            let yes = |k: &str| get(k) == Some("Y");
            let mut id = SessionId::new(
                get("BeginString").expect("BeginString"),
                get("SenderCompID").expect("SenderCompID"),
                get("TargetCompID").expect("TargetCompID"),
            );
            id.qualifier = get("SessionQualifier").map(str::to_string);
            let mut config = SessionConfig::new(id, Role::Acceptor);
            // The scripts run in virtual time: SendingTime follows it.
            config.clock = SessionClock::Driver;
            config.reset_on_logon = yes("ResetOnLogon");
            config.enable_last_msg_seq_num_processed = yes("EnableLastMsgSeqNumProcessed");
            config.enable_next_expected_msg_seq_num = yes("EnableNextExpectedMsgSeqNum");
            config.resend_request_chunk_size = get("ResendRequestChunkSize")
                .map(|v| v.parse().expect("chunk size"))
                .unwrap_or(0);
            config.default_appl_ver_id = get("DefaultApplVerID").map(str::to_string);
            let dicts = if let Some(p) = get("DataDictionary") {
                let d = cache.entry(p.to_string()).or_insert_with(|| {
                    Arc::new(Dictionaries::single(load(dict_path(&dicts_dir, p))))
                });
                Some(d.clone())
            } else if let (Some(t), Some(a)) =
                (get("TransportDataDictionary"), get("AppDataDictionary"))
            {
                let d = cache.entry(format!("{t}+{a}")).or_insert_with(|| {
                    Arc::new(Dictionaries::fixt(
                        load(dict_path(&dicts_dir, t)),
                        load(dict_path(&dicts_dir, a)),
                    ))
                });
                Some(d.clone())
            } else {
                None
            };
            config.dictionaries = dicts.clone();
            let mut scripts: Vec<PathBuf> = std::fs::read_dir(&def_dir)
                .expect("definitions")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "def"))
                .collect();
            scripts.sort();
            if let Some(f) = filter {
                scripts.retain(|p| {
                    let full = format!("{label}/{}", p.file_stem().unwrap().to_string_lossy());
                    full.contains(f)
                });
            }
            if scripts.is_empty() {
                continue;
            }
            suites.push(Suite {
                label,
                config,
                dicts,
                scripts,
            });
        }
    }
    suites
}

#[derive(Default)]
struct Conn {
    inbox: Vec<u8>,
    closed: bool,
    /// Whether an `E` line took a message from it.
    received: bool,
}

fn systime(now: Nanos) -> SystemTime {
    UNIX_EPOCH + Duration::from_nanos(now as u64)
}

struct Run<'a, S: MessageStore> {
    session: Session<S>,
    app: EchoApp,
    now: Nanos,
    conns: BTreeMap<u32, Conn>,
    attached: Option<u32>,
    patterns: &'a FieldPatterns,
}

impl<S: MessageStore> Run<'_, S> {
    fn pump(&mut self) {
        loop {
            // As the engine does: commit what the input stored, then write (a resend
            // being answered goes on as the buffer drains).
            let _ = self.session.commit();
            loop {
                let out = self.session.outbound();
                if out.is_empty() {
                    break;
                }
                if let Some(c) = self.attached.and_then(|n| self.conns.get_mut(&n)) {
                    c.inbox.extend_from_slice(out);
                }
                let n = out.len();
                self.session.consume_outbound(n, &mut self.app);
            }
            let mut disconnected = false;
            while let Some(ev) = self.session.poll_event() {
                if let SessionEvent::Disconnect(_) = ev {
                    disconnected = true;
                }
            }
            if !disconnected {
                break;
            }
            if let Some(c) = self.attached.and_then(|n| self.conns.get_mut(&n)) {
                c.closed = true;
            }
            self.attached = None;
            self.session.on_disconnected(self.now, &mut self.app);
        }
    }

    /// Moves virtual time to the session's next deadline if it is before `limit`.
    fn advance(&mut self, limit: Nanos) -> bool {
        match self.session.next_deadline() {
            Some(d) if d <= limit => {
                self.now = self.now.max(d);
                self.session.on_timer(self.now, &mut self.app);
                self.pump();
                true
            }
            _ => false,
        }
    }

    fn take_message(&mut self, n: u32) -> Option<Vec<u8>> {
        let c = self.conns.get_mut(&n)?;
        match frame_message(&c.inbox) {
            FrameOutcome::Complete(len) => {
                c.received = true;
                Some(c.inbox.drain(..len).collect())
            }
            _ => None,
        }
    }

    fn step(&mut self, step: &Step) -> Result<(), String> {
        match step {
            Step::Connect(n) => {
                let mut conn = Conn::default();
                if self.attached.is_none() {
                    self.conns.insert(*n, conn);
                    self.attached = Some(*n);
                    self.session.on_connected(self.now, &mut self.app);
                    self.pump();
                } else {
                    // The engine's rule: a session with a live connection refuses a
                    // second one (closed once its Logon names the session).
                    conn.closed = true;
                    self.conns.insert(*n, conn);
                }
            }
            Step::Disconnect(n) => {
                if self.attached == Some(*n) {
                    self.attached = None;
                    self.session.on_disconnected(self.now, &mut self.app);
                    self.pump();
                }
                self.conns.remove(n);
            }
            Step::Send(n, template) => {
                let msg = complete_message(template, systime(self.now));
                if self.attached == Some(*n) {
                    self.session.on_bytes(&msg, self.now, &mut self.app);
                    self.pump();
                }
            }
            Step::Expect(n, template) => {
                let start = self.now;
                loop {
                    if let Some(actual) = self.take_message(*n) {
                        let expected = complete_message(template, systime(self.now));
                        return self
                            .patterns
                            .match_message(&expected, &actual)
                            .map_err(|m| m.to_string());
                    }
                    let c = self.conns.get(n).ok_or("connection not open")?;
                    if c.closed {
                        return Err(format!(
                            "connection {n} closed while waiting for {}",
                            render(template)
                        ));
                    }
                    if !self.advance(start + 40 * SECOND) {
                        return Err(format!("timed out waiting for {}", render(template)));
                    }
                }
            }
            Step::ExpectDisconnect(n) => {
                let start = self.now;
                loop {
                    let c = self.conns.get_mut(n).ok_or("connection not open")?;
                    if let FrameOutcome::Complete(len) = frame_message(&c.inbox) {
                        if logout_before_disconnect(&c.inbox[..len], c.received) {
                            // A refused Logon's Logout: the close is still due.
                            c.inbox.drain(..len);
                            c.received = true;
                            continue;
                        }
                    }
                    if !c.inbox.is_empty() {
                        return Err(format!(
                            "expected disconnect, received {}",
                            render(&c.inbox)
                        ));
                    }
                    if c.closed {
                        self.conns.remove(n);
                        return Ok(());
                    }
                    if !self.advance(start + 10 * SECOND) {
                        return Err("timed out waiting for disconnect".into());
                    }
                }
            }
            Step::SetSession {
                next_sender,
                next_target,
                ..
            } => {
                if let Some(s) = next_sender {
                    self.session
                        .set_next_sender_seq(*s)
                        .map_err(|e| e.to_string())?;
                }
                if let Some(t) = next_target {
                    self.session
                        .set_next_target_seq(*t)
                        .map_err(|e| e.to_string())?;
                }
            }
        }
        Ok(())
    }
}

impl<S: MessageStore> Run<'_, S> {
    /// What the reference runner does between scripts: close every connection, then
    /// open and close an empty probe connection; a second passes.
    fn between_scripts(&mut self) {
        if self.attached.take().is_some() {
            self.session.on_disconnected(self.now, &mut self.app);
        }
        self.conns.clear();
        self.pump();
        self.now += SECOND;
        self.session.on_connected(self.now, &mut self.app);
        self.pump();
        self.session.on_disconnected(self.now, &mut self.app);
        self.pump();
        self.now += SECOND;
    }

    fn run_steps(&mut self, script: &Script) -> Result<(), String> {
        for s in &script.steps {
            self.step(&s.step)
                .map_err(|e| format!("line {}: {e}", s.line))?;
        }
        Ok(())
    }
}

/// How sessions map to scripts.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A fresh session and store for every script.
    SessionPerScript,
    /// One session and store per suite, kept across its scripts, with the reference
    /// runner's probe connection before each script (as against a real acceptor).
    SessionPerSuite,
}

/// Runs every script of every suite; prints one line per failure and the totals.
/// Returns (passed, failed names), or `None` when the data is absent.
pub fn run_all<S: MessageStore>(
    make_store: &mut dyn FnMut(&Suite, &str) -> S,
    label: &str,
    mode: Mode,
) -> Option<(usize, Vec<String>)> {
    let Some(dir) = acceptance_dir() else {
        eprintln!("skipping: QuickFIX acceptance data not found (set PEREGRINE_ACCEPTANCE_DIR)");
        return None;
    };
    let patterns = FieldPatterns::load(dir.join("definitions/fields.fmt")).expect("fields.fmt");
    let filter = std::env::var("PEREGRINE_SCRIPT").ok();
    let suites = load_suites(&dir, filter.as_deref());
    let mut passed = 0;
    let mut failed = Vec::new();
    for suite in &suites {
        let mut suite_passed = 0;
        let mut suite_failed = 0;
        let mut shared: Option<Run<'_, S>> = None;
        for path in &suite.scripts {
            let script = Script::parse(path).expect("script");
            let name = format!("{}/{}", suite.label, script.name);
            let result = match mode {
                Mode::SessionPerScript => {
                    let store = make_store(suite, &script.name);
                    let mut run = Run::new(suite, store, &patterns);
                    run.run_steps(&script)
                }
                Mode::SessionPerSuite => {
                    let run = shared.get_or_insert_with(|| {
                        Run::new(suite, make_store(suite, "suite"), &patterns)
                    });
                    run.between_scripts();
                    run.run_steps(&script)
                }
            };
            match result {
                Ok(()) => {
                    passed += 1;
                    suite_passed += 1;
                }
                Err(e) => {
                    println!("FAIL [{label}] {name}: {e}");
                    failed.push(name);
                    suite_failed += 1;
                }
            }
        }
        println!(
            "[{label}] {}: {suite_passed} passed, {suite_failed} failed",
            suite.label
        );
    }
    println!("[{label}] {passed} passed, {} failed", failed.len());
    Some((passed, failed))
}

impl<'a, S: MessageStore> Run<'a, S> {
    fn new(suite: &Suite, store: S, patterns: &'a FieldPatterns) -> Self {
        Run {
            session: Session::new(suite.config.clone(), store, T0),
            app: EchoApp::new(suite.dicts.clone()),
            now: T0,
            conns: BTreeMap::new(),
            attached: None,
            patterns,
        }
    }
}
