//! REM, Random Exponential Marking: Athuraliya, Low, Li & Yin, "REM: Active Queue Management",
//! IEEE Network 15(3), May/June 2001 (section "The REM algorithm": the price update (1) and the
//! marking probability (2)), as ns-2.35 implements it (`queue/rem.cc`, `REMQueue::enque`,
//! `deque`, `run_updaterule`; defaults from `tcl/lib/ns-default.tcl` `Queue/REM`).
//!
//! * Every `update_interval` (ns-2 `pupdtime_`, a timer started when the queue is made and
//!   re-armed at each expiry, so the k-th update falls at the double sum of k intervals):
//!   `in_avg = (1 - inw) in_avg + inw x in` with `in` the arrivals since the last update
//!   (packets, or bytes / mean_pktsize with `queue_in_bytes`), then the price
//!   `pl = max(0, pl + gamma (in_avg + 0.1 (q - pbo) - c))` where q is the backlog in packets
//!   (bytes / mean_pktsize) and `c = update_interval x rate / (8 mean_pktsize)` the packets the
//!   link can send in one interval (ns-2 `p_ptc` from the link's bandwidth); then
//!   `prob = 1 - phi^(-pl)`, and the arrival count restarts.
//! * Arrival (`enque`): every arrival counts towards `in` (dropped ones too). The packet is
//!   added, and if the queue then holds `limit` or more (`qlen >= qlim`, counting the arrival)
//!   it is dropped (forced, `queue_full`): the queue holds at most limit - 1 packets. Otherwise,
//!   without ECN (`markpkts_` false), it is dropped with probability prob (`u <= prob`; with
//!   `queue_in_bytes`, prob x size / mean_pktsize), reported as `rem`.
//! * Departure (`deque`): with ECN (`markpkts_` true) the leaving packet is marked CE with
//!   probability prob if it is ECN-capable (a non-ECN packet leaves unmarked: REM never drops
//!   early in this mode). ns-2 draws its uniform at every `deque` call, also when the queue is
//!   empty, and at every arrival it does not force-drop in drop mode: under ns-2's shared RNG
//!   (`ns2_default_rng`) the draws are made there, so they interleave with the other draws as
//!   in ns-2.
//!
//! The queue changes only at arrivals and departures, so the periodic updates due by an event
//! are applied when it happens (an update at the very instant of an arrival or departure runs
//! first), each with the queue the interval ended with: the same values as a timer, without
//! an event per period.
//!
//! Defaults (ns-2.35 `ns-default.tcl`, printed by ns-2.35 itself: `Queue/REM set gamma_`
//! 0.001, `phi_` 1.001, `inw_` 1, `mean_pktsize_` 1000, `pupdtime_` 0.002, `pbo_` 20,
//! `markpkts_` false, `qib_` false); the limit is ns-2's `Queue set limit_ 50` packets.

