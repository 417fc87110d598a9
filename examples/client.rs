//! A small client: an initiator that sends orders produced on another thread
//! and checks that each is answered exactly once, whatever happens to the
//! venue in between (crash, restart: the FIX resend recovers the rest).
//!
//! ```text
//! cargo run -p peregrine-examples --example client -- examples/client.cfg --orders 1000
//! ```
//!
//! It prints `answered N` every 100 answers and exits with status 0 once
//! every order is answered exactly once, 1 if not within `--timeout` seconds.

use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use peregrine_engine::codec::MessageView;
use peregrine_engine::session::{AppReject, Application, Outbox, SessionId};
use peregrine_engine::{EngineBuilder, SubmitError};

const SESSION: &str = "FIX.4.4:CLIENT->VENUE";

/// Counts the answers to each order (`ORD-<n>`).
struct Client {
    answers: Vec<u32>,
    /// Reports the venue sent again (PossDupFlag=Y) for orders already answered.
    resends_recognised: u64,
    /// Orders answered at least once, for the main thread to watch.
    answered: Arc<AtomicUsize>,
}

impl Application for Client {
    fn from_app(
        &mut self,
        msg: &MessageView,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        if msg.msg_type() != b"8" {
            return Err(AppReject::UnsupportedMessageType);
        }
        let order = msg
            .get(11)
            .and_then(|id| id.strip_prefix(b"ORD-"))
            .and_then(|n| std::str::from_utf8(n).ok()?.parse::<usize>().ok())
            .filter(|&n| n < self.answers.len())
            .ok_or_else(|| AppReject::business(0, "unknown ClOrdID"))?;
        let poss_dup = msg.get(43) == Some(b"Y");
        if poss_dup && self.answers[order] > 0 {
            self.resends_recognised += 1;
            return Ok(());
        }
        self.answers[order] += 1;
        if self.answers[order] == 1 {
            self.answered.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }
}

struct Options {
    cfg: String,
    orders: usize,
    pace: Duration,
    timeout: Duration,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        cfg: "examples/client.cfg".into(),
        orders: 1000,
        pace: Duration::from_micros(1000),
        timeout: Duration::from_secs(120),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> Result<u64, String> {
            let v = args.next().ok_or(format!("{name} needs a value"))?;
            v.parse()
                .map_err(|_| format!("{name}: {v:?} is not a number"))
        };
        match arg.as_str() {
            "--orders" => o.orders = value("--orders")? as usize,
            "--pace-us" => o.pace = Duration::from_micros(value("--pace-us")?),
            "--timeout" => o.timeout = Duration::from_secs(value("--timeout")?),
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}")),
            _ => o.cfg = arg,
        }
    }
    Ok(o)
}

fn main() -> Result<ExitCode, Box<dyn std::error::Error>> {
    let o = options()?;
    let answered = Arc::new(AtomicUsize::new(0));
    let (orders, counter) = (o.orders, answered.clone());
    let client = EngineBuilder::load(&o.cfg)?.start(move |_session| Client {
        answers: vec![0; orders],
        resends_recognised: 0,
        answered: counter.clone(),
    })?;
    if !client.wait_logged_on(Duration::from_secs(30)) {
        return Err("not logged on within 30 s".into());
    }

    // Orders come from another thread, through the engine's Sender.
    let sender = client.sender();
    let session = client.session_ref(SESSION).ok_or("no session")?;
    let pace = o.pace;
    let producer = std::thread::spawn(move || -> Result<(), SubmitError> {
        for n in 0..orders {
            let cl_ord_id = format!("ORD-{n}");
            loop {
                let sent = sender.send(session, b"D", |order| {
                    order
                        .str(11, cl_ord_id.as_bytes())
                        .char(21, b'1') // HandlInst: automated, private
                        .uint(38, 100) // OrderQty
                        .char(40, b'2') // OrdType: limit
                        .str(44, b"101.25") // Price
                        .char(54, b'1') // Side: buy
                        .str(55, b"PGRN")
                        .str(60, b"20261124-12:00:00.000"); // TransactTime
                });
                match sent {
                    Err(SubmitError::QueueFull) => std::thread::sleep(Duration::from_millis(1)),
                    other => break other?,
                }
            }
            std::thread::sleep(pace);
        }
        Ok(())
    });

    let deadline = Instant::now() + o.timeout;
    let mut reported = 0;
    while answered.load(Ordering::Relaxed) < o.orders && Instant::now() < deadline {
        let now = answered.load(Ordering::Relaxed);
        if now / 100 > reported / 100 {
            println!("answered {now}");
        }
        reported = now;
        std::thread::sleep(Duration::from_millis(5));
    }
    producer.join().expect("producer")?;

    // The engine gives its application back, typed: no shared state needed.
    let engine = client.stop()?;
    let app = engine.application(SESSION).ok_or("no application")?;
    let once = app.answers.iter().filter(|&&n| n == 1).count();
    let missing = app.answers.iter().filter(|&&n| n == 0).count();
    let twice = app.answers.iter().filter(|&&n| n > 1).count();
    println!(
        "orders {}: answered once {once}, not answered {missing}, answered more than once {twice}, \
         PossDup resends recognised {}",
        o.orders, app.resends_recognised
    );
    Ok(if once == o.orders {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
