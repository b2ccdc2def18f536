//! DOCSIS-PIE's rules one by one (docsis_pie.rs; CableLabs' ns-2 `pie.cc` DOCSIS mode and
//! docsis-ns3 `dual-queue-coupled-aqm.cc`).

use super::*;
use crate::qdisc::harness::Harness;
use crate::units::Rate;

const RATE: Rate = Rate(20_000_000);

fn docsis() -> DocsisPie {
    DocsisPie::new(&DocsisPieConfig::default())
}

#[test]
fn defaults_are_docsis_pie_s() {
    let q = docsis();
    assert_eq!(q.pi.target, 0.010);
    assert_eq!(q.pi.tupdate, SimTime::from_millis(16));
    assert_eq!((q.pi.alpha, q.pi.beta), (0.25, 2.5));
    assert_eq!(q.max_burst, SimTime::from_millis(142));
    assert_eq!(q.mean_pktsize, 1024.0);
    // 1 s / 16 ms = 62.5, truncated as `burstResetLimit`
    assert_eq!(q.burst_reset_limit, 62);
    let s = q.resolved_settings(20e6).unwrap();
    assert_eq!(s["limit"], "250000B", "100 ms at 20 Mbit/s");
}

#[test]
fn the_step_is_scaled_by_the_probability_s_magnitude() {
    // alpha (qdelay - target) + beta (qdelay - old) = 0.25 * 0.01 + 0 = 0.0025
    let step = 0.0025;
    assert_eq!(scaled_step(step, 0.0), step / 2048.0);
    assert_eq!(scaled_step(step, 5e-6), step / 512.0);
    assert_eq!(scaled_step(step, 5e-3), step / 8.0);
    assert_eq!(scaled_step(step, 0.05), step / 2.0);
    assert_eq!(scaled_step(step, 0.5), step * 2.0);
    assert_eq!(scaled_step(0.01, 0.5), 0.02, "capped at +0.02 from 0.1 up");
    assert_eq!(scaled_step(0.1, 20.0), 0.02);
    assert_eq!(scaled_step(-0.1, 20.0), -3.2, "decreases are not capped");
}

#[test]
fn the_queue_delay_is_the_backlog_at_the_configured_rate() {
    let mut q = docsis();
    q.bytes = 50_000; // 20 ms at 20 Mbit/s
    q.update(20e6);
    assert!((q.qdelay_old - 0.020).abs() < 1e-12);
    let want = (0.25 * (0.020 - 0.010) + 2.5 * 0.020) / 2048.0;
    assert!((q.drop_prob - want).abs() < 1e-15, "{}", q.drop_prob);
    // the probability is per mean-sized packet: it may pass 1, up to 0.85 x 1024 / 64
    q.drop_prob = 13.59; // + 0.02 (the cap on a step) + 0.02 (above 200 ms): capped
    q.bytes = 2_500_000; // 1 s of queue
    q.update(20e6);
    assert_eq!(q.drop_prob, PROB_LOW * 1024.0 / 64.0);
}

#[test]
fn below_latency_low_the_probability_decays() {
    let mut q = docsis();
    q.drop_prob = 0.01;
    q.bytes = 5_000; // 2 ms: both delays below 5 ms
    q.update(20e6);
    let step = scaled_step(0.25 * (0.002 - 0.010) + 2.5 * 0.002, 0.01);
    assert!((q.drop_prob - (0.01 + step) * 0.98).abs() < 1e-15);
}

#[test]
fn no_early_drop_below_a_third_of_the_buffer_and_the_first_drop_grants_the_allowance() {
    let mut q = docsis();
    q.drop_prob = 1.0;
    q.qdelay_old = 0.05;
    q.bytes = 1000;
    assert!(
        !q.drop_early(1000, 300_000.0, || 0.0),
        "NO_BURST below a third"
    );
    assert_eq!(q.burst_state, BurstState::NoBurst);
    q.bytes = 100_000;
    // accu_prob: 1.0 x 1000 / 1024 = 0.98 >= PROB_LOW at once, u = 0 <= p: dropped
    assert!(q.drop_early(1000, 300_000.0, || 0.0));
    assert_eq!(q.burst_state, BurstState::InBurstProtecting);
    assert_eq!(q.burst_allowance, SimTime::from_millis(142));
    assert_eq!(q.accu_prob, 0.0);
    assert!(
        !q.drop_early(1000, 300_000.0, || 0.0),
        "the allowance protects"
    );
}

