//! Retransmission timer arithmetic, RFC 6298 "Computing TCP's Retransmission Timer".
//!
//! * Section 2.1: before any sample, RTO = initial RTO (1 s in the RFC; ns-2 `rtxcur_init_` 3 s).
//! * Section 2.2: first sample R: SRTT = R, RTTVAR = R/2.
//! * Section 2.3: later samples: RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|, SRTT = 7/8 SRTT + 1/8 R
//!   (ns-2 `T_SRTT_BITS` 3, `T_RTTVAR_BITS` 2 are the same gains).
//! * Section 2.3: RTO = SRTT + max(G, K*RTTVAR), K = 4, G the clock granularity.
//! * Section 2.4: RTO is rounded up to the minimum (RFC: 1 s); 2.5: a maximum may be placed.
//! * Section 5.5: on expiry the RTO doubles ("back off the timer"), up to the maximum.
//! * Section 5.7 / Karn & Partridge 1987: a backed-off RTO is kept until a new sample arrives;
//!   the caller never samples retransmitted segments (see the sender's timed segment).
//!
//! Samples are first rounded to the clock granularity (Linux counts in jiffies).
//!
//! ns-2.35 mode ([`RttEstimator::ns2`], the `ns2_rules` option), after `tcp/tcp.cc`:
//! * `rtt_update`: a sample is the number of whole `tcpTick_` clock ticks between sending and
//!   the ACK (`int((tao + tickoff) / tcp_tick_)`, at least 1), kept in fixed point: `t_srtt_`
//!   = 8 srtt and `t_rttvar_` = 4 rttvar in ticks (`T_SRTT_BITS` 3, `T_RTTVAR_BITS` 2), updated
//!   with integer shifts; `t_rtxcur_ = ((t_rttvar_ << 3) + t_srtt_) >> 3` ticks, i.e.
//!   floor(srtt) + 4 rttvar with no granularity term (`rttvar_exp_` 2). Other scales
//!   (`T_SRTT_BITS`, `T_RTTVAR_BITS`, `rttvar_exp_` of `ns2_agent`) follow the same code:
//!   [`RttEstimator::ns2_scales`] (`ns2_agent` gives `rttvar_exp_`).
//! * `rtt_timeout`: with `rfc2988_` (default true) a `t_rtxcur_` below `minrto_` is raised to
//!   `minrto_` before the backoff multiplies it; without it (`ns2_agent.rfc2988 = false`) the
//!   backed-off `t_rtxcur_` is raised to `minrto_`; then capped by `maxrto_`, at least 2 ticks.
//! * `rtt_backoff`: `t_backoff_` doubles while below 64 (or, with `rfc2988_`, the timeout is
//!   below `maxrto_`);
//!   past 8 the srtt is cleared into rttvar (`t_rttvar_ += t_srtt_ >> 3; t_srtt_ = 0`), so the
//!   next sample starts the estimator again; `t_rtxcur_` itself only changes in `rtt_update`.
//! * `rtt_update` reads the tick clock of the agent, offset by `boot_time_` (drawn uniform in
//!   [0, tcpTick_) by `TcpAgent::reset`): `tickoff = fmod(sendtime + boot_time_, tcp_tick_)`,
//!   so the boundaries are at `k tcpTick_ - boot_time_`. Here that is the phase given to
//!   [`RttEstimator::ns2`] (`tcp.clock_phase`, default 0: boundaries at multiples of tcpTick_).

use crate::units::SimTime;

#[derive(Debug, Clone, Copy)]
struct Ns2Rtt {
    /// tcpTick_ (integer time, so tick counts are exact).
    tick: SimTime,
    /// boot_time_ (tcp.cc): the clock reads time + phase.
    phase: SimTime,
    t_srtt: i64,
    t_rttvar: i64,
    /// The last sample in ticks (`t_rtt_`, 0 before the first).
    t_rtt: i64,
    rtxcur: f64,
    /// `rfc2988_` (tcp.cc `rtt_timeout`, `rtt_backoff`).
    rfc2988: bool,
    /// `T_SRTT_BITS`, `T_RTTVAR_BITS` (the fixed-point scales of t_srtt_ and t_rttvar_) and
    /// `rttvar_exp_` (t_rtxcur_ = srtt + 2^rttvar_exp_ rttvar); ns-2's 3, 2 and 2.
    srtt_bits: u32,
    rttvar_bits: u32,
    rttvar_exp: u32,
    /// `LinuxTcpAgent::rtt_update` (tcp/linux/tcp_linux.cc): see `ns2_linux_rttvar`.
    linux: bool,
}

