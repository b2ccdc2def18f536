//! Entering loss recovery, and limited transmit.
//!
//! * Fast retransmit and fast recovery: RFC 5681 section 3.2 steps 2-3 (ssthresh by the
//!   controller, cwnd = ssthresh + 3 SMSS), RFC 6582 (NewReno: RecoveryPoint = HighData),
//!   RFC 6675 section 5 steps (4.1)-(4.3) with SACK (cwnd = ssthresh, the first segment
//!   presumed lost retransmitted); Tahoe slow-starts from one segment.
//! * ns-3's SACK sender: `EnterRecovery` marks the head lost before `BytesInFlight()` sizes
//!   ssthresh; PRR (`TcpPrrRecovery`). Linux: `tcp_init_cwnd_reduction` and
//!   `tcp_cwnd_reduction` (`prr_linux.rs`), RACK-TLP's probe stopped (`rack_tlp.rs`).
//! * ns-2.35's agents (tcp.cc, tcp-reno.cc, tcp-newreno.cc `dupack_action`): `trace_event`
//!   before `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF)`, which halves W = min(cwnd_,
//!   window_), not FlightSize (`precision_reduce_`, `decrease_num_`); `dupwnd_ =
//!   numdupacks_`; `cong_action_` on the next packet; Tahoe's `reset_rtx_timer(0, 0)` (go
//!   back N).
//! * Limited transmit: RFC 3042, ns-2.35 tcp.cc `send_one` (`singledup_`; `t_seqno_ <=
//!   highest_ack_ + cwnd_ + dupacks_`).

use super::{TcpSender, F};
use crate::endpoint::EndpointCtx;
use crate::tcp::cc::Recovery;
use crate::tcp::config::CcKind;
use crate::tcp::flavour::PrrVariant;

impl TcpSender {
    /// RFC 3042 / ns-2 tcp.cc `send_one`: on the first and second duplicate ACK send one
    /// segment at snd_nxt if it stays within `window_` (and the receive window) and within
    /// cwnd + the duplicates counted (`t_seqno_ <= highest_ack_ + cwnd_ + dupacks_`).
    pub(super) fn limited_transmit(&mut self, cx: &mut EndpointCtx) {
        let avail = self.avail_end();
        if self.snd_nxt >= avail {
            return;
        }
        let len = self.mss().min(avail - self.snd_nxt);
        let end = self.snd_nxt + len;
        let win = self.rwnd.min(self.p.max_window);
        let allowed = self.w.cwnd + self.dupacks as f64 * self.w.mss;
        if end <= self.snd_una + win && (end - self.snd_una) as f64 <= allowed {
            let s = self.snd_nxt;
            self.emit(cx, s, len, F::ACK);
            self.snd_nxt = end;
            let t_seqno = self.ns2_pkts(end) - 1;
            self.ns2_qoption_after_send(cx.now_s, t_seqno); // tcp.cc send_one
        }
    }

    /// ns-2 tcp.cc `slowdown` with precision_reduce_: the window it halves is
    /// windowd() = min(cwnd_, window_) in packets (Reno: without the dupwnd_ inflation).
    pub(super) fn ns2_window(&self) -> f64 {
        let cwnd = if self.in_recovery && self.p.cc != CcKind::Vegas {
            self.ns2_base
        } else {
            self.w.cwnd
        };
        cwnd.min(self.p.max_window as f64) / self.w.mss
    }

    /// ns-2 `slowdown(CLOSE_SSTHRESH_HALF)`: ssthresh_ = int(windowd()/2), at least 2 packets.
    pub(super) fn ns2_half_ssthresh(&self) -> f64 {
        (self.ns2_window() / 2.0).floor().max(2.0) * self.w.mss
    }

    /// ns-2's `cong_action_` (`cwr_after_every_reduction`): the window was closed, so the
    /// next segment sent carries CWR. Not for Vegas, whose own output() ignores it.
    pub(super) fn note_ns2_cong_action(&mut self) {
        self.ns2_decreased = true; // slowdown(): first_decrease_ = 0
        if self.rules.cwr_after_every_reduction && !self.ns2_vegas() {
            self.cwr_pending = true;
        }
    }

