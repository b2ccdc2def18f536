//! RACK-TLP in the RFC 6675 sender (rule and option `rack_tlp`, on in the `linux` preset;
//! `tcp/flavour/linux.rs`), as Linux runs it: RFC 8985 and `net/ipv4/tcp_recovery.c`,
//! `tcp_input.c`, `tcp_output.c`. The loss detection itself is `tcp/rack.rs`.
//!
//! * Every ACK updates RACK with what it delivered and marks lost what RACK says
//!   (`tcp_rack_mark_lost` from `tcp_identify_packet_loss`); a loss whose time is still ahead
//!   sets the reordering timer, at that time + 2 ms (`TCP_TIMEOUT_MIN`), whose expiry marks
//!   again and, if something was lost, enters recovery and retransmits
//!   (`tcp_rack_reo_timeout`).
//! * Fast recovery starts when any segment is marked lost (`tcp_time_to_recover`: `lost_out`;
//!   with RACK the duplicate-ACK count no longer decides, RFC 8985 section 6.2 step 4 gives
//!   DupThresh back through a zero reordering window). In recovery the pipe is Linux's
//!   `tcp_packets_in_flight` (sent - SACKed - lost + retransmitted) and the segments sent are
//!   the lost ones first, then new data (`tcp_xmit_retransmit_queue`; no RFC 6675 rule 3). A
//!   retransmission marked lost again is sent again without waiting for the RTO.
//! * The tail loss probe (RFC 8985 section 7, `tcp_schedule_loss_probe`): while not in
//!   recovery or after a timeout, with data in flight, each new-data send and each ACK that
//!   advances snd_una sets the probe timer to PTO = 2 SRTT, plus 200 ms (`TCP_RTO_MIN`, the
//!   RFC's WCDelAckT) when one segment is in flight, else plus 2 ms (`TCP_TIMEOUT_MIN`); 1 s
//!   before any RTT sample (`TCP_TIMEOUT_INIT`); never later than the RTO. At expiry
//!   (`tcp_send_loss_probe`): one new segment if the receive window and the data allow,
//!   whatever cwnd says, else the highest segment sent again; one probe at a time
//!   (`tlp_high_seq`), the RTO restarted from then.
//! * The probe's ACK (`tcp_process_tlp_ack`): an ACK above `tlp_high_seq` after a probe that
//!   was a retransmission means the probe repaired a loss: cwnd = ssthresh from the controller
//!   (`tcp_init_cwnd_reduction`, `tcp_end_cwnd_reduction` in CWR); a duplicate ACK that
//!   delivers nothing, or a D-SACK of the probe (`FLAG_DSACK_TLP`, `sender/dsack_undo.rs`),
//!   means both copies arrived (no reduction).
//!
//! Simplifications: Linux keeps one timer for RTO, reordering and probe (`icsk_pending`);
//! here they are three, the RTO keeping its own deadline (the probe's is never later).

use super::TcpSender;
use crate::endpoint::EndpointCtx;
use crate::packet::tcp_flags as F;
use crate::tcp::rack::Rack;
use crate::units::SimTime;

/// Linux `TCP_TIMEOUT_MIN` (2 jiffies at HZ=1000), added to the reordering timer and to a
/// probe timeout with more than one segment in flight.
const TIMEOUT_MIN: SimTime = SimTime::from_millis(2);
/// Linux `TCP_RTO_MIN` (RFC 8985's WCDelAckT) added to the probe timeout with one segment out.
const WC_DEL_ACK: SimTime = SimTime::from_millis(200);
/// Linux `TCP_TIMEOUT_INIT`: the probe timeout before any RTT sample.
const PTO_INIT: SimTime = SimTime::from_secs(1);

/// RACK and TLP state of one sender.
#[derive(Debug, Clone, Default)]
pub(super) struct RackTlp {
    pub(super) rack: Rack,
    reo_at: Option<SimTime>,
    tlp_at: Option<SimTime>,
    /// `tp->tlp_high_seq`: snd_nxt when the outstanding probe left.
    tlp_high_seq: Option<u64>,
    /// `tp->tlp_retrans`: the outstanding probe was a retransmission.
    tlp_retrans: bool,
    /// Probes sent (Linux `LINUX_MIB_TCPLOSSPROBES`).
    pub(super) probes: u64,
    /// Losses repaired by a probe (`LINUX_MIB_TCPLOSSPROBERECOVERY`).
    pub(super) probe_recoveries: u64,
    /// Start of the highest segment sent (the probe's retransmission, `skb_rb_last`).
    last_start: Option<u64>,
    /// Linux's undo state and D-SACK counters (`sender/dsack_undo.rs`).
    pub(super) undo: super::dsack_undo::Undo,
}

