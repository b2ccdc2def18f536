//! On/off source, as ns-3's `OnOffApplication` and ns-2's `Application/Traffic/Exponential`
//! and `Pareto`: during an on-period it sends packets every `packet_size * 8 / rate`; then it
//! is silent for an off-period. Period lengths are drawn from the configured distributions
//! (constant, uniform, exponential, Pareto). The first on-period starts at the flow's start.
//! A packet is sent only if its emission time falls inside the on-period (no partial packets).

use super::distribution::Distribution;
use super::{sample, Generator};
use crate::rng::Rng;
use crate::units::{Rate, SimTime};

pub struct OnOff {
    next_at: SimTime,
    on_end: SimTime,
    started: bool,
    interval: SimTime,
    size: u32,
    on: Distribution,
    off: Distribution,
}

impl OnOff {
    pub fn new(start: SimTime, rate: Rate, size: u32, on: Distribution, off: Distribution) -> Self {
        Self {
            next_at: start,
            on_end: start,
            started: false,
            interval: rate.tx_time(size as u64),
            size,
            on,
            off,
        }
    }
}

impl Generator for OnOff {
    fn next(&mut self, rng: &mut Rng) -> Option<(SimTime, u32)> {
        if !self.started {
            self.started = true;
            self.on_end = self.next_at + sample(&self.on, rng);
        }
        // Skip over on-periods too short to hold the next packet (bounded: durations are > 0 or we step by off-time).
        let mut guard = 0;
        while self.next_at >= self.on_end {
            let off_start = self.on_end;
            let on_start = off_start + sample(&self.off, rng);
            self.next_at = on_start;
            self.on_end = on_start + sample(&self.on, rng);
            guard += 1;
            if guard > 1_000_000 {
                return None; // degenerate distributions (zero on- and off-time): the source stays silent
            }
        }
        let at = self.next_at;
        self.next_at = at + self.interval;
        Some((at, self.size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- constant periods give a square wave ----
    #[test]
    fn constant_on_off_sends_only_while_on() {
        let c = |ms| Distribution::Constant {
            value: SimTime::from_millis(ms),
        };
        let mut g = OnOff::new(SimTime::ZERO, Rate(1_000_000), 1000, c(20), c(30));
        let mut rng = crate::rng::stream(1, "t");
        let times: Vec<u64> = (0..6)
            .map(|_| g.next(&mut rng).unwrap().0 .0 / 1_000_000_000)
            .collect();
        // 8 ms per packet: on [0,20) -> 0, 8, 16; off until 50; on [50,70) -> 50, 58, 66
        assert_eq!(times, vec![0, 8, 16, 50, 58, 66]);
    }
}
