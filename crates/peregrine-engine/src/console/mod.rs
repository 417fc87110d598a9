//! The operations console: a page served by the [admin interface](crate::admin)
//! (`GET /` or `/console`) that shows every session and steers them.
//!
//! # What it is made of, and why
//!
//! One HTML page, one script and one style sheet, written by hand without a
//! framework or a build step, and built into the binary with `include_str!`
//! (`console.html`, `console.js` and `console.css` beside this file). Nothing
//! to install or fetch at run time (a desk's jump host often has no internet),
//! nothing to rebuild when the engine is, and the whole page is small enough
//! to read in a review (about 30 KB). Every URL it uses is relative
//! (`api/sessions`, `logout?…`), so it works at `http://127.0.0.1:PORT/`
//! through an SSH tunnel and under a reverse proxy's path
//! (`https://ops/peregrine/`) alike.
//!
//! # Live updates
//!
//! By polling, once a second: `api/sessions` (the Sessions table) and
//! `api/engine` (the charts). A poll is one command for the reactor (the
//! session list) and reads of counters it never waits for; polling needs no
//! connection held open, which the admin server's one-request connections
//! and [`CONNECTION_TIMEOUT`](crate::admin::CONNECTION_TIMEOUT) would not
//! allow for server-sent events.
//!
//! # Endpoints (read-only, no token)
//!
//! | path | answer |
//! |---|---|
//! | `api/sessions` | every session: role, state and why, schedule, sequence numbers, last logon, messages and bytes in/out, resends, rejects, heartbeat round-trip, fsyncs |
//! | `api/engine` | the reactor's counters and the stores' fsync and write latencies, cumulative |
//! | `api/messages?SESSION=…` | one page of its messages log, decoded (see [`messages`]): `MSGTYPE=D,8`, `WHERE=11=ORD-1` (repeatable), `FROM`/`TO` (`YYYYMMDD-HH:MM:SS`), `ADMIN=hide\|only`, `DIR=fwd`, `OFFSET`, `LIMIT` |
//! | `api/follow?CLORDID=…` | one ClOrdID(11) or OrigClOrdID(41) in every session's log, newest first, within [`FOLLOW_BUDGET`] per session; `older` names the logs read in part and where a Messages search goes on |
//! | `api/events?SESSION=…` | the last lines of its event log (who did what) |
//!
//! The actions are the admin interface's own commands (`logout`, `logon`,
//! `reset`, `seqnum`, `testrequest`), with the token.
//!
//! # Safety
//!
//! * Read-only without the token. The page keeps the token in memory only
//!   (never in storage, a cookie or a URL) and sends it as `Authorization:
//!   Bearer`; every action asks for confirmation first, and the answer (what
//!   changed) is shown. The admin interface logs the request's path, never
//!   the token, and the session's event log names who asked
//!   (`X-Peregrine-Operator`, sanitised, and the remote address).
//! * Every value from the wire or a log reaches the page as JSON and is put
//!   in the page with `textContent` (never as HTML); the answers carry a
//!   Content-Security-Policy that allows only the page's own script and
//!   style, and no framing.

pub mod api;
pub mod messages;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use peregrine_decode::{Dictionaries, Filter, MessageDecoder};

use crate::command::{Command, EngineHandle, Outcome};
use crate::driver::now_nanos;
use crate::http::{bad_parameter, percent_decode, SESSION_FORM};
use crate::session_info::SessionInfo;

use self::messages::{Admin, Query};

const HTML: &str = include_str!("console.html");
const JS: &str = include_str!("console.js");
const CSS: &str = include_str!("console.css");

/// The most bytes of each session's log `api/follow` reads.
pub const FOLLOW_BUDGET: u64 = 2 << 20;
/// The most bytes `api/follow` reads in all (sessions past it are listed as
/// not searched).
pub const FOLLOW_TOTAL_BUDGET: u64 = 64 << 20;
/// The most bytes of an event log `api/events` reads (its end).
pub const EVENTS_TAIL: u64 = 32 << 10;

/// An answer of the console.
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) content_type: &'static str,
    pub(crate) body: String,
}

