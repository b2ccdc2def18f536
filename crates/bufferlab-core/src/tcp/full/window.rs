//! FullTcp's congestion window and loss responses. The window arithmetic is tcp.cc's
//! (TcpAgent `opencwnd` with `windowOption_` 1, `slowdown`, `initial_window` with
//! `windowInitOption_` 1); the responses are tcp-full.cc's, per class:
//!
//! * FullTcpAgent (Reno): `dupack_action` halves ssthresh_ and cwnd_
//!   (CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF), fast-retransmits `highest_ack_` and inflates
//!   cwnd_ to ssthresh_ + dupacks_; each further duplicate ACK adds one (`extra_ack`, with
//!   `reno_fastrecov_`); any new ACK ends recovery (`pack_action` = `ack_action`: cwnd_ back
//!   to ssthresh_ if inflated). With `bugFix_` no second fast retransmit until `highest_ack_`
//!   passes `recover_` (unless the last cwnd action was a fast retransmit, or
//!   `highest_ack_` is 0).
//! * NewRenoFullTcpAgent: a partial ACK (below `recover_`) retransmits the next hole at once
//!   with cwnd_ = ssthresh_ and caps the burst at `recov_maxburst_` until a full ACK
//!   (`pack_action`, `ack_action`); `open_cwnd_on_pack_` false.
//! * TahoeFullTcpAgent: `dupack_action` sets cwnd_ to 1 (CLOSE_SSTHRESH_HALF|CLOSE_CWND_ONE)
//!   and goes back to `highest_ack_`; no inflation (`reno_fastrecov_` false).
//! * SackFullTcpAgent: sack.rs.
//! * `timeout_action` (all): `recover_` = `maxseq_`, CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART,
//!   the timer backed off, `t_seqno_` back to `highest_ack_`.

use super::{FullTcpAgent, FullTcpVariant, CWND_ACTION_DUPACK, CWND_ACTION_TIMEOUT, REASON_DUPACK};
use crate::endpoint::EndpointCtx;

/// tcp.h slowdown() flags.
pub(crate) const CLOSE_SSTHRESH_HALF: u32 = 0x0000_0001;
pub(crate) const CLOSE_CWND_HALF: u32 = 0x0000_0002;
pub(crate) const CLOSE_CWND_RESTART: u32 = 0x0000_0004;
pub(crate) const CLOSE_CWND_INIT: u32 = 0x0000_0008;
pub(crate) const CLOSE_CWND_ONE: u32 = 0x0000_0010;

impl FullTcpAgent {
    /// tcp.cc `opencwnd` (windowOption_ 1, no max_ssthresh_): +1 below ssthresh_, else
    /// +1/cwnd_; capped by maxcwnd_ (0: none).
    pub(crate) fn opencwnd(&mut self) {
        if self.cwnd < self.ssthresh as f64 {
            self.cwnd += 1.0;
        } else {
            self.cwnd += 1.0 / self.cwnd;
        }
    }

    fn windowd(&self) -> f64 {
        self.cwnd.min(self.wnd)
    }

    /// tcp.cc `slowdown` for the flags FullTcp uses (decrease_num_ 0.5).
    pub(crate) fn slowdown(&mut self, how: u32) {
        let halfwin = if self.p.ns2.precision_reduce {
            self.windowd() / 2.0
        } else {
            (self.window() / 2) as f64
        };
        if how & CLOSE_SSTHRESH_HALF != 0 {
            // decreasewin = decrease_num_ (0.5) x win: the same as halfwin
            self.ssthresh = halfwin as i64;
        }
        if how & CLOSE_CWND_HALF != 0 {
            self.cwnd = halfwin;
        } else if how & CLOSE_CWND_RESTART != 0 {
            self.cwnd = 1.0; // int(wnd_restart_), 1 (TcpAgent::reset)
        } else if how & CLOSE_CWND_INIT != 0 {
            self.cwnd = self.wnd_init.trunc();
        } else if how & CLOSE_CWND_ONE != 0 {
            self.cwnd = 1.0;
        }
        if self.ssthresh < 2 {
            self.ssthresh = 2;
        }
        if self.cwnd < 1.0 {
            self.cwnd = 1.0;
        }
        if how & (CLOSE_CWND_HALF | CLOSE_CWND_RESTART | CLOSE_CWND_INIT | CLOSE_CWND_ONE) != 0 {
            self.cong_action = true;
        }
        self.first_decrease = false;
    }

    /// foutput's idle restart: slowdown(CLOSE_CWND_INIT).
    pub(crate) fn slowdown_init(&mut self) {
        self.slowdown(CLOSE_CWND_INIT);
    }

