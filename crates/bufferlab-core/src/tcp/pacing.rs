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
//! * A controller that sets its own rate (BBR, `tcp/cc/bbr/`) replaces the rule
//!   (ns-3 `TcpCongestionOps::HasCongControl`, Linux `sk_pacing_rate` set by `bbr_set_pacing_rate`).
//! * TCP Prague (Linux `net/ipv4/tcp_prague.c`, `prague_update_pacing_rate`, on every ACK; the
//!   module sets `SK_PACING_NEEDED`, so a Prague flow is always paced): 200 % while
//!   cwnd < ssthresh / 2 and 100 % otherwise ("Pacing is set to 100% during AI"), of
//!   max(cwnd, packets in flight) per srtt ([`Pacer::prague`]). Linux counts that rate in MTU-sized
//!   packets and spaces each packet by its own length, so the spacing per packet is the same as
//!   counting payload bytes on both sides, as here. Under the rate rules of
//!   `prague_cwnd_mode = "rate"` or `"switch"` (tcp_prague.c v0.7, `cc/prague_rate.rs`)
//!   Prague sets its own rate instead, as a controller with its own rate does.
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
    /// The window the rate is computed from is at least the bytes in flight (Prague's
    /// `max(snd_cwnd, tcp_packets_in_flight)`); the generic rule uses cwnd alone.
    at_least_in_flight: bool,
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
            at_least_in_flight: false,
            next: None,
            last_rate: 0.0,
            held: 0,
        }
    }

    /// TCP Prague's pacing (Linux `prague_update_pacing_rate`): 200 % in early slow start,
    /// 100 % otherwise, of max(cwnd, in flight) per srtt. Not configurable, as in Linux.
    pub fn prague() -> Self {
        Self {
            at_least_in_flight: true,
            ..Self::new(200.0, 100.0)
        }
    }

    /// The (slow-start, congestion-avoidance) factors in %, for the report.
    pub fn ratios(&self) -> (f64, f64) {
        (self.ss_ratio, self.ca_ratio)
    }

    /// The rate (bytes/s) by the ss/ca rule: factor * cwnd / rtt, or `None` before an RTT is
    /// known (the initial window leaves unpaced, as ns-3 and Linux send it). `in_flight` counts
    /// only under Prague's rule.
    pub fn window_rate(
        &self,
        cwnd: f64,
        ssthresh: f64,
        in_flight: f64,
        rtt_s: Option<f64>,
    ) -> Option<f64> {
        let rtt = rtt_s.filter(|r| *r > 0.0)?;
        let ratio = if cwnd < ssthresh / 2.0 {
            self.ss_ratio
        } else {
            self.ca_ratio
        };
        let window = if self.at_least_in_flight {
            cwnd.max(in_flight)
        } else {
            cwnd
        };
        Some(ratio / 100.0 * window / rtt)
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
        let r = p
            .window_rate(10_000.0, f64::INFINITY, 0.0, Some(0.1))
            .unwrap();
        assert!((r - 200_000.0).abs() < 1e-6);
        // cwnd >= ssthresh / 2: congestion avoidance; more in flight than cwnd does not count
        let r = p
            .window_rate(10_000.0, 20_000.0, 15_000.0, Some(0.1))
            .unwrap();
        assert!((r - 120_000.0).abs() < 1e-6);
        assert!(p.window_rate(10_000.0, 20_000.0, 0.0, None).is_none());
    }

    // ---- Prague: 200 % early in slow start, 100 % after, of max(cwnd, in flight) ----
    #[test]
    fn prague_paces_at_cwnd_per_rtt_in_avoidance_and_counts_what_is_in_flight() {
        let p = Pacer::prague();
        assert_eq!(p.ratios(), (200.0, 100.0));
        let r = p
            .window_rate(10_000.0, f64::INFINITY, 0.0, Some(0.1))
            .unwrap();
        assert!((r - 200_000.0).abs() < 1e-6);
        let r = p.window_rate(10_000.0, 20_000.0, 0.0, Some(0.1)).unwrap();
        assert!((r - 100_000.0).abs() < 1e-6);
        // after a reduction more is in flight than the new cwnd: the rate follows the flight
        let r = p
            .window_rate(10_000.0, 20_000.0, 14_000.0, Some(0.1))
            .unwrap();
        assert!((r - 140_000.0).abs() < 1e-6);
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
