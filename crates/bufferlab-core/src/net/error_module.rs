//! Deterministic per-flow loss on a link direction: ns-2.35's `ErrorModule Fid` and the two
//! counting error models the ns-2 validation suites bind to it (queue/errmodel.cc,
//! tcl/lib/ns-errmodel.tcl, ns-2.35).
//! * The module classifies each packet by its flow id (ns-2's `fid_`, a flow's `trace_fid`) to
//!   the model bound to that id (`$em bind $model fid`, a `Classifier/Hash/Fid` slot); a packet
//!   of an id no model is bound to goes to the `unbound` model, or passes (`$em default pass`).
//!   A model bound to several ids counts their packets together.
//! * `periodic` (`ErrorModel/Periodic`, `PeriodicErrorModel::corrupt`): a count of the packets
//!   (or bytes) the model has seen grows with each one; the first packet that brings it to
//!   `offset` is lost and the count restarts at 0, then each packet that brings it to `period`
//!   is lost and restarts it; after each loss the packets while the count is below `burst` are
//!   lost too. With `offset = 1, period = 25` the 1st, 26th, 51st... packets are lost.
//! * `list` (`ErrorModel/List`, `ListErrorModel::corrupt`): the packets numbered in `drop` are
//!   lost, numbered from 0 in the order the model sees them; in byte units, the packet during
//!   which the byte count reaches each listed value.
//!
//! A lost packet is dropped (ns-2 hands it to the link's drop trace), or with `mark_ecn`
//! marked Congestion Experienced and passed on (`markecn_ true`), or with `delay` held that
//! long and then passed on past the module (`delay_pkt_ true` with `delay_`: errmodel.cc
//! `ErrorModel::recv` schedules it to the model's target, the module's, `delay_` later, where
//! it does not meet the model again).
//!
//! Several modules on one link direction ([`ErrorChain`]) see a packet one after the other: ns-2's
//! `$link errormodule` (tcl/lib/ns-link.tcl `SimpleLink errormodule`, `add-to-head`) puts each
//! new module in front of those already there, so the last one put on the link sees packets
//! first, and a packet one of them holds goes on to the next one when it is released.

use crate::packet::{Ecn, Packet};
use crate::units::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------- configuration

/// What a counting loss model counts (ns-2's `$em unit pkt` / `unit byte`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CountUnit {
    /// Each packet counts 1 (ns-2's default unit, `EU_PKT`).
    #[default]
    Packets,
    /// Each packet counts its size in bytes.
    Bytes,
}

/// One deterministic loss model of a `per_flow` loss, with the flow ids bound to it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum FlowLossModel {
    /// ns-2's `ErrorModel/Periodic`: the packet that brings the count to `offset`, then each
    /// that brings it to `period` (the count restarting at 0 after each), is lost.
    Periodic {
        /// The flow ids (`trace_fid`) whose packets this model sees.
        flows: Vec<u32>,
        #[serde(default)]
        unit: CountUnit,
        /// Count at which the first loss falls (ns-2's `offset_`, default 0: the first packet).
        #[serde(default)]
        offset: u64,
        /// Count between two losses (ns-2's `period_`, default 1).
        #[serde(default = "one")]
        period: u64,
        /// After a loss, packets are lost while the count is below this (ns-2's `burstlen_`,
        /// default 0).
        #[serde(default)]
        burst: u64,
        /// Mark lost packets Congestion Experienced and pass them on (ns-2's `markecn_`).
        #[serde(default)]
        mark_ecn: bool,
        /// Hold lost packets this long, then pass them on past the module instead of dropping
        /// them (ns-2's `delay_pkt_ true` with `delay_`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        delay: Option<SimTime>,
    },
    /// ns-2's `ErrorModel/List`: the packets numbered in `drop` (from 0, in the order the
    /// model sees them) are lost; in byte units, those during which the count of bytes reaches
    /// each listed value.
    List {
        /// The flow ids (`trace_fid`) whose packets this model sees.
        flows: Vec<u32>,
        #[serde(default)]
        unit: CountUnit,
        /// Packet numbers (or byte counts) to lose, each once.
        drop: Vec<u64>,
        #[serde(default)]
        mark_ecn: bool,
        /// Hold lost packets this long, then pass them on past the module (`delay_pkt_ true`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        delay: Option<SimTime>,
    },
}

