//! Long-term bandwidth sampling (Linux `bbr_lt_bw_sampling`, `bbr_lt_bw_interval_done`,
//! flavour rule `bbr_lt_bw_sampling`: Linux's, not ns-3.44's). After a loss, sample the
//! delivery rate over an interval of 4 to 16 rounds (`bbr_lt_intvl_min_rtts` 4) that ends at
//! a loss with lost / delivered >= 50/256 (`bbr_lt_loss_thresh`); two consecutive such
//! intervals whose rates differ by at most 1/8 (`bbr_lt_bw_ratio`) or 500 B/s
//! (`bbr_lt_bw_diff` 4000/8) mean a token-bucket policer: their mean becomes the bandwidth
//! (`bbr_bw`) and PROBE_BW paces at gain 1 for 48 rounds (`bbr_lt_bw_max_rtts`), then starts
//! over. An application-limited sample restarts the sampling; a timeout counts as a lossy
//! round end (`bbr_set_state(TCP_CA_Loss)`). Bytes stand for Linux's packets in the ratios.

use super::{Bbr, Mode};
use crate::units::SimTime;

/// Linux `bbr_lt_bw_sampling`'s state: `lt_is_sampling`, `lt_use_bw`, `lt_bw`, `lt_rtt_cnt` and
/// the interval's start (`lt_last_delivered`, `lt_last_lost`, `lt_last_stamp` in ms).
#[derive(Debug, Clone, Default)]
pub struct LongTerm {
    pub is_sampling: bool,
    pub use_bw: bool,
    /// Bytes per second; 0 before a first lossy interval.
    pub bw: f64,
    pub rtt_cnt: u32,
    last_delivered: u64,
    last_lost: u64,
    last_stamp_ms: u64,
    /// Bytes marked lost so far (Linux `tp->lost`).
    pub lost: u64,
}

/// `bbr_lt_intvl_min_rtts`.
const LT_INTVL_MIN_RTTS: u32 = 4;
/// `bbr_lt_loss_thresh` 50 of `BBR_UNIT` 256.
const LT_LOSS_THRESH: f64 = 50.0 / 256.0;
/// `bbr_lt_bw_ratio` = `BBR_UNIT` / 8.
const LT_BW_RATIO: f64 = 1.0 / 8.0;
/// `bbr_lt_bw_diff` = 4000 / 8 bytes per second.
const LT_BW_DIFF: f64 = 500.0;
/// `bbr_lt_bw_max_rtts`.
const LT_BW_MAX_RTTS: u32 = 48;

impl Bbr {
    /// `bbr_reset_lt_bw_sampling_interval`.
    pub(super) fn lt_reset_interval(&mut self, now: SimTime) {
        let delivered = self.delivered;
        if let Some(lt) = &mut self.lt {
            lt.last_stamp_ms = now.as_nanos() / 1_000_000;
            lt.last_delivered = delivered;
            lt.last_lost = lt.lost;
            lt.rtt_cnt = 0;
        }
    }

    /// `bbr_reset_lt_bw_sampling`.
    pub(super) fn lt_reset(&mut self, now: SimTime) {
        if let Some(lt) = &mut self.lt {
            lt.bw = 0.0;
            lt.use_bw = false;
            lt.is_sampling = false;
        }
        self.lt_reset_interval(now);
    }

    /// `bbr_lt_bw_sampling`, once per ACK after the round is counted; `losses`: the ACK marked
    /// bytes lost (or a timeout), `app_limited`: the sample is application-limited.
    pub(super) fn lt_sampling(&mut self, losses: bool, app_limited: bool, now: SimTime) {
        let Some(lt) = &mut self.lt else {
            return;
        };
        if lt.use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                lt.rtt_cnt += 1;
                if lt.rtt_cnt >= LT_BW_MAX_RTTS {
                    self.lt_reset(now);
                    self.enter_probe_bw(now); // bbr_reset_probe_bw_mode
                }
            }
            return;
        }
        // wait for the first loss, so that a policer's tokens are used up
        if !lt.is_sampling {
            if !losses {
                return;
            }
            lt.is_sampling = true;
            self.lt_reset_interval(now);
        }
        self.lt_sampling_in_interval(losses, app_limited, now)
    }

    pub(super) fn lt_sampling_in_interval(
        &mut self,
        losses: bool,
        app_limited: bool,
        now: SimTime,
    ) {
        if app_limited {
            return self.lt_reset(now);
        }
        let round_start = self.round_start;
        let delivered_now = self.delivered;
        let Some(lt) = &mut self.lt else {
            return;
        };
        if round_start {
            lt.rtt_cnt += 1;
        }
        if lt.rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if lt.rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            return self.lt_reset(now); // the interval is too long
        }
        if !losses {
            return; // end the interval at a loss: the policer's tokens are then used up
        }
        let lost = lt.lost - lt.last_lost;
        let delivered = delivered_now - lt.last_delivered;
        if delivered == 0 || (lost as f64) < LT_LOSS_THRESH * delivered as f64 {
            return;
        }
        let t_ms = (now.as_nanos() / 1_000_000).saturating_sub(lt.last_stamp_ms);
        if t_ms < 1 {
            return;
        }
        let bw = delivered as f64 / (t_ms as f64 / 1e3);
        // bbr_lt_bw_interval_done
        if lt.bw > 0.0 {
            let diff = (bw - lt.bw).abs();
            if diff <= LT_BW_RATIO * lt.bw || diff <= LT_BW_DIFF {
                lt.bw = (bw + lt.bw) / 2.0;
                lt.use_bw = true;
                lt.rtt_cnt = 0;
                self.pacing_gain = 1.0;
                return;
            }
        }
        lt.bw = bw;
        self.lt_reset_interval(now);
    }
}