impl TcpSender {
    /// The pipe in recovery: Linux's `tcp_packets_in_flight` with RACK-TLP, else RFC 6675's
    /// `SetPipe`.
    pub(super) fn recovery_pipe(&self) -> u64 {
        match &self.rack {
            Some(r) => r.rack.pipe(),
            None => self.sb.pipe(
                self.snd_una,
                self.snd_max,
                self.high_rxt,
                self.p.dupack_threshold,
                self.mss(),
            ),
        }
    }

    /// RACK-TLP runs for this connection.
    pub(super) fn rack_on(&self) -> bool {
        self.rack.is_some()
    }

    /// Its timers, for `next_timeout`.
    pub(super) fn rack_timers(&self) -> [Option<SimTime>; 2] {
        self.rack
            .as_ref()
            .map_or([None, None], |r| [r.reo_at, r.tlp_at])
    }

    /// A data segment left (from `emit`).
    pub(super) fn rack_sent(&mut self, seq: u64, len: u64, now: SimTime, retx: bool) {
        let Some(r) = self.rack.as_mut() else { return };
        r.rack.on_send(seq, seq + len, now, retx);
        if !retx {
            r.last_start = Some(seq);
            self.tlp_arm(now);
        }
    }

    /// An ACK, after its SACK blocks entered the scoreboard and before snd_una moves: RACK's
    /// update (with the reordering window's D-SACK rounds), the probe's ACK, loss marking.
    /// Returns whether it marked bytes newly lost.
    pub(super) fn rack_on_ack(
        &mut self,
        ack: u64,
        now: SimTime,
        sacked_new: bool,
        dsack_tlp: bool,
    ) -> bool {
        let advanced = ack > self.snd_una && ack <= self.snd_max;
        let una = if advanced { ack } else { self.snd_una };
        let snd_max = self.snd_max;
        let Some(r) = self.rack.as_mut() else {
            return false;
        };
        let sb = &self.sb;
        r.rack
            .on_ack(una, |a, b| sb.sacked_between(a, b) == b - a, now);
        r.rack.update_reo_wnd(una, snd_max);
        self.tlp_on_ack(ack, advanced, sacked_new, dsack_tlp, now);
        self.rack_detect(now) > 0
    }

    /// The Loss state after a timeout (`tcp_timeout_mark_lost`, rule `timeout_keeps_sack`).
    pub(super) fn rack_mark_lost_at_timeout(&mut self, now: SimTime) {
        if let Some(r) = self.rack.as_mut() {
            r.rack.mark_lost_at_timeout(now);
        }
    }

    /// The Loss state ends when the data sent before the timeout is acknowledged
    /// (`tcp_process_loss`: `!before(tp->snd_una, tp->high_seq)`).
    pub(super) fn rack_loss_state(&mut self) -> bool {
        if self.in_loss && self.rack_on() && self.snd_una >= self.recover {
            self.in_loss = false;
        }
        self.in_loss && self.rack_on()
    }

    /// `tcp_rack_mark_lost`: marks what RACK holds lost, sets the reordering timer.
    fn rack_detect(&mut self, now: SimTime) -> u64 {
        let mss = self.mss();
        let sacked = self.sb.sacked_bytes().div_ceil(mss.max(1));
        let srtt = self.rtt.srtt().map_or(SimTime::MAX, SimTime::from_secs_f64);
        // tcp_rack_reo_wnd: icsk_ca_state >= TCP_CA_Recovery (Recovery or Loss)
        let recovery = self.in_recovery || (self.in_loss && self.rack_on());
        let dt = self.p.dupack_threshold;
        let Some(r) = self.rack.as_mut() else {
            return 0;
        };
        let wnd = r.rack.reo_wnd(recovery, sacked, dt, srtt);
        let (lost, timer) = r.rack.detect_loss(now, wnd);
        r.reo_at = timer.map(|t| t + TIMEOUT_MIN);
        lost
    }

    /// `tlp_high_seq`, while a probe is outstanding.
    pub(super) fn tlp_high_seq(&self) -> Option<u64> {
        self.rack.as_ref().and_then(|r| r.tlp_high_seq)
    }

    /// `tcp_process_tlp_ack`.
    fn tlp_on_ack(
        &mut self,
        ack: u64,
        advanced: bool,
        sacked_new: bool,
        dsack_tlp: bool,
        now: SimTime,
    ) {
        let Some(r) = self.rack.as_mut() else { return };
        let Some(high) = r.tlp_high_seq else { return };
        if ack < high {
            return;
        }
        if !r.tlp_retrans {
            r.tlp_high_seq = None; // a probe of new data was acknowledged
        } else if dsack_tlp {
            r.tlp_high_seq = None; // a D-SACK for the probe: original and probe both arrived
        } else if ack > high {
            // the probe repaired a loss: a window reduction (CWR), cwnd = ssthresh
            r.tlp_high_seq = None;
            r.probe_recoveries += 1;
            let flight = self.flight();
            self.w.ssthresh = self.cc.ssthresh_on_loss(&self.w, flight, now);
            self.w.cwnd = self.w.ssthresh;
        } else if !advanced && !sacked_new {
            r.tlp_high_seq = None; // a pure duplicate: original and probe both arrived
        }
    }

