//! A shared-buffer switch's priority classes run end to end (`net/shared_buffer/port.rs`,
//! docs/models/shared_buffer.md): two UDP senders into one 1 Gbit/s switch port, their flows of
//! class 0 and 1, each port queue drawing from the switch's buffer. The numbers printed are
//! the ones docs/validation.md quotes ("Priority classes").

mod common;

use common::run_text;
use serde_json::Value;

/// s0 and s1 -> sw -> d over 10 Gbit/s links into a 1 Gbit/s port; flow `hi` (class 0) from
/// s0, flow `lo` (class 1) from s1, their apps `hi` and `lo` (TOML inline tables), `extra`
/// added to both; `switch` is the rest of `[switches.sw]`. 60 ms, measured from 20 ms.
fn two_classes(hi: &str, lo: &str, switch: &str, flows_extra: &str) -> Value {
    let cbr = |rate: &str| {
        if rate.starts_with('{') {
            rate.to_string()
        } else {
            format!("{{ kind = \"cbr\", rate = \"{rate}\", packet_size = \"1000B\" }}")
        }
    };
    let (hi, lo) = (cbr(hi), cbr(lo));
    let text = format!(
        r#"duration = "60ms"
warmup = "20ms"
seed = 1
[topology]
kind = "custom"
nodes = ["s0", "s1", "sw", "d"]
[links.up0]
between = ["s0", "sw"]
rate = "10Gbps"
delay = "1us"
[links.up1]
between = ["s1", "sw"]
rate = "10Gbps"
delay = "1us"
[links.down]
between = ["sw", "d"]
rate = "1Gbps"
delay = "1us"
[switches.sw]
{switch}
[[flows]]
name = "hi"
src = "s0"
dst = "d"
class = 0
app = {hi}
{flows_extra}
[[flows]]
name = "lo"
src = "s1"
dst = "d"
class = 1
app = {lo}
{flows_extra}
"#
    );
    serde_json::to_value(run_text(&text, 1)).expect("report as JSON")
}

fn flow<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["flows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap()
}

