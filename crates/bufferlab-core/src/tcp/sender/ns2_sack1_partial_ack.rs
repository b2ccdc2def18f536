//! ns-2.35's `Agent/TCP/Sack1` with `partial_ack_` true (`tcp/tcp-sack1.cc`; default false,
//! `tcl/lib/ns-default.tcl`): what a partial ACK in fast recovery does
//! (`Sack1TcpAgent::recv`, the `fastrecov_` branch, and `partial_ack_action`):
//!
//! * `partial_ack_action()` sends two packets at once with `output()` (outside `pipe_`):
//!   from `next_pkt_`, raised first to `highest_ack_ + 1`, each time the next packet neither
//!   acknowledged nor SACKed (`ScoreBoard::GetNextUnacked`, which finds nothing, -1, when
//!   the scoreboard is empty or `next_pkt_` lies past its last entry: then `next_pkt_` goes
//!   as it is), `MarkRetran` on it and `++next_pkt_`. `next_pkt_` belongs to the connection
//!   (set to 0 once, in the constructor) and carries over from one partial ACK, and one
//!   recovery, to the next. `MarkRetran` writes the packet's entry; an entry past the
//!   scoreboard's last one is written anew (retran_ 0) when a SACK block later reaches it
//!   (`UpdateScoreBoard`), so only a packet on the scoreboard stays marked here.
//! * The scoreboard's last entry, as `ns` (Debian's ns-2.35) runs it, is the packet right
//!   after the highest SACKed one: when every packet from `next_pkt_` to the highest SACKed
//!   one is SACKed, `GetNextUnacked` returns that next packet (seen in tcpVariants'
//!   `multiple_partial_ack_sack` and `multiple2_partial_ack_sack`, where ns-2 sends it and not
//!   `next_pkt_`), though `scoreboard.cc` as read (entries up to `sa_right - 1`) would return
//!   -1. Where that extra entry comes from was not found; the rule follows the runs.
//! * `++pipe_`, which cancels the `--pipe_` every ACK of fast recovery takes (the partial
//!   ACK takes no second one, as it does with `partial_ack_` false).
//! * `newtimer(pkt)` and `t_backoff_ = 1` for the first partial ACK only (`firstpartial_`,
//!   set then and cleared by a new ACK outside fast recovery, not at the end of one).
//!
//! `t_seqno_` is raised to `next_pkt_` (the packet sent, not the one after it): after fast
//! recovery `send_much` starts there. A packet past the data the application wrote is not
//! sent here (ns-2's `output` would send it).

use super::{TcpSender, F};
use crate::endpoint::EndpointCtx;

impl TcpSender {
    /// A partial ACK in Sack1's fast recovery with `partial_ack_` (see the module comment);
    /// `--pipe_` has been taken for it, the scoreboard has its blocks. Returns false without
    /// `partial_ack_` (the caller's default rule applies).
    pub(super) fn sack1_partial_ack(&mut self, cx: &mut EndpointCtx) -> bool {
        if !self.p.ns2.partial_ack {
            return false;
        }
        let mss = self.mss();
        // partial_ack_action(): next_pkt_ = max(next_pkt_, highest_ack_ + 1)
        self.sack1_next_pkt = self.sack1_next_pkt.max(self.snd_una);
        // the scoreboard's entries: highest_ack_ + 1 to the packet after the highest SACKed
        // one (see the module comment)
        let board_end = self.sb.high_sacked().map_or(0, |h| h + mss);
        for _ in 0..2 {
            let mut s = self.sack1_next_pkt;
            if s < board_end {
                // GetNextUnacked(next_pkt_): the first packet neither acknowledged nor SACKed
                let mut next = s;
                while let Some(e) = self.sb.sacked_until(next) {
                    next = e;
                }
                if next < board_end {
                    s = next;
                }
            }
            if s >= self.avail_end() {
                break; // past the data written (see the module comment)
            }
            let len = mss.min(self.data_end.saturating_sub(s));
            // if (t_seqno_ < next_pkt_) t_seqno_ = next_pkt_ (the packet sent, not past it)
            self.snd_nxt = self.snd_nxt.max(s);
            self.emit(cx, s, len, F::ACK); // output(next_pkt_, TCP_REASON_PARTIALACK)
            if s < board_end {
                self.high_rxt = self.high_rxt.max(s + len); // MarkRetran(next_pkt_)
            }
            self.sack1_next_pkt = s + len; // ++next_pkt_
        }
        self.sack1_pipe += 1; // ++pipe_
        if !std::mem::replace(&mut self.sack1_first_partial, true) {
            // newtimer(pkt), t_backoff_ = 1, firstpartial_ = 1
            self.arm_rto(cx.now);
            self.rtt.reset_backoff();
        }
        true
    }
}
