//! PIE, Proportional Integral controller Enhanced (Pan, Natarajan, Piglione, Prabhu, Subramanian,
//! Baker & VerSteeg, RFC 8033, 2017), following the RFC's sections 4 and 5, Linux
//! `net/sched/sch_pie.c` (preset `linux`) and ns-3.44 `pie-queue-disc.cc` (preset `ns3`):
//! * every `tupdate` (T_UPDATE) the drop probability moves by
//!   `p = alpha (qdelay - target) + beta (qdelay - qdelay_old)` (seconds, alpha/beta in 1/s),
//!   scaled down while drop_prob is small (/2048 below 1e-6, /512 below 1e-5, /128 below 1e-4,
//!   /32 below 1e-3, /8 below 1e-2, /2 below 0.1; RFC 8033 section 4.2), capped at +0.02 per
//!   update once drop_prob >= 0.1 (section 5.5 / Linux / ns-3 UseCapDropAdjustment), decayed by
//!   0.98 when the queue delay is zero twice in a row, and kept in [0, 1];
//! * burst allowance (MAX_BURST), `linux`: starts at MAX_BURST, shrinks by T_UPDATE at each
//!   update and is restored when drop_prob is 0 and both delays are below target / 2 (RFC 8033
//!   section 4.2, sch_pie). `ns3` (PieQueueDisc `DropEarly`, `CalculateP`): starts at 0 and is
//!   armed to MAX_BURST by the first enqueue test (state NO_BURST -> IN_BURST_PROTECTING);
//!   while it lasts drop_prob is held at 0; once it has run out, an update with drop_prob 0 and
//!   both delays below target / 2 moves to IN_BURST, and after more than 1.5 s / T_UPDATE such
//!   updates in a row (ns-3 BURST_RESET_TIMEOUT) to NO_BURST, so that the next enqueue arms it
//!   again; any other update in IN_BURST restarts that count;
//! * at enqueue (section 4.1): no drop while there is burst allowance left, while
//!   `qdelay_old < target/2 and drop_prob < 0.2`, or while at most 2 mean packets are queued
//!   (ns-3 with a limit in packets: at most 2 packets); otherwise drop with probability
//!   drop_prob (ECN-capable packets are marked instead while drop_prob <= 0.1 when `ecn`,
//!   section 5.1);
//! * the queue delay is the sojourn time of the last dequeued packet, 0 once the queue is empty
//!   (the timestamp method Linux and ns-3 use by default; RFC 8033 section 5.2 allows it in
//!   place of the departure-rate estimate). With `dq_rate_estimator` (section 4.3; Linux
//!   `dq_rate_estimator`, ns-3 `UseDequeueRateEstimator`, both off by default) it is instead
//!   queue bytes / average departure rate, measured over cycles of `dq_threshold` (16384) bytes
//!   and averaged with weight 1/2 as ns-3 `DoDequeue` does. The optional de-randomisation
//!   (section 5.1) and Linux's extra +2 % above 250 ms are not modelled.
//!
//! Defaults: `linux` (RFC 8033, sch_pie): target 15 ms, T_UPDATE 15 ms, limit 1000p, mean packet
//! 1500 B; `ns3` (PieQueueDisc attributes in ns-3.44): QueueDelayReference 15 ms, Tupdate
//! 15 ms, MaxSize 25p, MeanPktSize 1000 B. Both: alpha 0.125, beta 1.25, MAX_BURST 150 ms.
//! Updates run lazily at the first queue event at or after each due time, as many as are due,
//! with the state of that moment.

