//! Unit tests of CAKE's enqueue/dequeue rules (the files beside hold the tests of their own
//! rules: hashing, tins, shaper, ACK filter).

use super::config::{AckFilter, CakeConfig, DiffservMode, FlowMode};
use super::Cake;
use crate::ids::NodeId;
use crate::packet::{tcp_flags as F, PacketKind};
use crate::qdisc::harness::Harness;
use crate::qdisc::DropReason;
use crate::units::{Bytes, Rate, SimTime};

fn cake(cfg: CakeConfig) -> Harness {
    Harness::new(Box::new(Cake::new(&cfg)), Rate(1_000_000_000))
}

/// Keeps `flows` (flow id, src, dst) backlogged with 10 packets of 1000 B each, dequeues
/// `n` packets one per microsecond, and returns the bytes each flow got.
fn shares(h: &mut Harness, flows: &[(u32, u32, u32)], n: u64) -> Vec<u64> {
    let mut waiting = vec![0usize; flows.len()];
    let mut got = vec![0u64; flows.len()];
    for step in 0..n {
        let now = SimTime::from_micros(step);
        for (i, &(f, s, d)) in flows.iter().enumerate() {
            while waiting[i] < 10 {
                let mut p = h.packet(f, 1000);
                p.src = NodeId(s);
                p.dst = NodeId(d);
                h.enqueue(now, p);
                waiting[i] += 1;
            }
        }
        if let Some(p) = h.dequeue(now) {
            let i = flows.iter().position(|x| x.0 == p.flow.0).unwrap();
            waiting[i] -= 1;
            got[i] += p.size as u64;
        }
    }
    assert!(h.dropped.is_empty(), "{:?}", h.dropped.len());
    got
}

// ---- triple-isolate: the quantum is divided by the busier of the flow's two hosts ----
#[test]
fn triple_isolate_shares_between_source_hosts_with_distinct_destinations() {
    // host 1 runs 8 flows to host 10, host 2 one flow to host 20
    let mut flows: Vec<(u32, u32, u32)> = (0..8).map(|f| (f, 1, 10)).collect();
    flows.push((8, 2, 20));
    let mut h = cake(CakeConfig::default());
    let got = shares(&mut h, &flows, 40_000);
    let a: u64 = got[..8].iter().sum();
    let share_a = a as f64 / (a + got[8]) as f64;
    // host 1's flows get quantum/8 each, host 2's flow the whole quantum: half each
    assert!((share_a - 0.5).abs() < 0.03, "{share_a}");
    // FlowMode::Flows: per-flow fairness, 8/9
    let mut h = cake(CakeConfig {
        flow_mode: Some(FlowMode::Flows),
        ..CakeConfig::default()
    });
    let got = shares(&mut h, &flows, 40_000);
    let a: u64 = got[..8].iter().sum();
    let share_a = a as f64 / (a + got[8]) as f64;
    assert!((share_a - 8.0 / 9.0).abs() < 0.03, "{share_a}");
}

#[test]
fn triple_isolate_with_one_shared_destination_is_per_flow() {
    // sch_cake: host_load = max(srchost bulk count, dsthost bulk count); all nine flows go to
    // host 10, whose count (9) dominates, so every flow gets quantum/9: per-flow shares
    let mut flows: Vec<(u32, u32, u32)> = (0..8).map(|f| (f, 1, 10)).collect();
    flows.push((8, 2, 10));
    let mut h = cake(CakeConfig::default());
    let got = shares(&mut h, &flows, 40_000);
    let a: u64 = got[..8].iter().sum();
    let share_a = a as f64 / (a + got[8]) as f64;
    assert!((share_a - 8.0 / 9.0).abs() < 0.03, "{share_a}");
    // dual-srchost looks at the sources only: half each
    let mut h = cake(CakeConfig {
        flow_mode: Some(FlowMode::DualSrchost),
        ..CakeConfig::default()
    });
    let got = shares(&mut h, &flows, 40_000);
    let a: u64 = got[..8].iter().sum();
    let share_a = a as f64 / (a + got[8]) as f64;
    assert!((share_a - 0.5).abs() < 0.03, "{share_a}");
}

// ---- DRR++: a new (sparse) flow is served before the bulk flows' backlog ----
#[test]
fn a_sparse_flow_goes_first() {
    let mut h = cake(CakeConfig::default());
    for _ in 0..50 {
        let p = h.packet(0, 1500);
        h.enqueue(SimTime::ZERO, p);
    }
    // the bulk flow runs a while and turns bulk
    for i in 0..5 {
        h.dequeue(SimTime::from_micros(i)).unwrap();
    }
    let mut p = h.packet(1, 100);
    p.src = NodeId(5);
    h.enqueue(SimTime::from_micros(10), p);
    assert_eq!(h.dequeue(SimTime::from_micros(11)).unwrap().flow.0, 1);
}

