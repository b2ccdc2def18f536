//! DOCSIS-PIE, the AQM DOCSIS 3.1 cable modems must run on their upstream (White and Pan,
//! RFC 8034, "Active Queue Management (AQM) Based on Proportional Integral Controller
//! Enhanced (PIE) for Data-Over-Cable Service Interface Specifications (DOCSIS) Cable
//! Modems", 2017: PIE of RFC 8033 with the DOCSIS rules). The RFC's text was not readable
//! here; the rules follow CableLabs' own implementations by the RFC's authors' group: the
//! ns-2 `queue/pie.cc` with `Docsis_mode_` (Cisco and CableLabs, 2013-2014: `drop_early`,
//! `calculate_p`, `pie.h`'s constants) and the classic queue of CableLabs' ns-3 DOCSIS module
//! (`docsis-ns3` `dual-queue-coupled-aqm.cc`: `DropEarly`, `CalculateDropProb`, and its
//! attribute defaults), which agree rule for rule:
//!
//! * **Queue delay from the configured rate**: every T_UPDATE the delay is the queue's bytes
//!   over the service flow's configured rate (ns-2 `link_->expectedDelay`, docsis-ns3
//!   `QDelayCoupledC` / `qDelaySingle`), not the departure rate or the sojourn time PIE uses:
//!   a DOCSIS upstream is granted in bursts, so departures say little about the rate. Here the
//!   rate is `rate` or else the link's.
//! * **The controller** (`CalculateDropProb`): p = alpha (qdelay - target) + beta (qdelay -
//!   qdelay_old), scaled by the drop probability's magnitude (/2048 below 1e-6, /512 below
//!   1e-5, /128 below 1e-4, /32 below 1e-3, /8 below 1e-2, /2 below 0.1, x2 below 1, x8 below
//!   10, else x32), at most +0.02 once drop_prob >= 0.1; drop_prob += p; then x0.98 when
//!   both delays are below LATENCY_LOW 5 ms, +0.02 above 200 ms; drop_prob is kept in
//!   [0, PROB_LOW x MEAN_PKTSIZE / MIN_PKTSIZE] (it is a probability per mean-sized packet);
//!   held at 0 while burst allowance remains.
//! * **Bytes**: a packet's probability is drop_prob x size / MEAN_PKTSIZE, at most PROB_LOW
//!   0.85.
//! * **De-randomisation**: the packets' probabilities add up in accu_prob (reset when
//!   drop_prob is 0 and after each drop); below PROB_LOW 0.85 no drop, from PROB_HIGH 8.5 a
//!   certain drop, between them a drop with the packet's probability.
//! * **Bursts**: no early drop while the queue holds less than a third of its buffer
//!   (NO_BURST); above that (IN_BURST) the first early drop grants MAX_BURST 142 ms of
//!   allowance (IN_BURST_PROTECTING), used up by T_UPDATE per update; after it, updates with
//!   drop_prob 0 and both delays below target / 2 return to IN_BURST, and more than
//!   BURST_RESET_TIMEOUT / T_UPDATE of them in a row to NO_BURST.
//! * As PIE: no early drop while qdelay_old < target / 2 and drop_prob < 0.2, or while at
//!   most 2 x MEAN_PKTSIZE bytes wait. No ECN ("No ECN in DOCSIS mode (per DOCSIS std)",
//!   ns-2 `pie.cc`).
//!
//! Defaults (docsis-ns3 attributes; ns-2 `pie.h`): target 10 ms (`ClassicAqmLatencyTarget`),
//! T_UPDATE 16 ms (`Interval`), alpha 0.25 and beta 2.5 per second (`A`, `B`), MAX_BURST 142
//! ms (`MaxBurstAllowance`), MEAN_PKTSIZE 1024 B (`MeanPktSize`), PROB_LOW 0.85 and PROB_HIGH
//! 8.5, MIN_PKTSIZE 64 B, LATENCY_LOW 5 ms, BURST_RESET_TIMEOUT 1 s (`BurstResetTimeout`; the
//! 2013 ns-2 code has 1.5 s). The buffer: 100 ms at the rate (the DOCSIS default target buffer,
//! docsis-ns3 `CLASSIC_TARGET_BUFFER`, MULPI C.1.2.17), sized from the link's rate at the first
//! packet unless `limit` says otherwise. Updates run lazily at the first queue event at or after
//! each due time, as PIE's do.

