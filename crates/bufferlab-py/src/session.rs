//! `bufferlab._core.Session`: a simulation driven step by step from Python (the ns-2 script
//! runner, `python/bufferlab/ns2/`; the core's `session.rs`). It holds the GIL while it
//! runs: a script's engine is driven by one thread, between the script's own events.

use std::panic::{catch_unwind, AssertUnwindSafe};

use bufferlab_core::api::{Error, RunRequest};
use bufferlab_core::monitor::ns2_integrator::Ns2Integrator;
use bufferlab_core::monitor::ns2_trace::TraceFilter;
use bufferlab_core::session::Session as CoreSession;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::{panic_message, ScenarioError, SimulationPanic};

#[pyclass(name = "Session", module = "bufferlab._core", unsendable)]
pub struct Session {
    inner: Option<CoreSession>,
}

fn to_py(e: Error) -> PyErr {
    match e {
        Error::Scenario(m) => ScenarioError::new_err(m),
        e @ Error::Internal(_) => SimulationPanic::new_err(e.to_string()),
    }
}

fn guarded<T>(f: impl FnOnce() -> Result<T, Error>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(to_py),
        Err(p) => Err(SimulationPanic::new_err(format!(
            "the simulator panicked: {}",
            panic_message(p.as_ref())
        ))),
    }
}

impl Session {
    fn live(&mut self) -> PyResult<&mut CoreSession> {
        self.inner
            .as_mut()
            .ok_or_else(|| ScenarioError::new_err("the session has finished"))
    }
}

