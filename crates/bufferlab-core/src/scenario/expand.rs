//! The flows of a scenario after `count` expansion (`{i}` in names and endpoints), each
//! with its start time (given, or drawn from its own stream), and what the limits and the
//! recipes' warnings need to know of each before the network is built.

use super::checks::{check_distribution, check_name};
use super::config::{FlowConfig, Scenario, StartTime};
use super::topology::Topology;
use super::ScenarioError;
use crate::net::routing;
use crate::packet::Protocol;
use crate::rng;
use crate::traffic;
use crate::units::SimTime;

/// A flow after `count` expansion, with the index of the `[[flows]]` entry it came from.
pub(super) struct ExpandedFlow<'a> {
    pub(super) entry: usize,
    pub(super) name: String,
    pub(super) src: String,
    pub(super) dst: String,
    pub(super) cfg: &'a FlowConfig,
    /// When it starts: `cfg.start`, or drawn for this flow from the run's seed.
    pub(super) start: SimTime,
}

pub(super) fn expand_flows(
    s: &Scenario,
    seed: u64,
) -> Result<Vec<ExpandedFlow<'_>>, ScenarioError> {
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

/// Each flow's data path, RTT, packet size and TCP controller, before the network is built
/// (a flow whose names or TCP settings are wrong gets none: the builder reports it later).
pub(super) fn flow_infos(
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
        .enumerate()
        .filter_map(|(i, f)| {
            let (a, b) = (*index.get(f.src.as_str())?, *index.get(f.dst.as_str())?);
            let tcp = super::agents::tcp_params(f.entry, f.cfg).ok()?;
            let key = super::routes::flow_key(a, b, i, f.cfg.protocol() == Protocol::Tcp);
            let (path, rtt) = super::limits::route(topo, routes, &key);
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
