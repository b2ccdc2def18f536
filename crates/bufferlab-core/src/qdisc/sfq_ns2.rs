//! ns-2.35's `Queue/SFQ` (queue/sfq.cc, Curtis Villamizar 1997), which differs from Linux's
//! `sch_sfq` (`sfq.rs`) in every rule. Chosen with `kind = "sfq", preset = "ns2"`.
//!
//! * `buckets_` queues (default 16), one per hash value; the hash is of the source and
//!   destination node addresses only (`SFQ::hash`: k = saddr + daddr, then
//!   (k + (k >> 8) + ~(k >> 4)) mod (2^20 - 1), mod buckets_), never perturbed, so flows
//!   between the same pair of nodes, and pairs whose addresses add up alike, share a bucket.
//! * Dequeue is packet-by-packet round robin over the buckets that hold packets: one packet
//!   from the current bucket, then the next; a bucket that empties leaves the ring, a bucket
//!   that gets its first packet joins it just before the current one (the end of the round).
//! * Enqueue drops the arriving packet when, with `used` the packets of its bucket and `left`
//!   = maxqueue_ - packets queued: used >= left / 2 (integer halving), or left < buckets_ and
//!   used > maxqueue_ / buckets_ (the fair share), or left <= 0 (`SFQ::enque`).
//! * The limit is ns-2's `maxqueue_` (default 40; the `limit` field here), not the link's
//!   `queue-limit` (`limit_`), which ns-2's SFQ never reads.

use super::{DropReason, QueueCtx, QueueDisc};
use crate::packet::Packet;
use std::collections::VecDeque;

/// ns-2 `SFQ::hash` of a source and destination node address, reduced to a bucket. ns-2 uses
/// C `int` arithmetic, where `%` keeps the sign; the sums stay small and non-negative for the
/// node numbers of a simulation (k >= 1), so unsigned arithmetic gives the same buckets.
pub fn ns2_bucket(src: u32, dst: u32, buckets: usize) -> usize {
    let k = src as i64 + dst as i64;
    let h = (k + (k >> 8) + !(k >> 4)) % ((2 << 19) - 1);
    h.rem_euclid(buckets as i64) as usize
}

pub struct Ns2Sfq {
    buckets: Vec<VecDeque<Packet>>,
    /// Buckets holding packets, in service order; the front is ns-2's `active`.
    ring: VecDeque<usize>,
    maxqueue: i64,
    fairshare: i64,
    occupied: i64,
    bytes: u64,
}

impl Ns2Sfq {
    pub fn new(maxqueue: u64, buckets: u32) -> Self {
        let n = buckets.max(1) as usize;
        let maxqueue = maxqueue.min(i64::MAX as u64) as i64;
        Self {
            buckets: (0..n).map(|_| VecDeque::new()).collect(),
            ring: VecDeque::with_capacity(n),
            maxqueue,
            fairshare: maxqueue / n as i64,
            occupied: 0,
            bytes: 0,
        }
    }
}

