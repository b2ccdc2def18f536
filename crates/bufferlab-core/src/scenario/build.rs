//! From a parsed scenario to a runnable simulation, checking everything types cannot:
//! names that must exist, paths that must connect, buffers that must hold one packet.

use super::checks::{check_app, check_distribution, check_loss, check_name};
use super::config::{FlowConfig, Scenario, StartTime};
use super::topology::{self, Topology};
use super::ScenarioError;
use crate::ext::Extensions;
use crate::ids::{FlowId, LinkId, NodeId, PortId};
use crate::monitor::flow_series::FlowSeriesSet;
use crate::monitor::flow_stats::FlowStats;
use crate::monitor::queue_series::QueueSeries;
use crate::net::loss::{LossConfig, LossModel};
use crate::net::port::{Port, PortConfig};
use crate::net::port_queue::{InlineDropTail, PortQueue};
use crate::net::routing;
use crate::ns2_rng::Ns2DefaultRng;
use crate::packet::Protocol;
use crate::qdisc::{self, QueueConfig};
use crate::rng;
use crate::sim::{Flow, Link, Node, Simulation};
use crate::tcp::app::TcpApp;
use crate::tcp::config::CcKind;
use crate::tcp::full::FullTcpAgent;
use crate::tcp::{TcpParams, TcpReceiver, TcpSender};
use crate::traffic::{self, AppConfig, Distribution, OnOffFlavour};
use crate::udp::{UdpSender, UdpSink};
use crate::units::{Bytes, QueueLimit, SimTime};

/// A flow after `count` expansion, with the index of the `[[flows]]` entry it came from.
struct ExpandedFlow<'a> {
    entry: usize,
    name: String,
    src: String,
    dst: String,
    cfg: &'a FlowConfig,
    /// When it starts: `cfg.start`, or drawn for this flow from the run's seed.
    start: SimTime,
}

fn expand_flows(s: &Scenario, seed: u64) -> Result<Vec<ExpandedFlow<'_>>, ScenarioError> {
    let mut out: Vec<ExpandedFlow> = Vec::new();
    // Names seen so far, for the duplicate check (a scan of `out` per flow was quadratic:
    // 55 % of all instructions of a 0.5 s run at 10 000 flows, docs/performance.md).
    let mut seen: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for (entry, f) in s.flows.iter().enumerate() {
        let count = f.count.unwrap_or(1);
        if count == 0 {
            return Err(ScenarioError::field(
                format!("flows[{entry}].count"),
                "must be at least 1",
            ));
        }
        for i in 0..count {
            let sub = |t: &str| {
                if f.count.is_some() {
                    t.replace("{i}", &i.to_string())
                } else {
                    t.to_string()
                }
            };
            let name = match &f.name {
                Some(n) if f.count.is_some() && !n.contains("{i}") => format!("{n}{i}"),
                Some(n) => sub(n),
                None => format!("flow{}", out.len()),
            };
            check_name(format!("flows[{entry}].name"), &name)?;
            if !seen.insert(name.clone()) {
                return Err(ScenarioError::field(
                    format!("flows[{entry}].name"),
                    format!("flow name \"{name}\" is used twice; names must be unique"),
                ));
            }
            let start = match &f.start {
                StartTime::At(t) => *t,
                StartTime::Drawn(d) => {
                    check_distribution(format!("flows[{entry}].start"), d)?;
                    // Its own stream per flow name: adding a flow never moves another's start.
                    traffic::sample(d, &mut rng::stream(seed, &format!("flow/{name}/start")))
                }
            };
            out.push(ExpandedFlow {
                entry,
                name,
                src: sub(&f.src),
                dst: sub(&f.dst),
                cfg: f,
                start,
            });
        }
    }
    // A script may run without traffic (ns-2 runs its events all the same); a scenario file
    // without flows is a mistake.
    if out.is_empty() && s.clock != crate::clock::EventClock::Ns2 {
        return Err(ScenarioError::field(
            "flows",
            "no flows: add at least one [[flows]] entry with src, dst and app",
        ));
    }
    Ok(out)
}

