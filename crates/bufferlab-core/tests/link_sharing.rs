//! What a link does with constant-rate traffic: never more than its rate; a CBR flow below
//! the bottleneck rate gets exactly its rate with no loss; two CBR flows that together exceed
//! the bottleneck share it in proportion to their rates under DropTail.

mod common;
use common::{flow, queue, run_text};

fn dumbbell(bottleneck: &str, flows: &[(&str, &str, bool)], stop: &str) -> String {
    let mut t = format!(
        r#"
        duration = "12s"
        [topology]
        kind = "dumbbell"
        pairs = {}
        [links.access]
        rate = "100Mbps"
        delay = "1ms"
        [links.bottleneck]
        rate = "{bottleneck}"
        delay = "20ms"
        queue = {{ kind = "droptail", limit = "30p" }}
        "#,
        flows.len()
    );
    for (i, (name, rate, random)) in flows.iter().enumerate() {
        t.push_str(&format!(
            "[[flows]]\nname = \"{name}\"\nsrc = \"s{i}\"\ndst = \"d{i}\"\nstart = \"1s\"\nstop = \"{stop}\"\napp = {{ kind = \"cbr\", rate = \"{rate}\", packet_size = \"1000B\", random = {random} }}\n"
        ));
    }
    t
}

// ---- below capacity: exactly the configured rate, no loss ----
#[test]
fn cbr_below_capacity_gets_its_rate_exactly() {
    let r = run_text(&dumbbell("10Mbps", &[("a", "4Mbps", false)], "11s"), 1);
    let f = flow(&r, "a");
    assert_eq!(f.lost_packets, 0);
    assert_eq!(f.tx_packets, 5000); // 10 s at one packet per 2 ms
    assert_eq!(f.rx_packets, 5000);
    assert_eq!(f.throughput_bps, 4e6);
    // no queueing: delay = 2 access hops + bottleneck (20 ms + serialisation)
    let expect = 0.001 * 2.0 + 0.020 + 8000.0 / 100e6 * 2.0 + 8000.0 / 10e6;
    assert!((f.delay_mean_s.unwrap() - expect).abs() < 1e-9);
    assert_eq!(f.jitter_s, Some(0.0));
}

fn overload(kind: &str) -> (f64, f64, bufferlab_core::report::Report) {
    let t = dumbbell(
        "5Mbps",
        &[("a", "6Mbps", false), ("b", "3Mbps", false)],
        "12s",
    )
    .replace("kind = \"cbr\"", &format!("kind = \"{kind}\""));
    let t = if kind == "poisson" {
        t.replace(", random = false", "")
    } else {
        t
    };
    let r = common::run_text(
        &t.replace("duration = \"12s\"", "duration = \"61s\"")
            .replace("stop = \"12s\"", "stop = \"61s\""),
        1,
    );
    let (a, b) = (flow(&r, "a").throughput_bps, flow(&r, "b").throughput_bps);
    (a, b, r)
}

// ---- overload with random (Poisson) arrivals: shared in proportion to the offered rates ----
// DropTail drops whatever arrives to a full queue; with Poisson arrivals every flow sees the
// same loss probability (PASTA), so each gets capacity x its share of the offered load.
// (The flows run to the end: throughput is measured over [start, min(stop, end)], so a flow
// stopping early would also be credited with the backlog drained after its stop.)
#[test]
fn overload_is_shared_in_proportion_to_rates() {
    let (a, b, r) = overload("poisson");
    let total = a + b;
    assert!(total <= 5e6, "total {total}");
    assert!(total > 5e6 * 0.995, "the bottleneck stays busy: {total}");
    let share = a / total;
    assert!(
        (share - 2.0 / 3.0).abs() < 0.01,
        "share of the 6 Mbit/s flow {share}"
    );
    let l = r
        .links
        .iter()
        .find(|l| l.link == "bottleneck" && l.from == "r0")
        .unwrap();
    assert!(l.utilisation <= 1.0);
    let q = queue(&r, "bottleneck", "r0");
    assert!(q.max_packets <= 30);
    assert_eq!(
        q.drops,
        flow(&r, "a").lost_packets + flow(&r, "b").lost_packets
    );
}

