//! BBRv3 (`cc = "bbr3"`), rule by rule from draft-ietf-ccwg-bbr (Cardwell, Swett, Beshay,
//! "BBR Congestion Control", IETF CCWG; sections cited as "draft 4.x") and Google's public v3
//! code (github google/bbr, branch v3, `net/ipv4/tcp_bbr.c`, read through the search tool;
//! function names cited as "v3 `bbr_...`"). Rates are payload bytes per second, volumes bytes.
//! Where the draft and the code differ this file says which one it follows.
//!
//! * Model (draft 4.5 `BBRUpdateModelAndState`, v3 `bbr_main`/`bbr_update_model`): the max
//!   bandwidth is the larger of two slots, each the max delivery rate of one ProbeBW cycle
//!   (draft 4.5.2.4 `MaxBwFilter` over 2 cycles, v3 `bw_hi[2]`, `bbr_advance_max_bw_filter`);
//!   the min RTT is refreshed by any lower sample and replaced after 10 s (draft
//!   `BBRMinRTTFilterLen`), fed by a 5 s ProbeRTT min (draft `BBRProbeRTTInterval`, v3
//!   `bbr_update_min_rtt`). The short-term bounds `bw_shortterm` and `inflight_shortterm` (v3
//!   `bw_lo`/`inflight_lo`) and the long-term bound `inflight_longterm` (v3 `inflight_hi`) are in
//!   `signals.rs` and `probe_bw.rs`. bw = min(max_bw, bw_shortterm) (draft `BBRBoundBWForModel`,
//!   v3 `bbr_bw`).
//! * Startup (draft 4.3.1): pacing gain 2.77, cwnd gain 2; ends when the bandwidth grows less
//!   than 25 % in 3 rounds (v3 `bbr_check_full_bw_reached`, on the round's sample), or on high
//!   loss or ECN (`signals.rs`). Drain (draft 4.3.2): pacing gain 0.35 until in flight <= 1 BDP.
//! * ProbeBW DOWN/CRUISE/REFILL/UP with randomized wall-clock probe timing (`probe_bw.rs`).
//! * ProbeRTT (draft 4.3.4, v3 `bbr_update_min_rtt`, `bbr_handle_probe_rtt`): every 5 s
//!   without a lower RTT, cwnd min(.., max(0.5 BDP, 4 segments)) for 200 ms and one round,
//!   then the lower bounds are reset and ProbeBW resumes in CRUISE (or Startup).
//! * Control: pacing rate = gain * bw * (1 - 1 %) (draft `BBRPacingMarginPercent`; before the
//!   pipe is full it only rises, v3 `bbr_set_pacing_rate`); cwnd = gain * BDP + extra-ACKed
//!   allowance, quantized to at least 3 send quanta and 4 segments (+2 segments in UP), grown by
//!   the ACKed bytes up to that target (v3 `bbr_set_cwnd`, `bbr_quantization_budget`), then
//!   bounded by the inflight model (v3 `bbr_bound_cwnd_for_inflight_model`, draft
//!   `BBRBoundCwndForModel`). Loss recovery: packet conservation for a round, then the saved
//!   cwnd (v3 `bbr_set_cwnd_to_recover_or_restore`, as v1).
//!
//! Not here: PLB, TLP-based loss probes, undo of spurious recovery, the fast path, restart
//! from idle, TSO autosizing beyond one millisecond of the pacing rate.

mod probe_bw;
mod signals;
#[cfg(test)]
mod tests;

pub use probe_bw::Phase;

use super::Mode;
use crate::rng::Rng;
use crate::tcp::cc::{Ack, CongestionControl, Conn, EcnFeedback, RateSample, Recovery, Window};
use crate::tcp::config::TcpParams;
use crate::units::SimTime;
use probe_bw::AckPhase;

