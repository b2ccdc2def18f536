//! BBRv3's congestion signals: loss and ECN per round, the short-term lower bounds and the
//! Startup exits on loss or ECN. draft-ietf-ccwg-bbr 4.5.10 ("BBRUpdateLatestDeliverySignals",
//! "BBRAdaptLowerBoundsFromCongestion", "BBRInitLowerBounds", "BBRLossLowerBounds") and
//! 4.3.1.3 ("BBRCheckStartupHighLoss"); Google's v3 `tcp_bbr.c` (`bbr_update_congestion_signals`,
//! `bbr_adapt_lower_bounds`, `bbr_update_ecn_alpha`, `bbr_is_inflight_too_high`,
//! `bbr_check_loss_too_high_in_startup`, `bbr_check_ecn_too_high_in_startup`,
//! `bbr_handle_queue_too_high_in_startup`). The draft leaves the ECN response to
//! implementations; it follows the v3 code here (DCTCP-style alpha, `bbr_ecn_*`).
//!
//! Loss rate: Linux compares the bytes lost since the ACKed segment was sent (`tp->lost -
//! scb->tx.lost`) with the flight when it was sent (`tx_in_flight`). The sender here keeps no
//! per-segment loss count, so the losses are a sliding one-round window (this round's lost
//! bytes plus the unelapsed share of the last round's) and the flight is the sample's
//! `prior_in_flight`; the CE fraction is the same window of CE-marked over ACKed bytes.

use super::{Bbr3, Mode, Phase};
use crate::tcp::cc::{RateSample, Window};

/// Draft `BBRLossThresh` 2 % (v3 `bbr_loss_thresh` 2/100).
pub const LOSS_THRESH: f64 = 0.02;
/// Draft `BBRBeta` 0.7: the multiplicative cut (v3 `bbr_beta` 30/100 is 1 - 0.7).
pub const BETA: f64 = 0.7;
/// Draft `BBRHeadroom` 0.15 (v3 `bbr_inflight_headroom` 15/100).
pub const INFLIGHT_HEADROOM: f64 = 0.15;
/// v3 `bbr_ecn_thresh` 1/2: CE fraction above which probing went too far.
pub const ECN_THRESH: f64 = 0.5;
/// v3 `bbr_ecn_factor` 1/3: inflight_shortterm *= 1 - factor * alpha.
pub const ECN_FACTOR: f64 = 1.0 / 3.0;
/// v3 `bbr_ecn_alpha_gain` 1/16 and `bbr_ecn_alpha_init` 1.
pub const ECN_ALPHA_GAIN: f64 = 1.0 / 16.0;
pub const ECN_ALPHA_INIT: f64 = 1.0;
/// v3 `bbr_ecn_max_rtt_us` 5000: ECN is used only on paths with min RTT <= 5 ms.
pub const ECN_MAX_RTT_S: f64 = 0.005;
/// v3 `bbr_full_loss_cnt` 6 loss events in a round; `bbr_full_ecn_cnt` 2 rounds.
pub const FULL_LOSS_COUNT: u32 = 6;
pub const FULL_ECN_COUNT: u32 = 2;

/// The signal state (v3 `loss_in_round`, `ecn_in_round`, `loss_in_cycle`, `ecn_in_cycle`,
/// `loss_round_delivered`, `loss_events_in_round`, `startup_ecn_rounds`, `ecn_alpha`,
/// `ecn_eligible`) and the byte counts behind the loss and CE fractions.
#[derive(Debug, Clone, Default)]
pub(super) struct Signals {
    /// v3 `loss_round_start`.
    pub loss_round_start: bool,
    loss_round_delivered: u64,
    pub loss_in_round: bool,
    pub ecn_in_round: bool,
    pub loss_in_cycle: bool,
    pub ecn_in_cycle: bool,
    loss_events_in_round: u32,
    startup_ecn_rounds: u32,
    pub ecn_alpha: f64,
    pub ecn_eligible: bool,
    // from on_ecn_ack, taken by the next rate sample
    pending_acked: u64,
    pending_ce: u64,
    ack_ce: u64,
    /// Linux's CWR state after an ECE (`tcp_enter_cwr`): until this many bytes are delivered
    /// (the data sent when it began, `high_seq`). v3 re-probes after ECN only in Open.
    cwr_high: Option<u64>,
    // since the last ECN alpha update
    alpha_acked: u64,
    alpha_ce: u64,
    // one-round windows: [previous round, this round]
    lost: [u64; 2],
    delivered: [u64; 2],
    ce: [u64; 2],
    ecn_acked: [u64; 2],
}

