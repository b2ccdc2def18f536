//! DCTCP, RFC 8257 "Data Center TCP (DCTCP): TCP Congestion Control for Data Centers"
//! (Alizadeh et al., SIGCOMM 2010), as Linux `net/ipv4/tcp_dctcp.c` and ns-3.44 `TcpDctcp`
//! (`src/internet/model/tcp-dctcp.cc`) implement it.
//!
//! * Section 3.3 (sender): bytes acknowledged and bytes acknowledged by ACKs carrying ECE are
//!   counted over one window of data (until snd_una passes the snd_nxt recorded when the
//!   window began); then F = marked/acked and alpha = (1 - g) * alpha + g * F.
//! * Section 3.3: on an ECN echo, at most once per window (the sender's RFC 3168 guard),
//!   cwnd = cwnd * (1 - alpha / 2) (`ssthresh_on_ecn`): at least 2 segments in Linux
//!   (`dctcp_ssthresh`), without a floor in ns-3.44 (`TcpDctcp::GetSsThresh`, in bytes; the
//!   flavour rule `dctcp_two_segment_floor`).
//! * Section 3.3: on a loss, "the same as a conventional TCP": ssthresh = cwnd / 2 (Linux
//!   `dctcp_react_to_loss`). ns-3.44's `TcpDctcp::GetSsThresh` answers both the ECN echo and a
//!   loss with the alpha rule; the flavour rule `dctcp_loss_uses_alpha` follows that.
//! * Window growth is Linux Reno's (`tcp_reno_cong_avoid`; ns-3's `TcpDctcp` derives from
//!   `TcpLinuxReno`), on ACKs of new data with or without ECE (Linux `tcp_may_raise_cwnd`), but
//!   not during the window after a reduction (Linux `tcp_cong_control`: in CWR state cwnd is
//!   only reduced, `tcp_cwnd_reduction`, never raised).
//! * The receiver's ECE rule (section 3.2: echo each segment's CE state, an immediate ACK when
//!   it changes) is the receiver's (`tcp/receiver.rs`), chosen by `EcnFeedback::Extent`.
//! * With `ecn_feedback = "accecn"` (RFC 9768, `tcp/accecn.rs`) the marked bytes of an ACK
//!   are its newly CE-marked packets times the MSS, as Linux's `dctcp_update_alpha` reads
//!   `delivered_ce` against `delivered`; an ACK with new marks is the ECN echo.
//!
//! Defaults: g = 1/16 (RFC 8257 section 4.2 and Linux `dctcp_shift_g` 4, ns-3 `DctcpShiftG`
//! 0.0625); alpha starts at 1 (Linux `dctcp_alpha_on_init` DCTCP_MAX_ALPHA, ns-3
//! `DctcpAlphaOnInit` 1.0); data segments are ECT(0) (ns-3 `UseEct0` true, Linux).

use super::linux_reno::LinuxReno;
use super::{Ack, CongestionControl, EcnFeedback, Recovery, Window};
use crate::units::SimTime;

/// The alpha estimator of RFC 8257 section 3.3, shared with TCP Prague.
#[derive(Debug, Clone)]
pub struct AlphaEstimator {
    /// EWMA gain g.
    pub g: f64,
    /// Fraction of marked bytes, smoothed.
    pub alpha: f64,
    acked: u64,
    marked: u64,
    /// snd_nxt when the current observation window began (DCTCP.WindowEnd).
    window_end: u64,
    /// Completed windows (alpha updates).
    pub updates: u64,
}

impl AlphaEstimator {
    pub fn new(g: f64, alpha: f64) -> Self {
        Self {
            g,
            alpha,
            acked: 0,
            marked: 0,
            window_end: 0,
            updates: 0,
        }
    }

    /// Counts one ACK of `acked` new bytes, `marked` of them CE-marked (all of them on an
    /// ECE with classic feedback; AccECN's count); at the end of a window updates alpha and
    /// returns the window's F (section 3.3 steps 3-8), at most 1 (AccECN may report marks
    /// on SACKed data before it is acknowledged).
    pub fn on_ack(&mut self, acked: u64, marked: u64, snd_una: u64, snd_nxt: u64) -> Option<f64> {
        self.acked += acked;
        self.marked += marked;
        if snd_una <= self.window_end {
            return None;
        }
        let f = if self.acked > 0 {
            (self.marked as f64 / self.acked as f64).min(1.0)
        } else {
            0.0
        };
        self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
        self.window_end = snd_nxt;
        self.acked = 0;
        self.marked = 0;
        self.updates += 1;
        Some(f)
    }
}

pub struct Dctcp {
    pub est: AlphaEstimator,
    growth: LinuxReno,
    loss_uses_alpha: bool,
    /// The reduced window's floor: 2 segments (Linux), or none (ns-3).
    floor_segments: f64,
}

