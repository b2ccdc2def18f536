//! BBR v1's unit tests: the max filter, the state machine's gains and transitions, recovery,
//! and Linux's long-term sampling.

use super::*;
use crate::tcp::cc::testing::window;
use crate::tcp::config::{Preset, TcpParams};

const MSS: f64 = 1000.0;
const BW: f64 = 1_000_000.0; // bytes/s
const RTT_MS: u64 = 100;

/// A pipe of BW bytes/s and 100 ms RTT, one ACK of one segment per ms; in flight follows cwnd.
struct Pipe {
    bbr: Bbr,
    w: Window,
    now: SimTime,
    delivered: u64,
    in_flight: u64,
}

impl Pipe {
    fn new() -> Self {
        let mut p = TcpParams::preset(Preset::Ns3);
        p.mss = 1000;
        let bbr = Bbr::new(&p, crate::rng::stream(1, "t"));
        let mut w = window(10.0, f64::INFINITY);
        w.ssthresh = f64::INFINITY;
        Self {
            bbr,
            w,
            now: SimTime::from_millis(RTT_MS),
            delivered: 0,
            in_flight: 10_000,
        }
    }
    /// One ACK of one segment; the sample's rate is `rate`, its prior_delivered one RTT back.
    fn ack(&mut self, rate: f64, rtt_ms: u64, app_limited: bool) {
        // ACKs of one segment arrive at the delivery rate
        self.now = self.now + SimTime::from_secs_f64(MSS / rate);
        let prior_in_flight = self.in_flight;
        self.delivered += MSS as u64;
        let rs = RateSample {
            delivery_rate: rate,
            delivered: Some((rate * rtt_ms as f64 / 1e3) as u64),
            interval: SimTime::from_millis(rtt_ms),
            prior_delivered: self
                .delivered
                .saturating_sub((rate * rtt_ms as f64 / 1e3) as u64),
            prior_in_flight,
            acked_sacked: MSS as u64,
            bytes_loss: 0,
            is_app_limited: app_limited,
        };
        // in flight after the ACK: what cwnd and one RTT at the pacing rate allow
        self.in_flight = self.flight_limit().min(prior_in_flight + MSS as u64);
        let c = Conn {
            now: self.now,
            in_flight: self.in_flight,
            delivered: self.delivered,
            min_rtt: Some(SimTime::from_millis(RTT_MS)),
            last_rtt: Some(SimTime::from_millis(rtt_ms)),
            iw_bytes: 10.0 * MSS,
        };
        self.bbr.on_rate_sample(&mut self.w, &rs, &c);
        self.in_flight = self.in_flight.min(self.flight_limit());
    }
    fn flight_limit(&self) -> u64 {
        let paced = self
            .bbr
            .pacing_rate()
            .map_or(u64::MAX, |r| (r * RTT_MS as f64 / 1e3) as u64);
        (self.w.cwnd as u64).min(paced)
    }
}

// ---- Linux's long-term sampling (flavour rule bbr_lt_bw_sampling) ----

/// One 100 ms round of a token-bucket policer at `rate` bytes/s that drops `loss` of what
/// is sent, fed to the sampler as the ACK that starts the next round.
fn policed_round(b: &mut Bbr, now: &mut SimTime, rate: f64, loss: f64) {
    *now = *now + SimTime::from_millis(100);
    let delivered = (rate * 0.1) as u64;
    b.delivered += delivered;
    let lost = (delivered as f64 * loss / (1.0 - loss)) as u64;
    if let Some(lt) = &mut b.lt {
        lt.lost += lost;
    }
    b.round_start = true;
    b.lt_sampling(lost > 0, false, *now);
}

fn linux_bbr_in_probe_bw() -> Bbr {
    let mut p = TcpParams::preset(Preset::Linux);
    p.mss = 1000;
    let mut b = Bbr::new(&p, crate::rng::stream(1, "t"));
    b.mode = Mode::ProbeBw;
    b.max_bw = MaxFilter::new(10, 2e6, 0); // the filter saw bursts at twice the policed rate
    b
}

#[test]
fn linux_long_term_sampling_finds_a_policer_and_paces_at_its_rate() {
    let mut b = linux_bbr_in_probe_bw();
    let mut now = SimTime::from_secs(1);
    b.lt_reset(now);
    // the first lossy round starts sampling; two intervals of 4 rounds at 1 MB/s, 25 % lost
    for round in 1..=8 {
        policed_round(&mut b, &mut now, 1e6, 0.25);
        let lt = b.lt.as_ref().unwrap();
        assert_eq!(lt.use_bw, round == 8, "round {round}: {lt:?}");
    }
    assert!(
        (b.bw() - 1e6).abs() < 1.0,
        "bw {} = the two intervals' mean",
        b.bw()
    );
    assert_eq!(b.pacing_gain, 1.0);
    // the next cycle phase keeps gain 1 while the long-term rate is used
    b.advance_cycle_phase(now);
    assert_eq!(b.pacing_gain, 1.0);
    // 48 rounds later it is dropped and PROBE_BW starts over from the max filter
    for _ in 0..48 {
        policed_round(&mut b, &mut now, 1e6, 0.0);
    }
    assert!(!b.lt.as_ref().unwrap().use_bw);
    assert_eq!(b.bw(), 2e6);
}

