//! The results of a run, as one serialisable value (the JSON of `bufferlab run --json`,
//! documented in docs/results-json.md). Rates are measured over each flow's active window:
//! from max(start, warm-up) to min(stop, end of run).

use crate::monitor::fairness::{jain, mean_std, Fairness};
use crate::sim::Simulation;
use crate::units::SimTime;
use serde::Serialize;
use std::collections::BTreeMap;

mod stream;
pub use stream::Streamed;

#[derive(Debug, Clone, Serialize)]
pub struct FlowReport {
    pub name: String,
    pub src: String,
    pub dst: String,
    pub protocol: &'static str,
    pub app: &'static str,
    /// Bytes on the wire of a full data packet (TCP: the resolved segment with its headers).
    pub packet_size: u64,
    pub start_s: f64,
    pub stop_s: f64,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub rx_packets: u64,
    pub rx_bytes: u64,
    pub lost_packets: u64,
    pub lost_bytes: u64,
    pub in_flight_packets: u64,
    pub drops_by_location: BTreeMap<String, BTreeMap<&'static str, u64>>,
    pub throughput_bps: f64,
    pub goodput_bps: f64,
    pub delay_mean_s: Option<f64>,
    pub delay_p50_s: Option<f64>,
    pub delay_p95_s: Option<f64>,
    pub delay_p99_s: Option<f64>,
    pub delay_max_s: Option<f64>,
    pub jitter_s: Option<f64>,
    pub reverse_tx_packets: u64,
    pub reverse_lost_packets: u64,
    /// The sender's TCP section, already serialised (compact JSON, as `serde_json::to_string`
    /// of the `Value` would write it inside the report): a few hundred bytes a flow, where the
    /// `Value`'s map of strings held 4.3 KB and was the largest part of the memory peak at
    /// 10 000 flows (docs/performance.md). [`FlowReport::tcp_json`] parses it back.
    pub tcp: Option<Box<serde_json::value::RawValue>>,
}

