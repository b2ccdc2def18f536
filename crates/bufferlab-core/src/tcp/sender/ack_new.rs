//! A new cumulative ACK (snd_una < ack <= snd_max).
//!
//! * The window grows by the controller's rule outside recovery; with a controller that reads
//!   the extent of marking (RFC 8257 DCTCP, RFC 9331 Prague) ECE ACKs grow it too, outside the
//!   round after an ECN reduction (Linux `tcp_may_raise_cwnd`, the CWR state).
//! * In recovery: Reno's first new ACK ends it (RFC 5681 section 3.2 step 6); a full ACK ends
//!   NewReno's (RFC 6582 section 3.2 step 3) and SACK recovery (RFC 6675 section 5); a
//!   partial ACK retransmits the next hole and deflates the window (RFC 6582 section 3.2
//!   step 4), or, with SACK, the pipe decides.
//! * ns-2.35's agents: tcp-reno.cc `recv` (any new ACK ends fast recovery, `dupwnd_ = 0`),
//!   tcp-newreno.cc `recv` / `partialnewack` (`partial_window_deflation_`,
//!   `newreno_changes1_`, `exit_recovery_fix_`), tcp-vegas.cc `recv`, tcp.cc
//!   `recv_newack_helper` (no `opencwnd()` on an ECN echo: `ns2_ecn_recovery.rs`).
//! * The retransmission timer: restarted while data is outstanding, else stopped (RFC 6298
//!   sections 5.2 and 5.3; ns-2 `newtimer` also while cwnd_ < 1 and for Vegas).

use super::TcpSender;
use crate::endpoint::EndpointCtx;
use crate::packet::Packet;
use crate::tcp::cc::{Ack, Recovery};
use crate::tcp::config::CcKind;

impl TcpSender {
    /// A new cumulative ACK (snd_una < ack <= snd_max): the RTT sample, the sequence space,
    /// the controller's ECN extent, the window (`new_ack_window`), the ns-2 agents' per-ACK
    /// rules, the retransmission timer (RFC 6298 sections 5.2 and 5.3).
    #[inline]
    pub(super) fn on_new_ack(
        &mut self,
        pkt: &Packet,
        ack: u64,
        ece: bool,
        extent: bool,
        cx: &mut EndpointCtx,
    ) {
        let h = &pkt.tcp;
        let now = cx.now;
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
        // ns-2 NewReno with newreno_changes1_: a partial ACK after the first leaves the
        // retransmission timer running.
        let keep_timer = self.new_ack_window(ack, dupacks_before, ecn_opens, extent, &info, cx);
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
    }

    /// The window on a new ACK: recovery ends (full ACK, or any new ACK for Reno and ns-2's
    /// Reno and Vegas agents), goes on (a partial ACK: `newreno_partial_ack`; with SACK the
    /// pipe decides), or the window grows. Returns whether the retransmission timer is left
    /// running (ns-2 NewReno's `newreno_changes1_`).
    #[inline]
    fn new_ack_window(
        &mut self,
        ack: u64,
        dupacks_before: u32,
        ecn_opens: bool,
        extent: bool,
        info: &Ack,
        cx: &mut EndpointCtx,
    ) -> bool {
        let now = cx.now;
        let acked = info.acked;
        let mut keep_timer = false;
        if self.in_recovery {
            let ns2_exit = !self.p.sack
                && ((self.ns2_aimd() && self.cc.recovery() == Recovery::Reno) || self.ns2_vegas());
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
                    self.grow(info);
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
                        self.grow(info);
                    }
                } else {
                    self.cc.on_recovery_exit(&mut self.w, now);
                }
            } else if self.p.sack {
                // RFC 6675: partial ACKs keep recovery going; the pipe decides.
            } else if self.cc.recovery() == Recovery::NewReno {
                keep_timer = self.newreno_partial_ack(acked, cx);
            } else {
                // Reno: the first new ACK ends recovery (RFC 5681 section 3.2 step 6).
                self.in_recovery = false;
                self.cc.on_recovery_exit(&mut self.w, now);
            }
        } else if (extent && self.may_grow_after_ecn(ack)) || (!extent && ecn_opens) {
            self.grow(info);
        }
        keep_timer
    }

    /// A partial ACK in NewReno's fast recovery (RFC 6582 section 3.2 step 4): the next hole
    /// is retransmitted and the window deflated (ns-2's `partial_window_deflation_`).
    /// Returns whether the retransmission timer is left running.
    #[inline]
    fn newreno_partial_ack(&mut self, acked: u64, cx: &mut EndpointCtx) -> bool {
        let mss = self.mss();
        let mut keep_timer = false;
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
        keep_timer
    }
}
