//! The scenario file format (TOML), as serde types. Unknown keys are rejected everywhere.
//! Every default is written next to its field with the source it comes from.
//! The JSON Schema (`bufferlab schema`) is generated from these types.

use crate::clock::EventClock;
use crate::packet::Protocol;

use crate::net::loss::LossConfig;
use crate::ns2_rng::Ns2RngConfig;
use crate::qdisc::QueueConfig;
use crate::traffic::{AppConfig, Distribution};
use crate::units::{Bytes, Rate, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A whole scenario: a topology, its links, the flows over it and what to measure.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A short name, shown in results.
    #[serde(default = "default_name")]
    pub name: String,
    /// Free text describing the scenario.
    #[serde(default)]
    pub description: String,
    /// Simulated time to run.
    pub duration: SimTime,
    /// Root seed of every random stream (default 1). `--seed` overrides it.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Statistics leave out packets created, and queue events happening, before this time (default 0).
    #[serde(default)]
    pub warmup: SimTime,
    pub topology: TopologyConfig,
    /// Links by name. Topology builders read their templates here (a dumbbell reads
    /// `bottleneck` and `access`; a chain `hop` and `side`); custom topologies list every link.
    #[serde(default)]
    pub links: BTreeMap<String, LinkConfig>,
    /// Shared-buffer switches by node name (`net/shared_buffer`): the output ports of node
    /// NAME queue in one buffer pool admitted by a policy (complete sharing, static
    /// thresholds, Dynamic Threshold), e.g. `[switches.tor] buffer = "200p", policy =
    /// "dynamic_threshold", alpha = 1.0`. The links' own queues then apply only to the other
    /// ports.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub switches: BTreeMap<String, crate::net::shared_buffer::config::SwitchConfig>,
    /// How nodes choose among equal-cost shortest paths (`net/ecmp.rs`), e.g. `[routing]
    /// multipath = "ecmp"`. Default: ECMP in the leaf-spine and fat-tree builders, a single
    /// path (ties broken by port order, as ns-2's static routing) everywhere else.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routing: Option<RoutingConfig>,
    #[serde(default)]
    pub flows: Vec<FlowConfig>,
    /// Workloads (`scenario/workloads.rs`): Poisson arrivals of flows with sizes from an
    /// empirical CDF at a target load (`kind = "poisson"`), or incast queries (`kind =
    /// "incast"`), turned into finite transfers added to `flows`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workloads: Vec<super::workloads::WorkloadConfig>,
    #[serde(default)]
    pub monitor: MonitorConfig,
    #[serde(default)]
    pub fairness: FairnessConfig,
    /// How the flow completion times of finite transfers are summarised in the report
    /// (`monitor/fct.rs`): `[fct] buckets = ["100KB", "1MB"]`, the upper edges of the size
    /// buckets (the default).
    #[serde(default)]
    pub fct: crate::monitor::fct::FctConfig,
    /// Follow ns-2's one default RNG (`ns2_rng.rs`): RED's and PI's early-drop tests,
    /// Bernoulli loss models, CBR's `random` jitter and ns-2's on/off sources all draw from it
    /// in the order events run, as ns-2.35's `Random::uniform()` does, e.g. `ns2_default_rng =
    /// { seed = 1 }`. `bufferlab run script.tcl` sets it to where the script's `$defaultRNG`
    /// stands at `$ns run`. A run
    /// with another seed than `seed` (`--seed`, a sweep's replications) starts it as
    /// `$defaultRNG seed N` with N = 1 + (that seed mod 2147483646). Unset (the default):
    /// every component draws from its own stream of `seed`.
    #[serde(default)]
    pub ns2_default_rng: Option<Ns2RngConfig>,
    /// What orders events that fall at one instant (`clock.rs`): `picoseconds` (the
    /// default: integer picoseconds, ties in the order they were scheduled), or `ns2`:
    /// ns-2.35's double seconds, each event at `now + delay` added in doubles as ns-2 adds
    /// them, so that events simultaneous on paper run in ns-2's order (a packet reaching a
    /// queue as the one ahead leaves it). `bufferlab run script.tcl` and `import-ns2` set it.
    #[serde(default)]
    pub clock: EventClock,
    /// Queue limits given as a multiple of the BDP or as a time (`"0.5BDP"`, `"20ms"`), taken
    /// out of the queue tables when parsing and sized when building (`scenario/limits.rs`).
    #[serde(skip)]
    pub deferred_limits: super::limits::Deferred,
    /// The folder the files a scenario names (links' traces) are read from, and must stay
    /// inside: the scenario file's (`api::RunRequest::base_dir`); None: the working folder.
    #[serde(skip)]
    pub base_dir: Option<std::path::PathBuf>,
}