impl QueueDisc for Ns2Sfq {
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        let n = self.buckets.len();
        let which = ns2_bucket(pkt.src.0, pkt.dst.0, n);
        let used = self.buckets[which].len() as i64;
        let left = self.maxqueue - self.occupied;
        if used >= left >> 1 || (left < n as i64 && used > self.fairshare) || left <= 0 {
            cx.drop(pkt, DropReason::QueueFull);
            return;
        }
        self.bytes += pkt.size as u64;
        self.buckets[which].push_back(pkt);
        self.occupied += 1;
        if self.buckets[which].len() == 1 {
            // `activate`: linked before the current head, i.e. at the end of the round.
            self.ring.push_back(which);
        }
    }

    fn dequeue(&mut self, _cx: &mut QueueCtx) -> Option<Packet> {
        let b = *self.ring.front()?;
        let pkt = self.buckets[b]
            .pop_front()
            .expect("a bucket in the ring holds packets");
        self.occupied -= 1;
        self.bytes -= pkt.size as u64;
        self.ring.pop_front();
        if !self.buckets[b].is_empty() {
            // `active = active->next`: the bucket goes round to the end.
            self.ring.push_back(b);
        }
        Some(pkt)
    }

    fn len_packets(&self) -> usize {
        self.occupied as usize
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
    use super::*;
    use crate::ids::NodeId;
    use crate::units::{Rate, SimTime};

    fn harness(maxqueue: u64, buckets: u32) -> Harness {
        Harness::new(Box::new(Ns2Sfq::new(maxqueue, buckets)), Rate(1_000_000))
    }

    /// Offers a packet of `flow` from node `src` to node `dst`; true if it was queued.
    fn offer(h: &mut Harness, flow: u32, src: u32, dst: u32) -> bool {
        let mut p = h.packet(flow, 100);
        p.src = NodeId(src);
        p.dst = NodeId(dst);
        let before = h.dropped.len();
        h.enqueue(SimTime(0), p);
        h.dropped.len() == before
    }

    fn next_flow(h: &mut Harness) -> Option<u32> {
        h.dequeue(SimTime(0)).map(|p| p.flow.0)
    }

    #[test]
    fn the_hash_is_ns2s_for_small_addresses() {
        // k = 1: 1 + 0 + ~0 = 0; k = 17: 17 + 0 + ~1 = 15; k = 300: 300 + 1 + ~18 = 282.
        assert_eq!(ns2_bucket(0, 1, 16), 0);
        assert_eq!(ns2_bucket(8, 9, 16), 15);
        assert_eq!(ns2_bucket(100, 200, 16), 282 % 16);
        // symmetric in source and destination, blind to anything but the two addresses
        assert_eq!(ns2_bucket(3, 5, 16), ns2_bucket(5, 3, 16));
        assert_eq!(ns2_bucket(2, 6, 16), ns2_bucket(3, 5, 16));
    }

    #[test]
    fn round_robin_one_packet_per_bucket_and_new_buckets_join_the_end() {
        let mut h = harness(40, 16);
        // node pairs (0,1), (0,2), (0,3) hash to buckets 0, 1, 2
        for _ in 0..3 {
            assert!(offer(&mut h, 1, 0, 1));
        }
        assert!(offer(&mut h, 2, 0, 2));
        assert_eq!(next_flow(&mut h), Some(1));
        assert!(offer(&mut h, 3, 0, 3));
        let order: Vec<u32> = std::iter::from_fn(|| next_flow(&mut h)).collect();
        assert_eq!(order, vec![2, 1, 3, 1]);
    }

    #[test]
    fn a_bucket_may_hold_half_of_what_is_left() {
        let mut h = harness(40, 16);
        // one bucket alone is accepted while used < (40 - used) >> 1: 13 packets (13 >= 27 >> 1)
        let accepted = (0..40).filter(|_| offer(&mut h, 1, 0, 1)).count();
        assert_eq!(accepted, 13);
        assert_eq!(h.dropped.len(), 27);
        assert!(h.dropped.iter().all(|(_, r)| *r == DropReason::QueueFull));
        // another bucket still gets in: 0 < (40 - 13) >> 1
        assert!(offer(&mut h, 2, 0, 2));
        // the same two flows share a bucket when their node pairs collide
        assert!(!offer(&mut h, 9, 1, 0));
    }

    #[test]
    fn near_the_limit_a_bucket_gets_no_more_than_its_fair_share() {
        // maxqueue 20, 16 buckets: fair share 1. Pairs (0,1)..(0,4) take buckets 0..3.
        let mut h = harness(20, 16);
        assert!(offer(&mut h, 1, 0, 1) && offer(&mut h, 1, 0, 1));
        // 18 left >= 16 buckets: only the half rule applies (2 < 18 >> 1)
        assert!(offer(&mut h, 1, 0, 1));
        assert!(offer(&mut h, 2, 0, 2) && offer(&mut h, 3, 0, 3));
        // 15 left < 16 buckets: bucket 0 holds 3 > 1 and is refused although 3 < 15 >> 1,
        // bucket 1 holds 1 (not above the share) and gets one more
        assert!(!offer(&mut h, 1, 0, 1));
        assert!(offer(&mut h, 2, 0, 2));
        assert!(!offer(&mut h, 2, 0, 2));
        assert!(offer(&mut h, 4, 0, 4));
    }
}
