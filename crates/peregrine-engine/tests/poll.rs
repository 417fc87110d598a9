//! `Engine::poll`, the pass for callers with their own loop: an initiator and an acceptor
//! driven by `poll` alone connect (reconnects are housekeeping), log on, and exchange
//! single messages, bursts (several messages per read) and a message larger than the
//! engine's read buffer (a read that fills the buffer is followed by another).

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use peregrine_codec::MessageView;
use peregrine_engine::config::Settings;
use peregrine_engine::fix::{build_session, BoxedFixSession, StoreKind};
use peregrine_engine::{now_nanos, Engine, EngineOptions, Idle};
use peregrine_session::{AppReject, Application, EchoApp, Outbox, SessionId};

/// Counts echoed orders and remembers the longest Text(58) seen.
struct Count {
    got: Arc<AtomicUsize>,
    longest_text: Arc<AtomicUsize>,
}

impl Application for Count {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        if let Some(t) = msg.get(58) {
            self.longest_text.fetch_max(t.len(), Ordering::Relaxed);
        }
        self.got.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

fn engine(
    text: &str,
    dir: &Path,
    app: &mut dyn FnMut() -> Box<dyn Application + Send>,
) -> Engine<BoxedFixSession> {
    let settings = Settings::parse(text, &dir.join("x.cfg")).unwrap();
    let mut e = Engine::new(EngineOptions {
        idle: Idle::busy_spin(),
        message_logs: false,
        stop_flag: None,
        ..EngineOptions::default()
    })
    .unwrap();
    for s in &settings.sessions {
        let d = build_session(s, StoreKind::Memory, now_nanos(), &mut |_| app()).unwrap();
        e.add_session(s, d).unwrap();
    }
    e
}

fn send(ini: &mut Engine<BoxedFixSession>, id: usize, text: &[u8]) {
    let cl_ord_id = format!("ORD{id}");
    ini.with_session("FIX.4.4:TW->ISLD", |d, now| {
        d.send(now, b"D", |enc| {
            enc.str(11, cl_ord_id.as_bytes())
                .str(21, b"1")
                .str(38, b"100")
                .str(40, b"1")
                .str(54, b"1")
                .str(55, b"PEREGRINE");
            if !text.is_empty() {
                enc.str(58, text);
            }
            enc.str(60, b"20260101-00:00:00.000");
        })
        .unwrap();
    })
    .unwrap();
}

/// Polls both engines until `got` reaches `n` (a 10 s guard against a hang).
fn poll_until(
    acc: &mut Engine<BoxedFixSession>,
    ini: &mut Engine<BoxedFixSession>,
    done: &mut dyn FnMut(&Engine<BoxedFixSession>, &Engine<BoxedFixSession>) -> bool,
) {
    let start = Instant::now();
    while !done(acc, ini) {
        acc.poll().unwrap();
        ini.poll().unwrap();
        assert!(start.elapsed() < Duration::from_secs(10), "stuck");
    }
}

#[test]
fn poll_alone_drives_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let mut acc = engine(
        "[DEFAULT]\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\nSenderCompID=ISLD\n\
         TargetCompID=TW\nUseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\n",
        dir.path(),
        &mut || Box::new(EchoApp::new(None)),
    );
    let port = acc.listener_addrs()[0].port();
    let got = Arc::new(AtomicUsize::new(0));
    let longest_text = Arc::new(AtomicUsize::new(0));
    let (g, l) = (got.clone(), longest_text.clone());
    let mut ini = engine(
        &format!(
            "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
             SenderCompID=TW\nTargetCompID=ISLD\nHeartBtInt=30\nUseDataDictionary=N\n\
             [SESSION]\nBeginString=FIX.4.4\n"
        ),
        dir.path(),
        &mut || {
            Box::new(Count {
                got: g.clone(),
                longest_text: l.clone(),
            })
        },
    );
    poll_until(&mut acc, &mut ini, &mut |a, i| {
        a.sessions()[0].logged_on && i.sessions()[0].logged_on
    });

    // One at a time.
    for n in 1..=200 {
        send(&mut ini, n, b"");
        poll_until(&mut acc, &mut ini, &mut |_, _| {
            got.load(Ordering::Relaxed) == n
        });
    }
    // A burst: several messages arrive in one read on both sides.
    for n in 201..=250 {
        send(&mut ini, n, b"");
    }
    poll_until(&mut acc, &mut ini, &mut |_, _| {
        got.load(Ordering::Relaxed) == 250
    });
    // Larger than the 64 KiB read buffer, both ways.
    let text = vec![b'x'; 200_000];
    send(&mut ini, 251, &text);
    poll_until(&mut acc, &mut ini, &mut |_, _| {
        got.load(Ordering::Relaxed) == 251
    });
    assert_eq!(longest_text.load(Ordering::Relaxed), 200_000);
    let (a, i) = (&acc.sessions()[0], &ini.sessions()[0]);
    assert_eq!(a.next_target_seq, i.next_sender_seq);
    assert_eq!(i.next_target_seq, a.next_sender_seq);
    assert_eq!(i.next_sender_seq, 253, "Logon + 251 orders");
}