#[test]
fn derandomisation_bounds_the_gaps_between_drops() {
    let mut q = docsis();
    q.burst_state = BurstState::InBurstProtecting; // allowance already used
    q.qdelay_old = 0.05;
    q.bytes = 200_000;
    q.drop_prob = 0.1; // per 1024-byte packet; 0.0977 for 1000 bytes
                       // u = 0 would always drop, but accu_prob < 0.85 forbids it: 8 packets pass
    let mut passed = 0;
    while !q.drop_early(1000, 1e9, || 0.0) {
        passed += 1;
    }
    assert_eq!(passed, 8, "the 9th brings accu_prob to 0.88");
    // u = 1 never drops, until accu_prob reaches PROB_HIGH 8.5: the 88th packet
    let mut n = 1;
    while !q.drop_early(1000, 1e9, || 1.0) {
        n += 1;
    }
    assert_eq!(n, 88, "8.5 / 0.0977 = 87.04");
}

#[test]
fn bytes_scale_the_probability_and_cap_it_at_prob_low() {
    let mut q = docsis();
    q.burst_state = BurstState::InBurstProtecting;
    q.qdelay_old = 0.05;
    q.bytes = 200_000;
    q.drop_prob = 2.0;
    q.drop_early(64, 1e9, || 1.0);
    assert!((q.accu_prob - 2.0 * 64.0 / 1024.0).abs() < 1e-15);
    q.accu_prob = 0.0;
    q.drop_early(1500, 1e9, || 1.0);
    assert_eq!(q.accu_prob, PROB_LOW);
}

#[test]
fn calm_updates_end_the_burst_protection_after_the_reset_timeout() {
    let mut q = docsis();
    q.burst_state = BurstState::InBurstProtecting;
    q.burst_allowance = SimTime::from_millis(32);
    q.update(20e6);
    assert_eq!(q.burst_state, BurstState::InBurstProtecting);
    q.update(20e6); // allowance used up: calm
    assert_eq!(q.burst_state, BurstState::InBurst);
    for _ in 0..62 {
        q.update(20e6);
    }
    assert_eq!(q.burst_state, BurstState::InBurst);
    q.update(20e6);
    assert_eq!(q.burst_state, BurstState::NoBurst);
}

#[test]
fn a_standing_queue_is_held_near_the_target() {
    // twice the link's rate offered in 1000-byte packets: the controller must drop about
    // half and hold the delay near 10 ms
    let mut h = Harness::new(Box::new(docsis()), RATE);
    let tx = SimTime::from_secs_f64(1000.0 * 8.0 / 20e6);
    let mut now = SimTime::ZERO;
    let (mut sum, mut n, mut settled) = (0.0, 0u64, 0);
    for i in 0..100_000u64 {
        if i == 50_000 {
            settled = h.dropped.len();
        }
        for _ in 0..2 {
            let p = h.packet(0, 1000);
            h.enqueue(now, p);
        }
        if h.dequeue(now).is_some() && i > 50_000 {
            sum += h.q.len_bytes() as f64 * 8.0 / 20e6;
            n += 1;
        }
        now = now + tx;
    }
    let mean = sum / n as f64;
    assert!(
        (0.005..0.020).contains(&mean),
        "mean queue delay {mean:.4} s (target 10 ms)"
    );
    let late = &h.dropped[settled..];
    assert!(
        late.len() > 40_000,
        "about half of the 100 000 late arrivals go"
    );
    assert!(
        late.iter().all(|(_, r)| *r == DropReason::Pie),
        "once settled, early drops only"
    );
}

#[test]
fn bad_values_are_refused_with_their_field() {
    let field = |c: DocsisPieConfig| c.validate().unwrap_err().0;
    assert_eq!(
        field(DocsisPieConfig {
            mean_pktsize: Some(Bytes(0)),
            ..Default::default()
        }),
        "mean_pktsize"
    );
    assert_eq!(
        field(DocsisPieConfig {
            rate: Some(Rate(0)),
            ..Default::default()
        }),
        "rate"
    );
    assert_eq!(
        field(DocsisPieConfig {
            pi: PiKnobs {
                tupdate: Some(SimTime(1)),
                ..PiKnobs::default()
            },
            ..Default::default()
        }),
        "tupdate"
    );
}
