//! The sender's side of AccECN (RFC 9768 section 3.2.2.5.2, Linux 6.18 `tcp_accecn_process`;
//! the counting rules are `tcp/accecn.rs`): each ACK that delivers data (acknowledged or
//! SACKed, Linux's `FLAG_FORWARD_PROGRESS`) gives its newly CE-marked packets; they are the
//! ECN echo (an ACK with new marks reduces once per window as an ECE would, Linux sets
//! `FLAG_ECE`) and, times the MSS, the marked bytes DCTCP, Prague and BBRv3 read (Linux's
//! `delivered_ce`).

use super::TcpSender;
use crate::packet::{tcp_flags as F, Packet};

impl TcpSender {
    /// Reads the ACE field and the option of an ACK up to `ack` that SACKed `newly_sacked`
    /// bytes; the count is `ack_ce` until the next ACK.
    pub(super) fn accecn_on_ack(&mut self, pkt: &Packet, ack: u64, newly_sacked: u64) {
        self.ack_ce = None;
        let mss = self.p.mss.max(1) as u64;
        let acked = if ack > self.snd_una && ack <= self.snd_max {
            ack - self.snd_una
        } else {
            0
        };
        let (Some(s), Some(ace)) = (self.accecn.as_mut(), pkt.accecn.ace()) else {
            return;
        };
        let bytes = acked + newly_sacked;
        if bytes == 0 {
            return; // no forward progress: a reordered or repeated ACK (Linux returns 0)
        }
        let d = s.on_ack(ace, pkt.accecn.eceb(), bytes.div_ceil(mss), bytes, mss);
        self.ack_ce = Some(d.packets);
    }

    /// Whether this ACK signals congestion: new CE marks (AccECN) or the ECE flag.
    pub(super) fn ack_ece(&self, pkt: &Packet) -> bool {
        if self.accecn.is_some() {
            self.ack_ce.is_some_and(|n| n > 0)
        } else {
            self.p.ecn && pkt.tcp.flags & F::ECE != 0
        }
    }

    /// The CE-marked bytes of `acked` for the controller: AccECN's new marks times the MSS;
    /// with classic feedback all of them when the ACK carried ECE.
    pub(super) fn marked_bytes(&self, acked: u64, ece: bool) -> u64 {
        match (self.accecn.is_some(), ece) {
            (true, _) => self.ack_ce.unwrap_or(0) * self.p.mss as u64,
            (false, true) => acked,
            (false, false) => 0,
        }
    }
}
