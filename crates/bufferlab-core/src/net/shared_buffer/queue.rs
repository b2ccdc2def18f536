//! An output port's queue in a shared-buffer switch: first in, first out, each packet admitted
//! by the switch's pool (`pool.rs`), which counts it until it leaves.
//!
//! With an ECN threshold K the queue marks as DCTCP's switches do (Alizadeh et al., "Data
//! Center TCP", SIGCOMM 2010, section 3.1, "simple marking at the switch"): an admitted
//! ECN-capable packet is marked CE when the queue's instantaneous length on its arrival (the
//! packets or bytes already waiting, not counting it) is at or above K. That is what ns-3's
//! `RedQueueDisc` does with `UseEcn`, `MinTh = MaxTh = K` and `QW = 1` (the setting of ns-3's
//! `examples/tcp/dctcp-example.cc`): in `RedQueueDisc::DoEnqueue` the average is then the
//! length before the arrival, and `qAvg >= maxTh` forces a mark. Unlike that RED, a packet
//! that is not ECN-capable is not dropped for being above K here: only the pool's policy
//! drops (a switch chip's ECN marking threshold and its admission are separate settings).

use super::pool::{Admission, SharedPool};
use crate::packet::Packet;
use crate::qdisc::{DropReason, QueueCtx, QueueDisc};
use crate::units::QueueLimit;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

pub struct SharedQueue {
    pool: Rc<RefCell<SharedPool>>,
    /// This queue's index in the pool.
    index: usize,
    q: VecDeque<Packet>,
    bytes: u64,
    /// DCTCP's marking threshold K, in packets or bytes.
    ecn_threshold: Option<QueueLimit>,
}

impl SharedQueue {
    pub fn new(
        pool: Rc<RefCell<SharedPool>>,
        index: usize,
        ecn_threshold: Option<QueueLimit>,
    ) -> Self {
        if let Some(k) = ecn_threshold {
            pool.borrow_mut().set_ecn_threshold(index, k.to_string());
        }
        Self {
            pool,
            index,
            q: VecDeque::new(),
            bytes: 0,
            ecn_threshold,
        }
    }

    /// The queue's length at or above K (before the arriving packet joins it).
    fn above_k(&self) -> bool {
        match self.ecn_threshold {
            None => false,
            Some(QueueLimit::Packets(k)) => self.q.len() as u64 >= k,
            Some(QueueLimit::Bytes(k)) => self.bytes >= k,
        }
    }
}

impl QueueDisc for SharedQueue {
    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QueueCtx) {
        let mark = self.above_k();
        let mut pool = self.pool.borrow_mut();
        let units = pool.units(pkt.size);
        match pool.admit(self.index, units, pkt.tcp.unscheduled, cx.now) {
            Admission::Admit => {
                let before = cx.marks();
                if mark && cx.mark(&mut pkt) && cx.marks() > before {
                    pool.count_mark(self.index, cx.now);
                }
                self.bytes += u64::from(pkt.size);
                self.q.push_back(pkt);
            }
            Admission::Threshold => cx.drop(pkt, DropReason::SharedThreshold),
            Admission::PoolFull => cx.drop(pkt, DropReason::SharedPoolFull),
        }
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        let pkt = self.q.pop_front()?;
        self.bytes -= u64::from(pkt.size);
        let mut pool = self.pool.borrow_mut();
        let units = pool.units(pkt.size);
        pool.release(self.index, units, pkt.size, cx.now);
        Some(pkt)
    }

    fn len_packets(&self) -> usize {
        self.q.len()
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn kind(&self) -> &'static str {
        "shared_buffer"
    }

    fn resolved_settings(&self, _rate_bps: f64) -> Option<serde_json::Value> {
        let pool = self.pool.borrow();
        let q = &pool.queues[self.index];
        let mut v = serde_json::json!({
            "switch": pool.name,
            "policy": pool.policy,
            "buffer": pool.buffer,
            "unit": if pool.bytes { "bytes" } else { "packets" },
            "alpha": q.alpha,
            "threshold": q.threshold,
        });
        if let Some(k) = &q.ecn_threshold {
            v["ecn_threshold"] = serde_json::json!(k);
        }
        Some(v)
    }
}
