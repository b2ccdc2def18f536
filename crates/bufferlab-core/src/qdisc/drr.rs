//! Deficit Round Robin (Shreedhar & Varghese, "Efficient Fair Queuing using Deficit Round
//! Robin", SIGCOMM 1995) as ns-2.35 implements it in `queue/drr.cc`:
//! * packets go to a bucket chosen by hashing the source node (`by = "src"`, ns-2's
//!   `DRR::hash` on `saddr`, modulo `buckets`), by source and destination, or one bucket per
//!   flow (`by = "flow"`);
//! * a bucket that becomes active joins the end of the round with deficit 0;
//! * on its turn a bucket's deficit grows by `quantum`; it sends its head packet while the
//!   deficit covers it, and an emptied bucket leaves the round with its deficit reset;
//! * the buffer is shared (`limit`, ns-2 `blimit_` in bytes): after an arrival, while the
//!   total exceeds the limit, the head packet of the bucket holding the most bytes is dropped
//!   (`getMaxflow`; drop reason `longest_queue`).
//!
//! Defaults (ns-2.35 tcl/lib/ns-default.tcl): quantum 250 B, buckets 10, limit 25000 B, hash on
//! the source node (mask_ 0).

use super::shared_config::FlowKey;
use super::{DropReason, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::units::Bytes;
use crate::units::QueueLimit;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

// ---------------------------------------------------------------- configuration

/// Deficit Round Robin (Shreedhar & Varghese 1995) as ns-2's `Queue/DRR` (queue/drr.cc).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DrrConfig {
    /// Bytes a bucket may send per round (default 250 B, ns-2 quantum_).
    #[serde(default = "default_drr_quantum")]
    pub quantum: Bytes,
    /// Number of hash buckets (default 10, ns-2 buckets_ in ns-default.tcl); ignored with `by = "flow"`.
    #[serde(default = "default_drr_buckets")]
    pub buckets: u32,
    /// Shared buffer of all buckets (default 25000 B, ns-2 blimit_). On overflow the head packet of
    /// the bucket holding the most bytes is dropped (drr.cc `getMaxflow`).
    #[serde(default = "default_drr_limit")]
    pub limit: QueueLimit,
    /// What a bucket holds (default `src`, as ns-2).
    #[serde(default)]
    pub by: FlowKey,
}

fn default_drr_quantum() -> Bytes {
    Bytes(250)
}
fn default_drr_buckets() -> u32 {
    10
}
fn default_drr_limit() -> QueueLimit {
    QueueLimit::Bytes(25_000)
}

impl Default for DrrConfig {
    fn default() -> Self {
        Self {
            quantum: default_drr_quantum(),
            buckets: default_drr_buckets(),
            limit: default_drr_limit(),
            by: FlowKey::Src,
        }
    }
}

impl DrrConfig {
    /// Checks values serde cannot: (field relative to the queue, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        if self.quantum.0 == 0 {
            return Err((
                "quantum".into(),
                "must be at least 1B (ns-2 default 250B)".into(),
            ));
        }
        // buckets are allocated up to the highest one a packet hashes to: one packet could
        // have allocated billions
        if self.buckets == 0 || self.buckets > 65536 {
            return Err((
                "buckets".into(),
                "give 1 to 65536 buckets (ns-2 default 10)".into(),
            ));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- the discipline

#[derive(Default)]
struct Bucket {
    q: VecDeque<Packet>,
    bytes: u64,
    deficit: i64,
    turn: bool,
    active: bool,
}

pub struct Drr {
    buckets: Vec<Bucket>,
    nbuckets: u32,
    by: FlowKey,
    quantum: i64,
    limit: QueueLimit,
    /// Active buckets, the current one first.
    round: VecDeque<usize>,
    len: usize,
    bytes: u64,
}

/// ns-2's `DRR::hash` of an address.
pub(crate) fn ns2_hash(i: i64) -> i64 {
    ((i + (i >> 8) + !(i >> 4)) % ((2 << 23) - 1)) + 1
}

/// A stable 64-bit mix (SplitMix64 finaliser) for hashing keys.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Drr {
    pub fn new(cfg: &DrrConfig) -> Self {
        Self {
            buckets: Vec::new(),
            nbuckets: cfg.buckets.max(1),
            by: cfg.by,
            quantum: cfg.quantum.0.max(1) as i64,
            limit: cfg.limit,
            round: VecDeque::new(),
            len: 0,
            bytes: 0,
        }
    }

    fn bucket_of(&self, p: &Packet) -> usize {
        match self.by {
            FlowKey::Flow => p.flow.0 as usize,
            FlowKey::Src => (ns2_hash(p.src.0 as i64) % self.nbuckets as i64) as usize,
            FlowKey::SrcDst => {
                (mix(((p.src.0 as u64) << 32) | p.dst.0 as u64) % self.nbuckets as u64) as usize
            }
        }
    }

    fn over(&self) -> bool {
        match self.limit {
            QueueLimit::Packets(l) => self.len as u64 > l,
            QueueLimit::Bytes(l) => self.bytes > l,
        }
    }

    fn leave_round(&mut self, b: usize) {
        self.buckets[b].active = false;
        if let Some(pos) = self.round.iter().position(|&x| x == b) {
            self.round.remove(pos);
        }
    }
}