use super::shared_config::{refuse_unknown, PiDefaults, PiGains, PiKnobs, UnknownKeys};
use super::{DropReason, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::units::{Bytes, QueueLimit, Rate, SimTime};
use rand::RngExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// DOCSIS-PIE's controller defaults (docsis-ns3 `ClassicAqmLatencyTarget`, `Interval`, `A`,
/// `B`).
pub const DOCSIS_PIE_DEFAULTS: PiDefaults = PiDefaults {
    source: "DOCSIS-PIE, RFC 8034",
    target_text: "10ms",
    tupdate_text: "16ms",
    target: 0.010,
    tupdate: SimTime::from_millis(16),
    alpha: 0.25,
    beta: 2.5,
};
/// `PROB_LOW`, `PROB_HIGH`: the de-randomisation's bounds.
const PROB_LOW: f64 = 0.85;
const PROB_HIGH: f64 = 8.5;
/// `MIN_PKTSIZE` 64 B: caps drop_prob at PROB_LOW x MEAN_PKTSIZE / MIN_PKTSIZE.
const MIN_PKTSIZE: f64 = 64.0;
/// `LATENCY_LOW` 5 ms: below it twice in a row, drop_prob decays by 2 %.
const LATENCY_LOW: f64 = 0.005;
/// The default buffer, in seconds at the rate (docsis-ns3 `CLASSIC_TARGET_BUFFER`).
const DEFAULT_BUFFER_S: f64 = 0.100;

/// DOCSIS-PIE (RFC 8034).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct DocsisPieConfig {
    /// The buffer (default: 100 ms at the rate, the DOCSIS default target buffer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<QueueLimit>,
    /// target, tupdate, alpha and beta, as PIE's; defaults [`DOCSIS_PIE_DEFAULTS`] (10 ms,
    /// 16 ms, 0.25, 2.5).
    #[serde(flatten)]
    pub pi: PiKnobs,
    /// MAX_BURST (default 142 ms, docsis-ns3 `MaxBurstAllowance`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_burst: Option<SimTime>,
    /// MEAN_PKTSIZE (default 1024 B, docsis-ns3 `MeanPktSize`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_pktsize: Option<Bytes>,
    /// The service flow's configured rate the queue delay is computed from (default: the
    /// link's rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Calm time before a new burst allowance can be granted (default 1 s, docsis-ns3
    /// `BurstResetTimeout`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_reset_timeout: Option<SimTime>,
    /// Keys no field took, refused by `validate`.
    #[serde(flatten, skip_serializing)]
    #[schemars(skip)]
    pub unknown: UnknownKeys,
}

impl DocsisPieConfig {
    /// Checks values serde cannot: (field relative to the queue, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        refuse_unknown(
            &self.unknown,
            &[
                &["limit"],
                PiKnobs::FIELDS,
                &["max_burst", "mean_pktsize", "rate", "burst_reset_timeout"],
            ],
        )?;
        self.pi.validate(&DOCSIS_PIE_DEFAULTS)?;
        if self.mean_pktsize.is_some_and(|b| b.0 == 0) {
            return Err((
                "mean_pktsize".into(),
                "must be at least 1B (DOCSIS-PIE: 1024B)".into(),
            ));
        }
        if self.rate.is_some_and(|r| r.0 == 0) {
            return Err((
                "rate".into(),
                "must be positive, e.g. \"20Mbps\" (or leave it out for the link's rate)".into(),
            ));
        }
        Ok(())
    }
}

/// The limit checked before the network is built. The default is sized from the link's rate
/// at the first packet; before that it is counted as its largest, 100 ms at 100 Gbit/s (it
/// holds a packet at any rate above 120 kbit/s, and says the discipline counts bytes).
pub fn configured_limit(cfg: &DocsisPieConfig) -> QueueLimit {
    cfg.limit.unwrap_or(QueueLimit::Bytes(1_250_000_000))
}

