//! Physical bounds on values no network has, and the memory a run's time series would take.
//!
//! A scenario can be valid to the types and still take a machine down: a 1e40 bit/s source
//! emits every packet at the same instant, a 1 ps sampling interval over a minute is 6e13
//! samples. These are refused before the run with the field, the bound and the fix.

use super::config::{Scenario, TopologyConfig};
use super::topology::{fat_tree, leaf_spine};
use super::ScenarioError;
use crate::units::{QueueLimit, Rate, SimTime};

/// The fastest rate a link or a source may have: 10 Tbit/s, well above today's fastest
/// interfaces (800 Gbit/s - 1.6 Tbit/s). Above it a packet's transmission time rounds towards
/// the picosecond clock's resolution.
pub const MAX_RATE: Rate = Rate(10_000_000_000_000);

/// The shortest sampling interval of a time series: 1 us (a 1500-byte packet at 10 Gbit/s
/// takes 1.2 us).
pub const MIN_SAMPLE_INTERVAL: SimTime = SimTime::from_micros(1);

/// The most samples the time series of one run may hold, all series together: 20 million
/// (about 0.7 GB for queue samples of 36 bytes).
pub const MAX_SERIES_SAMPLES: f64 = 20e6;

/// A link's or a source's rate.
pub fn check_rate(path: &str, rate: Rate) -> Result<(), ScenarioError> {
    if rate > MAX_RATE {
        return Err(ScenarioError::field(
            path,
            "faster than any network link: give at most 10Tbps (e.g. \"100Mbps\")",
        ));
    }
    Ok(())
}

/// The largest queue limit: 10^9 packets or 10^12 bytes (1 TB), beyond any memory that
/// could hold the queue; above it a limit is a typo (`1e20p` was taken as 2^64 - 1).
pub const MAX_QUEUE_PACKETS: u64 = 1_000_000_000;
pub const MAX_QUEUE_BYTES: u64 = 1_000_000_000_000;

/// A queue's limit.
pub fn check_queue_limit(path: &str, limit: QueueLimit) -> Result<(), ScenarioError> {
    let over = match limit {
        QueueLimit::Packets(n) => n > MAX_QUEUE_PACKETS,
        QueueLimit::Bytes(b) => b > MAX_QUEUE_BYTES,
    };
    if over {
        return Err(ScenarioError::field(
            path,
            "larger than any memory holds: give at most 1000000000p or 1TB (e.g. \"1000p\"); \
             a queue that never overflows needs only more than the traffic can fill",
        ));
    }
    Ok(())
}

/// A sampling interval, and the samples it makes: `series` series over `duration`.
pub fn check_sampling(
    path: &str,
    interval: SimTime,
    duration: SimTime,
    series: usize,
) -> Result<(), ScenarioError> {
    if interval < MIN_SAMPLE_INTERVAL {
        return Err(ScenarioError::field(
            path,
            format!(
                "{} is shorter than any useful sample; give at least 1us, e.g. \"10ms\"",
                human(interval)
            ),
        ));
    }
    let samples = duration.as_secs_f64() / interval.as_secs_f64() * series as f64;
    if samples > MAX_SERIES_SAMPLES {
        let least =
            SimTime::from_secs_f64(duration.as_secs_f64() * series as f64 / MAX_SERIES_SAMPLES);
        return Err(ScenarioError::field(
            path,
            format!(
                "{} over {} on {series} series is {samples:.3e} samples, more than the \
                 {MAX_SERIES_SAMPLES:.0e} a run may hold; give at least {}, fewer series or a \
                 shorter duration",
                human(interval),
                human(duration),
                human(least)
            ),
        ));
    }
    Ok(())
}

/// A time in the unit that reads best: 1ps, 2.5us, 10ms, 20s.
fn human(t: SimTime) -> String {
    let ps = t.0 as f64;
    for (unit, scale) in [("s", 1e12), ("ms", 1e9), ("us", 1e6), ("ns", 1e3)] {
        if ps >= scale {
            return format!("{}{unit}", ps / scale);
        }
    }
    format!("{}ps", t.0)
}

/// Bytes a flow holds (sender, receiver, statistics): 13 KB, the measured whole-process cost
/// per flow from 1 000 to 10 000 flows, 12.5 KB, rounded up (docs/performance.md).
pub const FLOW_BYTES: u64 = 13_000;
/// Bytes a duplex link costs while the network is built: its two ports (608 B each), its
/// specification with two queue configurations, its names, its nodes' adjacency and the
/// nodes themselves (a dumbbell's pair is two nodes and two links). Measured: the peak
/// resident memory of `bufferlab validate` over dumbbells of 10^5 and 2 x 10^5 pairs (503 MB
/// and 990 MB), 2.55 KB per link of the difference, rounded up.
pub const LINK_BYTES: u64 = 3_000;