    pub(super) fn enter_recovery(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
        let ns2_reno = self.ns2_aimd() && !self.p.sack;
        let slow_start = ns2_reno && self.ns2_in_slow_start();
        if ns2_reno {
            // tcp.cc / tcp-reno.cc / tcp-newreno.cc dupack_action: trace_event before slowdown
            let kind = match self.p.cc {
                CcKind::Tahoe => "FAST_RETX",
                CcKind::Reno => "RENO_FAST_RETX",
                _ => "NEWRENO_FAST_RETX",
            };
            self.ns2_event(now, kind);
        }
        // tcp-reno.cc dupack_action -> slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF):
        // ssthresh_ = int(W/2), cwnd_ = W/2 for W = min(cwnd_, window_), not FlightSize
        // (decrease_num_ after the first decrease).
        let (ns2_ssthresh, half) = if ns2_reno {
            self.ns2_slowdown(false)
        } else {
            (0.0, 0.0)
        };
        if ns2_reno {
            // Tahoe's slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_ONE): cwnd_ 1
            let after = if self.cc.recovery() == Recovery::None {
                1.0
            } else {
                half.max(self.w.mss) / self.w.mss
            };
            self.ns2_slowdown_event(now, slow_start, after);
        }
        self.stats.fast_retransmits += 1;
        // Linux tcp_enter_recovery -> tcp_init_undo (sender/dsack_undo.rs)
        self.undo_enter_recovery();
        self.note_ns2_cong_action();
        self.last_action_timeout = false;
        self.last_action_ecn = false;
        self.ns2_clear_lingering();
        let flight = self.flight();
        if ns2_reno {
            self.w.ssthresh = ns2_ssthresh;
        } else if self.ns3_sack() {
            // EnterRecovery marks the head lost, then BytesInFlight() sizes ssthresh.
            self.head_lost_until = self.snd_una + self.mss().min(self.flight());
            let pipe = self.pipe_ns3();
            self.w.ssthresh = self.cc.ssthresh_on_loss(&self.w, pipe, now);
        } else {
            self.w.ssthresh = self.cc.ssthresh_on_loss(&self.w, flight, now);
        }
        self.recover = self.snd_max;
        self.start_reduction_round(self.ecn_recover.max(self.snd_max));
        self.high_rxt = self.snd_una;
        self.partial_seen = false;
        if self.p.sack && self.cc.recovery() != Recovery::None {
            // RFC 6675 section 5 steps (4.1)-(4.3): RecoveryPoint = HighData, cwnd = ssthresh,
            // retransmit the first segment presumed lost.
            self.in_recovery = true;
            let prior_cwnd = self.w.cwnd;
            self.w.cwnd = self.w.ssthresh;
            if self.owns_window {
                let c = self.conn(now);
                self.cc.on_enter_recovery(&mut self.w, &c);
            } else if self.rules.prr == Some(PrrVariant::Ns3) && self.p.prr {
                self.prr_enter();
            } else if self.linux_prr() {
                // tcp_init_cwnd_reduction, then this ACK's tcp_cwnd_reduction before the
                // fast retransmission (sender/prr_linux.rs)
                self.linux_prr_enter(prior_cwnd);
                self.linux_prr_reduce();
            }
            self.rack_stop_probe(false);
            // with RACK-TLP the lost segments go out by the send loop, the head only if lost
            if self.rack_head_lost() {
                self.fast_retransmit_head(cx);
            }
            return;
        }
        match self.cc.recovery() {
            Recovery::None if self.rules.tahoe_fast_retransmit_goes_back_n && self.ns2_aimd() => {
                // ns-2 tcp.cc dupack_action -> reset_rtx_timer(0, 0): the timer restarts,
                // t_seqno_ = highest_ack_ + 1 and rtt_active_ = 0; recv's send_much (here
                // after_ack) then sends the head with cwnd_ 1, and each new ACK's slow start
                // resends from the cumulative ACK (go back N).
                self.w.cwnd = self.w.mss;
                self.snd_nxt = self.snd_una;
                self.timed = None;
                self.arm_rto(now);
            }
            Recovery::None => {
                // Tahoe: retransmit and slow-start from one segment.
                self.w.cwnd = self.w.mss;
                self.fast_retransmit_head(cx);
            }
            Recovery::Reno | Recovery::NewReno => {
                // RFC 5681 section 3.2 steps 2-3.
                self.in_recovery = true;
                self.fast_retransmit_head(cx);
                if self.owns_window {
                    let c = self.conn(now);
                    self.cc.on_enter_recovery(&mut self.w, &c);
                } else if ns2_reno {
                    // window() = int(cwnd_) + dupwnd_, dupwnd_ = numdupacks_ (tcp-reno.cc).
                    self.ns2_base = half.max(self.w.mss);
                    self.w.cwnd = self.ns2_base + self.p.dupack_threshold as f64 * self.w.mss;
                } else {
                    self.w.cwnd = self.w.ssthresh + self.p.dupack_threshold as f64 * self.w.mss;
                }
            }
        }
    }
}
