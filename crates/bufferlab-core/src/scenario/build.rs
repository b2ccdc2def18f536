//! From a parsed scenario to a runnable simulation, checking everything types cannot:
//! names that must exist, paths that must connect, buffers that must hold one packet.
//!
//! `build_with` calls the rooms of the building in a fixed order, which is part of the
//! output (it numbers ports, flows and agents, and decides which mistake of a scenario with
//! several is reported): the run's random streams (`streams.rs`), the configured links
//! checked and the flows expanded (`links.rs`, `expand.rs`), routes and the limits sized
//! (`routes.rs`, `limits.rs`), the links' ports with their queues (`links.rs`, `queues.rs`), the flows with
//! their agents (`flows.rs`, `agents.rs`), the nodes (`nodes.rs`) and the monitors
//! (`monitors.rs`); shared-buffer switches are checked after the topology and give their
//! ports' queues (`switches.rs`).

use super::checks::check_app;
use super::config::Scenario;
use super::expand::{expand_flows, flow_infos};
use super::flows::{build_flows, FlowBuild};
use super::nodes::{build_nodes, NodeIndex};
use super::streams::Streams;
use super::switches::Switches;
use super::topology::{self, Topology};
use super::ScenarioError;
use crate::ext::Extensions;
use crate::sim::Simulation;
use crate::units::SimTime;

/// Builds the simulation for `s` with root seed `seed`.
pub fn build(s: &Scenario, seed: u64) -> Result<Simulation, ScenarioError> {
    build_with(s, seed, None)
}

/// Builds the simulation for `s` with root seed `seed`, with user-defined components from `ext`.
pub fn build_with(
    s: &Scenario,
    seed: u64,
    ext: Option<&dyn Extensions>,
) -> Result<Simulation, ScenarioError> {
    check_times(s)?;
    let streams = Streams::new(s, seed)?;
    super::links::check_links(s)?;
    let mut topo: Topology = topology::build(s)?;
    let switches = Switches::new(s, &topo)?;
    // the workloads' transfers join the flows (`workloads.rs`)
    let with_workloads;
    let s = if s.workloads.is_empty() {
        s
    } else {
        with_workloads = super::workloads::with_workload_flows(s, &topo, seed)?;
        &with_workloads
    };
    let flows = expand_flows(s, seed)?;
    for f in &flows {
        check_app(f.entry, f.cfg)?;
    }
    // Routes first: limits in BDP need the flows' RTTs, the recipes' warnings their paths.
    super::routes::check(s)?;
    let routes = super::routes::compute(s, &topo, seed);
    let infos = flow_infos(&topo, &routes, &flows);
    let sized_limits = super::limits::resolve(s, &mut topo, &infos)?;

    let mut sim = Simulation::new(s.name.clone(), seed, s.duration, s.warmup);
    sim.ns2_rng = streams.ns2.clone();
    sim.set_clock(s.clock);
    super::links::build_links(&mut sim, s, &topo, ext, &streams, &switches)?;
    sim.shared_buffers = switches.pools();
    sim.notes = crate::notes::BuildNotes {
        warnings: super::recipes::warnings(&topo, &infos, &|port| {
            let l = &topo.links[port / 2];
            let from = if port.is_multiple_of(2) { l.a } else { l.b };
            switches.port_marks(from, &l.name)
        }),
        sized_limits,
    };
    let b = FlowBuild {
        s,
        topo: &topo,
        routes: &routes,
        nodes: NodeIndex::new(&topo),
        ext,
        streams: &streams,
    };
    build_flows(&mut sim, &b, &flows)?;
    build_nodes(&mut sim, &topo, routes);
    // disciplines that tell flows apart by ns-2's flow id (ns-2's FQ) learn the flows' now
    let fids: Vec<u32> = sim.flows.iter().map(|f| f.trace_fid).collect();
    for p in &mut sim.ports {
        p.set_flow_ids(&fids);
    }
    super::monitors::build_monitors(&mut sim, s)?;
    if sim.ports.len() >= crate::sim::MAX_PORT_INDEX
        || sim.agents.len() >= crate::sim::MAX_EVENT_INDEX
    {
        return Err(ScenarioError::field(
            "topology",
            "has more than 2^29 link directions or 2^30 endpoints; split the study into smaller runs",
        ));
    }
    // The tables grew by doubling while they were filled: up to half of each is spare room
    // (a 608-byte port: 16 MB at 10 000 flows, docs/performance.md).
    sim.ports.shrink_to_fit();
    sim.flows.shrink_to_fit();
    sim.agents.shrink_to_fit();
    sim.start();
    Ok(sim)
}

/// A positive duration, and a warmup shorter than it.
fn check_times(s: &Scenario) -> Result<(), ScenarioError> {
    if s.duration == SimTime::ZERO {
        return Err(ScenarioError::field(
            "duration",
            "must be positive, e.g. duration = \"10s\"",
        ));
    }
    if s.warmup >= s.duration {
        return Err(ScenarioError::field(
            "warmup",
            format!(
                "{} is not shorter than the duration {}; statistics would be empty",
                s.warmup, s.duration
            ),
        ));
    }
    Ok(())
}
