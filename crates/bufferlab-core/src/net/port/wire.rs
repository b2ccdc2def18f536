//! The wire: packets being serialised or propagating, in the order they started, each with
//! its arrival key at the far node (one pending `Arrive` a port, htsim's trick). A packet
//! leaves it at the far node, where a loss after the link is decided (ns-2's
//! `link-lossmodel`, ns-3's receive error model); the rate and delay may change during a run
//! (ns-2's `$ns bandwidth` and `$ns delay`), and DelayLink's `avoidReordering_` (delay.cc
//! `LinkDelay::recv`) keeps arrivals in order.

use super::{Port, PortCx};
use crate::ids::{FlowId, NodeId};
use crate::monitor::ns2_trace::TraceEvent;
use crate::net::packet_pool::PacketRef;
use crate::packet::Packet;
use crate::units::{Rate, SimTime};

/// A packet on the wire: the key of its arrival at the far node, its handle, and where it
/// goes from there. 16 bytes, as the key and handle alone (the bound fills their padding).
#[derive(Clone, Copy, Debug)]
pub struct OnWire {
    pub key: u64,
    pub r: PacketRef,
    pub bound: Bound,
}

/// Where a packet on the wire goes from the far node, noted as it starts from the packet
/// then in the cache: delivered there (its flow, and whether it travels to the sender), or
/// on towards its destination node. Only the engine's prefetches read it
/// (`sim/prefetch.rs`): with it they name the next port or the endpoint without first
/// waiting for the packet's slot in the pool (docs/performance.md, "The wire names where a
/// packet goes"). Nothing a run computes depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound(u32);

impl Bound {
    /// The top bit: delivered at the far node; the rest is the flow times two, plus one for
    /// a packet to the sender. Otherwise the destination node. `UNKNOWN` where neither fits.
    const DELIVERED: u32 = 1 << 31;
    const UNKNOWN: u32 = u32::MAX;

    #[inline(always)]
    pub fn of(pkt: &Packet, far: NodeId) -> Self {
        if pkt.dst == far {
            if pkt.flow.0 < 1 << 30 {
                Self(Self::DELIVERED | pkt.flow.0 << 1 | u32::from(pkt.reverse))
            } else {
                Self(Self::UNKNOWN)
            }
        } else if pkt.dst.0 < Self::DELIVERED {
            Self(pkt.dst.0)
        } else {
            Self(Self::UNKNOWN)
        }
    }

    /// The flow, and whether the packet goes to its sender, if it is delivered at the far
    /// node.
    #[inline(always)]
    pub fn delivery(self) -> Option<(FlowId, bool)> {
        (self.0 != Self::UNKNOWN && self.0 & Self::DELIVERED != 0)
            .then_some((FlowId((self.0 & !Self::DELIVERED) >> 1), self.0 & 1 == 1))
    }

    /// The destination node, if the packet goes on from the far node.
    #[inline(always)]
    pub fn onwards(self) -> Option<NodeId> {
        (self.0 & Self::DELIVERED == 0).then_some(NodeId(self.0))
    }
}

