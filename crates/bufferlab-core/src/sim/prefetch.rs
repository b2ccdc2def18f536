//! Prefetching for the event loop (`Simulation::run_until`): with thousands of flows the
//! ports, packets and endpoints do not fit in the last-level cache, and each hop's first reads
//! of them were misses (cachegrind on d_10000 with a 32 MB last level: 6.3 a hop,
//! docs/performance.md, "Cost per packet-hop"). While an event runs, the CPU is asked to load
//! what the next few events will read, in stages, each one event ahead of the data it needs.
//! A prefetch is only a hint: it changes no result, only when data arrives.

use super::{Agent, Event, Flow, Simulation};
use crate::endpoint::Endpoint;
use crate::ids::{NodeId, PortId};
use crate::net::packet_pool::PacketRef;
use crate::net::port::{Bound, OnWire, Port};
use crate::net::routing::Routes;
use crate::packet::Packet;
use crate::sched::PEEK_DEPTH;

/// Bytes of ports above which the engine prefetches: about one core's second-level cache
/// (512 KB to 2 MB on today's x86 servers), beyond which the ports, with the packets and flows
/// beside them, no longer stay in the caches near the core. Below it the prefetches were
/// 3.7 % more instructions for ports in cache anyway (cachegrind, c_ns2, 100 flows).
pub(super) const PREFETCH_PORTS_ABOVE: usize = 1 << 20;

/// Each flow's two deliveries, [to the receiver, to the sender] (`Packet::reverse`): the agent,
/// its node and first port, and the address of its endpoint. Read from one small table (48
/// bytes a flow), they take the flow's and the agent's records (cold at thousands of flows)
/// off the chain of loads a prefetch waits for; those records are then fetched beside the
/// endpoint, with the node and port its answer leaves by (docs/performance.md, "Across a
/// bucket's end"). An address gone stale (an endpoint replaced by `report.rs` once reported)
/// only makes a prefetch wasted.
#[derive(Default)]
pub(super) struct Deliveries(Vec<[Delivery; 2]>);

#[derive(Clone, Copy)]
struct Delivery {
    agent: u32,
    /// The agent's node, and the port its packets leave by when the node has only one
    /// (`Routes::Single`; u32::MAX otherwise): where the endpoint's answer goes first.
    node: u32,
    out: u32,
    endpoint: usize,
}

impl Simulation {
    /// Adds the flows added since the last run to the deliveries' table.
    pub(super) fn note_deliveries(&mut self) {
        let table = &mut self.deliveries.0;
        // exactly: at 100 000 flows a doubling would hold 2.4 MB more than needed
        table.reserve_exact(self.flows.len().saturating_sub(table.len()));
        for flow in &self.flows[table.len().min(self.flows.len())..] {
            let at = |a: crate::ids::AgentId| {
                let agent = self.agents.get(a.idx());
                let node = agent.map_or(u32::MAX, |x| x.node.0);
                let out = match self.nodes.get(node as usize).map(|n| &n.routes) {
                    Some(Routes::Single(p)) => p.0,
                    _ => u32::MAX,
                };
                Delivery {
                    agent: a.0,
                    node,
                    out,
                    endpoint: agent
                        .map_or(0, |x| (&*x.ep as *const dyn Endpoint).cast::<u8>() as usize),
                }
            };
            table.push([at(flow.receiver), at(flow.sender)]);
        }
    }

    /// Whether this run's ports outgrow the caches (then the event loop prefetches).
    pub(super) fn worth_prefetching(&self) -> bool {
        self.ports.len() * std::mem::size_of::<Port>() > PREFETCH_PORTS_ABOVE
    }

