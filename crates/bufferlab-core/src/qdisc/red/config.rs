//! RED's configuration (`kind = "red"`, `"ared"`, `"lalred"`): thresholds, presets and their
//! defaults with the source of each, and validation. The algorithm is `qdisc/red/mod.rs`.

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

// ---------------------------------------------------------------- presets and parameters

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

/// Which packet a forced drop takes (ns-2 `pickPacketToDrop`, red.cc): the arrival (`tail`,
/// the default, ns-2's `drop_tail_`), the second in the queue (`front`, `drop_front_`), or one
/// at random (`random`, `drop_rand_`: `Random::integer(len)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RedVictim {
    Tail,
    Front,
    Random,
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
    /// ns-2 `bytes_` where it differs from `queue_in_bytes_` (`byte_mode`): the drop
    /// probability counts arrivals in bytes (count_bytes / mean_pktsize) and scales with the
    /// packet's size, red.cc `modify_p`, whatever unit the queue is measured in. Default:
    /// `byte_mode` (ns-2's defaults set both).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_count: Option<bool>,
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
    /// With `ecn`: a forced drop on the average (above max_th, or 2 max_th when gentle) stays a
    /// drop (true) or marks an ECT packet (false; with min_th = max_th = K, q_weight = 1 and
    /// gentle = false: DCTCP's step marking at K). ns-3 `UseHardDrop` true; ns2 (forced drops
    /// are never marks in red.cc), floyd, paper003: true; linux: false (tc-red's `harddrop`
    /// flag is off unless given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hard_drop: Option<bool>,
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
    /// ns-2 `cautious_` (red.cc, "for experimental purposes only"; `red/ns2_knobs.rs`): 0
    /// (default) none; 1: no drop test while the queue is below what the average decays to in
    /// 50 ms; 2: the test's uniform draw scaled up when the queue is below that; 3: the idle
    /// decay counts packets of `idle_pktsize`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cautious: Option<u8>,
    /// ns-2 `idle_pktsize_` for `cautious = 3` (ns-default.tcl: 100 B).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_pktsize: Option<Bytes>,
    /// ns-2 `feng_adaptive_` with `adaptive`: Feng et al.'s max_p adaptation (divided by
    /// `alpha` below min_th, multiplied by `beta` above max_th, once per crossing) instead of
    /// Adaptive RED's (red.cc `updateMaxPFeng`). Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feng_adaptive: Option<bool>,
    /// Whether a forced drop restarts the count of packets since the last drop (red.cc `enque`,
    /// the "bug-fix from Philip Liu" that ns-2 skips when `ns1_compat_` is true). ns2, floyd,
    /// linux: true; ns3, paper003: false (ns-3's red-queue-disc.cc leaves `m_count` alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forced_drop_resets_count: Option<bool>,
    /// The victim of a forced drop (ns-2 `drop_front_`, `drop_rand_`). Default `tail`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forced_victim: Option<RedVictim>,
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

