//! Parameters of the queue disciplines other than DropTail (the `QueueConfig` variants live in
//! `config.rs`). Each field says its default and where the default comes from; where ns-2,
//! ns-3 and Linux disagree, a `preset` picks one simulator's set of defaults.

use super::config::QueueConfig;
use crate::units::{Bytes, QueueLimit, SimTime};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

// ---------------------------------------------------------------- thresholds

/// A RED threshold: a number of (mean-size) packets (`5`, `"5p"`, ns-2's `thresh_` unit),
/// a number of bytes (`"5000B"`), or a share of the queue limit (`"25%"`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Threshold {
    Packets(f64),
    Bytes(f64),
    Fraction(f64),
}

const THRESHOLD_HELP: &str =
    "a threshold in packets (5 or \"5p\"), in bytes (\"5000B\", \"5KB\") or as a share of the limit (\"25%\")";

fn parse_threshold(s: &str) -> Result<Threshold, String> {
    let t = s.trim();
    if let Some(p) = t.strip_suffix('%') {
        let v: f64 = p
            .trim()
            .parse()
            .map_err(|_| format!("\"{s}\" is not {THRESHOLD_HELP}"))?;
        if !(v.is_finite() && v >= 0.0) {
            return Err(format!("\"{s}\": a share must be zero or positive"));
        }
        return Ok(Threshold::Fraction(v / 100.0));
    }
    if let Some(p) = t.strip_suffix('p') {
        if let Ok(v) = p.trim().parse::<f64>() {
            if v.is_finite() && v >= 0.0 {
                return Ok(Threshold::Packets(v));
            }
        }
    }
    if let Ok(v) = t.parse::<f64>() {
        if v.is_finite() && v >= 0.0 {
            return Ok(Threshold::Packets(v));
        }
    }
    crate::units::parse_size(t)
        .map(|b| Threshold::Bytes(b.0 as f64))
        .map_err(|_| format!("\"{s}\" is not {THRESHOLD_HELP}"))
}

impl<'de> Deserialize<'de> for Threshold {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = Threshold;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(THRESHOLD_HELP)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Threshold, E> {
                parse_threshold(v).map_err(E::custom)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Threshold, E> {
                if v.is_finite() && v >= 0.0 {
                    Ok(Threshold::Packets(v))
                } else {
                    Err(E::custom("a threshold must be zero or positive"))
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Threshold, E> {
                self.visit_f64(v as f64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Threshold, E> {
                self.visit_f64(v as f64)
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for Threshold {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Threshold::Packets(p) => s.serialize_str(&format!("{p}p")),
            Threshold::Bytes(b) => s.serialize_str(&format!("{b}B")),
            Threshold::Fraction(f) => s.serialize_str(&format!("{}%", f * 100.0)),
        }
    }
}

impl JsonSchema for Threshold {
    fn schema_name() -> Cow<'static, str> {
        "Threshold".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": THRESHOLD_HELP,
            "anyOf": [ { "type": "string" }, { "type": "number", "minimum": 0 } ]
        })
    }
}

// ---------------------------------------------------------------- RED family

/// Whose defaults RED starts from. Any field set explicitly overrides the preset.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RedPreset {
    /// ns-3.44 `RedQueueDisc` attribute defaults (MaxSize 25p, MinTh 5, MaxTh 15, LInterm 50,
    /// QW 0.002, Wait, Gentle, MeanPktSize 500; byte mode when the limit is in bytes).
    #[default]
    Ns3,
    /// ns-2.35 `Queue/RED` (tcl/lib/ns-default.tcl): byte mode with mean_pktsize_ 500,
    /// automatic thresholds (thresh_ 0) and q_weight_ -1, linterm_ 10, gentle_, wait_,
    /// use_mark_p_ true with mark_p_ 0.1, limit 50 (Queue limit_).
    Ns2,
    /// Linux `sch_red` as configured by `tc red` (tc-red(8)): byte mode, avpkt 1000,
    /// probability 0.02, not gentle, no `wait`, W from `burst`.
    Linux,
    /// Floyd & Jacobson 1993 with Floyd's later advice: min_th 5 packets, max_th = 3 min_th,
    /// max_p 0.1, w_q = 1 - exp(-1/C) with C the link rate in packets/s (Floyd et al. 2001), gentle.
    Floyd,
    /// Seed paper 003 (ns-3 study): min_th = 0.25 and max_th = 0.75 of the buffer, 1/max_p = 50,
    /// otherwise ns-3 defaults.
    Paper003,
}

/// When RED considers the link idle for its average's decay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RedIdle {
    /// When the link asks for a packet and the queue has none (ns-2 `REDQueue::deque`, Linux).
    LinkIdle,
    /// When the last queued packet is dequeued (ns-3 `RedQueueDisc::DoDequeue`).
    QueueEmpty,
}

