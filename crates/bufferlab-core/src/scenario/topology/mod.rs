//! A topology resolved from the scenario: named nodes and fully specified duplex links.
//! Builders for the dumbbell, the chain, the parking lot and the datacenter fabrics (leaf-spine,
//! fat-tree) live beside this file; a custom topology is read directly from `nodes` and
//! `links.*.between`.

mod chain;
mod dumbbell;
pub mod fat_tree;
pub mod leaf_spine;
mod parking_lot;

use crate::net::loss::LossConfig;
use crate::qdisc::QueueConfig;
use crate::scenario::config::{LinkConfig, Scenario, TopologyConfig};
use crate::scenario::ScenarioError;
use crate::units::{Rate, SimTime};

/// A duplex link with everything decided.
#[derive(Debug, Clone)]
pub struct LinkSpec {
    pub name: String,
    /// Index of the scenario's `links` entry it came from (for error messages).
    pub config_key: String,
    pub a: usize,
    pub b: usize,
    /// The capacity of the direction a -> b (its mean, when it varies).
    pub rate: Rate,
    /// The capacity of the direction b -> a (its mean, when it varies).
    pub reverse_rate: Rate,
    /// A varying capacity of each direction (a -> b, b -> a; `scenario/capacity.rs`); None:
    /// the fixed rate.
    pub capacity: [Option<crate::net::capacity::Capacity>; 2],
    /// What the link's table gave for its capacity, until `capacity::resolve` reads it.
    pub capacity_given: crate::scenario::capacity::CapacityGiven,
    pub delay: SimTime,
    /// Framing bytes added to each packet's serialisation time.
    pub overhead: u32,
    /// Packets the device queue below each port's discipline holds (0: none).
    pub device_queue: u32,
    pub queue_ab: QueueConfig,
    pub queue_ba: QueueConfig,
    pub loss_ab: Option<LossConfig>,
    pub loss_ba: Option<LossConfig>,
}

#[derive(Debug, Clone, Default)]
pub struct Topology {
    pub nodes: Vec<String>,
    pub links: Vec<LinkSpec>,
}

impl LinkSpec {
    /// The capacity (or its mean) of direction `dir` (0: a -> b, 1: b -> a).
    pub fn rate_of(&self, dir: usize) -> Rate {
        if dir == 0 {
            self.rate
        } else {
            self.reverse_rate
        }
    }
}

impl Topology {
    pub fn node(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n == name)
    }

    /// Adds a link named `name` between nodes `a` and `b` from `cfg` (already merged with its template).
    pub fn add_link(
        &mut self,
        name: &str,
        key: &str,
        a: usize,
        b: usize,
        cfg: &LinkConfig,
    ) -> Result<(), ScenarioError> {
        let given = crate::scenario::capacity::CapacityGiven::of(cfg);
        if !given.forward_given() {
            return Err(ScenarioError::field(
                format!("links.{key}.rate"),
                "missing: give the link's capacity, e.g. rate = \"10Mbps\" (or a trace or rate_schedule)",
            ));
        }
        // a varying capacity's mean replaces this in capacity::resolve
        let rate = cfg.rate.unwrap_or(Rate(1));
        super::bounds::check_rate(&format!("links.{key}.rate"), rate)?;
        let delay = cfg.delay.ok_or_else(|| {
            ScenarioError::field(
                format!("links.{key}.delay"),
                "missing: give the one-way propagation delay, e.g. delay = \"10ms\"",
            )
        })?;
        // framing bytes per packet: more than a packet's largest size is no link layer
        if cfg.overhead.is_some_and(|b| b.0 > 65_535) {
            return Err(ScenarioError::field(
                format!("links.{key}.overhead"),
                "give at most 65535B of framing per packet (ns-3's PPP header is 2B)",
            ));
        }
        let queue_ab = cfg.queue.clone().unwrap_or_default();
        let queue_ba = cfg
            .reverse_queue
            .clone()
            .unwrap_or_else(|| queue_ab.clone());
        self.links.push(LinkSpec {
            name: name.to_string(),
            config_key: key.to_string(),
            a,
            b,
            rate,
            reverse_rate: rate,
            capacity: [None, None],
            capacity_given: given,
            delay,
            overhead: cfg.overhead.map_or(0, |b| b.0.min(u32::MAX as u64) as u32),
            device_queue: cfg.device_queue.unwrap_or(0),
            queue_ab,
            queue_ba,
            loss_ab: cfg.loss.clone(),
            loss_ba: cfg.reverse_loss.clone(),
        });
        Ok(())
    }
}

/// Builds the topology the scenario describes.
pub fn build(s: &Scenario) -> Result<Topology, ScenarioError> {
    let mut t = match &s.topology {
        TopologyConfig::Dumbbell {
            pairs,
            sender_delays,
            receiver_delays,
        } => dumbbell::build(
            s,
            *pairs,
            sender_delays.as_deref(),
            receiver_delays.as_deref(),
        ),
        TopologyConfig::Chain { hops, side_nodes } => chain::build(s, *hops, *side_nodes),
        TopologyConfig::ParkingLot { hops } => parking_lot::build(s, *hops),
        TopologyConfig::LeafSpine {
            leaves,
            spines,
            hosts_per_leaf,
            oversubscription,
        } => leaf_spine::build(
            s,
            &leaf_spine::Shape {
                leaves: *leaves,
                spines: *spines,
                hosts_per_leaf: *hosts_per_leaf,
                oversubscription: *oversubscription,
            },
        ),
        TopologyConfig::FatTree { k } => fat_tree::build(s, *k),
        TopologyConfig::Custom { nodes } => custom(s, nodes),
    }?;
    crate::scenario::capacity::resolve(s, &mut t)?;
    Ok(t)
}