use super::shared_config::{refuse_unknown, AqmPreset, PiDefaults, PiGains, PiKnobs, UnknownKeys};
use super::{DropReason, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::units::Bytes;
use crate::units::{QueueLimit, SimTime};
use rand::RngExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

// ---------------------------------------------------------------- configuration

/// PIE's controller defaults, the same in both presets: QDELAY_REF 15 ms and T_UPDATE 15 ms
/// (RFC 8033 section 4.2, Linux sch_pie; ns-3.44 QueueDelayReference, Tupdate), alpha 0.125 and
/// beta 1.25 per second (RFC 8033 section 4.2; ns-3 A, B).
pub const PIE_DEFAULTS: PiDefaults = PiDefaults {
    source: "RFC 8033",
    target_text: "15ms",
    tupdate_text: "15ms",
    target: 0.015,
    tupdate: SimTime::from_millis(15),
    alpha: 0.125,
    beta: 1.25,
};

/// PIE (RFC 8033).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PieConfig {
    #[serde(default)]
    pub preset: AqmPreset,
    /// Default: linux 1000p (sch_pie), ns3 25p (PieQueueDisc MaxSize).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<QueueLimit>,
    /// target (QDELAY_REF), tupdate (T_UPDATE), alpha and beta, shared with DualPI2; defaults
    /// [`PIE_DEFAULTS`].
    #[serde(flatten)]
    pub pi: PiKnobs,
    /// MAX_BURST (default 150 ms, RFC 8033 section 4.2; ns-3 MaxBurstAllowance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_burst: Option<SimTime>,
    /// Mark instead of drop while drop_prob <= 0.1 (RFC 8033 section 5.1; default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    /// Mean packet size: no drop while at most 2 x this is queued (default 1500 B: RFC 8033
    /// MEAN_PKTSIZE; ns3 MeanPktSize 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_pktsize: Option<Bytes>,
    /// Queue delay from the departure-rate estimate (queue bytes / average dequeue rate, RFC 8033
    /// section 4.3) instead of the last packet's sojourn time. Default false: Linux
    /// `dq_rate_estimator` (off unless set, tc-pie(8)) and ns-3 `UseDequeueRateEstimator` (false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dq_rate_estimator: Option<bool>,
    /// Bytes a measurement cycle of the estimator needs (default 16384B: RFC 8033 DQ_THRESHOLD
    /// 2^14; ns-3 DequeueThreshold 16384).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dq_threshold: Option<Bytes>,
    /// Keys no field took, refused by `validate`.
    #[serde(flatten, skip_serializing)]
    #[schemars(skip)]
    pub unknown: UnknownKeys,
}

impl PieConfig {
    /// Checks values serde cannot: (field relative to the queue, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        refuse_unknown(
            &self.unknown,
            &[
                &["preset", "limit"],
                PiKnobs::FIELDS,
                &[
                    "max_burst",
                    "ecn",
                    "mean_pktsize",
                    "dq_rate_estimator",
                    "dq_threshold",
                ],
            ],
        )?;
        self.pi.validate(&PIE_DEFAULTS)?;
        if self.mean_pktsize == Some(Bytes(0)) {
            return Err((
                "mean_pktsize".into(),
                "must be at least 1B (RFC 8033: 1500B)".into(),
            ));
        }
        if self.dq_threshold.is_some_and(|b| b.0 == 0) {
            return Err((
                "dq_threshold".into(),
                "must be positive (RFC 8033 and ns-3: 16384B)".into(),
            ));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- the discipline

pub fn configured_limit(cfg: &PieConfig) -> QueueLimit {
    cfg.limit.unwrap_or(match cfg.preset {
        AqmPreset::Linux => QueueLimit::Packets(1000),
        AqmPreset::Ns3 => QueueLimit::Packets(25),
    })
}

#[derive(Clone, Debug)]
pub struct PieParams {
    /// target (s), tupdate, alpha, beta.
    pub pi: PiGains,
    pub max_burst: f64,
    pub ecn: bool,
    pub mean_pktsize: u64,
    /// ns-3's burst handling (see the module comment) instead of RFC 8033 / Linux.
    pub ns3_burst: bool,
    /// Queue delay = queue bytes / average departure rate (RFC 8033 section 4.3).
    pub dq_rate_estimator: bool,
    /// Bytes per measurement cycle of the estimator.
    pub dq_threshold: u64,
}

/// ns-3 `PieQueueDisc` burst states (`m_burstState`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum BurstState {
    NoBurst,
    InBurstProtecting,
    InBurst,
}

/// ns-3 `BURST_RESET_TIMEOUT` (pie-queue-disc.cc): seconds of calm before the allowance can be
/// armed again.
const NS3_BURST_RESET_TIMEOUT: f64 = 1.5;

/// RFC 8033 section 4.2: the probability step for the current state.
pub fn pie_step(p: &PieParams, drop_prob: f64, qdelay: f64, qdelay_old: f64) -> f64 {
    let mut d = p.pi.step(qdelay, qdelay_old);
    d /= if drop_prob < 1e-6 {
        2048.0
    } else if drop_prob < 1e-5 {
        512.0
    } else if drop_prob < 1e-4 {
        128.0
    } else if drop_prob < 1e-3 {
        32.0
    } else if drop_prob < 1e-2 {
        8.0
    } else if drop_prob < 0.1 {
        2.0
    } else {
        1.0
    };
    if drop_prob >= 0.1 && d > 0.02 {
        d = 0.02;
    }
    d
}

