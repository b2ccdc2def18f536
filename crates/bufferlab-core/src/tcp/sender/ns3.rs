//! ns-3's SACK sender (`Rules::sack_sender_by_states`, set by `tcp/flavour/ns3.rs`: `ns3_rules`,
//! on with the `ns3` preset), where
//! ns-3.44's `TcpSocketBase` (`src/internet/model/tcp-socket-base.cc`, read through the search
//! tool) differs from the RFC reading of [`super`]:
//!
//! * **Duplicate ACKs** (`ProcessAck`: `isDupack = scoreboardUpdated`): with SACK, an ACK is a
//!   duplicate when it SACKs new data, even if it also moves the cumulative ACK; one that
//!   SACKs nothing new is not. `DupAck` ignores them after a timeout (`CA_LOSS`) and counts
//!   none during recovery.
//! * **Congestion states** (`CA_OPEN`, `CA_DISORDER`, `CA_RECOVERY`, `CA_LOSS`): the window
//!   grows only in `CA_OPEN` (and in `CA_LOSS` below the recovery point); an ACK that is both
//!   new and a duplicate leaves the sender in `CA_DISORDER` without growth.
//! * **Recovery entry** (`DupAck`): exactly the third duplicate with HighACK >= RecoveryPoint,
//!   or `IsLost(HighACK)`; ssthresh from `BytesInFlight()`, the pipe with the head counted lost
//!   (`EnterRecovery`: `MarkHeadAsLost`).
//! * **Partial ACKs** (`ProcessAck`, `DoRetransmit`): unless the new head was already
//!   retransmitted (in this recovery or an earlier one: `IsRetransmittedDataAcked`), one
//!   segment goes out at once outside cwnd: the first lost one (`NextSeg`
//!   rule 1), else new data, else the head again. Only the first partial ACK of a recovery
//!   restarts the retransmission timer (`m_isFirstPartialAck`).
//! * **Leaving recovery** (`ProcessAck`, `CA_RECOVERY` -> `CA_OPEN`): cwnd = ssthresh, then
//!   `IncreaseWindow` with every segment the ACK covers.
//! * **Timeout** (`ReTxTimeout`: `SetSentListLost(false)` with SACK): the scoreboard is kept,
//!   every unSACKed byte below HighData is lost, the pipe is what was retransmitted since;
//!   `CA_LOSS` lasts until HighACK reaches the recovery point, each ACK below it grows the
//!   window by the bytes it newly delivers, newly SACKed ones included (`currentDelivered`),
//!   and the ACK that ends it grows the window only by the segments above that point.
//! * **Sending** (`SendPendingData`, `AvailableWindow`): in every state the window is compared
//!   with the pipe (`BytesInFlight()` from the scoreboard), so each SACKed segment in
//!   `CA_DISORDER` lets one new segment out (limited transmit by the pipe).
//! * **ECN echo** (`ReceivedAck`, `EnterCwr`, `ProcessAck`; `Rules::ecn_echo_enters_cwr`):
//!   `CA_CWR` with ssthresh from `BytesInFlight()`, PRR taking cwnd down over the round trip,
//!   no growth and no recovery entry until an ACK passes the highest byte sent at the echo,
//!   then cwnd = ssthresh.
//! * **Timer** (`SendDataPacket`, `NewAck`): a retransmission starts the timer only if it is not
//!   running; an ACK restarts it except in `CA_DISORDER` and on later partial ACKs.
//!
//! Window growth counts the bytes an ACK newly delivers (`currentDelivered`: bytes SACKed
//! earlier were counted then), as ns-3's `IncreaseWindow(segsAcked)` does.

use super::{TcpSender, F};
use crate::endpoint::EndpointCtx;
use crate::packet::Packet;
use crate::tcp::cc::Ack;
use crate::tcp::config::CcKind;
use crate::units::SimTime;

