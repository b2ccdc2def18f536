//! CoDel, Controlled Delay (Nichols, Jacobson, McGregor & Iyengar, RFC 8289, 2018), following
//! the RFC's pseudocode (section 5) and Linux `include/net/codel_impl.h`:
//! * each packet's sojourn time is measured at dequeue; when it has stayed above `target` for
//!   `interval` (and more than `min_bytes` are still queued), CoDel enters the dropping state and
//!   drops (or ECN-marks) the head packet;
//! * in the dropping state the next drop is due at `drop_next = t + interval / sqrt(count)`
//!   (the control law, RFC 8289 section 5.5), so drops come closer as count grows;
//! * on re-entering the dropping state soon after leaving it (`now - drop_next < 16 interval`),
//!   count restarts from `count - lastcount` instead of 1 (RFC 8289 section 5.6).
//!
//! * `ce_threshold` (Linux `codel_dequeue`, label `end`; sch_codel / sch_fq_codel `ce_threshold`,
//!   added for DCTCP-style step marking): an ECT packet whose sojourn time is above it is marked
//!   CE when it leaves, whatever the state above and whether `ecn` is on. Off by default.
//!
//! Defaults: target 5 ms, interval 100 ms (RFC 8289 section 4, Linux, ns-3); limit 1000p (Linux
//! sch_codel) or 1500p (`preset = "ns3"`, CoDelQueueDisc MaxSize); ECN off (both); min_bytes
//! 1514 B (Linux: the device MTU, no drop while the backlog is <= it) or 1500 B (ns-3
//! MinBytes, no drop while the backlog is < it; `CoDelQueueDisc::OkToDrop`). Tail drop at the limit is reported as
//! `queue_full`, CoDel's own drops as `codel`.

use super::shared_config::{refuse_unknown, AqmPreset, CodelKnobs, UnknownKeys};
use super::{DropReason, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::units::{Bytes, QueueLimit, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

// ---------------------------------------------------------------- configuration

/// CoDel (RFC 8289).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct CodelConfig {
    #[serde(default)]
    pub preset: AqmPreset,
    /// Default: linux 1000p (sch_codel), ns3 1500p (CoDelQueueDisc MaxSize).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<QueueLimit>,
    /// target, interval, ecn (default false: sch_codel and ns-3 UseEcn) and ce_threshold,
    /// shared with FQ-CoDel.
    #[serde(flatten)]
    pub knobs: CodelKnobs,
    /// Never drop while at most this many bytes are queued (default 1514 B: Linux mtu; ns3 MinBytes 1500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_bytes: Option<Bytes>,
    /// Keys no field took, refused by `validate`.
    #[serde(flatten, skip_serializing)]
    #[schemars(skip)]
    pub unknown: UnknownKeys,
}

impl CodelConfig {
    /// Checks values serde cannot: (field relative to the queue, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        refuse_unknown(
            &self.unknown,
            &[&["preset", "limit"], CodelKnobs::FIELDS, &["min_bytes"]],
        )?;
        self.knobs.validate()
    }
}

// ---------------------------------------------------------------- the discipline

/// CoDel's parameters.
#[derive(Clone, Copy, Debug)]
pub struct CodelParams {
    pub target: SimTime,
    pub interval: SimTime,
    pub ecn: bool,
    pub min_bytes: u64,
    /// ns-3 `CoDelQueueDisc::OkToDrop` tests `bytes < min_bytes`; Linux `codel_should_drop`
    /// tests `backlog <= mtu`.
    pub min_bytes_strict: bool,
    /// Linux `ce_threshold`: mark ECT packets that waited longer (None: off).
    pub ce_threshold: Option<SimTime>,
}

impl CodelParams {
    /// The resolved settings, for `validate --json`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "target_s": self.target.as_secs_f64(),
            "interval_s": self.interval.as_secs_f64(),
            "ecn": self.ecn,
            "min_bytes": self.min_bytes,
            "min_bytes_strict": self.min_bytes_strict,
        });
        if let Some(t) = self.ce_threshold {
            v["ce_threshold_s"] = t.as_secs_f64().into();
        }
        v
    }
}

/// CoDel's per-queue state (one per flow in FQ-CoDel).
#[derive(Clone, Debug, Default)]
pub struct CodelState {
    first_above_time: Option<SimTime>,
    pub drop_next: SimTime,
    pub count: u32,
    lastcount: u32,
    pub dropping: bool,
}