impl QueueDisc for Drr {
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        let b = self.bucket_of(&pkt);
        if b >= self.buckets.len() {
            self.buckets.resize_with(b + 1, Bucket::default);
        }
        let size = pkt.size as u64;
        let bk = &mut self.buckets[b];
        bk.q.push_back(pkt);
        bk.bytes += size;
        self.bytes += size;
        self.len += 1;
        if !bk.active {
            bk.active = true;
            bk.deficit = 0;
            self.round.push_back(b);
        }
        while self.over() {
            // the bucket with the most bytes, scanning the round from the current one
            let mut max = self.round[0];
            for &x in self.round.iter() {
                if self.buckets[max].bytes < self.buckets[x].bytes {
                    max = x;
                }
            }
            let bk = &mut self.buckets[max];
            let p = bk.q.pop_front().expect("an active bucket holds a packet");
            bk.bytes -= p.size as u64;
            self.bytes -= p.size as u64;
            self.len -= 1;
            let empty = bk.q.is_empty();
            cx.drop(p, DropReason::LongestQueue);
            if empty {
                self.leave_round(max);
            }
        }
    }

    fn dequeue(&mut self, _cx: &mut QueueCtx) -> Option<Packet> {
        if self.len == 0 {
            return None;
        }
        loop {
            let b = *self.round.front()?;
            let bk = &mut self.buckets[b];
            if !bk.turn {
                bk.deficit += self.quantum;
                bk.turn = true;
            }
            let size = bk.q.front().expect("active bucket").size as i64;
            if bk.deficit >= size {
                bk.deficit -= size;
                let p = bk.q.pop_front().unwrap();
                bk.bytes -= p.size as u64;
                self.bytes -= p.size as u64;
                self.len -= 1;
                if bk.q.is_empty() {
                    bk.turn = false;
                    bk.deficit = 0;
                    bk.active = false;
                    self.round.pop_front();
                }
                return Some(p);
            }
            bk.turn = false;
            self.round.rotate_left(1);
        }
    }

    fn len_packets(&self) -> usize {
        self.len
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn kind(&self) -> &'static str {
        "drr"
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::super::tests_common::backlogged_shares;
    use super::*;
    use crate::units::{Bytes, Rate, SimTime};

    #[test]
    fn bad_values_are_refused_with_their_field() {
        let field = |c: DrrConfig| c.validate().unwrap_err().0;
        assert_eq!(
            field(DrrConfig {
                quantum: Bytes(0),
                ..DrrConfig::default()
            }),
            "quantum"
        );
        assert_eq!(
            field(DrrConfig {
                buckets: 0,
                ..DrrConfig::default()
            }),
            "buckets"
        );
        assert_eq!(
            field(DrrConfig {
                buckets: 65537,
                ..DrrConfig::default()
            }),
            "buckets"
        );
        assert!(DrrConfig::default().validate().is_ok());
    }

    fn per_flow(limit: QueueLimit, quantum: u64) -> DrrConfig {
        DrrConfig {
            quantum: Bytes(quantum),
            buckets: 10,
            limit,
            by: FlowKey::Flow,
        }
    }

    // ---- DRR serves bytes, not packets, fairly ----
    #[test]
    fn bytes_are_shared_fairly_with_mixed_sizes() {
        // flow 0 sends 1500 B packets, flow 1 sends 300 B packets: equal bytes out
        let mut h = Harness::new(
            Box::new(Drr::new(&per_flow(QueueLimit::Bytes(1_000_000), 1500))),
            Rate(1_000_000),
        );
        for _ in 0..200 {
            let p = h.packet(0, 1500);
            h.enqueue(SimTime(0), p);
        }
        for _ in 0..1000 {
            let p = h.packet(1, 300);
            h.enqueue(SimTime(0), p);
        }
        let mut bytes = [0u64; 2];
        for _ in 0..600 {
            let p = h.dequeue(SimTime(1)).unwrap();
            bytes[p.flow.0 as usize] += p.size as u64;
        }
        let ratio = bytes[0] as f64 / bytes[1] as f64;
        assert!((ratio - 1.0).abs() < 0.02, "{bytes:?}");
        let jain = backlogged_shares(
            Box::new(Drr::new(&per_flow(QueueLimit::Bytes(1_000_000), 250))),
            &[200, 576, 1500, 1000],
        );
        assert!(jain > 0.99, "{jain}");
    }

    // ---- overflow drops the head of the longest bucket ----
    #[test]
    fn overflow_drops_from_the_longest_bucket() {
        let mut h = Harness::new(
            Box::new(Drr::new(&per_flow(QueueLimit::Bytes(10_000), 250))),
            Rate(1_000_000),
        );
        for _ in 0..8 {
            let p = h.packet(0, 1000);
            h.enqueue(SimTime(0), p);
        }
        for _ in 0..3 {
            let p = h.packet(1, 1000);
            h.enqueue(SimTime(0), p);
        }
        // 11 000 B > 10 000 B: flow 0's first packet goes
        assert_eq!(h.dropped.len(), 1);
        assert_eq!(h.dropped[0].0.flow.0, 0);
        assert_eq!(h.dropped[0].0.uid, 1);
        assert_eq!(h.dropped[0].1, DropReason::LongestQueue);
        assert_eq!(h.q.len_bytes(), 10_000);
    }

    // ---- ns-2 defaults and hash ----
    #[test]
    fn ns2_defaults() {
        let c = DrrConfig::default();
        assert_eq!(
            (c.quantum, c.buckets, c.limit),
            (Bytes(250), 10, QueueLimit::Bytes(25_000))
        );
        assert_eq!(ns2_hash(0), 0);
        assert!(ns2_hash(5) > 0);
    }
}
