//! RED's experimental knobs of ns-2.35 `queue/red.cc`, as its validation suites set them
//! (test-suite-adaptive-red.tcl, test-suite-simple.tcl); each is off unless a scenario (a
//! translated ns-2 script) asks for it:
//!
//! * `cautious_` (`RedConfig::cautious`), in `REDQueue::drop_early` and `enque`:
//!   1: no drop or mark test (and no random draw) while the queue is below `fraction x ave`,
//!   fraction = (1 - w_q)^(ptc x 0.05), what is left of the average after 50 ms of arrivals to
//!   an empty queue; 2: the uniform draw is divided by ratio = q / (fraction x ave) when that
//!   is below 1; 3: the idle decay counts idle packets of `idle_pktsize_` bytes (ptc x
//!   mean_pktsize / idle_pktsize per second) instead of `mean_pktsize_`.
//! * `feng_adaptive_` (`RedConfig::feng_adaptive`, with `adaptive_`): `updateMaxPFeng`, after
//!   Feng et al., "A Self-Configuring RED Gateway" (1999): at each arrival, max_p is divided
//!   by `alpha_` when the average falls below min_th and multiplied by `beta_` when it rises
//!   above max_th, once per crossing (a status Above / Below / Between), instead of Adaptive
//!   RED's AIMD every `interval_`.
//! * `drop_front_` / `drop_rand_` (`RedConfig::forced_victim`), in `pickPacketToDrop`: on a
//!   forced drop the arriving packet is queued first and the victim is the packet at index
//!   min(1, len - 1) (front) or `Random::integer(len)` (random) of the queue, not the
//!   arrival.

use super::config::RedVictim;
use crate::rng::Rng;

/// `cautious_` 1: the test is skipped while the queue is below what the average decays to in
/// 50 ms of arrivals to an empty queue.
#[inline]
pub fn cautious_fraction(q_w: f64, ptc: f64) -> f64 {
    (1.0 - q_w).powf(ptc * 0.05)
}

/// Feng's status of the average, `edv_.status` (red.h: `enum Status {Above, Below,
/// Between}`). red.cc never sets it before the first arrival; ns-2 allocates the queue with
/// `new`, whose memory the C++ runtime hands out zeroed at start-up, so it starts `Above`
/// (checked with `ns`: test-suite-adaptive-red.tcl's red1AdaptFeng divides max_p by alpha_
/// at the first arrival).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum FengStatus {
    #[default]
    Above,
    Below,
    Between,
}

/// `updateMaxPFeng(new_ave)`: the new max_p.
pub fn feng_update(
    status: &mut FengStatus,
    ave: f64,
    min_th: f64,
    max_th: f64,
    max_p: f64,
    alpha: f64,
    beta: f64,
) -> f64 {
    let mut p = max_p;
    if min_th < ave && ave < max_th {
        *status = FengStatus::Between;
    }
    if ave < min_th && *status != FengStatus::Below {
        *status = FengStatus::Below;
        p /= alpha;
    }
    if ave > max_th && *status != FengStatus::Above {
        *status = FengStatus::Above;
        p *= beta;
    }
    p
}

/// `pickPacketToDrop`: the index of the forced drop's victim in a queue of `len` packets
/// (the arrival, queued last, included); `Random::integer(len)` for `drop_rand_`.
pub fn victim_index(victim: RedVictim, len: usize, rng: &mut Rng) -> usize {
    match victim {
        RedVictim::Tail => len - 1,
        RedVictim::Front => 1.min(len - 1),
        RedVictim::Random => rng.integer(len as u64) as usize,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feng_divides_below_and_multiplies_above_once_per_crossing() {
        let mut s = FengStatus::default();
        // below min_th from the start (status Above): divided once
        let p = feng_update(&mut s, 1.0, 5.0, 15.0, 0.1, 3.0, 2.0);
        assert!((p - 0.1 / 3.0).abs() < 1e-15);
        assert_eq!(feng_update(&mut s, 2.0, 5.0, 15.0, p, 3.0, 2.0), p);
        // between, then above: multiplied once
        assert_eq!(feng_update(&mut s, 10.0, 5.0, 15.0, p, 3.0, 2.0), p);
        assert_eq!(s, FengStatus::Between);
        let q = feng_update(&mut s, 20.0, 5.0, 15.0, p, 3.0, 2.0);
        assert_eq!(q, p * 2.0);
        assert_eq!(feng_update(&mut s, 21.0, 5.0, 15.0, q, 3.0, 2.0), q);
    }

    #[test]
    fn victims() {
        let mut rng = crate::rng::stream(1, "t");
        assert_eq!(victim_index(RedVictim::Tail, 5, &mut rng), 4);
        assert_eq!(victim_index(RedVictim::Front, 5, &mut rng), 1);
        assert_eq!(victim_index(RedVictim::Front, 1, &mut rng), 0);
        for _ in 0..50 {
            assert!(victim_index(RedVictim::Random, 5, &mut rng) < 5);
        }
        assert!((cautious_fraction(0.002, 250.0) - 0.998f64.powf(12.5)).abs() < 1e-15);
    }
}
