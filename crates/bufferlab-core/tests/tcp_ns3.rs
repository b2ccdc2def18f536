//! The `ns3` preset against ns-3.44 itself, packet for packet.
//!
//! One TcpLinuxReno flow through the paper-003 dumbbell (10 Mbit/s / 1 ms access, 1 Mbit/s /
//! 10 ms bottleneck, 5000 B queue disc + 1-packet device queue, 1024-byte segments, SACK, delayed
//! ACKs, timestamps), 20 s, with ns-3's classic (RFC 6675) recovery. The ns-3 numbers come from
//! the bench peer (bench/peers/ns3_dumbbell.cc, built by bench/peers/build_ns3.sh):
//!
//! ```text
//! bench/.peers/ns3_dumbbell --nTcp=1 --accessRate=10Mbps --accessDelay=1ms --bnRate=1Mbps \
//!   --bnDelay=10ms --segSize=1024 --simTime=20 --qlimit=5000B --tcp=TcpLinuxReno \
//!   --qdisc=DropTail --tcpStats=1 --recovery=Classic
//! ```
//!
//! 2389 segments sent, 68 retransmitted, 63 fast retransmits, no timeout, 2 364 416 bytes
//! delivered (945 766.4 bit/s). With `ns3_rules` and ns-3's 2-byte PPP framing on every link,
//! bufferlab sends the same segments at the same times (compared with `--pcap` on both sides,
//! docs/validation.md "Against ns-3's TCP"), so the counts must be equal, not close.
//!
//! Five flows (case a itself, flow i starting at i ms, 100 s) share the bottleneck's 5000 B
//! queue disc and its 1-packet device queue, which ns-3 refills one event later
//! (`NetDeviceQueue::PacketDequeued` schedules the wake with `ScheduleNow`): every one of the
//! 11 592 packets crosses the bottleneck at the same instant in both simulators, so drops,
//! timeouts, fast retransmits and each flow's goodput are ns-3's, with its classic recovery
//! and with its default PRR (RFC 6937, `TcpPrrRecovery`; the same command without
//! `--recovery`), counted by
//!
//! ```text
//! bench/.peers/ns3_dumbbell --nTcp=5 --accessRate=10Mbps --accessDelay=1ms --bnRate=1Mbps \
//!   --bnDelay=10ms --segSize=1024 --simTime=100 --qlimit=5000B --tcp=TcpLinuxReno \
//!   --qdisc=DropTail --tcpStats=1 --recovery=Classic --stagger=0.001
//! ```

use bufferlab_core::api::{run, RunRequest};
use serde_json::Value;

