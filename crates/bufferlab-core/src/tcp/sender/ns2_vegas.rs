//! ns-2.35's `Agent/TCP/Vegas` loss handling (`Rules::vegas_fine_grained_retransmit`, set by
//! `tcp/flavour/ns2.rs`): `tcp/tcp-vegas.cc` `VegasTcpAgent::recv`, `timeout`, `output` and
//! `vegas_expire`, after Brakmo and Peterson, "TCP Vegas: End to End Congestion Avoidance on a
//! Global Internet", IEEE JSAC 13(8), 1995, section 3.1 (the fine-grained retransmission).
//! The window rules of each round are in `cc/vegas.rs`.
//!
//! * **Send times** (`output`): each packet's time on the Vegas clock (`vegastime()`, in
//!   ns-2's doubles from `firstsent_`: the first send, or a timeout's resend of packet 0) and its number of transmissions, in rings of `window_` slots indexed by the
//!   packet number modulo `window_` (`v_sendtime_`, `v_transmits_`). A new ACK clears the
//!   slots from `oldack + 1` up to its packet only while the index does not wrap (ns-2's loop
//!   stops at the wrap), so a slot reused after a wrap keeps counting transmissions.
//! * **Timeout estimate** (`recv`): at the first ACK `v_rtt_` = its Vegas time, `v_sa_` = 8
//!   `v_rtt_`, `v_sd_` = `v_rtt_`, `v_timeout_ = (v_sa_/4 + v_sd_)/2`; each new ACK whose
//!   packet went out once (and not at Vegas time 0) updates `v_sa_` and `v_sd_` as Jacobson's
//!   estimator and `v_timeout_ = (v_sa_/4 + v_sd_)/2 * 17/16`.
//! * **Duplicate ACK**: `dupacks_` + 1; if `last_ack_ + 1` has been out `v_timeout_` or more
//!   (`vegas_expire`) or this is the `numdupacks_`-th duplicate, and the window is not the one of
//!   a timeout (`bug_fix_`): `recover_ = maxseq_`, `v_worried_ = min(2, t_seqno_ - last_ack_)`,
//!   `v_timeout_` doubled for a packet already retransmitted, else + 1/8; if the window has not
//!   changed since that packet was sent (`t_cwnd_changed_ < sendTime`) it falls to 2 (when
//!   `window()` <= 3), to half (packet resent before) or by a quarter, and `cwnd_` = that +
//!   `dupacks_`; `reset_rtx_timer(1)` (the coarse timer backs off and restarts, the timed
//!   packet is given up); `last_ack_ + 1` is resent; `dupacks_ = numdupacks_` when it had gone
//!   out once. Otherwise each duplicate past `numdupacks_` adds one packet to `cwnd_`.
//! * **New ACK**: after duplicates past `numdupacks_`, `cwnd_` falls to the reduced window if it
//!   is above it (ssthresh_ 2, `cc/vegas.rs`); then, for `v_worried_` new ACKs, the next packet
//!   is resent if it has expired too (`dupacks_ = numdupacks_`), else the worry ends.
//! * **Timeout**: the reduced window is forgotten and `t_cwnd_changed_` = now.

use super::{TcpSender, F};
use crate::endpoint::EndpointCtx;

/// The state `tcp-vegas.cc` keeps for its loss handling.
pub(super) struct VegasLoss {
    /// `firstsent_`: the origin of the Vegas clock, in the event clock's seconds (ns-2's
    /// doubles under its clock, so that `vegastime()` differences round as in ns-2).
    first_send: Option<f64>,
    /// `v_sendtime_` (seconds on the Vegas clock, -1 when cleared) and `v_transmits_`.
    send_time: Vec<f64>,
    transmits: Vec<u32>,
    /// `firstrecv_ >= 0`: the estimator has started.
    started: bool,
    sa: f64,
    sd: f64,
    /// `v_timeout_` in seconds.
    timeout: f64,
    /// `v_worried_`.
    worried: u64,
    /// `t_cwnd_changed_` on the Vegas clock.
    cwnd_changed: f64,
    /// `v_newcwnd_` in packets.
    newcwnd: f64,
}