/// The switch's port onto `down`, and its queue of each priority.
fn down(r: &Value) -> (&Value, &Vec<Value>) {
    let q = r["queues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["link"] == "down" && q["from"] == "sw")
        .unwrap();
    (q, q["classes"].as_array().expect("a queue per priority"))
}

/// What the port sent of priority `p` over the 40 ms measured, in Mbit/s (the port's own
/// count: a flow's `throughput_bps` counts the packets it sent after the warm-up, so a flow
/// whose packets wait 5 ms in the switch is short of 5 ms of its rate).
fn mbps(r: &Value, p: usize) -> f64 {
    let (_, classes) = down(r);
    classes[p]["departure_bytes"].as_f64().unwrap() * 8.0 / 0.04 / 1e6
}

#[test]
fn strict_priority_serves_the_high_class_first() {
    let r = two_classes(
        "700Mbps",
        "2Gbps",
        r#"buffer = "400p"
policy = "dynamic_threshold"
alpha = 1.0
priorities = [{}, {}]"#,
        "",
    );
    let (port, classes) = down(&r);
    let (hi, lo) = (mbps(&r, 0), mbps(&r, 1));
    println!(
        "strict priority: hi {hi:.1} Mbit/s (lost {}), lo {lo:.1} Mbit/s; hi queue avg {} max {}, lo queue avg {}",
        flow(&r, "hi")["lost_packets"],
        classes[0]["avg_packets"],
        classes[0]["max_packets"],
        classes[1]["avg_packets"]
    );
    assert_eq!(port["discipline"], "shared_buffer");
    assert_eq!(flow(&r, "hi")["lost_packets"], 0);
    // its offered 700 Mbit/s, and the low class the rest of the 1 Gbit/s
    assert!((hi - 700.0).abs() < 1.0, "{hi}");
    assert!((hi + lo - 1000.0).abs() < 1.0, "{hi} + {lo}");
    // the high queue holds at most the packet that arrived while one was on the wire
    assert!(classes[0]["max_packets"].as_u64().unwrap() <= 1);
    assert!(classes[0]["avg_packets"].as_f64().unwrap() < 0.5);
    assert!(
        classes[1]["drops_by_reason"]["shared_threshold"]
            .as_u64()
            .unwrap()
            > 0
    );
    // the pool reports each priority's queue of the port
    let sw = &r["switches"][0];
    let pq: Vec<&Value> = sw["queues"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["link"] == "down")
        .collect();
    assert_eq!(pq.len(), 2);
    assert_eq!(
        (pq[0]["priority"].as_u64(), pq[1]["priority"].as_u64()),
        (Some(0), Some(1))
    );
    assert_eq!(pq[0]["drops_threshold"], 0);
}

#[test]
fn drr_weights_divide_the_port() {
    for (w0, w1) in [(3u32, 1u32), (1, 1), (1, 4)] {
        let r = two_classes(
            "2Gbps",
            "2Gbps",
            &format!(
                r#"buffer = "400p"
policy = "dynamic_threshold"
alpha = 1.0
scheduler = "drr"
priorities = [{{ weight = {w0} }}, {{ weight = {w1} }}]"#
            ),
            "",
        );
        let (hi, lo) = (mbps(&r, 0), mbps(&r, 1));
        let share = hi / (hi + lo);
        let want = w0 as f64 / (w0 + w1) as f64;
        println!("drr {w0}:{w1}: {hi:.1} / {lo:.1} Mbit/s, share {share:.4}, want {want:.4}");
        assert!((share - want).abs() < 0.01, "{w0}:{w1}: {share} vs {want}");
    }
}

#[test]
fn per_priority_alpha_settles_at_the_closed_form() {
    // both queues overloaded: q_i = alpha_i B / (1 + sum alpha) (Choudhury and Hahne section
    // III, an alpha per queue); B = 400, alphas 0.5 and 2 give 57.1 and 228.6 packets
    for scheduler in ["priority", "drr"] {
        let r = two_classes(
            "2Gbps",
            "2Gbps",
            &format!(
                r#"buffer = "400p"
policy = "dynamic_threshold"
scheduler = "{scheduler}"
priorities = [{{ alpha = 0.5 }}, {{ alpha = 2.0 }}]"#
            ),
            "",
        );
        let (_, classes) = down(&r);
        for (c, alpha) in [(0, 0.5), (1, 2.0)] {
            let want = alpha * 400.0 / (1.0 + 2.5);
            let got = classes[c]["avg_packets"].as_f64().unwrap();
            println!("{scheduler}: priority {c} alpha {alpha}: avg {got:.2} packets, closed form {want:.2}");
            assert!(
                (got - want).abs() <= 1.0,
                "{scheduler} {c}: {got} vs {want}"
            );
        }
    }
}

#[test]
fn ecn_threshold_marks_its_queue_only() {
    // two DCTCP bulk flows (ns-3's DCTCP, ECT(0) data), K = 20 packets on priority 1 only
    let r = two_classes(
        r#"{ kind = "bulk" }"#,
        r#"{ kind = "bulk" }"#,
        r#"buffer = "400p"
policy = "dynamic_threshold"
alpha = 1.0
scheduler = "drr"
priorities = [{}, { ecn_threshold = "20p" }]"#,
        r#"tcp = { preset = "ns3", cc = "dctcp", ecn = true }"#,
    );
    let (_, classes) = down(&r);
    println!(
        "ecn: priority 0 marks {}, priority 1 marks {} of {} departures",
        classes[0]["marks"], classes[1]["marks"], classes[1]["departures"]
    );
    assert_eq!(classes[0]["marks"], 0);
    assert!(classes[1]["marks"].as_u64().unwrap() > 1000);
    let sw = &r["switches"][0];
    assert_eq!(sw["marks"], classes[1]["marks"]);
}

#[test]
fn a_priority_without_alpha_is_named_in_the_error() {
    let text = r#"duration = "1ms"
[topology]
kind = "custom"
nodes = ["a", "sw", "b"]
[links.l0]
between = ["a", "sw"]
rate = "1Gbps"
delay = "1us"
[links.l1]
between = ["sw", "b"]
rate = "1Gbps"
delay = "1us"
[switches.sw]
buffer = "100p"
policy = "dynamic_threshold"
priorities = [{ alpha = 1.0 }, {}]
"#;
    let e = common::run_err(text, &[]);
    assert!(e.contains("switches.sw.alpha"), "{e}");
    assert!(e.contains("priorities[1].alpha"), "{e}");
    assert!(e.contains("queues.l0.priorities[1].alpha"), "{e}");
    // given for one port's queue of priority 1, it is still missing on the other port
    let e = common::run_err(
        &format!("{text}queues.l0.priorities = [{{}}, {{ alpha = 2.0 }}]\n"),
        &[],
    );
    assert!(e.contains("queues.l1.priorities[1].alpha"), "{e}");
    // given for every port, the switch builds
    let ok =
        format!("{text}queues.l0.alpha = 2.0\nqueues.l1.priorities = [{{}}, {{ alpha = 2.0 }}]\n[[flows]]\nname = \"f\"\nsrc = \"a\"\ndst = \"b\"\napp = {{ kind = \"cbr\", rate = \"1Mbps\" }}\n");
    let r = common::run_text(&ok, 1);
    assert_eq!(r.queues.len(), 4);
}

#[test]
fn validate_resolves_each_priority_queue() {
    // `bufferlab validate --json`: the port's settings, each queue's resolved from the tables
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/datacenter/priority_classes.toml"
    ))
    .unwrap();
    let json = bufferlab_core::api::resolve_json(&bufferlab_core::api::RunRequest {
        text: &text,
        source: "priority_classes.toml",
        seed: Some(1),
        overrides: &["switches.tor.scheduler=\"drr\"".to_string()],
        ..Default::default()
    })
    .unwrap();
    let v: Value = serde_json::from_str(&json).unwrap();
    let down = v["resolved"]["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["link"] == "down" && l["from"] == "tor")
        .unwrap();
    let s = &down["queue"]["settings"];
    assert_eq!(down["queue"]["discipline"], "shared_buffer");
    assert_eq!(s["scheduler"], "drr");
    assert_eq!(s["quantum"], "1500B");
    assert_eq!(s["priorities"][0]["alpha"], 4.0);
    assert_eq!(s["priorities"][1]["ecn_threshold"], "65p");
    assert_eq!(s["priorities"][1]["weight"], 1);
}
