//! TCP Prague's detection of a classic ECN AQM and its fall-back (RFC 9331 section 4.3, "a
//! scalable congestion control ... MUST detect when it is using a bottleneck with a classic
//! ECN AQM and fall back to a Reno-friendly response"), as the L4STeam Linux `tcp_prague.c`
//! v0.6 does it (`prague_classic_ecn_detection`, `prague_rtt_estimator`,
//! `prague_update_rtt_scaling`, `prague_classic_ecn_fallback`; module parameter
//! `prague_ecn_fallback`: 0 none, the default, 1 detection and fall-back, 2 detection only),
//! after Briscoe and Ahmed, "TCP Prague Fall-back on Detection of a Classic ECN AQM",
//! arXiv:1911.00710 (2019).
//!
//! The idea: an L4S AQM keeps a shallow queue whose delay varies little, a classic AQM a
//! queue of several milliseconds that varies more. Once per round in which alpha is updated
//! (after the first CE mark), a score moves by
//!
//! `V * lg(mdev / V0) + D * lg(max(depth / D0, 1))`
//!
//! with V = D = 1/2 (`V`, `D`), V0 = 750 us (`V0_LG`) and D0 = 2 ms (`D0_LG`), where `mdev` is
//! the mean deviation of the RTT and `depth` the smoothed RTT above the minimum RTT, both from
//! an estimator of low gain (below). The score lives in [0, 17] (`C_STICKY`); above 8
//! (`L_STICKY`) the bottleneck is taken for classic, and from there to 9 (`CLASSIC_ECN`) the
//! fall-back grows: at a congestion window reduction, alpha is at least 0.625 (`(c >> 1) +
//! (c >> 3)`) times the score above 8 (`prague_classic_ecn_fallback`), so a flow behind a
//! classic AQM reduces by up to 31 % a mark rather than by alpha / 2 of a few percent.
//!
//! * The RTT estimator (`prague_rtt_estimator`): on each ACK with an RTT sample, srtt moves by
//!   2^-g of the error and mdev by 2^-(g+1) of |error| - mdev; the first sample sets srtt and
//!   mdev 1 us. g starts at 18 (`PRAGUE_MAX_SRTT_BITS`) and, at each window reduction, becomes
//!   min(l + l / 2 + 1, 18) for l = lg(ssthresh in segments) (`prague_update_rtt_scaling`,
//!   called from `prague_ssthresh` with the ssthresh before the reduction), so the estimator
//!   averages over about a window's worth of rounds.
//! * The samples are Linux's `ca_rtt_us`, the RTT of the highest segment sent once that
//!   the ACK delivered, measured from the sender's own send time ("accurate RTT measurement
//!   of last segment ... rather than ... RFC6298 which includes delay accumulated between two
//!   successive segments at the receiver"): here RACK's segment list (`Ack::ack_rtt`, the
//!   linux preset keeps it), else the timestamp echo, which includes that delay.
//! * The minimum RTT is the smallest sample of the connection (Linux `tcp_min_rtt`, a 300 s
//!   window, `tcp_min_rtt_wlen`: longer than most simulated runs).
//! * Linux computes the logarithms as integers and carries the remainder to the next round
//!   (`rest_mdev_us`, `rest_depth_us`, starting at sqrt 2 to centre the rounding), so their
//!   sum follows the real logarithms; here they are real logarithms. The self-limited term
//!   (`S`) is commented out in the Linux source and not modelled.

use serde::{Deserialize, Serialize};

use schemars::JsonSchema;

/// `prague_ecn_fallback`: what Prague does about a classic ECN AQM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EcnFallback {
    /// 0, the Linux default: no detection.
    #[default]
    Off,
    /// 2: the score is kept (and reported) but the response is unchanged.
    Detect,
    /// 1: detection and fall-back to a Reno-friendly reduction.
    Fallback,
}

