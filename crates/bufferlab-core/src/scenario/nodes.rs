//! Nodes: a flow's endpoint names looked up (the first node of each name, as
//! `Topology::node` finds it), and each node of the topology put into the simulation with its
//! routing table.

use super::topology::Topology;
use super::ScenarioError;
use crate::ids::NodeId;
use crate::net::routing;
use crate::sim::{Node, Simulation};
use std::collections::BTreeMap;

/// Node names to indices, the first of each name.
pub(super) struct NodeIndex<'a> {
    topo: &'a Topology,
    // a scan of the node list per flow endpoint was quadratic (docs/performance.md,
    // 2026-11-25)
    index: BTreeMap<&'a str, usize>,
}

impl<'a> NodeIndex<'a> {
    pub(super) fn new(topo: &'a Topology) -> Self {
        let mut index: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, n) in topo.nodes.iter().enumerate() {
            index.entry(n.as_str()).or_insert(i);
        }
        Self { topo, index }
    }

    /// The node named `n`, or an error at `{path}.{field}` listing the first nodes.
    pub(super) fn get(&self, n: &str, path: &str, field: &str) -> Result<NodeId, ScenarioError> {
        self.index.get(n).map(|&i| NodeId(i as u32)).ok_or_else(|| {
            let nodes = &self.topo.nodes;
            let sample: Vec<&str> = nodes.iter().take(8).map(String::as_str).collect();
            ScenarioError::field(
                format!("{path}.{field}"),
                format!(
                    "unknown node \"{n}\"; nodes are {}{}",
                    sample.join(", "),
                    if nodes.len() > 8 { ", ..." } else { "" }
                ),
            )
        })
    }
}

/// The topology's nodes into `sim`, each with its routes (in node order).
pub(super) fn build_nodes(sim: &mut Simulation, topo: &Topology, routes: Vec<routing::Routes>) {
    for (name, r) in topo.nodes.iter().zip(routes) {
        sim.nodes.push(Node {
            name: name.clone(),
            routes: r,
        });
    }
}
