//! TCP Vegas: L. Brakmo and L. Peterson, "TCP Vegas: End to End Congestion Avoidance on a
//! Global Internet", IEEE JSAC 13(8), 1995; rules as ns-2.35 `tcp/tcp-vegas.cc`
//! (`VegasTcpAgent::recv`), which the seed paper 004 ran.
//!
//! Once per RTT (when the ACK passes the first byte sent in the previous round):
//! * RTT = mean of the round's fine-grained samples (ns-2 `v_sumRTT_/v_cntRTT_`); BaseRTT is the
//!   smallest RTT seen (Brakmo section 3.2).
//! * Expected = (bytes outstanding)/BaseRTT, Actual = (bytes sent in the last round)/RTT,
//!   Diff = round((Expected - Actual) * BaseRTT) in segments (section 3.2; ns-2 rounds with +0.5).
//! * Congestion avoidance: Diff < alpha: +1 segment over the next RTT; Diff > beta: -1 segment
//!   at once; otherwise unchanged (section 3.2).
//! * Slow start: the window grows every other RTT only (section 3.3); when Diff > gamma the
//!   connection leaves slow start with cwnd -= cwnd/8 and ssthresh = 2 segments (ns-2).
//! * The window only grows while cwnd - outstanding <= 2 segments (ns-2).
//! * Loss by duplicate ACKs: the window falls to 3/4 (2 segments if it was <= 3; ns-2
//!   `win -= win>>2`); leaving recovery sets ssthresh to 2 segments ("vegas ssthresh is used
//!   only during slow-start", ns-2). Timeout: ssthresh = half the flight, cwnd = 2 segments
//!   (ns-2 `v_slowstart_` 2).
//!
//! With ns-2's own rules (`ns2_rules`, [`Vegas::ns2`]), as `VegasTcpAgent::recv` does it:
//! * the first round ends at the ACK of packet 0 (`v_begseq_` 0, `v_begtime_` = first send);
//!   a round ends when the ACK covers the packet `v_begseq_` = `t_seqno_` of the last decision
//!   (`tcph->seqno() >= v_begseq_`), one packet later than "passes the first byte";
//! * Expected counts `t_seqno_ - last_ack_` packets: the outstanding ones plus one, and the
//!   growth check is `cwnd_ - (t_seqno_ - last_ack_) <= 2`;
//! * the decision uses the samples of earlier ACKs; this ACK's sample is added after it, and
//!   packet 0 (send time 0 on the Vegas clock) gives none;
//! * `v_incr_` starts at 0 with `v_inc_flag_` 1; cwnd_ starts at 1 and becomes windowInit_
//!   on the second new ACK (`last_ack_ == 0 && delay_growth_`);
//! * a timeout keeps the round state (only cwnd_ = `v_slowstart_` 2 and ssthresh change).
//!
//! With ns-2's rules Vegas's loss handling is `tcp-vegas.cc`'s (`vegas_fine_grained_retransmit`,
//! `tcp/sender/ns2_vegas.rs`): the fine-grained retransmission check on every duplicate ACK
//! and on the two new ACKs after it (`vegas_expire`, `v_worried_`, Brakmo section 3.1), the
//! `t_cwnd_changed_` test and the coarse timer's back-off; otherwise recovery follows Reno.

use super::reno::half_flight;
use super::{Ack, CongestionControl, Recovery, Window};
use crate::units::SimTime;

pub struct Vegas {
    alpha: f64,
    beta: f64,
    gamma: f64,
    base_rtt: f64,
    sum_rtt: f64,
    cnt_rtt: u32,
    beg_seq: u64,
    beg_time: SimTime,
    /// `v_begtime_` on ns-2's Vegas clock (`Ack::clock_s`), under its rules.
    beg_clock: f64,
    inc_flag: bool,
    /// Window added per ACK until the next round decision (in packets under ns-2's rules,
    /// else bytes).
    incr: f64,
    started: bool,
    /// Last Diff computed (segments), for tests and reports.
    pub last_diff: Option<f64>,
    /// ns-2.35 rules (module notes) with windowInit_ in segments.
    ns2: Option<f64>,
    new_acks: u64,
    /// (window in bytes, the same in units) as this agent last set it.
    cwnd_written: Option<(f64, f64)>,
}

