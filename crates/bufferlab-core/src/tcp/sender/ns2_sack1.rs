//! ns-2.35's `Agent/TCP/Sack1` (`Rules::sack_sender_as_ns2_sack1`, set by `tcp/flavour/ns2.rs`:
//! `ns2_rules`, on with the `ns2` preset, for `reno` and `newreno` with `sack = true`), where
//! `tcp/tcp-sack1.cc` with the defaults of `tcl/lib/ns-default.tcl` (`partial_ack_` 0,
//! `LimTransmitFix_` 0, `oldCode_` 0, `maxburst_` 0, `aggressive_maxburst_` 1, `bugFix_` 1)
//! differs from RFC 6675:
//!
//! * **Duplicate ACKs** (`recv`): outside fast recovery an ACK of `last_ack_` counts only when
//!   its SACK blocks tell the scoreboard something new (`scb_->CheckUpdate()`), and not at all
//!   after a timeout until a new ACK (`timeout_`); the scoreboard is cleared on every new ACK
//!   outside recovery (`ClearScoreBoard`). New data goes out (`send_much`) only while
//!   `dupacks_` is 0; the first two duplicates send one segment each (`send_one`, limited
//!   transmit).
//! * **Entry** (`dupack_action`, at exactly `numdupacks_` duplicates): refused inside the window
//!   of a timeout (`highest_ack_ > recover_`, `bugFix_`; `recover_` is 0 after a recovery that
//!   ended by its full ACK), except for the first packet (`bugfix_ss_`). An integer
//!   `pipe_ = maxseq_ - highest_ack_ - numdupacks_` (packets outstanding less the three that
//!   left); `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)`: cwnd_ = W/2 and ssthresh_ =
//!   int(W/2) for W = min(cwnd_, window_); the timer restarts (`reset_rtx_timer(1, 0)`) and the
//!   head is retransmitted with `output`, which does not count in `pipe_`.
//! * **In recovery** (`recv` with `fastrecov_`): every ACK takes one off `pipe_`; a partial ACK
//!   (`partial_ack_` 0) takes one more, restarts the timer and the back-off (`newtimer`,
//!   `t_backoff_ = 1`) each time; cwnd_ never changes. `send_much` sends while `pipe_ <
//!   int(cwnd_)`, one added per packet: first `GetNextRetran()` (`ScoreBoardRQ`: the first
//!   unSACKed packet at or above the highest one retransmitted, `h_seqno_`, that has a SACKed
//!   block above it; no DupThresh test), else new data within `window_` of `highest_ack_`.
//! * **Exit** (the ACK of `recover_`): `newack()` only: cwnd_ stays W/2, no window opening on
//!   that ACK; `recover_ = 0` and the scoreboard is cleared.
//! * **Timeout** (`Sack1TcpAgent::timeout`): the scoreboard is cleared, `recover_ = maxseq_`,
//!   `timeout_` set; then `TcpAgent::timeout` (go-back-N, the window arithmetic of the `ns2`
//!   flavour).

use super::{TcpSender, F};
use crate::endpoint::EndpointCtx;
use crate::packet::Packet;
use crate::tcp::cc::Ack;