#[test]
fn long_term_sampling_needs_lossy_and_consistent_intervals_and_linux_rules() {
    // 10 % loss is below the 50/256 threshold: never a policer
    let mut b = linux_bbr_in_probe_bw();
    let mut now = SimTime::from_secs(1);
    b.lt_reset(now);
    for _ in 0..40 {
        policed_round(&mut b, &mut now, 1e6, 0.1);
    }
    assert!(!b.lt.as_ref().unwrap().use_bw);
    // rates that differ by more than 1/8 between intervals: not consistent
    let mut b = linux_bbr_in_probe_bw();
    b.lt_reset(now);
    for i in 0..8 {
        policed_round(&mut b, &mut now, if i < 4 { 1e6 } else { 1.3e6 }, 0.25);
    }
    assert!(!b.lt.as_ref().unwrap().use_bw, "{:?}", b.lt);
    // ns-3.44's TcpBbr has no long-term sampling
    let mut p = TcpParams::preset(Preset::Ns3);
    p.mss = 1000;
    let b = Bbr::new(&p, crate::rng::stream(1, "t"));
    assert!(b.lt.is_none());
}

// ---- the windowed max filter ----
#[test]
fn max_filter_keeps_the_max_of_the_window_and_forgets_it_after() {
    let mut f = MaxFilter::new(10, 0.0, 0);
    f.update(5.0, 1);
    assert_eq!(f.best(), 5.0, "the first sample replaces the zero value");
    f.update(9.0, 2);
    f.update(3.0, 3);
    assert_eq!(f.best(), 9.0);
    for t in 4..=12 {
        f.update(3.0, t);
        assert_eq!(f.best(), 9.0, "round {t} is within 10 rounds of the max");
    }
    // round 13 is more than 10 rounds after the max at round 2: it expires
    f.update(3.0, 13);
    assert!(f.best() < 9.0, "max {} after the window", f.best());
    f.update(4.0, 14);
    assert!(f.best() >= 3.0 && f.best() <= 4.0);
}

// ---- STARTUP -> DRAIN -> PROBE_BW with their gains ----
#[test]
fn startup_fills_the_pipe_then_drains_then_probes() {
    let mut p = Pipe::new();
    p.ack(BW / 4.0, RTT_MS, false);
    assert_eq!(p.bbr.mode, Mode::Startup);
    assert!((p.bbr.pacing_gain - 2.89).abs() < 1e-12);
    assert!((p.bbr.cwnd_gain - 2.89).abs() < 1e-12);
    // bandwidth doubles each round until it reaches BW, then stays: three rounds
    // without 25 % growth fill the pipe
    let mut rate = BW / 4.0;
    let mut rounds = 0;
    while p.bbr.mode == Mode::Startup && rounds < 100 {
        // one RTT of ACKs at this rate
        for _ in 0..(rate * RTT_MS as f64 / 1e3 / MSS) as usize {
            p.ack(rate, RTT_MS, false);
        }
        rate = (rate * 2.0).min(BW);
        rounds += 1;
    }
    assert!(p.bbr.pipe_filled, "pipe full after {rounds} rounds");
    assert!(rounds <= 8, "{rounds} rounds of startup");
    // DRAIN (or already PROBE_BW if the flight was at 1 BDP on that ACK)
    if p.bbr.mode == Mode::Drain {
        assert!((p.bbr.pacing_gain - 1.0 / 2.89).abs() < 1e-12);
        assert!((p.w.ssthresh - p.bbr.in_flight_target(1.0, 1e4)).abs() < 1.0);
        // drain: in flight falls to 1 BDP
        p.in_flight = (BW * 0.1) as u64;
        p.ack(BW, RTT_MS, false);
    }
    assert_eq!(p.bbr.mode, Mode::ProbeBw);
    assert_eq!(p.bbr.cwnd_gain, 2.0);
    assert_ne!(p.bbr.cycle_index, 1, "never starts in the 3/4 phase");
    assert!(
        (p.bbr.max_bw.best() - BW).abs() < 1.0,
        "max bw {}",
        p.bbr.max_bw.best()
    );
}

