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
//!
//! A discipline behind the trait keeps its random stream beside it ([`LazyRng`], made at its
//! first draw); DropTail never draws, so the ports of a large run (nearly all DropTail) hold
//! no stream, and a DropTail call builds no [`QueueCtx`].

use super::packet_pool::{PacketPool, PacketRef};
use crate::packet::Packet;
use crate::qdisc::droptail::DropRule;
use crate::qdisc::{DropReason, QueueCtx, QueueDisc};
use crate::rng::LazyRng;
use crate::units::{Rate, SimTime};
use std::collections::VecDeque;

pub enum PortQueue {
    DropTail(InlineDropTail),
    /// The discipline and its own random stream.
    Dyn(Box<dyn QueueDisc>, LazyRng),
}

/// What the port tells the discipline of the moment it calls it (`QueueCtx`'s fields).
#[derive(Copy, Clone, Debug)]
pub struct QueueCall {
    pub now: SimTime,
    pub link_rate: Rate,
    pub link_busy: bool,
    /// The time in ns-2's double seconds, under ns-2's clock.
    pub ns2_now_s: Option<f64>,
}

impl QueueCall {
    #[inline(always)]
    fn cx<'a>(
        self,
        rng: &'a mut LazyRng,
        drops: &'a mut Vec<(Packet, DropReason)>,
    ) -> QueueCtx<'a> {
        let mut cx = QueueCtx::new(self.now, rng, self.link_rate, self.link_busy, drops);
        cx.ns2_now_s = self.ns2_now_s;
        cx
    }
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
    /// The discipline with a stream that is never drawn from until
    /// [`with_rng`](PortQueue::with_rng) gives it the port's own.
    fn from(q: Box<dyn QueueDisc>) -> Self {
        PortQueue::Dyn(q, LazyRng::Seed(0))
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

    /// Gives a discipline behind the trait its random stream (the port's `<link>/queue`
    /// stream, `scenario/streams.rs`); DropTail never draws and keeps none.
    pub fn with_rng(self, rng: LazyRng) -> Self {
        match self {
            PortQueue::Dyn(q, _) => PortQueue::Dyn(q, rng),
            q => q,
        }
    }

    /// Offers the packet behind `r` to the discipline: DropTail keeps the handle, a discipline
    /// behind the trait takes the packet out of the pool. Drops go to `drops`; returns the
    /// ECN marks made.
    #[inline(always)]
    pub fn enqueue(
        &mut self,
        r: PacketRef,
        call: QueueCall,
        drops: &mut Vec<(Packet, DropReason)>,
        pool: &mut PacketPool,
    ) -> u64 {
        match self {
            PortQueue::DropTail(q) => {
                let size = pool.get(r).size as u64;
                if q.rule.overflows(q.q.len(), q.bytes, size) {
                    drops.push((pool.take(r), DropReason::QueueFull));
                } else {
                    q.bytes += size;
                    super::ring::push_back(&mut q.q, r);
                }
                0
            }
            PortQueue::Dyn(q, rng) => {
                let mut cx = call.cx(rng, drops);
                q.enqueue(pool.take(r), &mut cx);
                cx.marks()
            }
        }
    }

    /// The next packet to send, as a handle in `pool`, and the ECN marks made; drops go to
    /// `drops`.
    #[inline(always)]
    pub fn dequeue(
        &mut self,
        call: QueueCall,
        drops: &mut Vec<(Packet, DropReason)>,
        pool: &mut PacketPool,
    ) -> (Option<PacketRef>, u64) {
        match self {
            PortQueue::DropTail(q) => {
                let r = q.q.pop_front();
                if let Some(r) = r {
                    q.bytes -= pool.get(r).size as u64;
                }
                (r, 0)
            }
            PortQueue::Dyn(q, rng) => {
                let mut cx = call.cx(rng, drops);
                let r = q.dequeue(&mut cx).map(|p| pool.put(p));
                (r, cx.marks())
            }
        }
    }

    /// The handle DropTail sends next; None for a discipline behind the trait (its order is
    /// its own).
    #[inline(always)]
    pub fn head(&self) -> Option<&PacketRef> {
        match self {
            PortQueue::DropTail(q) => q.q.front(),
            PortQueue::Dyn(..) => None,
        }
    }

    #[inline(always)]
    pub fn len_packets(&self) -> usize {
        match self {
            PortQueue::DropTail(q) => q.q.len(),
            PortQueue::Dyn(q, _) => q.len_packets(),
        }
    }

    #[inline(always)]
    pub fn len_bytes(&self) -> u64 {
        match self {
            PortQueue::DropTail(q) => q.bytes,
            PortQueue::Dyn(q, _) => q.len_bytes(),
        }
    }

    /// After a dequeue that gave nothing while packets wait: when the discipline (a shaper,
    /// `qdisc/tbf.rs`) can send again. DropTail always can.
    #[inline(always)]
    pub fn wake_at(&self) -> Option<SimTime> {
        match self {
            PortQueue::DropTail(_) => None,
            PortQueue::Dyn(q, _) => q.wake_at(),
        }
    }

    /// The link went idle at `since` (its last transmission ended) and is about to take a
    /// packet: RED decays its average over the idle time. DropTail has nothing to do.
    #[inline(always)]
    pub fn link_idle(&mut self, since: SimTime) {
        if let PortQueue::Dyn(q, _) = self {
            q.link_idle(since);
        }
    }

    /// Per-class statistics count from `start` (`QueueDisc::measure_from`).
    pub fn measure_from(&mut self, start: SimTime) {
        if let PortQueue::Dyn(q, _) = self {
            q.measure_from(start);
        }
    }

    /// Sizes the discipline's per-class sojourn histograms for waits up to `max`.
    pub fn reserve_class_statistics(&mut self, max: SimTime) {
        if let PortQueue::Dyn(q, _) = self {
            q.reserve_class_statistics(max);
        }
    }

    /// A DropTail queue's new packet limit (`DropRule::set_packet_limit`); false for another
    /// discipline or a byte limit, which keep theirs.
    pub fn set_packet_limit(&mut self, packets: u64) -> bool {
        match self {
            PortQueue::DropTail(q) => q.rule.set_packet_limit(packets),
            PortQueue::Dyn(..) => false,
        }
    }

    /// The flows' ns-2 flow ids, by flow index (`QueueDisc::set_flow_ids`).
    pub fn set_flow_ids(&mut self, fids: &[u32]) {
        if let PortQueue::Dyn(q, _) = self {
            q.set_flow_ids(fids);
        }
    }

    /// The discipline itself, for what is not on the hot path (name, average, settings, class
    /// counters; not its lengths, which are the port's).
    pub fn disc(&self) -> &dyn QueueDisc {
        match self {
            PortQueue::DropTail(_) => &crate::qdisc::droptail::AS_DISCIPLINE,
            PortQueue::Dyn(q, _) => q.as_ref(),
        }
    }
}
