//! The queue of an output port: DropTail held inline, every other discipline behind the
//! [`QueueDisc`] trait object.
//!
//! DropTail is the discipline of nearly every port (all access links, most bottlenecks), and a
//! packet meets a port's queue five to six times per hop (enqueue, dequeue, lengths for the
//! accounting). Matching on an enum lets the compiler inline DropTail's few instructions and
//! move the packet straight between the wire and the queue, where a virtual call forces a copy
//! of the 128-byte packet into an argument slot at each call. Measured with cachegrind on the
//! 100-flow bench case (docs/performance.md, "The hot path"). Behaviour is unchanged: the
//! inline DropTail applies the drop rule of the type the trait object would hold.
//!
//! The inline DropTail holds packet handles ([`PacketRef`], `net/packet_pool.rs`), 4 bytes a
//! slot instead of 128; what leaves any discipline leaves as a handle, which the port puts on
//! the wire as it is.

use super::packet_pool::{PacketPool, PacketRef};
use crate::qdisc::droptail::DropRule;
use crate::qdisc::{DropReason, QueueCtx, QueueDisc};
use crate::units::SimTime;
use std::collections::VecDeque;

pub enum PortQueue {
    DropTail(InlineDropTail),
    Dyn(Box<dyn QueueDisc>),
}

/// DropTail at a port: its drop rule and settings (`qdisc/droptail.rs`, whose own deque stays
/// empty) and the waiting packets as handles, with their bytes.
pub struct InlineDropTail {
    rule: DropRule,
    q: VecDeque<PacketRef>,
    bytes: u64,
}

impl InlineDropTail {
    pub fn new(rule: DropRule) -> Self {
        Self {
            rule,
            q: VecDeque::new(),
            bytes: 0,
        }
    }
}

impl From<Box<dyn QueueDisc>> for PortQueue {
    fn from(q: Box<dyn QueueDisc>) -> Self {
        PortQueue::Dyn(q)
    }
}

impl PortQueue {
    /// Frees a DropTail queue's storage once the run is over (`Simulation::release_packets`).
    pub fn release(&mut self) {
        if let PortQueue::DropTail(q) = self {
            q.q = VecDeque::new();
            q.bytes = 0;
        }
    }

    /// Makes room for a full queue where the discipline stores packets in one deque
    /// (DropTail), and returns how many packets that is (the pool's share); other disciplines
    /// keep their own sizing (0).
    pub fn reserve_full(&mut self) -> usize {
        if let PortQueue::DropTail(q) = self {
            let n = q.rule.full_packets();
            q.q.reserve(n.saturating_sub(q.q.len()));
            n
        } else {
            0
        }
    }

    /// Offers the packet behind `r` to the discipline: DropTail keeps the handle, a discipline
    /// behind the trait takes the packet out of the pool.
    #[inline(always)]
    pub fn enqueue(&mut self, r: PacketRef, cx: &mut QueueCtx, pool: &mut PacketPool) {
        match self {
            PortQueue::DropTail(q) => {
                let size = pool.get(r).size as u64;
                if q.rule.overflows(q.q.len(), q.bytes, size) {
                    cx.drop(pool.take(r), DropReason::QueueFull);
                } else {
                    q.bytes += size;
                    q.q.push_back(r);
                }
            }
            PortQueue::Dyn(q) => q.enqueue(pool.take(r), cx),
        }
    }

    /// The next packet to send, as a handle in `pool`.
    #[inline(always)]
    pub fn dequeue(&mut self, cx: &mut QueueCtx, pool: &mut PacketPool) -> Option<PacketRef> {
        match self {
            PortQueue::DropTail(q) => {
                let r = q.q.pop_front()?;
                q.bytes -= pool.get(r).size as u64;
                Some(r)
            }
            PortQueue::Dyn(q) => q.dequeue(cx).map(|p| pool.put(p)),
        }
    }

    #[inline(always)]
    pub fn len_packets(&self) -> usize {
        match self {
            PortQueue::DropTail(q) => q.q.len(),
            PortQueue::Dyn(q) => q.len_packets(),
        }
    }

    #[inline(always)]
    pub fn len_bytes(&self) -> u64 {
        match self {
            PortQueue::DropTail(q) => q.bytes,
            PortQueue::Dyn(q) => q.len_bytes(),
        }
    }

    /// After a dequeue that gave nothing while packets wait: when the discipline (a shaper,
    /// `qdisc/tbf.rs`) can send again. DropTail always can.
    #[inline(always)]
    pub fn wake_at(&self) -> Option<SimTime> {
        match self {
            PortQueue::DropTail(_) => None,
            PortQueue::Dyn(q) => q.wake_at(),
        }
    }

    /// The link went idle at `since` (its last transmission ended) and is about to take a
    /// packet: RED decays its average over the idle time. DropTail has nothing to do.
    #[inline(always)]
    pub fn link_idle(&mut self, since: SimTime) {
        if let PortQueue::Dyn(q) = self {
            q.link_idle(since);
        }
    }

    /// Per-class statistics count from `start` (`QueueDisc::measure_from`).
    pub fn measure_from(&mut self, start: SimTime) {
        if let PortQueue::Dyn(q) = self {
            q.measure_from(start);
        }
    }

    /// Sizes the discipline's per-class sojourn histograms for waits up to `max`.
    pub fn reserve_class_statistics(&mut self, max: SimTime) {
        if let PortQueue::Dyn(q) = self {
            q.reserve_class_statistics(max);
        }
    }

    /// A DropTail queue's new packet limit (`DropRule::set_packet_limit`); false for another
    /// discipline or a byte limit, which keep theirs.
    pub fn set_packet_limit(&mut self, packets: u64) -> bool {
        match self {
            PortQueue::DropTail(q) => q.rule.set_packet_limit(packets),
            PortQueue::Dyn(_) => false,
        }
    }

    /// The flows' ns-2 flow ids, by flow index (`QueueDisc::set_flow_ids`).
    pub fn set_flow_ids(&mut self, fids: &[u32]) {
        if let PortQueue::Dyn(q) = self {
            q.set_flow_ids(fids);
        }
    }

    /// The discipline itself, for what is not on the hot path (name, average, settings, class
    /// counters; not its lengths, which are the port's).
    pub fn disc(&self) -> &dyn QueueDisc {
        match self {
            PortQueue::DropTail(_) => &crate::qdisc::droptail::AS_DISCIPLINE,
            PortQueue::Dyn(q) => q.as_ref(),
        }
    }
}
