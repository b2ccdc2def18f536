//! Stochastic Fairness Queueing (McKenney, "Stochastic Fairness Queueing", INFOCOM 1990) as
//! Linux `net/sched/sch_sfq.c` (3.x and later) runs it:
//!
//! * Flows are hashed (salted; the salt is redrawn every `perturb`) into `divisor` buckets; a
//!   bucket with packets holds one of `flows` slots (`sfq_enqueue`: a packet whose bucket needs
//!   a slot when none is free is dropped). A slot holds at most `depth` packets (an arrival
//!   beyond it is dropped: `slot->qlen >= q->maxdepth`).
//! * Active slots are served round robin with an allotment counted in 8-byte units
//!   (`SFQ_ALLOT_SIZE`, rounded up): a slot sends while its allotment is positive and gets one
//!   quantum more, moving to the end of the round, when it is spent (`sfq_dequeue`); a new slot
//!   joins the end of the round with one quantum.
//! * When the queue holds more than `limit` packets, one packet is dropped from the tail of the
//!   longest slot (`sfq_drop`, reason `longest_queue`); among slots of equal length the one whose
//!   length changed last (Linux keeps a list per depth and links a slot at its head on every
//!   change); when every slot holds one packet, the slot at the head of the round.
//! * On a perturbation every queued packet is rehashed with the new salt (`sfq_rehash`): the
//!   slots are emptied in slot order, then the packets re-enter in that order (a packet that finds
//!   no free slot, or a full one, is dropped), so no flow's packets are reordered.
//! * A free slot is taken from the head of Linux's depth-0 list: the slot emptied last (slots
//!   start linked in index order, so the highest index first).
//!
//! Defaults (Linux): limit 127 packets, divisor 1024, flows 128, depth 127, quantum 1514 B (the
//! device MTU + 14), perturb 0 (never; tc-sfq(8) suggests 10 s). As in `sfq_change`, the limit is
//! capped at depth x flows and the flows at the limit and the divisor.
//!
//! Differences from Linux: the hash (a salted 64-bit mix of the flow key, not siphash of the
//! packet's headers); the perturbation runs at the first enqueue or dequeue at or after its time
//! (no packet moves in between, so the result is that of Linux's timer); a limit in bytes is an
//! extension (Linux counts packets).

use super::drr::mix;
use super::shared_config::FlowKey;
use super::{DropReason, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::units::Bytes;
use crate::units::{QueueLimit, SimTime};
use rand::RngExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

// ---------------------------------------------------------------- configuration

/// Stochastic Fairness Queueing (McKenney 1990): Linux `sch_sfq` (default) or ns-2's
/// `Queue/SFQ` (`preset = "ns2"`, `sfq_ns2.rs`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SfqConfig {
    /// Whose SFQ (default `linux`).
    #[serde(default)]
    pub preset: SfqPreset,
    /// Total packets. linux: 127p (SFQ_MAX_DEPTH/limit default); ns2: 40p (`maxqueue_`,
    /// which ns-2's SFQ uses instead of the link's `queue-limit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<QueueLimit>,
    /// Hash buckets. linux: 1024 (SFQ_DEFAULT_HASH_DIVISOR); ns2: 16 (`buckets_`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divisor: Option<u32>,
    /// Bytes per round (default 1514 B, Linux psched_mtu of an Ethernet device).
    #[serde(default = "default_sfq_quantum")]
    pub quantum: Bytes,
    /// Rehash period (default 0 = never, Linux default; tc-sfq(8) suggests 10 s).
    #[serde(default)]
    pub perturb: SimTime,
    /// Hash key (default `flow`, the 5-tuple of a flow).
    #[serde(default = "flow_key")]
    pub by: FlowKey,
    /// Flow slots: at most this many buckets hold packets at once; a packet that would need
    /// another is dropped (default 128, Linux SFQ_DEFAULT_FLOWS).
    #[serde(default = "default_sfq_flows")]
    pub flows: u32,
    /// Packets one flow slot may hold; an arrival beyond it is dropped (default and maximum
    /// 127, Linux SFQ_MAX_DEPTH).
    #[serde(default = "default_sfq_depth")]
    pub depth: u32,
}

