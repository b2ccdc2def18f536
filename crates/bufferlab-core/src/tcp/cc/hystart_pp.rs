//! HyStart++, RFC 9406 "HyStart++: Modified Slow Start for TCP" (Balasubramanian, Huang,
//! Olson, May 2023), the option `slow_start = "hystart++"` for `reno`, `newreno`, `linux_reno`
//! and `cubic` under the RFC and Linux flavours.
//!
//! Slow start ends on a rise of the round's smallest RTT instead of the first loss, then runs a
//! Conservative Slow Start (CSS) that grows at a quarter of slow start's rate and goes back to
//! slow start if the RTT falls back (the rise was jitter), or into congestion avoidance after
//! `CSS_ROUNDS` rounds. Rules, by RFC 9406 section:
//!
//! * 4.2, rounds: `windowEnd` = SND.NXT; when it is acknowledged the round ends and the next
//!   begins with `lastRoundMinRTT = currentRoundMinRTT`, `currentRoundMinRTT = infinity`,
//!   `rttSampleCount = 0`, `windowEnd = SND.NXT`. "Acknowledged" is SND.UNA passing `windowEnd`
//!   (`snd_una > window_end`), the test Linux's classic HyStart makes on its round end
//!   (`tcp_cubic.c` `hystart_update`: `after(tp->snd_una, ca->end_seq)`), and the ACK that ends
//!   a round gives the new round its first sample (there too). The first round starts at the
//!   first ACK, with SND.NXT then.
//! * 4.2, slow start: each ACK of N new bytes adds min(N, L * SMSS) to cwnd and its RTT sample
//!   to `currentRoundMinRTT` (`rttSampleCount += 1`). Once a round has `N_RTT_SAMPLE` samples
//!   and both round minima are known, `RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT /
//!   MIN_RTT_DIVISOR, MAX_RTT_THRESH))`; `currentRoundMinRTT >= lastRoundMinRTT + RttThresh`
//!   enters CSS with `cssBaselineMinRtt = currentRoundMinRTT`.
//! * 4.2, CSS: each ACK adds min(N, L * SMSS) / `CSS_GROWTH_DIVISOR`; once the round has
//!   `N_RTT_SAMPLE` samples, `currentRoundMinRTT < cssBaselineMinRtt` goes back to slow start
//!   (baseline infinity); when `CSS_ROUNDS` rounds are complete, ssthresh = cwnd (congestion
//!   avoidance). Rounds are counted as they end, the one CSS began in included, as FreeBSD's
//!   `cc_cubic.c` does (`cubic_newround`: `round_cnt - css_entered_at_round >= hystart_css_rounds`)
//!   and neqo's `hystart.rs`.
//! * 4.2, a loss or an ECN echo in slow start or CSS ends HyStart++: the controller's own
//!   reduction applies (`ssthresh_on_loss`, `ssthresh_on_ecn`, `on_timeout` here).
//! * 4.3: `MIN_RTT_THRESH` 4 ms, `MAX_RTT_THRESH` 16 ms, `MIN_RTT_DIVISOR` 8, `N_RTT_SAMPLE` 8,
//!   `CSS_GROWTH_DIVISOR` 4, `CSS_ROUNDS` 5, L = infinity when the sender paces, 8 when it does
//!   not; HyStart++ runs for the initial slow start only ("SHOULD ... fall back to using
//!   standard slow start for the remainder of the connection lifetime"): after its end the
//!   controller's own slow start (RFC 5681's, or CUBIC's) applies, and the restart after idle
//!   (which RFC 9406 leaves as a MAY) does not run it again.
//!
//! **Who runs it.** No mainline Linux TCP does: `net/ipv4/tcp_cubic.c` (through 6.x) has the
//! classic HyStart of Ha and Rhee (ACK train and delay increase, `cc/hystart.rs`), `tcp_cong.c`
//! Reno none; ns-3.44's `TcpCubic` has classic HyStart and no HyStart++; ns-2.35 has neither.
//! HyStart++ is Windows' slow start (the RFC's authors) and FreeBSD's (`cc_newreno.c`,
//! `cc_cubic.c`, read through the search tool), and several QUIC stacks'. So no preset turns it
//! on: it is an option ([`WithHystartPp`] wraps the controller when `slow_start = "hystart++"`).
//!
//! The inner controller still sees every ACK (its RTT minimum, counters) while HyStart++ runs,
//! but the window is HyStart++'s: cwnd is set back to its value before the call and grown by
//! the rules above.

