//! Aeron IPC round-trip latency with Peregrine's SBE messages.
//!
//! "Ping" (the gateway side) publishes a `NewOrder`, "pong" (the executor side, another
//! thread with its own Aeron client) decodes it and answers with a filled
//! `ExecutionReport`, which ping decodes. One message in flight; each round trip is timed
//! with a monotonic clock, and the distribution is printed.
//!
//! ```text
//! cargo run --release -p peregrine-aeron --example ping_pong -- \
//!     [--count 100000] [--warmup 10000] [--idle busy-spin|spin-yield|backoff] \
//!     [--udp 127.0.0.1:40123,127.0.0.1:40124] [--driver-idle backoff|yield|busy-spin]
//!     [--aeron-dir DIR [--role both|ping|pong]]
//! ```
//!
//! Without `--aeron-dir` a media driver is embedded in the process.

use peregrine_aeron::messages::*;
use peregrine_aeron::{
    AeronClient, Channel, ClientConfig, DriverConfig, DriverIdle, Idle, IdleStrategy, Publisher,
    Subscriber,
};
use std::error::Error;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const ORDERS: i32 = 2001;
const REPORTS: i32 = 2002;
const PATIENCE: Duration = Duration::from_secs(10);

struct Args {
    count: usize,
    warmup: usize,
    idle: String,
    udp: Option<(SocketAddr, SocketAddr)>,
    dir: Option<String>,
    role: Role,
    driver_idle: DriverIdle,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Ping and pong threads in this process.
    Both,
    /// Only ping: pong runs in another process on the same driver (`--aeron-dir`).
    Ping,
    /// Only pong, until killed.
    Pong,
}

