//! A shared-buffer switch as a scenario gives it: `[switches.NAME]`, where NAME is a node of
//! the topology whose output ports then queue in one buffer pool (`net/shared_buffer`).

use crate::qdisc::classful::ClassScheduler;
use crate::units::{Bytes, QueueLimit, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The admission policy of a switch's buffer (Choudhury and Hahne 1998, sections II and III;
/// Addanki et al. 2022, section 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SharedPolicy {
    /// A packet is admitted while the buffer has room for it.
    CompleteSharing,
    /// Each queue holds at most its `threshold`.
    StaticThreshold,
    /// Each queue holds at most `alpha` times the unused buffer.
    DynamicThreshold,
    /// ABM (Addanki et al., SIGCOMM 2022, section 3): `alpha / n_p` times the unused buffer,
    /// times the queue's normalised drain rate (`abm.rs`).
    Abm,
}

/// One output queue's own settings, under `[switches.NAME.queues.LINK]` (the switch's output
/// port onto link LINK).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SharedQueueConfig {
    /// This queue's Dynamic Threshold (or ABM) `alpha` (replaces the switch's).
    #[serde(default)]
    pub alpha: Option<f64>,
    /// This queue's static threshold (replaces the switch's), in the buffer's unit.
    #[serde(default)]
    pub threshold: Option<QueueLimit>,
    /// This queue's ECN marking threshold K (replaces the switch's `ecn_threshold`).
    #[serde(default)]
    pub ecn_threshold: Option<QueueLimit>,
    /// This port's own settings per priority (`priorities.rs`), in the order of the switch's
    /// `priorities`; they replace the port's and the switch's values for that priority's queue.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub priorities: Vec<PriorityConfig>,
}

/// One priority queue's settings (`[[switches.NAME.priorities]]`, or a port's own under
/// `queues.LINK.priorities`): each field replaces the less specific one (`priorities.rs`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PriorityConfig {
    /// The Dynamic Threshold (or ABM alpha_p) of this priority's queues.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// The static threshold of this priority's queues, in the buffer's unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<QueueLimit>,
    /// DCTCP's marking threshold K of this priority's queues, in packets or bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_threshold: Option<QueueLimit>,
    /// Its share of the port under `scheduler = "drr"` (bytes: weight x quantum per round)
    /// or `"wrr"` (packets per round). Default 1. Strict priority does not read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<u32>,
}

/// A switch whose output queues share one buffer.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwitchConfig {
    /// The shared buffer, in packets ("400p") or bytes ("1MB"); thresholds and lengths count
    /// in the same unit. Required: a chip's buffer is what a study sizes.
    pub buffer: QueueLimit,
    /// `complete_sharing`, `static_threshold`, `dynamic_threshold` or `abm`. Required.
    pub policy: SharedPolicy,
    /// Dynamic Threshold's `alpha` for every queue of the switch: a queue may hold `alpha`
    /// times the unused buffer. Required with `dynamic_threshold` (Choudhury and Hahne leave
    /// it to the operator; chips set it per queue), unless every queue gives its own. ABM
    /// reads it as its alpha_p (required with `abm` too).
    #[serde(default)]
    pub alpha: Option<f64>,
    /// The static threshold of every queue, in the buffer's unit. Required with
    /// `static_threshold`, unless every queue gives its own.
    #[serde(default)]
    pub threshold: Option<QueueLimit>,
    /// DCTCP's step marking on every output queue (Alizadeh et al., SIGCOMM 2010, section
    /// 3.1): an ECN-capable packet that arrives while the queue holds K or more, in packets
    /// ("20p") or bytes ("30KB") whatever the buffer's unit, is marked CE. None (the default):
    /// no marking, the queues only drop, as a switch without ECN configured does.
    #[serde(default)]
    pub ecn_threshold: Option<QueueLimit>,
    /// ABM: the length at which a queue counts as fully congested in n_p (its level is
    /// length / saturation, at most 1), in the buffer's unit. Default: ns-3 ABM's `sat`,
    /// 20 x 1400 B (`"28000B"`), or `"20p"` in a buffer of packets (`abm.rs`).
    #[serde(default)]
    pub abm_saturation: Option<QueueLimit>,
    /// ABM: how often each port reads n_p and measures its queues' drain rates. Default: ns-3
    /// ABM's `updateInterval`, 30 us.
    #[serde(default)]
    pub abm_interval: Option<SimTime>,
    /// ABM: the alpha of packets tagged unscheduled, those a connection sends within its
    /// first `tcp.unscheduled_bytes` (`abm.rs`). Default 1024, the `alphaUnsched` of ABM's
    /// authors' ns-3 (`GenQueueDisc`). Without senders that tag, it changes nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abm_unscheduled_alpha: Option<f64>,
    /// Priority classes: each output port keeps one queue per entry, all drawing from the
    /// buffer, and a packet joins the queue of its flow's `class` (min(class, P - 1), as the
    /// `prio` discipline bands). Entry 0 is the highest priority under strict priority. At
    /// most 8 (IEEE 802.1Q's eight traffic classes). Default: none, one queue per port (of
    /// priority 0), as before priorities existed (`priorities.rs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub priorities: Vec<PriorityConfig>,
    /// How a port serves its priority queues: `priority` (strict, entry 0 first; the default,
    /// IEEE 802.1Q's default transmission selection), `drr` (Shreedhar and Varghese 1996,
    /// weight x `quantum` bytes per round) or `wrr` (weight packets per round). Read with
    /// `priorities` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<ClassScheduler>,
    /// DRR's quantum per unit of weight. Default 1500 B, one Ethernet MTU (Shreedhar and
    /// Varghese: a quantum of at least the largest packet sends one packet per turn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantum: Option<Bytes>,
    /// Per-queue settings, by the name of the link the output port feeds.
    #[serde(default)]
    pub queues: BTreeMap<String, SharedQueueConfig>,
}

