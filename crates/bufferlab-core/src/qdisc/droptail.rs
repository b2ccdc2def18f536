//! DropTail (FIFO with tail drop), the baseline every study compares against.
//!
//! Limit in packets or bytes. Two flavours, because the simulators differ:
//! * `standard` (ns-3 `DropTailQueue`/`FifoQueueDisc`, Linux `pfifo`/`bfifo`): a packet is
//!   dropped when storing it would exceed the limit: `len + 1 > limit` (packets) or
//!   `bytes + size > limit` (bytes). The packet on the wire is not counted.
//! * `ns2` (ns-2.35 `queue/drop-tail.cc`, `DropTail::enque`): dropped when
//!   `len + 1 >= qlim_` (packets) or `byteLength + size >= qlim_ * mean_pktsize_` (bytes).
//!   ns-2 reserves one place for the packet in transmission, so `queue-limit 20` holds 19
//!   waiting packets plus the one on the wire: the packet in service counts against the limit.
//!
//! Default limit: 100 packets, ns-3's `DropTailQueue` `MaxSize` default ("100p").

use super::{DropReason, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::units::QueueLimit;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

// ---------------------------------------------------------------- configuration

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropTailConfig {
    /// Capacity in packets ("25p") or bytes ("50KB"). Default 100p (ns-3 DropTailQueue MaxSize).
    #[serde(default = "default_droptail_limit")]
    pub limit: QueueLimit,
    /// `standard` (ns-3, Linux) or `ns2` (ns-2.35: the packet on the wire counts against the limit).
    #[serde(default)]
    pub flavour: DropTailFlavour,
}

impl Default for DropTailConfig {
    fn default() -> Self {
        Self {
            limit: default_droptail_limit(),
            flavour: DropTailFlavour::Standard,
        }
    }
}

fn default_droptail_limit() -> QueueLimit {
    QueueLimit::Packets(100)
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DropTailFlavour {
    #[default]
    Standard,
    Ns2,
}

// ---------------------------------------------------------------- the discipline

/// DropTail's drop rule and limit without its packets: all that the port's inline DropTail
/// (`net/port_queue.rs`), which holds packet handles, needs of it (24 bytes, not a whole
/// `DropTail`'s 64 with an empty deque; docs/performance.md, "What a flow holds after the
/// report is streamed").
#[derive(Debug, Clone, Copy)]
pub struct DropRule {
    limit: QueueLimit,
    flavour: DropTailFlavour,
}

impl DropRule {
    pub fn new(cfg: &DropTailConfig) -> Self {
        Self {
            limit: cfg.limit,
            flavour: cfg.flavour,
        }
    }

    /// How many packets a full queue holds: its packet limit, or a byte limit as 500-byte
    /// packets (for reserving room up front, `Simulation::reserve_packet_room`).
    pub fn full_packets(&self) -> usize {
        match self.limit {
            QueueLimit::Packets(p) => p as usize,
            QueueLimit::Bytes(b) => (b / 500) as usize,
        }
    }

    /// A new packet limit for the packets that arrive from now on (ns-2's `$ns queue-limit`
    /// during a run: queue.cc binds `limit_` to `qlim_`, which `DropTail::enque` reads at each
    /// arrival; the packets already waiting stay). False for a byte limit.
    pub fn set_packet_limit(&mut self, packets: u64) -> bool {
        if let QueueLimit::Packets(_) = self.limit {
            self.limit = QueueLimit::Packets(packets);
            return true;
        }
        false
    }

    /// The drop rule: would a packet of `size` bytes overflow a queue holding `len` packets of
    /// `bytes` bytes?
    #[inline(always)]
    pub fn overflows(&self, len: usize, bytes: u64, size: u64) -> bool {
        let len = len as u64;
        match (self.limit, self.flavour) {
            (QueueLimit::Packets(l), DropTailFlavour::Standard) => len + 1 > l,
            (QueueLimit::Bytes(l), DropTailFlavour::Standard) => bytes + size > l,
            (QueueLimit::Packets(l), DropTailFlavour::Ns2) => len + 1 >= l,
            (QueueLimit::Bytes(l), DropTailFlavour::Ns2) => bytes + size >= l,
        }
    }
}

pub struct DropTail {
    q: VecDeque<Packet>,
    bytes: u64,
    rule: DropRule,
}

/// A DropTail without packets, which the port's inline DropTail shows as its discipline
/// (`PortQueue::disc`): every DropTail has the same name, settings, warnings and (no) average,
/// the trait's defaults; its lengths are the port's.
pub static AS_DISCIPLINE: DropTail = DropTail {
    q: VecDeque::new(),
    bytes: 0,
    rule: DropRule {
        limit: QueueLimit::Packets(0),
        flavour: DropTailFlavour::Standard,
    },
};

impl DropTail {
    pub fn new(cfg: &DropTailConfig) -> Self {
        // Start empty and let the deque grow to what is really used (4, 8, 16, ... packets):
        // preallocating the limit made idle access queues 85 % of the heap at 1000 flows, and
        // even 16 packets (2 KB) per port was 8 KB per flow at 10 000 flows, where access
        // queues hold at most a few packets (docs/performance.md, "Memory per flow and cost
        // per packet at scale"). A queue grows to its high-water mark early in a run.
        Self {
            q: VecDeque::new(),
            bytes: 0,
            rule: DropRule::new(cfg),
        }
    }

    #[inline]
    fn would_overflow(&self, size: u64) -> bool {
        self.rule.overflows(self.q.len(), self.bytes, size)
    }
}

impl QueueDisc for DropTail {
    #[inline]
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        if self.would_overflow(pkt.size as u64) {
            cx.drop(pkt, DropReason::QueueFull);
        } else {
            self.bytes += pkt.size as u64;
            self.q.push_back(pkt);
        }
    }

    #[inline]
    fn dequeue(&mut self, _cx: &mut QueueCtx) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }

    #[inline]
    fn len_packets(&self) -> usize {
        self.q.len()
    }

    #[inline]
    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn kind(&self) -> &'static str {
        "droptail"
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::*;
    use crate::units::{Rate, SimTime};

    fn dt(limit: QueueLimit, flavour: DropTailFlavour) -> Harness {
        Harness::new(
            Box::new(DropTail::new(&DropTailConfig { limit, flavour })),
            Rate(1_000_000),
        )
    }

    // ---- standard flavour: the limit counts waiting packets ----
    #[test]
    fn standard_packet_limit_holds_exactly_limit_packets() {
        let mut h = dt(QueueLimit::Packets(3), DropTailFlavour::Standard);
        for _ in 0..5 {
            let p = h.packet(0, 1000);
            h.enqueue(SimTime(0), p);
        }
        assert_eq!(h.q.len_packets(), 3);
        assert_eq!(h.dropped.len(), 2);
        assert!(h.dropped.iter().all(|(_, r)| *r == DropReason::QueueFull));
        // FIFO order out
        let uids: Vec<u64> = std::iter::from_fn(|| h.dequeue(SimTime(1)).map(|p| p.uid)).collect();
        assert_eq!(uids, vec![1, 2, 3]);
    }

    #[test]
    fn standard_byte_limit_counts_bytes() {
        let mut h = dt(QueueLimit::Bytes(2500), DropTailFlavour::Standard);
        for s in [1000, 1000, 600, 400] {
            let p = h.packet(0, s);
            h.enqueue(SimTime(0), p);
        }
        // 1000+1000 fit; 600 would make 2600 > 2500; 400 makes 2400.
        assert_eq!(h.q.len_bytes(), 2400);
        assert_eq!(h.dropped.len(), 1);
        assert_eq!(h.dropped[0].0.size, 600);
    }

    // ---- ns-2 flavour: one place is reserved for the packet on the wire ----
    #[test]
    fn ns2_flavour_holds_limit_minus_one() {
        let mut h = dt(QueueLimit::Packets(20), DropTailFlavour::Ns2);
        for _ in 0..30 {
            let p = h.packet(0, 1000);
            h.enqueue(SimTime(0), p);
        }
        assert_eq!(h.q.len_packets(), 19);
        let mut h = dt(QueueLimit::Bytes(10_000), DropTailFlavour::Ns2);
        for _ in 0..30 {
            let p = h.packet(0, 1000);
            h.enqueue(SimTime(0), p);
        }
        assert_eq!(h.q.len_bytes(), 9000);
    }
}