#[pymethods]
impl Session {
    /// Builds the network of a scenario (the same checks as a run); raises ScenarioError.
    /// `ns2_error_drops`: link directions (from node, to node) whose random losses the ns-2
    /// trace writes as `e` (ns-2's `create-trace EDrop`) rather than `d`. `max_wall`: seconds
    /// of wall time the engine may run from now (`--max-wall`; `stopped()` then says so).
    /// `ns2_show_tcphdr`: the ns-2 trace's lines also carry the TCP header fields (ns-2's
    /// `Trace set show_tcphdr_ 1`). `ns2_unmonitored_losses`: link directions whose error
    /// model drops into a drop-target of the script's own, unseen by the link's monitors.
    /// `ns2_trace_directions`: the link directions (from node, to node) the ns-2 trace
    /// writes (all when None).
    #[new]
    #[pyo3(signature = (scenario_text, source = None, seed = None, ns2_trace = None,
        ns2_error_drops = None, max_wall = None, ns2_show_tcphdr = false,
        ns2_unmonitored_losses = None, ns2_trace_directions = None))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments, each optional
    fn new(
        scenario_text: String,
        source: Option<String>,
        seed: Option<u64>,
        ns2_trace: Option<String>,
        ns2_error_drops: Option<Vec<(String, String)>>,
        max_wall: Option<f64>,
        ns2_show_tcphdr: bool,
        ns2_unmonitored_losses: Option<Vec<(String, String)>>,
        ns2_trace_directions: Option<Vec<(String, String)>>,
    ) -> PyResult<Self> {
        // no memory limit: as before (Some(0)), the script's process is the user's own
        let limits = crate::limits(max_wall, Some(0))?;
        let trace = ns2_trace.map(std::path::PathBuf::from);
        let source = source.unwrap_or_else(|| "<ns2>".to_string());
        let s = guarded(|| {
            CoreSession::new(&RunRequest {
                text: &scenario_text,
                source: &source,
                seed,
                ns2_trace: trace.as_deref(),
                trace_filter: TraceFilter {
                    error_drops: ns2_error_drops.unwrap_or_default(),
                    show_tcphdr: ns2_show_tcphdr,
                    directions: ns2_trace_directions.unwrap_or_default(),
                    ..Default::default()
                },
                limits,
                ns2_unmonitored_losses: ns2_unmonitored_losses.unwrap_or_default(),
                ..Default::default()
            })
        })?;
        Ok(Session { inner: Some(s) })
    }

    /// Simulated time (seconds).
    fn now(&mut self) -> PyResult<f64> {
        Ok(self.live()?.now_s())
    }

    /// The scenario's end (seconds).
    fn end(&mut self) -> PyResult<f64> {
        Ok(self.live()?.end_s())
    }

    /// Runs every event strictly before `t_s` (never past the end); then `now()` is `t_s`.
    /// Ctrl-C (a Python signal handler's exception, KeyboardInterrupt) stops it and is raised.
    fn run_until(&mut self, py: Python<'_>, t_s: f64) -> PyResult<()> {
        let s = self.live()?;
        let mut signal: Option<PyErr> = None;
        let run = guarded(|| {
            s.run_before_or(t_s, || match py.check_signals() {
                Ok(()) => false,
                Err(e) => {
                    signal = Some(e);
                    true
                }
            })
        });
        match signal {
            Some(e) => Err(e),
            None => run.map(|_| ()),
        }
    }

    /// An ns-2 variable of a flow now (`cwnd_`, `ack_`, `t_seqno_`, `ssthresh_`, `srtt_`,
    /// `rtt_`, `bytes_`, `npkts_`, `nlost_`), or None.
    fn probe(&mut self, flow: &str, var: &str) -> PyResult<Option<f64>> {
        Ok(self.live()?.probe(flow, var))
    }

    /// An ns-2 queue variable now of the direction `from_node` -> `to_node` of link `link`
    /// (`pkts_`, `size_`, `parrivals_`, `barrivals_`, `pdepartures_`, `bdepartures_`,
    /// `pdrops_`, `bdrops_`, the integrators' `pkts_sum_`, `bytes_sum_`; RED's `ave_`,
    /// `curq_`), or None.
    fn probe_queue(
        &mut self,
        link: &str,
        from_node: &str,
        to_node: &str,
        var: &str,
    ) -> PyResult<Option<f64>> {
        Ok(self.live()?.probe_queue(link, from_node, to_node, var))
    }

    /// Takes the sender (or, with `receiver`, the receiver) of flow `flow` off its node
    /// (`$ns detach-agent`): the packets that reach it from now on are discarded.
    fn detach(&mut self, flow: &str, receiver: bool) -> PyResult<()> {
        let s = self.live()?;
        guarded(|| s.detach(flow, receiver))
    }

    /// Changes the direction `from_node` -> `to_node` of link `link` from now on (ns-2's
    /// `$ns bandwidth`, `$ns delay`, `$ns queue-limit` run during the run): `what` is `rate`
    /// (bits per second), `delay` (seconds) or `limit` (packets of a DropTail queue).
    fn set_link(
        &mut self,
        link: &str,
        from_node: &str,
        to_node: &str,
        what: &str,
        value: f64,
    ) -> PyResult<()> {
        let s = self.live()?;
        guarded(|| s.set_link(link, from_node, to_node, what, value))
    }

    /// Puts ns-2's Delayer on the direction `from_node` -> `to_node` of link `link`
    /// (`$ns insert-delayer`), with `alloc` ((kind, a, b) interval, (kind, a, b) length) and
    /// `spike` (interval, length, first spike's time in seconds); kind `uniform` (min, max),
    /// `exponential` (avg, 0) or `constant` (val, 0).
    #[pyo3(signature = (link, from_node, to_node, alloc=None, spike=None))]
    #[allow(clippy::type_complexity)]
    fn add_delayer(
        &mut self,
        link: &str,
        from_node: &str,
        to_node: &str,
        alloc: Option<((String, f64, f64), (String, f64, f64))>,
        spike: Option<((String, f64, f64), (String, f64, f64), f64)>,
    ) -> PyResult<()> {
        let s = self.live()?;
        fn w(v: &(String, f64, f64)) -> (&str, f64, f64) {
            (v.0.as_str(), v.1, v.2)
        }
        let alloc = alloc.as_ref().map(|(i, l)| (w(i), w(l)));
        let spike = spike.as_ref().map(|(i, l, t)| (w(i), w(l), *t));
        guarded(|| s.add_delayer(link, from_node, to_node, alloc, spike))
    }

    /// `$delayer block` (true) / `unblock` (false) now on the Delayer of that direction.
    fn delayer_block(
        &mut self,
        link: &str,
        from_node: &str,
        to_node: &str,
        block: bool,
    ) -> PyResult<()> {
        let s = self.live()?;
        guarded(|| s.delayer_block(link, from_node, to_node, block))
    }

    /// Records every change of a queue variable of the direction `from_node` -> `to_node`
    /// of link `link` from now on (`$redq trace ave_` / `curq_`); returns (watch number,
    /// value now), or None. Its changes come with the flows' in `take_changes`.
    fn watch_queue(
        &mut self,
        link: &str,
        from_node: &str,
        to_node: &str,
        var: &str,
    ) -> PyResult<Option<(usize, f64)>> {
        Ok(self.live()?.watch_queue(link, from_node, to_node, var))
    }

    /// A queue monitor's pair of ns-2 integrators on the direction `from_node` -> `to_node`
    /// of link `link` (`$ns monitor-queue`); its id, or None if there is no such queue.
    fn add_queue_integrators(
        &mut self,
        link: &str,
        from_node: &str,
        to_node: &str,
    ) -> PyResult<Option<usize>> {
        Ok(self.live()?.add_queue_integrators(link, from_node, to_node))
    }

    /// Keeps ns-2's summary statistics (`summarystats_ true`) of the queue of the direction
    /// `from_node` -> `to_node` of link `link` from now on; false if there is no such queue.
    fn keep_queue_summary(&mut self, link: &str, from_node: &str, to_node: &str) -> PyResult<bool> {
        Ok(self.live()?.keep_queue_summary(link, from_node, to_node))
    }

    /// That queue's summary statistics now (`$queue printstats`): (`true_ave_` over the
    /// packets, over the bytes, `total_time_`), or None if they are not kept.
    fn queue_summary(
        &mut self,
        link: &str,
        from_node: &str,
        to_node: &str,
    ) -> PyResult<Option<(f64, f64, f64)>> {
        Ok(self
            .live()?
            .queue_summary(link, from_node, to_node)
            .map(|s| (s.true_ave_packets, s.true_ave_bytes, s.total_time)))
    }

    /// A flow monitor (`$ns attach-fmon`) on the direction `from_node` -> `to_node` of link
    /// `link`, from now on; its id, or None if there is no such queue.
    fn add_flow_monitor(
        &mut self,
        link: &str,
        from_node: &str,
        to_node: &str,
        early_drops: bool,
    ) -> PyResult<Option<(usize, usize)>> {
        Ok(self
            .live()?
            .add_flow_monitor(link, from_node, to_node, early_drops))
    }

    /// Flow monitor `id`'s counters now: (its totals, its flows in the order they were seen,
    /// each (fid, src node id, dst node id, flow name, packet type name, counters)); the
    /// counters in ns2_flowmon's `FlowCounts::NAMES` order.
    #[allow(clippy::type_complexity)]
    fn flow_monitor(
        &mut self,
        id: (usize, usize),
    ) -> PyResult<(Vec<u64>, Vec<(u32, u32, u32, String, String, Vec<u64>)>)> {
        let s = self.live()?;
        let m = s
            .flow_monitor(id)
            .ok_or_else(|| PyValueError::new_err(format!("no flow monitor {id:?}")))?
            .clone();
        let mut flows = Vec::new();
        for f in &m.flows {
            let (name, kind) = s.flow_type(f.flow, f.ack).unwrap_or(("", "tcp"));
            let counts = f.counts.as_array().to_vec();
            flows.push((
                f.fid,
                f.src,
                f.dst,
                name.to_string(),
                kind.to_string(),
                counts,
            ));
        }
        Ok((m.total.as_array().to_vec(), flows))
    }

    /// `$fmon reset` (fid None) or `$flow reset` of flow monitor `id`.
    fn reset_flow_monitor(&mut self, id: (usize, usize), fid: Option<u32>) -> PyResult<()> {
        let s = self.live()?;
        s.flow_monitor(id)
            .ok_or_else(|| PyValueError::new_err(format!("no flow monitor {id:?}")))?
            .reset(fid);
        Ok(())
    }

    /// Integrator `which` ("packets" or "bytes") of pair `id` now: (`lastx_`, `lasty_`,
    /// `sum_`).
    fn queue_integrator(&mut self, id: usize, which: &str) -> PyResult<(f64, f64, f64)> {
        let i = *integrator(self.live()?, id, which)?;
        Ok((i.lastx, i.lasty, i.sum))
    }

    /// Sets integrator `which` of pair `id` (a script's `$int set sum_ ...` or `newpoint`).
    fn set_queue_integrator(
        &mut self,
        id: usize,
        which: &str,
        lastx: f64,
        lasty: f64,
        sum: f64,
    ) -> PyResult<()> {
        *integrator(self.live()?, id, which)? = Ns2Integrator { lastx, lasty, sum };
        Ok(())
    }

    /// The flow's sender writes ns-2's event trace lines into the ns-2 trace from now on
    /// (`$ns eventtrace-all`); False if it writes none.
    fn record_ns2_events(&mut self, flow: &str) -> PyResult<bool> {
        Ok(self.live()?.record_ns2_events(flow))
    }

    /// Records every change of a flow variable from now on (`$tcp trace cwnd_`); returns
    /// (watch number, value now), or None.
    fn watch(&mut self, flow: &str, var: &str) -> PyResult<Option<(usize, f64)>> {
        Ok(self.live()?.watch(flow, var))
    }

    /// The changes recorded since the last call: (time s, watch number, value), in time order.
    fn take_changes(&mut self) -> PyResult<Vec<(f64, usize, f64)>> {
        Ok(self.live()?.take_changes())
    }

    /// Moves a flow's application start and/or stop (seconds; `float("inf")` as the start
    /// holds it until a later start): ns-2's `$ftp start` / `$ftp stop` run during the run.
    #[pyo3(signature = (flow, start = None, stop = None))]
    fn retime(&mut self, flow: &str, start: Option<f64>, stop: Option<f64>) -> PyResult<()> {
        let s = self.live()?;
        guarded(|| s.retime_flow(flow, start, stop))
    }

    /// Sets how much data a flow's application has written in all, in full segments (ns-2's
    /// `curseq_`: `$ftp send`, `produce`, `producemore`, `$tcp advance`, `advanceby`); a held
    /// flow starts now, an idle connection sends the new data now.
    fn set_data(&mut self, flow: &str, segments: u64) -> PyResult<()> {
        let s = self.live()?;
        guarded(|| s.set_data_flow(flow, segments))
    }

    /// Sets a flow's CBR source's `rate_` (bit/s) and `packetSize_` (bytes) during the run
    /// (ns-2's `$cbr set interval_` / `rate_` / `packetSize_`): the packet already
    /// scheduled keeps its time, the gap after it is the new one.
    fn set_cbr_rate(&mut self, flow: &str, rate: f64, size: u32) -> PyResult<()> {
        let s = self.live()?;
        guarded(|| s.set_cbr_rate_flow(flow, rate, size))
    }

    /// Sets a flow's ns-2 Telnet's `interval_` (seconds) during the run: the packet already
    /// scheduled keeps its time, the gap drawn after it has the new mean.
    fn set_telnet_interval(&mut self, flow: &str, interval: f64) -> PyResult<()> {
        let s = self.live()?;
        guarded(|| s.set_telnet_interval_flow(flow, interval))
    }

    /// Runs a flow's start now if the scenario gave it this instant and it has not run:
    /// ns-2 runs a start scheduled before a script's event of the same instant first.
    fn start_due(&mut self, flow: &str) -> PyResult<()> {
        let s = self.live()?;
        guarded(|| s.start_due(flow))
    }

    /// Resets one end of a flow (the receiver with `receiver`): ns-2's `$tcp reset` /
    /// `$sink reset` during the run; `phase` is the sender's new tick-clock phase (seconds).
    #[pyo3(signature = (flow, receiver = false, phase = None))]
    fn reset(&mut self, flow: &str, receiver: bool, phase: Option<f64>) -> PyResult<()> {
        let s = self.live()?;
        guarded(|| s.reset_flow(flow, receiver, phase))
    }

    /// Stops `run_until` after the event at which flow `flow`'s `ack_` reaches `ack` (once; a
    /// new value replaces the flow's watch): ns-2's `$tcp done`.
    fn watch_ack(&mut self, flow: &str, ack: f64) -> PyResult<()> {
        let s = self.live()?;
        guarded(|| s.watch_ack(flow, ack))
    }

    /// The watched flows that reached their `ack_` since the last call: (time s, flow).
    fn take_acked(&mut self) -> PyResult<Vec<(f64, String)>> {
        Ok(self.live()?.take_acked())
    }

    /// Where ns-2's default RNG stands (six values), or None when the scenario does not
    /// follow it (`ns2_default_rng`).
    fn ns2_rng_state(&mut self) -> PyResult<Option<[u64; 6]>> {
        Ok(self.live()?.ns2_rng_state())
    }

    /// Moves ns-2's default RNG to `state` (six values): the script's own draws between events.
    fn set_ns2_rng_state(&mut self, state: [u64; 6]) -> PyResult<()> {
        let s = self.live()?;
        guarded(|| s.set_ns2_rng_state(state))
    }

    /// Why a limit stopped the run, or None.
    fn stopped(&mut self) -> PyResult<Option<String>> {
        Ok(self.live()?.stopped())
    }

    /// Runs to the end, closes the traces and returns the report as JSON.
    fn finish(&mut self) -> PyResult<String> {
        let s = self
            .inner
            .take()
            .ok_or_else(|| ScenarioError::new_err("the session has finished"))?;
        let report = guarded(|| s.finish())?;
        serde_json::to_string(&report).map_err(|e| SimulationPanic::new_err(e.to_string()))
    }
}

/// Integrator `which` ("packets" or "bytes") of queue monitor pair `id`.
fn integrator<'a>(
    session: &'a mut CoreSession,
    id: usize,
    which: &str,
) -> PyResult<&'a mut Ns2Integrator> {
    let pair = session
        .queue_integrators(id)
        .ok_or_else(|| PyValueError::new_err(format!("no queue integrators {id}")))?;
    match which {
        "packets" => Ok(&mut pair.packets),
        "bytes" => Ok(&mut pair.bytes),
        _ => Err(PyValueError::new_err(format!(
            "integrator {which:?}: \"packets\" or \"bytes\""
        ))),
    }
}