fn default_sfq_flows() -> u32 {
    128
}
fn default_sfq_depth() -> u32 {
    127
}
/// Whose SFQ: the rules differ in every part (hash, service, drops), not just in defaults.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SfqPreset {
    /// Linux `net/sched/sch_sfq.c` (3.x and later): salted flow hash into `divisor` buckets,
    /// `flows` slots of `depth` packets, byte quantum round robin, drops from the longest slot.
    #[default]
    Linux,
    /// ns-2.35 `queue/sfq.cc`: a hash of the source and destination node addresses into
    /// `divisor` buckets (`buckets_` 16), packet round robin, the arriving packet dropped
    /// when its bucket holds half of what is left (`maxqueue_` 40). `quantum`, `perturb`,
    /// `by`, `flows` and `depth` do not apply.
    Ns2,
}
fn default_sfq_quantum() -> Bytes {
    Bytes(1514)
}
fn flow_key() -> FlowKey {
    FlowKey::Flow
}

impl Default for SfqConfig {
    fn default() -> Self {
        Self {
            preset: SfqPreset::Linux,
            limit: None,
            divisor: None,
            quantum: default_sfq_quantum(),
            perturb: SimTime(0),
            by: FlowKey::Flow,
            flows: default_sfq_flows(),
            depth: default_sfq_depth(),
        }
    }
}

impl SfqConfig {
    /// The limit, the preset's default if not given.
    pub fn limit(&self) -> QueueLimit {
        self.limit.unwrap_or(match self.preset {
            SfqPreset::Linux => QueueLimit::Packets(127),
            SfqPreset::Ns2 => QueueLimit::Packets(40),
        })
    }

    /// The number of hash buckets, the preset's default if not given.
    pub fn divisor(&self) -> u32 {
        self.divisor.unwrap_or(match self.preset {
            SfqPreset::Linux => 1024,
            SfqPreset::Ns2 => 16,
        })
    }