#[derive(Debug, Clone)]
pub struct RttEstimator {
    srtt: f64,
    rttvar: f64,
    has_sample: bool,
    backoff: u32,
    initial: f64,
    min: f64,
    max: f64,
    g: f64,
    g_time: SimTime,
    /// ns-2.35 fixed-point arithmetic (see the module notes): t_srtt_, t_rttvar_ (ticks
    /// scaled by 8 and 4) and t_rtxcur_ in seconds.
    ns2: Option<Ns2Rtt>,
    /// Statistics of the raw samples.
    pub samples: u64,
    pub sum: f64,
    pub min_sample: f64,
    pub max_sample: f64,
    pub last_sample: f64,
    /// The samples taken since the warm-up, for the report (the ones above drive the sender).
    pub measured: SampleStats,
}

/// Count, sum, smallest and largest of RTT samples.
#[derive(Debug, Clone, Copy)]
pub struct SampleStats {
    pub n: u64,
    pub sum: f64,
    pub min: f64,
    pub max: f64,
}

impl Default for SampleStats {
    fn default() -> Self {
        Self {
            n: 0,
            sum: 0.0,
            min: f64::INFINITY,
            max: 0.0,
        }
    }
}

impl SampleStats {
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }
    pub fn min(&self) -> Option<f64> {
        (self.n > 0).then_some(self.min)
    }
    pub fn max(&self) -> Option<f64> {
        (self.n > 0).then_some(self.max)
    }
}

impl RttEstimator {
    pub fn new(initial: SimTime, min: SimTime, max: SimTime, granularity: SimTime) -> Self {
        Self {
            srtt: 0.0,
            rttvar: 0.0,
            has_sample: false,
            backoff: 0,
            initial: initial.as_secs_f64(),
            min: min.as_secs_f64(),
            max: max.as_secs_f64(),
            g: granularity.as_secs_f64(),
            g_time: granularity,
            ns2: None,
            samples: 0,
            sum: 0.0,
            min_sample: f64::INFINITY,
            max_sample: 0.0,
            last_sample: 0.0,
            measured: SampleStats::default(),
        }
    }

    /// ns-2.35's estimator (tcp.cc `rtt_init`: `t_srtt_` = srtt_init_ 0, `t_rttvar_` =
    /// rttvar_init_ 12 s in ticks, `t_rtxcur_` = the initial RTO) with its tick clock's phase
    /// `boot_time_`; needs a positive granularity.
    pub fn ns2(mut self, phase: SimTime) -> Self {
        assert!(self.g_time > SimTime::ZERO, "ns-2 timer needs tcpTick_ > 0");
        self.ns2 = Some(Ns2Rtt {
            tick: self.g_time,
            phase,
            t_rtt: 0,
            t_srtt: 0,
            t_rttvar: ((12.0 / self.g) as i64) << 2,
            rtxcur: self.initial,
            rfc2988: true,
            srtt_bits: 3,
            rttvar_bits: 2,
            rttvar_exp: 2,
            linux: false,
        });
        self
    }

    /// ns-2's `Agent/TCP/Linux` keeps its own `rtt_update` (tcp/linux/tcp_linux.cc): when a
    /// sample is below the smoothed RTT, what exceeds `t_rttvar_`'s share is divided by
    /// 2^T_SRTT_BITS before it is added (Linux's `tcp_rtt_estimator` damping), and
    /// `t_rttvar_` has no floor of 1.
    pub fn ns2_linux_rttvar(mut self, on: bool) -> Self {
        if let Some(n) = self.ns2.as_mut() {
            n.linux = on;
        }
        self
    }

