//! `Agent/TCP/FullTcp/Sack`: ns-2.35's SackFullTcpAgent (`tcp/tcp-full.cc`, the "SACK"
//! part at its end, and `tcp/tcp-full.h`). What it changes from FullTcpAgent:
//!
//! * receiver: each segment it sends carries up to `max_sack_blocks_` SACK blocks built from
//!   its reassembly queue, the most recently changed block first (`build_options`, rq.cc
//!   `gensack`), and its header grows by `sack_option_size_` + blocks x
//!   `sack_block_size_` bytes (`sendpacket`: hlen += build_options);
//! * sender: the peer's SACK blocks go into a scoreboard (`sq_`, a ReassemblyQueue whose
//!   next-expected number is `sack_min_`; `process_sack`, called by `recv` in ESTABLISHED
//!   and later states when the ACK carries blocks);
//! * `dupack_action`: `pipe_` = `maxseq_` - `highest_ack_` - the bytes SACKed; with
//!   `bugFix_` nothing more unless `highest_ack_` passed `recover_`; otherwise halve
//!   (CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF), fast-retransmit `highest_ack_`, turn on pipe
//!   control (`pipectrl_`: `send_allowed` counts `pipe_` against cwnd_, `foutput` ignores
//!   the window) with `h_seqno_` after the retransmitted segment, then `send_much`;
//! * `nxt_tseq`: during recovery (`highest_ack_` < `recover_`) the next hole at or after
//!   `h_seqno_` that has at least `sack_rtx_cthresh_` SACKed blocks after it
//!   (`sack_rtx_threshmode_` 1), else `t_seqno_`; `sent` advances `h_seqno_` too;
//! * `pack_action`: the scoreboard cleared below `highest_ack_`, `pipe_` less one segment;
//!   `ack_action`: leaves recovery and pipe control;
//! * `timeout_action`: FullTcpAgent's, then (`clear_on_timeout_`) the scoreboard cleared.
//!
//! `reno_fastrecov_` and `open_cwnd_on_pack_` are false for this class (ns-default.tcl's
//! `Agent/TCP/FullTcp/Sack instproc init`); the other defaults are ns-default.tcl's
//! `Agent/TCP/FullTcp/Sack set ...` lines (sack_block_size_ 8, sack_option_size_ 2,
//! max_sack_blocks_ 3, clear_on_timeout_ true, sack_rtx_cthresh_ 1, sack_rtx_bthresh_ 1,
//! sack_rtx_threshmode_ 1); the script layer refuses other values. ECN (`ecn_`) is not
//! modelled, so the ECN branch of `dupack_action` is left out.

use super::window::{CLOSE_CWND_HALF, CLOSE_SSTHRESH_HALF};
use super::{FullTcpAgent, State, REASON_DUPACK};
use crate::endpoint::EndpointCtx;
use crate::packet::TcpHeader;

/// ns-default.tcl `Agent/TCP/FullTcp/Sack set sack_block_size_ 8`.
pub(crate) const SACK_BLOCK_SIZE: u32 = 8;
/// ns-default.tcl `Agent/TCP/FullTcp/Sack set sack_option_size_ 2`.
pub(crate) const SACK_OPTION_SIZE: u32 = 2;
/// ns-default.tcl `Agent/TCP/FullTcp/Sack set max_sack_blocks_ 3`.
pub(crate) const MAX_SACK_BLOCKS: usize = 3;
/// ns-default.tcl `Agent/TCP/FullTcp/Sack set sack_rtx_cthresh_ 1` (threshmode 1: count).
const SACK_RTX_CTHRESH: i64 = 1;

impl FullTcpAgent {
    pub(crate) fn is_sack(&self) -> bool {
        self.f.variant == super::FullTcpVariant::Sack
    }

    /// SackFullTcpAgent::reset's own part (before FullTcpAgent::reset).
    pub(crate) fn sack_reset(&mut self) {
        self.sq.clear();
        self.sack_min = -1;
        self.h_seqno = -1;
    }