/// The resolved TCP settings of a flow (TCP applications only), checked.
pub(super) fn tcp_params(entry: usize, f: &FlowConfig) -> Result<Option<TcpParams>, ScenarioError> {
    if f.protocol() != Protocol::Tcp {
        if f.tcp.is_some() {
            return Err(ScenarioError::field(
                format!("flows[{entry}].tcp"),
                format!("the flow runs over UDP; remove the `tcp` table, or say protocol = \"tcp\" (its {} source then writes into a TCP connection), or use a TCP application (bulk, transfer, web)", f.app.kind()),
            ));
        }
        return Ok(None);
    }
    let options = f.tcp.clone().unwrap_or_default();
    options
        .check()
        .map_err(|(field, msg)| ScenarioError::field(format!("flows[{entry}].tcp.{field}"), msg))?;
    let p = TcpParams::resolve(&options, f.header);
    p.validate().map_err(|(field, msg)| {
        let path = if field == "mss"
            && f.header.is_some()
            && f.tcp.as_ref().is_none_or(|t| t.mss.is_none())
        {
            format!("flows[{entry}].header")
        } else {
            format!("flows[{entry}].tcp.{field}")
        };
        ScenarioError::field(path, msg)
    })?;
    match &f.app {
        AppConfig::Transfer { size } => {
            super::checks::check_transfer(&format!("flows[{entry}].app"), *size)?;
        }
        AppConfig::Web {
            object_size,
            think_time,
            objects,
        } => {
            check_distribution(format!("flows[{entry}].app.think_time"), think_time)?;
            super::checks::check_web(&format!("flows[{entry}].app"), object_size, *objects)?;
        }
        _ => {}
    }
    Ok(Some(p))
}

/// A queue's own values (its discipline's `validate`) and a limit that holds a packet.
fn check_queue(path: &str, q: &QueueConfig) -> Result<(), ScenarioError> {
    q.validate()
        .map_err(|(f, m)| ScenarioError::field(format!("{path}.{f}"), m))?;
    if !matches!(q, QueueConfig::Python(_)) {
        super::bounds::check_queue_limit(&format!("{path}.limit"), q.limit())?;
    }
    if q.limit() == QueueLimit::Packets(0) {
        return Err(ScenarioError::field(
            format!("{path}.limit"),
            "0p holds no packet; give at least 1p (or 2p with the ns2 flavour)",
        ));
    }
    Ok(())
}

/// A queue on a flow's path holds one packet of the flow (its values are checked for every
/// link by `check_queue`; a template's queue, such as `access`, is checked here).
fn check_queue_fits(
    q: &QueueConfig,
    path: &str,
    size: u64,
    flow: &str,
) -> Result<(), ScenarioError> {
    check_queue(path, q)?;
    match q.limit() {
        QueueLimit::Bytes(b) if b < size => Err(ScenarioError::field(
            format!("{path}.limit"),
            format!("{b}B is smaller than one {size}-byte packet of flow \"{flow}\"; make the buffer at least {size}B or use a packet limit"),
        )),
        _ => Ok(()),
    }
}

/// The ns-2 packet type of an application's packets (ns-2 common/packet.h names).
fn trace_type(app: &AppConfig, protocol: Protocol) -> &'static str {
    if protocol == Protocol::Tcp {
        // ns-2 FTP over Agent/TCP: data "tcp", ACKs "ack" (the trace writer picks by packet kind).
        return "tcp";
    }
    match app {
        AppConfig::Cbr { .. } => "cbr",
        AppConfig::Poisson { .. } => "udp",
        AppConfig::Onoff {
            on_time: Distribution::Pareto { .. },
            ..
        } => "pareto",
        AppConfig::Onoff { .. } => "exp",
        AppConfig::Mmpp { .. } => "udp",
        AppConfig::Bulk { .. } | AppConfig::Transfer { .. } | AppConfig::Web { .. } => "tcp",
    }
}

/// Each flow's data path, RTT, packet size and TCP controller, before the network is built
/// (a flow whose names or TCP settings are wrong gets none: the builder reports it later).
fn flow_infos(
    topo: &Topology,
    routes: &[routing::Routes],
    flows: &[ExpandedFlow],
) -> Vec<super::limits::FlowInfo> {
    let index: std::collections::BTreeMap<&str, usize> = topo
        .nodes
        .iter()
        .enumerate()
        .rev()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    flows
        .iter()
        .filter_map(|f| {
            let (a, b) = (*index.get(f.src.as_str())?, *index.get(f.dst.as_str())?);
            let tcp = tcp_params(f.entry, f.cfg).ok()?;
            let (path, rtt) = super::limits::route(topo, routes, a, b);
            Some(super::limits::FlowInfo {
                name: f.name.clone(),
                path,
                rtt,
                size: match &tcp {
                    Some(p) => p.wire_size() as u64,
                    None => f.cfg.app.packet_size().map_or(0, |b| b.0),
                },
                tcp: tcp.map(|p| (p.cc, p.ecn)),
            })
        })
        .collect()
}