impl VegasLoss {
    /// `window_` slots (`v_maxwnd_`), at most 65536.
    pub(super) fn new(window_packets: u64) -> Self {
        let m = window_packets.clamp(1, 1 << 16) as usize;
        Self {
            first_send: None,
            send_time: vec![-1.0; m],
            transmits: vec![0; m],
            started: false,
            sa: 0.0,
            sd: 0.0,
            timeout: 1000.0,
            worried: 0,
            cwnd_changed: 0.0,
            newcwnd: 0.0,
        }
    }

    /// `vegastime()` at `now_s` (`EndpointCtx::now_s`).
    pub(super) fn clock(&self, now_s: f64) -> f64 {
        self.first_send.map_or(0.0, |t0| now_s - t0)
    }

    fn slot(&self, pkt: u64) -> usize {
        (pkt % self.send_time.len() as u64) as usize
    }

    /// `vegas_expire` for packet `pkt`: out `v_timeout_` or more.
    fn expired(&self, pkt: u64, now_s: f64) -> bool {
        self.clock(now_s) - self.send_time[self.slot(pkt)] >= self.timeout
    }
}

impl TcpSender {
    /// ns-2's packet number of the segment starting at byte `seq`.
    fn vegas_pkt(&self, seq: u64) -> u64 {
        seq.saturating_sub(1) / self.mss()
    }

    /// `VegasTcpAgent::output`: the send time and transmission count of a data packet.
    pub(super) fn vegas_on_send(&mut self, seq: u64, now_s: f64) {
        let pkt = self.vegas_pkt(seq);
        // send_much sets firstsent_ whenever t_seqno_ is 0 (tcp.cc): at the first send, and
        // again when a timeout before packet 0's ACK goes back to it. A duplicate-ACK
        // retransmission of packet 0 (output() directly) does not.
        let restart = pkt == 0 && seq == self.snd_nxt;
        let Some(v) = self.vegas_loss.as_mut() else {
            return;
        };
        if restart || v.first_send.is_none() {
            v.first_send = Some(now_s);
        }
        let t = v.clock(now_s);
        let i = v.slot(pkt);
        v.send_time[i] = t;
        v.transmits[i] += 1;
    }

    /// `recv`: the first ACK starts the timeout estimate.
    pub(super) fn vegas_on_any_ack(&mut self, now_s: f64) {
        if let Some(v) = self.vegas_loss.as_mut().filter(|v| !v.started) {
            let r = v.clock(now_s);
            v.started = true;
            v.sa = r * 8.0;
            v.sd = r;
            v.timeout = (v.sa / 4.0 + v.sd) / 2.0;
        }
    }

    /// `recv` before `recv_newack_helper`: leave the inflated window (`dupacks_before` =
    /// `dupacks_` before this new ACK).
    pub(super) fn vegas_deflate(&mut self, dupacks_before: u32) {
        let Some(v) = self.vegas_loss.as_ref() else {
            return;
        };
        let newcwnd = v.newcwnd * self.w.mss;
        if dupacks_before > self.p.dupack_threshold && self.w.cwnd > newcwnd {
            self.w.cwnd = newcwnd;
            self.w.ssthresh = 2.0 * self.w.mss; // "vegas ssthresh is used only during slow-start"
        }
    }

    /// `recv` after the window rules of a new ACK: the timeout estimate, the slots of the
    /// acknowledged packets, and the worried check. `old_una` is SND.UNA before the ACK.
    /// tcp-vegas.cc recv: the RTT sample of a new ACK for the once-per-RTT average
    /// (v_sumRTT_), from the send time of the packet it acknowledges if that packet was sent
    /// once (`sendTime != 0. && transmits == 1`); none otherwise.
    pub(super) fn vegas_rtt_sample(&self, now_s: f64) -> Option<f64> {
        let v = self.vegas_loss.as_ref()?;
        let i = v.slot(self.vegas_pkt(self.snd_una).wrapping_sub(1));
        (v.send_time[i] != 0.0 && v.transmits[i] == 1).then(|| v.clock(now_s) - v.send_time[i])
    }

