//! Configuration pieces several disciplines share: how a hashing scheduler groups packets into
//! flows (DRR, SFQ, FQ-CoDel), whose defaults the modern AQMs start from (CoDel, FQ-CoDel,
//! COBALT, PIE), CoDel's knobs (CoDel, FQ-CoDel and COBALT: [`CodelKnobs`]) and a PI
//! controller's knobs (PIE and DualPI2: [`PiKnobs`]). The knob types are flattened into their
//! disciplines' tables, so a scenario writes `target = "5ms"` in the queue table as before.

use super::codel::CodelParams;
use crate::units::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The keys of a queue table that no field took. A table with a flattened knob type cannot
/// use `deny_unknown_fields` (serde then names the unknown key without the keys it expected),
/// so it collects them here and its `validate` refuses them with [`refuse_unknown`].
pub type UnknownKeys = BTreeMap<String, serde::de::IgnoredAny>;

/// Refuses the first unknown key, naming the keys the table takes.
pub fn refuse_unknown(unknown: &UnknownKeys, fields: &[&[&str]]) -> Result<(), (String, String)> {
    let Some(key) = unknown.keys().next() else {
        return Ok(());
    };
    let all: Vec<String> = fields
        .iter()
        .flat_map(|f| f.iter())
        .map(|f| format!("`{f}`"))
        .collect();
    Err((
        key.clone(),
        format!("unknown field, expected one of {}", all.join(", ")),
    ))
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

/// Whose defaults CoDel, FQ-CoDel, COBALT and PIE start from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AqmPreset {
    /// Linux (sch_codel, sch_fq_codel, sch_cake's COBALT, sch_pie) and the RFCs.
    #[default]
    Linux,
    /// ns-3.44 (CoDelQueueDisc, FqCoDelQueueDisc, CobaltQueueDisc, PieQueueDisc).
    Ns3,
}

/// CoDel's control-law knobs, shared by CoDel (RFC 8289), FQ-CoDel (RFC 8290, which runs one
/// CoDel per flow queue with the same parameters) and COBALT (`qdisc/cobalt.rs`, whose
/// defaults and `ecn` default are its presets').
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct CodelKnobs {
    /// Acceptable standing delay (default 5 ms: RFC 8289 section 4.4, Linux sch_codel and
    /// sch_fq_codel, ns-3 CoDelQueueDisc and FqCoDelQueueDisc Target).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<SimTime>,
    /// Sliding window of the minimum (default 100 ms: RFC 8289 section 4.3, Linux, ns-3
    /// Interval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<SimTime>,
    /// Mark ECN-capable packets instead of dropping. Default: CoDel false (sch_codel, ns-3
    /// UseEcn); FQ-CoDel `linux` true (sch_fq_codel enables ECN), `ns3` false (UseEcn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    /// Mark CE every ECT packet whose sojourn exceeds this (Linux sch_codel / sch_fq_codel
    /// `ce_threshold`, DCTCP-style step marking; default off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ce_threshold: Option<SimTime>,
}

impl CodelKnobs {
    /// Its keys, in order, for [`refuse_unknown`].
    pub const FIELDS: &'static [&'static str] = &["target", "interval", "ecn", "ce_threshold"];
    /// RFC 8289 section 4.4 (and Linux, ns-3): 5 ms.
    pub const TARGET: f64 = 0.005;
    /// RFC 8289 section 4.3 (and Linux, ns-3): 100 ms.
    pub const INTERVAL: f64 = 0.1;

    /// A zero target drops every packet that waits at all, a zero interval drops the whole
    /// queue at once (the control law never moves `drop_next`).
    pub fn validate(&self) -> Result<(), (String, String)> {
        if self.target == Some(SimTime::ZERO) {
            return Err(("target".into(), "must be positive (RFC 8289: 5ms)".into()));
        }
        if self.interval == Some(SimTime::ZERO) {
            return Err((
                "interval".into(),
                "must be positive (RFC 8289: 100ms)".into(),
            ));
        }
        Ok(())
    }

    /// Whether the discipline marks CE at all, with `ecn_default` for an unset `ecn`.
    pub fn marks(&self, ecn_default: bool) -> bool {
        self.ecn.unwrap_or(ecn_default) || self.ce_threshold.is_some()
    }

    /// The resolved parameters: the knobs with their defaults, and the discipline's own
    /// `min_bytes` rule (Linux `backlog <= mtu`, ns-3 `bytes < MinBytes` when `strict`).
    pub fn params(&self, ecn_default: bool, min_bytes: u64, min_bytes_strict: bool) -> CodelParams {
        CodelParams {
            target: self.target.unwrap_or(SimTime::from_secs_f64(Self::TARGET)),
            interval: self
                .interval
                .unwrap_or(SimTime::from_secs_f64(Self::INTERVAL)),
            ecn: self.ecn.unwrap_or(ecn_default),
            min_bytes,
            min_bytes_strict,
            ce_threshold: self.ce_threshold,
        }
    }
}