use super::hystart::HystartVariant;
use super::{Ack, CongestionControl, Conn, EcnFeedback, RateSample, Recovery, Window};
use crate::packet::Ecn;
use crate::tcp::config::{CcKind, SlowStart, TcpParams};
use crate::tcp::flavour::Flavour;
use crate::units::SimTime;

/// RFC 9406 section 4.3 constants.
pub const MIN_RTT_THRESH: SimTime = SimTime::from_millis(4);
pub const MAX_RTT_THRESH: SimTime = SimTime::from_millis(16);
pub const MIN_RTT_DIVISOR: u64 = 8;
pub const N_RTT_SAMPLE: u32 = 8;
pub const CSS_GROWTH_DIVISOR: f64 = 4.0;
pub const CSS_ROUNDS: u32 = 5;
/// L for a sender that does not pace (segments per ACK); a paced one has no limit.
pub const NON_PACED_L: f64 = 8.0;

/// Where HyStart++ has the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Standard slow start with the delay test.
    SlowStart,
    /// Conservative Slow Start, `rounds` of them completed.
    Css { baseline: SimTime, rounds: u32 },
    /// Congestion avoidance reached, or a congestion signal: the controller's own rules.
    Done,
}

/// What an ACK did to the phase (for the report and the tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    EnteredCss,
    ResumedSlowStart,
    /// `CSS_ROUNDS` rounds of CSS completed: ssthresh = cwnd.
    EnteredAvoidance,
}

#[derive(Debug, Clone)]
pub struct HystartPp {
    /// L in segments (infinite when paced).
    limit: f64,
    pub phase: Phase,
    window_end: Option<u64>,
    last_round_min: Option<SimTime>,
    current_round_min: Option<SimTime>,
    samples: u32,
    /// Report counters.
    pub css_entries: u32,
    pub css_resumes: u32,
    pub avoidance_entries: u32,
}

impl HystartPp {
    /// `paced`: the sender paces (L = infinity), else L = 8 (section 4.3).
    pub fn new(paced: bool) -> Self {
        Self {
            limit: if paced { f64::INFINITY } else { NON_PACED_L },
            phase: Phase::SlowStart,
            window_end: None,
            last_round_min: None,
            current_round_min: None,
            samples: 0,
            css_entries: 0,
            css_resumes: 0,
            avoidance_entries: 0,
        }
    }

    /// HyStart++ owns this ACK's growth: not ended, and cwnd < ssthresh.
    pub fn active(&self, w: &Window) -> bool {
        self.phase != Phase::Done && w.in_slow_start()
    }

    /// A congestion signal (loss, ECN echo, timeout): HyStart++ is over (section 4.2) for
    /// the rest of the connection (section 4.3).
    pub fn end(&mut self) {
        self.phase = Phase::Done;
    }

    /// `RttThresh` of section 4.2 for a previous round's minimum.
    pub fn rtt_thresh(last_round_min: SimTime) -> SimTime {
        SimTime(last_round_min.0 / MIN_RTT_DIVISOR)
            .min(MAX_RTT_THRESH)
            .max(MIN_RTT_THRESH)
    }

    fn begin_round(&mut self, snd_nxt: u64) {
        self.last_round_min = self.current_round_min;
        self.current_round_min = None;
        self.samples = 0;
        self.window_end = Some(snd_nxt);
    }