/// Burst states (ns-2 and docsis-ns3 `burst_state_`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum BurstState {
    NoBurst,
    InBurst,
    InBurstProtecting,
}

/// `CalculateDropProb`'s scaling of the step by the drop probability's magnitude.
fn scaled_step(step: f64, drop_prob: f64) -> f64 {
    let div = [
        (1e-6, 2048.0),
        (1e-5, 512.0),
        (1e-4, 128.0),
        (1e-3, 32.0),
        (1e-2, 8.0),
        (0.1, 2.0),
        (1.0, 0.5),
        (10.0, 0.125),
    ]
    .iter()
    .find(|(below, _)| drop_prob < *below)
    .map_or(0.03125, |&(_, d)| d);
    let p = step / div;
    if drop_prob >= 0.1 && p > 0.02 {
        0.02
    } else {
        p
    }
}

pub struct DocsisPie {
    q: VecDeque<Packet>,
    bytes: u64,
    /// None until sized from the link's rate.
    limit: Option<QueueLimit>,
    pi: PiGains,
    max_burst: SimTime,
    mean_pktsize: f64,
    rate: Option<Rate>,
    burst_reset_limit: u64,
    pub drop_prob: f64,
    accu_prob: f64,
    qdelay_old: f64,
    burst_allowance: SimTime,
    burst_state: BurstState,
    burst_reset: u64,
    next_update: SimTime,
}

impl DocsisPie {
    pub fn new(cfg: &DocsisPieConfig) -> Self {
        let pi = cfg.pi.gains(&DOCSIS_PIE_DEFAULTS);
        let reset = cfg
            .burst_reset_timeout
            .unwrap_or(SimTime::from_secs(1))
            .as_secs_f64();
        Self {
            q: VecDeque::new(),
            bytes: 0,
            limit: cfg.limit,
            max_burst: cfg.max_burst.unwrap_or(SimTime::from_millis(142)),
            mean_pktsize: cfg.mean_pktsize.map_or(1024.0, |b| b.0 as f64),
            rate: cfg.rate,
            // `burstResetLimit = BurstResetTimeout / Interval`, truncated
            burst_reset_limit: (reset / pi.tupdate.as_secs_f64()) as u64,
            next_update: pi.tupdate,
            pi,
            drop_prob: 0.0,
            accu_prob: 0.0,
            qdelay_old: 0.0,
            burst_allowance: SimTime::ZERO,
            burst_state: BurstState::NoBurst,
            burst_reset: 0,
        }
    }

    fn rate_bps(&self, cx: &QueueCtx) -> f64 {
        self.rate.unwrap_or(cx.link_rate).0 as f64
    }

    /// `CalculateDropProb`: one T_UPDATE step, with the queue delay at the service rate.
    fn update(&mut self, rate_bps: f64) {
        let qdelay = self.bytes as f64 * 8.0 / rate_bps;
        let (target, old) = (self.pi.target, self.qdelay_old);
        if self.burst_allowance > SimTime::ZERO {
            self.drop_prob = 0.0;
        } else {
            let mut p = self.drop_prob + scaled_step(self.pi.step(qdelay, old), self.drop_prob);
            if qdelay < LATENCY_LOW && old < LATENCY_LOW {
                p *= 0.98;
            } else if qdelay > 0.2 {
                p += 0.02;
            }
            self.drop_prob = p.max(0.0).min(PROB_LOW * self.mean_pktsize / MIN_PKTSIZE);
        }
        self.burst_allowance = self.burst_allowance.saturating_sub(self.pi.tupdate);
        let calm = qdelay < 0.5 * target
            && old < 0.5 * target
            && self.drop_prob == 0.0
            && self.burst_allowance == SimTime::ZERO;
        match self.burst_state {
            BurstState::InBurstProtecting if calm => {
                self.burst_state = BurstState::InBurst;
                self.burst_reset = 0;
            }
            BurstState::InBurst if calm => {
                self.burst_reset += 1;
                if self.burst_reset > self.burst_reset_limit {
                    self.burst_reset = 0;
                    self.burst_state = BurstState::NoBurst;
                }
            }
            BurstState::InBurst => self.burst_reset = 0,
            _ => {}
        }
        self.qdelay_old = qdelay;
    }

