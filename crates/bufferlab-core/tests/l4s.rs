//! DCTCP over step marking and L4S over DualPI2, against the properties their references
//! state (issue #18; docs/models/dctcp.md, dualpi2.md, prague.md; numbers in
//! docs/validation.md):
//!
//! * DCTCP (Alizadeh et al., SIGCOMM 2010, section 3.3; RFC 8257 section 1): with step marking
//!   at K >= C x RTT / 7 the link stays fully used, nothing is dropped, and the queue oscillates
//!   around K with small amplitude: its maximum is about K + N packets (N flows), its amplitude
//!   A = (1/2) sqrt(2 N (C x RTT + K)) packets, so its mean is about K + N - A / 2.
//! * RFC 9332 (DualPI2) sections 1 and 2.4: with k = 2 a scalable flow in the L queue and a
//!   classic flow in the C queue get roughly equal rates; the L queue's delay stays near its
//!   1 ms marking step (below it on average), the C queue's near the PI target of 15 ms.

mod common;
use common::{flow, l4s_example, queue, run_text};

/// 4 DCTCP flows, 50 Mbit/s, base RTT 14 ms, K = 10 packets of 1500 B.
const DCTCP: &str = include_str!("../../../examples/dctcp_red_step.toml");
const L4S: &str = include_str!("../../../examples/l4s_dualpi2.toml");

const LINK_BPS: f64 = 50e6;
/// Payload share of a 1500-byte packet (1448 B of segment).
const PAYLOAD: f64 = 1448.0 / 1500.0;
const PKT_S: f64 = 1500.0 * 8.0 / LINK_BPS;

fn dctcp_theory() -> (f64, f64) {
    let (n, k) = (4.0, 10.0);
    let bdp = LINK_BPS * 0.014 / 8.0 / 1500.0; // 58.3 packets
    let q_max = k + n;
    let amplitude = 0.5 * (2.0 * n * (bdp + k)).sqrt();
    (q_max, amplitude)
}

// ---- DCTCP, RED step at K: full link, no drops, queue around K, bounded by about K + N ----
#[test]
fn dctcp_over_red_step_keeps_the_link_full_and_the_queue_near_k() {
    let r = run_text(DCTCP, 1);
    let goodput: f64 = r.flows.iter().map(|f| f.goodput_bps).sum();
    assert!(
        goodput > 0.97 * LINK_BPS * PAYLOAD,
        "goodput {goodput:.0} b/s: the link should stay full"
    );
    let q = queue(&r, "bottleneck", "r0");
    assert_eq!(q.drops, 0, "ECN marks replace every drop");
    assert!(q.marks > 1000, "marks {}", q.marks);
    let (q_max, amplitude) = dctcp_theory();
    // Mean queue: theory about q_max - A/2 = 8.2 packets; allow +-50 %.
    let mean = q.avg_packets;
    let expect = q_max - amplitude / 2.0;
    assert!(
        (mean - expect).abs() < 0.5 * expect,
        "mean queue {mean:.2} packets, theory {expect:.2}"
    );
    // The queue stays within a few packets of K + N (delayed ACKs send bursts of two).
    let max_s = q.sojourn_max_s.expect("sojourn");
    assert!(
        max_s < (q_max + 6.0) * PKT_S,
        "max sojourn {max_s:.4} s is above (K + N + 6) packets"
    );
    for f in &r.flows {
        assert!(f.goodput_bps > 0.15 * LINK_BPS, "{} starved", f.name);
    }
}

// ---- the same with CoDel's ce_threshold at K's delay: marks, no drops, full link ----
#[test]
fn dctcp_over_codel_ce_threshold_marks_instead_of_dropping() {
    let text = DCTCP.replace(
        r#"queue = { kind = "red", preset = "ns3", limit = "200p", min_th = 10, max_th = 10, q_weight = 1.0, gentle = false, ecn = true, hard_drop = false, mean_pktsize = "1500B" }"#,
        r#"queue = { kind = "codel", ce_threshold = "2.4ms" }"#,
    );
    assert_ne!(
        text, DCTCP,
        "the example's queue line changed: update this test"
    );
    let r = run_text(&text, 1);
    let q = queue(&r, "bottleneck", "r0");
    let goodput: f64 = r.flows.iter().map(|f| f.goodput_bps).sum();
    assert!(goodput > 0.97 * LINK_BPS * PAYLOAD, "goodput {goodput:.0}");
    assert_eq!(
        q.drops, 0,
        "sojourn stays far below CoDel's own 5 ms target"
    );
    assert!(q.marks > 1000);
    let mean = q.sojourn_mean_s.expect("sojourn");
    assert!(
        mean < 2.4e-3,
        "mean sojourn {mean:.5} s above the 2.4 ms threshold"
    );
}

