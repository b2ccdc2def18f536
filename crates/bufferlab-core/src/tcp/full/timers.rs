//! FullTcp's timers (ns-2.35 `tcp/tcp-full.cc` `timeout`, `reset_rtx_timer`, tcp.cc
//! `set_rtx_timer`), their deadlines kept in ns-2's double seconds (the scheduler adds the
//! delay to the double clock).
//!
//! * Retransmission: `rtt_timeout()` after it is set (tcp.cc `rtt_timeout`: t_rtxcur_ x
//!   t_backoff_, minrto_ clamped first, capped by maxrto_, at least two ticks). On expiry
//!   `timeout_action` then `send_much(1, PF_TIMEOUT)`.
//! * Delayed ACK: with `interval_` > 0, every `recv` that finds it idle starts it at the next
//!   multiple of `interval_` (`delack_interval_ * (int(now / interval_) + 1) - now` later);
//!   on expiry it sends the ACK a segment left owed (TF_DELACK) and re-arms `interval_` later,
//!   so it then ticks every `interval_` for the rest of the run.

use super::{FullTcpAgent, State, REASON_NORMAL, TF_ACKNOW, TF_DELACK};
use crate::endpoint::EndpointCtx;
use crate::units::SimTime;

impl FullTcpAgent {
    /// tcp.cc `set_rtx_timer` (resched: replaces a pending one).
    pub(crate) fn set_rtx_timer(&mut self) {
        let rto = self.rtt.rto_s().expect("ns-2 estimator");
        self.rtx_at = Some(self.now_s + rto);
    }

    /// tcp-full.cc `reset_rtx_timer`: back off (unless nothing is outstanding,
    /// `restart_bugfix_`), set the timer, stop timing.
    pub(crate) fn reset_rtx_timer(&mut self) {
        if self.highest_ack != self.maxseq {
            self.rtt.back_off();
        }
        self.set_rtx_timer();
        self.rtt_active = false;
    }

    /// tcp-full.cc `recv`'s delayed-ACK timer start.
    pub(crate) fn arm_delack(&mut self) {
        let iv = self.f.interval_s;
        if iv > 0.0 && self.delack_at.is_none() {
            let last = (self.now_s / iv) as i64;
            self.delack_at = Some(self.now_s + (iv * (last as f64 + 1.0) - self.now_s));
        }
    }

    /// Runs the timers due now (tcp-full.cc `timeout`).
    pub(crate) fn fire_timers(&mut self, cx: &mut EndpointCtx) {
        let now = self.now_s;
        let now_t = self.now;
        // due by ns-2's double, or by the picosecond time the engine keyed it at
        let due =
            |t: Option<f64>| t.is_some_and(|t| t <= now || SimTime::from_secs_f64(t) <= now_t);
        if due(self.rtx_at) {
            self.rtx_at = None;
            if self.state != State::Listen {
                self.nrexmit += 1;
                self.timeout_action();
                self.send_much(true, REASON_NORMAL, self.maxburst, cx);
            }
        }
        if due(self.delack_at) {
            self.delack_at = None;
            if self.state == State::Listen {
                return;
            }
            if self.flags & TF_DELACK != 0 {
                self.flags &= !TF_DELACK;
                self.flags |= TF_ACKNOW;
                self.send_much(true, REASON_NORMAL, 0, cx);
            }
            self.delack_at = Some(now + self.f.interval_s);
        }
    }
}
