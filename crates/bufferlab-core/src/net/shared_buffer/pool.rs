//! A switch's buffer pool: its occupancy, each output queue's length, the admission of the
//! policy (Choudhury and Hahne 1998, `mod.rs`), drop counters by reason, and the series of
//! the occupancy and of each queue's threshold.
//!
//! The series is sampled on the grid `warmup + k * interval` (the scenario's
//! `monitor.queue_interval`) without an event of its own: the pool changes only when a queue
//! admits or sends a packet, so at each change the grid points passed since the last one
//! record the state the last change left (the state after every change strictly before the
//! point), and `finish` fills the points up to the end of the run.

use super::abm::Abm;
use super::config::SharedPolicy;
use crate::units::SimTime;
use serde::Serialize;

/// What the pool says to a packet offered to one of its queues.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Admission {
    Admit,
    /// The queue is at or above its threshold (static or dynamic).
    Threshold,
    /// The unused buffer is smaller than the packet.
    PoolFull,
}

/// One output queue of the switch, as the pool sees it.
#[derive(Debug, Clone, Serialize)]
pub struct PoolQueue {
    /// The link the queue's port feeds, and the node at its far end.
    pub link: String,
    pub to: String,
    /// Its priority on a port with priority classes (`priorities.rs`); absent on a port of one
    /// queue.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<usize>,
    /// Its Dynamic Threshold alpha and static threshold (what its policy reads).
    pub alpha: Option<f64>,
    pub threshold: Option<u64>,
    /// Its ECN marking threshold K ("20p", "30000B"), when it marks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn_threshold: Option<String>,
    #[serde(skip)]
    len: u64,
    /// Drops from the warm-up on, by reason.
    pub drops_threshold: u64,
    pub drops_pool_full: u64,
    /// Packets it marked CE, from the warm-up on; only for a queue that marks (so a switch
    /// without ECN reports what it did before marking existed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marks: Option<u64>,
}

/// The series of one pool (`monitor.queue_interval`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct PoolSeries {
    #[serde(skip)]
    interval: SimTime,
    #[serde(skip)]
    next: SimTime,
    pub t_s: Vec<f64>,
    pub occupancy: Vec<u64>,
    /// Each queue's threshold at each sample (in the order of `queues`): the length at or
    /// above which it admits nothing (complete sharing: its length plus the unused buffer).
    pub thresholds: Vec<Vec<f64>>,
}

pub struct SharedPool {
    pub name: String,
    /// Lengths count bytes (else packets).
    pub bytes: bool,
    pub buffer: u64,
    pub policy: SharedPolicy,
    occupancy: u64,
    pub queues: Vec<PoolQueue>,
    warmup: SimTime,
    /// From the warm-up on: the largest occupancy, and its integral over time (unit x ps).
    max_occupancy: u64,
    area: u128,
    last_change: SimTime,
    series: Option<PoolSeries>,
    /// ABM's congestion levels and drain rates (`abm.rs`), under that policy.
    abm: Option<Abm>,
    /// ABM's alpha for packets tagged unscheduled (`abm.rs`, the artifact's `alphaUnsched`).
    unscheduled_alpha: f64,
}

impl SharedPool {
    pub fn new(
        name: String,
        buffer: u64,
        bytes: bool,
        policy: SharedPolicy,
        warmup: SimTime,
    ) -> Self {
        Self {
            name,
            bytes,
            buffer,
            policy,
            occupancy: 0,
            queues: Vec::new(),
            warmup,
            max_occupancy: 0,
            area: 0,
            last_change: warmup,
            series: None,
            abm: None,
            unscheduled_alpha: super::abm::DEFAULT_UNSCHEDULED_ALPHA,
        }
    }

    /// Under ABM: its saturation length (in the pool's unit), update interval, and the alpha
    /// of packets tagged unscheduled.
    pub fn with_abm(mut self, saturation: u64, interval: SimTime, unscheduled_alpha: f64) -> Self {
        self.abm = Some(Abm::new(saturation, interval));
        self.unscheduled_alpha = unscheduled_alpha;
        self
    }

    /// Queue `i`'s port for ABM's drain rate: its priority, the port's rate, and how many
    /// queues the port has.
    pub fn set_port(&mut self, i: usize, priority: usize, rate_bps: f64, port_queues: usize) {
        if let Some(abm) = &mut self.abm {
            abm.set_queue(i, priority, rate_bps, port_queues);
        }
    }

