//! Equal-cost multipath (ECMP) forwarding: a node learns every next hop that lies on a
//! shortest path (by hop count) to a destination, and a packet takes the one a hash of its
//! flow's 5-tuple selects, so that a flow keeps one path and flows spread over the paths.
//!
//! What it follows:
//! - The selection is RFC 2992's hash-threshold ("Analysis of an Equal-Cost Multi-Path
//!   Algorithm", Hopps, 2000): the N next hops divide the key space into N equal regions and
//!   the packet's key picks the region it falls in (`select`). Linux does the same in
//!   `fib_select_multipath` (net/ipv4/fib_semantics.c), comparing a 31-bit hash with each
//!   next hop's `nh_upper_bound` that `fib_rebalance` sets from the weights.
//! - The key is Linux's L4 multipath hash, `fib_multipath_hash` (net/ipv4/route.c) under
//!   `fib_multipath_hash_policy = 1`: source and destination address, source and destination
//!   port, and the IP protocol, hashed with a secret of the host's (`flow_hash_from_keys`).
//!   Here a node stands for an address and the flow id for the port pair (each flow has its
//!   own ports); the flow's packets back (ACKs) swap source and destination, as their
//!   headers do. Each node hashes with its own key (from the run's hash seed and the node's
//!   index), as each router has its own secret: one shared key would send a flow to the same
//!   index at every stage and leave paths of a fat tree unused (hash polarisation).
//! - ns-3's `Ipv4GlobalRouting` (ns-3.44, ipv4-global-routing.cc `LookupGlobal`) keeps every
//!   equal-cost route the global route manager found and takes the first, or with
//!   `RandomEcmpRouting` a uniformly random one per packet (which reorders a flow's packets);
//!   ns-3 mainline has no per-flow hash (the `FlowEcmpRouting` attribute of 2012 lives in
//!   forks only). Without ECMP, bufferlab's `routing.rs` takes the first too (port order),
//!   and [`EcmpTable::first`] is that same port.
//! - ns-3's rule is here too, as `[routing] multipath = "random_packet"` ([`EcmpTable::spray`]):
//!   ns-3.44's `Ipv4GlobalRouting::LookupGlobal` (src/internet/model/ipv4-global-routing.cc)
//!   gathers the matching routes of the first kind that has any (host routes, then network
//!   routes, then AS-external ones) into `allRoutes` and, with the `RandomEcmpRouting`
//!   attribute true, takes `allRoutes.at(m_rand->GetInteger(0, allRoutes.size() - 1))`: a
//!   uniform draw for every packet it routes (`RouteInput` for a forwarded packet,
//!   `RouteOutput` for a sent one), from the node's own `UniformRandomVariable` `m_rand`
//!   (ipv4-global-routing.h). Here each multipath node draws from its own stream of the run's
//!   seed (`node/{name}/ecmp`), uniformly over the same equal-cost next hops in port order
//!   ([`EcmpTable::pick_packet`]); a node with one next hop towards the destination does not
//!   draw (ns-3 draws `GetInteger(0, 0)` there, which moves only its own stream). The random
//!   numbers are not ns-3's (other generator, other stream layout): the distribution is the
//!   same, the draws are not.
//!
//! Deterministic: the hash is SplitMix64 over integers (no std hasher, no addresses), the
//! next hops of a destination are kept in port order, and nothing iterates a hash map.

use crate::ids::{FlowId, NodeId, PortId};
use crate::packet::{Packet, PacketKind};
use crate::rng::{splitmix, Rng};
use std::collections::VecDeque;

/// IANA protocol numbers, the 5-tuple's last field.
const IPPROTO_TCP: u8 = 6;
const IPPROTO_UDP: u8 = 17;

/// The fields a multipath hash reads: the 5-tuple of a packet's header.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FlowKey {
    /// The packet's source node (source address).
    pub src: NodeId,
    /// Its destination node (destination address).
    pub dst: NodeId,
    /// The flow it belongs to: its pair of ports.
    pub flow: FlowId,
    /// IANA protocol number (6 TCP, 17 UDP).
    pub protocol: u8,
}

impl FlowKey {
    /// The key of a flow's data direction from `src` to `dst` (`tcp`: a TCP flow).
    pub fn new(src: NodeId, dst: NodeId, flow: FlowId, tcp: bool) -> Self {
        FlowKey {
            src,
            dst,
            flow,
            protocol: if tcp { IPPROTO_TCP } else { IPPROTO_UDP },
        }
    }

