//! A simulation driven step by step from outside: the ns-2 script runner
//! (`python/bufferlab/ns2/`) runs the engine up to the time of the script's next `$ns at`
//! event, lets the script read agent variables (`cwnd_`, `bytes_`, ...), then goes on. One
//! engine: the script only observes it, with ns-2's names and units.
//!
//! ns-2 runs the events of one instant in the order they were scheduled (`Scheduler::run`,
//! ns-2.35 `common/scheduler.cc`), and a script schedules its `$ns at` events before the first
//! packet exists, so at time t the script's event comes before the packets of t:
//! [`Session::run_before`] runs every engine event strictly before t.

use crate::api::{prepare, Error, RunRequest};
use crate::clock::EventClock;
use crate::monitor::ns2_integrator::QueueIntegrators;
use crate::report::Report;
use crate::scenario::config::Scenario;
use crate::sim::Simulation;
use crate::units::SimTime;
use std::time::Instant;

mod apps;
mod flowmon;
mod links;
mod summary;

/// Events between two questions to [`Session::run_before_or`]'s `interrupted` (a power of two):
/// a few hundred a second, and one add-and-mask per event in between.
pub const INTERRUPT_CHECK_EVERY: u64 = 1 << 16;

pub struct Session {
    scenario: Scenario,
    sim: Simulation,
    t0: Instant,
    watches: Vec<Watch>,
    changes: Vec<(f64, usize, f64)>,
    /// Flows whose run stops when their `ack_` reaches a value (`watch_ack`), and the ones
    /// that reached it, with the time, until taken.
    ack_watches: Vec<AckWatch>,
    acked: Vec<(f64, String)>,
    /// Queue monitors' ns-2 integrators: (port index, the pair's index at that port).
    integrators: Vec<(usize, usize)>,
}

/// A variable whose changes are recorded: a flow's (`$tcp trace cwnd_`) or a queue's (`$redq
/// trace ave_`).
struct Watch {
    of: Watched,
    var: String,
    last: Option<f64>,
    /// Where a change goes among the changes of one event: ns-2 assigns RED's `ave_` before
    /// its `curq_` (red.cc enque), and writes each trace line as it assigns.
    rank: u8,
}

#[derive(Clone, Copy)]
enum Watched {
    Flow(usize),
    /// A port, by index.
    Queue(usize),
}

/// The place of a variable's change among the changes of one event, in the order ns-2.35
/// assigns them (and so writes their trace lines): RED's `ave_` before its `curq_` (red.cc
/// enque); a TCP sender's, as an ACK assigns them (tcp.cc `recv` -> `newack`: `dupacks_`,
/// `highest_ack_` (ack_), `t_backoff_`, then `rtt_update`'s `t_rtt_`, `t_srtt_`, `t_rttvar_`;
/// `opencwnd` or `slowdown`: `ssthresh_` before `cwnd_`; then `send_much` -> `output`:
/// `maxseq_` before `t_seqno_`).
fn change_rank(var: &str) -> u8 {
    const ORDER: [&str; 11] = [
        "ave_",
        "curq_",
        "dupacks_",
        "ack_",
        "backoff_",
        "rtt_",
        "srtt_",
        "rttvar_",
        "ssthresh_",
        "cwnd_",
        "maxseq_",
    ];
    ORDER.iter().position(|v| *v == var).unwrap_or(ORDER.len()) as u8
}

impl Watch {
    fn probe(&self, sim: &Simulation) -> Option<f64> {
        match self.of {
            Watched::Flow(i) => probe_flow(sim, i, &self.var),
            Watched::Queue(p) => probe_port(sim, p, &self.var),
        }
    }
}

/// A flow whose run stops at the new ACK that brings its `ack_` to `ack` or beyond.
struct AckWatch {
    flow: usize,
    ack: f64,
    last: f64,
}

/// An ns-2 variable of flow `i` of `sim` (see [`Session::probe`]).
fn probe_flow(sim: &Simulation, i: usize, var: &str) -> Option<f64> {
    let f = &sim.flows[i];
    match var {
        "bytes_" => Some(f.stats.rx_bytes as f64),
        "npkts_" => Some(f.stats.rx_packets as f64),
        // a loss monitor counts the gaps it sees (UdpSink); other receivers have no nlost_
        // of their own: the flow's losses
        "nlost_" => sim.agents[f.receiver.0 as usize]
            .ep
            .probe_at(var, sim.now)
            .or(Some(f.stats.lost_packets as f64)),
        "sink_bytes_" => sim.agents[f.receiver.0 as usize].ep.probe_at(var, sim.now),
        _ => sim.agents[f.sender.0 as usize].ep.probe_at(var, sim.now),
    }
}