impl Reply {
    fn json(body: String) -> Reply {
        Reply {
            status: 200,
            content_type: "application/json",
            body,
        }
    }

    fn text(status: u16, body: impl Into<String>) -> Reply {
        Reply {
            status,
            content_type: "text/plain; charset=utf-8",
            body: body.into(),
        }
    }
}

/// Searches of the logs (`api/messages`, `api/follow`, `api/events`) that may
/// run or wait at once: past it a request is answered 503 at once. A search
/// goes on when its client has gone (it runs on a blocking thread), so
/// without this bound a client that asks and hangs up, again and again,
/// would queue work without end.
pub const MAX_LOG_SEARCHES: usize = 2;

/// The most `MSGTYPE` values and `WHERE` filters a search takes, and the
/// longest value: each filter is matched against every line read.
pub const MAX_FILTERS: usize = 16;
/// See [`MAX_FILTERS`].
pub const MAX_FILTER_LEN: usize = 256;

/// The console's state: the decoder (its dictionaries load once, when first
/// needed) and the searches running.
pub(crate) struct Console {
    decoder: Arc<Mutex<MessageDecoder>>,
    searches: Arc<std::sync::atomic::AtomicUsize>,
}

impl Console {
    /// A console decoding with `files` (each in place of the built-in
    /// dictionary of its version; a second file of one version, or a file
    /// that does not load, is left out with a warning).
    pub(crate) fn new(files: &[PathBuf]) -> Console {
        let mut chosen: Vec<PathBuf> = Vec::new();
        for f in files {
            chosen.push(f.clone());
            if let Err(e) = Dictionaries::new(&chosen) {
                tracing::warn!("console: decoding without {}: {e}", f.display());
                chosen.pop();
            }
        }
        let dicts = Dictionaries::new(&chosen).expect("each file was loaded with the others");
        Console {
            decoder: Arc::new(Mutex::new(MessageDecoder::new(dicts, Filter::default()))),
            searches: Arc::default(),
        }
    }

    /// Whether `path` is the console's.
    pub(crate) fn serves(path: &str) -> bool {
        matches!(path, "/" | "/console" | "/console.js" | "/console.css")
            || path.starts_with("/api/")
    }

    /// Answers a `GET` of one of its paths (see [`Console::serves`]).
    pub(crate) async fn respond(
        &self,
        path: &str,
        query: &str,
        handle: &EngineHandle,
        timeout: Duration,
    ) -> Reply {
        let params = params(query);
        let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        match path {
            "/" | "/console" => Reply {
                status: 200,
                content_type: "text/html; charset=utf-8",
                body: HTML.into(),
            },
            "/console.js" => Reply {
                status: 200,
                content_type: "text/javascript; charset=utf-8",
                body: JS.into(),
            },
            "/console.css" => Reply {
                status: 200,
                content_type: "text/css; charset=utf-8",
                body: CSS.into(),
            },
            "/api/engine" => Reply::json(api::engine(handle.metrics(), now_nanos())),
            "/api/sessions" => match sessions(handle, timeout).await {
                Ok(infos) => Reply::json(api::sessions(&infos, handle.metrics())),
                Err(r) => r,
            },
            "/api/messages" => {
                let Some(name) = get("SESSION") else {
                    return Reply::text(400, bad_parameter("SESSION", "missing", SESSION_FORM));
                };
                let query = match message_query(&params) {
                    Ok(q) => q,
                    Err(r) => return r,
                };
                let infos = match sessions(handle, timeout).await {
                    Ok(infos) => infos,
                    Err(r) => return r,
                };
                let Some(info) = infos.iter().find(|i| i.name == name) else {
                    return Reply::text(404, format!("no session {name}\n"));
                };
                let Some(path) = info.messages_log.clone() else {
                    return Reply::text(404, "the session writes no messages log (FileLogPath)\n");
                };
                let decoder = self.decoder.clone();
                let session = info.name.clone();
                blocking(&self.searches, move || {
                    let mut d = decoder.lock().unwrap_or_else(|p| p.into_inner());
                    messages::search(&path, &query, &mut d).map(|p| api::page(&session, &p))
                })
                .await
            }
            "/api/follow" => {
                let Some(id) = get("CLORDID").filter(|v| !v.is_empty()) else {
                    return Reply::text(
                        400,
                        bad_parameter(
                            "CLORDID",
                            "missing",
                            "a ClOrdID(11) or OrigClOrdID(41) value, percent-encoded",
                        ),
                    );
                };
                let infos = match sessions(handle, timeout).await {
                    Ok(infos) => infos,
                    Err(r) => return r,
                };
                let logs: Vec<(String, PathBuf)> = infos
                    .into_iter()
                    .filter_map(|i| Some((i.name, i.messages_log?)))
                    .collect();
                let decoder = self.decoder.clone();
                blocking(&self.searches, move || {
                    let mut d = decoder.lock().unwrap_or_else(|p| p.into_inner());
                    follow(&logs, &id, &mut d)
                })
                .await
            }
            "/api/events" => {
                let Some(name) = get("SESSION") else {
                    return Reply::text(400, bad_parameter("SESSION", "missing", SESSION_FORM));
                };
                let infos = match sessions(handle, timeout).await {
                    Ok(infos) => infos,
                    Err(r) => return r,
                };
                let Some(path) = infos
                    .iter()
                    .find(|i| i.name == name)
                    .and_then(|i| i.messages_log.as_ref())
                    .map(|p| event_log_of(p))
                else {
                    return Reply::text(404, format!("no event log for {name}\n"));
                };
                blocking(&self.searches, move || events(&path)).await
            }
            _ => Reply::text(404, "no such console path\n"),
        }
    }
}

