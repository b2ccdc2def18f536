//! ns-2.35's `Agent/TCP/Linux` (`tcp/linux/tcp_linux.cc`, `LinuxTcpAgent`; Wei and Cao,
//! "NS-2 TCP-Linux", 2006): its ACK processing, its loss recovery and its sending, over the
//! `ScoreBoard1` of `ns2_linux_scoreboard.rs`. On with the ns-2 rules
//! (`Rules::ns2_linux_agent`) and `ns2_agent.linux` (what `select_ca` installed: none, `reno`
//! or `cubic`), which the ns-2 translation sets for `Agent/TCP/Linux`. Packet numbers are
//! ns-2's: `highest_ack_` the last packet acknowledged, `t_seqno_` the next new one,
//! `maxseq_` the highest sent.
//!
//! * **recv** (`LinuxTcpAgent::recv`, "equivalence to tcp_ack"): an ACK past `t_seqno_` or
//!   below the cumulative ACK is ignored (no timer, no sending). `prior_in_flight` is read
//!   first; a new cumulative ACK sets `FLAG_DATA_ACKED` and moves `highest_ack_`
//!   (`ack_processing`); the scoreboard takes the ACK when it has SACK blocks or the board
//!   is not empty (`UpdateScoreBoard(highest_ack_, tcph)`); then `time_processing`: the
//!   timed packet's RTT sample and, with `timerfix_`, the retransmission timer restarted on
//!   every such ACK, duplicates included (`renew_timer`: `t_seqno_ > highest_ack_` always
//!   holds). An ACK is "dubious" (`tcp_ack_is_dubious`) when it acknowledges nothing new,
//!   SACKs something new or echoes ECN, or the state is not Open: then the window may grow
//!   (`tcp_may_raise_cwnd`: not in Recovery) and `tcp_fastretrans_alert` runs; otherwise
//!   the window grows on new data. `send_much` ends every ACK.
//! * **Window growth** (`tcp_cong_avoid`): without a module ns-2's `opencwnd()` (then
//!   `load_to_linux`: `snd_cwnd = int(cwnd_)`); with `reno`, `tcp_reno_cong_avoid`
//!   (`tcp/linux/src/tcp_cong.c`) with ns-2.35's `sysctl_tcp_abc` 1 (`ns-linux-param.c`;
//!   Linux's default was 0): `bytes_acked` counts every packet a new ACK acknowledges, in
//!   Recovery too, and is zeroed at a reduction; slow start adds a packet per ACK that
//!   acknowledges one (`tcp_slow_start`), congestion avoidance a packet per window
//!   acknowledged; capped at `snd_cwnd_clamp` = `window_`. With `cubic`, the same slow start
//!   and `bictcp_cong_avoid` above ssthresh (`ns2_linux_cubic.rs`). A module grows
//!   only when `prior_in_flight >= snd_cwnd` (`tcp_is_cwnd_limited`, ns-linux-c.h).
//! * **tcp_fastretrans_alert**: out of Recovery or Loss once `highest_ack_ >= recover_`: the
//!   scoreboard is cleared; `snd_cwnd` below `ssthresh` is raised to it and moderated to
//!   `packets_in_flight + tcp_max_burst` (`tcp_moderate_cwnd`; 3, `ns-linux-param.c`); rate
//!   halving stops (`next_pkts_in_flight_ = 0`). Else from Open or Loss (not Recovery), on
//!   `FLAG_DATA_LOST` or ECN: `recover_ = maxseq_`, `next_pkts_in_flight_ = snd_cwnd`
//!   (rate halving from the old window), and without a module
//!   `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF)`; with one `ssthresh = ca->ssthresh()`
//!   (`tcp_reno_ssthresh`: max(cwnd/2, 2); `bictcp_recalc_ssthresh`) and `snd_cwnd =
//!   ca->min_cwnd()` where the module has one (`tcp_reno_min_cwnd`: ssthresh/2), else
//!   ssthresh; state Recovery. Nothing is retransmitted here: `send_much` does it.
//! * **send_much** (`LinuxTcpAgent::send_much`): `next_pkts_in_flight_ =
//!   min(next_pkts_in_flight_, packets_in_flight + 1)`; while `packets_in_flight <
//!   max(snd_cwnd, next_pkts_in_flight_)`: the scoreboard's next lost packet
//!   (`GetNextRetran`, `MarkRetran` with `t_seqno_`), else the next new one; after each,
//!   `next_pkts_in_flight_ = min(it, max(packets_in_flight - 1, 1))`, so in recovery one
//!   packet goes out per two ACKs until the flight is down to `snd_cwnd` (rate halving).
//!   `window()` is `snd_cwnd` alone (not `window_`), `maxburst_` bounds one call.
//! * **timeout** (`LinuxTcpAgent::timeout`, `enter_loss`): without a module
//!   `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)`, with one `ssthresh =
//!   ca->ssthresh()` and `snd_cwnd = 1` (CUBIC then resets, `bictcp_state`); `recover_ = maxseq_`, state Loss, the scoreboard's
//!   `MarkLoss(highest_ack_ + 1, t_seqno_)` (not cleared: "In Linux, we don't clear
//!   scoreboard in timeout"); `reset_rtx_timer(TCP_REASON_TIMEOUT, 1)`: backed off, the RTT
//!   measurement ends, `t_seqno_` stays (no go-back-N: the lost packets are retransmitted
//!   from the scoreboard); rate halving stops; `send_much`. There is no undo ("We don't have
//!   undo yet") and no F-RTO.
//!
//! Not modelled: a timeout with nothing outstanding (ns-2 closes cwnd_ to the initial window
//! and rearms the timer for ever; bufferlab's timer is not rearmed without data outstanding),
//! and the modules' RTT inputs (`rtt_sample`, timestamps): no module ns-2.35 ships that
//! bufferlab maps reads them without `timestamps_`.