    /// Enters recovery when RACK has marked something lost (`tcp_time_to_recover`), outside
    /// the window of an earlier recovery or timeout.
    pub(super) fn rack_maybe_recover(&mut self, cx: &mut EndpointCtx) {
        if self.in_recovery || self.snd_una <= self.recover {
            return;
        }
        if self.rack.as_ref().is_some_and(|r| r.rack.any_lost()) {
            self.enter_recovery(cx);
        }
    }

    /// Whether the fast retransmission at recovery entry should send the head (with RACK:
    /// only if it is marked lost; the send loop then sends the others).
    pub(super) fn rack_head_lost(&self) -> bool {
        self.rack
            .as_ref()
            .is_none_or(|r| r.rack.is_lost(self.snd_una))
    }

    /// Entering recovery or a timeout stops the probe timer.
    pub(super) fn rack_stop_probe(&mut self, timeout: bool) {
        if let Some(r) = self.rack.as_mut() {
            r.tlp_at = None;
            if timeout {
                r.tlp_high_seq = None;
                r.reo_at = None;
            }
        }
        if timeout {
            self.undo_forget();
        }
    }

    /// `tcp_schedule_loss_probe`.
    pub(super) fn tlp_arm(&mut self, now: SimTime) {
        let open = !self.in_recovery && self.snd_una >= self.recover;
        let flight = self.snd_max.saturating_sub(self.snd_una);
        let pto = match self.rtt.srtt() {
            Some(s) => {
                let extra = if flight <= self.mss() {
                    WC_DEL_ACK
                } else {
                    TIMEOUT_MIN
                };
                SimTime::from_secs_f64(2.0 * s) + extra
            }
            None => PTO_INIT,
        };
        let rto_left = self.rto_at.map(|t| t.saturating_sub(now));
        let Some(r) = self.rack.as_mut() else { return };
        r.tlp_at = (open && flight > 0 && r.tlp_high_seq.is_none())
            .then(|| now + rto_left.map_or(pto, |l| pto.min(l)));
    }

    /// Expired RACK-TLP timers (from `on_timeout`).
    pub(super) fn rack_on_timeout(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
        let [reo, tlp] = self.rack_timers();
        if reo.is_some_and(|t| t <= now) {
            self.rack_reo_timeout(cx);
        }
        if tlp.is_some_and(|t| t <= now) {
            self.tlp_fire(cx);
        }
    }

    /// `tcp_rack_reo_timeout`: mark again; if something was lost, enter recovery (PRR counts
    /// one segment delivered, `tcp_cwnd_reduction(sk, 1, 0)`) and retransmit.
    fn rack_reo_timeout(&mut self, cx: &mut EndpointCtx) {
        if let Some(r) = self.rack.as_mut() {
            r.reo_at = None;
        }
        if self.rack_detect(cx.now) == 0 {
            return;
        }
        if !self.in_recovery && self.snd_una > self.recover {
            let mss = self.mss();
            self.linux_prr_note_ack(mss, false, false);
            self.undo_note_ece(false); // tcp_rack_reo_timeout: tcp_enter_recovery(sk, false)
            self.enter_recovery(cx);
        }
        self.send_data(cx);
    }

    /// `tcp_send_loss_probe`.
    fn tlp_fire(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
        let Some(r) = self.rack.as_mut() else { return };
        r.tlp_at = None;
        if self.in_recovery || self.snd_max <= self.snd_una || r.tlp_high_seq.is_some() {
            return;
        }
        let retrans = match self.next_new_segment(now, false) {
            Some(len) => {
                let s = self.snd_nxt;
                self.emit(cx, s, len, F::ACK);
                self.snd_nxt = self.snd_max;
                false
            }
            None => {
                let start = self.rack.as_ref().and_then(|r| r.last_start);
                let start = start.unwrap_or(self.snd_max.saturating_sub(self.mss()));
                let start = start.max(self.snd_una);
                let len = (self.snd_max - start).min(self.mss());
                self.emit(cx, start, len, F::ACK);
                true
            }
        };
        let high = self.snd_max;
        if let Some(r) = self.rack.as_mut() {
            (r.tlp_high_seq, r.tlp_retrans, r.tlp_at) = (Some(high), retrans, None);
            r.probes += 1;
        }
        // "Reset s.t. tcp_rearm_rto will restart timer from now"
        self.arm_rto(now);
    }
}
