//! Prefetching for the event loop (`Simulation::run_until`): with thousands of flows the
//! ports, packets and endpoints do not fit in the last-level cache, and each hop's first reads
//! of them were misses (cachegrind on d_10000 with a 32 MB last level: 6.3 a hop,
//! docs/performance.md, "Cost per packet-hop"). While an event runs, the CPU is asked to load
//! what the next few events will read, in stages, each one event ahead of the data it needs.
//! A prefetch is only a hint: it changes no result, only when data arrives.

use super::{Event, Simulation};
use crate::endpoint::Endpoint;
use crate::ids::NodeId;
use crate::monitor::flow_stats::FlowStats;
use crate::net::packet_pool::PacketRef;
use crate::net::port::Port;
use crate::net::routing::Routes;
use crate::packet::Packet;
use crate::sched::PEEK_DEPTH;

/// Bytes of ports above which the engine prefetches: about one core's second-level cache
/// (512 KB to 2 MB on today's x86 servers), beyond which the ports, with the packets and flows
/// beside them, no longer stay in the caches near the core. Below it the prefetches were
/// 3.7 % more instructions for ports in cache anyway (cachegrind, c_ns2, 100 flows).
pub(super) const PREFETCH_PORTS_ABOVE: usize = 1 << 20;

impl Simulation {
    /// Whether this run's ports outgrow the caches (then the event loop prefetches).
    pub(super) fn worth_prefetching(&self) -> bool {
        self.ports.len() * std::mem::size_of::<Port>() > PREFETCH_PORTS_ABOVE
    }

    /// Asks the CPU to bring what the next events will read into the cache while this one
    /// runs: the port of the event four ahead; for an arrival three ahead, the wire's slot
    /// its packet leaves from (the port is in the cache by then), for a transmission's end
    /// the queue's head; two ahead, that packet; one ahead, where an arriving packet goes
    /// (the next port, or its flow and endpoint). An event
    /// scheduled meanwhile only makes one prefetch wasted.
    #[inline(always)]
    pub(super) fn prefetch_ahead<const NS2: bool>(&self) {
        let peek = |n| {
            if NS2 {
                self.sched_ns2.peek_queued_nth(n)
            } else {
                self.sched.peek_queued_nth(n)
            }
        };
        if let Some(ev) = peek(PEEK_DEPTH - 1) {
            self.prefetch_port(ev);
        }
        // each stage peeks its event once: an arrival's packet is the wire's head, a
        // transmission's end sends the queue's head next
        let port_of = |ev: Option<Event>| match ev {
            Some(Event::Arrive(p)) => self.ports.get(p.idx()).map(|port| (port, true)),
            Some(Event::TxDone(p)) => self.ports.get(p.idx()).map(|port| (port, false)),
            _ => None,
        };
        let head_of = |(port, arrival): (&Port, bool)| {
            if arrival {
                port.wire_head().map(|&(_, r)| r)
            } else {
                port.queue_head().copied()
            }
        };
        match port_of(peek(2)) {
            Some((port, true)) => {
                if let Some(head) = port.wire_head() {
                    prefetch_read((head as *const (u64, PacketRef)).cast::<u8>());
                }
            }
            Some((port, false)) => {
                if let Some(head) = port.queue_head() {
                    prefetch_read((head as *const PacketRef).cast::<u8>());
                }
            }
            None => {}
        }
        if let Some(r) = port_of(peek(1)).and_then(head_of) {
            let slot = (self.pool.get(r) as *const Packet).cast::<u8>();
            prefetch_read(slot);
            prefetch_read(slot.wrapping_add(64));
        }
        if let Some(Event::Arrive(p)) = peek(0) {
            if let Some(port) = self.ports.get(p.idx()) {
                if let Some(&(_, r)) = port.wire_head() {
                    self.prefetch_destination(port.to(), self.pool.get(r));
                }
            }
        }
    }

    /// Where a packet arriving at `node` goes: its flow and endpoint if it is delivered there,
    /// else the next port (single-path routes only: a multipath node's choice draws or
    /// hashes, which a prefetch must not do).
    #[inline(always)]
    fn prefetch_destination(&self, node: NodeId, pkt: &Packet) {
        if pkt.dst == node {
            if let Some(flow) = self.flows.get(pkt.flow.idx()) {
                prefetch_read((&flow.stats as *const FlowStats).cast::<u8>());
                let agent = if pkt.reverse {
                    flow.sender
                } else {
                    flow.receiver
                };
                if let Some(a) = self.agents.get(agent.idx()) {
                    let ep = (&*a.ep as *const dyn Endpoint).cast::<u8>();
                    prefetch_read(ep);
                    prefetch_read(ep.wrapping_add(64));
                }
            }
            return;
        }
        let next = match self.nodes.get(node.idx()).map(|n| &n.routes) {
            Some(Routes::Ecmp(_)) | None => None,
            Some(routes) => routes.next_port(pkt.dst),
        };
        if let Some(q) = next {
            self.prefetch_port(Event::Arrive(q));
        }
    }

    /// Asks the CPU to bring the whole port of `ev` (if it is a port's event) into the cache.
    #[inline(always)]
    fn prefetch_port(&self, ev: Event) {
        let (Event::Arrive(p) | Event::TxDone(p) | Event::DeviceWake(p) | Event::PortTimer(p)) = ev
        else {
            return;
        };
        if let Some(port) = self.ports.get(p.idx()) {
            let base = (port as *const Port).cast::<u8>();
            for off in (0..std::mem::size_of::<Port>()).step_by(64) {
                prefetch_read(base.wrapping_add(off));
            }
        }
    }
}

/// A hint to load the cache line at `p` (x86-64's PREFETCHT0; nothing elsewhere). It reads no
/// memory the program can observe, so an address past an object's end is harmless.
#[inline(always)]
fn prefetch_read(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it never faults and does not read the value.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p.cast::<i8>(), std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
