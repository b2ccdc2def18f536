//! The retransmission timer: arming it and its expiry.
//!
//! * Arming: RFC 6298 section 5.1 (started when not running), 5.2-5.3 on new ACKs; ns-2.35
//!   tcp.cc `set_rtx_timer` (`resched(rtt_timeout())`, the deadline also kept in ns-2's
//!   doubles, which key the timer's event) and `newack` -> `newtimer` (with `timerfix_` after
//!   the ACK's RTT sample, without it with the RTO the ACK found).
//! * Expiry: RFC 6298 sections 5.4-5.6 (retransmit, back off), RFC 5681 section 3.1 (equation
//!   4, the loss window), go back N; RFC 6582 section 3.2 step 1 (recover = HighData); RFC
//!   2018 section 8 (the SACK information is not trusted: cleared; ns-3 `SetSentListLost`
//!   keeps it, every unSACKed byte lost, `CA_LOSS`); the SYN's timeout (RFC 6298 section 5.5,
//!   RFC 9293 section 3.8.1).
//! * ns-2.35 tcp.cc `timeout()`: `trace_event("TIMEOUT")`, `slowdown` (ssthresh_ kept inside
//!   an ECN reduction's window), `dupacks_` kept by Agent/TCP, cleared by
//!   `RenoTcpAgent::timeout`; with nothing outstanding and cwnd_ below one packet,
//!   `slowdown(CLOSE_CWND_ONE|NO_OUTSTANDING_DATA)` and `reset_rtx_timer(0, 0)`; `newtimer`
//!   keeps the timer while cwnd_ < 1; tcp-vegas.cc `timeout` (an idle agent times out too).

use super::{State, TcpSender};
use crate::endpoint::EndpointCtx;
use crate::tcp::config::CcKind;
use crate::units::SimTime;

impl TcpSender {
    /// Arms the retransmission timer at now + RTO; under ns-2's estimator its deadline is
    /// also kept as ns-2's double (tcp.cc `set_rtx_timer`: `resched(rtt_timeout())`), which
    /// keys the timer's event (`next_timeout_s`).
    pub(super) fn arm_rto(&mut self, now: SimTime) {
        // ns-2's RTO once: `rto()` is it rounded to picoseconds
        let rto_s = self.rtt.rto_s();
        let rto = rto_s.map_or_else(|| self.rtt.rto(), SimTime::from_secs_f64);
        self.arm_rto_for(now, rto, rto_s);
    }

    /// Arms the timer at now + `rto` (`rto_s`: the same in ns-2's doubles, if any).
    pub(super) fn arm_rto_for(&mut self, now: SimTime, rto: SimTime, rto_s: Option<f64>) {
        let at = now + rto;
        self.rto_at = Some(at);
        // now_s is the handled event's; a call from outside one (a script's command) has none
        let fresh = SimTime::from_secs_f64(self.now_s).0.abs_diff(now.0) <= 1;
        self.rto_at_s = rto_s.filter(|_| fresh).map(|d| (at, self.now_s + d));
    }

    /// The timer a new ACK restarts (tcp.cc `newack` -> `newtimer`): with `timerfix_` after
    /// the ACK's RTT sample (the current RTO), without it with the RTO the ACK found.
    pub(super) fn arm_newack_rto(&mut self, now: SimTime) {
        match self.newack_rto {
            Some((rto, rto_s)) => self.arm_rto_for(now, rto, rto_s),
            None => self.arm_rto(now),
        }
    }

    /// Before a new ACK's RTT sample: keeps the RTO for `newtimer` when `timerfix_` is off
    /// (tcp.cc `newack`: `if (!timerfix_) newtimer(pkt)` comes first).
    pub(super) fn note_newack_rto(&mut self) {
        if !self.p.ns2.timerfix && self.rtt.is_ns2() {
            self.newack_rto = Some((self.rtt.rto(), self.rtt.rto_s()));
        }
    }

    /// ns-2 tcp.cc `newtimer`: the timer also runs with nothing outstanding while cwnd_ < 1
    /// ("we can't send another packet until the retransmit timer again expires").
    pub(super) fn ns2_window_below_one(&self) -> bool {
        self.ns2_aimd() && self.w.cwnd < self.w.mss
    }

