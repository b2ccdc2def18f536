//! ns-2.35's Telnet application over a one-way TCP agent (`apps/telnet.cc`, `TelnetApp`).
//!
//! `start` sets `running_` and schedules the timer `next()` seconds ahead; each expiry, while
//! running, writes one packet to the agent (`agent_->sendmsg(agent_->size())`: tcp.cc
//! `sendmsg` adds ceil(size_ / size_) = 1 packet to `curseq_`) and schedules the timer again
//! `next()` ahead. `next()` is `Random::exponential() * interval_`: rng.h `exponential()` is
//! `-log(uniform())` of the default RNG, and `interval_` is read at each draw (a script may
//! change it during the run: [`Generator::set_telnet_interval`]; ns-default.tcl gives 1.0).
//! `interval_ 0` draws from tcplib's empirical table instead (tcp/tcplib-telnet.cc): not
//! modelled (the script layer refuses it).
//!
//! So the first packet goes out one draw after the start, and each draw is made at the
//! expiry it follows. Times add up in double seconds as ns-2's scheduler does (`Scheduler::
//! schedule`: the current time plus the delay), rounded to the engine's picoseconds, and
//! [`Generator::next_s`] gives the double so that a script's event of the same instant is
//! ordered as ns-2 orders it. The packet's size is the agent's `packetSize_`: one segment.

use super::Generator;
use crate::rng::Rng;
use crate::units::SimTime;

pub struct Ns2Telnet {
    /// `interval_`, seconds: the mean of the exponential gap.
    interval_s: f64,
    /// Bytes per write: the agent's `packetSize_` (one segment).
    size: u32,
    /// The time of the pending expiry, in ns-2's double seconds (the start before it starts).
    next_s: f64,
    started: bool,
}

impl Ns2Telnet {
    pub fn new(start: SimTime, interval_s: f64, size: u32) -> Self {
        Self {
            interval_s,
            size,
            next_s: start.as_secs_f64(),
            started: false,
        }
    }
}

impl Generator for Ns2Telnet {
    fn next(&mut self, rng: &mut Rng) -> Option<(SimTime, u32)> {
        if !self.started {
            // built before the run: wake at the start (no packet, size 0), where `start`
            // makes the first draw
            self.started = true;
            return Some((SimTime::from_secs_f64(self.next_s), 0));
        }
        // TelnetApp::next(): Random::exponential() * interval_, exponential() = -log(u)
        let gap = -rng.uniform01().ln() * self.interval_s;
        self.next_s += gap;
        Some((SimTime::from_secs_f64(self.next_s), self.size))
    }

    fn next_s(&self) -> Option<f64> {
        Some(self.next_s)
    }

    fn set_start_s(&mut self, s: f64) {
        if !self.started {
            self.next_s = s;
        }
    }

    fn set_telnet_interval(&mut self, interval_s: f64) -> bool {
        self.interval_s = interval_s;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ns2_rng::{Mrg32k3a, Ns2DefaultRng};

    /// ns-2's default RNG as the run shares it, and a twin stream of the same state.
    fn default_rng() -> (Rng, Mrg32k3a) {
        (
            Rng::Ns2Default(Ns2DefaultRng::new([7; 6])),
            Mrg32k3a::new([7; 6]),
        )
    }

    #[test]
    fn wakes_at_the_start_then_one_packet_per_exponential_gap() {
        let (mut rng, mut twin) = default_rng();
        let start = SimTime::from_millis(500);
        let mut g = Ns2Telnet::new(start, 0.01, 1000);
        assert_eq!(
            g.next(&mut rng),
            Some((start, 0)),
            "the start draws nothing yet"
        );
        let mut t = 0.5;
        for _ in 0..50 {
            t += -twin.u01().ln() * 0.01;
            assert_eq!(g.next(&mut rng), Some((SimTime::from_secs_f64(t), 1000)));
            assert_eq!(g.next_s(), Some(t));
        }
    }

    #[test]
    fn a_new_interval_applies_from_the_next_draw() {
        let (mut rng, mut twin) = default_rng();
        let mut g = Ns2Telnet::new(SimTime::ZERO, 0.01, 500);
        g.next(&mut rng);
        let mut t = -twin.u01().ln() * 0.01;
        assert_eq!(g.next(&mut rng).unwrap().0, SimTime::from_secs_f64(t));
        assert!(g.set_telnet_interval(0.001));
        t += -twin.u01().ln() * 0.001;
        assert_eq!(g.next(&mut rng).unwrap().0, SimTime::from_secs_f64(t));
    }
}
