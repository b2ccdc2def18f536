//! BBRv3's ProbeBW: the DOWN, CRUISE, REFILL and UP phases, when to probe (randomized
//! wall-clock wait and Reno-coexistence rounds) and the long-term bound `inflight_longterm`.
//! draft-ietf-ccwg-bbr 4.3.3 ("BBRUpdateProbeBWCyclePhase", "BBRCheckTimeToProbeBW",
//! "BBRPickProbeWait", "BBRIsRenoCoexistenceProbeTime", "BBRCheckTimeToCruise",
//! "BBRProbeInflightLongtermUpward", "BBRRaiseInflightLongtermSlope") and 4.5.10
//! ("BBRAdaptUpperBounds", "BBRHandleInflightTooHigh"); Google's v3 `tcp_bbr.c`
//! (`bbr_update_cycle_phase`, `bbr_adapt_upper_bounds`, `bbr_check_time_to_probe_bw`,
//! `bbr_pick_probe_wait`, `bbr_is_reno_coexistence_probe_time`, `bbr_start_bw_probe_*`,
//! `bbr_probe_inflight_hi_upward`, `bbr_raise_inflight_hi_slope`,
//! `bbr_handle_inflight_too_high`). The sample's `prior_in_flight` stands for Linux's
//! `tx_in_flight` (the flight when the ACKed segment was sent).

use super::{signals, Bbr3, Mode};
use crate::tcp::cc::{Conn, RateSample, Window};
use crate::units::SimTime;
use rand::RngExt;

/// ProbeBW's phases (v3 `bbr_pacing_gain_phase`, draft `ProbeBW_DOWN` etc.).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Down,
    Cruise,
    Refill,
    Up,
}

/// Draft `ProbeBW_UP` pacing gain 1.25 (v3 `bbr_pacing_gain[BBR_BW_PROBE_UP]` 5/4).
pub const UP_PACING_GAIN: f64 = 1.25;
/// Draft `ProbeBW_DOWN` pacing gain 0.90 (v3 code: 91/100; the draft's value).
pub const DOWN_PACING_GAIN: f64 = 0.90;
/// Draft: cwnd gain 2.25 in UP (v3 `bbr_cwnd_gain` 2 + `bbr_bw_probe_cwnd_gain` 1 x 1/4).
pub const UP_CWND_GAIN: f64 = 2.25;
/// v3 `bbr_bw_probe_max_rounds` 63 and `bbr_bw_probe_rand_rounds` 2 (draft
/// `BBRIsRenoCoexistenceProbeTime`: min(BDP in packets, 63) rounds).
const PROBE_MAX_ROUNDS: f64 = 63.0;
const PROBE_RAND_ROUNDS: u32 = 2;
/// v3 `bbr_bw_probe_base_us` 2 s and `bbr_bw_probe_rand_us` 1 s (draft `BBRPickProbeWait`:
/// 2 to 3 s).
const PROBE_BASE_US: u64 = 2_000_000;
const PROBE_RAND_US: u64 = 1_000_000;
/// v3 `bbr_ecn_reprobe_gain` 1/2.
const ECN_REPROBE_GAIN: f64 = 0.5;

impl Phase {
    pub fn pacing_gain(self) -> f64 {
        match self {
            Phase::Up => UP_PACING_GAIN,
            Phase::Down => DOWN_PACING_GAIN,
            Phase::Cruise | Phase::Refill => 1.0,
        }
    }
    pub fn cwnd_gain(self) -> f64 {
        match self {
            Phase::Up => UP_CWND_GAIN,
            _ => super::CWND_GAIN,
        }
    }
}

/// Which ACKs reflect a bandwidth probe (v3 `bbr_ack_phase`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

impl Bbr3 {
    /// v3 `bbr_pick_probe_wait` (draft `BBRPickProbeWait`): 0 or 1 rounds already counted,
    /// and a wall-clock wait of 2 s + U[0, 1 s).
    fn pick_probe_wait(&mut self) {
        self.rounds_since_probe = self.rng.random_range(0..PROBE_RAND_ROUNDS);
        let us = PROBE_BASE_US + self.rng.random_range(0..PROBE_RAND_US);
        self.probe_wait = SimTime::from_micros(us);
    }

