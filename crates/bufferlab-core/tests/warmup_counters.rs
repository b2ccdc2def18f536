//! Every number of the report covers [warm-up, end] (issue #36): a run with warm-up w (report
//! A) must report what the same run without a warm-up counts between w and its end, that is
//! its report at its end (C) less its report at w (B, `Session::report_now` after every event
//! before w). The reports are walked generically: a numeric field whose path
//! `monitor::fields::FIELDS` does not classify fails the test with its path, so a new counter
//! cannot slip past.

use bufferlab_core::api::RunRequest;
use bufferlab_core::monitor::fields::{kind_of, Kind};
use bufferlab_core::session::Session;
use serde_json::Value;
use std::collections::BTreeMap;

/// TCP with losses and timeouts (a tiny buffer, random losses both ways), a web and a file
/// transfer (one starts before the warm-up, one after it), DCTCP and CUBIC, UDP, a classful bottleneck (RED with ECN marks per class, a
/// DropTail class) and every series.
const MIX: &str = r#"
name = "warmup-mix"
duration = "12s"
seed = 3
[topology]
kind = "dumbbell"
pairs = 5
[links.access]
rate = "100Mbps"
delay = "1ms"
[links.bottleneck]
rate = "6Mbps"
delay = "10ms"
loss = { kind = "bernoulli", rate = 0.005 }
reverse_loss = { kind = "bernoulli", rate = 0.005 }
[links.bottleneck.queue]
kind = "classful"
scheduler = "drr"
classes = [
  { name = "tcp", match = 0, weight = 2, queue = { kind = "red", limit = "25p", min_th = 3, max_th = 9, ecn = true } },
  { name = "udp", match = "default", weight = 1, queue = { kind = "droptail", limit = "8p" } },
]
[[flows]]
name = "reno"
src = "s0"
dst = "d0"
class = 0
app = { kind = "bulk" }
tcp = { cc = "reno", window = "100p" }
[[flows]]
name = "dctcp"
src = "s1"
dst = "d1"
class = 0
app = { kind = "bulk" }
tcp = { preset = "ns3", cc = "dctcp", ecn = true }
[[flows]]
name = "web"
src = "s2"
dst = "d2"
class = 0
app = { kind = "web", object_size = { kind = "pareto", mean = "20KB", shape = 1.5 }, think_time = { kind = "exponential", mean = "200ms" } }
tcp = { preset = "linux" }
[[flows]]
name = "file"
src = "s3"
dst = "d3"
class = 0
start = "1s"
app = { kind = "transfer", size = "3MB" }
tcp = { cc = "newreno", handshake = true }
[[flows]]
name = "short"
src = "s3"
dst = "d3"
class = 0
start = "6s"
app = { kind = "transfer", size = "80KB" }
tcp = { preset = "linux" }
[[flows]]
name = "cbr"
src = "s4"
dst = "d4"
class = 1
app = { kind = "cbr", rate = "2.5Mbps", packet_size = "700B" }
[monitor]
queue_interval = "100ms"
queues = ["bottleneck"]
cwnd_interval = "100ms"
flow_interval = "500ms"
"#;

/// The reports A (warm-up `w`), B (no warm-up, at `w`) and C (no warm-up, at the end).
fn reports(text: &str, w: f64, set: &[&str]) -> [Value; 3] {
    let session = |warmup: f64| {
        let mut o: Vec<String> = set.iter().map(|s| s.to_string()).collect();
        o.push(format!("warmup={warmup}s"));
        Session::new(&RunRequest {
            text,
            source: "test.toml",
            overrides: &o,
            ..Default::default()
        })
        .unwrap_or_else(|e| panic!("{e}"))
    };
    let json = |r| serde_json::to_value(r).unwrap();
    let a = json(session(w).finish().unwrap());
    let mut s = session(0.0);
    s.run_before(w).unwrap();
    let b = json(s.report_now());
    let c = json(s.finish().unwrap());
    [a, b, c]
}

