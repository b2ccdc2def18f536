//! Per-flow time series (`monitor.flow_interval`): the intervals add up to the run's totals,
//! and they follow what the sources do over time.

mod common;

#[test]
fn intervals_add_up_to_the_flow_totals() {
    // Two TCP flows and a UDP flow overloading a 10 Mbit/s bottleneck: sends, deliveries,
    // losses and ACKs in every interval, and their sums are the report's totals.
    let text = common::Dumbbell::new(3)
        .duration("10s")
        .set("warmup", "\"2s\"")
        .queue(r#"{ kind = "droptail", limit = "20p" }"#)
        .flow("name = \"a\"\nsrc = \"s0\"\ndst = \"d0\"\napp = { kind = \"bulk\" }")
        .flow("name = \"b\"\nsrc = \"s1\"\ndst = \"d1\"\napp = { kind = \"bulk\" }")
        .flow(
            "name = \"u\"\nsrc = \"s2\"\ndst = \"d2\"\napp = { kind = \"cbr\", rate = \"6Mbps\" }",
        )
        .monitor("flow_interval", "\"500ms\"")
        .toml();
    let r = common::run_text(&text, 3);
    assert_eq!(r.series.flows.len(), 3);
    for s in &r.series.flows {
        let f = common::flow(&r, &s.flow);
        // (10 - 2) s / 0.5 s, the first closing at warm-up + 0.5 s
        assert_eq!(s.t_s.len(), 16, "{}", s.flow);
        assert!((s.t_s[0] - 2.5).abs() < 1e-12 && (s.t_s[15] - 10.0).abs() < 1e-12);
        assert_eq!(s.tx_packets.iter().sum::<u64>(), f.tx_packets, "{}", s.flow);
        assert_eq!(s.rx_packets.iter().sum::<u64>(), f.rx_packets, "{}", s.flow);
        assert_eq!(
            s.lost_packets.iter().sum::<u64>(),
            f.lost_packets,
            "{}",
            s.flow
        );
        let mean_tput = s.throughput_bps.iter().sum::<f64>() / s.t_s.len() as f64;
        assert!(
            (mean_tput - f.throughput_bps).abs() < 1e-6 * f.throughput_bps,
            "{}",
            s.flow
        );
        let mean_good = s.goodput_bps.iter().sum::<f64>() / s.t_s.len() as f64;
        assert!(
            (mean_good - f.goodput_bps).abs() < 1e-6 * f.goodput_bps.max(1.0),
            "{}",
            s.flow
        );
    }
    let a = r.series.flows.iter().find(|s| s.flow == "a").unwrap();
    assert!(
        a.lost_packets.iter().sum::<u64>() > 0,
        "the bottleneck should drop"
    );
    assert!(
        a.acks_received.iter().all(|&n| n > 0),
        "ACKs in every interval"
    );
    let u = r.series.flows.iter().find(|s| s.flow == "u").unwrap();
    assert!(u.acks_received.iter().all(|&n| n == 0), "UDP has no ACKs");
}

#[test]
fn an_on_off_source_shows_its_periods() {
    // 1 s on at 2 Mbit/s, 1 s off, 1000-byte packets: 250 packets in each on-second, none in
    // each off-second, on an uncongested link.
    let text = common::Dumbbell::new(1)
        .duration("8s")
        .flow(
            r#"name = "oo"
src = "s0"
dst = "d0"
app = { kind = "onoff", rate = "2Mbps", on_time = { kind = "constant", value = "1s" }, off_time = { kind = "constant", value = "1s" } }"#,
        )
        .monitor("flow_interval", "\"1s\"")
        .monitor("flows", "[\"oo\"]")
        .toml();
    let r = common::run_text(&text, 1);
    let s = &r.series.flows[0];
    assert_eq!(s.tx_packets, [250, 0, 250, 0, 250, 0, 250, 0]);
    // deliveries lag by the path's delay (12 ms plus serialisation): the last few packets of
    // an on-second arrive early in the off-second; each pair of seconds delivers all 250
    for k in 0..4 {
        assert_eq!(s.rx_packets[2 * k] + s.rx_packets[2 * k + 1], 250);
        assert!(s.rx_packets[2 * k + 1] <= 4, "{:?}", s.rx_packets);
    }
    let wire = s.rx_packets[0] as f64 * 1000.0 * 8.0;
    assert!(
        (s.throughput_bps[0] - wire).abs() < 1e-6,
        "{}",
        s.throughput_bps[0]
    );
}

#[test]
fn flows_without_an_interval_is_an_error() {
    let text = common::Dumbbell::new(1)
        .duration("1s")
        .flow("name = \"f\"\nsrc = \"s0\"\ndst = \"d0\"\napp = { kind = \"bulk\" }")
        .monitor("flows", "[\"f\"]")
        .toml();
    let e = common::run_err(&text, &[]);
    assert!(
        e.contains("monitor.flows") && e.contains("flow_interval"),
        "{e}"
    );
    let e = common::run_err(
        &text.replace(
            "flows = [\"f\"]",
            "flows = [\"nope\"]\nflow_interval = \"1s\"",
        ),
        &[],
    );
    assert!(e.contains("monitor.flows[0]") && e.contains("nope"), "{e}");
}
