//! The ACK path: the order of the per-ACK steps, the SYN-ACK, the RTT sample.
//!
//! * Order (`on_ack`): with a window-owning controller the ACK's SACK blocks and cumulative
//!   ACK deliver rate-estimation records first (ns-3 updates the scoreboard before
//!   `ProcessAck`); then loss recovery (`on_ack_inner`: a new cumulative ACK in `ack_new.rs`, a
//!   duplicate in `ack_dup.rs`, the flavours' own paths in `ns2_linux.rs`, `ns2_sack1.rs`,
//!   `ns3.rs`); the controller's rate sample (`pacing_rate.rs`); then data is sent
//!   (`after_ack`, with the application-limited mark of the draft's section 3.5 / ns-3
//!   `CalculateAppLimited`).
//! * The SYN-ACK (RFC 9293 section 3.5); after a lost SYN or SYN-ACK the initial window is one
//!   segment and the RTO restarts from its initial value (RFC 5681 section 3.1, RFC 6298
//!   section 5.7); ns-2.35 tcp.cc `recv` -> `ecn(0)` after the opening packet's timeout, and
//!   `opencwnd()` for packet 0's ACK without `delay_growth_`. A repeated SYN-ACK: ns-3's
//!   `DoForwardUp` resets the window.
//! * The RTT sample: every ACK with timestamps (RFC 7323 section 4), else the timed segment
//!   (Karn & Partridge 1987); ns-2.35 tcp.cc `newack` (`timerfix_`, the backoff kept on an
//!   ECN echo with `ecn_backoff_`) and `recv_newack_helper`.

use super::{State, TcpSender, F};
use crate::endpoint::EndpointCtx;
use crate::packet::{Packet, TcpHeader};
use crate::tcp::config::UNLIMITED;
use crate::units::SimTime;

impl TcpSender {
    /// One ACK. With a window-owning controller: its SACK blocks and cumulative ACK deliver
    /// rate-estimation records first (ns-3 updates the scoreboard before `ProcessAck`), loss
    /// recovery runs, the controller gets the rate sample, then data is sent.
    pub(super) fn on_ack(&mut self, pkt: &Packet, cx: &mut EndpointCtx) {
        if self.rate.is_some() && self.state == State::Established && pkt.tcp.flags & F::SYN == 0 {
            let now = cx.now;
            let h = &pkt.tcp;
            self.ack_ctx = Some((self.bytes_in_flight(), self.lost_bytes()));
            let (una, max) = (self.snd_una, self.snd_max);
            if let Some(r) = &mut self.rate {
                if self.p.sack {
                    for (s, e) in h.sack_blocks() {
                        r.on_sacked(now, s.max(una), e.min(max));
                    }
                }
                if h.ack > una && h.ack <= max {
                    r.on_cum_ack(now, h.ack);
                }
            }
        }
        self.on_ack_inner(pkt, cx);
        // paths that return before sending (ns-2 rules) still feed the controller
        self.rate_sample_to_cc(cx.now);
    }

    /// Sends what the window allows once the ACK is processed (after the rate sample).
    pub(super) fn after_ack(&mut self, cx: &mut EndpointCtx) {
        self.rate_sample_to_cc(cx.now);
        self.send_data(cx);
        // draft section 3.5 / ns-3 CalculateAppLimited: nothing left to send below cwnd
        let in_flight = self.snd_max - self.snd_una;
        let limited = self.snd_nxt >= self.avail_end() && (in_flight as f64) < self.w.cwnd;
        if let Some(r) = self.rate.as_mut().filter(|_| limited) {
            r.mark_app_limited(in_flight);
        }
    }

