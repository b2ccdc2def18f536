//! Bad input gets one message naming the file, the line where known, the field, and what is
//! allowed. (The CLI turns these into exit code 2; see tests/test_cli.py.)

mod common;
use common::run_err;

const GOOD: &str = r#"duration = "5s"
[topology]
kind = "dumbbell"
pairs = 1
[links.access]
rate = "100Mbps"
delay = "1ms"
[links.bottleneck]
rate = "10Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = "20p" }
[[flows]]
src = "s0"
dst = "d0"
app = { kind = "cbr", rate = "1Mbps" }
"#;

fn with(from: &str, to: &str) -> String {
    assert!(GOOD.contains(from), "{from}");
    GOOD.replacen(from, to, 1)
}

#[test]
fn the_good_scenario_runs() {
    common::run_text(GOOD, 1);
}

// ---- types and keys ----
#[test]
fn unknown_key_names_the_key_the_line_and_the_allowed_keys() {
    // Inside a table chosen by `kind` (topology, queue, app, loss) serde buffers the table, so
    // the position is the table's own line and the path stops at the table.
    let e = run_err(&with("pairs = 1", "pairs = 1\npears = 2"), &[]);
    assert!(e.starts_with("bad.toml:2:"), "{e}");
    assert!(e.contains("pears") && e.contains("topology"), "{e}");
    let e = run_err(&with("[[flows]]", "[[flows]]\nsorce = \"x\""), &[]);
    assert!(
        e.contains("unknown field `sorce`") && e.contains("src"),
        "{e}"
    );
}

#[test]
fn wrong_unit_names_field_and_forms() {
    let e = run_err(&with("rate = \"10Mbps\"", "rate = \"10Mbpz\""), &[]);
    assert!(e.contains("links.bottleneck.rate"), "{e}");
    assert!(
        e.contains("unknown rate unit") && e.contains("10Mbps"),
        "{e}"
    );
    assert!(e.starts_with("bad.toml:9:"), "{e}");
}

#[test]
fn negative_and_zero_rates() {
    let e = run_err(&with("rate = \"10Mbps\"", "rate = \"-10Mbps\""), &[]);
    assert!(
        e.contains("links.bottleneck.rate") && e.contains("positive"),
        "{e}"
    );
    let e = run_err(&with("rate = \"10Mbps\"", "rate = 0"), &[]);
    assert!(
        e.contains("links.bottleneck.rate") && e.contains("positive"),
        "{e}"
    );
}

#[test]
fn missing_required_field() {
    let e = run_err(&with("duration = \"5s\"\n", ""), &[]);
    assert!(e.contains("duration"), "{e}");
    let e = run_err(&with("rate = \"10Mbps\"\n", ""), &[]);
    assert!(
        e.contains("links.bottleneck.rate") && e.contains("missing"),
        "{e}"
    );
}

#[test]
fn syntax_error_has_a_line() {
    let e = run_err(&with("pairs = 1", "pairs = = 1"), &[]);
    assert!(
        e.starts_with("bad.toml:4:") && e.contains("TOML syntax"),
        "{e}"
    );
}

// ---- meaning ----
#[test]
fn unconnected_flow_endpoints() {
    let text = r#"duration = "5s"
[topology]
kind = "custom"
nodes = ["a", "b", "c"]
[links.ab]
between = ["a", "b"]
rate = "1Mbps"
delay = "1ms"
[[flows]]
src = "a"
dst = "c"
app = { kind = "cbr", rate = "100kbps" }
"#;
    let e = run_err(text, &[]);
    assert!(
        e.contains("flows[0].dst") && e.contains("not connected"),
        "{e}"
    );
}

#[test]
fn unknown_node_lists_nodes() {
    let e = run_err(&with("dst = \"d0\"", "dst = \"d7\""), &[]);
    assert!(
        e.contains("flows[0].dst") && e.contains("unknown node \"d7\"") && e.contains("s0"),
        "{e}"
    );
}

