//! The gateway with its executor on another host over Aeron UDP: two network namespaces
//! joined by a veth pair (10.77.0.1/24 and 10.77.0.2/24), the executor in one
//! (`peregrine-topology executor`), the venue and the gateway in the other
//! (`peregrine-topology gateway`), each process with its own embedded media driver.
//!
//! Skips (prints why, passes) where namespaces cannot be made: not root, no `ip`, or
//! `ip netns add` refused (EPERM in a container, for instance). The namespaces (and with
//! them the veth pair) are deleted at the end, failure or not.

use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const EXECUTOR_ADDR: &str = "10.77.0.1";
const GATEWAY_ADDR: &str = "10.77.0.2";
const WARMUP: u64 = 200;
const COUNT: u64 = 2_000;

fn ip(args: &[&str]) -> std::io::Result<Output> {
    Command::new("ip").args(args).output()
}

/// Runs `ip args`, panicking with its stderr when it fails (after the set-up could start).
fn ip_ok(args: &[&str]) {
    let out = ip(args).unwrap_or_else(|e| panic!("ip {}: {e}", args.join(" ")));
    assert!(
        out.status.success(),
        "ip {} failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Deletes what the test made, whatever happened.
struct Cleanup {
    namespaces: Vec<String>,
    link: String,
    children: Vec<Child>,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
        // Only left in the root namespace if the test failed before moving it.
        let _ = ip(&["link", "del", &self.link]);
        for ns in &self.namespaces {
            let _ = ip(&["netns", "del", ns]);
        }
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Waits for `child` at most `limit`; kills it when the time is up.
fn wait_output(mut child: Child, limit: Duration) -> Output {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                break;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => panic!("waiting for a child: {e}"),
        }
    }
    child.wait_with_output().expect("child output")
}

fn text(o: &Output) -> String {
    format!(
        "status {}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn orders_cross_network_namespaces_over_aeron_udp() {
    if !is_root() {
        println!("SKIPPED udp_netns: not root, network namespaces cannot be made");
        return;
    }
    if ip(&["-V"]).is_err() {
        println!("SKIPPED udp_netns: no `ip` command (iproute2)");
        return;
    }
    let tag = std::process::id() % 100_000;
    let ns_ex = format!("pg-ex-{tag}");
    let ns_gw = format!("pg-gw-{tag}");
    let (veth_ex, veth_gw) = (format!("pgx{tag}"), format!("pgg{tag}"));
    let mut cleanup = Cleanup {
        namespaces: vec![],
        link: veth_ex.clone(),
        children: vec![],
    };
    match ip(&["netns", "add", &ns_ex]) {
        Ok(o) if o.status.success() => cleanup.namespaces.push(ns_ex.clone()),
        Ok(o) => {
            println!(
                "SKIPPED udp_netns: `ip netns add` refused: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            );
            return;
        }
        Err(e) => {
            println!("SKIPPED udp_netns: cannot run `ip netns add`: {e}");
            return;
        }
    }
    ip_ok(&["netns", "add", &ns_gw]);
    cleanup.namespaces.push(ns_gw.clone());
    ip_ok(&[
        "link", "add", &veth_ex, "type", "veth", "peer", "name", &veth_gw,
    ]);
    ip_ok(&["link", "set", &veth_ex, "netns", &ns_ex]);
    ip_ok(&["link", "set", &veth_gw, "netns", &ns_gw]);
    for (ns, dev, addr) in [
        (&ns_ex, &veth_ex, EXECUTOR_ADDR),
        (&ns_gw, &veth_gw, GATEWAY_ADDR),
    ] {
        ip_ok(&["-n", ns, "addr", "add", &format!("{addr}/24"), "dev", dev]);
        ip_ok(&["-n", ns, "link", "set", dev, "up"]);
        ip_ok(&["-n", ns, "link", "set", "lo", "up"]);
    }

    let bin = env!("CARGO_BIN_EXE_peregrine-topology");
    let orders = format!("{EXECUTOR_ADDR}:40123");
    let reports = format!("{GATEWAY_ADDR}:40124");
    let total = (WARMUP + COUNT).to_string();
    let executor = Command::new("ip")
        .args(["netns", "exec", &ns_ex, bin, "executor"])
        .args(["--orders", &orders, "--reports", &reports])
        .args(["--limit", &total, "--timeout", "30"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the executor");
    cleanup.children.push(executor);
    let gateway = Command::new("ip")
        .args(["netns", "exec", &ns_gw, bin, "gateway"])
        .args(["--orders", &orders, "--reports", &reports])
        .args([
            "--warmup",
            &WARMUP.to_string(),
            "--count",
            &COUNT.to_string(),
        ])
        .args(["--timeout", "30"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the venue and gateway");
    let gw = wait_output(gateway, Duration::from_secs(90));
    let ex = wait_output(
        cleanup.children.pop().expect("executor"),
        Duration::from_secs(30),
    );
    assert!(gw.status.success(), "gateway: {}", text(&gw));
    assert!(ex.status.success(), "executor: {}", text(&ex));
    let gw_out = String::from_utf8_lossy(&gw.stdout);
    assert!(
        gw_out.contains(&format!("{total} fills (0 wrong), {COUNT} measured")),
        "gateway: {}",
        text(&gw)
    );
    let ex_out = String::from_utf8_lossy(&ex.stdout);
    assert!(
        ex_out.contains(&format!(
            "filled {total} orders (0 undecodable, 0 unpublished)"
        )),
        "executor: {}",
        text(&ex)
    );
    println!("udp_netns: {}", gw_out.trim());
    drop(cleanup);
    let left = ip(&["netns", "list"]).expect("ip netns list");
    let left = String::from_utf8_lossy(&left.stdout);
    assert!(
        !left.contains(&ns_ex) && !left.contains(&ns_gw),
        "namespaces left behind: {left}"
    );
}
