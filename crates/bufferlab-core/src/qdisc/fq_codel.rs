//! FQ-CoDel (Hoeiland-Joergensen, McKenney, Taht, Gettys & Dumazet, RFC 8290, 2018) following
//! the RFC (sections 4 and 5) and Linux `net/sched/sch_fq_codel.c`:
//! * packets are hashed into `flows` queues; each queue has its own CoDel state;
//! * a queue that becomes active joins the *new* list with deficit = quantum; the scheduler
//!   serves the new list first, then the old list (DRR with `quantum` bytes);
//! * a queue whose deficit is spent gets another quantum and moves to the end of the old list;
//!   an emptied queue from the new list moves to the old list (if that is not empty), one from
//!   the old list leaves (RFC 8290 section 4.2);
//! * above `limit` packets, packets are dropped from the head of the queue with the most bytes
//!   until half its bytes are gone, at most `drop_batch` (Linux `fq_codel_drop`; reason
//!   `longest_queue`).
//!
//! Defaults: 1024 flows, limit 10240p, target 5 ms, interval 100 ms, drop batch 64 (Linux and
//! ns-3); quantum 1514 B (Linux) / 1500 B (ns-3); ECN on (Linux) / off (ns-3). CoDel's
//! `min_bytes` test: `linux`, the whole queue's backlog <= the quantum (sch_fq_codel passes the
//! qdisc backlog to codel_dequeue); `ns3` (ns-3.44 fq-codel-queue-disc.cc, each flow a child
//! CoDelQueueDisc), the flow's own bytes < 1500 (CoDelQueueDisc MinBytes).

use super::codel::{CodelParams, CodelQueue, CodelState};
use super::drr::mix;
use super::shared_config::{refuse_unknown, AqmPreset, CodelKnobs, FlowKey, UnknownKeys};
use super::{DropReason, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::units::{Bytes, QueueLimit};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

// ---------------------------------------------------------------- configuration

/// FQ-CoDel (RFC 8290).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct FqCodelConfig {
    #[serde(default)]
    pub preset: AqmPreset,
    /// Total packets (default 10240p, Linux and ns-3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<QueueLimit>,
    /// Hash buckets (default 1024, RFC 8290 section 5.1, Linux, ns-3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<u32>,
    /// DRR quantum (default 1514 B, Linux; ns3 1500 B = MTU).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantum: Option<Bytes>,
    /// target (5 ms), interval (100 ms), ecn (linux true: sch_fq_codel enables ECN; ns3 false:
    /// UseEcn) and ce_threshold (off), shared with CoDel.
    #[serde(flatten)]
    pub knobs: CodelKnobs,
    /// On overflow, drop up to this many packets from the fattest flow (default 64, Linux
    /// drop_batch; ns3 DropBatchSize 64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_batch: Option<u32>,
    /// Hash key (default `flow`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<FlowKey>,
    /// Keys no field took, refused by `validate`.
    #[serde(flatten, skip_serializing)]
    #[schemars(skip)]
    pub unknown: UnknownKeys,
}

impl FqCodelConfig {
    /// Checks values serde cannot: (field relative to the queue, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        refuse_unknown(
            &self.unknown,
            &[
                &["preset", "limit", "flows", "quantum"],
                CodelKnobs::FIELDS,
                &["drop_batch", "by"],
            ],
        )?;
        if self.flows.is_some_and(|n| n == 0 || n > 65536) {
            return Err((
                "flows".into(),
                "give 1 to 65536 flow queues (Linux's bound; default 1024)".into(),
            ));
        }
        // A quantum of 0 never lets a flow's deficit turn positive: dequeue would rotate the
        // lists forever inside one event.
        if self.quantum == Some(Bytes(0)) {
            return Err((
                "quantum".into(),
                "must be at least 1B (default 1514B, Linux; 1500B, ns-3)".into(),
            ));
        }
        if self.drop_batch == Some(0) {
            return Err((
                "drop_batch".into(),
                "must be at least 1 packet (default 64, Linux and ns-3)".into(),
            ));
        }
        self.knobs.validate()
    }
}

// ---------------------------------------------------------------- the discipline