/// The event log beside a messages log.
fn event_log_of(messages: &std::path::Path) -> PathBuf {
    let name = messages
        .file_name()
        .map(|n| n.to_string_lossy().replace(".messages.log", ".event.log"))
        .unwrap_or_default();
    messages.with_file_name(name)
}

/// Runs file work off the admin thread's runtime (a page reads up to
/// [`messages::SCAN_BUDGET`]), at most [`MAX_LOG_SEARCHES`] at once counting
/// those whose client has gone: another is refused (503).
async fn blocking(
    searches: &Arc<std::sync::atomic::AtomicUsize>,
    f: impl FnOnce() -> std::io::Result<String> + Send + 'static,
) -> Reply {
    use std::sync::atomic::Ordering;
    let taken = searches.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
        (n < MAX_LOG_SEARCHES).then_some(n + 1)
    });
    if taken.is_err() {
        return Reply::text(
            503,
            format!("{MAX_LOG_SEARCHES} log searches are running: try again shortly\n"),
        );
    }
    // Given back when the work ends (or panics), not when the request does.
    struct Slot(Arc<std::sync::atomic::AtomicUsize>);
    impl Drop for Slot {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Ordering::AcqRel);
        }
    }
    let slot = Slot(searches.clone());
    let f = move || {
        let _slot = slot;
        f()
    };
    match tokio::task::spawn_blocking(f).await {
        Ok(Ok(body)) => Reply::json(body),
        // Only a Messages search's filters are InvalidInput.
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::InvalidInput => Reply::text(
            400,
            bad_parameter(
                "MSGTYPE, WHERE",
                &e.to_string(),
                "MsgTypes and fields the dictionary knows, like MSGTYPE=D,8 and WHERE=11%3DORD-1",
            ),
        ),
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => Reply::text(404, "no log yet\n"),
        Ok(Err(e)) => Reply::text(500, format!("cannot read the log: {e}\n")),
        Err(_) => Reply::text(500, "the search failed\n"),
    }
}

async fn sessions(handle: &EngineHandle, timeout: Duration) -> Result<Vec<SessionInfo>, Reply> {
    match tokio::time::timeout(timeout, handle.call_async(Command::ListSessions)).await {
        Ok(Some(Ok(Outcome::Sessions(s)))) => Ok(s),
        Ok(Some(_)) | Ok(None) => Err(Reply::text(503, "the engine is not running\n")),
        Err(_) => Err(Reply::text(503, "the engine did not answer in time\n")),
    }
}