fn custom(s: &Scenario, nodes: &[String]) -> Result<Topology, ScenarioError> {
    let mut t = Topology::default();
    for (i, n) in nodes.iter().enumerate() {
        crate::scenario::checks::check_name(format!("topology.nodes[{i}]"), n)?;
        if n.is_empty() || t.node(n).is_some() {
            return Err(ScenarioError::field(
                format!("topology.nodes[{i}]"),
                format!("node name \"{n}\" is empty or repeated; give each node a unique name"),
            ));
        }
        t.nodes.push(n.clone());
    }
    if s.links.is_empty() {
        return Err(ScenarioError::field("links", "a custom topology needs links: add [links.NAME] with between = [\"a\", \"b\"], rate and delay"));
    }
    for (name, cfg) in &s.links {
        let [a, b] = cfg.between.as_ref().ok_or_else(|| {
            ScenarioError::field(
                format!("links.{name}.between"),
                "missing: name the two nodes the link joins, e.g. between = [\"n0\", \"n1\"]",
            )
        })?;
        let find = |n: &str| {
            t.node(n).ok_or_else(|| {
                ScenarioError::field(
                    format!("links.{name}.between"),
                    format!("unknown node \"{n}\"; the nodes are {}", nodes.join(", ")),
                )
            })
        };
        let (ia, ib) = (find(a)?, find(b)?);
        if ia == ib {
            return Err(ScenarioError::field(
                format!("links.{name}.between"),
                "a link must join two different nodes",
            ));
        }
        t.add_link(name, name, ia, ib, cfg)?;
    }
    Ok(t)
}

/// The scenario's link entry `key`, or an empty one.
pub fn link_cfg<'a>(s: &'a Scenario, key: &str) -> Option<&'a LinkConfig> {
    s.links.get(key)
}

/// The template a builder merges under the link `name` (`access_s3` -> `access`, `hop2` ->
/// `hop`), as the builders beside this file call `LinkConfig::over`; None for a custom
/// topology's links and for the links built from one entry (a dumbbell's `bottleneck`).
pub fn template_of(s: &Scenario, name: &str) -> Option<String> {
    let numbered = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|i| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()))
    };
    let t = match &s.topology {
        TopologyConfig::Dumbbell { .. } if numbered("access_s") || numbered("access_d") => "access",
        TopologyConfig::Chain { .. } if numbered("hop") => "hop",
        TopologyConfig::Chain { .. } if numbered("side") => "side",
        TopologyConfig::ParkingLot { .. } if numbered("hop") => "hop",
        TopologyConfig::ParkingLot { .. } if name.starts_with("access_") => "access",
        TopologyConfig::LeafSpine { .. } if any_indices(name, "host", 2) => "host",
        TopologyConfig::LeafSpine { .. } if any_indices(name, "fabric", 2) => "fabric",
        TopologyConfig::FatTree { .. } if any_indices(name, "host", 3) => "host",
        TopologyConfig::FatTree { .. } if any_indices(name, "edge_agg", 3) => "edge_agg",
        TopologyConfig::FatTree { .. } if any_indices(name, "agg_core", 3) => "agg_core",
        _ => return None,
    };
    Some(t.to_string())
}

/// Whether `name` is `prefix` followed by `bounds.len()` indices joined by `_`, each below
/// its bound (`host3_1` under bounds [4, 2]).
pub fn indexed(name: &str, prefix: &str, bounds: &[u32]) -> bool {
    let Some(rest) = name.strip_prefix(prefix) else {
        return false;
    };
    let parts: Vec<&str> = rest.split('_').collect();
    parts.len() == bounds.len()
        && parts.iter().zip(bounds).all(|(p, &b)| {
            !p.is_empty()
                && p.bytes().all(|c| c.is_ascii_digit())
                && p.parse::<u32>().is_ok_and(|i| i < b)
        })
}

/// `prefix` and `n` indices, whatever their values.
fn any_indices(name: &str, prefix: &str, n: usize) -> bool {
    indexed(name, prefix, &vec![u32::MAX; n])
}

/// Refuses a builder's network past ten million nodes or links (`counts` of the builder) before
/// any of it is built: no study here needs one, and the memory check names the budget.
pub fn check_size((nodes, links): (u64, u64), field: &str) -> Result<(), ScenarioError> {
    const MAX: u64 = 10_000_000;
    if nodes > MAX || links > MAX {
        return Err(ScenarioError::field(
            field,
            format!(
                "gives {nodes} nodes and {links} links, more than {MAX}; build a smaller network"
            ),
        ));
    }
    Ok(())
}

/// Rejects `between` in links that a builder places itself, and unknown link names.
pub fn check_builder_links(
    s: &Scenario,
    allowed: &dyn Fn(&str) -> bool,
    kind: &str,
    names: &str,
) -> Result<(), ScenarioError> {
    for (name, cfg) in &s.links {
        if !allowed(name) {
            return Err(ScenarioError::field(
                format!("links.{name}"),
                format!("a {kind} topology has no link \"{name}\"; its links are {names}"),
            ));
        }
        if cfg.between.is_some() {
            return Err(ScenarioError::field(
                format!("links.{name}.between"),
                format!("the {kind} builder places this link itself; remove `between`"),
            ));
        }
    }
    Ok(())
}
