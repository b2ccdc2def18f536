//! ns-2.35 agent variables of loss recovery and window arithmetic (the `ns2_agent` table,
//! [`super::Ns2AgentOptions`]). Defaults from `tcl/lib/ns-default.tcl`; rules from ns-2.35's
//! `tcp/tcp.cc`, `tcp/tcp-reno.cc`, `tcp/tcp-newreno.cc` and `tcp/tcp-sack1.cc` (read through
//! the search tool), applied by the sender (`tcp/sender.rs`, `tcp/sender/ns2_sack1.rs`):
//!
//! * `bugFix_` (`dupack_action` of `TcpAgent`, `RenoTcpAgent`, `NewRenoTcpAgent`,
//!   `Sack1TcpAgent`): at the `numdupacks_`-th duplicate ACK the agent fast-retransmits only
//!   when `highest_ack_ > recover_` (the duplicates are for data sent after the last fast
//!   retransmit or timeout, which set `recover_ = maxseq_`), or for the first packet
//!   (`bugfix_ss_`). Without `bugFix_` (and without `ecn_`) it fast-retransmits at every
//!   `numdupacks_`-th duplicate: Reno halves again after each partial ACK of a window with
//!   several losses, Tahoe and every agent again after a timeout's go-back-N.
//! * `lessCareful_` (`NewRenoTcpAgent::dupack_action`): with `bugFix_`, also when
//!   `highest_ack_ == recover_` (RFC 2582's "Less Careful" variant).
//! * `newreno_changes1_` (`NewRenoTcpAgent::partialnewack_helper`): 1, only the first partial
//!   ACK of a recovery calls `newtimer()`; 0, every partial ACK restarts the timer.
//! * `partial_window_deflation_` (`NewRenoTcpAgent::recv`, `partialnewack`): 1, a partial ACK
//!   of n packets takes n - 1 off `dupwnd_` (or, past it, off `cwnd_`, `dupwnd_` left at 1);
//!   0, `dupwnd_ = 0`: the window falls to `cwnd_`, which stays.
//! * `exit_recovery_fix_` (`NewRenoTcpAgent::recv`): 1, the ACK that ends recovery (while
//!   `dupwnd_ > 0`) sets `cwnd_ = min(ssthresh_, maxseq_ - ackno + 1)` before `opencwnd()`.
//! * `decrease_num_` (`TcpAgent::slowdown`): the first decrease of a connection
//!   (`first_decrease_`), one in slow start (`cwnd_ < ssthresh_`) and a timeout's halve
//!   ssthresh_; the others set it to `int(decrease_num_ * W)`. cwnd_ (`CLOSE_CWND_HALF`) is
//!   W/2 for the first decrease, in slow start or with `decrease_num_` 0.5, else
//!   `decrease_num_ * W`. W is `windowd()` with `precisionReduce_` (the product kept as a
//!   double), `window()` otherwise (the product rounded down).
//! * `increase_num_` (`TcpAgent::opencwnd`, `windowOption_` 1): congestion avoidance adds
//!   `increase_num_ / cwnd_` per new ACK.
//! * `maxcwnd_` (`opencwnd`): when nonzero, cwnd_ is set back to it whenever `int(cwnd_)`
//!   passes it after a window increase.
//! * `noFastRetrans_` (`TcpAgent::recv`, read by Agent/TCP only: Reno, Newreno, Sack1 and
//!   Vegas have their own `recv`): the `numdupacks_`-th duplicate ACK does not call
//!   `dupack_action()`, so Agent/TCP waits for the timeout (`tcp/sender/ns2_no_fast_retrans.rs`).
//! * `partial_ack_` (`Sack1TcpAgent::recv`, `partial_ack_action`): a partial ACK in fast
//!   recovery sends two packets at once (the next unacknowledged ones from `next_pkt_`, SACKed
//!   ones skipped), restarts the timer for the first partial ACK only, and counts one packet
//!   back into `pipe_`.

use super::{Ns2Agent, Ns2AgentOptions};
use crate::tcp::cc::Window;

