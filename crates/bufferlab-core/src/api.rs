//! The one entry point that front ends (the Python bindings, the benches) call:
//! scenario text in, a serialisable report out. Nothing here panics on bad input;
//! every problem comes back as an [`Error`] whose message names the field and the fix.

use crate::monitor::ns2_trace::TraceFilter;
use crate::report::Report;
use crate::scenario::{self, build, config::Scenario};
use std::time::Instant;

/// What went wrong, in words a user can act on.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// The scenario (file, overrides or values) is invalid; the message names the field.
    #[error("{0}")]
    Scenario(String),
    /// A bug inside the simulator (a caught panic); the message says where.
    #[error("internal error: {0}")]
    Internal(String),
}

/// A request to run one scenario.
#[derive(Clone, Default)]
pub struct RunRequest<'a> {
    /// TOML text of the scenario.
    pub text: &'a str,
    /// Where the text came from (a file path), used in error messages.
    pub source: &'a str,
    /// Overrides the scenario's `seed` when given.
    pub seed: Option<u64>,
    /// `dotted.path=value` overrides applied before validation.
    pub overrides: &'a [String],
    /// Write an ns-2 trace file of the run here.
    pub ns2_trace: Option<&'a std::path::Path>,
    /// Which links, flows and events the trace records (default all).
    pub trace_filter: TraceFilter,
    /// Write pcap files (one per link direction) into this directory.
    pub pcap_dir: Option<&'a std::path::Path>,
    /// Links to capture (default: all).
    pub pcap_links: Vec<String>,
    /// Builders of user-defined components (Python queue disciplines), if any.
    pub extensions: Option<&'a dyn crate::ext::Extensions>,
    /// Wall-time and memory limits (a stalled run is always stopped).
    pub limits: crate::guard::Limits,
    /// ns-2 scripts: the link directions (from node, to node) whose error model hands its
    /// losses to a drop-target of the script's own rather than to the link's `drophead_`,
    /// so that the link's queue and flow monitors do not see them (default none: they do).
    pub ns2_unmonitored_losses: Vec<(String, String)>,
    /// The folder of the scenario file: files the scenario names (links' `trace`) are read
    /// from it and must stay inside it (None: the working folder).
    pub base_dir: Option<&'a std::path::Path>,
}

/// Where the request's text came from, for error messages.
fn source_name<'a>(req: &RunRequest<'a>) -> &'a str {
    if req.source.is_empty() {
        "<scenario>"
    } else {
        req.source
    }
}

/// Parses and validates the scenario of a request, returning it with the seed to use.
pub fn load(req: &RunRequest) -> Result<(Scenario, u64), Error> {
    let source = source_name(req);
    let mut s =
        scenario::parse(req.text, req.overrides).map_err(|e| Error::Scenario(e.render(source)))?;
    s.base_dir = req.base_dir.map(std::path::Path::to_path_buf);
    // The network's memory, estimated before anything is built or expanded (issue #37).
    let budget = req
        .limits
        .max_memory_bytes
        .or_else(crate::guard::default_max_memory);
    if let Some(budget) = budget {
        scenario::bounds::check_memory(&s, budget)
            .map_err(|e| Error::Scenario(e.render(source)))?;
    }
    let seed = req.seed.unwrap_or(s.seed);
    Ok((s, seed))
}

/// Where a running simulation is, for progress displays.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub sim_time_s: f64,
    pub end_s: f64,
    pub events: u64,
    pub wall_s: f64,
}

/// Number of slices a run is cut into between progress calls (cheap: one call per slice).
const PROGRESS_SLICES: u64 = 1000;

/// Runs a scenario to its end and returns the report.
pub fn run(req: &RunRequest) -> Result<Report, Error> {
    run_with_progress(req, &mut |_| true)
}

