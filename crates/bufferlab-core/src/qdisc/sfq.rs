//! Stochastic Fairness Queueing (McKenney, "Stochastic Fairness Queueing", INFOCOM 1990) as
//! Linux `net/sched/sch_sfq.c` runs it: flows are hashed into `divisor` buckets (the hash is
//! salted and the salt changes every `perturb` seconds); active buckets are served round robin
//! with a byte allotment (`allot += quantum` when it is spent, a packet is sent while
//! `allot > 0`: DRR that lets the allotment go negative); a new bucket joins the end of the round;
//! when the total exceeds `limit` packets, the tail packet of the longest bucket is dropped
//! (`sfq_drop`, reason `longest_queue`).
//!
//! Defaults (Linux): limit 127 packets, divisor 1024, quantum 1514 B (the device MTU + 14),
//! perturb 0 (never; tc-sfq(8) suggests 10 s). On a perturbation bufferlab rehashes only new
//! arrivals (Linux 3.x+ also moves queued packets); packets already queued stay in their bucket.

use super::drr::mix;
use super::{DropReason, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::scenario::queue_config::{FlowKey, SfqConfig};
use crate::units::{QueueLimit, SimTime};
use rand::RngExt;
use std::collections::VecDeque;

#[derive(Default)]
struct Slot {
    q: VecDeque<Packet>,
    bytes: u64,
    allot: i64,
    active: bool,
}

pub struct Sfq {
    slots: Vec<Slot>,
    round: VecDeque<usize>,
    cfg: SfqConfig,
    salt: u64,
    next_perturb: Option<SimTime>,
    len: usize,
    bytes: u64,
}

impl Sfq {
    pub fn new(cfg: &SfqConfig) -> Self {
        Self {
            slots: (0..cfg.divisor.max(1)).map(|_| Slot::default()).collect(),
            round: VecDeque::new(),
            cfg: cfg.clone(),
            salt: 0,
            next_perturb: (cfg.perturb.0 > 0).then_some(cfg.perturb),
            len: 0,
            bytes: 0,
        }
    }

    fn slot_of(&self, p: &Packet) -> usize {
        let key = match self.cfg.by {
            FlowKey::Flow => p.flow.0 as u64 | 1 << 40,
            FlowKey::Src => p.src.0 as u64 | 2 << 40,
            FlowKey::SrcDst => ((p.src.0 as u64) << 20) ^ p.dst.0 as u64 | 3 << 40,
        };
        (mix(key ^ self.salt) % self.slots.len() as u64) as usize
    }

    fn over(&self) -> bool {
        match self.cfg.limit {
            QueueLimit::Packets(l) => self.len as u64 > l,
            QueueLimit::Bytes(l) => self.bytes > l,
        }
    }
}

impl QueueDisc for Sfq {
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        if let Some(t) = self.next_perturb {
            if cx.now >= t {
                self.salt = cx.rng.random();
                let step = self.cfg.perturb.0;
                let k = (cx.now.0 - t.0) / step + 1;
                self.next_perturb = Some(SimTime(t.0 + k * step));
            }
        }
        let s = self.slot_of(&pkt);
        let size = pkt.size as u64;
        let quantum = self.cfg.quantum.0 as i64;
        let sl = &mut self.slots[s];
        sl.q.push_back(pkt);
        sl.bytes += size;
        self.len += 1;
        self.bytes += size;
        if !sl.active {
            sl.active = true;
            sl.allot = quantum;
            self.round.push_back(s);
        }
        while self.over() {
            let mut max = self.round[0];
            for &x in self.round.iter() {
                if self.slots[x].q.len() > self.slots[max].q.len() {
                    max = x;
                }
            }
            let sl = &mut self.slots[max];
            let p = sl.q.pop_back().expect("active slot");
            sl.bytes -= p.size as u64;
            self.len -= 1;
            self.bytes -= p.size as u64;
            if sl.q.is_empty() {
                sl.active = false;
                if let Some(pos) = self.round.iter().position(|&x| x == max) {
                    self.round.remove(pos);
                }
            }
            cx.drop(p, DropReason::LongestQueue);
        }
    }

    fn dequeue(&mut self, _cx: &mut QueueCtx) -> Option<Packet> {
        let quantum = self.cfg.quantum.0.max(1) as i64;
        loop {
            let s = *self.round.front()?;
            let sl = &mut self.slots[s];
            if sl.allot <= 0 {
                sl.allot += quantum;
                self.round.rotate_left(1);
                continue;
            }
            let p = sl.q.pop_front().expect("active slot");
            sl.bytes -= p.size as u64;
            sl.allot -= p.size as i64;
            self.len -= 1;
            self.bytes -= p.size as u64;
            if sl.q.is_empty() {
                sl.active = false;
                self.round.pop_front();
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
    use super::super::tests_common::backlogged_shares;
    use super::*;

    // ---- backlogged flows of different packet sizes share bytes fairly ----
    #[test]
    fn jain_index_of_backlogged_flows() {
        let cfg = SfqConfig {
            limit: QueueLimit::Packets(10_000),
            ..Default::default()
        };
        // 4 flows in 1024 buckets: check they did not collide, then measure
        let jain = backlogged_shares(Box::new(Sfq::new(&cfg)), &[200, 576, 1500, 1000]);
        assert!(jain > 0.99, "{jain}");
    }

    // ---- the longest bucket loses its tail on overflow ----
    #[test]
    fn overflow_drops_tail_of_longest() {
        use super::super::harness::Harness;
        use crate::units::Rate;
        let cfg = SfqConfig {
            limit: QueueLimit::Packets(5),
            ..Default::default()
        };
        let mut h = Harness::new(Box::new(Sfq::new(&cfg)), Rate(1_000_000));
        for _ in 0..4 {
            let p = h.packet(0, 1000);
            h.enqueue(SimTime(0), p);
        }
        let p = h.packet(1, 1000);
        h.enqueue(SimTime(0), p);
        let p = h.packet(1, 1000);
        h.enqueue(SimTime(0), p);
        assert_eq!(h.dropped.len(), 1);
        assert_eq!(h.dropped[0].0.flow.0, 0);
        assert_eq!(h.dropped[0].0.uid, 4);
    }
}
