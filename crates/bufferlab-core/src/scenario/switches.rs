//! Shared-buffer switches (`[switches.NAME]`, `net/shared_buffer`): each checked against
//! the topology, its buffer pool built, and the queue of each of its output ports drawing
//! from that pool (the ports are built by `links.rs`, which asks here first).

use super::config::Scenario;
use super::topology::{LinkSpec, Topology};
use super::ScenarioError;
use crate::net::port_queue::PortQueue;
use crate::net::shared_buffer::abm;
use crate::net::shared_buffer::config::{SharedPolicy, SwitchConfig};
use crate::net::shared_buffer::pool::SharedPool;
use crate::net::shared_buffer::port::PriorityPort;
use crate::net::shared_buffer::priorities;
use crate::net::shared_buffer::queue::SharedQueue;
use crate::qdisc::classful::ClassScheduler;
use crate::units::{QueueLimit, SimTime};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

type Pool = Rc<RefCell<SharedPool>>;

/// The switches of a scenario, by node index.
pub(super) struct Switches<'a> {
    by_node: BTreeMap<usize, (&'a SwitchConfig, Pool)>,
}

impl<'a> Switches<'a> {
    /// Each switch checked (its values, its node, its per-queue links, what its policy
    /// needs) and its pool made.
    pub(super) fn new(s: &'a Scenario, topo: &Topology) -> Result<Self, ScenarioError> {
        let mut by_node = BTreeMap::new();
        for (name, cfg) in &s.switches {
            let path = format!("switches.{name}");
            cfg.validate()
                .map_err(|(f, m)| ScenarioError::field(format!("{path}.{f}"), m))?;
            let node = topo.node(name).ok_or_else(|| {
                ScenarioError::field(
                    &path,
                    format!("no node is named \"{name}\"; a switch is a node of the topology: name one of {}", topo.nodes.iter().take(8).cloned().collect::<Vec<_>>().join(", ")),
                )
            })?;
            let links: Vec<&str> = topo
                .links
                .iter()
                .filter(|l| l.a == node || l.b == node)
                .map(|l| l.name.as_str())
                .collect();
            for link in cfg.queues.keys() {
                if !links.contains(&link.as_str()) {
                    return Err(ScenarioError::field(
                        format!("{path}.queues.{link}"),
                        format!(
                            "no link \"{link}\" leaves switch \"{name}\"; its links are {}",
                            links.join(", ")
                        ),
                    ));
                }
            }
            check_policy(&path, cfg, &links)?;
            let (buffer, bytes) = match cfg.buffer {
                QueueLimit::Packets(p) => (p, false),
                QueueLimit::Bytes(b) => (b, true),
            };
            let mut pool = SharedPool::new(name.clone(), buffer, bytes, cfg.policy, s.warmup);
            if cfg.policy == SharedPolicy::Abm {
                let sat = match cfg.abm_saturation {
                    Some(QueueLimit::Packets(v) | QueueLimit::Bytes(v)) => v,
                    None if bytes => abm::DEFAULT_SATURATION_BYTES,
                    None => abm::DEFAULT_SATURATION_PACKETS,
                };
                pool = pool.with_abm(
                    sat,
                    cfg.abm_interval.unwrap_or(abm::DEFAULT_INTERVAL),
                    cfg.abm_unscheduled_alpha
                        .unwrap_or(abm::DEFAULT_UNSCHEDULED_ALPHA),
                );
            }
            if let Some(dt) = s.monitor.queue_interval.filter(|&dt| dt > SimTime::ZERO) {
                pool.sample_every(dt);
            }
            by_node.insert(node, (cfg, Rc::new(RefCell::new(pool))));
        }
        Ok(Self { by_node })
    }

    /// Whether the port from node `from` onto link `link` marks ECN: `from` is a switch and
    /// one of the port's queues has an ECN threshold K (for the recipes' warnings).
    pub(super) fn port_marks(&self, from: usize, link: &str) -> bool {
        self.by_node.get(&from).is_some_and(|(cfg, _)| {
            cfg.port_priorities()
                .iter()
                .any(|p| cfg.queue_settings(link, *p).ecn_threshold.is_some())
        })
    }