/// Builds the network of a request, opens its traces, checks the memory estimate and arms
/// the run's limits: everything before the first event.
pub(crate) fn prepare(req: &RunRequest) -> Result<(Scenario, crate::sim::Simulation), Error> {
    let source = source_name(req);
    let (s, seed) = load(req)?;
    let mut sim = build::build_with(&s, seed, req.extensions)
        .map_err(|e| Error::Scenario(e.render(source)))?;
    if let Some(path) = req.ns2_trace {
        let file = std::fs::File::create(path).map_err(|e| {
            Error::Scenario(format!(
                "{}: cannot write the trace file: {e}",
                path.display()
            ))
        })?;
        sim.open_ns2_trace(
            Box::new(std::io::BufWriter::with_capacity(1 << 16, file)),
            &req.trace_filter,
        )
        .map_err(Error::Scenario)?;
    }
    for (from, to) in &req.ns2_unmonitored_losses {
        sim.unmonitor_losses(from, to).map_err(Error::Scenario)?;
    }
    if let Some(dir) = req.pcap_dir {
        sim.open_pcap(dir, &req.pcap_links)
            .map_err(Error::Scenario)?;
    }
    if let Some(max) = req.limits.max_memory_bytes {
        let (bytes, parts) = memory_estimate(&s, &sim);
        if bytes > max {
            return Err(Error::Scenario(format!(
                "{source}: the run would hold about {} ({parts}), more than --max-memory {}; \
                 sample the series less often, shorten the run, use fewer flows, or raise \
                 --max-memory",
                crate::guard::human_bytes(bytes),
                crate::guard::human_bytes(max)
            )));
        }
    }
    sim.guard = Some(crate::guard::Guard::new(req.limits));
    Ok((s, sim))
}

