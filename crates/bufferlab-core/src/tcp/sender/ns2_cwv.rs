//! ns-2.35's congestion window validation (`QOption_`, `EnblRTTCtr_`), `control_increase_`
//! and `aggressive_maxburst_` in the sender (rules and citations in
//! `tcp/ns2_agent/cwv.rs`; `tcp/tcp.cc` `process_qoption_after_send`, `rtt_counting`,
//! `process_qoption_after_ack`, `network_limited`, `recv`).
//!
//! ns-2 counts packets: packet 0 is the opening packet with `syn_` (bufferlab's byte 0),
//! else the first data packet (bytes 1 to 1 + mss); packet k >= 1 then ends at byte
//! 1 + k mss, or 1 + (k + 1) mss. `t_seqno_` is the packets sent through `snd_nxt`,
//! `highest_ack_` one less than the packets through `snd_una`, `curseq_` the packets
//! through the application's data (`data_end`).

use super::TcpSender;
use crate::tcp::cc::Ack;
use crate::tcp::config::CcKind;

/// tcp.cc's variables of `QOption_` (`T_last`, `T_prev`, `W_used`) and of its RTT counter
/// (`T_start`, `RTT_count`, `RTT_prev`, `RTT_goodcount`, `F_counting`, `W_timed`, `F_full`,
/// `Backoffs`), in ticks and packets; and `last_ack_` of Sack1's fast recovery, where
/// `highest_ack_` moves without it.
#[derive(Debug, Clone)]
pub(super) struct Ns2Cwv {
    t_last: i64,
    t_prev: i64,
    w_used: i64,
    t_start: i64,
    rtt_count: i64,
    rtt_prev: i64,
    rtt_goodcount: i64,
    f_counting: bool,
    w_timed: i64,
    f_full: bool,
    backoffs: i64,
    pub(super) sack1_last_ack: u64,
}

impl Ns2Cwv {
    /// tcp.cc `reset` (and `reset_qoption`) at tick `now`; ns-2 resets every agent when the
    /// simulation starts (`$ns run`), at time 0.
    pub(super) fn reset(now: i64) -> Self {
        Ns2Cwv {
            t_last: now,
            t_prev: now,
            w_used: 0,
            t_start: now,
            rtt_count: 0,
            rtt_prev: 0,
            rtt_goodcount: 1,
            f_counting: false,
            w_timed: -1,
            f_full: false,
            backoffs: 0,
            sack1_last_ack: 0,
        }
    }
}

impl TcpSender {
    /// ns-2's packet count through byte `b` (see the module comment).
    pub(super) fn ns2_pkts(&self, b: u64) -> i64 {
        if b == 0 {
            return 0;
        }
        let data = (b - 1).div_ceil(self.mss()) as i64;
        data + i64::from(self.p.handshake)
    }

    /// tcp.cc `tcp_now`: `int(clock / tcp_tick_ + 0.5)`.
    pub(super) fn ns2_tick_now(&self, now_s: f64) -> i64 {
        let tick = self.p.clock_granularity.as_secs_f64();
        (now_s / tick + 0.5) as i64
    }

    /// `window()`: int(min(cwnd_, window_)) packets.
    fn ns2_window_pkts(&self) -> i64 {
        (self.w.cwnd.min(self.p.max_window as f64) / self.w.mss).floor() as i64
    }

    /// `process_qoption_after_send` after a packet's `output`, with `QOption_`. `t_seqno`:
    /// `t_seqno_` then, the packet's own number in `TcpAgent::send_much` and `send_one`
    /// (which count it after the call), the next one in `Sack1TcpAgent::send_much`.
    pub(super) fn ns2_qoption_after_send(&mut self, now_s: f64, t_seqno: i64) {
        if !(self.p.ns2.qoption && self.rules.rto_in_ticks) {
            return;
        }
        let now = self.ns2_tick_now(now_s);
        if self.p.ns2.rtt_counter {
            return self.ns2_rtt_counting(now, t_seqno);
        }
        let tick = self.p.clock_granularity.as_secs_f64();
        let rtxcur = self.rtt.ns2_rtxcur().unwrap_or(3.0);
        // t_rtxcur_ is a whole number of ticks (rtt_update), at least one
        let rto = ((rtxcur / tick) as i64).max(1);
        let wnd = self.p.max_window as f64 / self.w.mss;
        let a = self.p.ns2;
        let c = &mut self.cwv;
        if now - c.t_last >= rto {
            // idle: 3/4 ssthresh, then the window halved per RTO idle
            a.three_quarter_ssthresh(&mut self.w);
            for _ in 0..(now - c.t_last) / rto {
                a.half_with_min(&mut self.w, wnd);
            }
            self.ns2_decreased = true;
            c.t_prev = now;
            c.w_used = 0;
        }
        c.t_last = now;
        self.ns2_app_limited(now, t_seqno, rto, false);
    }

