//! A switch's buffer pool: its occupancy, each output queue's length, the admission of the
//! policy (Choudhury and Hahne 1998, `mod.rs`), drop counters by reason, and the series of
//! the occupancy and of each queue's threshold.
//!
//! The series is sampled on the grid `warmup + k * interval` (the scenario's
//! `monitor.queue_interval`) without an event of its own: the pool changes only when a queue
//! admits or sends a packet, so at each change the grid points passed since the last one
//! record the state the last change left (the state after every change strictly before the
//! point), and `finish` fills the points up to the end of the run.

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
    /// Its Dynamic Threshold alpha and static threshold (what its policy reads).
    pub alpha: Option<f64>,
    pub threshold: Option<u64>,
    #[serde(skip)]
    len: u64,
    /// Drops from the warm-up on, by reason.
    pub drops_threshold: u64,
    pub drops_pool_full: u64,
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
        }
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
            alpha,
            threshold,
            len: 0,
            drops_threshold: 0,
            drops_pool_full: 0,
        });
        if let Some(s) = &mut self.series {
            s.thresholds.push(Vec::new());
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

    pub fn queue_len(&self, i: usize) -> u64 {
        self.queues[i].len
    }

    /// Queue `i`'s threshold now: complete sharing, its length plus the unused buffer; static,
    /// its own; Dynamic Threshold, `alpha * (B - Q(t))` (Choudhury and Hahne, section III).
    pub fn threshold(&self, i: usize) -> f64 {
        let q = &self.queues[i];
        let free = self.buffer - self.occupancy;
        match self.policy {
            SharedPolicy::CompleteSharing => (q.len + free) as f64,
            // the builder gives every queue of such a switch its threshold or alpha
            SharedPolicy::StaticThreshold => q.threshold.unwrap_or(self.buffer) as f64,
            SharedPolicy::DynamicThreshold => q.alpha.unwrap_or(0.0) * free as f64,
        }
    }

    /// Offers `units` to queue `i` at `now`: the policy's threshold first (a queue at or above
    /// it is blocked, as the paper's cell is), then the unused buffer; admitted, they count.
    pub fn admit(&mut self, i: usize, units: u64, now: SimTime) -> Admission {
        self.catch_up(now);
        let verdict = if self.policy != SharedPolicy::CompleteSharing
            && self.queues[i].len as f64 >= self.threshold(i)
        {
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

    /// Queue `i` sent a packet of `units` at `now`.
    pub fn release(&mut self, i: usize, units: u64, now: SimTime) {
        self.catch_up(now);
        self.queues[i].len -= units;
        self.occupancy -= units;
    }

    /// Before a change at `now`: the time-average's area up to `now`, and the grid points up
    /// to `now` sampled with the state before it.
    fn catch_up(&mut self, now: SimTime) {
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
    pub queues: Vec<PoolQueue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub series: Option<PoolSeries>,
}
