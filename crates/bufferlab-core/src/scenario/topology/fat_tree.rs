//! The k-ary fat-tree of Al-Fares, Loukissas and Vahdat, "A Scalable, Commodity Data Center
//! Network Architecture" (SIGCOMM 2008, section 3.2): k pods, each of k/2 edge switches
//! `edge{p}_{e}` and k/2 aggregation switches `agg{p}_{a}`, every edge switch joined to every
//! aggregation switch of its pod and to k/2 hosts `h{p}_{e}_{i}`; (k/2)^2 core switches
//! `core{c}`, core c joined to aggregation switch c / (k/2) of every pod. k^3/4 hosts, 5k^2/4
//! switches, 3k^3/4 links, every switch with k ports; hosts are 2 hops apart under one edge
//! switch, 4 within a pod (k/2 equal-cost paths) and 6 across pods ((k/2)^2 paths), which
//! ECMP spreads flows over (on by default here, `scenario/routes.rs`). The paper routes with
//! two-level tables instead; ECMP is what fat-tree studies run since (Hedera, NSDI 2010;
//! CONGA, SIGCOMM 2014) and what the paper compares against.
//!
//! Links: `host{p}_{e}_{i}` (host to edge) from the `host` template, `edge_agg{p}_{e}_{a}`
//! from `edge_agg`, `agg_core{p}_{a}_{j}` (aggregation switch a of pod p to core a·k/2 + j)
//! from `agg_core`; a link named on its own overrides its template field by field.

use super::{check_builder_links, indexed, link_cfg, Topology};
use crate::scenario::config::{LinkConfig, Scenario};
use crate::scenario::ScenarioError;

/// Node and link counts of a k-ary fat-tree: k^3/4 hosts + 5k^2/4 switches, 3k^3/4 links.
pub fn counts(k: u64) -> (u64, u64) {
    let cube = k.saturating_mul(k).saturating_mul(k);
    (
        (cube / 4).saturating_add(5 * k.saturating_mul(k) / 4),
        cube.saturating_mul(3) / 4,
    )
}

pub fn build(s: &Scenario, k: u32) -> Result<Topology, ScenarioError> {
    if k < 2 || k % 2 == 1 {
        return Err(ScenarioError::field(
            "topology.k",
            format!("is {k}; a fat-tree needs an even k of at least 2 (switches of k ports)"),
        ));
    }
    super::check_size(counts(k as u64), "topology.k")?;
    let h = k / 2;
    let allowed = |n: &str| {
        matches!(n, "host" | "edge_agg" | "agg_core")
            || indexed(n, "host", &[k, h, h])
            || indexed(n, "edge_agg", &[k, h, h])
            || indexed(n, "agg_core", &[k, h, h])
    };
    check_builder_links(
        s,
        &allowed,
        "fat_tree",
        "host, edge_agg, agg_core, host{pod}_{edge}_{i}, edge_agg{pod}_{edge}_{agg}, agg_core{pod}_{agg}_{j}",
    )?;
    let empty = LinkConfig::default();
    let template = |n: &str| link_cfg(s, n).unwrap_or(&empty);
    let (k, h) = (k as usize, h as usize);
    let mut t = Topology::default();
    t.nodes.extend((0..h * h).map(|c| format!("core{c}")));
    let agg = |p: usize, a: usize| h * h + p * h + a;
    let edge = |p: usize, e: usize| h * h + k * h + p * h + e;
    let host = |p: usize, e: usize, i: usize| h * h + 2 * k * h + (p * h + e) * h + i;
    for p in 0..k {
        t.nodes.extend((0..h).map(|a| format!("agg{p}_{a}")));
    }
    for p in 0..k {
        t.nodes.extend((0..h).map(|e| format!("edge{p}_{e}")));
    }
    for p in 0..k {
        for e in 0..h {
            t.nodes.extend((0..h).map(|i| format!("h{p}_{e}_{i}")));
        }
    }
    let mut add = |name: String, tmpl: &str, a: usize, b: usize| {
        let cfg = link_cfg(s, &name).unwrap_or(&empty).over(template(tmpl));
        let key = if s.links.contains_key(&name) {
            name.clone()
        } else {
            tmpl.to_string()
        };
        t.add_link(&name, &key, a, b, &cfg)
    };
    // a switch's ports: its uplinks first, then its downlinks, each in index order
    for p in 0..k {
        for a in 0..h {
            for j in 0..h {
                add(
                    format!("agg_core{p}_{a}_{j}"),
                    "agg_core",
                    agg(p, a),
                    a * h + j,
                )?;
            }
        }
    }
    for p in 0..k {
        for e in 0..h {
            for a in 0..h {
                add(
                    format!("edge_agg{p}_{e}_{a}"),
                    "edge_agg",
                    edge(p, e),
                    agg(p, a),
                )?;
            }
        }
    }
    for p in 0..k {
        for e in 0..h {
            for i in 0..h {
                add(
                    format!("host{p}_{e}_{i}"),
                    "host",
                    host(p, e, i),
                    edge(p, e),
                )?;
            }
        }
    }
    Ok(t)
}