use super::ns2_linux_cubic::Bictcp;
use super::ns2_linux_scoreboard::{Scoreboard1, FLAG_DATA_LOST, FLAG_DATA_SACKED};
use super::{TcpSender, F};
use crate::endpoint::EndpointCtx;
use crate::packet::{Packet, MAX_SACK_BLOCKS};
use crate::tcp::cc::Ack;
use crate::tcp::ns2_agent::LinuxCa;

/// `ns-linux-util.h` `FLAG_ECE`.
const FLAG_ECE: u8 = 1;
/// `tcp_moderate_cwnd`'s `tcp_max_burst` (`tcp/linux/ns-linux-param.c`: 3).
const TCP_MAX_BURST: i64 = 3;

/// `icsk_ca_state` (the three states ns-2's agent enters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CaState {
    Open,
    Recovery,
    Loss,
}

/// The agent's own state beside the sender's.
#[derive(Debug, Clone)]
pub(super) struct Ns2Linux {
    sb: Scoreboard1,
    state: CaState,
    /// `recover_` (packets)
    recover: i64,
    /// `next_pkts_in_flight_`
    npif: i64,
    /// `snd_cwnd_cnt` (the `reno` module)
    cwnd_cnt: i64,
    /// `bytes_acked` in packets (ABC, `sysctl_tcp_abc` 1)
    acked: i64,
    module: LinuxCa,
    /// The `cubic` module's state (`ns2_linux_cubic.rs`)
    bic: Bictcp,
    /// Without a module, `linux_.snd_cwnd` when it is not `int(cwnd_)`: the window the
    /// recovery's exit moderated, until the next `load_to_linux()`.
    win: Option<i64>,
    /// With a module, ns-2's `cwnd_` as `save_from_linux()` last wrote it (packets):
    /// `next_pkts_in_flight_` while rate halving holds it above `snd_cwnd`.
    cwnd_var: Option<f64>,
}