impl FlowReport {
    /// The TCP section as a JSON value, if the flow is TCP.
    pub fn tcp_json(&self) -> Option<serde_json::Value> {
        self.tcp
            .as_ref()
            .map(|raw| serde_json::from_str(raw.get()).expect("the report wrote valid JSON"))
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct QueueReport {
    pub link: String,
    pub from: String,
    pub to: String,
    pub discipline: &'static str,
    pub arrivals: u64,
    pub departures: u64,
    pub drops: u64,
    pub early_drops: u64,
    pub drops_by_reason: BTreeMap<&'static str, u64>,
    pub marks: u64,
    pub avg_packets: f64,
    pub avg_bytes: f64,
    pub max_packets: u64,
    pub max_bytes: u64,
    pub sojourn_mean_s: Option<f64>,
    pub sojourn_p99_s: Option<f64>,
    pub sojourn_max_s: Option<f64>,
    /// Per-class counters of a class-based queue.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub classes: Option<serde_json::Value>,
    /// The queue's limit as given, when given in BDP or time (`"1BDP"`, `"20ms"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit_given: Option<String>,
    /// That limit as sized for this link (`"29p"`, `"43750B"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LinkReport {
    pub link: String,
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    pub delay_s: f64,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub utilisation: f64,
    pub lost_packets: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct QueueSeriesReport {
    pub link: String,
    pub from: String,
    pub to: String,
    pub t_s: Vec<f64>,
    pub packets: Vec<u32>,
    pub bytes: Vec<u64>,
    pub average: Vec<Option<f64>>,
    /// The unit of `average`: "packets", or "bytes" for a discipline that averages bytes (RED
    /// in byte mode). Absent when the discipline keeps no average.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub average_unit: Option<&'static str>,
}

/// One flow's series (`monitor.flow_interval`): counts and rates in each interval ending at
/// `t_s`.
#[derive(Debug, Clone, Serialize)]
pub struct FlowSeriesReport {
    pub flow: String,
    pub interval_s: f64,
    pub t_s: Vec<f64>,
    pub tx_packets: Vec<u64>,
    pub rx_packets: Vec<u64>,
    pub lost_packets: Vec<u64>,
    pub acks_received: Vec<u64>,
    pub throughput_bps: Vec<f64>,
    pub goodput_bps: Vec<f64>,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct SeriesReport {
    pub queues: Vec<QueueSeriesReport>,
    /// TCP senders' series (`monitor.cwnd_interval`): `flow`, `t_s`, `cwnd_bytes`,
    /// `ssthresh_bytes`, `rwnd_bytes`, `srtt_s`, `rtt_s`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tcp: Vec<serde_json::Value>,
    /// Per-flow series (`monitor.flow_interval`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<FlowSeriesReport>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub bufferlab_version: &'static str,
    pub scenario: String,
    pub seed: u64,
    pub sim_time_s: f64,
    /// Where every counter, rate, delay and histogram of the report starts (the scenario's
    /// `warmup`): the measured interval is `warmup_s` to `sim_time_s`.
    pub warmup_s: f64,
    pub events: u64,
    pub wall_s: f64,
    /// True when the run was stopped before its end time.
    pub partial: bool,
    pub flows: Vec<FlowReport>,
    pub queues: Vec<QueueReport>,
    pub links: Vec<LinkReport>,
    pub fairness: Fairness,
    pub series: SeriesReport,
    /// Flow completion times of the finite transfers (`monitor/fct.rs`): each flow's FCT,
    /// ideal FCT and slowdown, and their summaries by size bucket. Absent when the scenario
    /// has no finite transfer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fct: Option<crate::monitor::fct::FctReport>,
    /// Settings that make a component act unlike its name (RED with its limit below
    /// max_th, ...), each naming the link and the fix. Absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Why the run stopped before its end when a limit stopped it (`max_wall`, `max_memory`,
    /// `stalled`, with a message); the report is then `partial`. Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<crate::guard::Stop>,
    /// The shared buffers of the scenario's switches (`net/shared_buffer`): occupancy, drops
    /// by reason per queue, and the series of the occupancy and of each queue's threshold.
    /// Absent when the scenario has no switch.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub switches: Vec<crate::net::shared_buffer::pool::PoolReport>,
}

impl Report {
    /// Reads the results out of a finished simulation (or one stopped early: then `partial`)
    /// and frees it as it goes: each port's sojourn histogram as its queue entry is made, each
    /// flow's endpoints and delay histogram as its entry is made, so that the report and the
    /// run's state are not both held whole at the memory peak (docs/performance.md, "What a
    /// flow holds").
    pub fn from_sim(mut sim: Simulation, fairness_flows: Option<&[String]>) -> Report {
        Self::read(&mut sim, fairness_flows, true)
    }

    /// The report of a simulation that goes on (`Session::report_now`): what it has measured
    /// up to now, without freeing anything.
    pub fn snapshot(sim: &mut Simulation, fairness_flows: Option<&[String]>) -> Report {
        Self::read(sim, fairness_flows, false)
    }

    fn read(sim: &mut Simulation, fairness_flows: Option<&[String]>, last: bool) -> Report {
        assert!(!sim.reported, "a simulation is reported once");
        sim.reported = last;
        let now = sim.now;
        // What reads the endpoints and ports as a whole comes first, before they are freed;
        // none of it reads what the entries below change (the queues' statistics).
        let series = series_report(sim, now);
        let fct = fct_report(sim);
        let warnings = crate::resolved::warnings(sim);
        let fairness = fairness(sim, fairness_flows);
        // The queues and links before the flows: a queue entry is about the size of the
        // sojourn histogram it frees, and a flow entry smaller than the endpoints it frees.
        let queues: Vec<QueueReport> = (0..sim.ports.len())
            .map(|i| queue_entry(sim, i, last))
            .collect();
        let links: Vec<LinkReport> = (0..sim.ports.len()).map(|i| link_entry(sim, i)).collect();
        let flows: Vec<FlowReport> = (0..sim.flows.len())
            .map(|i| flow_entry(sim, i, last))
            .collect();
        Report {
            bufferlab_version: crate::VERSION,
            scenario: sim.name.clone(),
            seed: sim.seed,
            sim_time_s: now.as_secs_f64(),
            warmup_s: sim.warmup.as_secs_f64(),
            events: sim.events,
            wall_s: 0.0,
            partial: now < sim.end,
            flows,
            queues,
            links,
            fairness,
            series,
            fct,
            warnings,
            stopped: sim.stopped.clone(),
            switches: sim
                .shared_buffers
                .iter()
                .map(|p| p.borrow_mut().report(now))
                .collect(),
        }
    }
}

/// An endpoint whose flow has been reported: what stands in the agents' table for the
/// sender and receiver freed by [`Report::from_sim`] (the simulation runs no further).
struct Reported;

impl crate::endpoint::Endpoint for Reported {
    fn on_packet(&mut self, _pkt: crate::packet::Packet, _cx: &mut crate::endpoint::EndpointCtx) {
        unreachable!("a reported simulation runs no further")
    }
    fn on_timeout(&mut self, _cx: &mut crate::endpoint::EndpointCtx) {
        unreachable!("a reported simulation runs no further")
    }
    fn next_timeout(&self) -> Option<SimTime> {
        None
    }
}

/// A flow's rate of `bytes` over its active window: from max(start, warm-up) to min(stop,
/// end of run).
fn rate_bps(sim: &Simulation, f: &crate::sim::Flow, bytes: u64) -> f64 {
    let from = f.start.max(sim.warmup);
    let to = f.stop.min(sim.now);
    let window = to.saturating_sub(from).as_secs_f64();
    if window > 0.0 {
        bytes as f64 * 8.0 / window
    } else {
        0.0
    }
}

/// Jain's index and the mean and spread of the throughputs of the flows named (all flows
/// when None).
fn fairness(sim: &Simulation, fairness_flows: Option<&[String]>) -> Fairness {
    let chosen: Vec<&crate::sim::Flow> = match fairness_flows {
        Some(names) => sim
            .flows
            .iter()
            .filter(|f| names.contains(&f.name))
            .collect(),
        None => sim.flows.iter().collect(),
    };
    let thr: Vec<f64> = chosen
        .iter()
        .map(|f| rate_bps(sim, f, f.stats.rx_bytes))
        .collect();
    let ms = mean_std(&thr);
    Fairness {
        flows: chosen.iter().map(|f| f.name.clone()).collect(),
        jain: jain(&thr),
        throughput_mean_bps: ms.map(|m| m.0),
        throughput_std_bps: ms.map(|m| m.1),
    }
}

/// Flow `i`'s entry; when `last`, its endpoints and delay histogram are freed once read.
fn flow_entry(sim: &mut Simulation, i: usize, last: bool) -> FlowReport {
    let node = |n: crate::ids::NodeId| sim.nodes[n.idx()].name.clone();
    let f = &sim.flows[i];
    let st = &f.stats;
    let rate = |bytes: u64| rate_bps(sim, f, bytes);
    let mut drops: BTreeMap<String, BTreeMap<&'static str, u64>> = BTreeMap::new();
    for &(p, r, n) in &st.drops {
        *drops
            .entry(sim.link_name(p))
            .or_default()
            .entry(r.as_str())
            .or_default() += n;
    }
    let entry = FlowReport {
        name: f.name.clone(),
        src: node(f.src),
        dst: node(f.dst),
        protocol: f.protocol.as_str(),
        app: f.app,
        packet_size: f.packet_size,
        start_s: f.start.as_secs_f64(),
        stop_s: f.stop.as_secs_f64(),
        tx_packets: st.tx_packets,
        tx_bytes: st.tx_bytes,
        rx_packets: st.rx_packets,
        rx_bytes: st.rx_bytes,
        lost_packets: st.lost_packets,
        lost_bytes: st.lost_bytes,
        in_flight_packets: st.tx_packets - st.rx_packets - st.lost_packets,
        drops_by_location: drops,
        throughput_bps: rate(st.rx_bytes),
        goodput_bps: rate(st.goodput_bytes),
        delay_mean_s: st.delay_mean_s(),
        delay_p50_s: st.delay_quantile_s(0.5),
        delay_p95_s: st.delay_quantile_s(0.95),
        delay_p99_s: st.delay_quantile_s(0.99),
        delay_max_s: st.delay_max_s(),
        jitter_s: st.jitter_s(),
        reverse_tx_packets: st.reverse_tx_packets,
        reverse_lost_packets: st.reverse_lost_packets,
        tcp: sim.agents[f.sender.idx()]
            .ep
            .report()
            .map(|v| serde_json::value::to_raw_value(&v).expect("a JSON value serialises")),
    };
    if last {
        let (s, r) = (f.sender.idx(), f.receiver.idx());
        sim.flows[i].stats.release_delays();
        sim.agents[s].ep = Box::new(Reported);
        sim.agents[r].ep = Box::new(Reported);
    }
    entry
}

/// Port `i`'s queue entry; when `last`, its sojourn histogram is freed once read.
fn queue_entry(sim: &mut Simulation, i: usize, last: bool) -> QueueReport {
    let now = sim.now;
    let node = |n: crate::ids::NodeId| sim.nodes[n.idx()].name.clone();
    let (link, from, to) = {
        let p = &sim.ports[i];
        (
            sim.links[p.link().idx()].name.clone(),
            node(p.from()),
            node(p.to()),
        )
    };
    let sized = sim
        .notes
        .sized_limits
        .iter()
        .find(|l| l.top && l.port == i as u32)
        .map(|l| (l.given.clone(), l.resolved.clone()));
    let p = &mut sim.ports[i];
    let discipline = p.queue().disc().kind();
    let classes = p.queue().disc().class_stats(now.max(sim.warmup));
    let stats = p.stats_mut();
    let (avg_p, avg_b) = stats.averages(now.max(sim.warmup));
    let by_reason: BTreeMap<&'static str, u64> = crate::qdisc::DropReason::ALL
        .iter()
        .filter(|&&r| stats.drops(r) > 0)
        .map(|&r| (r.as_str(), stats.drops(r)))
        .collect();
    let early = crate::qdisc::DropReason::ALL
        .iter()
        .filter(|r| r.is_early())
        .map(|&r| stats.drops(r))
        .sum();
    let entry = QueueReport {
        link,
        from,
        to,
        discipline,
        arrivals: stats.arrivals,
        departures: stats.departures,
        drops: stats.total_drops(),
        early_drops: early,
        drops_by_reason: by_reason,
        marks: stats.marks,
        avg_packets: avg_p,
        avg_bytes: avg_b,
        max_packets: stats.max_packets,
        max_bytes: stats.max_bytes,
        sojourn_mean_s: stats.sojourn_mean_s(),
        sojourn_p99_s: stats.sojourn_quantile_s(0.99),
        sojourn_max_s: stats.sojourn_max_s(),
        classes,
        limit_given: sized.as_ref().map(|l| l.0.clone()),
        limit: sized.map(|l| l.1),
    };
    if last {
        stats.release_sojourns();
    }
    entry
}

/// Port `i`'s link entry.
fn link_entry(sim: &Simulation, i: usize) -> LinkReport {
    let now = sim.now;
    let measured = now.saturating_sub(sim.warmup).as_secs_f64();
    let p = &sim.ports[i];
    let busy = p.busy_time_until(now);
    let util = if measured > 0.0 {
        // The share of time the link was serialising (exact, in picoseconds).
        busy.as_secs_f64() / measured
    } else {
        0.0
    };
    LinkReport {
        link: sim.links[p.link().idx()].name.clone(),
        from: sim.nodes[p.from().idx()].name.clone(),
        to: sim.nodes[p.to().idx()].name.clone(),
        rate_bps: p.rate().bps(),
        delay_s: p.delay().as_secs_f64(),
        tx_packets: p.tx_packets(),
        tx_bytes: p.tx_bytes(),
        utilisation: util,
        lost_packets: p.lost_packets(),
    }
}

/// The queue, TCP and per-flow time series.
fn series_report(sim: &Simulation, now: SimTime) -> SeriesReport {
    let node = |n: crate::ids::NodeId| sim.nodes[n.idx()].name.clone();
    SeriesReport {
        queues: sim
            .series
            .iter()
            .map(|s| {
                let p = &sim.ports[s.port.idx()];
                QueueSeriesReport {
                    link: sim.links[p.link().idx()].name.clone(),
                    from: node(p.from()),
                    to: node(p.to()),
                    t_s: s.t_s.clone(),
                    packets: s.packets.clone(),
                    bytes: s.bytes.clone(),
                    average: s.average.clone(),
                    average_unit: s
                        .average
                        .iter()
                        .any(Option::is_some)
                        .then_some(s.average_unit),
                }
            })
            .collect(),
        tcp: sim
            .flows
            .iter()
            .filter_map(|f| {
                let mut v = sim.agents[f.sender.idx()].ep.series(now)?;
                if let Some(o) = v.as_object_mut() {
                    o.insert("flow".into(), serde_json::Value::from(f.name.clone()));
                }
                Some(v)
            })
            .collect(),
        flows: sim
            .flow_series
            .as_ref()
            .map(|set| {
                set.series
                    .iter()
                    .map(|s| FlowSeriesReport {
                        flow: sim.flows[s.flow].name.clone(),
                        interval_s: set.interval.as_secs_f64(),
                        t_s: s.t_s.clone(),
                        tx_packets: s.tx_packets.clone(),
                        rx_packets: s.rx_packets.clone(),
                        lost_packets: s.lost_packets.clone(),
                        acks_received: s.acks_received.clone(),
                        throughput_bps: s.throughput_bps.clone(),
                        goodput_bps: s.goodput_bps.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// The flow completion times of the simulation's finite transfers that start after the
/// warm-up, each with its ideal FCT over its routed paths (`monitor/fct.rs`); None when it
/// has none.
fn fct_report(sim: &Simulation) -> Option<crate::monitor::fct::FctReport> {
    use crate::ids::{FlowId, NodeId, PortId};
    use crate::monitor::fct::{ideal_fct, summarise, FctRecord, PathHop};
    use crate::net::ecmp::FlowKey;
    let port_to = |pid: PortId| sim.ports[pid.idx()].to();
    let routes_of = |n: NodeId| &sim.nodes[n.idx()].routes;
    // the path the flow's packets take (with ECMP, the one its 5-tuple hashes to)
    let hops = |k: &FlowKey| -> Vec<PathHop> {
        crate::net::routing::path_by(&routes_of, &port_to, sim.nodes.len(), k)
            .unwrap_or_default()
            .iter()
            .map(|&pid| {
                let p = &sim.ports[pid.idx()];
                PathHop {
                    rate_bps: p.rate().bps(),
                    delay: p.delay(),
                    overhead: p.overhead(),
                }
            })
            .collect()
    };
    let mut any = false;
    let mut records = Vec::new();
    let mut of_query = Vec::new();
    for (i, f) in sim.flows.iter().enumerate() {
        let Some(t) = sim.agents[f.sender.idx()].ep.finite_transfer() else {
            continue;
        };
        any = true;
        if f.start < sim.warmup {
            continue;
        }
        let key = FlowKey::new(f.src, f.dst, FlowId(i as u32), true);
        let ideal = ideal_fct(t.bytes, t.wire, &hops(&key), &hops(&key.reversed()));
        records.push(FctRecord::new(f.name.clone(), &t, f.start, ideal));
        of_query.push(f.query.as_deref());
    }
    any.then(|| {
        let queries = crate::monitor::fct::queries(&records, &of_query);
        let mut r = summarise(records, &sim.fct_edges);
        r.qct = crate::monitor::fct::qct_summary(&queries);
        r.queries = queries;
        r
    })
}

/// Convenience for tests and benches: the simulated time as seconds.
pub fn secs(t: SimTime) -> f64 {
    t.as_secs_f64()
}