/// Query parameters, names in upper case, values percent-decoded.
fn params(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (percent_decode(k).to_ascii_uppercase(), percent_decode(v))
        })
        .collect()
}

/// A time bound as the log writes times: digits, `-`, `:` and `.`.
fn time_bound(key: &str, v: &str) -> Result<Option<String>, Reply> {
    let v = v.trim();
    if v.is_empty() {
        return Ok(None);
    }
    if v.len() > 24 || !v.bytes().all(|b| b.is_ascii_digit() || b"-:.".contains(&b)) {
        return Err(Reply::text(
            400,
            bad_parameter(
                key,
                &format!("{v:?} is not a time"),
                "a time like 20261124-10:00:00 (UTC, as the log writes it)",
            ),
        ));
    }
    Ok(Some(v.to_string()))
}

fn message_query(params: &[(String, String)]) -> Result<Query, Reply> {
    let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    let list = |k: &str| -> Vec<String> {
        get(k)
            .unwrap_or("")
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    };
    let number = |k: &str| -> Result<Option<u64>, Reply> {
        get(k)
            .filter(|v| !v.is_empty())
            .map(|v| {
                v.parse::<u64>().map_err(|_| {
                    Reply::text(
                        400,
                        bad_parameter(
                            k,
                            &format!("{v:?} is not a number"),
                            "a whole number from 0",
                        ),
                    )
                })
            })
            .transpose()
    };
    let msg_types = list("MSGTYPE");
    let wheres: Vec<String> = params
        .iter()
        .filter(|(k, v)| k == "WHERE" && !v.trim().is_empty())
        .map(|(_, v)| v.trim().to_string())
        .collect();
    if msg_types.len() > MAX_FILTERS || wheres.len() > MAX_FILTERS {
        return Err(Reply::text(
            400,
            bad_parameter(
                "MSGTYPE, WHERE",
                "too many",
                &format!("at most {MAX_FILTERS} MSGTYPE values and {MAX_FILTERS} WHERE filters"),
            ),
        ));
    }
    if msg_types
        .iter()
        .chain(&wheres)
        .any(|v| v.len() > MAX_FILTER_LEN)
    {
        return Err(Reply::text(
            400,
            bad_parameter(
                "MSGTYPE, WHERE",
                "a value too long",
                &format!("values of at most {MAX_FILTER_LEN} bytes"),
            ),
        ));
    }
    Ok(Query {
        msg_types,
        wheres,
        from: time_bound("FROM", get("FROM").unwrap_or(""))?,
        to: time_bound("TO", get("TO").unwrap_or(""))?,
        admin: match get("ADMIN").unwrap_or("") {
            "" | "show" | "all" => Admin::Shown,
            "hide" => Admin::Hidden,
            "only" => Admin::Only,
            other => {
                return Err(Reply::text(
                    400,
                    bad_parameter(
                        "ADMIN",
                        &format!("{other:?} is not one"),
                        "show, hide or only",
                    ),
                ))
            }
        },
        order: match get("ORDER").map(str::trim).filter(|v| !v.is_empty()) {
            Some(v) if v.len() > MAX_FILTER_LEN => {
                return Err(Reply::text(
                    400,
                    bad_parameter(
                        "ORDER",
                        "too long",
                        &format!("a ClOrdID of at most {MAX_FILTER_LEN} bytes"),
                    ),
                ))
            }
            v => v.map(String::from),
        },
        offset: number("OFFSET")?,
        forward: get("DIR") == Some("fwd"),
        limit: number("LIMIT")?.map_or(100, |n| n as usize),
        budget: 0,
    })
}

