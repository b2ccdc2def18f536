//! Reno window growth and decrease, RFC 5681 "TCP Congestion Control" (ns-2 `Agent/TCP/Reno`,
//! `tcp-reno.cc`). Recovery (RFC 5681 section 3.2) is run by the sender with [`Recovery::Reno`].
//!
//! * Section 3.1, slow start: cwnd += min(N, SMSS) per ACK of new data (N the bytes acked;
//!   appropriate byte counting with L = 1 SMSS, RFC 3465). Like ns-2's `opencwnd`, one ACK
//!   adds at most one segment, so delayed ACKs slow the growth.
//! * Section 3.1, congestion avoidance: cwnd += SMSS*SMSS/cwnd per ACK (equation 3), about
//!   one segment per RTT (ns-2 `increase_num_` 1).
//! * Section 3.1 equation 4: on loss ssthresh = max(FlightSize/2, 2*SMSS).

use super::{Ack, CongestionControl, Recovery, Window};
use crate::units::SimTime;

/// Slow start / congestion avoidance growth shared by the AIMD algorithms.
pub fn aimd_increase(w: &mut Window, acked: u64) {
    if w.in_slow_start() {
        w.cwnd += (acked as f64).min(w.mss);
    } else {
        w.cwnd += w.mss * w.mss / w.cwnd;
    }
}

/// RFC 5681 equation 4.
pub fn half_flight(w: &Window, flight: u64) -> f64 {
    (flight as f64 / 2.0).max(2.0 * w.mss)
}

pub struct Reno;

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }
    fn recovery(&self) -> Recovery {
        Recovery::Reno
    }
    fn on_ack(&mut self, w: &mut Window, a: &Ack) {
        aimd_increase(w, a.acked);
    }
    fn ssthresh_on_loss(&mut self, w: &Window, flight: u64, _now: SimTime) -> f64 {
        half_flight(w, flight)
    }
}