/// RED, Adaptive RED (`kind = "ared"`) and LALRED (`kind = "lalred"`). Every field is optional;
/// missing ones come from `preset`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedConfig {
    /// Whose defaults to use (default `ns3`).
    #[serde(default)]
    pub preset: RedPreset,
    /// Hard limit. ns3: 25p; ns2: 50 (x mean_pktsize bytes in byte mode); linux: 100 x avpkt bytes
    /// (bufferlab's choice, tc has no default); floyd: 50p; paper003: 25p.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<QueueLimit>,
    /// Lower threshold. ns3: 5; ns2: automatic (max(5, target_delay*C/2) packets); linux:
    /// 7.5 % of the limit; floyd: 5; paper003: 25 %.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_th: Option<Threshold>,
    /// Upper threshold. ns3: 15; ns2 / floyd: 3 x min_th; linux: 22.5 % of the limit
    /// (the proportions of tc-red(8)'s example); paper003: 75 %.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_th: Option<Threshold>,
    /// max_p. ns3: 1/50 (LInterm 50); ns2: 1/10 (linterm_ 10); linux: 0.02; floyd: 0.1; paper003: 1/50.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_p: Option<f64>,
    /// EWMA weight w_q. Positive: used as is. ns-2's codes: 0 = 1-exp(-1/C), -1 = from the RTT
    /// (3 x (link_delay + 1/C), at least 100 ms: 1-exp(-1/(10 RTT C))), -2 = 1-exp(-10/C);
    /// C = link rate / (8 mean_pktsize). ns3: 0.002; ns2: -1; floyd: 0; linux: from burst (tc_red_eval_ewma).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub q_weight: Option<f64>,
    /// Mean packet size for byte mode, C and the idle decay. ns3/ns2: 500 B; linux: 1000 B (avpkt); floyd: 1000 B.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_pktsize: Option<Bytes>,
    /// Queue measured in bytes (ns-2 queue_in_bytes_ and bytes_). ns2/linux: true; ns3/paper003:
    /// true when the limit is in bytes; floyd: false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_mode: Option<bool>,
    /// Gentle RED (Floyd 2000): p rises from max_p to 1 between max_th and 2 max_th. Default true except linux.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gentle: Option<bool>,
    /// ns-2 `wait_`: wait about 1/p packets between drops. Default true except linux.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait: Option<bool>,
    /// Mark ECN-capable packets instead of dropping them (ns-2 setbit_, ns-3 UseEcn). Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    /// ns-2.35 use_mark_p_: no forced drops on the average (above max_th / 2 max_th p reaches 1
    /// instead) and ECN marks only while p <= mark_p. ns2: true; others: false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub use_mark_p: Option<bool>,
    /// ns-2 mark_p_ (default 0.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark_p: Option<f64>,
    /// Target delay for automatic thresholds (ns-2 targetdelay_, default 5 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_delay: Option<SimTime>,
    /// Propagation delay of the link, for q_weight = -1 (ns-2 reads it from the link; default 0,
    /// which makes the RTT floor of 100 ms apply for any delay up to about 33 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_delay: Option<SimTime>,
    /// When an idle period starts. ns3: queue_empty; others: link_idle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle: Option<RedIdle>,
    /// Adaptive RED (Floyd, Gummadi & Shenker 2001): adapt max_p every `interval` to keep the
    /// average in the middle of [min_th, max_th]. Default false for `red`, true for `ared`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<bool>,
    /// ARED additive increase (default min(0.01, max_p/4), ns-2 alpha_ 0.01).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// ARED multiplicative decrease (default 0.9, ns-2 beta_).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<f64>,
    /// ARED adaptation interval (default 0.5 s, ns-2 interval_).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<SimTime>,
    /// ARED upper bound of max_p (default 0.5, ns-2 top_).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top: Option<f64>,
    /// ARED lower bound of max_p (default min(0.01, 80000 / link bit/s), ns-2 bottom_ 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottom: Option<f64>,
    /// LALRED only: resolution r of the discretized pursuit automaton, step = 1/(4 r)
    /// (default 100, bufferlab's choice; see docs/models/lalred.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<u32>,
    /// LALRED only: which actions' probabilities make RED drop harder between the thresholds.
    /// `drops` (default): k = 2 (P(Unforced_Drop) + P(Forced_Drop)); `decisions`: the share of
    /// dropping in the in-band decision only, k = 2 P(Unforced_Drop) / (P(Unforced_Drop) +
    /// P(No_Drop)) (1 when both are 0). Both give k = 1 at the uniform start and are bufferlab's
    /// readings (the papers do not say how the automaton acts on the queue); see
    /// docs/models/lalred.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lalred_scale: Option<LalredScale>,
}

