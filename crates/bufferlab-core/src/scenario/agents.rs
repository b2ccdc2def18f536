//! A flow's two agents: a TCP sender and receiver (ns-2's one-way agents with their
//! application, a FullTcp pair, a Python or BBR controller) or a UDP source and sink; and
//! the settings they need, checked: the flow's TCP parameters and its ns-2 packet type.

use super::checks::check_distribution;
use super::config::{FlowConfig, Scenario};
use super::expand::ExpandedFlow;
use super::streams::Streams;
use super::ScenarioError;
use crate::ext::Extensions;
use crate::ids::{AgentId, FlowId, NodeId};
use crate::packet::Protocol;
use crate::rng;
use crate::sim::Simulation;
use crate::tcp::app::TcpApp;
use crate::tcp::config::CcKind;
use crate::tcp::full::FullTcpAgent;
use crate::tcp::{TcpParams, TcpReceiver, TcpSender};
use crate::traffic::{self, AppConfig, Distribution, OnOffFlavour};
use crate::udp::{UdpSender, UdpSink};
use crate::units::{Bytes, SimTime};
use std::rc::Rc;

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
        AppConfig::Ns2Telnet {
            interval_s,
            packet_size,
        } => {
            if !(interval_s.is_finite() && *interval_s > 0.0) {
                return Err(ScenarioError::field(
                    format!("flows[{entry}].app.interval_s"),
                    format!("the mean gap in seconds must be above 0, got {interval_s}"),
                ));
            }
            if packet_size.0 == 0 {
                return Err(ScenarioError::field(
                    format!("flows[{entry}].app.packet_size"),
                    "a write of a byte or more (the agent's packetSize_)",
                ));
            }
        }
        _ => {}
    }
    Ok(Some(p))
}

/// The ns-2 packet type of an application's packets (ns-2 common/packet.h names).
pub(super) fn trace_type(app: &AppConfig, protocol: Protocol) -> &'static str {
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
        AppConfig::Bulk { .. }
        | AppConfig::Transfer { .. }
        | AppConfig::Web { .. }
        | AppConfig::Ns2Telnet { .. } => "tcp",
    }
}

/// Where a flow's agents sit, and when its source stops.
pub(super) struct Placement {
    pub(super) fid: FlowId,
    pub(super) src: NodeId,
    pub(super) dst: NodeId,
    pub(super) stop: SimTime,
}

/// The flow's sender at `at.src` and receiver at `at.dst`, added to `sim` in that order;
/// `tcp` is the flow's checked TCP settings (`tcp_params`), none for UDP.
pub(super) fn build_agents(
    sim: &mut Simulation,
    s: &Scenario,
    f: &ExpandedFlow,
    tcp: Option<Rc<TcpParams>>,
    at: &Placement,
    ext: Option<&dyn Extensions>,
    streams: &Streams,
) -> Result<(AgentId, AgentId), ScenarioError> {
    match tcp {
        Some(p) => {
            let unscheduled = p.unscheduled_bytes;
            let (snd, rcv) = tcp_agents(sim, s, f, p, at, ext, streams)?;
            // ABM's unscheduled tag at both ends: each of the artifact's sockets counts the
            // data it sent (a receiver none, so its ACKs are all tagged)
            sim.tag_unscheduled(snd, unscheduled);
            sim.tag_unscheduled(rcv, unscheduled);
            Ok((snd, rcv))
        }
        None => Ok(udp_agents(sim, f, at, streams)),
    }
}

fn tcp_agents(
    sim: &mut Simulation,
    s: &Scenario,
    f: &ExpandedFlow,
    p: Rc<TcpParams>,
    at: &Placement,
    ext: Option<&dyn Extensions>,
    streams: &Streams,
) -> Result<(AgentId, AgentId), ScenarioError> {
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
            rng: rng::stream(streams.seed, &format!("flow/{}/web", f.name)),
        },
        AppConfig::Bulk { .. } => TcpApp::Bulk,
        // a packet source over TCP: each emission writes its size into the connection; ns-2's
        // Telnet draws its gaps from ns-2's default RNG when the run follows it
        source => TcpApp::writes(
            {
                let mut gen = traffic::build(source, f.start, at.stop, 1);
                if let Some(s) = f.cfg.ns2_start_s {
                    gen.set_start_s(s); // its times add up from the script's double
                }
                gen
            },
            match source {
                AppConfig::Ns2Telnet { .. } => streams.get(true, &format!("flow/{}/app", f.name)),
                _ => rng::stream(streams.seed, &format!("flow/{}/app", f.name)),
            },
        ),
    };
    if p.full.is_some() {
        // ns-2's FullTcp: both ends are agents of the same class (tcp/full/)
        let snd = FullTcpAgent::active(TcpParams::clone(&p), app, f.start);
        let rcv = FullTcpAgent::listener(TcpParams::clone(&p));
        Ok((
            sim.add_agent(Box::new(snd), at.fid, at.src, false),
            sim.add_agent(Box::new(rcv), at.fid, at.dst, true),
        ))
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
            TcpSender::with_cc(p.clone(), app, f.start, at.stop, cc)
        } else if p.cc == CcKind::Bbr {
            // BBR draws its first PROBE_BW phase from the flow's own stream
            let rng = rng::stream(streams.seed, &format!("flow/{}/cc", f.name));
            let cc = Box::new(crate::tcp::cc::bbr::Bbr::new(&p, rng));
            TcpSender::with_cc(p.clone(), app, f.start, at.stop, cc)
        } else if p.cc == CcKind::Bbr3 {
            // BBRv3 draws its probe waits from the flow's own stream
            let rng = rng::stream(streams.seed, &format!("flow/{}/cc", f.name));
            let cc = Box::new(crate::tcp::cc::bbr::v3::Bbr3::new(&p, rng));
            TcpSender::with_cc(p.clone(), app, f.start, at.stop, cc)
        } else {
            TcpSender::new(p.clone(), app, f.start, at.stop)
        };
        if let Some(j) = f.cfg.send_jitter {
            // ns-2 draws overhead_'s delays from its default RNG (tcp.cc send_much)
            snd = snd.with_send_jitter(j, streams.get(true, &format!("flow/{}/jitter", f.name)));
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
        Ok((
            sim.add_agent(Box::new(snd), at.fid, at.src, false),
            sim.add_agent(Box::new(TcpReceiver::new(p)), at.fid, at.dst, true),
        ))
    }
}

fn udp_agents(
    sim: &mut Simulation,
    f: &ExpandedFlow,
    at: &Placement,
    streams: &Streams,
) -> (AgentId, AgentId) {
    let header = f.cfg.header.unwrap_or(Bytes(28)).0 as u32;
    let mut gen = traffic::build(&f.cfg.app, f.start, at.stop, header);
    if let Some(s) = f.cfg.ns2_start_s {
        gen.set_start_s(s);
    }
    (
        sim.add_agent(
            Box::new(
                UdpSender::new(
                    gen,
                    streams.get(
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
                    at.stop,
                    header,
                )
                .with_max_datagram(f.cfg.max_datagram.map(|b| b.0 as u32))
                .with_send_jitter(
                    f.cfg.send_jitter.unwrap_or(SimTime::ZERO),
                    rng::stream(streams.seed, &format!("flow/{}/jitter", f.name)),
                ),
            ),
            at.fid,
            at.src,
            false,
        ),
        sim.add_agent(Box::new(UdpSink::default()), at.fid, at.dst, true),
    )
}