/// Draft `BBRStartupPacingGain` 4 ln 2 = 2.77 (v3 `bbr_startup_pacing_gain` 277/100).
pub const STARTUP_PACING_GAIN: f64 = 2.77;
/// Draft `BBRStartupCwndGain` 2 (v3 `bbr_startup_cwnd_gain`).
pub const STARTUP_CWND_GAIN: f64 = 2.0;
/// Draft `BBRDrainPacingGain` 0.35 (v3 `bbr_drain_gain` 1000/2885 = 0.347: the draft's value).
pub const DRAIN_PACING_GAIN: f64 = 0.35;
/// Draft `BBRDefaultCwndGain` 2 (v3 `bbr_cwnd_gain`).
pub const CWND_GAIN: f64 = 2.0;
/// Draft `BBRPacingMarginPercent` 1 (v3 `bbr_pacing_margin_percent`).
const PACING_MARGIN: f64 = 0.01;
/// Draft `BBRMinRTTFilterLen` 10 s (v3 `bbr_min_rtt_win_sec`).
const MIN_RTT_WINDOW: SimTime = SimTime::from_secs(10);
/// Draft `BBRProbeRTTInterval` 5 s (v3 `bbr_probe_rtt_win_ms`).
const PROBE_RTT_INTERVAL: SimTime = SimTime::from_secs(5);
/// Draft `BBRProbeRTTDuration` 200 ms (v3 `bbr_probe_rtt_mode_ms`).
const PROBE_RTT_DURATION: SimTime = SimTime::from_millis(200);
/// Draft `BBRProbeRTTCwndGain` 0.5 (v3 `bbr_probe_rtt_cwnd_gain`).
pub const PROBE_RTT_CWND_GAIN: f64 = 0.5;
/// Draft `BBRMinPipeCwnd` 4 segments (v3 `bbr_cwnd_min_target`).
const MIN_PIPE_SEGMENTS: f64 = 4.0;
/// v3 `bbr_full_bw_thresh` 5/4 and `bbr_full_bw_cnt` 3 (draft 4.3.1.2 `BBRCheckStartupFullBandwidth`).
const FULL_BW_THRESH: f64 = 1.25;
const FULL_BW_COUNT: u32 = 3;
/// v3 `bbr_extra_acked_win_rtts` 5, `bbr_extra_acked_max_us` 100 ms,
/// `bbr_ack_epoch_acked_reset_thresh` 2^20 segments (draft 4.6.2.4 `BBRUpdateACKAggregation`).
const EXTRA_ACKED_WINDOW: u32 = 5;
const EXTRA_ACKED_MAX_S: f64 = 0.1;
const ACK_EPOCH_RESET_SEGMENTS: f64 = (1u64 << 20) as f64;
/// Linux `TCP_INIT_CWND` 10: cwnd grows freely before this much is delivered (v3 `bbr_set_cwnd`).
const INIT_CWND_SEGMENTS: f64 = 10.0;

pub struct Bbr3 {
    rng: Rng,
    mss: f64,
    /// The flow negotiated ECN (v3 `bbr_can_use_ecn`).
    ecn_capable: bool,
    initialized: bool,
    pub mode: Mode,
    pub phase: Phase,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    pacing_rate: f64,
    has_seen_rtt: bool,
    init_cwnd: f64,
    // ---- model ----
    /// Two slots of the max filter (v3 `bw_hi`), bytes/s.
    bw_hi: [f64; 2],
    /// Draft `BBR.bw_shortterm` (v3 `bw_lo`); infinite when unset.
    pub bw_shortterm: f64,
    /// Draft `BBR.inflight_shortterm` (v3 `inflight_lo`); infinite when unset.
    pub inflight_shortterm: f64,
    /// Draft `BBR.inflight_longterm` (v3 `inflight_hi`); infinite when unset.
    pub inflight_longterm: f64,
    /// Draft `BBR.bw_latest`, `BBR.inflight_latest`: this round's max rate and delivered volume.
    bw_latest: f64,
    inflight_latest: f64,
    pub min_rtt: Option<SimTime>,
    min_rtt_stamp: SimTime,
    probe_rtt_min: Option<SimTime>,
    probe_rtt_min_stamp: SimTime,
    // ---- rounds ----
    delivered: u64,
    next_round_delivered: u64,
    pub round_count: u64,
    round_start: bool,
    rounds_since_probe: u32,
    // ---- startup ----
    pub full_bw_reached: bool,
    full_bw_now: bool,
    full_bw: f64,
    full_bw_count: u32,
    // ---- congestion signals (signals.rs) ----
    sig: signals::Signals,
    // ---- ProbeBW (probe_bw.rs) ----
    ack_phase: AckPhase,
    cycle_stamp: SimTime,
    probe_wait: SimTime,
    bw_probe_up_rounds: u32,
    bw_probe_up_acks: f64,
    bw_probe_up_cnt: f64,
    bw_probe_samples: bool,
    prev_probe_too_high: bool,
    stopped_risky_probe: bool,
    // ---- ProbeRTT ----
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    // ---- recovery ----
    in_recovery: bool,
    packet_conservation: bool,
    prior_cwnd: f64,
    // ---- ACK aggregation (v3 `bbr_update_ack_aggregation`) ----
    extra_acked: [f64; 2],
    extra_acked_idx: usize,
    extra_acked_rounds: u32,
    ack_epoch_time: SimTime,
    ack_epoch_acked: f64,
}

