//! TODO

use super::{ns2_packet0_end, State, TcpSender, F};
use crate::endpoint::EndpointCtx;
use crate::packet::{Packet, TcpHeader};
use crate::tcp::cc::{Ack, Recovery};
use crate::tcp::config::{CcKind, UNLIMITED};
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

    pub(super) fn on_ack_inner(&mut self, pkt: &Packet, cx: &mut EndpointCtx) {
        let h = &pkt.tcp;
        let now = cx.now;
        let last_ack = self.snd_una;
        self.stats.acks_received += 1;
        if self.state == State::SynSent {
            if h.flags & F::SYN != 0 && h.flags & F::ACK != 0 {
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
            let lost = self.rack_on_ack(ack, now, newly_sacked > 0);
            self.linux_prr_set_newly_lost(lost);
        }
        let ece = self.ack_ece(pkt);
        let extent = self.ecn_extent();
        if ack > self.snd_una && ack <= self.snd_max {
            let acked = ack - self.snd_una;
            let flight_before = self.flight();
            let fine_rtt = now.saturating_sub(h.ts_echo);
            self.take_rtt_sample(h, ack, now);
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            self.sb.advance(ack);
            let dupacks_before = self.dupacks;
            self.dupacks = 0;
            // ns-2 exitFastRetrans_ false: dupwnd_ = 0 outside fast recovery too.
            self.ns2_end_dupwnd(Some(ack));
            // ns-2 tcp-vegas.cc recv: the inflated window falls before the new-ACK rules.
            self.vegas_deflate(dupacks_before);
            // ns-2 NewReno with newreno_changes1_: a partial ACK after the first leaves the
            // retransmission timer running.
            let mut keep_timer = false;
            // ns-2's Vegas averages the RTT of each round from its own send-time table
            // (tcp-vegas.cc recv: v_sendtime_[seqno], if sent once), not from the echo
            let vegas_sample = (self.ns2_vegas() && self.vegas_loss.is_some())
                .then(|| self.vegas_rtt_sample(cx.now_s));
            let info = Ack {
                now,
                acked,
                flight_before,
                snd_una: ack,
                snd_nxt: self.snd_nxt.max(self.snd_max),
                next_to_send: self.snd_nxt,
                clock_s: match &self.vegas_loss {
                    Some(v) if self.ns2_vegas() => v.clock(cx.now_s),
                    _ => cx.now_s,
                },
                rtt: Some(fine_rtt),
                ack_rtt: self.rack.as_ref().and_then(|r| r.rack.ack_rtt()),
            };
            if extent {
                let marked = self.marked_bytes(acked, ece);
                self.ecn_marked_bytes += marked;
                self.cc.on_ecn_ack(&self.w, acked, marked, &info);
            }
            // ns-2 recv_newack_helper (not NewReno's partial ACKs): old_ecn_, ecn_burst_
            let newreno_partial = self.in_recovery
                && !self.p.sack
                && self.cc.recovery() == Recovery::NewReno
                && !self.ns2_newreno_full_ack(ack);
            let ecn_opens = newreno_partial || self.ns2_ecn_opens(ece);
            if self.in_recovery {
                let ns2_exit = !self.p.sack
                    && ((self.ns2_aimd() && self.cc.recovery() == Recovery::Reno)
                        || self.ns2_vegas());
                if ns2_exit {
                    // ns-2 tcp-reno.cc recv: any new ACK, partial or full, ends recovery;
                    // dupwnd_ = 0 leaves cwnd_ at the halved window, then recv_newack_helper
                    // opens it (opencwnd). tcp-vegas.cc recv: the window falls to v_newcwnd_
                    // only if it was inflated past the third duplicate, then the per-ACK
                    // Vegas rules run.
                    self.in_recovery = false;
                    if self.p.cc == CcKind::Vegas {
                        if dupacks_before > self.p.dupack_threshold {
                            self.cc.on_recovery_exit(&mut self.w, now);
                        }
                    } else {
                        self.w.cwnd = self.ns2_base;
                    }
                    // recv_newack_helper: no opencwnd() on an ECN echo (ns2_ecn_recovery.rs)
                    if ecn_opens || self.p.cc == CcKind::Vegas {
                        self.grow(&info);
                    }
                } else if self.ns2_newreno_full_ack(ack) {
                    // Full ACK: RFC 5681 section 3.2 step 6, RFC 6582 section 3.2 step 3,
                    // RFC 6675 section 5 (leave when RecoveryPoint is acknowledged).
                    self.in_recovery = false;
                    if self.rules.recovery_exit_keeps_reduced_window
                        && self.ns2_aimd()
                        && !self.p.sack
                        && self.cc.recovery() == Recovery::NewReno
                    {
                        // ns-2 tcp-newreno.cc recv (exit_recovery_fix_ 0): dupwnd_ = 0 leaves
                        // cwnd_, then recv_newack_helper opens it (opencwnd) unless the ACK
                        // echoes ECN (ns2_ecn_recovery.rs).
                        self.ns2_newreno_exit(ack);
                        if ecn_opens {
                            self.grow(&info);
                        }
                    } else {
                        self.cc.on_recovery_exit(&mut self.w, now);
                    }
                } else if self.p.sack {
                    // RFC 6675: partial ACKs keep recovery going; the pipe decides.
                } else if self.cc.recovery() == Recovery::NewReno {
                    // RFC 6582 section 3.2 step 4: retransmit the next hole, deflate by the
                    // amount acknowledged, add back one SMSS if at least one was acknowledged.
                    let first = !std::mem::replace(&mut self.partial_seen, true);
                    if self.rules.partial_ack_restarts_timer_once {
                        // ns-2 partialnewack_helper: newtimer() for the first partial ACK only;
                        // output() of the hole leaves a pending timer alone.
                        self.resend_head(cx);
                        keep_timer = !first && self.p.ns2.newreno_changes1;
                    } else {
                        self.retransmit_head(cx);
                    }
                    if self.ns2_aimd() && !self.p.ns2.partial_window_deflation {
                        // ns-2 tcp-newreno.cc recv with partial_window_deflation_ 0:
                        // dupwnd_ = 0, cwnd_ kept.
                        self.w.cwnd = self.ns2_base;
                    } else if self.rules.partial_ack_deflates_inflation_first && self.ns2_aimd() {
                        // ns-2 partialnewack (partial_window_deflation_): off dupwnd_ first,
                        // off cwnd_ past it; dupwnd_ keeps one packet; cwnd_ at least 1.
                        let deflate = acked as f64;
                        let mut dupwnd = self.w.cwnd - self.ns2_base;
                        if dupwnd > deflate {
                            dupwnd -= deflate - self.w.mss;
                        } else {
                            self.ns2_base -= deflate - dupwnd;
                            dupwnd = self.w.mss;
                        }
                        self.ns2_base = self.ns2_base.max(self.w.mss);
                        self.w.cwnd = self.ns2_base + dupwnd;
                    } else {
                        self.w.cwnd = (self.w.cwnd - acked as f64).max(self.w.mss);
                        if acked >= mss {
                            self.w.cwnd += self.w.mss;
                        }
                    }
                } else {
                    // Reno: the first new ACK ends recovery (RFC 5681 section 3.2 step 6).
                    self.in_recovery = false;
                    self.cc.on_recovery_exit(&mut self.w, now);
                }
            } else if (extent && self.may_grow_after_ecn(ack)) || (!extent && ecn_opens) {
                self.grow(&info);
            }
            if self.ns2_aimd() {
                self.ns2_frto_new_ack(ack - acked); // recv_newack_helper (tcp.cc)
            }
            if let Some(sample) = vegas_sample {
                self.cc.ns2_vegas_rtt_sample(sample);
            }
            if self.vegas_loss.is_some() {
                self.vegas_on_new_ack(ack - acked, cx);
            }
            // RFC 6298 sections 5.2 and 5.3.
            if !keep_timer {
                if self.snd_max > self.snd_una
                    || self.vegas_idle_timeout()
                    || self.ns2_window_below_one()
                {
                    self.arm_newack_rto(now);
                } else {
                    self.rto_at = None;
                }
            }
            self.check_app_progress(now);
        } else if ack == self.snd_una
            && (self.snd_max > self.snd_una || self.rules.dupack_without_data_outstanding)
            && pkt.payload == 0
        {
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
                return self.after_ack(cx);
            }
            self.dupacks += 1;
            if self.vegas_loss.is_some() {
                // ns-2 tcp-vegas.cc recv; send_much only if dupacks_ is 0 or >= numdupacks_.
                self.vegas_on_dupack(cx);
                if self.dupacks < self.p.dupack_threshold {
                    return;
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
                let lost =
                    self.p.sack && self.sb.is_lost(self.snd_una, self.p.dupack_threshold, mss);
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
                    return;
                }
            }
        }
        if self.rack_on() {
            // tcp_fastretrans_alert -> tcp_time_to_recover: something is marked lost
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
