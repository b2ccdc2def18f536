//! TCP Prague, the L4S scalable congestion control: RFC 9331 "The Explicit Congestion
//! Notification (ECN) Protocol for Low Latency, Low Loss, and Scalable Throughput (L4S)"
//! section 4 (the requirements on L4S senders) and its Linux reference implementation
//! `net/ipv4/tcp_prague.c` (L4STeam/linux; read through the search tool).
//!
//! * RFC 9331 section 4.1: data segments are ECT(1) (`ect`).
//! * Section 4.3 (scalable control; tcp_prague "DCTCP-like"): alpha is RFC 8257's estimator
//!   (g = 1/16, `PRAGUE_SHIFT_G` 4), but it moves only once a CE mark has been seen
//!   (`prague_update_alpha`: "Do not update alpha before we have proof that there's an AQM on
//!   the path"); the reduction once per round trip is cwnd * alpha / 2 (`prague_enter_cwr`),
//!   at least 2 segments (`MIN_CWND`).
//! * Additive increase per acknowledged segment *without* CE (`prague_update_cwnd` subtracts
//!   the CE-marked part of each ACK): one segment per window of unmarked segments, in slow
//!   start one per unmarked segment.
//! * Section 4.3 "reduce RTT dependence" (`prague_rtt_scaling` RTT_CONTROL_RATE, the default):
//!   once `prague_rtt_transition` (500) rounds have passed since slow start, a flow whose
//!   smoothed RTT r is below the target (`prague_rtt_target` 25 ms) grows by (r / target)^2
//!   segment per round instead of one, so flows with RTTs up to the target gain rate at the
//!   same speed (as if their RTT were the target). RTTs above 100 ms (`MAX_SCALED_RTT`) are
//!   not scaled. The RTT used here is the smoothed fine-grained RTT of the ACKs (gain 1/8).
//! * Section 4.3 "fall back to Reno-friendly on loss" (`prague_enter_loss`): a loss halves
//!   cwnd.
//! * Section 4.3 "fall back to Reno-friendly on classic ECN bottlenecks": the detection of a
//!   classic ECN AQM (`prague_ecn_fallback`, off by default in Linux and here;
//!   `tcp.prague_ecn_fallback = "detect"` or `"fallback"`), `cc/prague_classic_ecn.rs`.
//! * Pacing (`prague_update_pacing_rate`, always on) is the sender's, `tcp/pacing.rs`
//!   `Pacer::prague`: 100 % of max(cwnd, in flight) per srtt after early slow start.
//! * Feedback: with `ecn_feedback = "accecn"` (RFC 9768, `tcp/accecn.rs`; Linux tcp_prague
//!   sets `TCP_CONG_NEEDS_ACCECN`) alpha and the growth read the ACK's newly CE-marked
//!   packets (Linux `delivered_ce`, `rs->ece_delta`) times the MSS; with the default classic
//!   feedback the receiver echoes each segment's CE state (RFC 8257 section 3.2) and an ACK
//!   with ECE counts as wholly marked.
//! * Small windows (`prague_cwnd_mode`, `tcp.prague_cwnd_mode`): "window" (the default) is
//!   the controller above; "rate" and "switch" add the rate-based mode of the L4STeam
//!   tcp_prague.c v0.7 (whose module default is "switch") with v0.7's transition of 4 rounds,
//!   `cc/prague_rate.rs`.
//! * Not modelled: the GSO burst limit, and (in the window mode) the once-per-target-RTT
//!   reduction limit of the RTT-independent mode (the sender reduces at most once per window).

use super::dctcp::AlphaEstimator;
use super::prague_classic_ecn::{ClassicEcnDetector, EcnFallback};
use super::prague_rate::{self, CwndMode, RateMode};
use super::{Ack, CongestionControl, EcnFeedback, Recovery, Window};
use crate::packet::Ecn;
use crate::units::SimTime;