impl Bbr3 {
    pub fn new(p: &TcpParams, rng: Rng) -> Self {
        let mss = p.mss as f64;
        Self {
            rng,
            mss,
            ecn_capable: p.ecn,
            initialized: false,
            mode: Mode::Startup,
            phase: Phase::Down,
            pacing_gain: STARTUP_PACING_GAIN,
            cwnd_gain: STARTUP_CWND_GAIN,
            pacing_rate: 0.0,
            has_seen_rtt: false,
            init_cwnd: p.iw as f64 * mss,
            bw_hi: [0.0; 2],
            bw_shortterm: f64::INFINITY,
            inflight_shortterm: f64::INFINITY,
            inflight_longterm: f64::INFINITY,
            bw_latest: 0.0,
            inflight_latest: 0.0,
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt_min: None,
            probe_rtt_min_stamp: SimTime::ZERO,
            delivered: 0,
            next_round_delivered: 0,
            round_count: 0,
            round_start: false,
            rounds_since_probe: 0,
            full_bw_reached: false,
            full_bw_now: false,
            full_bw: 0.0,
            full_bw_count: 0,
            sig: signals::Signals::new(),
            ack_phase: AckPhase::Init,
            cycle_stamp: SimTime::ZERO,
            probe_wait: SimTime::ZERO,
            bw_probe_up_rounds: 0,
            bw_probe_up_acks: 0.0,
            bw_probe_up_cnt: f64::INFINITY,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            in_recovery: false,
            packet_conservation: false,
            prior_cwnd: 0.0,
            extra_acked: [0.0; 2],
            extra_acked_idx: 0,
            extra_acked_rounds: 0,
            ack_epoch_time: SimTime::ZERO,
            ack_epoch_acked: 0.0,
        }
    }

    /// v3 `bbr_max_bw`: the larger slot.
    pub fn max_bw(&self) -> f64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// v3 `bbr_bw`, draft `BBRBoundBWForModel`: min(max_bw, bw_shortterm).
    pub fn bw(&self) -> f64 {
        self.max_bw().min(self.bw_shortterm)
    }

    fn min_pipe_cwnd(&self) -> f64 {
        MIN_PIPE_SEGMENTS * self.mss
    }

    /// v3 `bbr_bdp`: ceil(bw * min_rtt * gain); the initial window before an RTT sample.
    pub fn bdp(&self, bw: f64, gain: f64) -> f64 {
        match self.min_rtt {
            Some(r) => (bw * r.as_secs_f64() * gain).ceil(),
            None => self.init_cwnd,
        }
    }

