//! ns-2.35's fair queueing as `FQLink` builds it (tcl/lib/ns-link.tcl) and `Queue/FQ` schedules
//! it (queue/fq.cc). Chosen with `kind = "fq", preset = "ns2"`.
//!
//! * Flows are told apart by their ns-2 flow id (`fid_`, the trace's flow id: flows with the
//!   same `fid_` share one queue, an ACK goes with its data's flow).
//! * Each flow has a DropTail queue (`Queue/DropTail limit_`, 50) in front of the scheduler,
//!   which holds one head-of-line packet per flow: the flow's queue is blocked while its head
//!   waits, and sends the next packet up when the scheduler takes the head. So a flow holds
//!   the head and up to `limit_ - 1` behind it (drop-tail.cc drops when `len + 1 >= qlim_`).
//! * A packet becoming its flow's head (`FQ::recv`) sets the flow's finish time to
//!   `max(now, finishTime_)` and its `delta_` to `size x secsPerByte_` (8 / the link's
//!   bandwidth); the scheduler (`FQ::deque`) sends the head with the least `finishTime_ +
//!   delta_ x nactive`, `nactive` the flows holding a head (ties: the lowest flow id), and
//!   makes that value the flow's `finishTime_`.
//!
//! Times are in seconds: ns-2's doubles under its clock (`QueueCtx::ns2_now_s`), else the
//! picosecond time in seconds.

use super::droptail::DropTailFlavour;
use super::fq::overflows;
use super::{DropReason, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::units::QueueLimit;
use std::collections::VecDeque;

#[derive(Default)]
struct Flow {
    head: Option<Packet>,
    /// The flow's DropTail queue behind its head.
    waiting: VecDeque<Packet>,
    waiting_bytes: u64,
    finish: f64,
    delta: f64,
}

pub struct Ns2Fq {
    /// By ns-2 flow id.
    flows: Vec<Flow>,
    /// Each engine flow's ns-2 flow id (`QueueDisc::set_flow_ids`); the engine's index until
    /// given.
    fids: Vec<u32>,
    limit: QueueLimit,
    flavour: DropTailFlavour,
    len: usize,
    bytes: u64,
}

impl Ns2Fq {
    pub fn new(limit: QueueLimit, flavour: DropTailFlavour) -> Self {
        Self {
            flows: Vec::new(),
            fids: Vec::new(),
            limit,
            flavour,
            len: 0,
            bytes: 0,
        }
    }

    fn now_s(cx: &QueueCtx) -> f64 {
        cx.ns2_now_s.unwrap_or_else(|| cx.now.as_secs_f64())
    }

    /// `FQ::recv`: `pkt` becomes the head of `flow` at `now` (seconds).
    fn make_head(flow: &mut Flow, pkt: Packet, now: f64, secs_per_byte: f64) {
        if now > flow.finish {
            flow.finish = now;
        }
        flow.delta = pkt.size as f64 * secs_per_byte;
        flow.head = Some(pkt);
    }
}

/// ns-2's FQLink: `$q set secsPerByte_ [expr 8.0 / [$link set bandwidth_]]`.
fn secs_per_byte(cx: &QueueCtx) -> f64 {
    8.0 / cx.link_rate.0 as f64
}

impl QueueDisc for Ns2Fq {
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        let f = pkt.flow.0 as usize;
        let i = self.fids.get(f).map_or(f, |&id| id as usize);
        if i >= self.flows.len() {
            self.flows.resize_with(i + 1, Flow::default);
        }
        let flow = &mut self.flows[i];
        let size = pkt.size as u64;
        // Queue::recv: the flow's DropTail decides first (its length without the head), then
        // an unblocked queue (no head waiting) sends the packet straight up
        let waiting = flow.waiting.len() as u64;
        if overflows(self.limit, self.flavour, waiting, flow.waiting_bytes, size) {
            cx.drop(pkt, DropReason::QueueFull);
            return;
        }
        self.len += 1;
        self.bytes += size;
        if flow.head.is_none() {
            Self::make_head(flow, pkt, Self::now_s(cx), secs_per_byte(cx));
        } else {
            flow.waiting_bytes += size;
            flow.waiting.push_back(pkt);
        }
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        let nactive = self.flows.iter().filter(|f| f.head.is_some()).count() as f64;
        let mut best: Option<(usize, f64)> = None;
        for (i, f) in self.flows.iter().enumerate() {
            if f.head.is_some() {
                let fin = f.finish + f.delta * nactive;
                if best.is_none_or(|(_, b)| fin < b) {
                    best = Some((i, fin));
                }
            }
        }
        let (i, fin) = best?;
        let flow = &mut self.flows[i];
        let pkt = flow.head.take()?;
        flow.finish = fin;
        // the flow's queue resumes: its next packet becomes the head
        if let Some(next) = flow.waiting.pop_front() {
            flow.waiting_bytes -= next.size as u64;
            Self::make_head(flow, next, Self::now_s(cx), secs_per_byte(cx));
        }
        self.len -= 1;
        self.bytes -= pkt.size as u64;
        Some(pkt)
    }

    fn set_flow_ids(&mut self, fids: &[u32]) {
        self.fids = fids.to_vec();
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
    use super::*;
    use crate::units::{Rate, SimTime};

    fn fq() -> Box<Ns2Fq> {
        Box::new(Ns2Fq::new(QueueLimit::Packets(50), DropTailFlavour::Ns2))
    }

    #[test]
    fn a_flow_holds_its_head_and_limit_minus_one_behind_it() {
        let mut h = Harness::new(fq(), Rate(1_000_000));
        for _ in 0..60 {
            for f in 0..2 {
                let p = h.packet(f, 1000);
                h.enqueue(SimTime(0), p);
            }
        }
        assert_eq!(h.q.len_packets(), 100); // 1 + 49 per flow
        assert_eq!(h.dropped.len(), 20);
    }

    #[test]
    fn flows_sharing_a_flow_id_share_a_queue() {
        let mut q = fq();
        q.set_flow_ids(&[0, 0]); // both engine flows are ns-2's fid 0
        let mut h = Harness::new(q, Rate(1_000_000));
        for _ in 0..60 {
            for f in 0..2 {
                let p = h.packet(f, 1000);
                h.enqueue(SimTime(0), p);
            }
        }
        assert_eq!(h.q.len_packets(), 50);
    }

    #[test]
    fn the_least_finish_plus_delta_times_active_goes_first() {
        // flow 0: 1000-byte packets, flow 1: 500-byte ones, both backlogged from time 0 at
        // 1 Mb/s (8 us a byte): F0 = 0 + 8 ms x 2, F1 = 0 + 4 ms x 2, so flow 1 first; its
        // next head (finish 8 ms + 4 ms x 2 = 16 ms) ties flow 0's 16 ms: the lower id goes;
        // then flow 1's 8 + 8 = 16 ms before flow 0's 16 + 16 = 32 ms, and its 16 + 8 = 24 ms
        let mut h = Harness::new(fq(), Rate(1_000_000));
        for _ in 0..3 {
            let a = h.packet(0, 1000);
            h.enqueue(SimTime(0), a);
            let b = h.packet(1, 500);
            h.enqueue(SimTime(0), b);
        }
        let order: Vec<u32> = (0..4)
            .map(|_| h.dequeue(SimTime(0)).unwrap().flow.0)
            .collect();
        assert_eq!(order, vec![1, 0, 1, 1]);
    }
}
