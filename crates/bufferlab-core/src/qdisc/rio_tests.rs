//! Unit tests of RIO (`qdisc/rio.rs`): In/Out by flow id, the two averages (and ns-2's Out
//! arrivals that leave the total average alone), RED's probability per band, the limit.

use super::super::harness::Harness;
use super::*;
use crate::units::Rate;

fn rio(cfg: RioConfig) -> Rio {
    let mut r = Rio::new(&cfg);
    r.set_flow_ids(&[0, 1]); // engine flow 0 is Out (fid 0), flow 1 is In (fid 1)
    r
}

fn pkt(flow: u32) -> Packet {
    Packet {
        flow: crate::ids::FlowId(flow),
        size: 1000,
        ..Packet::default()
    }
}

#[test]
fn p_b_follows_red_between_the_thresholds_and_gentle_above() {
    let b = Band::new(5.0, 15.0, 10.0, false);
    assert!((b.p_b(10.0) - 0.05).abs() < 1e-15);
    assert_eq!(
        b.p_b(15.0),
        0.1,
        "at max_th without gentle: max_p (forced above)"
    );
    let g = Band::new(5.0, 15.0, 10.0, true);
    // gentle: from max_p at max_th to 1 at 2 max_th
    assert!((g.p_b(15.0) - 0.1).abs() < 1e-12);
    assert!((g.p_b(30.0) - 1.0).abs() < 1e-12);
}

#[test]
fn wait_uniformises_the_gaps_as_red_cc_modify_p() {
    let mut b = Band::new(5.0, 15.0, 10.0, false);
    b.count = 5;
    assert_eq!(b.p_a(0.1, true), 0.0, "count x p_b < 1: no drop yet");
    b.count = 15;
    assert!((b.p_a(0.1, true) - 0.1 / 0.5).abs() < 1e-15);
    b.count = 25;
    assert_eq!(b.p_a(0.1, true), 1.0);
    b.count = 5;
    assert!((b.p_a(0.1, false) - 0.1 / 0.5).abs() < 1e-15);
}

#[test]
fn in_and_out_come_from_the_flow_id() {
    let r = rio(RioConfig::default());
    assert!(!r.is_in(&pkt(0)));
    assert!(r.is_in(&pkt(1)));
}

#[test]
fn out_arrivals_leave_the_averages_alone_as_ns2_does() {
    let mut h = Harness::new(Box::new(rio(RioConfig::default())), Rate(1_500_000));
    h.busy = true;
    for _ in 0..10 {
        h.enqueue(SimTime::ZERO, pkt(0));
    }
    let r = h.q.average().unwrap();
    assert_eq!(r, 0.0, "rio.cc computes no average for Out packets");
    // an In arrival updates both: the total over 10 queued, the In over 0 In queued
    h.enqueue(SimTime::ZERO, pkt(1));
    assert!((h.q.average().unwrap() - 0.002 * 10.0).abs() < 1e-15);
}

#[test]
fn each_band_is_judged_by_its_own_average() {
    // a total average above the Out max_th forces Out drops while In packets pass
    let mut r = rio(RioConfig::default());
    r.ave = 20.0; // above out_max_th 15
    r.idle = false;
    r.in_idle = false;
    let mut h = Harness::new(Box::new(r), Rate(1_500_000));
    h.busy = true;
    h.enqueue(SimTime::ZERO, pkt(0));
    h.enqueue(SimTime::ZERO, pkt(0)); // qlen 1: not yet (rio.cc needs qlen > 1)
    h.enqueue(SimTime::ZERO, pkt(0));
    assert_eq!(h.dropped.len(), 1);
    assert_eq!(h.dropped[0].1, DropReason::RedForced);
    for _ in 0..5 {
        h.enqueue(SimTime::ZERO, pkt(1));
    }
    assert_eq!(h.dropped.len(), 1, "the In average is far below in_min_th");
}

#[test]
fn the_limit_drops_the_arrival_that_finds_the_queue_full() {
    let mut h = Harness::new(
        Box::new(rio(RioConfig {
            limit: QueueLimit::Packets(4),
            ..RioConfig::default()
        })),
        Rate(1_500_000),
    );
    h.busy = true;
    for _ in 0..6 {
        h.enqueue(SimTime::ZERO, pkt(1));
    }
    assert_eq!(h.q.len_packets(), 4);
    assert!(h.dropped.iter().all(|(_, r)| *r == DropReason::RedForced));
}

#[test]
fn idle_time_decays_the_averages_by_the_packets_the_link_could_send() {
    let mut r = rio(RioConfig::default());
    r.ave = 10.0;
    r.in_ave = 8.0;
    let mut h = Harness::new(Box::new(r), Rate(1_500_000));
    // the link finds the queue empty at t = 0 and stays idle 0.1 s: m = int(375 x 0.1) = 37
    assert!(h.dequeue(SimTime::ZERO).is_none());
    h.enqueue(SimTime::from_millis(100), pkt(1));
    let want = 10.0 * (1.0f64 - 0.002).powi(38);
    assert!((h.q.average().unwrap() - want).abs() < 1e-9);
}

#[test]
fn validation_names_the_field() {
    let bad = RioConfig {
        in_max_th: 10.0,
        in_min_th: 12.0,
        ..RioConfig::default()
    };
    assert_eq!(bad.validate().unwrap_err().0, "in_max_th");
    let bad = RioConfig {
        out_linterm: 0.5,
        ..RioConfig::default()
    };
    assert_eq!(bad.validate().unwrap_err().0, "out_linterm");
    let bad = RioConfig {
        limit: QueueLimit::Bytes(100_000),
        ..RioConfig::default()
    };
    assert_eq!(bad.validate().unwrap_err().0, "limit");
}