fn parse_args() -> Result<Args, Box<dyn Error>> {
    let mut args = Args {
        count: 100_000,
        warmup: 10_000,
        idle: "busy-spin".into(),
        udp: None,
        dir: None,
        role: Role::Both,
        driver_idle: DriverIdle::Backoff,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--count" => args.count = value()?.parse()?,
            "--warmup" => args.warmup = value()?.parse()?,
            "--idle" => args.idle = value()?,
            "--aeron-dir" => args.dir = Some(value()?),
            "--driver-idle" => {
                args.driver_idle = match value()?.as_str() {
                    "backoff" => DriverIdle::Backoff,
                    "yield" => DriverIdle::Yielding,
                    "busy-spin" => DriverIdle::BusySpin,
                    _ => return Err("--driver-idle: backoff, yield or busy-spin".into()),
                }
            }
            "--role" => {
                args.role = match value()?.as_str() {
                    "both" => Role::Both,
                    "ping" => Role::Ping,
                    "pong" => Role::Pong,
                    _ => return Err("--role: both, ping or pong".into()),
                }
            }
            "--udp" => {
                let v = value()?;
                let (a, b) = v
                    .split_once(',')
                    .ok_or("--udp wants ORDERS_ADDR,REPORTS_ADDR")?;
                args.udp = Some((a.parse()?, b.parse()?));
            }
            "-h" | "--help" => {
                println!(
                    "ping_pong [--count N] [--warmup N] [--idle busy-spin|spin-yield|backoff] [--udp A,B] \
                     [--driver-idle backoff|yield|busy-spin] [--aeron-dir DIR [--role both|ping|pong]]"
                );
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let idle: Idle = args.idle.parse().map_err(|e| format!("--idle: {e}"))?;
    if idle.is_block() {
        return Err("--idle: block does not fit a loop that polls Aeron".into());
    }
    if args.role != Role::Both && args.dir.is_none() {
        return Err("--role ping / pong needs --aeron-dir (a driver both processes share)".into());
    }
    Ok(args)
}

fn channels(args: &Args) -> (Channel, Channel) {
    match args.udp {
        Some((a, b)) => (Channel::udp(a), Channel::udp(b)),
        None => (Channel::ipc(), Channel::ipc()),
    }
}

fn template() -> NewOrder {
    NewOrder {
        session_id: 1,
        transact_time: 0,
        price: Decimal64::new(15025, -2),
        order_qty: Decimal64::new(100, 0),
        cl_ord_id: pack(b"PING-0000000001").unwrap_or_default(),
        symbol: pack(b"MSFT").unwrap_or_default(),
        account: [0; ACCOUNT_LEN],
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Day,
    }
}

fn pong(
    dir: String,
    orders: Channel,
    reports: Channel,
    idle: Idle,
    running: Arc<AtomicBool>,
) -> Result<(), String> {
    let client = AeronClient::connect(&ClientConfig::with_dir(dir)).map_err(|e| e.to_string())?;
    let mut sub = client
        .subscriber(&orders, ORDERS)
        .map_err(|e| e.to_string())?;
    let mut publ = client
        .publisher(&reports, REPORTS)
        .map_err(|e| e.to_string())?;
    let mut idle_loop = idle;
    let mut exec_id = 0u64;
    let mut failure = None;
    while running.load(Ordering::Relaxed) && failure.is_none() {
        let work = sub
            .poll(
                |bytes| {
                    let Ok(o) = NewOrder::decode(bytes) else {
                        failure = Some("undecodable order".to_string());
                        return;
                    };
                    exec_id += 1;
                    let report = ExecutionReport::full_fill(&o, exec_id, exec_id);
                    if let Err(e) = publ.publish_retry(&report, &mut idle.clone(), PATIENCE) {
                        failure = Some(e.to_string());
                    }
                },
                10,
            )
            .map_err(|e| e.to_string())?;
        idle_loop.idle(work);
    }
    failure.map_or(Ok(()), Err)
}

fn round_trip(
    publ: &mut Publisher,
    sub: &mut Subscriber,
    order: &mut NewOrder,
    idle: &mut Idle,
) -> Result<Duration, Box<dyn Error>> {
    order.session_id += 1;
    let start = Instant::now();
    publ.publish_retry(order, idle, PATIENCE)?;
    let mut answered = false;
    let want = order.session_id;
    while !answered {
        let work = sub.poll(
            |bytes| {
                if let Ok(r) = ExecutionReport::decode(bytes) {
                    answered = r.session_id == want;
                }
            },
            10,
        )?;
        idle.idle(work);
        if !answered && start.elapsed() > PATIENCE {
            return Err("no execution report within 10 s".into());
        }
    }
    Ok(start.elapsed())
}

fn main() -> Result<(), Box<dyn Error>> {
    let args = parse_args()?;
    let idle: Idle = args.idle.parse()?;
    let (orders_ch, reports_ch) = channels(&args);

    let ping = match &args.dir {
        Some(dir) => AeronClient::connect(&ClientConfig::with_dir(dir.clone()))?,
        None => AeronClient::embedded(&DriverConfig {
            idle: args.driver_idle,
            ..DriverConfig::default()
        })?,
    };
    let running = Arc::new(AtomicBool::new(true));
    if args.role == Role::Pong {
        println!("pong: answering orders on {} (until killed)", ping.dir());
        return Ok(pong(
            ping.dir().to_string(),
            orders_ch,
            reports_ch,
            idle,
            running,
        )?);
    }
    let pong_thread = (args.role == Role::Both).then(|| {
        let (dir, o, r, run) = (
            ping.dir().to_string(),
            orders_ch.clone(),
            reports_ch.clone(),
            Arc::clone(&running),
        );
        std::thread::Builder::new()
            .name("pong".into())
            .spawn(move || pong(dir, o, r, idle, run))
    });

    let mut sub = ping.subscriber(&reports_ch, REPORTS)?;
    let mut publ = ping.publisher(&orders_ch, ORDERS)?;
    publ.wait_connected(&mut idle.clone(), PATIENCE)?;
    sub.wait_connected(&mut idle.clone(), PATIENCE)?;

    let mut order = template();
    let mut ping_idle = idle;
    for _ in 0..args.warmup {
        round_trip(&mut publ, &mut sub, &mut order, &mut ping_idle)?;
    }
    let mut samples: Vec<u64> = Vec::with_capacity(args.count);
    let wall = Instant::now();
    for _ in 0..args.count {
        let rtt = round_trip(&mut publ, &mut sub, &mut order, &mut ping_idle)?;
        samples.push(rtt.as_nanos() as u64);
    }
    let wall = wall.elapsed();
    running.store(false, Ordering::Relaxed);
    if let Some(t) = pong_thread {
        t?.join().map_err(|_| "pong panicked")??;
    }

    samples.sort_unstable();
    let pct = |p: f64| {
        let i = ((samples.len() as f64 * p).ceil() as usize).clamp(1, samples.len()) - 1;
        samples[i] as f64 / 1000.0
    };
    let mean = samples.iter().sum::<u64>() as f64 / samples.len().max(1) as f64 / 1000.0;
    let transport = if args.udp.is_some() { "UDP" } else { "IPC" };
    println!(
        "Aeron {transport} ping-pong, NewOrder ({} B) -> ExecutionReport ({} B), idle {}, {} round trips after {} warm-up",
        template().encoded_len(),
        ExecutionReport::full_fill(&template(), 1, 1).encoded_len(),
        args.idle,
        samples.len(),
        args.warmup
    );
    println!(
        "RTT µs: min {:.2}  p50 {:.2}  p90 {:.2}  p99 {:.2}  p99.9 {:.2}  max {:.2}  mean {:.2}",
        pct(0.0),
        pct(0.50),
        pct(0.90),
        pct(0.99),
        pct(0.999),
        pct(1.0),
        mean
    );
    println!(
        "throughput {:.0} round trips/s",
        samples.len() as f64 / wall.as_secs_f64()
    );
    let s = publ.stats();
    println!(
        "publisher: {} messages ({} claimed, {} offered), refusals: {} back-pressured, {} not connected, {} admin",
        s.messages, s.claimed, s.offered, s.back_pressured, s.not_connected, s.admin_action
    );
    Ok(())
}
