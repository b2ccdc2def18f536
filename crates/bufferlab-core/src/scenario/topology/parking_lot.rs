//! The parking lot: routers r0 - r1 - ... - r{hops} joined by bottleneck links `hop{i}`; one
//! long path from host `ls` (on r0) to host `ld` (on r{hops}) crosses every bottleneck, and each
//! hop i has its own cross-traffic hosts `cs{i}` (on r_i) and `cd{i}` (on r_{i+1}) whose path
//! crosses that hop only. This is the multiple-congested-gateway network of Floyd and Jacobson,
//! "Connections with Multiple Congested Gateways in Packet-Switched Networks, Part 1: One-way
//! Traffic" (ACM CCR 21(5), 1991), used since to measure how a queue discipline treats a flow
//! that crosses several bottlenecks against flows that cross one.
//!
//! Links `hop{i}` come from the `hop` template, every host's access link (`access_ls`,
//! `access_ld`, `access_cs{i}`, `access_cd{i}`) from the `access` template; a link named
//! on its own overrides its template field by field.

use super::{check_builder_links, link_cfg, Topology};
use crate::scenario::config::{LinkConfig, Scenario};
use crate::scenario::ScenarioError;

pub fn build(s: &Scenario, hops: u32) -> Result<Topology, ScenarioError> {
    if hops == 0 {
        return Err(ScenarioError::field("topology.hops", "must be at least 1"));
    }
    let num = |n: &str, p: &str| n.strip_prefix(p).and_then(|i| i.parse::<u32>().ok());
    let allowed = |n: &str| {
        matches!(n, "hop" | "access" | "access_ls" | "access_ld")
            || num(n, "hop").is_some_and(|i| i < hops)
            || num(n, "access_cs").is_some_and(|i| i < hops)
            || num(n, "access_cd").is_some_and(|i| i < hops)
    };
    check_builder_links(
        s,
        &allowed,
        "parking_lot",
        "hop, hop{i}, access, access_ls, access_ld, access_cs{i}, access_cd{i}",
    )?;
    let empty = LinkConfig::default();
    let hop = link_cfg(s, "hop").ok_or_else(|| {
        ScenarioError::field(
            "links.hop",
            "missing: a parking lot needs [links.hop] with the bottlenecks' rate and delay",
        )
    })?;
    let access = link_cfg(s, "access").unwrap_or(&empty);

    let mut t = Topology::default();
    let h = hops as usize;
    t.nodes.extend((0..=h).map(|i| format!("r{i}")));
    // A link named on its own is reported under its name; otherwise under its template.
    let key = |name: &str, template: &str| {
        if s.links.contains_key(name) {
            name.to_string()
        } else {
            template.to_string()
        }
    };
    for i in 0..h {
        let name = format!("hop{i}");
        let cfg = link_cfg(s, &name).unwrap_or(&empty).over(hop);
        t.add_link(&name, &key(&name, "hop"), i, i + 1, &cfg)?;
    }
    // Hosts in the order ls, ld, cs0, cd0, cs1, cd1, ...; senders' links point into the routers.
    let mut hosts = vec![("ls".to_string(), 0, true), ("ld".to_string(), h, false)];
    for i in 0..h {
        hosts.push((format!("cs{i}"), i, true));
        hosts.push((format!("cd{i}"), i + 1, false));
    }
    for (host, router, sends) in hosts {
        let node = t.nodes.len();
        t.nodes.push(host.clone());
        let name = format!("access_{host}");
        let cfg = link_cfg(s, &name).unwrap_or(&empty).over(access);
        let (a, b) = if sends {
            (node, router)
        } else {
            (router, node)
        };
        t.add_link(&name, &key(&name, "access"), a, b, &cfg)?;
    }
    Ok(t)
}