/// How LALRED's action probabilities scale RED's p_b (see `RedConfig::lalred_scale`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LalredScale {
    #[default]
    Drops,
    Decisions,
}

// ---------------------------------------------------------------- fair schedulers

/// Per-flow fair queueing (ns-2 `FQLink` / `Queue/FQ`): one DropTail queue per flow, served in
/// order of virtual finish times.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FqConfig {
    /// Limit of each flow's queue (default 50p: ns-2 `Queue set limit_ 50`; `queue-limit` on an
    /// FQ link does not reach the per-flow queues).
    #[serde(default = "default_fq_limit")]
    pub limit: QueueLimit,
    /// How each per-flow queue counts its limit (default `ns2`: holds limit - 1, as ns-2's DropTail).
    #[serde(default = "ns2_flavour")]
    pub flavour: super::config::DropTailFlavour,
}

fn default_fq_limit() -> QueueLimit {
    QueueLimit::Packets(50)
}
fn ns2_flavour() -> super::config::DropTailFlavour {
    super::config::DropTailFlavour::Ns2
}

impl Default for FqConfig {
    fn default() -> Self {
        Self {
            limit: default_fq_limit(),
            flavour: ns2_flavour(),
        }
    }
}

/// What a hashing scheduler (DRR, SFQ) puts in one bucket.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlowKey {
    /// One bucket per flow (no collisions).
    Flow,
    /// Hash of the source node (ns-2 drr.cc hashes `saddr`).
    #[default]
    Src,
    /// Hash of source and destination nodes.
    SrcDst,
}

/// Deficit Round Robin (Shreedhar & Varghese 1995) as ns-2's `Queue/DRR` (queue/drr.cc).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DrrConfig {
    /// Bytes a bucket may send per round (default 250 B, ns-2 quantum_).
    #[serde(default = "default_drr_quantum")]
    pub quantum: Bytes,
    /// Number of hash buckets (default 10, ns-2 buckets_ in ns-default.tcl); ignored with `by = "flow"`.
    #[serde(default = "default_drr_buckets")]
    pub buckets: u32,
    /// Shared buffer of all buckets (default 25000 B, ns-2 blimit_). On overflow the head packet of
    /// the bucket holding the most bytes is dropped (drr.cc `getMaxflow`).
    #[serde(default = "default_drr_limit")]
    pub limit: QueueLimit,
    /// What a bucket holds (default `src`, as ns-2).
    #[serde(default)]
    pub by: FlowKey,
}

fn default_drr_quantum() -> Bytes {
    Bytes(250)
}
fn default_drr_buckets() -> u32 {
    10
}
fn default_drr_limit() -> QueueLimit {
    QueueLimit::Bytes(25_000)
}

impl Default for DrrConfig {
    fn default() -> Self {
        Self {
            quantum: default_drr_quantum(),
            buckets: default_drr_buckets(),
            limit: default_drr_limit(),
            by: FlowKey::Src,
        }
    }
}

/// Stochastic Fairness Queueing (McKenney 1990) with Linux `sch_sfq` defaults.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SfqConfig {
    /// Total packets (default 127p, Linux SFQ_MAX_DEPTH/limit default).
    #[serde(default = "default_sfq_limit")]
    pub limit: QueueLimit,
    /// Hash buckets (default 1024, Linux SFQ_DEFAULT_HASH_DIVISOR).
    #[serde(default = "default_sfq_divisor")]
    pub divisor: u32,
    /// Bytes per round (default 1514 B, Linux psched_mtu of an Ethernet device).
    #[serde(default = "default_sfq_quantum")]
    pub quantum: Bytes,
    /// Rehash period (default 0 = never, Linux default; tc-sfq(8) suggests 10 s).
    #[serde(default)]
    pub perturb: SimTime,
    /// Hash key (default `flow`, the 5-tuple of a flow).
    #[serde(default = "flow_key")]
    pub by: FlowKey,
    /// Flow slots: at most this many buckets hold packets at once; a packet that would need
    /// another is dropped (default 128, Linux SFQ_DEFAULT_FLOWS).
    #[serde(default = "default_sfq_flows")]
    pub flows: u32,
    /// Packets one flow slot may hold; an arrival beyond it is dropped (default and maximum
    /// 127, Linux SFQ_MAX_DEPTH).
    #[serde(default = "default_sfq_depth")]
    pub depth: u32,
}

