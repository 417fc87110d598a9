//! `peregrine run`'s demo on a few orders: it writes the JSON results and the plot.

use peregrine_topology::demo::{self, DemoConfig};

#[test]
fn demo_writes_results_and_plot() {
    let dir = std::env::temp_dir().join(format!("peregrine-demo-{}", std::process::id()));
    let out = dir.join("topology.json");
    let cfg = DemoConfig {
        warmup: 50,
        count: 200,
        out: out.clone(),
        ..DemoConfig::default()
    };
    demo::run(&cfg).expect("the demo runs");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("results written")).unwrap();
    assert_eq!(json["bench"], "topology");
    assert_eq!(json["config"]["count"], 200);
    assert_eq!(json["config"]["warmup"], 50);
    assert_eq!(
        json["config"]["steps_us"].as_array().map(Vec::len),
        Some(10)
    );
    assert_eq!(json["results"][0]["engine"], "peregrine");
    assert_eq!(json["results"][0]["case"], "round_trip");
    assert_eq!(json["runs"].as_array().map(Vec::len), Some(1));
    let svg = std::fs::read_to_string(dir.join("topology.svg")).expect("plot written");
    assert!(svg.starts_with("<svg") && svg.contains("Peregrine trading topology round trip"));
    let _ = std::fs::remove_dir_all(&dir);
}