pub struct Pie {
    q: VecDeque<Packet>,
    bytes: u64,
    limit: QueueLimit,
    pub params: PieParams,
    pub drop_prob: f64,
    qdelay: f64,
    qdelay_old: f64,
    /// Burst allowance left (integer time, so that MAX_BURST / T_UPDATE updates use it up exactly).
    burst_allowance: SimTime,
    burst_state: BurstState,
    burst_reset: u64,
    next_update: SimTime,
    /// Departure-rate estimator: a cycle is running, since when, bytes dequeued in it, and the
    /// average rate in bytes/s (0: none yet).
    in_measurement: bool,
    dq_start: SimTime,
    dq_count: u64,
    avg_dq_rate: f64,
}

impl Pie {
    pub fn new(cfg: &PieConfig) -> Self {
        let linux = cfg.preset == AqmPreset::Linux;
        let params = PieParams {
            pi: cfg.pi.gains(&PIE_DEFAULTS),
            max_burst: cfg.max_burst.map(|t| t.as_secs_f64()).unwrap_or(0.150),
            ecn: cfg.ecn.unwrap_or(false),
            mean_pktsize: cfg
                .mean_pktsize
                .map(|b| b.0)
                .unwrap_or(if linux { 1500 } else { 1000 }),
            ns3_burst: !linux,
            dq_rate_estimator: cfg.dq_rate_estimator.unwrap_or(false),
            dq_threshold: cfg.dq_threshold.map(|b| b.0).unwrap_or(16384),
        };
        let max_burst = SimTime::from_secs_f64(params.max_burst);
        Self {
            q: VecDeque::new(),
            bytes: 0,
            limit: configured_limit(cfg),
            next_update: params.pi.tupdate,
            // Linux pie_vars_init: MAX_BURST; ns-3: 0 until the first enqueue test arms it
            burst_allowance: if params.ns3_burst {
                SimTime::ZERO
            } else {
                max_burst
            },
            burst_state: BurstState::NoBurst,
            burst_reset: 0,
            in_measurement: false,
            dq_start: SimTime::ZERO,
            dq_count: 0,
            avg_dq_rate: 0.0,
            params,
            drop_prob: 0.0,
            qdelay: 0.0,
            qdelay_old: 0.0,
        }
    }