impl Ns2Agent {
    /// Lays the table's recovery fields over ns-2's defaults.
    pub(super) fn resolve_recovery(&mut self, o: &Ns2AgentOptions) {
        self.bug_fix = o.bug_fix.unwrap_or(self.bug_fix);
        self.less_careful = o.less_careful.unwrap_or(self.less_careful);
        self.exit_fast_retrans = o.exit_fast_retrans.unwrap_or(self.exit_fast_retrans);
        self.no_fast_retrans = o.no_fast_retrans.unwrap_or(self.no_fast_retrans);
        self.newreno_changes1 = o.newreno_changes1.unwrap_or(self.newreno_changes1);
        self.partial_window_deflation = o
            .partial_window_deflation
            .unwrap_or(self.partial_window_deflation);
        self.exit_recovery_fix = o.exit_recovery_fix.unwrap_or(self.exit_recovery_fix);
        self.decrease_num = o.decrease_num.unwrap_or(self.decrease_num);
        self.increase_num = o.increase_num.unwrap_or(self.increase_num);
        self.maxcwnd = o.maxcwnd.unwrap_or(self.maxcwnd);
        self.partial_ack = o.partial_ack.unwrap_or(self.partial_ack);
    }

    /// ns-2 tcp.cc `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)` of the window `w`
    /// (packets, min(cwnd_, window_)): (ssthresh_, cwnd_) in packets. `halve_ssthresh`: the
    /// first decrease, slow start or a timeout; `halve_cwnd`: the first decrease or slow
    /// start. ssthresh_ is at least 2; the caller keeps cwnd_ at least 1.
    pub fn slowdown(&self, w: f64, halve_ssthresh: bool, halve_cwnd: bool) -> (f64, f64) {
        let halfwin = self.halved(w);
        let decreasewin = if self.precision_reduce {
            self.decrease_num * w
        } else {
            (self.decrease_num * w.floor()).floor()
        };
        let ssthresh = if halve_ssthresh { halfwin } else { decreasewin };
        let cwnd = if halve_cwnd || self.decrease_num == 0.5 {
            halfwin
        } else {
            decreasewin
        };
        (ssthresh.floor().max(2.0), cwnd)
    }

    /// ns-2 tcp.cc `opencwnd()` with `windowOption_` 1, when `increase_num_` or `maxcwnd_`
    /// differ from their defaults: one packet per new ACK in slow start (cwnd_ < ssthresh_),
    /// else `increase_num_ / cwnd_`; then the `maxcwnd_` cap. Returns false at the defaults
    /// (the controller's own growth, the same rule, applies).
    pub fn open_cwnd(&self, w: &mut Window) -> bool {
        if self.increase_num == 1.0 && self.maxcwnd == 0 {
            return false;
        }
        if w.cwnd < w.ssthresh {
            w.cwnd += w.mss;
        } else {
            w.cwnd += w.mss * (self.increase_num / (w.cwnd / w.mss));
        }
        let cap = f64::from(self.maxcwnd);
        if self.maxcwnd > 0 && (w.cwnd / w.mss).floor() > cap {
            w.cwnd = cap * w.mss;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decrease_num_after_the_first_decrease() {
        let a = Ns2Agent {
            decrease_num: 0.75,
            ..Ns2Agent::default()
        };
        // the first decrease (or slow start) halves both
        assert_eq!(a.slowdown(20.0, true, true), (10.0, 10.0));
        // later ones keep 3/4
        assert_eq!(a.slowdown(20.0, false, false), (15.0, 15.0));
        // a timeout's ssthresh halves; cwnd_ is set by the timeout itself
        assert_eq!(a.slowdown(20.0, true, false).0, 10.0);
        // without precisionReduce_ the product is rounded down
        let coarse = Ns2Agent {
            precision_reduce: false,
            ..a
        };
        assert_eq!(coarse.slowdown(13.7, false, false), (9.0, 9.0));
        assert_eq!(a.slowdown(13.7, false, false).1, 0.75 * 13.7);
        // decrease_num_ 0.5: cwnd_ is always windowd() / 2
        let half = Ns2Agent::default();
        assert_eq!(half.slowdown(13.0, false, false), (6.0, 6.5));
    }

    #[test]
    fn open_cwnd_with_increase_num_and_maxcwnd() {
        let mut w = Window {
            cwnd: 10_000.0,
            ssthresh: 5_000.0,
            mss: 1000.0,
        };
        assert!(!Ns2Agent::default().open_cwnd(&mut w));
        let a = Ns2Agent {
            increase_num: 0.41,
            ..Ns2Agent::default()
        };
        assert!(a.open_cwnd(&mut w));
        assert!((w.cwnd - 10_041.0).abs() < 1e-9);
        let capped = Ns2Agent {
            maxcwnd: 10,
            ..Ns2Agent::default()
        };
        w.cwnd = 10_950.0;
        assert!(capped.open_cwnd(&mut w));
        assert_eq!(w.cwnd, 10_000.0);
        w.cwnd = 3000.0; // slow start: +1 packet
        assert!(capped.open_cwnd(&mut w));
        assert_eq!(w.cwnd, 4000.0);
    }
}