/// `cur + prev * (1 - elapsed share of this round)`, the share measured by `w`.
fn sliding(v: [u64; 2], w: [u64; 2]) -> f64 {
    let left = if w[0] > 0 {
        1.0 - (w[1] as f64 / w[0] as f64).min(1.0)
    } else {
        0.0
    };
    v[1] as f64 + v[0] as f64 * left
}

impl Signals {
    pub fn new() -> Self {
        Self {
            ecn_alpha: ECN_ALPHA_INIT,
            ..Self::default()
        }
    }
    /// v3 `bbr_init`: sampling starts after the first flight is ACKed.
    pub fn start_round_after(&mut self, delivered: u64) {
        self.loss_round_delivered = delivered + 1;
    }
    /// An ACK of `acked` new bytes, `marked` of them CE-marked.
    pub fn on_ecn_ack(&mut self, acked: u64, marked: u64) {
        self.pending_acked += acked;
        self.pending_ce += marked;
    }
    /// v3 `bbr_note_loss`.
    pub fn note_loss(&mut self) {
        self.loss_in_round = true;
        self.loss_in_cycle = true;
    }
    /// The ACK's bytes into the windows; they slide at a round start.
    pub fn account(&mut self, rs: &RateSample, round_start: bool) {
        if round_start {
            for a in [
                &mut self.lost,
                &mut self.delivered,
                &mut self.ce,
                &mut self.ecn_acked,
            ] {
                *a = [a[1], 0];
            }
        }
        self.lost[1] += rs.bytes_loss;
        self.delivered[1] += rs.acked_sacked;
        self.ce[1] += self.pending_ce;
        self.ecn_acked[1] += self.pending_acked;
        self.alpha_ce += self.pending_ce;
        self.alpha_acked += self.pending_acked;
        self.ack_ce = self.pending_ce;
        self.pending_ce = 0;
        self.pending_acked = 0;
    }
    /// Enter CWR on a CE echo outside CWR, leave it once the flight of its start is delivered.
    pub fn update_cwr(&mut self, delivered: u64, prior_in_flight: u64) {
        if self.cwr_high.is_some_and(|h| delivered >= h) {
            self.cwr_high = None;
        }
        if self.ack_ce > 0 && self.cwr_high.is_none() {
            self.cwr_high = Some(delivered + prior_in_flight);
        }
    }
    pub fn in_cwr(&self) -> bool {
        self.cwr_high.is_some()
    }
    /// CE-marked bytes of this ACK (v3 `rs->is_ece`, `rs->delivered_ce`).
    pub fn ack_ce(&self) -> u64 {
        self.ack_ce
    }
    /// After the ACK (end of v3 `bbr_main`).
    pub fn end_ack(&mut self, rs: &RateSample) {
        self.loss_in_cycle |= rs.bytes_loss > 0;
        self.ecn_in_cycle |= self.ack_ce > 0;
    }
    /// v3 `bbr_reset_congestion_signals` (with `bw_latest`, `inflight_latest`).
    pub fn reset_congestion_signals(&mut self, bw_latest: &mut f64, inflight_latest: &mut f64) {
        self.loss_in_round = false;
        self.ecn_in_round = false;
        self.loss_in_cycle = false;
        self.ecn_in_cycle = false;
        *bw_latest = 0.0;
        *inflight_latest = 0.0;
    }
    /// The lost bytes over about the last round (Linux `rs->lost`).
    pub fn recent_lost(&self) -> f64 {
        sliding(self.lost, self.delivered)
    }
    /// The CE-marked fraction of the bytes ACKed over about the last round.
    pub fn recent_ce_fraction(&self) -> (f64, f64) {
        (
            sliding(self.ce, self.ecn_acked),
            sliding(self.ecn_acked, self.ecn_acked),
        )
    }
}