    /// Queue `i` is the queue of `priority` of a port with priority classes (for the report;
    /// ABM's n_p reads the priority given to [`set_port`](Self::set_port)).
    pub fn set_priority(&mut self, i: usize, priority: usize) {
        self.queues[i].priority = Some(priority);
    }

    /// Samples the occupancy and thresholds every `interval` from the warm-up on.
    pub fn sample_every(&mut self, interval: SimTime) {
        self.series = Some(PoolSeries {
            interval,
            next: self.warmup,
            thresholds: vec![Vec::new(); self.queues.len()],
            ..PoolSeries::default()
        });
    }

    /// A new output queue; its index in the pool.
    pub fn add_queue(
        &mut self,
        link: String,
        to: String,
        alpha: Option<f64>,
        threshold: Option<u64>,
    ) -> usize {
        self.queues.push(PoolQueue {
            link,
            to,
            priority: None,
            alpha,
            threshold,
            ecn_threshold: None,
            len: 0,
            drops_threshold: 0,
            drops_pool_full: 0,
            marks: None,
        });
        if let Some(s) = &mut self.series {
            s.thresholds.push(Vec::new());
        }
        if let Some(abm) = &mut self.abm {
            abm.add_queue(0, 0.0, 1);
        }
        self.queues.len() - 1
    }

    /// What a packet of `size` bytes counts in the pool's unit.
    pub fn units(&self, size: u32) -> u64 {
        if self.bytes {
            u64::from(size)
        } else {
            1
        }
    }

    pub fn occupancy(&self) -> u64 {
        self.occupancy
    }

    /// The unused buffer, B - Q(t).
    fn free(&self) -> u64 {
        self.buffer - self.occupancy
    }

    pub fn queue_len(&self, i: usize) -> u64 {
        self.queues[i].len
    }

    /// Queue `i`'s threshold now: complete sharing, its length plus the unused buffer; static,
    /// its own; Dynamic Threshold, `alpha * (B - Q(t))` (Choudhury and Hahne, section III).
    pub fn threshold(&self, i: usize) -> f64 {
        let q = &self.queues[i];
        let free = self.free();
        match self.policy {
            SharedPolicy::CompleteSharing => (q.len + free) as f64,
            // the builder gives every queue of such a switch its threshold or alpha
            SharedPolicy::StaticThreshold => q.threshold.unwrap_or(self.buffer) as f64,
            SharedPolicy::DynamicThreshold => q.alpha.unwrap_or(0.0) * free as f64,
            SharedPolicy::Abm => match &self.abm {
                Some(abm) => abm.threshold(i, q.alpha.unwrap_or(0.0), free),
                None => 0.0,
            },
        }
    }

    /// ABM's n_p and drain rate as queue `i` last read them.
    pub fn abm_snapshot(&self, i: usize) -> Option<(f64, f64)> {
        self.abm.as_ref().map(|a| a.snapshot(i))
    }

    /// Offers `units` to queue `i` at `now`: the policy's threshold first (a queue at or above
    /// it is blocked, as the paper's cell is), then the unused buffer; admitted, they count.
    /// Under ABM the arrival first sets the queue's congestion level, and the queue is
    /// refused when its length plus the packet would pass the threshold (`abm.rs`), whose
    /// alpha is the unscheduled one for a packet so tagged (`unscheduled`).
    pub fn admit(&mut self, i: usize, units: u64, unscheduled: bool, now: SimTime) -> Admission {
        self.catch_up(now);
        if let Some(abm) = &mut self.abm {
            abm.on_arrival(i, self.queues[i].len, now);
        }
        let len = self.queues[i].len as f64;
        let over = match self.policy {
            SharedPolicy::CompleteSharing => false,
            SharedPolicy::Abm if unscheduled => match &self.abm {
                Some(abm) => {
                    len + units as f64 > abm.threshold(i, self.unscheduled_alpha, self.free())
                }
                None => false,
            },
            SharedPolicy::Abm => len + units as f64 > self.threshold(i),
            _ => len >= self.threshold(i),
        };
        let verdict = if over {
            Admission::Threshold
        } else if units > self.buffer - self.occupancy {
            Admission::PoolFull
        } else {
            Admission::Admit
        };
        let counted = now >= self.warmup;
        match verdict {
            Admission::Admit => {
                self.queues[i].len += units;
                self.occupancy += units;
                if counted {
                    self.max_occupancy = self.max_occupancy.max(self.occupancy);
                }
            }
            Admission::Threshold if counted => self.queues[i].drops_threshold += 1,
            Admission::PoolFull if counted => self.queues[i].drops_pool_full += 1,
            _ => {}
        }
        verdict
    }