    /// tcp.cc `initial_window` (windowInitOption_ 1: wnd_init_).
    pub(crate) fn initial_window(&self) -> f64 {
        self.wnd_init
    }

    /// tcp-full.cc `fast_retransmit`.
    pub(crate) fn fast_retransmit(&mut self, seq: i64, cx: &mut EndpointCtx) -> i64 {
        self.recover = self.maxseq;
        self.last_cwnd_action = CWND_ACTION_DUPACK;
        self.foutput(seq, REASON_DUPACK, cx)
    }

    /// The `tcprexmtthresh_`-th duplicate ACK: the class's `dupack_action`.
    pub(crate) fn dupack_action(&mut self, cx: &mut EndpointCtx) {
        if self.is_sack() {
            return self.sack_dupack_action(cx);
        }
        let recovered = self.highest_ack > self.recover;
        self.fastrecov = true;
        let bug_fix = self.f.bug_fix;
        if self.f.variant == FullTcpVariant::Tahoe {
            // TahoeFullTcpAgent::dupack_action
            if recovered || !bug_fix || self.highest_ack == 0 {
                self.recover = self.maxseq;
                self.last_cwnd_action = CWND_ACTION_DUPACK;
                self.slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_ONE);
                self.set_rtx_timer();
                self.rtt_active = false;
                self.t_seqno = self.highest_ack;
                self.send_much(false, super::REASON_NORMAL, 0, cx);
            }
            return;
        }
        // FullTcpAgent::dupack_action (also Newreno's)
        if recovered
            || !bug_fix
            || self.last_cwnd_action == CWND_ACTION_DUPACK
            || self.highest_ack == 0
        {
            self.slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF);
            self.rtx_at = None; // cancel_rtx_timer
            self.rtt_active = false;
            self.recover = self.maxseq;
            let _ = self.fast_retransmit(self.highest_ack, cx);
            self.cwnd = self.ssthresh as f64 + self.dupacks as f64;
        }
    }

    /// tcp-full.h `extra_ack`: duplicate ACKs past the threshold inflate the window.
    pub(crate) fn extra_ack(&mut self) {
        if self.f.reno_fastrecov {
            self.cwnd += 1.0;
        }
    }

    /// tcp-full.cc `pack`: a partial ACK during fast recovery.
    pub(crate) fn is_partial(&self, ackno: i64) -> bool {
        self.fastrecov && ackno >= self.highest_ack && ackno < self.recover
    }

    /// The class's `pack_action` (a partial ACK).
    pub(crate) fn pack_action(&mut self, cx: &mut EndpointCtx) {
        if self.f.variant == FullTcpVariant::Newreno {
            // NewRenoFullTcpAgent::pack_action
            let _ = self.fast_retransmit(self.highest_ack, cx);
            self.cwnd = self.ssthresh as f64;
            if self.save_maxburst < 0 {
                self.save_maxburst = self.maxburst as i64;
                self.maxburst = self.f.recov_maxburst;
            }
            return;
        }
        if self.is_sack() {
            return self.sack_pack_action();
        }
        self.reno_pack_action();
    }

    /// FullTcpAgent::pack_action: leave fast recovery, the window back to ssthresh_.
    fn reno_pack_action(&mut self) {
        if self.f.reno_fastrecov && self.fastrecov && self.cwnd > self.ssthresh as f64 {
            self.cwnd = self.ssthresh as f64;
        }
        self.fastrecov = false;
        self.dupacks = 0;
    }

    /// The class's `ack_action` (a full ACK).
    pub(crate) fn ack_action(&mut self) {
        if self.f.variant == FullTcpVariant::Newreno && self.save_maxburst >= 0 {
            self.maxburst = self.save_maxburst as u32;
            self.save_maxburst = -1;
        }
        if self.is_sack() {
            return self.sack_ack_action();
        }
        self.reno_pack_action();
    }

    /// tcp-full.cc `timeout_action`.
    pub(crate) fn timeout_action(&mut self) {
        self.recover = self.maxseq;
        if self.cwnd < 1.0 {
            self.cwnd = 1.0;
        }
        self.slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_RESTART);
        self.last_cwnd_action = CWND_ACTION_TIMEOUT;
        self.reset_rtx_timer();
        self.t_seqno = if self.highest_ack < 0 {
            self.iss
        } else {
            self.highest_ack
        };
        self.fastrecov = false;
        self.dupacks = 0;
        if self.is_sack() {
            self.sack_timeout_action();
        }
    }
}
