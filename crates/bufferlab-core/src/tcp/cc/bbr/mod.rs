//! BBR v1 ("BBR: Congestion-Based Congestion Control", Cardwell, Cheng, Gunn, Yeganeh,
//! Jacobson, ACM Queue 14(5) 2016; draft-cardwell-iccrg-bbr-congestion-control-00), as ns-3.44's
//! `TcpBbr` (`src/internet/model/tcp-bbr.cc`, read through the search tool) implements it;
//! Linux `net/ipv4/tcp_bbr.c` where noted. Rates are payload bytes per second.
//!
//! * Model (`UpdateModelAndState`): the bottleneck bandwidth is a windowed max filter of the
//!   delivery-rate samples (`tcp/rate.rs`) over `BwWindowLength` 10 packet-timed rounds
//!   (`UpdateBtlBw`, ns-3 `WindowedFilter`/Linux `win_minmax.c`); a sample enters the filter
//!   unless it is app-limited and below the max. A round starts when a segment sent after the
//!   last round's start is delivered (`UpdateRound`). The propagation delay is the minimum RTT
//!   over `RttWindowLength` 10 s (`UpdateRTprop`: the ACK's RTT sample, or any sample once the
//!   old one expires).
//! * States: STARTUP (pacing and cwnd gain `HighGain` 2.89 ~ 2/ln 2) until the max bandwidth
//!   grows by less than 25 % in three rounds that are not app-limited (`CheckFullPipe`); DRAIN
//!   (pacing gain 1/2.89) until in flight <= 1 BDP (`CheckDrain`, which also sets ssthresh);
//!   PROBE_BW (cwnd gain 2, pacing gain cycling 5/4, 3/4, 1 x 6, one phase per min RTT: 5/4 also
//!   until in flight reaches 1.25 BDP or loss, 3/4 ends early at 1 BDP, `IsNextCyclePhase`; the
//!   cycle starts at a random phase other than 3/4, `EnterProbeBW`: ns-3 draws U(0, 6));
//!   PROBE_RTT when the min-RTT estimate is 10 s old: cwnd 4 segments for `ProbeRttDuration`
//!   200 ms and one round, then the saved cwnd back (`CheckProbeRTT`, `HandleProbeRTT`).
//! * Control (`UpdateControlParameters`): pacing rate = gain * max bw * (1 - 1 %) (pacing
//!   margin; before the pipe is full the rate only rises, `SetPacingRate`); the first rate is
//!   gain * cwnd / min RTT (1 ms without an RTT, `InitPacingRate`). cwnd target = gain * BDP +
//!   3 segments (send quantum 1 segment; + 2 segments in the 5/4 phase, `InFlight`) + the
//!   extra-ACKed allowance (`AckAggregationCwnd`); cwnd grows by the bytes each ACK delivers up
//!   to the target once the pipe is full, without bound below it before (`SetCwnd`); at least
//!   4 segments (`m_minPipeCwnd`).
//! * Loss: entering recovery saves cwnd and sets cwnd = in flight + max(acked, 1 segment),
//!   then packet conservation for one round (cwnd >= in flight + acked), losses subtracted
//!   (`CongestionStateSet(CA_RECOVERY)`, `ModulateCwndForRecovery`); leaving it restores the
//!   saved cwnd (`CwndEvent(CA_EVENT_COMPLETE_CWR)`); a timeout saves cwnd and starts a round
//!   (`CA_LOSS`), cwnd 1 segment. ssthresh is not changed by losses (`GetSsThresh`).
//! * Extra-ACKed (`UpdateAckAggregation`, ns-3.44 has it, Linux 4.19+): the largest excess of
//!   ACKed bytes over bw * epoch in the last 5 rounds (two slots), capped at cwnd and at
//!   0.1 s of max bw, added to the target once the pipe is full. ns-3 computes the epoch in
//!   whole seconds (`uint32_t epochProp`) and resets it once 4096 bytes are ACKed
//!   (`AckEpochAckedResetThresh` 1 << 12, bytes); both are kept here (Linux: microseconds and
//!   2^20 packets): the allowance is at most a few segments.
//!
//! * Long-term bandwidth sampling (Linux `bbr_lt_bw_sampling`, flavour rule
//!   `bbr_lt_bw_sampling`): `long_term.rs`.
//!
//! Not here: restart from idle for application-limited senders.
//!
//! The folder: this file is v1's state machine; `filter.rs` the windowed max filter,
//! `long_term.rs` Linux's long-term (policer) sampling, `tests.rs` v1's unit tests; `v3/` is
//! BBRv3 (`cc = "bbr3"`, docs/models/bbr3.md).