fn default_name() -> String {
    "scenario".into()
}
fn default_seed() -> u64 {
    1
}

/// Routing over equal-cost paths.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoutingConfig {
    /// `ecmp`: a node keeps every next hop on a shortest path (hop count) and sends each flow
    /// down the one a hash of its 5-tuple picks (RFC 2992 hash-threshold over Linux's L4
    /// `fib_multipath_hash`), so a flow keeps one path and flows spread; `random_packet`:
    /// ns-3's rule (`Ipv4GlobalRouting` with `RandomEcmpRouting` true, ns-3.44 `LookupGlobal`),
    /// every packet at every node draws one of the equal-cost next hops uniformly from the
    /// node's own seeded stream, so load spreads evenly and a flow's packets are reordered;
    /// `none`: one path, ties broken by port order (ns-2's static routing, ns-3's global
    /// routing without `RandomEcmpRouting`). Default: `ecmp` for `leaf_spine` and
    /// `fat_tree`, else `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multipath: Option<Multipath>,
    /// Seed of the routers' hash secrets (default: drawn from the run's seed, so that
    /// replications place flows on other paths, as routers booted with other secrets would).
    /// Only with `multipath = "ecmp"`: `random_packet` draws from the run's seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash_seed: Option<u64>,
}

/// Whether equal-cost paths are all used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Multipath {
    /// One path per destination: the first equal-cost next hop in port order.
    None,
    /// Every equal-cost next hop, one per flow by a hash of its 5-tuple.
    Ecmp,
    /// Every equal-cost next hop, one per packet by a uniform draw (ns-3's
    /// `RandomEcmpRouting`).
    RandomPacket,
}

/// How the nodes are connected.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TopologyConfig {
    /// N senders s0..s{N-1} -> router r0 -> bottleneck -> router r1 -> receivers d0..d{N-1}.
    /// Links: `access_s{i}` (s_i-r0) and `access_d{i}` (r1-d_i) from the `access` template,
    /// and `bottleneck` (r0-r1).
    Dumbbell {
        /// Number of sender/receiver pairs.
        pairs: u32,
        /// One-way propagation delay of each sender's access link (overrides `links.access.delay`);
        /// one entry per sender, to give flows different RTTs.
        #[serde(default)]
        sender_delays: Option<Vec<SimTime>>,
        /// Same for the receivers' access links.
        #[serde(default)]
        receiver_delays: Option<Vec<SimTime>>,
    },
    /// A multihop chain n0 - n1 - ... - n{hops}; links `hop{i}` (n_i - n_{i+1}) from the `hop`
    /// template. With `side_nodes`, each inner node n_i also gets a side node x_i on link
    /// `side{i}` (from the `side` template) for background traffic.
    Chain {
        /// Number of links in the chain: nodes n0..n{hops}.
        hops: u32,
        /// Give each inner node n_i a side node x_i (link `side{i}`) for cross traffic.
        #[serde(default)]
        side_nodes: bool,
    },
    /// Routers r0 - ... - r{hops} on bottleneck links `hop{i}` (from the `hop` template); a long
    /// path from host `ls` (on r0) to host `ld` (on r{hops}) crosses every hop, and hosts
    /// `cs{i}` (on r_i) and `cd{i}` (on r_{i+1}) give hop i its own cross traffic. Host links
    /// `access_ls`, `access_ld`, `access_cs{i}`, `access_cd{i}` come from the `access` template
    /// (Floyd and Jacobson, ACM CCR 21(5), 1991).
    ParkingLot {
        /// Number of bottleneck links: routers r0..r{hops}.
        hops: u32,
    },
    /// A two-tier Clos fabric: leaves `leaf{l}`, each with hosts `h{l}_{i}`, and spines
    /// `spine{s}`, every leaf joined to every spine. Links `host{l}_{i}` (host to leaf) from
    /// the `host` template and `fabric{l}_{s}` (leaf to spine) from the `fabric` template.
    /// Routing is ECMP unless `[routing] multipath = "none"`.
    LeafSpine {
        /// Number of leaf (top-of-rack) switches.
        leaves: u32,
        /// Number of spine switches: the equal-cost paths between two leaves.
        spines: u32,
        /// Hosts under each leaf.
        hosts_per_leaf: u32,
        /// The hosts' capacity over the uplinks' capacity at a leaf, hosts_per_leaf x host
        /// rate / (spines x fabric rate): 1 is non-blocking, 3 is 3:1. Given without
        /// `links.fabric.rate`, that rate is derived from it; given with it, the two must agree.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        oversubscription: Option<f64>,
    },
    /// The k-ary fat-tree of Al-Fares et al. (SIGCOMM 2008): k pods of k/2 edge switches
    /// `edge{p}_{e}` and k/2 aggregation switches `agg{p}_{a}`, (k/2)^2 core switches
    /// `core{c}`, k^3/4 hosts `h{p}_{e}_{i}`. Links `host{p}_{e}_{i}`, `edge_agg{p}_{e}_{a}`
    /// and `agg_core{p}_{a}_{j}` from the `host`, `edge_agg` and `agg_core` templates.
    /// Routing is ECMP unless `[routing] multipath = "none"`.
    FatTree {
        /// Ports per switch and number of pods (even, at least 2).
        k: u32,
    },
    /// Nodes by name; every link in `links` names its two ends with `between`.
    Custom {
        /// The node names, used by links' `between` and flows' `src`/`dst`.
        nodes: Vec<String>,
    },
}

