//! Linux Reno: the window growth and decrease of Linux's `reno` congestion control
//! (`net/ipv4/tcp_cong.c`: `tcp_reno_cong_avoid`, `tcp_slow_start`, `tcp_cong_avoid_ai`,
//! `tcp_reno_ssthresh`), as ns-3's `TcpLinuxReno` models it (`src/internet/model/
//! tcp-linux-reno.cc`, ns-3.44). It differs from RFC 5681 Reno ([`super::reno`]) in what it
//! counts: acknowledged *segments*, not ACKs, so delayed ACKs do not slow it down.
//!
//! * Slow start (`tcp_slow_start`): cwnd = min(cwnd + segments acked, ssthresh). As in ns-3's
//!   `IncreaseWindow`, segments beyond ssthresh are not carried into congestion avoidance.
//! * Congestion avoidance (`tcp_cong_avoid_ai` with w = cwnd in whole segments, at least 1): a
//!   counter adds the segments acked; each time it reaches w, one segment is added to cwnd and w
//!   taken from the counter. With delayed ACKs (two segments an ACK) this is one segment per
//!   round trip, where RFC 5681's equation 3 per ACK gives half of one.
//! * Loss (`tcp_reno_ssthresh`): ssthresh = max(cwnd / 2, 2 segments), from cwnd, not from the
//!   flight size; the counter restarts (`tcp_init_cwnd_reduction`, `tcp_enter_loss`). ns-3's
//!   `TcpLinuxReno` never clears `m_cWndCnt`, so with `ns3_rules` the counter carries over.
//! * Recovery: NewReno's (partial ACKs keep the sender in recovery, RFC 6582), ns-3's classic
//!   recovery; with SACK the sender runs RFC 6675 loss recovery.
//!
//! Segments acked are counted from the bytes acked, the remainder carried to the next ACK (as
//! ns-3's `m_bytesAckedNotProcessed`).

use super::{Ack, CongestionControl, Recovery, Window};
use crate::units::SimTime;

#[derive(Default)]
pub struct LinuxReno {
    /// Linux `snd_cwnd_cnt` / ns-3 `m_cWndCnt`: segments acked since the last increase.
    cnt: u64,
    /// Bytes acked that do not yet make a whole segment.
    partial: u64,
    /// ns-3's `TcpLinuxReno`: the counter survives losses.
    keep_count: bool,
}

impl LinuxReno {
    /// `keep_count`: the counter is kept across losses, as in ns-3 (`Rules::linux_reno_keeps_ack_count`).
    pub fn new(keep_count: bool) -> Self {
        Self {
            keep_count,
            ..Self::default()
        }
    }

    fn restart_count(&mut self) {
        if !self.keep_count {
            self.cnt = 0;
        }
    }

    fn segments_acked(&mut self, w: &Window, acked: u64) -> u64 {
        let mss = w.mss.max(1.0) as u64;
        let total = self.partial + acked;
        self.partial = total % mss;
        total / mss
    }
}

impl CongestionControl for LinuxReno {
    fn name(&self) -> &'static str {
        "linux_reno"
    }
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }
    fn on_ack(&mut self, w: &mut Window, a: &Ack) {
        let segs = self.segments_acked(w, a.acked);
        if w.in_slow_start() {
            w.cwnd = (w.cwnd + segs as f64 * w.mss).min(w.ssthresh);
            return;
        }
        let win = ((w.cwnd / w.mss).floor() as u64).max(1);
        if self.cnt >= win {
            self.cnt = 0;
            w.cwnd += w.mss;
        }
        self.cnt += segs;
        if self.cnt >= win {
            let delta = self.cnt / win;
            self.cnt -= delta * win;
            w.cwnd += delta as f64 * w.mss;
        }
    }
    fn ssthresh_on_loss(&mut self, w: &Window, _flight: u64, _now: SimTime) -> f64 {
        self.restart_count();
        (w.cwnd / 2.0).max(2.0 * w.mss)
    }
    fn on_timeout(&mut self, w: &mut Window, _flight: u64, _now: SimTime) {
        self.restart_count();
        w.ssthresh = (w.cwnd / 2.0).max(2.0 * w.mss);
        w.cwnd = w.mss;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ack, window};
    use super::*;

    // ---- slow start counts segments: a delayed ACK of two segments adds two ----
    #[test]
    fn slow_start_adds_the_segments_acked_up_to_ssthresh() {
        let mut cc = LinuxReno::default();
        let mut w = window(10.0, 13.0);
        cc.on_ack(&mut w, &ack(2000));
        assert_eq!(w.cwnd, 12_000.0);
        cc.on_ack(&mut w, &ack(2000)); // capped at ssthresh
        assert_eq!(w.cwnd, 13_000.0);
        // Bytes short of a segment wait for the next ACK.
        let mut w = window(4.0, 100.0);
        cc.on_ack(&mut w, &ack(500));
        assert_eq!(w.cwnd, 4000.0);
        cc.on_ack(&mut w, &ack(500));
        assert_eq!(w.cwnd, 5000.0);
    }

    // ---- congestion avoidance: one segment per window of segments acked ----
    #[test]
    fn congestion_avoidance_adds_one_segment_per_window_whatever_the_ack_size() {
        for per_ack in [1000u64, 2000] {
            let mut cc = LinuxReno::default();
            let mut w = window(10.0, 5.0);
            // One round trip: 10 segments acked, one ACK per segment or per two.
            for _ in 0..(10_000 / per_ack) {
                cc.on_ack(&mut w, &ack(per_ack));
            }
            assert_eq!(w.cwnd, 11_000.0, "{per_ack} bytes an ACK");
            // RFC 5681 Reno with delayed ACKs gets about half of that.
            let mut rfc = window(10.0, 5.0);
            for _ in 0..(10_000 / per_ack) {
                super::super::reno::aimd_increase(&mut rfc, per_ack);
            }
            assert!(rfc.cwnd < 11_000.0);
        }
    }

    // ---- loss halves cwnd (not the flight), at least two segments ----
    #[test]
    fn loss_halves_cwnd_and_restarts_the_counter() {
        let mut cc = LinuxReno::default();
        let mut w = window(20.0, 5.0);
        for _ in 0..9 {
            cc.on_ack(&mut w, &ack(1000));
        }
        assert_eq!(cc.cnt, 9);
        assert_eq!(cc.ssthresh_on_loss(&w, 3000, SimTime::ZERO), 10_000.0);
        assert_eq!(cc.cnt, 0);
        assert_eq!(
            cc.ssthresh_on_loss(&window(3.0, 2.0), 30_000, SimTime::ZERO),
            2000.0
        );
        cc.on_timeout(&mut w, 3000, SimTime::ZERO);
        assert_eq!((w.cwnd, w.ssthresh), (1000.0, 10_000.0));
    }
}
