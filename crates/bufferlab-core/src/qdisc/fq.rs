//! Per-flow fair queueing in the shape of ns-2's `FQLink` (tcl/lib/ns-link.tcl): one DropTail
//! queue per flow, each with the DropTail limit (ns-2 default 50 packets; `queue-limit` on the
//! link does not reach these queues), and a fair scheduler between them. `preset = "ns2"` is
//! ns-2's own scheduler (queue/fq.cc, `fq_ns2.rs`); the default, `scfq`, is fair queueing with
//! virtual finish times (Demers, Keshav & Shenker 1989) in its self-clocked form (Golestani
//! 1994, SCFQ): a packet of `size` bytes arriving to
//! flow i gets `F = max(F_i, V) + size`, V being the finish tag of the packet last sent; the
//! packet with the smallest tag is sent next (ties: lowest flow id). This serves bytes fairly
//! whatever the packet sizes.
//!
//! Defaults: limit 50p per flow with the `ns2` DropTail flavour (a per-flow queue holds 49
//! packets, drop-tail.cc `len + 1 >= qlim_`); `flavour = "standard"` holds exactly `limit`.

use super::droptail::DropTailFlavour;
use super::{DropReason, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::units::QueueLimit;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

// ---------------------------------------------------------------- configuration

/// Per-flow fair queueing (ns-2 `FQLink` / `Queue/FQ`): one DropTail queue per flow, served in
/// order of virtual finish times.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FqConfig {
    /// Limit of each flow's queue (default 50p: ns-2 `Queue set limit_ 50`; `queue-limit` on an
    /// FQ link does not reach the per-flow queues).
    #[serde(default = "default_fq_limit")]
    pub limit: QueueLimit,
    /// How each per-flow queue counts its limit (default `ns2`: holds limit - 1, as ns-2's DropTail).
    #[serde(default = "ns2_flavour")]
    pub flavour: DropTailFlavour,
    /// Whose scheduler (default `scfq`).
    #[serde(default)]
    pub preset: FqPreset,
}

/// Whose fair queueing: the schedulers differ, not just their defaults.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FqPreset {
    /// Self-clocked fair queueing (Golestani 1994): a virtual finish tag in bytes per packet,
    /// flows told apart by the engine's flow; a flow's queue holds `limit` - 1 (ns2 flavour).
    #[default]
    Scfq,
    /// ns-2.35's `Queue/FQ` (queue/fq.cc, `fq_ns2.rs`): a finish time in seconds per flow
    /// head, `finishTime_ + delta_ x nactive`, flows told apart by their ns-2 flow id; a flow
    /// holds its head and `limit` - 1 behind it.
    Ns2,
}

fn default_fq_limit() -> QueueLimit {
    QueueLimit::Packets(50)
}
fn ns2_flavour() -> DropTailFlavour {
    DropTailFlavour::Ns2
}

impl Default for FqConfig {
    fn default() -> Self {
        Self {
            limit: default_fq_limit(),
            flavour: ns2_flavour(),
            preset: FqPreset::Scfq,
        }
    }
}

// ---------------------------------------------------------------- the discipline

#[derive(Default)]
struct FlowQ {
    q: VecDeque<(Packet, f64)>,
    bytes: u64,
    last_finish: f64,
}

pub struct Fq {
    flows: Vec<FlowQ>,
    limit: QueueLimit,
    flavour: DropTailFlavour,
    vtime: f64,
    len: usize,
    bytes: u64,
}

impl Fq {
    pub fn new(cfg: &FqConfig) -> Self {
        Self {
            flows: Vec::new(),
            limit: cfg.limit,
            flavour: cfg.flavour,
            vtime: 0.0,
            len: 0,
            bytes: 0,
        }
    }
}

/// A per-flow DropTail queue of `len` packets and `bytes` bytes refuses a packet of `size`.
pub(super) fn overflows(
    limit: QueueLimit,
    flavour: DropTailFlavour,
    len: u64,
    bytes: u64,
    size: u64,
) -> bool {
    match (limit, flavour) {
        (QueueLimit::Packets(l), DropTailFlavour::Standard) => len + 1 > l,
        (QueueLimit::Bytes(l), DropTailFlavour::Standard) => bytes + size > l,
        (QueueLimit::Packets(l), DropTailFlavour::Ns2) => len + 1 >= l,
        (QueueLimit::Bytes(l), DropTailFlavour::Ns2) => bytes + size >= l,
    }
}

impl QueueDisc for Fq {
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        let i = pkt.flow.0 as usize;
        if i >= self.flows.len() {
            self.flows.resize_with(i + 1, FlowQ::default);
        }
        let f = &mut self.flows[i];
        if overflows(
            self.limit,
            self.flavour,
            f.q.len() as u64,
            f.bytes,
            pkt.size as u64,
        ) {
            cx.drop(pkt, DropReason::QueueFull);
            return;
        }
        let finish = f.last_finish.max(self.vtime) + pkt.size as f64;
        f.last_finish = finish;
        f.bytes += pkt.size as u64;
        self.bytes += pkt.size as u64;
        self.len += 1;
        f.q.push_back((pkt, finish));
    }

    fn dequeue(&mut self, _cx: &mut QueueCtx) -> Option<Packet> {
        let mut best: Option<(usize, f64)> = None;
        for (i, f) in self.flows.iter().enumerate() {
            if let Some(&(_, fin)) = f.q.front() {
                if best.is_none_or(|(_, b)| fin < b) {
                    best = Some((i, fin));
                }
            }
        }
        let (i, fin) = best?;
        let f = &mut self.flows[i];
        let (p, _) = f.q.pop_front()?;
        f.bytes -= p.size as u64;
        self.bytes -= p.size as u64;
        self.len -= 1;
        self.vtime = fin;
        Some(p)
    }

    fn len_packets(&self) -> usize {
        self.len
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn kind(&self) -> &'static str {
        "fq"
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::super::tests_common::backlogged_shares;
    use super::*;
    use crate::units::Rate;

    // ---- per-flow limits as ns-2's FQLink ----
    #[test]
    fn each_flow_has_its_own_droptail_limit() {
        let mut h = Harness::new(Box::new(Fq::new(&FqConfig::default())), Rate(1_000_000));
        for _ in 0..60 {
            for f in 0..2 {
                let p = h.packet(f, 1000);
                h.enqueue(crate::units::SimTime(0), p);
            }
        }
        assert_eq!(h.q.len_packets(), 98); // 49 per flow
        assert_eq!(h.dropped.len(), 22);
    }

    // ---- backlogged flows with different packet sizes get equal bytes ----
    #[test]
    fn byte_fair_with_mixed_packet_sizes() {
        let q = Box::new(Fq::new(&FqConfig {
            limit: QueueLimit::Packets(1000),
            ..Default::default()
        }));
        let jain = backlogged_shares(q, &[200, 576, 1500, 1000]);
        assert!(jain > 0.99, "{jain}");
    }
}