use super::{DropReason, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::units::{Bytes, QueueLimit, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

// ---------------------------------------------------------------- configuration

/// REM (Athuraliya et al. 2001), as ns-2's `Queue/REM`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RemConfig {
    /// Capacity in packets (or bytes with `queue_in_bytes`); an arrival that brings the queue
    /// to the limit is dropped, as in ns-2 (`qlen >= qlim` after the enqueue). Default 50p
    /// (ns-2 `Queue limit_`).
    #[serde(default = "default_limit")]
    pub limit: QueueLimit,
    /// Price step size gamma (ns-2 `gamma_` 0.001).
    #[serde(default = "default_gamma")]
    pub gamma: f64,
    /// Base phi of the marking probability 1 - phi^(-price), > 1 (ns-2 `phi_` 1.001).
    #[serde(default = "default_phi")]
    pub phi: f64,
    /// Weight of the newest interval's arrivals in the averaged input rate, in (0, 1] (ns-2
    /// `inw_` 1: no averaging).
    #[serde(default = "default_inw")]
    pub inw: f64,
    /// Target backlog b* in packets: the price rises while the queue stays above it (ns-2
    /// `pbo_` 20).
    #[serde(default = "default_pbo")]
    pub pbo: f64,
    /// Price update period (ns-2 `pupdtime_` 0.002 s). At least 1 us.
    #[serde(default = "default_update_interval")]
    pub update_interval: SimTime,
    /// Mean packet size: the link's packets per interval, and the unit of byte queues (ns-2
    /// `mean_pktsize_` 1000).
    #[serde(default = "default_mean_pktsize")]
    pub mean_pktsize: Bytes,
    /// Measure arrivals and the backlog in bytes / mean_pktsize (ns-2 `qib_`, default false).
    #[serde(default)]
    pub queue_in_bytes: bool,
    /// Mark ECN-capable packets at departure instead of dropping at arrival (ns-2
    /// `markpkts_`, default false).
    #[serde(default)]
    pub ecn: bool,
}

fn default_limit() -> QueueLimit {
    QueueLimit::Packets(50)
}
fn default_gamma() -> f64 {
    0.001
}
fn default_phi() -> f64 {
    1.001
}
fn default_inw() -> f64 {
    1.0
}
fn default_pbo() -> f64 {
    20.0
}
fn default_update_interval() -> SimTime {
    SimTime::from_secs_f64(0.002)
}
fn default_mean_pktsize() -> Bytes {
    Bytes(1000)
}

impl Default for RemConfig {
    fn default() -> Self {
        Self {
            limit: default_limit(),
            gamma: default_gamma(),
            phi: default_phi(),
            inw: default_inw(),
            pbo: default_pbo(),
            update_interval: default_update_interval(),
            mean_pktsize: default_mean_pktsize(),
            queue_in_bytes: false,
            ecn: false,
        }
    }
}

impl RemConfig {
    /// Checks values serde cannot: (field relative to the queue, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        for (field, v) in [("gamma", self.gamma), ("pbo", self.pbo)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err((
                    field.into(),
                    format!("{v}: give a finite value >= 0 (ns-2 defaults gamma 0.001, pbo 20)"),
                ));
            }
        }
        if !(self.phi.is_finite() && self.phi > 1.0) {
            return Err((
                "phi".into(),
                format!(
                    "{}: give a base > 1, or the probability never rises (ns-2 default 1.001)",
                    self.phi
                ),
            ));
        }
        if !(self.inw.is_finite() && self.inw > 0.0 && self.inw <= 1.0) {
            return Err((
                "inw".into(),
                format!("{}: give a weight in (0, 1] (ns-2 default 1)", self.inw),
            ));
        }
        if self.update_interval < super::MIN_UPDATE_INTERVAL {
            return Err((
                "update_interval".into(),
                "give at least 1us (ns-2 default 2ms)".into(),
            ));
        }
        if self.mean_pktsize.0 == 0 {
            return Err((
                "mean_pktsize".into(),
                "must be at least 1B (ns-2 default 1000B)".into(),
            ));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- the discipline

pub struct Rem {
    cfg: RemConfig,
    q: VecDeque<Packet>,
    bytes: u64,
    /// The price (ns-2 `v_pl`).
    price: f64,
    /// The marking / dropping probability 1 - phi^(-price) (ns-2 `prob_`).
    prob: f64,
    /// The averaged input per interval (ns-2 `v_ave`).
    in_avg: f64,
    /// Arrivals since the last update, packets or bytes (ns-2 `v_count`).
    count: f64,
    /// When the next update falls, in seconds: the timer's double sum of intervals.
    next_update: f64,
    /// The interval in seconds.
    interval: f64,
    /// The link's rate as the last packet event saw it (for `probability_at`).
    rate_bps: f64,
    /// ns-2's `curq_`: the queue after the last arrival or departure (packets, or bytes).
    curq: u64,
}

impl Rem {
    pub fn new(cfg: &RemConfig) -> Self {
        let interval = cfg.update_interval.as_secs_f64();
        Self {
            cfg: cfg.clone(),
            q: VecDeque::new(),
            bytes: 0,
            price: 0.0,
            prob: 0.0,
            in_avg: 0.0,
            count: 0.0,
            next_update: interval,
            interval,
            rate_bps: 0.0,
            curq: 0,
        }
    }

    /// The backlog the price sees: packets, or bytes / mean_pktsize.
    fn backlog(&self) -> f64 {
        if self.cfg.queue_in_bytes {
            self.bytes as f64 / self.cfg.mean_pktsize.0 as f64
        } else {
            self.q.len() as f64
        }
    }

    /// One price update (`run_updaterule`) on a link of `rate_bps`: (price, in_avg) after an
    /// interval that saw `count` arrivals and ends with the queue as it is.
    fn step(&self, price: f64, in_avg: f64, count: f64, rate_bps: f64) -> (f64, f64) {
        let mean = self.cfg.mean_pktsize.0 as f64;
        let input = if self.cfg.queue_in_bytes {
            count / mean
        } else {
            count
        };
        let mut avg = in_avg * (1.0 - self.cfg.inw);
        avg += self.cfg.inw * input;
        // packets the link can send in one interval (ns-2 p_ptc = bandwidth / (8 pktsize))
        let c = self.interval * (rate_bps / (8.0 * mean));
        let pl = price + self.cfg.gamma * (avg + 0.1 * (self.backlog() - self.cfg.pbo) - c);
        (pl.max(0.0), avg)
    }

    /// Runs the updates due by `now_s` (the event's time in seconds).
    fn catch_up(&mut self, now_s: f64, rate_bps: f64) {
        self.rate_bps = rate_bps;
        while self.next_update <= now_s {
            (self.price, self.in_avg) = self.step(self.price, self.in_avg, self.count, rate_bps);
            self.prob = 1.0 - self.cfg.phi.powf(-self.price);
            self.count = 0.0;
            self.next_update += self.interval;
        }
    }

    fn now_s(cx: &QueueCtx) -> f64 {
        cx.ns2_now_s.unwrap_or_else(|| cx.now.as_secs_f64())
    }

    /// The queue in ns-2's `curq_` unit: packets, or bytes in `queue_in_bytes` mode.
    fn raw_len(&self) -> u64 {
        if self.cfg.queue_in_bytes {
            self.bytes
        } else {
            self.q.len() as u64
        }
    }

    /// The probability scaled to the packet's size in byte mode (ns-2 `pro`).
    fn scaled(&self, size: u32) -> f64 {
        if self.cfg.queue_in_bytes {
            self.prob * size as f64 / self.cfg.mean_pktsize.0 as f64
        } else {
            self.prob
        }
    }

    /// The current marking / dropping probability (for tests and series).
    pub fn probability(&self) -> f64 {
        self.prob
    }

    /// The current price (for tests).
    pub fn price(&self) -> f64 {
        self.price
    }
}

impl QueueDisc for Rem {
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        self.catch_up(Self::now_s(cx), cx.link_rate.0 as f64);
        self.count += if self.cfg.queue_in_bytes {
            pkt.size as f64
        } else {
            1.0
        };
        let size = pkt.size as u64;
        let full = match self.cfg.limit {
            QueueLimit::Packets(n) => self.q.len() as u64 + 1 >= n,
            // ns-2 byte queues: bcount_ >= qlim_ x mean_pktsize (the limit is given in bytes)
            QueueLimit::Bytes(b) => self.bytes + size >= b,
        };
        if full {
            cx.drop(pkt, DropReason::QueueFull);
        } else if self.cfg.ecn {
            self.bytes += size;
            self.q.push_back(pkt);
        } else {
            let p = self.scaled(pkt.size);
            // ns-2 draws at every arrival it does not force-drop (its default RNG moves)
            let draw = p > 0.0 || cx.rng().is_ns2_default();
            if draw && cx.rng().uniform01() <= p {
                cx.drop(pkt, DropReason::Rem);
            } else {
                self.bytes += size;
                self.q.push_back(pkt);
            }
        }
        self.curq = self.raw_len();
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        self.catch_up(Self::now_s(cx), cx.link_rate.0 as f64);
        let mut pkt = self.q.pop_front();
        if let Some(p) = &pkt {
            self.bytes -= p.size as u64;
        }
        if self.cfg.ecn {
            // ns-2 deque: the uniform is drawn at every call, packet or not
            let draw = pkt.is_some() && self.prob > 0.0 || cx.rng().is_ns2_default();
            let u = if draw { cx.rng().uniform01() } else { 1.0 };
            if let Some(p) = pkt.as_mut() {
                if u <= self.scaled(p.size) {
                    cx.mark(p);
                }
            }
        }
        self.curq = self.raw_len();
        pkt
    }

    /// ns-2's `prob_` at `now`: the updates due since the last packet event applied to a copy
    /// (the queue has not changed since).
    fn probability_at(&self, now: SimTime) -> Option<f64> {
        let (mut price, mut in_avg, mut count) = (self.price, self.in_avg, self.count);
        let mut next = self.next_update;
        if next > now.as_secs_f64() {
            return Some(self.prob);
        }
        while next <= now.as_secs_f64() {
            (price, in_avg) = self.step(price, in_avg, count, self.rate_bps);
            count = 0.0;
            next += self.interval;
        }
        Some(1.0 - self.cfg.phi.powf(-price))
    }

    fn arrival_length(&self) -> Option<f64> {
        Some(self.curq as f64)
    }

    fn len_packets(&self) -> usize {
        self.q.len()
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn kind(&self) -> &'static str {
        "rem"
    }
}

/// The hard limit (for the builder's check that one packet fits).
pub fn configured_limit(cfg: &RemConfig) -> QueueLimit {
    cfg.limit
}

#[cfg(test)]
#[path = "rem_tests.rs"]
mod tests;