impl Vegas {
    pub fn new(alpha: f64, beta: f64, gamma: f64) -> Self {
        Self {
            alpha,
            beta,
            gamma,
            base_rtt: f64::INFINITY,
            sum_rtt: 0.0,
            cnt_rtt: 0,
            beg_seq: 0,
            beg_time: SimTime::ZERO,
            beg_clock: 0.0,
            inc_flag: true,
            incr: 0.0,
            started: false,
            last_diff: None,
            ns2: None,
            new_acks: 0,
            cwnd_written: None,
        }
    }

    /// ns-2.35 `tcp-vegas.cc` details (module notes); `iw` = windowInit_ in segments.
    pub fn ns2(mut self, iw: f64) -> Self {
        self.ns2 = Some(iw);
        self.incr = 0.0;
        self
    }

    fn add_sample(&mut self, r: Option<SimTime>) {
        if let Some(r) = r {
            let r = r.as_secs_f64();
            if r > 0.0 {
                self.sum_rtt += r;
                self.cnt_rtt += 1;
                self.base_rtt = self.base_rtt.min(r);
            }
        }
    }
    /// `cwnd` in `unit`s: the value this agent last wrote, if nobody changed the window since
    /// (`x * mss / mss` need not give `x` back), else converted.
    fn cwnd_in_units(&self, w: &Window, unit: f64) -> f64 {
        match self.cwnd_written {
            Some((bytes, units)) if bytes == w.cwnd => units,
            _ => w.cwnd / unit,
        }
    }
    fn set_cwnd_in_units(&mut self, w: &mut Window, cwnd: f64, unit: f64) {
        w.cwnd = cwnd * unit;
        self.cwnd_written = Some((w.cwnd, cwnd));
    }
    pub fn base_rtt(&self) -> Option<f64> {
        self.base_rtt.is_finite().then_some(self.base_rtt)
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }
    fn recovery(&self) -> Recovery {
        Recovery::Reno
    }
    fn on_ack(&mut self, w: &mut Window, a: &Ack) {
        let mss = w.mss;
        let ns2 = self.ns2.is_some();
        // The window arithmetic runs in ns-2's unit under its rules: `cwnd_` is a double in
        // packets and `v_incr_ = 1/cwnd_`, so nine increments of 1/9 reach 10 exactly as in
        // ns-2 (or fall an ulp short, as there). In bytes the same sums round elsewhere and
        // `int(cwnd_)` can differ by a packet.
        let unit = if ns2 { mss } else { 1.0 };
        let seg = mss / unit;
        let mut cwnd = self.cwnd_in_units(w, unit);
        let ssthresh = w.ssthresh / unit;
        self.new_acks += 1;
        if let Some(iw) = self.ns2 {
            if self.new_acks == 2 {
                cwnd = iw; // last_ack_ == 0 && delay_growth_
            }
        }
        if !self.started {
            self.started = true;
            if ns2 {
                // v_begseq_ 0 (the first data byte) and v_begtime_ 0 on the clock started by
                // the first send.
                self.beg_seq = a.snd_una - a.acked;
                self.beg_clock = 0.0;
            } else {
                self.beg_seq = a.snd_nxt;
                self.beg_time = a.now;
                self.incr = seg; // slow start until the first decision
            }
        }
        if !ns2 {
            self.add_sample(a.rtt);
        }
        // One packet more than outstanding in ns-2 (t_seqno_ - last_ack_), and ns-2 counts
        // from t_seqno_, which a timeout sets back to the first unacknowledged packet.
        let extra = if ns2 { mss } else { 0.0 };
        let next = if ns2 { a.next_to_send } else { a.snd_nxt };
        let round_over = if ns2 {
            a.snd_una > self.beg_seq
        } else {
            a.snd_una >= self.beg_seq
        };
        if round_over {
            // ---- once per RTT ----
            let rtt = if self.cnt_rtt > 0 {
                self.sum_rtt / self.cnt_rtt as f64
            } else if ns2 {
                a.clock_s - self.beg_clock
            } else {
                (a.now.saturating_sub(self.beg_time)).as_secs_f64()
            };
            self.sum_rtt = 0.0;
            self.cnt_rtt = 0;
            // Negative after a go-back-N timeout (ns-2's int rttLen), which makes the RTT
            // the new base.
            let rtt_len = (next as f64 - self.beg_seq as f64) / mss;
            if rtt > 0.0 {
                if rtt < self.base_rtt || rtt_len <= 1.0 {
                    self.base_rtt = rtt;
                }
                let actual = rtt_len / rtt;
                let expect =
                    ((next.saturating_sub(a.snd_una)) as f64 + extra) / mss / self.base_rtt;
                let diff = ((expect - actual) * self.base_rtt + 0.5).floor();
                self.last_diff = Some(diff);
                if cwnd < ssthresh {
                    self.inc_flag = !self.inc_flag;
                    if !self.inc_flag {
                        self.incr = 0.0;
                    } else if diff > self.gamma {
                        w.ssthresh = 2.0 * mss;
                        cwnd = (cwnd - cwnd / 8.0).max(2.0 * seg);
                        self.incr = 0.0;
                    } else {
                        self.incr = seg;
                    }
                } else if diff > self.beta {
                    cwnd = (cwnd - seg).max(2.0 * seg);
                    self.incr = 0.0;
                } else if diff < self.alpha {
                    self.incr = seg * seg / cwnd;
                } else {
                    self.incr = 0.0;
                }
            }
            self.beg_seq = next;
            self.beg_time = a.now;
            self.beg_clock = a.clock_s;
        }
        if self.incr >= seg && cwnd >= w.ssthresh / unit {
            self.incr = 0.0;
        }
        let outstanding = (next.saturating_sub(a.snd_una) as f64 + extra) / unit;
        if self.incr > 0.0 && cwnd - outstanding <= 2.0 * seg {
            cwnd += self.incr;
        }
        self.set_cwnd_in_units(w, cwnd, unit);
    }
    fn ns2_vegas_rtt_sample(&mut self, rtt: Option<f64>) {
        // tcp-vegas.cc recv: v_sumRTT_ and v_cntRTT_ for the round's average, after its rules;
        // v_baseRTT_ from a positive sample only.
        if let (Some(_), Some(r)) = (self.ns2, rtt) {
            self.sum_rtt += r;
            self.cnt_rtt += 1;
            if r > 0.0 {
                self.base_rtt = self.base_rtt.min(r);
            }
        }
    }
    fn ssthresh_on_loss(&mut self, w: &Window, _flight: u64, _now: SimTime) -> f64 {
        let win = (w.cwnd / w.mss).floor();
        let new = if win <= 3.0 {
            2.0
        } else {
            win - (win / 4.0).floor()
        };
        new * w.mss
    }
    fn on_recovery_exit(&mut self, w: &mut Window, _now: SimTime) {
        w.cwnd = w.ssthresh;
        w.ssthresh = 2.0 * w.mss;
    }
    fn on_timeout(&mut self, w: &mut Window, flight: u64, _now: SimTime) {
        w.ssthresh = half_flight(w, flight);
        w.cwnd = 2.0 * w.mss;
        if self.ns2.is_none() {
            self.started = false;
        }
    }
    fn report(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "base_rtt_s": self.base_rtt(),
            "last_diff_segments": self.last_diff,
        }))
    }
}