    /// The same flow's packets the other way (ACKs): addresses swapped.
    pub fn reversed(self) -> Self {
        FlowKey {
            src: self.dst,
            dst: self.src,
            ..self
        }
    }

    /// The key of a packet in the network.
    #[inline]
    pub fn of(pkt: &Packet) -> Self {
        FlowKey {
            src: pkt.src,
            dst: pkt.dst,
            flow: pkt.flow,
            protocol: match pkt.kind {
                PacketKind::UdpData => IPPROTO_UDP,
                PacketKind::TcpData | PacketKind::TcpAck => IPPROTO_TCP,
            },
        }
    }

    /// The 32-bit hash of the 5-tuple under a node's secret `node_key`.
    #[inline]
    pub fn hash(&self, node_key: u64) -> u32 {
        let addrs = (self.src.0 as u64) << 32 | self.dst.0 as u64;
        let rest = (self.flow.0 as u64) << 8 | self.protocol as u64;
        (splitmix(splitmix(node_key ^ addrs) ^ rest) >> 32) as u32
    }
}

/// RFC 2992 hash-threshold: the index of the region of `n` equal regions of the 32-bit key
/// space that `hash` falls in (region i is [i 2^32 / n, (i+1) 2^32 / n)).
#[inline]
pub fn select(hash: u32, n: usize) -> usize {
    ((hash as u64 * n as u64) >> 32) as usize
}

/// The secret a node hashes with, from the run's hash seed: every node its own.
pub fn node_key(hash_seed: u64, node: usize) -> u64 {
    splitmix(hash_seed ^ splitmix(node as u64))
}

/// One node's equal-cost next hops: for each destination node, its ports in port order.
#[derive(Debug, Clone)]
pub struct EcmpTable {
    key: u64,
    /// ns-3's `RandomEcmpRouting`: each packet draws its next hop from this stream.
    spray: Option<Rng>,
    /// `ports[start[d]..start[d + 1]]` are the next hops towards node d.
    start: Vec<u32>,
    ports: Vec<PortId>,
}

impl EcmpTable {
    /// The equal-cost next hops towards `dst`, in port order (empty: unreachable).
    pub fn choices(&self, dst: NodeId) -> &[PortId] {
        let (a, b) = (self.start[dst.idx()], self.start[dst.idx() + 1]);
        &self.ports[a as usize..b as usize]
    }

    /// The next hop the flow of `k` takes from this node: the hashed one, or under per-packet
    /// spraying (where a flow has no one path) the first in port order, the hop ns-3 takes
    /// with `RandomEcmpRouting` false. Paths, propagation delays and ideal FCTs read this.
    #[inline]
    pub fn pick(&self, k: &FlowKey) -> Option<PortId> {
        match self.choices(k.dst) {
            [] => None,
            [p] => Some(*p),
            c if self.spray.is_some() => Some(c[0]),
            c => Some(c[select(k.hash(self.key), c.len())]),
        }
    }

    /// The next hop of one packet of the flow of `k`: [`pick`](Self::pick), or under
    /// per-packet spraying a uniform draw among the equal-cost next hops (ns-3.44
    /// `Ipv4GlobalRouting::LookupGlobal`, `m_rand->GetInteger(0, allRoutes.size() - 1)`).
    #[inline]
    pub fn pick_packet(&mut self, k: &FlowKey) -> Option<PortId> {
        let Some(rng) = &mut self.spray else {
            return self.pick(k);
        };
        let (a, b) = (
            self.start[k.dst.idx()] as usize,
            self.start[k.dst.idx() + 1] as usize,
        );
        match b - a {
            0 => None,
            1 => Some(self.ports[a]),
            n => Some(self.ports[a + rng.integer(n as u64) as usize]),
        }
    }

    /// Route every packet as ns-3's `RandomEcmpRouting` does: each draws its next hop from
    /// `rng` (the node's own stream).
    pub fn spray(&mut self, rng: Rng) {
        self.spray = Some(rng);
    }

    /// Whether packets draw their next hop (`spray`) rather than hash their flow.
    pub fn sprays(&self) -> bool {
        self.spray.is_some()
    }

    /// The first next hop in port order: the one single-path routing takes.
    pub fn first(&self, dst: NodeId) -> Option<PortId> {
        self.choices(dst).first().copied()
    }
}