impl Ns2Linux {
    pub(super) fn new(module: LinuxCa, p: &crate::tcp::config::TcpParams) -> Self {
        Ns2Linux {
            sb: Scoreboard1::new(),
            state: CaState::Open,
            recover: 0,
            npif: 0,
            cwnd_cnt: 0,
            acked: 0,
            module,
            bic: Bictcp::new(p.cubic_beta, p.cubic_c, p.cubic_fast_convergence),
            win: None,
            cwnd_var: None,
        }
    }

    /// ns-2's `cwnd_` for `$tcp trace cwnd_` and `$tcp set cwnd_`, if the agent's differs
    /// from the window (a module's `save_from_linux`).
    pub(super) fn cwnd_var(&self) -> Option<f64> {
        self.cwnd_var
    }

    /// Whether the agent is in Recovery or Loss (for reports).
    pub(super) fn recovering(&self) -> bool {
        self.state != CaState::Open
    }
}

impl TcpSender {
    /// `linux_.snd_cwnd`: the window in whole packets.
    fn lx_snd_cwnd(&self) -> i64 {
        (self.w.cwnd / self.w.mss).floor() as i64
    }

    /// `linux_.snd_cwnd` as `window()` reads it (see `Ns2Linux::win`).
    fn lx_win(&self, lx: &Ns2Linux) -> i64 {
        lx.win.unwrap_or_else(|| self.lx_snd_cwnd())
    }

    /// `snd_ssthresh` in packets (unbounded before the first loss).
    fn lx_ssthresh(&self) -> i64 {
        if self.w.ssthresh.is_finite() {
            (self.w.ssthresh / self.w.mss).floor() as i64
        } else {
            i64::MAX
        }
    }

    /// The first byte of ns-2 packet `k`.
    fn lx_byte(&self, k: i64) -> u64 {
        let data = (k - i64::from(self.p.handshake)).max(0) as u64;
        1 + data * self.mss()
    }

    /// `packets_in_flight()`: `t_seqno_ - (highest_ack_ + 1) - fack_out_ - sack_out_`; the
    /// unacknowledged opening packet (packet 0) counts.
    fn lx_in_flight(&self, lx: &Ns2Linux) -> i64 {
        let opening = (self.opening_slot() / self.mss()) as i64;
        lx.sb
            .packets_in_flight(self.ns2_pkts(self.snd_una), self.ns2_pkts(self.snd_nxt))
            + opening
    }

    /// `LinuxTcpAgent::recv` (see the module comment).
    pub(super) fn on_ack_ns2_linux(&mut self, pkt: &Packet, cx: &mut EndpointCtx) {
        let Some(mut lx) = self.lx.take() else {
            return;
        };
        self.lx_recv(&mut lx, pkt, cx);
        self.lx = Some(lx);
    }

