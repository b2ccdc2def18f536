//! A link whose rate follows a schedule `[[t, rate], ...]`: the rate is `rate_i` from `t_i`
//! until the next entry, the last rate to the end of the run. The transmitter works as on a
//! fixed link (a packet starts when the link is free), and a packet's bits are sent at the
//! rates in force while it is sent: its transmission ends when the integral of the rate from
//! its start reaches its bits (size and the link's framing), so a change of rate during a
//! packet applies to its remaining bits, as a physical line whose clock changes would. (ns-2's
//! `$ns bandwidth` and ns-3's `PointToPointNetDevice::SetDataRate` only change the time of the
//! packets that start later; with a schedule whose changes fall between packets the two
//! agree.) Integer arithmetic throughout: the work left is counted in bit-picoseconds per
//! second (bits x 10^12), and only the end of the last segment is rounded, to the nearest
//! picosecond as [`Rate::tx_time`] rounds, so a schedule of one entry times packets exactly
//! as a fixed link of that rate does.

use crate::units::{Rate, SimTime, PS_PER_S};
use std::sync::Arc;

/// The most entries a schedule may hold, so that a generated one cannot exhaust memory.
pub const MAX_ENTRIES: usize = 1_000_000;

/// A validated schedule: times strictly increasing from 0, rates positive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateSchedule {
    points: Vec<(SimTime, Rate)>,
}

impl RateSchedule {
    /// Checks the entries: at least one, the first at 0, times strictly increasing, at most
    /// [`MAX_ENTRIES`]. The error names the entry's index.
    pub fn new(points: Vec<(SimTime, Rate)>) -> Result<Self, (usize, String)> {
        if points.is_empty() {
            return Err((0, "empty; give at least [[\"0s\", RATE]]".into()));
        }
        if points.len() > MAX_ENTRIES {
            return Err((MAX_ENTRIES, format!("more than {MAX_ENTRIES} entries")));
        }
        if points[0].0 != SimTime::ZERO {
            return Err((
                0,
                "the first entry must start at \"0s\" (the rate before it would be unknown)".into(),
            ));
        }
        for i in 1..points.len() {
            if points[i].0 <= points[i - 1].0 {
                return Err((i, "its time must come after the previous entry's".into()));
            }
        }
        Ok(Self { points })
    }

    /// The highest rate of the schedule (what a port sizes its wire for up front).
    pub fn top_rate(&self) -> Rate {
        self.points
            .iter()
            .map(|p| p.1)
            .max()
            .unwrap_or(self.points[0].1)
    }

    /// The mean rate over `[0, duration)` (over the first segment when `duration` is 0).
    pub fn mean_rate(&self, duration: SimTime) -> Rate {
        if duration == SimTime::ZERO {
            return self.points[0].1;
        }
        let mut work: u128 = 0;
        for (i, &(t, r)) in self.points.iter().enumerate() {
            if t >= duration {
                break;
            }
            let end = self
                .points
                .get(i + 1)
                .map_or(duration, |p| p.0.min(duration));
            work += u128::from(r.0) * u128::from((end - t).0);
        }
        let d = u128::from(duration.0);
        Rate(((work + d / 2) / d).max(1) as u64)
    }

    /// The end of a transmission of `bytes` starting at `start`, the rate segment `start`
    /// falls in being `*seg` or later (updated, so that a port walking forward in time finds
    /// it in constant time).
    fn tx_end(&self, start: SimTime, bytes: u64, seg: &mut usize) -> SimTime {
        let pts = &self.points;
        if *seg >= pts.len() || pts[*seg].0 > start {
            *seg = pts.partition_point(|p| p.0 <= start).saturating_sub(1);
        }
        while *seg + 1 < pts.len() && pts[*seg + 1].0 <= start {
            *seg += 1;
        }
        let mut left = u128::from(bytes) * 8 * u128::from(PS_PER_S);
        let mut t = start;
        let mut i = *seg;
        loop {
            let rate = u128::from(pts[i].1 .0);
            match pts.get(i + 1) {
                Some(&(next, _)) if rate * u128::from((next - t).0) < left => {
                    left -= rate * u128::from((next - t).0);
                    t = next;
                    i += 1;
                }
                _ => {
                    let dt = (left + rate / 2) / rate;
                    return SimTime(t.0.saturating_add(dt.min(u128::from(u64::MAX)) as u64));
                }
            }
        }
    }
}