    /// One ACK of `a.acked` new bytes while [`Self::active`]: grows `w.cwnd` and may set
    /// `w.ssthresh = w.cwnd`. Returns the phase change it made, if any.
    pub fn on_ack(&mut self, w: &mut Window, a: &Ack) -> Option<Event> {
        let mut event = None;
        match self.window_end {
            None => self.begin_round(a.snd_nxt),
            Some(end) if a.snd_una > end => {
                if let Phase::Css { baseline, rounds } = self.phase {
                    let rounds = rounds + 1;
                    if rounds >= CSS_ROUNDS {
                        // "If CSS_ROUNDS rounds are complete, enter congestion avoidance."
                        w.ssthresh = w.cwnd;
                        self.phase = Phase::Done;
                        self.avoidance_entries += 1;
                        return Some(Event::EnteredAvoidance);
                    }
                    self.phase = Phase::Css { baseline, rounds };
                }
                self.begin_round(a.snd_nxt);
            }
            Some(_) => {}
        }
        if let Some(rtt) = a.rtt {
            self.current_round_min = Some(self.current_round_min.map_or(rtt, |m| m.min(rtt)));
            self.samples += 1;
        }
        if self.samples >= N_RTT_SAMPLE {
            match (self.phase, self.current_round_min, self.last_round_min) {
                (Phase::SlowStart, Some(cur), Some(last))
                    if cur >= last + Self::rtt_thresh(last) =>
                {
                    self.phase = Phase::Css {
                        baseline: cur,
                        rounds: 0,
                    };
                    self.css_entries += 1;
                    event = Some(Event::EnteredCss);
                }
                (Phase::Css { baseline, .. }, Some(cur), _) if cur < baseline => {
                    // The exit was spurious: slow start again, HyStart++ included.
                    self.phase = Phase::SlowStart;
                    self.css_resumes += 1;
                    event = Some(Event::ResumedSlowStart);
                }
                _ => {}
            }
        }
        let mut inc = (a.acked as f64).min(self.limit * w.mss);
        if matches!(self.phase, Phase::Css { .. }) {
            inc /= CSS_GROWTH_DIVISOR;
        }
        w.cwnd += inc;
        event
    }
}

/// The `slow_start` values refused, one line each naming what is not modelled.
pub fn check_slow_start(p: &TcpParams) -> Result<(), String> {
    let cc = p.cc.as_str();
    match p.slow_start {
        None => Ok(()),
        Some(SlowStart::HystartPp) => {
            if !matches!(
                p.cc,
                CcKind::Reno | CcKind::Newreno | CcKind::LinuxReno | CcKind::Cubic
            ) {
                return Err(format!(
                    "\"hystart++\" (RFC 9406) is modelled for reno, newreno, linux_reno and \
                     cubic, not for cc = \"{cc}\""
                ));
            }
            match p.flavour {
                Flavour::Ns2 => Err("\"hystart++\" is not modelled under ns2_rules (ns-2.35 \
                                     has no HyStart++): use the rfc or linux rules"
                    .into()),
                Flavour::Ns3 => Err("\"hystart++\" is not modelled under ns3_rules (ns-3.44 \
                                     has no HyStart++; TcpCubic runs classic HyStart): use \
                                     the rfc or linux rules"
                    .into()),
                Flavour::Rfc | Flavour::Linux => Ok(()),
            }
        }
        Some(SlowStart::Hystart) if p.cc != CcKind::Cubic => Err(format!(
            "\"hystart\" is CUBIC's classic HyStart (tcp_cubic.c, ns-3 TcpCubic); it is not \
             modelled for cc = \"{cc}\""
        )),
        Some(SlowStart::Hystart) if p.rules().cubic_hystart.is_none() => {
            Err("\"hystart\" is not modelled under ns2_rules (ns-2.35 has no CUBIC agent)".into())
        }
        Some(SlowStart::Hystart) => Ok(()),
        Some(SlowStart::Rfc5681) => match p.cc {
            CcKind::Tahoe
            | CcKind::Reno
            | CcKind::Newreno
            | CcKind::LinuxReno
            | CcKind::Cubic
            | CcKind::Dctcp => Ok(()),
            _ => Err(format!(
                "cc = \"{cc}\" has a start-up of its own: \"rfc5681\" is for tahoe, reno, \
                 newreno, linux_reno, cubic and dctcp"
            )),
        },
    }
}