fn one() -> u64 {
    1
}

impl FlowLossModel {
    pub fn flows(&self) -> &[u32] {
        match self {
            FlowLossModel::Periodic { flows, .. } | FlowLossModel::List { flows, .. } => flows,
        }
    }

    /// The model holds the packets it chooses (`delay`) instead of losing them.
    pub fn holds(&self) -> bool {
        self.delay().is_some()
    }

    fn delay(&self) -> Option<SimTime> {
        match self {
            FlowLossModel::Periodic { delay, .. } | FlowLossModel::List { delay, .. } => *delay,
        }
    }
}

/// One more error module on the same link direction, after the one that holds it (a second
/// `$link errormodule` in ns-2 goes in front of the first: see the module's doc).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModuleConfig {
    /// The models, each with the flow ids whose packets it sees.
    pub models: Vec<FlowLossModel>,
    /// The model that sees the packets of the flows no model lists; left out, they pass.
    #[serde(default)]
    pub unbound: Option<usize>,
}

/// What a module (or a chain of them) does with a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// It goes on (marked, if a marking model chose it).
    Pass,
    /// It is lost: the link's drop trace takes it.
    Lost,
    /// It is held `delay`, then goes on from module `next` of the chain.
    Held { delay: SimTime, next: usize },
}

/// Checks a `per_flow` loss: each flow id bound once, `unbound` naming a model, a drop list
/// without repeats (ns-2: "ListErrorModel: error: dup N in list"). Err: (field, message).
pub fn check(models: &[FlowLossModel], unbound: Option<usize>) -> Result<(), (String, String)> {
    let mut seen = std::collections::BTreeMap::new();
    for (i, m) in models.iter().enumerate() {
        for &fid in m.flows() {
            if let Some(j) = seen.insert(fid, i) {
                return Err((
                    format!("models[{i}].flows"),
                    format!("flow id {fid} is bound to models[{j}] already; bind it once"),
                ));
            }
        }
        if let FlowLossModel::List { drop, .. } = m {
            let mut d = drop.clone();
            d.sort_unstable();
            if let Some(w) = d.windows(2).find(|w| w[0] == w[1]) {
                return Err((
                    format!("models[{i}].drop"),
                    format!("{} is listed twice; list each packet once", w[0]),
                ));
            }
        }
    }
    if let Some(u) = unbound.filter(|&u| u >= models.len()) {
        return Err((
            "unbound".into(),
            format!(
                "{u}: no such model (there are {}); give a model's index from 0, or leave it \
                 out for unbound flows to pass",
                models.len()
            ),
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------- the module

/// A model's count (ns-2's `cnt_`) and where it is in its pattern.
#[derive(Debug, Clone)]
enum Counter {
    Periodic {
        offset: u64,
        period: u64,
        burst: u64,
        /// The first loss (at `offset`) has happened (ns-2's `first_time_` set).
        started: bool,
    },
    List {
        /// Sorted packet numbers or byte counts, and the next one due (ns-2's `cur_`).
        drop: Vec<u64>,
        next: usize,
    },
}

#[derive(Debug, Clone)]
struct Model {
    bytes: bool,
    mark_ecn: bool,
    delay: Option<SimTime>,
    count: u64,
    counter: Counter,
}

impl Model {
    fn new(cfg: &FlowLossModel) -> Self {
        let (unit, mark_ecn, counter) = match cfg {
            FlowLossModel::Periodic {
                unit,
                offset,
                period,
                burst,
                mark_ecn,
                ..
            } => (
                *unit,
                *mark_ecn,
                Counter::Periodic {
                    offset: *offset,
                    period: *period,
                    burst: *burst,
                    started: false,
                },
            ),
            FlowLossModel::List {
                unit,
                drop,
                mark_ecn,
                ..
            } => {
                let mut drop = drop.clone();
                drop.sort_unstable(); // ns-2 sorts the list (qsort in parse_droplist)
                (*unit, *mark_ecn, Counter::List { drop, next: 0 })
            }
        };
        Model {
            bytes: unit == CountUnit::Bytes,
            mark_ecn,
            delay: cfg.delay(),
            count: 0,
            counter,
        }
    }

    /// Whether this packet (of `size` bytes) is lost; advances the count.
    fn corrupt(&mut self, size: u32) -> bool {
        let step = if self.bytes { size as u64 } else { 1 };
        match &mut self.counter {
            // PeriodicErrorModel::corrupt (default_drop_ 0): the count grows first
            Counter::Periodic {
                offset,
                period,
                burst,
                started,
            } => {
                self.count += step;
                let due = if *started { *period } else { *offset };
                if self.count >= due {
                    *started = true;
                    self.count = 0;
                    return true;
                }
                *started && self.count < *burst
            }
            // ListErrorModel::corrupt: packets compare their number before counting; bytes
            // compare the count with this packet's bytes in it
            Counter::List { drop, next } => {
                let reached = if self.bytes {
                    self.count + step
                } else {
                    self.count
                };
                let lost = drop.get(*next).is_some_and(|&d| {
                    if self.bytes {
                        reached >= d
                    } else {
                        reached == d
                    }
                });
                if lost {
                    *next += 1;
                }
                self.count += step;
                lost
            }
        }
    }
}

/// The per-flow loss of one link direction, built from a `per_flow` loss configuration.
pub struct ErrorModule {
    models: Vec<Model>,
    /// Flow id -> model, from the configuration.
    bound: std::collections::BTreeMap<u32, usize>,
    unbound: Option<usize>,
    /// Flow index -> model (`set_flow_ids`), the lookup a packet makes.
    by_flow: Vec<Option<usize>>,
}

impl ErrorModule {
    pub fn new(models: &[FlowLossModel], unbound: Option<usize>) -> Self {
        let mut bound = std::collections::BTreeMap::new();
        for (i, m) in models.iter().enumerate() {
            for &fid in m.flows() {
                bound.insert(fid, i);
            }
        }
        ErrorModule {
            models: models.iter().map(Model::new).collect(),
            bound,
            unbound,
            by_flow: Vec::new(),
        }
    }

    /// The flows' ids by flow index (a flow's `trace_fid`).
    pub fn set_flow_ids(&mut self, fids: &[u32]) {
        self.by_flow = fids
            .iter()
            .map(|f| self.bound.get(f).copied().or(self.unbound))
            .collect();
    }

    /// Whether the packet is lost (dropped); a model that marks instead sets its ECN field to
    /// CE and lets it pass.
    pub fn lose(&mut self, pkt: &mut Packet) -> bool {
        self.fate(pkt, 0) == Fate::Lost
    }

    /// What this module (module `at` of its chain) does with the packet. ErrorModel::recv:
    /// a chosen packet is marked (`markecn_`), else held (`delay_pkt_`), else dropped.
    fn fate(&mut self, pkt: &mut Packet, at: usize) -> Fate {
        let Some(i) = self.by_flow.get(pkt.flow.idx()).copied().flatten() else {
            return Fate::Pass;
        };
        let m = &mut self.models[i];
        if !m.corrupt(pkt.size) {
            return Fate::Pass;
        }
        if m.mark_ecn {
            if pkt.ecn.is_capable() {
                pkt.ecn = Ecn::Ce;
            }
            return Fate::Pass;
        }
        match m.delay {
            Some(delay) => Fate::Held {
                delay,
                next: at + 1,
            },
            None => Fate::Lost,
        }
    }
}

/// The error modules of one link direction, in the order packets meet them.
pub struct ErrorChain {
    modules: Vec<ErrorModule>,
}

impl ErrorChain {
    /// The first module, then those of `then` in order.
    pub fn new(first: ErrorModule, then: &[ModuleConfig]) -> Self {
        let mut modules = vec![first];
        modules.extend(then.iter().map(|m| ErrorModule::new(&m.models, m.unbound)));
        ErrorChain { modules }
    }

    pub fn set_flow_ids(&mut self, fids: &[u32]) {
        for m in &mut self.modules {
            m.set_flow_ids(fids);
        }
    }

    /// What the modules from `from` on do with the packet: the first that loses or holds it
    /// decides; a module that passes it hands it to the next.
    pub fn fate(&mut self, pkt: &mut Packet, from: usize) -> Fate {
        for (i, m) in self.modules.iter_mut().enumerate().skip(from) {
            let f = m.fate(pkt, i);
            if f != Fate::Pass {
                return f;
            }
        }
        Fate::Pass
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn periodic(offset: u64, period: u64, burst: u64) -> Model {
        Model::new(&FlowLossModel::Periodic {
            flows: vec![0],
            unit: CountUnit::Packets,
            offset,
            period,
            burst,
            mark_ecn: false,
            delay: None,
        })
    }

    fn lost(m: &mut Model, sizes: impl IntoIterator<Item = u32>) -> Vec<usize> {
        sizes
            .into_iter()
            .enumerate()
            .filter(|(_, s)| m.corrupt(*s))
            .map(|(i, _)| i + 1)
            .collect()
    }

    // ---- ns-2's counting: which packets (numbered from 1 as they arrive) are lost ----
    #[test]
    fn periodic_loses_the_offsetth_then_every_periodth() {
        // the suites' net2-lossy: offset_ 1, period_ 25 -> 1, 26, 51
        assert_eq!(lost(&mut periodic(1, 25, 0), [1000; 60]), vec![1, 26, 51]);
        // offset_ 0 loses the first packet too; period_ 1 every packet after it
        assert_eq!(lost(&mut periodic(0, 3, 0), [1000; 7]), vec![1, 4, 7]);
        assert_eq!(lost(&mut periodic(2, 1, 0), [1000; 4]), vec![2, 3, 4]);
    }

    #[test]
    fn periodic_burst_loses_the_packets_after_each_loss() {
        // burstlen_ 3: after a loss the count is 0, then 1 and 2 are below 3
        assert_eq!(
            lost(&mut periodic(1, 10, 3), [1; 13]),
            vec![1, 2, 3, 11, 12, 13]
        );
    }

    #[test]
    fn periodic_in_bytes_counts_sizes() {
        let mut m = Model::new(&FlowLossModel::Periodic {
            flows: vec![0],
            unit: CountUnit::Bytes,
            offset: 1500,
            period: 2000,
            burst: 0,
            mark_ecn: false,
            delay: None,
        });
        // counts 1000, 2000 (lost, 0), 1000, 2000 (lost, 0), 40, ...
        assert_eq!(lost(&mut m, [1000, 1000, 1000, 1000, 40]), vec![2, 4]);
    }

    #[test]
    fn list_numbers_packets_from_zero_and_bytes_by_reach() {
        let cfg = |unit, drop: Vec<u64>| FlowLossModel::List {
            flows: vec![0],
            unit,
            drop,
            mark_ecn: false,
            delay: None,
        };
        // packets 0, 3 and 4 of the model (the 1st, 4th and 5th): the list is sorted first
        let mut m = Model::new(&cfg(CountUnit::Packets, vec![4, 0, 3]));
        assert_eq!(lost(&mut m, [1000; 8]), vec![1, 4, 5]);
        // bytes: the packet during which the count reaches 1500, then 1600 (the next packet,
        // as one loss is decided a packet), then 5000
        let mut m = Model::new(&cfg(CountUnit::Bytes, vec![1500, 1600, 5000]));
        assert_eq!(lost(&mut m, [1000; 6]), vec![2, 3, 5]);
    }

    fn pkt(flow: u32, ecn: Ecn) -> Packet {
        Packet {
            flow: crate::ids::FlowId(flow),
            size: 1000,
            ecn,
            ..Packet::default()
        }
    }

    #[test]
    fn the_module_counts_per_model_and_lets_unbound_flows_pass() {
        let models = [
            FlowLossModel::List {
                flows: vec![7, 8],
                unit: CountUnit::Packets,
                drop: vec![1, 2],
                mark_ecn: false,
                delay: None,
            },
            FlowLossModel::Periodic {
                flows: vec![9],
                unit: CountUnit::Packets,
                offset: 1,
                period: 1,
                burst: 0,
                mark_ecn: true,
                delay: None,
            },
        ];
        assert!(check(&models, None).is_ok());
        let mut em = ErrorModule::new(&models, None);
        // flow index -> fid: 0 -> 7, 1 -> 8, 2 -> 9, 3 -> 5 (unbound)
        em.set_flow_ids(&[7, 8, 9, 5]);
        // the list model sees flows 7 and 8 together: its packets 1 and 2 are lost
        let seq: Vec<bool> = [0, 1, 1, 0]
            .iter()
            .map(|&f| em.lose(&mut pkt(f, Ecn::NotEct)))
            .collect();
        assert_eq!(seq, [false, true, true, false]);
        // unbound flow 5 passes, always
        assert!((0..5).all(|_| !em.lose(&mut pkt(3, Ecn::NotEct))));
        // the marking model marks ECN-capable packets and passes all
        let mut p = pkt(2, Ecn::Ect0);
        assert!(!em.lose(&mut p));
        assert_eq!(p.ecn, Ecn::Ce);
        // `unbound` sends the other flows to a model
        let mut em = ErrorModule::new(&models, Some(0));
        em.set_flow_ids(&[7, 8, 9, 5]);
        let seq: Vec<bool> = [3, 3, 0]
            .iter()
            .map(|&f| em.lose(&mut pkt(f, Ecn::NotEct)))
            .collect();
        assert_eq!(seq, [false, true, true]);
    }

    #[test]
    fn a_holding_model_holds_and_the_chain_goes_on_from_the_next_module() {
        let list = |drop: Vec<u64>, delay| FlowLossModel::List {
            flows: vec![5],
            unit: CountUnit::Packets,
            drop,
            mark_ecn: false,
            delay,
        };
        let d = SimTime::from_millis(200);
        let front = ErrorModule::new(&[list(vec![1], Some(d))], None);
        let then = [ModuleConfig {
            models: vec![list(vec![0], None)],
            unbound: None,
        }];
        let mut chain = ErrorChain::new(front, &then);
        chain.set_flow_ids(&[5]);
        // packet 0: the front module passes it, the next one loses it (its packet 0)
        assert_eq!(chain.fate(&mut pkt(0, Ecn::NotEct), 0), Fate::Lost);
        // packet 1: the front module holds it; it goes on from module 1
        let held = chain.fate(&mut pkt(0, Ecn::NotEct), 0);
        assert_eq!(held, Fate::Held { delay: d, next: 1 });
        // a later packet passes both (module 1's packet 1)
        assert_eq!(chain.fate(&mut pkt(0, Ecn::NotEct), 0), Fate::Pass);
        // the held one, released, is module 1's packet 2: it passes; the front module does
        // not count it again
        assert_eq!(chain.fate(&mut pkt(0, Ecn::NotEct), 1), Fate::Pass);
        // a marking model marks first (ErrorModel::recv: markecn_ before delay_pkt_)
        let marking = FlowLossModel::Periodic {
            flows: vec![5],
            unit: CountUnit::Packets,
            offset: 0,
            period: 1,
            burst: 0,
            mark_ecn: true,
            delay: Some(d),
        };
        let mut chain = ErrorChain::new(ErrorModule::new(&[marking], None), &[]);
        chain.set_flow_ids(&[5]);
        let mut p = pkt(0, Ecn::Ect0);
        assert_eq!(chain.fate(&mut p, 0), Fate::Pass);
        assert_eq!(p.ecn, Ecn::Ce);
    }

    #[test]
    fn checks_name_the_field() {
        let list = |flows: Vec<u32>, drop: Vec<u64>| FlowLossModel::List {
            flows,
            unit: CountUnit::Packets,
            drop,
            mark_ecn: false,
            delay: None,
        };
        let e = check(&[list(vec![1], vec![2]), list(vec![1], vec![3])], None).unwrap_err();
        assert_eq!(e.0, "models[1].flows");
        let e = check(&[list(vec![1], vec![2, 5, 2])], None).unwrap_err();
        assert_eq!(e.0, "models[0].drop");
        let e = check(&[list(vec![1], vec![2])], Some(1)).unwrap_err();
        assert_eq!(e.0, "unbound");
    }
}
