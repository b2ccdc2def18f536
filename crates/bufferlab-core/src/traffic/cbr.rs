//! Constant bit rate source, as ns-2's `Application/Traffic/CBR` (tools/cbr_traffic.cc):
//! one packet every `packet_size * 8 / rate`; with `random`, each gap is
//! `interval + interval * U(-0.5, 0.5)` (ns-2's `random_` flag), drawn when the packet before
//! it goes out.

use super::{CbrClock, Generator};
use crate::rng::Rng;
use crate::units::{Rate, SimTime};

pub struct Cbr {
    /// The next emission's time (the first is `start`); the gap after it is drawn when it
    /// goes out, as ns-2 draws it after sending (`TrafficGenerator::timeout`).
    next_at: SimTime,
    /// The same time in seconds, as ns-2's scheduler holds it (`CbrClock::Ns2`).
    next_s: f64,
    started: bool,
    interval: SimTime,
    /// ns-2's `interval_ = (size_ << 3) / rate_` in seconds.
    interval_s: f64,
    size: u32,
    random: bool,
    clock: CbrClock,
}

impl Cbr {
    pub fn new(start: SimTime, rate: Rate, size: u32, random: bool, clock: CbrClock) -> Self {
        Self {
            next_at: start,
            next_s: start.as_secs_f64(),
            started: false,
            interval: rate.tx_time(size as u64),
            interval_s: (size as f64 * 8.0) / rate.0 as f64,
            size,
            random,
            clock,
        }
    }
}

impl Cbr {
    /// The gap in seconds of the ns-2 clock, as the scenario gives it (`ns2_interval_s`).
    pub fn set_ns2_interval(&mut self, seconds: f64) {
        self.interval_s = seconds;
    }
}

impl Generator for Cbr {
    fn next(&mut self, rng: &mut Rng) -> Option<(SimTime, u32)> {
        if self.started {
            // cbr_traffic.cc next_interval: t = interval_ + interval_ * Random::uniform(-0.5, 0.5)
            let jitter = if self.random {
                rng.uniform_between(-0.5, 0.5)
            } else {
                0.0
            };
            match self.clock {
                CbrClock::Exact => {
                    let i = self.interval.0 as f64;
                    let gap = if self.random {
                        SimTime((i + i * jitter).round() as u64)
                    } else {
                        self.interval
                    };
                    self.next_at = self.next_at + gap;
                }
                CbrClock::Ns2 => {
                    let i = self.interval_s;
                    self.next_s += i + i * jitter;
                    self.next_at = SimTime::from_secs_f64(self.next_s);
                }
            }
        }
        self.started = true;
        Some((self.next_at, self.size))
    }

    fn next_s(&self) -> Option<f64> {
        (self.clock == CbrClock::Ns2).then_some(self.next_s)
    }

    fn set_start_s(&mut self, s: f64) {
        if !self.started {
            self.next_s = s;
        }
    }