// ---- the shaper: packets leave at the configured rate, the port is told when ----
#[test]
fn the_shaper_spaces_packets_at_the_rate_and_names_its_wake_up() {
    // 8 Mbit/s, 1000-byte packets: one per ms
    let mut h = cake(CakeConfig {
        bandwidth: Some(Rate(8_000_000)),
        ..CakeConfig::default()
    });
    for _ in 0..10 {
        let p = h.packet(0, 1000);
        h.enqueue(SimTime::ZERO, p);
    }
    assert!(h.dequeue(SimTime::ZERO).is_some());
    assert!(h.dequeue(SimTime::from_micros(999)).is_none());
    let wake =
        h.q.wake_at()
            .expect("a backlogged shaper names its wake-up");
    assert_eq!(wake, SimTime::from_millis(1));
    assert!(h.dequeue(wake).is_some());
    // with overhead 24 and ATM: 1024 B -> 22 cells = 1166 B, 1.166 ms
    let mut h = cake(CakeConfig {
        bandwidth: Some(Rate(8_000_000)),
        overhead: Some(24),
        atm: Some(super::config::AtmMode::Atm),
        ..CakeConfig::default()
    });
    for _ in 0..3 {
        let p = h.packet(0, 1000);
        h.enqueue(SimTime::ZERO, p);
    }
    h.dequeue(SimTime::ZERO).unwrap();
    assert!(h.dequeue(SimTime::ZERO).is_none());
    assert_eq!(h.q.wake_at(), Some(SimTime::from_micros(1166)));
}

// ---- tins: the voice tin has priority while under its threshold ----
#[test]
fn voice_goes_before_best_effort_within_its_threshold() {
    let mut h = cake(CakeConfig {
        bandwidth: Some(Rate(8_000_000)),
        ..CakeConfig::default()
    });
    for _ in 0..20 {
        let p = h.packet(0, 1000);
        h.enqueue(SimTime::ZERO, p);
    }
    let mut v = h.packet(1, 200);
    v.class = 46; // EF
    h.enqueue(SimTime::ZERO, v);
    assert_eq!(h.dequeue(SimTime::ZERO).unwrap().flow.0, 1);
    // CS1 (bulk) under its 1/16 threshold is also served before best effort
    let mut b = h.packet(2, 1000);
    b.class = 8;
    h.enqueue(SimTime::from_millis(1), b);
    let wake = h.q.wake_at().unwrap_or(SimTime::from_millis(1));
    assert_eq!(
        h.dequeue(wake.max(SimTime::from_millis(1))).unwrap().flow.0,
        2
    );
}

#[test]
fn besteffort_mode_ignores_the_dscp() {
    let mut h = cake(CakeConfig {
        bandwidth: Some(Rate(8_000_000)),
        diffserv: Some(DiffservMode::Besteffort),
        flow_mode: Some(FlowMode::Flowblind),
        ..CakeConfig::default()
    });
    for _ in 0..5 {
        let p = h.packet(0, 1000);
        h.enqueue(SimTime::ZERO, p);
    }
    let mut v = h.packet(1, 200);
    v.class = 46;
    h.enqueue(SimTime::ZERO, v);
    // one FIFO: the voice packet waits its turn
    assert_eq!(h.dequeue(SimTime::ZERO).unwrap().flow.0, 0);
}

// ---- memlimit: overflow drops the head of the fattest flow queue ----
#[test]
fn overflow_drops_from_the_fattest_flow() {
    let mut h = cake(CakeConfig {
        memlimit: Some(Bytes(10_000)),
        ..CakeConfig::default()
    });
    for _ in 0..8 {
        let p = h.packet(0, 1000);
        h.enqueue(SimTime::ZERO, p);
    }
    for _ in 0..4 {
        let mut p = h.packet(1, 1000);
        p.src = NodeId(3);
        h.enqueue(SimTime::ZERO, p);
    }
    assert_eq!(h.dropped.len(), 2);
    assert!(h
        .dropped
        .iter()
        .all(|(p, r)| p.flow.0 == 0 && *r == DropReason::LongestQueue));
    // the heads went: uids 1 and 2
    assert_eq!(h.dropped[0].0.uid, 1);
    assert_eq!(h.q.len_bytes(), 10_000);
}

