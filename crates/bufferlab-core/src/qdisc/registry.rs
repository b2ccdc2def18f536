//! The registry of queue-discipline kinds: the `kind = "..."` of a scenario's `queue` table.
//!
//! Each discipline keeps its configuration (fields, defaults with their sources, presets,
//! validation) beside its algorithm in its own file; this enum only names the kinds. Adding a
//! discipline is one variant here and one arm in each `match` below (build, limit, validate),
//! all in this file: see CONTRIBUTING.md, "Recipe: adding a queue discipline".

use super::cake::{Cake, CakeConfig};
use super::classful::{Classful, ClassfulConfig};
use super::cobalt::{Cobalt, CobaltConfig};
use super::codel::{Codel, CodelConfig};
use super::docsis_pie::{DocsisPie, DocsisPieConfig};
use super::droptail::{DropTail, DropTailConfig};
use super::drr::{Drr, DrrConfig};
use super::dualpi2::{DualPi2, DualPi2Config};
use super::fq::{Fq, FqConfig};
use super::fq_codel::{FqCodel, FqCodelConfig};
use super::lalred::Lalred;
use super::pi::{Pi, PiConfig};
use super::pie::{Pie, PieConfig};
use super::police::{Police, PoliceConfig};
use super::prio::{Prio, PrioConfig};
use super::red::{Red, RedConfig, Variant};
use super::rem::{Rem, RemConfig};
use super::rio::{Rio, RioConfig};
use super::sfq::{Sfq, SfqConfig};
use super::tbf::{Tbf, TbfConfig};
use super::QueueDisc;
use crate::units::QueueLimit;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A queue discipline and its parameters.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QueueConfig {
    /// FIFO with tail drop.
    Droptail(DropTailConfig),
    /// Random Early Detection (Floyd & Jacobson 1993), ns-2 / ns-3 / Linux presets.
    Red(RedConfig),
    /// Adaptive RED (Floyd, Gummadi & Shenker 2001).
    Ared(RedConfig),
    /// LALRED: RED with a discretized-pursuit learning automaton (Misra et al. 2010).
    Lalred(RedConfig),
    /// Per-flow fair queueing (ns-2 FQLink).
    Fq(FqConfig),
    /// Deficit Round Robin (Shreedhar & Varghese 1995, ns-2 drr.cc).
    Drr(DrrConfig),
    /// Stochastic Fairness Queueing (McKenney 1990, Linux sch_sfq).
    Sfq(SfqConfig),
    /// Strict priority by class.
    Prio(PrioConfig),
    /// CoDel (RFC 8289).
    Codel(CodelConfig),
    /// FQ-CoDel (RFC 8290).
    FqCodel(FqCodelConfig),
    /// COBALT, CoDel and BLUE (Linux sch_cake's AQM with one queue, ns-3 CobaltQueueDisc).
    Cobalt(CobaltConfig),
    /// CAKE (Høiland-Jørgensen, Täht & Morton, LANMAN 2018; Linux sch_cake): shaper, per-flow
    /// and per-host fairness, diffserv tins, ACK filter, overhead compensation.
    Cake(CakeConfig),
    /// PIE (RFC 8033).
    Pie(PieConfig),
    /// DOCSIS-PIE, PIE with the DOCSIS 3.1 cable modem rules (RFC 8034).
    DocsisPie(DocsisPieConfig),
    /// PI (Hollot, Misra, Towsley & Gong 2001), as ns-2's Queue/PI.
    Pi(PiConfig),
    /// REM, Random Exponential Marking (Athuraliya, Low, Li & Yin 2001), as ns-2's Queue/REM.
    Rem(RemConfig),
    /// RIO, RED with In and Out (Clark & Fang 1998), as ns-2's Queue/RED/RIO; In = flows
    /// with a non-zero ns-2 flow id.
    Rio(RioConfig),
    /// DualPI2, the L4S DualQ Coupled AQM (RFC 9332, Linux sch_dualpi2).
    #[serde(rename = "dualpi2")]
    DualPi2(DualPi2Config),
    /// Class-based queues, each with its own discipline, under a weighted scheduler.
    Classful(ClassfulConfig),
    /// Token-bucket shaper in front of a child discipline (Linux sch_tbf, ns-3 TbfQueueDisc).
    Tbf(TbfConfig),
    /// A policer: out-of-profile packets dropped or ECN-marked at once, the rest to a child
    /// discipline (two colours as Linux act_police, or RFC 2698's two-rate three-colour marker).
    Police(PoliceConfig),
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
    /// The discipline this configuration describes.
    pub fn build(&self) -> Box<dyn QueueDisc> {
        match self {
            QueueConfig::Droptail(c) => Box::new(DropTail::new(c)),
            QueueConfig::Red(c) => Box::new(Red::new(c, Variant::Red)),
            QueueConfig::Ared(c) => Box::new(Red::new(c, Variant::Adaptive)),
            QueueConfig::Lalred(c) => Box::new(Lalred::new(c)),
            QueueConfig::Fq(c) if c.preset == super::fq::FqPreset::Ns2 => {
                Box::new(super::fq_ns2::Ns2Fq::new(c.limit, c.flavour))
            }
            QueueConfig::Fq(c) => Box::new(Fq::new(c)),
            QueueConfig::Drr(c) => Box::new(Drr::new(c)),
            QueueConfig::Sfq(c) if c.preset == super::sfq::SfqPreset::Ns2 => {
                let QueueLimit::Packets(n) = c.limit() else {
                    unreachable!("validate refuses a byte limit for ns-2's SFQ")
                };
                Box::new(super::sfq_ns2::Ns2Sfq::new(n, c.divisor()))
            }
            QueueConfig::Sfq(c) => Box::new(Sfq::new(c)),
            QueueConfig::Prio(c) => Box::new(Prio::new(c)),
            QueueConfig::Codel(c) => Box::new(Codel::new(c)),
            QueueConfig::FqCodel(c) => Box::new(FqCodel::new(c)),
            QueueConfig::Cobalt(c) => Box::new(Cobalt::new(c)),
            QueueConfig::Cake(c) => Box::new(Cake::new(c)),
            QueueConfig::Pie(c) => Box::new(Pie::new(c)),
            QueueConfig::DocsisPie(c) => Box::new(DocsisPie::new(c)),
            QueueConfig::DualPi2(c) => Box::new(DualPi2::new(c)),
            QueueConfig::Pi(c) => Box::new(Pi::new(c)),
            QueueConfig::Rem(c) => Box::new(Rem::new(c)),
            QueueConfig::Rio(c) => Box::new(Rio::new(c)),
            QueueConfig::Classful(c) => Box::new(Classful::new(c)),
            QueueConfig::Tbf(c) => Box::new(Tbf::new(c, c.child().build())),
            QueueConfig::Police(c) => Box::new(Police::new(c, c.child().build())),
            QueueConfig::Python(_) => {
                unreachable!("built by the scenario builder through Extensions")
            }
        }
    }

    /// The hard limit, to check that one packet fits.
    pub fn limit(&self) -> QueueLimit {
        match self {
            QueueConfig::Droptail(c) => c.limit,
            QueueConfig::Red(c) | QueueConfig::Ared(c) | QueueConfig::Lalred(c) => {
                super::red::configured_limit(c)
            }
            QueueConfig::Fq(c) => c.limit,
            QueueConfig::Drr(c) => c.limit,
            QueueConfig::Sfq(c) => c.limit(),
            QueueConfig::Prio(c) => c.limit,
            QueueConfig::Codel(c) => super::codel::configured_limit(c),
            QueueConfig::FqCodel(c) => super::fq_codel::configured_limit(c),
            QueueConfig::Cobalt(c) => super::cobalt::configured_limit(c),
            QueueConfig::Cake(c) => super::cake::config::configured_limit(c),
            QueueConfig::Pie(c) => super::pie::configured_limit(c),
            QueueConfig::DocsisPie(c) => super::docsis_pie::configured_limit(c),
            QueueConfig::DualPi2(c) => super::dualpi2::configured_limit(c),
            QueueConfig::Pi(c) => super::pi::configured_limit(c),
            QueueConfig::Rem(c) => super::rem::configured_limit(c),
            QueueConfig::Rio(c) => c.limit,
            QueueConfig::Classful(c) => c.limit(),
            QueueConfig::Tbf(c) => c.child().limit(),
            QueueConfig::Police(c) => c.child().limit(),
            // The Python class decides; nothing to check before it runs.
            QueueConfig::Python(_) => QueueLimit::Packets(u64::MAX),
        }
    }

    /// Bytes one port's discipline allocates when it is built (flow tables, bands, reserved
    /// queues; not the packets it will hold), for the memory estimate made before a network
    /// is built (`scenario/bounds.rs`). The disciplines not listed hold a few hundred bytes.
    pub fn state_bytes(&self) -> u64 {
        match self {
            QueueConfig::FqCodel(c) => super::fq_codel::state_bytes(c),
            QueueConfig::Cake(c) => super::cake::state_bytes(c),
            QueueConfig::Sfq(c) => super::sfq::state_bytes(c),
            QueueConfig::Prio(c) => super::prio::state_bytes(c),
            QueueConfig::Classful(c) => c.classes.iter().map(|k| k.queue.state_bytes()).sum(),
            QueueConfig::Tbf(c) => c.child().state_bytes(),
            QueueConfig::Police(c) => c.child().state_bytes(),
            _ => 0,
        }
    }

    /// Checks values serde cannot: (field relative to the queue, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        match self {
            QueueConfig::Red(c) | QueueConfig::Ared(c) | QueueConfig::Lalred(c) => c.validate(),
            QueueConfig::Drr(c) => c.validate(),
            QueueConfig::Sfq(c) => c.validate(),
            QueueConfig::Prio(c) => c.validate(),
            QueueConfig::FqCodel(c) => c.validate(),
            QueueConfig::Cobalt(c) => c.validate(),
            QueueConfig::Cake(c) => c.validate(),
            QueueConfig::Pie(c) => c.validate(),
            QueueConfig::DocsisPie(c) => c.validate(),
            QueueConfig::DualPi2(c) => c.validate(),
            QueueConfig::Pi(c) => c.validate(),
            QueueConfig::Rem(c) => c.validate(),
            QueueConfig::Rio(c) => c.validate(),
            QueueConfig::Classful(c) => c.validate(),
            QueueConfig::Codel(c) => c.validate(),
            QueueConfig::Tbf(c) => c.validate(),
            QueueConfig::Police(c) => c.validate(),
            QueueConfig::Droptail(_) | QueueConfig::Fq(_) | QueueConfig::Python(_) => Ok(()),
        }
    }
}