/// An ns-2 queue variable of port `port` of `sim` (see [`Session::probe_queue`]).
fn probe_port(sim: &Simulation, port: usize, var: &str) -> Option<f64> {
    let port = &sim.ports[port];
    let st = port.stats();
    // an ns-2 queue monitor's counters count the link's losses as drops (Port::ns2_monitor)
    let (pkts, size, lost, lost_bytes) = port.ns2_monitor();
    Some(match var {
        "pkts_" => pkts,
        "size_" => size,
        "parrivals_" => st.arrivals as f64,
        "barrivals_" => st.arrival_bytes as f64,
        "pdepartures_" => st.departures as f64,
        "bdepartures_" => st.departure_bytes as f64,
        "pdrops_" => (st.total_drops() + lost) as f64,
        "bdrops_" => (st.drop_bytes + lost_bytes) as f64,
        "pkts_sum_" => st.integrals_to_last_change().0,
        "bytes_sum_" => st.integrals_to_last_change().1,
        "ave_" => port.queue().disc().average()?,
        "curq_" => port.queue().disc().arrival_length()?,
        "prob_" => port.queue().disc().probability_at(sim.now)?,
        _ => return None,
    })
}

impl Session {
    /// Builds the network of a request (the same checks, traces and limits as a run).
    pub fn new(req: &RunRequest) -> Result<Session, Error> {
        let t0 = Instant::now();
        let (scenario, sim) = prepare(req)?;
        Ok(Session {
            scenario,
            sim,
            t0,
            watches: Vec::new(),
            changes: Vec::new(),
            ack_watches: Vec::new(),
            acked: Vec::new(),
            integrators: Vec::new(),
        })
    }

    /// Simulated time (seconds).
    pub fn now_s(&self) -> f64 {
        self.sim.now_s()
    }

    /// The end of the scenario (seconds).
    pub fn end_s(&self) -> f64 {
        self.sim.end.as_secs_f64()
    }

    /// Runs every event strictly before `t` seconds (never past the end); the clock then
    /// reads `t` (or the end). A time in the past does nothing.
    pub fn run_before(&mut self, t: f64) -> Result<(), Error> {
        self.run_before_or(t, || false).map(|_| ())
    }

    /// [`Session::run_before`], asking `interrupted` every [`INTERRUPT_CHECK_EVERY`] events
    /// (Ctrl-C from the driver); returns false when it said yes, the clock at the last event
    /// run.
    pub fn run_before_or(
        &mut self,
        t: f64,
        mut interrupted: impl FnMut() -> bool,
    ) -> Result<bool, Error> {
        if !t.is_finite() || t < 0.0 {
            return Err(Error::Scenario(format!(
                "$ns at: a time in seconds, zero or more, got {t}"
            )));
        }
        // Saturates at the clock's end (a float cast saturates); the scenario ends before.
        let end = self.sim.clock.key_at(self.sim.end);
        let key = self.sim.clock.key_of_secs(t).min(end);
        if key <= self.sim.now_key() || self.sim.stopped.is_some() {
            return Ok(true);
        }
        let (mut events, mut stopped) = (0u64, false);
        let mut stop = || {
            events += 1;
            stopped = events & (INTERRUPT_CHECK_EVERY - 1) == 0 && interrupted();
            stopped
        };
        if self.watches.is_empty() && self.ack_watches.is_empty() {
            self.sim.run_until_key(key - 1, |_| stop());
            if stopped {
                return Ok(false);
            }
        } else {
            let (watches, changes) = (&mut self.watches, &mut self.changes);
            let (ack_watches, acked) = (&mut self.ack_watches, &mut self.acked);
            let mut early = false;
            self.sim.run_until_key(key - 1, |sim| {
                let first = changes.len();
                for (i, w) in watches.iter_mut().enumerate() {
                    let v = w.probe(sim);
                    if v != w.last {
                        w.last = v;
                        if let Some(v) = v {
                            changes.push((sim.now_s(), i, v));
                        }
                    }
                }
                // one event's changes in the order ns-2 assigns the variables
                changes[first..].sort_by_key(|&(_, i, _)| watches[i].rank);
                let before = acked.len();
                ack_watches.retain_mut(|w| {
                    // tcp.cc checks in recv_newack_helper: only a new ACK can reach it
                    let a = probe_flow(sim, w.flow, "ack_").unwrap_or(w.last);
                    let reached = a > w.last && a >= w.ack;
                    w.last = a;
                    if reached {
                        acked.push((sim.now_s(), sim.flows[w.flow].name.clone()));
                    }
                    !reached
                });
                early = acked.len() > before;
                stop() || early
            });
            if stopped {
                return Ok(false);
            }
            if early {
                // stopped after the event that reached a watched ack_: the clock stays there
                return Ok(true);
            }
        }
        if self.sim.stopped.is_none() {
            self.sim.set_now_key(key);
        }
        Ok(true)
    }

    /// An ns-2 variable of flow `flow` now: the sender's `cwnd_`, `ssthresh_` (packets),
    /// `ack_` (highest segment cumulatively acknowledged, -1 before the first), `t_seqno_`
    /// (next segment to send), `srtt_`, `rtt_` (seconds) from the TCP sender; `bytes_`,
    /// `npkts_` (bytes and packets received) from the flow's counters; `nlost_`, the gaps in
    /// the sequence a loss monitor has seen (`UdpSink`); `sink_bytes_` (ns-2 `TCPSink`'s `bytes_`: the bytes
    /// delivered in order) from the TCP receiver. None if the flow or the variable does not
    /// exist.
    pub fn probe(&self, flow: &str, var: &str) -> Option<f64> {
        let i = self.sim.flows.iter().position(|f| f.name == flow)?;
        probe_flow(&self.sim, i, var)
    }