    /// SackFullTcpAgent::build_options: the SACK blocks from the reassembly queue into the
    /// header; returns the option bytes they add.
    pub(crate) fn sack_build_options(&self, tcp: &mut TcpHeader) -> u32 {
        if !self.is_sack() || self.rq.empty() {
            return 0;
        }
        let blocks = self.rq.gensack(MAX_SACK_BLOCKS);
        for &(s, e) in &blocks {
            tcp.push_sack(s as u32 as u64, e as u32 as u64);
        }
        blocks.len() as u32 * SACK_BLOCK_SIZE + SACK_OPTION_SIZE
    }

    /// SackFullTcpAgent::process_sack: each block of the ACK into the scoreboard (an empty
    /// or reversed block without FIN is skipped, as ns-2 warns and skips it).
    pub(crate) fn process_sack(&mut self, tcp: &TcpHeader, fin: bool) {
        let n = tcp.sack_count();
        for i in 0..n {
            let (l, r) = tcp.sack[i];
            let (l, r) = (l as i32 as i64, r as i32 as i64);
            if !fin && l >= r {
                continue;
            }
            self.sq.add(l, r, 0, &mut self.sack_min);
        }
    }

    /// SackFullTcpAgent::dupack_action (no ECN).
    pub(crate) fn sack_dupack_action(&mut self, cx: &mut EndpointCtx) {
        let recovered = self.highest_ack > self.recover;
        self.fastrecov = true;
        self.pipe = self.maxseq - self.highest_ack - self.sq.total();
        if !recovered && self.f.bug_fix {
            return;
        }
        // full_sack_action
        self.slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF);
        self.rtx_at = None; // cancel_rtx_timer
        self.rtt_active = false;
        self.pipectrl = true;
        self.recover = self.maxseq;
        let amt = self.fast_retransmit(self.highest_ack, cx);
        self.h_seqno = self.highest_ack + amt;
        self.send_much(false, REASON_DUPACK, self.maxburst, cx);
    }

    /// The scoreboard forgets what `highest_ack_` now covers (pack_action, ack_action).
    fn sack_clear_below_ack(&mut self) {
        if !self.sq.empty() && self.sack_min < self.highest_ack {
            self.sack_min = self.highest_ack;
            self.sq.clearto(self.sack_min);
        }
    }

    /// SackFullTcpAgent::pack_action.
    pub(crate) fn sack_pack_action(&mut self) {
        self.sack_clear_below_ack();
        self.pipe -= self.maxseg();
        if self.h_seqno < self.highest_ack {
            self.h_seqno = self.highest_ack;
        }
    }

    /// SackFullTcpAgent::ack_action.
    pub(crate) fn sack_ack_action(&mut self) {
        self.fastrecov = false;
        self.pipectrl = false;
        self.sack_clear_below_ack();
        self.dupacks = 0;
        if self.h_seqno < self.highest_ack {
            self.h_seqno = self.highest_ack;
        }
    }

    /// SackFullTcpAgent::timeout_action's own part (after FullTcpAgent's).
    pub(crate) fn sack_timeout_action(&mut self) {
        // clear_on_timeout_ true
        self.sq.clear();
        self.sack_min = self.highest_ack;
    }

    /// SackFullTcpAgent::send_allowed under pipe control.
    pub(crate) fn sack_send_allowed(&self, seq: i64) -> bool {
        let topawin = self.highest_ack + self.wnd as i64 * self.maxseg();
        if seq >= topawin {
            return false;
        }
        if self.state != State::Established && seq > self.curseq {
            return false;
        }
        self.pipe < self.cwnd as i64 * self.maxseg()
    }

    /// SackFullTcpAgent::nxt_tseq (sack_rtx_threshmode_ 1).
    pub(crate) fn sack_nxt_tseq(&mut self) -> i64 {
        if self.highest_ack >= self.recover {
            return self.t_seqno;
        }
        let mut seq = self.h_seqno;
        loop {
            let (hole, fcnt, _fbytes) = self.sq.nexthole(seq);
            if hole <= 0 {
                break;
            }
            seq = hole;
            if fcnt >= SACK_RTX_CTHRESH {
                if seq > self.h_seqno {
                    self.h_seqno = seq;
                }
                return seq;
            } else if fcnt <= 0 {
                break;
            }
            seq += self.maxseg();
        }
        self.t_seqno
    }
}
