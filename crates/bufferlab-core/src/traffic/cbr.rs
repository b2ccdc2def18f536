//! Constant bit rate source, as ns-2's `Application/Traffic/CBR` (tools/cbr_traffic.cc):
//! one packet every `packet_size * 8 / rate`; with `random`, each gap is
//! `interval * (1 + U(-0.5, 0.5))` (ns-2's `random_` flag).

use super::Generator;
use crate::rng::Rng;
use crate::units::{Rate, SimTime};
use rand::RngExt;

pub struct Cbr {
    next_at: SimTime,
    interval: SimTime,
    size: u32,
    random: bool,
}

impl Cbr {
    pub fn new(start: SimTime, rate: Rate, size: u32, random: bool) -> Self {
        Self {
            next_at: start,
            interval: rate.tx_time(size as u64),
            size,
            random,
        }
    }
}

impl Generator for Cbr {
    fn next(&mut self, rng: &mut Rng) -> Option<(SimTime, u32)> {
        let at = self.next_at;
        let gap = if self.random {
            SimTime((self.interval.0 as f64 * (1.0 + rng.random_range(-0.5..0.5))).round() as u64)
        } else {
            self.interval
        };
        self.next_at = at + gap;
        Some((at, self.size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- exact spacing ----
    #[test]
    fn packets_are_evenly_spaced_at_the_rate() {
        let mut g = Cbr::new(SimTime::from_secs(1), Rate(1_000_000), 1000, false);
        let mut rng = crate::rng::stream(1, "t");
        let times: Vec<SimTime> = (0..3).map(|_| g.next(&mut rng).unwrap().0).collect();
        assert_eq!(
            times,
            vec![
                SimTime::from_secs(1),
                SimTime::from_millis(1008),
                SimTime::from_millis(1016)
            ]
        );
    }
}
