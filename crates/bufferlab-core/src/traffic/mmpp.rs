//! Two-state Markov-modulated Poisson process (MMPP-2): a continuous-time Markov chain
//! alternates between a high-rate and a low-rate state with exponentially distributed sojourn
//! times; in each state packets arrive as a Poisson process of that state's rate. It is the
//! standard model of bursty, correlated aggregate traffic whose queueing behaviour a Poisson
//! source hides (Heffes and Lucantoni, "A Markov Modulated Characterization of Packetized Voice
//! and Data Traffic and Related Statistical Multiplexer Performance", IEEE JSAC 4(6), 1986;
//! Fischer and Meier-Hellstern, "The Markov-modulated Poisson process (MMPP) cookbook",
//! Performance Evaluation 18(2), 1993).
//!
//! The chain starts in its stationary distribution (state i with probability
//! s_i / (s_0 + s_1), s_i the mean sojourn in state i), so the source is stationary from its
//! first packet: its long-run rate is (r_0 s_0 + r_1 s_1) / (s_0 + s_1). Gaps that would cross
//! a state change are redrawn from the change on (the exponential is memoryless, so this is
//! exact). Packet sizes are fixed.

use super::{exp_sample, Generator};
use crate::rng::Rng;
use crate::units::{Rate, SimTime};
use rand::RngExt;

pub struct Mmpp {
    now: SimTime,
    /// No packet at or after this time (the chain is not run past the flow's stop).
    stop: SimTime,
    /// Mean gap between packets in each state, in seconds.
    mean_gap_s: [f64; 2],
    /// Mean sojourn in each state, in seconds.
    mean_sojourn_s: [f64; 2],
    size: u32,
    /// Current state and when it ends; None before the first packet.
    state: Option<(usize, SimTime)>,
}

impl Mmpp {
    pub fn new(
        start: SimTime,
        stop: SimTime,
        rates: [Rate; 2],
        sojourns: [SimTime; 2],
        size: u32,
    ) -> Self {
        let gap = |r: Rate| r.tx_time(size as u64).as_secs_f64();
        Self {
            now: start,
            stop,
            mean_gap_s: [gap(rates[0]), gap(rates[1])],
            mean_sojourn_s: [sojourns[0].as_secs_f64(), sojourns[1].as_secs_f64()],
            size,
            state: None,
        }
    }

    fn enter(&self, state: usize, at: SimTime, rng: &mut Rng) -> (usize, SimTime) {
        let stay = exp_sample(rng, self.mean_sojourn_s[state]);
        (state, at + SimTime::from_secs_f64(stay).max(SimTime(1)))
    }
}

impl Generator for Mmpp {
    fn next(&mut self, rng: &mut Rng) -> Option<(SimTime, u32)> {
        let (mut state, mut until) = match self.state {
            Some(s) => s,
            None => {
                let [s0, s1] = self.mean_sojourn_s;
                let first = usize::from(rng.random::<f64>() * (s0 + s1) >= s0);
                self.enter(first, self.now, rng)
            }
        };
        while self.now < self.stop {
            let t = self.now + SimTime::from_secs_f64(exp_sample(rng, self.mean_gap_s[state]));
            if t <= until {
                self.now = t;
                self.state = Some((state, until));
                return Some((t, self.size));
            }
            self.now = until;
            (state, until) = self.enter(1 - state, until, rng);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mmpp(r0: u64, r1: u64, s0_ms: u64, s1_ms: u64) -> Mmpp {
        Mmpp::new(
            SimTime::ZERO,
            SimTime::from_secs(30_000),
            [Rate(r0), Rate(r1)],
            [SimTime::from_millis(s0_ms), SimTime::from_millis(s1_ms)],
            1000,
        )
    }

    /// Packets in [0, horizon) and the counts in consecutive windows of `window`.
    fn counts(mut g: Mmpp, seed: u64, horizon: f64, window: f64) -> (u64, Vec<f64>) {
        let mut rng = crate::rng::stream(seed, "t");
        let mut per_window = vec![0.0; (horizon / window) as usize];
        let mut n = 0;
        while let Some((t, _)) = g.next(&mut rng) {
            let t = t.as_secs_f64();
            if t >= horizon {
                break;
            }
            n += 1;
            per_window[(t / window) as usize] += 1.0;
        }
        (n, per_window)
    }

    #[test]
    fn long_run_rate_is_the_stationary_mix() {
        // 8 Mbit/s for 100 ms, 0.8 Mbit/s for 400 ms: (8*0.1 + 0.8*0.4) / 0.5 = 2.24 Mbit/s,
        // i.e. 280 packets/s of 1000 B. The count over T has variance mean * IDC(T), IDC about
        // 74 here (next test), so over 20 000 s its standard deviation is 0.36 % of the mean.
        let (n, _) = counts(mmpp(8_000_000, 800_000, 100, 400), 1, 20_000.0, 1.0);
        let rate = n as f64 / 20_000.0;
        assert!((rate / 280.0 - 1.0).abs() < 0.015, "{rate} packets/s");
    }

    #[test]
    fn counts_are_overdispersed_against_poisson() {
        // A Poisson process has variance = mean in every window; the modulation adds the
        // variance of the rate, so the index of dispersion over 1 s windows is well above 1
        // (Fischer and Meier-Hellstern 1993, section 5: IDC(t) = 1 + 2 (l0 - l1)^2 r0 r1 /
        // ((r0 + r1)^2 (r0 l1 + r1 l0)) (1 - (1 - exp(-(r0 + r1) t)) / ((r0 + r1) t)),
        // r_i the rate of leaving state i, l_i the arrival rate in it).
        let (_, w) = counts(mmpp(8_000_000, 800_000, 100, 400), 3, 4000.0, 1.0);
        let mean = w.iter().sum::<f64>() / w.len() as f64;
        let var = w.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / (w.len() - 1) as f64;
        let (l0, l1, r0, r1, t): (f64, f64, f64, f64, f64) = (1000.0, 100.0, 10.0, 2.5, 1.0);
        let idc = 1.0
            + 2.0 * (l0 - l1).powi(2) * r0 * r1 / ((r0 + r1).powi(2) * (r0 * l1 + r1 * l0))
                * (1.0 - (1.0 - (-(r0 + r1) * t).exp()) / ((r0 + r1) * t));
        assert!(
            (var / mean / idc - 1.0).abs() < 0.1,
            "IDC {} vs theory {idc}",
            var / mean
        );
    }
}