    /// ns-2's Vegas agent times out with nothing outstanding too: tcp.cc newtimer() rearms
    /// the timer on every new ACK (`t_seqno_ > seqno` holds), and tcp-vegas.cc timeout()
    /// returns early only without `slow_start_restart_`. So a window closed to 0
    /// (`v_newcwnd_` 0 after a timeout) reopens at 2 an RTO after the last ACK, and an idle
    /// agent's timer keeps firing, backed off each time.
    pub(super) fn vegas_idle_timeout(&self) -> bool {
        self.ns2_vegas() && self.p.slow_start_restart
    }

    pub(super) fn on_rto(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
        self.rto_at = None;
        // tcp.cc timeout(TCP_TIMER_RTX): trace_event("TIMEOUT") first; every branch below
        // but an idle one without slow_start_restart_ then calls slowdown, which leaves cwnd_
        // at 1 (CLOSE_CWND_RESTART with wnd_restart_ 1, or CLOSE_CWND_ONE): SLOW_START.
        self.ns2_event(now, "TIMEOUT");
        let idle = self.snd_max <= self.snd_una && self.state != State::SynSent;
        if !idle || self.p.slow_start_restart {
            let slow_start = self.ns2_in_slow_start();
            self.ns2_slowdown_event(now, slow_start, 1.0);
        }
        if self.state == State::SynSent {
            // RFC 6298 section 5.5 applies to the SYN too; RFC 9293 section 3.8.1.
            self.stats.syn_retransmits += 1;
            self.syn_retx = true;
            // tcp.cc timeout() -> slowdown() for packet 0 too, and last_cwnd_action_ =
            // CWND_ACTION_TIMEOUT (read by ecn())
            self.note_ns2_cong_action();
            self.last_action_timeout |= self.ns2_aimd();
            self.rtt.back_off();
            if self.opening_with_data() {
                // tcp.cc timeout: cwnd_ = wnd_restart_ (1), t_seqno_ = highest_ack_ + 1 (0):
                // packet 0 goes again, alone
                self.w.cwnd = self.w.mss;
                self.snd_nxt = self.snd_una;
                self.timed = None;
            }
            if self.jitter.is_some() {
                // reset_rtx_timer, then send_much through the delayed-send timer
                self.rto_at = Some(now + self.rtt.rto());
            }
            self.open(cx);
            return;
        }
        if self.lx.is_some() && self.snd_max > self.snd_una {
            return self.on_rto_ns2_linux(cx);
        }
        // ns-2 RenoTcpAgent::timeout: dupwnd_ = 0 before TcpAgent::timeout (exitFastRetrans_)
        self.ns2_end_dupwnd(None);
        // tcp.cc timeout: frto_ = 0, pipe_prev_ = max(window(), ssthresh_)
        self.ns2_frto_timeout_start();
        let sack1_recovery = self.ns2_sack1() && self.in_recovery;
        if self.snd_max <= self.snd_una && self.ns2_window_below_one() {
            return self.ns2_idle_timeout_below_one(cx);
        }
        if self.snd_max <= self.snd_una && !self.vegas_idle_timeout() {
            return;
        }
        // RFC 6298 section 5.4-5.6, RFC 5681 section 3.1 (equation 4, loss window).
        self.stats.timeouts += 1;
        self.note_ns2_cong_action();
        // tcp.cc timeout(): inside the window of an ECN reduction (highest_ack_ < recover_,
        // last_cwnd_action_ == CWND_ACTION_ECN) only slowdown(CLOSE_CWND_ONE): ssthresh_ stays.
        // timeout() sets `recover_ = maxseq_` just before that test (tcp-sack1.cc's timeout
        // too), so it asks only whether data is outstanding, not whether the ECN's own
        // recovery point is still ahead (red gentleEcn1: a timeout at 16.99 s after the
        // ECN reduction's window was acknowledged keeps ssthresh_ 3)
        let ecn_window = self.ns2_aimd() && self.last_action_ecn && self.snd_una < self.snd_max;
        let ssthresh_before = self.w.ssthresh;
        self.last_action_timeout = true;
        self.last_action_ecn = false;
        let ns3 = self.ns3_sack();
        // ns-3 ReTxTimeout: ssthresh from BytesInFlight() before the timeout (the pipe).
        let flight = if ns3 { self.pipe_ns3() } else { self.flight() };
        let ns2_ssthresh = self.ns2_half_ssthresh();
        self.cc.on_timeout(&mut self.w, flight, now);
        if ecn_window {
            self.w.ssthresh = ssthresh_before;
        } else if self.ns2_aimd() || self.ns2_vegas() {
            // tcp.cc timeout -> slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART) (Reno) and
            // tcp-vegas.cc timeout: ssthresh_ = int(min(cwnd_, window_)/2), not FlightSize/2.
            self.w.ssthresh = ns2_ssthresh;
        }
        self.in_recovery = false;
        self.rto_since_reduction = true;
        // tcp.cc timeout: frto_ = 1 after the slowdown (not after Sack1's fast recovery)
        self.ns2_frto_timeout_end(sack1_recovery);
        self.vegas_on_timeout(cx.now_s);
        // ns-2 tcp.cc timeout() keeps dupacks_ (Agent/TCP); RenoTcpAgent::timeout clears it.
        if !(self.rules.tahoe_timeout_keeps_dupacks
            && self.ns2_aimd()
            && self.p.cc == CcKind::Tahoe)
        {
            self.dupacks = 0;
        }
        // ns-2 Sack1 timeout(): timeout_ = TRUE, duplicate ACKs are ignored until a new ACK.
        self.sack1_timeout = self.ns2_sack1();
        self.recover = self.snd_max; // RFC 6582 section 3.2 step 1 after a timeout
        self.rack_stop_probe(true);
        self.high_rxt = self.snd_una;
        self.rtt.back_off();
        self.timed = None;
        if ns3 {
            // ns-3 SetSentListLost(false): the scoreboard stays, every unSACKed byte is lost.
            self.in_loss = true;
            self.in_cwr = false; // CA_CWR -> CA_LOSS
            self.first_partial = true;
            self.retx.clear(); // SetSentListLost: m_retrans = 0
            self.head_lost_until = 0;
        } else if self.rules.timeout_keeps_sack && self.rack_on() {
            // Linux tcp_enter_loss -> tcp_timeout_mark_lost: the scoreboard stays, what it
            // does not hold is lost, and the Loss state resends it (sender/rack_tlp.rs)
            self.in_loss = true;
            self.rack_mark_lost_at_timeout(now);
        } else {
            // RFC 2018 section 8: after a timeout the SACK information is not trusted.
            self.sb.clear();
        }
        if !self.in_loss || self.ns3_sack() {
            self.snd_nxt = self.snd_una; // go back N (ns-2 t_seqno_ = highest_ack_ + 1)
        }
        self.send_data(cx);
        if self.rto_at.is_none() {
            self.arm_rto(now);
        }
    }

    /// ns-2 tcp.cc `timeout()` with nothing outstanding and cwnd_ below one packet (an ECN
    /// echo halved a window of one, `newtimer` kept the timer): cwnd_ = 1; with
    /// `slow_start_restart_` `recover_ = maxseq_` and `slowdown(CLOSE_CWND_ONE|
    /// NO_OUTSTANDING_DATA)` (cong_action_ set); `reset_rtx_timer(0, 0)` (no backoff),
    /// `last_cwnd_action_ = CWND_ACTION_TIMEOUT`, then `send_much`.
    pub(super) fn ns2_idle_timeout_below_one(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
        self.w.cwnd = self.w.mss;
        if self.p.slow_start_restart {
            self.recover = self.snd_max;
            self.note_ns2_cong_action();
        }
        self.last_action_timeout = true;
        self.last_action_ecn = false;
        self.timed = None;
        self.snd_nxt = self.snd_una;
        self.arm_rto(now);
        // the restart is this timeout's, not RFC 5681's idle rule (next_new_segment)
        self.last_send = now;
        self.send_data(cx);
    }
}
