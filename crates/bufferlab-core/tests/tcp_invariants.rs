//! Whole-scenario invariants with TCP: every packet of both directions is received, lost or
//! still in the network; the same seed gives the same report.

use bufferlab_core::api::{run_json, RunRequest};
use bufferlab_core::scenario::{build::build, parse};

const SCENARIO: &str = r#"
name = "tcp-mix"
duration = "30s"
seed = 7
[topology]
kind = "dumbbell"
pairs = 4
sender_delays = ["1ms", "5ms", "10ms", "20ms"]
[links.access]
rate = "100Mbps"
delay = "1ms"
[links.bottleneck]
rate = "5Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = "15p" }
loss = { kind = "bernoulli", rate = 0.01 }
reverse_loss = { kind = "bernoulli", rate = 0.01 }
[[flows]]
name = "reno"
src = "s0"
dst = "d0"
app = { kind = "bulk" }
tcp = { cc = "reno", window = "100p" }
[[flows]]
name = "cubic-sack"
src = "s1"
dst = "d1"
start = "1s"
app = { kind = "bulk" }
tcp = { preset = "linux" }
[[flows]]
name = "web"
src = "s2"
dst = "d2"
app = { kind = "web", object_size = { kind = "pareto", mean = "20KB", shape = 1.5 }, think_time = { kind = "exponential", mean = "200ms" } }
tcp = { preset = "ns3" }
[[flows]]
name = "file"
src = "s3"
dst = "d3"
start = "2s"
app = { kind = "transfer", size = "500KB" }
tcp = { cc = "vegas", delayed_ack = true, handshake = true, ecn = true }
[monitor]
cwnd_interval = "100ms"
cwnd_flows = ["reno", "file"]
"#;

// ---- conservation: sent = received + lost + in flight, both directions ----
#[test]
fn every_packet_is_received_lost_or_in_flight() {
    for end in ["3s", "10s", "30s"] {
        let s = parse(SCENARIO, &[format!("duration={end}")]).unwrap();
        let mut sim = build(&s, s.seed).unwrap();
        sim.run();
        let mut in_flight = 0u64;
        let mut ack_losses = 0;
        for f in &sim.flows {
            let st = &f.stats;
            assert!(st.tx_packets >= st.rx_packets + st.lost_packets);
            assert!(st.reverse_tx_packets >= st.reverse_rx_packets + st.reverse_lost_packets);
            in_flight += st.tx_packets - st.rx_packets - st.lost_packets;
            in_flight += st.reverse_tx_packets - st.reverse_rx_packets - st.reverse_lost_packets;
            ack_losses += st.reverse_lost_packets;
        }
        assert!(ack_losses > 0, "ACKs are lost too");
        assert_eq!(in_flight, sim.packets_in_network(), "at {end}");
    }
}

// ---- same seed, same results ----
#[test]
fn same_seed_same_report() {
    let req = RunRequest {
        text: SCENARIO,
        ..RunRequest::default()
    };
    let strip = |j: String| {
        let mut v: serde_json::Value = serde_json::from_str(&j).unwrap();
        v.as_object_mut().unwrap().remove("wall_s");
        v
    };
    let a = strip(run_json(&req).unwrap());
    let b = strip(run_json(&req).unwrap());
    assert_eq!(a, b);
    let other = strip(
        run_json(&RunRequest {
            seed: Some(8),
            ..req.clone()
        })
        .unwrap(),
    );
    assert_ne!(a["flows"], other["flows"], "another seed, other losses");
    // The file transfer finished and reported its completion; the web flow its objects.
    let flows = a["flows"].as_array().unwrap();
    let file = flows.iter().find(|f| f["name"] == "file").unwrap();
    assert!(file["tcp"]["completion_time_s"].as_f64().is_some());
    assert!(file["goodput_bps"].as_f64().unwrap() > 0.0);
    let web = flows.iter().find(|f| f["name"] == "web").unwrap();
    assert!(web["tcp"]["objects_completed"].as_u64().unwrap() > 10);
    assert_eq!(a["series"]["tcp"].as_array().unwrap().len(), 2);
    for f in flows {
        assert_eq!(f["protocol"], "tcp");
    }
}

// ---- the ns-2 trace names TCP segments and ACKs as ns-2 does ----
#[test]
fn ns2_trace_shows_tcp_and_ack_packets() {
    let path = std::env::temp_dir().join(format!("bufferlab-tcp-{}.tr", std::process::id()));
    let overrides = vec!["duration=3s".to_string()];
    let req = RunRequest {
        text: SCENARIO,
        overrides: &overrides,
        ns2_trace: Some(&path),
        ..RunRequest::default()
    };
    run_json(&req).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    // Flow "reno" (ns2 preset): the 40-byte opening packet is number 0, then 1000-byte
    // segments + 40 bytes from 1, as tcp.cc numbers them.
    let first = |size: &str| {
        text.lines()
            .find(|l| l.starts_with("+ ") && l.contains(&format!(" tcp {size} ")))
            .expect("a tcp line")
            .split_whitespace()
            .nth(10)
            .map(str::to_string)
    };
    assert_eq!(first("40").as_deref(), Some("0"), "the opening packet");
    assert_eq!(first("1040").as_deref(), Some("1"), "the first data packet");
    assert!(text.lines().any(|l| l.contains(" ack 40 ")), "ACK lines");
}