impl TcpSender {
    /// ns-3's `ReceivedAck` / `ProcessAck` for a SACK sender (see the module comment).
    pub(super) fn on_ack_ns3(&mut self, pkt: &Packet, newly_sacked: u64, cx: &mut EndpointCtx) {
        let now = cx.now;
        let h = &pkt.tcp;
        let ack = h.ack;
        if ack < self.snd_una || ack > self.snd_max {
            return; // stale or beyond what was sent
        }
        let old_una = self.snd_una;
        let advanced = ack > old_una;
        let flight_before = self.flight();
        // Bytes SACKed before this ACK that it now covers were delivered then, not now.
        let delivered_earlier = self
            .sb
            .sacked_between(old_una, ack)
            .saturating_sub(newly_sacked);
        self.ack_delivered = (ack - old_una) - delivered_earlier + newly_sacked;
        self.retrans_data_acked = self.in_recovery && advanced && ack < self.recover && {
            // ReceivedAck: IsRetransmittedDataAcked(ack - i * segment) for each segment acked
            let mss = self.mss();
            (0..(ack - old_una) / mss).any(|i| {
                let start = (ack - i * mss).saturating_sub(mss);
                self.retx.sacked_until(start).is_some() && !self.sb.is_sacked(start)
            })
        };
        if advanced {
            self.take_rtt_sample(h, ack, now);
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            self.sb.advance(ack);
            self.retx.advance(ack);
        }
        if self.cwr_by_states() {
            self.cwr_ns3(h.flags & F::ECE != 0, ack, advanced, now);
        }
        let is_dup = newly_sacked > 0;
        if is_dup {
            self.stats.dupacks_received += 1;
            self.dupack_ns3(cx);
        }
        if advanced {
            let acked = ack - old_una;
            if !is_dup {
                self.dupacks = 0;
            }
            let info = |acked: u64, s: &Self| Ack {
                now,
                acked,
                flight_before,
                snd_una: ack,
                snd_nxt: s.snd_nxt.max(s.snd_max),
                next_to_send: s.snd_nxt,
                clock_s: now.as_secs_f64(),
                rtt: Some(now.saturating_sub(h.ts_echo)),
                ack_rtt: None,
            };
            if self.ecn_extent() {
                let ece = h.flags & F::ECE != 0;
                let a = info(acked, self);
                let marked = if ece { acked } else { 0 };
                self.cc.on_ecn_ack(&self.w, acked, marked, &a);
            }
            let mut restart_timer = true;
            if self.in_recovery && ack < self.recover {
                self.prr_on_new_ack();
                // Partial ACK: retransmit unless the new head already was, in this recovery
                // or an earlier one (`!IsRetransmittedDataAcked(ackNumber + segmentSize)`: the
                // segment keeps its `m_retrans` mark until it is cumulatively acknowledged).
                if self.retx.sacked_until(ack).is_none() {
                    self.do_retransmit_ns3(cx);
                }
                restart_timer = std::mem::replace(&mut self.first_partial, false);
            } else if self.in_loss && ack < self.recover {
                // CA_LOSS: IncreaseWindow(currentDelivered / segmentSize), and ReceivedAck's
                // currentDelivered counts the bytes this ACK newly SACKs too.
                let a = info(self.ack_delivered, self);
                self.cc.on_ack(&mut self.w, &a);
            } else {
                let mut grow = acked - delivered_earlier;
                let mut open = true;
                if self.in_recovery {
                    self.in_recovery = false;
                    self.dupacks = 0;
                    self.first_partial = true;
                    self.cc.on_recovery_exit(&mut self.w, now);
                    grow = acked;
                } else if self.in_loss {
                    self.in_loss = false;
                    self.first_partial = true;
                    grow = ack.saturating_sub(self.recover);
                } else if is_dup {
                    // CA_DISORDER (DupAck has just moved there): ProcessAck calls neither
                    // IncreaseWindow nor NewAck, so no growth and no timer restart.
                    open = false;
                    restart_timer = false;
                }
                // ns-3 calls IncreaseWindow in CA_OPEN on every ACK that advances, even with
                // no whole segment newly delivered: TcpLinuxReno's congestion avoidance then
                // still applies a full counter (m_cWndCnt >= w) first.
                if self.in_cwr {
                    // CA_CWR: DoRecovery as on a partial ACK, no growth.
                    self.prr_on_new_ack();
                    open = false;
                } else if self.ecn_extent() && !self.may_grow_after_ecn(ack) {
                    open = false; // CWR after an ECN reduction (TcpDctcp, Linux CWR state)
                }
                if open && (grow > 0 || self.p.cc == CcKind::LinuxReno) {
                    let a = info(grow, self);
                    self.cc.on_ack(&mut self.w, &a);
                }
            }
            if restart_timer {
                self.rto_at = (self.snd_max > self.snd_una).then(|| now + self.rtt.rto());
            }
            self.check_app_progress(now);
        }
        if !self.cwr_by_states() {
            self.on_ece(pkt, now);
        }
        self.after_ack(cx);
    }