/// Bytes one port's FQ-CoDel allocates when it is built (its flow table), for the memory
/// estimate made before a network is built (`scenario/bounds.rs`).
pub fn state_bytes(cfg: &FqCodelConfig) -> u64 {
    cfg.flows.unwrap_or(1024) as u64 * std::mem::size_of::<Flow>() as u64
}

pub fn configured_limit(cfg: &FqCodelConfig) -> QueueLimit {
    cfg.limit.unwrap_or(QueueLimit::Packets(10240))
}

#[derive(Default)]
struct Flow {
    q: VecDeque<Packet>,
    bytes: u64,
    deficit: i64,
    codel: CodelState,
    listed: bool,
}

struct View<'a> {
    flow: &'a mut VecDeque<Packet>,
    flow_bytes: &'a mut u64,
    total_bytes: &'a mut u64,
    total_len: &'a mut usize,
    /// ns-3: each flow's CoDel (a child CoDelQueueDisc) sees its own queue; Linux: the whole.
    per_flow_backlog: bool,
}

impl CodelQueue for View<'_> {
    fn pop(&mut self) -> Option<Packet> {
        let p = self.flow.pop_front()?;
        *self.flow_bytes -= p.size as u64;
        *self.total_bytes -= p.size as u64;
        *self.total_len -= 1;
        Some(p)
    }
    fn backlog(&self) -> u64 {
        if self.per_flow_backlog {
            *self.flow_bytes
        } else {
            *self.total_bytes
        }
    }
}

/// Packets a flow's queue holds before it first grows (32 x at most 128 bytes: 4 KB for each
/// flow that has sent; CoDel keeps a flow's queue to a few packets).
const FLOW_QUEUE_RESERVE: usize = 32;

pub struct FqCodel {
    flows: Vec<Flow>,
    new_flows: VecDeque<usize>,
    old_flows: VecDeque<usize>,
    params: CodelParams,
    quantum: i64,
    limit: QueueLimit,
    drop_batch: u32,
    by: FlowKey,
    len: usize,
    bytes: u64,
    per_flow_backlog: bool,
}

impl FqCodel {
    pub fn new(cfg: &FqCodelConfig) -> Self {
        let linux = cfg.preset == AqmPreset::Linux;
        let quantum = cfg
            .quantum
            .map(|b| b.0)
            .unwrap_or(if linux { 1514 } else { 1500 });
        Self {
            flows: (0..cfg.flows.unwrap_or(1024).max(1))
                .map(|_| Flow::default())
                .collect(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            // Linux: the MTU (here the quantum) against the whole backlog; ns-3: each flow's
            // CoDelQueueDisc MinBytes (1500) against that flow's own bytes
            params: cfg
                .knobs
                .params(linux, if linux { quantum } else { 1500 }, !linux),
            per_flow_backlog: !linux,
            // at least 1 whatever the caller: each turn then adds to the deficit (bounded loop)
            quantum: quantum.max(1) as i64,
            limit: configured_limit(cfg),
            drop_batch: cfg.drop_batch.unwrap_or(64).max(1),
            by: cfg.by.unwrap_or(FlowKey::Flow),
            len: 0,
            bytes: 0,
        }
    }

    fn index(&self, p: &Packet) -> usize {
        let key = match self.by {
            FlowKey::Flow => p.flow.0 as u64,
            FlowKey::Src => p.src.0 as u64 | 1 << 40,
            FlowKey::SrcDst => ((p.src.0 as u64) << 20) ^ p.dst.0 as u64 | 2 << 40,
        };
        (mix(key) % self.flows.len() as u64) as usize
    }

    fn over(&self) -> bool {
        match self.limit {
            QueueLimit::Packets(l) => self.len as u64 > l,
            QueueLimit::Bytes(l) => self.bytes > l,
        }
    }
}

impl QueueDisc for FqCodel {
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        let i = self.index(&pkt);
        let f = &mut self.flows[i];
        f.bytes += pkt.size as u64;
        self.bytes += pkt.size as u64;
        self.len += 1;
        if f.q.capacity() == 0 {
            // A flow's first packet sizes its queue for the short queues CoDel keeps, so a
            // flow whose queue reaches a few packets more than before later in a run does not
            // grow it then (tests/no_allocation.rs).
            f.q.reserve(FLOW_QUEUE_RESERVE);
        }
        f.q.push_back(pkt);
        if !f.listed {
            f.listed = true;
            f.deficit = self.quantum;
            self.new_flows.push_back(i);
        }
        if self.over() {
            // fattest flow by bytes; drop from its head up to half its backlog
            let mut fat = 0;
            for (j, g) in self.flows.iter().enumerate() {
                if g.bytes > self.flows[fat].bytes {
                    fat = j;
                }
            }
            let f = &mut self.flows[fat];
            let threshold = f.bytes / 2;
            let mut dropped_bytes = 0;
            let mut n = 0;
            while n < self.drop_batch && dropped_bytes < threshold {
                let Some(p) = f.q.pop_front() else { break };
                f.bytes -= p.size as u64;
                self.bytes -= p.size as u64;
                self.len -= 1;
                dropped_bytes += p.size as u64;
                n += 1;
                cx.drop(p, DropReason::LongestQueue);
            }
        }
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        loop {
            let (from_new, i) = match self.new_flows.front() {
                Some(&i) => (true, i),
                None => (false, *self.old_flows.front()?),
            };
            if self.flows[i].deficit <= 0 {
                self.flows[i].deficit += self.quantum;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.old_flows.push_back(i);
                continue;
            }
            let f = &mut self.flows[i];
            let mut view = View {
                flow: &mut f.q,
                flow_bytes: &mut f.bytes,
                total_bytes: &mut self.bytes,
                total_len: &mut self.len,
                per_flow_backlog: self.per_flow_backlog,
            };
            let pkt = f.codel.dequeue(&mut view, &self.params, cx);
            match pkt {
                None => {
                    if from_new {
                        self.new_flows.pop_front();
                        if !self.old_flows.is_empty() {
                            self.old_flows.push_back(i);
                            continue;
                        }
                    } else {
                        self.old_flows.pop_front();
                    }
                    self.flows[i].listed = false;
                }
                Some(p) => {
                    self.flows[i].deficit -= p.size as i64;
                    return Some(p);
                }
            }
        }
    }