/// A duplex link. Missing fields come from the topology's template (for example `access_s3`
/// falls back to `access`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// The two nodes it joins (custom topologies only); the forward direction is from the first to the second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between: Option<[String; 2]>,
    /// Capacity of each direction (or give `trace` or `rate_schedule` instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// A Mahimahi packet-delivery trace giving the capacity of both directions (unless
    /// `reverse_trace` or `reverse_rate_schedule` is given): a file, relative to the scenario
    /// file's folder and inside it, with one line per 1504-byte delivery opportunity (a whole
    /// number of milliseconds), looping at its last timestamp (mahimahi `link_queue.cc`;
    /// docs/models/trace_links.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// A Mahimahi trace for the reverse direction (second node to first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_trace: Option<String>,
    /// A rate that changes over time, `[["0s", "10Mbps"], ["5s", "2Mbps"], ...]`: each rate
    /// from its time to the next entry's, the last to the end of the run; the first entry at
    /// "0s". Both directions unless a reverse capacity is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_schedule: Option<Vec<(SimTime, Rate)>>,
    /// A rate schedule for the reverse direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_rate_schedule: Option<Vec<(SimTime, Rate)>>,
    /// One-way propagation delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<SimTime>,
    /// Link-layer framing added to every packet's serialisation time, not to its size in the
    /// queue (default 0; ns-3's point-to-point devices add a 2-byte PPP header,
    /// `PointToPointNetDevice::AddHeader`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<Bytes>,
    /// Packets held by a device queue between the queue discipline and the wire, in both
    /// directions (default 0: the discipline feeds the wire directly). ns-3 puts the queue disc
    /// above a `PointToPointNetDevice` `TxQueue` and moves a packet down as soon as that queue has
    /// room (traffic-control flow control); the disc's limit, drops and sojourn times then
    /// exclude the packets below it. ns-3 comparisons use 1 (`MaxSize = 1p`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_queue: Option<u32>,
    /// Queue discipline of both output ports (default: DropTail, 100 packets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueConfig>,
    /// Queue of the reverse direction (second node to first) when it differs from `queue`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_queue: Option<QueueConfig>,
    /// Random loss on the forward direction (first node to second).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossConfig>,
    /// Random loss on the reverse direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_loss: Option<LossConfig>,
}

impl LinkConfig {
    /// Whether this table says anything of the link's capacity.
    pub fn gives_capacity(&self) -> bool {
        self.rate.is_some()
            || self.trace.is_some()
            || self.reverse_trace.is_some()
            || self.rate_schedule.is_some()
            || self.reverse_rate_schedule.is_some()
    }