    /// ns-3's `DupAck`.
    fn dupack_ns3(&mut self, cx: &mut EndpointCtx) {
        if self.in_recovery && self.p.prr && !self.owns_window {
            self.prr_recovery(self.ack_delivered, true);
        }
        if self.in_loss || self.in_recovery {
            return;
        }
        self.dupacks += 1;
        if self.in_cwr {
            return; // DupAck enters recovery only from CA_DISORDER
        }
        let thresh = self.p.dupack_threshold;
        let mss = self.mss();
        if (self.dupacks == thresh && self.snd_una >= self.recover)
            || self.sb.is_lost(self.snd_una, thresh, mss)
        {
            self.enter_recovery(cx);
        }
    }

    /// ns-3's `DoRetransmit` on a partial ACK: `NextSeg` rules 1 and 2, else the head.
    fn do_retransmit_ns3(&mut self, cx: &mut EndpointCtx) {
        let (s, len) = match self.next_seg_ns3(false) {
            Some((s, high)) => (s, high - s),
            None => (self.snd_una, self.mss().min(self.snd_max - self.snd_una)),
        };
        self.send_segment_ns3(cx, s, len);
    }

    fn send_segment_ns3(&mut self, cx: &mut EndpointCtx, s: u64, len: u64) {
        let retransmission = s < self.snd_max;
        self.emit(cx, s, len, F::ACK);
        if retransmission {
            self.high_rxt = self.high_rxt.max(s + len);
        }
        self.snd_nxt = self.snd_max;
    }

    /// ns-3's `SendPendingData` for a SACK sender, in every congestion state: while
    /// `AvailableWindow()` (min(cwnd, rwnd) - `BytesInFlight()`) is positive, send `NextSeg()`
    /// unless less than a segment of window is left with more data waiting (silly window).
    pub(super) fn send_data_ns3(&mut self, cx: &mut EndpointCtx) {
        let mss = self.mss();
        loop {
            if self.pace_blocked(cx.now) {
                break; // ns-3 SendPendingData: the pacing timer runs
            }
            let win = (self.w.cwnd as u64).min(self.rwnd.min(self.p.max_window));
            let pipe = self.pipe_ns3();
            if pipe >= win {
                break;
            }
            let room = win - pipe;
            let Some((s, high)) = self.next_seg_ns3(self.in_recovery) else {
                break;
            };
            let waiting = self.avail_end().saturating_sub(s);
            if room < mss && waiting > room {
                break;
            }
            if self.p.nagle && self.snd_max > self.snd_una && waiting < mss {
                break;
            }
            self.send_segment_ns3(cx, s, room.min(mss).min(high - s));
        }
    }

