//! `Engine::poll`, the pass for callers with their own loop: an initiator and an acceptor
//! driven by `poll` alone connect (reconnects are housekeeping), log on, and exchange
//! single messages, bursts (several messages per read) and a message larger than the
//! engine's read buffer (a read that fills the buffer is followed by another).

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use peregrine_codec::MessageView;
use peregrine_engine::fix::StoreKind;
use peregrine_engine::internal::BoxedFixSession;
use peregrine_engine::{Engine, Idle};
use peregrine_session::{AppReject, Application, Outbox, SessionId};

use crate::support;
use support::{acceptor_cfg, echo, engine_with, initiator_cfg, options, AppFactory, TW_ISLD};

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

/// An engine on this thread (busy-spin, memory stores, no message logs).
fn engine(text: &str, dir: &Path, app: &mut AppFactory<'_>) -> Engine<BoxedFixSession> {
    engine_with(
        text,
        &dir.join("x.cfg"),
        options(Idle::busy_spin(), false),
        StoreKind::Memory,
        app,
    )
}

fn send(ini: &mut Engine<BoxedFixSession>, id: usize, text: &[u8]) {
    let cl_ord_id = format!("ORD{id}");
    ini.with_session(TW_ISLD, |d, now| {
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
        &acceptor_cfg("SocketAcceptAddress=127.0.0.1"),
        dir.path(),
        &mut echo,
    );
    let port = acc.listener_addrs()[0].port();
    let got = Arc::new(AtomicUsize::new(0));
    let longest_text = Arc::new(AtomicUsize::new(0));
    let (g, l) = (got.clone(), longest_text.clone());
    let mut ini = engine(
        &initiator_cfg(port, "HeartBtInt=30"),
        dir.path(),
        &mut |_| {
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
