//! `Sack1TcpAgent::send_much` (ns-2.35 `tcp/tcp-sack1.cc`) outside fast recovery while the
//! scoreboard holds SACK blocks (after a duplicate ACK that leaves `dupacks_` at 0: SACK-based
//! F-RTO's return to slow start, `tcp/sender/ns2_frto.rs`, or one whose blocks are old news).
//! While `t_seqno_ <= last_ack_ + window()`: `GetNextRetran()` (the first packet on the
//! scoreboard neither acknowledged, SACKed nor retransmitted) goes first, marked
//! (`MarkRetran`), if `recover_ > 0` and it lies within `wnd_` of `highest_ack_` (otherwise
//! the loop ends); without one, `t_seqno_++` within `window()`, SACKed or not (ns-2 skips
//! nothing there); `t_seqno_` moves past what `output()` sent.

use super::{TcpSender, F};
use crate::endpoint::EndpointCtx;

impl TcpSender {
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
                    if !(self.recover > 0 && s + l <= self.snd_una.saturating_add(wnd)) {
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