// ---- without hard_drop off, RED's forced region drops DCTCP's ECT packets ----
#[test]
fn red_with_hard_drop_drops_above_k() {
    let text = DCTCP.replace("hard_drop = false", "hard_drop = true");
    let r = run_text(&text, 1);
    let q = queue(&r, "bottleneck", "r0");
    assert!(q.drops > 0, "forced drops stay drops with hard_drop");
    assert_eq!(
        q.marks, 0,
        "min_th = max_th leaves no early (markable) band"
    );
}

// ---- RFC 9332: Prague (L) and CUBIC (C) over DualPI2 ----
#[test]
fn dualpi2_couples_prague_and_cubic_and_keeps_both_delays() {
    let r = run_text(L4S, 1);
    let prague = flow(&r, "prague").goodput_bps;
    let cubic = flow(&r, "cubic").goodput_bps;
    let ratio = prague / cubic;
    assert!(
        (0.5..2.0).contains(&ratio),
        "Prague {prague:.0} b/s, CUBIC {cubic:.0} b/s: ratio {ratio:.2} is not roughly equal"
    );
    assert!(prague + cubic > 0.9 * 40e6 * PAYLOAD);
    let q = queue(&r, "bottleneck", "r0");
    let classes = q.classes.as_ref().expect("dualpi2 reports its two queues");
    let sojourn = |name: &str| {
        classes
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap()["mean_sojourn_s"]
            .as_f64()
            .unwrap()
    };
    let (l, c) = (sojourn("l"), sojourn("c"));
    assert!(
        l < 1.5e-3,
        "L queue mean sojourn {l:.5} s: not near the 1 ms step"
    );
    assert!(
        (0.010..0.020).contains(&c),
        "C queue mean sojourn {c:.5} s: not near the 15 ms target"
    );
}

// ---- determinism: the same seed gives the same report ----
#[test]
fn l4s_runs_are_deterministic() {
    let a = serde_json::to_string(&run_text(L4S, 3).flows).unwrap();
    let b = serde_json::to_string(&run_text(L4S, 3).flows).unwrap();
    assert_eq!(a, b);
}

// ---- L4S at link rates of 10 to 100 Mbit/s, one-way bottleneck delays of 5 and 20 ms (issue #39) ----

/// The example at `rate` Mbit/s and a one-way bottleneck delay of `delay` ms, DualPI2's step
/// threshold `step` (Linux's 1 ms when None): Prague's goodput over CUBIC's.
fn l4s_ratio(rate: u32, delay: u32, step: Option<&str>) -> f64 {
    let step = step.map_or(String::new(), |s| format!(r#", step_thresh = "{s}""#));
    let text = l4s_example(rate, delay, &step, "");
    let r = run_text(&text, 1);
    flow(&r, "prague").goodput_bps / flow(&r, "cubic").goodput_bps
}

#[test]
fn dualpi2_couples_prague_and_cubic_from_20_to_100_mbps() {
    for rate in [20, 40, 100] {
        for delay in [5, 20] {
            let ratio = l4s_ratio(rate, delay, None);
            assert!(
                (0.5..2.0).contains(&ratio),
                "{rate} Mbit/s, {delay} ms: Prague / CUBIC {ratio:.2}"
            );
        }
    }
}

#[test]
fn at_10_mbps_linux_s_1ms_step_starves_prague_and_rfc_9332_s_floor_does_not() {
    // 1514 B take 1.21 ms at 10 Mbit/s: with Linux's default step (1 ms, sch_dualpi2.c
    // do_step_aqm) an L packet behind any other is marked (docs/models/dualpi2.md, "Low link
    // rates"); RFC 9332 A.1 keeps the threshold above 2 MTU of serialization (2.42 ms).
    for delay in [5, 20] {
        let linux = l4s_ratio(10, delay, None);
        assert!(
            linux < 0.4,
            "{delay} ms, 1 ms step: Prague / CUBIC {linux:.2}"
        );
        let floor = l4s_ratio(10, delay, Some("2.42ms"));
        assert!(
            (0.5..2.0).contains(&floor),
            "{delay} ms, 2.42 ms step: Prague / CUBIC {floor:.2}"
        );
    }
}
