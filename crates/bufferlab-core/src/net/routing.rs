//! Static shortest-path routing by hop count, as ns-2's default static routing and ns-3's
//! global routing on equal-cost links. Ties are broken by the order of the node's ports
//! (the order links appear), so routes never depend on hashing; with multipath
//! ([`compute_ecmp`], `net/ecmp.rs`) a node keeps every equal-cost next hop and a flow's
//! 5-tuple hash picks one.
//!
//! Memory stays linear in the network for dumbbells with thousands of hosts: a node with a
//! single link sends everything through it; only nodes with several links keep a table (one
//! next hop per destination), filled by one breadth-first search from that node.

use super::ecmp::{self, EcmpTable, FlowKey};
use crate::ids::{NodeId, PortId};
use std::collections::VecDeque;

const NONE: u32 = u32::MAX;

pub enum Routes {
    /// A stub node: every destination is behind its only port.
    Single(PortId),
    /// Next-hop port per destination node (NONE when unreachable).
    Table(Vec<u32>),
    /// No links at all.
    Isolated,
    /// Several equal-cost next hops towards some destination (`net/ecmp.rs`).
    Ecmp(Box<EcmpTable>),
}

impl Routes {
    // every hop asks: inlined into the event loop (out of line it cost ~20 instructions a hop)
    #[inline(always)]
    pub fn next_port(&self, dst: NodeId) -> Option<PortId> {
        match self {
            Routes::Single(p) => Some(*p),
            Routes::Table(t) => match t[dst.idx()] {
                NONE => None,
                p => Some(PortId(p)),
            },
            Routes::Isolated => None,
            Routes::Ecmp(t) => t.first(dst),
        }
    }

    /// The next hop of a packet of the flow `k` (the hashed choice where there are several).
    #[inline]
    pub fn next_port_for(&self, k: &FlowKey) -> Option<PortId> {
        match self {
            Routes::Ecmp(t) => t.pick(k),
            r => r.next_port(k.dst),
        }
    }
}

/// `adj[n]` lists (port, neighbour) for node n in port order. Returns one `Routes` per node.
pub fn compute(adj: &[Vec<(PortId, NodeId)>]) -> Vec<Routes> {
    let n = adj.len();
    let mut first = vec![NONE; n];
    let mut queue = VecDeque::new();
    adj.iter()
        .enumerate()
        .map(|(src, ports)| match ports.len() {
            0 => Routes::Isolated,
            1 => Routes::Single(ports[0].0),
            _ => {
                first.iter_mut().for_each(|f| *f = NONE);
                queue.clear();
                let mut seen = vec![false; n];
                seen[src] = true;
                for &(p, nb) in ports {
                    if !seen[nb.idx()] {
                        seen[nb.idx()] = true;
                        first[nb.idx()] = p.0;
                        queue.push_back(nb.idx());
                    }
                }
                while let Some(u) = queue.pop_front() {
                    for &(_, v) in &adj[u] {
                        if !seen[v.idx()] {
                            seen[v.idx()] = true;
                            first[v.idx()] = first[u];
                            queue.push_back(v.idx());
                        }
                    }
                }
                Routes::Table(first.clone())
            }
        })
        .collect()
}

/// Like [`compute`], but a node keeps every next hop on a shortest path (`net/ecmp.rs`),
/// hashing with its own key from `hash_seed`. A node with one next hop towards every
/// destination gets the plain table [`compute`] gives it (the same ports: the first of
/// several equal-cost hops in port order is the one breadth-first search in port order finds).
pub fn compute_ecmp(adj: &[Vec<(PortId, NodeId)>], hash_seed: u64) -> Vec<Routes> {
    let mut dist = vec![0; adj.len()];
    let mut sets = Vec::new();
    adj.iter()
        .enumerate()
        .map(|(src, ports)| match ports.len() {
            0 => Routes::Isolated,
            1 => Routes::Single(ports[0].0),
            _ => {
                let key = ecmp::node_key(hash_seed, src);
                match ecmp::node_routes(adj, src, key, &mut dist, &mut sets) {
                    Ok(table) => Routes::Table(table),
                    Err(multi) => Routes::Ecmp(Box::new(multi)),
                }
            }
        })
        .collect()
}

