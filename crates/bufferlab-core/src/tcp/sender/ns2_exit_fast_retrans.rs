//! ns-2.35's `exitFastRetrans_ false` for `Agent/TCP/Reno` and `Agent/TCP/Newreno` (the
//! variable is bound in `tcp/tcp.cc` and read only by `RenoTcpAgent::recv`,
//! `tcp/tcp-reno.cc`, and `NewRenoTcpAgent::recv`, `tcp/tcp-newreno.cc`; default true,
//! `tcl/lib/ns-default.tcl`). With it false the window inflation `dupwnd_` no longer waits for
//! a fast retransmit:
//!
//! * at the `numdupacks_`-th duplicate, after `dupack_action()` (whether or not it
//!   fast-retransmitted: `bugFix_` refuses one inside the window of a timeout), `dupwnd_ =
//!   numdupacks_`;
//! * every later duplicate adds one to `dupwnd_` whatever `last_cwnd_action_` is (with the
//!   variable true only in fast recovery, `last_cwnd_action_ == CWND_ACTION_DUPACK`);
//! * `window()` is `int(cwnd_) + dupwnd_` and `windowd()` `cwnd_ + dupwnd_`
//!   (`RenoTcpAgent::window`, `windowd`), so the inflation also sends new data (recv's
//!   `send_much` once `dupacks_ >= numdupacks_`) and sizes an ECN echo's `slowdown`;
//! * the next new ACK sets `dupwnd_ = 0` before `recv_newack_helper` opens cwnd_ (Reno: every
//!   new ACK; Newreno: the branch of `seqno >= recover_ || last_cwnd_action_ !=
//!   CWND_ACTION_DUPACK`, with `exit_recovery_fix_`'s rule when it is set), and
//!   `RenoTcpAgent::timeout` sets `dupwnd_ = 0` before `TcpAgent::timeout`'s `slowdown`.
//!
//! Inside fast recovery nothing changes (the sender's own inflation, `ns2_base`); this file
//! keeps the inflation outside it: `ns2_dupwnd_out`, with cwnd_ (without `dupwnd_`) in
//! `ns2_base` and `w.cwnd` the inflated window, as in recovery.

use super::TcpSender;
use crate::tcp::config::CcKind;

impl TcpSender {
    /// `exitFastRetrans_` false applies: ns-2's Reno or Newreno agent (without SACK).
    fn ns2_no_exit_fast_retrans(&self) -> bool {
        !self.p.ns2.exit_fast_retrans
            && self.ns2_aimd()
            && !self.p.sack
            && matches!(self.p.cc, CcKind::Reno | CcKind::Newreno)
    }

    /// A duplicate ACK outside fast recovery (tcp-reno.cc / tcp-newreno.cc `recv`): with
    /// `exitFastRetrans_` false, at the `numdupacks_`-th, after `dupack_action()` left the
    /// agent out of fast recovery, `dupwnd_ = numdupacks_`; past it, `++dupwnd_`, also while
    /// NewReno's `last_cwnd_action_` is still `CWND_ACTION_DUPACK`
    /// (`sender/ns2_newreno_lingering.rs`). Returns whether it applied.
    pub(super) fn ns2_dupwnd_without_recovery(&mut self) -> bool {
        if self.in_recovery {
            return false;
        }
        let thresh = self.p.dupack_threshold;
        let past = self.dupacks > thresh;
        if past && (self.ns2_no_exit_fast_retrans() || self.ns2_dupack_lingers()) {
            if !self.ns2_dupwnd_out {
                self.ns2_base = self.w.cwnd;
                self.ns2_dupwnd_out = true;
            }
            self.w.cwnd += self.w.mss;
        } else if self.dupacks == thresh && self.ns2_no_exit_fast_retrans() {
            self.ns2_base = self.w.cwnd;
            self.w.cwnd = self.ns2_base + f64::from(thresh) * self.w.mss;
            self.ns2_dupwnd_out = true;
        } else {
            return false;
        }
        true
    }

