//! Queue disciplines with TCP, against the ns-2 peer (../shared/peers/ns2/RESULTS.md, beside
//! the repository): seed paper 004 (4 Reno flows, 2 Mb/s, limit 20) and paper 001 (RED and LALRED, 5 Reno + 5 CBR).

mod common;
use bufferlab_core::api::{run, RunRequest};
use common::drops_per_flow;
use serde_json::Value;

fn run_file(text: &str, overrides: &[String]) -> Value {
    let r = run(&RunRequest {
        text,
        source: "example.toml",
        overrides,
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    serde_json::to_value(&r).unwrap()
}

fn queue<'a>(r: &'a Value, from: &str) -> &'a Value {
    r["queues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["link"] == "bottleneck" && q["from"] == from)
        .unwrap()
}

/// Mean of RED's average-queue samples (`series.queues[].average`) at the bottleneck from `from`.
fn mean_red_average(r: &Value, from: &str) -> f64 {
    let s = r["series"]["queues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["link"] == "bottleneck" && q["from"] == from)
        .unwrap();
    let a: Vec<f64> = s["average"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_f64())
        .collect();
    a.iter().sum::<f64>() / a.len() as f64
}

// ---- paper 004: FQ, DRR, RED and DropTail under Reno, as the ns-2 peer ----
#[test]
fn paper004_reno_queue_comparison_matches_ns2() {
    let fq = run_file(include_str!("../../../examples/paper004_fq.toml"), &[]);
    // ns-2: no drops (per-flow queues of 50 > window 20), sent 12150/12039/11981/11942
    assert_eq!(drops_per_flow(&fq), vec![0, 0, 0, 0]);
    let sent: Vec<u64> = fq["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["tx_packets"].as_u64().unwrap())
        .collect();
    for (s, ns2) in sent.iter().zip([12150u64, 12039, 11981, 11942]) {
        assert!(
            (*s as f64 - ns2 as f64).abs() < 0.01 * ns2 as f64,
            "{sent:?}"
        );
    }
    assert!(fq["fairness"]["jain"].as_f64().unwrap() > 0.9999);

    let drr = run_file(include_str!("../../../examples/paper004_drr.toml"), &[]);
    // ns-2.35 on this scenario: Jain 0.999998 (peer paperD.tcl) and 0.99985 (the bench's node
    // order, bench/peers/ns2_dumbbell.tcl): the order of simultaneous events alone moves it
    // past 0.9999, so the bound is 0.9995 (bufferlab with ns-2's Reno rules: 0.9997).
    let jain = drr["fairness"]["jain"].as_f64().unwrap();
    assert!(jain > 0.9995, "{jain}");
    let d_drr: u64 = drops_per_flow(&drr).iter().sum(); // ns-2: 1200 / 1164 (bench order)
    assert!((1100..1260).contains(&d_drr), "{d_drr}");

    let dt = run_file(
        include_str!("../../../examples/paper004_droptail.toml"),
        &[],
    );
    let red = run_file(include_str!("../../../examples/paper004_red.toml"), &[]);
    let d_dt: u64 = drops_per_flow(&dt).iter().sum(); // ns-2: 1201
    let d_red: u64 = drops_per_flow(&red).iter().sum(); // ns-2: 1961
    let ratio = d_red as f64 / d_dt as f64; // ns-2: 1.63
    assert!((1.4..1.9).contains(&ratio), "RED {d_red} / DropTail {d_dt}");
    // RED keeps the queue short: ns-2 4.13 packets against 12.28 for DropTail
    let q_red = queue(&red, "r0")["avg_packets"].as_f64().unwrap();
    let q_dt = queue(&dt, "r0")["avg_packets"].as_f64().unwrap();
    assert!((3.5..5.0).contains(&q_red), "{q_red}");
    assert!((11.0..14.5).contains(&q_dt), "{q_dt}");
}

// ---- paper 001: RED with TCP and CBR, as the ns-2 peer's paper B ----
#[test]
fn paper001_red_matches_ns2() {
    let text = include_str!("../../../examples/paper001_red.toml");
    let (mut ave, mut inst) = (0.0, 0.0);
    for seed in 1..=3 {
        let r = run_file(text, &[format!("seed={seed}")]);
        ave += mean_red_average(&r, "n4") / 3.0;
        inst += queue(&r, "n4")["avg_packets"].as_f64().unwrap() / 3.0;
    }
    // ns-2 (5 seeds): RED ave_ 6.37, time-average queue 6.82 packets
    assert!((ave - 6.37).abs() < 0.4, "RED average {ave}");
    assert!((inst - 6.82).abs() < 0.5, "queue {inst}");
}

// ---- paper 001: LALRED against RED with TCP + CBR (what is true, not the paper's claim) ----
// The paper reports a lower mean average queue (4.56 against 4.97) *and* fewer losses. bufferlab's
// LALRED (docs/models/lalred.md) gives the fewer losses but not the shorter queue: its automaton
// pursues a non-dropping action, so RED's early drops between the thresholds stop and the average
// climbs towards max_th. If a change of the model ever made the claim hold, this test says so.
#[test]
fn lalred_vs_red_on_paper001_tcp() {
    let text = include_str!("../../../examples/paper001_red.toml");
    let mean_ave_and_drops = |kind: &str| {
        let (mut ave, mut drops) = (0.0, 0u64);
        for seed in 1..=3 {
            let r = run_file(
                text,
                &[
                    format!("links.bottleneck.queue.kind={kind}"),
                    format!("seed={seed}"),
                ],
            );
            ave += mean_red_average(&r, "n4") / 3.0;
            drops += queue(&r, "n4")["drops"].as_u64().unwrap();
        }
        (ave, drops)
    };
    let (red_ave, red_drops) = mean_ave_and_drops("red");
    let (lal_ave, lal_drops) = mean_ave_and_drops("lalred");
    eprintln!(
        "paper001 TCP+UDP, seeds 1-3: RED ave {red_ave:.2} drops {red_drops}; \
         LALRED ave {lal_ave:.2} drops {lal_drops}"
    );
    assert!(lal_drops < red_drops, "LALRED loses fewer packets");
    assert!(
        lal_ave > 1.5 * red_ave,
        "but its mean average queue is far longer, not shorter"
    );
}

// ---- paper 003's weighted RED: TCP and UDP in separate RED queues keep TCP's share ----
fn paper003(queue: &str) -> String {
    let mut d = common::Dumbbell::new(5)
        .set("name", "\"paper003-wred\"")
        .duration("60s")
        .set("warmup", "\"10s\"")
        .access("10Mbps", "1ms")
        .bottleneck("1Mbps", "20ms")
        .queue(queue);
    for i in 0..4 {
        d = d.flow(&format!(
            "name = \"tcp{i}\"\nsrc = \"s{i}\"\ndst = \"d{i}\"\nstart = \"{}s\"\napp = {{ kind = \"bulk\" }}\ntcp = {{ preset = \"ns2\", cc = \"reno\" }}",
            i as f64 * 0.2
        ));
    }
    d.flow("name = \"udp\"\nsrc = \"s4\"\ndst = \"d4\"\napp = { kind = \"cbr\", rate = \"2Mbps\", packet_size = \"1000B\" }")
        .toml()
}

#[test]
fn weighted_red_protects_tcp_from_a_udp_flood() {
    let tcp_sum = |r: &Value| -> f64 {
        r["flows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["protocol"] == "tcp")
            .map(|f| f["throughput_bps"].as_f64().unwrap())
            .sum()
    };
    let shared = run_file(
        &paper003(r#"{ kind = "red", preset = "paper003", limit = "10KB" }"#),
        &[],
    );
    let wred = run_file(
        &paper003(
            r#"{ kind = "classful", by = "protocol", classes = [
            { name = "tcp", match = "tcp", weight = 4, queue = { kind = "red", preset = "paper003", limit = "10KB" } },
            { name = "udp", match = "udp", weight = 1, queue = { kind = "red", preset = "paper003", limit = "10KB" } } ] }"#,
        ),
        &[],
    );
    let (a, b) = (tcp_sum(&shared), tcp_sum(&wred));
    eprintln!("TCP aggregate: one RED queue {a:.0} bit/s, weighted RED {b:.0} bit/s");
    assert!(a < 0.3e6, "{a}");
    assert!(b > 0.7e6, "{b}");
    let classes = queue(&wred, "r0")["classes"].as_array().unwrap().clone();
    assert_eq!(classes[0]["name"], "tcp");
    assert!(classes[1]["drops"].as_u64().unwrap() > classes[0]["drops"].as_u64().unwrap());
}

// ---- PI (Hollot et al. 2001): the integral action holds the queue at its reference ----
fn pi_queue(qref: u32) -> (f64, f64) {
    let text = common::Dumbbell::new(60)
        .duration("100s")
        .set("warmup", "\"30s\"")
        .access("100Mbps", "10ms")
        .bottleneck("15Mbps", "50ms")
        .queue(&format!(
            r#"{{ kind = "pi", limit = "400p", qref = {qref} }}"#
        ))
        .flow(
            r#"name = "t"
count = 60
src = "s{i}"
dst = "d{i}"
start = { kind = "uniform", min = "0s", max = "2s" }
app = { kind = "bulk" }"#,
        )
        .toml();
    let r = run_file(&text, &[]);
    let q = r["queues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["link"] == "bottleneck" && q["from"] == "r0")
        .unwrap();
    let l = r["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["link"] == "bottleneck" && l["from"] == "r0")
        .unwrap();
    (
        q["avg_packets"].as_f64().unwrap(),
        l["utilisation"].as_f64().unwrap(),
    )
}

#[test]
fn pi_holds_the_mean_queue_near_its_reference_with_the_link_busy() {
    // Hollot et al. 2001's setting: 60 TCP flows, 15 Mbit/s (3 750 packets/s of 500 B),
    // ns-2's Queue/PI gains; with integral control the steady-state error goes to zero.
    for qref in [50u32, 100] {
        let (avg, util) = pi_queue(qref);
        let rel = (avg - qref as f64).abs() / qref as f64;
        assert!(rel < 0.25, "q_ref {qref}: mean queue {avg:.1} packets");
        assert!(util > 0.97, "q_ref {qref}: utilisation {util:.3}");
    }
}

// ---- REM (Athuraliya et al. 2001): the price clears when the backlog is at its target ----
fn rem_queue(flows: usize, pbo: u32) -> (f64, f64) {
    let text = common::Dumbbell::new(flows)
        .duration("60s")
        .set("warmup", "\"20s\"")
        .access("100Mbps", "5ms")
        .bottleneck("10Mbps", "100ms")
        .queue(&format!(
            r#"{{ kind = "rem", limit = "400p", pbo = {pbo}, mean_pktsize = "1040B" }}"#
        ))
        .flow(&format!(
            r#"name = "t"
count = {flows}
src = "s{{i}}"
dst = "d{{i}}"
start = {{ kind = "uniform", min = "0s", max = "2s" }}
app = {{ kind = "bulk" }}
tcp = {{ preset = "ns2" }}"#
        ))
        .toml();
    let r = run_file(&text, &[]);
    let q = queue(&r, "r0");
    let l = r["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["link"] == "bottleneck" && l["from"] == "r0")
        .unwrap();
    (
        q["avg_packets"].as_f64().unwrap(),
        l["utilisation"].as_f64().unwrap(),
    )
}

#[test]
fn rem_holds_the_backlog_near_its_target() {
    // The price stops moving only where the input rate equals the capacity and the backlog
    // equals b* (their equation (1)): the mean queue sits at pbo whatever the number of flows.
    // c counts packets of mean_pktsize, so it is set to the packets' size on the wire (ns-2's
    // 1000 + 40 B): with 1500 B packets and the default 1000 B, the link drains only 2/3 of c
    // and the queue settles 10 x c / 3 packets above b*. The path holds 260 packets, so that
    // 60 flows' windows can be small without their minimum of one or two packets each filling
    // the queue beyond b* by itself (on a 20 ms bottleneck, 60 flows kept 35 packets queued).
    for (flows, pbo) in [(20usize, 20u32), (60, 20), (20, 60)] {
        let (avg, util) = rem_queue(flows, pbo);
        let rel = (avg - pbo as f64).abs() / pbo as f64;
        eprintln!("REM {flows} flows, pbo {pbo}: mean queue {avg:.1}, utilisation {util:.3}");
        assert!(
            rel < 0.25,
            "{flows} flows, pbo {pbo}: mean queue {avg:.1} packets"
        );
        assert!(
            util > 0.95,
            "{flows} flows, pbo {pbo}: utilisation {util:.3}"
        );
    }
}

// ---- RIO (Clark & Fang 1998): In packets are protected from the congestion Out causes ----
#[test]
fn rio_protects_in_packets() {
    // two groups of 5 bulk TCP flows on the same 5 host pairs, alike but for their flow id:
    // In (fid 1) and Out (fid 0)
    let text = common::Dumbbell::new(5)
        .duration("60s")
        .set("warmup", "\"10s\"")
        .access("100Mbps", "5ms")
        .bottleneck("10Mbps", "20ms")
        .queue(r#"{ kind = "rio", limit = "100p", in_min_th = 10, in_max_th = 20, out_min_th = 3, out_max_th = 9 }"#)
        .flow(
            r#"name = "out"
count = 5
src = "s{i}"
dst = "d{i}"
trace_fid = 0
app = { kind = "bulk" }"#,
        )
        .flow(
            r#"name = "in"
count = 5
src = "s{i}"
dst = "d{i}"
trace_fid = 1
app = { kind = "bulk" }"#,
        )
        .toml();
    let r = run_file(&text, &[]);
    let sum = |prefix: &str| -> f64 {
        r["flows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["name"].as_str().unwrap().starts_with(prefix))
            .map(|f| f["goodput_bps"].as_f64().unwrap())
            .sum()
    };
    let (gin, gout) = (sum("in"), sum("out"));
    eprintln!("RIO goodput: In {gin:.0} bit/s, Out {gout:.0} bit/s");
    // the In flows alone fill the link and keep the total average above out_max_th: Out
    // packets are then all dropped (60 s: In 9.59 Mbit/s, Out 160 bit/s)
    assert!(gin > 2.0 * gout, "In {gin:.0} vs Out {gout:.0}");
    assert!(gin + gout > 9.0e6, "the link stays busy: {:.0}", gin + gout);
}

// ---- DOCSIS-PIE (RFC 8034): a cable upstream held near its 10 ms latency target ----
fn upstream(queue: &str) -> Value {
    // 5 bulk CUBIC flows up a 20 Mbit/s cable upstream with a 100 ms buffer (the DOCSIS
    // default target buffer), 20 ms base RTT
    let text = common::Dumbbell::new(5)
        .duration("40s")
        .set("warmup", "\"10s\"")
        .access("1Gbps", "1ms")
        .bottleneck("20Mbps", "8ms")
        .queue(queue)
        .flow(
            r#"name = "up"
count = 5
src = "s{i}"
dst = "d{i}"
app = { kind = "bulk" }
tcp = { preset = "linux" }"#,
        )
        .toml();
    run_file(&text, &[])
}

#[test]
fn docsis_pie_holds_a_cable_upstream_near_its_latency_target() {
    let mean_delay = |r: &Value| queue(r, "r0")["sojourn_mean_s"].as_f64().unwrap();
    let util = |r: &Value| -> f64 {
        let g: f64 = r["flows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["goodput_bps"].as_f64().unwrap())
            .sum();
        g / 20e6
    };
    let fifo = upstream(r#"{ kind = "droptail", limit = "100ms" }"#);
    let docsis = upstream(r#"{ kind = "docsis_pie" }"#);
    let (d_fifo, d_docsis) = (mean_delay(&fifo), mean_delay(&docsis));
    eprintln!(
        "20 Mbit/s upstream: FIFO {:.1} ms ({:.3}), DOCSIS-PIE {:.1} ms ({:.3})",
        d_fifo * 1e3,
        util(&fifo),
        d_docsis * 1e3,
        util(&docsis)
    );
    assert!(
        (0.004..0.016).contains(&d_docsis),
        "DOCSIS-PIE mean queue delay {d_docsis:.4} s (target 10 ms)"
    );
    assert!(d_fifo > 0.05, "the 100 ms FIFO stays full: {d_fifo:.4} s");
    assert!(util(&docsis) > 0.9, "utilisation {:.3}", util(&docsis));
    let early = queue(&docsis, "r0")["drops_by_reason"]["pie"]
        .as_u64()
        .unwrap_or(0);
    assert!(early > 0, "DOCSIS-PIE drops early");
}
