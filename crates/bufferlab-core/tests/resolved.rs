//! The resolved scenario (`bufferlab validate --json`): what the core built, every default
//! filled in, checked against values worked out by hand from the sources the defaults cite.

mod common;

use bufferlab_core::api::{resolve_json, RunRequest};
use serde_json::Value;

fn resolve(text: &str) -> Value {
    let json = resolve_json(&RunRequest {
        text,
        source: "test.toml",
        seed: Some(1),
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_str::<Value>(&json).unwrap()["resolved"].clone()
}

fn flow<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["flows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap()
}

fn bottleneck_queue(r: &Value) -> &Value {
    &r["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["link"] == "bottleneck" && l["from"] == "r0")
        .unwrap()["queue"]
}

fn hops(path: &Value) -> Vec<String> {
    path.as_array()
        .unwrap()
        .iter()
        .map(|h| {
            format!(
                "{}:{}->{}",
                h["link"].as_str().unwrap(),
                h["from"].as_str().unwrap(),
                h["to"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn paths_rtt_and_tcp_sizes_are_the_built_ones() {
    let text = common::Dumbbell::new(2)
        .duration("1s")
        .access("100Mbps", "3ms")
        .bottleneck("10Mbps", "20ms")
        .flow(
            r#"name = "ns2"
src = "s0"
dst = "d0"
app = { kind = "bulk" }
tcp = { preset = "ns2", mss = 1000 }"#,
        )
        .flow(
            r#"name = "lin"
src = "s1"
dst = "d1"
app = { kind = "bulk" }
tcp = { preset = "linux" }"#,
        )
        .toml();
    let r = resolve(&text);
    let f = flow(&r, "ns2");
    assert_eq!(
        hops(&f["path"]),
        ["access_s0:s0->r0", "bottleneck:r0->r1", "access_d0:r1->d0"]
    );
    assert_eq!(
        hops(&f["reverse_path"]),
        ["access_d0:d0->r1", "bottleneck:r1->r0", "access_s0:r0->s0"]
    );
    // 2 x (3 + 20 + 3) ms
    assert!((f["rtt_propagation_s"].as_f64().unwrap() - 0.052).abs() < 1e-12);
    // ns-2 Agent/TCP: packetSize_ 1000 plus the 40-byte header ns-2 adds
    assert_eq!(f["packet_size"], 1040);
    assert_eq!(f["tcp"]["mss_bytes"], 1000);
    assert_eq!(f["tcp"]["header_bytes"], 40);
    assert_eq!(f["tcp"]["rules"], "ns2");
    // Linux: MSS 1448 with timestamps, 52-byte headers, IW 10, CUBIC
    let l = flow(&r, "lin");
    assert_eq!(l["tcp"]["cc"], "cubic");
    assert_eq!(l["tcp"]["initial_window_segments"], 10);
    assert_eq!(
        l["packet_size"].as_u64().unwrap(),
        l["tcp"]["segment_on_wire_bytes"].as_u64().unwrap()
    );
    assert_eq!(bottleneck_queue(&r)["discipline"], "droptail");
    assert!(r["warnings"].as_array().unwrap().is_empty());
}

#[test]
fn red_ns2_preset_resolves_automatic_thresholds() {
    // ns-2 RED initialize_params: ptc = C / (8 mean_pktsize) = 10e6 / 4000 = 2500 packets/s,
    // th_min = max(5, targetdelay 5 ms x ptc / 2 = 6.25) packets, th_max = 3 th_min; byte mode
    // counts them in mean_pktsize (500 B) units: 3125 and 9375 bytes.
    let text = common::Dumbbell::new(1)
        .duration("1s")
        .queue(r#"{ kind = "red", preset = "ns2", limit = "100p" }"#)
        .flow(
            r#"name = "f"
src = "s0"
dst = "d0"
app = { kind = "bulk" }"#,
        )
        .toml();
    let r = resolve(&text);
    let s = &bottleneck_queue(&r)["settings"];
    assert_eq!(s["unit"], "bytes");
    assert!((s["min_th"].as_f64().unwrap() - 3125.0).abs() < 1e-9, "{s}");
    assert!((s["max_th"].as_f64().unwrap() - 9375.0).abs() < 1e-9, "{s}");
    assert_eq!(s["limit"], "50000B");
    assert!(r["warnings"].as_array().unwrap().is_empty());
}

#[test]
fn red_limit_below_max_th_is_warned_in_resolve_and_report() {
    // th_max 9375 B (see above) against a 10-packet (5000 B) limit
    let text = common::Dumbbell::new(1)
        .duration("1s")
        .queue(r#"{ kind = "red", preset = "ns2", limit = "10p" }"#)
        .flow(
            r#"name = "f"
src = "s0"
dst = "d0"
app = { kind = "bulk" }"#,
        )
        .toml();
    let r = resolve(&text);
    let w = r["warnings"].as_array().unwrap();
    assert_eq!(w.len(), 2, "{w:?}"); // both directions of the bottleneck
    let first = w[0].as_str().unwrap();
    assert!(first.starts_with("link bottleneck r0->r1:"), "{first}");
    assert!(
        first.contains("5000 bytes") && first.contains("9375 bytes"),
        "{first}"
    );
    assert!(first.contains("raise `limit`"), "{first}");
    let report = common::run_text(&text, 1);
    assert_eq!(report.warnings.len(), 2);
    // and a limit above max_th is quiet
    let ok = text.replace("limit = \"10p\"", "limit = \"20p\"");
    assert!(resolve(&ok)["warnings"].as_array().unwrap().is_empty());
}

#[test]
fn a_random_start_is_the_one_drawn_for_the_seed() {
    let text = common::Dumbbell::new(1)
        .duration("3s")
        .flow(
            r#"name = "f"
src = "s0"
dst = "d0"
app = { kind = "bulk" }
start = { kind = "uniform", min = "1s", max = "2s" }"#,
        )
        .toml();
    let start = flow(&resolve(&text), "f")["start_s"].as_f64().unwrap();
    assert!((1.0..=2.0).contains(&start), "{start}");
    let report = common::run_text(&text, 1);
    assert_eq!(common::flow(&report, "f").start_s, start);
}
