//! Queue limits in BDP and time (`scenario/limits.rs`), worked out by hand on a dumbbell, and
//! the warnings for recipes that look right but are not (`scenario/recipes.rs`).

mod common;

use bufferlab_core::api::{resolve_json, RunRequest};
use common::{run_err, run_text};
use serde_json::Value;

/// One TCP flow (ns-2 preset: 1000 + 40 = 1040-byte packets) over 100 Mbit/s, 5 ms access links and a
/// 10 Mbit/s, 20 ms bottleneck: RTT = 2 x (5 + 20 + 5) ms = 60 ms, BDP = 10 Mbit/s x 60 ms =
/// 600 000 bits = 75 000 bytes = 72.1 packets of 1040 B.
const DUMBBELL: &str = r#"duration = "3s"
[topology]
kind = "dumbbell"
pairs = 1
[links.access]
rate = "100Mbps"
delay = "5ms"
queue = { kind = "droptail", limit = "1000p" }
[links.bottleneck]
rate = "10Mbps"
delay = "20ms"
queue = { kind = "droptail", limit = "1BDP" }
[[flows]]
name = "tcp0"
src = "s0"
dst = "d0"
app = { kind = "bulk" }
tcp = { preset = "ns2", cc = "reno", window = "1000p" }
"#;

fn with(from: &str, to: &str) -> String {
    assert!(DUMBBELL.contains(from), "{from}");
    DUMBBELL.replacen(from, to, 1)
}

