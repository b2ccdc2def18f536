//! An output port of a shared-buffer switch with priority classes (`priorities.rs`): one
//! [`SharedQueue`] per priority, each admitted by the pool with its own threshold and marking
//! at its own K, and a scheduler between them. A packet joins the queue of its flow's `class`,
//! min(class, P - 1), as the `prio` discipline picks its band.
//!
//! The scheduler is the `classful` discipline's (`qdisc/classful.rs`), given the queues built:
//!
//! * `priority`: strict priority, queue 0 first (IEEE 802.1Q-2018 clause 8.6.8.1, the strict
//!   priority transmission selection algorithm, every queue's default);
//! * `drr`: Deficit Round Robin (Shreedhar and Varghese, "Efficient fair queuing using deficit
//!   round-robin", IEEE/ACM Transactions on Networking 4(3), 1996): each turn adds
//!   weight x quantum bytes to a queue's deficit. As that discipline's children cannot be
//!   peeked, a queue sends while its deficit is positive and the deficit may go negative, the
//!   variant Linux `sch_sfq` uses; the long-run byte shares are the weights' (the paper's
//!   packet-by-packet test against the head's size is not made);
//! * `wrr`: weight packets per queue per round.
//!
//! Per queue the port reports (`queues[].classes`, named `p0`, `p1`, ...) arrivals,
//! departures, drops by reason, marks and lengths, from the warm-up on, and the pool reports
//! each queue (`switches[].queues[]`, with its `priority`) and its threshold series.

use super::pool::SharedPool;
use super::priorities::QueueSettings;
use super::queue::SharedQueue;
use crate::packet::Packet;
use crate::qdisc::classful::{ClassMatch, ClassParts, ClassScheduler, Classful, ClassifyBy};
use crate::qdisc::{QueueCtx, QueueDisc};
use crate::units::{Bytes, SimTime};
use std::cell::RefCell;
use std::rc::Rc;

pub struct PriorityPort {
    pool: Rc<RefCell<SharedPool>>,
    /// The pool's index of each priority's queue, and its weight.
    queues: Vec<(usize, u32)>,
    scheduler: ClassScheduler,
    quantum: Bytes,
    classes: Classful,
}

impl PriorityPort {
    /// The port's queues: `queues[p]` is priority p's index in the pool and its settings.
    pub fn new(
        pool: Rc<RefCell<SharedPool>>,
        queues: &[(usize, QueueSettings)],
        scheduler: ClassScheduler,
        quantum: Bytes,
    ) -> Self {
        let last = queues.len().saturating_sub(1);
        let parts = queues
            .iter()
            .enumerate()
            .map(|(p, (index, s))| ClassParts {
                name: format!("p{p}"),
                // min(class, P - 1): the last queue takes every class above it
                matches: if p == last {
                    ClassMatch::Name("default".into())
                } else {
                    ClassMatch::Number(p as u32)
                },
                weight: s.weight,
                q: Box::new(SharedQueue::new(pool.clone(), *index, s.ecn_threshold)),
            })
            .collect();
        Self {
            pool,
            queues: queues.iter().map(|(i, s)| (*i, s.weight)).collect(),
            scheduler,
            quantum,
            classes: Classful::from_parts(ClassifyBy::Class, scheduler, quantum, parts),
        }
    }
}

impl QueueDisc for PriorityPort {
    #[inline]
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        self.classes.enqueue(pkt, cx);
    }

    #[inline]
    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        self.classes.dequeue(cx)
    }

    fn len_packets(&self) -> usize {
        self.classes.len_packets()
    }

    fn len_bytes(&self) -> u64 {
        self.classes.len_bytes()
    }

    fn kind(&self) -> &'static str {
        "shared_buffer"
    }

    fn class_stats(&self, now: SimTime) -> Option<serde_json::Value> {
        self.classes.class_stats(now)
    }

    fn measure_from(&mut self, start: SimTime) {
        self.classes.measure_from(start);
    }

    fn reserve_class_statistics(&mut self, max: SimTime) {
        self.classes.reserve_class_statistics(max);
    }

    fn resolved_settings(&self, _rate_bps: f64) -> Option<serde_json::Value> {
        let pool = self.pool.borrow();
        let priorities: Vec<serde_json::Value> = self
            .queues
            .iter()
            .enumerate()
            .map(|(p, &(i, weight))| {
                let q = &pool.queues[i];
                let mut v = serde_json::json!({
                    "priority": p,
                    "alpha": q.alpha,
                    "threshold": q.threshold,
                    "weight": weight,
                });
                if let Some(k) = &q.ecn_threshold {
                    v["ecn_threshold"] = serde_json::json!(k);
                }
                v
            })
            .collect();
        Some(serde_json::json!({
            "switch": pool.name,
            "policy": pool.policy,
            "buffer": pool.buffer,
            "unit": if pool.bytes { "bytes" } else { "packets" },
            "scheduler": self.scheduler,
            "quantum": self.quantum,
            "priorities": priorities,
        }))
    }
}
