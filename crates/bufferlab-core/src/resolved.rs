//! The scenario as the core built it, every default filled in: each link direction's rate,
//! delay and queue settings (RED thresholds a preset resolves to), each flow's routed path,
//! propagation RTT, packet size, start and stop (a random start drawn from the seed) and its
//! resolved TCP settings. Front ends read this (`bufferlab validate --json`, `advise`) instead
//! of re-deriving units, routes or TCP sizes themselves.

use crate::ids::{FlowId, NodeId, PortId};
use crate::net::ecmp::FlowKey;
use crate::net::routing;
pub use crate::notes::{BuildNotes, SizedBdp, SizedLimit};
use crate::sim::Simulation;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct ResolvedQueue {
    pub discipline: &'static str,
    /// The discipline's settings with its preset's defaults resolved for this link; absent
    /// when the scenario's configuration already says everything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settings: Option<serde_json::Value>,
    /// The limits given as a multiple of the BDP or as a time, and what they were sized to.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sized_limits: Vec<SizedLimit>,
}

/// One direction of a link (an output port).
#[derive(Debug, Clone, Serialize)]
pub struct ResolvedLink {
    pub link: String,
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    pub delay_s: f64,
    /// Link-layer framing bytes serialised with every packet.
    pub overhead_bytes: u32,
    /// ns-3's device queue below the discipline, in packets (0: none).
    pub device_queue_packets: usize,
    pub queue: ResolvedQueue,
}

/// A hop of a route: the link and the direction taken.
#[derive(Debug, Clone, Serialize)]
pub struct Hop {
    pub link: String,
    pub from: String,
    pub to: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ResolvedFlow {
    pub name: String,
    pub src: String,
    pub dst: String,
    pub protocol: &'static str,
    pub app: &'static str,
    /// Bytes on the wire of a full data packet (TCP: segment plus headers).
    pub packet_size: u64,
    /// The start this run uses (a random start already drawn from the seed).
    pub start_s: f64,
    pub stop_s: f64,
    /// Data direction, src to dst, as routed.
    pub path: Vec<Hop>,
    /// ACK (or reverse) direction, dst to src.
    pub reverse_path: Vec<Hop>,
    /// Sum of the propagation delays of both paths (no queueing, no serialisation).
    pub rtt_propagation_s: f64,
    /// The resolved TCP settings of a TCP flow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Resolved {
    pub scenario: String,
    pub seed: u64,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub nodes: Vec<String>,
    pub links: Vec<ResolvedLink>,
    pub flows: Vec<ResolvedFlow>,
    /// Settings that make a component act unlike its name (see [`warnings`]).
    pub warnings: Vec<String>,
}

impl Resolved {
    /// Reads a freshly built simulation.
    pub fn from_sim(sim: &Simulation) -> Resolved {
        let node = |n: NodeId| sim.nodes[n.idx()].name.clone();
        let links = sim
            .ports
            .iter()
            .map(|p| ResolvedLink {
                link: sim.links[p.link().idx()].name.clone(),
                from: node(p.from()),
                to: node(p.to()),
                rate_bps: p.rate().bps(),
                delay_s: p.delay().as_secs_f64(),
                overhead_bytes: p.overhead(),
                device_queue_packets: p.device_queue_limit(),
                queue: ResolvedQueue {
                    discipline: p.queue().disc().kind(),
                    settings: p.queue().disc().resolved_settings(p.rate().bps() as f64),
                    sized_limits: sim.notes.limits_of(p.id().0),
                },
            })
            .collect();
        let port_to = |pid: PortId| sim.ports[pid.idx()].to();
        let routes_of = |n: NodeId| &sim.nodes[n.idx()].routes;
        let route = |k: &FlowKey| -> Vec<PortId> {
            routing::path_by(&routes_of, &port_to, sim.nodes.len(), k).unwrap_or_default()
        };
        let hops = |ports: &[PortId]| -> Vec<Hop> {
            ports
                .iter()
                .map(|&pid| {
                    let p = &sim.ports[pid.idx()];
                    Hop {
                        link: sim.links[p.link().idx()].name.clone(),
                        from: node(p.from()),
                        to: node(p.to()),
                    }
                })
                .collect()
        };
        let delay = |ports: &[PortId]| -> f64 {
            ports
                .iter()
                .map(|&pid| sim.ports[pid.idx()].delay().as_secs_f64())
                .sum()
        };
        let flows = sim
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let tcp = f.protocol == crate::packet::Protocol::Tcp;
                let key = FlowKey::new(f.src, f.dst, FlowId(i as u32), tcp);
                let fwd = route(&key);
                let rev = route(&key.reversed());
                ResolvedFlow {
                    name: f.name.clone(),
                    src: node(f.src),
                    dst: node(f.dst),
                    protocol: f.protocol.as_str(),
                    app: f.app,
                    packet_size: f.packet_size,
                    start_s: f.start.as_secs_f64(),
                    stop_s: f.stop.min(sim.end).as_secs_f64(),
                    rtt_propagation_s: delay(&fwd) + delay(&rev),
                    path: hops(&fwd),
                    reverse_path: hops(&rev),
                    tcp: sim.agents[f.sender.idx()].ep.settings(),
                }
            })
            .collect();
        Resolved {
            scenario: sim.name.clone(),
            seed: sim.seed,
            duration_s: sim.end.as_secs_f64(),
            warmup_s: sim.warmup.as_secs_f64(),
            nodes: sim.nodes.iter().map(|n| n.name.clone()).collect(),
            links,
            flows,
            warnings: warnings(sim),
        }
    }
}

/// Warnings about the built network, each prefixed with the link direction it concerns
/// (RED whose limit is below max_th, ...). Reported by `run` and `validate`.
pub fn warnings(sim: &Simulation) -> Vec<String> {
    let mut out = Vec::new();
    for p in &sim.ports {
        for w in p.queue().disc().warnings(p.rate().bps() as f64) {
            out.push(format!(
                "link {} {}->{}: {w}",
                sim.links[p.link().idx()].name,
                sim.nodes[p.from().idx()].name,
                sim.nodes[p.to().idx()].name
            ));
        }
    }
    out.extend(sim.notes.warnings.iter().cloned());
    out
}
