//! Fuzzes the session through the simulator: the fuzzer's bytes become the
//! simulator's actions (deliveries, sends, drops, crashes, clock jumps,
//! garbling…), run against two real sessions with every invariant checked.
//! A panic or a broken invariant is a finding.
#![no_main]

use libfuzzer_sys::fuzz_target;
use peregrine_sim::config::SimConfig;
use peregrine_sim::faults::from_bytes;
use peregrine_sim::runner::run_actions;

fuzz_target!(|data: &[u8]| {
    let seed = data.first().copied().unwrap_or(0) as u64;
    let cfg = SimConfig::from_seed(seed);
    let actions = from_bytes(data.get(1..).unwrap_or(&[]));
    if let Some(v) = run_actions(&cfg, &actions, false).violation {
        panic!("{v}");
    }
});
