//! The sender's side of ns-2.35's recovery variables (the rules and their sources are in
//! `tcp/ns2_agent/recovery.rs`): `bugFix_` and `lessCareful_` at the `numdupacks_`-th
//! duplicate, `decrease_num_` and `first_decrease_` in `slowdown`, `increase_num_` and
//! `maxcwnd_` in `opencwnd`, NewReno's `exit_recovery_fix_` and `partial_window_deflation_`.

use super::TcpSender;
use crate::tcp::cc::{Ack, Recovery};

impl TcpSender {
    /// ns-2 `dupack_action` goes to its fast retransmit whatever `recover_` says: without
    /// `bugFix_` (tcp.cc, tcp-reno.cc, tcp-newreno.cc, tcp-sack1.cc: `!bug_fix_ && !ecn_`;
    /// with `ecn_` too, unless its last reduction was for ECN: then the ECN branch, which
    /// retransmits without reducing), or NewReno's `lessCareful_` when the duplicates
    /// acknowledge exactly `recover_` (tcp-newreno.cc).
    pub(super) fn ns2_fast_retransmit_again(&self) -> bool {
        if !(self.ns2_aimd() || self.ns2_sack1()) {
            return false;
        }
        let a = &self.p.ns2;
        (!a.bug_fix && (!self.p.ecn || !self.last_action_ecn))
            || (a.less_careful
                && !self.p.sack
                && self.cc.recovery() == Recovery::NewReno
                && self.snd_una == self.recover)
    }

    /// ns-2 tcp.cc `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)` for a fast retransmit
    /// (`timeout` false) or an ECN echo: (ssthresh_, cwnd_) in bytes, cwnd_ before the
    /// one-packet floor. The first decrease of the connection and one in slow start halve;
    /// later ones keep `decrease_num_` of the window (`Ns2Agent::slowdown`). The window is
    /// `windowd()`, with Reno's `dupwnd_` in fast recovery (`sender/ns2_ecn_recovery.rs`).
    pub(super) fn ns2_slowdown(&mut self, timeout: bool) -> (f64, f64) {
        let cwnd = if (self.in_recovery && !self.ns2_vegas()) || self.ns2_dupwnd_out {
            self.ns2_base
        } else {
            self.w.cwnd
        };
        let halve = !self.ns2_decreased || cwnd < self.w.ssthresh;
        self.ns2_decreased = true;
        let (ssthresh, cwnd) = self
            .p
            .ns2
            .slowdown(self.ns2_windowd(), halve || timeout, halve);
        (ssthresh * self.w.mss, cwnd * self.w.mss)
    }

    /// The window's growth on a new ACK: ns-2 tcp.cc `opencwnd()` with the agent's
    /// `increase_num_` and `maxcwnd_` when either is not ns-2's default, else the controller's
    /// own (the same rule at the defaults).
    pub(super) fn grow(&mut self, info: &Ack) {
        if !self.ns2_window_was_used(info) {
            return; // control_increase_ (sender/ns2_cwv.rs)
        }
        if !(self.ns2_aimd() && self.p.ns2.open_cwnd(&mut self.w)) {
            self.cc.on_ack(&mut self.w, info);
        }
    }

    /// ns-2 tcp-newreno.cc `recv` at the ACK of `recover_`: `dupwnd_ = 0` leaves cwnd_ as it
    /// is; with `exit_recovery_fix_`, and only while the window is inflated (`dupwnd_ > 0`),
    /// cwnd_ = min(ssthresh_, maxseq_ - ackno + 1), the packets outstanding plus one.
    pub(super) fn ns2_newreno_exit(&mut self, ack: u64) {
        let inflated = self.w.cwnd > self.ns2_base;
        self.w.cwnd = self.ns2_base;
        // without dupwnd_, last_cwnd_action_ stays CWND_ACTION_DUPACK (ns2_newreno_lingering.rs)
        self.ns2_note_newreno_exit(inflated);
        if self.p.ns2.exit_recovery_fix && inflated {
            let outstanding = self.snd_max.saturating_sub(ack).div_ceil(self.mss()) + 1;
            self.w.cwnd = self.w.ssthresh.min(outstanding as f64 * self.w.mss);
        }
    }
}