    /// `dupwnd_ = 0` outside fast recovery: at a new ACK (`ack`, Newreno's
    /// `exit_recovery_fix_` rule applies) or a timeout (`None`).
    pub(super) fn ns2_end_dupwnd(&mut self, ack: Option<u64>) {
        if !std::mem::replace(&mut self.ns2_dupwnd_out, false) {
            return;
        }
        match ack {
            Some(ack) if self.p.cc == CcKind::Newreno => self.ns2_newreno_exit(ack),
            _ => self.w.cwnd = self.ns2_base,
        }
    }

    /// An ECN echo's `slowdown` (tcp.cc `ecn`) while `dupwnd_` inflates the window, outside
    /// fast recovery or on the ACK that ends Reno's or NewReno's (`sender/ns2_ecn_recovery.rs`):
    /// it halved windowd() = cwnd_ + dupwnd_ into cwnd_ (`half`); `dupwnd_` stays, so the
    /// window is the new cwnd_ plus it.
    pub(super) fn ns2_ecn_keeps_dupwnd(&mut self, half: f64) {
        if self.ns2_dupwnd_out || self.ns2_reno_recovery() {
            let dupwnd = self.w.cwnd - self.ns2_base;
            self.ns2_base = half;
            self.w.cwnd = half + dupwnd;
        } else {
            self.w.cwnd = half;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::TcpSender;
    use crate::tcp::app::TcpApp;
    use crate::tcp::config::{CcKind, Preset, TcpOptions, TcpParams};
    use crate::tcp::ns2_agent::Ns2AgentOptions;
    use crate::units::{QueueLimit, SimTime};

    fn sender(cc: CcKind, exit_fast_retrans: bool) -> TcpSender {
        let o = TcpOptions {
            preset: Some(Preset::Ns2),
            cc: Some(cc),
            window: Some(QueueLimit::Packets(40)),
            handshake: Some(false),
            ns2_agent: Some(Ns2AgentOptions {
                exit_fast_retrans: Some(exit_fast_retrans),
                ..Default::default()
            }),
            ..TcpOptions::default()
        };
        let mut s = TcpSender::new(
            TcpParams::resolve(&o, None),
            TcpApp::Bulk,
            SimTime::ZERO,
            SimTime::MAX,
        );
        s.w.cwnd = 4.5 * s.w.mss;
        s
    }

    /// tcp-reno.cc recv: without exitFastRetrans_, the numdupacks_-th duplicate sets dupwnd_
    /// to numdupacks_ though dupack_action() did not fast-retransmit, each later one adds one,
    /// and the next new ACK (or a timeout) drops the inflation.
    #[test]
    fn duplicates_inflate_the_window_without_a_fast_retransmit() {
        for cc in [CcKind::Reno, CcKind::Newreno] {
            let mut s = sender(cc, false);
            s.dupacks = 2;
            assert!(!s.ns2_dupwnd_without_recovery());
            s.dupacks = 3;
            assert!(s.ns2_dupwnd_without_recovery());
            assert_eq!(s.w.cwnd, 7.5 * s.w.mss);
            s.dupacks = 4;
            assert!(s.ns2_dupwnd_without_recovery());
            assert_eq!(s.w.cwnd, 8.5 * s.w.mss);
            assert_eq!(s.ns2_base, 4.5 * s.w.mss);
            s.ns2_end_dupwnd(None);
            assert_eq!(s.w.cwnd, 4.5 * s.w.mss);
            assert!(!s.ns2_dupwnd_out);
        }
        let mut s = sender(CcKind::Reno, true);
        s.dupacks = 3;
        assert!(!s.ns2_dupwnd_without_recovery());
        let mut s = sender(CcKind::Tahoe, false);
        s.dupacks = 3;
        assert!(!s.ns2_dupwnd_without_recovery(), "Agent/TCP never reads it");
    }
}
