//! `peregrine-aeron-driver`: a standalone Aeron media driver for multi-process setups. A
//! gateway and an executor in separate processes connect to it with
//! `ClientConfig::with_dir(DIR)` (or `ping_pong --aeron-dir DIR`).
//!
//! ```text
//! peregrine-aeron-driver /dev/shm/peregrine-aeron [--seconds N]
//! ```
//!
//! Runs until killed, or for `--seconds N`. The directory is kept across restarts, so a
//! stale one left by a killed driver is reused after Aeron's driver timeout.

#![forbid(unsafe_code)]

use peregrine_aeron::{DriverConfig, MediaDriver};
use std::time::Duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .ok_or("usage: peregrine-aeron-driver DIR [--seconds N]")?;
    let seconds: Option<u64> = match (args.next().as_deref(), args.next()) {
        (Some("--seconds"), Some(n)) => Some(n.parse()?),
        (None, _) => None,
        _ => return Err("usage: peregrine-aeron-driver DIR [--seconds N]".into()),
    };
    let driver = MediaDriver::launch(&DriverConfig {
        dir: Some(dir),
        ..DriverConfig::default()
    })?;
    println!("media driver running in {}", driver.dir());
    match seconds {
        Some(n) => std::thread::sleep(Duration::from_secs(n)),
        None => loop {
            std::thread::sleep(Duration::from_secs(3600));
        },
    }
    Ok(())
}
