//! ECN at the sender.
//!
//! * RFC 3168 section 6.1.2: an ECN echo reduces the window once per window, as a loss would,
//!   without retransmitting, by the controller's ECN rule (RFC 8257 section 3.3 for DCTCP);
//!   the next new segment carries CWR (`output.rs`), not under AccECN (Linux
//!   `tcp_ecn_queue_cwr`). AccECN's feedback itself is in `accecn.rs`.
//! * With a controller that reads the extent of marking (RFC 8257 DCTCP, RFC 9331 Prague)
//!   every ACK's ECE goes to the controller (`ecn_extent`), and ECE ACKs grow the window
//!   outside the round after a reduction (`may_grow_after_ecn`; Linux `tcp_may_raise_cwnd`).
//! * ns-2.35's agents: tcp.cc `ecn(seqno)` before each ACK is processed (`slowdown`,
//!   `ecn_backoff_`, `recover_`), and `dupack_action` at the `numdupacks_`-th duplicate
//!   inside an ECN reduction's window (tcp.cc, tcp-reno.cc, tcp-newreno.cc); ECN in fast
//!   recovery is in `ns2_ecn_recovery.rs`.

use super::{TcpSender, F};
use crate::endpoint::EndpointCtx;
use crate::packet::Packet;
use crate::tcp::cc::{EcnFeedback, Recovery};
use crate::units::SimTime;

impl TcpSender {
    /// The controller reads the extent of marking (DCTCP, Prague): every ACK's ECE goes to it.
    pub(super) fn ecn_extent(&self) -> bool {
        self.p.ecn && self.cc.ecn_feedback() == EcnFeedback::Extent
    }

    /// With `EcnFeedback::Extent`: whether an ACK up to `ack` may grow the window, i.e. it is
    /// not inside the round trip after an ECN reduction (Linux CWR state), unless the
    /// controller grows there too (Prague).
    pub(super) fn may_grow_after_ecn(&self, ack: u64) -> bool {
        self.cc.grows_during_cwr() || ack >= self.ecn_recover || self.rto_since_reduction
    }

    /// Starts the round after a reduction (ECN or fast recovery) in which the window does not
    /// grow until `until` is acknowledged (Linux CWR / Recovery, `tcp_in_cwnd_reduction`), or
    /// until a timeout ends it (`rto_since_reduction`, set by `on_rto`).
    pub(super) fn start_reduction_round(&mut self, until: u64) {
        self.ecn_recover = until;
        self.rto_since_reduction = false;
    }

    /// RFC 3168 section 6.1.2: an ECN echo reduces the window once per window, as a loss
    /// would, without retransmitting (by the controller's ECN rule: RFC 8257 section 3.3).
    pub(super) fn on_ece(&mut self, pkt: &Packet, now: SimTime) {
        if self.ns2_aimd() {
            return; // ns2_ecn, before the ACK is processed
        }
        let ece = self.ack_ece(pkt);
        if ece && !self.in_recovery && self.snd_una > self.ecn_recover {
            self.w.ssthresh = self.cc.ssthresh_on_ecn(&self.w, self.flight(), now);
            self.w.cwnd = self.w.ssthresh.max(self.w.mss);
            self.start_reduction_round(self.snd_max);
            self.undo_forget(); // Linux tcp_enter_cwr: ECN's reduction is never undone
                                // tcp_ecn_queue_cwr: "Do not set CWR if in AccECN mode!"
            self.cwr_pending = self.accecn.is_none();
            self.stats.ecn_reductions += 1;
        }
    }

    /// ns-2.35 tcp.cc `ecn(seqno)`, called by every agent's recv before the ACK is processed:
    /// an ECN echo on an ACK above `recover_` (or any after a timeout) sets `recover_ =
    /// maxseq_` and `slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF)`: cwnd_ = W/2, not
    /// rounded and not raised to one packet (half of a window of one is half a packet, and
    /// window() = int(cwnd_) then sends nothing until the timer, `newtimer`, expires),
    /// ssthresh_ = int(W/2) (at least 2), for W = min(cwnd_, window_). With cwnd_ at one
    /// packet or less the first such echo sets `ecn_backoff_`, the next backs the timer off
    /// (`rtt_backoff`). In Reno's and NewReno's fast recovery W is `windowd()` = cwnd_ +
    /// dupwnd_ (tcp-reno.cc): the echo on the ACK that ends it halves the inflated window
    /// (`sender/ns2_ecn_recovery.rs`).
    pub(super) fn ns2_ecn(&mut self, pkt: &Packet) {
        let ece = self.p.ecn && pkt.tcp.flags & F::ECE != 0;
        if !ece || !(pkt.tcp.ack > self.recover || self.last_action_timeout) {
            return;
        }
        let cwnd = if self.in_recovery || self.ns2_dupwnd_out {
            self.ns2_base
        } else {
            self.w.cwnd
        };
        if cwnd <= self.w.mss {
            if self.ecn_backoff {
                self.rtt.back_off();
            } else {
                self.ecn_backoff = true;
            }
        } else {
            self.ecn_backoff = false;
        }
        // slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF), decrease_num_ after the first decrease
        let (ssthresh, half) = self.ns2_slowdown(false);
        self.w.ssthresh = ssthresh;
        self.ns2_ecn_keeps_dupwnd(half);
        self.recover = self.snd_max;
        self.start_reduction_round(self.snd_max);
        self.last_action_timeout = false;
        self.last_action_ecn = true;
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
    }

    /// ns-2's `dupack_action` at the `numdupacks_`-th duplicate inside the window of an ECN
    /// reduction (`highest_ack_ <= recover_`, `last_cwnd_action_ == CWND_ACTION_ECN`): no
    /// second halving. tcp.cc (Tahoe): `slowdown(CLOSE_CWND_ONE)` (ssthresh_ kept) and
    /// `reset_rtx_timer(0, 0)` (go back N); tcp-reno.cc, tcp-newreno.cc: `reset_rtx_timer(1,
    /// 0)`, the head retransmitted and `dupwnd_ = numdupacks_` (fast recovery at the window
    /// the ECN echo left, `recover_` kept).
    pub(super) fn ns2_ecn_dupack_action(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
        self.last_action_ecn = false;
        self.last_action_timeout = false;
        self.ns2_clear_lingering();
        match self.cc.recovery() {
            Recovery::None => {
                self.w.cwnd = self.w.mss;
                self.note_ns2_cong_action();
                self.snd_nxt = self.snd_una;
                self.timed = None;
                self.arm_rto(now);
            }
            Recovery::Reno | Recovery::NewReno => {
                self.in_recovery = true;
                self.partial_seen = false;
                self.high_rxt = self.snd_una;
                self.fast_retransmit_head(cx);
                self.ns2_base = self.w.cwnd;
                self.w.cwnd = self.ns2_base + self.p.dupack_threshold as f64 * self.w.mss;
            }
        }
    }
}
