//! BBRv3's unit tests, one per state or rule, on a synthetic pipe (one ACK of one segment at
//! a time, in flight following cwnd and the pacing rate).

use super::signals::{BETA, ECN_ALPHA_GAIN, INFLIGHT_HEADROOM};
use super::*;
use crate::tcp::cc::testing::{ack, window};
use crate::tcp::config::{Preset, TcpParams};

const MSS: f64 = 1000.0;
const BW: f64 = 1_000_000.0; // bytes/s

struct Pipe {
    b: Bbr3,
    w: Window,
    now: SimTime,
    delivered: u64,
    in_flight: u64,
    rtt_ms: u64,
    min_rtt_ms: u64,
}

impl Pipe {
    fn new(rtt_ms: u64, ecn: bool) -> Self {
        let mut p = TcpParams::preset(Preset::Linux);
        p.mss = 1000;
        p.ecn = ecn;
        let mut w = window(10.0, f64::INFINITY);
        w.ssthresh = f64::INFINITY;
        Self {
            b: Bbr3::new(&p, crate::rng::stream(1, "t")),
            w,
            now: SimTime::from_millis(rtt_ms),
            delivered: 0,
            in_flight: 10_000,
            rtt_ms,
            min_rtt_ms: rtt_ms,
        }
    }
    fn bdp(&self) -> f64 {
        BW * self.min_rtt_ms as f64 / 1e3
    }
    /// One ACK of one segment at `rate`, `lost` bytes newly lost, `ce` its CE echo.
    fn ack_full(&mut self, rate: f64, lost: u64, ce: bool) {
        self.now = self.now + SimTime::from_secs_f64(MSS / rate);
        let prior_in_flight = self.in_flight;
        self.delivered += MSS as u64;
        let span = (rate * self.rtt_ms as f64 / 1e3) as u64;
        let rs = RateSample {
            delivery_rate: rate,
            delivered: Some(span),
            interval: SimTime::from_millis(self.rtt_ms),
            prior_delivered: self.delivered.saturating_sub(span),
            prior_in_flight,
            acked_sacked: MSS as u64,
            bytes_loss: lost,
            is_app_limited: false,
        };
        self.in_flight = self.flight_limit().min(prior_in_flight + MSS as u64);
        let c = Conn {
            now: self.now,
            in_flight: self.in_flight,
            delivered: self.delivered,
            min_rtt: Some(SimTime::from_millis(self.min_rtt_ms)),
            last_rtt: Some(SimTime::from_millis(self.rtt_ms)),
            iw_bytes: 10.0 * MSS,
        };
        let marked = if ce { MSS as u64 } else { 0 };
        self.b
            .on_ecn_ack(&self.w, MSS as u64, marked, &ack(MSS as u64));
        self.b.on_rate_sample(&mut self.w, &rs, &c);
        self.in_flight = self.in_flight.min(self.flight_limit());
    }
    fn ack(&mut self, rate: f64) {
        self.ack_full(rate, 0, false)
    }
    fn flight_limit(&self) -> u64 {
        let paced = self
            .b
            .pacing_rate()
            .map_or(u64::MAX, |r| (r * self.rtt_ms as f64 / 1e3) as u64);
        (self.w.cwnd as u64).min(paced)
    }
    /// Startup on a pipe whose rate doubles each round up to BW, until Startup ends.
    fn through_startup(&mut self) -> u32 {
        let mut rate = BW / 8.0;
        let mut rounds = 0;
        while self.b.mode == Mode::Startup && rounds < 50 {
            for _ in 0..(rate * self.rtt_ms as f64 / 1e3 / MSS).max(1.0) as usize {
                self.ack(rate);
            }
            rate = (rate * 2.0).min(BW);
            rounds += 1;
        }
        rounds
    }
    fn in_probe_bw(rtt_ms: u64, ecn: bool) -> Self {
        let mut p = Self::new(rtt_ms, ecn);
        p.through_startup();
        for _ in 0..3000 {
            if p.b.mode == Mode::ProbeBw {
                break;
            }
            p.in_flight = p.in_flight.min(p.bdp() as u64);
            p.ack(BW);
        }
        assert_eq!(p.b.mode, Mode::ProbeBw);
        p
    }
    /// Feed ACKs at BW until `pred` holds (at most `secs` of simulated time).
    fn until(&mut self, secs: f64, pred: impl Fn(&Bbr3) -> bool) -> bool {
        let end = self.now + SimTime::from_secs_f64(secs);
        while self.now < end {
            if pred(&self.b) {
                return true;
            }
            self.ack(BW);
        }
        pred(&self.b)
    }
}

