//! Random loss on a link direction.
//! * Bernoulli: each packet lost independently with probability p (ns-2 `ErrorModel` with
//!   `unit_ pkt` and a uniform random variable; ns-3 `RateErrorModel` in packet units).
//! * Gilbert-Elliott: a two-state Markov chain stepped once per packet (Gilbert 1960;
//!   Elliott 1963), good -> bad with p_good_bad, bad -> good with p_bad_good, loss probability
//!   loss_good / loss_bad in each state. Mean burst length 1/p_bad_good; stationary share of the
//!   bad state p_good_bad / (p_good_bad + p_bad_good).
//! * Per flow: ns-2's `ErrorModule Fid` with its deterministic models (`error_module.rs`).

pub use super::error_module::Fate;
use super::error_module::{ErrorChain, ErrorModule, FlowLossModel, ModuleConfig};
use crate::packet::Packet;
use crate::rng::Rng;
use rand::RngExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------- configuration

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
    /// Deterministic loss by flow (ns-2's `ErrorModule Fid`, `error_module.rs`): each model
    /// sees the packets of the flow ids it lists.
    PerFlow {
        /// The models, each with the flow ids whose packets it sees.
        models: Vec<FlowLossModel>,
        /// The model (its index in `models`, from 0) that sees the packets of the flows no
        /// model lists; left out, they pass (ns-2's `$em default pass`).
        #[serde(default)]
        unbound: Option<usize>,
        /// Default `before_queue`: ns-2's `$link errormodule` puts the module at the link's head.
        #[serde(default = "before_queue")]
        position: LossPosition,
        /// More error modules the packets this one passes meet next, in order (ns-2: each
        /// `$link errormodule` puts its module in front of those on the link already, so this
        /// one is the last the script put there).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        then: Vec<ModuleConfig>,
    },
}

fn before_queue() -> LossPosition {
    LossPosition::BeforeQueue
}

fn one() -> f64 {
    1.0
}

impl LossConfig {
    pub fn position(&self) -> LossPosition {
        match self {
            LossConfig::Bernoulli { position, .. }
            | LossConfig::GilbertElliott { position, .. }
            | LossConfig::PerFlow { position, .. } => *position,
        }
    }
}

// ---------------------------------------------------------------- the models

pub enum LossModel {
    None,
    Bernoulli {
        p: f64,
    },
    GilbertElliott {
        p_gb: f64,
        p_bg: f64,
        loss_good: f64,
        loss_bad: f64,
        bad: bool,
    },
    PerFlow(Box<ErrorChain>),
}

impl LossModel {
    pub fn from_config(cfg: Option<&LossConfig>) -> Self {
        match cfg {
            None => LossModel::None,
            Some(LossConfig::Bernoulli { rate, .. }) => LossModel::Bernoulli { p: *rate },
            Some(LossConfig::GilbertElliott {
                p_good_bad,
                p_bad_good,
                loss_good,
                loss_bad,
                ..
            }) => LossModel::GilbertElliott {
                p_gb: *p_good_bad,
                p_bg: *p_bad_good,
                loss_good: *loss_good,
                loss_bad: *loss_bad,
                bad: false,
            },
            Some(LossConfig::PerFlow {
                models,
                unbound,
                then,
                ..
            }) => LossModel::PerFlow(Box::new(ErrorChain::new(
                ErrorModule::new(models, *unbound),
                then,
            ))),
        }
    }

    /// The flows' ids by flow index, for a per-flow model.
    pub fn set_flow_ids(&mut self, fids: &[u32]) {
        if let LossModel::PerFlow(em) = self {
            em.set_flow_ids(fids);
        }
    }

    /// Decides the fate of one packet: true if it is lost (a per-flow model that marks
    /// instead sets the packet's ECN field and returns false).
    #[inline]
    pub fn lose(&mut self, rng: &mut Rng, pkt: &mut Packet) -> bool {
        self.fate(rng, pkt, 0) == Fate::Lost
    }

    /// Decides the fate of one packet from module `from` of a per-flow chain on (0 for a
    /// packet arriving; a held packet's `next` when it is released): it passes, is lost, or
    /// (a per-flow model with `delay`) is held.
    #[inline]
    pub fn fate(&mut self, rng: &mut Rng, pkt: &mut Packet, from: usize) -> Fate {
        // every packet of every link asks: the common answer stays inline, the draws do not
        if matches!(self, LossModel::None) {
            return Fate::Pass;
        }
        if let LossModel::PerFlow(chain) = self {
            return chain.fate(pkt, from);
        }
        if self.draw(rng) {
            Fate::Lost
        } else {
            Fate::Pass
        }
    }

