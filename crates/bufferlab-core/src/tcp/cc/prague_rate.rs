//! TCP Prague's rate-based mode for small windows (`prague_cwnd_mode`): the L4STeam
//! `net/ipv4/tcp_prague.c` of MODULE_VERSION "0.7" (Nokia 2024; Chia-Yu Chang, Olivier
//! Tilmans, Koen De Schepper, Bob Briscoe; read through the search tool as stored in
//! minuscat/l4steam-6.6.y at 1c07adc and in the version prepared for net-next), header
//! comment points 6 and 7 and the functions named below. Our own code, not a translation.
//!
//! * Modes (`prague_cwnd_mode`, "TCP Prague mode (0: FracWin-base; 1: Rate-base; 2: Switch)";
//!   `prague_init` splits it into `cwnd_mode = mode & 1` and the switch bit `mode & 2`):
//!   "window" (0) is the fractional-window controller of `prague.rs`; "rate" (1) keeps a rate
//!   (`rate_bytes`) instead; "switch" (2), v0.7's module default, runs the rate rules while
//!   the window is at most `prague_cwnd_transit` (4) times `MTU_SYS` (1500 B) and CE has been
//!   seen, the window rules above (`prague_cong_control`, after every ACK).
//! * The rate rules apply only once the flow is RTT-independent (`prague_is_rtt_indep`: out of
//!   slow start and `prague_rtt_transition` rounds after it; v0.7's `DEFAULT_RTT_TRANSITION`
//!   4, which these two modes use, for the RTT scaling of the window rules too).
//! * Growth (`prague_update_cwnd`, rate branch): per unmarked acknowledged segment the rate
//!   grows by MTU / vRTT divided by the window the rate makes over vRTT (rounded up), vRTT =
//!   max(target, srtt) (`prague_virtual_rtt`): one MTU per vRTT per vRTT, the window rules'
//!   RTT-independent growth expressed as a rate.
//! * The window follows the rate: frac_cwnd = rate x hsrtt / MTU (`prague_pacing_rate_to_
//!   frac_cwnd`; hsrtt an EWMA of srtt of gain 1/128 per EWMA round, `HSRTT_SHIFT` 7), and
//!   cwnd steps by one segment per ACK toward max(2, ceil(frac_cwnd)) (`prague_update_cwnd`
//!   "adjust", `MIN_CWND_RTT` 2), ssthresh = cwnd on each step down. The pacing rate is what
//!   limits the flow.
//! * Pacing (`prague_update_pacing_rate`, rate branch): the rate +`RATE_OFFSET` (4/128, about
//!   3 %) during the first half of vRTT after the EWMA's last update (`alpha_stamp`), -4/128
//!   in the second half (point 7: a stable number of marks per RTT from a step AQM).
//! * Reductions: on CE (`prague_enter_cwr`) rate x (1 - alpha / 2), at least `MINIMUM_RATE`
//!   (12 500 B/s, 100 kb/s); on loss (`prague_enter_loss`) the rate halves. Once
//!   RTT-independent, at most one CE reduction per target RTT (`cwr_stamp`; both modes).
//! * The EWMA round (`prague_should_update_ewma`): once RTT-independent it ends at the first
//!   ACK that closes a round trip at least one target RTT after the last; it moves the pacing
//!   halves and hsrtt. Alpha itself keeps `prague.rs`'s once-per-round update.
//! * Under the window rules the rate tracks the window: rate = max(cwnd / srtt, MINIMUM_RATE)
//!   (`prague_frac_cwnd_to_pacing_rate`, set on every ACK in the switch branch of
//!   `prague_cong_control`), so the rate rules start from the window's rate.
//!
//! Not modelled: the packet size reduction below 2 MTU per vRTT (`prague_pacing_rate_to_
//! max_mtu`, `MIN_MSS` 150 B; it engages below about 1 Mbit/s at 25 ms), undo
//! (`prague_cwnd_undo`), and the cwnd-limited test before growth (the 6.6.y tree tests
//! `app_limited` only, which a bulk flow never is). Rates are in payload bytes here, Linux's in
//! MTU-sized bytes; with a 1448 B MSS in a 1500 B MTU the transit test (4 x 1500 B) is 4
//! segments either way.

use super::Window;
use crate::units::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `prague_cwnd_mode`: how Prague controls a flow with a small window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CwndMode {
    /// 0: the fractional window throughout (the tcp_prague.c this model follows, and the
    /// default of the L4STeam patch that introduced the parameter).
    #[default]
    Window,
    /// 1: a rate throughout, once RTT-independent.
    Rate,
    /// 2: the rate at windows up to `prague_cwnd_transit` (4 MTU), the window above; the
    /// default of tcp_prague.c v0.7.
    Switch,
}