/// One port's transmitter on a schedule: the schedule and the segment it is in.
#[derive(Debug)]
pub struct ScheduleTx {
    schedule: Arc<RateSchedule>,
    seg: usize,
}

impl ScheduleTx {
    pub fn new(schedule: Arc<RateSchedule>) -> Self {
        Self { schedule, seg: 0 }
    }

    /// The schedule's highest rate.
    pub fn top_rate(&self) -> Rate {
        self.schedule.top_rate()
    }

    /// The transmission time of `bytes` starting at `now`.
    pub fn tx_time(&mut self, now: SimTime, bytes: u64) -> SimTime {
        self.schedule.tx_end(now, bytes, &mut self.seg) - now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    fn sched(points: &[(u64, u64)]) -> Arc<RateSchedule> {
        Arc::new(
            RateSchedule::new(points.iter().map(|&(t, r)| (ms(t), Rate(r))).collect()).unwrap(),
        )
    }

    #[test]
    fn one_entry_times_packets_as_a_fixed_link() {
        let mut tx = ScheduleTx::new(sched(&[(0, 7_000_000)]));
        for (now, bytes) in [(0, 1500), (3, 40), (1000, 1), (5, 65_535)] {
            assert_eq!(tx.tx_time(ms(now), bytes), Rate(7_000_000).tx_time(bytes));
        }
    }

    /// The rate changes at the given times: packets sent back to back from 0 carry, up to
    /// each change, the bits the rate before it allows, and a packet spanning a change takes
    /// its remaining bits at the new rate.
    #[test]
    fn rate_changes_at_the_given_times() {
        // 12 Mbit/s for 10 ms (exactly 10 packets of 1500 B), then 1.2 Mbit/s, then 24
        let mut tx = ScheduleTx::new(sched(&[(0, 12_000_000), (10, 1_200_000), (30, 24_000_000)]));
        let mut t = SimTime::ZERO;
        let mut ends = Vec::new();
        for _ in 0..14 {
            t = t + tx.tx_time(t, 1500);
            ends.push(t);
        }
        assert_eq!(ends[9], ms(10));
        assert_eq!(ends[10], ms(20));
        assert_eq!(ends[11], ms(30));
        assert_eq!(ends[12], ms(30) + SimTime(500_000_000));
        // a packet across the change at 10 ms: half its bits at 12 Mbit/s (0.5 ms), half at
        // 1.2 Mbit/s (5 ms)
        let mut tx = ScheduleTx::new(sched(&[(0, 12_000_000), (10, 1_200_000)]));
        assert_eq!(
            tx.tx_time(ms(10) - SimTime(500_000_000), 1500),
            SimTime(5_500_000_000)
        );
        // and starting later than the segment it last saw, it finds the right one
        assert_eq!(tx.tx_time(ms(50), 1500), ms(10));
        assert_eq!(tx.tx_time(ms(1), 1500), ms(1));
    }

    #[test]
    fn checks_and_mean() {
        let bad = |p: Vec<(SimTime, Rate)>| RateSchedule::new(p).unwrap_err();
        assert_eq!(bad(vec![]).0, 0);
        assert!(bad(vec![(ms(1), Rate(1))]).1.contains("0s"));
        assert_eq!(
            bad(vec![(ms(0), Rate(1)), (ms(5), Rate(2)), (ms(5), Rate(3))]).0,
            2
        );
        let s = sched(&[(0, 10_000_000), (1000, 2_000_000)]);
        assert_eq!(s.mean_rate(ms(2000)), Rate(6_000_000));
        assert_eq!(s.mean_rate(ms(500)), Rate(10_000_000));
        assert_eq!(s.mean_rate(SimTime::ZERO), Rate(10_000_000));
    }
}
