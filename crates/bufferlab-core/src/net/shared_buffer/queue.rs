//! An output port's queue in a shared-buffer switch: first in, first out, each packet admitted
//! by the switch's pool (`pool.rs`), which counts it until it leaves.

use super::pool::{Admission, SharedPool};
use crate::packet::Packet;
use crate::qdisc::{DropReason, QueueCtx, QueueDisc};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

pub struct SharedQueue {
    pool: Rc<RefCell<SharedPool>>,
    /// This queue's index in the pool.
    index: usize,
    q: VecDeque<Packet>,
    bytes: u64,
}

impl SharedQueue {
    pub fn new(pool: Rc<RefCell<SharedPool>>, index: usize) -> Self {
        Self {
            pool,
            index,
            q: VecDeque::new(),
            bytes: 0,
        }
    }
}

impl QueueDisc for SharedQueue {
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        let mut pool = self.pool.borrow_mut();
        let units = pool.units(pkt.size);
        match pool.admit(self.index, units, cx.now) {
            Admission::Admit => {
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
        pool.release(self.index, units, cx.now);
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
        Some(serde_json::json!({
            "switch": pool.name,
            "policy": pool.policy,
            "buffer": pool.buffer,
            "unit": if pool.bytes { "bytes" } else { "packets" },
            "alpha": q.alpha,
            "threshold": q.threshold,
        }))
    }
}