    /// ns-2's `T_SRTT_BITS`, `T_RTTVAR_BITS` and `rttvar_exp_` for the ns-2 estimator
    /// (defaults 3, 2, 2; tcp.cc `rtt_init`, `rtt_update`, `rtt_backoff`). Err for values
    /// whose shifts ns-2 does not define (negative, or past 16).
    pub fn ns2_scales(
        mut self,
        srtt_bits: u32,
        rttvar_bits: u32,
        rttvar_exp: u32,
    ) -> Result<Self, String> {
        if srtt_bits > 16 || rttvar_bits > 16 || rttvar_exp > 16 || rttvar_bits == 0 {
            return Err(format!(
                "T_SRTT_BITS {srtt_bits}, T_RTTVAR_BITS {rttvar_bits}, rttvar_exp_ {rttvar_exp}: \
                 shifts of 0 to 16 (T_RTTVAR_BITS at least 1) are modelled"
            ));
        }
        if rttvar_exp + srtt_bits < rttvar_bits {
            return Err(format!(
                "rttvar_exp_ + T_SRTT_BITS - T_RTTVAR_BITS is negative ({rttvar_exp} + \
                 {srtt_bits} - {rttvar_bits}): a shift ns-2 does not define"
            ));
        }
        let g = self.g;
        if let Some(n) = self.ns2.as_mut() {
            n.srtt_bits = srtt_bits;
            n.rttvar_bits = rttvar_bits;
            n.rttvar_exp = rttvar_exp;
            // rtt_init: t_rttvar_ = int(rttvar_init_ / tcp_tick_) << T_RTTVAR_BITS
            n.t_rttvar = ((12.0 / g) as i64) << rttvar_bits;
        }
        Ok(self)
    }

    /// ns-2's `rfc2988_` (default true) for the ns-2 estimator: false is its older timer, the
    /// minimum applied after the backoff and the backoff capped at 64 (tcp.cc `rtt_timeout`,
    /// `rtt_backoff`).
    pub fn rfc2988(mut self, on: bool) -> Self {
        if let Some(n) = self.ns2.as_mut() {
            n.rfc2988 = on;
        }
        self
    }

    pub fn is_ns2(&self) -> bool {
        self.ns2.is_some()
    }

    /// Feeds the RTT of a segment sent at `sent` and acknowledged at `now`. In ns-2 mode the
    /// sample is the number of tick boundaries crossed (tcp.cc `rtt_update`): those of a clock
    /// reading time + `boot_time_`, whose value is the phase.
    pub fn sample_at(&mut self, sent: SimTime, now: SimTime) {
        let Some(n) = self.ns2 else {
            return self.sample(now.saturating_sub(sent));
        };
        let raw = now.saturating_sub(sent).as_secs_f64();
        self.record(raw);
        let (t0, t1) = (sent + n.phase, now + n.phase);
        let ticks = (t1.0 / n.tick.0).saturating_sub(t0.0 / n.tick.0).max(1) as i64;
        self.ns2_update(ticks);
    }

    fn record(&mut self, raw: f64) {
        self.samples += 1;
        self.sum += raw;
        self.min_sample = self.min_sample.min(raw);
        self.max_sample = self.max_sample.max(raw);
        self.last_sample = raw;
        let m = &mut self.measured;
        m.n += 1;
        m.sum += raw;
        m.min = m.min.min(raw);
        m.max = m.max.max(raw);
        self.backoff = 0;
    }

