//! The leaf-spine (two-tier Clos) fabric of today's datacenters: `leaves` top-of-rack
//! switches `leaf{l}`, each with `hosts_per_leaf` hosts `h{l}_{i}`, and `spines` switches
//! `spine{s}`, every leaf joined to every spine. Two hosts under one leaf are two hops apart
//! (host, leaf, host); two under different leaves four (host, leaf, spine, leaf, host), over
//! as many equal-cost paths as there are spines, which ECMP spreads flows over (on by default
//! here, `scenario/routes.rs`). This is the fabric of Alizadeh et al., "CONGA" (SIGCOMM
//! 2014) and "pFabric" (SIGCOMM 2013) and of the shared-buffer studies since (ABM, Addanki
//! et al., SIGCOMM 2022); it is the fat-tree of Al-Fares et al. (SIGCOMM 2008) with one tier.
//!
//! Links: `host{l}_{i}` (host to leaf) from the `host` template and `fabric{l}_{s}` (leaf to
//! spine) from the `fabric` template; a link named on its own overrides its template field by
//! field. Oversubscription, the hosts' capacity over the uplinks' capacity at a leaf
//! (`hosts_per_leaf x host rate / (spines x fabric rate)`, 1 for a non-blocking fabric), can
//! be given instead of the fabric's rate, which is then derived from it; given with a
//! fabric rate, the two must agree.

use super::{check_builder_links, indexed, link_cfg, Topology};
use crate::scenario::config::{LinkConfig, Scenario};
use crate::scenario::ScenarioError;
use crate::units::Rate;

/// The shape of a leaf-spine fabric.
pub struct Shape {
    pub leaves: u32,
    pub spines: u32,
    pub hosts_per_leaf: u32,
    pub oversubscription: Option<f64>,
}

/// Node and link counts: leaves + spines + leaves x hosts, leaves x (spines + hosts).
pub fn counts(leaves: u64, spines: u64, hosts: u64) -> (u64, u64) {
    let nodes = leaves
        .saturating_add(spines)
        .saturating_add(leaves.saturating_mul(hosts));
    (nodes, leaves.saturating_mul(spines.saturating_add(hosts)))
}

pub fn build(s: &Scenario, shape: &Shape) -> Result<Topology, ScenarioError> {
    let (leaves, spines, hosts) = (shape.leaves, shape.spines, shape.hosts_per_leaf);
    for (field, v) in [
        ("leaves", leaves),
        ("spines", spines),
        ("hosts_per_leaf", hosts),
    ] {
        if v == 0 {
            return Err(ScenarioError::field(
                format!("topology.{field}"),
                "must be at least 1",
            ));
        }
    }
    super::check_size(
        counts(leaves as u64, spines as u64, hosts as u64),
        "topology.leaves",
    )?;
    let allowed = |n: &str| {
        matches!(n, "host" | "fabric")
            || indexed(n, "host", &[leaves, hosts])
            || indexed(n, "fabric", &[leaves, spines])
    };
    check_builder_links(
        s,
        &allowed,
        "leaf_spine",
        "host, fabric, host{leaf}_{i}, fabric{leaf}_{spine}",
    )?;
    let empty = LinkConfig::default();
    let host = link_cfg(s, "host").unwrap_or(&empty);
    let mut fabric = link_cfg(s, "fabric").unwrap_or(&empty).clone();
    if let Some(ratio) = shape.oversubscription {
        fabric.rate = Some(fabric_rate(host, &fabric, ratio, hosts, spines)?);
    }

    let mut t = Topology::default();
    let (l, sp, h) = (leaves as usize, spines as usize, hosts as usize);
    t.nodes.extend((0..l).map(|i| format!("leaf{i}")));
    t.nodes.extend((0..sp).map(|i| format!("spine{i}")));
    for leaf in 0..l {
        t.nodes.extend((0..h).map(|i| format!("h{leaf}_{i}")));
    }
    let key = |name: &str, template: &str| {
        if s.links.contains_key(name) {
            name.to_string()
        } else {
            template.to_string()
        }
    };
    // a leaf's ports: its uplinks in spine order, then its hosts
    for leaf in 0..l {
        for spine in 0..sp {
            let name = format!("fabric{leaf}_{spine}");
            let cfg = link_cfg(s, &name).unwrap_or(&empty).over(&fabric);
            t.add_link(&name, &key(&name, "fabric"), leaf, l + spine, &cfg)?;
        }
    }
    for leaf in 0..l {
        for i in 0..h {
            let name = format!("host{leaf}_{i}");
            let cfg = link_cfg(s, &name).unwrap_or(&empty).over(host);
            t.add_link(
                &name,
                &key(&name, "host"),
                l + sp + leaf * h + i,
                leaf,
                &cfg,
            )?;
        }
    }
    Ok(t)
}

/// The fabric links' rate for oversubscription `ratio`: hosts x host rate / (spines x ratio),
/// checked against a fabric rate given too (1 % apart at most: a rate is written rounded).
fn fabric_rate(
    host: &LinkConfig,
    fabric: &LinkConfig,
    ratio: f64,
    hosts: u32,
    spines: u32,
) -> Result<Rate, ScenarioError> {
    if !(ratio.is_finite() && ratio > 0.0) {
        return Err(ScenarioError::field(
            "topology.oversubscription",
            "must be a positive number: the hosts' capacity over the uplinks' at a leaf (1 = non-blocking, 3 = 3:1)",
        ));
    }
    let host_rate = host.rate.ok_or_else(|| {
        ScenarioError::field(
            "links.host.rate",
            "missing: oversubscription derives the fabric's rate from the hosts' rate",
        )
    })?;
    let bps = host_rate.bps() as f64 * hosts as f64 / (spines as f64 * ratio);
    let derived = Rate(bps.round().max(1.0) as u64);
    if let Some(given) = fabric.rate {
        let r = host_rate.bps() as f64 * hosts as f64 / (spines as f64 * given.bps() as f64);
        if (r / ratio - 1.0).abs() > 0.01 {
            return Err(ScenarioError::field(
                "topology.oversubscription",
                format!(
                    "is {ratio} but links.fabric.rate {given} makes it {r:.3} ({hosts} hosts x {host_rate} over {spines} spines x {given}); give one of the two"
                ),
            ));
        }
        return Ok(given);
    }
    Ok(derived)
}