fn default_sfq_flows() -> u32 {
    128
}
fn default_sfq_depth() -> u32 {
    127
}
fn default_sfq_limit() -> QueueLimit {
    QueueLimit::Packets(127)
}
fn default_sfq_divisor() -> u32 {
    1024
}
fn default_sfq_quantum() -> Bytes {
    Bytes(1514)
}
fn flow_key() -> FlowKey {
    FlowKey::Flow
}

impl Default for SfqConfig {
    fn default() -> Self {
        Self {
            limit: default_sfq_limit(),
            divisor: default_sfq_divisor(),
            quantum: default_sfq_quantum(),
            perturb: SimTime(0),
            by: FlowKey::Flow,
            flows: default_sfq_flows(),
            depth: default_sfq_depth(),
        }
    }
}

/// Strict priority by the flow's `class`: band = min(class, bands - 1), band 0 served first
/// (Linux `prio` numbering).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PrioConfig {
    /// Number of bands (default 3, Linux `prio`).
    #[serde(default = "default_bands")]
    pub bands: u32,
    /// Limit of each band's FIFO (default 100p, bufferlab's DropTail default).
    #[serde(default = "default_band_limit")]
    pub limit: QueueLimit,
}

fn default_bands() -> u32 {
    3
}
fn default_band_limit() -> QueueLimit {
    QueueLimit::Packets(100)
}

// ---------------------------------------------------------------- modern AQM

/// Whose defaults CoDel, FQ-CoDel and PIE start from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AqmPreset {
    /// Linux (sch_codel, sch_fq_codel, sch_pie) and the RFCs.
    #[default]
    Linux,
    /// ns-3.44 (CoDelQueueDisc, FqCoDelQueueDisc, PieQueueDisc).
    Ns3,
}

/// CoDel (RFC 8289).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodelConfig {
    #[serde(default)]
    pub preset: AqmPreset,
    /// Default: linux 1000p (sch_codel), ns3 1500p (CoDelQueueDisc MaxSize).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<QueueLimit>,
    /// Acceptable standing delay (default 5 ms, RFC 8289 section 4.4, both presets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<SimTime>,
    /// Sliding window of the minimum (default 100 ms, RFC 8289 section 4.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<SimTime>,
    /// Mark ECN-capable packets instead of dropping (default false: sch_codel and ns-3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    /// Never drop while at most this many bytes are queued (default 1514 B: Linux mtu; ns3 MinBytes 1500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_bytes: Option<Bytes>,
}

/// FQ-CoDel (RFC 8290).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FqCodelConfig {
    #[serde(default)]
    pub preset: AqmPreset,
    /// Total packets (default 10240p, Linux and ns-3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<QueueLimit>,
    /// Hash buckets (default 1024, RFC 8290 section 5.1, Linux, ns-3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<u32>,
    /// DRR quantum (default 1514 B, Linux; ns3 1500 B = MTU).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantum: Option<Bytes>,
    /// Default 5 ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<SimTime>,
    /// Default 100 ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<SimTime>,
    /// Default: linux true (fq_codel enables ECN), ns3 false (UseEcn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    /// On overflow, drop up to this many packets from the fattest flow (default 64, Linux
    /// drop_batch; ns3 DropBatchSize 64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_batch: Option<u32>,
    /// Hash key (default `flow`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<FlowKey>,
}