    /// tcp.cc `rtt_update` with `t_rtt_` = `ticks`: t_srtt_ and t_rttvar_ scaled by
    /// 2^T_SRTT_BITS and 2^T_RTTVAR_BITS, `t_rtxcur_ = ((t_rttvar_ << (rttvar_exp_ +
    /// T_SRTT_BITS - T_RTTVAR_BITS)) + t_srtt_) >> T_SRTT_BITS` ticks.
    fn ns2_update(&mut self, ticks: i64) {
        let tick = self.g;
        let n = self.ns2.as_mut().expect("ns-2 mode");
        let (sb, vb) = (n.srtt_bits, n.rttvar_bits);
        n.t_rtt = ticks;
        if n.t_srtt != 0 {
            // `register short delta`: each assignment keeps 16 bits
            let mut delta = i64::from((ticks - (n.t_srtt >> sb)) as i16);
            n.t_srtt += delta;
            if n.t_srtt <= 0 {
                n.t_srtt = 1;
            }
            if n.linux {
                // LinuxTcpAgent::rtt_update
                if delta < 0 {
                    delta = i64::from((-delta - (n.t_rttvar >> vb)) as i16);
                    if delta > 0 {
                        delta >>= sb;
                    }
                } else {
                    delta = i64::from((delta - (n.t_rttvar >> vb)) as i16);
                }
                n.t_rttvar += delta;
            } else {
                delta = i64::from((delta.abs() - (n.t_rttvar >> vb)) as i16);
                n.t_rttvar += delta;
                if n.t_rttvar <= 0 {
                    n.t_rttvar = 1;
                }
            }
        } else {
            n.t_srtt = ticks << sb;
            n.t_rttvar = ticks << (vb - 1);
        }
        let shift = n.rttvar_exp + sb - vb;
        n.rtxcur = (((n.t_rttvar << shift) + n.t_srtt) >> sb) as f64 * tick;
        self.srtt = (n.t_srtt >> sb) as f64 * tick;
        self.rttvar = (n.t_rttvar >> vb) as f64 * tick;
        self.has_sample = true;
    }

    /// ns-2.35 tcp.cc `rtt_update` with `ts_option_` (timestamps): the sample is the echoed
    /// timestamp's age rounded to the nearest tick, `t_rtt_ = int(tao / tcp_tick_ + 0.5)`
    /// (at least 1); unlike a timed packet's sample it leaves the backoff (`newack` ends it
    /// for the timed packet, or with `ts_resetRTO_`). Outside ns-2 mode, [`Self::sample`].
    pub fn ns2_ts_sample(&mut self, rtt: SimTime) {
        if self.ns2.is_none() {
            return self.sample(rtt);
        }
        let backoff = self.backoff;
        let tao = rtt.as_secs_f64();
        self.record(tao);
        self.backoff = backoff;
        // in doubles, as ns-2 computes it
        let ticks = ((tao / self.g + 0.5) as i64).max(1);
        self.ns2_update(ticks);
    }

    /// Feeds one RTT measurement (section 2.2 / 2.3). Clears the backoff (Karn: a valid
    /// sample from a segment that was not retransmitted).
    pub fn sample(&mut self, rtt: SimTime) {
        let raw = rtt.as_secs_f64();
        if let Some(n) = self.ns2 {
            // A duration alone (the timestamp echo's, tcp.cc `recv_newack_helper` with
            // `ts_option_`): `rtt_update` rounds it to the nearest tick,
            // `t_rtt_ = int(tao / tcp_tick_ + 0.5)`, at least 1.
            self.record(raw);
            let ticks = ((rtt.0 + n.tick.0 / 2) / n.tick.0).max(1) as i64;
            return self.ns2_update(ticks);
        }
        self.record(raw);
        let r = if self.g > 0.0 {
            ((raw / self.g).round().max(1.0)) * self.g
        } else {
            raw
        };
        if !self.has_sample {
            self.srtt = r;
            self.rttvar = r / 2.0;
            self.has_sample = true;
        } else {
            self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
            self.srtt = 0.875 * self.srtt + 0.125 * r;
        }
    }

    /// Section 5.5: double the timer (bounded by the maximum).
    pub fn back_off(&mut self) {
        if self.ns2.is_some() {
            // tcp.cc `rtt_backoff`: `t_backoff_ < 64 || (rfc2988_ && rtt_timeout() < maxrto_)`
            let mult = 1u64 << self.backoff;
            let rfc2988 = self.ns2.is_some_and(|n| n.rfc2988);
            if mult < 64 || (rfc2988 && self.rto().as_secs_f64() < self.max) {
                self.backoff = (self.backoff + 1).min(30);
            }
            let past_8 = (1u64 << self.backoff) > 8;
            if let Some(n) = self.ns2.as_mut().filter(|_| past_8) {
                n.t_rttvar += n.t_srtt >> n.srtt_bits;
                n.t_srtt = 0;
            }
            return;
        }
        self.backoff = (self.backoff + 1).min(30);
    }