    /// One T_UPDATE step (RFC 8033 section 4.2; ns-3 `CalculateP`).
    pub fn update(&mut self) {
        let p = &self.params;
        let tupdate = p.pi.tupdate;
        let max_burst = SimTime::from_secs_f64(p.max_burst);
        let half = p.pi.target / 2.0;
        let mut no_rate_yet = false;
        if p.dq_rate_estimator {
            // RFC 8033 section 4.3 / ns-3 CalculateP: delay = backlog / average departure rate
            if self.avg_dq_rate > 0.0 {
                self.qdelay = self.bytes as f64 / self.avg_dq_rate;
            } else {
                self.qdelay = 0.0;
                no_rate_yet = true;
            }
        }
        if p.ns3_burst && self.burst_allowance > SimTime::ZERO {
            // ns-3 holds the probability at 0 while the allowance lasts
            self.drop_prob = 0.0;
        } else {
            self.drop_prob += pie_step(p, self.drop_prob, self.qdelay, self.qdelay_old);
        }
        if self.qdelay == 0.0 && self.qdelay_old == 0.0 {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        self.burst_allowance = self.burst_allowance.saturating_sub(tupdate);
        let calm = self.drop_prob == 0.0 && self.qdelay < half && self.qdelay_old < half;
        if p.dq_rate_estimator && calm && !no_rate_yet {
            // the queue has settled: forget the rate, stop measuring (Linux DQCOUNT_INVALID)
            self.avg_dq_rate = 0.0;
            self.in_measurement = false;
            self.dq_count = 0;
        }
        if !p.ns3_burst {
            if calm {
                self.burst_allowance = max_burst;
            }
        } else if calm && self.burst_allowance == SimTime::ZERO {
            match self.burst_state {
                BurstState::InBurstProtecting => {
                    self.burst_state = BurstState::InBurst;
                    self.burst_reset = 0;
                }
                BurstState::InBurst => {
                    self.burst_reset += 1;
                    let limit = (NS3_BURST_RESET_TIMEOUT / tupdate.as_secs_f64()) as u64;
                    if self.burst_reset > limit {
                        self.burst_reset = 0;
                        self.burst_state = BurstState::NoBurst;
                    }
                }
                BurstState::NoBurst => {}
            }
        } else if self.burst_state == BurstState::InBurst {
            self.burst_reset = 0;
        }
        self.qdelay_old = self.qdelay;
    }

    fn catch_up(&mut self, now: SimTime) {
        while now >= self.next_update {
            self.update();
            self.next_update = self.next_update + self.params.pi.tupdate;
        }
    }

    /// RFC 8033 section 4.3 / ns-3 `DoDequeue`: a cycle starts when at least `dq_threshold`
    /// bytes wait after a dequeue (that packet counts in it); once it has counted `dq_threshold`
    /// bytes, rate = bytes / elapsed time, averaged with weight 1/2 (ns-3), and a new cycle
    /// starts at once if more than `dq_threshold` bytes still wait.
    fn measure_departure(&mut self, now: SimTime, size: u64) {
        let thr = self.params.dq_threshold;
        if self.bytes >= thr && !self.in_measurement {
            self.in_measurement = true;
            self.dq_start = now;
            self.dq_count = 0;
        }
        if !self.in_measurement {
            return;
        }
        self.dq_count += size;
        if self.dq_count >= thr {
            let dt = now.saturating_sub(self.dq_start).as_secs_f64();
            if dt > 0.0 {
                let rate = self.dq_count as f64 / dt;
                self.avg_dq_rate = if self.avg_dq_rate == 0.0 {
                    rate
                } else {
                    0.5 * self.avg_dq_rate + 0.5 * rate
                };
            }
            self.dq_count = 0;
            self.in_measurement = self.bytes > thr;
            self.dq_start = now;
        }
    }

    #[cfg(test)]
    pub(crate) fn set_state(&mut self, drop_prob: f64, qdelay: f64, qdelay_old: f64) {
        self.drop_prob = drop_prob;
        self.qdelay = qdelay;
        self.qdelay_old = qdelay_old;
    }
}

impl QueueDisc for Pie {
    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QueueCtx) {
        self.catch_up(cx.now);
        let full = match self.limit {
            QueueLimit::Packets(l) => self.q.len() as u64 + 1 > l,
            QueueLimit::Bytes(l) => self.bytes + pkt.size as u64 > l,
        };
        if full {
            cx.drop(pkt, DropReason::QueueFull);
            return;
        }
        let allowance = self.burst_allowance > SimTime::ZERO;
        if !allowance && self.params.ns3_burst && self.burst_state == BurstState::NoBurst {
            // ns-3 DropEarly: arm the allowance, and still test this packet
            self.burst_state = BurstState::InBurstProtecting;
            self.burst_allowance = SimTime::from_secs_f64(self.params.max_burst);
        }
        let p = &self.params;
        let few = match (self.limit, p.ns3_burst) {
            // ns-3 counts the queue in the limit's unit: at most 2 packets
            (QueueLimit::Packets(_), true) => self.q.len() <= 2,
            _ => self.bytes <= 2 * p.mean_pktsize,
        };
        let exempt =
            allowance || (self.qdelay_old < p.pi.target / 2.0 && self.drop_prob < 0.2) || few;
        if !exempt {
            let u: f64 = cx.rng().random();
            if u < self.drop_prob {
                let marked = p.ecn && self.drop_prob <= 0.1 && cx.mark(&mut pkt);
                if !marked {
                    cx.drop(pkt, DropReason::Pie);
                    return;
                }
            }
        }
        self.bytes += pkt.size as u64;
        self.q.push_back(pkt);
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        self.catch_up(cx.now);
        let p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        if self.params.dq_rate_estimator {
            self.measure_departure(cx.now, p.size as u64);
        } else {
            self.qdelay = if self.q.is_empty() {
                0.0
            } else {
                cx.now.saturating_sub(p.enqueued).as_secs_f64()
            };
        }
        Some(p)
    }