// ---- Startup: gains 2.77 / 2, the plateau ends it, Drain at 0.35, then ProbeBW DOWN ----
#[test]
fn startup_plateau_then_drain_then_probe_bw_down() {
    let mut p = Pipe::new(100, false);
    p.ack(BW / 8.0);
    assert_eq!(p.b.mode, Mode::Startup);
    assert_eq!(p.b.pacing_gain, STARTUP_PACING_GAIN);
    assert_eq!(p.b.cwnd_gain, STARTUP_CWND_GAIN);
    let rounds = p.through_startup();
    assert!(p.b.full_bw_reached, "after {rounds} rounds");
    assert!(rounds <= 8, "{rounds} rounds of Startup");
    assert!(
        p.b.inflight_longterm.is_infinite(),
        "no loss: no long-term bound"
    );
    if p.b.mode == Mode::Drain {
        assert_eq!(p.b.pacing_gain, DRAIN_PACING_GAIN);
        p.in_flight = p.bdp() as u64;
        p.ack(BW);
    }
    assert_eq!(p.b.mode, Mode::ProbeBw);
    // DOWN, or already CRUISE when the flight is at most 1 BDP on that ACK (v3
    // bbr_check_drain, then bbr_update_cycle_phase on the same ACK)
    assert!(
        matches!(p.b.phase, Phase::Down | Phase::Cruise),
        "{:?}",
        p.b.phase
    );
    assert!((p.b.max_bw() - BW).abs() < 1.0);
}

// ---- Startup ends on loss: >= 6 lossy ACKs in a round with > 2 % lost, in recovery ----
#[test]
fn startup_exits_on_high_loss() {
    let mut p = Pipe::new(100, false);
    for _ in 0..30 {
        p.ack(BW / 2.0);
    }
    assert!(!p.b.full_bw_reached);
    let c = Conn {
        now: p.now,
        in_flight: p.in_flight,
        delivered: p.delivered,
        min_rtt: Some(SimTime::from_millis(100)),
        last_rtt: Some(SimTime::from_millis(100)),
        iw_bytes: 1e4,
    };
    p.b.on_enter_recovery(&mut p.w, &c);
    // a round of ACKs, every fourth reporting a lost segment (25 % > 2 %)
    for i in 0..200 {
        p.ack_full(BW / 2.0, if i % 4 == 0 { 1000 } else { 0 }, false);
        if p.b.full_bw_reached {
            break;
        }
    }
    assert!(p.b.full_bw_reached, "high loss ends Startup");
    assert!(p.b.inflight_longterm.is_finite());
    // with little loss (one lossy ACK in a round) Startup goes on
    let mut q = Pipe::new(100, false);
    for i in 0..60 {
        q.ack_full(BW / 2.0, if i == 20 { 1000 } else { 0 }, false);
    }
    assert!(!q.b.full_bw_reached);
}

// ---- Startup ends on ECN: two rounds with CE fraction >= 1/2, min RTT <= 5 ms ----
#[test]
fn startup_exits_on_ecn_only_on_short_ecn_paths() {
    let mut p = Pipe::new(2, true);
    for _ in 0..200 {
        p.ack_full(BW / 2.0, 0, true);
        if p.b.full_bw_reached {
            break;
        }
    }
    assert!(p.b.full_bw_reached, "CE on every segment ends Startup");
    assert!(p.b.sig.ecn_eligible);
    assert!(
        p.b.inflight_longterm.is_finite(),
        "the ECN exit (not the plateau)"
    );
    // the same marks on a 20 ms path (v3 bbr_ecn_max_rtt_us 5 ms) or without ECN: ignored
    for (rtt, ecn) in [(20, true), (2, false)] {
        let mut q = Pipe::new(rtt, ecn);
        for _ in 0..200 {
            q.ack_full(BW / 2.0, 0, true);
        }
        assert!(!q.b.sig.ecn_eligible, "rtt {rtt} ecn {ecn}");
        // Startup ends at the rate plateau only, without a long-term bound
        assert!(q.b.inflight_longterm.is_infinite(), "rtt {rtt} ecn {ecn}");
    }
}