    /// ns-3's `TcpTxBuffer::NextSeg`: the segment [seq, high) to send next, by RFC 6675's
    /// rules as ns-3 reads them.
    /// 1. The first segment marked lost and not retransmitted since the last timeout
    ///    (`m_retrans`; no HighRxt) that starts below the highest SACKed segment, or anywhere
    ///    when nothing is SACKed. Lost marks: every unSACKed segment sent before a timeout
    ///    (`SetSentListLost`), the head at recovery entry (`MarkHeadAsLost`), and those with
    ///    DupThresh SACKed segments above (`UpdateLostCount`).
    /// 2. Else new data, if there is any: one segment within the receive window, or nothing
    ///    when the window is full.
    /// 3. Else, in recovery, the first unSACKed, unretransmitted segment below the highest
    ///    SACKed one.
    pub(super) fn next_seg_ns3(&self, rule3: bool) -> Option<(u64, u64)> {
        let mss = self.mss();
        let dt = self.p.dupack_threshold;
        let (una, max) = (self.snd_una, self.snd_max);
        let n = self.sb.ranges();
        let mut rule3_pick = None;
        for (k, a, b) in self.sb.holes(una, max) {
            if n > 0 && k == n {
                break; // at or above the highest SACKed segment
            }
            let dup_lost = k < n && self.sb.hole_lost(k, dt, mss);
            let mut s = a;
            while s < b {
                if let Some(e) = self.retx.sacked_until(s) {
                    s = e; // retransmitted already
                    continue;
                }
                let lost =
                    dup_lost || (self.in_loss && s < self.recover) || s < self.head_lost_until;
                let seg = (s, b.min(s + mss));
                if lost {
                    return Some(seg);
                }
                if rule3 && rule3_pick.is_none() {
                    rule3_pick = Some(seg);
                }
                s += mss;
            }
        }
        let avail = self.avail_end();
        if max < avail {
            let sent = max - una;
            let rwnd = self.rwnd.min(self.p.max_window);
            if sent >= rwnd {
                return None;
            }
            return Some((max, max + mss.min(rwnd - sent).min(avail - max)));
        }
        rule3_pick
    }

    /// ns-3's `CA_CWR` answers an ECN echo (`Rules::ecn_echo_enters_cwr`) for controllers
    /// with classic feedback. DCTCP and Prague keep their own round-trip rule
    /// (`grows_during_cwr`, the cut at once): under ns-3's PRR in `CA_CWR` bufferlab's DCTCP
    /// gave 2.2 % less goodput and 11 % more marks than ns-3's `TcpDctcp` on the bench case
    /// `g_dctcp`, against 0.5 % and 3 % with the cut at once; why is not found yet
    /// (docs/validation.md, "Against ns-3.44's TcpDctcp").
    fn cwr_by_states(&self) -> bool {
        self.rules.ecn_echo_enters_cwr && self.p.ecn && !self.ecn_extent()
    }

    /// `ReceivedAck`'s ECN steps (`Rules::ecn_echo_enters_cwr`): an ACK past the highest byte
    /// sent at the last echo ends `CA_CWR` with cwnd = ssthresh; then an ACK of new data with
    /// ECE outside `CA_CWR` enters it (`EnterCwr`): ssthresh from `BytesInFlight()`, and the
    /// recovery algorithm takes cwnd down (PRR's `EnterRecovery`, the classic one's cwnd =
    /// ssthresh); a controller that owns cwnd (`HasCongControl`) keeps it. An echo during
    /// loss recovery or after a timeout is not acted on here (ns-3 would leave `CA_RECOVERY` or
    /// `CA_LOSS` for `CA_CWR`; with ECN on, losses are rare and the two rarely meet).
    fn cwr_ns3(&mut self, ece: bool, ack: u64, advanced: bool, now: SimTime) {
        if self.in_cwr && ack > self.ecn_recover {
            self.in_cwr = false;
            if !self.owns_window {
                self.w.cwnd = self.w.ssthresh;
            }
        }
        if !(ece && advanced) || self.in_cwr || self.in_recovery || self.in_loss {
            return;
        }
        let pipe = self.pipe_ns3();
        self.w.ssthresh = self.cc.ssthresh_on_ecn(&self.w, pipe, now);
        self.in_cwr = true;
        self.start_reduction_round(self.snd_max);
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
        if self.owns_window {
            return;
        }
        if self.p.prr {
            self.prr_enter(); // EnterCwr -> TcpPrrRecovery::EnterRecovery, as at a loss
        } else {
            self.w.cwnd = self.w.ssthresh; // TcpClassicRecovery::EnterRecovery
        }
    }

    /// `TcpPrrRecovery::EnterRecovery`: RecoverFS is the pipe once the head is marked lost.
    pub(super) fn prr_enter(&mut self) {
        self.prr_out = 0;
        self.prr_delivered = 0;
        self.prr_recovery_fs = self.pipe_ns3() as u32;
        self.prr_recovery(self.ack_delivered, true);
    }