/// Runs a scenario, calling `progress` after each thousandth of the simulated time; when it
/// returns false the run stops there and the report (of what was measured so far) is marked
/// `partial`.
pub fn run_with_progress(
    req: &RunRequest,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<Report, Error> {
    let (s, sim, t0) = run_sim(req, progress)?;
    let mut report = Report::from_sim(sim, s.fairness.flows.as_deref());
    report.wall_s = t0.elapsed().as_secs_f64();
    Ok(report)
}

/// Runs a scenario as [`run_with_progress`] does and writes its report as JSON into `out`
/// while reading it out of the simulation ([`crate::report::Streamed`]): the same bytes as
/// `serde_json` writes for the [`Report`] but `wall_s` (the time up to the writing), without
/// the report and the run's tables both held whole at the end (docs/performance.md, "What a
/// flow holds").
pub fn write_json_with_progress(
    req: &RunRequest,
    progress: &mut dyn FnMut(Progress) -> bool,
    out: &mut dyn std::io::Write,
) -> Result<(), Error> {
    let (s, mut sim, t0) = run_sim(req, progress)?;
    let wall_s = t0.elapsed().as_secs_f64();
    let report = crate::report::Streamed::new(&mut sim, s.fairness.flows.as_deref(), wall_s);
    serde_json::to_writer(out, &report)
        .map_err(|e| Error::Internal(format!("writing the report: {e}")))
}

/// The run of [`run_with_progress`] up to its report: the scenario, the simulation with its
/// traces closed and packets released, and when the request started.
fn run_sim(
    req: &RunRequest,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<(Scenario, crate::sim::Simulation, Instant), Error> {
    let t0 = Instant::now();
    let (s, mut sim) = prepare(req)?;
    // back to this loop (and the caller's Ctrl-C check) every 100 ms, however long a slice
    // of simulated time takes; the events run are the same, only where slices end moves
    sim.guard = sim
        .guard
        .take()
        .map(|g| g.yielding_every(std::time::Duration::from_millis(100)));
    let step = crate::units::SimTime((sim.end.0 / PROGRESS_SLICES).max(1));
    while !sim.finished() {
        let next = sim.now + step;
        sim.run_until(next);
        let p = Progress {
            sim_time_s: sim.now.as_secs_f64(),
            end_s: sim.end.as_secs_f64(),
            events: sim.events,
            wall_s: t0.elapsed().as_secs_f64(),
        };
        if !progress(p) {
            break;
        }
    }
    sim.close_traces()
        .map_err(|e| Error::Scenario(format!("writing trace files: {e}")))?;
    sim.release_packets();
    Ok((s, sim, t0))
}

/// Memory a run holds at least, estimated before it starts: each flow's state (13 KB: the
/// measured whole-process cost per flow from 1 000 to 10 000 flows, 12.5 KB, rounded up;
/// docs/performance.md "Packets by handle") and the samples
/// of its time series (queue 36 B, cwnd 64 B, per-flow 56 B a sample). Packets in flight are
/// not estimated; the run's own check (`guard.rs`) bounds them.
fn memory_estimate(s: &Scenario, sim: &crate::sim::Simulation) -> (u64, String) {
    const PER_FLOW: f64 = 13e3;
    let span = sim.end.saturating_sub(sim.warmup).as_secs_f64();
    let samples = |interval: Option<crate::units::SimTime>, series: usize| -> f64 {
        interval.map_or(0.0, |dt| span / dt.as_secs_f64().max(1e-12) * series as f64)
    };
    let tcp = sim
        .flows
        .iter()
        .filter(|f| f.protocol == crate::packet::Protocol::Tcp)
        .count();
    let cwnd = s.monitor.cwnd_flows.as_ref().map_or(tcp, Vec::len);
    let flow_series = sim.flow_series.as_ref().map_or(0, |f| f.series.len());
    let flows = sim.flows.len() as f64 * PER_FLOW;
    let series = samples(s.monitor.queue_interval, sim.series.len()) * 36.0
        + samples(s.monitor.cwnd_interval, cwnd) * 64.0
        + samples(s.monitor.flow_interval, flow_series) * 56.0;
    let h = |b: f64| crate::guard::human_bytes(b as u64);
    (
        (flows + series) as u64,
        format!(
            "{} flows x 13 KB = {}, time series {}",
            sim.flows.len(),
            h(flows),
            h(series)
        ),
    )
}

/// Runs a scenario and returns its report as a JSON string (see docs/results-json.md).
pub fn run_json(req: &RunRequest) -> Result<String, Error> {
    let mut out = Vec::new();
    write_json_with_progress(req, &mut |_| true, &mut out)?;
    String::from_utf8(out).map_err(|e| Error::Internal(format!("the report's JSON: {e}")))
}

/// Validates a scenario (with overrides, building it to check names and paths) and returns
/// the normalised scenario as JSON.
pub fn validate_json(req: &RunRequest) -> Result<String, Error> {
    let source = source_name(req);
    let (s, seed) = load(req)?;
    build::build_with(&s, seed, req.extensions).map_err(|e| Error::Scenario(e.render(source)))?;
    Ok(given(&s)?.get().to_string())
}

/// Validates a scenario like [`validate_json`] and returns `{"scenario": the normalised
/// scenario, "resolved": the network as built}` ([`crate::resolved::Resolved`]: every
/// default filled in, routed paths, resolved TCP and queue settings, warnings).
pub fn resolve_json(req: &RunRequest) -> Result<String, Error> {
    let source = source_name(req);
    let (s, seed) = load(req)?;
    let sim = build::build_with(&s, seed, req.extensions)
        .map_err(|e| Error::Scenario(e.render(source)))?;
    #[derive(serde::Serialize)]
    struct Both {
        scenario: Box<serde_json::value::RawValue>,
        resolved: crate::resolved::Resolved,
    }
    let both = Both {
        scenario: given(&s)?,
        resolved: crate::resolved::Resolved::from_sim(&sim),
    };
    serde_json::to_string(&both)
        .map_err(|e| Error::Internal(format!("serialising the scenario: {e}")))
}

/// The normalised scenario as JSON, with the limits given in BDP or time as given (the parsed
/// scenario holds the discipline's default in their place until the builder sizes them).
fn given(s: &Scenario) -> Result<Box<serde_json::value::RawValue>, Error> {
    let err = |e: serde_json::Error| Error::Internal(format!("serialising the scenario: {e}"));
    let text = if s.deferred_limits.is_empty() {
        serde_json::to_string(s).map_err(err)?
    } else {
        let mut v = serde_json::to_value(s).map_err(err)?;
        s.deferred_limits.restore(&mut v);
        serde_json::to_string(&v).map_err(err)?
    };
    serde_json::value::RawValue::from_string(text).map_err(err)
}

/// JSON Schema of the scenario file format.
pub fn scenario_schema_json() -> String {
    let schema = schemars::schema_for!(Scenario);
    serde_json::to_string_pretty(&schema).expect("a schema always serialises")
}