// ---- ECN alpha: an EWMA of the CE fraction per round with gain 1/16, from 1 ----
#[test]
fn ecn_alpha_is_an_ewma_of_the_round_ce_fraction() {
    let mut p = Pipe::in_probe_bw(2, true);
    // one marked round makes the flow eligible
    let r0 = p.b.round_count;
    while p.b.round_count < r0 + 2 {
        p.ack_full(BW, 0, true);
    }
    assert!(p.b.sig.ecn_eligible);
    let a = p.b.sig.ecn_alpha;
    // unmarked rounds: alpha *= 15/16 per round
    let r1 = p.b.round_count;
    while p.b.round_count < r1 + 4 {
        p.ack(BW);
    }
    let expect = a * (1.0 - ECN_ALPHA_GAIN).powi(4);
    assert!(
        (p.b.sig.ecn_alpha - expect).abs() < 0.02,
        "alpha {} expected about {expect}",
        p.b.sig.ecn_alpha
    );
}

// ---- ProbeBW: DOWN -> CRUISE, then REFILL after the 2-3 s wall-clock wait, UP, DOWN ----
#[test]
fn probe_bw_cycles_down_cruise_refill_up_with_a_two_to_three_second_wait() {
    let mut p = Pipe::in_probe_bw(100, false);
    let down_at = p.b.cycle_stamp;
    assert!(p.until(1.0, |b| b.phase == Phase::Cruise), "DOWN ends");
    assert_eq!(p.b.pacing_gain, 1.0);
    // BDP 100 segments: the Reno-coexistence bound is 63 rounds = 6.3 s, so the clock rules
    assert!(p.until(5.0, |b| b.phase == Phase::Refill));
    let waited = p.now.saturating_sub(down_at).as_secs_f64();
    assert!((2.0..3.2).contains(&waited), "probed after {waited} s");
    assert!(
        p.until(1.0, |b| b.phase == Phase::Up),
        "REFILL lasts a round"
    );
    assert_eq!(p.b.pacing_gain, 1.25);
    assert_eq!(p.b.cwnd_gain, 2.25);
    assert!(
        p.until(3.0, |b| b.phase == Phase::Down),
        "UP ends at the plateau"
    );
    assert_eq!(p.b.pacing_gain, 0.90);
    // the waits are random: another seed waits differently
    let mut q = Pipe::in_probe_bw(100, false);
    q.b.rng = crate::rng::stream(7, "other");
    q.b.start_bw_probe_down(q.now);
    assert_ne!(q.b.probe_wait, p.b.probe_wait);
}

// ---- ProbeBW on a small BDP: the Reno-coexistence round count triggers the probe ----
#[test]
fn small_bdp_probes_after_bdp_rounds() {
    let mut p = Pipe::in_probe_bw(20, false); // BDP 20 segments: about 20 rounds = 0.4 s
    let down_at = p.b.cycle_stamp;
    assert!(p.until(2.0, |b| b.phase == Phase::Refill));
    let waited = p.now.saturating_sub(down_at).as_secs_f64();
    assert!(
        waited < 1.0,
        "probed after {waited} s, before the 2 s clock"
    );
}

// ---- loss outside probing: bw_shortterm and inflight_shortterm to 0.7 per lossy round ----
#[test]
fn loss_in_cruise_cuts_the_short_term_bounds_by_beta() {
    let mut p = Pipe::in_probe_bw(100, false);
    assert!(p.until(1.0, |b| b.phase == Phase::Cruise));
    let cwnd = p.w.cwnd;
    let r0 = p.b.round_count;
    while p.b.round_count < r0 + 2 {
        p.ack(BW);
    }
    // one lossy ACK, then the round ends
    p.ack_full(BW, 1000, false);
    let r1 = p.b.round_count;
    while p.b.round_count < r1 + 2 {
        p.ack(BW);
    }
    assert!(p.b.bw_shortterm.is_finite(), "loss set bw_shortterm");
    assert!(
        p.b.bw_shortterm >= BETA * BW - 1.0,
        "bw_shortterm {} not below 0.7 max bw nor this round's rate",
        p.b.bw_shortterm
    );
    assert!(p.b.inflight_shortterm <= cwnd.max(p.bdp() * 2.0));
    assert!(p.w.cwnd <= p.b.inflight_shortterm.max(4.0 * MSS) + 1.0);
}