/// V = D = 1/2: the weights of the two terms (`#define V 1`, `#define D 1`, as 1/2^x).
const WEIGHT_MDEV: f64 = 0.5;
const WEIGHT_DEPTH: f64 = 0.5;
/// V0 = 750 us (`V0_LG`, "reference queue V of ~750us").
const V0_US: f64 = 750.0;
/// D0 = 2 ms (`D0_LG`, "reference queue D of ~2ms").
const D0_US: f64 = 2000.0;
/// `L_STICKY` (16 << (alpha bits - V), in alpha units: 8): above it, classic.
pub const L_STICKY: f64 = 8.0;
/// `CLASSIC_ECN` = L_STICKY + 1: the fall-back is full from here.
const CLASSIC_ECN: f64 = L_STICKY + 1.0;
/// `C_STICKY` = CLASSIC_ECN + L_STICKY: the score's ceiling.
const C_STICKY: f64 = CLASSIC_ECN + L_STICKY;
/// `PRAGUE_MAX_SRTT_BITS`: the estimator's gain shift before the first reduction and its cap.
const MAX_SRTT_SHIFT: u32 = 18;

/// The classic-ECN score and the low-gain RTT estimator it reads.
#[derive(Debug, Clone)]
pub struct ClassicEcnDetector {
    pub mode: EcnFallback,
    /// `tp->classic_ecn`, in alpha units (0 ..= 17).
    pub score: f64,
    /// `g_srtt_shift`; mdev's is one more (`g_mdev_shift`).
    shift: u32,
    /// `srtt_pace_us` and `mdev_pace_us`, unscaled, in microseconds.
    srtt_us: Option<f64>,
    mdev_us: f64,
    min_rtt_us: f64,
    /// Rounds the score was above `L_STICKY` (for the report).
    pub classic_rounds: u64,
}

impl ClassicEcnDetector {
    pub fn new(mode: EcnFallback) -> Self {
        Self {
            mode,
            score: 0.0,
            shift: MAX_SRTT_SHIFT,
            srtt_us: None,
            mdev_us: 1.0,
            min_rtt_us: f64::INFINITY,
            classic_rounds: 0,
        }
    }

    pub fn enabled(&self) -> bool {
        self.mode != EcnFallback::Off
    }

    /// `prague_rtt_estimator`: one RTT sample, in seconds.
    pub fn on_rtt(&mut self, rtt_s: f64) {
        let m = rtt_s * 1e6;
        self.min_rtt_us = self.min_rtt_us.min(m);
        match self.srtt_us {
            None => {
                self.srtt_us = Some(m);
                self.mdev_us = 1.0;
            }
            Some(s) => {
                let err = m - s;
                self.srtt_us = Some(s + err / 2f64.powi(self.shift as i32));
                self.mdev_us += (err.abs() - self.mdev_us) / 2f64.powi(self.shift as i32 + 1);
            }
        }
    }

    /// `prague_update_rtt_scaling`, at a window reduction, with the ssthresh before it in
    /// segments.
    pub fn on_reduction(&mut self, ssthresh_segs: f64) {
        let l = (ssthresh_segs.clamp(1.0, u32::MAX as f64) as u32).ilog2();
        self.shift = (l + (l >> 1) + 1).min(MAX_SRTT_SHIFT);
    }

    /// `prague_classic_ecn_detection`: once per round in which alpha is updated.
    pub fn on_round(&mut self) {
        let Some(srtt) = self.srtt_us else { return };
        if !self.min_rtt_us.is_finite() {
            return;
        }
        let mut score = self.score + WEIGHT_MDEV * (self.mdev_us.max(1.0) / V0_US).log2();
        if srtt > self.min_rtt_us {
            // queue build-up only moves the score toward classic
            let depth = srtt - self.min_rtt_us;
            score += WEIGHT_DEPTH * (depth / D0_US).log2().max(0.0);
        }
        self.score = score.clamp(0.0, C_STICKY);
        if self.score > L_STICKY {
            self.classic_rounds += 1;
        }
    }