    /// Asks the CPU to bring what the next events will read into the cache while this one
    /// runs: the port of the event four ahead; for an arrival three ahead, the wire's slot
    /// its packet leaves from (the port is in the cache by then), for a transmission's end
    /// the queue's head; two ahead, that packet and, for an arrival, where it goes as the
    /// wire's entry says (the next port, or its flow, agent and endpoint with the port the
    /// endpoint's answer leaves by). The peeks go on into the next bucket when this one runs
    /// short (`PEEK_DEPTH`). An event scheduled meanwhile only makes one prefetch wasted.
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
        match port_of(peek(2)) {
            Some((port, true)) => {
                if let Some(head) = port.wire_head() {
                    prefetch_read((head as *const OnWire).cast::<u8>());
                }
            }
            Some((port, false)) => {
                if let Some(head) = port.queue_head() {
                    prefetch_read((head as *const PacketRef).cast::<u8>());
                }
            }
            None => {}
        }
        // the wire's entry names where its packet goes: the destination's lines are asked for
        // with the packet's, without waiting for the packet's slot
        let head = match port_of(peek(1)) {
            Some((port, true)) => port.wire_head().map(|e| {
                self.prefetch_destination(port.to(), e.bound);
                e.r
            }),
            Some((port, false)) => port.queue_head().copied(),
            None => None,
        };
        if let Some(r) = head {
            let slot = (self.pool.get(r) as *const Packet).cast::<u8>();
            prefetch_read(slot);
            prefetch_read(slot.wrapping_add(64));
        }
    }

    /// Where a packet arriving at `node` goes (`bound`, noted as it started on the wire): its
    /// flow and endpoint if it is delivered there, with the port the endpoint's answer leaves
    /// by, else the next port (single-path routes only: a multipath node's choice draws or
    /// hashes, which a prefetch must not do).
    #[inline(always)]
    fn prefetch_destination(&self, node: NodeId, bound: Bound) {
        if let Some((flow, reverse)) = bound.delivery() {
            if let Some(d) = self.deliveries.0.get(flow.idx()) {
                let d = d[usize::from(reverse)];
                let flow = self.flows.as_ptr().wrapping_add(flow.idx()).cast::<u8>();
                prefetch_read(flow.wrapping_add(std::mem::offset_of!(Flow, stats)));
                prefetch_read(flow.wrapping_add(std::mem::offset_of!(Flow, stats) + 64));
                prefetch_read(flow.wrapping_add(std::mem::offset_of!(Flow, src)));
                let agent = self.agents.as_ptr().wrapping_add(d.agent as usize);
                let agent = agent.cast::<u8>();
                prefetch_read(agent);
                prefetch_read(agent.wrapping_add(std::mem::size_of::<Agent>() - 1));
                let ep = d.endpoint as *const u8;
                prefetch_read(ep);
                prefetch_read(ep.wrapping_add(64));
                let node = self.nodes.as_ptr().wrapping_add(d.node as usize);
                prefetch_read(node.cast::<u8>());
                if d.out != u32::MAX {
                    self.prefetch_port(Event::Arrive(PortId(d.out)));
                }
            }
            return;
        }
        let Some(dst) = bound.onwards() else {
            return;
        };
        let next = match self.nodes.get(node.idx()).map(|n| &n.routes) {
            Some(Routes::Ecmp(_)) | None => None,
            Some(routes) => routes.next_port(dst),
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

#[cfg(test)]
mod tests {
    use super::super::tests::udp_flow;
    use super::super::{Node, Simulation};
    use crate::endpoint::{Endpoint, EndpointCtx};
    use crate::ids::{FlowId, NodeId, PortId};
    use crate::net::routing::Routes;
    use crate::packet::Packet;
    use crate::units::SimTime;

    struct Quiet;
    impl Endpoint for Quiet {
        fn on_packet(&mut self, _pkt: Packet, _cx: &mut EndpointCtx) {}
        fn on_timeout(&mut self, _cx: &mut EndpointCtx) {}
        fn next_timeout(&self) -> Option<SimTime> {
            None
        }
    }

    fn flow(sim: &mut Simulation, src: u32, dst: u32) {
        let id = FlowId(sim.flows.len() as u32);
        let sender = sim.add_agent(Box::new(Quiet), id, NodeId(src), false);
        let receiver = sim.add_agent(Box::new(Quiet), id, NodeId(dst), true);
        let name = format!("f{}", id.0);
        let f = udp_flow(&name, id, NodeId(src), NodeId(dst), [sender, receiver]);
        sim.flows.push(f);
    }

    // ---- the deliveries' table names each flow's agents, nodes and first ports ----
    #[test]
    fn deliveries_name_each_flows_agents_nodes_and_ports() {
        let mut sim = Simulation::new("t".into(), 1, SimTime::from_secs(1), SimTime::ZERO);
        // hosts 0 and 1 with one link each (ports 7 and 9), a router 2 with a table
        for routes in [
            Routes::Single(PortId(7)),
            Routes::Single(PortId(9)),
            Routes::Table(vec![0, 1, u32::MAX]),
        ] {
            let name = format!("n{}", sim.nodes.len());
            sim.nodes.push(Node { name, routes });
        }
        flow(&mut sim, 0, 1);
        flow(&mut sim, 2, 0);
        sim.note_deliveries();
        let table = &sim.deliveries.0;
        assert_eq!(table.len(), 2);
        for (f, pair) in sim.flows.iter().zip(table) {
            for (d, (agent, node)) in pair.iter().zip([(f.receiver, f.dst), (f.sender, f.src)]) {
                assert_eq!((d.agent, d.node), (agent.0, node.0));
                let ep = &*sim.agents[agent.idx()].ep as *const dyn Endpoint;
                assert_eq!(d.endpoint, ep.cast::<u8>() as usize);
            }
        }
        // a host's packets leave by its one port; a router's have no single first port
        assert_eq!((table[0][0].out, table[0][1].out), (9, 7));
        assert_eq!((table[1][0].out, table[1][1].out), (7, u32::MAX));
        // a second call keeps the table: only flows added since join it
        let before = table[0][0].endpoint;
        flow(&mut sim, 1, 0);
        sim.note_deliveries();
        assert_eq!(sim.deliveries.0.len(), 3);
        assert_eq!(sim.deliveries.0[0][0].endpoint, before);
        assert_eq!(sim.deliveries.0[2][1].out, 9);
    }
}