impl RedConfig {
    /// Checks values serde cannot: (field relative to the queue, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        let c = self;
        let ns2 = c.preset == RedPreset::Ns2;
        let feng = c.feng_adaptive == Some(true);
        prob("max_p", c.max_p, true)?;
        if !ns2 {
            prob("mark_p", c.mark_p, false)?;
        } else if c.mark_p.is_some_and(|m| !(m.is_finite() && m >= 0.0)) {
            // red.cc only compares p_b < mark_p_: any value above 1 marks at every p
            return Err(("mark_p".into(), "must be zero or positive".into()));
        }
        prob("top", c.top, true)?;
        if !feng {
            prob("beta", c.beta, true)?; // Feng's beta multiplies max_p (ns-2 examples: 2)
        }
        if c.cautious.is_some_and(|v| v > 3) {
            return Err(("cautious".into(), "ns-2's cautious_ is 0, 1, 2 or 3".into()));
        }
        if c.idle_pktsize == Some(Bytes(0)) {
            return Err(("idle_pktsize".into(), "must be at least 1B".into()));
        }
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
                | (Threshold::Fraction(x), Threshold::Fraction(y)) => x > y,
                _ => false,
            };
            if same_unit_gt {
                return Err((
                    "max_th".into(),
                    "must not be below min_th (Floyd recommends max_th = 3 min_th; equal \
                     thresholds with q_weight = 1 and gentle = false are step marking at K)"
                        .into(),
                ));
            }
        }
        // Thresholds at or above the limit in its own unit: the queue overflows before RED's
        // average gets there, and RED never drops early (a limit below max_th alone is a
        // warning, `Red::warnings`).
        let over_limit = match (c.min_th, c.limit) {
            (Some(Threshold::Packets(t)), Some(QueueLimit::Packets(l))) => t >= l as f64,
            (Some(Threshold::Bytes(t)), Some(QueueLimit::Bytes(l))) => t >= l as f64,
            _ => false,
        };
        // ns-2 runs such a RED (red.cc checks nothing): with the ns2 preset it is the
        // warning of `Params::warnings`, as the validation suites' scripts need.
        if over_limit && c.preset != RedPreset::Ns2 {
            return Err((
                "min_th".into(),
                "is not below the limit: RED would never drop early; give thresholds below \
                 `limit` (Floyd: min_th 5p, max_th 15p) or raise the limit"
                    .into(),
            ));
        }
        if c.mean_pktsize == Some(Bytes(0)) {
            return Err(("mean_pktsize".into(), "must be at least 1B".into()));
        }
        if c.interval == Some(SimTime::ZERO) {
            return Err((
                "interval".into(),
                "must be positive: Adaptive RED adapts max_p once per interval (ns-2 interval_ \
                 0.5s)"
                    .into(),
            ));
        }
        let alpha = if feng { None } else { c.alpha }; // Feng's alpha divides max_p (3)
        if feng && c.alpha.is_some_and(|a| !(a.is_finite() && a > 0.0)) {
            return Err(("alpha".into(), "must be positive (it divides max_p)".into()));
        }
        for (f, v) in [("alpha", alpha), ("bottom", c.bottom)] {
            if v.is_some_and(|v| !(v.is_finite() && (0.0..=1.0).contains(&v))) {
                return Err((
                    f.into(),
                    format!(
                        "{}: give a value in [0, 1] (ns-2 alpha_ 0.01, bottom_ 0)",
                        v.unwrap()
                    ),
                ));
            }
        }
        if c.resolution == Some(0) {
            return Err(("resolution".into(), "must be at least 1".into()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- bad values named ----
    #[test]
    fn bad_values_are_refused_with_their_field() {
        let field = |c: RedConfig| c.validate().unwrap_err().0;
        let d = RedConfig::default;
        let above = RedConfig {
            limit: Some(QueueLimit::Packets(20)),
            min_th: Some(Threshold::Packets(30.0)),
            max_th: Some(Threshold::Packets(90.0)),
            ..d()
        };
        assert_eq!(field(above.clone()), "min_th");
        // ns-2 runs it (red.cc checks no threshold against limit_): a warning there
        let ns2 = RedConfig {
            preset: RedPreset::Ns2,
            ..above
        };
        assert!(ns2.validate().is_ok());
        assert_eq!(
            field(RedConfig {
                interval: Some(SimTime::ZERO),
                ..d()
            }),
            "interval"
        );
        assert_eq!(
            field(RedConfig {
                alpha: Some(f64::INFINITY),
                ..d()
            }),
            "alpha"
        );
        assert_eq!(
            field(RedConfig {
                bottom: Some(-1.0),
                ..d()
            }),
            "bottom"
        );
        // max_th alone above the limit stays a warning (Red::warnings)
        let warned = RedConfig {
            limit: Some(QueueLimit::Packets(20)),
            min_th: Some(Threshold::Packets(5.0)),
            max_th: Some(Threshold::Packets(30.0)),
            ..d()
        };
        assert!(warned.validate().is_ok());
    }
}
