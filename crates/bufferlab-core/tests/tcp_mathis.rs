//! Reno under random loss against the Mathis et al. (1997) formula
//! throughput = (MSS/RTT) * sqrt(3/(2p)), on a fast path with no queueing: one flow, a
//! 100 Mbit/s bottleneck with Bernoulli loss p on data packets, RTT 100 ms, ns-2 TCP
//! defaults except a large `window_`. The measured goodput (payload, after a 20 s warm-up)
//! must be within 20 % of the formula for RFC 5681 Reno; ns-2.35's own Reno rules (`ns2_rules`,
//! on with the ns2 preset) are checked at 2 % loss against ns-2.35's measured ratio. See
//! docs/validation.md (TCP) for the numbers.

use bufferlab_core::api::{run, RunRequest};

fn scenario(p: f64, cc: &str, extra: &str) -> String {
    format!(
        r#"
name = "mathis"
duration = "1000s"
warmup = "20s"
[topology]
kind = "dumbbell"
pairs = 1
[links.access]
rate = "1Gbps"
delay = "1ms"
queue = {{ kind = "droptail", limit = "10000p" }}
[links.bottleneck]
rate = "100Mbps"
delay = "48ms"
queue = {{ kind = "droptail", limit = "10000p" }}
loss = {{ kind = "bernoulli", rate = {p} }}
[[flows]]
name = "f"
src = "s0"
dst = "d0"
app = {{ kind = "bulk" }}
tcp = {{ preset = "ns2", cc = "{cc}", window = "100000p"{extra} }}
"#
    )
}

fn ratio(p: f64, cc: &str) -> f64 {
    ratio_with(p, cc, "")
}

fn ratio_with(p: f64, cc: &str, extra: &str) -> f64 {
    let text = scenario(p, cc, extra);
    let r = run(&RunRequest {
        text: &text,
        ..RunRequest::default()
    })
    .expect("scenario runs");
    let f = &r.flows[0];
    assert_eq!(
        f.drops_by_location.len(),
        1,
        "only random loss: {:?}",
        f.drops_by_location
    );
    let mss = 1000.0 * 8.0;
    let rtt = 0.1;
    let predicted = mss / rtt * (3.0 / (2.0 * p)).sqrt();
    f.goodput_bps / predicted
}

// ---- Mathis throughput under Bernoulli loss ----
#[test]
fn reno_follows_mathis_at_0_1_percent() {
    let r = ratio(0.001, "reno");
    assert!((r - 1.0).abs() < 0.2, "goodput / Mathis = {r:.3}");
}

#[test]
fn reno_follows_mathis_at_0_5_percent() {
    let r = ratio(0.005, "reno");
    assert!((r - 1.0).abs() < 0.2, "goodput / Mathis = {r:.3}");
}

#[test]
fn rfc_reno_follows_mathis_at_2_percent() {
    // RFC 5681 Reno (ns-2's agent rules off): timeouts, which the Mathis model leaves out, pull
    // it about 18 % below the formula at 2 % loss.
    let r = ratio_with(0.02, "reno", ", ns2_rules = false");
    assert!((r - 1.0).abs() < 0.2, "goodput / Mathis = {r:.3}");
}

#[test]
fn reno_follows_ns2_at_2_percent() {
    // Timeouts (not in the Mathis model) pull Reno about 20 % below it at 2 % loss: ns-2.35's
    // Agent/TCP/Reno on this scenario gives 0.806 / 0.822 / 0.801 of Mathis (seeds 1-3, its
    // own RNG; docs/validation.md), since with bugFix_ every second loss of a window waits
    // for the timeout. The reference is that measurement (mean 0.81), not Mathis +-20 %.
    let r = ratio(0.02, "reno");
    assert!((r - 0.81).abs() < 0.05, "goodput / Mathis = {r:.3}");
}