/// `api/follow`: ClOrdID(11) or OrigClOrdID(41) `id` in every log, newest
/// first, reading at most [`FOLLOW_BUDGET`] of each and
/// [`FOLLOW_TOTAL_BUDGET`] in all. A log read only in part is named in
/// `older`, with the offset its older lines end at, where a Messages
/// search (`api/messages?…&OFFSET=`) goes on; a log not read at all, in
/// `not_searched`.
fn follow(
    logs: &[(String, PathBuf)],
    id: &str,
    decoder: &mut MessageDecoder,
) -> std::io::Result<String> {
    let mut found: Vec<(String, String, u64, String)> = Vec::new();
    let mut read = 0u64;
    let mut not_searched = Vec::new();
    let mut older: Vec<serde_json::Value> = Vec::new();
    for (name, path) in logs {
        if read >= FOLLOW_TOTAL_BUDGET {
            not_searched.push(name.clone());
            continue;
        }
        // One scan a log for both tags (`Query::order`).
        let query = Query {
            order: Some(id.to_string()),
            limit: 200,
            budget: FOLLOW_BUDGET,
            ..Query::default()
        };
        let page = match messages::search(path, &query, decoder) {
            Ok(page) => page,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        read += page.scanned;
        if let Some(offset) = page.next_offset {
            older.push(serde_json::json!({ "session": name, "offset": offset }));
        }
        for (offset, m) in page.messages {
            let time = serde_json::from_str::<serde_json::Value>(&m)
                .ok()
                .and_then(|v| v["time"].as_str().map(String::from))
                .unwrap_or_default();
            found.push((name.clone(), time, offset, m));
        }
    }
    found.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)));
    let items: Vec<String> = found
        .iter()
        .map(|(name, _, offset, m)| {
            format!(
                "{{\"session\":{},\"offset\":{offset},\"message\":{m}}}",
                serde_json::Value::from(name.as_str())
            )
        })
        .collect();
    Ok(format!(
        "{{\"messages\":[{}],\"older\":{},\"not_searched\":{}}}",
        items.join(","),
        serde_json::Value::from(older),
        serde_json::Value::from(not_searched)
    ))
}