fn resolve_with(text: &str, overrides: &[&str]) -> Value {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let json = resolve_json(&RunRequest {
        text,
        source: "test.toml",
        seed: Some(1),
        overrides: &o,
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_str(&json).unwrap()
}

/// The sized limits of link `link`'s direction from `from`.
fn sized<'a>(both: &'a Value, link: &str, from: &str) -> &'a Value {
    let l = both["resolved"]["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["link"] == link && l["from"] == from)
        .unwrap();
    &l["queue"]["sized_limits"]
}

#[test]
fn one_bdp_is_rate_times_the_flows_rtt_in_their_packets() {
    let both = resolve_with(DUMBBELL, &[]);
    let s = &sized(&both, "bottleneck", "r0")[0];
    assert_eq!(s["given"], "1BDP");
    assert_eq!(s["resolved"], "72p", "{s}");
    assert_eq!(s["unit"], "packets");
    assert_eq!(s["field"], "links.bottleneck.queue.limit");
    assert_eq!(s["packet_size_bytes"], 1040.0);
    let bdp = &s["bdp"];
    assert!(
        (bdp["rtt_s"].as_f64().unwrap() - 0.060).abs() < 1e-12,
        "{bdp}"
    );
    assert!(
        (bdp["bits"].as_f64().unwrap() - 600_000.0).abs() < 1e-6,
        "{bdp}"
    );
    assert!(
        (bdp["bytes"].as_f64().unwrap() - 75_000.0).abs() < 1e-6,
        "{bdp}"
    );
    assert_eq!(bdp["flows"], 1);
    // the way back (ACKs) shares the queue table: the same link, the same BDP
    assert_eq!(sized(&both, "bottleneck", "r1")[0]["resolved"], "72p");
    // links given in packets say nothing
    assert!(sized(&both, "access_s0", "s0").is_null());
    // the normalised scenario keeps the value given
    assert_eq!(
        both["scenario"]["links"]["bottleneck"]["queue"]["limit"],
        "1BDP"
    );
}

#[test]
fn the_rtt_is_the_mean_over_the_crossing_flows() {
    // RTTs 60 ms and 80 ms: the mean 70 ms gives 87 500 B = 84.1 packets (the maximum would
    // give 96)
    let text = with("pairs = 1", "pairs = 2\nsender_delays = [\"5ms\", \"15ms\"]")
        + "[[flows]]\nname = \"tcp1\"\nsrc = \"s1\"\ndst = \"d1\"\napp = { kind = \"bulk\" }\ntcp = { preset = \"ns2\", cc = \"reno\" }\n";
    let both = resolve_with(&text, &[]);
    let s = &sized(&both, "bottleneck", "r0")[0];
    assert_eq!(s["resolved"], "84p", "{s}");
    assert_eq!(s["bdp"]["flows"], 2);
    assert!((s["bdp"]["rtt_s"].as_f64().unwrap() - 0.070).abs() < 1e-12);
}

#[test]
fn overrides_and_times_are_sized_too() {
    let both = resolve_with(DUMBBELL, &["links.bottleneck.queue.limit=0.25BDP"]);
    // 18 750 B / 1040 B = 18.03
    assert_eq!(sized(&both, "bottleneck", "r0")[0]["resolved"], "18p");
    // 20 ms at 10 Mbit/s = 25 000 B = 24.04 packets
    let both = resolve_with(DUMBBELL, &["links.bottleneck.queue.limit=20ms"]);
    let s = &sized(&both, "bottleneck", "r0")[0];
    assert_eq!(s["resolved"], "24p");
    assert_eq!(s["time_s"], 0.02);
    assert!(s["bdp"].is_null());
    // an override in packets replaces a BDP given in the file
    let both = resolve_with(DUMBBELL, &["links.bottleneck.queue.limit=30p"]);
    assert!(sized(&both, "bottleneck", "r0").is_null());
}

#[test]
fn a_discipline_counting_bytes_gets_bytes() {
    // RED's linux preset counts bytes (its default limit is 100 x avpkt bytes)
    let text = with(
        "queue = { kind = \"droptail\", limit = \"1BDP\" }",
        "queue = { kind = \"red\", preset = \"linux\", limit = \"1BDP\" }",
    );
    let both = resolve_with(&text, &[]);
    let s = &sized(&both, "bottleneck", "r0")[0];
    assert_eq!(s["resolved"], "75000B", "{s}");
    assert_eq!(s["unit"], "bytes");
    assert!(s["packet_size_bytes"].is_null());
}

#[test]
fn a_sized_limit_runs_as_the_same_limit_in_packets() {
    let sized = run_text(DUMBBELL, 1);
    let plain = run_text(&with("limit = \"1BDP\"", "limit = \"72p\""), 1);
    let q = |r: &bufferlab_core::report::Report| {
        let q = common::queue(r, "bottleneck", "r0");
        (q.arrivals, q.drops, q.max_packets, q.departures)
    };
    assert!(
        q(&sized).1 > 0,
        "the flow fills the buffer: {:?}",
        q(&sized)
    );
    assert_eq!(q(&sized), q(&plain));
    let qr = common::queue(&sized, "bottleneck", "r0");
    assert_eq!(qr.limit_given.as_deref(), Some("1BDP"));
    assert_eq!(qr.limit.as_deref(), Some("72p"));
    assert!(common::queue(&plain, "bottleneck", "r0").limit.is_none());
}

#[test]
fn bad_forms_name_the_field_and_the_fix() {
    for (form, says) in [
        ("-1BDP", "positive"),
        ("BDP", "no number"),
        ("0.5 bdp", "capitals"),
        ("1e400ms", "positive and finite"),
        ("0.001BDP", "rounds to an empty queue"),
    ] {
        let e = run_err(
            &with("limit = \"1BDP\"", &format!("limit = \"{form}\"")),
            &[],
        );
        assert!(e.contains("links.bottleneck.queue.limit"), "{form}: {e}");
        assert!(e.contains(says), "{form}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        let e = run_err(DUMBBELL, &[&format!("links.bottleneck.queue.limit={form}")]);
        assert!(
            e.contains("links.bottleneck.queue.limit") && e.contains(says),
            "{e}"
        );
    }
}

#[test]
fn a_link_no_flow_crosses_has_no_bdp() {
    // two pairs, one flow: access_s1 and access_d1 carry nothing
    let text = with("pairs = 1", "pairs = 2").replace(
        "queue = { kind = \"droptail\", limit = \"1000p\" }",
        "queue = { kind = \"droptail\", limit = \"2BDP\" }",
    );
    let e = run_err(&text, &[]);
    assert!(e.contains("links.access.queue.limit"), "{e}");
    assert!(e.contains("access_s1") && e.contains("none does"), "{e}");
    // a time in a byte-counting discipline needs no flow
    let text = text.replace(
        "kind = \"droptail\", limit = \"2BDP\"",
        "kind = \"red\", preset = \"linux\", limit = \"2ms\"",
    );
    run_text(&text, 1);
}

// ---- recipes that look right but are not ----

const DCTCP: &str = r#"duration = "1s"
[topology]
kind = "dumbbell"
pairs = 1
[links.access]
rate = "1Gbps"
delay = "1ms"
[links.bottleneck]
rate = "10Mbps"
delay = "5ms"
queue = { kind = "red", preset = "ns3", limit = "200p", min_th = 10, max_th = 10, q_weight = 1.0, gentle = false, ecn = true, hard_drop = false }
[[flows]]
name = "tcp0"
src = "s0"
dst = "d0"
app = { kind = "bulk" }
tcp = { preset = "ns3", cc = "dctcp", ecn = true }
"#;

fn warnings(text: &str) -> Vec<String> {
    serde_json::from_value(resolve_with(text, &[])["resolved"]["warnings"].clone()).unwrap()
}

#[test]
fn dctcps_step_marking_recipe_does_not_warn() {
    assert_eq!(warnings(DCTCP), Vec::<String>::new());
}

#[test]
fn red_step_look_alike_names_the_missing_settings() {
    // the ns-3 preset's EWMA (q_weight 0.002) and hard drops
    let text = DCTCP
        .replace(" q_weight = 1.0,", "")
        .replace(" hard_drop = false", "");
    let w = warnings(&text);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("link bottleneck r0->r1: "), "{w:?}");
    assert!(
        w[0].contains("q_weight = 1 (it averages with w_q = 0.0020)"),
        "{w:?}"
    );
    assert!(
        w[0].contains("hard_drop = false") && w[0].contains("RFC 8257"),
        "{w:?}"
    );
    let lacks = w[0].split(": it marks").next().unwrap();
    assert!(!lacks.contains("gentle"), "gentle is off: {w:?}");
    // thresholds apart are RED, not a step
    let text = text.replace("max_th = 10", "max_th = 30");
    assert_eq!(warnings(&text), Vec::<String>::new());
}

#[test]
fn dctcp_over_a_queue_that_does_not_mark() {
    let text = DCTCP.replace(
        "queue = { kind = \"red\", preset = \"ns3\", limit = \"200p\", min_th = 10, max_th = 10, q_weight = 1.0, gentle = false, ecn = true, hard_drop = false }",
        "queue = { kind = \"droptail\", limit = \"100p\" }",
    );
    let w = warnings(&text);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("flow tcp0: cc = \"dctcp\" reads ECN marks, but no queue"),
        "{w:?}"
    );
}