// ---- PROBE_BW: the pacing gain cycles 5/4, 3/4, 1 x 6 and cwnd is 2 BDP + quanta ----
#[test]
fn probe_bw_cycles_gains_and_caps_cwnd_at_two_bdp() {
    let mut p = Pipe::new();
    for _ in 0..3000 {
        p.ack(BW, RTT_MS, false);
    }
    assert_eq!(p.bbr.mode, Mode::ProbeBw);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..2000 {
        // in flight at the target of each phase, so each gain phase can end
        p.in_flight = p.bbr.in_flight_target(p.bbr.pacing_gain, 1e4) as u64;
        p.ack(BW, RTT_MS, false);
        seen.insert((p.bbr.pacing_gain * 100.0) as u64);
        let rate = p.bbr.pacing_rate().unwrap();
        assert!(
            (rate - p.bbr.pacing_gain * BW * 0.99).abs() < 1.0,
            "rate {rate}"
        );
    }
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![75, 100, 125]);
    let bdp = BW * 0.1;
    assert!(p.w.cwnd <= 2.0 * bdp + 5.0 * MSS + p.bbr.ack_aggregation_cwnd() + 1.0);
    assert!(
        p.w.cwnd >= 2.0 * bdp,
        "cwnd {} for a BDP of {bdp}",
        p.w.cwnd
    );
}

// ---- app-limited samples below the max do not enter the filter ----
#[test]
fn app_limited_samples_do_not_lower_the_estimate() {
    let mut p = Pipe::new();
    for _ in 0..500 {
        p.ack(BW, RTT_MS, false);
    }
    for _ in 0..3000 {
        p.ack(BW / 10.0, RTT_MS, true);
    }
    assert!((p.bbr.max_bw.best() - BW).abs() < 1.0);
    for _ in 0..3000 {
        p.ack(BW / 10.0, RTT_MS, false);
    }
    assert!(
        p.bbr.max_bw.best() < BW / 2.0,
        "not app-limited: the max expires"
    );
}

// ---- PROBE_RTT after 10 s without a lower RTT: 4 segments for 200 ms and a round ----
#[test]
fn probe_rtt_entry_and_exit() {
    let mut p = Pipe::new();
    p.ack(BW, RTT_MS, false);
    // RTT samples above the minimum (ns-3 refreshes it with any sample <= it): the 10 s
    // old minimum expires
    while p.bbr.mode != Mode::ProbeRtt && p.now < SimTime::from_secs(12) {
        p.ack(BW, RTT_MS + 20, false);
    }
    assert_eq!(p.bbr.mode, Mode::ProbeRtt);
    let entered = p.now;
    assert!(entered > SimTime::from_secs(10), "entered at {entered:?}");
    let saved = p.bbr.prior_cwnd;
    assert!(saved > 4.0 * MSS);
    p.ack(BW, RTT_MS, false);
    assert!(p.w.cwnd <= 4.0 * MSS, "cwnd {} in PROBE_RTT", p.w.cwnd);
    assert_eq!(p.bbr.pacing_gain, 1.0);
    assert_eq!(p.bbr.cwnd_gain, 1.0);
    // in flight at 4 segments: the 200 ms start; it ends after 200 ms and a round
    p.in_flight = 4000;
    while p.bbr.mode == Mode::ProbeRtt && p.now < entered + SimTime::from_secs(1) {
        p.in_flight = 4000;
        p.ack(BW, RTT_MS, false);
    }
    let stayed = p.now.saturating_sub(entered);
    assert!(stayed > SimTime::from_millis(200), "stayed {stayed:?}");
    assert!(stayed < SimTime::from_millis(500), "stayed {stayed:?}");
    assert_eq!(
        p.bbr.mode,
        Mode::ProbeBw,
        "the pipe was full: back to PROBE_BW"
    );
    // RestoreCwnd, then SetCwnd caps it at the target
    assert!(
        p.w.cwnd >= saved.min(p.bbr.target_cwnd),
        "cwnd {} after PROBE_RTT, saved {saved}, target {}",
        p.w.cwnd,
        p.bbr.target_cwnd
    );
}

// ---- loss: recovery sets cwnd to the flight + 1 segment, leaving restores it ----
#[test]
fn recovery_conserves_packets_and_restores_cwnd() {
    let mut p = Pipe::new();
    for _ in 0..3000 {
        p.ack(BW, RTT_MS, false);
    }
    let before = p.w.cwnd;
    let ss = p.bbr.ssthresh_on_loss(&p.w, 0, p.now);
    assert_eq!(ss, p.w.ssthresh, "ssthresh unchanged");
    let c = Conn {
        now: p.now,
        in_flight: 50_000,
        delivered: p.delivered,
        min_rtt: Some(SimTime::from_millis(RTT_MS)),
        last_rtt: Some(SimTime::from_millis(RTT_MS)),
        iw_bytes: 1e4,
    };
    p.bbr.on_enter_recovery(&mut p.w, &c);
    assert_eq!(p.w.cwnd, 51_000.0);
    p.bbr.on_recovery_exit(&mut p.w, p.now);
    assert_eq!(p.w.cwnd, before);
    p.bbr.on_timeout(&mut p.w, 0, p.now);
    assert_eq!(p.w.cwnd, MSS);
}
