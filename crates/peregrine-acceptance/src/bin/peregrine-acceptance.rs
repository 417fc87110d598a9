//! `peregrine-acceptance`: runs the QuickFIX acceptance suites against acceptors
//! it launches (or against one already running, with `--addr`).
#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use peregrine_acceptance::{
    acceptance_dir, dictionaries_dir, repo_root, run_parallel, run_suite_filtered, skip_message,
    suite_specs, summary_line, write_report, FieldPatterns, Launcher, MatchRule, RunConfig,
    ScriptResult, SUITES, VERSIONS,
};

const DEFAULT_COMMAND: &str = "target/release/peregrine acceptor --config {cfg} --app echo";

const USAGE: &str = "\
usage: peregrine-acceptance [options]

Launches one acceptor per suite and version, runs that directory's scripts
against it over TCP, and prints one line per failing script and then
`N passed, M failed`. Exits non-zero if any script fails.

options:
  --acceptor-cmd \"WORDS\"    acceptor command, split at whitespace; `{cfg}` is replaced
                            by the derived cfg file, else its path is appended
                            (default: \"target/release/peregrine acceptor --config {cfg} --app echo\")
  --suites a,b              server,resendreqchunksize,lastseqnumprocessed,nextexpectedseqnum,
                            timestamps,rejectGarbledMessages,validateChecksum (default: all
                            that the acceptance directory has)
  --versions v,w            fix40,fix41,fix42,fix43,fix44,fix50,fix50sp1,fix50sp2 (default: all)
  --jobs N                  acceptors run at once (default: 4)
  --filter TEXT             only scripts whose file name contains TEXT
  --store memory|file       passed to the acceptor as `--store X`
  --acceptance-dir DIR      the acceptance scripts' directory (default: $PEREGRINE_ACCEPTANCE_DIR,
                            else the repository's copy, acceptance/quickfix; the scripts
                            QuickFIX/J adds are in acceptance/quickfixj)
  --rule strict|quickfixj   how E lines are compared: QuickFIX's strict rule with
                            definitions/fields.fmt, or QuickFIX/J's (default: strict when
                            the directory has definitions/fields.fmt, else quickfixj)
  --expect-timeout SECS     longest wait for one E line (default: 40)
  --disconnect-timeout SECS longest wait for eDISCONNECT (default: 10)
  --startup-timeout SECS    longest wait for an acceptor to accept (default: 30)
  --keep                    keep every acceptor's work directory (kept anyway on failure)
  --addr HOST:PORT          do not launch: run against this running acceptor
  --admin-addr HOST:PORT    its HTTP admin endpoint (with --addr; default: port+1)
  --admin-token TOKEN       the bearer token its admin endpoint wants for /seqnum
                            (with --addr; Peregrine's AdminHttpToken)
  --dir DIR                 with --addr: the directory of scripts to run
  -h, --help                this text
";

struct Options {
    command: String,
    suites: Vec<String>,
    versions: Vec<String>,
    jobs: usize,
    filter: Option<String>,
    store: Option<String>,
    acceptance_dir: Option<PathBuf>,
    rule: Option<MatchRule>,
    timeout_expect: Duration,
    timeout_disconnect: Duration,
    startup_timeout: Duration,
    keep: bool,
    addr: Option<SocketAddr>,
    admin_addr: Option<SocketAddr>,
    admin_token: Option<String>,
    dir: Option<PathBuf>,
}

fn list(value: &str, known: &[&str], what: &str) -> Result<Vec<String>, String> {
    let items: Vec<String> = value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    if let Some(bad) = items.iter().find(|i| !known.contains(&i.as_str())) {
        return Err(format!(
            "unknown {what} {bad:?}; known: {}",
            known.join(",")
        ));
    }
    if items.is_empty() {
        return Err(format!("empty list of {what}s"));
    }
    Ok(items)
}

fn seconds(value: &str) -> Result<Duration, String> {
    value
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("{value:?} is not a positive number of seconds"))
}

fn parse_args(args: Vec<String>) -> Result<Option<Options>, String> {
    let mut o = Options {
        command: DEFAULT_COMMAND.to_string(),
        suites: SUITES.iter().map(|s| s.to_string()).collect(),
        versions: VERSIONS.iter().map(|s| s.to_string()).collect(),
        jobs: 4,
        filter: None,
        store: None,
        acceptance_dir: None,
        rule: None,
        timeout_expect: Duration::from_secs(40),
        timeout_disconnect: Duration::from_secs(10),
        startup_timeout: Duration::from_secs(30),
        keep: false,
        addr: None,
        admin_addr: None,
        admin_token: None,
        dir: None,
    };
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(None),
            "--acceptor-cmd" => o.command = value()?,
            "--suites" => o.suites = list(&value()?, SUITES, "suite")?,
            "--versions" => o.versions = list(&value()?, VERSIONS, "version")?,
            "--jobs" => {
                o.jobs = value()?
                    .parse::<usize>()
                    .ok()
                    .filter(|&j| j > 0)
                    .ok_or("--jobs needs a positive number")?
            }
            "--filter" => o.filter = Some(value()?),
            "--store" => {
                let store = value()?;
                if store != "memory" && store != "file" {
                    return Err(format!("--store must be memory or file, not {store:?}"));
                }
                o.store = Some(store);
            }
            "--acceptance-dir" => o.acceptance_dir = Some(PathBuf::from(value()?)),
            "--rule" => {
                let rule = value()?;
                o.rule =
                    Some(MatchRule::from_name(&rule).ok_or_else(|| {
                        format!("--rule must be strict or quickfixj, not {rule:?}")
                    })?);
            }
            "--expect-timeout" => o.timeout_expect = seconds(&value()?)?,
            "--disconnect-timeout" => o.timeout_disconnect = seconds(&value()?)?,
            "--startup-timeout" => o.startup_timeout = seconds(&value()?)?,
            "--keep" => o.keep = true,
            "--addr" => o.addr = Some(parse_addr(&value()?)?),
            "--admin-addr" => o.admin_addr = Some(parse_addr(&value()?)?),
            "--admin-token" => o.admin_token = Some(value()?),
            "--dir" => o.dir = Some(PathBuf::from(value()?)),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if o.command.split_whitespace().next().is_none() {
        return Err("--acceptor-cmd is empty".into());
    }
    if o.dir.is_some() && o.addr.is_none() {
        return Err("--dir needs --addr".into());
    }
    Ok(Some(o))
}

fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    use std::net::ToSocketAddrs;
    text.to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| format!("{text:?} is not HOST:PORT"))
}

fn finish(results: &[ScriptResult]) -> ExitCode {
    let mut out = std::io::stdout().lock();
    if let Err(e) = write_report(results, &mut out) {
        eprintln!("peregrine-acceptance: cannot write the report: {e}");
        return ExitCode::FAILURE;
    }
    if results.iter().all(|r| r.passed) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1).collect()) {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("peregrine-acceptance: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let root = repo_root();
    let dir = match options.acceptance_dir.clone() {
        Some(d) if d.is_dir() => d,
        Some(d) => {
            eprintln!("peregrine-acceptance: {} is not a directory", d.display());
            return ExitCode::from(2);
        }
        None => match acceptance_dir(&root) {
            Some(d) => d,
            None => {
                println!("{}", skip_message(&root));
                return ExitCode::SUCCESS;
            }
        },
    };
    let rule = options
        .rule
        .unwrap_or_else(|| MatchRule::of_acceptance_dir(&dir));
    let patterns = match rule {
        MatchRule::Strict => match FieldPatterns::load(dir.join("definitions/fields.fmt")) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("peregrine-acceptance: {e}");
                return ExitCode::from(2);
            }
        },
        MatchRule::QuickFixJ => FieldPatterns::default(),
    };

    if let Some(addr) = options.addr {
        return run_against_running(&options, addr, &dir, patterns, rule);
    }

    let specs = suite_specs(&dir, &options.suites, &options.versions);
    if specs.is_empty() {
        eprintln!("peregrine-acceptance: no suite matches those suites and versions");
        return ExitCode::from(2);
    }
    let mut launcher = Launcher::new(
        options
            .command
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        dictionaries_dir(&dir),
        patterns,
    );
    if let Some(store) = &options.store {
        launcher.extra_args = vec!["--store".into(), store.clone()];
    }
    launcher.rule = rule;
    launcher.filter = options.filter.clone();
    launcher.timeout_expect = options.timeout_expect;
    launcher.timeout_disconnect = options.timeout_disconnect;
    launcher.startup_timeout = options.startup_timeout;
    launcher.keep_work_dirs = options.keep;

    let start = Instant::now();
    let outcomes = run_parallel(&specs, &launcher, options.jobs, &|outcome| {
        let took: Duration = outcome.results.iter().map(|r| r.duration).sum();
        let mut line = format!(
            "{}: {} ({:.1}s)",
            outcome.label,
            summary_line(&outcome.results),
            took.as_secs_f64()
        );
        if let Some(w) = &outcome.work_dir {
            line.push_str(&format!(", work dir {}", w.display()));
        }
        eprintln!("{line}");
    });
    eprintln!("total time {:.1}s", start.elapsed().as_secs_f64());
    let results: Vec<ScriptResult> = outcomes.into_iter().flat_map(|o| o.results).collect();
    finish(&results)
}

fn run_against_running(
    options: &Options,
    addr: SocketAddr,
    acceptance: &std::path::Path,
    patterns: FieldPatterns,
    rule: MatchRule,
) -> ExitCode {
    let script_dir = match &options.dir {
        Some(d) => d.clone(),
        None if options.suites.len() == 1 && options.versions.len() == 1 => acceptance
            .join("definitions")
            .join(&options.suites[0])
            .join(&options.versions[0]),
        None => {
            eprintln!("peregrine-acceptance: with --addr give --dir, or one suite and one version");
            return ExitCode::from(2);
        }
    };
    let admin = options
        .admin_addr
        .unwrap_or_else(|| SocketAddr::new(addr.ip(), addr.port().wrapping_add(1)));
    let mut cfg = RunConfig::new(addr, admin, patterns);
    cfg.rule = rule;
    cfg.admin_token = options.admin_token.clone();
    cfg.timeout_expect = options.timeout_expect;
    cfg.timeout_disconnect = options.timeout_disconnect;
    match run_suite_filtered(&script_dir, &cfg, options.filter.as_deref()) {
        Ok(results) => finish(&results),
        Err(e) => {
            eprintln!("peregrine-acceptance: {}: {e}", script_dir.display());
            ExitCode::from(2)
        }
    }
}
