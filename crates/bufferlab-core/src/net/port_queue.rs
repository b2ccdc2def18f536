//! The queue of an output port: DropTail held inline, every other discipline behind the
//! [`QueueDisc`] trait object.
//!
//! DropTail is the discipline of nearly every port (all access links, most bottlenecks), and a
//! packet meets a port's queue five to six times per hop (enqueue, dequeue, lengths for the
//! accounting). Matching on an enum lets the compiler inline DropTail's few instructions and
//! move the packet straight between the wire and the queue, where a virtual call forces a copy
//! of the 128-byte packet into an argument slot at each call. Measured with cachegrind on the
//! 100-flow bench case (docs/performance.md, "The hot path"). Behaviour is unchanged: the
//! inline DropTail is the same type the trait object would hold.

use crate::packet::Packet;
use crate::qdisc::droptail::DropTail;
use crate::qdisc::{QueueCtx, QueueDisc};
use crate::units::SimTime;

pub enum PortQueue {
    DropTail(DropTail),
    Dyn(Box<dyn QueueDisc>),
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
            q.release();
        }
    }

    /// Makes room for a full queue where the discipline stores packets in one deque
    /// (DropTail); other disciplines keep their own sizing.
    pub fn reserve_full(&mut self) {
        if let PortQueue::DropTail(q) = self {
            q.reserve_full();
        }
    }

    #[inline(always)]
    pub fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        match self {
            PortQueue::DropTail(q) => q.enqueue(pkt, cx),
            PortQueue::Dyn(q) => q.enqueue(pkt, cx),
        }
    }

    #[inline(always)]
    pub fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        match self {
            PortQueue::DropTail(q) => q.dequeue(cx),
            PortQueue::Dyn(q) => q.dequeue(cx),
        }
    }

    #[inline(always)]
    pub fn len_packets(&self) -> usize {
        match self {
            PortQueue::DropTail(q) => q.len_packets(),
            PortQueue::Dyn(q) => q.len_packets(),
        }
    }

    #[inline(always)]
    pub fn len_bytes(&self) -> u64 {
        match self {
            PortQueue::DropTail(q) => q.len_bytes(),
            PortQueue::Dyn(q) => q.len_bytes(),
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

    /// The discipline itself, for what is not on the hot path (name, average, class counters).
    pub fn disc(&self) -> &dyn QueueDisc {
        match self {
            PortQueue::DropTail(q) => q,
            PortQueue::Dyn(q) => q.as_ref(),
        }
    }
}