/// `prague_rtt_transition`: rounds after slow start before the RTT scaling applies.
pub const RTT_TRANSITION_ROUNDS: u64 = 500;
/// `MAX_SCALED_RTT`: 100 ms.
const MAX_SCALED_RTT_S: f64 = 0.1;

pub struct Prague {
    pub est: AlphaEstimator,
    saw_ce: bool,
    /// The acknowledged and CE-marked bytes of the ACK being processed (set by `on_ecn_ack`).
    ack_acked: u64,
    ack_marked: u64,
    /// Rounds since slow start ended (`ca->round`).
    pub rounds: u64,
    round_end: u64,
    srtt: Option<f64>,
    rtt_target: f64,
    /// Fractional cwnd carried between ACKs, in segments.
    cnt: f64,
    /// The classic-ECN-AQM detection (`prague_ecn_fallback`).
    pub classic: ClassicEcnDetector,
    /// `prague_rtt_transition`: 500 rounds in the window mode, v0.7's 4 with the rate modes.
    rtt_transition: u64,
    /// The rate-based mode for small windows (`prague_cwnd_mode`).
    pub rm: RateMode,
}

impl Prague {
    pub fn new(g: f64, alpha_init: f64, rtt_target: SimTime, fallback: EcnFallback) -> Self {
        Self::with_cwnd_mode(g, alpha_init, rtt_target, fallback, CwndMode::Window)
    }

    pub fn with_cwnd_mode(
        g: f64,
        alpha_init: f64,
        rtt_target: SimTime,
        fallback: EcnFallback,
        mode: CwndMode,
    ) -> Self {
        Self {
            est: AlphaEstimator::new(g, alpha_init),
            saw_ce: false,
            ack_acked: 0,
            ack_marked: 0,
            rounds: 0,
            round_end: 0,
            srtt: None,
            rtt_target: rtt_target.as_secs_f64(),
            cnt: 0.0,
            classic: ClassicEcnDetector::new(fallback),
            rtt_transition: if mode == CwndMode::Window {
                RTT_TRANSITION_ROUNDS
            } else {
                prague_rate::RTT_TRANSITION_ROUNDS
            },
            rm: RateMode::new(mode),
        }
    }

    /// `prague_is_rtt_indep`: out of slow start and the transition rounds after it.
    fn rtt_indep(&self, w: &Window) -> bool {
        !w.in_slow_start() && self.rounds >= self.rtt_transition
    }

    /// `prague_virtual_rtt`: max(target, srtt).
    fn vrtt(&self) -> f64 {
        self.srtt.unwrap_or(0.0).max(self.rtt_target)
    }

    /// Segments added per window of unmarked segments (RTT_CONTROL_RATE).
    pub fn ai_per_round(&self) -> f64 {
        match self.srtt {
            Some(r)
                if self.rounds >= self.rtt_transition
                    && r > 0.0
                    && r <= MAX_SCALED_RTT_S
                    && r < self.rtt_target =>
            {
                (r / self.rtt_target).powi(2)
            }
            _ => 1.0,
        }
    }
}

