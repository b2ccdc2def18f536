//! ns-2 trace files: AWK one-liners of the kind the papers used give, from a bufferlab trace,
//! the same numbers as bufferlab's own measurements; every line has ns-2's 12 fields.

mod common;
use bufferlab_core::api::{run, RunRequest};
use bufferlab_core::monitor::ns2_trace::TraceFilter;
use std::process::Command;

fn scenario() -> String {
    common::Dumbbell::new(2)
        .duration("10s")
        .bottleneck("2Mbps", "20ms")
        .queue(r#"{ kind = "droptail", limit = "20p", flavour = "ns2" }"#)
        .loss(r#"{ kind = "bernoulli", rate = 0.01 }"#)
        .flow(r#"name = "cbr"
src = "s0"
dst = "d0"
app = { kind = "cbr", rate = "1.5Mbps", packet_size = "1000B" }"#)
        .flow(r#"name = "exp"
src = "s1"
dst = "d1"
app = { kind = "onoff", rate = "1Mbps", packet_size = "500B", on_time = { kind = "exponential", mean = "300ms" }, off_time = { kind = "exponential", mean = "300ms" } }"#)
        .toml()
}

fn awk(program: &str, file: &std::path::Path) -> String {
    let out = Command::new("awk")
        .arg(program)
        .arg(file)
        .output()
        .expect("awk runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn traced(filter: TraceFilter) -> (bufferlab_core::report::Report, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!(
        "bufferlab-ns2-{}-{}",
        std::process::id(),
        filter.events.len()
            + filter.links.len()
            + 10 * filter.error_drops.len()
            + 100 * filter.show_tcphdr as usize
            + 1000 * filter.directions.len()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("out.tr");
    let r = run(&RunRequest {
        text: &scenario(),
        source: "t.toml",
        seed: Some(3),
        overrides: &[],
        ns2_trace: Some(&path),
        trace_filter: filter,
        ..Default::default()
    })
    .unwrap();
    (r, path)
}

// ---- AWK on the trace agrees with bufferlab's own numbers ----
#[test]
fn awk_one_liners_reproduce_the_measurements() {
    let (r, path) = traced(TraceFilter::default());
    // Nodes: s0=0 s1=1 d0=2 d1=3 r0=4 r1=5; flow ids 0 and 1.
    let rx_bytes = awk(r#"$1=="r" && $4==2 && $8==0 {b+=$6} END {print b}"#, &path);
    let f = common::flow(&r, "cbr");
    assert_eq!(rx_bytes.parse::<u64>().unwrap(), f.rx_bytes);
    let thr = awk(
        r#"$1=="r" && $4==2 && $8==0 {b+=$6} END {printf "%.0f", b*8/10}"#,
        &path,
    );
    assert_eq!(thr.parse::<f64>().unwrap(), f.throughput_bps.round());
    let drops = awk(r#"$1=="d" && $3==4 && $4==5 {n++} END {print n}"#, &path);
    let q = common::queue(&r, "bottleneck", "r0");
    let link = r
        .links
        .iter()
        .find(|l| l.link == "bottleneck" && l.from == "r0")
        .unwrap();
    assert_eq!(drops.parse::<u64>().unwrap(), q.drops + link.lost_packets);
    let sent = awk(r#"$1=="+" && $3==1 && $8==1 {n++} END {print n}"#, &path);
    assert_eq!(
        sent.parse::<u64>().unwrap(),
        common::flow(&r, "exp").tx_packets
    );
    // every line has the 12 fields of ns-2's wired trace, in ns-2's order and forms
    let bad = awk(
        r#"NF!=12 || $1 !~ /^[-+rd]$/ || length($7)!=7 || $7 ~ /[^-CPAEFN]/ || $9 !~ /^[0-9]+\.[0-9]+$/ || ($5!="cbr" && $5!="exp") {n++} END {print n+0}"#,
        &path,
    );
    assert_eq!(bad, "0");
    std::fs::remove_file(&path).ok();
}

// ---- filters: only the chosen link and events ----
#[test]
fn filter_limits_links_and_events() {
    let (r, path) = traced(TraceFilter {
        links: vec!["bottleneck".into()],
        flows: vec![],
        events: "d".into(),
        ..Default::default()
    });
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.lines().all(
        |l| l.starts_with("d 4 5 ") || l.starts_with("d ") && l.split(' ').nth(2) == Some("4")
    ));
    let q = common::queue(&r, "bottleneck", "r0");
    let link = r
        .links
        .iter()
        .find(|l| l.link == "bottleneck" && l.from == "r0")
        .unwrap();
    assert_eq!(text.lines().count() as u64, q.drops + link.lost_packets);
    std::fs::remove_file(&path).ok();
}

// ---- directions: only the chosen link directions (an ns-2 script's trace-queue) ----
#[test]
fn directions_limit_the_trace_to_those_link_directions() {
    let (_, path) = traced(TraceFilter {
        directions: vec![("r0".into(), "r1".into())],
        ..Default::default()
    });
    let text = std::fs::read_to_string(&path).unwrap();
    let mut kinds: Vec<&str> = text.lines().map(|l| &l[..1]).collect();
    kinds.sort_unstable();
    kinds.dedup();
    assert_eq!(kinds, ["+", "-", "d", "r"]);
    assert!(text
        .lines()
        .all(|l| l.split(' ').nth(2) == Some("4") && l.split(' ').nth(3) == Some("5")));
    std::fs::remove_file(&path).ok();
    let err = run(&RunRequest {
        text: &scenario(),
        source: "t.toml",
        ns2_trace: Some(&std::env::temp_dir().join("bufferlab-ns2-no-such-direction.tr")),
        trace_filter: TraceFilter {
            directions: vec![("r1".into(), "s0".into())],
            ..Default::default()
        },
        ..Default::default()
    })
    .map(|_| ())
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("no link goes from \"r1\" to \"s0\""),
        "{err}"
    );
}

// ---- EDrop: random losses of a chosen direction written as `e` ----
#[test]
fn error_drops_are_written_as_e_on_their_direction() {
    let (r, path) = traced(TraceFilter {
        events: "de".into(),
        error_drops: vec![("r0".into(), "r1".into())],
        ..Default::default()
    });
    let text = std::fs::read_to_string(&path).unwrap();
    let count = |c: &str| text.lines().filter(|l| l.starts_with(c)).count() as u64;
    let q = common::queue(&r, "bottleneck", "r0");
    let link = r
        .links
        .iter()
        .find(|l| l.link == "bottleneck" && l.from == "r0")
        .unwrap();
    assert!(link.lost_packets > 0 && q.drops > 0);
    assert_eq!(count("e "), link.lost_packets);
    let queue_drops = text
        .lines()
        .filter(|l| l.starts_with("d ") && l.split(' ').nth(2) == Some("4"))
        .count() as u64;
    assert_eq!(count("d "), queue_drops);
    assert_eq!(queue_drops, q.drops);
    std::fs::remove_file(&path).ok();
    let bad = run(&RunRequest {
        text: &scenario(),
        ns2_trace: Some(&path),
        trace_filter: TraceFilter {
            error_drops: vec![("r1".into(), "s0".into())],
            ..Default::default()
        },
        ..Default::default()
    });
    assert!(format!("{:?}", bad.err()).contains("no link goes from"));
}

// ---- trace_fid: the flow id of the trace lines ----
#[test]
fn trace_fid_replaces_the_flow_index() {
    let text = scenario().replacen("name = \"exp\"", "name = \"exp\"\ntrace_fid = 42", 1);
    let path = std::env::temp_dir().join(format!("bufferlab-fid-{}.tr", std::process::id()));
    run(&RunRequest {
        text: &text,
        ns2_trace: Some(&path),
        ..Default::default()
    })
    .unwrap();
    let trace = std::fs::read_to_string(&path).unwrap();
    let fid = |kind: &str| {
        let l = trace
            .lines()
            .find(|l| l.split(' ').nth(4) == Some(kind))
            .unwrap();
        l.split(' ').nth(7).unwrap().to_string()
    };
    assert_eq!(fid("cbr"), "0"); // default: the flow's index
    assert_eq!(fid("exp"), "42");
    std::fs::remove_file(&path).ok();
    let too_big = scenario().replacen(
        "name = \"exp\"",
        "name = \"exp\"\ntrace_fid = 2147483648",
        1,
    );
    let err = run(&RunRequest {
        text: &too_big,
        ..Default::default()
    })
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(err.contains("flows[1].trace_fid"), "{err}");
}

// ---- show_tcphdr: ns-2's `Trace set show_tcphdr_ 1` adds the TCP header fields ----
#[test]
fn show_tcphdr_adds_four_fields_to_every_line() {
    // every event, as the default filter (a filter of its own: its own file)
    let (_, plain) = traced(TraceFilter {
        events: "+-rd".into(),
        ..Default::default()
    });
    let plain = std::fs::read_to_string(&plain).unwrap();
    let (_, path) = traced(TraceFilter {
        events: "+-rd".into(),
        show_tcphdr: true,
        ..Default::default()
    });
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), plain.lines().count());
    for (line, base) in text.lines().zip(plain.lines()) {
        let rest = line
            .strip_prefix(base)
            .expect("the same line, then the header fields");
        let fields: Vec<&str> = rest.split(' ').collect();
        assert_eq!(&fields[..4], &["", "0", "0x0", "0"], "{line}");
        let sa_length: usize = fields[4].parse().unwrap();
        let is_ack = line.split(' ').nth(4) == Some("ack");
        assert!(sa_length <= 3 && (is_ack || sa_length == 0), "{line}");
    }
    std::fs::remove_file(&path).ok();
}