#[test]
fn dctcp_through_a_switch_that_marks_does_not_warn() {
    // the bottleneck's sender side r0 is a shared-buffer switch: its port marks at K, which
    // the link's own droptail queue does not show
    let text = DCTCP.replace(
        "queue = { kind = \"red\", preset = \"ns3\", limit = \"200p\", min_th = 10, max_th = 10, q_weight = 1.0, gentle = false, ecn = true, hard_drop = false }",
        "queue = { kind = \"droptail\", limit = \"100p\" }",
    );
    let marking = format!(
        "{text}[switches.r0]\nbuffer = \"400p\"\npolicy = \"dynamic_threshold\"\nalpha = 1.0\necn_threshold = \"20p\"\n"
    );
    assert_eq!(warnings(&marking), Vec::<String>::new());
    let per_queue = format!(
        "{text}[switches.r0]\nbuffer = \"400p\"\npolicy = \"dynamic_threshold\"\nalpha = 1.0\n[switches.r0.queues.bottleneck]\necn_threshold = \"20p\"\n"
    );
    assert_eq!(warnings(&per_queue), Vec::<String>::new());
    let silent = format!(
        "{text}[switches.r0]\nbuffer = \"400p\"\npolicy = \"dynamic_threshold\"\nalpha = 1.0\n"
    );
    let w = warnings(&silent);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("no queue on its path marks"), "{w:?}");
}

#[test]
fn l4s_without_its_halves() {
    // DualPI2 with classic senders only
    let l4s = DCTCP
        .replace(
            "queue = { kind = \"red\", preset = \"ns3\", limit = \"200p\", min_th = 10, max_th = 10, q_weight = 1.0, gentle = false, ecn = true, hard_drop = false }",
            "queue = { kind = \"dualpi2\" }",
        )
        .replace("cc = \"dctcp\", ecn = true", "cc = \"cubic\"");
    let w = warnings(&l4s);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("no flow crossing it sends ECT(1)"), "{w:?}");
    // the recipe: a Prague sender
    let prague = l4s.replace("cc = \"cubic\"", "cc = \"prague\", ecn = true");
    assert_eq!(warnings(&prague), Vec::<String>::new());
    // an ECT(1) sender into classic RED marking
    let classic = DCTCP
        .replace(
            "min_th = 10, max_th = 10, q_weight = 1.0, gentle = false, ",
            "",
        )
        .replace("cc = \"dctcp\"", "cc = \"prague\"");
    let w = warnings(&classic);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("sends ECT(1) (L4S) into classic-only ECN marking (link bottleneck r0->r1)"),
        "{w:?}"
    );
}

#[test]
fn a_class_queue_is_sized_in_its_own_unit() {
    // examples/weighted_red_udp.toml: 10 Mbit/s bottleneck, RTT 2 x (1 + 10 + 1) ms = 24 ms,
    // a 200-byte and a 1500-byte UDP source: 0.5 BDP = 15 000 B over a mean packet of 850 B =
    // 17.6 -> 18 packets (RED's paper003 preset counts packets by default)
    let text = include_str!("../../../examples/weighted_red_udp.toml");
    let both = resolve_with(
        text,
        &["links.bottleneck.queue.classes.0.queue.limit=0.5BDP"],
    );
    let s = sized(&both, "bottleneck", "r0");
    assert_eq!(s.as_array().unwrap().len(), 1, "{s}");
    assert_eq!(
        s[0]["field"],
        "links.bottleneck.queue.classes[0].queue.limit"
    );
    assert_eq!(
        (&s[0]["resolved"], &s[0]["packet_size_bytes"]),
        (&"18p".into(), &850.0.into())
    );
    let q = &both["scenario"]["links"]["bottleneck"]["queue"]["classes"];
    assert_eq!(
        (&q[0]["queue"]["limit"], &q[1]["queue"]["limit"]),
        (&"0.5BDP".into(), &"30000B".into())
    );
}
