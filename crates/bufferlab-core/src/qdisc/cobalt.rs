//! COBALT as a discipline: one FIFO whose packets pass COBALT's CoDel-and-BLUE test as they
//! leave ([`CobaltVars`](super::cobalt_vars), which cites the rules). Two presets, as the two
//! sources run it:
//!
//! * `linux`: Linux `net/sched/sch_cake.c` with one tin and one flow queue (what
//!   `tc qdisc add ... cake besteffort flowblind bandwidth <link rate>` builds), its
//!   bandwidth the link's rate:
//!   * `cake_set_rate` tunes the parameters to the rate: `mtu_time` is one 1514-byte packet
//!     (`psched_mtu` of an Ethernet device) at the rate, target = max(target, 1.5 mtu_time),
//!     interval = max(interval + target - configured target, 2 target); BLUE's steps are
//!     `1 << 24` and `1 << 20` in 0.32 fixed point (1/256, 1/4096);
//!   * the buffer (`cake_reconfigure`): 4 intervals of the rate, at least 4 MiB, at most
//!     10240 MTUs (`sch->limit * psched_mtu`), counted here in packet bytes (Linux counts
//!     `skb->truesize`, the kernel's allocation, which the simulator has not);
//!   * on overflow the head of the queue is dropped (`cake_drop`: the fattest flow's head) and
//!     `cobalt_queue_full` runs, once per packet dropped, until the buffer fits;
//!   * ECN-capable packets are always marked instead of CoDel's drops (`INET_ECN_set_ce`);
//!   * "Last packet in queue may be marked, shouldn't be dropped" (`cake_dequeue`): a packet
//!     COBALT would drop is delivered when the queue is empty behind it;
//!   * `cobalt_queue_empty` never runs: `cake_dequeue` returns at once when the qdisc holds no
//!     packet (`if (!sch->q.qlen) return NULL`), and with one flow queue its flow is never
//!     found empty while others hold packets. So BLUE's probability never falls and the count
//!     only decays in `cobalt_should_drop`.
//! * `ns3`: ns-3.44 `CobaltQueueDisc` (`cobalt-queue-disc.cc`): attributes Target 5 ms,
//!   Interval 100 ms, UseEcn false, Increment 1/256, Decrement 1/4096 (doubles), CeThreshold
//!   off, BlueThreshold 400 ms, MaxSize 1500 x DEFAULT_COBALT_LIMIT (1000) bytes;
//!   * an arriving packet that does not fit is dropped and `CobaltQueueFull` runs (`DoEnqueue`);
//!   * `DoDequeue` drops until a packet passes, even the last one, and a dequeue that finds the
//!     queue empty runs `CobaltQueueEmpty`: here inside that loop, and when the port finds the
//!     queue empty ([`QueueDisc::link_idle`], which a device queue calls as ns-3's
//!     `QueueDisc::Run` does).
//!
//! Drop reasons: `queue_full` (overflow), `codel` (CoDel's schedule, packet not ECN-capable or
//! ECN off), `blue` (BLUE's coin).

