//! Unit tests of COBALT (`cobalt.rs`, `cobalt_vars.rs`): the invsqrt table and Newton step, the
//! control law's schedule, BLUE's rise on overflow and fall on an empty queue once per target,
//! ECN marks in place of CoDel's drops, and what the two presets do differently.

use super::super::cobalt_vars::{control, newton_step, REC_INV_SQRT};
use super::super::harness::Harness;
use super::*;
use crate::packet::Ecn;

fn ms(x: f64) -> SimTime {
    SimTime::from_secs_f64(x / 1000.0)
}

fn cobalt(toml_text: &str) -> Cobalt {
    let c: CobaltConfig = toml::from_str(toml_text).unwrap();
    c.validate().unwrap();
    Cobalt::new(&c)
}

fn harness(toml_text: &str) -> Harness {
    Harness::new(Box::new(cobalt(toml_text)), Rate(10_000_000))
}

fn p_drop(h: &Harness) -> f64 {
    h.q.probability_at(SimTime::ZERO)
        .expect("BLUE's probability")
}

// ---- 1/sqrt(count) in 0.32 fixed point ----
#[test]
fn invsqrt_table_is_close_to_the_square_root() {
    assert_eq!(REC_INV_SQRT[0], u32::MAX);
    for (n, &v) in REC_INV_SQRT.iter().enumerate().skip(1) {
        let exact = 4294967296.0 / (n as f64).sqrt();
        let err = (v as f64 - exact).abs() / exact;
        assert!(err < 1e-3, "count {n}: {v} vs {exact} ({err})");
    }
    // above the table one Newton step from the previous value, as cobalt_invsqrt does
    let v16 = newton_step(REC_INV_SQRT[15], 16) as f64 / 4294967296.0;
    assert!((v16 - 0.25).abs() < 0.002, "{v16}");
    // control law: interval / sqrt(4) = 50 ms (within the fixed point's truncation)
    let t = control(0, 100_000_000, REC_INV_SQRT[4]);
    assert!((49_999_000..=50_000_000).contains(&t), "{t}");
}

// ---- CoDel's schedule, ns3: first signal one interval after the sojourn exceeds target,
//      then gaps of interval * rec_inv_sqrt(count) ----
#[test]
fn drop_schedule_follows_the_invsqrt_table() {
    // (BlueThreshold out of the way: this queue's sojourns pass 400 ms)
    let mut h = harness("preset = \"ns3\"\nblue_threshold = \"10s\"");
    for _ in 0..1000 {
        let p = h.packet(0, 1000);
        h.enqueue(SimTime(0), p);
    }
    let mut drops = Vec::new();
    for i in 0..700u64 {
        let before = h.dropped.len();
        h.dequeue(ms(i as f64));
        for _ in before..h.dropped.len() {
            drops.push(i as i64);
        }
    }
    assert!(h.dropped.iter().all(|(_, r)| *r == DropReason::Codel));
    // sojourn first > 5 ms at t = 6 ms: dropping starts, drop_next = 6 + 100 ms
    assert_eq!(drops[0], 106, "{drops:?}");
    // the k-th gap is interval * REC_INV_SQRT[k + 1] (count k + 1 after the k-th drop), on a
    // 1 ms grid: drop_next moves from the last schedule, not from the dequeue time
    let mut due = 106_000_000i64;
    for (k, &d) in drops.iter().enumerate().skip(1).take(8) {
        due = control(due, 100_000_000, REC_INV_SQRT[k + 1]);
        let want = (due + 999_999) / 1_000_000; // first 1 ms dequeue at or after it
        assert_eq!(d, want, "drop {k}: {drops:?}");
    }
}

// ---- linux: a fresh state's rec_inv_sqrt is 0, so the first signal is due at once ----
#[test]
fn linux_first_signal_is_due_at_once() {
    let mut h = harness("");
    for _ in 0..200 {
        let p = h.packet(0, 1000);
        h.enqueue(SimTime(0), p);
    }
    let mut first = None;
    for i in 0..100u64 {
        h.dequeue(ms(i as f64));
        if first.is_none() && !h.dropped.is_empty() {
            first = Some(i);
        }
    }
    // 10 Mbit/s: mtu_time 1.2 ms, target 5 ms; over target at 6 ms, drop_next = 6 ms, the
    // next dequeue (7 ms) drops
    assert_eq!(first, Some(7));
}