    /// One ACK after the rate-estimation records (`on_ack`): the SYN-ACK in SYN-SENT
    /// (`on_syn_ack`), a repeated SYN-ACK, the flavours' own receive paths (ns-2's
    /// Agent/TCP/Linux and Sack1, ns-3's SACK sender), the SACK blocks, then a new cumulative
    /// ACK (`sender/ack_new.rs`) or a duplicate (`sender/ack_dup.rs`), then what every ACK
    /// does after them: RACK's recovery, Linux PRR's reduction, the ECN echo, the sending.
    pub(super) fn on_ack_inner(&mut self, pkt: &Packet, cx: &mut EndpointCtx) {
        let h = &pkt.tcp;
        let now = cx.now;
        let last_ack = self.snd_una;
        self.stats.acks_received += 1;
        if self.state == State::SynSent {
            if h.flags & F::SYN != 0 && h.flags & F::ACK != 0 {
                self.on_syn_ack(pkt, cx);
            }
            return;
        }
        if self.state != State::Established {
            return;
        }
        if h.flags & F::SYN != 0 {
            // A retransmitted SYN-ACK (its ACK was lost). ns-3's DoForwardUp initialises cwnd
            // and ssthresh on every SYN it receives, even when established.
            if self.rules.syn_ack_resets_window {
                self.w.cwnd = self.p.iw as f64 * self.w.mss;
                self.w.ssthresh = if self.p.initial_ssthresh == UNLIMITED {
                    f64::INFINITY
                } else {
                    self.p.initial_ssthresh as f64
                };
            }
            if !self.rules.repeated_syn_ack_is_an_ack {
                return;
            }
        }
        self.rwnd = h.window as u64;
        if self.lx.is_some() {
            return self.on_ack_ns2_linux(pkt, cx);
        }
        if self.ns2_aimd() {
            // tcp.cc / tcp-reno.cc / tcp-newreno.cc / tcp-sack1.cc recv: ecn() comes first
            self.ns2_ecn(pkt);
        }
        if self.ns2_sack1() {
            return self.on_ack_sack1(pkt, cx);
        }
        self.vegas_on_any_ack(cx.now_s);
        let ack = h.ack;
        let mss = self.mss();
        let mut newly_sacked = 0;
        let linux_prr = self.linux_prr().then(|| self.linux_prr_before_sack(ack));
        // Linux: the D-SACK before the SACK tags (sender/dsack_undo.rs)
        let dsack = self.dsack_on_ack(h);
        if self.p.sack {
            for (s, e) in h.sack_blocks() {
                newly_sacked += self.sb.add(self.snd_una.max(ack), s, e);
            }
        }
        if self.ns3_sack() {
            return self.on_ack_ns3(pkt, newly_sacked, cx);
        }
        self.accecn_on_ack(pkt, ack, newly_sacked);
        if let Some(before) = linux_prr {
            self.linux_prr_after_sack(ack, before);
        }
        if self.rack_on() {
            // RACK's update and loss marking (sender/rack_tlp.rs): PRR's newly_lost is RACK's
            let lost = self.rack_on_ack(ack, now, newly_sacked > 0, dsack.tlp);
            self.linux_prr_set_newly_lost(lost);
        }
        let ece = self.ack_ece(pkt);
        self.undo_note_ece(ece); // tcp_enter_recovery(sk, ece_ack), if this ACK starts one
        let extent = self.ecn_extent();
        let was_in_recovery = self.in_recovery;
        let advanced = ack > self.snd_una && ack <= self.snd_max;
        if ack > self.snd_una && ack <= self.snd_max {
            self.on_new_ack(pkt, ack, ece, extent, cx);
        } else if ack == self.snd_una
            && (self.snd_max > self.snd_una || self.rules.dupack_without_data_outstanding)
            && pkt.payload == 0
            && self.on_dupack(pkt, ack, mss, cx).is_break()
        {
            // a duplicate ACK that ends here (sender/ack_dup.rs)
            return;
        }
        if self.rack_on() {
            // tcp_fastretrans_alert: the undo tests (sender/dsack_undo.rs), then
            // tcp_time_to_recover: something is marked lost
            self.undo_after_ack(h, was_in_recovery, advanced, dsack);
            self.rack_maybe_recover(cx);
        }
        if self.in_recovery && self.linux_prr() {
            // tcp_cong_control: tcp_cwnd_reduction while in recovery (sender/prr_linux.rs)
            self.linux_prr_reduce();
        }
        self.ns2_qoption_after_ack(ack);
        self.on_ece(pkt, now);
        // ns-2 recv: send_much if valid_ack || aggressive_maxburst_ (sender/ns2_cwv.rs)
        if self.ns2_ack_may_send(ack, last_ack) {
            self.after_ack(cx);
        }
        if self.rack_on() && self.snd_una > last_ack {
            // tcp_ack -> tcp_set_xmit_timer: the probe timer from this ACK
            self.tlp_arm(now);
        }
    }