impl SwitchConfig {
    /// Values serde cannot refuse: the field and a message with the fix.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let unit_of = |l: QueueLimit| matches!(l, QueueLimit::Bytes(_));
        let (QueueLimit::Packets(b) | QueueLimit::Bytes(b)) = self.buffer;
        if b == 0 {
            return Err((
                "buffer".into(),
                "0 holds no packet; give a positive buffer, e.g. \"1MB\" or \"400p\"".into(),
            ));
        }
        let alpha_ok = |a: f64| a.is_finite() && a > 0.0;
        if let Some(a) = self.alpha {
            if !alpha_ok(a) {
                return Err((
                    "alpha".into(),
                    format!("{a} is not a positive number; give e.g. alpha = 1.0"),
                ));
            }
        }
        let threshold_ok = |field: String, t: QueueLimit| -> Result<(), (String, String)> {
            if unit_of(t) != unit_of(self.buffer) {
                return Err((field, format!("{t} is not in the buffer's unit ({}); give both in packets or both in bytes", self.buffer)));
            }
            Ok(())
        };
        if let Some(t) = self.threshold {
            threshold_ok("threshold".into(), t)?;
        }
        if let Some(t) = self.abm_saturation {
            threshold_ok("abm_saturation".into(), t)?;
            let (QueueLimit::Packets(v) | QueueLimit::Bytes(v)) = t;
            if v == 0 {
                return Err((
                    "abm_saturation".into(),
                    "0 would count every queue as congested; give e.g. \"28000B\" (ns-3 ABM's sat)"
                        .into(),
                ));
            }
        }
        if let Some(a) = self.abm_unscheduled_alpha {
            if !alpha_ok(a) {
                return Err((
                    "abm_unscheduled_alpha".into(),
                    format!("{a} is not a positive number; give e.g. 1024 (ABM's alphaUnsched)"),
                ));
            }
        }
        if self.abm_interval.is_some_and(|d| d == SimTime::ZERO) {
            return Err((
                "abm_interval".into(),
                "0 updates without end; give e.g. \"30us\" (ns-3 ABM's updateInterval)".into(),
            ));
        }
        let k_ok = |field: String, k: QueueLimit| -> Result<(), (String, String)> {
            let (QueueLimit::Packets(v) | QueueLimit::Bytes(v)) = k;
            if v == 0 {
                return Err((field, "0 would mark every packet; give K > 0, e.g. \"20p\" or \"30KB\" (DCTCP's K = 20 packets at 1 Gbit/s, 65 at 10 Gbit/s)".into()));
            }
            Ok(())
        };
        if let Some(k) = self.ecn_threshold {
            k_ok("ecn_threshold".into(), k)?;
        }
        for (name, q) in &self.queues {
            if let Some(k) = q.ecn_threshold {
                k_ok(format!("queues.{name}.ecn_threshold"), k)?;
            }
            if let Some(a) = q.alpha {
                if !alpha_ok(a) {
                    return Err((
                        format!("queues.{name}.alpha"),
                        format!("{a} is not a positive number; give e.g. alpha = 1.0"),
                    ));
                }
            }
            if let Some(t) = q.threshold {
                threshold_ok(format!("queues.{name}.threshold"), t)?;
            }
        }
        self.validate_priorities()
    }
}
