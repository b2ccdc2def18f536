//! ns-2.35's on/off sources, `Application/Traffic/Exponential` (`tools/expoo.cc`,
//! `EXPOO_Traffic`) and `Application/Traffic/Pareto` (`tools/pareto.cc`, `POO_Traffic`): bursts
//! of whole packets `interval = size * 8 / rate` apart, separated by idle times.
//!
//! `next_interval`, called when the source starts (`TrafficGenerator::start`) and after each
//! packet it sends (`timeout`): the gap to the next packet is `interval`; when the burst is
//! used up (`rem_ == 0`, also at the start) it first draws the next burst's length in packets,
//! `rem_ = int(X + 0.5)` (at least 1), then the idle time Y, and the gap is `interval + Y`. So
//! a source's first packet goes out an interval plus an idle time after its start.
//!
//! * Exponential: X ~ Exp(mean `burst_time_ / interval`), Y ~ Exp(mean `idle_time_`), each
//!   `-mean ln(u)` (ranvar.cc `ExponentialRandomVariable::value`, rng.cc `exponential`).
//! * Pareto: X ~ Pareto(scale p1 = `burst_time_ / interval * (shape - 1) / shape`, `shape_`),
//!   Y ~ Pareto(scale p2 = `idle_time_ * (shape - 1) / shape`, `shape_`), each
//!   `scale / u^(1 / shape)` (rng.cc `pareto`).
//!
//! u is the next value of ns-2's default RNG when the run follows it (`ns2_default_rng`), else
//! of the source's own stream. Times add up in double seconds as ns-2's scheduler does (as
//! CBR's `clock = "ns2"`), rounded to the engine's picoseconds.

use super::Generator;
use crate::rng::Rng;
use crate::units::{Rate, SimTime};

/// The burst and idle distributions of ns-2's two on/off sources.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ns2OnOffKind {
    Exponential,
    Pareto { shape: f64 },
}

pub struct Ns2OnOff {
    kind: Ns2OnOffKind,
    /// Mean burst length in packets (`burst_time_ / interval_`).
    burst_packets: f64,
    /// Mean idle time in seconds (`idle_time_`).
    idle_s: f64,
    interval_s: f64,
    size: u32,
    /// Packets left in the burst (`rem_`).
    rem: u64,
    /// The time of the next emission, in seconds (ns-2's clock), once the source has started.
    next_s: f64,
    started: bool,
}

impl Ns2OnOff {
    pub fn new(
        start: SimTime,
        rate: Rate,
        size: u32,
        burst: SimTime,
        idle: SimTime,
        kind: Ns2OnOffKind,
    ) -> Self {
        let interval_s = (size as f64 * 8.0) / rate.0 as f64;
        Self {
            kind,
            burst_packets: burst.as_secs_f64() / interval_s,
            idle_s: idle.as_secs_f64(),
            interval_s,
            size,
            rem: 0,
            next_s: start.as_secs_f64(),
            started: false,
        }
    }

    fn draw(&self, mean: f64, rng: &mut Rng) -> f64 {
        let u = rng.uniform01();
        match self.kind {
            Ns2OnOffKind::Exponential => -mean * u.ln(),
            Ns2OnOffKind::Pareto { shape } => {
                let scale = mean * (shape - 1.0) / shape;
                scale * (1.0 / u.powf(1.0 / shape))
            }
        }
    }

    /// `next_interval`: the gap to the next packet, drawing a burst and an idle time when the
    /// burst is used up.
    fn next_interval(&mut self, rng: &mut Rng) -> f64 {
        let mut t = self.interval_s;
        if self.rem == 0 {
            let x = self.draw(self.burst_packets, rng);
            self.rem = ((x + 0.5) as u64).max(1);
            t += self.draw(self.idle_s, rng);
        }
        self.rem -= 1;
        t
    }
}

impl Generator for Ns2OnOff {
    fn next(&mut self, rng: &mut Rng) -> Option<(SimTime, u32)> {
        if !self.started {
            // built before the run: wake at the start (no packet, size 0), where ns-2's start
            // draws the first burst and idle time
            self.started = true;
            return Some((SimTime::from_secs_f64(self.next_s), 0));
        }
        self.next_s += self.next_interval(rng);
        Some((SimTime::from_secs_f64(self.next_s), self.size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ns2_rng::{Mrg32k3a, Ns2DefaultRng};

    // ---- ns-2's draws, in ns-2's order ----
    #[test]
    fn exponential_draws_burst_then_idle_at_the_start_and_after_each_burst() {
        // 1000 B at 1 Mb/s: interval 8 ms; burst_time_ 80 ms (10 packets), idle_time_ 50 ms
        let shared = Ns2DefaultRng::new([1; 6]);
        let mut rng = Rng::Ns2Default(shared.clone());
        let mut g = Ns2OnOff::new(
            SimTime::from_secs(1),
            Rate(1_000_000),
            1000,
            SimTime::from_millis(80),
            SimTime::from_millis(50),
            Ns2OnOffKind::Exponential,
        );
        // the wake-up at the start draws nothing
        assert_eq!(g.next(&mut rng), Some((SimTime::from_secs(1), 0)));
        assert_eq!(shared.state(), [1; 6]);
        let mut own = Mrg32k3a::new([1; 6]);
        let x = -10.0 * own.u01().ln();
        let y = -0.05 * own.u01().ln();
        let burst = ((x + 0.5) as u64).max(1);
        let mut t = 1.0 + 0.008 + y;
        assert_eq!(g.next(&mut rng), Some((SimTime::from_secs_f64(t), 1000)));
        for _ in 1..burst {
            t += 0.008;
            assert_eq!(g.next(&mut rng).unwrap().0, SimTime::from_secs_f64(t));
        }
        assert_eq!(shared.state(), own.state()); // nothing more drawn within the burst
        let x2 = -10.0 * own.u01().ln();
        let y2 = -0.05 * own.u01().ln();
        assert!(x2 > 0.0);
        t += 0.008 + y2;
        assert_eq!(g.next(&mut rng).unwrap().0, SimTime::from_secs_f64(t));
    }

    #[test]
    fn pareto_bursts_average_their_mean() {
        // shape 1.5: p1 = 10 * 0.5 / 1.5; mean burst 10 packets (+ rounding), mean idle 50 ms
        let mut rng = crate::rng::stream(3, "t");
        let mut g = Ns2OnOff::new(
            SimTime::ZERO,
            Rate(1_000_000),
            1000,
            SimTime::from_millis(80),
            SimTime::from_millis(50),
            Ns2OnOffKind::Pareto { shape: 1.5 },
        );
        g.next(&mut rng);
        let n = 400_000;
        let last = (0..n).map(|_| g.next(&mut rng).unwrap().0).last().unwrap();
        // per packet: 8 ms plus an idle time per burst; bursts of ~10.5 packets (int(X + .5))
        let per_packet = last.as_secs_f64() / n as f64;
        assert!(
            (0.0115..0.0140).contains(&per_packet),
            "{per_packet} s a packet"
        );
    }
}
