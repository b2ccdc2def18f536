//! Static shortest-path routing by hop count, as ns-2's default static routing and ns-3's
//! global routing on equal-cost links. Ties are broken by the order of the node's ports
//! (the order links appear), so routes never depend on hashing.
//!
//! Memory stays linear in the network for dumbbells with thousands of hosts: a node with a
//! single link sends everything through it; only nodes with several links keep a table (one
//! next hop per destination), filled by one breadth-first search from that node.

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
}

impl Routes {
    #[inline]
    pub fn next_port(&self, dst: NodeId) -> Option<PortId> {
        match self {
            Routes::Single(p) => Some(*p),
            Routes::Table(t) => match t[dst.idx()] {
                NONE => None,
                p => Some(PortId(p)),
            },
            Routes::Isolated => None,
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

/// Whether `dst` is reachable from `src` (a stub's single port may lead nowhere useful, so walk the path).
pub fn path(
    routes: &[Routes],
    port_to: &dyn Fn(PortId) -> NodeId,
    src: NodeId,
    dst: NodeId,
) -> Option<Vec<PortId>> {
    path_by(&|n| &routes[n.idx()], port_to, routes.len(), src, dst)
}

/// [`path`] over routes held elsewhere (each node's own table): `routes_of(n)` gives node n's.
pub fn path_by<'a>(
    routes_of: &dyn Fn(NodeId) -> &'a Routes,
    port_to: &dyn Fn(PortId) -> NodeId,
    nodes: usize,
    src: NodeId,
    dst: NodeId,
) -> Option<Vec<PortId>> {
    let mut hops = Vec::new();
    let mut at = src;
    while at != dst {
        let p = routes_of(at).next_port(dst)?;
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
        let p = path(&r, &to, NodeId(0), NodeId(4)).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(to(p[0]), NodeId(1), "tie broken by port order");
        assert_eq!(path(&r, &to, NodeId(4), NodeId(0)).unwrap().len(), 3);
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
        assert!(path(&r, &|p: PortId| port_to[p.idx()], NodeId(0), NodeId(2)).is_none());
    }
}