use super::cobalt_vars::{fixed_point, BlueArith, CobaltParams, CobaltVars, Verdict};
use super::shared_config::{refuse_unknown, AqmPreset, CodelKnobs, UnknownKeys};
use super::{DropReason, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::units::{QueueLimit, Rate, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

// ---------------------------------------------------------------- configuration

/// COBALT, CoDel and BLUE (Linux sch_cake's AQM, ns-3 CobaltQueueDisc).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct CobaltConfig {
    /// `linux` (sch_cake with one flow queue, tuned to the link's rate) or `ns3`
    /// (CobaltQueueDisc); docs/models/cobalt.md lists what differs.
    #[serde(default)]
    pub preset: AqmPreset,
    /// Default: linux 4 intervals of the link's rate, at least 4 MiB and at most 10240 x
    /// 1514 B (sch_cake `cake_reconfigure`); ns3 1500000 B (MaxSize, 1500 x 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<QueueLimit>,
    /// target (5 ms: sch_cake `q->target`, ns-3 Target), interval (100 ms: sch_cake `rtt`, ns-3
    /// Interval), ecn (linux true: cake always marks; ns3 false: UseEcn) and ce_threshold (ns3
    /// only, CeThreshold; off), the knobs CoDel and FQ-CoDel share.
    #[serde(flatten)]
    pub knobs: CodelKnobs,
    /// BLUE's increment of the drop probability (default 1/256: sch_cake `p_inc = 1 << 24`,
    /// ns-3 Increment).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub increment: Option<f64>,
    /// BLUE's decrement (default 1/4096: sch_cake `p_dec = 1 << 20`, ns-3 Decrement).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decrement: Option<f64>,
    /// ns3 only: a packet leaving after more than this raises BLUE's probability (default
    /// 400ms, ns-3.44 BlueThreshold).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blue_threshold: Option<SimTime>,
    /// Keys no field took, refused by `validate`.
    #[serde(flatten, skip_serializing)]
    #[schemars(skip)]
    pub unknown: UnknownKeys,
}

/// The interval the control law can take: a `u32` of nanoseconds (`reciprocal_scale`,
/// ns-3 `ReciprocalDivide`).
const MAX_INTERVAL: SimTime = SimTime(u32::MAX as u64 * 1000);
/// Linux `psched_mtu` of an Ethernet device: 1500 + 14.
pub const LINUX_MTU: u64 = 1514;
/// ns-3 `DEFAULT_COBALT_LIMIT` packets of 1500 bytes (cobalt-queue-disc.h, MaxSize).
const NS3_LIMIT: QueueLimit = QueueLimit::Bytes(1500 * 1000);
/// ns-3.44 BlueThreshold.
const NS3_BLUE_THRESHOLD: SimTime = SimTime::from_millis(400);

impl CobaltConfig {
    /// Checks values serde cannot: (field relative to the queue, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        refuse_unknown(
            &self.unknown,
            &[
                &["preset", "limit"],
                CodelKnobs::FIELDS,
                &["increment", "decrement", "blue_threshold"],
            ],
        )?;
        self.knobs.validate()?;
        if self.knobs.interval.is_some_and(|i| i > MAX_INTERVAL) {
            return Err((
                "interval".into(),
                "give at most 4.294967295s: COBALT's control law takes the interval as 32-bit \
                 nanoseconds (sch_cake reciprocal_scale, ns-3 ReciprocalDivide)"
                    .into(),
            ));
        }
        for (f, v) in [("increment", self.increment), ("decrement", self.decrement)] {
            if let Some(v) = v {
                if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                    return Err((
                        f.into(),
                        format!("{v}: give a probability step in [0, 1] (default 1/256 up, 1/4096 down)"),
                    ));
                }
            }
        }
        if self.preset == AqmPreset::Linux {
            if self.knobs.ce_threshold.is_some() {
                return Err((
                    "ce_threshold".into(),
                    "sch_cake's COBALT has no ce_threshold: not modelled in preset linux (ns-3 \
                     CobaltQueueDisc CeThreshold: preset = \"ns3\")"
                        .into(),
                ));
            }
            if self.blue_threshold.is_some() {
                return Err((
                    "blue_threshold".into(),
                    "sch_cake's COBALT has no BLUE threshold: not modelled in preset linux \
                     (ns-3 CobaltQueueDisc BlueThreshold: preset = \"ns3\")"
                        .into(),
                ));
            }
        }
        Ok(())
    }

    /// The parameters on a link of `rate` (Linux `cake_set_rate`; ns-3's attributes).
    pub fn params(&self, rate: Rate) -> CobaltParams {
        let target_ns = self
            .knobs
            .target
            .unwrap_or(SimTime::from_secs_f64(CodelKnobs::TARGET))
            .as_nanos();
        let interval_ns = self
            .knobs
            .interval
            .unwrap_or(SimTime::from_secs_f64(CodelKnobs::INTERVAL))
            .as_nanos();
        let inc = self.increment.unwrap_or(1.0 / 256.0);
        let dec = self.decrement.unwrap_or(1.0 / 4096.0);
        match self.preset {
            AqmPreset::Linux => {
                let mtu_time = linux_mtu_time_ns(rate);
                let target = (mtu_time * 3 / 2).max(target_ns);
                CobaltParams {
                    target_ns: target,
                    interval_ns: (interval_ns + target - target_ns).max(2 * target),
                    mtu_time_ns: mtu_time,
                    p_inc: fixed_point(inc),
                    p_dec: fixed_point(dec),
                    arith: BlueArith::FixedPoint,
                    ecn: self.knobs.ecn.unwrap_or(true),
                    ce_threshold_ns: None,
                    blue_threshold_ns: None,
                    blue_timer_u32: false,
                    initial_rec_inv_sqrt: 0,
                }
            }
            AqmPreset::Ns3 => CobaltParams {
                target_ns,
                interval_ns,
                mtu_time_ns: 0,
                p_inc: inc,
                p_dec: dec,
                arith: BlueArith::Double,
                ecn: self.knobs.ecn.unwrap_or(false),
                ce_threshold_ns: self.knobs.ce_threshold.map(SimTime::as_nanos),
                blue_threshold_ns: Some(
                    self.blue_threshold.unwrap_or(NS3_BLUE_THRESHOLD).as_nanos(),
                ),
                blue_timer_u32: true,
                initial_rec_inv_sqrt: u32::MAX,
            },
        }
    }

    /// The limit on a link of `rate` (see the field).
    pub fn limit_at(&self, rate: Rate) -> QueueLimit {
        if let Some(l) = self.limit {
            return l;
        }
        match self.preset {
            AqmPreset::Linux => {
                let interval_us = self
                    .knobs
                    .interval
                    .unwrap_or(SimTime::from_secs_f64(CodelKnobs::INTERVAL))
                    .as_nanos()
                    / 1000;
                // cake_reconfigure: rate_bps (bytes/s) * interval (us) / (USEC_PER_SEC / 4)
                let t = (rate.0 / 8) as u128 * interval_us as u128 / 250_000;
                let t = t.min(u32::MAX as u128) as u64;
                QueueLimit::Bytes(t.clamp(4 << 20, 10240 * LINUX_MTU))
            }
            AqmPreset::Ns3 => NS3_LIMIT,
        }
    }
}