    /// cbr_traffic.cc `next_interval`: "Recompute interval in case rate_ or size_ has
    /// changes", `interval_ = (double)(size_ << 3) / (double)rate_`, at each packet, after
    /// `TrafficGenerator::timeout` has sent it; the timer already set is not touched. So the
    /// emission pending now keeps its time, and the gap after it is the new one.
    fn set_cbr_rate(&mut self, rate_bps: f64, size: u32) -> bool {
        self.size = size;
        self.interval_s = (size as f64 * 8.0) / rate_bps;
        self.interval = if rate_bps.fract() == 0.0 && rate_bps >= 1.0 && rate_bps < u64::MAX as f64
        {
            Rate(rate_bps as u64).tx_time(size as u64)
        } else {
            SimTime::from_secs_f64(self.interval_s)
        };
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- exact spacing ----
    #[test]
    fn packets_are_evenly_spaced_at_the_rate() {
        let mut g = Cbr::new(
            SimTime::from_secs(1),
            Rate(1_000_000),
            1000,
            false,
            CbrClock::Exact,
        );
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

    // ---- ns-2's clock and draws ----
    #[test]
    fn ns2_interval_from_a_fractional_rate_keeps_ns2s_double() {
        // 190 B every 3 ms (rate_ 506666.666... bit/s) from 1.4 s: ns-2's 255th packet is at
        // 2.1619999999999844 s (printed 2.162); a rate of whole bit/s (506667) puts it
        // 0.5 us earlier (2.161999)
        let rate_ = 190.0 * 8.0 / 0.003;
        let mk = || {
            Cbr::new(
                SimTime::from_millis(1400),
                Rate(506_667),
                190,
                false,
                CbrClock::Ns2,
            )
        };
        let (mut given, mut rounded) = (mk(), mk());
        given.set_ns2_interval(190.0 * 8.0 / rate_);
        let mut rng = crate::rng::stream(1, "t");
        let at = |g: &mut Cbr, rng: &mut crate::rng::Rng| {
            (0..255).map(|_| g.next(rng).unwrap().0).last().unwrap()
        };
        let mut s = 1.4f64;
        for _ in 0..254 {
            s += 190.0 * 8.0 / rate_;
        }
        assert_eq!(at(&mut given, &mut rng), SimTime::from_secs_f64(s));
        assert!(at(&mut rounded, &mut rng) < SimTime::from_secs_f64(2.1619995));
    }

    #[test]
    fn ns2_clock_adds_seconds_as_ns2s_scheduler_does() {
        // ns-2: 500 B at 0.6 Mb/s from 0.5 s; three gaps give 0.5200000000000001 s, 500 B at
        // 0.8 Mb/s from 0 s, 104 gaps 0.5200000000000004 s: the same picosecond, where
        // whole-picosecond gaps (6 666 666 667 ps) put the first a picosecond late
        let mut a = Cbr::new(
            SimTime::from_millis(500),
            Rate(600_000),
            500,
            false,
            CbrClock::Ns2,
        );
        let mut b = Cbr::new(SimTime::ZERO, Rate(800_000), 500, false, CbrClock::Ns2);
        let mut exact = Cbr::new(
            SimTime::from_millis(500),
            Rate(600_000),
            500,
            false,
            CbrClock::Exact,
        );
        let mut rng = crate::rng::stream(1, "t");
        let ta = (0..4).map(|_| a.next(&mut rng).unwrap().0).last().unwrap();
        let tb = (0..105)
            .map(|_| b.next(&mut rng).unwrap().0)
            .last()
            .unwrap();
        let te = (0..4)
            .map(|_| exact.next(&mut rng).unwrap().0)
            .last()
            .unwrap();
        assert_eq!(ta, SimTime::from_millis(520));
        assert_eq!(tb, SimTime::from_millis(520));
        assert_eq!(te, SimTime(SimTime::from_millis(520).0 + 1));
    }

    #[test]
    fn random_gaps_draw_from_ns2s_default_rng_after_each_packet() {
        use crate::ns2_rng::{Mrg32k3a, Ns2DefaultRng};
        let shared = Ns2DefaultRng::new([1; 6]);
        let mut rng = Rng::Ns2Default(shared.clone());
        let mut g = Cbr::new(SimTime::ZERO, Rate(1_000_000), 1000, true, CbrClock::Ns2);
        // the first packet goes at the start and draws nothing yet
        assert_eq!(g.next(&mut rng).unwrap().0, SimTime::ZERO);
        assert_eq!(shared.state(), [1; 6]);
        let mut own = Mrg32k3a::new([1; 6]);
        let t = g.next(&mut rng).unwrap().0;
        let u = own.u01();
        assert_eq!(t, SimTime::from_secs_f64(0.008 + 0.008 * (-0.5 + u)));
        assert_eq!(shared.state(), own.state());
    }

    // ---- rate_ and packetSize_ set while it runs (cbr_traffic.cc next_interval) ----
    #[test]
    fn a_new_rate_counts_from_the_gap_after_the_pending_packet() {
        // 200 B every 10 ms from 0.01 s; rate_ made 800 kb/s (2 ms) after the packet at
        // 0.5 s went: the one pending (0.51 s) keeps its time, the next comes 2 ms after it
        let mut g = Cbr::new(
            SimTime::from_millis(10),
            Rate(160_000),
            200,
            false,
            CbrClock::Ns2,
        );
        let mut rng = crate::rng::stream(1, "t");
        let mut s = 0.01f64;
        g.next(&mut rng);
        for _ in 0..50 {
            g.next(&mut rng);
            s += 0.01;
        }
        assert_eq!(g.next_s(), Some(s)); // 0.51's double, pending
        assert!(g.set_cbr_rate(800_000.0, 200));
        let (t, size) = g.next(&mut rng).unwrap();
        assert_eq!(g.next_s(), Some(s + 0.002));
        assert_eq!((t, size), (SimTime::from_secs_f64(s + 0.002), 200));
        // a new packetSize_ alone: the gap is size x 8 / rate_ from then on (400 B: 4 ms)
        assert!(g.set_cbr_rate(800_000.0, 400));
        assert_eq!(g.next(&mut rng).unwrap().1, 400);
        assert_eq!(g.next_s(), Some(s + 0.002 + 0.004));
    }
}