impl CongestionControl for Prague {
    fn name(&self) -> &'static str {
        "prague"
    }
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }
    fn on_ack(&mut self, w: &mut Window, a: &Ack) {
        if let Some(r) = a.rtt {
            let r = r.as_secs_f64();
            self.srtt = Some(match self.srtt {
                None => r,
                Some(s) => s + (r - s) / 8.0,
            });
        }
        if !self.rm.enabled() {
            self.window_ack(w, a);
            return;
        }
        let rtt_indep = self.rtt_indep(w);
        if let Some(s) = self.srtt {
            self.rm.on_srtt(s);
        }
        match self.srtt {
            Some(s) if self.rm.active(rtt_indep) => {
                // prague_update_cwnd: acked -= ece_delta
                let unmarked = a.acked.saturating_sub(self.ack_marked) as f64 / w.mss;
                self.rm.on_ack(w, unmarked, s, self.vrtt());
            }
            _ => self.window_ack(w, a),
        }
        let rtt_indep = self.rtt_indep(w);
        self.rm
            .after_ack(w, a.now, self.saw_ce, self.srtt, rtt_indep, self.vrtt());
    }
    fn pacing_rate(&self) -> Option<f64> {
        self.rm.pacing()
    }
    fn ecn_feedback(&self) -> EcnFeedback {
        EcnFeedback::Extent
    }
    fn ect(&self) -> Ecn {
        Ecn::Ect1
    }
    fn grows_during_cwr(&self) -> bool {
        true // "cwnd is updated for every ACK, regardless of the congestion status"
    }
    fn on_ecn_ack(&mut self, w: &Window, acked: u64, marked: u64, a: &Ack) {
        self.on_ecn_ack_window(w, acked, marked, a);
        if self.rm.enabled() {
            let rtt_indep = self.rtt_indep(w);
            self.rm.on_ack_seq(
                a.now,
                a.snd_una,
                a.snd_nxt,
                self.srtt,
                rtt_indep,
                self.rtt_target,
            );
        }
    }
    fn ssthresh_on_loss(&mut self, w: &Window, _flight: u64, _now: SimTime) -> f64 {
        self.classic.on_reduction(w.ssthresh / w.mss); // prague_ssthresh
        match self.srtt {
            Some(s) if self.rm.active(self.rtt_indep(w)) => self.rm.reduce_on_loss(w, s),
            _ => (w.cwnd / 2.0).max(2.0 * w.mss),
        }
    }
    fn ssthresh_on_ecn(&mut self, w: &Window, _flight: u64, now: SimTime) -> f64 {
        self.classic.on_reduction(w.ssthresh / w.mss); // prague_ssthresh
        let alpha = self.classic.alpha_for_reduction(self.est.alpha); // prague_enter_cwr
        if self.rm.enabled() {
            let rtt_indep = self.rtt_indep(w);
            if !self.rm.may_reduce(now, rtt_indep, self.rtt_target) {
                return w.cwnd; // within a target RTT of the last reduction
            }
            if self.rm.active(rtt_indep) {
                self.rm.reduce_on_ce(alpha);
                return w.cwnd; // cwnd steps down to the rate's window per ACK
            }
        }
        (w.cwnd * (1.0 - alpha / 2.0)).max(2.0 * w.mss)
    }
    fn report(&self) -> Option<serde_json::Value> {
        let mut j = serde_json::json!({
            "alpha": self.est.alpha,
            "rounds": self.rounds,
            "ai_per_round": self.ai_per_round(),
        });
        if self.classic.enabled() {
            j["classic_ecn"] = self.classic.report();
        }
        if self.rm.enabled() {
            j["cwnd_mode"] = self.rm.report();
        }
        Some(j)
    }
}

impl Prague {
    /// The window rules of an ACK (`prague_update_cwnd`, window branch).
    fn window_ack(&mut self, w: &mut Window, a: &Ack) {
        // prague_update_cwnd: acked -= ece_delta (classic feedback: all or nothing)
        if self.ack_marked >= self.ack_acked && self.ack_marked > 0 {
            return;
        }
        let segs = a.acked.saturating_sub(self.ack_marked) as f64 / w.mss;
        if w.in_slow_start() {
            w.cwnd = (w.cwnd + segs * w.mss).min(w.ssthresh); // tcp_slow_start
            return;
        }
        self.cnt += segs * self.ai_per_round() / (w.cwnd / w.mss);
        if self.cnt >= 1.0 {
            let whole = self.cnt.floor();
            self.cnt -= whole;
            w.cwnd += whole * w.mss;
        }
    }