    #[inline(never)]
    fn draw(&mut self, rng: &mut Rng) -> bool {
        match self {
            LossModel::None | LossModel::PerFlow(_) => false,
            // ns-2 `ErrorModel::CorruptPkt`: `u < rate_`, u drawn for every packet
            LossModel::Bernoulli { p } => {
                (*p > 0.0 || rng.is_ns2_default()) && rng.uniform01() < *p
            }
            LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
                bad,
            } => {
                let flip = if *bad { *p_bg } else { *p_gb };
                if rng.random::<f64>() < flip {
                    *bad = !*bad;
                }
                let p = if *bad { *loss_bad } else { *loss_good };
                p > 0.0 && rng.random::<f64>() < p
            }
        }
    }
}

/// A port's loss: its model, the model's random stream and where on the link it loses. A
/// port holds one only when its link loses (`Port::loss`, `None` otherwise: the 80 bytes of
/// model, stream and position are then one null pointer, and a packet reads no more than that
/// pointer to learn that it passes; docs/performance.md, "What a flow holds after the report
/// is streamed").
pub struct PortLoss {
    pub model: LossModel,
    pub rng: Rng,
    pub position: LossPosition,
    /// Packets lost from the warm-up on (the port's `lost_packets`; kept here, since only a
    /// port with a loss model loses any).
    pub lost: u64,
}

impl PortLoss {
    /// The port's loss, None for a link that loses nothing (`LossModel::None`, which never
    /// draws: the same packets pass with or without it).
    pub fn new(model: LossModel, rng: Rng, position: LossPosition) -> Option<Box<Self>> {
        (!matches!(model, LossModel::None)).then(|| {
            Box::new(Self {
                model,
                rng,
                position,
                lost: 0,
            })
        })
    }

    /// The fate of a packet reaching the error modules before the queue from module `from`
    /// on ([`LossModel::fate`]); it passes if this loss is after the link.
    #[inline]
    pub fn before_queue(&mut self, pkt: &mut Packet, from: usize) -> Fate {
        if self.position != LossPosition::BeforeQueue {
            return Fate::Pass;
        }
        self.model.fate(&mut self.rng, pkt, from)
    }

    /// Whether a packet leaving the wire is lost there ([`LossModel::lose`]); never if this
    /// loss is before the queue.
    #[inline]
    pub fn after_link(&mut self, pkt: &mut Packet) -> bool {
        self.position == LossPosition::AfterLink && self.model.lose(&mut self.rng, pkt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- long-run loss rates ----
    #[test]
    fn bernoulli_rate() {
        let mut m = LossModel::Bernoulli { p: 0.02 };
        let mut rng = crate::rng::stream(1, "loss");
        let n = 500_000;
        let mut p = Packet::default();
        let lost = (0..n).filter(|_| m.lose(&mut rng, &mut p)).count();
        assert!((lost as f64 / n as f64 - 0.02).abs() < 0.001);
    }

    #[test]
    fn gilbert_elliott_stationary_rate_and_bursts() {
        let mut m = LossModel::GilbertElliott {
            p_gb: 0.01,
            p_bg: 0.25,
            loss_good: 0.0,
            loss_bad: 1.0,
            bad: false,
        };
        let mut rng = crate::rng::stream(2, "loss");
        let n = 1_000_000;
        let mut p = Packet::default();
        let seq: Vec<bool> = (0..n).map(|_| m.lose(&mut rng, &mut p)).collect();
        let rate = seq.iter().filter(|&&l| l).count() as f64 / n as f64;
        let expect = 0.01 / (0.01 + 0.25);
        assert!(
            (rate / expect - 1.0).abs() < 0.05,
            "rate {rate} expected {expect}"
        );
        // mean burst length 1/p_bg = 4
        let bursts = seq.windows(2).filter(|w| !w[0] && w[1]).count() as f64;
        let mean_burst = seq.iter().filter(|&&l| l).count() as f64 / bursts;
        assert!((mean_burst / 4.0 - 1.0).abs() < 0.05, "burst {mean_burst}");
    }
}