/// The smallest limit a configuration can have on any link, to check that one packet fits.
pub fn configured_limit(cfg: &CobaltConfig) -> QueueLimit {
    cfg.limit.unwrap_or(match cfg.preset {
        AqmPreset::Linux => QueueLimit::Bytes(4 << 20),
        AqmPreset::Ns3 => NS3_LIMIT,
    })
}

/// Linux `cake_set_rate`'s `byte_target_ns`: one MTU at `rate` through its fixed-point
/// time-per-byte (`rate_ns`, `rate_shft`); the rate in bytes per second, at least 64.
pub fn linux_mtu_time_ns(rate: Rate) -> u64 {
    let bytes_per_s = (rate.0 / 8).max(64);
    let mut shift = 34u32;
    let mut rate_ns = (1_000_000_000u64 << 34) / bytes_per_s;
    while rate_ns >> 34 != 0 {
        rate_ns >>= 1;
        shift -= 1;
    }
    (LINUX_MTU * rate_ns) >> shift
}

// ---------------------------------------------------------------- the discipline

pub struct Cobalt {
    cfg: CobaltConfig,
    q: VecDeque<Packet>,
    bytes: u64,
    linux: bool,
    /// Resolved for the link's rate at the first call (Linux tunes to its bandwidth).
    tuned: Option<(CobaltParams, QueueLimit)>,
    vars: CobaltVars,
}

impl Cobalt {
    pub fn new(cfg: &CobaltConfig) -> Self {
        let linux = cfg.preset == AqmPreset::Linux;
        Self {
            cfg: cfg.clone(),
            q: VecDeque::new(),
            bytes: 0,
            linux,
            tuned: None,
            vars: CobaltVars::new(&cfg.params(Rate(1))),
        }
    }