/// A PI controller's knobs, shared by PIE (RFC 8033) and DualPI2's base controller (RFC 9332
/// A.2): every `tupdate` the probability moves by `alpha (qdelay - target) + beta (qdelay -
/// qdelay_old)`. The defaults differ per discipline ([`PiDefaults`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct PiKnobs {
    /// Target queue delay (PIE QDELAY_REF 15 ms, RFC 8033 section 4.2, sch_pie, ns-3.44
    /// QueueDelayReference; DualPI2 15 ms, RFC 9332 A.1 and Linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<SimTime>,
    /// Update interval (PIE T_UPDATE 15 ms, RFC 8033, sch_pie, ns-3.44 Tupdate; DualPI2 16 ms,
    /// RFC 9332 A.1 and Linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tupdate: Option<SimTime>,
    /// Integral gain in 1/s (PIE 0.125, RFC 8033 section 4.2, ns-3 A; DualPI2 0.16, Linux;
    /// RFC 9332 A.1: 0.1 Tupdate / RTT_max^2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// Proportional gain in 1/s (PIE 1.25, RFC 8033, ns-3 B; DualPI2 3.2, Linux; RFC 9332 A.1:
    /// 0.3 / RTT_max = 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<f64>,
}

/// A discipline's defaults for [`PiKnobs`], and the source it names in its refusals.
pub struct PiDefaults {
    /// "RFC 8033", "RFC 9332", ...
    pub source: &'static str,
    /// The defaults of `target` and `tupdate` as a user writes them ("15ms"), for refusals.
    pub target_text: &'static str,
    pub tupdate_text: &'static str,
    /// Seconds.
    pub target: f64,
    pub tupdate: SimTime,
    pub alpha: f64,
    pub beta: f64,
}

/// A PI controller's resolved gains (the seconds of `target` as f64, as the update computes).
#[derive(Clone, Debug)]
pub struct PiGains {
    pub target: f64,
    pub tupdate: SimTime,
    pub alpha: f64,
    pub beta: f64,
}

impl PiGains {
    /// The unscaled step `alpha (qdelay - target) + beta (qdelay - qdelay_old)` (RFC 8033
    /// section 4.2 `calculate_drop_prob`, RFC 9332 A.2 `dualpi2_update`).
    pub fn step(&self, qdelay: f64, qdelay_old: f64) -> f64 {
        self.alpha * (qdelay - self.target) + self.beta * (qdelay - qdelay_old)
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "target_s": self.target,
            "tupdate_s": self.tupdate.as_secs_f64(),
        })
    }
}

