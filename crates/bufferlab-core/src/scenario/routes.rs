//! The nodes' routes: one path per destination (ties by port order, as ns-2's static routing
//! and ns-3's global routing without `RandomEcmpRouting`), or every equal-cost next hop with a
//! per-flow hash (`net/ecmp.rs`) where `[routing] multipath = "ecmp"` asks for it or the
//! topology builder makes it the default (a datacenter fabric), or with a uniform draw per
//! packet where `multipath = "random_packet"` asks for ns-3's `RandomEcmpRouting`. Scripts of
//! ns-2 never get ECMP: `bufferlab run script.tcl` writes no `[routing]` and uses no fabric
//! builder.

use super::config::{Multipath, Scenario, TopologyConfig};
use super::topology::Topology;
use super::ScenarioError;
use crate::net::ecmp::FlowKey;
use crate::net::routing::{self, Routes};

/// Whether the scenario routes over every equal-cost path.
pub(super) fn multipath(s: &Scenario) -> Multipath {
    let given = s.routing.as_ref().and_then(|r| r.multipath);
    given.unwrap_or(match s.topology {
        TopologyConfig::LeafSpine { .. } | TopologyConfig::FatTree { .. } => Multipath::Ecmp,
        TopologyConfig::Dumbbell { .. }
        | TopologyConfig::Chain { .. }
        | TopologyConfig::ParkingLot { .. }
        | TopologyConfig::Custom { .. } => Multipath::None,
    })
}

/// Every node's routes, in node order, for a run with root seed `seed`.
pub(super) fn compute(s: &Scenario, topo: &Topology, seed: u64) -> Vec<Routes> {
    let adj = super::limits::adjacency(topo);
    match multipath(s) {
        Multipath::None => routing::compute(&adj),
        Multipath::Ecmp => {
            // the routers' secrets: the scenario's own seed, else one drawn from the run's
            let hash_seed = s.routing.as_ref().and_then(|r| r.hash_seed);
            routing::compute_ecmp(
                &adj,
                hash_seed.unwrap_or_else(|| crate::rng::stream_seed(seed, "ecmp")),
            )
        }
        Multipath::RandomPacket => {
            // the same equal-cost next hops; each multipath node draws from its own stream
            let mut routes = routing::compute_ecmp(&adj, crate::rng::stream_seed(seed, "ecmp"));
            for (i, r) in routes.iter_mut().enumerate() {
                if let Routes::Ecmp(t) = r {
                    let label = format!("node/{}/ecmp", topo.nodes[i]);
                    t.spray(crate::rng::stream(seed, &label));
                }
            }
            routes
        }
    }
}

/// `[routing]`'s fields that contradict each other: (field, message with the fix).
pub(super) fn check(s: &Scenario) -> Result<(), ScenarioError> {
    let Some(r) = &s.routing else { return Ok(()) };
    if r.hash_seed.is_some() && multipath(s) != Multipath::Ecmp {
        let m = match multipath(s) {
            Multipath::None => "none",
            Multipath::Ecmp => "ecmp",
            Multipath::RandomPacket => "random_packet",
        };
        return Err(ScenarioError::field(
            "routing.hash_seed",
            format!(
                "seeds the per-flow hash, but multipath is \"{m}\" (no hash); remove hash_seed, \
                 or set multipath = \"ecmp\"{}",
                if m == "random_packet" {
                    " (random_packet draws from the run's seed: change `seed` for other draws)"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok(())
}

/// The key a flow's data packets hash with (flow `index`, TCP or not).
pub(super) fn flow_key(src: usize, dst: usize, index: usize, tcp: bool) -> FlowKey {
    use crate::ids::{FlowId, NodeId};
    FlowKey::new(
        NodeId(src as u32),
        NodeId(dst as u32),
        FlowId(index as u32),
        tcp,
    )
}