/// PIE (RFC 8033).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PieConfig {
    #[serde(default)]
    pub preset: AqmPreset,
    /// Default: linux 1000p (sch_pie), ns3 25p (PieQueueDisc MaxSize).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<QueueLimit>,
    /// QDELAY_REF: 15 ms (RFC 8033 section 4.2, sch_pie; ns-3.44 QueueDelayReference).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<SimTime>,
    /// T_UPDATE: 15 ms (RFC 8033, sch_pie; ns-3.44 Tupdate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tupdate: Option<SimTime>,
    /// alpha in 1/s (default 0.125, RFC 8033 section 4.2; ns-3 A).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// beta in 1/s (default 1.25, RFC 8033; ns-3 B).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<f64>,
    /// MAX_BURST (default 150 ms, RFC 8033 section 4.2; ns-3 MaxBurstAllowance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_burst: Option<SimTime>,
    /// Mark instead of drop while drop_prob <= 0.1 (RFC 8033 section 5.1; default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    /// Mean packet size: no drop while at most 2 x this is queued (default 1500 B: RFC 8033
    /// MEAN_PKTSIZE; ns3 MeanPktSize 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_pktsize: Option<Bytes>,
    /// Queue delay from the departure-rate estimate (queue bytes / average dequeue rate, RFC 8033
    /// section 4.3) instead of the last packet's sojourn time. Default false: Linux
    /// `dq_rate_estimator` (off unless set, tc-pie(8)) and ns-3 `UseDequeueRateEstimator` (false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dq_rate_estimator: Option<bool>,
    /// Bytes a measurement cycle of the estimator needs (default 16384B: RFC 8033 DQ_THRESHOLD
    /// 2^14; ns-3 DequeueThreshold 16384).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dq_threshold: Option<Bytes>,
}

// ---------------------------------------------------------------- class-based

/// What a classful queue classifies packets by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClassifyBy {
    /// The flow's `class` (default).
    #[default]
    Class,
    /// The transport protocol: "udp" or "tcp" (TCP ACKs are "tcp").
    Protocol,
    /// The flow's index (position in the flow list after expansion).
    Flow,
}

/// How the classes share the link.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClassScheduler {
    /// Deficit round robin with quantum = weight x `quantum` bytes (default).
    #[default]
    Drr,
    /// Weighted round robin: up to `weight` packets per round.
    Wrr,
    /// Strict priority in the order the classes are listed.
    Priority,
}

/// Which packets a class takes: a number (class or flow index), a protocol name ("udp", "tcp"),
/// a list of those, or "default" / "*" for everything no other class takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ClassMatch {
    Number(u32),
    Name(String),
    List(Vec<ClassMatch>),
}

/// One class of a classful queue.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassConfig {
    /// Name in results (default "class{i}").
    #[serde(default)]
    pub name: Option<String>,
    #[serde(rename = "match")]
    pub matches: ClassMatch,
    /// Share of the link relative to the other classes (default 1).
    #[serde(default = "one_u32")]
    pub weight: u32,
    /// The class's own discipline (default DropTail 100p).
    #[serde(default)]
    pub queue: Box<QueueConfig>,
}

fn one_u32() -> u32 {
    1
}

/// Class-based queueing: packets are classified into separate queues, each with its own
/// discipline (RED per class gives weighted RED), served by a weighted scheduler.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassfulConfig {
    #[serde(default)]
    pub by: ClassifyBy,
    #[serde(default)]
    pub scheduler: ClassScheduler,
    /// DRR quantum per unit of weight (default 1500 B, one MTU).
    #[serde(default = "default_class_quantum")]
    pub quantum: Bytes,
    pub classes: Vec<ClassConfig>,
}

fn default_class_quantum() -> Bytes {
    Bytes(1500)
}

impl ClassfulConfig {
    /// The smallest limit of its classes (one packet must fit in each).
    pub fn limit(&self) -> QueueLimit {
        let mut best: Option<QueueLimit> = None;
        for c in &self.classes {
            let l = c.queue.limit();
            best = Some(match (best, l) {
                (None, l) => l,
                (Some(QueueLimit::Bytes(a)), QueueLimit::Bytes(b)) => QueueLimit::Bytes(a.min(b)),
                (Some(QueueLimit::Packets(a)), QueueLimit::Packets(b)) => {
                    QueueLimit::Packets(a.min(b))
                }
                (Some(QueueLimit::Bytes(a)), QueueLimit::Packets(_)) => QueueLimit::Bytes(a),
                (Some(QueueLimit::Packets(_)), QueueLimit::Bytes(b)) => QueueLimit::Bytes(b),
            });
        }
        best.unwrap_or(QueueLimit::Packets(0))
    }
}

// ---------------------------------------------------------------- validation