    /// `prague_classic_ecn_fallback`: the alpha a reduction uses.
    pub fn alpha_for_reduction(&self, alpha: f64) -> f64 {
        if self.mode != EcnFallback::Fallback || self.score <= L_STICKY {
            return alpha;
        }
        let c = self.score.min(CLASSIC_ECN) - L_STICKY;
        alpha.max(c * 0.625)
    }

    pub fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "mode": self.mode,
            "score": self.score,
            "classic": self.score > L_STICKY,
            "classic_rounds": self.classic_rounds,
            "srtt_ms": self.srtt_us.map(|s| s / 1e3),
            "mdev_ms": self.mdev_us / 1e3,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settled(shift_segs: f64, rtts_ms: impl Fn(u64) -> f64, rounds: u64) -> ClassicEcnDetector {
        let mut d = ClassicEcnDetector::new(EcnFallback::Fallback);
        d.on_reduction(shift_segs);
        for r in 0..rounds {
            for k in 0..20 {
                d.on_rtt(rtts_ms(r * 20 + k) / 1e3);
            }
            d.on_round();
        }
        d
    }

    #[test]
    fn the_gain_follows_the_window() {
        let mut d = ClassicEcnDetector::new(EcnFallback::Detect);
        assert_eq!(
            d.shift, 18,
            "PRAGUE_MAX_SRTT_BITS before the first reduction"
        );
        d.on_reduction(40.0); // lg 40 = 5: 5 + 2 + 1
        assert_eq!(d.shift, 8);
        d.on_reduction(1e9); // huge ssthresh: capped
        assert_eq!(d.shift, 18);
        d.on_reduction(2.0);
        assert_eq!(d.shift, 2);
    }

    #[test]
    fn a_shallow_steady_queue_stays_l4s() {
        // 10 ms base, 0.2-0.5 ms of queue varying by 0.3 ms: mdev << 750 us, depth < 2 ms
        let d = settled(16.0, |k| 10.2 + 0.3 * ((k % 3) as f64) / 2.0, 400);
        assert_eq!(d.score, 0.0, "mdev below V0 pulls the score to its floor");
        assert_eq!(d.alpha_for_reduction(0.05), 0.05);
    }

    #[test]
    fn a_deep_varying_queue_is_classic_and_the_fallback_raises_alpha() {
        // 10 ms base, a queue swinging 0-20 ms: mdev of several ms, depth ~10 ms
        let d = settled(16.0, |k| 10.0 + (k % 40) as f64 / 2.0, 400);
        assert!(d.score > CLASSIC_ECN, "score {}", d.score);
        assert!(d.score <= C_STICKY);
        assert!((d.alpha_for_reduction(0.05) - 0.625).abs() < 1e-12);
        assert_eq!(d.alpha_for_reduction(0.9), 0.9, "alpha is only raised");
        let mut only = d.clone();
        only.mode = EcnFallback::Detect;
        assert_eq!(
            only.alpha_for_reduction(0.05),
            0.05,
            "detection alone changes nothing"
        );
    }

    #[test]
    fn one_round_moves_the_score_by_the_two_logarithms() {
        let mut d = ClassicEcnDetector::new(EcnFallback::Detect);
        d.min_rtt_us = 10_000.0;
        d.srtt_us = Some(18_000.0); // depth 8 ms = 4 D0: + 0.5 * 2
        d.mdev_us = 3000.0; // 4 V0: + 0.5 * 2
        d.score = 5.0;
        d.on_round();
        assert!((d.score - 7.0).abs() < 1e-12, "{}", d.score);
        d.srtt_us = Some(11_000.0); // depth 1 ms < D0: no depth term
        d.mdev_us = 375.0; // V0 / 2: - 0.5
        d.on_round();
        assert!((d.score - 6.5).abs() < 1e-12, "{}", d.score);
    }
}
