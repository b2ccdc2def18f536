//! The scenario file format (TOML), as serde types. Unknown keys are rejected everywhere.
//! Every default is written next to its field with the source it comes from.
//! The JSON Schema (`bufferlab schema`) is generated from these types.

use crate::packet::Protocol;
use crate::units::{Bytes, QueueLimit, Rate, SimTime};
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
    pub flows: Vec<FlowConfig>,
    #[serde(default)]
    pub monitor: MonitorConfig,
    #[serde(default)]
    pub fairness: FairnessConfig,
}

fn default_name() -> String {
    "scenario".into()
}
fn default_seed() -> u64 {
    1
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
        hops: u32,
        #[serde(default)]
        side_nodes: bool,
    },
    /// Nodes by name; every link in `links` names its two ends with `between`.
    Custom { nodes: Vec<String> },
}

/// A duplex link. Missing fields come from the topology's template (for example `access_s3`
/// falls back to `access`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// The two nodes it joins (custom topologies only); the forward direction is from the first to the second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between: Option<[String; 2]>,
    /// Capacity of each direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
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
    /// Fields of `self`, falling back to `template` where missing.
    pub fn over(&self, template: &LinkConfig) -> LinkConfig {
        LinkConfig {
            between: self.between.clone().or_else(|| template.between.clone()),
            rate: self.rate.or(template.rate),
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

/// A queue discipline and its parameters.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QueueConfig {
    /// FIFO with tail drop.
    Droptail(DropTailConfig),
    /// Random Early Detection (Floyd & Jacobson 1993), ns-2 / ns-3 / Linux presets.
    Red(super::queue_config::RedConfig),
    /// Adaptive RED (Floyd, Gummadi & Shenker 2001).
    Ared(super::queue_config::RedConfig),
    /// LALRED: RED with a discretized-pursuit learning automaton (Misra et al. 2010).
    Lalred(super::queue_config::RedConfig),
    /// Per-flow fair queueing (ns-2 FQLink).
    Fq(super::queue_config::FqConfig),
    /// Deficit Round Robin (Shreedhar & Varghese 1995, ns-2 drr.cc).
    Drr(super::queue_config::DrrConfig),
    /// Stochastic Fairness Queueing (McKenney 1990, Linux sch_sfq).
    Sfq(super::queue_config::SfqConfig),
    /// Strict priority by class.
    Prio(super::queue_config::PrioConfig),
    /// CoDel (RFC 8289).
    Codel(super::queue_config::CodelConfig),
    /// FQ-CoDel (RFC 8290).
    FqCodel(super::queue_config::FqCodelConfig),
    /// PIE (RFC 8033).
    Pie(super::queue_config::PieConfig),
    /// Class-based queues, each with its own discipline, under a weighted scheduler.
    Classful(super::queue_config::ClassfulConfig),
    /// A discipline written in Python (a `bufferlab.QueueDisc` subclass), see docs/extending.md.
    Python(PythonQueueConfig),
}

/// A queue discipline implemented in Python.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PythonQueueConfig {
    /// `module:Class` (a module importable from the scenario's folder) or `file.py:Class`.
    pub class: String,
    /// Keyword arguments for the class.
    #[serde(default)]
    pub params: serde_json::Map<String, serde_json::Value>,
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig::Droptail(DropTailConfig::default())
    }
}

