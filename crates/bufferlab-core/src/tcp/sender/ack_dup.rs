//! A duplicate ACK (ack == snd_una, data outstanding, no payload: RFC 5681 section 2; the
//! window field is not compared).
//!
//! * In fast recovery each duplicate inflates the window by one SMSS (RFC 5681 section 3.2
//!   step 4); ns-2.35 tcp-newreno.cc traces `NEWRENO_FAST_RECOVERY`.
//! * Outside it: fast retransmit at exactly the DupThresh-th duplicate (ns-2 `dupacks_ ==
//!   numdupacks_`) or at RFC 6675's IsLost(HighACK) before that, not twice for one window
//!   (RFC 6582 section 3.2 step 1; ns-2.35 `dupack_action` with `bugFix_`, `lessCareful_`,
//!   `bugfix_ss_`, NewReno's `bugFix_ack_` / `bugFix_ts_`); inside an ECN window ns-2's
//!   `dupack_action` does not halve again (`ecn.rs`); before the threshold, limited transmit
//!   (RFC 3042). With RACK-TLP time decides, not the count (`rack_tlp.rs`).
//! * ns-2's own paths: `dupwnd_` outside recovery (`exitFastRetrans_` false, NewReno's
//!   lingering `CWND_ACTION_DUPACK`), F-RTO's duplicate (`recv_frto_helper`), Vegas's
//!   (tcp-vegas.cc `recv`), and `send_much` only when `dupacks_` is 0 or >= `numdupacks_`.

use std::ops::ControlFlow;

use super::{ns2_packet0_end, TcpSender};
use crate::endpoint::EndpointCtx;
use crate::packet::Packet;
use crate::tcp::cc::Recovery;
use crate::tcp::config::CcKind;

impl TcpSender {
    /// A duplicate ACK (ack == snd_una, nothing new, no payload). Returns `Break` when the
    /// ACK is done here (the caller returns: ns-2's F-RTO sent already, or ns-2's agents
    /// send nothing before the `numdupacks_`-th duplicate).
    #[inline]
    pub(super) fn on_dupack(
        &mut self,
        pkt: &Packet,
        ack: u64,
        mss: u64,
        cx: &mut EndpointCtx,
    ) -> ControlFlow<()> {
        let now = cx.now;
        // A duplicate ACK (RFC 5681 section 2; the window field is not compared, as
        // out-of-order data shrinks a finite receive buffer's window).
        self.stats.dupacks_received += 1;
        if self.ns2_aimd() && self.ns2_frto_dupack() {
            // recv_frto_helper: dupacks_ = -1, then recv's ++dupacks_ (0): send_one
            // (singledup_), then send_much
            self.dupacks = 0;
            if self.p.limited_transmit {
                self.limited_transmit(cx);
            }
            self.on_ece(pkt, now);
            self.after_ack(cx);
            return ControlFlow::Break(());
        }
        self.dupacks += 1;
        if self.vegas_loss.is_some() {
            // ns-2 tcp-vegas.cc recv; send_much only if dupacks_ is 0 or >= numdupacks_.
            self.vegas_on_dupack(cx);
            if self.dupacks < self.p.dupack_threshold {
                return ControlFlow::Break(());
            }
        } else if self.in_recovery {
            if !self.p.sack && !self.owns_window {
                // RFC 5681 section 3.2 step 4: inflate by one SMSS per duplicate.
                self.w.cwnd += self.w.mss;
            }
            if self.p.cc == CcKind::Newreno
                && self.ns2_aimd()
                && !self.p.sack
                && self.dupacks > self.p.dupack_threshold
            {
                // tcp-newreno.cc recv: dupacks_ > numdupacks_ in fast recovery
                self.ns2_event(now, "NEWRENO_FAST_RECOVERY");
            }
        } else if self.ns2_dupwnd_out
            || (self.dupacks > self.p.dupack_threshold && self.ns2_dupack_lingers())
        {
            // ns-2 exitFastRetrans_ false, or NewReno's last_cwnd_action_ still
            // CWND_ACTION_DUPACK: ++dupwnd_ outside fast recovery too.
            if self.ns2_dupwnd_without_recovery() && self.p.cc == CcKind::Newreno {
                // tcp-newreno.cc recv: the same branch traces NEWRENO_FAST_RECOVERY
                self.ns2_event(now, "NEWRENO_FAST_RECOVERY");
            }
        } else {
            return self.dupack_fast_retransmit(ack, mss, cx);
        }
        ControlFlow::Continue(())
    }

    /// A duplicate ACK outside recovery: fast retransmit and recovery at the threshold (or
    /// at RFC 6675's IsLost before it), ns-2's ECN-window `dupack_action`, else limited
    /// transmit. Returns `Break` when ns-2's agent sends nothing more for this ACK.
    #[inline]
    fn dupack_fast_retransmit(
        &mut self,
        ack: u64,
        mss: u64,
        cx: &mut EndpointCtx,
    ) -> ControlFlow<()> {
        let lost = self.p.sack && self.sb.is_lost(self.snd_una, self.p.dupack_threshold, mss);
        // RFC 6582 section 3.2 step 1: no second fast retransmit for the same window.
        // ns-2 tcp-reno.cc / tcp.cc dupack_action with bugFix_: fast retransmit only
        // when highest_ack_ > recover_ (or still inside the first recovery), so after
        // a partial ACK a second loss of the window waits for the timeout.
        // tcp-vegas.cc recv applies the guard only after a timeout.
        let guard = match self.cc.recovery() {
            Recovery::NewReno => true,
            _ if self.ns2_aimd() => true,
            _ => self.p.sack || self.last_action_timeout,
        };
        // Exactly the DupThresh-th duplicate (ns-2 `dupacks_ == numdupacks_`), or
        // RFC 6675 IsLost(HighACK) before that.
        let thresh = self.p.dupack_threshold;
        // ns-2 noFastRetrans_ (Agent/TCP): no dupack_action() at all
        // (sender/ns2_no_fast_retrans.rs)
        let at_thresh = self.dupacks == thresh && !self.ns2_no_fast_retrans();
        // with RACK-TLP, time decides (rack_maybe_recover below), not the count
        if !self.rack_on()
            && (at_thresh || (lost && self.dupacks < thresh))
            && (self.snd_una > self.recover
                || !guard
                // ns-2 without bugFix_, or lessCareful_ (sender/ns2_recovery.rs)
                || self.ns2_fast_retransmit_again()
                // ns-2 NewReno's bugFix_ack_, bugFix_ts_ (sender/ns2_knobs.rs)
                || self.ns2_newreno_heuristic()
                // ns-2 bugfix_ss_: also when the first data packet is lost
                // (highest_ack_ == 0 in dupack_action).
                || (self.rules.fast_retransmit_when_first_segment_lost
                    && self.p.ns2.bugfix_ss
                    && self.snd_una == ns2_packet0_end(&self.p)))
        {
            self.enter_recovery(cx);
        } else if at_thresh && self.ns2_aimd() && self.p.ecn && self.last_action_ecn {
            self.ns2_ecn_dupack_action(cx);
        } else if self.dupacks < thresh && self.p.limited_transmit {
            self.limited_transmit(cx);
        }
        if self.dupacks == thresh {
            // ns-2 exitFastRetrans_ false: dupwnd_ = numdupacks_ after dupack_action()
            self.ns2_dupwnd_without_recovery();
        }
        if !self.rules.send_on_early_dupacks && self.dupacks < thresh {
            // ns-2 recv calls send_much only when dupacks_ is 0 or >= numdupacks_.
            self.ns2_qoption_after_ack(ack);
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
}