/// What the network of a scenario is made of, counted from the scenario alone.
struct Size {
    nodes: u64,
    links: u64,
    /// Nodes with more than one link keep a routing table of one entry per node.
    routers: u64,
    /// The field that sets the size of the topology.
    field: &'static str,
    /// Links per template: (template, links), for the queues' own tables.
    templates: Vec<(&'static str, u64)>,
}

fn size(s: &Scenario) -> Size {
    match &s.topology {
        TopologyConfig::Dumbbell { pairs, .. } => {
            let p = *pairs as u64;
            Size {
                nodes: 2 * p + 2,
                links: 2 * p + 1,
                routers: 2,
                field: "topology.pairs",
                templates: vec![("bottleneck", 1), ("access", 2 * p)],
            }
        }
        TopologyConfig::Chain { hops, side_nodes } => {
            let h = *hops as u64;
            let side = if *side_nodes { h.saturating_sub(1) } else { 0 };
            Size {
                nodes: h + 1 + side,
                links: h + side,
                routers: h.saturating_sub(1),
                field: "topology.hops",
                templates: vec![("hop", h), ("side", side)],
            }
        }
        TopologyConfig::ParkingLot { hops } => {
            let h = *hops as u64;
            Size {
                nodes: 3 * h + 3,
                links: 3 * h + 2,
                routers: h + 1,
                field: "topology.hops",
                templates: vec![("hop", h), ("access", 2 * h + 2)],
            }
        }
        TopologyConfig::LeafSpine {
            leaves,
            spines,
            hosts_per_leaf,
            ..
        } => {
            let (l, sp) = (*leaves as u64, *spines as u64);
            let (nodes, links) = leaf_spine::counts(l, sp, *hosts_per_leaf as u64);
            Size {
                nodes,
                links,
                // a leaf keeps `spines` next hops for each remote host
                routers: l.saturating_mul(sp.saturating_add(1)).saturating_add(sp),
                field: "topology.leaves",
                templates: vec![("host", links - l * sp), ("fabric", l * sp)],
            }
        }
        TopologyConfig::FatTree { k } => {
            let k = *k as u64;
            let (nodes, links) = fat_tree::counts(k);
            Size {
                nodes,
                links,
                // 5k^2/4 switches, each up to k/2 next hops per destination
                routers: (5 * k.saturating_mul(k) / 4).saturating_mul(k / 2 + 1),
                field: "topology.k",
                templates: vec![
                    ("host", links / 3),
                    ("edge_agg", links / 3),
                    ("agg_core", links / 3),
                ],
            }
        }
        TopologyConfig::Custom { nodes } => {
            let n = nodes.len() as u64;
            let l = s.links.len() as u64;
            Size {
                nodes: n,
                links: l,
                routers: n.min(l),
                field: "topology.nodes",
                templates: Vec::new(),
            }
        }
    }
}

/// The memory the network of `s` takes to build, estimated from the scenario before anything
/// is built or expanded (flows' `count`, a dumbbell's `pairs`): refused over `budget` with the
/// estimate, its parts and the field to change. Packets in flight and time series are not in
/// it (the run's own checks bound those).
pub fn check_memory(s: &Scenario, budget: u64) -> Result<(), ScenarioError> {
    let z = size(s);
    let flows: u64 = s.flows.iter().map(|f| f.count.unwrap_or(1) as u64).sum();
    let links = z.links.saturating_mul(LINK_BYTES);
    let routes = z.routers.saturating_mul(z.nodes).saturating_mul(4);
    let flow_bytes = flows.saturating_mul(FLOW_BYTES);
    // the queues' own tables (FQ-CoDel's flows, SFQ's slots), both directions of each link
    // (an invalid queue is left to its own check, which names the value at fault)
    let state = |q: &crate::qdisc::QueueConfig| q.validate().map_or(0, |()| q.state_bytes());
    let queue_of = |key: &str| {
        s.links.get(key).map_or(0, |l| {
            let q = l.queue.as_ref().map_or(0, state);
            q + l.reverse_queue.as_ref().map_or(q, state)
        })
    };
    let mut queues: u64 = 0;
    let mut queue_field = String::new();
    let mut biggest = 0;
    let named = z.templates.iter().map(|&(k, n)| (k.to_string(), n));
    let custom = s.links.keys().map(|k| (k.clone(), 1));
    let per_template: Vec<(String, u64)> = if z.templates.is_empty() {
        custom.collect()
    } else {
        named.collect()
    };
    for (key, n) in per_template {
        let b = queue_of(&key).saturating_mul(n);
        queues = queues.saturating_add(b);
        if b > biggest {
            biggest = b;
            queue_field = format!("links.{key}.queue");
        }
    }
    let total = links
        .saturating_add(routes)
        .saturating_add(flow_bytes)
        .saturating_add(queues);
    if total <= budget {
        return Ok(());
    }
    let h = crate::guard::human_bytes;
    let (field, fix) = if flow_bytes >= links.max(routes).max(queues) {
        let at = (0..s.flows.len())
            .max_by_key(|&i| s.flows[i].count.unwrap_or(1))
            .unwrap_or(0);
        let field = if s.flows[at].count.is_some() {
            format!("flows[{at}].count")
        } else {
            "flows".to_string()
        };
        (field, "use fewer flows")
    } else if queues >= links.max(routes) {
        (queue_field, "give the queues fewer flow buckets")
    } else {
        (z.field.to_string(), "build a smaller network")
    };
    Err(ScenarioError::field(
        field,
        format!(
            "the network would hold about {} once built ({} nodes and {} links x 3 KB = {}, \
             routing tables {}, {flows} flows x 13 KB = {}, queue tables {}), more than \
             --max-memory {} (the memory budget; default 80 % of the machine's memory); {fix}, \
             or split the study into smaller runs",
            h(total),
            z.nodes,
            z.links,
            h(links),
            h(routes),
            h(flow_bytes),
            h(queues),
            h(budget)
        ),
    ))
}
