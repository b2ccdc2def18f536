//! Priority classes of a shared-buffer switch's ports: the settings of each (port, priority)
//! queue, resolved from the scenario's tables, and their validation.
//!
//! Merchant switch chips give each egress port eight queues, one per traffic class (IEEE
//! 802.1Q-2018, clause 8.6.6: up to eight traffic classes per port), every queue drawing from
//! the shared buffer with its own Dynamic Threshold alpha (Choudhury and Hahne 1998 apply the
//! threshold per queue, section III; a chip sets alpha per queue, or per priority group) and
//! its own ECN marking threshold (DCTCP's K, Alizadeh et al. 2010, section 3.1, is a per-queue
//! setting). ABM's alpha_p and n_p are per priority (Addanki et al. 2022, section 3; `abm.rs`).
//!
//! A value of the queue of priority p on the port onto link L is the first given of, from the
//! most specific: `queues.L.priorities[p]`, `queues.L`, `priorities[p]`, the switch's own (a
//! port's table beats the switch's, a priority's entry beats its table). A weight is
//! `queues.L.priorities[p].weight`, else `priorities[p].weight`, else 1.

use super::config::{PriorityConfig, SharedQueueConfig, SwitchConfig};
use crate::units::{Bytes, QueueLimit};

/// IEEE 802.1Q's eight traffic classes per port.
pub const MAX_PRIORITIES: usize = 8;
/// DRR's quantum per unit of weight: one Ethernet MTU, 1500 B (Shreedhar and Varghese 1996:
/// with a quantum of at least the largest packet a queue sends a packet on each turn; the
/// same default as the `classful` discipline's).
pub const DEFAULT_QUANTUM: Bytes = Bytes(1500);

/// What one output queue of the switch runs with.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct QueueSettings {
    pub alpha: Option<f64>,
    pub threshold: Option<QueueLimit>,
    pub ecn_threshold: Option<QueueLimit>,
    pub weight: u32,
}

impl SwitchConfig {
    /// The settings of the queue of `priority` (None: the port's one queue, without priority
    /// classes) on the port onto `link`, resolved as the module says.
    pub fn queue_settings(&self, link: &str, priority: Option<usize>) -> QueueSettings {
        let port = self.queues.get(link);
        let port_p = priority.and_then(|p| port.and_then(|q| q.priorities.get(p)));
        let switch_p = priority.and_then(|p| self.priorities.get(p));
        fn pick<T: Copy>(
            port_p: Option<&PriorityConfig>,
            port: Option<&SharedQueueConfig>,
            switch_p: Option<&PriorityConfig>,
            switch: Option<T>,
            of_p: impl Fn(&PriorityConfig) -> Option<T>,
            of_q: impl Fn(&SharedQueueConfig) -> Option<T>,
        ) -> Option<T> {
            port_p
                .and_then(&of_p)
                .or_else(|| port.and_then(of_q))
                .or_else(|| switch_p.and_then(&of_p))
                .or(switch)
        }
        QueueSettings {
            alpha: pick(port_p, port, switch_p, self.alpha, |c| c.alpha, |q| q.alpha),
            threshold: pick(
                port_p,
                port,
                switch_p,
                self.threshold,
                |c| c.threshold,
                |q| q.threshold,
            ),
            ecn_threshold: pick(
                port_p,
                port,
                switch_p,
                self.ecn_threshold,
                |c| c.ecn_threshold,
                |q| q.ecn_threshold,
            ),
            weight: port_p
                .and_then(|c| c.weight)
                .or_else(|| switch_p.and_then(|c| c.weight))
                .unwrap_or(1),
        }
    }

    /// The queues of a port: `[None]` without priority classes, else `Some(0..P)`.
    pub fn port_priorities(&self) -> Vec<Option<usize>> {
        if self.priorities.is_empty() {
            vec![None]
        } else {
            (0..self.priorities.len()).map(Some).collect()
        }
    }

    /// The priority classes' values serde cannot refuse (called by `validate`).
    pub(super) fn validate_priorities(&self) -> Result<(), (String, String)> {
        let n = self.priorities.len();
        if n > MAX_PRIORITIES {
            return Err((
                "priorities".into(),
                format!("{n} priorities; a port has at most {MAX_PRIORITIES} queues (IEEE 802.1Q's eight traffic classes): give at most 8 entries"),
            ));
        }
        if n == 0 {
            for (given, field) in [
                (self.scheduler.is_some(), "scheduler"),
                (self.quantum.is_some(), "quantum"),
            ] {
                if given {
                    return Err((
                        field.into(),
                        "is read with priority classes only; give priorities = [{}, {}] (one entry per queue of a port) or remove it".into(),
                    ));
                }
            }
        }
        if self.quantum.is_some_and(|q| q.0 == 0) {
            return Err((
                "quantum".into(),
                "must be at least 1B: a DRR round gives each queue weight x quantum bytes (default 1500B)".into(),
            ));
        }
        for (i, c) in self.priorities.iter().enumerate() {
            self.check_entry(&format!("priorities[{i}]"), c)?;
        }
        for (name, q) in &self.queues {
            if q.priorities.len() > n {
                return Err((
                    format!("queues.{name}.priorities"),
                    format!("{} entries, but the switch has {n} priorities; give the switch's priorities first, one entry per queue of a port", q.priorities.len()),
                ));
            }
            for (i, c) in q.priorities.iter().enumerate() {
                self.check_entry(&format!("queues.{name}.priorities[{i}]"), c)?;
            }
        }
        Ok(())
    }

    fn check_entry(&self, path: &str, c: &PriorityConfig) -> Result<(), (String, String)> {
        if let Some(a) = c.alpha {
            if !(a.is_finite() && a > 0.0) {
                return Err((
                    format!("{path}.alpha"),
                    format!("{a} is not a positive number; give e.g. alpha = 1.0"),
                ));
            }
        }
        if let Some(t) = c.threshold {
            if matches!(t, QueueLimit::Bytes(_)) != matches!(self.buffer, QueueLimit::Bytes(_)) {
                return Err((format!("{path}.threshold"), format!("{t} is not in the buffer's unit ({}); give both in packets or both in bytes", self.buffer)));
            }
        }
        if let Some(QueueLimit::Packets(0) | QueueLimit::Bytes(0)) = c.ecn_threshold {
            return Err((format!("{path}.ecn_threshold"), "0 would mark every packet; give K > 0, e.g. \"20p\" or \"30KB\" (DCTCP's K = 20 packets at 1 Gbit/s, 65 at 10 Gbit/s)".into()));
        }
        if c.weight == Some(0) {
            return Err((
                format!("{path}.weight"),
                "must be at least 1 (default 1): a queue of weight 0 would never be served".into(),
            ));
        }
        Ok(())
    }
}