// ---- COBALT per flow: a standing queue is signalled, the last packet is never dropped ----
#[test]
fn cobalt_drops_a_standing_queue_but_not_its_last_packet() {
    let mut h = cake(CakeConfig::default());
    for _ in 0..200 {
        let p = h.packet(0, 1000);
        h.enqueue(SimTime::ZERO, p);
    }
    // dequeue slowly: every 2 ms, sojourns far above 5 ms
    let mut t = SimTime::from_millis(10);
    let mut out = 0;
    while h.q.len_packets() > 0 {
        if h.dequeue(t).is_some() {
            out += 1;
        }
        t = t + SimTime::from_millis(2);
    }
    assert!(!h.dropped.is_empty());
    assert!(h.dropped.iter().all(|(_, r)| *r == DropReason::Codel));
    assert_eq!(out + h.dropped.len(), 200);
    // one flow, one packet, sojourn 1 s: delivered
    let mut h = cake(CakeConfig::default());
    let p = h.packet(0, 1000);
    h.enqueue(SimTime::ZERO, p);
    assert!(h.dequeue(SimTime::from_secs(1)).is_some());
}

// ---- the ACK filter in cake_enqueue ----
#[test]
fn the_ack_filter_drops_redundant_acks_at_enqueue() {
    for (mode, expect) in [
        (AckFilter::Off, 0),
        (AckFilter::Conservative, 8),
        (AckFilter::Aggressive, 9),
    ] {
        let mut h = cake(CakeConfig {
            ack_filter: Some(mode),
            ..CakeConfig::default()
        });
        for i in 0..10u64 {
            let mut p = h.packet(0, 40);
            p.kind = PacketKind::TcpAck;
            p.payload = 0;
            p.tcp.flags = F::ACK;
            p.tcp.ack = 1000 * (i + 1);
            h.enqueue(SimTime::from_micros(i), p);
        }
        assert_eq!(h.dropped.len(), expect, "{mode:?}");
        assert!(h.dropped.iter().all(|(_, r)| *r == DropReason::AckFilter));
        assert_eq!(h.q.len_packets(), 10 - expect);
        // the newest ACK is kept
        let mut last = 0;
        while let Some(p) = h.dequeue(SimTime::from_micros(20)) {
            last = p.tcp.ack;
        }
        assert_eq!(last, 10_000);
    }
}

// ---- wash: the DSCP is cleared after the tin is chosen ----
#[test]
fn wash_clears_the_dscp() {
    let mut h = cake(CakeConfig {
        wash: true,
        ..CakeConfig::default()
    });
    let mut p = h.packet(0, 100);
    p.class = 46;
    h.enqueue(SimTime::ZERO, p);
    assert_eq!(h.dequeue(SimTime::ZERO).unwrap().class, 0);
}

// ---- configuration errors name the field and the fix ----
#[test]
fn bad_values_are_refused_with_the_fix() {
    let bad = |c: CakeConfig| c.validate().unwrap_err().0;
    assert_eq!(
        bad(CakeConfig {
            bandwidth: Some(Rate(100)),
            ..CakeConfig::default()
        }),
        "bandwidth"
    );
    assert_eq!(
        bad(CakeConfig {
            overhead: Some(300),
            ..CakeConfig::default()
        }),
        "overhead"
    );
    assert_eq!(
        bad(CakeConfig {
            target: Some(SimTime::from_millis(200)),
            ..CakeConfig::default()
        }),
        "target"
    );
    assert_eq!(
        bad(CakeConfig {
            memlimit: Some(Bytes(100)),
            ..CakeConfig::default()
        }),
        "memlimit"
    );
    assert!(CakeConfig::default().validate().is_ok());
}

// ---- defaults: sch_cake's memlimit rule ----
#[test]
fn the_buffer_limit_follows_cake_reconfigure() {
    // unlimited: 10240 x 1514
    assert_eq!(CakeConfig::default().buffer_limit(), 10240 * 1514);
    // 20 Mbit/s, rtt 100 ms: 4 x 250 kB = 1 MB -> at least 4 MiB
    let c = CakeConfig {
        bandwidth: Some(Rate(20_000_000)),
        ..CakeConfig::default()
    };
    assert_eq!(c.buffer_limit(), 4 << 20);
    // 1 Gbit/s: 4 x 12.5 MB = 50 MB -> capped at 10240 x 1514
    let c = CakeConfig {
        bandwidth: Some(Rate(1_000_000_000)),
        ..CakeConfig::default()
    };
    assert_eq!(c.buffer_limit(), 10240 * 1514);
}