fn is_series(k: Option<Kind>) -> bool {
    matches!(
        k,
        Some(Kind::SeriesTime | Kind::SeriesValue | Kind::SeriesCohort)
    )
}

/// The numeric leaves of a report (null included: a number not defined), by their concrete
/// path, with the path's form in `FIELDS`; a series is one leaf (its whole list).
fn leaves(v: &Value, norm: &str, path: &str, out: &mut BTreeMap<String, (String, Value)>) {
    let join = |a: &str, b: &str| {
        if a.is_empty() {
            b.to_string()
        } else {
            format!("{a}.{b}")
        }
    };
    match v {
        Value::Object(m) => {
            // a map's keys are data (`drops_by_reason.queue_full`): `*` in FIELDS
            let is_map = |n: &str| {
                let star = format!("{n}.*");
                bufferlab_core::monitor::fields::FIELDS
                    .iter()
                    .any(|(p, _)| *p == star || p.starts_with(&format!("{star}.")))
            };
            let map = is_map(norm);
            for (k, x) in m {
                let n = join(norm, if map { "*" } else { k });
                leaves(x, &n, &join(path, k), out);
            }
        }
        Value::Array(items) => {
            // a class nested in a class reads as a class
            let n = format!("{norm}[]").replace("classes[].classes[]", "classes[]");
            if is_series(kind_of(&n)) {
                out.insert(path.to_string(), (n, v.clone()));
                return;
            }
            for (i, x) in items.iter().enumerate() {
                leaves(x, &n, &format!("{path}[{i}]"), out);
            }
        }
        Value::Number(_) | Value::Null => {
            out.insert(path.to_string(), (norm.to_string(), v.clone()));
        }
        _ => {}
    }
}

fn f(v: Option<&Value>) -> Option<f64> {
    v.and_then(Value::as_f64)
}

fn u(v: Option<&Value>) -> u64 {
    v.and_then(Value::as_u64).unwrap_or(0)
}

fn close(x: f64, y: f64) -> bool {
    (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1e-9)
}

/// The value of a sibling field of `path` (the field `name` beside it).
fn sibling<'a>(
    all: &'a BTreeMap<String, (String, Value)>,
    path: &str,
    name: &str,
) -> Option<&'a Value> {
    let parent = &path[..path.rfind('.').map_or(0, |i| i + 1)];
    all.get(&format!("{parent}{name}")).map(|(_, v)| v)
}

/// The flow of a path `flows[i]...`: its report in `r`.
fn flow_of<'a>(r: &'a Value, path: &str) -> &'a Value {
    let i: usize = path["flows[".len()..path.find(']').unwrap()]
        .parse()
        .unwrap();
    &r["flows"][i]
}