impl CwndMode {
    pub fn as_str(self) -> &'static str {
        match self {
            CwndMode::Window => "window",
            CwndMode::Rate => "rate",
            CwndMode::Switch => "switch",
        }
    }
}

/// `prague_cwnd_transit` 4, in `MTU_SYS` (1500 B): the switch point in segments of a 1448 B MSS.
pub const CWND_TRANSIT_SEGS: f64 = 4.0;
/// v0.7's `DEFAULT_RTT_TRANSITION`: rounds after slow start before the flow is RTT-independent.
pub const RTT_TRANSITION_ROUNDS: u64 = 4;
/// `RATE_OFFSET` 4 in units of 1/128 (`OFFSET_UNIT` 7, `prague_rate_offset`): about 3 %.
const RATE_OFFSET: f64 = 4.0 / 128.0;
/// `MINIMUM_RATE`: 12 500 B/s (100 kbit/s).
const MINIMUM_RATE: f64 = 12_500.0;
/// `HSRTT_SHIFT` 7: hsrtt's gain per EWMA round.
const HSRTT_GAIN: f64 = 1.0 / 128.0;
/// `MIN_CWND_RTT`: the smallest window, in segments.
const MIN_CWND_SEGS: f64 = 2.0;

/// The rate state of Prague (v0.7's `rate_bytes`, `hsrtt_us`, `cwnd_mode`, stamps).
#[derive(Debug, Clone)]
pub struct RateMode {
    pub mode: CwndMode,
    /// `ca->cwnd_mode`: the rate rules are chosen (they run once RTT-independent).
    rate_chosen: bool,
    /// `rate_bytes`: payload bytes per second.
    pub rate: f64,
    /// `hsrtt_us`: the slow EWMA of srtt (seconds), from the first RTT sample on.
    hsrtt: Option<f64>,
    /// `alpha_stamp`: the start of the current EWMA round.
    round_start: SimTime,
    /// snd_nxt when the EWMA round started (`next_seq`).
    round_seq: u64,
    /// `cwr_stamp`: the last CE reduction.
    cwr_stamp: Option<SimTime>,
    /// The pacing rate set on the last ACK under the rate rules (None: the window's rule).
    pacing: Option<f64>,
    /// ACKs handled by the rate rules and mode changes (for the report).
    pub rate_acks: u64,
    pub switches: u64,
}

impl RateMode {
    pub fn new(mode: CwndMode) -> Self {
        Self {
            mode,
            rate_chosen: mode == CwndMode::Rate,
            rate: MINIMUM_RATE,
            hsrtt: None,
            round_start: SimTime::ZERO,
            round_seq: 0,
            cwr_stamp: None,
            pacing: None,
            rate_acks: 0,
            switches: 0,
        }
    }

    /// Any v0.7 rule applies (modes rate and switch).
    pub fn enabled(&self) -> bool {
        self.mode != CwndMode::Window
    }

    /// The rate rules run on this ACK (`prague_is_rtt_indep(sk) && ca->cwnd_mode == 1`).
    pub fn active(&self, rtt_indep: bool) -> bool {
        self.enabled() && self.rate_chosen && rtt_indep
    }

    /// The pacing rate the controller sets (payload bytes/s), under the rate rules.
    pub fn pacing(&self) -> Option<f64> {
        self.pacing
    }

    /// The first RTT sample starts hsrtt (`prague_init` from srtt).
    pub fn on_srtt(&mut self, srtt: f64) {
        if self.hsrtt.is_none() {
            self.hsrtt = Some(srtt);
        }
    }

    /// `prague_should_update_ewma` and the `skip:` part of `prague_update_alpha`: an ACK up
    /// to `snd_una` closes the EWMA round once it covers the round's data and, when
    /// RTT-independent, a target RTT has passed since the round began.
    pub fn on_ack_seq(
        &mut self,
        now: SimTime,
        snd_una: u64,
        snd_nxt: u64,
        srtt: Option<f64>,
        rtt_indep: bool,
        target: f64,
    ) {
        let elapsed = now.saturating_sub(self.round_start).as_secs_f64();
        if snd_una < self.round_seq || (rtt_indep && elapsed < target) {
            return;
        }
        self.round_start = now;
        self.round_seq = snd_nxt;
        if let (Some(h), Some(s)) = (self.hsrtt, srtt) {
            self.hsrtt = Some(h + (s - h) * HSRTT_GAIN);
        }
    }

