//! Round trips through the whole stack over loopback TCP: an initiator sends
//! a NewOrderSingle, an acceptor running the echo application sends it back.
//! Both engines are turned by this one thread (busy-spin), so each figure is
//! the full cost of two sessions, two reactors and the kernel's loopback.
//!
//! ```text
//! cargo run --release -p peregrine-engine --example roundtrip -- [COUNT]
//! ```

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use peregrine_codec::MessageView;
use peregrine_engine::fix::StoreKind;
use peregrine_engine::{AppEngine, EngineBuilder, EngineOptions, Idle, SessionContext};
use peregrine_session::{AppReject, Application, EchoApp, Outbox, SessionId};

struct Count(Arc<AtomicUsize>);

impl Application for Count {
    fn from_app(
        &mut self,
        _msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        self.0.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

/// An engine on this thread, turned by the caller (no logs: they would be
/// measured too).
fn engine<A: Application + 'static>(
    text: &str,
    app: impl FnMut(&SessionContext<'_>) -> A + Send + 'static,
) -> Result<AppEngine<A>, Box<dyn std::error::Error>> {
    let options = EngineOptions {
        message_logs: false,
        ..EngineOptions::default()
    };
    Ok(EngineBuilder::parse(text, "roundtrip.cfg")?
        .options(options)
        .idle(Idle::busy_spin())
        .store(StoreKind::Memory)
        .build(app)?)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let count: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(100_000);
    let mut acc = engine(
        "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\nUseDataDictionary=N\n\
         [SESSION]\nBeginString=FIX.4.4\n",
        |_| EchoApp::new(None),
    )?;
    let port = acc.listener_addrs()[0].port();
    let got = Arc::new(AtomicUsize::new(0));
    let counter = got.clone();
    let mut ini = engine(
        &format!(
            "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
             SenderCompID=TW\nTargetCompID=ISLD\nHeartBtInt=30\nUseDataDictionary=N\n\
             [SESSION]\nBeginString=FIX.4.4\n"
        ),
        move |_| Count(counter.clone()),
    )?;
    while !(acc.sessions()[0].logged_on && ini.sessions()[0].logged_on) {
        acc.turn()?;
        ini.turn()?;
    }
    let warmup = count / 10;
    let mut rtts = Vec::with_capacity(count);
    let started = Instant::now();
    for i in 0..warmup + count {
        let before = got.load(Ordering::Relaxed);
        let t = Instant::now();
        ini.with_session("FIX.4.4:TW->ISLD", |d, now| {
            d.send(now, b"D", |enc| {
                enc.str(11, b"ORDER-1")
                    .str(21, b"1")
                    .str(38, b"100")
                    .str(40, b"2")
                    .str(44, b"101.25")
                    .str(54, b"1")
                    .str(55, b"PEREGRINE")
                    .str(60, b"20260101-00:00:00.000");
            })
        })
        .ok_or("no session")??;
        while got.load(Ordering::Relaxed) == before {
            acc.turn()?;
            ini.turn()?;
        }
        if i >= warmup {
            rtts.push(t.elapsed().as_nanos() as u64);
        }
    }
    let total = started.elapsed();
    rtts.sort_unstable();
    let pct = |p: f64| rtts[((rtts.len() as f64 * p) as usize).min(rtts.len() - 1)] as f64 / 1000.0;
    println!(
        "{count} round trips: p50 {:.1} us, p99 {:.1} us, p99.9 {:.1} us, max {:.1} us; {:.0} round trips/s",
        pct(0.50),
        pct(0.99),
        pct(0.999),
        *rtts.last().unwrap_or(&0) as f64 / 1000.0,
        (warmup + count) as f64 / total.as_secs_f64()
    );
    Ok(())
}