/// Every shortest-path next hop of node `src` towards each node, as bit sets over the
/// positions of `src`'s ports (`words` 64-bit words a node), by one breadth-first search
/// that hands each node the union of its parents' sets (a parent is a neighbour one hop
/// closer to `src`; all of a level's parents leave the queue before the level does).
fn first_hops(
    adj: &[Vec<(PortId, NodeId)>],
    src: usize,
    words: usize,
    dist: &mut [u32],
    sets: &mut Vec<u64>,
) {
    dist.fill(u32::MAX);
    sets.clear();
    sets.resize(adj.len() * words, 0);
    let mut queue = VecDeque::new();
    dist[src] = 0;
    for (i, &(_, nb)) in adj[src].iter().enumerate() {
        let v = nb.idx();
        if v == src {
            continue;
        }
        sets[v * words + i / 64] |= 1 << (i % 64);
        if dist[v] == u32::MAX {
            dist[v] = 1;
            queue.push_back(v);
        }
    }
    while let Some(u) = queue.pop_front() {
        for &(_, nb) in &adj[u] {
            let v = nb.idx();
            if dist[v] == u32::MAX {
                dist[v] = dist[u] + 1;
                queue.push_back(v);
            }
            if dist[v] == dist[u] + 1 {
                for w in 0..words {
                    sets[v * words + w] |= sets[u * words + w];
                }
            }
        }
    }
}

/// Node `src`'s routes with every equal-cost next hop: a plain table (first hop per
/// destination, `u32::MAX` when unreachable) when no destination has two, else an
/// [`EcmpTable`] hashing with `key`.
pub(super) fn node_routes(
    adj: &[Vec<(PortId, NodeId)>],
    src: usize,
    key: u64,
    dist: &mut [u32],
    sets: &mut Vec<u64>,
) -> Result<Vec<u32>, EcmpTable> {
    let ports = &adj[src];
    let words = ports.len().div_ceil(64);
    first_hops(adj, src, words, dist, sets);
    let hops = |d: usize| {
        let set = &sets[d * words..(d + 1) * words];
        (0..ports.len())
            .filter(move |&i| set[i / 64] >> (i % 64) & 1 == 1)
            .map(|i| ports[i].0)
    };
    let multi = (0..adj.len()).any(|d| d != src && hops(d).nth(1).is_some());
    if !multi {
        return Ok((0..adj.len())
            .map(|d| if d == src { None } else { hops(d).next() })
            .map(|p| p.map_or(u32::MAX, |p| p.0))
            .collect());
    }
    let mut t = EcmpTable {
        key,
        spray: None,
        start: Vec::with_capacity(adj.len() + 1),
        ports: Vec::new(),
    };
    t.start.push(0);
    for d in 0..adj.len() {
        if d != src {
            t.ports.extend(hops(d));
        }
        t.start.push(t.ports.len() as u32);
    }
    t.ports.shrink_to_fit();
    Err(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_threshold_regions_are_equal_and_ordered() {
        // four next hops: the key space splits at 2^30, 2^31, 3 2^30
        assert_eq!(select(0, 4), 0);
        assert_eq!(select((1 << 30) - 1, 4), 0);
        assert_eq!(select(1 << 30, 4), 1);
        assert_eq!(select(u32::MAX, 4), 3);
        assert_eq!(select(u32::MAX, 1), 0);
        // three: region boundaries at ceil(i 2^32 / 3)
        assert_eq!(select(1_431_655_765, 3), 0);
        assert_eq!(select(1_431_655_766, 3), 1);
    }

    #[test]
    fn a_flow_hashes_the_same_every_time_and_its_fields_matter() {
        let k = FlowKey::new(NodeId(3), NodeId(9), FlowId(5), true);
        let key = node_key(1, 7);
        assert_eq!(k.hash(key), k.hash(key));
        let others = [
            FlowKey {
                src: NodeId(4),
                ..k
            },
            FlowKey {
                dst: NodeId(8),
                ..k
            },
            FlowKey {
                flow: FlowId(6),
                ..k
            },
            FlowKey::new(NodeId(3), NodeId(9), FlowId(5), false),
            k.reversed(),
        ];
        for o in others {
            assert_ne!(o.hash(key), k.hash(key), "{o:?}");
        }
        assert_ne!(
            k.hash(node_key(1, 8)),
            k.hash(key),
            "each node its own secret"
        );
        assert_ne!(
            k.hash(node_key(2, 7)),
            k.hash(key),
            "the seed changes the secret"
        );
        // fixed values (an independent SplitMix64 in Python gives them): the hash does not
        // depend on the platform, the build or the order of anything in memory
        let udp = FlowKey::new(NodeId(0), NodeId(1), FlowId(0), false);
        assert_eq!(udp.hash(node_key(1, 0)), 1_990_376_232);
        assert_eq!(k.hash(key), 58_541_454);
    }
}