fn one_flow(extra: &[&str]) -> Value {
    let mut overrides: Vec<String> = [
        "topology.pairs=1",
        "flows.0.count=1",
        "duration=20s",
        "flows.0.tcp.prr=false", // ns-3 --recovery=Classic
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    overrides.extend(extra.iter().map(|s| s.to_string()));
    let r = run(&RunRequest {
        text: include_str!("../../../bench/scenarios/a_droptail.toml"),
        source: "a_droptail.toml",
        overrides: &overrides,
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    serde_json::to_value(&r).unwrap()
}

#[test]
fn one_flow_is_ns3_packet_for_packet() {
    let r = one_flow(&[]);
    let f = &r["flows"][0];
    let t = &f["tcp"];
    assert_eq!(t["segments_sent"], 2389);
    assert_eq!(t["retransmitted_segments"], 68);
    assert_eq!(t["fast_retransmits"], 63);
    assert_eq!(t["timeouts"], 0);
    // 2 364 416 bytes delivered in order in 20 s.
    assert_eq!(f["goodput_bps"].as_f64().unwrap(), 945_766.4);
}

/// Without ns-3's rules the same flow is an RFC sender and the counts move (the test above
/// would not hold by accident).
#[test]
fn without_the_ns3_rules_the_flow_differs() {
    let r = one_flow(&["flows.0.tcp.ns3_rules=false"]);
    let t = &r["flows"][0]["tcp"];
    assert_ne!(
        (t["segments_sent"].as_u64(), t["fast_retransmits"].as_u64()),
        (Some(2389), Some(63))
    );
}

/// Case a with flow i starting at i ms (ns-3's `--stagger=0.001`), with ns-3's PRR recovery
/// (its default) or its classic one.
fn five_staggered_flows(prr: bool) -> Value {
    five_staggered_flows_with(prr, &[])
}

fn five_staggered_flows_with(prr: bool, overrides: &[&str]) -> Value {
    let text = include_str!("../../../bench/scenarios/a_droptail.toml");
    let (head, template) = text.split_once("[[flows]]").expect("a flow template");
    let tcp = template
        .lines()
        .find(|l| l.starts_with("tcp = "))
        .expect("the template's tcp line")
        .replace(" }", &format!(", prr = {prr} }}"));
    let mut text = head.to_string();
    for i in 0..5 {
        text += &format!(
            "[[flows]]\nname = \"tcp{i}\"\nsrc = \"s{i}\"\ndst = \"d{i}\"\nstart = \"{i}ms\"\n\
             app = {{ kind = \"bulk\" }}\n{tcp}\n\n"
        );
    }
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let r = run(&RunRequest {
        text: &text,
        source: "a_droptail staggered",
        overrides: &overrides,
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    serde_json::to_value(&r).unwrap()
}

/// ns-3 per flow: segments sent, retransmitted, timeouts (RTO doublings), fast retransmits
/// (CA_RECOVERY entries), goodput in bit/s as the peer prints it.
type Ns3Flow = (u64, u64, u64, u64, f64);

#[test]
fn five_flows_through_the_device_queue_are_ns3_packet_for_packet() {
    // --recovery=Classic
    assert_ns3(
        &five_staggered_flows(false),
        2321,
        [
            (3048, 471, 25, 191, 210616.32),
            (3302, 555, 21, 221, 224463.0446),
            (2641, 392, 25, 159, 183668.3134),
            (2631, 443, 25, 170, 178754.8026),
            (2296, 449, 30, 158, 151148.4459),
        ],
    );
}

#[test]
fn five_flows_with_prr_are_ns3_packet_for_packet() {
    // ns-3's default recovery (TcpPrrRecovery): the same command without --recovery
    assert_ns3(
        &five_staggered_flows(true),
        2003,
        [
            (2319, 410, 26, 163, 156303.36),
            (3846, 474, 13, 242, 276073.1607),
            (3075, 423, 21, 199, 216764.6553),
            (1972, 274, 31, 124, 138858.5658),
            (2388, 431, 30, 165, 159668.4667),
        ],
    );
}

/// 3 ms access links with PRR: two timeouts and ACKs in `CA_LOSS` that both advance and SACK,
/// and partial ACKs whose new head was retransmitted in an earlier recovery, decide this run
/// (docs/validation.md, "The 3 ms + PRR difference, traced"). ns-3:
///
/// ```text
/// bench/.peers/ns3_dumbbell --nTcp=5 --accessRate=10Mbps --accessDelay=3ms --bnRate=1Mbps \
///   --bnDelay=10ms --segSize=1024 --simTime=100 --qlimit=5000B --tcp=TcpLinuxReno \
///   --qdisc=DropTail --tcpStats=1 --stagger=0.001
/// ```
#[test]
fn five_flows_3ms_access_with_prr_are_ns3_packet_for_packet() {
    assert_ns3(
        &five_staggered_flows_with(true, &["links.access.delay=3ms"]),
        1516,
        [
            (3331, 355, 40, 134, 243630.08),
            (3309, 347, 38, 127, 242485.6249),
            (2913, 319, 41, 120, 212177.0435),
            (1510, 237, 57, 68, 103795.7539),
            (2019, 269, 52, 81, 142710.3484),
        ],
    );
}

fn assert_ns3(r: &Value, drops: u64, ns3: [Ns3Flow; 5]) {
    let q = r["queues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["link"] == "bottleneck")
        .unwrap();
    assert_eq!(q["drops"], drops);
    for (f, (sent, retx, to, fr, goodput)) in r["flows"].as_array().unwrap().iter().zip(ns3) {
        let t = &f["tcp"];
        assert_eq!(t["segments_sent"], sent, "{}", f["name"]);
        assert_eq!(t["retransmitted_segments"], retx, "{}", f["name"]);
        assert_eq!(t["timeouts"], to, "{}", f["name"]);
        assert_eq!(t["fast_retransmits"], fr, "{}", f["name"]);
        let g = f["goodput_bps"].as_f64().unwrap();
        assert!(
            (g - goodput).abs() < 0.01,
            "{}: {g} against {goodput}",
            f["name"]
        );
    }
}