#[test]
fn buffer_smaller_than_one_packet() {
    let e = run_err(&with("limit = \"20p\"", "limit = \"500B\""), &[]);
    assert!(
        e.contains("links.bottleneck.queue.limit")
            && e.contains("smaller than one 1000-byte packet"),
        "{e}"
    );
    let e = run_err(&with("limit = \"20p\"", "limit = \"0p\""), &[]);
    assert!(e.contains("links.bottleneck.queue.limit"), "{e}");
}

#[test]
fn probabilities_and_times() {
    let e = run_err(
        &with(
            "queue = {",
            "loss = { kind = \"bernoulli\", rate = 1.5 }\nqueue = {",
        ),
        &[],
    );
    assert!(
        e.contains("links.bottleneck.loss.rate") && e.contains("between 0 and 1"),
        "{e}"
    );
    let e = run_err(&with("[[flows]]", "[[flows]]\nstart = \"9s\""), &[]);
    assert!(e.contains("flows[0].start"), "{e}");
    let e = run_err(
        &with("duration = \"5s\"", "duration = \"5s\"\nwarmup = \"6s\""),
        &[],
    );
    assert!(e.contains("warmup"), "{e}");
}

// ---- overrides are checked like the file ----
#[test]
fn overrides() {
    let e = run_err(GOOD, &["links.bottleneck.queue.limit=10 parsecs"]);
    assert!(
        e.contains("links.bottleneck.queue") && e.contains("\"10 parsecs\" is not a queue limit"),
        "{e}"
    );
    let e = run_err(GOOD, &["links.bottleneck.rate"]);
    assert!(e.contains("dotted.path=value"), "{e}");
    let e = run_err(GOOD, &["flows.3.src=s0"]);
    assert!(e.contains("has 1 entries"), "{e}");
    let e = run_err(GOOD, &["links.bottleneck.queue.limit=500B"]);
    assert!(e.contains("smaller than one"), "{e}");
}

