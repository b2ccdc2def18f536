//! Unit tests of REM (`qdisc/rem.rs`): the price update and probability of Athuraliya et al.
//! 2001 as ns-2's `run_updaterule` computes them, the limit rule of `enque`, drops at arrival
//! and marks at departure.

use super::super::harness::Harness;
use super::*;
use crate::packet::Ecn;
use crate::units::Rate;

/// The bottleneck of ns-2's test-suite-rem.tcl: 1.5 Mb/s, so c = 0.002 x 187.5 = 0.375.
const RATE: Rate = Rate(1_500_000);

fn fill(d: &mut Rem, n: usize) {
    for _ in 0..n {
        d.bytes += 1000;
        d.q.push_back(Packet {
            size: 1000,
            ..Packet::default()
        });
    }
}

// ---- the price update (ns-2 run_updaterule) ----
#[test]
fn one_update_moves_the_price_by_gamma_times_the_mismatch() {
    let mut d = Rem::new(&RemConfig::default());
    fill(&mut d, 30);
    d.count = 5.0;
    d.catch_up(0.002, RATE.0 as f64);
    // gamma (in + 0.1 (q - b*) - c) = 0.001 (5 + 0.1 x 10 - 0.375)
    let want = 0.001 * (5.0 + 1.0 - 0.375);
    assert!((d.price() - want).abs() < 1e-15, "{}", d.price());
    let p = 1.0 - 1.001f64.powf(-want);
    assert!((d.probability() - p).abs() < 1e-15);
    assert_eq!(d.count, 0.0, "the arrival count restarts at each update");
}

#[test]
fn the_price_never_goes_below_zero_on_an_idle_link() {
    let mut d = Rem::new(&RemConfig::default());
    d.catch_up(5.0, RATE.0 as f64);
    assert_eq!(d.price(), 0.0);
    assert_eq!(d.probability(), 0.0);
}

#[test]
fn lazy_updates_equal_a_timer_at_every_period() {
    let cfg = RemConfig {
        inw: 0.3,
        ..RemConfig::default()
    };
    let (mut lazy, mut step) = (Rem::new(&cfg), Rem::new(&cfg));
    fill(&mut lazy, 60);
    fill(&mut step, 60);
    lazy.count = 7.0;
    step.count = 7.0;
    let mut t = 0.0;
    for _ in 0..500 {
        t += 0.002;
        step.catch_up(t, RATE.0 as f64);
    }
    lazy.catch_up(t, RATE.0 as f64);
    assert_eq!(lazy.price(), step.price());
    assert_eq!(lazy.in_avg, step.in_avg);
    // by hand: the 7 arrivals reach the price through in_avg (0.3 x 7 x 0.7^(k-1), summing
    // to 7), and a standing queue of 60 over b* = 20 adds 0.1 x 40 - c = 3.625 per update
    let want = 0.001 * (7.0 + 500.0 * (4.0 - 0.375));
    assert!(
        (lazy.price() - want).abs() < 1e-9,
        "{} vs {want}",
        lazy.price()
    );
    assert!((lazy.probability() - (1.0 - 1.001f64.powf(-want))).abs() < 1e-12);
}

#[test]
fn inw_weighs_the_newest_interval() {
    let cfg = RemConfig {
        inw: 0.25,
        ..RemConfig::default()
    };
    let mut d = Rem::new(&cfg);
    d.count = 8.0;
    d.catch_up(0.002, RATE.0 as f64);
    assert_eq!(d.in_avg, 2.0);
    d.count = 4.0;
    d.catch_up(0.004, RATE.0 as f64);
    assert_eq!(d.in_avg, 2.0 * 0.75 + 1.0);
}

// ---- arrivals (ns-2 enque) ----
#[test]
fn the_queue_holds_at_most_limit_minus_one() {
    let mut h = Harness::new(
        Box::new(Rem::new(&RemConfig {
            limit: QueueLimit::Packets(5),
            ..RemConfig::default()
        })),
        RATE,
    );
    for _ in 0..8 {
        let p = h.packet(0, 1000);
        h.enqueue(SimTime::ZERO, p);
    }
    assert_eq!(
        h.q.len_packets(),
        4,
        "ns-2 drops when qlen >= qlim counting the arrival"
    );
    assert_eq!(h.dropped.len(), 4);
    assert!(h.dropped.iter().all(|(_, r)| *r == DropReason::QueueFull));
}

#[test]
fn early_drops_happen_with_probability_prob() {
    let cfg = RemConfig {
        limit: QueueLimit::Packets(1_000_000),
        ..RemConfig::default()
    };
    let mut d = Rem::new(&cfg);
    d.prob = 0.25;
    d.next_update = f64::INFINITY; // no update during the test
    let mut h = Harness::new(Box::new(d), RATE);
    let n = 40_000;
    for _ in 0..n {
        let p = h.packet(0, 1000);
        h.enqueue(SimTime::ZERO, p);
    }
    let early = h
        .dropped
        .iter()
        .filter(|(_, r)| *r == DropReason::Rem)
        .count();
    let share = early as f64 / n as f64;
    assert!((share - 0.25).abs() < 0.01, "{share}");
}

// ---- departures (ns-2 deque, markpkts_) ----
#[test]
fn ecn_mode_marks_capable_packets_at_departure_and_never_drops_early() {
    let cfg = RemConfig {
        limit: QueueLimit::Packets(1_000_000),
        ecn: true,
        ..RemConfig::default()
    };
    let mut d = Rem::new(&cfg);
    d.prob = 0.5;
    d.next_update = f64::INFINITY;
    let mut h = Harness::new(Box::new(d), RATE);
    let n = 20_000;
    for i in 0..n {
        let mut p = h.packet(0, 1000);
        p.ecn = if i % 2 == 0 { Ecn::Ect0 } else { Ecn::NotEct };
        h.enqueue(SimTime::ZERO, p);
    }
    assert!(h.dropped.is_empty(), "no early drop in marking mode");
    let (mut ce, mut not_ect_marked) = (0, 0);
    while let Some(p) = h.dequeue(SimTime::ZERO) {
        match p.ecn {
            Ecn::Ce => ce += 1,
            Ecn::NotEct => {}
            _ => {}
        }
        if p.ecn == Ecn::Ce && p.uid % 2 == 0 {
            not_ect_marked += 1;
        }
    }
    // uids start at 1: odd uids were ECT(0)
    assert_eq!(not_ect_marked, 0);
    let share = ce as f64 / (n / 2) as f64;
    assert!((share - 0.5).abs() < 0.02, "{share}");
    assert_eq!(h.marks, ce);
}

#[test]
fn validation_names_the_field() {
    let bad = RemConfig {
        phi: 1.0,
        ..RemConfig::default()
    };
    assert_eq!(bad.validate().unwrap_err().0, "phi");
    let bad = RemConfig {
        inw: 0.0,
        ..RemConfig::default()
    };
    assert_eq!(bad.validate().unwrap_err().0, "inw");
    let bad = RemConfig {
        update_interval: SimTime::ZERO,
        ..RemConfig::default()
    };
    assert_eq!(bad.validate().unwrap_err().0, "update_interval");
}