    /// The sender of flow `flow` writes ns-2's event trace lines (`E`, tcp.cc
    /// `trace_event`) into the ns-2 trace from now on (`$ns eventtrace-all`); false if the
    /// flow does not exist or its sender writes none (`tcp/sender/ns2_events.rs`).
    pub fn record_ns2_events(&mut self, flow: &str) -> bool {
        match self.sim.flows.iter().position(|f| f.name == flow) {
            Some(i) => self.sim.record_ns2_events(i),
            None => false,
        }
    }

    /// Records every change of a flow variable from now on (ns-2's `$agent trace var`): after
    /// each engine event the variable is read and, when it differs from the last value, the
    /// time and the new value are kept for [`take_changes`](Session::take_changes). Returns
    /// the watch's number and the value now; None if the flow or the variable does not exist.
    /// ns-2 writes a line at each assignment of a traced variable, which may repeat a value;
    /// this records changes only.
    pub fn watch(&mut self, flow: &str, var: &str) -> Option<(usize, f64)> {
        let i = self.sim.flows.iter().position(|f| f.name == flow)?;
        self.add_watch(Watched::Flow(i), var)
    }

    /// Records every change of a queue variable of the direction `from` -> `to` of `link`
    /// from now on (`$redq trace ave_` / `curq_`: the variables of
    /// [`Session::probe_queue`]); returns (watch number, value now), or None.
    pub fn watch_queue(
        &mut self,
        link: &str,
        from: &str,
        to: &str,
        var: &str,
    ) -> Option<(usize, f64)> {
        let port = self.port_index(link, from, to)?;
        self.add_watch(Watched::Queue(port), var)
    }

    fn add_watch(&mut self, of: Watched, var: &str) -> Option<(usize, f64)> {
        let w = Watch {
            of,
            var: var.to_string(),
            last: None,
            rank: change_rank(var),
        };
        let v = w.probe(&self.sim)?;
        self.watches.push(Watch { last: Some(v), ..w });
        Some((self.watches.len() - 1, v))
    }

    /// The changes recorded since the last call: (time in seconds, watch, new value), in
    /// time order.
    pub fn take_changes(&mut self) -> Vec<(f64, usize, f64)> {
        std::mem::take(&mut self.changes)
    }

    /// The index of the port of direction `from` -> `to` of link `link` (node names).
    fn port_index(&self, link: &str, from: &str, to: &str) -> Option<usize> {
        let sim = &self.sim;
        let l = sim.links.iter().find(|l| l.name == link)?;
        l.ports.iter().map(|p| p.idx()).find(|&i| {
            let p = &sim.ports[i];
            sim.nodes[p.from().idx()].name == from && sim.nodes[p.to().idx()].name == to
        })
    }

    /// A queue monitor's pair of ns-2 integrators on the queue of direction `from` -> `to`
    /// of `link` (`$ns monitor-queue`; monitor/ns2_integrator.rs): its id, or None if there
    /// is no such queue or the scenario is not on ns-2's clock (`clock = "ns2"`, which every
    /// scenario made from a script is). They see the queue's changes from now on.
    pub fn add_queue_integrators(&mut self, link: &str, from: &str, to: &str) -> Option<usize> {
        if self.sim.clock != EventClock::Ns2 {
            return None;
        }
        let port = self.port_index(link, from, to)?;
        let slot = self.sim.ports[port].add_integrators();
        self.integrators.push((port, slot));
        Some(self.integrators.len() - 1)
    }

    /// Integrator pair `id` (from [`Session::add_queue_integrators`]), to read or write.
    pub fn queue_integrators(&mut self, id: usize) -> Option<&mut QueueIntegrators> {
        let &(port, slot) = self.integrators.get(id)?;
        self.sim.ports[port].integrators_mut(slot)
    }

    /// An ns-2 queue variable now, of the direction `from` -> `to` of link `link` (node names),
    /// as ns-2's QueueMonitor (queue-monitor.h) and RED (queue/red.cc) give them:
    /// * `pkts_`, `size_`: packets and bytes waiting now (the packet being sent is not
    ///   counted, as in ns-2's QueueMonitor, whose `out_` snoop sees it leave the queue);
    /// * `parrivals_`, `barrivals_`, `pdepartures_`, `bdepartures_`, `pdrops_`, `bdrops_`:
    ///   packets and bytes that arrived (drops included), left, were dropped, so far (from the
    ///   warm-up on; ns-2 counts from the monitor's creation, usually time 0);
    /// * `pkts_sum_`, `bytes_sum_`: the integrals of `pkts_` and `size_` over time so far
    ///   (packet-seconds, byte-seconds: the `sum_` of ns-2's `get-pkts-integrator` and
    ///   `get-bytes-integrator`);
    /// * `ave_`: RED's average, `curq_`: the length the last arrival found (both in bytes in
    ///   byte mode, packets otherwise); None for a discipline that keeps neither.
    ///
    /// None if the direction or the variable does not exist.
    pub fn probe_queue(&self, link: &str, from: &str, to: &str, var: &str) -> Option<f64> {
        probe_port(&self.sim, self.port_index(link, from, to)?, var)
    }