// ---- overload with strictly periodic CBR: DropTail's phase effect ----
// Each departure frees one place and the next arrival takes it. With periodic sources the
// faster flow is more often the next to arrive, so it gets more than its proportional share
// (Floyd & Jacobson 1992, "On traffic phase effects in packet-switched gateways"). Here 6 and
// 3 Mbit/s into 5 Mbit/s give the faster flow 80 % instead of 67 %. The link stays full.
#[test]
fn periodic_cbr_overload_shows_the_phase_effect() {
    let (a, b, _) = overload("cbr");
    assert!(a + b <= 5e6 && a + b > 5e6 * 0.995);
    let share = a / (a + b);
    assert!(share > 0.7, "share of the 6 Mbit/s flow {share}");
}

// ---- link framing: `overhead` bytes lengthen each serialisation, not the packet ----
#[test]
fn framing_overhead_adds_its_serialisation_time_per_packet() {
    let plain = dumbbell("1Mbps", &[("a", "100kbps", false)], "11s");
    // ns-3's point-to-point PPP header: 2 bytes on the 1 Mbit/s bottleneck = 16 us per packet.
    let framed = plain.replacen(
        "queue = { kind = \"droptail\", limit = \"30p\" }",
        "queue = { kind = \"droptail\", limit = \"30p\" }\n        overhead = \"2B\"",
        1,
    );
    assert_ne!(plain, framed);
    let (a, b) = (run_text(&plain, 1), run_text(&framed, 1));
    let (fa, fb) = (flow(&a, "a"), flow(&b, "a"));
    assert_eq!(fa.rx_packets, fb.rx_packets);
    assert_eq!(fa.rx_bytes, fb.rx_bytes, "sizes are unchanged");
    let extra = fb.delay_mean_s.unwrap() - fa.delay_mean_s.unwrap();
    assert!((extra - 16e-6).abs() < 1e-9, "extra delay {extra}");
}

// ---- device queue: `device_queue` packets below the discipline, outside its limit ----
#[test]
fn device_queue_holds_packets_beyond_the_discipline_limit() {
    // 2 Mbit/s of CBR into a 1 Mbit/s bottleneck whose DropTail holds 5 packets: with a
    // 1-packet device queue below it, 6 wait at most (the discipline's 5 + the device's 1),
    // and the extra slot loses as many fewer packets as it holds.
    let plain = dumbbell("1Mbps", &[("a", "2Mbps", false)], "11s").replacen(
        "limit = \"30p\"",
        "limit = \"5p\"",
        1,
    );
    let device = plain.replacen(
        "queue = { kind = \"droptail\", limit = \"5p\" }",
        "queue = { kind = \"droptail\", limit = \"5p\" }\n        device_queue = 1",
        1,
    );
    assert_ne!(plain, device);
    let (a, b) = (run_text(&plain, 1), run_text(&device, 1));
    let (qa, qb) = (queue(&a, "bottleneck", "r0"), queue(&b, "bottleneck", "r0"));
    assert_eq!(qa.max_packets, 5);
    assert_eq!(qb.max_packets, 6);
    assert_eq!(
        qa.drops,
        qb.drops + 1,
        "one more packet is held, one fewer dropped"
    );
    assert_eq!(flow(&a, "a").rx_packets + 1, flow(&b, "a").rx_packets);
}

// ---- random start times: drawn per flow from the run's seed ----
#[test]
fn random_start_times_differ_per_flow_and_per_seed_and_repeat_per_seed() {
    let text = common::Dumbbell::new(4)
        .duration("3s")
        .flow(
            r#"name = "f"
count = 4
src = "s{i}"
dst = "d{i}"
start = { kind = "uniform", min = "0s", max = "1s" }
app = { kind = "cbr", rate = "1Mbps" }"#,
        )
        .toml();
    let starts = |seed: u64| -> Vec<f64> {
        common::run_text(&text, seed)
            .flows
            .iter()
            .map(|f| f.start_s)
            .collect()
    };
    let a = starts(1);
    assert!(a.iter().all(|&s| (0.0..=1.0).contains(&s)), "{a:?}");
    let mut sorted = a.clone();
    sorted.dedup();
    assert_eq!(sorted.len(), 4, "each flow draws its own start: {a:?}");
    assert_eq!(a, starts(1), "the same seed gives the same starts");
    assert_ne!(a, starts(2), "another seed, other starts");
}