impl Port {
    /// The head of the wire reaches the far node (`Arrive`); the packet stays in the pool for
    /// the engine to route on or deliver, and the engine schedules the next arrival
    /// ([`Port::next_arrival`]). None if the link's loss model takes it there: a loss after
    /// the link is decided and traced as the packet arrives, as ns-2's `link-lossmodel` (after
    /// the link's delay) and ns-3's receive error model decide it.
    #[inline(always)]
    pub fn leave_wire<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) -> Option<PacketRef> {
        let OnWire { r, .. } = if self.reorders {
            self.pop_first_due()
        } else {
            self.pipeline.pop_front()
        }
        .expect("Arrive only with a packet on the wire");
        if self
            .loss
            .as_mut()
            .is_some_and(|l| l.after_link(cx.pool.get_mut(r)))
        {
            let pkt = cx.pool.take(r);
            self.lose(pkt, cx);
            return None;
        }
        cx.taps
            .trace(TraceEvent::Receive, cx.now, self.tap(), cx.pool.get(r));
        Some(r)
    }

    /// The packet of the wire due first (the first sent of equal keys), once the delay has
    /// changed: under ns-2's clock each has its own `Arrive`, and they run in key order.
    #[cold]
    pub(super) fn pop_first_due(&mut self) -> Option<OnWire> {
        let i = (0..self.pipeline.len()).min_by_key(|&i| self.pipeline[i].key)?;
        self.pipeline.remove(i)
    }

    /// A new rate for the packets sent from now on (ns-2's `$ns bandwidth` during a run:
    /// delay.cc `LinkDelay::txtime` reads `bandwidth_` as each packet starts); the packet
    /// being sent keeps its end.
    pub fn set_rate(&mut self, rate: Rate) {
        self.rate = rate;
        self.last_tx_size = 0;
        self.last_tx_time = rate.tx_time(self.overhead as u64);
    }

    /// A new propagation delay for the packets sent from now on (ns-2's `$ns delay` during a
    /// run: `LinkDelay::recv` schedules each packet's arrival at `txt + delay_` as it starts);
    /// packets on the wire keep their arrival. Only under ns-2's clock, where every packet
    /// on the wire has its own arrival event (the session refuses it otherwise).
    pub fn set_delay(&mut self, delay: SimTime) {
        if delay != self.delay {
            self.delay = delay;
            self.reorders = true;
        }
    }

    /// DelayLink's `avoidReordering_` from now on.
    pub fn set_avoid_reordering(&mut self, on: bool) {
        if on || self.rare.is_some() {
            self.rare_mut().avoid_reordering = on;
        }
    }

    /// The arrival key of a packet starting at `now_s` with transmission time `txt` on a link
    /// that avoids reordering (delay.cc `LinkDelay::recv`, Andrei Gurtov's code: after the
    /// last scheduled arrival, one transmission time later, when the delay would bring it
    /// before that).
    #[cold]
    pub(super) fn arrival_in_order(&mut self, now_s: f64, txt: f64) -> u64 {
        let delay = self.delay.as_secs_f64();
        let latest = &mut self.rare_mut().latest;
        if txt + delay < *latest - now_s && *latest > 0.0 {
            *latest += txt;
            (now_s + (*latest - now_s)).to_bits()
        } else {
            *latest = now_s + txt + delay;
            (now_s + (txt + delay)).to_bits()
        }
    }

    /// When the head of the wire reaches the far node, if a packet is on the wire and its
    /// arrival is not in the queue yet (under ns-2's clock each packet's is, from its start).
    #[inline(always)]
    pub fn next_arrival<const NS2: bool>(&self) -> Option<u64> {
        if NS2 {
            return None;
        }
        self.pipeline.front().map(|e| e.key)
    }

    /// The wire's head: the packet that arrives next (but for a port whose delay changed),
    /// with its arrival key and where it goes; for the engine's prefetches, which read
    /// nothing else.
    #[inline(always)]
    pub fn wire_head(&self) -> Option<&OnWire> {
        self.pipeline.front()
    }

    /// Puts packet `r` on the wire, arriving at the far node at `key`.
    #[inline(always)]
    pub(super) fn onto_wire(&mut self, key: u64, r: PacketRef, bound: Bound) {
        crate::net::ring::push_back(&mut self.pipeline, OnWire { key, r, bound });
    }

    /// Packets on the wire (being serialised or propagating).
    pub fn on_wire(&self) -> usize {
        self.pipeline.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(dst: u32, flow: u32, reverse: bool) -> Packet {
        Packet {
            dst: NodeId(dst),
            flow: FlowId(flow),
            reverse,
            ..Packet::default()
        }
    }

    #[test]
    fn a_bound_names_the_delivery_or_the_node_onwards() {
        // delivered at the far node: the flow and its direction, never a node
        for (flow, reverse) in [(0, false), (0, true), (7, true), ((1 << 30) - 1, false)] {
            let b = Bound::of(&packet(3, flow, reverse), NodeId(3));
            assert_eq!(b.delivery(), Some((FlowId(flow), reverse)));
            assert_eq!(b.onwards(), None);
        }
        // on towards another node: that node, never a delivery
        for dst in [0, 5, (1 << 31) - 1] {
            let b = Bound::of(&packet(dst, 9, true), NodeId(dst.wrapping_add(1)));
            assert_eq!(b.onwards(), Some(NodeId(dst)));
            assert_eq!(b.delivery(), None);
        }
    }

    #[test]
    fn what_does_not_fit_names_nothing() {
        // a flow or a node past what 31 bits hold: the prefetches skip the packet
        for b in [
            Bound::of(&packet(3, 1 << 30, false), NodeId(3)),
            Bound::of(&packet(1 << 31, 0, false), NodeId(3)),
            Bound::of(&packet(u32::MAX, 0, false), NodeId(3)),
        ] {
            assert_eq!((b.delivery(), b.onwards()), (None, None));
        }
    }
}