    pub(super) fn vegas_on_new_ack(&mut self, old_una: u64, cx: &mut EndpointCtx) {
        let seqno = self.vegas_pkt(self.snd_una).wrapping_sub(1); // tcph->seqno()
        let oldack = self.vegas_pkt(old_una).wrapping_sub(1); // last_ack_ before it
        let thresh = self.p.dupack_threshold;
        // read before the acknowledged slots are cleared below
        let sample = self.vegas_rtt_sample(cx.now_s);
        let Some(v) = self.vegas_loss.as_mut() else {
            return;
        };
        let m = v.send_time.len() as u64;
        let mut range = seqno.wrapping_sub(oldack);
        let mut k = oldack.wrapping_add(1) % m;
        while k <= seqno % m && range > 0 {
            v.send_time[k as usize] = -1.0;
            v.transmits[k as usize] = 0;
            k = (k + 1) % m;
            range -= 1;
        }
        if let Some(rtt) = sample {
            if rtt > 0.0 {
                let mut n = rtt - v.sa / 8.0;
                v.sa += n;
                n = n.abs();
                n -= v.sd / 4.0;
                v.sd += n;
                v.timeout = (v.sa / 4.0 + v.sd) / 2.0;
                v.timeout += v.timeout / 16.0;
            }
        }
        if v.worried > 0 {
            v.worried -= 1;
            if v.expired(seqno.wrapping_add(1), cx.now_s) {
                self.dupacks = thresh;
                // output(expired): a plain send (tcp.cc output), so a packet past maxseq_
                // starts the RTT timing if none runs (rtt_active_), as `emit` does; a resent
                // one leaves it (`retransmission_keeps_timed_segment`).
                let seq = self.snd_una;
                let len = self.mss().min(self.data_end.saturating_sub(seq));
                self.emit(cx, seq, len, F::ACK);
            } else {
                v.worried = 0;
            }
        }
    }

    /// `recv` for a duplicate ACK (`dupacks_` already counted).
    pub(super) fn vegas_on_dupack(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
        let thresh = self.p.dupack_threshold;
        let last_ack = self.vegas_pkt(self.snd_una).wrapping_sub(1);
        let t_seqno = self.vegas_pkt(self.snd_nxt);
        let guard_open = self.snd_una > self.recover || !self.last_action_timeout;
        let win_pkts = (self.w.cwnd.min(self.p.max_window as f64) / self.w.mss).floor();
        let dupacks = self.dupacks;
        let Some(v) = self.vegas_loss.as_mut() else {
            return;
        };
        let head = last_ack.wrapping_add(1);
        let expired = v.expired(head, cx.now_s);
        if !(expired || dupacks == thresh) {
            if dupacks > thresh {
                self.w.cwnd += self.w.mss;
            }
            return;
        }
        let i = v.slot(head);
        let (send_time, transmits) = (v.send_time[i], v.transmits[i]);
        if !guard_open {
            return;
        }
        v.worried = t_seqno.wrapping_sub(last_ack).min(2);
        if transmits > 1 {
            v.timeout *= 2.0;
        } else {
            v.timeout += v.timeout / 8.0;
        }
        if v.cwnd_changed < send_time {
            let mut win = win_pkts;
            if win <= 3.0 {
                win = 2.0;
            } else if transmits > 1 {
                win = (win / 2.0).floor();
            } else {
                win -= (win / 4.0).floor();
            }
            v.newcwnd = win;
            self.w.cwnd = (win + f64::from(dupacks)) * self.w.mss;
            v.cwnd_changed = v.clock(cx.now_s);
        }
        self.last_action_timeout = false;
        self.recover = self.snd_max;
        self.stats.fast_retransmits += 1;
        // reset_rtx_timer(1): rtt_backoff(), set_rtx_timer(), rtt_active_ = 0.
        self.rtt.back_off();
        self.arm_rto(now);
        self.timed = None;
        let seq = self.snd_una;
        let len = self.mss().min(self.data_end.saturating_sub(seq));
        self.emit(cx, seq, len, F::ACK);
        if transmits == 1 {
            self.dupacks = thresh;
        }
    }

    /// `VegasTcpAgent::timeout`: `v_newcwnd_ = 0`, `t_cwnd_changed_` = now.
    pub(super) fn vegas_on_timeout(&mut self, now_s: f64) {
        if let Some(v) = self.vegas_loss.as_mut() {
            v.newcwnd = 0.0;
            v.cwnd_changed = v.clock(now_s);
        }
    }
}