/// The path the flow of `k` takes from `k.src` to `k.dst`, or None where it does not arrive
/// (a stub's single port may lead nowhere useful, so walk the path).
pub fn path(
    routes: &[Routes],
    port_to: &dyn Fn(PortId) -> NodeId,
    k: &FlowKey,
) -> Option<Vec<PortId>> {
    path_by(&|n| &routes[n.idx()], port_to, routes.len(), k)
}

/// [`path`] over routes held elsewhere (each node's own table): `routes_of(n)` gives node n's.
pub fn path_by<'a>(
    routes_of: &dyn Fn(NodeId) -> &'a Routes,
    port_to: &dyn Fn(PortId) -> NodeId,
    nodes: usize,
    k: &FlowKey,
) -> Option<Vec<PortId>> {
    let mut hops = Vec::new();
    let mut at = k.src;
    while at != k.dst {
        let p = routes_of(at).next_port_for(k)?;
        hops.push(p);
        at = port_to(p);
        if hops.len() > nodes {
            return None;
        }
    }
    Some(hops)
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- shortest paths on a small graph with a tie ----
    #[test]
    fn shortest_hop_paths_with_port_order_ties() {
        // square 0-1-3, 0-2-3, plus stub 4 on 3
        let links = [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)];
        let mut adj = vec![Vec::new(); 5];
        let mut port_to = Vec::new();
        for (a, b) in links {
            adj[a].push((PortId(port_to.len() as u32), NodeId(b as u32)));
            port_to.push(NodeId(b as u32));
            adj[b].push((PortId(port_to.len() as u32), NodeId(a as u32)));
            port_to.push(NodeId(a as u32));
        }
        let r = compute(&adj);
        let to = |p: PortId| port_to[p.idx()];
        let p = path(&r, &to, &key(0, 4)).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(to(p[0]), NodeId(1), "tie broken by port order");
        assert_eq!(path(&r, &to, &key(4, 0)).unwrap().len(), 3);
    }

    #[test]
    fn unreachable_is_none() {
        let adj = vec![
            vec![(PortId(0), NodeId(1))],
            vec![(PortId(1), NodeId(0))],
            vec![],
        ];
        let r = compute(&adj);
        let port_to = [NodeId(1), NodeId(0)];
        assert!(path(&r, &|p: PortId| port_to[p.idx()], &key(0, 2)).is_none());
    }

    /// Adjacency and port destinations of an undirected graph, ports numbered as the builder
    /// numbers them (link k: port 2k from a to b, 2k + 1 back).
    fn graph(n: usize, links: &[(usize, usize)]) -> (Vec<Vec<(PortId, NodeId)>>, Vec<NodeId>) {
        let mut adj = vec![Vec::new(); n];
        let mut port_to = Vec::new();
        for &(a, b) in links {
            adj[a].push((PortId(port_to.len() as u32), NodeId(b as u32)));
            port_to.push(NodeId(b as u32));
            adj[b].push((PortId(port_to.len() as u32), NodeId(a as u32)));
            port_to.push(NodeId(a as u32));
        }
        (adj, port_to)
    }

    /// Two leaves (0, 1) under four spines (2..6), host 6 on leaf 0 and host 7 on leaf 1.
    fn two_leaves_four_spines() -> (Vec<Vec<(PortId, NodeId)>>, Vec<NodeId>) {
        let mut links = Vec::new();
        for spine in 2..6 {
            links.push((0, spine));
            links.push((1, spine));
        }
        links.extend([(6, 0), (7, 1)]);
        graph(8, &links)
    }

    #[test]
    fn ecmp_keeps_every_equal_cost_next_hop_and_no_longer_one() {
        let (adj, port_to) = two_leaves_four_spines();
        let r = compute_ecmp(&adj, 1);
        let Routes::Ecmp(t) = &r[0] else {
            panic!("leaf 0 has four ways to leaf 1")
        };
        let spines: Vec<NodeId> = t
            .choices(NodeId(7))
            .iter()
            .map(|p| port_to[p.idx()])
            .collect();
        assert_eq!(
            spines,
            [2, 3, 4, 5].map(NodeId),
            "every spine, in port order"
        );
        assert_eq!(t.choices(NodeId(6)).len(), 1, "its own host: one way");
        assert!(t.choices(NodeId(0)).is_empty(), "no route to itself");
        // a spine reaches each host one way, another spine two ways (through either leaf)
        let Routes::Ecmp(s) = &r[2] else {
            panic!("spine 2 has two ways to spine 3")
        };
        assert_eq!(s.choices(NodeId(6)).len(), 1);
        assert_eq!(s.choices(NodeId(7)).len(), 1);
        assert_eq!(s.choices(NodeId(3)).len(), 2);
        assert!(matches!(r[6], Routes::Single(_)));
        // 0-1-3 and 0-2-3 tie; 0-4-5-3 is a hop longer and is not a next hop towards 3
        let (adj, port_to) = graph(6, &[(0, 4), (0, 1), (0, 2), (1, 3), (2, 3), (4, 5), (5, 3)]);
        let Routes::Ecmp(t) = &compute_ecmp(&adj, 1)[0] else {
            panic!("node 0 has two ways to node 3")
        };
        let next: Vec<NodeId> = t
            .choices(NodeId(3))
            .iter()
            .map(|p| port_to[p.idx()])
            .collect();
        assert_eq!(next, [NodeId(1), NodeId(2)]);
        // node 5: 0-4-5 is two hops, 0-1-3-5 and 0-2-3-5 three
        let next: Vec<NodeId> = t
            .choices(NodeId(5))
            .iter()
            .map(|p| port_to[p.idx()])
            .collect();
        assert_eq!(next, [NodeId(4)]);
    }

    #[test]
    fn a_flow_keeps_one_path_and_its_path_is_the_hashed_one() {
        let (adj, port_to) = two_leaves_four_spines();
        let r = compute_ecmp(&adj, 7);
        let to = |p: PortId| port_to[p.idx()];
        for f in 0..16 {
            let k = FlowKey::new(NodeId(6), NodeId(7), crate::ids::FlowId(f), true);
            let p = path(&r, &to, &k).unwrap();
            assert_eq!(p.len(), 4, "host, leaf, spine, leaf");
            assert_eq!(path(&r, &to, &k).unwrap(), p, "the same path every time");
            let Routes::Ecmp(t) = &r[0] else { panic!() };
            assert_eq!(Some(p[1]), t.pick(&k), "the leaf's pick is the path's hop");
            assert_eq!(path(&r, &to, &k.reversed()).unwrap().len(), 4);
        }
    }

    #[test]
    fn sixty_four_flows_spread_over_four_spines() {
        let (adj, port_to) = two_leaves_four_spines();
        let to = |p: PortId| port_to[p.idx()];
        let mut total = [0u32; 4];
        for seed in 1..=20u64 {
            let r = compute_ecmp(&adj, crate::rng::stream_seed(seed, "ecmp"));
            let mut per_spine = [0u32; 4];
            for f in 0..64 {
                let k = FlowKey::new(NodeId(6), NodeId(7), crate::ids::FlowId(f), true);
                let spine = to(path(&r, &to, &k).unwrap()[1]).idx() - 2;
                per_spine[spine] += 1;
            }
            // 16 expected on each; binomial(64, 1/4) has a standard deviation of 3.5
            assert!(
                per_spine.iter().all(|&c| (6..=26).contains(&c)),
                "seed {seed}: {per_spine:?}"
            );
            for (t, c) in total.iter_mut().zip(per_spine) {
                *t += c;
            }
        }
        // 1280 flows: 320 expected per spine, standard deviation 15.5
        assert!(total.iter().all(|&c| (270..=370).contains(&c)), "{total:?}");
    }

    #[test]
    fn single_path_networks_route_exactly_as_before() {
        // a dumbbell (hosts 0, 1 on router 4, hosts 2, 3 on router 5), a chain with side
        // nodes, and random trees: no two equal-cost next hops anywhere
        let mut nets = vec![
            graph(6, &[(4, 5), (0, 4), (1, 4), (5, 2), (5, 3)]),
            graph(6, &[(0, 1), (1, 2), (2, 3), (4, 1), (5, 2)]),
        ];
        let mut rng = crate::rng::stream(3, "trees");
        for n in 2..40 {
            let links: Vec<(usize, usize)> = (1..n)
                .map(|v| (rng.integer(v as u64) as usize, v))
                .collect();
            nets.push(graph(n, &links));
        }
        for (adj, _) in &nets {
            let (a, b) = (compute(adj), compute_ecmp(adj, 9));
            for (ra, rb) in a.iter().zip(&b) {
                assert!(!matches!(rb, Routes::Ecmp(_)));
                for d in 0..adj.len() {
                    assert_eq!(
                        ra.next_port(NodeId(d as u32)),
                        rb.next_port(NodeId(d as u32))
                    );
                }
            }
        }
    }

    #[test]
    fn the_first_equal_cost_hop_is_the_single_path_hop() {
        // random graphs with many ties: ECMP's first choice is the port single-path routing takes
        let mut rng = crate::rng::stream(5, "graphs");
        for n in 4..30 {
            let mut links: Vec<(usize, usize)> = (1..n)
                .map(|v| (rng.integer(v as u64) as usize, v))
                .collect();
            for _ in 0..n {
                let (a, b) = (
                    rng.integer(n as u64) as usize,
                    rng.integer(n as u64) as usize,
                );
                if a != b {
                    links.push((a, b));
                }
            }
            let (adj, _) = graph(n, &links);
            let (a, b) = (compute(&adj), compute_ecmp(&adj, 9));
            for (ra, rb) in a.iter().zip(&b) {
                for d in 0..n {
                    assert_eq!(
                        ra.next_port(NodeId(d as u32)),
                        rb.next_port(NodeId(d as u32))
                    );
                }
            }
        }
    }

    /// ns-3's `RandomEcmpRouting` (ns-3.44 `Ipv4GlobalRouting::LookupGlobal`): every packet
    /// draws one of the equal-cost next hops uniformly, from the node's seeded stream.
    #[test]
    fn random_packet_spraying_is_uniform_independent_and_fixed_by_the_seed() {
        let (adj, port_to) = two_leaves_four_spines();
        let k = FlowKey::new(NodeId(6), NodeId(7), crate::ids::FlowId(0), true);
        let draws = |seed: u64, n: usize| -> Vec<usize> {
            let mut r = compute_ecmp(&adj, 1);
            let Routes::Ecmp(t) = &mut r[0] else {
                panic!("leaf 0 has four ways to leaf 1")
            };
            t.spray(crate::rng::stream(seed, "node/leaf0/ecmp"));
            assert!(t.sprays());
            // the static view (paths, delays, ideal FCTs): the first hop, ns-3 without it
            assert_eq!(t.pick(&k), t.first(k.dst));
            // one next hop (its own host): that port, every time
            let own = FlowKey::new(NodeId(7), NodeId(6), crate::ids::FlowId(0), true);
            assert_eq!(t.pick_packet(&own), t.first(NodeId(6)));
            assert_eq!(
                t.pick_packet(&FlowKey {
                    dst: NodeId(0),
                    ..k
                }),
                None
            );
            (0..n)
                .map(|_| port_to[t.pick_packet(&k).unwrap().idx()].idx() - 2)
                .collect()
        };
        let n = 40_000;
        let a = draws(1, n);
        assert_eq!(a, draws(1, n), "the same seed draws the same next hops");
        assert_ne!(a, draws(2, n), "another seed other ones");
        // one flow, every spine, each about a quarter: 10 000 expected, binomial standard
        // deviation 87; and a chi-square of 3 degrees of freedom under 16.27 (p = 0.001)
        let mut counts = [0f64; 4];
        let mut pairs = [[0f64; 4]; 4];
        for (i, &s) in a.iter().enumerate() {
            counts[s] += 1.0;
            if i > 0 {
                pairs[a[i - 1]][s] += 1.0;
            }
        }
        let e = n as f64 / 4.0;
        assert!(
            counts.iter().all(|c| (c - e).abs() < 5.0 * 87.0),
            "{counts:?}"
        );
        let chi2: f64 = counts.iter().map(|c| (c - e).powi(2) / e).sum();
        assert!(chi2 < 16.27, "{chi2} {counts:?}");
        // successive packets independent: each of the 16 (previous, next) pairs about 1/16;
        // chi-square of 15 degrees of freedom under 37.7 (p = 0.001)
        let e2 = (n - 1) as f64 / 16.0;
        let chi2: f64 = pairs.iter().flatten().map(|c| (c - e2).powi(2) / e2).sum();
        assert!(chi2 < 37.7, "{chi2} {pairs:?}");
    }

    fn key(a: u32, b: u32) -> FlowKey {
        FlowKey::new(NodeId(a), NodeId(b), crate::ids::FlowId(0), true)
    }
}