// ---- loss rate > 2 % while probing UP: inflight_longterm is set and UP ends ----
#[test]
fn high_loss_in_up_sets_inflight_longterm_and_ends_the_probe() {
    let mut p = Pipe::in_probe_bw(100, false);
    assert!(p.until(5.0, |b| b.phase == Phase::Up));
    let r0 = p.b.round_count;
    while p.b.round_count < r0 + 1 {
        p.ack(BW);
    }
    assert!(p.b.bw_probe_samples);
    // 5 % of the ACKs report a lost segment
    for i in 0..200 {
        p.ack_full(BW, if i % 10 == 0 { 1000 } else { 0 }, false);
        if p.b.phase != Phase::Up {
            break;
        }
    }
    assert_eq!(p.b.phase, Phase::Down);
    assert!(p.b.inflight_longterm.is_finite());
    assert!(p.b.prev_probe_too_high);
    // CRUISE then holds inflight 15 % under the long-term bound
    assert!(p.until(2.0, |b| b.phase == Phase::Cruise));
    p.ack(BW);
    let cap = p.b.inflight_longterm * (1.0 - INFLIGHT_HEADROOM);
    assert!(p.w.cwnd <= cap + 1.0, "cwnd {} cap {cap}", p.w.cwnd);
}

// ---- ECN outside probing: inflight_shortterm *= 1 - alpha / 3 per marked round ----
#[test]
fn ce_marks_in_cruise_cut_inflight_shortterm() {
    let mut p = Pipe::in_probe_bw(2, true);
    assert!(p.until(1.0, |b| b.phase == Phase::Cruise));
    let cwnd = p.w.cwnd;
    // the BDP is 2 segments, so the Reno-coexistence probe (REFILL resets the bounds) comes
    // within a few rounds: look at the bounds until then
    let r0 = p.b.round_count;
    let mut lowest = f64::INFINITY;
    while p.b.round_count < r0 + 4 && p.b.phase == Phase::Cruise {
        p.ack_full(BW, 0, true);
        lowest = lowest.min(p.b.inflight_shortterm);
        assert!(p.b.bw_shortterm.is_infinite(), "ECN cuts inflight only");
    }
    assert!(p.b.sig.ecn_eligible);
    assert!(
        lowest < cwnd,
        "inflight_shortterm {lowest} from cwnd {cwnd}"
    );
}

// ---- ProbeRTT every 5 s: cwnd max(0.5 BDP, 4 segments) for 200 ms and a round ----
#[test]
fn probe_rtt_every_five_seconds_at_half_a_bdp() {
    let mut p = Pipe::in_probe_bw(100, false);
    p.rtt_ms = 120; // no sample at or below the min: it expires after 5 s
    let start = p.now;
    assert!(p.until(6.0, |b| b.mode == Mode::ProbeRtt));
    let entered = p.now;
    let after = entered.saturating_sub(start).as_secs_f64();
    assert!(after <= 5.1, "ProbeRTT {after} s after the last min");
    p.ack(BW);
    assert_eq!(p.b.cwnd_gain, PROBE_RTT_CWND_GAIN);
    let half = (0.5 * p.bdp()).max(4.0 * MSS);
    assert!(p.w.cwnd <= half + 1.0, "cwnd {} in ProbeRTT", p.w.cwnd);
    while p.b.mode == Mode::ProbeRtt && p.now < entered + SimTime::from_secs(1) {
        p.in_flight = p.in_flight.min(half as u64);
        p.ack(BW);
    }
    let stayed = p.now.saturating_sub(entered);
    assert!(stayed > SimTime::from_millis(200), "stayed {stayed:?}");
    assert!(stayed < SimTime::from_millis(600), "stayed {stayed:?}");
    assert_eq!(p.b.mode, Mode::ProbeBw);
    assert_eq!(p.b.phase, Phase::Cruise);
}

// ---- the ECN reduction of the sender does not touch BBRv3's cwnd ----
#[test]
fn sender_ecn_reduction_leaves_cwnd() {
    let mut p = Pipe::in_probe_bw(2, true);
    let w = p.w;
    assert_eq!(p.b.ssthresh_on_ecn(&w, 0, p.now), w.cwnd);
    assert_eq!(p.b.ecn_feedback(), EcnFeedback::Extent);
    assert!(p.b.report().is_some());
}
