//! A single TCP flow against a bottleneck: with a bandwidth-delay-product DropTail buffer
//! Reno keeps the link busy; limited by its window it gets window/RTT.

use bufferlab_core::api::{run, RunRequest};
use bufferlab_core::report::Report;

fn dumbbell(bottleneck_queue: &str, tcp: &str, duration: &str) -> Report {
    let text = format!(
        r#"
name = "one-flow"
duration = "{duration}"
warmup = "10s"
[topology]
kind = "dumbbell"
pairs = 1
[links.access]
rate = "100Mbps"
delay = "1ms"
queue = {{ kind = "droptail", limit = "1000p" }}
[links.bottleneck]
rate = "10Mbps"
delay = "20ms"
queue = {bottleneck_queue}
[[flows]]
name = "f"
src = "s0"
dst = "d0"
app = {{ kind = "bulk" }}
tcp = {tcp}
"#
    );
    run(&RunRequest {
        text: &text,
        ..RunRequest::default()
    })
    .expect("scenario runs")
}

/// Round-trip time of a full segment and its ACK: propagation plus serialisation.
fn rtt(seg: f64, ack: f64) -> f64 {
    let prop = 2.0 * (0.001 + 0.020 + 0.001);
    let tx = |b: f64, r: f64| b * 8.0 / r;
    prop + 2.0 * tx(seg, 100e6) + tx(seg, 10e6) + 2.0 * tx(ack, 100e6) + tx(ack, 10e6)
}

// ---- a BDP buffer keeps the bottleneck busy ----
#[test]
fn bdp_buffer_keeps_the_bottleneck_busy() {
    let bdp = (10e6 * rtt(1040.0, 40.0) / 8.0 / 1040.0).round() as u64;
    assert_eq!(bdp, 54);
    for cc in ["reno", "newreno", "cubic"] {
        let r = dumbbell(
            &format!(r#"{{ kind = "droptail", limit = "{bdp}p" }}"#),
            &format!(r#"{{ preset = "ns2", cc = "{cc}", window = "10000p" }}"#),
            "100s",
        );
        let l = r
            .links
            .iter()
            .find(|l| l.link == "bottleneck" && l.from == "r0")
            .unwrap();
        assert!(
            l.utilisation >= 0.95,
            "{cc}: bottleneck busy {:.4} of the time",
            l.utilisation
        );
        assert!(
            r.flows[0].lost_packets > 0,
            "{cc}: the buffer does overflow"
        );
    }
}

// ---- a window-limited flow gets window/RTT ----
#[test]
fn window_limited_flow_gets_window_over_rtt() {
    for w in [5u64, 10, 20] {
        let r = dumbbell(
            r#"{ kind = "droptail", limit = "100p" }"#,
            &format!(r#"{{ preset = "ns2", window = "{w}p" }}"#),
            "40s",
        );
        let f = &r.flows[0];
        assert_eq!(f.lost_packets, 0);
        let expect = w as f64 * 1040.0 * 8.0 / rtt(1040.0, 40.0);
        let got = f.throughput_bps;
        assert!(
            (got / expect - 1.0).abs() < 0.01,
            "window {w}: {got:.0} bit/s vs window/RTT {expect:.0}"
        );
    }
}