/// The control law: `t + interval / sqrt(count)`.
pub fn control_law(t: SimTime, interval: SimTime, count: u32) -> SimTime {
    t + SimTime((interval.0 as f64 / (count.max(1) as f64).sqrt()) as u64)
}

/// A queue CoDel can pop from.
pub trait CodelQueue {
    fn pop(&mut self) -> Option<Packet>;
    /// Bytes still queued (after the pop), for the `min_bytes` test.
    fn backlog(&self) -> u64;
}

impl CodelState {
    /// RFC 8289 `dodequeue`: the head packet and whether it may be dropped.
    fn dodequeue<Q: CodelQueue>(
        &mut self,
        q: &mut Q,
        p: &CodelParams,
        now: SimTime,
    ) -> (Option<Packet>, bool) {
        let Some(pkt) = q.pop() else {
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = now.saturating_sub(pkt.enqueued);
        let mut ok = false;
        let few = if p.min_bytes_strict {
            q.backlog() < p.min_bytes
        } else {
            q.backlog() <= p.min_bytes
        };
        if sojourn < p.target || few {
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                None => self.first_above_time = Some(now + p.interval),
                Some(t) if now >= t => ok = true,
                _ => {}
            }
        }
        (Some(pkt), ok)
    }

    /// RFC 8289 `dequeue`, then Linux's `ce_threshold` marking.
    pub fn dequeue<Q: CodelQueue>(
        &mut self,
        q: &mut Q,
        p: &CodelParams,
        cx: &mut QueueCtx,
    ) -> Option<Packet> {
        let mut pkt = self.dequeue_rfc(q, p, cx);
        if let (Some(th), Some(pk)) = (p.ce_threshold, pkt.as_mut()) {
            if cx.now.saturating_sub(pk.enqueued) > th {
                cx.mark(pk);
            }
        }
        pkt
    }

    fn dequeue_rfc<Q: CodelQueue>(
        &mut self,
        q: &mut Q,
        p: &CodelParams,
        cx: &mut QueueCtx,
    ) -> Option<Packet> {
        let now = cx.now;
        let (mut pkt, mut ok) = self.dodequeue(q, p, now);
        if pkt.is_none() {
            self.dropping = false;
            return None;
        }
        if self.dropping {
            if !ok {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                let mut cur = pkt.take().expect("packet");
                if p.ecn && cx.mark(&mut cur) {
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                    return Some(cur);
                }
                cx.drop(cur, DropReason::Codel);
                (pkt, ok) = self.dodequeue(q, p, now);
                if pkt.is_none() || !ok {
                    self.dropping = false;
                } else {
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                }
            }
        } else if ok {
            let mut cur = pkt.take().expect("packet");
            if p.ecn && cx.mark(&mut cur) {
                pkt = Some(cur);
            } else {
                cx.drop(cur, DropReason::Codel);
                (pkt, _) = self.dodequeue(q, p, now);
            }
            self.dropping = true;
            let delta = self.count.saturating_sub(self.lastcount);
            self.count =
                if delta > 1 && now.saturating_sub(self.drop_next) < SimTime(16 * p.interval.0) {
                    delta
                } else {
                    1
                };
            self.drop_next = control_law(now, p.interval, self.count);
            self.lastcount = self.count;
        }
        pkt
    }
}

pub fn configured_limit(cfg: &CodelConfig) -> QueueLimit {
    cfg.limit.unwrap_or(match cfg.preset {
        AqmPreset::Linux => QueueLimit::Packets(1000),
        AqmPreset::Ns3 => QueueLimit::Packets(1500),
    })
}

struct Fifo {
    q: VecDeque<Packet>,
    bytes: u64,
}

impl CodelQueue for Fifo {
    fn pop(&mut self) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }
    fn backlog(&self) -> u64 {
        self.bytes
    }
}

pub struct Codel {
    fifo: Fifo,
    limit: QueueLimit,
    params: CodelParams,
    state: CodelState,
}

