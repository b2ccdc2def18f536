//! ns-3's own sender rules (`ns3_rules`, on with the `ns3` preset) for a SACK sender, where
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
//!   retransmitted, one segment goes out at once outside cwnd: the first lost one (`NextSeg`
//!   rule 1), else new data, else the head again. Only the first partial ACK of a recovery
//!   restarts the retransmission timer (`m_isFirstPartialAck`).
//! * **Leaving recovery** (`ProcessAck`, `CA_RECOVERY` -> `CA_OPEN`): cwnd = ssthresh, then
//!   `IncreaseWindow` with every segment the ACK covers.
//! * **Timeout** (`ReTxTimeout`: `SetSentListLost(false)` with SACK): the scoreboard is kept,
//!   every unSACKed byte below HighData is lost, the pipe is what was retransmitted since;
//!   `CA_LOSS` lasts until HighACK reaches the recovery point and the ACK that ends it grows
//!   the window only by the segments above that point.
//! * **Sending** (`SendPendingData`, `AvailableWindow`): in every state the window is compared
//!   with the pipe (`BytesInFlight()` from the scoreboard), so each SACKed segment in
//!   `CA_DISORDER` lets one new segment out (limited transmit by the pipe).
//! * **Timer** (`SendDataPacket`): a retransmission starts the timer only if it is not running.
//!
//! Window growth counts the bytes an ACK newly delivers (`currentDelivered`: bytes SACKed
//! earlier were counted then), as ns-3's `IncreaseWindow(segsAcked)` does.

use super::{TcpSender, F};
use crate::endpoint::EndpointCtx;
use crate::packet::Packet;
use crate::tcp::cc::Ack;

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
        if advanced {
            self.take_rtt_sample(h, ack, now);
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            self.sb.advance(ack);
            self.retx.advance(ack);
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
                rtt: Some(now.saturating_sub(h.ts_echo)),
            };
            let mut restart_timer = true;
            if self.in_recovery && ack < self.recover {
                // Partial ACK: retransmit unless the new head already was.
                if self.high_rxt <= ack {
                    self.do_retransmit_ns3(cx);
                }
                restart_timer = std::mem::replace(&mut self.first_partial, false);
            } else if self.in_loss && ack < self.recover {
                let a = info(acked - delivered_earlier, self);
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
                    open = false; // CA_DISORDER (DupAck has just moved there): no growth
                }
                if open && grow > 0 {
                    let a = info(grow, self);
                    self.cc.on_ack(&mut self.w, &a);
                }
            }
            if restart_timer {
                self.rto_at = (self.snd_max > self.snd_una).then(|| now + self.rtt.rto());
            }
            self.check_app_progress(now);
        }
        self.on_ece(pkt, now);
        self.send_data(cx);
    }

    /// ns-3's `DupAck`.
    fn dupack_ns3(&mut self, cx: &mut EndpointCtx) {
        if self.in_loss || self.in_recovery {
            return;
        }
        self.dupacks += 1;
        let thresh = self.p.dupack_threshold;
        let mss = self.mss();
        if (self.dupacks == thresh && self.snd_una >= self.recover)
            || self.sb.is_lost(self.snd_una, thresh, mss)
        {
            self.enter_recovery(cx);
        }
    }

    /// ns-3's `DoRetransmit` on a partial ACK: `NextSeg` rule 1, else new data the receive
    /// window allows, else the head.
    fn do_retransmit_ns3(&mut self, cx: &mut EndpointCtx) {
        let mss = self.mss();
        let dt = self.p.dupack_threshold;
        if let Some((s, l)) =
            self.sb
                .next_seg(self.snd_una, self.snd_max, self.high_rxt, dt, mss, false)
        {
            self.emit(cx, s, l, F::ACK);
            self.high_rxt = s + l;
            return;
        }
        let avail = self.avail_end();
        let s = self.snd_max;
        let win = self.rwnd.min(self.p.max_window);
        if s < avail && s - self.snd_una < win {
            let len = mss.min(avail - s);
            self.emit(cx, s, len, F::ACK);
            self.snd_nxt = self.snd_max;
            return;
        }
        let s = self.snd_una;
        let len = mss.min(self.snd_max - s);
        self.emit(cx, s, len, F::ACK);
        self.high_rxt = self.high_rxt.max(s + len);
    }

    /// ns-3's `BytesInFlight()` (`TcpTxBuffer`: sent - SACKed - lost + retransmitted), in every
    /// state. Lost is sticky there: every unSACKed byte below the recovery point after a
    /// timeout, the head marked at recovery entry, and what `IsLost` holds. A retransmission
    /// stays counted until it is cumulatively acknowledged, even once SACKed (`m_retrans` only
    /// falls in `DiscardUpTo`), which the RFC's pipe would not count.
    pub(super) fn pipe_ns3(&self) -> u64 {
        let dt = self.p.dupack_threshold;
        let mss = self.mss();
        let (una, max) = (self.snd_una, self.snd_max);
        let sent = max - una;
        let lost = if self.in_loss {
            let r = self.recover.clamp(una, max);
            (r - una) - self.sb.sacked_between(una, r)
        } else {
            let mut l = self.sb.lost_bytes(una, max, dt, mss);
            if !self.sb.is_lost(una, dt, mss) {
                l += self.head_lost_until.saturating_sub(una).min(sent);
            }
            l
        };
        (sent - self.sb.sacked_bytes() - lost.min(sent)) + self.retx.sacked_bytes()
    }

    /// Records a retransmission for [`Self::pipe_ns3`].
    pub(super) fn note_retransmission_ns3(&mut self, seq: u64, end: u64) {
        self.retx.add(self.snd_una, seq, end);
    }
}