    /// The SYN-ACK in SYN-SENT: the peer's window, the RTT sample (or, after a lost opening
    /// packet, the initial window and RTO of RFC 5681 section 3.1 / RFC 6298 section 5.7),
    /// then the connection is established (RFC 9293 section 3.5).
    #[inline]
    fn on_syn_ack(&mut self, pkt: &Packet, cx: &mut EndpointCtx) {
        let h = &pkt.tcp;
        let now = cx.now;
        self.rwnd = h.window as u64;
        if self.syn_retx && self.ns2_aimd() {
            // tcp.cc recv -> ecn(0): after the opening packet's timeout
            // (last_cwnd_action_ == CWND_ACTION_TIMEOUT) its ACK's ECN-echo (the
            // ECN negotiation) halves the window too: cong_action_ on the next packet
            self.ns2_ecn(pkt);
        }
        if self.syn_retx {
            // RFC 5681 section 3.1 / RFC 6298 section 5.7: after a lost SYN or SYN-ACK
            // the initial window is one segment and the RTO restarts from its initial value.
            // (ns-2 without delay_growth_: cwnd_ stays where the timeout put it.)
            if !self.opening_with_data() {
                self.w.cwnd = self.p.iw_after_syn_loss as f64 * self.w.mss;
            }
            if let Some(s) = self.p.ssthresh_after_syn_loss {
                self.w.ssthresh = s as f64;
            } else if self.rules.ssthresh_two_segments_after_syn_loss {
                // ns-2 tcp.cc timeout -> slowdown(CLOSE_SSTHRESH_HALF): half of
                // min(cwnd_ 1, window_), at least 2 packets.
                self.w.ssthresh = 2.0 * self.w.mss;
            }
            // ns-2 keeps t_backoff_ until a timed segment is acknowledged (newack).
            if !self.rules.backoff_kept_after_syn_loss {
                self.rtt.reset_backoff();
            }
            if self.ns2_timestamps() {
                // newack with ts_option_: a sample from the echo all the same
                self.ns2_ts_new_ack(h, now, false);
            }
        } else if self.ns2_timestamps() {
            self.note_newack_rto();
            self.ns2_ts_new_ack(h, now, true);
        } else {
            self.note_newack_rto();
            // a measurement left running by a reset (reset.rs) times from its send
            let t0 = self.timed.take().map_or(self.syn_sent_at, |(_, t)| t);
            self.rtt.sample_at(t0, now);
        }
        if self.opening_with_data() {
            // ns-2 recv -> recv_newack_helper -> opencwnd() for packet 0's ACK, with no
            // `cwnd_ = initial_window()` after it (delay_growth_ false)
            let mss = self.mss();
            crate::tcp::cc::reno::aimd_increase(&mut self.w, mss);
        }
        self.ns2_qoption_after_ack(h.ack);
        self.establish(cx);
    }

    /// RTT for the retransmission timer: every ACK with timestamps (RFC 7323 section 4), else
    /// the timed segment (Karn's rule: never a retransmitted one).
    /// Called for each new ACK: ns-2's `ecn_backoff_` ends on one without ECN-echo
    /// (tcp.cc `recv_newack_helper`), and the timed segment's ACK keeps the timer's backoff
    /// while it carries ECN-echo with `ecn_backoff_` (tcp.cc `newack`: "Don't end backoff if
    /// still in ECN-Echo with a congestion window of 1 packet").
    pub(super) fn take_rtt_sample(&mut self, h: &TcpHeader, ack: u64, now: SimTime) {
        self.note_newack_rto();
        self.ns2_note_new_ack(ack);
        let ece = self.p.ecn && h.flags & F::ECE != 0;
        if self.ns2_timestamps() {
            let timed = self.timed.is_some_and(|(end, _)| ack >= end);
            self.ns2_ts_new_ack(h, now, timed);
        } else if self.p.timestamps {
            self.rtt.sample(now.saturating_sub(h.ts_echo));
        } else if let Some((end, t0)) = self.timed {
            if ack >= end {
                let backoff = self.rtt.backoff();
                self.rtt.sample_at(t0, now);
                if self.ecn_backoff && ece {
                    self.rtt.restore_backoff(backoff);
                } else {
                    self.ecn_backoff = false;
                }
                self.timed = None;
            }
        }
        if !ece {
            self.ecn_backoff = false;
        }
    }
}
