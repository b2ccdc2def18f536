//! The policer (`kind = "police"`, qdisc/police.rs) in whole runs: an 8 Mbit/s CBR flow into a
//! 100 Mbit/s bottleneck whose queue polices it; what conforms leaves at the committed (and,
//! for the three-colour meter's passed yellow packets, the peak) rate, the rest is dropped at
//! once with reason `policed`, and the report counts the colours.

mod common;
use common::{cbr_dumbbell, queue, run_text};

fn cbr(queue_toml: &str) -> String {
    cbr_measured_from(queue_toml, "2s")
}

fn cbr_measured_from(queue_toml: &str, warmup: &str) -> String {
    cbr_dumbbell(
        "police-test",
        ("100Mbps", "10ms"),
        queue_toml,
        ("8Mbps", "1000B"),
    )
    .duration("12s")
    .set("warmup", &format!("\"{warmup}\""))
    .toml()
}

fn colours(q: &bufferlab_core::report::QueueReport) -> Vec<u64> {
    let c = serde_json::to_value(&q.classes).unwrap();
    (0..3).map(|i| c[i]["arrivals"].as_u64().unwrap()).collect()
}

#[test]
fn two_colours_pass_the_rate_and_drop_the_rest_without_queueing() {
    let r = run_text(
        &cbr(r#"{ kind = "police", rate = "4Mbps", burst = "10000B" }"#),
        1,
    );
    let b = queue(&r, "bottleneck", "r0");
    assert_eq!(b.discipline, "police");
    // 10 s measured: 10 000 packets offered, 500 a second conform (4 Mbit/s of 1000 B)
    assert!((b.arrivals as i64 - 10_000).abs() <= 1, "{}", b.arrivals);
    assert!((b.departures as i64 - 5000).abs() <= 1, "{}", b.departures);
    assert_eq!(b.drops_by_reason.get("policed"), Some(&b.drops));
    assert!(b.arrivals - (b.drops + b.departures) <= 1);
    // nothing waits: the policer drops instead of queueing, and the link is 25 times faster
    assert!(b.avg_packets < 0.01, "{}", b.avg_packets);
    let c = colours(b);
    assert_eq!((c[0], c[1], c[2]), (b.departures, 0, b.drops));
}

#[test]
fn three_colours_split_the_offer_at_cir_and_pir() {
    let q = r#"{ kind = "police", rate = "2Mbps", burst = "10000B", peak_rate = "4Mbps", peak_burst = "20000B", yellow = "pass" }"#;
    let r = run_text(&cbr(q), 1);
    let b = queue(&r, "bottleneck", "r0");
    let c = colours(b);
    // green at CIR (250/s), yellow up to PIR (another 250/s), red the other half
    assert!((c[0] as i64 - 2500).abs() <= 1, "{c:?}");
    assert!((c[1] as i64 - 2500).abs() <= 1, "{c:?}");
    assert!((c[2] as i64 - 5000).abs() <= 2, "{c:?}");
    assert_eq!(b.departures, c[0] + c[1]);
    // yellow marked by default: the CBR is not ECN-capable, so yellow is dropped too
    let q = r#"{ kind = "police", rate = "2Mbps", burst = "10000B", peak_rate = "4Mbps", peak_burst = "20000B" }"#;
    let r = run_text(&cbr(q), 1);
    let b = queue(&r, "bottleneck", "r0");
    assert!((b.departures as i64 - 2500).abs() <= 1, "{}", b.departures);
    assert_eq!(b.marks, 0);
}

#[test]
fn one_rate_three_colours_pass_cir_in_green_and_yellow_together() {
    // RFC 2697: under a steady overload C never fills, so E gets no tokens after the warm-up:
    // CIR's 250 packets a second are green and every other packet is red
    let q = r#"{ kind = "police", rate = "2Mbps", burst = "10000B", excess_burst = "20000B", yellow = "pass" }"#;
    let r = run_text(&cbr(q), 1);
    let b = queue(&r, "bottleneck", "r0");
    let c = colours(b);
    assert!((c[0] as i64 - 2500).abs() <= 1, "{c:?}");
    assert_eq!(c[1], 0, "{c:?}");
    assert!((c[2] as i64 - 7500).abs() <= 1, "{c:?}");
    assert_eq!(b.departures, c[0] + c[1]);
    // with the overload starting on full buckets (no warm-up), the first EBS bytes are yellow
    let q = r#"{ kind = "police", rate = "2Mbps", burst = "10000B", excess_burst = "20000B", yellow = "pass" }"#;
    let r = run_text(&cbr_measured_from(q, "0s"), 1);
    let b = queue(&r, "bottleneck", "r0");
    let c = colours(b);
    assert_eq!(c[1], 20, "{c:?}");
    assert!((c[0] as i64 - 3000 - 10).abs() <= 1, "{c:?}");
}