    /// Checks values serde cannot: (field relative to the queue, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        // every bucket is allocated when the port is built: 10^9 of them were 16 GB
        if self.divisor() > 65536 {
            return Err((
                "divisor".into(),
                "give at most 65536 buckets (Linux's bound; defaults 1024, ns-2 16)".into(),
            ));
        }
        if self.preset == SfqPreset::Ns2 {
            if self.divisor() == 0 {
                return Err((
                    "divisor".into(),
                    "give at least 1 bucket (ns-2 default 16)".into(),
                ));
            }
            if let QueueLimit::Bytes(_) = self.limit() {
                return Err((
                    "limit".into(),
                    "ns-2's SFQ counts packets (maxqueue_): give the limit in packets, e.g. \"40p\""
                        .into(),
                ));
            }
            return Ok(());
        }
        if self.divisor() == 0 || self.quantum.0 == 0 {
            return Err((
                "divisor".into(),
                "divisor and quantum must be at least 1 (Linux defaults 1024 and 1514B)".into(),
            ));
        }
        if self.flows == 0 || self.flows > 65408 {
            return Err((
                "flows".into(),
                "give 1 to 65408 flow slots (Linux SFQ_MAX_FLOWS; default 128)".into(),
            ));
        }
        if self.depth == 0 || self.depth > 127 {
            return Err((
                "depth".into(),
                "give 1 to 127 packets per flow (Linux SFQ_MAX_DEPTH; default 127)".into(),
            ));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- the discipline

/// Linux `SFQ_ALLOT_SHIFT`: allotments count 8-byte units.
const ALLOT_SHIFT: u32 = 3;

/// Linux `SFQ_ALLOT_SIZE`: bytes in allotment units, rounded up.
fn allot_size(bytes: u64) -> i64 {
    bytes.div_ceil(1 << ALLOT_SHIFT) as i64
}

#[derive(Default)]
struct Slot {
    q: VecDeque<Packet>,
    bytes: u64,
    allot: i64,
    /// The bucket this slot serves while it holds packets.
    bucket: usize,
    /// When its length last changed (Linux relinks it at the head of its depth's list then).
    stamp: u64,
}

pub struct Sfq {
    /// Bucket -> slot holding its packets.
    ht: Vec<Option<u32>>,
    slots: Vec<Slot>,
    /// Active slots in service order (the front is Linux's `tail->next`).
    round: VecDeque<usize>,
    cfg: SfqConfig,
    /// Packets one slot may hold.
    depth: usize,
    /// Packet limit after Linux's caps (`sfq_change`).
    limit: QueueLimit,
    quantum: i64,
    salt: u64,
    next_perturb: Option<SimTime>,
    stamp: u64,
    len: usize,
    bytes: u64,
}

/// Bytes one port's SFQ allocates when it is built, at most (slots with their reserved
/// queues, the bucket table), for the estimate of `scenario/bounds.rs`.
pub fn state_bytes(cfg: &SfqConfig) -> u64 {
    let divisor = cfg.divisor() as u64;
    if cfg.preset == SfqPreset::Ns2 {
        return divisor * std::mem::size_of::<VecDeque<Packet>>() as u64;
    }
    let flows = (cfg.flows as u64).min(divisor);
    let reserved = (cfg.depth as u64 * flows).min(16_384);
    divisor * std::mem::size_of::<Option<u32>>() as u64
        + flows * std::mem::size_of::<Slot>() as u64
        + reserved * std::mem::size_of::<Packet>() as u64
}

impl Sfq {
    pub fn new(cfg: &SfqConfig) -> Self {
        let divisor = cfg.divisor().max(1) as usize;
        let depth = cfg.depth.clamp(1, 127) as usize;
        let mut flows = (cfg.flows.max(1) as usize).min(divisor);
        let limit = match cfg.limit() {
            QueueLimit::Packets(l) => {
                let l = l.min((depth * flows) as u64);
                flows = flows.min(l.max(1) as usize);
                QueueLimit::Packets(l)
            }
            b => b,
        };
        // sfq_init links slots 0, 1, ... at the head of the depth-0 list in turn. Linux links
        // packets into lists; here each slot has its own queue, sized up front for the longest
        // it can get (depth, or the packet limit) when that stays within 16 384 packets (2 MiB,
        // the defaults' 128 x 127): a slot that first reaches a new length then allocates nothing.
        let most = match limit {
            QueueLimit::Packets(l) => depth.min(l as usize),
            QueueLimit::Bytes(_) => depth,
        };
        let reserve = if most * flows <= 16_384 { most } else { 0 };
        let slots = (0..flows)
            .map(|i| Slot {
                stamp: i as u64,
                q: VecDeque::with_capacity(reserve),
                ..Slot::default()
            })
            .collect();
        Self {
            ht: vec![None; divisor],
            slots,
            round: VecDeque::new(),
            cfg: cfg.clone(),
            depth,
            limit,
            quantum: allot_size(cfg.quantum.0.max(1)),
            salt: 0,
            next_perturb: (cfg.perturb.0 > 0).then_some(cfg.perturb),
            stamp: flows as u64,
            len: 0,
            bytes: 0,
        }
    }

    fn bucket_of(&self, p: &Packet) -> usize {
        let key = match self.cfg.by {
            FlowKey::Flow => p.flow.0 as u64 | 1 << 40,
            FlowKey::Src => p.src.0 as u64 | 2 << 40,
            FlowKey::SrcDst => ((p.src.0 as u64) << 20) ^ p.dst.0 as u64 | 3 << 40,
        };
        (mix(key ^ self.salt) % self.ht.len() as u64) as usize
    }

    fn over(&self) -> bool {
        match self.limit {
            QueueLimit::Packets(l) => self.len as u64 > l,
            QueueLimit::Bytes(l) => self.bytes > l,
        }
    }

    /// Records that slot `x` changed length (`sfq_inc` / `sfq_dec` relink it).
    fn touch(&mut self, x: usize) {
        self.slots[x].stamp = self.stamp;
        self.stamp += 1;
    }

    /// Puts `pkt` in its bucket's slot, or gives it back (`Some`) when it must be dropped (no
    /// free slot, or the slot is at its depth). Does not look at the total limit.
    fn place(&mut self, pkt: Packet) -> Option<Packet> {
        let b = self.bucket_of(&pkt);
        let x = match self.ht[b] {
            Some(x) => x as usize,
            None => {
                // The head of the depth-0 list: the empty slot whose length changed last.
                let free = (0..self.slots.len())
                    .filter(|&i| self.slots[i].q.is_empty())
                    .max_by_key(|&i| self.slots[i].stamp);
                let Some(x) = free else {
                    return Some(pkt);
                };
                self.ht[b] = Some(x as u32);
                self.slots[x].bucket = b;
                x
            }
        };
        if self.slots[x].q.len() >= self.depth {
            return Some(pkt);
        }
        let size = pkt.size as u64;
        let sl = &mut self.slots[x];
        sl.q.push_back(pkt);
        sl.bytes += size;
        let new = sl.q.len() == 1;
        if new {
            sl.allot = self.quantum;
            self.round.push_back(x);
        }
        self.touch(x);
        self.len += 1;
        self.bytes += size;
        None
    }

    /// Takes the head (or with `tail` the tail) packet of slot `x`; frees the slot (and its
    /// bucket) when it empties.
    fn take(&mut self, x: usize, tail: bool) -> Packet {
        let sl = &mut self.slots[x];
        let p = if tail {
            sl.q.pop_back()
        } else {
            sl.q.pop_front()
        };
        let p = p.expect("an active slot holds packets");
        sl.bytes -= p.size as u64;
        let empty = sl.q.is_empty();
        let bucket = sl.bucket;
        self.touch(x);
        self.len -= 1;
        self.bytes -= p.size as u64;
        if empty {
            self.ht[bucket] = None;
        }
        p
    }

    /// `sfq_drop`: one packet from the tail of the longest slot.
    fn drop_one(&mut self, cx: &mut QueueCtx) {
        let Some(x) = (0..self.slots.len())
            .filter(|&i| !self.slots[i].q.is_empty())
            .max_by_key(|&i| (self.slots[i].q.len(), self.slots[i].stamp))
        else {
            return;
        };
        let x = if self.slots[x].q.len() > 1 {
            x
        } else {
            // Every slot holds one packet: the one at the head of the round goes.
            self.round
                .pop_front()
                .expect("active slots are in the round")
        };
        let p = self.take(x, true);
        cx.drop(p, DropReason::LongestQueue);
    }

    /// `sfq_perturbation` / `sfq_rehash`: a new salt, and every queued packet rehashed.
    fn perturb_if_due(&mut self, cx: &mut QueueCtx) {
        let Some(t) = self.next_perturb else { return };
        if cx.now < t {
            return;
        }
        let step = self.cfg.perturb.0;
        self.next_perturb = Some(SimTime(t.0 + ((cx.now.0 - t.0) / step + 1) * step));
        self.salt = cx.rng().random();
        if self.round.is_empty() {
            return;
        }
        let mut queued = Vec::with_capacity(self.len);
        for x in 0..self.slots.len() {
            while !self.slots[x].q.is_empty() {
                queued.push(self.take(x, false));
            }
        }
        self.round.clear();
        for p in queued {
            if let Some(p) = self.place(p) {
                cx.drop(p, DropReason::QueueFull);
            }
        }
    }
}

impl QueueDisc for Sfq {
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        self.perturb_if_due(cx);
        if let Some(p) = self.place(pkt) {
            cx.drop(p, DropReason::QueueFull);
            return;
        }
        while self.over() {
            self.drop_one(cx);
        }
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        self.perturb_if_due(cx);
        loop {
            let x = *self.round.front()?;
            if self.slots[x].allot <= 0 {
                self.slots[x].allot += self.quantum;
                self.round.rotate_left(1);
                continue;
            }
            let p = self.take(x, false);
            if self.slots[x].q.is_empty() {
                self.round.pop_front();
            } else {
                self.slots[x].allot -= allot_size(p.size as u64);
            }
            return Some(p);
        }
    }

    fn len_packets(&self) -> usize {
        self.len
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn kind(&self) -> &'static str {
        "sfq"
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::super::tests_common::backlogged_shares;
    use super::*;
    use crate::units::{Bytes, Rate};

    #[test]
    fn more_buckets_than_linux_allows_are_refused() {
        for preset in [SfqPreset::Linux, SfqPreset::Ns2] {
            let c = |divisor| SfqConfig {
                preset,
                divisor: Some(divisor),
                ..SfqConfig::default()
            };
            assert_eq!(c(65537).validate().unwrap_err().0, "divisor");
            assert!(c(65536).validate().is_ok());
        }
    }

    fn harness(cfg: SfqConfig) -> Harness {
        Harness::new(Box::new(Sfq::new(&cfg)), Rate(1_000_000))
    }

    fn send(h: &mut Harness, flow: u32, n: usize) {
        for _ in 0..n {
            let p = h.packet(flow, 1000);
            h.enqueue(SimTime(0), p);
        }
    }

    // ---- backlogged flows of different packet sizes share bytes fairly ----
    #[test]
    fn jain_index_of_backlogged_flows() {
        let cfg = SfqConfig {
            limit: Some(QueueLimit::Packets(10_000)),
            ..Default::default()
        };
        // 4 flows in 1024 buckets: check they did not collide, then measure
        let jain = backlogged_shares(Box::new(Sfq::new(&cfg)), &[200, 576, 1500, 1000]);
        assert!(jain > 0.99, "{jain}");
    }

    // ---- overflow: the tail of the longest slot, ties to the slot that changed last ----
    #[test]
    fn overflow_drops_tail_of_longest() {
        let mut h = harness(SfqConfig {
            limit: Some(QueueLimit::Packets(5)),
            ..Default::default()
        });
        send(&mut h, 0, 4);
        send(&mut h, 1, 2);
        assert_eq!(h.dropped.len(), 1);
        assert_eq!(h.dropped[0].0.flow.0, 0);
        assert_eq!(h.dropped[0].0.uid, 4);
    }

    #[test]
    fn equal_longest_slots_lose_from_the_one_that_grew_last() {
        let mut h = harness(SfqConfig {
            limit: Some(QueueLimit::Packets(4)),
            ..Default::default()
        });
        send(&mut h, 0, 2);
        send(&mut h, 1, 2);
        send(&mut h, 2, 1); // 5 > 4: flows 0 and 1 both hold 2; flow 1 reached 2 last
        assert_eq!(h.dropped.len(), 1);
        assert_eq!((h.dropped[0].0.flow.0, h.dropped[0].0.uid), (1, 4));
        assert_eq!(h.dropped[0].1, DropReason::LongestQueue);
    }

    #[test]
    fn all_slots_of_one_packet_lose_the_head_of_the_round() {
        // Only a byte limit can overflow with one packet per slot (Linux caps the slots at the
        // packet limit, see the next test).
        let mut h = harness(SfqConfig {
            limit: Some(QueueLimit::Bytes(2500)),
            ..Default::default()
        });
        send(&mut h, 0, 1);
        send(&mut h, 1, 1);
        send(&mut h, 2, 1);
        assert_eq!(h.dropped.len(), 1);
        assert_eq!(h.dropped[0].0.flow.0, 0);
        // Flow 0's slot left the round: flows 1 and 2 are served.
        let out: Vec<u32> =
            std::iter::from_fn(|| h.dequeue(SimTime(1)).map(|p| p.flow.0)).collect();
        assert_eq!(out, vec![1, 2]);
    }

    // ---- per-slot depth and the number of slots bound what is queued ----
    #[test]
    fn a_slot_holds_at_most_depth_packets() {
        let mut h = harness(SfqConfig {
            depth: 3,
            ..Default::default()
        });
        send(&mut h, 0, 5);
        assert_eq!(h.q.len_packets(), 3);
        let uids: Vec<u64> = h.dropped.iter().map(|(p, _)| p.uid).collect();
        assert_eq!(uids, vec![4, 5]); // the arrivals beyond the depth
        assert!(h.dropped.iter().all(|(_, r)| *r == DropReason::QueueFull));
    }

    #[test]
    fn a_flow_needing_a_slot_when_none_is_free_is_dropped() {
        let mut h = harness(SfqConfig {
            flows: 2,
            ..Default::default()
        });
        send(&mut h, 0, 1);
        send(&mut h, 1, 1);
        send(&mut h, 2, 1);
        send(&mut h, 0, 1); // an existing slot still takes packets
        assert_eq!(h.q.len_packets(), 3);
        assert_eq!(h.dropped.len(), 1);
        assert_eq!(
            (h.dropped[0].0.flow.0, h.dropped[0].1),
            (2, DropReason::QueueFull)
        );
    }

    #[test]
    fn a_packet_limit_caps_the_number_of_slots() {
        let mut h = harness(SfqConfig {
            limit: Some(QueueLimit::Packets(2)),
            ..Default::default()
        });
        send(&mut h, 0, 1);
        send(&mut h, 1, 1);
        send(&mut h, 2, 1); // no third slot (sfq_change: maxflows = min(maxflows, limit))
        assert_eq!(
            (h.dropped[0].0.flow.0, h.dropped[0].1),
            (2, DropReason::QueueFull)
        );
    }

    #[test]
    fn the_limit_is_capped_at_depth_times_flows() {
        let mut h = harness(SfqConfig {
            limit: Some(QueueLimit::Packets(1000)),
            flows: 2,
            depth: 3,
            ..Default::default()
        });
        send(&mut h, 0, 3);
        send(&mut h, 1, 3);
        assert_eq!(h.q.len_packets(), 6);
        send(&mut h, 1, 1);
        assert_eq!(h.q.len_packets(), 6);
    }

    // ---- allotments count 8-byte units, rounded up (SFQ_ALLOT_SIZE) ----
    #[test]
    fn allotments_are_in_eight_byte_units() {
        assert_eq!(allot_size(1514), 190);
        assert_eq!(allot_size(1000), 125);
        assert_eq!(allot_size(1001), 126);
        // Quantum 16 B = 2 units: a slot of 9-byte packets (2 units each) sends one per turn
        // after its first, so two flows alternate.
        let mut h = harness(SfqConfig {
            quantum: Bytes(16),
            ..Default::default()
        });
        for f in [0, 0, 0, 1, 1, 1] {
            let p = h.packet(f, 9);
            h.enqueue(SimTime(0), p);
        }
        let out: Vec<u32> =
            std::iter::from_fn(|| h.dequeue(SimTime(1)).map(|p| p.flow.0)).collect();
        assert_eq!(out, vec![0, 1, 0, 1, 0, 1]);
    }

    // ---- a perturbation rehashes the queued packets without reordering a flow ----
    #[test]
    fn perturbation_moves_queued_packets_to_their_new_buckets() {
        let cfg = SfqConfig {
            limit: Some(QueueLimit::Packets(1000)),
            divisor: Some(8), // small, so that the new salt moves flows between buckets
            perturb: SimTime::from_millis(10),
            ..Default::default()
        };
        let mut sfq = Sfq::new(&cfg);
        let mut rng: crate::rng::LazyRng = crate::rng::stream(3, "sfq-test").into();
        let mut drops = Vec::new();
        let mut uid = 0;
        for f in 0..6u32 {
            for _ in 0..5 {
                uid += 1;
                let p = Packet {
                    uid,
                    flow: crate::ids::FlowId(f),
                    size: 1000,
                    ..Packet::default()
                };
                let mut cx = QueueCtx::new(SimTime(0), &mut rng, Rate(1_000_000), true, &mut drops);
                sfq.enqueue(p, &mut cx);
            }
        }
        let before: Vec<Option<u32>> = sfq.ht.clone();
        let mut cx = QueueCtx::new(
            SimTime::from_millis(10),
            &mut rng,
            Rate(1_000_000),
            true,
            &mut drops,
        );
        let first = sfq.dequeue(&mut cx).expect("packets queued");
        assert!(drops.is_empty());
        assert_ne!(sfq.ht, before, "the new salt should move some bucket");
        // Every queued packet sits in the slot of its bucket under the new salt.
        for (x, sl) in sfq.slots.iter().enumerate() {
            for p in &sl.q {
                assert_eq!(sfq.ht[sfq.bucket_of(p)], Some(x as u32));
            }
        }
        // And every flow still leaves in order.
        let mut out = vec![first];
        while let Some(p) = sfq.dequeue(&mut QueueCtx::new(
            SimTime::from_millis(11),
            &mut rng,
            Rate(1_000_000),
            true,
            &mut drops,
        )) {
            out.push(p);
        }
        assert_eq!(out.len(), 30);
        for f in 0..6u32 {
            let uids: Vec<u64> = out
                .iter()
                .filter(|p| p.flow.0 == f)
                .map(|p| p.uid)
                .collect();
            assert!(uids.windows(2).all(|w| w[0] < w[1]), "flow {f}: {uids:?}");
        }
    }
}
