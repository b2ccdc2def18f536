//! The wire: packets being serialised or propagating, in the order they started, each with
//! its arrival key at the far node (one pending `Arrive` a port, htsim's trick). A packet
//! leaves it at the far node, where a loss after the link is decided (ns-2's
//! `link-lossmodel`, ns-3's receive error model); the rate and delay may change during a run
//! (ns-2's `$ns bandwidth` and `$ns delay`), and DelayLink's `avoidReordering_` (delay.cc
//! `LinkDelay::recv`) keeps arrivals in order.

use super::{Port, PortCx};
use crate::monitor::ns2_trace::TraceEvent;
use crate::net::packet_pool::PacketRef;
use crate::units::{Rate, SimTime};

impl Port {
    /// The head of the wire reaches the far node (`Arrive`); the packet stays in the pool for
    /// the engine to route on or deliver, and the engine schedules the next arrival
    /// ([`Port::next_arrival`]). None if the link's loss model takes it there: a loss after
    /// the link is decided and traced as the packet arrives, as ns-2's `link-lossmodel` (after
    /// the link's delay) and ns-3's receive error model decide it.
    #[inline(always)]
    pub fn leave_wire<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) -> Option<PacketRef> {
        let (_, r) = if self.reorders {
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
    pub(super) fn pop_first_due(&mut self) -> Option<(u64, PacketRef)> {
        let i = (0..self.pipeline.len()).min_by_key(|&i| self.pipeline[i].0)?;
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
        self.pipeline.front().map(|&(t, _)| t)
    }

    /// The wire's head: the packet that arrives next (but for a port whose delay changed),
    /// with its arrival key; for the engine's prefetches, which read nothing else.
    #[inline(always)]
    pub fn wire_head(&self) -> Option<&(u64, PacketRef)> {
        self.pipeline.front()
    }

    /// Packets on the wire (being serialised or propagating).
    pub fn on_wire(&self) -> usize {
        self.pipeline.len()
    }
}