/// Whose classic HyStart CUBIC runs: the flavour's (`Rules::cubic_hystart`), unless
/// `slow_start` is `rfc5681` or `hystart++`.
pub fn cubic_hystart(p: &TcpParams) -> Option<HystartVariant> {
    match p.slow_start {
        None | Some(SlowStart::Hystart) => p.rules().cubic_hystart,
        Some(SlowStart::Rfc5681 | SlowStart::HystartPp) => None,
    }
}

/// A controller whose initial slow start is HyStart++'s.
pub struct WithHystartPp {
    inner: Box<dyn CongestionControl>,
    pub hspp: HystartPp,
}

impl WithHystartPp {
    pub fn new(inner: Box<dyn CongestionControl>, paced: bool) -> Self {
        Self {
            inner,
            hspp: HystartPp::new(paced),
        }
    }
}

impl CongestionControl for WithHystartPp {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn recovery(&self) -> Recovery {
        self.inner.recovery()
    }
    fn on_ack(&mut self, w: &mut Window, a: &Ack) {
        if !self.hspp.active(w) {
            return self.inner.on_ack(w, a);
        }
        // The inner controller keeps its own state (CUBIC's minimum RTT, Linux Reno's byte
        // count); the window is HyStart++'s.
        let cwnd = w.cwnd;
        self.inner.on_ack(w, a);
        w.cwnd = cwnd;
        self.hspp.on_ack(w, a);
    }
    fn ssthresh_on_loss(&mut self, w: &Window, flight: u64, now: SimTime) -> f64 {
        self.hspp.end();
        self.inner.ssthresh_on_loss(w, flight, now)
    }
    fn on_recovery_exit(&mut self, w: &mut Window, now: SimTime) {
        self.inner.on_recovery_exit(w, now)
    }
    fn on_timeout(&mut self, w: &mut Window, flight: u64, now: SimTime) {
        self.hspp.end();
        self.inner.on_timeout(w, flight, now)
    }
    fn ecn_feedback(&self) -> EcnFeedback {
        self.inner.ecn_feedback()
    }
    fn ect(&self) -> Ecn {
        self.inner.ect()
    }
    fn on_ecn_ack(&mut self, w: &Window, acked: u64, marked: u64, a: &Ack) {
        self.inner.on_ecn_ack(w, acked, marked, a)
    }
    fn grows_during_cwr(&self) -> bool {
        self.inner.grows_during_cwr()
    }
    fn ssthresh_on_ecn(&mut self, w: &Window, flight: u64, now: SimTime) -> f64 {
        self.hspp.end();
        self.inner.ssthresh_on_ecn(w, flight, now)
    }
    fn report(&self) -> Option<serde_json::Value> {
        let mut r = self.inner.report().unwrap_or_else(|| serde_json::json!({}));
        r["hystart_pp_css_entries"] = self.hspp.css_entries.into();
        r["hystart_pp_css_resumes"] = self.hspp.css_resumes.into();
        r["hystart_pp_avoidance_entries"] = self.hspp.avoidance_entries.into();
        Some(r)
    }
    fn owns_window(&self) -> bool {
        self.inner.owns_window()
    }
    fn on_rate_sample(&mut self, w: &mut Window, rs: &RateSample, c: &Conn) {
        self.inner.on_rate_sample(w, rs, c)
    }
    fn on_enter_recovery(&mut self, w: &mut Window, c: &Conn) {
        self.inner.on_enter_recovery(w, c)
    }
    fn pacing_rate(&self) -> Option<f64> {
        self.inner.pacing_rate()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::window;
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    /// An ACK of one 1000-byte segment with RTT `rtt_ms`; `una` the new SND.UNA, SND.NXT
    /// `nxt`.
    fn ack(una: u64, nxt: u64, rtt_ms: u64) -> Ack {
        Ack {
            now: SimTime::ZERO,
            acked: 1000,
            flight_before: 0,
            snd_una: una,
            snd_nxt: nxt,
            next_to_send: nxt,
            clock_s: 0.0,
            rtt: Some(ms(rtt_ms)),
            ack_rtt: None,
        }
    }

    /// Drives one round of `n` one-segment ACKs, all with RTT `rtt_ms`, from SND.UNA `una`:
    /// SND.NXT at the first ACK is the last ACK's SND.UNA, so the round ends with the call and
    /// the next call's first ACK starts a new one. Returns the events and the new SND.UNA.
    fn round(
        h: &mut HystartPp,
        w: &mut Window,
        una: u64,
        n: u64,
        rtt_ms: u64,
    ) -> (Vec<Event>, u64) {
        let mut ev = vec![];
        let mut u = una;
        for _ in 0..n {
            u += 1000;
            if !h.active(w) {
                break;
            }
            ev.extend(h.on_ack(w, &ack(u, u + (n - 1) * 1000, rtt_ms)));
        }
        (ev, u)
    }

    #[test]
    fn the_threshold_is_an_eighth_of_the_last_minimum_clamped_to_4_and_16_ms() {
        assert_eq!(HystartPp::rtt_thresh(ms(20)), ms(4));
        assert_eq!(HystartPp::rtt_thresh(ms(80)), ms(10));
        assert_eq!(HystartPp::rtt_thresh(ms(200)), ms(16));
    }

    #[test]
    fn a_round_minimum_above_last_plus_threshold_enters_css() {
        // Last round's minimum 80 ms: RttThresh 10 ms. 89 ms stays in slow start, 90 enters CSS.
        for (rtt, enters) in [(89, false), (90, true)] {
            let mut h = HystartPp::new(true);
            let mut w = window(10.0, f64::INFINITY);
            let (ev, una) = round(&mut h, &mut w, 0, 10, 80);
            assert!(
                ev.is_empty(),
                "no test in the first round (no last minimum)"
            );
            let (ev, _) = round(&mut h, &mut w, una, 10, rtt);
            assert_eq!(ev.contains(&Event::EnteredCss), enters, "{rtt} ms");
            assert_eq!(matches!(h.phase, Phase::Css { .. }), enters);
        }
    }

    #[test]
    fn no_exit_before_eight_samples_of_the_round() {
        let mut h = HystartPp::new(true);
        let mut w = window(10.0, f64::INFINITY);
        let (_, una) = round(&mut h, &mut w, 0, 20, 20);
        // Seven samples at 40 ms (far above 20 + 4): nothing; the eighth enters CSS.
        let mut u = una;
        for k in 1..=8 {
            u += 1000;
            let e = h.on_ack(&mut w, &ack(u, u + 20_000, 40));
            assert_eq!(e.is_some(), k == 8, "sample {k}");
        }
    }

    #[test]
    fn css_grows_at_a_quarter_and_slow_start_by_the_bytes_acked_up_to_l() {
        // Unpaced: L = 8 segments; an ACK of 10 segments adds 8 in slow start, 2 in CSS.
        let mut h = HystartPp::new(false);
        let mut w = window(10.0, f64::INFINITY);
        let mut a = ack(10_000, 30_000, 20);
        a.acked = 10_000;
        h.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, 18_000.0);
        h.phase = Phase::Css {
            baseline: ms(30),
            rounds: 0,
        };
        let mut a2 = ack(20_000, 40_000, 40);
        a2.acked = 10_000;
        h.on_ack(&mut w, &a2);
        assert_eq!(w.cwnd, 20_000.0);
        // A delayed ACK of two segments adds half a segment in CSS; paced, L is unlimited.
        let mut h = HystartPp::new(true);
        let mut w = window(10.0, f64::INFINITY);
        let mut a = ack(10_000, 30_000, 20);
        a.acked = 10_000;
        h.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, 20_000.0);
    }

    /// Slow start at 20 ms, then a round at 30 ms: CSS entered (the round's 8th ACK).
    fn into_css(h: &mut HystartPp, w: &mut Window) -> u64 {
        let (_, una) = round(h, w, 0, 10, 20);
        let (ev, una) = round(h, w, una, 10, 30);
        assert_eq!(ev, vec![Event::EnteredCss]);
        una
    }

    #[test]
    fn css_ends_in_congestion_avoidance_after_five_rounds() {
        let mut h = HystartPp::new(true);
        let mut w = window(10.0, f64::INFINITY);
        let mut una = into_css(&mut h, &mut w);
        // The round CSS began in counts as the first: the fifth round end after the entry
        // (RTT staying up at 30 ms) sets ssthresh = cwnd.
        for r in 0..CSS_ROUNDS {
            assert_eq!(
                h.phase,
                Phase::Css {
                    baseline: ms(30),
                    rounds: r
                }
            );
            let cwnd = w.cwnd;
            let (ev, u) = round(&mut h, &mut w, una, 10, 30);
            una = u;
            if r + 1 < CSS_ROUNDS {
                assert!(ev.is_empty(), "round {r}");
                // Ten one-segment ACKs at a quarter: 2.5 segments a round.
                assert_eq!(w.cwnd - cwnd, 2500.0, "round {r}");
            } else {
                assert_eq!(ev, vec![Event::EnteredAvoidance]);
            }
        }
        assert_eq!(h.phase, Phase::Done);
        assert_eq!(w.ssthresh, w.cwnd, "ssthresh = cwnd");
        assert!(!h.active(&w));
    }

    #[test]
    fn an_rtt_below_the_baseline_in_css_resumes_slow_start() {
        let mut h = HystartPp::new(true);
        let mut w = window(10.0, f64::INFINITY);
        let una = into_css(&mut h, &mut w);
        // A CSS round whose minimum (25 ms) falls under the 30 ms baseline: slow start again,
        // at full growth, with the delay test armed.
        let (ev, una) = round(&mut h, &mut w, una, 10, 25);
        assert_eq!(ev, vec![Event::ResumedSlowStart]);
        assert_eq!(h.phase, Phase::SlowStart);
        let cwnd = w.cwnd;
        let (ev, una) = round(&mut h, &mut w, una, 10, 25);
        assert!(ev.is_empty());
        assert_eq!(w.cwnd - cwnd, 10_000.0);
        // 25 + 4 = 29 ms: a round at 29 ms enters CSS again.
        let (ev, _) = round(&mut h, &mut w, una, 10, 29);
        assert_eq!(ev, vec![Event::EnteredCss]);
        assert_eq!((h.css_entries, h.css_resumes), (2, 1));
    }

    #[test]
    fn a_loss_ends_hystart_pp_for_good() {
        let mut cc = WithHystartPp::new(Box::new(super::super::reno::Reno), true);
        let mut w = window(10.0, f64::INFINITY);
        let mut a = ack(1000, 20_000, 20);
        a.acked = 2000;
        cc.on_ack(&mut w, &a);
        assert_eq!(
            w.cwnd, 12_000.0,
            "HyStart++ slow start: the two segments acked"
        );
        w.ssthresh = cc.ssthresh_on_loss(&w, 12_000, SimTime::ZERO);
        w.cwnd = 3000.0;
        assert_eq!(cc.hspp.phase, Phase::Done);
        // Slow start again below ssthresh is Reno's own (one segment per ACK, RFC 5681).
        cc.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, 4000.0);
    }
}