impl Dctcp {
    /// `g` and the initial alpha (RFC 8257 section 3.3); `loss_uses_alpha`: ns-3's rule.
    pub fn new(g: f64, alpha_init: f64, loss_uses_alpha: bool, keep_count: bool) -> Self {
        Self {
            est: AlphaEstimator::new(g, alpha_init),
            growth: LinuxReno::new(keep_count),
            loss_uses_alpha,
            floor_segments: 2.0,
        }
    }

    /// With `two_segments` the reduced window is at least 2 segments (Linux), else it has no
    /// floor (ns-3.44's `GetSsThresh`).
    pub fn with_floor(mut self, two_segments: bool) -> Self {
        self.floor_segments = if two_segments { 2.0 } else { 0.0 };
        self
    }

    fn alpha_ssthresh(&self, w: &Window) -> f64 {
        (w.cwnd * (1.0 - self.est.alpha / 2.0)).max(self.floor_segments * w.mss)
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }
    fn on_ack(&mut self, w: &mut Window, a: &Ack) {
        self.growth.on_ack(w, a);
    }
    fn ssthresh_on_loss(&mut self, w: &Window, flight: u64, now: SimTime) -> f64 {
        let half = self.growth.ssthresh_on_loss(w, flight, now);
        if self.loss_uses_alpha {
            self.alpha_ssthresh(w)
        } else {
            half
        }
    }
    fn on_timeout(&mut self, w: &mut Window, flight: u64, now: SimTime) {
        self.growth.on_timeout(w, flight, now);
    }
    fn ecn_feedback(&self) -> EcnFeedback {
        EcnFeedback::Extent
    }
    fn on_ecn_ack(&mut self, _w: &Window, acked: u64, marked: u64, a: &Ack) {
        self.est.on_ack(acked, marked, a.snd_una, a.snd_nxt);
    }
    fn ssthresh_on_ecn(&mut self, w: &Window, _flight: u64, _now: SimTime) -> f64 {
        self.alpha_ssthresh(w)
    }
    fn report(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({"alpha": self.est.alpha, "alpha_updates": self.est.updates}))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ack, window};
    use super::*;

    fn ack_at(bytes: u64, una: u64, nxt: u64) -> Ack {
        Ack {
            snd_una: una,
            snd_nxt: nxt,
            next_to_send: nxt,
            clock_s: 0.0,
            ..ack(bytes)
        }
    }

    // ---- RFC 8257 3.3: alpha = (1-g) alpha + g F, once per window of data ----
    #[test]
    fn alpha_moves_once_per_window_by_g_times_the_marked_fraction() {
        let mut cc = Dctcp::new(1.0 / 16.0, 1.0, false, false);
        let w = window(10.0, 5.0);
        // First ACK closes the (empty) initial window: F = 0 over 1000 bytes.
        cc.on_ecn_ack(&w, 1000, 0, &ack_at(1000, 1001, 11_001));
        assert_eq!(cc.est.alpha, 15.0 / 16.0);
        // Next window ends when snd_una passes 11001: 10 ACKs, 3 of them with ECE.
        for i in 0..10u64 {
            let una = 3001 + i * 1000; // the window closes when snd_una passes 11001
            let marked = if i < 3 { 1000 } else { 0 };
            cc.on_ecn_ack(&w, 1000, marked, &ack_at(1000, una, 21_001));
        }
        let expect = (1.0 - 1.0 / 16.0) * (15.0 / 16.0) + (1.0 / 16.0) * 0.3;
        assert!((cc.est.alpha - expect).abs() < 1e-12, "{}", cc.est.alpha);
        assert_eq!(cc.est.updates, 2);
    }

    // ---- RFC 8257 3.3: cwnd * (1 - alpha/2) on ECE; a loss halves (Linux) or uses alpha (ns-3) ----
    #[test]
    fn ecn_reduction_follows_alpha_and_loss_halves() {
        let mut cc = Dctcp::new(1.0 / 16.0, 0.2, false, false);
        let w = window(100.0, 50.0);
        assert!((cc.ssthresh_on_ecn(&w, 0, SimTime::ZERO) - 90_000.0).abs() < 1e-9);
        assert_eq!(cc.ssthresh_on_loss(&w, 0, SimTime::ZERO), 50_000.0);
        let mut ns3 = Dctcp::new(1.0 / 16.0, 0.2, true, true);
        assert!((ns3.ssthresh_on_loss(&w, 0, SimTime::ZERO) - 90_000.0).abs() < 1e-9);
        // Never below two segments.
        let mut full = Dctcp::new(1.0 / 16.0, 1.0, false, false);
        assert_eq!(
            full.ssthresh_on_ecn(&window(3.0, 2.0), 0, SimTime::ZERO),
            2000.0
        );
    }

    // ---- with no marks alpha decays geometrically: (1-g)^n ----
    #[test]
    fn alpha_decays_without_marks() {
        let mut e = AlphaEstimator::new(1.0 / 16.0, 1.0);
        let mut una = 1;
        for _ in 0..32 {
            una += 1000;
            e.on_ack(1000, 0, una, una);
        }
        assert!((e.alpha - (15.0f64 / 16.0).powi(32)).abs() < 1e-12);
    }
}