impl TcpSender {
    /// `Sack1TcpAgent::recv` (see the module comment).
    pub(super) fn on_ack_sack1(&mut self, pkt: &Packet, cx: &mut EndpointCtx) {
        let now = cx.now;
        let h = &pkt.tcp;
        let ack = h.ack;
        if ack > self.snd_max {
            return;
        }
        if !self.in_recovery {
            self.cwv.sack1_last_ack = self.snd_una; // last_ack_ stays through fast recovery
        }
        let last_ack = self.cwv.sack1_last_ack;
        if self.in_recovery {
            self.sack1_pipe -= 1; // --pipe_ for every ACK in fast recovery
            if ack >= self.recover {
                // The full ACK: recover_ = 0, fastrecov_ = FALSE, newack(pkt) (no opencwnd),
                // timeout_ = FALSE, ClearScoreBoard().
                self.in_recovery = false;
                self.recover = 0;
                self.frto.prev_una = self.snd_una; // newack(): prev_highest_ack_
                self.sack1_new_ack(h, ack, now);
                self.sb.clear();
                self.high_rxt = ack;
                self.check_app_progress(now);
            } else if ack > self.snd_una {
                // A partial ACK: highest_ack_ moves (not last_ack_), the scoreboard learns the
                // blocks; partial_ack_ 0: --pipe_ again, newtimer(pkt), t_backoff_ = 1.
                self.snd_una = ack;
                self.snd_nxt = self.snd_nxt.max(ack);
                self.sb.advance(ack);
                self.record_sack_blocks(pkt);
                if !self.sack1_partial_ack(cx) {
                    self.sack1_pipe -= 1;
                    self.arm_rto(now);
                    self.rtt.reset_backoff();
                }
                self.check_app_progress(now);
            } else if ack == self.snd_una && pkt.payload == 0 {
                // Another duplicate: the scoreboard learns its blocks (dupacks_ counts on).
                self.stats.dupacks_received += 1;
                if self.record_sack_blocks(pkt) > 0 && self.dupacks > 0 {
                    self.dupacks += 1;
                }
            }
            if self.ns2_ack_may_send(ack, last_ack) {
                self.send_data(cx); // valid_ack || aggressive_maxburst_
            }
            return;
        }
        if ack > self.snd_una {
            // firstpartial_ = 0; recv_newack_helper: newack() and opencwnd(); timeout_ = FALSE;
            // ClearScoreBoard().
            self.sack1_first_partial = false;
            let info = Ack {
                now,
                acked: ack - self.snd_una,
                flight_before: self.flight(),
                snd_una: ack,
                snd_nxt: self.snd_nxt.max(self.snd_max),
                next_to_send: self.snd_nxt,
                clock_s: cx.now_s,
                rtt: Some(now.saturating_sub(h.ts_echo)),
                ack_rtt: None,
            };
            self.sack1_new_ack(h, ack, now);
            self.sb.clear();
            self.high_rxt = ack;
            let ece = self.p.ecn && h.flags & F::ECE != 0;
            let extent = self.ecn_extent();
            if extent {
                let marked = if ece { info.acked } else { 0 };
                self.cc.on_ecn_ack(&self.w, info.acked, marked, &info);
            }
            let ecn_opens = self.ns2_ecn_opens(ece); // old_ecn_ (sender/ns2_knobs.rs)
            if (extent && self.may_grow_after_ecn(ack)) || (!extent && ecn_opens) {
                self.grow(&info);
            }
            self.ns2_frto_new_ack(ack - info.acked); // recv_newack_helper (tcp.cc)
            self.check_app_progress(now);
        } else if ack == self.snd_una
            && self.snd_max > self.snd_una
            && pkt.payload == 0
            && !self.sack1_timeout
        {
            // A duplicate only if its SACK blocks are news (scb_->CheckUpdate()).
            self.stats.dupacks_received += 1;
            let changed = self.record_sack_blocks(pkt) > 0;
            if changed {
                self.dupacks += 1;
                // numdupacks(cwnd_): numdupacksFrac_ (sender/ns2_knobs.rs)
                let thresh = self.sack1_numdupacks();
                if self.dupacks == thresh {
                    self.dupack_action_sack1(cx);
                } else if self.dupacks < thresh && self.p.limited_transmit {
                    self.limited_transmit(cx); // send_one (singledup_)
                }
            }
            // SACK-based F-RTO (sfrto_enabled_, frto_ == 2)
            let past = self.sack_past_recover(pkt);
            self.ns2_sfrto_dupack(changed, past);
        }
        self.on_ece(pkt, now);
        if self.dupacks == 0 && self.ns2_ack_may_send(ack, last_ack) {
            self.send_data(cx); // send_much only while dupacks_ == 0
        }
    }

    /// `TcpAgent::newack`: the cumulative ACK moves, dupacks_ = 0, the RTT sample of the timed
    /// segment, the timer restarts; `timeout_ = FALSE` (`recv`).
    fn sack1_new_ack(
        &mut self,
        h: &crate::packet::TcpHeader,
        ack: u64,
        now: crate::units::SimTime,
    ) {
        self.take_rtt_sample(h, ack, now);
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.dupacks = 0;
        self.sack1_timeout = false;
        if self.snd_max > self.snd_una || self.ns2_window_below_one() {
            self.arm_newack_rto(now); // timerfix_ off: with the RTO before the sample
        } else {
            self.rto_at = None;
        }
    }

    /// `scb_->UpdateScoreBoard(highest_ack_, tcph)`; returns the bytes newly SACKed.
    fn record_sack_blocks(&mut self, pkt: &Packet) -> u64 {
        let una = self.snd_una;
        pkt.tcp
            .sack_blocks()
            .map(|(s, e)| self.sb.add(una, s, e))
            .sum()
    }

    /// Packets outstanding, `maxseq_ - highest_ack_` (full-sized packets; a short last one
    /// counts as one).
    fn sack1_outstanding(&self) -> i64 {
        self.flight().div_ceil(self.mss()) as i64
    }

