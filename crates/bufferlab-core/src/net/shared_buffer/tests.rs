//! The pool's admission rules, each against what Choudhury and Hahne (1998) derive.

use super::config::SharedPolicy;
use super::pool::{Admission, SharedPool};
use crate::units::SimTime;

fn pool(buffer: u64, policy: SharedPolicy, alphas: &[f64]) -> SharedPool {
    let mut p = SharedPool::new("sw".into(), buffer, false, policy, SimTime::ZERO);
    for (i, a) in alphas.iter().enumerate() {
        p.add_queue(format!("l{i}"), format!("h{i}"), Some(*a), Some(buffer / 4));
    }
    p
}

/// N queues offered two packets for each one they send, round after round: each holds what
/// the policy lets it once the pool is in its steady state.
fn saturate(p: &mut SharedPool, rounds: u64) {
    let n = p.queues.len();
    for r in 0..rounds {
        let now = SimTime::from_micros(r);
        for i in 0..n {
            p.admit(i, 1, now);
            p.admit(i, 1, now);
            if p.queue_len(i) > 0 {
                p.release(i, 1, now);
            }
        }
    }
}

#[test]
fn dynamic_threshold_settles_at_the_closed_form() {
    // Section III: N overloaded queues each settle at alpha B / (1 + alpha N).
    for (buffer, alpha, n) in [
        (600u64, 1.0, 1usize),
        (600, 1.0, 2),
        (600, 2.0, 4),
        (1200, 0.5, 3),
        (1000, 4.0, 8),
    ] {
        let mut p = pool(buffer, SharedPolicy::DynamicThreshold, &vec![alpha; n]);
        saturate(&mut p, 5_000);
        let want = alpha * buffer as f64 / (1.0 + alpha * n as f64);
        for i in 0..n {
            let q = p.queue_len(i) as f64;
            // admitted while below the threshold, so a queue ends within one packet above it
            // (and one below, having just sent)
            assert!(
                (q - want).abs() <= 1.0 + 1e-9,
                "B={buffer} alpha={alpha} N={n}: queue {i} holds {q}, closed form {want}"
            );
        }
        // the unused buffer: B / (1 + alpha N)
        let free = (buffer - p.occupancy()) as f64;
        let want_free = buffer as f64 / (1.0 + alpha * n as f64);
        assert!(
            (free - want_free).abs() <= n as f64 + 1e-9,
            "free {free}, closed form {want_free}"
        );
    }
}

#[test]
fn per_queue_alpha_divides_the_buffer_in_proportion() {
    // alpha_i (B - Q) for each queue: with alphas 1 and 2 and B = 800, q1 = (B - Q),
    // q2 = 2 (B - Q), Q = q1 + q2 = 3 (B - Q), so B - Q = 200, q1 = 200, q2 = 400.
    let mut p = pool(800, SharedPolicy::DynamicThreshold, &[1.0, 2.0]);
    saturate(&mut p, 5_000);
    assert!(
        (p.queue_len(0) as f64 - 200.0).abs() <= 1.0,
        "{}",
        p.queue_len(0)
    );
    assert!(
        (p.queue_len(1) as f64 - 400.0).abs() <= 1.0,
        "{}",
        p.queue_len(1)
    );
}

#[test]
fn static_threshold_caps_each_queue_and_counts_threshold_drops() {
    let mut p = pool(100, SharedPolicy::StaticThreshold, &[1.0, 1.0]);
    for _ in 0..40 {
        p.admit(0, 1, SimTime::ZERO);
    }
    assert_eq!(p.queue_len(0), 25, "threshold = buffer / 4");
    assert_eq!(p.queues[0].drops_threshold, 15);
    assert_eq!(p.queues[0].drops_pool_full, 0);
}

#[test]
fn complete_sharing_fills_the_pool_then_drops_as_pool_full() {
    let mut p = pool(10, SharedPolicy::CompleteSharing, &[1.0, 1.0]);
    for _ in 0..8 {
        assert_eq!(p.admit(0, 1, SimTime::ZERO), Admission::Admit);
    }
    assert_eq!(p.admit(1, 1, SimTime::ZERO), Admission::Admit);
    assert_eq!(p.admit(1, 1, SimTime::ZERO), Admission::Admit);
    assert_eq!(p.admit(1, 1, SimTime::ZERO), Admission::PoolFull);
    assert_eq!(p.queues[1].drops_pool_full, 1);
    assert_eq!(p.threshold(0), 8.0, "its length plus the unused buffer");
}

#[test]
fn dynamic_threshold_drops_a_packet_larger_than_the_unused_buffer_as_pool_full() {
    // bytes: the threshold admits a short queue, the pool has 100 B left for a 1500 B packet
    let mut p = SharedPool::new(
        "sw".into(),
        3100,
        true,
        SharedPolicy::DynamicThreshold,
        SimTime::ZERO,
    );
    p.add_queue("a".into(), "x".into(), Some(8.0), None);
    p.add_queue("b".into(), "y".into(), Some(8.0), None);
    assert_eq!(p.admit(0, 1500, SimTime::ZERO), Admission::Admit);
    assert_eq!(p.admit(0, 1500, SimTime::ZERO), Admission::Admit);
    assert_eq!(p.admit(1, 1500, SimTime::ZERO), Admission::PoolFull);
    assert_eq!(p.queues[1].drops_pool_full, 1);
}

#[test]
fn series_sample_the_state_left_before_each_grid_point() {
    let mut p = pool(100, SharedPolicy::DynamicThreshold, &[1.0]);
    p.sample_every(SimTime::from_millis(10));
    p.admit(0, 1, SimTime::from_millis(5));
    p.admit(0, 1, SimTime::from_millis(25));
    let r = p.report(SimTime::from_millis(40));
    let s = r.series.expect("sampled");
    assert_eq!(s.t_s, vec![0.0, 0.01, 0.02, 0.03, 0.04]);
    assert_eq!(s.occupancy, vec![0, 1, 1, 2, 2]);
    // alpha (B - Q)
    assert_eq!(s.thresholds[0], vec![100.0, 99.0, 99.0, 98.0, 98.0]);
    // time-average: 1 from 5 to 25 ms, 2 from 25 to 40 ms over 40 ms
    assert!((r.mean_occupancy - (20.0 + 30.0) / 40.0).abs() < 1e-9);
    assert_eq!(r.max_occupancy, 2);
}