    /// Moves flow `flow`'s application start and/or stop (seconds, from now on; ns-2's
    /// `$ftp start` / `$ftp stop` run by a script's proc while the run goes on). A start of
    /// infinity holds a flow built with a start it must not keep until a later start; a flow
    /// started once is not started again (Err). The flow's packets then follow from the new
    /// times as if the scenario had given them.
    pub fn retime_flow(
        &mut self,
        flow: &str,
        start: Option<f64>,
        stop: Option<f64>,
    ) -> Result<(), Error> {
        let i = self.flow_index(flow)?;
        let now = self.sim.now;
        let at = |s: f64| {
            if s.is_infinite() && s > 0.0 {
                Ok(SimTime::MAX)
            } else if s.is_finite() && s >= 0.0 {
                Ok(SimTime::from_secs_f64(s).max(now))
            } else {
                Err(Error::Scenario(format!(
                    "a start or stop time in seconds, got {s}"
                )))
            }
        };
        let (start, stop) = (start.map(at).transpose()?, stop.map(at).transpose()?);
        let (sender, from) = (self.sim.flows[i].sender, self.sim.flows[i].start);
        self.sim.agents[sender.idx()]
            .ep
            .retime(now, from, start, stop)
            .map_err(|e| Error::Scenario(format!("flow {flow}: {e}")))?;
        let f = &mut self.sim.flows[i];
        if let Some(t) = start.filter(|&t| t < SimTime::MAX) {
            f.start = t;
        }
        if let Some(t) = stop {
            f.stop = f.stop.min(t);
        }
        if start == Some(now) {
            // ns-2's `$cbr start` sends at once (cbr_traffic.cc start: timeout()), `$ftp
            // start` too (send_much): before the other events of this instant
            self.sim.endpoint_due_now(sender);
        } else {
            self.sim.update_timer(sender);
        }
        Ok(())
    }

    /// ns-2's `$tcp reset` / `$sink reset` run by a script while the run goes on: one end
    /// of flow `flow` (the receiver with `receiver`) goes back to its initial state and drops
    /// the packets of its previous incarnation (tcp.cc `TcpAgent::reset`, tcp-sink.cc
    /// `TcpSink::reset`; `tcp/sender/reset.rs`). `phase`: the sender's new `boot_time_` in
    /// seconds. Its timers are cancelled; the sender sends again when the script writes data
    /// (`set_data_flow`).
    pub fn reset_flow(
        &mut self,
        flow: &str,
        receiver: bool,
        phase: Option<f64>,
    ) -> Result<(), Error> {
        let i = self.flow_index(flow)?;
        let now = self.sim.now;
        let f = &self.sim.flows[i];
        let agent = if receiver { f.receiver } else { f.sender };
        let phase = match phase {
            Some(s) if s.is_finite() && s >= 0.0 => Some(SimTime::from_secs_f64(s)),
            Some(s) => {
                return Err(Error::Scenario(format!(
                    "a clock phase in seconds, got {s}"
                )))
            }
            None => None,
        };
        self.sim.agents[agent.idx()]
            .ep
            .reset(now, phase)
            .map_err(|e| Error::Scenario(format!("flow {flow}: {e}")))?;
        self.sim.update_timer(agent);
        Ok(())
    }

    /// The index of the flow named `flow`, or the error naming it.
    /// Takes one end of flow `flow` off its node (ns-2's `$ns detach-agent`): from now on
    /// the packets that reach it are discarded, and what it sends goes nowhere (ns-2 makes the
    /// null agent its target); its own timers go on. Scripts' scenarios only
    /// (`clock = "ns2"`).
    pub fn detach(&mut self, flow: &str, receiver: bool) -> Result<(), Error> {
        if self.sim.clock != EventClock::Ns2 {
            return Err(Error::Scenario(
                "detaching an agent needs ns-2's clock (clock = \"ns2\")".into(),
            ));
        }
        let i = self.flow_index(flow)?;
        self.sim.flows[i].detached[usize::from(receiver)] = true;
        Ok(())
    }

    fn flow_index(&self, flow: &str) -> Result<usize, Error> {
        self.sim
            .flows
            .iter()
            .position(|f| f.name == flow)
            .ok_or_else(|| Error::Scenario(format!("no flow is named \"{flow}\"")))
    }

    /// Sets how much data flow `flow`'s application has written in all, in full segments
    /// (an ns-2 script's `$ftp send`, `produce`, `producemore`, `$tcp advance`, `advanceby`
    /// while the run goes on; the TCP sender's `Endpoint::set_data` cites tcp.cc). A held
    /// flow starts now, as `$ftp start` would start it; a connection that had sent
    /// everything goes on with its new data now. What the window allows is sent at once (the
    /// script's event comes first at its instant, as in ns-2). Err for a flow whose application writes its
    /// own data (anything but `bulk`).
    pub fn set_data_flow(&mut self, flow: &str, segments: u64) -> Result<(), Error> {
        let i = self.flow_index(flow)?;
        let now = self.sim.now;
        let sender = self.sim.flows[i].sender;
        let started = self.sim.agents[sender.idx()]
            .ep
            .set_data(now, segments)
            .map_err(|e| Error::Scenario(format!("flow {flow}: {e}")))?;
        if started {
            self.sim.flows[i].start = now;
        }
        // ns-2's sendmsg and advanceby call send_much: the packets leave now, before the
        // other events of this instant
        self.sim.endpoint_due_now(sender);
        Ok(())
    }