fn prob(field: &str, v: Option<f64>, open_zero: bool) -> Result<(), (String, String)> {
    match v {
        Some(p) if !(p.is_finite() && p <= 1.0 && (p > 0.0 || (!open_zero && p == 0.0))) => Err((
            field.into(),
            format!("{p} is not a probability; give a value in (0, 1]"),
        )),
        _ => Ok(()),
    }
}

impl QueueConfig {
    /// Checks values serde cannot: (field relative to the queue, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        match self {
            QueueConfig::Red(c) | QueueConfig::Ared(c) | QueueConfig::Lalred(c) => {
                prob("max_p", c.max_p, true)?;
                prob("mark_p", c.mark_p, false)?;
                prob("top", c.top, true)?;
                prob("beta", c.beta, true)?;
                if let Some(w) = c.q_weight {
                    if !(w > 0.0 && w <= 1.0 || w == 0.0 || w == -1.0 || w == -2.0) {
                        return Err((
                            "q_weight".into(),
                            format!("{w}: give a weight in (0, 1] or ns-2's automatic codes 0, -1 or -2"),
                        ));
                    }
                }
                if let (Some(a), Some(b)) = (c.min_th, c.max_th) {
                    let same_unit_gt = match (a, b) {
                        (Threshold::Packets(x), Threshold::Packets(y))
                        | (Threshold::Bytes(x), Threshold::Bytes(y))
                        | (Threshold::Fraction(x), Threshold::Fraction(y)) => x >= y,
                        _ => false,
                    };
                    if same_unit_gt {
                        return Err((
                            "max_th".into(),
                            "must be above min_th (Floyd recommends max_th = 3 min_th)".into(),
                        ));
                    }
                }
                if c.mean_pktsize == Some(Bytes(0)) {
                    return Err(("mean_pktsize".into(), "must be at least 1B".into()));
                }
                if c.resolution == Some(0) {
                    return Err(("resolution".into(), "must be at least 1".into()));
                }
                Ok(())
            }
            QueueConfig::Drr(c) if c.quantum.0 == 0 => Err((
                "quantum".into(),
                "must be at least 1B (ns-2 default 250B)".into(),
            )),
            QueueConfig::Drr(c) if c.buckets == 0 => Err((
                "buckets".into(),
                "must be at least 1 (ns-2 default 10)".into(),
            )),
            QueueConfig::Sfq(c) if c.divisor == 0 || c.quantum.0 == 0 => Err((
                "divisor".into(),
                "divisor and quantum must be at least 1 (Linux defaults 1024 and 1514B)".into(),
            )),
            QueueConfig::Sfq(c) if c.flows == 0 || c.flows > 65408 => Err((
                "flows".into(),
                "give 1 to 65408 flow slots (Linux SFQ_MAX_FLOWS; default 128)".into(),
            )),
            QueueConfig::Sfq(c) if c.depth == 0 || c.depth > 127 => Err((
                "depth".into(),
                "give 1 to 127 packets per flow (Linux SFQ_MAX_DEPTH; default 127)".into(),
            )),
            QueueConfig::Prio(c) if c.bands == 0 => Err((
                "bands".into(),
                "give at least 1 band (Linux default 3)".into(),
            )),
            QueueConfig::FqCodel(c) if c.flows == Some(0) => Err((
                "flows".into(),
                "give at least 1 flow queue (default 1024)".into(),
            )),
            QueueConfig::Pie(c) if c.tupdate == Some(SimTime(0)) => {
                Err(("tupdate".into(), "must be positive (RFC 8033: 15ms)".into()))
            }
            QueueConfig::Pie(c) if c.dq_threshold.is_some_and(|b| b.0 == 0) => Err((
                "dq_threshold".into(),
                "must be positive (RFC 8033 and ns-3: 16384B)".into(),
            )),
            QueueConfig::Classful(c) => {
                if c.classes.is_empty() {
                    return Err((
                        "classes".into(),
                        "give at least one class, e.g. classes = [{ match = \"default\", queue = { kind = \"droptail\" } }]".into(),
                    ));
                }
                for (i, cl) in c.classes.iter().enumerate() {
                    if matches!(*cl.queue, QueueConfig::Python(_)) {
                        return Err((
                            format!("classes[{i}].queue.kind"),
                            "a python discipline cannot sit inside a classful queue yet; use it as the link's queue".into(),
                        ));
                    }
                    cl.queue
                        .validate()
                        .map_err(|(f, m)| (format!("classes[{i}].queue.{f}"), m))?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}