    /// Fields of `self`, falling back to `template` where missing.
    pub fn over(&self, template: &LinkConfig) -> LinkConfig {
        let capacity = if self.gives_capacity() {
            self
        } else {
            template
        };
        LinkConfig {
            between: self.between.clone().or_else(|| template.between.clone()),
            // the capacity is one choice: the link's own (rate, trace or schedule, either
            // direction), else the template's
            rate: capacity.rate,
            trace: capacity.trace.clone(),
            reverse_trace: capacity.reverse_trace.clone(),
            rate_schedule: capacity.rate_schedule.clone(),
            reverse_rate_schedule: capacity.reverse_rate_schedule.clone(),
            delay: self.delay.or(template.delay),
            overhead: self.overhead.or(template.overhead),
            device_queue: self.device_queue.or(template.device_queue),
            queue: self.queue.clone().or_else(|| template.queue.clone()),
            reverse_queue: self
                .reverse_queue
                .clone()
                .or_else(|| template.reverse_queue.clone()),
            loss: self.loss.clone().or_else(|| template.loss.clone()),
            reverse_loss: self
                .reverse_loss
                .clone()
                .or_else(|| template.reverse_loss.clone()),
        }
    }
}

/// A flow: traffic from `src` to `dst`. With `count`, the entry stands for `count` flows and
/// `{i}` in `name`, `src` and `dst` is replaced by 0..count-1.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    /// Name in results (default "flow{n}", n the position after expansion).
    #[serde(default)]
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    /// Repeat this entry `count` times, substituting `{i}`.
    #[serde(default)]
    pub count: Option<u32>,
    /// Transport (default: udp for cbr/poisson/onoff, tcp for bulk/transfer/web). `tcp` on a
    /// cbr, poisson or onoff flow writes each emission into a TCP connection (on/off TCP).
    #[serde(default)]
    pub protocol: Option<Protocol>,
    /// When the application starts (default 0): a time (`"1s"`), or a random time drawn for each
    /// flow from the run's seed (`{ kind = "uniform", min = "0s", max = "1s" }`,
    /// `{ kind = "exponential", mean = "200ms" }`, any random duration), as ns-2 and ns-3 scripts
    /// jitter start times: deterministic TCP scenarios then differ from one replication to the
    /// next.
    #[serde(default)]
    pub start: StartTime,
    /// The start in ns-2's double seconds, where a script's arithmetic gave a time that whole
    /// picoseconds do not hold (`0.1 * 7` is 0.7000000000000001): under `clock = "ns2"` the
    /// flow's first event is keyed at it and a CBR source's sums start from it. It must round
    /// to `start`. `bufferlab run script.tcl` and `import-ns2` write it where it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns2_start_s: Option<f64>,
    /// Among flows that start at the same instant, the order in which they start (lower
    /// first; default: the flow's index). ns-2 runs the `$ns at T "$app start"` events of
    /// one instant in the order the script scheduled them (scheduler.cc: FIFO among equal
    /// times), so the first packets of flows started together leave in that order;
    /// `bufferlab run script.tcl` and `import-ns2` write it where that order is not the
    /// flows' own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_order: Option<u32>,
    /// When it stops sending (default: the end of the run).
    #[serde(default)]
    pub stop: Option<SimTime>,
    /// Class for class-based queues (default 0).
    #[serde(default)]
    pub class: u8,
    /// The flow id written in ns-2 trace lines (`--ns2-trace`), 0 to 2147483647 (ns-2's `fid_`
    /// is a C int). Default: the flow's index in the scenario (0, 1, ...). ns-2 writes the
    /// packet's `fid_`, which is the sending agent's `fid_` (`Trace::format`, trace/trace.cc;
    /// default 0, `Agent set fid_ 0` in tcl/lib/ns-default.tcl, ns-2.35); `bufferlab run
    /// script.tcl` sets it from the script's `$agent set fid_ N`. A `rio` queue takes the
    /// packets of a flow whose id is not 0 as In (ns-2 RIO `priority_method_ 1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_fid: Option<u32>,
    /// The ports of its two ends in ns-2 trace lines (`node.port`), sender then receiver.
    /// Default: ports numbered per node in flow order. ns-2 numbers the agents attached to a
    /// node 0, 1, ... in the order they are attached (Node `alloc-port`, tcl/lib/ns-node.tcl,
    /// ns-2.35), other agents than flows' ends included; `bufferlab run script.tcl` sets it
    /// from the script's `attach-agent` order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_ports: Option<[u32; 2]>,
    /// IP + transport header bytes included in each packet's size (default 28 for UDP: IPv4 20 + UDP 8;
    /// for TCP the preset's, 40 with `ns2`: ns-2 adds 40 to `packetSize_`).
    #[serde(default)]
    pub header: Option<Bytes>,
    /// UDP only: the largest datagram on the wire (default: none, one datagram per message).
    /// A message the application hands the sender larger than this goes out at once as
    /// floor(size / max) datagrams of `max_datagram` bytes, then one of the remainder, as
    /// ns-2.35's `Agent/UDP` splits a message larger than its `packetSize_`
    /// (`UdpAgent::sendmsg`, udp.cc); `bufferlab run script.tcl` sets it from the agent's
    /// `packetSize_` when an application's `packetSize_` is larger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_datagram: Option<Bytes>,
    /// Per-packet send jitter (default: none; ns-2's `overhead_` is 0, ns-default.tcl, and
    /// ns-3 and Linux add none): each send waits a uniform random time in [0, send_jitter)
    /// drawn from the run's seed, the flow's own stream, which breaks the phase locking of
    /// deterministic flows at a DropTail queue (Floyd and Jacobson 1992). TCP: ns-2.35's
    /// `overhead_` rule (tcp.cc `send_much`, `tcp/sender/send_timing.rs`; on ns-2's default
    /// RNG under `ns2_default_rng`). UDP: each datagram is delayed, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_jitter: Option<SimTime>,
    /// The application and its traffic.
    pub app: AppConfig,
    /// TCP settings of a TCP flow (preset and overrides; see docs/models/tcp.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<crate::tcp::TcpOptions>,
    /// The incast query this transfer answers: transfers of one query name form one query,
    /// whose completion time (`fct.queries` of the report) is that of its last transfer
    /// (`[[workloads]]` of kind `incast` set it; default: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
}