// ---- ECN: ECT packets are marked where CoDel would drop ----
#[test]
fn ecn_marks_instead_of_codel_drops() {
    for cfg in ["preset = \"ns3\"\necn = true\nblue_threshold = \"10s\"", ""] {
        let mut h = harness(cfg);
        for _ in 0..1000 {
            let mut p = h.packet(0, 1000);
            p.ecn = Ecn::Ect0;
            h.enqueue(SimTime(0), p);
        }
        for i in 0..700u64 {
            h.dequeue(ms(i as f64));
        }
        assert!(h.dropped.is_empty(), "{cfg}: {:?}", h.dropped.len());
        assert!(h.marks >= 10, "{cfg}: {} marks", h.marks);
    }
    // ns3 without ecn drops the same ECT packets
    let mut h = harness("preset = \"ns3\"\nblue_threshold = \"10s\"");
    for _ in 0..1000 {
        let mut p = h.packet(0, 1000);
        p.ecn = Ecn::Ect0;
        h.enqueue(SimTime(0), p);
    }
    for i in 0..700u64 {
        h.dequeue(ms(i as f64));
    }
    assert_eq!(h.marks, 0);
    assert!(h.dropped.len() >= 10);
}

// ---- BLUE: overflow raises p by the increment at most once per target ----
#[test]
fn blue_rises_on_overflow_once_per_target() {
    let mut h = harness("preset = \"ns3\"\nlimit = \"2p\"");
    let fill = |h: &mut Harness, t: SimTime| {
        for _ in 0..3 {
            let p = h.packet(0, 1000);
            h.enqueue(t, p);
        }
    };
    fill(&mut h, ms(10.0));
    assert_eq!(p_drop(&h), 1.0 / 256.0);
    assert_eq!(h.dropped.last().unwrap().1, DropReason::QueueFull);
    fill(&mut h, ms(14.0)); // 4 ms later: within target, no change
    assert_eq!(p_drop(&h), 1.0 / 256.0);
    fill(&mut h, ms(15.5)); // 5.5 ms after the last rise
    assert_eq!(p_drop(&h), 2.0 / 256.0);
}

// ---- BLUE: an empty dequeue lowers p by the decrement at most once per target (ns3) ----
#[test]
fn blue_falls_when_the_queue_is_found_empty() {
    let mut h = harness("preset = \"ns3\"\nlimit = \"1p\"");
    for _ in 0..2 {
        let p = h.packet(0, 1000);
        h.enqueue(ms(10.0), p);
    }
    assert_eq!(p_drop(&h), 1.0 / 256.0);
    h.dequeue(ms(11.0));
    h.q.link_idle(ms(12.0)); // 2 ms after the rise: too soon
    assert_eq!(p_drop(&h), 1.0 / 256.0);
    h.q.link_idle(ms(15.5));
    assert_eq!(p_drop(&h), 1.0 / 256.0 - 1.0 / 4096.0);
    h.q.link_idle(ms(18.0)); // 2.5 ms after the fall
    assert_eq!(p_drop(&h), 1.0 / 256.0 - 1.0 / 4096.0);
    for i in 0..20 {
        h.q.link_idle(ms(25.0 + 6.0 * i as f64));
    }
    assert_eq!(p_drop(&h), 1.0 / 256.0 - 16.0 / 4096.0);
    assert_eq!(p_drop(&h), 0.0);
}

// ---- linux: head drop on overflow; BLUE never decays (cobalt_queue_empty never runs) ----
#[test]
fn linux_drops_the_head_and_keeps_blue() {
    let mut h = harness("limit = \"3000B\"");
    let mut uids = Vec::new();
    for _ in 0..4 {
        let p = h.packet(0, 1000);
        uids.push(p.uid);
        h.enqueue(ms(10.0), p);
    }
    assert_eq!(h.dropped.len(), 1);
    assert_eq!(h.dropped[0].0.uid, uids[0], "the oldest packet is dropped");
    assert_eq!(p_drop(&h), 1.0 / 256.0);
    while h.q.len_packets() > 0 {
        h.dequeue(ms(11.0));
    }
    h.q.link_idle(ms(100.0));
    assert_eq!(p_drop(&h), 1.0 / 256.0);
}

