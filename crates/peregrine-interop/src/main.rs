//! `interop-peer --config FILE --out FILE`: Peregrine's side of the interop suite.
//!
//! It runs the sessions of a QuickFIX `.cfg` (acceptor or initiator, FIX.4.4 or
//! FIXT.1.1, the file store when `FileStorePath` is set, TLS when `SocketUseSSL=Y`)
//! and answers every NewOrderSingle (35=D) with one ExecutionReport (35=8) that
//! carries the order's ClOrdID(11); it appends `<ClOrdID> <PossDupFlag>` to `--out`
//! for every order delivered, flushed at once (see `peregrine_interop::deliveries`).
//! The report is stored with the order's sequence number in one write, so a crash
//! answers no order twice: an order delivered but not stored comes again by the
//! counterparty's resend, flagged PossDupFlag=Y, and is answered then. It stops on
//! SIGTERM or SIGINT.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use peregrine_engine::codec::MessageView;
use peregrine_engine::session::{AppReject, Application, Outbox, SessionId};
use peregrine_engine::EngineBuilder;

/// ClOrdID(11).
const CL_ORD_ID: u32 = 11;
/// PossDupFlag(43).
const POSS_DUP_FLAG: u32 = 43;

/// Answers orders and records their delivery.
struct Answering {
    out: BufWriter<File>,
}

impl Application for Answering {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        if msg.msg_type() != b"D" {
            return Err(AppReject::business(3, "only NewOrderSingle is answered"));
        }
        let id = msg
            .get(CL_ORD_ID)
            .filter(|id| !id.is_empty() && id.iter().all(u8::is_ascii_alphanumeric))
            .ok_or_else(|| AppReject::business(0, "ClOrdID(11) missing or not alphanumeric"))?;
        let poss_dup = msg.get(POSS_DUP_FLAG) == Some(&b"Y"[..]);
        // Recorded before the answer: a crash in between delivers the order again.
        let recorded = self
            .out
            .write_all(id)
            .and_then(|()| self.out.write_all(if poss_dup { b" Y\n" } else { b" N\n" }))
            .and_then(|()| self.out.flush());
        if let Err(e) = recorded {
            eprintln!("interop-peer: cannot record a delivery: {e}");
            std::process::exit(2);
        }
        // One report per order: its ids are the order's.
        out.send(b"8", |m| {
            m.str(37, id)
                .str(17, id)
                .str(150, b"0")
                .str(39, b"0")
                .str(CL_ORD_ID, id)
                .str(55, b"PGRN")
                .str(54, b"1")
                .str(151, b"1")
                .str(14, b"0")
                .str(6, b"0");
        })
        .map_err(|e| AppReject::business(0, format!("cannot answer: {e}")))?;
        Ok(())
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("interop-peer: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (mut config, mut out) = (None::<PathBuf>, None::<PathBuf>);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--config" => config = args.next().map(Into::into),
            "--out" => out = args.next().map(Into::into),
            other => {
                return Err(format!(
                    "unknown argument {other:?}; usage: interop-peer --config FILE --out FILE"
                )
                .into())
            }
        }
    }
    let (Some(config), Some(out)) = (config, out) else {
        return Err("usage: interop-peer --config FILE --out FILE".into());
    };
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, stop.clone())?;
    }
    let file = File::options().create(true).append(true).open(&out)?;
    let app = std::sync::Mutex::new(Some(Answering {
        out: BufWriter::new(file),
    }));
    let engine = EngineBuilder::load(&config)?
        .stop_flag(stop.clone())
        .start(move |_session| {
            app.lock()
                .ok()
                .and_then(|mut a| a.take())
                .expect("one session per interop peer")
        })?;
    println!("ready");
    while !stop.load(Ordering::Relaxed) && !engine.is_finished() {
        std::thread::sleep(Duration::from_millis(20));
    }
    engine.stop()?;
    Ok(())
}