    fn tune(&mut self, rate: Rate) -> (CobaltParams, QueueLimit) {
        *self
            .tuned
            .get_or_insert_with(|| (self.cfg.params(rate), self.cfg.limit_at(rate)))
    }

    /// Over `limit` with `extra` more packets of `extra_bytes` bytes.
    fn over(&self, limit: QueueLimit, extra: u64, extra_bytes: u64) -> bool {
        match limit {
            QueueLimit::Packets(l) => self.q.len() as u64 + extra > l,
            QueueLimit::Bytes(l) => self.bytes + extra_bytes > l,
        }
    }

    fn pop(&mut self) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }
}

impl QueueDisc for Cobalt {
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        let (p, limit) = self.tune(cx.link_rate);
        let now = cx.now.as_nanos() as i64;
        if !self.linux {
            // ns-3 DoEnqueue: the arrival that does not fit is dropped
            if self.over(limit, 1, pkt.size as u64) {
                self.vars.queue_full(&p, now);
                cx.drop(pkt, DropReason::QueueFull);
                return;
            }
            self.bytes += pkt.size as u64;
            self.q.push_back(pkt);
            return;
        }
        // sch_cake cake_enqueue: queue it, then cake_drop heads until the buffer fits
        self.bytes += pkt.size as u64;
        self.q.push_back(pkt);
        while self.over(limit, 0, 0) {
            let head = self.pop().expect("over the limit, so not empty");
            self.vars.queue_full(&p, now);
            cx.drop(head, DropReason::QueueFull);
        }
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        let (p, _) = self.tune(cx.link_rate);
        let now = cx.now.as_nanos() as i64;
        loop {
            let Some(mut pkt) = self.pop() else {
                if !self.linux {
                    self.vars.queue_empty(&p, now);
                }
                return None;
            };
            let sojourn = now - pkt.enqueued.as_nanos() as i64;
            let verdict = self.vars.should_drop(&p, now, sojourn, 0, &mut pkt, cx);
            // sch_cake: "Last packet in queue may be marked, shouldn't be dropped"
            if verdict == Verdict::Deliver || (self.linux && self.q.is_empty()) {
                return Some(pkt);
            }
            let reason = if verdict == Verdict::DropBlue {
                DropReason::Blue
            } else {
                DropReason::Codel
            };
            cx.drop(pkt, reason);
        }
    }

    /// BLUE's drop probability.
    fn probability_at(&self, _now: SimTime) -> Option<f64> {
        Some(self.vars.p_drop)
    }

    fn link_idle(&mut self, since: SimTime) {
        // ns-3: a dequeue that finds the queue empty (see the module comment for Linux)
        if !self.linux {
            let p = match self.tuned {
                Some((p, _)) => p,
                None => self.cfg.params(Rate(1)),
            };
            self.vars.queue_empty(&p, since.as_nanos() as i64);
        }
    }

    fn len_packets(&self) -> usize {
        self.q.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn kind(&self) -> &'static str {
        "cobalt"
    }
    fn resolved_settings(&self, rate_bps: f64) -> Option<serde_json::Value> {
        let rate = Rate(rate_bps as u64);
        let p = self.cfg.params(rate);
        let mut v = serde_json::json!({
            "target_s": p.target_ns as f64 * 1e-9,
            "interval_s": p.interval_ns as f64 * 1e-9,
            "mtu_time_s": p.mtu_time_ns as f64 * 1e-9,
            "increment": p.p_inc,
            "decrement": p.p_dec,
            "ecn": p.ecn,
            "limit": self.cfg.limit_at(rate).to_string(),
            "head_drop": self.linux,
        });
        if let Some(t) = p.ce_threshold_ns {
            v["ce_threshold_s"] = (t as f64 * 1e-9).into();
        }
        if let Some(t) = p.blue_threshold_ns {
            v["blue_threshold_s"] = (t as f64 * 1e-9).into();
        }
        Some(v)
    }
}

#[cfg(test)]
#[path = "cobalt_tests.rs"]
mod tests;
