//! What the scenario asks to monitor, checked against the built flows and links: the flows
//! of the fairness index, the flows whose congestion window is sampled, the per-flow series
//! (`monitor/flow_series.rs`) and the queues whose occupancy is sampled
//! (`monitor/queue_series.rs`).

use super::config::Scenario;
use super::ScenarioError;
use crate::monitor::flow_series::FlowSeriesSet;
use crate::monitor::queue_series::QueueSeries;
use crate::packet::Protocol;
use crate::sim::Simulation;
use crate::units::SimTime;

/// The scenario's monitors into `sim` (its flows and links are built).
pub(super) fn build_monitors(sim: &mut Simulation, s: &Scenario) -> Result<(), ScenarioError> {
    check_fairness(sim, s)?;
    sim.fct_edges = s
        .fct
        .edges()
        .map_err(|e| ScenarioError::field("fct.buckets", e))?;
    check_cwnd(sim, s)?;
    flow_series(sim, s)?;
    queue_series(sim, s)
}

/// The flows of the fairness index exist.
fn check_fairness(sim: &Simulation, s: &Scenario) -> Result<(), ScenarioError> {
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
    Ok(())
}

/// The cwnd sampling interval and its flows (each TCP sender samples itself, `agents.rs`).
fn check_cwnd(sim: &Simulation, s: &Scenario) -> Result<(), ScenarioError> {
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
    Ok(())
}

/// The per-flow series, of the flows named or of all.
fn flow_series(sim: &mut Simulation, s: &Scenario) -> Result<(), ScenarioError> {
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
    Ok(())
}

/// The queue series, of the links named, the bottleneck, or all links.
fn queue_series(sim: &mut Simulation, s: &Scenario) -> Result<(), ScenarioError> {
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
    Ok(())
}