pub mod filter;
mod long_term;
#[cfg(test)]
mod tests;
pub mod v3;

pub use filter::MaxFilter;
pub use long_term::LongTerm;

use super::{Ack, CongestionControl, Conn, RateSample, Recovery, Window};
use crate::rng::Rng;
use crate::tcp::config::TcpParams;
use crate::units::SimTime;
use rand::RngExt;

/// ns-3 `TcpBbr::PACING_GAIN_CYCLE` (Linux `bbr_pacing_gain`).
pub const PACING_GAIN_CYCLE: [f64; 8] = [5.0 / 4.0, 3.0 / 4.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// ns-3 `m_pacingMargin` 0.01 (Linux `bbr_pacing_margin_percent` 1).
const PACING_MARGIN: f64 = 0.01;

/// BBR's states (ns-3 `BbrMode_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

pub struct Bbr {
    rng: Rng,
    mss: f64,
    // ns-3 attribute defaults
    /// `HighGain` 2.89.
    high_gain: f64,
    /// `BwWindowLength` 10 rounds.
    bw_window: u64,
    /// `RttWindowLength` 10 s.
    min_rtt_window: SimTime,
    /// `ProbeRttDuration` 200 ms.
    probe_rtt_duration: SimTime,
    /// `ExtraAckedRttWindowLength` 5 rounds.
    extra_acked_window: u32,
    /// `AckEpochAckedResetThresh` 4096 bytes.
    ack_epoch_reset: u64,
    /// `m_extraAckedGain` 1.
    extra_acked_gain: f64,
    // state
    initialized: bool,
    pub mode: Mode,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    pub max_bw: MaxFilter,
    pacing_rate: f64,
    has_seen_rtt: bool,
    pub min_rtt: Option<SimTime>,
    min_rtt_stamp: SimTime,
    min_rtt_expired: bool,
    pub round_count: u64,
    round_start: bool,
    next_round_delivered: u64,
    pub pipe_filled: bool,
    full_bw: f64,
    full_bw_count: u32,
    pub cycle_index: usize,
    cycle_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    packet_conservation: bool,
    in_recovery: bool,
    prior_cwnd: f64,
    idle_restart: bool,
    target_cwnd: f64,
    min_pipe_cwnd: f64,
    send_quantum: f64,
    delivered: u64,
    extra_acked: [f64; 2],
    extra_acked_idx: usize,
    extra_acked_rounds: u32,
    ack_epoch_time: SimTime,
    ack_epoch_acked: u64,
    /// Long-term sampling (flavour rule `bbr_lt_bw_sampling`).
    lt: Option<LongTerm>,
}

impl Bbr {
    pub fn new(p: &TcpParams, rng: Rng) -> Self {
        let mss = p.mss as f64;
        Self {
            rng,
            mss,
            high_gain: 2.89,
            bw_window: 10,
            min_rtt_window: SimTime::from_secs(10),
            probe_rtt_duration: SimTime::from_millis(200),
            extra_acked_window: 5,
            ack_epoch_reset: 1 << 12,
            extra_acked_gain: 1.0,
            initialized: false,
            mode: Mode::Startup,
            pacing_gain: 2.89,
            cwnd_gain: 2.89,
            max_bw: MaxFilter::new(10, 0.0, 0),
            pacing_rate: 0.0,
            has_seen_rtt: false,
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            min_rtt_expired: false,
            round_count: 0,
            round_start: false,
            next_round_delivered: 0,
            pipe_filled: false,
            full_bw: 0.0,
            full_bw_count: 0,
            cycle_index: 0,
            cycle_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            packet_conservation: false,
            in_recovery: false,
            prior_cwnd: 0.0,
            idle_restart: false,
            target_cwnd: 0.0,
            min_pipe_cwnd: 4.0 * mss, // ns-3 m_minPipeCwnd = 4 segments (Linux bbr_cwnd_min_target 4)
            send_quantum: mss,        // ns-3 SetSendQuantum: 1 segment
            delivered: 0,
            extra_acked: [0.0; 2],
            extra_acked_idx: 0,
            extra_acked_rounds: 0,
            ack_epoch_time: SimTime::ZERO,
            ack_epoch_acked: 0,
            lt: p.rules().bbr_lt_bw_sampling.then(LongTerm::default),
        }
    }

    /// The bandwidth the model uses (Linux `bbr_bw`): the long-term rate while a policer is
    /// assumed, else the max filter.
    pub fn bw(&self) -> f64 {
        match &self.lt {
            Some(lt) if lt.use_bw => lt.bw,
            _ => self.max_bw.best(),
        }
    }

    /// ns-3 `CongestionStateSet(CA_OPEN)` the first time (connection established).
    fn init(&mut self, w: &mut Window, c: &Conn) {
        self.initialized = true;
        self.min_rtt = c.last_rtt;
        self.min_rtt_stamp = c.now;
        self.prior_cwnd = w.cwnd;
        self.target_cwnd = w.cwnd;
        self.round_count = 0;
        self.round_start = false;
        self.next_round_delivered = 0;
        self.pipe_filled = false;
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.enter_startup();
        self.init_pacing_rate(w, c);
        self.ack_epoch_time = c.now;
        self.lt_reset(c.now);
    }

    /// `InitPacingRate`: gain * cwnd / min RTT (whole milliseconds, at least 1; 1 ms without one).
    fn init_pacing_rate(&mut self, w: &Window, c: &Conn) {
        let rtt = match c.min_rtt {
            Some(r) => {
                self.has_seen_rtt = true;
                ((r.as_secs_f64() * 1e3).floor().max(1.0)) / 1e3
            }
            None => 1e-3,
        };
        let nominal = w.cwnd / rtt;
        self.pacing_rate = self.pacing_gain * nominal;
        self.max_bw = MaxFilter::new(self.bw_window, nominal, 0);
    }

    fn enter_startup(&mut self) {
        self.mode = Mode::Startup;
        self.pacing_gain = self.high_gain;
        self.cwnd_gain = self.high_gain;
    }

    fn enter_drain(&mut self) {
        self.mode = Mode::Drain;
        self.pacing_gain = 1.0 / self.high_gain;
        self.cwnd_gain = self.high_gain;
    }

    fn enter_probe_bw(&mut self, now: SimTime) {
        self.mode = Mode::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = 2.0;
        // ns-3: m_cycleIndex = GAIN_CYCLE_LENGTH - 1 - (int) U(0, 6)
        // (Linux: CYCLE_LEN - 1 - prandom_u32_max(bbr_cycle_rand 7))
        let r: f64 = self.rng.random_range(0.0..6.0);
        self.cycle_index = PACING_GAIN_CYCLE.len() - 1 - r as usize;
        self.advance_cycle_phase(now);
    }

    fn enter_probe_rtt(&mut self) {
        self.mode = Mode::ProbeRtt;
        self.pacing_gain = 1.0;
        self.cwnd_gain = 1.0;
    }

    fn advance_cycle_phase(&mut self, now: SimTime) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % PACING_GAIN_CYCLE.len();
        // Linux bbr_update_gains: gain 1 while the long-term rate is in use
        self.pacing_gain = if self.lt.as_ref().is_some_and(|lt| lt.use_bw) {
            1.0
        } else {
            PACING_GAIN_CYCLE[self.cycle_index]
        };
    }

    /// `InFlight(gain)`: gain * BDP + 3 send quanta (+ 2 segments in the 5/4 phase).
    pub fn in_flight_target(&self, gain: f64, iw_bytes: f64) -> f64 {
        let Some(rtt) = self.min_rtt else {
            return iw_bytes;
        };
        let bdp = self.bw() * rtt.as_secs_f64();
        let quanta = 3.0 * self.send_quantum;
        let extra = if self.mode == Mode::ProbeBw && self.cycle_index == 0 {
            2.0 * self.mss
        } else {
            0.0
        };
        (gain * bdp + quanta + extra).floor()
    }

    fn save_cwnd(&mut self, w: &Window) {
        if !self.in_recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = w.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(w.cwnd);
        }
    }

    fn update_round(&mut self, rs: &RateSample) {
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = self.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        } else {
            self.round_start = false;
        }
    }

    fn update_btl_bw(&mut self, rs: &RateSample, now: SimTime) {
        if rs.delivery_rate == 0.0 {
            return;
        }
        self.update_round(rs);
        if let Some(lt) = &mut self.lt {
            lt.lost += rs.bytes_loss;
        }
        self.lt_sampling(rs.bytes_loss > 0, rs.is_app_limited, now);
        if rs.delivery_rate >= self.max_bw.best() || !rs.is_app_limited {
            self.max_bw.update(rs.delivery_rate, self.round_count);
        }
    }

    fn update_ack_aggregation(&mut self, w: &Window, rs: &RateSample, now: SimTime) {
        if self.extra_acked_gain == 0.0 || rs.acked_sacked == 0 || rs.delivered.is_none() {
            return;
        }
        if self.round_start {
            self.extra_acked_rounds = (self.extra_acked_rounds + 1).min(31);
            if self.extra_acked_rounds >= self.extra_acked_window {
                self.extra_acked_rounds = 0;
                self.extra_acked_idx = 1 - self.extra_acked_idx;
                self.extra_acked[self.extra_acked_idx] = 0.0;
            }
        }
        // ns-3: uint32_t epochProp = Now().GetSeconds() - m_ackEpochTime.GetSeconds()
        let epoch = (now.as_secs_f64() - self.ack_epoch_time.as_secs_f64()).floor();
        let mut expected = (self.bw() * epoch).floor();
        if self.ack_epoch_acked as f64 <= expected
            || self.ack_epoch_acked + rs.acked_sacked >= self.ack_epoch_reset
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_time = now;
            expected = 0.0;
        }
        self.ack_epoch_acked += rs.acked_sacked;
        let extra = (self.ack_epoch_acked as f64 - expected)
            .min(w.cwnd)
            .max(0.0);
        if extra > self.extra_acked[self.extra_acked_idx] {
            self.extra_acked[self.extra_acked_idx] = extra;
        }
    }

    fn is_next_cycle_phase(&self, rs: &RateSample, c: &Conn) -> bool {
        let full = match self.min_rtt {
            Some(r) => c.now.saturating_sub(self.cycle_stamp) > r,
            None => true,
        };
        let prior = rs.prior_in_flight as f64;
        if self.pacing_gain == 1.0 {
            full
        } else if self.pacing_gain > 1.0 {
            full && (rs.bytes_loss > 0
                || prior >= self.in_flight_target(self.pacing_gain, c.iw_bytes))
        } else {
            full || prior <= self.in_flight_target(1.0, c.iw_bytes)
        }
    }

    fn check_full_pipe(&mut self, rs: &RateSample) {
        if self.pipe_filled || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.max_bw.best() >= self.full_bw * 1.25 {
            self.full_bw = self.max_bw.best();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= 3 {
            self.pipe_filled = true;
        }
    }

    fn check_drain(&mut self, w: &mut Window, c: &Conn) {
        if self.mode == Mode::Startup && self.pipe_filled {
            self.enter_drain();
            w.ssthresh = self.in_flight_target(1.0, c.iw_bytes);
        }
        if self.mode == Mode::Drain && c.in_flight as f64 <= self.in_flight_target(1.0, c.iw_bytes)
        {
            self.enter_probe_bw(c.now);
        }
    }

    fn update_rt_prop(&mut self, c: &Conn) {
        self.min_rtt_expired = c.now > self.min_rtt_stamp + self.min_rtt_window;
        if let Some(r) = c.last_rtt.filter(|r| *r > SimTime::ZERO) {
            if self.min_rtt.is_none_or(|m| r <= m) || self.min_rtt_expired {
                self.min_rtt = Some(r);
                self.min_rtt_stamp = c.now;
            }
        }
    }

    fn check_probe_rtt(&mut self, w: &mut Window, rs: &RateSample, c: &Conn) {
        if self.mode != Mode::ProbeRtt && self.min_rtt_expired && !self.idle_restart {
            self.enter_probe_rtt();
            self.save_cwnd(w);
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            self.handle_probe_rtt(w, c);
        }
        if rs.delivered.is_some_and(|d| d > 0) {
            self.idle_restart = false;
        }
    }

    fn handle_probe_rtt(&mut self, w: &mut Window, c: &Conn) {
        match self.probe_rtt_done {
            None if c.in_flight as f64 <= self.min_pipe_cwnd => {
                self.probe_rtt_done = Some(c.now + self.probe_rtt_duration);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = self.delivered;
            }
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && c.now > done {
                    self.min_rtt_stamp = c.now;
                    w.cwnd = w.cwnd.max(self.prior_cwnd); // RestoreCwnd
                    if self.pipe_filled {
                        self.enter_probe_bw(c.now);
                    } else {
                        self.enter_startup();
                    }
                }
            }
            None => {}
        }
    }

    /// `SetPacingRate(gain)`.
    fn set_pacing_rate(&mut self, w: &Window, c: &Conn) {
        let rate = self.pacing_gain * self.bw() * (1.0 - PACING_MARGIN);
        if !self.has_seen_rtt && c.min_rtt.is_some() {
            self.init_pacing_rate(w, c);
        }
        if self.pipe_filled || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    fn ack_aggregation_cwnd(&self) -> f64 {
        if self.extra_acked_gain > 0.0 && self.pipe_filled {
            let max_aggr = self.bw() / 10.0;
            (self.extra_acked_gain * self.extra_acked[0].max(self.extra_acked[1])).min(max_aggr)
        } else {
            0.0
        }
    }

    /// `SetCwnd`.
    fn set_cwnd(&mut self, w: &mut Window, rs: &RateSample, c: &Conn) {
        if rs.acked_sacked > 0 {
            let mut done = false;
            if self.in_recovery {
                // ModulateCwndForRecovery
                if rs.bytes_loss > 0 {
                    w.cwnd = (w.cwnd - rs.bytes_loss as f64).max(self.mss);
                }
                if self.packet_conservation {
                    w.cwnd = w.cwnd.max((c.in_flight + rs.acked_sacked) as f64);
                    done = true;
                }
            }
            if !done {
                self.target_cwnd =
                    self.in_flight_target(self.cwnd_gain, c.iw_bytes) + self.ack_aggregation_cwnd();
                let acked = rs.acked_sacked as f64;
                if self.pipe_filled {
                    w.cwnd = (w.cwnd + acked).min(self.target_cwnd);
                } else if w.cwnd < self.target_cwnd || (self.delivered as f64) < c.iw_bytes {
                    w.cwnd += acked;
                }
                w.cwnd = w.cwnd.max(self.min_pipe_cwnd);
            }
        }
        if self.mode == Mode::ProbeRtt {
            w.cwnd = w.cwnd.min(self.min_pipe_cwnd);
        }
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }
    /// cwnd is set by [`Self::on_rate_sample`] (ns-3's `IncreaseWindow` is not called for a
    /// controller with `HasCongControl`).
    fn on_ack(&mut self, _w: &mut Window, _a: &Ack) {}
    /// `GetSsThresh`: save cwnd, ssthresh unchanged.
    fn ssthresh_on_loss(&mut self, w: &Window, _flight: u64, _now: SimTime) -> f64 {
        self.save_cwnd(w);
        w.ssthresh
    }
    fn on_enter_recovery(&mut self, w: &mut Window, c: &Conn) {
        // CongestionStateSet(CA_RECOVERY): m_lastAckedSackedBytes is at least a segment here
        self.save_cwnd(w);
        self.in_recovery = true;
        w.cwnd = c.in_flight as f64 + self.mss;
        self.packet_conservation = true;
    }
    fn on_recovery_exit(&mut self, w: &mut Window, _now: SimTime) {
        // CwndEvent(CA_EVENT_COMPLETE_CWR): RestoreCwnd
        self.in_recovery = false;
        self.packet_conservation = false;
        w.cwnd = w.cwnd.max(self.prior_cwnd);
    }
    fn on_timeout(&mut self, w: &mut Window, _flight: u64, now: SimTime) {
        // CongestionStateSet(CA_LOSS): SaveCwnd, a new round; ReTxTimeout: cwnd 1 segment,
        // ssthresh = GetSsThresh (unchanged).
        self.save_cwnd(w);
        self.in_recovery = false;
        self.packet_conservation = false;
        self.round_start = true;
        w.cwnd = w.mss;
        // Linux bbr_set_state(TCP_CA_Loss): the timeout ends a lossy round for the sampler
        self.lt_sampling(true, false, now);
    }
    fn owns_window(&self) -> bool {
        true
    }
    /// `CongControl`: `UpdateModelAndState`, then `UpdateControlParameters`.
    fn on_rate_sample(&mut self, w: &mut Window, rs: &RateSample, c: &Conn) {
        if !self.initialized {
            self.init(w, c);
        }
        self.delivered = c.delivered;
        self.update_btl_bw(rs, c.now);
        self.update_ack_aggregation(w, rs, c.now);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs, c) {
            self.advance_cycle_phase(c.now);
        }
        self.check_full_pipe(rs);
        self.check_drain(w, c);
        self.update_rt_prop(c);
        self.check_probe_rtt(w, rs, c);
        self.set_pacing_rate(w, c);
        self.set_cwnd(w, rs, c);
    }
    fn pacing_rate(&self) -> Option<f64> {
        (self.initialized && self.pacing_rate > 0.0).then_some(self.pacing_rate)
    }
    fn report(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "mode": format!("{:?}", self.mode).to_lowercase(),
            "max_bw_bytes_per_s": self.max_bw.best(),
            "min_rtt_s": self.min_rtt.map(|r| r.as_secs_f64()),
            "pacing_rate_bytes_per_s": self.pacing_rate,
            "pacing_gain": self.pacing_gain,
            "cwnd_gain": self.cwnd_gain,
            "rounds": self.round_count,
            "pipe_filled": self.pipe_filled,
        }))
        .map(|mut j| {
            if let Some(lt) = &self.lt {
                j["lt_bw_bytes_per_s"] = lt.bw.into();
                j["lt_use_bw"] = lt.use_bw.into();
            }
            j
        })
    }
}