    fn lx_recv(&mut self, lx: &mut Ns2Linux, pkt: &Packet, cx: &mut EndpointCtx) {
        let now = cx.now;
        let h = &pkt.tcp;
        let prior_snd_una = self.ns2_pkts(self.snd_una);
        let ack = self.ns2_pkts(h.ack);
        if h.ack > self.snd_max || ack > self.ns2_pkts(self.snd_nxt) || ack < prior_snd_una {
            return; // uninteresting or old ACK
        }
        let mut flag = 0u8;
        if self.p.ecn && h.flags & F::ECE != 0 && ack > 1 {
            flag |= FLAG_ECE;
        }
        let prior_in_flight = self.lx_in_flight(lx);
        let data_acked = ack > prior_snd_una;
        lx.acked += ack - prior_snd_una; // linux_.bytes_acked
        if data_acked && lx.module == LinuxCa::Cubic && lx.state == CaState::Open {
            lx.bic.acked((ack - prior_snd_una) as u32); // pkts_acked
        }
        let info = Ack {
            now,
            acked: h.ack.saturating_sub(self.snd_una),
            flight_before: self.flight(),
            snd_una: h.ack,
            snd_nxt: self.snd_nxt.max(self.snd_max),
            next_to_send: self.snd_nxt,
            clock_s: cx.now_s,
            rtt: Some(now.saturating_sub(h.ts_echo)),
            ack_rtt: None,
        };
        if data_acked {
            // ack_processing, and time_processing's sample of the timed packet
            self.take_rtt_sample(h, h.ack, now);
            self.snd_una = h.ack;
            self.snd_nxt = self.snd_nxt.max(h.ack);
        } else {
            self.stats.dupacks_received += 1;
        }
        let mut blocks = [(0i64, 0i64); MAX_SACK_BLOCKS];
        let mut nb = 0;
        for (s, e) in h.sack_blocks().take(MAX_SACK_BLOCKS) {
            blocks[nb] = (self.ns2_pkts(s), self.ns2_pkts(e));
            nb += 1;
        }
        if nb > 0 || !lx.sb.is_empty() {
            flag |= lx.sb.update(ack - 1, &blocks[..nb]);
        }
        // renew_timer (timerfix_): set_rtx_timer on every ACK that gets here
        if self.snd_max > self.snd_una {
            self.arm_rto(now);
        } else {
            self.rto_at = None;
        }
        let ece = flag & FLAG_ECE != 0;
        let dubious =
            !data_acked || flag & (FLAG_DATA_SACKED | FLAG_ECE) != 0 || lx.state != CaState::Open;
        let may_raise = (!ece || self.w.cwnd < self.w.ssthresh) && lx.state != CaState::Recovery;
        if data_acked && (may_raise || !dubious) {
            self.lx_cong_avoid(lx, &info, prior_in_flight);
        }
        if dubious {
            self.lx_fastretrans_alert(lx, flag);
        }
        if data_acked {
            self.check_app_progress(now);
        }
        self.lx_save_from_linux(lx);
        self.lx_send_much(lx, cx);
    }

    /// `save_from_linux()` (with a module, before `send_much`): `cwnd_` is
    /// `next_pkts_in_flight_` when above `snd_cwnd`, else `snd_cwnd`.
    fn lx_save_from_linux(&self, lx: &mut Ns2Linux) {
        if lx.module != LinuxCa::Ns2 {
            lx.cwnd_var = Some(lx.npif.max(self.lx_snd_cwnd()) as f64);
        }
    }

    /// `tcp_cong_avoid` (see the module comment).
    fn lx_cong_avoid(&mut self, lx: &mut Ns2Linux, info: &Ack, prior_in_flight: i64) {
        let cwnd = self.lx_snd_cwnd();
        let clamp = (self.p.max_window / self.mss()) as i64;
        match lx.module {
            LinuxCa::Ns2 => {
                self.grow(info); // opencwnd(); load_to_linux()
                lx.win = None;
            }
            _ if prior_in_flight < cwnd => {} // !tcp_is_cwnd_limited
            LinuxCa::Reno => {
                let mut c = cwnd;
                if c <= self.lx_ssthresh() {
                    lx_slow_start(lx, &mut c, clamp);
                } else if lx.acked >= c {
                    // RFC 3465 (ABC): one packet per window of data acknowledged
                    lx.acked -= c;
                    if c < clamp {
                        c += 1;
                    }
                }
                self.w.cwnd = c as f64 * self.w.mss;
            }
            LinuxCa::Cubic if cwnd <= self.lx_ssthresh() => {
                let mut c = cwnd;
                lx_slow_start(lx, &mut c, clamp); // bictcp_cong_avoid -> tcp_slow_start
                self.w.cwnd = c as f64 * self.w.mss;
            }
            LinuxCa::Cubic => {
                let now = (info.clock_s * 1000.0).trunc() as u32; // tcp_time_stamp
                let mut cnt = lx.cwnd_cnt as u32;
                let c = lx.bic.cong_avoid(cwnd as u32, &mut cnt, clamp as u32, now);
                lx.cwnd_cnt = i64::from(cnt);
                self.w.cwnd = f64::from(c) * self.w.mss;
            }
        }
    }