    /// Alpha, the rounds and the classic-ECN detection on an ACK (`prague_update_alpha`).
    fn on_ecn_ack_window(&mut self, w: &Window, acked: u64, marked: u64, a: &Ack) {
        self.ack_acked = acked;
        self.ack_marked = marked;
        self.saw_ce |= marked > 0;
        if self.classic.enabled() {
            // prague_pkts_acked: the last segment's RTT (`ca_rtt_us`), where the sender keeps
            // send times (RACK), else the echo's
            if let Some(r) = a.ack_rtt.or(a.rtt) {
                self.classic.on_rtt(r.as_secs_f64());
            }
        }
        // prague_update_alpha: the detection runs where alpha is updated, once a CE was seen
        if self.saw_ce
            && self
                .est
                .on_ack(acked, marked, a.snd_una, a.snd_nxt)
                .is_some()
            && self.classic.enabled()
        {
            self.classic.on_round();
        }
        if a.snd_una > self.round_end {
            self.round_end = a.snd_nxt;
            if !w.in_slow_start() {
                self.rounds += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ack, window};
    use super::*;

    fn ack_rtt(bytes: u64, una: u64, nxt: u64, rtt_ms: u64) -> Ack {
        Ack {
            snd_una: una,
            snd_nxt: nxt,
            rtt: Some(SimTime::from_millis(rtt_ms)),
            ..ack(bytes)
        }
    }

    // ---- RFC 9331 4.1: ECT(1) ----
    #[test]
    fn sends_ect1_and_reads_the_extent_of_marking() {
        let p = Prague::new(1.0 / 16.0, 1.0, SimTime::from_millis(25), EcnFallback::Off);
        assert_eq!(p.ect(), Ecn::Ect1);
        assert_eq!(p.ecn_feedback(), EcnFeedback::Extent);
    }

    // ---- tcp_prague: alpha waits for the first CE; CE-marked ACKs do not grow cwnd ----
    #[test]
    fn alpha_frozen_until_ce_and_marked_acks_do_not_grow() {
        let mut p = Prague::new(1.0 / 16.0, 1.0, SimTime::from_millis(25), EcnFallback::Off);
        let mut w = window(10.0, 5.0);
        for i in 0..40u64 {
            let a = ack_rtt(1000, 1001 + i * 1000, 11_001 + i * 1000, 10);
            p.on_ecn_ack(&w, 1000, 0, &a);
            p.on_ack(&mut w, &a);
        }
        assert_eq!(
            p.est.alpha, 1.0,
            "no CE yet: alpha stays at its initial value"
        );
        let before = w.cwnd;
        let a = ack_rtt(1000, 50_000, 60_000, 10);
        p.on_ecn_ack(&w, 1000, 1000, &a);
        p.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, before);
        assert!(p.saw_ce);
    }

    // ---- RTT independence: (r/target)^2 segments per round after the transition ----
    #[test]
    fn rtt_scaling_after_the_transition_rounds() {
        let mut p = Prague::new(1.0 / 16.0, 1.0, SimTime::from_millis(25), EcnFallback::Off);
        p.srtt = Some(0.005);
        assert_eq!(p.ai_per_round(), 1.0);
        p.rounds = RTT_TRANSITION_ROUNDS;
        assert!((p.ai_per_round() - 0.04).abs() < 1e-12);
        p.srtt = Some(0.040); // above the target: unscaled
        assert_eq!(p.ai_per_round(), 1.0);
        // One round of 10 unmarked segments at r = 5 ms adds 0.04 segment.
        p.srtt = Some(0.005);
        let mut w = window(10.0, 5.0);
        for i in 0..10u64 {
            p.on_ack(&mut w, &ack_rtt(1000, 1001 + i * 1000, 11_001, 5));
        }
        assert_eq!(w.cwnd, 10_000.0);
        assert!((p.cnt - 0.04).abs() < 1e-3);
    }

    // ---- reductions: ECN by alpha/2, loss halves ----
    #[test]
    fn ecn_reduces_by_alpha_over_two_and_loss_halves() {
        let mut p = Prague::new(1.0 / 16.0, 0.5, SimTime::from_millis(25), EcnFallback::Off);
        let w = window(40.0, 20.0);
        assert_eq!(p.ssthresh_on_ecn(&w, 0, SimTime::ZERO), 30_000.0);
        assert_eq!(p.ssthresh_on_loss(&w, 0, SimTime::ZERO), 20_000.0);
    }
}