    /// Queue `i` marks ECN-capable packets at or above K (`label`, "20p").
    pub fn set_ecn_threshold(&mut self, i: usize, label: String) {
        self.queues[i].ecn_threshold = Some(label);
        self.queues[i].marks = Some(0);
    }

    /// Queue `i` marked a packet CE at `now`.
    pub fn count_mark(&mut self, i: usize, now: SimTime) {
        if now >= self.warmup {
            *self.queues[i].marks.get_or_insert(0) += 1;
        }
    }

    /// Queue `i` sent a packet of `bytes` (`units` in the pool's unit) at `now`.
    pub fn release(&mut self, i: usize, units: u64, bytes: u32, now: SimTime) {
        self.catch_up(now);
        if let Some(abm) = &mut self.abm {
            abm.on_departure(i, bytes);
        }
        self.queues[i].len -= units;
        self.occupancy -= units;
    }

    /// Before a change at `now`: the time-average's area up to `now`, and the grid points up
    /// to `now` sampled with the state before it.
    fn catch_up(&mut self, now: SimTime) {
        if let Some(abm) = &mut self.abm {
            abm.catch_up(now);
        }
        if now > self.last_change {
            let from = self.last_change.max(self.warmup);
            if now > from {
                self.area += u128::from(self.occupancy) * u128::from((now - from).0);
            }
            self.last_change = now;
        }
        if now >= self.warmup {
            // the occupancy the warm-up found counts too
            self.max_occupancy = self.max_occupancy.max(self.occupancy);
        }
        let Some(s) = &self.series else {
            return;
        };
        if s.next > now {
            return;
        }
        let thresholds: Vec<f64> = (0..self.queues.len()).map(|i| self.threshold(i)).collect();
        let s = self.series.as_mut().expect("checked above");
        while s.next <= now {
            s.t_s.push(s.next.as_secs_f64());
            s.occupancy.push(self.occupancy);
            for (column, t) in s.thresholds.iter_mut().zip(&thresholds) {
                column.push(*t);
            }
            s.next = s.next + s.interval;
        }
    }

    /// The pool's report at the end of the run (`end`): its series filled up to `end`.
    pub fn report(&mut self, end: SimTime) -> PoolReport {
        self.catch_up(end);
        let span = end.saturating_sub(self.warmup).0;
        PoolReport {
            name: self.name.clone(),
            policy: self.policy,
            unit: if self.bytes { "bytes" } else { "packets" },
            buffer: self.buffer,
            max_occupancy: self.max_occupancy,
            mean_occupancy: if span > 0 {
                self.area as f64 / span as f64
            } else {
                0.0
            },
            drops_threshold: self.queues.iter().map(|q| q.drops_threshold).sum(),
            drops_pool_full: self.queues.iter().map(|q| q.drops_pool_full).sum(),
            marks: self
                .queues
                .iter()
                .filter_map(|q| q.marks)
                .reduce(|a, b| a + b),
            queues: self.queues.clone(),
            series: self.series.clone(),
        }
    }
}

/// A switch's buffer in the report (`switches` of the report JSON).
#[derive(Debug, Clone, Serialize)]
pub struct PoolReport {
    pub name: String,
    pub policy: SharedPolicy,
    /// The unit of `buffer`, occupancies and thresholds: "packets" or "bytes".
    pub unit: &'static str,
    pub buffer: u64,
    /// From the warm-up on.
    pub max_occupancy: u64,
    pub mean_occupancy: f64,
    pub drops_threshold: u64,
    pub drops_pool_full: u64,
    /// ECN marks of all its queues, when one of them marks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marks: Option<u64>,
    pub queues: Vec<PoolQueue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub series: Option<PoolSeries>,
}
