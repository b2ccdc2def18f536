//! The dumbbell: N senders s0..s{N-1} on access links to router r0, a bottleneck r0 - r1, and
//! N receivers d0..d{N-1} on access links from r1 (the topology of every seed paper but one).
//! Access links come from the `access` template (`access_s{i}` / `access_d{i}` may override
//! single ones); per-sender and per-receiver delays give flows different RTTs.

use super::{check_builder_links, link_cfg, Topology};
use crate::scenario::config::{LinkConfig, Scenario};
use crate::scenario::ScenarioError;
use crate::units::SimTime;

pub fn build(
    s: &Scenario,
    pairs: u32,
    sender_delays: Option<&[SimTime]>,
    receiver_delays: Option<&[SimTime]>,
) -> Result<Topology, ScenarioError> {
    if pairs == 0 {
        return Err(ScenarioError::field("topology.pairs", "must be at least 1"));
    }
    for (field, d) in [
        ("sender_delays", sender_delays),
        ("receiver_delays", receiver_delays),
    ] {
        if let Some(d) = d {
            if d.len() != pairs as usize {
                return Err(ScenarioError::field(
                    format!("topology.{field}"),
                    format!(
                        "has {} entries but there are {pairs} pairs; give one delay per pair",
                        d.len()
                    ),
                ));
            }
        }
    }
    let allowed = |n: &str| {
        n == "bottleneck"
            || n == "access"
            || n.strip_prefix("access_s")
                .or_else(|| n.strip_prefix("access_d"))
                .and_then(|i| i.parse::<u32>().ok())
                .is_some_and(|i| i < pairs)
    };
    check_builder_links(
        s,
        &allowed,
        "dumbbell",
        "bottleneck, access, access_s{i}, access_d{i}",
    )?;
    let empty = LinkConfig::default();
    let access = link_cfg(s, "access").unwrap_or(&empty);
    let bottleneck = link_cfg(s, "bottleneck").ok_or_else(|| {
        ScenarioError::field(
            "links.bottleneck",
            "missing: a dumbbell needs [links.bottleneck] with rate and delay",
        )
    })?;

    let mut t = Topology::default();
    let n = pairs as usize;
    // one bottleneck and two access links a pair, sized once (no doubling slack at the peak)
    t.links.reserve_exact(2 * n + 1);
    t.nodes.reserve_exact(2 * n + 2);
    t.nodes.extend((0..n).map(|i| format!("s{i}")));
    t.nodes.extend((0..n).map(|i| format!("d{i}")));
    t.nodes.push("r0".into());
    t.nodes.push("r1".into());
    let (r0, r1) = (2 * n, 2 * n + 1);
    t.add_link("bottleneck", "bottleneck", r0, r1, bottleneck)?;
    for i in 0..n {
        for (side, delays, a, b) in [
            ("s", sender_delays, i, r0),
            ("d", receiver_delays, r1, n + i),
        ] {
            let name = format!("access_{side}{i}");
            let mut cfg = link_cfg(s, &name).unwrap_or(&empty).over(access);
            if let Some(d) = delays {
                cfg.delay = Some(d[i]);
            }
            let key = if s.links.contains_key(&name) {
                name.clone()
            } else {
                "access".to_string()
            };
            t.add_link(&name, &key, a, b, &cfg)?;
        }
    }
    Ok(t)
}