    fn catch_up(&mut self, cx: &QueueCtx) {
        let rate = self.rate_bps(cx);
        if self.limit.is_none() {
            let bytes = (rate * DEFAULT_BUFFER_S / 8.0).round() as u64;
            self.limit = Some(QueueLimit::Bytes(bytes));
        }
        while cx.now >= self.next_update {
            self.update(rate);
            self.next_update = self.next_update + self.pi.tupdate;
        }
    }

    /// `DropEarly`: whether this packet goes. `uniform` is drawn where docsis-ns3 draws its
    /// uniform: once the packet is tested (after the allowance and the third-of-buffer checks).
    fn drop_early(&mut self, size: u32, limit_bytes: f64, uniform: impl FnOnce() -> f64) -> bool {
        if self.burst_allowance > SimTime::ZERO {
            return false;
        }
        if self.drop_prob == 0.0 {
            self.accu_prob = 0.0;
        }
        if self.burst_state == BurstState::NoBurst {
            if (self.bytes as f64) < limit_bytes / 3.0 {
                return false;
            }
            self.burst_state = BurstState::InBurst;
        }
        let p = (self.drop_prob * size as f64 / self.mean_pktsize).min(PROB_LOW);
        self.accu_prob += p;
        let u = uniform();
        if self.qdelay_old < 0.5 * self.pi.target && self.drop_prob < 0.2 {
            return false;
        }
        if self.bytes as f64 <= 2.0 * self.mean_pktsize {
            return false;
        }
        let drop = if self.accu_prob < PROB_LOW {
            false // "avoid dropping too fast due to bad luck of coin tosses"
        } else if self.accu_prob >= PROB_HIGH {
            true // "avoid dropping too slow"
        } else {
            u <= p
        };
        if drop {
            self.accu_prob = 0.0;
            if self.burst_state == BurstState::InBurst {
                self.burst_state = BurstState::InBurstProtecting;
                self.burst_allowance = self.max_burst;
            }
        }
        drop
    }
}

impl QueueDisc for DocsisPie {
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        self.catch_up(cx);
        let limit = self.limit.expect("sized by catch_up");
        let (full, limit_bytes) = match limit {
            QueueLimit::Packets(l) => (self.q.len() as u64 + 1 > l, l as f64 * self.mean_pktsize),
            QueueLimit::Bytes(l) => (self.bytes + pkt.size as u64 > l, l as f64),
        };
        if full {
            cx.drop(pkt, DropReason::QueueFull);
            return;
        }
        if self.drop_early(pkt.size, limit_bytes, || cx.rng().random()) {
            cx.drop(pkt, DropReason::Pie);
            return;
        }
        self.bytes += pkt.size as u64;
        self.q.push_back(pkt);
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        self.catch_up(cx);
        let p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }

    fn len_packets(&self) -> usize {
        self.q.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn kind(&self) -> &'static str {
        "docsis_pie"
    }
    fn resolved_settings(&self, rate_bps: f64) -> Option<serde_json::Value> {
        let rate = self.rate.map_or(rate_bps, |r| r.0 as f64);
        let limit = self.limit.unwrap_or(QueueLimit::Bytes(
            (rate * DEFAULT_BUFFER_S / 8.0).round() as u64,
        ));
        Some(serde_json::json!({
            "limit": limit.to_string(),
            "target_s": self.pi.target,
            "tupdate_s": self.pi.tupdate.as_secs_f64(),
            "alpha": self.pi.alpha,
            "beta": self.pi.beta,
            "max_burst_s": self.max_burst.as_secs_f64(),
            "mean_pktsize_bytes": self.mean_pktsize,
            "rate_bps": rate,
            "burst_reset_updates": self.burst_reset_limit,
        }))
    }
}

#[cfg(test)]
#[path = "docsis_pie_tests.rs"]
mod tests;
