//! `ha-candidate`: one node campaigning for a group's leader key, printing what it
//! sees — a demonstration of [`peregrine_ha::Leadership`], and the process the fault
//! tests freeze with SIGSTOP.
//!
//! ```text
//! ha-candidate --node a --group orders --endpoints 127.0.0.1:2379 [--ttl 2] [--for 60]
//! ```
//!
//! Every 10 ms it asks its gate whether it leads; while it does it prints a `write`
//! line, as a writer would write to its sessions' sockets. Lines (times are wall-clock
//! nanoseconds since the Unix epoch, deadlines converted from the monotonic clock):
//!
//! ```text
//! won <term> <at> <until>
//! write <term> <checked at> <until>
//! closed <term> <at>            the gate said "not leader" for the first time
//! lost <term> <at> <reason>
//! seen <node> <term> <at>
//! error <at> <message>
//! ```
use std::io::Write;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use peregrine_ha::{HaConfig, Leadership, LeadershipEvent, LossReason};

fn main() {
    if let Err(e) = run() {
        eprintln!("ha-candidate: {e}");
        std::process::exit(2);
    }
}

/// `instant` on the wall clock, in nanoseconds since the Unix epoch.
fn wall(instant: Instant) -> u128 {
    let (now, wall_now) = (Instant::now(), SystemTime::now());
    let wall_at = if instant >= now {
        wall_now + (instant - now)
    } else {
        wall_now - (now - instant)
    };
    wall_at
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let (mut node, mut group, mut endpoints) = (None, None, None);
    let (mut ttl, mut run_for) = (2u64, 60u64);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--node" => node = Some(value),
            "--group" => group = Some(value),
            "--endpoints" => endpoints = Some(value),
            "--ttl" => ttl = value.parse()?,
            "--for" => run_for = value.parse()?,
            _ => return Err(format!("unknown flag {flag}").into()),
        }
    }
    let mut config = HaConfig::new(
        node.ok_or("--node is required")?,
        group.ok_or("--group is required")?,
        endpoints
            .ok_or("--endpoints is required")?
            .split(',')
            .map(str::to_string),
    );
    config.lease_ttl = Duration::from_secs(ttl);
    let leadership = Leadership::start(config)?;
    let gate = leadership.gate();
    let end = Instant::now() + Duration::from_secs(run_for);
    let mut out = std::io::stdout().lock();
    let mut leading = None;
    while Instant::now() < end {
        let now = Instant::now();
        match gate.lease_at(now) {
            Some((term, until)) => {
                leading = Some(term);
                writeln!(out, "write {term} {} {}", wall(now), wall(until))?;
            }
            None => {
                if let Some(term) = leading.take() {
                    writeln!(out, "closed {term} {}", wall(now))?;
                }
            }
        }
        while let Some(event) = leadership.try_event() {
            match event {
                LeadershipEvent::Won { term, until, at } => {
                    writeln!(out, "won {term} {} {}", wall(at), wall(until))?
                }
                LeadershipEvent::Lost { term, reason, at } => {
                    let reason = match reason {
                        LossReason::Deadline => "deadline",
                        LossReason::LeaseExpired => "expired",
                        LossReason::KeyGone => "key-gone",
                        LossReason::Resigned => "resigned",
                        LossReason::Etcd => "etcd",
                    };
                    writeln!(out, "lost {term} {} {reason}", wall(at))?
                }
                LeadershipEvent::LeaderSeen { node, term, at } => {
                    writeln!(out, "seen {} {term} {}", node.escape_debug(), wall(at))?
                }
                LeadershipEvent::EtcdError { error, at } => {
                    writeln!(out, "error {} {}", wall(at), error.escape_debug())?
                }
                LeadershipEvent::NoLeader { .. } | LeadershipEvent::TtlRaised { .. } => {}
            }
        }
        out.flush()?;
        std::thread::sleep(Duration::from_millis(10));
    }
    leadership.stop();
    Ok(())
}