    /// Stops the run (`run_before` returns early, the clock at that event) after the event at
    /// which a new ACK brings flow `flow`'s `ack_` to `ack` or beyond, once: ns-2 calls `$tcp
    /// done` inside the new ACK that acknowledges all the data (tcp.cc recv_newack_helper:
    /// `highest_ack_ >= curseq_ - 1`, then `finish()`). A new value replaces the flow's watch.
    pub fn watch_ack(&mut self, flow: &str, ack: f64) -> Result<(), Error> {
        let i = self.flow_index(flow)?;
        let last = probe_flow(&self.sim, i, "ack_").unwrap_or(-1.0);
        self.ack_watches.retain(|w| w.flow != i);
        self.ack_watches.push(AckWatch { flow: i, ack, last });
        Ok(())
    }

    /// The watched flows that reached their `ack_` (time in seconds, flow), in order, since
    /// the last call.
    pub fn take_acked(&mut self) -> Vec<(f64, String)> {
        std::mem::take(&mut self.acked)
    }

    /// Where ns-2's default RNG stands (`$defaultRNG all-seeds`), if the scenario follows it
    /// (`ns2_default_rng`): a script drawing between events continues from here.
    pub fn ns2_rng_state(&self) -> Option<[u64; 6]> {
        self.sim.ns2_rng.as_ref().map(|d| d.state())
    }

    /// Moves ns-2's default RNG to `state` (what the script's own draws left it at).
    pub fn set_ns2_rng_state(&mut self, state: [u64; 6]) -> Result<(), Error> {
        let d = self.sim.ns2_rng.as_ref().ok_or_else(|| {
            Error::Scenario("this scenario does not follow ns-2's default RNG".into())
        })?;
        d.set_state(state)
            .map_err(|m| Error::Scenario(format!("ns-2 default RNG state: {m}")))
    }

    /// Whether a limit stopped the run (its message), or it goes on.
    pub fn stopped(&self) -> Option<String> {
        self.sim.stopped.as_ref().map(|s| s.message.clone())
    }

    /// The report of what the run has measured so far (its counters at the time now), while
    /// it goes on (`tests/warmup_counters.rs`).
    pub fn report_now(&mut self) -> Report {
        Report::snapshot(&mut self.sim, self.scenario.fairness.flows.as_deref())
    }

