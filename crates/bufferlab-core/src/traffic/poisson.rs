//! Poisson source: exponential interarrival times with mean `mean_size * 8 / rate`, and fixed
//! or exponentially distributed packet sizes. With exponential sizes into a FIFO on a
//! fixed-rate link this is the M/M/1(/K) queue of Kleinrock, Queueing Systems vol. 1, ch. 3.
//! Sizes are rounded to whole bytes and never below the header size (a packet cannot be smaller
//! than its headers): at a 1000-byte mean and 28-byte headers this raises the mean by 0.4 bytes (0.04 %).

use super::distribution::SizeDistribution;
use super::{exp_sample, Generator};
use crate::rng::Rng;
use crate::units::{Rate, SimTime};

pub struct Poisson {
    now: SimTime,
    mean_gap_s: f64,
    mean_size: u32,
    sizes: SizeDistribution,
    min_size: u32,
}

impl Poisson {
    pub fn new(
        start: SimTime,
        rate: Rate,
        mean_size: u32,
        sizes: SizeDistribution,
        min_size: u32,
    ) -> Self {
        Self {
            now: start,
            mean_gap_s: rate.tx_time(mean_size as u64).as_secs_f64(),
            mean_size,
            sizes,
            min_size,
        }
    }
}

impl Generator for Poisson {
    fn next(&mut self, rng: &mut Rng) -> Option<(SimTime, u32)> {
        self.now = self.now + SimTime::from_secs_f64(exp_sample(rng, self.mean_gap_s));
        let size = match self.sizes {
            SizeDistribution::Fixed => self.mean_size,
            SizeDistribution::Exponential => {
                (exp_sample(rng, self.mean_size as f64).round() as u32).max(self.min_size.max(1))
            }
        };
        Some((self.now, size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- the mean rate is the configured rate ----
    #[test]
    fn mean_interarrival_and_size_match() {
        let mut g = Poisson::new(
            SimTime::ZERO,
            Rate(8_000_000),
            1000,
            SizeDistribution::Exponential,
            28,
        );
        let mut rng = crate::rng::stream(3, "t");
        let n = 200_000;
        let mut last = SimTime::ZERO;
        let mut bytes = 0u64;
        for _ in 0..n {
            let (t, s) = g.next(&mut rng).unwrap();
            last = t;
            bytes += s as u64;
        }
        let mean_gap = last.as_secs_f64() / n as f64;
        assert!((mean_gap / 1e-3 - 1.0).abs() < 0.01, "mean gap {mean_gap}");
        assert!((bytes as f64 / n as f64 / 1000.0 - 1.0).abs() < 0.01);
    }
}