    /// The rate's window in segments (`prague_pacing_rate_to_frac_cwnd`): rate x hsrtt / MSS.
    fn frac_cwnd(&self, mss: f64, srtt: f64) -> f64 {
        self.rate * self.hsrtt.unwrap_or(srtt) / mss
    }

    /// An ACK under the rate rules with `segs` unmarked segments (`prague_update_cwnd`, rate
    /// branch and "adjust"): grow the rate, step cwnd toward the rate's window.
    pub fn on_ack(&mut self, w: &mut Window, segs: f64, srtt: f64, vrtt: f64) {
        self.rate_acks += 1;
        if segs > 0.0 {
            let wv = (self.rate * vrtt / w.mss).ceil().max(1.0);
            self.rate += segs * w.mss / vrtt / wv;
        }
        let target = self.frac_cwnd(w.mss, srtt).ceil().max(MIN_CWND_SEGS);
        let cur = w.cwnd / w.mss;
        if cur > target {
            w.cwnd = (cur - 1.0).max(target) * w.mss;
            w.ssthresh = w.cwnd; // "Step-wise cwnd decrement"
        } else if cur < target {
            w.cwnd = (cur.floor() + 1.0).min(target) * w.mss;
        }
    }

    /// After every ACK (`prague_update_pacing_rate`, then the switch in `prague_cong_control`):
    /// the pacing rate, the rate tracking the window under the window rules, the mode.
    pub fn after_ack(
        &mut self,
        w: &Window,
        now: SimTime,
        saw_ce: bool,
        srtt: Option<f64>,
        rtt_indep: bool,
        vrtt: f64,
    ) {
        if self.active(rtt_indep) {
            let first_half = now.saturating_sub(self.round_start).as_secs_f64() < vrtt / 2.0;
            let f = if first_half {
                1.0 + RATE_OFFSET
            } else {
                1.0 - RATE_OFFSET
            };
            self.pacing = Some(self.rate * f);
        } else {
            self.pacing = None;
            if let Some(s) = srtt.filter(|s| *s > 0.0) {
                self.rate = (w.cwnd / s).max(MINIMUM_RATE); // prague_frac_cwnd_to_pacing_rate
            }
        }
        if self.mode == CwndMode::Switch {
            let small = saw_ce && w.cwnd / w.mss <= CWND_TRANSIT_SEGS;
            if small != self.rate_chosen {
                self.rate_chosen = small;
                self.switches += 1;
            }
        }
    }

    /// `prague_enter_cwr`'s limit once RTT-independent: at most one CE reduction per target
    /// RTT. True: reduce now (and the stamp moves).
    pub fn may_reduce(&mut self, now: SimTime, rtt_indep: bool, target: f64) -> bool {
        if let Some(t) = self.cwr_stamp {
            if rtt_indep && now.saturating_sub(t).as_secs_f64() < target {
                return false;
            }
        }
        self.cwr_stamp = Some(now);
        true
    }

    /// `prague_enter_cwr`, rate branch: rate x (1 - alpha / 2), at least `MINIMUM_RATE`.
    pub fn reduce_on_ce(&mut self, alpha: f64) {
        self.rate = (self.rate * (1.0 - alpha / 2.0)).max(MINIMUM_RATE);
    }

    /// `prague_enter_loss`, rate branch: the rate halves. The window the sender recovers to.
    pub fn reduce_on_loss(&mut self, w: &Window, srtt: f64) -> f64 {
        self.rate = (self.rate / 2.0).max(MINIMUM_RATE);
        self.frac_cwnd(w.mss, srtt).ceil().max(MIN_CWND_SEGS) * w.mss
    }

    pub fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "mode": self.mode.as_str(),
            "rate_rules": self.rate_chosen,
            "rate_bytes_per_s": self.rate,
            "hsrtt_s": self.hsrtt,
            "rate_acks": self.rate_acks,
            "switches": self.switches,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::window;
    use super::*;

    // ---- growth: one MSS per vRTT per vRTT, whatever the real RTT ----
    #[test]
    fn the_rate_grows_by_one_segment_per_vrtt_per_vrtt() {
        let mut r = RateMode::new(CwndMode::Rate);
        r.on_srtt(0.010);
        let mut w = window(3.0, 2.0);
        let vrtt = 0.025;
        r.rate = 300_000.0; // over vRTT 7.5 segments of 1000 B: a window of 8
        r.on_ack(&mut w, 1.0, 0.010, vrtt);
        assert!(
            (r.rate - 305_000.0).abs() < 1e-6,
            "1000 B / 25 ms / 8: {}",
            r.rate
        );
        // a window's worth of unmarked segments adds about one MSS per vRTT (40 000 B/s)
        let before = r.rate;
        for _ in 0..8 {
            r.on_ack(&mut w, 1.0, 0.010, vrtt);
        }
        let gain = (r.rate - before) / (1000.0 / vrtt);
        assert!((0.85..1.0).contains(&gain), "{gain}");
    }