impl Bbr3 {
    /// v3 `bbr_update_ecn_alpha`, at a round start: alpha += g (CE fraction - alpha); the flow
    /// becomes ECN-eligible at its first CE mark if ECN was negotiated and min RTT <= 5 ms.
    /// Returns the round's CE fraction (None: no ACKed bytes or not eligible).
    pub(super) fn update_ecn_alpha(&mut self) -> Option<f64> {
        let s = &mut self.sig;
        let short_path = self
            .min_rtt
            .is_some_and(|r| r.as_secs_f64() <= ECN_MAX_RTT_S);
        if !s.ecn_eligible && self.ecn_capable && s.alpha_ce > 0 && short_path {
            s.ecn_eligible = true;
        }
        let (acked, ce) = (s.alpha_acked, s.alpha_ce);
        s.alpha_acked = 0;
        s.alpha_ce = 0;
        if !s.ecn_eligible || acked == 0 {
            return None;
        }
        let ratio = ce as f64 / acked as f64;
        s.ecn_alpha = ((1.0 - ECN_ALPHA_GAIN) * s.ecn_alpha + ECN_ALPHA_GAIN * ratio).min(1.0);
        Some(ratio)
    }

    /// v3 `bbr_check_ecn_too_high_in_startup`: 2 rounds with CE fraction >= 1/2 end Startup.
    pub(super) fn check_ecn_too_high_in_startup(&mut self, ce_ratio: Option<f64>) {
        if self.full_bw_reached || !self.sig.ecn_eligible {
            return;
        }
        let Some(r) = ce_ratio else { return };
        if r >= ECN_THRESH {
            self.sig.startup_ecn_rounds += 1;
        } else {
            self.sig.startup_ecn_rounds = 0;
        }
        if self.sig.startup_ecn_rounds >= FULL_ECN_COUNT {
            self.handle_queue_too_high_in_startup();
        }
    }

    /// v3 `bbr_handle_queue_too_high_in_startup`: the pipe is full, inflight_longterm = 1 BDP
    /// (v3 code; the draft's `BBRHandleQueueTooHighInStartup` takes max(BDP, inflight_latest)).
    fn handle_queue_too_high_in_startup(&mut self) {
        self.full_bw_reached = true;
        self.inflight_longterm = self.inflight(self.max_bw(), 1.0);
    }

    /// v3 `bbr_check_loss_too_high_in_startup` (draft 4.3.1.3 `BBRCheckStartupHighLoss`): at
    /// the end of a loss round in recovery with >= 6 lossy ACKs and a loss rate above 2 %.
    pub(super) fn check_loss_too_high_in_startup(&mut self, rs: &RateSample) {
        if self.full_bw_reached {
            return;
        }
        if rs.bytes_loss > 0 && self.sig.loss_events_in_round < 0xf {
            self.sig.loss_events_in_round += 1;
        }
        if self.sig.loss_round_start
            && self.in_recovery
            && self.sig.loss_events_in_round >= FULL_LOSS_COUNT
            && self.is_inflight_too_high(rs.prior_in_flight as f64)
        {
            self.handle_queue_too_high_in_startup();
            return;
        }
        if self.sig.loss_round_start {
            self.sig.loss_events_in_round = 0;
        }
    }

    /// v3 `bbr_is_inflight_too_high` (draft `IsInflightTooHigh`): lost > 2 % of the flight
    /// the sample was sent with, or (ECN-eligible) CE-marked > 1/2 of the ACKed bytes.
    pub(super) fn is_inflight_too_high(&self, tx_in_flight: f64) -> bool {
        let lost = self.sig.recent_lost();
        if lost > 0.0 && tx_in_flight > 0.0 && lost > tx_in_flight * LOSS_THRESH {
            return true;
        }
        let (ce, acked) = self.sig.recent_ce_fraction();
        self.sig.ecn_eligible && ce > 0.0 && ce > acked * ECN_THRESH
    }