    fn len_packets(&self) -> usize {
        self.len
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn kind(&self) -> &'static str {
        "fq_codel"
    }
    fn resolved_settings(&self, _rate_bps: f64) -> Option<serde_json::Value> {
        let mut v = self.params.to_json();
        v["limit"] = self.limit.to_string().into();
        v["quantum_bytes"] = self.quantum.into();
        v["flows"] = self.flows.len().into();
        v["drop_batch"] = self.drop_batch.into();
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::super::tests_common::backlogged_shares;
    use super::*;
    use crate::units::{Rate, SimTime};

    // ---- bad values named; a quantum of 0 looped forever inside one dequeue ----
    #[test]
    fn bad_values_are_refused_with_their_field() {
        let field = |c: FqCodelConfig| c.validate().unwrap_err().0;
        let d = FqCodelConfig::default;
        assert_eq!(
            field(FqCodelConfig {
                quantum: Some(Bytes(0)),
                ..d()
            }),
            "quantum"
        );
        assert_eq!(
            field(FqCodelConfig {
                flows: Some(0),
                ..d()
            }),
            "flows"
        );
        assert_eq!(
            field(FqCodelConfig {
                flows: Some(65537),
                ..d()
            }),
            "flows"
        );
        assert_eq!(
            field(FqCodelConfig {
                drop_batch: Some(0),
                ..d()
            }),
            "drop_batch"
        );
        assert_eq!(
            field(FqCodelConfig {
                knobs: CodelKnobs {
                    target: Some(SimTime::ZERO),
                    ..CodelKnobs::default()
                },
                ..d()
            }),
            "target"
        );
        assert_eq!(
            field(FqCodelConfig {
                knobs: CodelKnobs {
                    interval: Some(SimTime::ZERO),
                    ..CodelKnobs::default()
                },
                ..d()
            }),
            "interval"
        );
        assert!(d().validate().is_ok());
    }

    #[test]
    fn a_zero_quantum_built_anyway_still_dequeues() {
        // built without validate (a caller that skips it): the quantum is at least 1 byte
        let cfg = FqCodelConfig {
            quantum: Some(Bytes(0)),
            ..FqCodelConfig::default()
        };
        let mut h = Harness::new(Box::new(FqCodel::new(&cfg)), Rate(1_000_000_000));
        let p = h.packet(0, 1500);
        h.enqueue(SimTime(0), p);
        assert!(h.dequeue(SimTime(1)).is_some());
    }

    /// Flow 0 keeps two 1000-B packets waiting beside a backlogged flow 1: quantum 1000 B and
    /// one dequeue per 10 ms, so the flows take turns and flow 0 gets one packet served and one
    /// new per 20 ms (each waits about 40 ms, over the 5 ms target). CoDel drops of flow 0 in 3 s.
    fn thin_flow_drops(preset: AqmPreset) -> usize {
        let cfg = FqCodelConfig {
            preset,
            knobs: CodelKnobs {
                ecn: Some(false),
                ..CodelKnobs::default()
            },
            quantum: Some(crate::units::Bytes(1000)),
            ..Default::default()
        };
        let mut h = Harness::new(Box::new(FqCodel::new(&cfg)), Rate(10_000_000));
        let mut waiting1 = 0;
        for _ in 0..2 {
            let p = h.packet(0, 1000);
            h.enqueue(SimTime(0), p);
        }
        for step in 0..300u64 {
            let now = SimTime::from_millis(step * 10);
            while waiting1 < 20 {
                let p = h.packet(1, 1000);
                h.enqueue(now, p);
                waiting1 += 1;
            }
            if let Some(p) = h.dequeue(now) {
                if p.flow.0 == 1 {
                    waiting1 -= 1;
                }
            }
            if step % 2 == 1 {
                let p = h.packet(0, 1000);
                h.enqueue(now, p);
            }
            waiting1 -= h.dropped.iter().filter(|(p, _)| p.flow.0 == 1).count();
            h.dropped.retain(|(p, _)| p.flow.0 == 0);
        }
        h.dropped.len()
    }

    // ---- min_bytes: ns-3 tests each flow's own bytes, Linux the whole backlog ----
    #[test]
    fn ns3_min_bytes_is_per_flow() {
        // ns-3: flow 0 never has 1500 B left after a dequeue, so its CoDel never drops
        assert_eq!(thin_flow_drops(AqmPreset::Ns3), 0);
        // Linux: the backlogged neighbour's bytes count, flow 0's standing delay is punished
        assert!(thin_flow_drops(AqmPreset::Linux) > 0);
    }

    // ---- backlogged flows get equal bytes (CoDel off by a huge target) ----
    #[test]
    fn fair_between_backlogged_flows() {
        let cfg = FqCodelConfig {
            knobs: CodelKnobs {
                target: Some(SimTime::from_secs_f64(1000.0)),
                interval: Some(SimTime::from_secs_f64(1000.0)),
                ..CodelKnobs::default()
            },
            ..Default::default()
        };
        let jain = backlogged_shares(Box::new(FqCodel::new(&cfg)), &[200, 576, 1500, 1000]);
        assert!(jain > 0.99, "{jain}");
    }

    // ---- a sparse flow is served from the new list ahead of a backlogged one ----
    #[test]
    fn sparse_flow_goes_first() {
        let mut h = Harness::new(
            Box::new(FqCodel::new(&FqCodelConfig::default())),
            Rate(10_000_000),
        );
        for _ in 0..50 {
            let p = h.packet(0, 1500);
            h.enqueue(SimTime(0), p);
        }
        h.dequeue(SimTime(1));
        h.dequeue(SimTime(2));
        let p = h.packet(1, 100);
        h.enqueue(SimTime(3), p);
        assert_eq!(h.dequeue(SimTime(4)).unwrap().flow.0, 1);
    }

    // ---- overflow drops half of the fattest flow ----
    #[test]
    fn overflow_drops_from_fattest() {
        let cfg = FqCodelConfig {
            limit: Some(QueueLimit::Packets(20)),
            ..Default::default()
        };
        let mut h = Harness::new(Box::new(FqCodel::new(&cfg)), Rate(10_000_000));
        for _ in 0..18 {
            let p = h.packet(0, 1000);
            h.enqueue(SimTime(0), p);
        }
        for _ in 0..3 {
            let p = h.packet(1, 1000);
            h.enqueue(SimTime(0), p);
        }
        assert_eq!(h.dropped.len(), 9);
        assert!(h
            .dropped
            .iter()
            .all(|(p, r)| p.flow.0 == 0 && *r == DropReason::LongestQueue));
    }
}