    /// Runs to the end, closes the traces and returns the report.
    pub fn finish(mut self) -> Result<Report, Error> {
        self.sim.run();
        self.sim
            .close_traces()
            .map_err(|e| Error::Scenario(format!("writing trace files: {e}")))?;
        let mut report = Report::from_sim(self.sim, self.scenario.fairness.flows.as_deref());
        report.wall_s = self.t0.elapsed().as_secs_f64();
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_FLOWS: &str = r#"
duration = "5s"
[topology]
kind = "dumbbell"
pairs = 2
[links.access]
rate = "100Mbps"
delay = "1ms"
[links.bottleneck]
rate = "2Mbps"
delay = "20ms"
queue = { kind = "droptail", limit = "20p", flavour = "ns2" }
[[flows]]
name = "tcp0"
src = "s0"
dst = "d0"
app = { kind = "bulk" }
tcp = { preset = "ns2", cc = "reno" }
[[flows]]
name = "udp1"
src = "s1"
dst = "d1"
start = "1s"
app = { kind = "cbr", rate = "500kbps", packet_size = "500B" }
"#;

    fn session() -> Session {
        Session::new(&RunRequest {
            text: TWO_FLOWS,
            ..Default::default()
        })
        .expect("valid")
    }

    #[test]
    fn stepping_gives_the_same_report_as_one_run() {
        let whole = crate::api::run(&RunRequest {
            text: TWO_FLOWS,
            ..Default::default()
        })
        .unwrap();
        let mut s = session();
        let mut t = 0.0;
        while t < 5.0 {
            s.run_before(t).unwrap();
            t += 0.37;
        }
        let stepped = s.finish().unwrap();
        let a = serde_json::to_value(&whole.flows).unwrap();
        let b = serde_json::to_value(&stepped.flows).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn variables_grow_as_the_run_goes_on() {
        let mut s = session();
        assert_eq!(s.probe("tcp0", "ack_"), Some(-1.0));
        assert_eq!(s.probe("udp1", "bytes_"), Some(0.0));
        s.run_before(2.0).unwrap();
        assert_eq!(s.now_s(), 2.0);
        let ack = s.probe("tcp0", "ack_").unwrap();
        let seq = s.probe("tcp0", "t_seqno_").unwrap();
        let cwnd = s.probe("tcp0", "cwnd_").unwrap();
        assert!(ack > 10.0 && seq > ack, "ack {ack} seq {seq}");
        assert!((1.0..=20.0).contains(&cwnd), "cwnd {cwnd}");
        assert!(s.probe("tcp0", "srtt_").unwrap() > 0.04);
        let got = s.probe("udp1", "bytes_").unwrap();
        // 1 s of a 500 kbit/s source, less the packets still on their way
        assert!((50_000.0..=62_500.0).contains(&got), "{got}");
        assert_eq!(s.probe("udp1", "cwnd_"), None);
        assert_eq!(s.probe("nobody", "cwnd_"), None);
        s.run_before(1.0).unwrap(); // the past: nothing happens
        assert_eq!(s.now_s(), 2.0);
    }

    #[test]
    fn watches_record_each_change_and_leave_the_run_alone() {
        let mut s = session();
        let (w, v0) = s.watch("tcp0", "cwnd_").unwrap();
        let (a, _) = s.watch("tcp0", "ack_").unwrap();
        assert!(s.watch("tcp0", "nothing_").is_none() && s.watch("x", "cwnd_").is_none());
        let mut all = Vec::new();
        let mut t = 0.0;
        while t < 5.0 {
            t += 0.25;
            s.run_before(t).unwrap();
            let ch = s.take_changes();
            assert!(ch.iter().all(|&(at, _, _)| at < t && at >= t - 0.25));
            all.extend(ch);
        }
        let cwnd: Vec<f64> = all.iter().filter(|c| c.1 == w).map(|c| c.2).collect();
        let acks: Vec<f64> = all.iter().filter(|c| c.1 == a).map(|c| c.2).collect();
        assert!(
            cwnd.len() > 20 && acks.len() > 100,
            "{} {}",
            cwnd.len(),
            acks.len()
        );
        // consecutive records differ, and the first differs from the value at the watch
        assert_ne!(cwnd[0], v0);
        assert!(cwnd.windows(2).all(|p| p[0] != p[1]));
        assert!(acks.windows(2).all(|p| p[1] > p[0]));
        assert!(all.windows(2).all(|p| p[0].0 <= p[1].0));
        // ns-2's cwnd_ leaves out Reno's fast-recovery inflation (dupwnd_): a duplicate ACK
        // (no new ack_ at that instant) never raises it, and the run has losses
        let ack_times: Vec<f64> = all.iter().filter(|c| c.1 == a).map(|c| c.0).collect();
        let mut prev = v0;
        let mut decreases = 0;
        for &(t, _, v) in all.iter().filter(|c| c.1 == w) {
            if !ack_times.contains(&t) {
                assert!(
                    v < prev,
                    "cwnd_ rose from {prev} to {v} at {t} without a new ACK"
                );
            }
            decreases += (v < prev) as u32;
            prev = v;
        }
        assert!(decreases > 0);
        // watching does not change the run
        let watched = s.finish().unwrap();
        let whole = crate::api::run(&RunRequest {
            text: TWO_FLOWS,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(
            serde_json::to_value(&whole.flows).unwrap(),
            serde_json::to_value(&watched.flows).unwrap()
        );
    }

    #[test]
    fn flows_started_and_stopped_later_run_as_if_the_scenario_said_so() {
        // tcp0 and udp1 held from the start, started at 1.5 s and 2.2 s, tcp0 stopped at 4 s:
        // the flows' reports are those of the scenario with these times
        let mut s = session();
        s.retime_flow("tcp0", Some(f64::INFINITY), None).unwrap();
        s.retime_flow("udp1", Some(f64::INFINITY), None).unwrap();
        s.run_before(1.5).unwrap();
        assert_eq!(s.probe("tcp0", "t_seqno_"), Some(0.0));
        assert_eq!(s.probe("udp1", "bytes_"), Some(0.0));
        s.retime_flow("tcp0", Some(1.5), None).unwrap();
        s.run_before(2.2).unwrap();
        s.retime_flow("udp1", Some(2.2), None).unwrap();
        s.run_before(4.0).unwrap();
        s.retime_flow("tcp0", None, Some(4.0)).unwrap();
        let err = s.retime_flow("tcp0", Some(4.5), None).unwrap_err();
        assert!(
            err.to_string()
                .contains("starting it again is not modelled"),
            "{err}"
        );
        assert!(s.retime_flow("nobody", Some(1.0), None).is_err());
        // a UDP source stopped and started again sends from the restart on
        s.retime_flow("udp1", None, Some(4.5)).unwrap();
        s.run_before(4.6).unwrap();
        let before = s.probe("udp1", "bytes_").unwrap();
        s.run_before(4.8).unwrap();
        assert_eq!(s.probe("udp1", "bytes_").unwrap(), before); // nothing after the stop
        assert!(s.retime_flow("udp1", Some(4.8), None).is_ok());
        s.run_before(4.95).unwrap();
        assert!(s.probe("udp1", "bytes_").unwrap() > before);
        let restarted = s.finish().unwrap();
        assert!(restarted.flows[1].rx_bytes > 0);
        // (the comparison below runs the same session without the restart)
        let mut s = session();
        s.retime_flow("tcp0", Some(f64::INFINITY), None).unwrap();
        s.retime_flow("udp1", Some(f64::INFINITY), None).unwrap();
        s.run_before(1.5).unwrap();
        s.retime_flow("tcp0", Some(1.5), None).unwrap();
        s.run_before(2.2).unwrap();
        s.retime_flow("udp1", Some(2.2), None).unwrap();
        s.run_before(4.0).unwrap();
        s.retime_flow("tcp0", None, Some(4.0)).unwrap();
        let later = s.finish().unwrap();
        let text = TWO_FLOWS
            .replace(
                "tcp = { preset",
                "start = \"1.5s\"\nstop = \"4s\"\ntcp = { preset",
            )
            .replace("start = \"1s\"", "start = \"2.2s\"");
        let whole = crate::api::run(&RunRequest {
            text: &text,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(
            serde_json::to_value(&whole.flows).unwrap(),
            serde_json::to_value(&later.flows).unwrap()
        );
        assert!(later.flows.iter().all(|f| f.rx_bytes > 0));
    }

    #[test]
    fn data_set_by_a_script_is_sent_and_an_idle_connection_goes_on() {
        // tcp.cc sendmsg/advanceby: a held one-way agent given 10 packets sends exactly those
        // (after its opening packet), stays idle, and a later write continues the connection
        let mut s = session();
        s.retime_flow("tcp0", Some(f64::INFINITY), None).unwrap();
        s.run_before(1.0).unwrap();
        assert_eq!(s.probe("tcp0", "t_seqno_"), Some(0.0));
        s.set_data_flow("tcp0", 10).unwrap();
        // the opening packet leaves at once (ns-2's sendmsg calls send_much)
        assert_eq!(s.probe("tcp0", "t_seqno_"), Some(1.0));
        s.run_before(1.25).unwrap();
        assert_eq!(s.probe("tcp0", "ack_"), Some(10.0));
        assert_eq!(s.probe("tcp0", "t_seqno_"), Some(11.0));
        // slow start from windowInit_ 2, one more per new ACK; the opening packet's ACK too
        let cwnd = s.probe("tcp0", "cwnd_").unwrap();
        assert!(cwnd > 10.0, "{cwnd}");
        // idle for more than an RTO: ns-2's timer has closed cwnd_ to 1 (tcp.cc timeout())
        s.run_before(2.0).unwrap();
        assert_eq!(s.probe("tcp0", "cwnd_"), Some(1.0));
        s.set_data_flow("tcp0", 25).unwrap();
        assert_eq!(s.probe("tcp0", "t_seqno_"), Some(12.0)); // one packet out: cwnd_ 1
        s.run_before(2.03).unwrap();
        assert_eq!(s.probe("tcp0", "t_seqno_"), Some(12.0));
        s.run_before(3.0).unwrap();
        assert_eq!(s.probe("tcp0", "ack_"), Some(25.0));
        // a write that is already sent takes nothing back; a larger one goes on at once
        s.set_data_flow("tcp0", 20).unwrap();
        s.run_before(3.5).unwrap();
        assert_eq!(s.probe("tcp0", "ack_"), Some(25.0));
        s.set_data_flow("tcp0", 27).unwrap();
        s.run_before(3.6).unwrap();
        assert_eq!(s.probe("tcp0", "ack_"), Some(27.0));
        assert!(s.set_data_flow("udp1", 3).is_err());
        assert!(s.set_data_flow("nobody", 3).is_err());
        let r = s.finish().unwrap();
        let tcp: serde_json::Value =
            serde_json::from_str(r.flows[0].tcp.as_ref().unwrap().get()).unwrap();
        assert_eq!(tcp["segments_sent"], 27);
        assert_eq!(tcp["bytes_acked"], 27_000);
    }

    const RED_LINK: &str = r#"
duration = "6s"
[topology]
kind = "dumbbell"
pairs = 2
[links.access]
rate = "100Mbps"
delay = "1ms"
[links.bottleneck]
rate = "1Mbps"
delay = "20ms"
queue = { kind = "red", preset = "ns2", limit = "25p", byte_mode = false }
[[flows]]
name = "udp0"
src = "s0"
dst = "d0"
app = { kind = "cbr", rate = "2Mbps", packet_size = "1000B" }
"#;

    #[test]
    fn ns2_integrators_add_up_what_the_statistics_integrate() {
        let (l, a, b) = ("bottleneck", "r0", "r1");
        let mut picoseconds = Session::new(&RunRequest {
            text: RED_LINK,
            ..Default::default()
        })
        .expect("valid");
        assert_eq!(picoseconds.add_queue_integrators(l, a, b), None); // scripts' clock only
        let text = format!("clock = \"ns2\"\n{RED_LINK}");
        let mut s = Session::new(&RunRequest {
            text: &text,
            ..Default::default()
        })
        .expect("valid");
        assert_eq!(s.add_queue_integrators(l, "r9", b), None);
        let id = s.add_queue_integrators(l, a, b).unwrap();
        s.run_before(3.0).unwrap();
        let i = *s.queue_integrators(id).unwrap();
        let area = s.probe_queue(l, a, b, "pkts_sum_").unwrap();
        // the same integral (ns-2's in doubles, piece by piece; the report's in picoseconds)
        assert!((i.packets.sum - area).abs() < 1e-9 * area, "{i:?} {area}");
        assert!((i.bytes.sum - 1000.0 * area).abs() < 1e-9 * 1000.0 * area);
        assert!(i.packets.lastx > 2.9 && i.packets.lastx < 3.0);
        assert_eq!(i.packets.lasty, s.probe_queue(l, a, b, "pkts_").unwrap());
        // a script's reset: the sum goes on from zero
        s.queue_integrators(id).unwrap().packets.sum = 0.0;
        s.run_before(4.0).unwrap();
        let after = s.queue_integrators(id).unwrap().packets.sum;
        let more = s.probe_queue(l, a, b, "pkts_sum_").unwrap() - area;
        assert!(after > 0.0 && after < more + 25.0 * 0.1, "{after} {more}");
        assert_eq!(s.queue_integrators(id + 1).map(|_| ()), None);
    }

    #[test]
    fn queue_watches_record_each_change_average_first() {
        let mut s = Session::new(&RunRequest {
            text: RED_LINK,
            ..Default::default()
        })
        .expect("valid");
        let (l, a, b) = ("bottleneck", "r0", "r1");
        let (q, q0) = s.watch_queue(l, a, b, "curq_").unwrap();
        let (ave, _) = s.watch_queue(l, a, b, "ave_").unwrap();
        assert_eq!(q0, 0.0);
        assert_eq!(s.watch_queue(l, a, b, "nothing_"), None);
        s.run_before(1.0).unwrap();
        let changes = s.take_changes();
        let qs: Vec<f64> = changes.iter().filter(|c| c.1 == q).map(|c| c.2).collect();
        assert!(
            qs.len() > 10 && qs.windows(2).all(|w| w[0] != w[1]),
            "{qs:?}"
        );
        assert!(changes.windows(2).all(|w| w[0].0 <= w[1].0));
        // where both change at one instant, the average comes first (red.cc enque)
        for w in changes.windows(2) {
            if w[0].0 == w[1].0 && w[0].1 != w[1].1 {
                assert_eq!((w[0].1, w[1].1), (ave, q));
            }
        }
        assert!(s.take_changes().is_empty());
    }

    #[test]
    fn a_detached_receiver_gets_nothing_more() {
        assert!(session().detach("udp1", true).is_err()); // the scripts' clock only
        let text = format!("clock = \"ns2\"\n{TWO_FLOWS}");
        let mut s = Session::new(&RunRequest {
            text: &text,
            ..Default::default()
        })
        .expect("valid");
        s.run_before(2.0).unwrap();
        s.detach("udp1", true).unwrap();
        let got = s.probe("udp1", "bytes_").unwrap();
        let acked = s.probe("tcp0", "ack_").unwrap();
        s.detach("tcp0", false).unwrap();
        s.run_before(4.0).unwrap();
        assert_eq!(s.probe("udp1", "bytes_").unwrap(), got);
        // the sender gets no ACK any more, though its receiver still sends them
        assert_eq!(s.probe("tcp0", "ack_").unwrap(), acked);
        assert!(s.detach("nobody", true).is_err());
    }

    #[test]
    fn a_detached_sender_sends_nothing_more() {
        let text = format!("clock = \"ns2\"\n{TWO_FLOWS}");
        let mut s = Session::new(&RunRequest {
            text: &text,
            ..Default::default()
        })
        .expect("valid");
        s.run_before(2.0).unwrap();
        s.detach("udp1", false).unwrap();
        s.run_before(2.5).unwrap(); // what was on the way arrives
        let got = s.probe("udp1", "bytes_").unwrap();
        assert!(got > 0.0);
        s.run_before(4.0).unwrap();
        assert_eq!(s.probe("udp1", "bytes_").unwrap(), got);
    }

    #[test]
    fn queue_variables_follow_the_run() {
        let mut s = Session::new(&RunRequest {
            text: RED_LINK,
            ..Default::default()
        })
        .expect("valid");
        let (l, a, b) = ("bottleneck", "r0", "r1");
        assert_eq!(s.probe_queue(l, a, b, "pkts_"), Some(0.0));
        assert_eq!(s.probe_queue(l, a, b, "ave_"), Some(0.0));
        let mut last_arrivals = 0.0;
        for t in [1.0, 2.0, 3.0, 4.0, 5.0] {
            s.run_before(t).unwrap();
            let q = |v| s.probe_queue(l, a, b, v).unwrap();
            let (arr, dep, drops) = (q("parrivals_"), q("pdepartures_"), q("pdrops_"));
            // conservation: every arrival left, was dropped, waits, or is on the wire
            let held = arr - dep - drops - q("pkts_");
            assert!(
                (0.0..=1.0).contains(&held),
                "t {t}: {arr} {dep} {drops} {held}"
            );
            assert!(arr > last_arrivals);
            last_arrivals = arr;
            assert_eq!(q("barrivals_"), arr * 1000.0);
            assert_eq!(q("size_"), q("pkts_") * 1000.0);
            assert_eq!(q("bdrops_"), drops * 1000.0);
            assert_eq!(q("bdepartures_"), dep * 1000.0);
            let (area, bytes_area) = (q("pkts_sum_"), q("bytes_sum_"));
            assert!(area > 0.0 && area <= 25.0 * t, "{area}");
            assert!((bytes_area - area * 1000.0).abs() < 1e-6 * bytes_area);
            // twice the link's rate: RED keeps its average near its thresholds, drops
            let ave = q("ave_");
            assert!(ave > 1.0 && ave < 25.0, "ave {ave}");
            assert!((0.0..=25.0).contains(&q("curq_")));
            assert!(drops > 0.0);
        }
        // the reverse direction carries nothing; DropTail keeps no average
        assert_eq!(s.probe_queue(l, b, a, "parrivals_"), Some(0.0));
        assert_eq!(s.probe_queue("access_s0", "s0", "r0", "ave_"), None);
        assert_eq!(s.probe_queue(l, a, b, "nothing_"), None);
        assert_eq!(s.probe_queue(l, a, "s0", "pkts_"), None);
    }
}
