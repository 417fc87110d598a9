//! The external-driver option: a media driver in another process (the
//! `peregrine-aeron-driver` binary), reached through its directory (`aeron.dir`).

mod common;

use common::*;
use peregrine_aeron::messages::*;
use peregrine_aeron::{AeronClient, Backoff, Channel, ClientConfig, IdleStrategy};
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// Kills the driver process and removes its directory, whatever the test's outcome.
struct DriverProcess {
    child: Child,
    dir: String,
}

impl Drop for DriverProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn clients_reach_a_driver_in_another_process() {
    let dir = format!("/dev/shm/peregrine-aeron-ext-{}", std::process::id());
    let _ = std::fs::remove_dir_all(&dir);
    let child = Command::new(env!("CARGO_BIN_EXE_peregrine-aeron-driver"))
        .args([dir.as_str(), "--seconds", "120"])
        .spawn()
        .expect("start peregrine-aeron-driver");
    let driver = DriverProcess {
        child,
        dir: dir.clone(),
    };

    let start = Instant::now();
    while !Path::new(&driver.dir).join("cnc.dat").exists() {
        assert!(
            start.elapsed() < PATIENCE,
            "driver process never created cnc.dat"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // The CnC file appears before the driver has finished starting; connecting retries
    // until Aeron accepts it.
    let client = loop {
        match AeronClient::connect(&ClientConfig::with_dir(dir.clone())) {
            Ok(c) => break c,
            Err(e) => {
                assert!(start.elapsed() < PATIENCE, "cannot connect: {e}");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    };
    assert_eq!(client.dir(), dir);

    let mut sub = client.subscriber(&Channel::ipc(), 21).unwrap();
    let mut publ = client.publisher(&Channel::ipc(), 21).unwrap();
    publ.wait_connected(&mut Backoff::default(), PATIENCE)
        .unwrap();
    for n in 0..50 {
        send(&mut publ, &order(n)).unwrap();
    }
    let mut next = 0;
    let mut idle = Backoff::default();
    while next < 50 && start.elapsed() < PATIENCE {
        let work = sub
            .poll(
                |b| {
                    assert_eq!(NewOrder::decode(b).unwrap(), order(next));
                    next += 1;
                },
                10,
            )
            .unwrap();
        idle.idle(work);
    }
    assert_eq!(next, 50);
    assert_eq!(client.errors(), 0);
    drop((publ, sub, client));
    drop(driver);
}