// ---- linux: the last packet of the queue is delivered even when COBALT says drop ----
#[test]
fn linux_never_drops_the_last_packet() {
    let mut h = harness("increment = 1.0\nlimit = \"1p\"");
    for _ in 0..2 {
        let p = h.packet(0, 1000);
        h.enqueue(ms(10.0), p);
    }
    assert_eq!(p_drop(&h), fixed_point(1.0)); // BLUE drops every packet it may
    assert!(h.dequeue(ms(11.0)).is_some(), "the last packet leaves");
    // ns3 drops it
    let mut h = harness("preset = \"ns3\"\nincrement = 1.0\nlimit = \"1p\"");
    for _ in 0..2 {
        let p = h.packet(0, 1000);
        h.enqueue(ms(10.0), p);
    }
    assert_eq!(p_drop(&h), 1.0);
    assert!(h.dequeue(ms(11.0)).is_none());
    assert_eq!(h.dropped.last().unwrap().1, DropReason::Blue);
}

// ---- linux: cake_set_rate tunes target and interval to the rate ----
#[test]
fn linux_tunes_to_the_link_rate() {
    let c = CobaltConfig::default();
    // 1 Mbit/s: 1514 B take 12.112 ms
    let p = c.params(Rate(1_000_000));
    assert!(
        (p.mtu_time_ns as i64 - 12_112_000).abs() < 2_000,
        "{}",
        p.mtu_time_ns
    );
    assert_eq!(p.target_ns, p.mtu_time_ns * 3 / 2);
    assert_eq!(p.interval_ns, 100_000_000 + p.target_ns - 5_000_000);
    // 100 Mbit/s: the configured 5 ms / 100 ms stand
    let p = c.params(Rate(100_000_000));
    assert_eq!((p.target_ns, p.interval_ns), (5_000_000, 100_000_000));
    // the buffer: 4 intervals of the rate, at least 4 MiB, at most 10240 MTUs
    assert_eq!(c.limit_at(Rate(10_000_000)), QueueLimit::Bytes(4 << 20));
    // 100 Mbit/s: 4 x 12.5 MB/s x 0.1 s = 5 MB
    assert_eq!(c.limit_at(Rate(100_000_000)), QueueLimit::Bytes(5_000_000));
    assert_eq!(
        c.limit_at(Rate(1_000_000_000)),
        QueueLimit::Bytes(10240 * 1514)
    );
}

// ---- bad values named ----
#[test]
fn bad_values_are_refused_by_name() {
    let field = |t: &str| {
        let c: CobaltConfig = toml::from_str(t).unwrap();
        c.validate().unwrap_err().0
    };
    assert_eq!(field("ce_threshold = \"1ms\""), "ce_threshold");
    assert_eq!(field("blue_threshold = \"1s\""), "blue_threshold");
    assert_eq!(field("interval = \"5s\""), "interval");
    assert_eq!(field("increment = 2.0"), "increment");
    assert_eq!(field("decrement = -1.0"), "decrement");
    assert_eq!(field("target = \"0s\""), "target");
    assert_eq!(field("quantum = 3"), "quantum");
    let ok: CobaltConfig =
        toml::from_str("preset = \"ns3\"\nce_threshold = \"1ms\"\nblue_threshold = \"1s\"")
            .unwrap();
    assert!(ok.validate().is_ok());
}

// ---- ns3: the BLUE timer is a uint32_t of nanoseconds; past 4.29 s it no longer spaces BLUE's
//      steps by target (m_lastUpdateTimeBlue), Linux's ktime_t does ----
#[test]
fn ns3_blue_timer_wraps_after_4_29_s() {
    for (cfg, steps) in [
        ("preset = \"ns3\"\nlimit = \"1p\"", 3.0),
        ("limit = \"1p\"", 1.0),
    ] {
        let mut h = harness(cfg);
        for i in 0..3 {
            for _ in 0..2 {
                let p = h.packet(0, 1000);
                h.enqueue(SimTime::from_secs(5) + ms(i as f64), p);
            }
            h.dequeue(SimTime::from_secs(5) + ms(i as f64));
        }
        assert_eq!(p_drop(&h), steps / 256.0, "{cfg}");
    }
}