/// `api/events`: the last [`EVENTS_TAIL`] bytes of an event log, as lines.
fn events(path: &std::path::Path) -> std::io::Result<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let start = len.saturating_sub(EVENTS_TAIL);
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.take(EVENTS_TAIL).read_to_end(&mut bytes)?;
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<&str> = text.lines().collect();
    if start > 0 && !lines.is_empty() {
        lines.remove(0); // cut by the tail's start
    }
    Ok(serde_json::json!({ "lines": lines }).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At most `MAX_LOG_SEARCHES` searches run or wait, whether or not
    /// their clients are still there: another is refused at once, and a slot
    /// is free again when a search ends.
    #[test]
    fn log_searches_are_bounded_while_they_run() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let searches = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let gate = Arc::new(Mutex::new(gate));
        let running: Vec<_> = (0..MAX_LOG_SEARCHES)
            .map(|_| {
                let (searches, gate) = (searches.clone(), gate.clone());
                rt.spawn(async move {
                    blocking(&searches, move || {
                        gate.lock().unwrap().recv().unwrap();
                        Ok("{}".into())
                    })
                    .await
                })
            })
            .collect();
        // Let them start and take their slots.
        while searches.load(std::sync::atomic::Ordering::Acquire) < MAX_LOG_SEARCHES {
            rt.block_on(tokio::task::yield_now());
        }
        let refused = rt.block_on(blocking(&searches, || Ok("{}".into())));
        assert_eq!(refused.status, 503, "{}", refused.body);
        for _ in 0..MAX_LOG_SEARCHES {
            release.send(()).unwrap();
        }
        for r in running {
            assert_eq!(rt.block_on(r).unwrap().status, 200);
        }
        assert_eq!(searches.load(std::sync::atomic::Ordering::Acquire), 0);
        let again = rt.block_on(blocking(&searches, || Ok("{}".into())));
        assert_eq!(again.status, 200);
    }

    /// A log longer than `FOLLOW_BUDGET` is read back that far and named in
    /// `older` with the offset its unread lines end at; a Messages search
    /// from there finds the order follow did not reach.
    #[test]
    fn follow_names_the_logs_it_read_in_part() {
        use std::io::Write;
        let order = |seq: usize, id: &str| {
            let body = format!("35=D\x0149=TW\x0156=ISLD\x0134={seq}\x0111={id}\x0155=X\x01");
            let head = format!("8=FIX.4.4\x019={}\x01", body.len());
            let sum = head.bytes().chain(body.bytes()).map(u32::from).sum::<u32>() % 256;
            format!("20261124-10:00:00.000000 : {head}{body}10={sum:03}\x01\n")
        };
        let mut big = tempfile::NamedTempFile::new().unwrap();
        let mut small = tempfile::NamedTempFile::new().unwrap();
        let mut w = std::io::BufWriter::new(big.as_file_mut());
        w.write_all(order(1, "OLD-1").as_bytes()).unwrap();
        let mut len = 0;
        let mut seq = 2;
        while len <= FOLLOW_BUDGET + (64 << 10) {
            let line = order(seq, &format!("PAD-{seq}"));
            len += line.len() as u64;
            w.write_all(line.as_bytes()).unwrap();
            seq += 1;
        }
        drop(w);
        small.write_all(order(1, "OLD-1").as_bytes()).unwrap();
        // Its cancel: OrigClOrdID(41) names it; found by the same scan.
        small
            .write_all(order(2, "OLD-2\x0141=OLD-1").as_bytes())
            .unwrap();
        // A longer ClOrdID that only starts with it is not it.
        small.write_all(order(3, "OLD-10").as_bytes()).unwrap();
        let logs = [
            ("BIG".to_string(), big.path().to_path_buf()),
            ("SMALL".to_string(), small.path().to_path_buf()),
        ];
        let mut decoder = MessageDecoder::new(Dictionaries::new(&[]).unwrap(), Filter::default());
        let r: serde_json::Value =
            serde_json::from_str(&follow(&logs, "OLD-1", &mut decoder).unwrap()).unwrap();
        let sessions: Vec<&str> = r["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["session"].as_str().unwrap())
            .collect();
        assert_eq!(sessions, ["SMALL", "SMALL"], "{r}");
        let older = r["older"].as_array().unwrap();
        assert_eq!(older.len(), 1, "{r}");
        assert_eq!(older[0]["session"], "BIG");
        let offset = older[0]["offset"].as_u64().unwrap();
        assert!(offset > 0 && offset < len, "{r}");
        let query = Query {
            wheres: vec!["11=OLD-1".into()],
            offset: Some(offset),
            ..Query::default()
        };
        let page = messages::search(big.path(), &query, &mut decoder).unwrap();
        assert_eq!(page.messages.len(), 1);
        assert_eq!(page.messages[0].0, 0);
    }

    #[test]
    fn too_many_or_too_long_filters_are_refused() {
        let many: Vec<(String, String)> = (0..=MAX_FILTERS)
            .map(|i| ("WHERE".to_string(), format!("11=X{i}")))
            .collect();
        assert_eq!(message_query(&many).err().map(|r| r.status), Some(400));
        let long = vec![(
            "WHERE".to_string(),
            format!("58={}", "x".repeat(MAX_FILTER_LEN)),
        )];
        assert_eq!(message_query(&long).err().map(|r| r.status), Some(400));
        let fine = vec![("WHERE".to_string(), "11=ORD-1".to_string())];
        assert!(message_query(&fine).is_ok());
    }

    #[test]
    fn queries_are_checked() {
        let p = params(
            "SESSION=FIX.4.4:A-%3EB&MSGTYPE=D,8&WHERE=11%3DX&WHERE=55%3DY&ADMIN=hide&DIR=fwd",
        );
        let q = message_query(&p).ok().unwrap();
        assert_eq!(q.msg_types, ["D", "8"]);
        assert_eq!(q.wheres, ["11=X", "55=Y"]);
        assert_eq!((q.admin, q.forward, q.limit), (Admin::Hidden, true, 100));
        for bad in ["ADMIN=no", "OFFSET=x", "FROM=%3Cscript%3E", "LIMIT=-1"] {
            assert_eq!(
                message_query(&params(bad)).err().unwrap().status,
                400,
                "{bad}"
            );
        }
        assert!(Console::serves("/api/sessions") && Console::serves("/"));
        assert!(!Console::serves("/sessions"));
        assert_eq!(
            event_log_of(std::path::Path::new("/l/FIX.4.4-A-B.messages.log")),
            std::path::Path::new("/l/FIX.4.4-A-B.event.log")
        );
    }
}