    // ---- the window follows the rate over hsrtt, stepping one segment per ACK, at least 2 ----
    #[test]
    fn cwnd_steps_toward_the_rate_s_window() {
        let mut r = RateMode::new(CwndMode::Rate);
        r.on_srtt(0.010);
        r.rate = 250_000.0; // x 10 ms / 1000 B = 2.5 -> 3 segments
        let mut w = window(6.0, 2.0);
        r.on_ack(&mut w, 0.0, 0.010, 0.025);
        assert_eq!(w.cwnd, 5000.0);
        assert_eq!(w.ssthresh, 5000.0, "a step down sets ssthresh");
        r.on_ack(&mut w, 0.0, 0.010, 0.025);
        r.on_ack(&mut w, 0.0, 0.010, 0.025);
        r.on_ack(&mut w, 0.0, 0.010, 0.025);
        assert_eq!(w.cwnd, 3000.0);
        r.rate = 20_000.0; // 0.2 segment: the floor of 2
        r.on_ack(&mut w, 0.0, 0.010, 0.025);
        r.on_ack(&mut w, 0.0, 0.010, 0.025);
        assert_eq!(w.cwnd, 2000.0);
    }

    // ---- pacing: +4/128 in the first half of vRTT after the EWMA round, -4/128 after ----
    #[test]
    fn pacing_alternates_around_the_rate() {
        let mut r = RateMode::new(CwndMode::Rate);
        r.rate = 128_000.0;
        let w = window(3.0, 2.0);
        r.after_ack(&w, SimTime::from_millis(5), true, Some(0.01), true, 0.025);
        assert_eq!(r.pacing(), Some(132_000.0));
        r.after_ack(&w, SimTime::from_millis(13), true, Some(0.01), true, 0.025);
        assert_eq!(r.pacing(), Some(124_000.0));
        // not RTT-independent yet: the window's rule paces and the rate tracks the window
        r.after_ack(&w, SimTime::from_millis(13), true, Some(0.01), false, 0.025);
        assert_eq!(r.pacing(), None);
        assert_eq!(r.rate, 300_000.0);
    }

    // ---- switch: the rate rules at up to 4 segments once CE was seen ----
    #[test]
    fn switch_mode_chooses_the_rate_at_small_windows_after_a_mark() {
        let mut r = RateMode::new(CwndMode::Switch);
        assert!(!r.active(true));
        r.after_ack(
            &window(4.0, 2.0),
            SimTime::ZERO,
            false,
            Some(0.01),
            true,
            0.025,
        );
        assert!(!r.active(true), "no CE seen yet");
        r.after_ack(
            &window(4.0, 2.0),
            SimTime::ZERO,
            true,
            Some(0.01),
            true,
            0.025,
        );
        assert!(r.active(true) && !r.active(false));
        r.after_ack(
            &window(5.0, 2.0),
            SimTime::ZERO,
            true,
            Some(0.01),
            true,
            0.025,
        );
        assert!(!r.active(true));
        assert_eq!(r.switches, 2);
        assert!(!RateMode::new(CwndMode::Window).active(true));
    }

    // ---- reductions: alpha / 2 on CE with its floor and once per target RTT, half on loss ----
    #[test]
    fn reductions_and_the_once_per_target_limit() {
        let mut r = RateMode::new(CwndMode::Rate);
        r.rate = 100_000.0;
        r.reduce_on_ce(0.5);
        assert_eq!(r.rate, 75_000.0);
        r.rate = 13_000.0;
        r.reduce_on_ce(1.0);
        assert_eq!(r.rate, MINIMUM_RATE);
        assert!(r.may_reduce(SimTime::from_millis(100), true, 0.025));
        assert!(!r.may_reduce(SimTime::from_millis(110), true, 0.025));
        assert!(r.may_reduce(SimTime::from_millis(110), false, 0.025));
        assert!(r.may_reduce(SimTime::from_millis(136), true, 0.025));
        r.rate = 400_000.0;
        r.on_srtt(0.010);
        let w = window(10.0, 5.0);
        assert_eq!(r.reduce_on_loss(&w, 0.010), 2000.0);
        assert_eq!(r.rate, 200_000.0);
    }
}
