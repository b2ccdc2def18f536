//! What the report, the samplers, the session and the builder read from a port or set on
//! it: identity, link parameters, the discipline and statistics, counters, busy time, what
//! waits and what is on the wire, and the room reserved for packets and statistics.

use super::Port;
use crate::ids::{LinkId, NodeId, PortId};
use crate::monitor::queue_stats::QueueStats;
use crate::net::packet_pool::PacketRef;
use crate::net::port_queue::PortQueue;
use crate::units::{Rate, SimTime};
use std::collections::VecDeque;

impl Port {
    pub fn id(&self) -> PortId {
        self.id
    }

    pub fn link(&self) -> LinkId {
        self.link
    }

    pub fn from(&self) -> NodeId {
        self.from
    }

    #[inline]
    pub fn to(&self) -> NodeId {
        self.to
    }

    pub fn rate(&self) -> Rate {
        self.rate
    }

    pub fn delay(&self) -> SimTime {
        self.delay
    }

    /// Link-layer framing bytes serialised with every packet.
    pub fn overhead(&self) -> u32 {
        self.overhead
    }

    /// The queue discipline (its name, average, settings and class counters).
    /// The flows' ns-2 flow ids, by flow index, for the discipline (`QueueDisc::set_flow_ids`)
    /// and a per-flow loss model.
    pub fn set_flow_ids(&mut self, fids: &[u32]) {
        self.qdisc.set_flow_ids(fids);
        if let Some(l) = self.loss.as_mut() {
            l.model.set_flow_ids(fids);
        }
    }

    /// A new packet limit for the queue (`PortQueue::set_packet_limit`); false when the
    /// discipline keeps its own.
    pub fn set_queue_limit(&mut self, packets: u64) -> bool {
        self.qdisc.set_packet_limit(packets)
    }

    pub fn queue(&self) -> &PortQueue {
        &self.qdisc
    }

    /// The device queue's size in packets (0: none).
    pub fn device_queue_limit(&self) -> usize {
        self.device.limit()
    }

    pub fn stats(&self) -> &QueueStats {
        &self.stats
    }

    /// The statistics, for the report (closing the time integrals, reading percentiles).
    pub fn stats_mut(&mut self) -> &mut QueueStats {
        &mut self.stats
    }

    /// Sizes the sojourn histogram for waits up to `max`, so that recording never allocates.
    pub fn reserve_statistics(&mut self, max: SimTime) {
        self.stats.reserve_sojourns(max);
        self.qdisc.reserve_class_statistics(max);
    }

    /// Frees the packets queued (DropTail) and on the wire once the run is over
    /// (`Simulation::release_packets`); counters and statistics stay.
    pub fn release_packets(&mut self) {
        self.qdisc.release();
        self.pipeline = VecDeque::new();
        if let Some(r) = self.rare.as_mut() {
            r.timers = Vec::new();
        }
        if let Some(t) = self.trace_mut() {
            t.clear();
        }
        if let Some(d) = self.delayer_mut() {
            d.slot = None;
        }
    }

    /// Makes room for a full queue and a full wire (as many 1000-byte packets as the
    /// propagation delay holds back to back, plus two), so that packets moving through never
    /// allocate. Ports otherwise start empty and grow to their high-water marks as a run goes.
    /// Returns that number of packets, the port's share of the packet pool.
    pub fn reserve_packet_room(&mut self) -> usize {
        let queue = self.qdisc.reserve_full();
        // a rate schedule's fastest segment puts the most packets on the wire
        let top = match self.schedule_mut() {
            Some(s) => s.top_rate().max(self.rate),
            None => self.rate,
        };
        let per_packet = top.tx_time(1000).0.max(1);
        let wire = (self.delay.0 / per_packet) as usize + 2;
        self.pipeline
            .reserve(wire.saturating_sub(self.pipeline.len()));
        queue + wire + self.device.limit()
    }

    /// The packet a DropTail queue sends next (None for other disciplines); for the
    /// engine's prefetches.
    #[inline(always)]
    pub fn queue_head(&self) -> Option<&PacketRef> {
        self.qdisc.head()
    }

    /// Packets whose transmission started from the warm-up on.
    pub fn tx_packets(&self) -> u64 {
        self.tx_packets
    }

    pub fn tx_bytes(&self) -> u64 {
        self.tx_bytes
    }

    /// Packets lost to the link's loss model from the warm-up on.
    pub fn lost_packets(&self) -> u64 {
        self.loss.as_ref().map_or(0, |l| l.lost)
    }

    /// Time the link was busy from the warm-up up to `now`.
    pub fn busy_time_until(&self, now: SimTime) -> SimTime {
        if self.busy_until > now {
            self.busy_time.saturating_sub(self.busy_until - now)
        } else {
            self.busy_time
        }
    }

    /// Packets and bytes waiting at the port (the device queue tested once).
    #[inline(always)]
    pub(super) fn waiting(&self) -> (u64, u64) {
        let (p, b) = self.device.len_bytes();
        (
            (self.qdisc.len_packets() + p) as u64,
            self.qdisc.len_bytes() + b,
        )
    }

    /// Packets waiting at the port: in the discipline and in the device queue.
    #[inline(always)]
    pub fn waiting_packets(&self) -> usize {
        self.qdisc.len_packets() + self.device.len()
    }

    /// Bytes waiting at the port: in the discipline and in the device queue.
    #[inline(always)]
    pub fn waiting_bytes(&self) -> u64 {
        self.qdisc.len_bytes() + self.device.bytes()
    }
}