    /// `tcp_fastretrans_alert` (see the module comment).
    fn lx_fastretrans_alert(&mut self, lx: &mut Ns2Linux, flag: u8) {
        let highest_ack = self.ns2_pkts(self.snd_una) - 1;
        if lx.state != CaState::Open && highest_ack >= lx.recover {
            lx.sb.clear();
            lx.win = None; // without a module: load_to_linux()
            let ssthresh = self.lx_ssthresh();
            if self.lx_snd_cwnd() < ssthresh {
                // snd_cwnd = snd_ssthresh; tcp_moderate_cwnd(). Without a module that is
                // linux_.snd_cwnd alone: cwnd_ stays, and the next load_to_linux() undoes it.
                let c = ssthresh.min(self.lx_in_flight(lx) + TCP_MAX_BURST);
                if lx.module == LinuxCa::Ns2 {
                    lx.win = Some(c);
                } else {
                    self.w.cwnd = c as f64 * self.w.mss;
                }
            }
            lx.state = CaState::Open;
            lx.npif = 0; // stop rate halving
            return;
        }
        if lx.state == CaState::Recovery || flag & (FLAG_DATA_LOST | FLAG_ECE) == 0 {
            return;
        }
        lx.recover = self.ns2_pkts(self.snd_max) - 1; // recover_ = maxseq_
        lx.npif = self.lx_win(lx); // rate halving from the old window
        let mss = self.w.mss;
        match lx.module {
            LinuxCa::Ns2 => {
                // slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF): no floor under cwnd_ (half
                // of a window of 1 is 0.5, and snd_cwnd 0)
                let (ssthresh, half) = self.lx_slowdown(lx.npif, false);
                self.w.ssthresh = ssthresh;
                self.w.cwnd = half;
                lx.win = None;
            }
            LinuxCa::Reno => {
                // tcp_reno_ssthresh, then snd_cwnd = tcp_reno_min_cwnd = ssthresh / 2
                let ssthresh = (self.lx_snd_cwnd() >> 1).max(2);
                self.w.ssthresh = ssthresh as f64 * mss;
                self.w.cwnd = (ssthresh / 2) as f64 * mss;
            }
            LinuxCa::Cubic => {
                // bictcp_recalc_ssthresh; CUBIC has no min_cwnd: snd_cwnd = ssthresh
                let ssthresh = lx.bic.ssthresh(self.lx_snd_cwnd() as u32) as f64 * mss;
                self.w.ssthresh = ssthresh;
                self.w.cwnd = ssthresh;
            }
        }
        lx.cwnd_cnt = 0;
        lx.acked = 0;
        lx.state = CaState::Recovery;
        self.stats.fast_retransmits += 1;
        if flag & FLAG_ECE != 0 {
            self.stats.ecn_reductions += 1;
        }
        self.note_ns2_cong_action();
    }

    /// tcp.cc `slowdown(CLOSE_SSTHRESH_HALF | ...)` as the agent without a module runs it:
    /// `windowd()` is `LinuxTcpAgent::windowd`, `linux_.snd_cwnd` (whole packets), not
    /// min(cwnd_, window_). (ssthresh_, the halved cwnd_) in bytes.
    fn lx_slowdown(&mut self, snd_cwnd: i64, timeout: bool) -> (f64, f64) {
        let halve = !self.ns2_decreased || self.w.cwnd < self.w.ssthresh;
        self.ns2_decreased = true;
        let w = snd_cwnd as f64;
        let (ssthresh, cwnd) = self.p.ns2.slowdown(w, halve || timeout, halve);
        (ssthresh * self.w.mss, cwnd * self.w.mss)
    }

    /// `LinuxTcpAgent::send_much` (see the module comment).
    pub(super) fn send_data_ns2_linux(&mut self, cx: &mut EndpointCtx) {
        let Some(mut lx) = self.lx.take() else {
            return;
        };
        self.lx_send_much(&mut lx, cx);
        self.lx = Some(lx);
    }

