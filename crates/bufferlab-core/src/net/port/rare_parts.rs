//! The parts of a port that few ports use, in one box made when the first of them is needed
//! (docs/performance.md, "What a flow holds after the report is streamed"): the timed actions
//! (an error model's held packets, a Delayer's or a shaper's timers, a trace link's
//! opportunities), a rate schedule, a Mahimahi trace's server, ns-2's Delayer, DelayLink's
//! `avoidReordering_` and the losses ns-2's monitors count. A plain link holds one null
//! pointer for them, not their 88 bytes; each port is 4 a flow in a dumbbell. What they do is unchanged: a missing box reads as their
//! defaults (no timers, no schedule, reordering allowed, nothing lost, losses monitored).

use super::{Port, PortTimer};
use crate::net::capacity::{ScheduleTx, TraceServer};
use crate::net::delayer::Delayer;
use crate::net::packet_pool::PacketRef;

pub(super) struct RareParts {
    /// The port's timed actions, each with its `PortTimer` event's key, in the order they
    /// were set. An event runs the first action of its key.
    pub(super) timers: Vec<(u64, PortTimer)>,
    /// A rate schedule times each transmission (`net/capacity/schedule.rs`).
    pub(super) schedule: Option<ScheduleTx>,
    /// A Mahimahi trace serves the queue at its delivery opportunities
    /// (`net/capacity/mahimahi.rs`, `port/capacity_ops.rs`).
    pub(super) trace: Option<Box<TraceServer<PacketRef>>>,
    /// ns-2's Delayer between the queue and the wire (`net/delayer.rs`; ns-2's clock only).
    pub(super) delayer: Option<Box<Delayer>>,
    /// DelayLink's `avoidReordering_` (delay.cc `LinkDelay::recv`): no packet arrives before
    /// one sent ahead of it, `latest` the last arrival scheduled (ns-2's `latest_time_`).
    pub(super) avoid_reordering: bool,
    pub(super) latest: f64,
    /// Under ns-2's clock: the packets and bytes the link's loss models lost. ns-2 hands them
    /// to the link's `drophead_` (SimpleLink `errormodule`, `insert-linkloss`), where a queue
    /// monitor's or flow monitor's drop snoop counts them; queue-monitor.cc `drop` also takes
    /// them off its `pkts_` and `size_`, which can go below 0.
    pub(super) ns2_lost: (u64, u64),
    /// Whether those losses reach the link's `drophead_` (an error model's drop-target of the
    /// script's own keeps them from the monitors: `unmonitor_ns2_losses`).
    pub(super) ns2_losses_monitored: bool,
}

impl Default for RareParts {
    fn default() -> Self {
        Self {
            timers: Vec::new(),
            schedule: None,
            trace: None,
            delayer: None,
            avoid_reordering: false,
            latest: 0.0,
            ns2_lost: (0, 0),
            ns2_losses_monitored: true,
        }
    }
}

impl Port {
    /// The rare parts, made now if this is the first asked for.
    #[inline]
    pub(super) fn rare_mut(&mut self) -> &mut RareParts {
        self.rare.get_or_insert_with(Default::default)
    }

    /// The timed actions, to add one.
    #[inline]
    pub(super) fn timers_mut(&mut self) -> &mut Vec<(u64, PortTimer)> {
        &mut self.rare_mut().timers
    }

    /// The timed actions set (none without the box).
    #[inline]
    pub(super) fn timers(&self) -> &[(u64, PortTimer)] {
        self.rare.as_ref().map_or(&[], |r| &r.timers)
    }

    /// ns-2's link losses counted so far (packets, bytes).
    #[inline]
    pub(super) fn ns2_lost(&self) -> (u64, u64) {
        self.rare.as_ref().map_or((0, 0), |r| r.ns2_lost)
    }

    /// Whether the link's losses reach ns-2's monitors.
    #[inline]
    pub(super) fn ns2_losses_monitored(&self) -> bool {
        self.rare.as_ref().is_none_or(|r| r.ns2_losses_monitored)
    }

    /// DelayLink's `avoidReordering_` is on.
    #[inline(always)]
    pub(super) fn avoids_reordering(&self) -> bool {
        self.rare.as_ref().is_some_and(|r| r.avoid_reordering)
    }

    /// A Mahimahi trace serves this port.
    #[inline(always)]
    pub(super) fn has_trace(&self) -> bool {
        self.rare.as_ref().is_some_and(|r| r.trace.is_some())
    }

    /// The trace's server, if any.
    #[inline]
    pub(super) fn trace_ref(&self) -> Option<&TraceServer<PacketRef>> {
        self.rare.as_ref()?.trace.as_deref()
    }

    #[inline]
    pub(super) fn trace_mut(&mut self) -> Option<&mut TraceServer<PacketRef>> {
        self.rare.as_mut()?.trace.as_deref_mut()
    }

    /// ns-2's Delayer sits between the queue and the wire.
    #[inline(always)]
    pub(super) fn has_delayer(&self) -> bool {
        self.rare.as_ref().is_some_and(|r| r.delayer.is_some())
    }

    #[inline]
    pub(super) fn delayer_ref(&self) -> Option<&Delayer> {
        self.rare.as_ref()?.delayer.as_deref()
    }

    #[inline]
    pub(super) fn delayer_mut(&mut self) -> Option<&mut Delayer> {
        self.rare.as_mut()?.delayer.as_deref_mut()
    }

    /// The rate schedule that times each transmission, if any.
    #[inline(always)]
    pub(super) fn schedule_mut(&mut self) -> Option<&mut ScheduleTx> {
        self.rare.as_mut()?.schedule.as_mut()
    }
}