    /// `ProcessAck`'s `DoRecovery(currentDelivered, false)` on an ACK of new data in
    /// `CA_RECOVERY` (a partial ACK) or `CA_CWR`: only when a whole segment is acknowledged
    /// (`segsAcked >= 1`), and not for a controller that owns cwnd (`HasCongControl`).
    fn prr_on_new_ack(&mut self) {
        if self.p.prr && !self.owns_window && self.ack_delivered >= self.mss() {
            self.prr_recovery(self.ack_delivered, false);
        }
    }

    /// `TcpPrrRecovery::DoRecovery` (RFC 6937 with PRR-CRB, and PRR-SSRB on an ACK that
    /// cumulatively acknowledges a retransmission), in ns-3's 32-bit arithmetic: a duplicate
    /// counts one more segment delivered until RecoverFS is reached; cwnd = pipe + sndcnt.
    fn prr_recovery(&mut self, delivered: u64, is_dup: bool) {
        let mss = self.p.mss;
        let mut delivered = delivered as u32;
        if is_dup && self.prr_delivered < self.prr_recovery_fs {
            delivered = delivered.wrapping_add(mss);
        }
        if delivered == 0 {
            return;
        }
        self.prr_delivered = self.prr_delivered.wrapping_add(delivered);
        let pipe = self.pipe_ns3() as u32;
        let ssthresh = self.w.ssthresh.min(u32::MAX as f64) as u32;
        let mut send: i64 = if pipe > ssthresh {
            // proportional part: ceil(prrDelivered * ssthresh / RecoverFS) - prrOut, with the
            // product in uint32 as ns-3 computes it
            let num = self.prr_delivered.wrapping_mul(ssthresh) as f64;
            (num / self.prr_recovery_fs.max(1) as f64).ceil() as i64 - self.prr_out as i64
        } else {
            // the unsigned max() of ns-3: prrDelivered - prrOut wraps when negative
            let mut limit =
                self.prr_delivered.wrapping_sub(self.prr_out).max(delivered) as i32 as i64;
            if self.retrans_data_acked {
                limit += mss as i64;
            }
            limit.min((ssthresh - pipe) as i32 as i64)
        };
        send = send.max(if self.prr_out > 0 { 0 } else { mss as i64 });
        self.w.cwnd = (pipe as i64 + send) as u32 as f64;
    }

    /// ns-3's `BytesInFlight()` (`TcpTxBuffer`: sent - SACKed - lost + retransmitted), in every
    /// state. Lost is sticky there: every unSACKed byte below the recovery point after a
    /// timeout, the head marked at recovery entry, and what `IsLost` holds. A retransmission
    /// stays counted until it is cumulatively acknowledged, even once SACKed (`m_retrans` only
    /// falls in `DiscardUpTo`), which the RFC's pipe would not count.
    pub(super) fn pipe_ns3(&self) -> u64 {
        let (una, max) = (self.snd_una, self.snd_max);
        let sent = max - una;
        let lost = self.lost_ns3();
        (sent - self.sb.sacked_bytes() - lost.min(sent)) + self.retx.sacked_bytes()
    }

    /// ns-3's `TcpTxBuffer::GetLost()` as [`Self::pipe_ns3`] counts it.
    pub(super) fn lost_ns3(&self) -> u64 {
        let dt = self.p.dupack_threshold;
        let mss = self.mss();
        let (una, max) = (self.snd_una, self.snd_max);
        let sent = max - una;
        if self.in_loss {
            // every unSACKed byte below the recovery point, and above it what IsLost marks
            let r = self.recover.clamp(una, max);
            let above = self.sb.lost_bytes(una, max, r, dt, mss);
            (r - una) - self.sb.sacked_between(una, r) + above
        } else {
            let mut l = self.sb.lost_bytes(una, max, una, dt, mss);
            if !self.sb.is_lost(una, dt, mss) {
                l += self.head_lost_until.saturating_sub(una).min(sent);
            }
            l
        }
    }

    /// Records a retransmission for [`Self::pipe_ns3`].
    pub(super) fn note_retransmission_ns3(&mut self, seq: u64, end: u64) {
        self.retx.add(self.snd_una, seq, end);
    }
}