    fn lx_send_much(&mut self, lx: &mut Ns2Linux, cx: &mut EndpointCtx) {
        let win = self.lx_win(lx);
        lx.npif = lx.npif.min(self.lx_in_flight(lx) + 1);
        let mut sent = 0;
        while self.lx_in_flight(lx) < win.max(lx.npif) {
            if let Some(x) = lx.sb.next_retran() {
                let t_seqno = self.ns2_pkts(self.snd_nxt);
                lx.sb.mark_retran(t_seqno);
                let s = self.lx_byte(x);
                let len = self.mss().min(self.data_end.saturating_sub(s));
                self.emit(cx, s, len, F::ACK);
            } else {
                let avail = self.avail_end();
                if self.snd_nxt >= avail {
                    return; // t_seqno_ >= curseq_
                }
                let s = self.snd_nxt;
                let len = self.mss().min(avail - s);
                self.emit(cx, s, len, F::ACK);
                self.snd_nxt = s + len;
            }
            lx.npif = lx.npif.min((self.lx_in_flight(lx) - 1).max(1));
            sent += 1;
            if self.burst_done(sent) {
                break;
            }
        }
    }

    /// `LinuxTcpAgent::timeout(TCP_TIMER_RTX)` with data outstanding (see the module
    /// comment); the caller checked that it is.
    pub(super) fn on_rto_ns2_linux(&mut self, cx: &mut EndpointCtx) {
        let Some(mut lx) = self.lx.take() else {
            return;
        };
        let now = cx.now;
        self.stats.timeouts += 1;
        self.last_action_timeout = true;
        // enter_loss()
        match lx.module {
            LinuxCa::Ns2 => {
                let (ssthresh, _) = self.lx_slowdown(self.lx_win(&lx), true);
                self.w.ssthresh = ssthresh;
                lx.win = None;
            }
            LinuxCa::Reno => {
                let ssthresh = (self.lx_snd_cwnd() >> 1).max(2);
                self.w.ssthresh = ssthresh as f64 * self.w.mss;
            }
            LinuxCa::Cubic => {
                let ssthresh = lx.bic.ssthresh(self.lx_snd_cwnd() as u32);
                self.w.ssthresh = f64::from(ssthresh) * self.w.mss;
                lx.bic.reset(); // tcp_set_ca_state(TCP_CA_Loss): bictcp_state
            }
        }
        self.w.cwnd = self.w.mss;
        lx.cwnd_cnt = 0;
        lx.acked = 0;
        self.note_ns2_cong_action();
        lx.recover = self.ns2_pkts(self.snd_max) - 1;
        lx.state = CaState::Loss;
        let (una, nxt) = (self.ns2_pkts(self.snd_una), self.ns2_pkts(self.snd_nxt));
        lx.sb.mark_loss(una, nxt);
        // reset_rtx_timer(TCP_REASON_TIMEOUT, 1): backoff, timer, rtt_active_ = 0
        self.rtt.back_off();
        self.arm_rto(now);
        self.timed = None;
        lx.npif = 0;
        self.lx_save_from_linux(&mut lx);
        self.lx_send_much(&mut lx, cx);
        self.lx = Some(lx);
    }
}

/// `tcp_slow_start` (`tcp/linux/src/tcp_cong.c`) with ns-2.35's `sysctl_tcp_abc` 1
/// (`tcp/linux/ns-linux-param.c`): nothing until a packet's worth is acknowledged, then
/// `snd_cwnd_cnt += snd_cwnd` and a packet for each `snd_cwnd` of it; `bytes_acked = 0`.
fn lx_slow_start(lx: &mut Ns2Linux, c: &mut i64, clamp: i64) {
    if lx.acked < 1 {
        return;
    }
    lx.acked = 0;
    lx.cwnd_cnt += *c;
    while lx.cwnd_cnt >= *c {
        lx.cwnd_cnt -= *c;
        if *c < clamp {
            *c += 1;
        }
    }
}
