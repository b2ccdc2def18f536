//! Pacing of a TCP sender: data segments leave no closer together than their size at the
//! pacing rate, released by a timer (an event at the time the next segment may go), never by
//! polling.
//!
//! References:
//! * ns-3.44 `TcpSocketBase` (`src/internet/model/tcp-socket-base.cc`): `SendPendingData` sends
//!   nothing while `m_pacingTimer` runs; after each data segment it starts the timer for
//!   `m_pacingRate.CalculateBytesTxTime(sz)` (sz the payload) and stops; the timer's expiry
//!   calls `SendPendingData` again. `UpdatePacingRate`: without a controller's own rate,
//!   rate = factor * cwnd / RTT with factor `PacingSsRatio` (200 %) while cwnd < ssthresh / 2
//!   and `PacingCaRatio` (120 %) otherwise (`TcpSocketState` attributes; `EnablePacing` is
//!   off by default there).
//! * Linux `net/ipv4/tcp_input.c` `tcp_update_pacing_rate`: the same rule with
//!   `sysctl_tcp_pacing_ss_ratio` 200 and `sysctl_tcp_pacing_ca_ratio` 120, over srtt.
//! * A controller that sets its own rate (BBR, `tcp/cc/bbr.rs`) replaces the rule
//!   (ns-3 `TcpCongestionOps::HasCongControl`, Linux `sk_pacing_rate` set by `bbr_set_pacing_rate`).
//!
//! Fast retransmissions at recovery entry are not paced (ns-3 `EnterRecovery` calls
//! `DoRetransmit` directly); every other data segment is.

use crate::units::SimTime;

/// The pacing state of one sender.
#[derive(Debug, Clone)]
pub struct Pacer {
    /// Slow-start factor (ns-3 `PacingSsRatio` 200, Linux `tcp_pacing_ss_ratio` 200), in %.
    ss_ratio: f64,
    /// Congestion-avoidance factor (ns-3 `PacingCaRatio` 120, Linux `tcp_pacing_ca_ratio` 120), in %.
    ca_ratio: f64,
    /// The pacing timer: no data segment leaves before this time.
    next: Option<SimTime>,
    /// The rate the last segment was paced at (bytes/s), for the report.
    pub last_rate: f64,
    /// Segments held back by the pacer at least once (for the report).
    pub held: u64,
}

impl Pacer {
    pub fn new(ss_ratio: f64, ca_ratio: f64) -> Self {
        Self {
            ss_ratio,
            ca_ratio,
            next: None,
            last_rate: 0.0,
            held: 0,
        }
    }

    /// The rate (bytes/s) by the ss/ca rule: factor * cwnd / rtt, or `None` before an RTT is
    /// known (the initial window leaves unpaced, as ns-3 and Linux send it).
    pub fn window_rate(&self, cwnd: f64, ssthresh: f64, rtt_s: Option<f64>) -> Option<f64> {
        let rtt = rtt_s.filter(|r| *r > 0.0)?;
        let ratio = if cwnd < ssthresh / 2.0 {
            self.ss_ratio
        } else {
            self.ca_ratio
        };
        Some(ratio / 100.0 * cwnd / rtt)
    }

    /// Whether the pacing timer holds data back at `now`.
    pub fn blocked(&mut self, now: SimTime) -> bool {
        match self.next {
            Some(t) if t > now => {
                self.held += 1;
                true
            }
            _ => false,
        }
    }

    /// A data segment of `bytes` left at `now` at `rate` bytes/s: arm the timer.
    pub fn on_sent(&mut self, now: SimTime, bytes: u64, rate: Option<f64>) {
        match rate.filter(|r| *r > 0.0 && r.is_finite()) {
            Some(r) => {
                self.last_rate = r;
                let gap = SimTime::from_secs_f64(bytes as f64 / r).max(SimTime(1));
                self.next = Some(now + gap);
            }
            None => self.next = None,
        }
    }

    /// The time the pacing timer fires, if it runs.
    pub fn timer(&self) -> Option<SimTime> {
        self.next
    }

    /// The timer fired at `now`: clear it.
    pub fn fire(&mut self, now: SimTime) -> bool {
        if self.next.is_some_and(|t| t <= now) {
            self.next = None;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- the ss / ca factors of ns-3 and Linux ----
    #[test]
    fn slow_start_paces_at_twice_and_avoidance_at_1_2_times_cwnd_per_rtt() {
        let p = Pacer::new(200.0, 120.0);
        // cwnd 10 kB, ssthresh unlimited: slow start
        let r = p.window_rate(10_000.0, f64::INFINITY, Some(0.1)).unwrap();
        assert!((r - 200_000.0).abs() < 1e-6);
        // cwnd >= ssthresh / 2: congestion avoidance
        let r = p.window_rate(10_000.0, 20_000.0, Some(0.1)).unwrap();
        assert!((r - 120_000.0).abs() < 1e-6);
        assert!(p.window_rate(10_000.0, 20_000.0, None).is_none());
    }

    // ---- the timer holds segments for size / rate ----
    #[test]
    fn timer_spaces_segments_by_size_over_rate() {
        let mut p = Pacer::new(200.0, 120.0);
        let t0 = SimTime::from_secs(1);
        assert!(!p.blocked(t0));
        p.on_sent(t0, 1000, Some(1_000_000.0)); // 1 ms per 1000 B
        assert_eq!(p.timer(), Some(t0 + SimTime::from_millis(1)));
        assert!(p.blocked(t0 + SimTime::from_micros(999)));
        assert!(!p.fire(t0 + SimTime::from_micros(999)));
        assert!(p.fire(t0 + SimTime::from_millis(1)));
        assert!(!p.blocked(t0 + SimTime::from_millis(1)));
        // no rate known: no timer
        p.on_sent(t0, 1000, None);
        assert_eq!(p.timer(), None);
    }
}