    /// The queue of the port from node `from` onto `link` towards `to`, when `from` is a
    /// switch: a FIFO of the switch's pool, with the queue's alpha, threshold and ECN K; with
    /// priority classes, one such queue per priority and the switch's scheduler between them.
    pub(super) fn queue(&self, from: usize, link: &LinkSpec, to: &str) -> Option<PortQueue> {
        let (cfg, pool) = self.by_node.get(&from)?;
        let rate = if link.a == from {
            link.rate
        } else {
            link.reverse_rate
        };
        let priorities = cfg.port_priorities();
        let mut queues = Vec::with_capacity(priorities.len());
        for p in &priorities {
            let set = cfg.queue_settings(&link.name, *p);
            let threshold = set.threshold.map(|t| match t {
                QueueLimit::Packets(v) | QueueLimit::Bytes(v) => v,
            });
            let mut pool = pool.borrow_mut();
            let index = pool.add_queue(link.name.clone(), to.to_string(), set.alpha, threshold);
            // ABM's n_p counts the congested queues of each priority (abm.rs)
            pool.set_port(index, p.unwrap_or(0), rate.0 as f64, priorities.len());
            if let Some(p) = p {
                pool.set_priority(index, *p);
            }
            queues.push((index, set));
        }
        let q: Box<dyn crate::qdisc::QueueDisc> = match queues[..] {
            [(index, set)] if cfg.priorities.is_empty() => {
                Box::new(SharedQueue::new(pool.clone(), index, set.ecn_threshold))
            }
            _ => Box::new(PriorityPort::new(
                pool.clone(),
                &queues,
                cfg.scheduler.unwrap_or(ClassScheduler::Priority),
                cfg.quantum.unwrap_or(priorities::DEFAULT_QUANTUM),
            )),
        };
        Some(PortQueue::from(q))
    }

    /// The pools, in the order of the switches' node names, for the report.
    pub(super) fn pools(&self) -> Vec<Pool> {
        let mut named: Vec<(String, Pool)> = self
            .by_node
            .values()
            .map(|(_, p)| (p.borrow().name.clone(), p.clone()))
            .collect();
        named.sort_by(|a, b| a.0.cmp(&b.0));
        named.into_iter().map(|(_, p)| p).collect()
    }
}

/// Dynamic Threshold needs every queue's alpha, static thresholds every queue's threshold.
fn check_policy(path: &str, cfg: &SwitchConfig, links: &[&str]) -> Result<(), ScenarioError> {
    let missing = |has: &dyn Fn(&str, Option<usize>) -> bool| {
        links.iter().find_map(|l| {
            cfg.port_priorities()
                .into_iter()
                .find(|p| !has(l, *p))
                .map(|p| (*l, p))
        })
    };
    // the queue named in the message: the port's, or the port's queue of one priority
    let which = |l: &str, p: Option<usize>, field: &str| {
        match p {
        None => format!("queues.{l}.{field} and every other queue's"),
        Some(p) => format!("priorities[{p}].{field} (or queues.{l}.priorities[{p}].{field}) and every other priority's"),
    }
    };
    match cfg.policy {
        SharedPolicy::DynamicThreshold | SharedPolicy::Abm if cfg.alpha.is_none() => {
            if let Some((l, p)) = missing(&|l, p| cfg.queue_settings(l, p).alpha.is_some()) {
                let policy = if cfg.policy == SharedPolicy::Abm {
                    "abm"
                } else {
                    "dynamic_threshold"
                };
                return Err(ScenarioError::field(
                    format!("{path}.alpha"),
                    format!("{policy} needs alpha (a queue may hold alpha times the unused buffer): give alpha = 1.0, or {}", which(l, p, "alpha")),
                ));
            }
        }
        SharedPolicy::StaticThreshold if cfg.threshold.is_none() => {
            if let Some((l, p)) = missing(&|l, p| cfg.queue_settings(l, p).threshold.is_some()) {
                return Err(ScenarioError::field(
                    format!("{path}.threshold"),
                    format!("static_threshold needs threshold (what each queue may hold, in the buffer's unit): give e.g. threshold = \"50p\", or {}", which(l, p, "threshold")),
                ));
            }
        }
        _ => {}
    }
    if cfg.policy != SharedPolicy::Abm {
        for (given, field) in [
            (cfg.abm_saturation.is_some(), "abm_saturation"),
            (cfg.abm_interval.is_some(), "abm_interval"),
            (cfg.abm_unscheduled_alpha.is_some(), "abm_unscheduled_alpha"),
        ] {
            if given {
                return Err(ScenarioError::field(
                    format!("{path}.{field}"),
                    "is read by policy = \"abm\" only; remove it or set policy = \"abm\"",
                ));
            }
        }
    }
    Ok(())
}
