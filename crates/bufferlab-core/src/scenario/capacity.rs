//! Links whose capacity varies: each link's `trace` / `rate_schedule` (and their `reverse_`
//! forms) read, checked and resolved into each direction's [`Capacity`] and mean rate
//! (`net/capacity/`; docs/models/trace_links.md). A trace file is read from the scenario
//! file's folder and must stay inside it (`scenario/files.rs`). Every error names the field,
//! and for a trace the file's line.

use super::config::{LinkConfig, Scenario};
use super::topology::Topology;
use super::ScenarioError;
use crate::clock::EventClock;
use crate::net::capacity::{Capacity, DeliveryTrace, RateSchedule};
use crate::units::{Rate, SimTime};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// The largest trace file read (16 MiB: about two million lines).
pub const MAX_TRACE_BYTES: u64 = 16 << 20;

/// What a link's table gave for its capacity, kept on the link until [`resolve`].
#[derive(Debug, Clone, Default)]
pub struct CapacityGiven {
    rate: Option<Rate>,
    trace: Option<String>,
    reverse_trace: Option<String>,
    rate_schedule: Option<Vec<(SimTime, Rate)>>,
    reverse_rate_schedule: Option<Vec<(SimTime, Rate)>>,
}

impl CapacityGiven {
    pub fn of(cfg: &LinkConfig) -> Self {
        Self {
            rate: cfg.rate,
            trace: cfg.trace.clone(),
            reverse_trace: cfg.reverse_trace.clone(),
            rate_schedule: cfg.rate_schedule.clone(),
            reverse_rate_schedule: cfg.reverse_rate_schedule.clone(),
        }
    }

    /// Whether the forward direction has a capacity at all.
    pub fn forward_given(&self) -> bool {
        self.rate.is_some() || self.trace.is_some() || self.rate_schedule.is_some()
    }
}

/// Resolves every link's varying capacity: each direction's [`Capacity`] (None: the fixed
/// rate) and its mean rate in `rate` / `reverse_rate`. Files are read once each.
pub fn resolve(s: &Scenario, topo: &mut Topology) -> Result<(), ScenarioError> {
    let mut read: BTreeMap<String, Arc<DeliveryTrace>> = BTreeMap::new();
    for l in &mut topo.links {
        let g = std::mem::take(&mut l.capacity_given);
        let key = l.config_key.clone();
        let field = |f: &str| format!("links.{key}.{f}");
        if g.rate.is_some() && (g.trace.is_some() || g.rate_schedule.is_some()) {
            return Err(ScenarioError::field(
                field("rate"),
                "the capacity comes from `trace` or `rate_schedule`; remove `rate`",
            ));
        }
        let mut dir = |trace: &Option<String>,
                       sched: &Option<Vec<(SimTime, Rate)>>,
                       tf: &str,
                       sf: &str|
         -> Result<Option<Capacity>, ScenarioError> {
            match (trace, sched) {
                (Some(_), Some(_)) => Err(ScenarioError::field(
                    field(sf),
                    format!("give `{tf}` or `{sf}`, not both"),
                )),
                (Some(path), None) => {
                    let t = match read.get(path) {
                        Some(t) => t.clone(),
                        None => {
                            let t = Arc::new(read_trace(&field(tf), s.base_dir.as_deref(), path)?);
                            read.insert(path.clone(), t.clone());
                            t
                        }
                    };
                    Ok(Some(Capacity::Trace(t)))
                }
                (None, Some(points)) => {
                    let sched = RateSchedule::new(points.clone())
                        .map_err(|(i, m)| ScenarioError::field(format!("{}[{i}]", field(sf)), m))?;
                    for (i, (_, r)) in points.iter().enumerate() {
                        super::bounds::check_rate(&format!("{}[{i}]", field(sf)), *r)?;
                    }
                    Ok(Some(Capacity::Schedule(Arc::new(sched))))
                }
                (None, None) => Ok(None),
            }
        };
        let fwd = dir(&g.trace, &g.rate_schedule, "trace", "rate_schedule")?;
        let rev = dir(
            &g.reverse_trace,
            &g.reverse_rate_schedule,
            "reverse_trace",
            "reverse_rate_schedule",
        )?;
        let rev = rev.or_else(|| fwd.clone());
        for (c, f) in [(&fwd, "trace"), (&rev, "reverse_trace")] {
            if c.is_some() && s.clock == EventClock::Ns2 {
                return Err(ScenarioError::field(
                    field(f),
                    "a varying capacity under clock = \"ns2\" is not modelled (ns-2 links have a fixed bandwidth_); use the default clock",
                ));
            }
            if matches!(c, Some(Capacity::Trace(_))) && l.device_queue > 0 {
                return Err(ScenarioError::field(
                    field("device_queue"),
                    "a device queue below a trace link is not modelled (mahimahi serves its queue only at delivery opportunities); remove device_queue",
                ));
            }
        }
        if let Some(c) = &fwd {
            l.rate = c.nominal_rate(s.duration);
        }
        l.reverse_rate = match &rev {
            Some(c) => c.nominal_rate(s.duration),
            None => l.rate,
        };
        l.capacity = [fwd, rev];
    }
    Ok(())
}

/// Reads and parses the trace file `given` (the value of `field`) from `base` (None: the
/// working folder), refusing a path that leaves that folder, a file over
/// [`MAX_TRACE_BYTES`], and any line mahimahi would refuse (named by its number).
pub fn read_trace(
    field: &str,
    base: Option<&Path>,
    given: &str,
) -> Result<DeliveryTrace, ScenarioError> {
    let text = super::files::read_inside(
        field,
        base,
        given,
        MAX_TRACE_BYTES,
        "a trace",
        "give a shorter trace (it loops)",
    )?;
    DeliveryTrace::parse(&text)
        .map_err(|(line, m)| ScenarioError::field(field, format!("{given} line {line}: {m}")))
}
