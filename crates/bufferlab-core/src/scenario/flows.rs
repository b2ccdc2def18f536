//! Flows: each expanded flow's endpoints found, its paths checked (both directions connect;
//! each queue on the forward path holds one of its packets), its start and stop checked,
//! its agents built (`agents.rs`) and its entry in the simulation's flow table.

use super::agents::{build_agents, tcp_params, trace_type, Placement};
use super::config::Scenario;
use super::expand::ExpandedFlow;
use super::nodes::NodeIndex;
use super::queues::check_queue_fits;
use super::streams::Streams;
use super::topology::Topology;
use super::ScenarioError;
use crate::ext::Extensions;
use crate::ids::{FlowId, NodeId, PortId};
use crate::monitor::flow_stats::FlowStats;
use crate::net::ecmp::FlowKey;
use crate::net::routing;
use crate::sim::{Flow, Simulation};
use crate::tcp::TcpParams;
use crate::units::SimTime;
use std::rc::Rc;

/// What every flow is built against.
pub(super) struct FlowBuild<'a> {
    pub(super) s: &'a Scenario,
    pub(super) topo: &'a Topology,
    pub(super) routes: &'a [routing::Routes],
    pub(super) nodes: NodeIndex<'a>,
    pub(super) ext: Option<&'a dyn Extensions>,
    pub(super) streams: &'a Streams,
}

/// The flows into `sim`, in order (its ports are built: a path is a list of them).
pub(super) fn build_flows(
    sim: &mut Simulation,
    b: &FlowBuild,
    flows: &[ExpandedFlow],
) -> Result<(), ScenarioError> {
    let port_dst: Vec<NodeId> = sim.ports.iter().map(|p| p.to()).collect();
    // sized once (a sender and a receiver a flow): no doubling slack at the build's peak
    sim.flows.reserve_exact(flows.len());
    sim.agents.reserve_exact(2 * flows.len());
    // the TCP settings of the last flow, shared by the next ones while they are the same
    // (the flows of one `count`ed entry): held once, not by each sender and receiver
    let mut shared = None;
    for (fi, f) in flows.iter().enumerate() {
        build_flow(sim, b, &port_dst, FlowId(fi as u32), f, &mut shared)?;
    }
    Ok(())
}

fn build_flow(
    sim: &mut Simulation,
    b: &FlowBuild,
    port_dst: &[NodeId],
    fid: FlowId,
    f: &ExpandedFlow,
    shared: &mut Option<Rc<TcpParams>>,
) -> Result<(), ScenarioError> {
    let path = format!("flows[{}]", f.entry);
    let src = b.nodes.get(&f.src, &path, "src")?;
    let dst = b.nodes.get(&f.dst, &path, "dst")?;
    if src == dst {
        return Err(ScenarioError::field(
            format!("{path}.dst"),
            format!(
                "is the same node as src (\"{}\"); a flow must cross the network",
                f.src
            ),
        ));
    }
    let tcp = tcp_params(f.entry, f.cfg)?.map(|p| match shared {
        Some(s) if **s == p => Rc::clone(s),
        _ => Rc::clone(shared.insert(Rc::new(p))),
    });
    let size = match &tcp {
        Some(p) => p.wire_size() as u64,
        None => f.cfg.app.packet_size().map_or(0, |b| b.0),
    };
    let tcp_flow = f.cfg.protocol() == crate::packet::Protocol::Tcp;
    let key = FlowKey::new(src, dst, fid, tcp_flow);
    check_paths(sim, b, port_dst, f, &key, size)?;
    let stop = check_times(b.s, f, &path)?;
    let mss = tcp.as_ref().map_or(1, |p| p.mss);
    let opening_packet = tcp.as_ref().is_some_and(|p| p.handshake);
    let full_tcp = tcp.as_ref().is_some_and(|p| p.full.is_some());
    let at = Placement {
        fid,
        src,
        dst,
        stop,
    };
    let (sender, receiver) = build_agents(sim, b.s, f, tcp, &at, b.ext, b.streams)?;
    if f.cfg.trace_fid.is_some_and(|id| id > i32::MAX as u32) {
        return Err(ScenarioError::field(
            format!("flows[{}].trace_fid", f.entry),
            "an ns-2 flow id is a C int: 0 to 2147483647",
        ));
    }
    sim.flows.push(Flow {
        name: f.name.clone(),
        src,
        dst,
        protocol: f.cfg.protocol(),
        app: f.cfg.app.kind(),
        trace_type: trace_type(&f.cfg.app, f.cfg.protocol()),
        mss,
        opening_packet,
        full_tcp,
        ns2_start_s: f.cfg.ns2_start_s,
        start_order: f.cfg.start_order.unwrap_or(sim.flows.len() as u32),
        packet_size: size,
        class: f.cfg.class,
        trace_fid: f.cfg.trace_fid.unwrap_or(sim.flows.len() as u32),
        trace_ports: f.cfg.trace_ports,
        start: f.start,
        stop,
        sender,
        receiver,
        detached: [false; 2],
        query: f.cfg.query.clone(),
        stats: FlowStats::default(),
    });
    Ok(())
}

/// Both directions connect, and each queue of the forward path holds one `size`-byte packet.
fn check_paths(
    sim: &Simulation,
    b: &FlowBuild,
    port_dst: &[NodeId],
    f: &ExpandedFlow,
    key: &FlowKey,
    size: u64,
) -> Result<(), ScenarioError> {
    let path = format!("flows[{}]", f.entry);
    let (topo, s) = (b.topo, b.s);
    let port_to = |p: PortId| port_dst[p.idx()];
    for (k, dir) in [(*key, "forward"), (key.reversed(), "reverse")] {
        let hops = routing::path(b.routes, &port_to, &k).ok_or_else(|| {
            ScenarioError::field(
                format!("{path}.dst"),
                format!("no {dir} path from \"{}\" to \"{}\": the nodes are not connected; add a link between them", topo.nodes[k.src.idx()], topo.nodes[k.dst.idx()]),
            )
        })?;
        if dir == "forward" {
            for p in hops {
                let port = &sim.ports[p.idx()];
                let l = &topo.links[port.link().idx()];
                let (q, field) = if port.id().0.is_multiple_of(2) {
                    (&l.queue_ab, "queue")
                } else {
                    (
                        &l.queue_ba,
                        if s.links
                            .get(&l.config_key)
                            .is_some_and(|c| c.reverse_queue.is_some())
                        {
                            "reverse_queue"
                        } else {
                            "queue"
                        },
                    )
                };
                check_queue_fits(q, &format!("links.{}.{field}", l.config_key), size, &f.name)?;
            }
        }
    }
    Ok(())
}

/// The flow's stop time, checked with its ns-2 start: it starts before it stops.
fn check_times(s: &Scenario, f: &ExpandedFlow, path: &str) -> Result<SimTime, ScenarioError> {
    if let Some(s) = f.cfg.ns2_start_s {
        if !(s.is_finite() && s >= 0.0 && SimTime::from_secs_f64(s).0.abs_diff(f.start.0) <= 1) {
            return Err(ScenarioError::field(
                format!("{path}.ns2_start_s"),
                format!(
                    "{s} is not the flow's start {} in double seconds; give the start as ns-2 computed it, or leave the field out",
                    f.start
                ),
            ));
        }
    }
    let stop = f.cfg.stop.unwrap_or(s.duration).min(s.duration);
    if f.start >= stop {
        return Err(ScenarioError::field(
            format!("{path}.start"),
            format!(
                "{} is not before the flow's stop time {}; the flow would send nothing",
                f.start, stop
            ),
        ));
    }
    Ok(stop)
}