    /// `Sack1TcpAgent::dupack_action` at the `numdupacks_`-th duplicate.
    fn dupack_action_sack1(&mut self, cx: &mut EndpointCtx) {
        let recovered = self.snd_una > self.recover;
        let first = self.rules.fast_retransmit_when_first_segment_lost
            && self.p.ns2.bugfix_ss
            && self.snd_una == super::ns2_packet0_end(&self.p);
        if !(recovered || first || self.ns2_fast_retransmit_again()) {
            if self.p.ecn && self.last_action_ecn {
                self.sack1_ecn_dupack_action(cx);
            }
            return; // bugFix_: no second fast retransmit in the window of a timeout
        }
        // sack_action: recover_ = maxseq_, pipe_ = maxseq_ - highest_ack_ - numdupacks_; with
        // oldCode_, int(cwnd_) - numdupacks_, cwnd_ as it is before slowdown() halves it
        let cwnd_before = if self.in_recovery {
            self.ns2_base
        } else {
            self.w.cwnd
        };
        let pipe = if self.p.ns2.old_code {
            (cwnd_before / self.w.mss).floor() as i64
        } else {
            self.sack1_outstanding()
        } - self.sack1_numdupacks() as i64;
        // trace_event("FAST_RECOVERY"), then slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF),
        // decrease_num_ after the first (sender/ns2_events.rs)
        self.ns2_event(cx.now, "FAST_RECOVERY");
        let slow_start = self.ns2_in_slow_start();
        let (ssthresh, half) = self.ns2_slowdown(false);
        self.ns2_slowdown_event(cx.now, slow_start, half.max(self.w.mss) / self.w.mss);
        self.w.ssthresh = ssthresh;
        self.w.cwnd = half.max(self.w.mss);
        self.ns2_base = self.w.cwnd;
        self.recover = self.snd_max;
        self.start_reduction_round(self.ecn_recover.max(self.snd_max));
        self.sack1_pipe = pipe;
        self.in_recovery = true;
        self.last_action_timeout = false;
        self.last_action_ecn = false;
        self.stats.fast_retransmits += 1;
        self.note_ns2_cong_action();
        // reset_rtx_timer(1, 0): the timer restarts and rtt_active_ = 0 (no timed segment).
        self.timed = None;
        self.high_rxt = self.snd_una; // MarkRetran(highest_ack_ + 1) below
        self.resend_head(cx); // output(last_ack_ + 1): not counted in pipe_
        self.arm_rto(cx.now);
    }

    /// `Sack1TcpAgent::dupack_action` inside the window of an ECN reduction (`highest_ack_ <=
    /// recover_`, `last_cwnd_action_ == CWND_ACTION_ECN`): fast recovery without a second
    /// halving: `reset_rtx_timer(1, 0)`, `pipe_ = maxseq_ - highest_ack_ - numdupacks_`,
    /// `fastrecov_`, the head marked and retransmitted; `recover_` and cwnd_ stay.
    fn sack1_ecn_dupack_action(&mut self, cx: &mut EndpointCtx) {
        self.last_action_ecn = false;
        self.sack1_pipe = self.sack1_outstanding() - self.sack1_numdupacks() as i64;
        self.ns2_base = self.w.cwnd;
        self.in_recovery = true;
        self.timed = None;
        self.high_rxt = self.snd_una;
        self.resend_head(cx);
        self.arm_rto(cx.now);
    }

    /// `Sack1TcpAgent::send_much` in fast recovery: while `pipe_ < int(cwnd_)`, the next
    /// retransmission (`GetNextRetran`) or new data within `window_` of `highest_ack_`.
    pub(super) fn send_data_sack1(&mut self, cx: &mut EndpointCtx) {
        let mss = self.mss();
        let win = self.rwnd.min(self.p.max_window);
        let mut sent = 0;
        // pipe_ < int(cwnd_), read at each turn (QOption_ may shrink cwnd_ on the way)
        while self.sack1_pipe < (self.w.cwnd / self.w.mss).floor() as i64 && !self.burst_done(sent)
        {
            sent += 1;
            if let Some((s, l)) =
                self.sb
                    .first_hole_below_sacked(self.snd_una, self.snd_max, self.high_rxt, mss)
            {
                if s + l > self.snd_una + win {
                    break; // xmit_seqno > highest_ack_ + wnd_
                }
                self.emit(cx, s, l, F::ACK);
                self.high_rxt = s + l; // MarkRetran
            } else {
                self.snd_nxt = self.snd_nxt.max(self.snd_max);
                let Some(len) = self.next_new_segment(cx.now, false) else {
                    break;
                };
                let s = self.snd_nxt;
                self.emit(cx, s, len, F::ACK);
                self.snd_nxt = self.snd_max;
            }
            self.sack1_pipe += 1;
            // process_qoption_after_send, t_seqno_ the next new packet (sender/ns2_cwv.rs)
            let t_seqno = self.ns2_pkts(self.snd_nxt);
            self.ns2_qoption_after_send(cx.now_s, t_seqno);
        }
    }
}
