//! An ECN echo on the ACK that ends ns-2.35's Reno or NewReno fast recovery (`tcp/tcp.cc`
//! `TcpAgent::ecn`, `slowdown`, `recv_newack_helper`; `tcp/tcp-reno.cc` `RenoTcpAgent::recv`,
//! `windowd`; `tcp/tcp-newreno.cc` `NewRenoTcpAgent::recv`).
//!
//! Both agents' `recv` call `ecn(seqno)` before they look at the ACK. Inside fast recovery
//! `ecn()` acts only on an ACK above `recover_` (and `last_cwnd_action_` is not
//! `CWND_ACTION_TIMEOUT` there), so only on an ACK that ends the recovery, one that covers
//! packets sent during it. Then:
//!
//! * `slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF)` halves `windowd()`, which for Reno and
//!   NewReno is min(cwnd_ + dupwnd_, window_): the window inflated by the duplicates, not
//!   cwnd_ alone. Whether it is slow start (`cwnd_ < ssthresh_`) and whether `ecn_backoff_`
//!   applies (`cwnd_ <= 1`) still read cwnd_. cwnd_ becomes half the inflated window and
//!   `dupwnd_` stays until the ACK's own processing drops it (`dupwnd_ = 0`), so the recovery
//!   ends at that half.
//! * `ecn()` also sets `recover_ = maxseq_` and `last_cwnd_action_ = CWND_ACTION_ECN`:
//!   NewReno's `recv` then takes its exit branch (`seqno >= recover_ || last_cwnd_action_ !=
//!   CWND_ACTION_DUPACK`) though the ACK is now below `recover_`; and, the action being ECN,
//!   it stays ECN (`CWND_ACTION_EXITED` replaces only `CWND_ACTION_DUPACK`).
//! * `recv_newack_helper` opens the window only without ECN echo (or with `old_ecn_` inside
//!   an ECN burst): the exit's ACK does not add to the halved cwnd_.
//!
//! Sack1 (`tcp-sack1.cc`) has no `dupwnd_`: its recovery keeps its own rules
//! (`sender/ns2_sack1.rs`).

use super::TcpSender;
use crate::tcp::config::CcKind;

impl TcpSender {
    /// Reno's or NewReno's fast recovery (not Sack1's): window() is cwnd_ + dupwnd_, cwnd_ in
    /// `ns2_base` and `w.cwnd` the inflated window.
    pub(super) fn ns2_reno_recovery(&self) -> bool {
        self.in_recovery
            && self.ns2_aimd()
            && !self.p.sack
            && matches!(self.p.cc, CcKind::Reno | CcKind::Newreno)
    }

    /// ns-2 `windowd()` in packets: min(cwnd_ + dupwnd_, window_) for Reno and NewReno
    /// (tcp-reno.cc `RenoTcpAgent::windowd`), min(cwnd_, window_) otherwise (tcp.cc).
    pub(super) fn ns2_windowd(&self) -> f64 {
        if self.ns2_reno_recovery() {
            self.w.cwnd.min(self.p.max_window as f64) / self.w.mss
        } else {
            self.ns2_window()
        }
    }

    /// tcp-newreno.cc `recv`: a new ACK in fast recovery takes the exit branch at `recover_`
    /// or when `last_cwnd_action_` is no longer `CWND_ACTION_DUPACK`, which in fast recovery
    /// only this ACK's ECN echo can have changed (`ns2_ecn`).
    pub(super) fn ns2_newreno_full_ack(&self, ack: u64) -> bool {
        ack >= self.recover || (self.ns2_reno_recovery() && self.last_action_ecn)
    }
}

#[cfg(test)]
mod tests {
    use super::super::TcpSender;
    use crate::tcp::app::TcpApp;
    use crate::tcp::config::{CcKind, Preset, TcpOptions, TcpParams};
    use crate::units::{QueueLimit, SimTime};

    fn sender(cc: CcKind) -> TcpSender {
        let o = TcpOptions {
            preset: Some(Preset::Ns2),
            cc: Some(cc),
            ecn: Some(true),
            window: Some(QueueLimit::Packets(40)),
            handshake: Some(false),
            ..TcpOptions::default()
        };
        TcpSender::new(
            TcpParams::resolve(&o, None),
            TcpApp::Bulk,
            SimTime::ZERO,
            SimTime::MAX,
        )
    }

    /// tcp-reno.cc windowd(): cwnd_ + dupwnd_ in fast recovery, capped by window_; Tahoe
    /// (tcp.cc) has no dupwnd_.
    #[test]
    fn windowd_counts_the_inflation_in_fast_recovery() {
        for cc in [CcKind::Reno, CcKind::Newreno] {
            let mut s = sender(cc);
            s.in_recovery = true;
            s.ns2_base = 2.5 * s.w.mss;
            s.w.cwnd = 5.5 * s.w.mss;
            assert_eq!(s.ns2_windowd(), 5.5);
            assert_eq!(s.ns2_window(), 2.5, "timeout's slowdown: dupwnd_ = 0 first");
            s.w.cwnd = 45.0 * s.w.mss;
            assert_eq!(s.ns2_windowd(), 40.0);
            s.in_recovery = false;
            s.w.cwnd = 3.0 * s.w.mss;
            assert_eq!(s.ns2_windowd(), 3.0);
        }
        let mut t = sender(CcKind::Tahoe);
        t.in_recovery = true;
        t.w.cwnd = 3.0 * t.w.mss;
        assert_eq!(t.ns2_windowd(), t.ns2_window());
    }

    /// tcp-newreno.cc recv: ecn() moved recover_ and set CWND_ACTION_ECN, so the ACK still
    /// takes the exit branch.
    #[test]
    fn an_ecn_response_makes_the_ack_end_newreno_recovery() {
        let mut s = sender(CcKind::Newreno);
        s.in_recovery = true;
        s.recover = 10_000;
        assert!(!s.ns2_newreno_full_ack(5_000));
        assert!(s.ns2_newreno_full_ack(10_000));
        s.last_action_ecn = true;
        assert!(s.ns2_newreno_full_ack(5_000));
    }
}