/// Checks every numeric field; returns the failures in words.
fn check(name: &str, [a, b, c]: &[Value; 3], w: f64) -> Vec<String> {
    let (mut la, mut lb, mut lc) = (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
    leaves(a, "", "", &mut la);
    leaves(b, "", "", &mut lb);
    leaves(c, "", "", &mut lc);
    let end = c["sim_time_s"].as_f64().unwrap();
    let mut bad = Vec::new();
    let mut paths: Vec<&String> = la.keys().chain(lb.keys()).chain(lc.keys()).collect();
    paths.sort();
    paths.dedup();
    for path in paths {
        let norm = [&la, &lb, &lc]
            .iter()
            .find_map(|l| l.get(path))
            .map(|(n, _)| n.clone())
            .unwrap();
        let (va, vb, vc) = (
            la.get(path).map(|x| &x.1),
            lb.get(path).map(|x| &x.1),
            lc.get(path).map(|x| &x.1),
        );
        let Some(kind) = kind_of(&norm) else {
            if [va, vb, vc].iter().any(|v| v.is_some_and(Value::is_number)) {
                bad.push(format!(
                    "{path} ({norm}): a number no kind in monitor::fields::FIELDS describes"
                ));
            }
            continue;
        };
        let mut fail = |what: String| bad.push(format!("{name}: {path} ({kind:?}): {what}"));
        let field = norm.rsplit('.').next().unwrap();
        match kind {
            // checked as a whole below (`check_started`)
            Kind::Run | Kind::CohortStat | Kind::Started => {}
            Kind::Setting | Kind::Gauge => {
                if va != vc {
                    fail(format!("{va:?} with the warm-up, {vc:?} without"));
                }
            }
            Kind::Counter => {
                let (x, y, z) = (u(va), u(vb), u(vc));
                if x + y != z {
                    fail(format!(
                        "{x} from the warm-up on, but {z} - {y} = {} counted from it",
                        z as i64 - y as i64
                    ));
                }
            }
            Kind::Cohort => {
                let (x, y, z) = (u(va), u(vb), u(vc));
                if field.starts_with("tx_") || field.starts_with("reverse_tx") {
                    if x + y != z {
                        fail(format!(
                            "{x} sent from the warm-up on, {z} - {y} sent from it"
                        ));
                    }
                } else if field != "in_flight_packets" {
                    // what the packets of the warm-up in flight at w did after it
                    let late = z as i64 - y as i64 - x as i64;
                    let in_flight = u(flow_of(b, path).get("in_flight_packets"))
                        + u(flow_of(b, path).get("reverse_tx_packets"));
                    if late < 0 || (field.ends_with("_packets") && late as u64 > in_flight) {
                        fail(format!(
                            "{x} with the warm-up, {z} - {y} without: {late} late"
                        ));
                    }
                }
            }
            Kind::TimeAverage => {
                let (x, y, z) = (f(va).unwrap(), f(vb).unwrap(), f(vc).unwrap());
                if !close(x * (end - w), z * end - y * w) {
                    fail(format!(
                        "{x} over [w, end], {} from the run without",
                        (z * end - y * w) / (end - w)
                    ));
                }
            }
            Kind::MeanOf(n) => {
                let na = u(sibling(&la, path, n));
                let (nb, nc) = (u(sibling(&lb, path, n)), u(sibling(&lc, path, n)));
                let sum = |v: Option<&Value>, k: u64| f(v).unwrap_or(0.0) * k as f64;
                let want = sum(vc, nc) - sum(vb, nb);
                if !close(sum(va, na), want) && (sum(va, na) - want).abs() > 1e-9 {
                    fail(format!(
                        "mean {va:?} of {na}, the run without: {}",
                        want / na as f64
                    ));
                }
            }
            Kind::Max | Kind::Min => {
                if let (Some(x), Some(z)) = (f(va), f(vc)) {
                    if (kind == Kind::Max && x > z) || (kind == Kind::Min && x < z) {
                        fail(format!("{x} past the whole run's {z}"));
                    }
                }
            }
            Kind::Quantile(max) => {
                if let (Some(x), Some(m)) = (f(va), f(sibling(&la, path, max))) {
                    if x > m {
                        fail(format!("{x} above its maximum {m}"));
                    }
                }
            }
            Kind::SeriesTime | Kind::SeriesValue | Kind::SeriesCohort => {
                let xa = va.and_then(Value::as_array).cloned().unwrap_or_default();
                let xc = vc.and_then(Value::as_array).cloned().unwrap_or_default();
                if xa.len() > xc.len() {
                    fail(format!("{} samples, more than the run without", xa.len()));
                    continue;
                }
                let tail = &xc[xc.len() - xa.len()..];
                if kind == Kind::SeriesTime && xa.iter().any(|t| t.as_f64().unwrap() < w - 1e-12) {
                    fail(format!("a sample before the warm-up {w}"));
                }
                if kind != Kind::SeriesCohort && xa != tail {
                    fail("not the run without's samples from the warm-up on".into());
                }
            }
        }
    }
    bad.extend(check_started(name, a, c, w));
    bad
}

/// The `fct` section with the warm-up holds exactly the transfers of the run without that
/// start at or after it, record for record, and its buckets count those.
fn check_started(name: &str, a: &Value, c: &Value, w: f64) -> Vec<String> {
    let mut bad = Vec::new();
    let records = |r: &Value| r["fct"]["flows"].as_array().cloned().unwrap_or_default();
    let after_w: Vec<Value> = records(c)
        .into_iter()
        .filter(|r| r["start_s"].as_f64().unwrap() >= w - 1e-12)
        .collect();
    let with_w = records(a);
    if with_w != after_w {
        bad.push(format!(
            "{name}: fct.flows: {} records with the warm-up, {} of the run without start after it",
            with_w.len(),
            after_w.len()
        ));
    }
    for b in a["fct"]["buckets"].as_array().into_iter().flatten() {
        // (min_bytes, max_bytes], the last bucket unbounded
        let lo = b["min_bytes"].as_u64().unwrap();
        let hi = b["max_bytes"].as_u64().unwrap_or(u64::MAX);
        let inside = after_w
            .iter()
            .filter(|r| (lo + 1..=hi).contains(&r["size_bytes"].as_u64().unwrap()))
            .count() as u64;
        let counted = u(b.get("count")) + u(b.get("unfinished"));
        if counted != inside {
            bad.push(format!(
                "{name}: fct bucket {}: {counted} transfers counted, {inside} start after the warm-up",
                b["bucket"]
            ));
        }
    }
    bad
}

fn assert_covers_warmup(name: &str, text: &str, w: f64, set: &[&str]) {
    let r = reports(text, w, set);
    let bad = check(name, &r, w);
    assert!(bad.is_empty(), "{} fields:\n{}", bad.len(), bad.join("\n"));
    // the scenario did what it is here for
    let a = &r[0];
    let sum =
        |pick: &dyn Fn(&Value) -> u64| a["flows"].as_array().unwrap().iter().map(pick).sum::<u64>();
    let tcp = |k: &'static str| move |fl: &Value| fl["tcp"][k].as_u64().unwrap_or(0);
    if name == "mix" {
        assert!(sum(&tcp("timeouts")) > 0 && sum(&tcp("fast_retransmits")) > 0);
        assert!(sum(&tcp("objects_completed")) > 0);
        // a transfer before the warm-up (left out) and one after it (kept)
        assert_eq!(r[2]["fct"]["flows"].as_array().unwrap().len(), 2);
        assert_eq!(a["fct"]["flows"].as_array().unwrap().len(), 1);
        let classes = a["queues"]
            .as_array()
            .unwrap()
            .iter()
            .find(|q| q["classes"].is_array())
            .unwrap();
        assert!(classes["classes"][0]["marks"].as_u64().unwrap() > 0);
        assert!(classes["classes"][1]["drops"].as_u64().unwrap() > 0);
    }
}

#[test]
fn a_mix_of_tcp_udp_and_classes_counts_from_the_warmup() {
    assert_covers_warmup("mix", MIX, 4.0, &[]);
}

#[test]
fn dualpi2_classes_count_from_the_warmup() {
    let text = include_str!("../../../examples/l4s_dualpi2.toml");
    assert_covers_warmup("l4s_dualpi2", text, 3.0, &["duration=8s"]);
}

#[test]
fn red_marks_count_from_the_warmup() {
    let text = include_str!("../../../examples/dctcp_red_step.toml");
    assert_covers_warmup("dctcp_red_step", text, 2.0, &["duration=5s"]);
}

#[test]
fn the_walk_reaches_tcp_and_class_fields() {
    // the walk above reaches the fields this test is for
    let [_, b, c] = reports(MIX, 4.0, &[]);
    let mut l = BTreeMap::new();
    leaves(&c, "", "", &mut l);
    leaves(&b, "", "", &mut l);
    assert!(l.values().any(|(n, _)| n == "flows[].tcp.timeouts"));
    assert!(l
        .values()
        .any(|(n, _)| n == "queues[].classes[].sojourn_p99_s"));
}
