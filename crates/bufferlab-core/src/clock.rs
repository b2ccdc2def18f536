//! The event clock: the key that orders the engine's events.
//!
//! bufferlab counts time in integer picoseconds (`units.rs`): events of one picosecond run in
//! the order they were scheduled. ns-2.35 keeps time in double seconds (common/scheduler.cc
//! `Scheduler::schedule`: an event's time is `clock_ + delay`, added in doubles; ties in the
//! order of scheduling). Two events simultaneous on paper (a packet reaching a queue as the
//! one ahead leaves it; two CBR sources meeting) are apart there by the rounding of the sums
//! that made them, and ns-2 runs them in that order; in picoseconds they are one instant, or
//! apart by a different rounding. `EventClock::Ns2` orders events as ns-2 does: each event is
//! keyed by its time in ns-2's double seconds, computed as ns-2 computes it (a link:
//! `now + (txtime + delay)` and `now + txtime`, classifier/delay.cc `LinkDelay::recv`; a CBR
//! source: `now + interval`, tools/trafgen.cc), and the key is the double's bits (a positive
//! double's bits order as its value). Picoseconds are still what the models count in: the
//! engine's `now` is the key's time rounded to the picosecond, never going back.
//!
//! Timers whose ns-2 double the engine does not follow (TCP's retransmission and delayed-ACK
//! timers) are keyed at `now + delay` with the delay in picoseconds as a double: the same as
//! ns-2's wherever the delay is a whole number of picoseconds ns-2 also rounds to (0.1 s, a
//! multiple of the 10 ms tick), within a few units in the last place otherwise.

use crate::units::{SimTime, PS_PER_S};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What orders the events of a run (the scenario's `clock`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EventClock {
    /// Integer picoseconds; events of one picosecond in the order they were scheduled
    /// (bufferlab's own clock, and the default).
    #[default]
    Picoseconds,
    /// ns-2.35's double seconds: every event at the time ns-2 would compute for it, so that
    /// events simultaneous on paper run in ns-2's order (`bufferlab run script.tcl` and
    /// `import-ns2` set it).
    Ns2,
}

impl EventClock {
    /// The key of absolute time `t` (a sample, the end of a slice).
    #[inline]
    pub fn key_at(self, t: SimTime) -> u64 {
        match self {
            EventClock::Picoseconds => t.0,
            EventClock::Ns2 => seconds(t).to_bits(),
        }
    }

    /// The key of `delay` after the event keyed `now_key`, which fell at `now` (ns-2:
    /// `clock_ + delay`, the delay in picoseconds as seconds).
    #[inline]
    pub fn key_after(self, now_key: u64, now: SimTime, delay: SimTime) -> u64 {
        match self {
            EventClock::Picoseconds => (now + delay).0,
            EventClock::Ns2 => (f64::from_bits(now_key) + seconds(delay)).to_bits(),
        }
    }

    /// The time of key `key`, never before `now` (ns-2's doubles rounded to the picosecond can
    /// fall a picosecond before a time the models computed in picoseconds).
    #[inline]
    pub fn time_of(self, key: u64, now: SimTime) -> SimTime {
        match self {
            EventClock::Picoseconds => SimTime(key),
            EventClock::Ns2 => SimTime::from_secs_f64(f64::from_bits(key)).max(now),
        }
    }

    /// The time of key `key` in seconds.
    #[inline]
    pub fn seconds_of(self, key: u64) -> f64 {
        match self {
            EventClock::Picoseconds => SimTime(key).as_secs_f64(),
            EventClock::Ns2 => f64::from_bits(key),
        }
    }

    /// The key of time `t` seconds (a script's event: under `EventClock::Ns2` the double
    /// ns-2's scheduler holds, which the script runner computes as ns-2's `at` does).
    pub fn key_of_secs(self, t: f64) -> u64 {
        match self {
            EventClock::Picoseconds => SimTime::from_secs_f64(t).0,
            EventClock::Ns2 => t.to_bits(),
        }
    }
}

/// A duration in picoseconds as double seconds (rounded once).
#[inline]
fn seconds(t: SimTime) -> f64 {
    t.0 as f64 / PS_PER_S as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_double_keys_bits_order_as_its_time() {
        let ts: [f64; 7] = [0.0, 1e-9, 0.58, 0.5800000000000001, 1.0, 18.067, 1e6];
        for w in ts.windows(2) {
            assert!(w[0].to_bits() < w[1].to_bits());
        }
    }

    #[test]
    fn ns2_keys_add_in_doubles_as_ns2s_scheduler() {
        let c = EventClock::Ns2;
        // 0.1 + 0.2 in doubles is 0.30000000000000004, not 0.3
        let k = c.key_after(
            0.1f64.to_bits(),
            SimTime::from_millis(100),
            SimTime::from_millis(200),
        );
        assert_eq!(c.seconds_of(k), 0.1 + 0.2);
        assert_ne!(c.seconds_of(k), 0.3);
        assert_eq!(c.time_of(k, SimTime::ZERO), SimTime::from_millis(300));
        // picoseconds: exact
        let p = EventClock::Picoseconds;
        let k = p.key_after(
            100_000_000_000,
            SimTime::from_millis(100),
            SimTime::from_millis(200),
        );
        assert_eq!(p.time_of(k, SimTime::ZERO), SimTime::from_millis(300));
    }

    #[test]
    fn time_never_goes_back() {
        let c = EventClock::Ns2;
        let now = SimTime(1_000_000_000_001);
        assert_eq!(c.time_of(1.0f64.to_bits(), now), now);
    }
}