    /// Forgets the samples (section 5.7: after SYN loss the RTO restarts from its initial value
    /// once data transmission begins, unless a sample was taken).
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }

    /// Puts back a backoff that a sample cleared (ns-2 tcp.cc `newack` keeps `t_backoff_`
    /// while ECN-echo holds the window at one packet, `ecn_backoff_`).
    pub fn restore_backoff(&mut self, backoff: u32) {
        self.backoff = backoff;
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// The RTO without backoff (sections 2.1-2.4).
    pub fn base_rto(&self) -> f64 {
        if let Some(n) = self.ns2 {
            return n.rtxcur.max(self.min).min(self.max);
        }
        let r = if self.has_sample {
            self.srtt + self.g.max(4.0 * self.rttvar)
        } else {
            self.initial
        };
        r.max(self.min).min(self.max)
    }

    /// The current RTO with backoff (section 5.5), bounded by the maximum.
    pub fn rto(&self) -> SimTime {
        if let Some(t) = self.rto_s() {
            return SimTime::from_secs_f64(t);
        }
        let r = (self.base_rto() * (1u64 << self.backoff.min(30)) as f64).min(self.max);
        SimTime::from_secs_f64(r.max(self.min.min(self.max)))
    }

    /// ns-2's RTO in its own doubles, in ns-2 mode: tcp.cc `rtt_timeout` with rfc2988_,
    /// clamped to minrto_ before the backoff. `rto` is this rounded to picoseconds; the
    /// double keys the timer's event under ns-2's clock.
    pub fn rto_s(&self) -> Option<f64> {
        let n = self.ns2.as_ref()?;
        let mult = (1u64 << self.backoff.min(30)) as f64;
        let mut t = if !n.rfc2988 {
            // "only of interest for backwards compatibility": the minimum after the backoff
            (n.rtxcur * mult).max(self.min)
        } else if n.rtxcur < self.min {
            self.min * mult
        } else {
            n.rtxcur * mult
        };
        t = t.min(self.max);
        if t < 2.0 * self.g {
            t = 2.0 * self.g;
        }
        Some(t)
    }

    /// ns-2's own variables in ns-2 mode, as a script reads them (tcp.cc binds `rtt_`,
    /// `srtt_`, `rttvar_` and `backoff_` to `t_rtt_` in ticks, `t_srtt_` = 8 srtt and
    /// `t_rttvar_` = 4 rttvar in ticks, and `t_backoff_`, the RTO's multiplier).
    pub fn ns2_var(&self, var: &str) -> Option<f64> {
        let n = self.ns2.as_ref()?;
        Some(match var {
            "rtt_" => n.t_rtt,
            "srtt_" => n.t_srtt,
            "rttvar_" => n.t_rttvar,
            "backoff_" => 1i64 << self.backoff.min(62),
            _ => return None,
        } as f64)
    }

    /// ns-2's `T_SRTT_BITS` (t_srtt_'s fixed-point scale), in ns-2 mode (else 3).
    pub fn ns2_srtt_bits(&self) -> u32 {
        self.ns2.as_ref().map_or(3, |n| n.srtt_bits)
    }

    /// ns-2's `t_rtxcur_` in seconds (the RTO before clamping and backoff), in ns-2 mode.
    pub fn ns2_rtxcur(&self) -> Option<f64> {
        self.ns2.as_ref().map(|n| n.rtxcur)
    }

    pub fn srtt(&self) -> Option<f64> {
        self.has_sample.then_some(self.srtt)
    }
    pub fn rttvar(&self) -> Option<f64> {
        self.has_sample.then_some(self.rttvar)
    }
    pub fn mean_sample(&self) -> Option<f64> {
        (self.samples > 0).then(|| self.sum / self.samples as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    // ---- RFC 6298 arithmetic ----
    #[test]
    fn first_sample_and_smoothing_follow_rfc6298() {
        let mut e = RttEstimator::new(ms(1000), ms(0), ms(60_000), SimTime::ZERO);
        assert!(
            (e.rto().as_secs_f64() - 1.0).abs() < 1e-12,
            "2.1 initial RTO"
        );
        e.sample(ms(100));
        // 2.2: SRTT 0.1, RTTVAR 0.05, RTO = 0.1 + 4*0.05 = 0.3
        assert!((e.rto().as_secs_f64() - 0.3).abs() < 1e-9);
        e.sample(ms(200));
        // 2.3: RTTVAR = 0.75*0.05 + 0.25*0.1 = 0.0625; SRTT = 0.875*0.1 + 0.125*0.2 = 0.1125
        assert!((e.srtt().unwrap() - 0.1125).abs() < 1e-12);
        assert!((e.rttvar().unwrap() - 0.0625).abs() < 1e-12);
        assert!((e.rto().as_secs_f64() - (0.1125 + 0.25)).abs() < 1e-9);
    }

    #[test]
    fn min_max_granularity_and_backoff() {
        let mut e = RttEstimator::new(ms(3000), ms(200), ms(60_000), ms(10));
        e.sample(ms(10));
        // SRTT 0.01, RTTVAR 0.005, RTO = 0.01 + max(0.01, 0.02) = 0.03 -> min 0.2
        assert!((e.rto().as_secs_f64() - 0.2).abs() < 1e-12);
        e.back_off();
        assert!((e.rto().as_secs_f64() - 0.4).abs() < 1e-12);
        for _ in 0..20 {
            e.back_off();
        }
        assert!(
            (e.rto().as_secs_f64() - 60.0).abs() < 1e-9,
            "bounded by max"
        );
        e.sample(ms(12)); // rounded to one tick
        assert_eq!(e.backoff(), 0);
    }

    // ---- ns-2.35 tcp.cc rtt_update / rtt_timeout / rtt_backoff ----
    #[test]
    fn ns2_counts_ticks_in_fixed_point() {
        let mut e = RttEstimator::new(ms(3000), ms(200), ms(60_000), ms(10)).ns2(SimTime::ZERO);
        assert!((e.rto().as_secs_f64() - 3.0).abs() < 1e-12, "rtxcur_init_");
        // 5 ms -> 100 ms crosses 10 tick boundaries: t_srtt_ 80, t_rttvar_ 20, RTO 30 ticks.
        e.sample_at(ms(5), ms(100));
        assert!((e.base_rto() - 0.3).abs() < 1e-12);
        // 100 ms -> 221 ms: 12 ticks. delta 2: t_srtt_ 82; |2| - (20 >> 2) = -3: t_rttvar_ 17;
        // t_rtxcur_ = ((17 << 3) + 82) >> 3 = 27 ticks. RFC 6298 on the same samples: 0.2725 s.
        e.sample_at(ms(100), ms(221));
        assert!((e.base_rto() - 0.27).abs() < 1e-12, "{}", e.base_rto());
        assert!((e.srtt().unwrap() - 0.10).abs() < 1e-12);
        assert!((e.rttvar().unwrap() - 0.04).abs() < 1e-12);
        // 9 ms -> 11 ms is one tick; 1 ms -> 9 ms none, counted as 1.
        let mut a = RttEstimator::new(ms(3000), ms(0), ms(60_000), ms(10)).ns2(SimTime::ZERO);
        a.sample_at(ms(9), ms(11));
        let mut b = RttEstimator::new(ms(3000), ms(0), ms(60_000), ms(10)).ns2(SimTime::ZERO);
        b.sample_at(ms(1), ms(9));
        assert_eq!(a.base_rto(), b.base_rto());
        assert!((a.base_rto() - 0.03).abs() < 1e-12);
    }

    /// tcp.cc `rtt_update` with `ts_option_`: the echoed duration rounded to the nearest
    /// tick (`int(tao / tcp_tick_ + 0.5)`), at least one.
    #[test]
    fn ns2_timestamp_samples_round_to_the_nearest_tick() {
        let est = || RttEstimator::new(ms(3000), ms(0), ms(60_000), ms(100)).ns2(SimTime::ZERO);
        let (mut a, mut b, mut c) = (est(), est(), est());
        a.sample(ms(249)); // 2.49 ticks -> 2
        b.sample(ms(250)); // 2.5 -> 3
        c.sample(ms(20)); // 0.2 -> 0, counted as 1
        assert!((a.srtt().unwrap() - 0.2).abs() < 1e-12);
        assert!((b.srtt().unwrap() - 0.3).abs() < 1e-12);
        assert!((c.srtt().unwrap() - 0.1).abs() < 1e-12);
    }

    /// tcp.cc `rtt_update` without timestamps, in its doubles: the whole ticks between the
    /// send time and now of a clock that reads time + boot_time_.
    fn tcp_cc_ticks(sent: f64, now: f64, boot_time: f64, tick: f64) -> i64 {
        let tao = now - sent;
        let sendtime = now - tao + boot_time;
        let tickoff = sendtime % tick; // fmod: both positive
        (((tao + tickoff) / tick) as i64).max(1)
    }

    #[test]
    fn ns2_phase_moves_the_tick_boundaries_as_boot_time_does() {
        let est =
            |phase: SimTime| RttEstimator::new(ms(3000), ms(0), ms(60_000), ms(10)).ns2(phase);
        // 6 ms -> 18 ms: one boundary (10 ms) with phase 0; with boot_time_ 3 ms the clock
        // reads 9 ms -> 21 ms, two boundaries (at 7 ms and 17 ms).
        let (mut a, mut b) = (est(SimTime::ZERO), est(ms(3)));
        a.sample_at(ms(6), ms(18));
        b.sample_at(ms(6), ms(18));
        assert!((a.srtt().unwrap() - 0.01).abs() < 1e-12);
        assert!((b.srtt().unwrap() - 0.02).abs() < 1e-12);
        // Against tcp.cc's formula over a grid of send times, RTTs and phases (send and ACK
        // times end in 0.25 and 0.375 us, the phases in other fractions of a us, so none lands
        // on a boundary where tcp.cc's doubles could round either way).
        let phases = [0.0, 3.217_123_4e-3, 7.900_000_1e-3, 9.999_999_9e-3];
        for &ph in &phases {
            for i in 0..200u64 {
                let sent = SimTime(370_000_000 * i + 13_250_000);
                for j in 0..40u64 {
                    let now = sent + SimTime(1_100_000_000 * j + 7_125_000);
                    let mut e = est(SimTime::from_secs_f64(ph));
                    e.sample_at(sent, now);
                    let want = tcp_cc_ticks(sent.as_secs_f64(), now.as_secs_f64(), ph, 0.01);
                    let got = (e.srtt().unwrap() / 0.01).round() as i64;
                    assert_eq!(got, want, "phase {ph} sent {sent:?} now {now:?}");
                }
            }
        }
    }

    #[test]
    fn ns2_backoff_clamps_to_min_first_and_forgets_srtt_past_8() {
        let mut e = RttEstimator::new(ms(3000), ms(200), ms(60_000), ms(10)).ns2(SimTime::ZERO);
        for k in 0..40 {
            e.sample_at(ms(1000 * k), ms(1000 * k + 50));
        }
        // 5 ticks steady: t_rttvar_ decays to 3, t_rtxcur_ = (24 + 40) >> 3 = 8 ticks < minrto_.
        assert!((e.base_rto() - 0.2).abs() < 1e-12);
        e.back_off();
        assert!(
            (e.rto().as_secs_f64() - 0.4).abs() < 1e-12,
            "minrto_ * t_backoff_"
        );
        for _ in 0..3 {
            e.back_off();
        }
        assert!((e.rto().as_secs_f64() - 3.2).abs() < 1e-12, "t_backoff_ 16");
        // Past 8 t_srtt_ was cleared: the next sample starts afresh (srtt 30 ticks, rttvar 15,
        // RTO 90 ticks), where the smoothed estimator would still remember the 50 ms samples.
        e.sample_at(ms(100_000), ms(100_300));
        assert_eq!(e.backoff(), 0);
        assert!((e.base_rto() - 0.9).abs() < 1e-12, "{}", e.base_rto());
    }
}
