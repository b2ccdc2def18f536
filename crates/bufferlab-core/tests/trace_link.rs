//! Links whose capacity varies (`net/capacity/`, docs/models/trace_links.md) in whole runs: a
//! backlogged link replaying a Mahimahi trace carries exactly the trace's opportunities, each
//! packet reaches the far node an opportunity's instant plus the delay later, a one-entry rate
//! schedule is a fixed link, and the files and values a scenario gives are checked.

mod common;
use bufferlab_core::api::{run, RunRequest};
use bufferlab_core::monitor::ns2_trace::TraceFilter;
use common::{cbr_dumbbell, queue};
use std::path::PathBuf;

/// A fresh folder for one test's scenario files.
fn folder(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bufferlab-trace-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Five opportunities every 10 ms (three at 2 ms, one at 5, one at 10): 6.016 Mbit/s.
const TRACE: &str = "2\n2\n2\n5\n10\n";

/// One 12 Mbit/s CBR flow of 1500-byte packets into a bottleneck whose table gets `capacity`
/// (lines replacing its rate).
fn scenario(capacity: &str, duration: &str) -> String {
    cbr_dumbbell(
        "trace-link",
        ("1Mbps", "10ms"),
        r#"{ kind = "droptail", limit = "100p" }"#,
        ("12Mbps", "1500B"),
    )
    .duration(duration)
    .toml()
    .replace(
        "[links.bottleneck]\nrate = \"1Mbps\"\n",
        &format!("[links.bottleneck]\n{capacity}\n"),
    )
}

fn run_in(
    dir: &std::path::Path,
    text: &str,
    trace: Option<&std::path::Path>,
) -> Result<bufferlab_core::report::Report, String> {
    run(&RunRequest {
        text,
        source: "trace.toml",
        base_dir: Some(dir),
        ns2_trace: trace,
        trace_filter: TraceFilter {
            links: vec!["bottleneck".into()],
            events: "r".into(),
            ..Default::default()
        },
        ..Default::default()
    })
    .map_err(|e| e.to_string())
}

#[test]
fn a_backlogged_trace_link_carries_the_trace_capacity_at_its_opportunities() {
    let dir = folder("capacity");
    std::fs::write(dir.join("t.trace"), TRACE).unwrap();
    let out = dir.join("run.tr");
    // 1999.5 ms: the 200 periods' opportunities but the last (at 2000 ms)
    let r = run_in(
        &dir,
        &scenario("trace = \"t.trace\"", "1999.5ms"),
        Some(&out),
    )
    .unwrap();
    let b = queue(&r, "bottleneck", "r0");
    // 999 opportunities; the first packet (at 1.012 ms) is alone at the three of 2 ms, two of
    // which are lost; from 5 ms on the 12 Mbit/s offer keeps the queue backlogged
    assert_eq!(b.departures, 997);
    let link = r
        .links
        .iter()
        .find(|l| l.link == "bottleneck" && l.from == "r0")
        .unwrap();
    assert_eq!(link.tx_bytes, 997 * 1500);
    assert_eq!(link.rate_bps, 6_016_000);
    // every packet reaches r1 10 ms after an opportunity (ms 2, 5 or 10 of a period)
    let text = std::fs::read_to_string(&out).unwrap();
    let mut n = 0;
    for line in text.lines().filter(|l| l.starts_with("r ")) {
        let t: f64 = line.split(' ').nth(1).unwrap().parse().unwrap();
        let ms = ((t - 0.010) * 1000.0).round() as u64;
        assert!(((t - 0.010) * 1000.0 - ms as f64).abs() < 1e-6, "{line}");
        assert!(matches!(ms % 10, 2 | 5 | 0), "{line}");
        n += 1;
    }
    assert!(n > 990, "{n}");
    // an idle link loses its opportunities: at 3 Mbit/s offered (a quarter of them used in
    // the mean, each a 1500-byte packet) nothing queues for long and the link carries the
    // offer, not the trace's capacity
    let light = scenario("trace = \"t.trace\"", "1999.5ms")
        .replace("rate = \"12Mbps\"", "rate = \"3Mbps\"");
    let r = run_in(&dir, &light, None).unwrap();
    let b = queue(&r, "bottleneck", "r0");
    assert_eq!(b.drops, 0);
    assert!(b.departures < 510 && b.departures > 490, "{}", b.departures);
}

#[test]
fn a_one_entry_schedule_is_a_fixed_link() {
    let dir = folder("schedule");
    let fixed = run_in(&dir, &scenario("rate = \"6Mbps\"", "2s"), None).unwrap();
    let sched = run_in(
        &dir,
        &scenario("rate_schedule = [[\"0s\", \"6Mbps\"]]", "2s"),
        None,
    )
    .unwrap();
    let (a, b) = (&fixed.flows[0], &sched.flows[0]);
    assert_eq!((a.rx_bytes, a.lost_packets), (b.rx_bytes, b.lost_packets));
    assert_eq!(
        (a.delay_mean_s, a.delay_max_s),
        (b.delay_mean_s, b.delay_max_s)
    );
    // and a schedule slowing to a quarter after 1 s carries 6 Mbit/s, then 1.5
    let slow = run_in(
        &dir,
        &scenario(
            "rate_schedule = [[\"0s\", \"6Mbps\"], [\"1s\", \"1.5Mbps\"]]",
            "2s",
        ),
        None,
    )
    .unwrap();
    let link = slow
        .links
        .iter()
        .find(|l| l.link == "bottleneck" && l.from == "r0")
        .unwrap();
    assert_eq!(link.rate_bps, 3_750_000);
    // 6 Mbit/s from the first packet (1.012 ms) to 1 s, 1.5 Mbit/s for the next second
    let bits = link.tx_bytes as f64 * 8.0;
    let expect = 6e6 * (1.0 - 0.001_012) + 1.5e6;
    assert!(
        (bits - expect).abs() <= 2.0 * 12_000.0,
        "{bits} vs {expect}"
    );
}

#[test]
fn files_and_values_are_checked_naming_the_field() {
    let dir = folder("errors");
    std::fs::write(dir.join("bad.trace"), "1\n2\nx3\n").unwrap();
    std::fs::write(dir.join("t.trace"), TRACE).unwrap();
    let err = |cap: &str| run_in(&dir, &scenario(cap, "1s"), None).unwrap_err();
    let e = err("trace = \"bad.trace\"");
    assert!(
        e.contains("links.bottleneck.trace") && e.contains("line 3"),
        "{e}"
    );
    let e = err("trace = \"../t.trace\"");
    assert!(
        e.contains("links.bottleneck.trace") && e.contains("outside"),
        "{e}"
    );
    let e = err("trace = \"/etc/hostname\"");
    assert!(
        e.contains("links.bottleneck.trace") && e.contains("outside"),
        "{e}"
    );
    // a link inside the folder leading out of it
    let away = folder("errors-away");
    std::fs::write(away.join("t.trace"), TRACE).unwrap();
    std::os::unix::fs::symlink(away.join("t.trace"), dir.join("link.trace")).unwrap();
    let e = err("trace = \"link.trace\"");
    assert!(
        e.contains("links.bottleneck.trace") && e.contains("outside"),
        "{e}"
    );
    let e = err("trace = \"missing.trace\"");
    assert!(
        e.contains("links.bottleneck.trace") && e.contains("cannot open"),
        "{e}"
    );
    let e = err("rate = \"1Mbps\"\ntrace = \"t.trace\"");
    assert!(
        e.contains("links.bottleneck.rate") && e.contains("remove `rate`"),
        "{e}"
    );
    let e = err("trace = \"t.trace\"\nrate_schedule = [[\"0s\", \"1Mbps\"]]");
    assert!(
        e.contains("links.bottleneck.rate_schedule") && e.contains("not both"),
        "{e}"
    );
    let e = err("rate_schedule = [[\"1s\", \"1Mbps\"]]");
    assert!(e.contains("links.bottleneck.rate_schedule[0]"), "{e}");
    let e = err("trace = \"t.trace\"\ndevice_queue = 1");
    assert!(
        e.contains("links.bottleneck.device_queue") && e.contains("not modelled"),
        "{e}"
    );
    let e = run_in(
        &dir,
        &format!("clock = \"ns2\"\n{}", scenario("trace = \"t.trace\"", "1s")),
        None,
    )
    .unwrap_err();
    assert!(
        e.contains("links.bottleneck.trace") && e.contains("not modelled"),
        "{e}"
    );
}
