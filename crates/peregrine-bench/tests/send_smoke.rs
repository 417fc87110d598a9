//! `peregrine bench send --smoke` as a test: the shape of the results (every case, every
//! measured message delivered, allocations counted) and of the JSON. No performance
//! figure is checked here; the run itself fails if a case allocates in steady state.
//!
//! One test in this binary: the allocation counter is process-wide.

use peregrine_bench::alloc::CountingAllocator;
use peregrine_bench::send::{run, SendBenchConfig};
use peregrine_bench::Options;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

#[test]
fn the_smoke_run_delivers_every_message_and_counts_allocations() {
    let out = std::env::temp_dir().join(format!(
        "peregrine-bench-send-smoke-{}.json",
        std::process::id()
    ));
    let mut cfg = SendBenchConfig::default();
    cfg.apply(&Options {
        smoke: true,
        out: out.to_str(),
        ..Options::default()
    });
    let results = run(&cfg).expect("the smoke run");

    // Each idle strategy: one latency case and one throughput case per producer count.
    let mut names: Vec<&str> = results.cases.iter().map(|c| c.case.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "throughput_1p_block",
            "throughput_1p_spin",
            "throughput_4p_block",
            "throughput_4p_spin",
            "wire_latency_block",
            "wire_latency_spin",
        ]
    );
    for c in &results.cases {
        let expected = if c.case.starts_with("wire_latency") {
            cfg.common.iters
        } else {
            cfg.messages
        };
        assert_eq!(c.sent, expected, "{}", c.case);
        assert_eq!(c.delivered, c.sent, "{}: every message delivered", c.case);
        assert!(c.warmup > 0, "{}: warmed up", c.case);
        assert!(c.seconds > 0.0 && c.per_second > 0.0, "{}", c.case);
        assert!(
            c.allocations.is_some(),
            "{}: allocations counted (the counting allocator is installed)",
            c.case
        );
    }
    // Latency and the send call per idle strategy; one record per throughput case.
    assert_eq!(results.records.len(), 2 * 2 + 4);
    for case in ["send_call_spin", "send_call_block", "wire_latency_spin"] {
        let a = results
            .aggregates
            .iter()
            .find(|a| a.case == case)
            .unwrap_or_else(|| panic!("no {case}"));
        assert!(a.stats.min <= a.stats.p50 && a.stats.p50 <= a.stats.max);
        assert!(a.allocs_per_op.is_some());
    }

    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("the JSON")).unwrap();
    let _ = std::fs::remove_file(&out);
    assert_eq!(json["bench"], "send");
    assert_eq!(json["config"]["cases"].as_array().map(Vec::len), Some(6));
    assert_eq!(json["results"].as_array().map(Vec::len), Some(8));
    assert!(json["config"]["counterparty"]
        .as_str()
        .is_some_and(|c| c.contains("plain socket reader")));
}