#[test]
fn both_simulator_flavours_at_once_name_the_field() {
    let tcp = r#"app = { kind = "bulk" }
tcp = { preset = "ns3", ns2_rules = true }"#;
    let e = run_err(&with(r#"app = { kind = "cbr", rate = "1Mbps" }"#, tcp), &[]);
    assert!(e.contains("flows[0].tcp.ns2_rules"), "{e}");
    assert!(e.contains("turn one off"), "{e}");
}

#[test]
fn a_clock_phase_outside_ns2_tick_clock_names_the_field_and_the_bound() {
    let bulk = |tcp: &str| {
        with(
            r#"app = { kind = "cbr", rate = "1Mbps" }"#,
            &format!("app = {{ kind = \"bulk\" }}\ntcp = {tcp}"),
        )
    };
    let e = run_err(&bulk(r#"{ preset = "ns2", clock_phase = "10ms" }"#), &[]);
    assert!(e.contains("flows[0].tcp.clock_phase"), "{e}");
    assert!(e.contains("below clock_granularity (0.01 s"), "{e}");
    let e = run_err(&bulk(r#"{ preset = "linux", clock_phase = "1ms" }"#), &[]);
    assert!(e.contains("flows[0].tcp.clock_phase"), "{e}");
    assert!(e.contains("preset = \"ns2\""), "{e}");
    common::run_text(&bulk(r#"{ preset = "ns2", clock_phase = "9.99ms" }"#), 1);
}

#[test]
fn a_random_start_that_is_not_a_time_or_a_distribution_says_both_forms() {
    let e = run_err(
        &with(
            r#"app = { kind = "cbr", rate = "1Mbps" }"#,
            "start = true\napp = { kind = \"cbr\", rate = \"1Mbps\" }",
        ),
        &[],
    );
    assert!(e.contains("flows") && e.contains("start"), "{e}");
    assert!(e.contains(r#"kind = "uniform""#), "{e}");
    let e = run_err(
        &with(
            r#"app = { kind = "cbr", rate = "1Mbps" }"#,
            "start = { kind = \"uniform\", min = \"2s\", max = \"1s\" }\napp = { kind = \"cbr\", rate = \"1Mbps\" }",
        ),
        &[],
    );
    assert!(
        e.contains("flows[0].start") && e.contains("max must not be below min"),
        "{e}"
    );
}

// ---- values no network has, and series that would not fit in memory ----
#[test]
fn physical_bounds_name_the_field_and_the_bound() {
    let cases: [(&[&str], &str, &str); 5] = [
        (
            &["flows.0.app.rate=1e40bps"],
            "flows[0].app.rate",
            "at most 10Tbps",
        ),
        (
            &["links.bottleneck.rate=20Tbps"],
            "links.bottleneck.rate",
            "at most 10Tbps",
        ),
        (
            &["monitor.queue_interval=1ps"],
            "monitor.queue_interval",
            "at least 1us",
        ),
        (
            &["monitor.queue_interval=1us", "duration=100s"],
            "monitor.queue_interval",
            "2.000e8 samples",
        ),
        (
            &["monitor.queue_interval=1us", "duration=100s"],
            "monitor.queue_interval",
            "give at least 10us",
        ),
    ];
    for (overrides, field, fix) in cases {
        let e = run_err(GOOD, overrides);
        assert!(e.contains(field) && e.contains(fix), "{overrides:?}: {e}");
    }
    // the largest sensible values still run
    common::run_text(&with("rate = \"10Mbps\"", "rate = \"10Tbps\""), 1);
}

#[test]
fn a_time_beyond_the_clock_is_refused_not_wrapped() {
    // u64 picoseconds reach 18 446 744 s (213 days): 1e30 s once became 18 446 744 s silently
    let text = common::Dumbbell::new(1)
        .duration("1e30s")
        .flow("name = \"f\"\nsrc = \"s0\"\ndst = \"d0\"\napp = { kind = \"bulk\" }")
        .toml();
    let e = common::run_err(&text, &[]);
    assert!(e.contains("duration") && e.contains("213 days"), "{e}");
    assert!(e.contains("18446744s"), "{e}");
}

#[test]
fn a_run_that_would_pass_the_memory_budget_is_refused_before_it_starts() {
    use bufferlab_core::api::{run, RunRequest};
    use bufferlab_core::guard::Limits;
    // 100 flows x 13 KB = 1.3 MB of flow state (and 201 links x 3 KB) against a 1 MB budget:
    // refused from the scenario before the network is built (`scenario/bounds.rs`)
    let text = common::Dumbbell::new(100)
        .duration("1s")
        .flow("name = \"f{i}\"\ncount = 100\nsrc = \"s{i}\"\ndst = \"d{i}\"\napp = { kind = \"bulk\" }")
        .toml();
    let req = |max: u64| RunRequest {
        text: &text,
        source: "big.toml",
        limits: Limits {
            max_wall: None,
            max_memory_bytes: Some(max),
        },
        ..Default::default()
    };
    let e = run(&req(1_000_000)).expect_err("refused").to_string();
    assert!(
        e.contains("flows[0].count: the network would hold about 1.9 MB")
            && e.contains("100 flows x 13 KB = 1.3 MB"),
        "{e}"
    );
    assert!(e.contains("--max-memory 1 MB"), "{e}");
    // with room for it, the same scenario runs (the run's own check then watches the rest)
    assert!(run(&req(1 << 40)).is_ok());
}

// ---- topology builders ----
#[test]
fn parking_lot_links_and_hops_name_the_field() {
    let good = r#"duration = "1s"
[topology]
kind = "parking_lot"
hops = 2
[links.hop]
rate = "10Mbps"
delay = "10ms"
[links.access]
rate = "100Mbps"
delay = "1ms"
[[flows]]
src = "ls"
dst = "ld"
app = { kind = "bulk" }
"#;
    common::run_text(good, 1);
    let e = run_err(&good.replace("[links.hop]", "[links.hops]"), &[]);
    assert!(
        e.contains("links.hops") && e.contains("access_cs{i}"),
        "{e}"
    );
    let e = run_err(good, &["topology.hops=0"]);
    assert!(e.contains("topology.hops"), "{e}");
    // hops 0 and 1 exist; hop2 does not
    let e = run_err(good, &["links.hop2.rate=1Mbps"]);
    assert!(e.contains("links.hop2"), "{e}");
    let e = run_err(&good.replace("delay = \"10ms\"", ""), &[]);
    assert!(e.contains("links.hop.delay"), "{e}");
}

#[test]
fn mmpp_values_name_the_field() {
    let mmpp = |rates: &str, sojourns: &str| {
        with(
            r#"app = { kind = "cbr", rate = "1Mbps" }"#,
            &format!(
                r#"app = {{ kind = "mmpp", rates = [{rates}], mean_sojourns = [{sojourns}] }}"#
            ),
        )
    };
    common::run_text(&mmpp(r#""2Mbps", "10kbps""#, r#""100ms", "1s""#), 1);
    let e = run_err(&mmpp(r#""2Mbps", "0bps""#, r#""100ms", "1s""#), &[]);
    assert!(e.contains("flows[0].app") && e.contains("positive"), "{e}");
    let e = run_err(&mmpp(r#""2Mbps", "1Mbps""#, r#""100ms", "0s""#), &[]);
    assert!(e.contains("flows[0].app.mean_sojourns[1]"), "{e}");
    let e = run_err(&mmpp(r#""2Mbps", "1e40bps""#, r#""100ms", "1s""#), &[]);
    assert!(e.contains("flows[0].app.rates[1]"), "{e}");
    // inside a table chosen by `kind` the path stops at the table (see the first tests)
    let e = run_err(&mmpp(r#""2Mbps""#, r#""100ms", "1s""#), &[]);
    assert!(e.contains("flows[0].app") && e.contains("length 2"), "{e}");
}

// ---- DCTCP / Prague need ECN; DualPI2's values are checked ----
#[test]
fn l4s_settings_name_the_field() {
    let e = run_err(
        &with(
            "app = { kind = \"cbr\", rate = \"1Mbps\" }",
            "app = { kind = \"bulk\" }\ntcp = { cc = \"dctcp\" }",
        ),
        &[],
    );
    assert!(e.contains("tcp.ecn") && e.contains("set ecn = true"), "{e}");
    let e = run_err(
        &with(
            "queue = { kind = \"droptail\", limit = \"20p\" }",
            "queue = { kind = \"dualpi2\", c_protection = 150 }",
        ),
        &[],
    );
    assert!(
        e.contains("links.bottleneck.queue.c_protection") && e.contains("0 to 100"),
        "{e}"
    );
}

#[test]
fn rem_and_rio_bad_parameters_name_the_field_and_the_fix() {
    let e = run_err(
        &with(
            "queue = { kind = \"droptail\", limit = \"20p\" }",
            "queue = { kind = \"rem\", phi = 0.9 }",
        ),
        &[],
    );
    assert!(
        e.contains("links.bottleneck.queue.phi") && e.contains("base > 1"),
        "{e}"
    );
    let e = run_err(
        &with(
            "queue = { kind = \"droptail\", limit = \"20p\" }",
            "queue = { kind = \"rio\", out_min_th = 9, out_max_th = 3 }",
        ),
        &[],
    );
    assert!(
        e.contains("links.bottleneck.queue.out_max_th") && e.contains("above out_min_th"),
        "{e}"
    );
}

// ---- flow names are unique (checked with a set since issue #19; was a scan per flow) ----
#[test]
fn a_flow_name_used_twice_is_an_error_naming_the_entry() {
    let twice = format!(
        "{GOOD}[[flows]]\nname = \"a1\"\nsrc = \"s0\"\ndst = \"d0\"\napp = {{ kind = \"cbr\", rate = \"1Mbps\" }}\n\
         [[flows]]\nname = \"a\"\ncount = 2\nsrc = \"s0\"\ndst = \"d0\"\napp = {{ kind = \"cbr\", rate = \"1Mbps\" }}\n"
    );
    let e = run_err(&twice, &[]);
    assert!(
        e.contains("flows[2].name") && e.contains("flow name \"a1\" is used twice"),
        "{e}"
    );
}

// ---- max_datagram (ns-2's Agent/UDP packetSize_ splitting a larger message) ----
#[test]
fn max_datagram_no_larger_than_the_header_or_on_tcp_is_an_error() {
    let small = with(
        "app = { kind = \"cbr\"",
        "max_datagram = \"28B\"\napp = { kind = \"cbr\"",
    );
    let e = run_err(&small, &[]);
    assert!(
        e.contains("flows[0].max_datagram") && e.contains("larger than the 28B header"),
        "{e}"
    );
    let tcp = with(
        "app = { kind = \"cbr\", rate = \"1Mbps\" }",
        "max_datagram = \"1000B\"\napp = { kind = \"bulk\" }",
    );
    let e = run_err(&tcp, &[]);
    assert!(
        e.contains("flows[0].max_datagram") && e.contains("TCP"),
        "{e}"
    );
}

// ---- a policer's values (qdisc/police.rs) ----
#[test]
fn policer_values_name_the_field() {
    let police = |extra: &str| {
        with(
            r#"queue = { kind = "droptail", limit = "20p" }"#,
            &format!(r#"queue = {{ kind = "police", rate = "2Mbps", burst = "15KB"{extra} }}"#),
        )
    };
    common::run_text(&police(""), 1);
    let e = run_err(&police(r#", peak_rate = "4Mbps""#), &[]);
    assert!(e.contains("links.bottleneck.queue.peak_burst"), "{e}");
    let e = run_err(
        &police(r#", peak_rate = "1Mbps", peak_burst = "30KB""#),
        &[],
    );
    assert!(
        e.contains("links.bottleneck.queue.peak_rate") && e.contains("PIR >= CIR"),
        "{e}"
    );
    let e = run_err(&police(r#", yellow = "drop""#), &[]);
    assert!(e.contains("links.bottleneck.queue.yellow"), "{e}");
    let e = run_err(&police(r#", exceed = "shout""#), &[]);
    assert!(e.contains("exceed") || e.contains("shout"), "{e}");
}

// ---- CAKE: bad values name the field and the fix (qdisc/cake/config.rs) ----
#[test]
fn cake_values_name_the_field_and_the_fix() {
    for (queue, field, fix) in [
        (
            r#"{ kind = "cake", overhead = 500 }"#,
            "overhead",
            "-64 to 256",
        ),
        (
            r#"{ kind = "cake", bandwidth = "100bps" }"#,
            "bandwidth",
            "512bps",
        ),
        (
            r#"{ kind = "cake", target = "200ms" }"#,
            "target",
            "below the rtt",
        ),
        (
            r#"{ kind = "cake", memlimit = "100B" }"#,
            "memlimit",
            "one packet",
        ),
        (
            r#"{ kind = "cake", flow_modes = "flows" }"#,
            "flow_modes",
            "flow_mode",
        ),
    ] {
        let e = run_err(
            &with(
                "queue = { kind = \"droptail\", limit = \"20p\" }",
                &format!("queue = {queue}"),
            ),
            &[],
        );
        assert!(
            e.contains(&format!("links.bottleneck.queue.{field}")) && e.contains(fix),
            "{queue}: {e}"
        );
    }
    // an unknown flow mode lists the modes
    let e = run_err(
        &with(
            "queue = { kind = \"droptail\", limit = \"20p\" }",
            "queue = { kind = \"cake\", flow_mode = \"triple\" }",
        ),
        &[],
    );
    assert!(e.contains("triple_isolate"), "{e}");
}