    /// v3 `bbr_quantization_budget`: at least 3 send quanta (v3 `bbr_tso_segs_goal`: the bytes
    /// of 2^-10 s at the pacing rate, at least 2 segments) and 4 segments; +2 segments in UP.
    fn quantization_budget(&self, cwnd: f64) -> f64 {
        let quantum =
            ((self.pacing_rate / 1024.0 / self.mss).floor() * self.mss).max(2.0 * self.mss);
        let mut c = cwnd.max(3.0 * quantum).max(self.min_pipe_cwnd());
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            c += 2.0 * self.mss;
        }
        c
    }

    /// v3 `bbr_inflight`: the quantized BDP at `gain`.
    pub fn inflight(&self, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// v3 `bbr_target_inflight`: min(BDP, cwnd).
    fn target_inflight(&self, w: &Window) -> f64 {
        self.inflight(self.bw(), 1.0).min(w.cwnd)
    }

    /// v3 `bbr_init` at the first ACK.
    fn init(&mut self, w: &Window, c: &Conn) {
        self.initialized = true;
        self.init_cwnd = w.cwnd.min(127.0 * self.mss);
        self.prior_cwnd = w.cwnd;
        self.next_round_delivered = c.delivered;
        self.min_rtt = c.min_rtt;
        self.min_rtt_stamp = c.now;
        self.probe_rtt_min = c.min_rtt;
        self.probe_rtt_min_stamp = c.now;
        self.ack_epoch_time = c.now;
        self.sig.start_round_after(c.delivered); // v3 loss_round_delivered = delivered + 1
        self.sig.ecn_alpha = signals::ECN_ALPHA_INIT;
        self.init_pacing_rate(w, c);
        self.enter_startup();
    }

    /// v3 `bbr_init_pacing_rate_from_rtt`: startup gain * cwnd / RTT (1 ms without one).
    fn init_pacing_rate(&mut self, w: &Window, c: &Conn) {
        let rtt = match c.min_rtt {
            Some(r) if r > SimTime::ZERO => {
                self.has_seen_rtt = true;
                r.as_secs_f64()
            }
            _ => 1e-3,
        };
        self.pacing_rate = STARTUP_PACING_GAIN * w.cwnd / rtt * (1.0 - PACING_MARGIN);
    }

    fn enter_startup(&mut self) {
        self.mode = Mode::Startup;
    }

    /// v3 `bbr_update_gains` (draft 4.3: each state's gains).
    fn update_gains(&mut self) {
        let (p, c) = match self.mode {
            Mode::Startup => (STARTUP_PACING_GAIN, STARTUP_CWND_GAIN),
            Mode::Drain => (DRAIN_PACING_GAIN, CWND_GAIN),
            Mode::ProbeBw => (self.phase.pacing_gain(), self.phase.cwnd_gain()),
            Mode::ProbeRtt => (1.0, PROBE_RTT_CWND_GAIN),
        };
        self.pacing_gain = p;
        self.cwnd_gain = c;
    }

    /// v3 `bbr_save_cwnd`.
    fn save_cwnd(&mut self, w: &Window) {
        if !self.in_recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = w.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(w.cwnd);
        }
    }

    /// v3 `bbr_update_round_start`: a round ends when data sent after its start is delivered.
    fn update_round_start(&mut self, rs: &RateSample) {
        self.round_start = false;
        if rs.delivered.is_some() && rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = self.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
    }

    /// v3 `bbr_reset_full_bw`.
    fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    /// v3 `bbr_check_full_bw_reached` (draft 4.3.1.2): 3 rounds without 25 % growth of the
    /// round's delivery-rate sample.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_now || rs.is_app_limited {
            return;
        }
        let sample = rs.delivery_rate;
        if sample >= self.full_bw * FULL_BW_THRESH {
            self.reset_full_bw();
            self.full_bw = sample;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= FULL_BW_COUNT;
        self.full_bw_reached |= self.full_bw_now;
    }

    /// v3 `bbr_check_drain` (draft 4.3.2).
    fn check_drain(&mut self, w: &mut Window, c: &Conn) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            w.ssthresh = self.inflight(self.max_bw(), 1.0); // for monitoring only
            self.sig
                .reset_congestion_signals(&mut self.bw_latest, &mut self.inflight_latest);
        }
        if self.mode == Mode::Drain && c.in_flight as f64 <= self.inflight(self.max_bw(), 1.0) {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down(c.now);
        }
    }

    /// v3 `bbr_update_min_rtt` (draft 4.3.4.4 `BBRUpdateMinRTT`, `BBRCheckProbeRTT`).
    fn update_min_rtt(&mut self, w: &mut Window, c: &Conn) {
        let probe_rtt_expired = c.now > self.probe_rtt_min_stamp + PROBE_RTT_INTERVAL;
        if let Some(r) = c.last_rtt.filter(|r| *r > SimTime::ZERO) {
            if self.probe_rtt_min.is_none_or(|m| r <= m) || probe_rtt_expired {
                self.probe_rtt_min = Some(r);
                self.probe_rtt_min_stamp = c.now;
            }
        }
        let min_rtt_expired = c.now > self.min_rtt_stamp + MIN_RTT_WINDOW;
        if let Some(p) = self.probe_rtt_min {
            if self.min_rtt.is_none_or(|m| p <= m) || min_rtt_expired {
                self.min_rtt = Some(p);
                self.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
        if probe_rtt_expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(w);
            self.probe_rtt_done = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.next_round_delivered = self.delivered;
        }
        if self.mode == Mode::ProbeRtt {
            self.handle_probe_rtt(w, c);
        }
    }

    /// v3 `bbr_probe_rtt_cwnd`: max(0.5 BDP, 4 segments).
    pub fn probe_rtt_cwnd(&self) -> f64 {
        self.bdp(self.bw(), PROBE_RTT_CWND_GAIN)
            .max(self.min_pipe_cwnd())
    }

    /// v3 `bbr_handle_probe_rtt`, `bbr_check_probe_rtt_done`, `bbr_exit_probe_rtt`.
    fn handle_probe_rtt(&mut self, w: &mut Window, c: &Conn) {
        match self.probe_rtt_done {
            None if c.in_flight as f64 <= self.probe_rtt_cwnd() => {
                self.probe_rtt_done = Some(c.now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = self.delivered;
            }
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && c.now > done {
                    self.probe_rtt_min_stamp = c.now;
                    w.cwnd = w.cwnd.max(self.prior_cwnd);
                    self.reset_lower_bounds();
                    if self.full_bw_reached {
                        self.mode = Mode::ProbeBw;
                        self.start_bw_probe_down(c.now);
                        self.start_bw_probe_cruise();
                    } else {
                        self.enter_startup();
                    }
                }
            }
            None => {}
        }
    }

    /// v3 `bbr_set_pacing_rate`.
    fn set_pacing_rate(&mut self, w: &Window, c: &Conn) {
        if !self.has_seen_rtt && c.min_rtt.is_some() {
            self.init_pacing_rate(w, c);
        }
        let rate = self.pacing_gain * self.bw() * (1.0 - PACING_MARGIN);
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// v3 `bbr_update_ack_aggregation` (Linux's microsecond epoch).
    fn update_ack_aggregation(&mut self, w: &Window, rs: &RateSample, now: SimTime) {
        if rs.acked_sacked == 0 || rs.delivered.is_none() {
            return;
        }
        if self.round_start {
            self.extra_acked_rounds = (self.extra_acked_rounds + 1).min(31);
            if self.extra_acked_rounds >= EXTRA_ACKED_WINDOW {
                self.extra_acked_rounds = 0;
                self.extra_acked_idx = 1 - self.extra_acked_idx;
                self.extra_acked[self.extra_acked_idx] = 0.0;
            }
        }
        let epoch = now.saturating_sub(self.ack_epoch_time).as_secs_f64();
        let mut expected = self.bw() * epoch;
        let acked = rs.acked_sacked as f64;
        if self.ack_epoch_acked <= expected
            || self.ack_epoch_acked + acked >= ACK_EPOCH_RESET_SEGMENTS * self.mss
        {
            self.ack_epoch_acked = 0.0;
            self.ack_epoch_time = now;
            expected = 0.0;
        }
        self.ack_epoch_acked += acked;
        let extra = (self.ack_epoch_acked - expected).min(w.cwnd).max(0.0);
        let slot = &mut self.extra_acked[self.extra_acked_idx];
        *slot = slot.max(extra);
    }

    /// v3 `bbr_ack_aggregation_cwnd`: once the pipe is full, at most 100 ms of bw.
    fn ack_aggregation_cwnd(&self) -> f64 {
        if !self.full_bw_reached {
            return 0.0;
        }
        let max_aggr = self.bw() * EXTRA_ACKED_MAX_S;
        self.extra_acked[0].max(self.extra_acked[1]).min(max_aggr)
    }

    /// v3 `bbr_set_cwnd` with `bbr_set_cwnd_to_recover_or_restore` (draft 4.6.4).
    fn set_cwnd(&mut self, w: &mut Window, rs: &RateSample, c: &Conn) {
        if rs.acked_sacked > 0 {
            let acked = rs.acked_sacked as f64;
            let mut done = false;
            if self.in_recovery {
                if rs.bytes_loss > 0 {
                    w.cwnd = (w.cwnd - rs.bytes_loss as f64).max(self.mss);
                }
                if self.packet_conservation {
                    w.cwnd = w.cwnd.max(c.in_flight as f64 + acked);
                    done = true;
                }
            }
            if !done {
                let target = self.quantization_budget(
                    self.bdp(self.bw(), self.cwnd_gain) + self.ack_aggregation_cwnd(),
                );
                if self.full_bw_reached {
                    w.cwnd = (w.cwnd + acked).min(target);
                } else if w.cwnd < target || (self.delivered as f64) < INIT_CWND_SEGMENTS * self.mss
                {
                    w.cwnd += acked;
                }
                w.cwnd = w.cwnd.max(self.min_pipe_cwnd());
            }
        }
        if self.mode == Mode::ProbeRtt {
            w.cwnd = w.cwnd.min(self.probe_rtt_cwnd());
        }
    }

    /// v3 `bbr_bound_cwnd_for_inflight_model` (draft `BBRBoundCwndForModel`): inflight_longterm
    /// outside CRUISE in ProbeBW, that less the headroom in CRUISE and ProbeRTT, and
    /// inflight_shortterm always.
    fn bound_cwnd_for_inflight_model(&self, w: &mut Window) {
        let mut cap = f64::INFINITY;
        if self.mode == Mode::ProbeBw && self.phase != Phase::Cruise {
            cap = self.inflight_longterm;
        } else if self.mode == Mode::ProbeRtt
            || (self.mode == Mode::ProbeBw && self.phase == Phase::Cruise)
        {
            cap = self.inflight_with_headroom();
        }
        cap = cap.min(self.inflight_shortterm).max(self.min_pipe_cwnd());
        w.cwnd = w.cwnd.min(cap);
    }

    /// v3 `bbr_inflight_with_headroom` (draft `BBRInflightWithHeadroom`): inflight_longterm less
    /// 15 % (at least a segment), at least 4 segments.
    pub fn inflight_with_headroom(&self) -> f64 {
        if self.inflight_longterm.is_infinite() {
            return f64::INFINITY;
        }
        let headroom = (signals::INFLIGHT_HEADROOM * self.inflight_longterm).max(self.mss);
        (self.inflight_longterm - headroom).max(self.min_pipe_cwnd())
    }

    /// v3 `bbr_reset_lower_bounds`.
    fn reset_lower_bounds(&mut self) {
        self.bw_shortterm = f64::INFINITY;
        self.inflight_shortterm = f64::INFINITY;
    }

    /// The sender is limited by cwnd (Linux `tp->is_cwnd_limited`): the flight before this
    /// ACK was within a segment of cwnd.
    fn cwnd_limited(&self, w: &Window, rs: &RateSample) -> bool {
        rs.prior_in_flight as f64 + self.mss >= w.cwnd
    }
}

impl CongestionControl for Bbr3 {
    fn name(&self) -> &'static str {
        "bbr3"
    }
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }
    /// cwnd is set by [`Self::on_rate_sample`].
    fn on_ack(&mut self, _w: &mut Window, _a: &Ack) {}
    /// Save cwnd, ssthresh unchanged (v3 `bbr_ssthresh`).
    fn ssthresh_on_loss(&mut self, w: &Window, _flight: u64, _now: SimTime) -> f64 {
        self.save_cwnd(w);
        w.ssthresh
    }
    fn on_enter_recovery(&mut self, w: &mut Window, c: &Conn) {
        // v3 bbr_set_cwnd_to_recover_or_restore: cwnd = in flight + acked, a round starts now
        self.save_cwnd(w);
        self.in_recovery = true;
        w.cwnd = c.in_flight as f64 + self.mss;
        self.packet_conservation = true;
        self.next_round_delivered = c.delivered;
    }
    fn on_recovery_exit(&mut self, w: &mut Window, _now: SimTime) {
        // v3 bbr_exit_loss_recovery: restore the saved cwnd (bounded again on the next ACK)
        self.in_recovery = false;
        self.packet_conservation = false;
        w.cwnd = w.cwnd.max(self.prior_cwnd);
    }
    fn on_timeout(&mut self, w: &mut Window, _flight: u64, now: SimTime) {
        // v3 bbr_set_state(TCP_CA_Loss): a loss that ends the round; cwnd 1 segment
        self.save_cwnd(w);
        self.in_recovery = false;
        self.packet_conservation = false;
        self.full_bw = 0.0;
        self.round_start = true;
        self.sig.note_loss();
        if self.bw_probe_samples {
            let tx_in_flight = self.inflight_latest + self.mss;
            self.handle_inflight_too_high(w, tx_in_flight, false, now);
        }
        w.cwnd = w.mss;
    }
    fn owns_window(&self) -> bool {
        true
    }
    /// DCTCP-style per-segment CE echo (v3 needs the fraction of CE-marked bytes per round).
    fn ecn_feedback(&self) -> EcnFeedback {
        EcnFeedback::Extent
    }
    fn on_ecn_ack(&mut self, _w: &Window, acked: u64, marked: u64, _a: &Ack) {
        self.sig.on_ecn_ack(acked, marked);
    }
    /// The sender's once-per-window ECN reduction does not apply: BBRv3 bounds inflight itself
    /// (`signals.rs`), so cwnd stays as it is.
    fn ssthresh_on_ecn(&mut self, w: &Window, _flight: u64, _now: SimTime) -> f64 {
        w.cwnd
    }
    fn grows_during_cwr(&self) -> bool {
        true
    }
    /// v3 `bbr_main`.
    fn on_rate_sample(&mut self, w: &mut Window, rs: &RateSample, c: &Conn) {
        if !self.initialized {
            self.init(w, c);
        }
        self.delivered = c.delivered;
        self.update_round_start(rs);
        self.sig.account(rs, self.round_start);
        self.sig.update_cwr(self.delivered, rs.prior_in_flight);
        if self.round_start {
            self.rounds_since_probe = (self.rounds_since_probe + 1).min(255);
            let ce_ratio = self.update_ecn_alpha();
            self.check_ecn_too_high_in_startup(ce_ratio);
        }
        self.sig.ecn_in_round |= self.sig.ecn_eligible && self.sig.ack_ce() > 0;
        self.update_latest_delivery_signals(rs);
        // bbr_update_model
        self.update_congestion_signals(w, rs);
        self.update_ack_aggregation(w, rs, c.now);
        self.check_loss_too_high_in_startup(rs);
        self.check_full_bw_reached(rs);
        self.check_drain(w, c);
        self.update_cycle_phase(w, rs, c);
        self.update_min_rtt(w, c);
        // control
        self.update_gains();
        self.set_pacing_rate(w, c);
        self.set_cwnd(w, rs, c);
        self.bound_cwnd_for_inflight_model(w);
        self.advance_latest_delivery_signals(rs);
        self.sig.end_ack(rs);
    }
    fn pacing_rate(&self) -> Option<f64> {
        (self.initialized && self.pacing_rate > 0.0).then_some(self.pacing_rate)
    }
    fn report(&self) -> Option<serde_json::Value> {
        let finite = |v: f64| v.is_finite().then_some(v);
        Some(serde_json::json!({
            "mode": format!("{:?}", self.mode).to_lowercase(),
            "phase": format!("{:?}", self.phase).to_lowercase(),
            "max_bw_bytes_per_s": self.max_bw(),
            "bw_shortterm_bytes_per_s": finite(self.bw_shortterm),
            "inflight_shortterm_bytes": finite(self.inflight_shortterm),
            "inflight_longterm_bytes": finite(self.inflight_longterm),
            "min_rtt_s": self.min_rtt.map(|r| r.as_secs_f64()),
            "pacing_rate_bytes_per_s": self.pacing_rate,
            "pacing_gain": self.pacing_gain,
            "cwnd_gain": self.cwnd_gain,
            "rounds": self.round_count,
            "full_bw_reached": self.full_bw_reached,
            "ecn_alpha": self.sig.ecn_alpha,
        }))
    }
}
