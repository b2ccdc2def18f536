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

use bufferlab_core::api::{run, RunRequest};
use serde_json::Value;

fn one_flow(extra: &[&str]) -> Value {
    let mut overrides: Vec<String> = ["topology.pairs=1", "flows.0.count=1", "duration=20s"]
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