impl PiKnobs {
    /// Its keys, in order, for [`refuse_unknown`].
    pub const FIELDS: &'static [&'static str] = &["target", "tupdate", "alpha", "beta"];

    /// The gains with `d`'s defaults.
    pub fn gains(&self, d: &PiDefaults) -> PiGains {
        PiGains {
            target: self.target.map(|t| t.as_secs_f64()).unwrap_or(d.target),
            tupdate: self.tupdate.unwrap_or(d.tupdate),
            alpha: self.alpha.unwrap_or(d.alpha),
            beta: self.beta.unwrap_or(d.beta),
        }
    }

    /// Each update is a step of the discipline's catch-up inside one queue event: below 1us an
    /// idle second would take millions of them (the run's total is bounded in
    /// scenario/bounds.rs). A zero target, or a gain that is negative or not finite, is refused.
    pub fn validate(&self, d: &PiDefaults) -> Result<(), (String, String)> {
        if self.tupdate.is_some_and(|t| t < super::MIN_UPDATE_INTERVAL) {
            return Err((
                "tupdate".into(),
                format!("give at least 1us ({}: {})", d.source, d.tupdate_text),
            ));
        }
        if self.target == Some(SimTime::ZERO) {
            return Err((
                "target".into(),
                format!("must be positive ({}: {})", d.source, d.target_text),
            ));
        }
        for (f, v, def) in [("alpha", self.alpha, d.alpha), ("beta", self.beta, d.beta)] {
            if let Some(v) = v {
                if !(v.is_finite() && v >= 0.0) {
                    return Err((
                        f.into(),
                        format!("{v}: give a finite gain >= 0 in 1/s ({}: {def})", d.source),
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::pie::PieConfig;
    use super::super::{codel::CodelConfig, dualpi2::DualPi2Config, fq_codel::FqCodelConfig};
    use super::*;
    use std::collections::BTreeSet;

    /// The keys a table's schema lists (its flattened knobs included).
    fn schema_keys<T: JsonSchema>() -> BTreeSet<String> {
        let s = schemars::schema_for!(T);
        let props = s
            .get("properties")
            .and_then(|p| p.as_object())
            .expect("properties");
        props.keys().cloned().collect()
    }

    /// The keys a refusal of `bogus` names.
    fn named(e: Result<(), (String, String)>) -> BTreeSet<String> {
        let (field, msg) = e.expect_err("bogus is refused");
        assert_eq!(field, "bogus");
        msg.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    }

    fn bogus() -> UnknownKeys {
        [("bogus".to_string(), serde::de::IgnoredAny)].into()
    }

    // ---- an unknown key is refused naming exactly the keys the table takes ----
    #[test]
    fn unknown_keys_name_every_key_of_the_schema() {
        let c = CodelConfig {
            unknown: bogus(),
            ..Default::default()
        };
        assert_eq!(named(c.validate()), schema_keys::<CodelConfig>());
        let c = FqCodelConfig {
            unknown: bogus(),
            ..Default::default()
        };
        assert_eq!(named(c.validate()), schema_keys::<FqCodelConfig>());
        let c = PieConfig {
            unknown: bogus(),
            ..Default::default()
        };
        assert_eq!(named(c.validate()), schema_keys::<PieConfig>());
        let c = super::super::cobalt::CobaltConfig {
            unknown: bogus(),
            ..Default::default()
        };
        assert_eq!(
            named(c.validate()),
            schema_keys::<super::super::cobalt::CobaltConfig>()
        );
        let c = DualPi2Config {
            unknown: bogus(),
            ..Default::default()
        };
        assert_eq!(named(c.validate()), schema_keys::<DualPi2Config>());
    }

    // ---- the flattened tables read as before ----
    #[test]
    fn flattened_knobs_read_from_the_queue_table() {
        let c: CodelConfig =
            toml::from_str("target = \"2ms\"\nce_threshold = \"1ms\"\nmin_bytes = \"1000B\"")
                .unwrap();
        assert_eq!(c.knobs.target, Some(SimTime::from_millis(2)));
        assert_eq!(c.knobs.ce_threshold, Some(SimTime::from_millis(1)));
        assert!(c.validate().is_ok());
        let p: PieConfig =
            toml::from_str("alpha = 1\ntupdate = \"30ms\"\nmax_burst = \"0s\"").unwrap();
        assert_eq!(p.pi.alpha, Some(1.0));
        assert_eq!(p.pi.tupdate, Some(SimTime::from_millis(30)));
        let d: DualPi2Config = toml::from_str("beta = 2.5\nsomething = 1").unwrap();
        assert_eq!(d.pi.beta, Some(2.5));
        assert_eq!(d.validate().unwrap_err().0, "something");
    }
}