/// Builds the simulation for `s` with root seed `seed`.
pub fn build(s: &Scenario, seed: u64) -> Result<Simulation, ScenarioError> {
    build_with(s, seed, None)
}

/// A port's discipline: built in, or user-defined through `ext`.
fn build_queue(
    q: &QueueConfig,
    ext: Option<&dyn Extensions>,
    path: &str,
) -> Result<PortQueue, ScenarioError> {
    match q {
        QueueConfig::Python(p) => {
            let ext = ext.ok_or_else(|| {
                ScenarioError::field(format!("{path}.class"), "Python queue disciplines run only from the Python package (bufferlab.run or the bufferlab command)")
            })?;
            ext.queue_disc(&p.class, &serde_json::Value::Object(p.params.clone()))
                .map(PortQueue::from)
                .map_err(|e| ScenarioError::field(format!("{path}.class"), e))
        }
        QueueConfig::Droptail(c) => Ok(PortQueue::DropTail(InlineDropTail::new(
            qdisc::droptail::DropTail::new(c),
        ))),
        other => Ok(qdisc::build(other).into()),
    }
}

/// Builds the simulation for `s` with root seed `seed`, with user-defined components from `ext`.
pub fn build_with(
    s: &Scenario,
    seed: u64,
    ext: Option<&dyn Extensions>,
) -> Result<Simulation, ScenarioError> {
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
    let ns2_rng = match &s.ns2_default_rng {
        Some(c) => {
            let start = c.start().map_err(|(field, msg)| {
                ScenarioError::field(format!("ns2_default_rng.{field}"), msg)
            })?;
            // a run with another seed than the scenario's (`--seed`, a sweep's replications)
            // starts where `$defaultRNG seed N` would, N from that seed: replications differ,
            // as ns-2 runs with other seeds do
            Some(Ns2DefaultRng::new(if seed == s.seed {
                start
            } else {
                [1 + seed % 2_147_483_646; 6]
            }))
        }
        None => None,
    };
    // The components ns-2 makes draw from its default RNG take that one stream, the others
    // (and every component of a run without it) their own.
    let stream = |shared: bool, label: &str| match &ns2_rng {
        Some(d) if shared => rng::Rng::Ns2Default(d.clone()),
        _ => rng::stream(seed, label),
    };
    // Every configured component is checked here, used by a flow or not, in one error shape:
    // the field's path and what to do.
    for (name, l) in &s.links {
        if name.is_empty() || name.chars().any(char::is_control) {
            return Err(ScenarioError::field(
                "links",
                format!("link name {name:?} is empty or holds a control character; give a printable name"),
            ));
        }
        for (field, q) in [("queue", &l.queue), ("reverse_queue", &l.reverse_queue)] {
            if let Some(q) = q {
                check_queue(&format!("links.{name}.{field}"), q)?;
            }
        }
        if let Some(loss) = &l.loss {
            check_loss(format!("links.{name}.loss"), loss)?;
        }
        if let Some(loss) = &l.reverse_loss {
            check_loss(format!("links.{name}.reverse_loss"), loss)?;
        }
    }
    let mut topo: Topology = topology::build(s)?;
    let flows = expand_flows(s, seed)?;
    for f in &flows {
        check_app(f.entry, f.cfg)?;
    }
    // Routes first: limits in BDP need the flows' RTTs, the recipes' warnings their paths.
    let adj = super::limits::adjacency(&topo);
    let routes = routing::compute(&adj);
    let infos = flow_infos(&topo, &routes, &flows);
    let sized_limits = super::limits::resolve(s, &mut topo, &infos)?;

    let mut sim = Simulation::new(s.name.clone(), seed, s.duration, s.warmup);
    sim.ns2_rng = ns2_rng.clone();
    sim.set_clock(s.clock);
    // Nodes and ports: link k has port 2k (a -> b) and 2k+1 (b -> a).
    for (k, l) in topo.links.iter().enumerate() {
        let ids = [PortId(2 * k as u32), PortId(2 * k as u32 + 1)];
        for (dir, (from, to, q, loss)) in [
            (l.a, l.b, &l.queue_ab, &l.loss_ab),
            (l.b, l.a, &l.queue_ba, &l.loss_ba),
        ]
        .into_iter()
        .enumerate()
        {
            let label = format!("port/{}/{}->{}", l.name, topo.nodes[from], topo.nodes[to]);
            sim.ports.push(Port::new(PortConfig {
                id: ids[dir],
                link: LinkId(k as u32),
                from: NodeId(from as u32),
                to: NodeId(to as u32),
                rate: l.rate,
                delay: l.delay,
                overhead: l.overhead,
                qdisc: build_queue(
                    q,
                    ext,
                    &format!(
                        "links.{}.{}",
                        l.config_key,
                        if dir == 0 { "queue" } else { "reverse_queue" }
                    ),
                )?,
                qdisc_rng: stream(
                    matches!(
                        q,
                        QueueConfig::Red(_)
                            | QueueConfig::Ared(_)
                            | QueueConfig::Pi(_)
                            | QueueConfig::Rem(_)
                            | QueueConfig::Rio(_)
                    ),
                    &format!("{label}/queue"),
                ),
                device_queue: l.device_queue as usize,
                loss: LossModel::from_config(loss.as_ref()),
                loss_rng: stream(
                    matches!(loss, Some(LossConfig::Bernoulli { .. })),
                    &format!("{label}/loss"),
                ),
                loss_position: loss.as_ref().map(|l| l.position()).unwrap_or_default(),
                warmup: s.warmup,
            }));
        }
        sim.links.push(Link {
            name: l.name.clone(),
            ports: ids,
        });
    }
    sim.notes = crate::notes::BuildNotes {
        warnings: super::recipes::warnings(&topo, &infos),
        sized_limits,
    };
    let port_dst: Vec<NodeId> = sim.ports.iter().map(|p| p.to()).collect();
    let port_to = |p: PortId| port_dst[p.idx()];

    // Node names to indices, the first of each name as `Topology::node` finds it: a scan of
    // the node list per flow endpoint was quadratic (docs/performance.md, 2026-11-25).
    let mut node_index: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for (i, n) in topo.nodes.iter().enumerate() {
        node_index.entry(n.as_str()).or_insert(i);
    }
    for (fi, f) in flows.iter().enumerate() {
        let path = format!("flows[{}]", f.entry);
        let node = |n: &str, field: &str| {
            node_index.get(n).map(|&i| NodeId(i as u32)).ok_or_else(|| {
                let sample: Vec<&str> = topo.nodes.iter().take(8).map(String::as_str).collect();
                ScenarioError::field(
                    format!("{path}.{field}"),
                    format!(
                        "unknown node \"{n}\"; nodes are {}{}",
                        sample.join(", "),
                        if topo.nodes.len() > 8 { ", ..." } else { "" }
                    ),
                )
            })
        };
        let (src, dst) = (node(&f.src, "src")?, node(&f.dst, "dst")?);
        if src == dst {
            return Err(ScenarioError::field(
                format!("{path}.dst"),
                format!(
                    "is the same node as src (\"{}\"); a flow must cross the network",
                    f.src
                ),
            ));
        }
        let tcp = tcp_params(f.entry, f.cfg)?;
        let size = match &tcp {
            Some(p) => p.wire_size() as u64,
            None => f.cfg.app.packet_size().map_or(0, |b| b.0),
        };
        for (a, b, dir) in [(src, dst, "forward"), (dst, src, "reverse")] {
            let hops = routing::path(&routes, &port_to, a, b)
                .ok_or_else(|| {
                    ScenarioError::field(
                        format!("{path}.dst"),
                        format!("no {dir} path from \"{}\" to \"{}\": the nodes are not connected; add a link between them", topo.nodes[a.idx()], topo.nodes[b.idx()]),
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
        if let Some(s) = f.cfg.ns2_start_s {
            if !(s.is_finite() && s >= 0.0 && SimTime::from_secs_f64(s).0.abs_diff(f.start.0) <= 1)
            {
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
        let fid = FlowId(fi as u32);
        let mss = tcp.as_ref().map_or(1, |p| p.mss);
        let opening_packet = tcp.as_ref().is_some_and(|p| p.handshake);
        let full_tcp = tcp.as_ref().is_some_and(|p| p.full.is_some());
        let (sender, receiver) = if let Some(p) = tcp {
            let app = match &f.cfg.app {
                AppConfig::Transfer { size } => TcpApp::Transfer { bytes: size.0 },
                AppConfig::Web {
                    object_size,
                    think_time,
                    objects,
                } => TcpApp::Web {
                    size: object_size.clone(),
                    think: think_time.clone(),
                    objects: *objects,
                    rng: rng::stream(seed, &format!("flow/{}/web", f.name)),
                },
                AppConfig::Bulk { .. } => TcpApp::Bulk,
                // a packet source over TCP: each emission writes its size into the connection
                source => TcpApp::writes(
                    traffic::build(source, f.start, stop, 1),
                    rng::stream(seed, &format!("flow/{}/app", f.name)),
                ),
            };
            if p.full.is_some() {
                // ns-2's FullTcp: both ends are agents of the same class (tcp/full/)
                let snd = FullTcpAgent::active(p.clone(), app, f.start);
                let rcv = FullTcpAgent::listener(p);
                (
                    sim.add_agent(Box::new(snd), fid, src, false),
                    sim.add_agent(Box::new(rcv), fid, dst, true),
                )
            } else {
                let mut snd = if p.cc == CcKind::Python {
                    let opts = f.cfg.tcp.clone().unwrap_or_default();
                    let field = format!("flows[{}].tcp.cc_class", f.entry);
                    let class = opts.cc_class.ok_or_else(|| ScenarioError::field(&field, "cc = \"python\" needs cc_class = \"module:Class\" (a bufferlab.CongestionControl subclass)"))?;
                    let ext = ext.ok_or_else(|| ScenarioError::field(&field, "Python congestion controllers run only from the Python package (bufferlab.run or the bufferlab command)"))?;
                    let params = serde_json::Value::Object(opts.cc_params.unwrap_or_default());
                    let cc = ext
                        .congestion_control(&class, &params)
                        .map_err(|e| ScenarioError::field(&field, e))?;
                    TcpSender::with_cc(p.clone(), app, f.start, stop, cc)
                } else if p.cc == CcKind::Bbr {
                    // BBR draws its first PROBE_BW phase from the flow's own stream
                    let rng = rng::stream(seed, &format!("flow/{}/cc", f.name));
                    let cc = Box::new(crate::tcp::cc::bbr::Bbr::new(&p, rng));
                    TcpSender::with_cc(p.clone(), app, f.start, stop, cc)
                } else {
                    TcpSender::new(p.clone(), app, f.start, stop)
                };
                if let Some(j) = f.cfg.send_jitter {
                    // ns-2 draws overhead_'s delays from its default RNG (tcp.cc send_much)
                    snd = snd.with_send_jitter(j, stream(true, &format!("flow/{}/jitter", f.name)));
                }
                if let Some(dt) = s.monitor.cwnd_interval {
                    let chosen = s
                        .monitor
                        .cwnd_flows
                        .as_ref()
                        .is_none_or(|names| names.contains(&f.name));
                    if chosen && dt > SimTime::ZERO {
                        snd = snd.with_series(dt, s.warmup.max(f.start));
                    }
                }
                (
                    sim.add_agent(Box::new(snd), fid, src, false),
                    sim.add_agent(Box::new(TcpReceiver::new(p)), fid, dst, true),
                )
            }
        } else {
            let header = f.cfg.header.unwrap_or(Bytes(28)).0 as u32;
            let mut gen = traffic::build(&f.cfg.app, f.start, stop, header);
            if let Some(s) = f.cfg.ns2_start_s {
                gen.set_start_s(s);
            }
            (
                sim.add_agent(
                    Box::new(
                        UdpSender::new(
                            gen,
                            stream(
                                matches!(
                                    f.cfg.app,
                                    AppConfig::Cbr { .. }
                                        | AppConfig::Onoff {
                                            flavour: OnOffFlavour::Ns2,
                                            ..
                                        }
                                ),
                                &format!("flow/{}/app", f.name),
                            ),
                            stop,
                            header,
                        )
                        .with_max_datagram(f.cfg.max_datagram.map(|b| b.0 as u32))
                        .with_send_jitter(
                            f.cfg.send_jitter.unwrap_or(SimTime::ZERO),
                            rng::stream(seed, &format!("flow/{}/jitter", f.name)),
                        ),
                    ),
                    fid,
                    src,
                    false,
                ),
                sim.add_agent(Box::new(UdpSink::default()), fid, dst, true),
            )
        };
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
            stats: FlowStats::default(),
        });
    }

    for (name, r) in topo.nodes.iter().zip(routes) {
        sim.nodes.push(Node {
            name: name.clone(),
            routes: r,
        });
    }
    // disciplines that tell flows apart by ns-2's flow id (ns-2's FQ) learn the flows' now
    let fids: Vec<u32> = sim.flows.iter().map(|f| f.trace_fid).collect();
    for p in &mut sim.ports {
        p.set_flow_ids(&fids);
    }

    if let Some(names) = &s.fairness.flows {
        for (i, n) in names.iter().enumerate() {
            if !sim.flows.iter().any(|f| &f.name == n) {
                return Err(ScenarioError::field(
                    format!("fairness.flows[{i}]"),
                    format!("no flow is named \"{n}\""),
                ));
            }
        }
    }

    if let Some(dt) = s.monitor.cwnd_interval {
        if dt == SimTime::ZERO {
            return Err(ScenarioError::field(
                "monitor.cwnd_interval",
                "must be positive, e.g. \"100ms\"",
            ));
        }
        let tcp_flows = sim
            .flows
            .iter()
            .filter(|f| f.protocol == Protocol::Tcp)
            .count();
        let chosen = s.monitor.cwnd_flows.as_ref().map_or(tcp_flows, Vec::len);
        super::bounds::check_sampling("monitor.cwnd_interval", dt, s.duration, chosen)?;
    }
    if let Some(names) = &s.monitor.cwnd_flows {
        for (i, n) in names.iter().enumerate() {
            match sim.flows.iter().find(|f| &f.name == n) {
                None => {
                    return Err(ScenarioError::field(
                        format!("monitor.cwnd_flows[{i}]"),
                        format!("no flow is named \"{n}\""),
                    ))
                }
                Some(f) if f.protocol != Protocol::Tcp => {
                    return Err(ScenarioError::field(
                        format!("monitor.cwnd_flows[{i}]"),
                        format!("flow \"{n}\" is not a TCP flow; it has no cwnd"),
                    ))
                }
                _ => {}
            }
        }
    }

    if let Some(dt) = s.monitor.flow_interval {
        if dt == SimTime::ZERO {
            return Err(ScenarioError::field(
                "monitor.flow_interval",
                "must be positive, e.g. \"1s\"",
            ));
        }
        let mut chosen = Vec::new();
        match &s.monitor.flows {
            None => chosen.extend(0..sim.flows.len()),
            Some(names) => {
                for (i, n) in names.iter().enumerate() {
                    let at = sim.flows.iter().position(|f| &f.name == n).ok_or_else(|| {
                        ScenarioError::field(
                            format!("monitor.flows[{i}]"),
                            format!("no flow is named \"{n}\""),
                        )
                    })?;
                    chosen.push(at);
                }
            }
        }
        super::bounds::check_sampling("monitor.flow_interval", dt, s.duration, chosen.len())?;
        sim.flow_series = Some(FlowSeriesSet::new(dt, s.warmup, chosen.into_iter()));
    } else if s.monitor.flows.is_some() {
        return Err(ScenarioError::field(
            "monitor.flows",
            "records nothing without monitor.flow_interval; add flow_interval = \"1s\"",
        ));
    }

    if let Some(dt) = s.monitor.queue_interval {
        if dt == SimTime::ZERO {
            return Err(ScenarioError::field(
                "monitor.queue_interval",
                "must be positive, e.g. \"10ms\"",
            ));
        }
        sim.sample_interval = Some(dt);
        let chosen: Vec<String> = match &s.monitor.queues {
            Some(q) => q.clone(),
            None if sim.links.iter().any(|l| l.name == "bottleneck") => vec!["bottleneck".into()],
            None => sim.links.iter().map(|l| l.name.clone()).collect(),
        };
        for (i, name) in chosen.iter().enumerate() {
            let l = sim.links.iter().find(|l| &l.name == name).ok_or_else(|| {
                ScenarioError::field(
                    format!("monitor.queues[{i}]"),
                    format!("no link is named \"{name}\""),
                )
            })?;
            for p in l.ports {
                let average_unit = sim.ports[p.idx()].queue().disc().average_unit();
                sim.series.push(QueueSeries {
                    port: p,
                    average_unit,
                    ..QueueSeries::default()
                });
            }
        }
        super::bounds::check_sampling("monitor.queue_interval", dt, s.duration, sim.series.len())?;
    }
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
