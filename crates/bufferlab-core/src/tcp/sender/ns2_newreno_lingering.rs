//! ns-2.35's `Agent/TCP/Newreno` after a fast recovery that ends without window inflation
//! (`tcp/tcp-newreno.cc`, `NewRenoTcpAgent::recv` and `dupack_action`).
//!
//! NewReno's `recv` marks the end of fast recovery (`last_cwnd_action_ = CWND_ACTION_EXITED`)
//! only inside `if (dupwnd_ > 0)`, on the ACK of `recover_`. When that ACK finds `dupwnd_`
//! at 0, `last_cwnd_action_` stays `CWND_ACTION_DUPACK`. That happens with
//! `partial_window_deflation_ 0` (set by ns-2's own newreno suite): a partial ACK sets
//! `dupwnd_ = 0`, and when no duplicate ACK came after the last partial ACK the ACK of
//! `recover_` finds no inflation. From then on, until a new ACK finds `dupwnd_ > 0`, a
//! timeout (`CWND_ACTION_TIMEOUT`), an ECN echo (`CWND_ACTION_ECN`) or the next fast
//! retransmit:
//!
//! * the `numdupacks_`-th duplicate ACK calls `dupack_action()`, which `bugFix_` declines
//!   while `highest_ack_ == recover_` (NewReno's `allow_fast_retransmit` is always 0);
//! * every later duplicate takes recv's branch `dupacks_ > numdupacks_ && (!exitFastRetrans_
//!   || last_cwnd_action_ == CWND_ACTION_DUPACK)`: it traces `NEWRENO_FAST_RECOVERY` and
//!   `++dupwnd_`, from 0, so that window() = int(cwnd_) + dupwnd_ grows by one packet per
//!   duplicate; recv then calls `send_much(0, 0, 2)` (`newreno_changes_ 0`), as it does for
//!   every duplicate from the `numdupacks_`-th on;
//! * the next new ACK takes recv's exit branch (`seqno >= recover_`): `dupwnd_ > 0`, so
//!   `dupwnd_ = 0` and `last_cwnd_action_ = CWND_ACTION_EXITED` (with `exit_recovery_fix_`,
//!   cwnd_ = min(ssthresh_, outstanding) first), then `recv_newack_helper` opens cwnd_.
//!
//! The inflation is the one `exitFastRetrans_ false` keeps outside fast recovery
//! (`sender/ns2_exit_fast_retrans.rs`: `ns2_dupwnd_out`, cwnd_ in `ns2_base`); this file
//! keeps the state `last_cwnd_action_ == CWND_ACTION_DUPACK` outside fast recovery.
//! Agent/TCP/Reno never lingers: its `recv` sets `CWND_ACTION_EXITED` on every new ACK.

use super::TcpSender;
use crate::tcp::config::CcKind;

impl TcpSender {
    /// At the ACK that ends a NewReno fast recovery (`ns2_newreno_exit`) or drops the
    /// inflation outside one: `inflated` is `dupwnd_ > 0` as the ACK found it. Without
    /// inflation after a fast recovery `last_cwnd_action_` stays `CWND_ACTION_DUPACK`; with
    /// it, it becomes `CWND_ACTION_EXITED`.
    pub(super) fn ns2_note_newreno_exit(&mut self, inflated: bool) {
        self.ns2_dupack_lingers = !inflated && self.p.cc == CcKind::Newreno;
    }

    /// ns-2 NewReno's `last_cwnd_action_` is still `CWND_ACTION_DUPACK` outside fast
    /// recovery. A timeout or an ECN echo since the exit replaced it (they set
    /// `last_action_timeout` / `last_action_ecn`, which only a fast retransmit clears, and
    /// that enters recovery: `ns2_clear_lingering`).
    pub(super) fn ns2_dupack_lingers(&self) -> bool {
        self.ns2_dupack_lingers
            && !self.in_recovery
            && !self.last_action_timeout
            && !self.last_action_ecn
            && self.ns2_aimd()
            && !self.p.sack
    }

    /// A fast retransmit (`dupack_action`'s `reno_action` or its ECN branch) sets
    /// `last_cwnd_action_ = CWND_ACTION_DUPACK` anew: the next exit decides again.
    pub(super) fn ns2_clear_lingering(&mut self) {
        self.ns2_dupack_lingers = false;
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
            window: Some(QueueLimit::Packets(40)),
            handshake: Some(false),
            ..TcpOptions::default()
        };
        let mut s = TcpSender::new(
            TcpParams::resolve(&o, None),
            TcpApp::Bulk,
            SimTime::ZERO,
            SimTime::MAX,
        );
        s.w.cwnd = 5.0 * s.w.mss;
        s
    }

    /// tcp-newreno.cc recv: after an exit without dupwnd_, the duplicates past numdupacks_
    /// inflate the window from 0, one packet each; the next new ACK drops the inflation and
    /// ends the state (CWND_ACTION_EXITED).
    #[test]
    fn duplicates_after_an_exit_without_inflation_inflate_the_window() {
        let mut s = sender(CcKind::Newreno);
        s.ns2_note_newreno_exit(false);
        assert!(s.ns2_dupack_lingers());
        s.dupacks = 3;
        assert!(
            !s.ns2_dupwnd_without_recovery(),
            "the third is dupack_action's"
        );
        s.dupacks = 4;
        assert!(s.ns2_dupwnd_without_recovery());
        assert_eq!(s.w.cwnd, 6.0 * s.w.mss);
        assert_eq!(s.ns2_base, 5.0 * s.w.mss);
        s.dupacks = 5;
        assert!(s.ns2_dupwnd_without_recovery());
        assert_eq!(s.w.cwnd, 7.0 * s.w.mss);
        s.ns2_end_dupwnd(Some(1 + 10 * s.p.mss as u64));
        assert_eq!(s.w.cwnd, 5.0 * s.w.mss);
        assert!(!s.ns2_dupack_lingers(), "CWND_ACTION_EXITED");
    }

    /// An exit with dupwnd_ > 0 ends the state; a timeout or an ECN echo replaces it; Reno
    /// never keeps it.
    #[test]
    fn the_state_ends_with_inflation_a_timeout_or_an_ecn_echo() {
        let mut s = sender(CcKind::Newreno);
        s.ns2_note_newreno_exit(true);
        assert!(!s.ns2_dupack_lingers());
        s.ns2_note_newreno_exit(false);
        s.last_action_timeout = true;
        assert!(!s.ns2_dupack_lingers());
        s.last_action_timeout = false;
        s.last_action_ecn = true;
        assert!(!s.ns2_dupack_lingers());
        s.last_action_ecn = false;
        s.dupacks = 4;
        s.ns2_clear_lingering();
        assert!(!s.ns2_dupwnd_without_recovery());
        let mut r = sender(CcKind::Reno);
        r.ns2_note_newreno_exit(false);
        assert!(!r.ns2_dupack_lingers());
    }
}