impl Codel {
    pub fn new(cfg: &CodelConfig) -> Self {
        Self {
            fifo: Fifo {
                q: VecDeque::new(),
                bytes: 0,
            },
            limit: configured_limit(cfg),
            params: cfg.knobs.params(
                false,
                cfg.min_bytes.map(|b| b.0).unwrap_or(match cfg.preset {
                    AqmPreset::Linux => 1514,
                    AqmPreset::Ns3 => 1500,
                }),
                cfg.preset == AqmPreset::Ns3,
            ),
            state: CodelState::default(),
        }
    }

    pub fn state(&self) -> &CodelState {
        &self.state
    }
}

impl QueueDisc for Codel {
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        let full = match self.limit {
            QueueLimit::Packets(l) => self.fifo.q.len() as u64 + 1 > l,
            QueueLimit::Bytes(l) => self.fifo.bytes + pkt.size as u64 > l,
        };
        if full {
            cx.drop(pkt, DropReason::QueueFull);
            return;
        }
        self.fifo.bytes += pkt.size as u64;
        self.fifo.q.push_back(pkt);
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        self.state.dequeue(&mut self.fifo, &self.params, cx)
    }

    fn len_packets(&self) -> usize {
        self.fifo.q.len()
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.bytes
    }
    fn kind(&self) -> &'static str {
        "codel"
    }
    fn resolved_settings(&self, _rate_bps: f64) -> Option<serde_json::Value> {
        let mut v = self.params.to_json();
        v["limit"] = self.limit.to_string().into();
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::*;
    use crate::units::Rate;

    fn ms(x: f64) -> SimTime {
        SimTime::from_secs_f64(x / 1000.0)
    }

    // ---- bad values named ----
    #[test]
    fn zero_target_or_interval_is_refused() {
        let bad = |target, interval| {
            CodelConfig {
                knobs: CodelKnobs {
                    target,
                    interval,
                    ..CodelKnobs::default()
                },
                ..CodelConfig::default()
            }
            .validate()
            .unwrap_err()
            .0
        };
        assert_eq!(bad(Some(SimTime::ZERO), None), "target");
        assert_eq!(bad(None, Some(SimTime::ZERO)), "interval");
        assert!(CodelConfig::default().validate().is_ok());
    }

    // ---- no drops while the sojourn time stays below target ----
    #[test]
    fn short_sojourn_never_drops() {
        let mut h = Harness::new(
            Box::new(Codel::new(&CodelConfig::default())),
            Rate(10_000_000),
        );
        for i in 0..10_000u64 {
            let now = ms(i as f64);
            for _ in 0..3 {
                let p = h.packet(0, 1000);
                h.enqueue(now, p);
            }
            for _ in 0..3 {
                h.dequeue(now + ms(4.0));
            }
        }
        assert!(h.dropped.is_empty());
    }

    // ---- drop spacing follows interval / sqrt(count) ----
    #[test]
    fn drop_spacing_follows_inverse_square_root() {
        // A standing queue: 1000 packets arrive at t = 0; one dequeue every 1 ms.
        let mut h = Harness::new(
            Box::new(Codel::new(&CodelConfig::default())),
            Rate(10_000_000),
        );
        for _ in 0..1000 {
            let p = h.packet(0, 1000);
            h.enqueue(SimTime(0), p);
        }
        let mut drop_times = Vec::new();
        for i in 0..900u64 {
            let now = ms(i as f64);
            let before = h.dropped.len();
            h.dequeue(now);
            for _ in before..h.dropped.len() {
                drop_times.push(now);
            }
        }
        // first drop one interval after the sojourn first exceeded target (5 ms after t=0 ... at 100+ ms)
        assert!(
            drop_times[0] >= ms(100.0) && drop_times[0] <= ms(106.0),
            "{:?}",
            drop_times[0]
        );
        // then gaps of 100/sqrt(n) ms (to the 1 ms dequeue grid)
        for n in 1..8usize {
            let gap = (drop_times[n] - drop_times[n - 1]).as_secs_f64() * 1000.0;
            let want = 100.0 / (n as f64).sqrt();
            assert!((gap - want).abs() <= 1.0, "gap {n}: {gap} ms vs {want} ms");
        }
        assert!(h.dropped.iter().all(|(_, r)| *r == DropReason::Codel));
    }

    #[test]
    fn control_law_values() {
        assert_eq!(control_law(SimTime(0), ms(100.0), 4), ms(50.0));
        assert_eq!(control_law(ms(10.0), ms(100.0), 1), ms(110.0));
    }
}