    /// v3 `bbr_advance_max_bw_filter`: the older cycle's slot is forgotten.
    fn advance_max_bw_filter(&mut self) {
        if self.bw_hi[1] == 0.0 {
            return;
        }
        self.bw_hi[0] = self.bw_hi[1];
        self.bw_hi[1] = 0.0;
    }

    /// v3 `bbr_start_bw_probe_down` (draft `BBRStartProbeBW_DOWN`).
    pub(super) fn start_bw_probe_down(&mut self, now: SimTime) {
        self.sig
            .reset_congestion_signals(&mut self.bw_latest, &mut self.inflight_latest);
        self.bw_probe_up_cnt = f64::INFINITY;
        self.pick_probe_wait();
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.next_round_delivered = self.delivered;
        self.phase = Phase::Down;
    }

    /// v3 `bbr_start_bw_probe_cruise` (draft `BBRStartProbeBW_CRUISE`).
    pub(super) fn start_bw_probe_cruise(&mut self) {
        if self.inflight_shortterm.is_finite() {
            self.inflight_shortterm = self.inflight_shortterm.min(self.inflight_longterm);
        }
        self.phase = Phase::Cruise;
    }

    /// v3 `bbr_start_bw_probe_refill` (draft `BBRStartProbeBW_REFILL`).
    fn start_bw_probe_refill(&mut self, up_rounds: u32) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = up_rounds;
        self.bw_probe_up_acks = 0.0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.next_round_delivered = self.delivered;
        self.phase = Phase::Refill;
    }

    /// v3 `bbr_start_bw_probe_up` (draft `BBRStartProbeBW_UP`).
    fn start_bw_probe_up(&mut self, w: &Window, rs: &RateSample, now: SimTime) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.next_round_delivered = self.delivered;
        self.cycle_stamp = now;
        self.reset_full_bw();
        self.full_bw = rs.delivery_rate;
        self.phase = Phase::Up;
        self.raise_inflight_longterm_slope(w);
    }

    /// v3 `bbr_raise_inflight_hi_slope`: grow inflight_longterm by 2^n segments in the n-th
    /// round of UP (n <= 30), i.e. a segment per `cwnd / 2^n` ACKed segments.
    fn raise_inflight_longterm_slope(&mut self, w: &Window) {
        let growth = (1u64 << self.bw_probe_up_rounds) as f64;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        let cnt = (w.cwnd / self.mss / growth).floor();
        self.bw_probe_up_cnt = cnt.max(1.0);
    }

    /// v3 `bbr_probe_inflight_hi_upward` (draft `BBRProbeInflightLongtermUpward`).
    fn probe_inflight_longterm_upward(&mut self, w: &Window, rs: &RateSample) {
        if !self.cwnd_limited(w, rs) || w.cwnd < self.inflight_longterm {
            return; // not fully using inflight_longterm: no need to raise it
        }
        self.bw_probe_up_acks += rs.acked_sacked as f64 / self.mss;
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = (self.bw_probe_up_acks / self.bw_probe_up_cnt).floor();
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_longterm += delta * self.mss;
        }
        if self.round_start {
            self.raise_inflight_longterm_slope(w);
        }
    }

    /// v3 `bbr_handle_inflight_too_high` (draft `BBRHandleInflightTooHigh`): once per probe,
    /// inflight_longterm = max(tx_in_flight, 0.7 x target inflight), and UP ends.
    pub(super) fn handle_inflight_too_high(
        &mut self,
        w: &Window,
        tx_in_flight: f64,
        app_limited: bool,
        now: SimTime,
    ) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false;
        if !app_limited {
            self.inflight_longterm = tx_in_flight.max(self.target_inflight(w) * signals::BETA);
        }
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            self.start_bw_probe_down(now);
        }
    }

    /// v3 `bbr_adapt_upper_bounds` (draft `BBRAdaptUpperBounds`). True: it started REFILL.
    fn adapt_upper_bounds(&mut self, w: &Window, rs: &RateSample, now: SimTime) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.mode == Mode::ProbeBw && !rs.is_app_limited {
                self.advance_max_bw_filter();
            }
            if self.mode == Mode::ProbeBw && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_bw_probe_refill(0);
                return true;
            }
        }
        let tx_in_flight = rs.prior_in_flight as f64;
        if self.is_inflight_too_high(tx_in_flight) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(w, tx_in_flight, rs.is_app_limited, now);
            }
        } else {
            if self.inflight_longterm.is_infinite() {
                return false;
            }
            // resilience to random loss: any phase that shows a higher level is safe raises it
            if tx_in_flight > self.inflight_longterm {
                self.inflight_longterm = tx_in_flight;
            }
            if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
                self.probe_inflight_longterm_upward(w, rs);
            }
        }
        false
    }

    /// v3 `bbr_is_reno_coexistence_probe_time`: min(target inflight in segments, 63) rounds.
    fn is_reno_coexistence_probe_time(&self, w: &Window) -> bool {
        let rounds = PROBE_MAX_ROUNDS.min((self.target_inflight(w) / self.mss).floor());
        self.rounds_since_probe as f64 >= rounds
    }

    /// v3 `bbr_check_time_to_probe_bw` (draft `BBRCheckTimeToProbeBW`): re-probe quickly when
    /// ECN marks (and no loss) cleared (Linux: `TCP_CA_Open`, no CWR); else after the wall-clock wait or the Reno rounds.
    fn check_time_to_probe_bw(&mut self, w: &Window, now: SimTime) -> bool {
        let s = &self.sig;
        if s.ecn_eligible && s.ecn_in_cycle && !s.loss_in_cycle && !self.in_recovery && !s.in_cwr()
        {
            let segs = (self.inflight_longterm * ECN_REPROBE_GAIN / self.mss).min(2f64.powi(31));
            let n = if segs >= 1.0 {
                segs.log2().floor() as u32
            } else {
                0
            };
            self.start_bw_probe_refill(n);
            return true;
        }
        if now > self.cycle_stamp + self.probe_wait || self.is_reno_coexistence_probe_time(w) {
            self.start_bw_probe_refill(0);
            return true;
        }
        false
    }

    /// v3 `bbr_check_time_to_cruise` (draft `BBRCheckTimeToCruise`): in flight at most the
    /// headroom level and at most 1 BDP.
    fn check_time_to_cruise(&self, inflight: f64, bw: f64) -> bool {
        if inflight > self.inflight_with_headroom() {
            return false;
        }
        inflight <= self.inflight(bw, 1.0)
    }

    /// v3 `bbr_update_cycle_phase` (draft `BBRUpdateProbeBWCyclePhase`).
    pub(super) fn update_cycle_phase(&mut self, w: &Window, rs: &RateSample, c: &Conn) {
        if !self.full_bw_reached {
            return;
        }
        if self.adapt_upper_bounds(w, rs, c.now) || self.mode != Mode::ProbeBw {
            return;
        }
        let inflight = rs.prior_in_flight as f64;
        let bw = self.max_bw();
        match self.phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw(w, c.now);
            }
            Phase::Refill => {
                if self.round_start {
                    self.bw_probe_samples = true;
                    self.start_bw_probe_up(w, rs, c.now);
                }
            }
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_longterm {
                    self.stopped_risky_probe = true;
                    done = true;
                } else if self.cwnd_limited(w, rs) && w.cwnd >= self.inflight_longterm {
                    // inflight_longterm limits the growth
                    self.reset_full_bw();
                    self.full_bw = rs.delivery_rate;
                } else if self.full_bw_now {
                    done = true; // the bandwidth has plateaued
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_bw_probe_down(c.now);
                }
            }
            Phase::Down => {
                if self.check_time_to_probe_bw(w, c.now) {
                    return;
                }
                if self.check_time_to_cruise(inflight, bw) {
                    self.start_bw_probe_cruise();
                }
            }
        }
    }
}