    /// The end of `process_qoption_after_send` and `rtt_counting`: a full window starts a
    /// new period of use; the application's last packet measures the window used and, after
    /// an RTO (two counted round trips) without a full window, decays the window half way.
    fn ns2_app_limited(&mut self, now: i64, t_seqno: i64, rto: i64, counting: bool) {
        let highest_ack = self.ns2_pkts(self.snd_una) - 1;
        let curseq = self.ns2_pkts(self.data_end);
        let wnd = self.p.max_window as f64 / self.w.mss;
        let full = t_seqno == highest_ack + self.ns2_window_pkts();
        let a = self.p.ns2;
        let c = &mut self.cwv;
        if full {
            c.w_used = 0;
            if counting {
                c.f_full = true;
                c.rtt_prev = c.rtt_count;
            } else {
                c.t_prev = now;
            }
        } else if t_seqno == curseq - 1 {
            c.w_used = c.w_used.max(t_seqno - highest_ack);
            let due = if counting {
                c.rtt_count - c.rtt_prev >= 2
            } else {
                now - c.t_prev >= rto
            };
            if due {
                a.three_quarter_ssthresh(&mut self.w);
                a.half_way(&mut self.w, wnd, c.w_used);
                self.ns2_decreased = true;
                if counting {
                    c.rtt_prev = c.rtt_count;
                    c.backoffs += 1;
                } else {
                    c.t_prev = now;
                }
                c.w_used = 0;
            }
        }
    }

    /// `rtt_counting` (`EnblRTTCtr_`): idle time in round trips of `t_srtt_`.
    fn ns2_rtt_counting(&mut self, now: i64, t_seqno: i64) {
        let srtt_ticks = self.rtt.ns2_var("srtt_").unwrap_or(0.0) as i64;
        let rtt = (srtt_ticks >> self.rtt.ns2_srtt_bits()).max(1);
        let wnd = self.p.max_window as f64 / self.w.mss;
        let a = self.p.ns2;
        let c = &mut self.cwv;
        if now - c.t_last >= 2 * rtt {
            let rtts = (now - c.t_last) * c.rtt_goodcount / (rtt * 2) - c.backoffs;
            c.backoffs = 0;
            if rtts > 0 {
                a.three_quarter_ssthresh(&mut self.w);
                for _ in 0..rtts {
                    a.half_with_min(&mut self.w, wnd);
                    c.rtt_prev = c.rtt_count;
                    c.w_used = 0;
                }
                self.ns2_decreased = true;
            }
        }
        c.t_last = now;
        if now - c.t_start >= 2 * rtt {
            if c.rtt_count > c.rtt_goodcount || c.f_full {
                c.rtt_goodcount = c.rtt_count.max(1);
            }
            c.rtt_prev -= c.rtt_count;
            c.rtt_count = 0;
            c.t_start = now;
            c.f_full = false;
        }
        self.ns2_app_limited(now, t_seqno, 0, true);
        let c = &mut self.cwv;
        if !c.f_counting {
            c.w_timed = t_seqno;
            c.f_counting = true;
        }
    }

    /// `process_qoption_after_ack`, called by `TcpAgent::recv` only (Agent/TCP, not Reno,
    /// NewReno or Sack1) with `QOption_` and `EnblRTTCtr_`, after the ACK's own rules: a
    /// round trip is counted when the timed packet is acknowledged, or at the
    /// `numdupacks_`-th duplicate.
    pub(super) fn ns2_qoption_after_ack(&mut self, ack: u64) {
        let a = self.p.ns2;
        if !(a.qoption && a.rtt_counter && self.rules.rto_in_ticks)
            || self.p.cc != CcKind::Tahoe
            || self.p.sack
        {
            return;
        }
        let seqno = self.ns2_pkts(ack) - 1;
        let thresh = self.p.dupack_threshold;
        let dupacks = self.dupacks;
        let c = &mut self.cwv;
        if c.f_counting {
            if seqno >= c.w_timed {
                c.rtt_count += 1;
                c.f_counting = false;
            } else if dupacks == thresh {
                c.rtt_count += 1;
            }
        }
    }

    /// `control_increase_` (`recv_newack_helper`): whether the new ACK may open the window,
    /// `network_limited()`: `t_seqno_ > prev_highest_ack_ + window()`.
    pub(super) fn ns2_window_was_used(&self, info: &Ack) -> bool {
        if !(self.p.ns2.control_increase && self.rules.rto_in_ticks) {
            return true;
        }
        let prev_highest_ack = self.ns2_pkts(info.snd_una - info.acked) - 1;
        self.ns2_pkts(self.snd_nxt) > prev_highest_ack + self.ns2_window_pkts()
    }

    /// `recv_newack_helper` with `QOption_`: the timer stops once everything the application
    /// gave is acknowledged (`curseq_ == highest_ack_ + 1`).
    pub(super) fn ns2_qoption_all_acked(&self) -> bool {
        self.p.ns2.qoption
            && self.rules.rto_in_ticks
            && self.ns2_pkts(self.data_end) == self.ns2_pkts(self.snd_una)
    }

    /// `valid_ack || aggressive_maxburst_` (`recv`): whether the ACK may send. `last_ack`:
    /// ns-2's `last_ack_` before the ACK.
    pub(super) fn ns2_ack_may_send(&self, ack: u64, last_ack: u64) -> bool {
        self.p.ns2.aggressive_maxburst || !self.rules.rto_in_ticks || ack >= last_ack
    }
}
