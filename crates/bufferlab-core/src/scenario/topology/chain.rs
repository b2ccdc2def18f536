//! The chain: n0 - n1 - ... - n{hops}, links `hop{i}` from the `hop` template, optionally a
//! side node x{i} on each inner node n{i} (link `side{i}` from the `side` template) to inject
//! background traffic along part of the path (the multihop topologies of
//! Halepoto et al., "Effect of TCP Buffer Size on the Internet Applications", seed 002).

use super::{check_builder_links, link_cfg, Topology};
use crate::scenario::config::{LinkConfig, Scenario};
use crate::scenario::ScenarioError;

pub fn build(s: &Scenario, hops: u32, side_nodes: bool) -> Result<Topology, ScenarioError> {
    if hops == 0 {
        return Err(ScenarioError::field("topology.hops", "must be at least 1"));
    }
    let num = |n: &str, p: &str| n.strip_prefix(p).and_then(|i| i.parse::<u32>().ok());
    let allowed = |n: &str| {
        n == "hop"
            || n == "side"
            || num(n, "hop").is_some_and(|i| i < hops)
            || (side_nodes && num(n, "side").is_some_and(|i| i >= 1 && i < hops))
    };
    check_builder_links(s, &allowed, "chain", "hop, hop{i}, side, side{i}")?;
    let empty = LinkConfig::default();
    let hop = link_cfg(s, "hop").unwrap_or(&empty);
    let side = link_cfg(s, "side").unwrap_or(&empty);
    let mut t = Topology::default();
    t.nodes.extend((0..=hops).map(|i| format!("n{i}")));
    for i in 0..hops as usize {
        let name = format!("hop{i}");
        let cfg = link_cfg(s, &name).unwrap_or(&empty).over(hop);
        let key = if s.links.contains_key(&name) {
            name.clone()
        } else {
            "hop".into()
        };
        t.add_link(&name, &key, i, i + 1, &cfg)?;
    }
    if side_nodes {
        for i in 1..hops as usize {
            let x = t.nodes.len();
            t.nodes.push(format!("x{i}"));
            let name = format!("side{i}");
            let cfg = link_cfg(s, &name).unwrap_or(&empty).over(side);
            let key = if s.links.contains_key(&name) {
                name.clone()
            } else {
                "side".into()
            };
            t.add_link(&name, &key, x, i, &cfg)?;
        }
    }
    Ok(t)
}
