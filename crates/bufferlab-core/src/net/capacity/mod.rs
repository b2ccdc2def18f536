//! Links whose capacity varies over time: a Mahimahi packet-delivery trace (`mahimahi.rs`,
//! Netravali et al., "Mahimahi: Accurate Record-and-Replay for HTTP", USENIX ATC 2015, and
//! mahimahi's `src/frontend/link_queue.cc`) or a piecewise-constant rate schedule
//! (`schedule.rs`). A port holds one per direction (`net/port/capacity_ops.rs`); a link
//! without either keeps its fixed rate.
//!
//! The two differ in how a packet leaves. On a schedule the transmitter works as on a fixed
//! link (a packet starts when the link is free and takes the time its bits need at the rates
//! in force). On a trace the link offers delivery opportunities at given instants and a
//! packet leaves at the opportunity that carries its last byte; the queue is served only at
//! those instants, as mahimahi's `LinkQueue::rationalize` serves its packet queue.

pub mod mahimahi;
pub mod schedule;

pub use mahimahi::{DeliveryTrace, TraceFeed, TraceServer};
pub use schedule::{RateSchedule, ScheduleTx};

use crate::units::{Rate, SimTime};
use std::sync::Arc;

/// Where one direction of a link takes its capacity from.
#[derive(Debug, Clone)]
pub enum Capacity {
    /// Delivery opportunities read from a Mahimahi trace.
    Trace(Arc<DeliveryTrace>),
    /// A rate that changes at given times.
    Schedule(Arc<RateSchedule>),
}

impl Capacity {
    /// The mean capacity: over one period of a trace (it loops), over the run's first
    /// `duration` for a schedule. The link's `rate` for what needs one number: limits given
    /// in BDP, rate-based disciplines, the report's utilisation.
    pub fn nominal_rate(&self, duration: SimTime) -> Rate {
        match self {
            Capacity::Trace(t) => t.mean_rate(),
            Capacity::Schedule(s) => s.mean_rate(duration),
        }
    }
}