impl FlowConfig {
    /// The flow's transport: `protocol` when given, else the application's own.
    pub fn protocol(&self) -> Protocol {
        self.protocol.unwrap_or_else(|| self.app.protocol())
    }
}

/// When a flow starts: a fixed time, or one drawn from a distribution for each flow.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum StartTime {
    /// At this time.
    At(SimTime),
    /// Drawn for each flow (after `count` expansion) from the run's seed.
    Drawn(Distribution),
}

impl Default for StartTime {
    fn default() -> Self {
        StartTime::At(SimTime::ZERO)
    }
}

impl<'de> Deserialize<'de> for StartTime {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Either {
            At(SimTime),
            Drawn(Distribution),
        }
        Either::deserialize(d)
            .map(|e| match e {
                Either::At(t) => StartTime::At(t),
                Either::Drawn(x) => StartTime::Drawn(x),
            })
            .map_err(|_| {
                serde::de::Error::custom(
                    "expected a time such as \"1s\", or a random start such as \
                     { kind = \"uniform\", min = \"0s\", max = \"1s\" } or \
                     { kind = \"exponential\", mean = \"200ms\" }",
                )
            })
    }
}

/// What is recorded over time.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MonitorConfig {
    /// Sampling interval of queue length series (default: no series).
    #[serde(default)]
    pub queue_interval: Option<SimTime>,
    /// Links whose queues are sampled (default: `bottleneck` if there is one, else every link).
    #[serde(default)]
    pub queues: Option<Vec<String>>,
    /// Sampling interval of TCP senders' cwnd, ssthresh, advertised window and RTT (default: no series).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwnd_interval: Option<SimTime>,
    /// TCP flows whose series are recorded (default: every TCP flow).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwnd_flows: Option<Vec<String>>,
    /// Interval of the per-flow series: packets sent, delivered and lost, ACKs received,
    /// throughput and goodput in each interval (default: no series).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow_interval: Option<SimTime>,
    /// Flows whose per-flow series are recorded (default: every flow).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<Vec<String>>,
}

/// Which flows Jain's index and the throughput spread are computed over.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FairnessConfig {
    /// Flow names (default: every flow).
    #[serde(default)]
    pub flows: Option<Vec<String>>,
}