    /// v3 `bbr_update_latest_delivery_signals` (draft `BBRUpdateLatestDeliverySignals`).
    pub(super) fn update_latest_delivery_signals(&mut self, rs: &RateSample) {
        self.sig.loss_round_start = false;
        let Some(delivered) = rs.delivered else {
            return;
        };
        if rs.acked_sacked == 0 {
            return;
        }
        self.bw_latest = self.bw_latest.max(rs.delivery_rate);
        self.inflight_latest = self.inflight_latest.max(delivered as f64);
        if rs.prior_delivered >= self.sig.loss_round_delivered {
            self.sig.loss_round_delivered = self.delivered;
            self.sig.loss_round_start = true;
        }
    }

    /// v3 `bbr_advance_latest_delivery_signals` (draft `BBRAdvanceLatestDeliverySignals`).
    pub(super) fn advance_latest_delivery_signals(&mut self, rs: &RateSample) {
        if self.sig.loss_round_start {
            self.bw_latest = rs.delivery_rate;
            self.inflight_latest = rs.delivered.unwrap_or(0) as f64;
        }
    }

    /// v3 `bbr_update_congestion_signals`: the max filter's sample, loss in the round, and once
    /// per loss round the lower bounds.
    pub(super) fn update_congestion_signals(&mut self, w: &Window, rs: &RateSample) {
        if rs.delivered.is_none() || rs.acked_sacked == 0 {
            return;
        }
        let bw = rs.delivery_rate;
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw_hi[1] = self.bw_hi[1].max(bw); // bbr_take_max_bw_sample
        }
        if rs.bytes_loss > 0 {
            if !self.sig.loss_in_round {
                self.sig.loss_round_delivered = self.delivered; // bbr_note_loss
            }
            self.sig.note_loss();
        }
        if !self.sig.loss_round_start {
            return;
        }
        self.adapt_lower_bounds(w);
        self.sig.loss_in_round = false;
        self.sig.ecn_in_round = false;
    }

    /// Draft `IsProbingBW` (v3 `bbr_is_probing_bandwidth`): Startup, REFILL and UP.
    fn is_probing_bandwidth(&self) -> bool {
        self.mode == Mode::Startup
            || (self.mode == Mode::ProbeBw && matches!(self.phase, Phase::Refill | Phase::Up))
    }

    /// v3 `bbr_adapt_lower_bounds` (draft `BBRAdaptLowerBoundsFromCongestion`): outside
    /// probing, a round with loss cuts bw_shortterm and inflight_shortterm to 0.7 (not below
    /// this round's delivery), a round with CE marks cuts inflight_shortterm by alpha / 3.
    fn adapt_lower_bounds(&mut self, w: &Window) {
        if self.is_probing_bandwidth() {
            return;
        }
        let mut ecn_inflight = f64::INFINITY;
        if self.sig.ecn_in_round {
            self.init_lower_bounds(w, false);
            ecn_inflight = self.inflight_shortterm * (1.0 - self.sig.ecn_alpha * ECN_FACTOR);
        }
        if self.sig.loss_in_round {
            self.init_lower_bounds(w, true);
            self.bw_shortterm = self.bw_latest.max(self.bw_shortterm * BETA);
            self.inflight_shortterm = self.inflight_latest.max(self.inflight_shortterm * BETA);
        }
        self.inflight_shortterm = self.inflight_shortterm.min(ecn_inflight);
        self.bw_shortterm = self.bw_shortterm.max(1.0);
    }

    /// v3 `bbr_init_lower_bounds`.
    fn init_lower_bounds(&mut self, w: &Window, init_bw: bool) {
        if init_bw && self.bw_shortterm.is_infinite() {
            self.bw_shortterm = self.max_bw();
        }
        if self.inflight_shortterm.is_infinite() {
            self.inflight_shortterm = w.cwnd;
        }
    }
}