impl QueueConfig {
    /// The hard limit, to check that one packet fits.
    pub fn limit(&self) -> QueueLimit {
        match self {
            QueueConfig::Droptail(c) => c.limit,
            QueueConfig::Red(c) | QueueConfig::Ared(c) | QueueConfig::Lalred(c) => {
                crate::qdisc::red::configured_limit(c)
            }
            QueueConfig::Fq(c) => c.limit,
            QueueConfig::Drr(c) => c.limit,
            QueueConfig::Sfq(c) => c.limit,
            QueueConfig::Prio(c) => c.limit,
            QueueConfig::Codel(c) => crate::qdisc::codel::configured_limit(c),
            QueueConfig::FqCodel(c) => crate::qdisc::fq_codel::configured_limit(c),
            QueueConfig::Pie(c) => crate::qdisc::pie::configured_limit(c),
            QueueConfig::Classful(c) => c.limit(),
            // The Python class decides; nothing to check before it runs.
            QueueConfig::Python(_) => QueueLimit::Packets(u64::MAX),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropTailConfig {
    /// Capacity in packets ("25p") or bytes ("50KB"). Default 100p (ns-3 DropTailQueue MaxSize).
    #[serde(default = "default_droptail_limit")]
    pub limit: QueueLimit,
    /// `standard` (ns-3, Linux) or `ns2` (ns-2.35: the packet on the wire counts against the limit).
    #[serde(default)]
    pub flavour: DropTailFlavour,
}

impl Default for DropTailConfig {
    fn default() -> Self {
        Self {
            limit: default_droptail_limit(),
            flavour: DropTailFlavour::Standard,
        }
    }
}

fn default_droptail_limit() -> QueueLimit {
    QueueLimit::Packets(100)
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DropTailFlavour {
    #[default]
    Standard,
    Ns2,
}

/// Where on the link a random loss happens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LossPosition {
    /// After transmission: the lost packet used link capacity (ns-3 ReceiveErrorModel, a corrupted frame).
    #[default]
    AfterLink,
    /// At the link head, before the queue (ns-2 `$ns lossmodel`): the lost packet uses no capacity.
    BeforeQueue,
}

/// A random loss model for one link direction.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LossConfig {
    /// Each packet is lost independently with probability `rate`.
    Bernoulli {
        rate: f64,
        #[serde(default)]
        position: LossPosition,
    },
    /// Gilbert-Elliott two-state Markov chain (Gilbert 1960, Elliott 1963), stepped once per packet.
    GilbertElliott {
        /// Probability of moving from the good to the bad state.
        p_good_bad: f64,
        /// Probability of moving from the bad to the good state.
        p_bad_good: f64,
        /// Loss probability in the good state (default 0).
        #[serde(default)]
        loss_good: f64,
        /// Loss probability in the bad state (default 1, Gilbert's original model).
        #[serde(default = "one")]
        loss_bad: f64,
        #[serde(default)]
        position: LossPosition,
    },
}

fn one() -> f64 {
    1.0
}

impl LossConfig {
    pub fn position(&self) -> LossPosition {
        match self {
            LossConfig::Bernoulli { position, .. }
            | LossConfig::GilbertElliott { position, .. } => *position,
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
    /// Transport (default: udp for cbr/poisson/onoff).
    #[serde(default)]
    pub protocol: Option<Protocol>,
    /// When the application starts (default 0).
    #[serde(default)]
    pub start: SimTime,
    /// When it stops sending (default: the end of the run).
    #[serde(default)]
    pub stop: Option<SimTime>,
    /// Class for class-based queues (default 0).
    #[serde(default)]
    pub class: u8,
    /// IP + transport header bytes included in each packet's size (default 28 for UDP: IPv4 20 + UDP 8;
    /// for TCP the preset's, 40 with `ns2`: ns-2 adds 40 to `packetSize_`).
    #[serde(default)]
    pub header: Option<Bytes>,
    /// The application and its traffic.
    pub app: AppConfig,
    /// TCP settings of a TCP flow (preset and overrides; see docs/models/tcp.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<crate::tcp::TcpOptions>,
}

/// What the application sends.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppConfig {
    /// Constant bit rate: one packet every packet_size*8/rate.
    Cbr {
        rate: Rate,
        /// Size on the wire (default 1000 B, the packet size of the seed papers' ns-2 scripts).
        #[serde(default = "default_packet_size")]
        packet_size: Bytes,
        /// Randomise each gap uniformly in [0.5, 1.5] of the interval (ns-2 CBR `random_`), default false.
        #[serde(default)]
        random: bool,
    },
    /// Poisson arrivals: exponential interarrival times with mean packet_size*8/rate.
    Poisson {
        /// Mean offered rate in bits per second on the wire.
        rate: Rate,
        /// (Mean) size on the wire (default 1000 B).
        #[serde(default = "default_packet_size")]
        packet_size: Bytes,
        /// `fixed` or `exponential` packet sizes (exponential with this mean: an M/M/1 source).
        #[serde(default)]
        size_distribution: SizeDistribution,
    },
    /// On/off source: sends at `rate` during on-periods, nothing during off-periods.
    Onoff {
        rate: Rate,
        #[serde(default = "default_packet_size")]
        packet_size: Bytes,
        on_time: Distribution,
        off_time: Distribution,
    },
    /// TCP bulk transfer: always has data (ns-2 FTP, ns-3 BulkSend).
    Bulk {},
    /// TCP transfer of one file of `size` bytes, then FIN; the completion time is reported.
    Transfer { size: Bytes },
    /// TCP request/response objects over one connection: each object's size is drawn from
    /// `object_size`; after it is delivered the client thinks for `think_time` and asks for
    /// the next. Response times per object are reported.
    Web {
        object_size: ObjectSize,
        think_time: Distribution,
        /// Number of objects (default: until the flow stops).
        #[serde(default)]
        objects: Option<u32>,
    },
}

/// A random size in bytes (web objects).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ObjectSize {
    Constant {
        value: Bytes,
    },
    Uniform {
        min: Bytes,
        max: Bytes,
    },
    Exponential {
        mean: Bytes,
    },
    /// Pareto with the given mean and shape (> 1), the classic web object model (Crovella 1997).
    Pareto {
        mean: Bytes,
        shape: f64,
    },
}

fn default_packet_size() -> Bytes {
    Bytes(1000)
}

impl AppConfig {
    pub fn kind(&self) -> &'static str {
        match self {
            AppConfig::Cbr { .. } => "cbr",
            AppConfig::Poisson { .. } => "poisson",
            AppConfig::Onoff { .. } => "onoff",
            AppConfig::Bulk { .. } => "bulk",
            AppConfig::Transfer { .. } => "transfer",
            AppConfig::Web { .. } => "web",
        }
    }
    pub fn protocol(&self) -> Protocol {
        match self {
            AppConfig::Bulk { .. } | AppConfig::Transfer { .. } | AppConfig::Web { .. } => {
                Protocol::Tcp
            }
            _ => Protocol::Udp,
        }
    }
    /// Size on the wire. For TCP applications: a full segment with the default (`ns2`) TCP
    /// settings, 1000 + 40 bytes; the builder uses the flow's resolved TCP settings instead.
    pub fn packet_size(&self) -> Bytes {
        match self {
            AppConfig::Cbr { packet_size, .. }
            | AppConfig::Poisson { packet_size, .. }
            | AppConfig::Onoff { packet_size, .. } => *packet_size,
            AppConfig::Bulk { .. } | AppConfig::Transfer { .. } | AppConfig::Web { .. } => {
                Bytes(crate::tcp::TcpParams::default().wire_size() as u64)
            }
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SizeDistribution {
    #[default]
    Fixed,
    Exponential,
}

/// A random duration.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Distribution {
    Constant {
        value: SimTime,
    },
    Uniform {
        min: SimTime,
        max: SimTime,
    },
    Exponential {
        mean: SimTime,
    },
    /// Pareto with the given mean and shape (> 1), as ns-2's POO_Traffic and ns-3's ParetoRandomVariable.
    Pareto {
        mean: SimTime,
        shape: f64,
    },
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
}

/// Which flows Jain's index and the throughput spread are computed over.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FairnessConfig {
    /// Flow names (default: every flow).
    #[serde(default)]
    pub flows: Option<Vec<String>>,
}
