//! ns-3's `TcpNewReno` (`src/internet/model/tcp-congestion-ops.cc`, ns-3.44), the congestion
//! control of `reno`/`newreno` under `ns3_rules`. RFC 5681 growth in ns-3's integer arithmetic:
//!
//! * Window growth counts whole segments acked (`segsAcked`, the remainder carried to the next
//!   ACK as ns-3's `m_bytesAckedNotProcessed`).
//! * Slow start (`SlowStart`): one segment per ACK that acks at least one, whatever the number
//!   acked and past ssthresh; what is left goes to congestion avoidance in the same ACK
//!   (`IncreaseWindow`).
//! * Congestion avoidance (`CongestionAvoidance`): cwnd += max(1, MSS²/cwnd) truncated to whole
//!   bytes, once per ACK that acks a segment.
//! * Loss (`GetSsThresh`): ssthresh = max(2 MSS, BytesInFlight / 2) in whole bytes.
//!
//! Recovery is the sender's (RFC 6675 with SACK; NewReno's or Reno's without), as for
//! [`super::reno`] and [`super::newreno`], whose names it reports.

use super::{Ack, CongestionControl, Recovery, Window};
use crate::units::SimTime;

pub struct Ns3NewReno {
    name: &'static str,
    recovery: Recovery,
    /// Bytes acked that do not yet make a whole segment.
    partial: u64,
}

impl Ns3NewReno {
    pub fn new(name: &'static str, recovery: Recovery) -> Self {
        Self {
            name,
            recovery,
            partial: 0,
        }
    }
}

impl CongestionControl for Ns3NewReno {
    fn name(&self) -> &'static str {
        self.name
    }
    fn recovery(&self) -> Recovery {
        self.recovery
    }
    fn on_ack(&mut self, w: &mut Window, a: &Ack) {
        let mss = w.mss.max(1.0) as u64;
        let total = self.partial + a.acked;
        self.partial = total % mss;
        let mut segs = total / mss;
        if w.cwnd < w.ssthresh && segs >= 1 {
            w.cwnd += w.mss;
            segs -= 1;
        }
        if w.cwnd >= w.ssthresh && segs > 0 {
            let adder = (w.mss * w.mss / w.cwnd.floor()).max(1.0);
            w.cwnd += adder.trunc();
        }
    }
    fn ssthresh_on_loss(&mut self, w: &Window, flight: u64, _now: SimTime) -> f64 {
        ((flight / 2) as f64).max(2.0 * w.mss)
    }
    fn on_timeout(&mut self, w: &mut Window, flight: u64, now: SimTime) {
        w.ssthresh = self.ssthresh_on_loss(w, flight, now);
        w.cwnd = w.mss;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ack, window};
    use super::*;

    #[test]
    fn slow_start_adds_one_segment_an_ack_and_carries_the_rest_into_avoidance() {
        let mut cc = Ns3NewReno::new("reno", Recovery::Reno);
        // two segments acked, cwnd one below ssthresh: +1 segment, then +MSS²/cwnd = 200
        let mut w = window(4.0, 5.0);
        cc.on_ack(&mut w, &ack(2000));
        assert_eq!(w.cwnd, 5200.0);
        // half a segment acked: no growth until the other half arrives
        cc.on_ack(&mut w, &ack(500));
        assert_eq!(w.cwnd, 5200.0);
        cc.on_ack(&mut w, &ack(500));
        assert_eq!(w.cwnd, 5200.0 + (1e6f64 / 5200.0).trunc());
    }

    #[test]
    fn loss_halves_the_flight_in_whole_bytes() {
        let mut cc = Ns3NewReno::new("newreno", Recovery::NewReno);
        let w = window(10.0, f64::MAX);
        assert_eq!(cc.ssthresh_on_loss(&w, 7001, SimTime::ZERO), 3500.0);
        assert_eq!(cc.ssthresh_on_loss(&w, 1000, SimTime::ZERO), 2000.0);
    }
}