    fn len_packets(&self) -> usize {
        self.q.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn kind(&self) -> &'static str {
        "pie"
    }
    fn resolved_settings(&self, _rate_bps: f64) -> Option<serde_json::Value> {
        let p = &self.params;
        Some(serde_json::json!({
            "limit": self.limit.to_string(),
            "target_s": p.pi.target,
            "tupdate_s": p.pi.tupdate.as_secs_f64(),
            "alpha": p.pi.alpha,
            "beta": p.pi.beta,
            "max_burst_s": p.max_burst,
            "ecn": p.ecn,
            "mean_pktsize_bytes": p.mean_pktsize,
            "ns3_burst": p.ns3_burst,
            "dq_rate_estimator": p.dq_rate_estimator,
            "dq_threshold_bytes": p.dq_threshold,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Bytes;

    // ---- bad values named (a 1 ps tupdate made an idle second 10^12 steps of one event) ----
    #[test]
    fn bad_values_are_refused_with_their_field() {
        let field = |c: PieConfig| c.validate().unwrap_err().0;
        let d = PieConfig::default;
        assert_eq!(
            field(PieConfig {
                pi: PiKnobs {
                    tupdate: Some(SimTime(1)),
                    ..PiKnobs::default()
                },
                ..d()
            }),
            "tupdate"
        );
        assert_eq!(
            field(PieConfig {
                pi: PiKnobs {
                    target: Some(SimTime::ZERO),
                    ..PiKnobs::default()
                },
                ..d()
            }),
            "target"
        );
        assert_eq!(
            field(PieConfig {
                pi: PiKnobs {
                    alpha: Some(-0.1),
                    ..PiKnobs::default()
                },
                ..d()
            }),
            "alpha"
        );
        assert_eq!(
            field(PieConfig {
                pi: PiKnobs {
                    beta: Some(f64::NAN),
                    ..PiKnobs::default()
                },
                ..d()
            }),
            "beta"
        );
        assert_eq!(
            field(PieConfig {
                mean_pktsize: Some(Bytes(0)),
                ..d()
            }),
            "mean_pktsize"
        );
        assert!(PieConfig {
            pi: PiKnobs {
                tupdate: Some(SimTime::from_micros(1)),
                ..PiKnobs::default()
            },
            ..d()
        }
        .validate()
        .is_ok());
    }

    fn pie(preset: AqmPreset) -> Pie {
        Pie::new(&PieConfig {
            preset,
            ..Default::default()
        })
    }

    // ---- the probability update follows RFC 8033 section 4.2 ----
    #[test]
    fn update_follows_rfc8033() {
        let mut q = pie(AqmPreset::Linux);
        // drop_prob 0.05 (< 0.1: step halved), qdelay 25 ms, old 20 ms, target 15 ms
        q.set_state(0.05, 0.025, 0.020);
        q.update();
        let want = 0.05 + (0.125 * (0.025 - 0.015) + 1.25 * (0.025 - 0.020)) / 2.0;
        assert!((q.drop_prob - want).abs() < 1e-12, "{}", q.drop_prob);
        // tiny probabilities move in tiny steps
        q.set_state(0.0, 0.025, 0.020);
        q.update();
        let want = (0.125 * 0.010 + 1.25 * 0.005) / 2048.0;
        assert!((q.drop_prob - want).abs() < 1e-15);
        // above 0.1 the increase is capped at 2 %
        q.set_state(0.3, 0.5, 0.1);
        q.update();
        assert!((q.drop_prob - 0.32).abs() < 1e-12);
        // decay when the queue stays empty
        q.set_state(0.5, 0.0, 0.0);
        q.update();
        let want = (0.5 + pie_step(&q.params, 0.5, 0.0, 0.0)) * 0.98;
        assert!((q.drop_prob - want).abs() < 1e-12);
        // never negative
        q.set_state(0.0001, 0.0, 0.05);
        q.update();
        assert!(q.drop_prob >= 0.0);
    }

    #[test]
    fn presets_take_their_sources_defaults() {
        let l = pie(AqmPreset::Linux);
        let n = pie(AqmPreset::Ns3);
        // RFC 8033 / sch_pie and ns-3.44 PieQueueDisc (QueueDelayReference, Tupdate): 15 ms both
        for q in [&l, &n] {
            assert_eq!(
                (q.params.pi.target, q.params.pi.tupdate),
                (0.015, SimTime::from_secs_f64(0.015))
            );
        }
        assert_eq!((l.params.mean_pktsize, n.params.mean_pktsize), (1500, 1000));
        assert_eq!(
            configured_limit(&PieConfig::default()),
            QueueLimit::Packets(1000)
        );
        assert_eq!(
            configured_limit(&PieConfig {
                preset: AqmPreset::Ns3,
                ..Default::default()
            }),
            QueueLimit::Packets(25)
        );
        // Linux starts with the whole allowance, ns-3 with none until the first enqueue
        assert_eq!(l.burst_allowance, SimTime::from_secs_f64(0.150));
        assert_eq!(n.burst_allowance, SimTime::ZERO);
    }

    fn ctx_enqueue(q: &mut Pie, now: SimTime, size: u32) -> bool {
        let mut rng: crate::rng::LazyRng = crate::rng::stream(1, "pie-test").into();
        let mut drops = Vec::new();
        let mut cx = QueueCtx::new(
            now,
            &mut rng,
            crate::units::Rate(2_000_000),
            true,
            &mut drops,
        );
        let pkt = Packet {
            size,
            payload: size,
            enqueued: now,
            ..Packet::default()
        };
        q.enqueue(pkt, &mut cx);
        drops.is_empty()
    }

    // ---- ns-3's burst allowance: armed by the first enqueue, probability held at 0 ----
    #[test]
    fn ns3_holds_probability_at_zero_while_the_burst_allowance_lasts() {
        let mut n = pie(AqmPreset::Ns3);
        assert!(ctx_enqueue(&mut n, SimTime(0), 1000));
        assert_eq!(n.burst_allowance, SimTime::from_secs_f64(0.150));
        assert_eq!(n.burst_state, BurstState::InBurstProtecting);
        // a standing 50 ms delay: 150 ms / 15 ms = 10 updates at probability 0, then it rises
        for k in 0..10 {
            n.set_state(n.drop_prob, 0.050, 0.050);
            n.update();
            assert_eq!(n.drop_prob, 0.0, "update {k}");
        }
        assert_eq!(n.burst_allowance, SimTime::ZERO);
        n.set_state(n.drop_prob, 0.050, 0.050);
        n.update();
        let want = (0.125 * (0.050 - 0.015)) / 2048.0;
        assert!((n.drop_prob - want).abs() < 1e-15, "{}", n.drop_prob);
        // Linux (RFC 8033) computes the probability during the allowance
        let mut l = pie(AqmPreset::Linux);
        l.set_state(0.0, 0.050, 0.050);
        l.update();
        assert!((l.drop_prob - want).abs() < 1e-15);
    }

    #[test]
    fn ns3_rearms_the_allowance_after_1_5_s_of_calm() {
        let mut n = pie(AqmPreset::Ns3);
        assert!(ctx_enqueue(&mut n, SimTime(0), 1000));
        for _ in 0..9 {
            n.update(); // delays 0: calm, but the allowance lasts
        }
        assert_eq!(n.burst_state, BurstState::InBurstProtecting);
        // the 10th uses it up and, calm, moves to IN_BURST; then 1.5 s / 15 ms = 100 calm
        // updates are not enough, the 101st returns to NO_BURST (burstReset > burstResetLimit)
        n.update();
        assert_eq!(n.burst_allowance, SimTime::ZERO);
        assert_eq!(n.burst_state, BurstState::InBurst);
        for _ in 0..100 {
            n.update();
        }
        assert_eq!(n.burst_state, BurstState::InBurst);
        // a busy update restarts the count
        n.set_state(0.0, 0.050, 0.0);
        n.update();
        assert_eq!((n.burst_state, n.burst_reset), (BurstState::InBurst, 0));
        n.set_state(0.0, 0.0, 0.0);
        for _ in 0..101 {
            n.update();
        }
        assert_eq!(n.burst_state, BurstState::NoBurst);
        assert!(ctx_enqueue(&mut n, SimTime(0), 1000));
        assert_eq!(n.burst_allowance, SimTime::from_secs_f64(0.150));
    }

    #[test]
    fn ns3_work_conserving_test_counts_packets_with_a_packet_limit() {
        for (preset, accepted) in [(AqmPreset::Ns3, 3), (AqmPreset::Linux, 2)] {
            let mut q = Pie::new(&PieConfig {
                preset,
                limit: Some(QueueLimit::Packets(25)),
                mean_pktsize: Some(Bytes(1000)),
                ..Default::default()
            });
            // no allowance (ns-3: past the protecting state), probability 1, delays high
            q.burst_allowance = SimTime::ZERO;
            q.burst_state = BurstState::InBurst;
            q.set_state(1.0, 0.1, 0.1);
            let mut n = 0;
            while ctx_enqueue(&mut q, SimTime(0), 1500) {
                n += 1;
            }
            // ns-3: no drop while at most 2 packets wait; RFC/Linux: at most 2 x 1000 bytes
            assert_eq!(n, accepted, "{preset:?}");
        }
    }

    // ---- departure-rate estimator (RFC 8033 section 4.3, ns-3 UseDequeueRateEstimator) ----
    fn ctx_dequeue(q: &mut Pie, now: SimTime) -> Option<Packet> {
        let mut rng: crate::rng::LazyRng = crate::rng::stream(1, "pie-test").into();
        let mut drops = Vec::new();
        let mut cx = QueueCtx::new(
            now,
            &mut rng,
            crate::units::Rate(10_000_000),
            true,
            &mut drops,
        );
        q.dequeue(&mut cx)
    }

    #[test]
    fn dq_rate_estimator_is_off_by_default_and_validated() {
        assert!(!pie(AqmPreset::Linux).params.dq_rate_estimator);
        assert!(!pie(AqmPreset::Ns3).params.dq_rate_estimator);
        assert_eq!(pie(AqmPreset::Ns3).params.dq_threshold, 16384);
        let bad = super::super::QueueConfig::Pie(PieConfig {
            dq_threshold: Some(Bytes(0)),
            ..Default::default()
        });
        let (field, why) = bad.validate().unwrap_err();
        assert_eq!(field, "dq_threshold");
        assert!(why.contains("16384B"), "{why}");
    }

    #[test]
    fn dq_rate_estimate_is_the_link_rate_on_a_saturated_queue() {
        let mut q = Pie::new(&PieConfig {
            preset: AqmPreset::Linux,
            dq_rate_estimator: Some(true),
            max_burst: Some(SimTime::from_secs(1000)), // no random drop in this test
            ..Default::default()
        });
        for _ in 0..200 {
            assert!(ctx_enqueue(&mut q, SimTime::ZERO, 1000));
        }
        // a 10 Mb/s link: one 1000-B packet every 800 us, 1.25e6 B/s
        let link = 1.25e6;
        let step = |q: &mut Pie, k: u64| {
            ctx_dequeue(q, SimTime::from_micros(800 * k)).expect("backlogged");
        };
        // first cycle: starts at the first dequeue, which it counts: 17 packets (>= 16384 B)
        // over 16 intervals, 17/16 of the link rate (ns-3 and Linux count the same way)
        for k in 0..=16 {
            step(&mut q, k);
        }
        assert!(
            (q.avg_dq_rate - link * 17.0 / 16.0).abs() < 1e-6,
            "{}",
            q.avg_dq_rate
        );
        // later cycles restart at the closing dequeue: 17 packets over 17 intervals, exact;
        // the average (weight 1/2) halves its error each cycle
        for k in 17..=(16 + 17 * 8) {
            step(&mut q, k);
        }
        let err = (link / 16.0) / 256.0;
        assert!(
            (q.avg_dq_rate - link - err).abs() < 1e-6,
            "{}",
            q.avg_dq_rate
        );
        // the delay estimate is the backlog over the rate
        q.update();
        assert!((q.qdelay - q.bytes as f64 / q.avg_dq_rate).abs() < 1e-15);
        assert!(q.qdelay > 0.0);
    }

    // ---- under a standing queue the probability rises and packets are dropped ----
    #[test]
    fn standing_queue_raises_probability() {
        use super::super::harness::Harness;
        use crate::units::Rate;
        let mut h = Harness::new(Box::new(pie(AqmPreset::Linux)), Rate(10_000_000));
        // 2 arrivals per ms, 1 departure per ms: the queue builds up
        for i in 0..2000u64 {
            let now = SimTime::from_secs_f64(i as f64 / 1000.0);
            for _ in 0..2 {
                let p = h.packet(0, 1000);
                h.enqueue(now, p);
            }
            h.dequeue(now);
        }
        assert!(h.dropped.iter().any(|(_, r)| *r == DropReason::Pie));
    }
}
