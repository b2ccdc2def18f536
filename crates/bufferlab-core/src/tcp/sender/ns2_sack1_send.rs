//! `Sack1TcpAgent::send_much` (ns-2.35 `tcp/tcp-sack1.cc`) outside fast recovery while the
//! scoreboard holds SACK blocks (after a duplicate ACK that leaves `dupacks_` at 0: SACK-based
//! F-RTO's return to slow start, `tcp/sender/ns2_frto.rs`, or one whose blocks are old news).
//! While `t_seqno_ <= last_ack_ + window()`: `GetNextRetran()` (the first packet on the
//! scoreboard neither acknowledged, SACKed nor retransmitted) goes first, marked
//! (`MarkRetran`), if `recover_ > 0` and it lies within `wnd_` of `highest_ack_` (otherwise
//! the loop ends, new data included); without one, `t_seqno_++` within `window()`, SACKed or
//! not (ns-2 skips nothing there); `t_seqno_` moves past what `output()` sent.
//!
//! `recover_ > 0` counts packets: `recover_` is 0 from `TcpAgent::reset` until the first fast
//! retransmit or timeout, and again after a fast recovery's full ACK (`recover_ = 0`). Here
//! that is `recover` at or below the end of packet 0 (`ns2_packet0_end`: the opening packet
//! with `syn_`, else the first data packet), not `recover > 0`: with `syn_` the sender starts
//! with `recover` at packet 0's end. So before any loss a duplicate ACK's SACK blocks stop
//! `send_much` (the first hole may not be retransmitted, and nothing new goes out behind it),
//! as in ns-2's quiescent suite (`tcp_telnet`: a Telnet write after the first duplicate ACK).

use super::{TcpSender, F};
use crate::endpoint::EndpointCtx;

impl TcpSender {
    /// ns-2's `recover_ > 0` (packets): `recover` past the end of packet 0.
    fn sack1_recover_set(&self) -> bool {
        self.recover > super::ns2_packet0_end(&self.p)
    }

    /// See the module comment; the caller checked ns-2's Sack1, no fast recovery and a
    /// scoreboard with blocks.
    pub(super) fn send_data_sack1_open(&mut self, cx: &mut EndpointCtx) {
        let mss = self.mss();
        let wnd = self.rwnd.min(self.p.max_window);
        // window(): min(cwnd_, wnd_), or force_wnd(2) in F-RTO
        let win = wnd
            .min(self.ns2_frto_window().unwrap_or(self.w.cwnd as u64))
            .saturating_sub(self.opening_slot());
        let mut sent = 0;
        while self.snd_nxt + mss.min(self.avail_end().saturating_sub(self.snd_nxt))
            <= self.snd_una + win
            && self.snd_una < self.avail_end()
        {
            let (s, len) = match self.sb.first_hole_below_sacked(
                self.snd_una,
                self.snd_max,
                self.high_rxt,
                mss,
            ) {
                Some((s, l)) => {
                    if !(self.sack1_recover_set() && s + l <= self.snd_una.saturating_add(wnd)) {
                        break;
                    }
                    self.high_rxt = s + l; // MarkRetran
                    (s, l)
                }
                None => {
                    let avail = self.avail_end();
                    if self.snd_nxt >= avail {
                        break;
                    }
                    (self.snd_nxt, mss.min(avail - self.snd_nxt))
                }
            };
            self.emit(cx, s, len, F::ACK);
            self.snd_nxt = self.snd_nxt.max(s + len);
            sent += 1;
            if self.burst_done(sent) {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::TcpSender;
    use crate::tcp::app::TcpApp;
    use crate::tcp::config::{CcKind, Preset, TcpOptions, TcpParams};
    use crate::units::{QueueLimit, SimTime};

    fn sack1(handshake: bool) -> TcpSender {
        let o = TcpOptions {
            preset: Some(Preset::Ns2),
            cc: Some(CcKind::Reno),
            sack: Some(true),
            window: Some(QueueLimit::Packets(40)),
            handshake: Some(handshake),
            ..TcpOptions::default()
        };
        TcpSender::new(
            TcpParams::resolve(&o, None),
            TcpApp::Bulk,
            SimTime::ZERO,
            SimTime::MAX,
        )
    }

    /// tcp.cc reset (recover_ = 0) and tcp-sack1.cc recv (recover_ = 0 at the full ACK): no
    /// retransmission from the scoreboard outside fast recovery until a fast retransmit or a
    /// timeout sets recover_ = maxseq_ (packet 1 or later).
    #[test]
    fn recover_counts_from_packet_zero() {
        for handshake in [true, false] {
            let mut s = sack1(handshake);
            assert!(!s.sack1_recover_set(), "recover_ 0 from reset()");
            let mss = s.p.mss as u64;
            // maxseq_ 0 (packet 0 sent alone): recover_ = 0 still
            s.recover = super::super::ns2_packet0_end(&s.p);
            assert!(!s.sack1_recover_set());
            s.recover += mss; // maxseq_ 1
            assert!(s.sack1_recover_set());
            s.recover = 0; // the full ACK of a fast recovery
            assert!(!s.sack1_recover_set());
        }
    }
}
