//! An output port: one direction of a link. It owns what happens there, as htsim's queue owns
//! `receivePacket` and `completeService`: a packet arrives for the queue ([`Port::receive`]:
//! loss before the queue, the discipline's enqueue, RED's idle hook, marks), a transmission
//! starts (the discipline's or the device queue's next packet, serialisation time, busy time
//! and counters from the warm-up on, loss on the wire, onto the wire), a transmission completes
//! ([`Port::complete_tx`]), the device queue is refilled ([`Port::device_wake`]) and a packet
//! leaves the wire at the far node ([`Port::leave_wire`]).
//!
//! The port never touches the scheduler or the flows: each operation returns the events the
//! engine must schedule ([`Wakeups`]) and leaves what it dropped or lost in [`Drops`], in the
//! order it happened, for the engine to charge to the packets' flows. Its statistics
//! (`monitor/queue_stats.rs`) and the taps (`monitor/taps.rs`: the ns-2 trace and pcap) are
//! called from here, so every discipline is counted and traced alike.
//!
//! A packet goes onto the wire when its transmission starts: since the rate and the
//! propagation delay are constant, its arrival time at the far node is known then (end of
//! serialisation plus delay), and arrivals leave the wire in the order they entered it. So the
//! wire is a FIFO with a single pending arrival event per port (htsim's trick), and a hop costs
//! one event. The transmitter needs a wake-up (`TxDone` at `busy_until`) only while packets wait
//! in the queue behind the one being sent: an idle or lightly loaded link schedules nothing else.
//! The event queue holds at most two events per port however many packets are on the wire
//! (three with a device queue: its `DeviceWake`).
//!
//! This file holds the port's types, its building and its timed actions; what it does is in
//! `port/`, one concept a file: `arrival.rs` (a packet arrives for the queue),
//! `transmission.rs` (the transmitter and ns-3's device queue), `wire.rs` (packets on the
//! wire and leaving it), `drops.rs` (drops and losses), `queue_monitors.rs` (the queue's
//! length for the statistics and ns-2's monitors), `reading.rs` (what the report and the
//! builder read), and the rarer parts: `capacity_ops.rs` (a Mahimahi trace), `delayer_ops.rs`
//! (ns-2's Delayer), `shaper_ops.rs` (a shaper's timer), `rare_parts.rs` (their box).

mod arrival;
mod capacity_ops;
mod delayer_ops;
mod drops;
mod queue_monitors;
mod rare_parts;
mod reading;
mod shaper_ops;
mod transmission;
mod wire;
pub use wire::{Bound, OnWire};

use super::capacity::{Capacity, ScheduleTx, TraceServer};
use super::device_queue::DeviceQueue;
use super::loss::{LossModel, LossPosition, PortLoss};
use super::packet_pool::{PacketPool, PacketRef};
use super::port_queue::PortQueue;
use crate::ids::{LinkId, NodeId, PortId};
use crate::monitor::queue_stats::QueueStats;
use crate::monitor::taps::{TapPort, Taps};
use crate::packet::Packet;
use crate::qdisc::DropReason;
use crate::rng::{LazyRng, Rng};
use crate::units::{Rate, SimTime};
use std::collections::VecDeque;

/// What a port is built from (`scenario/build.rs`).
pub struct PortConfig {
    pub id: PortId,
    pub link: LinkId,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: SimTime,
    /// Link-layer framing bytes serialised with every packet (not counted in its size).
    pub overhead: u32,
    pub qdisc: PortQueue,
    /// The discipline's stream, made at its first draw (DropTail never draws).
    pub qdisc_rng: LazyRng,
    /// ns-3's device queue size in packets (0: none, the discipline feeds the wire).
    pub device_queue: usize,
    pub loss: LossModel,
    pub loss_rng: Rng,
    pub loss_position: LossPosition,
    /// When statistics and counters start (the scenario's warm-up).
    pub warmup: SimTime,
    /// A capacity that varies (a Mahimahi trace or a rate schedule, `net/capacity/`); None:
    /// the fixed `rate`, which is then the capacity's mean (`Capacity::nominal_rate`).
    pub capacity: Option<Capacity>,
}

pub struct Port {
    id: PortId,
    link: LinkId,
    from: NodeId,
    to: NodeId,
    rate: Rate,
    delay: SimTime,
    overhead: u32,
    /// The discipline, with its random stream if it draws (`net/port_queue.rs`).
    qdisc: PortQueue,
    /// ns-3's device queue below the queue discipline (`device_queue` packets; 0 = none, the
    /// discipline feeds the wire). Packets leave the discipline for it as soon as it has room.
    device: DeviceQueue,
    stats: QueueStats,
    /// When the packet being serialised (if any) is completely sent, and under ns-2's clock
    /// that time's event key (`clock.rs`), which decides whether a packet arriving then finds
    /// the link busy.
    busy_until: SimTime,
    busy_until_key: u64,
    /// A `TxDone` event is in the queue for this port.
    tx_pending: bool,
    /// Packets on the wire (being serialised or propagating), with the keys of their arrival
    /// times at `to`; the packets themselves are in the pool (16 bytes a slot instead of 136).
    pipeline: VecDeque<wire::OnWire>,
    /// The propagation delay changed during the run (`set_delay`): a packet sent later may
    /// arrive before one sent earlier, so an arrival takes the packet due first, not the
    /// wire's head.
    reorders: bool,
    /// The link's loss model, its stream and its position; None (most links) loses nothing.
    loss: Option<Box<PortLoss>>,
    /// What few ports use (`port/rare_parts.rs`): timed actions, a rate schedule, ns-2's
    /// `avoidReordering_` and link-loss counts; None until the first is needed.
    rare: Option<Box<rare_parts::RareParts>>,
    /// Time spent serialising since the warm-up, counted when a transmission starts (up to
    /// its end); `busy_time_until` removes what lies past the present.
    busy_time: SimTime,
    /// Counted from the warm-up on, when a transmission starts.
    tx_packets: u64,
    tx_bytes: u64,
    /// The last packet size serialised and its transmission time: a port sees few sizes (data
    /// segments, ACKs), and this spares a 64-bit division per packet.
    last_tx_size: u32,
    last_tx_time: SimTime,
}

/// What one port operation needs from the engine: the time, the warm-up, the taps, where
/// drops go, and the pool the queued and propagating packets live in.
/// `NS2`: the run's clock is ns-2's (`clock.rs`), fixed for the run so that the picosecond
/// clock's code has no branch for it.
pub struct PortCx<'a, const NS2: bool> {
    pub now: SimTime,
    /// The key of the event being run (`clock.rs`).
    pub now_key: u64,
    pub warmup: SimTime,
    pub taps: &'a mut Taps,
    pub drops: &'a mut Drops,
    pub pool: &'a mut PacketPool,
}

/// The events a port operation asks the engine to schedule for it, in this order (the
/// scheduler breaks ties in order of scheduling).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[must_use]
pub struct Wakeups {
    /// `DeviceWake` now: the device queue gave a packet to the wire (ns-3's
    /// `NetDeviceQueue::PacketDequeued` wakes the discipline with `ScheduleNow`, so an arrival
    /// due at this same instant finds the discipline still full).
    pub device_wake: bool,
    /// `TxDone` at this key (`clock.rs`): packets wait behind the one on the wire.
    pub tx_done: Option<u64>,
    /// `Arrive` at this key: the packet just sent is the only one on the wire.
    pub arrive: Option<u64>,
    /// `PortTimer` at these keys: an error model holds a packet until then, a Delayer's
    /// timer is set (at most two in one operation: a spike's next turn and a channel
    /// allocation).
    pub timers: [Option<u64>; 2],
}

impl Wakeups {
    fn add_timer(&mut self, key: u64) {
        let slot = usize::from(self.timers[0].is_some());
        self.timers[slot] = Some(key);
    }
}

/// A port's timed action (`Port::timers`).
#[derive(Copy, Clone, Debug)]
enum PortTimer {
    /// An error model's held packet goes on from module `next` of the chain.
    Release { next: usize, r: PacketRef },
    /// The Delayer's channel allocation ends (`AllocTimer::expire`).
    Alloc,
    /// The Delayer's spike timer (`SpikeTimer::expire`).
    Spike,
    /// A shaper's tokens allow its head packet (`QueueDisc::wake_at`).
    Shaper,
    /// A trace link's next delivery opportunity (`port/capacity_ops.rs`).
    Opportunity,
}

/// Packets dropped at ports, reused so that dropping never allocates in the steady state.
pub struct Drops {
    /// The discipline's drops during one call (`QueueCtx::drop`), not yet counted or traced.
    queue: Vec<(Packet, DropReason)>,
    /// Drops and losses counted and traced by the port, in that order, for the engine to
    /// charge to their flows.
    settled: Vec<(Packet, DropReason)>,
}

impl Drops {
    pub fn with_capacity(n: usize) -> Self {
        Self {
            queue: Vec::with_capacity(n),
            settled: Vec::with_capacity(n),
        }
    }

    /// Nothing to charge.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.settled.is_empty()
    }

    /// The packets dropped or lost since the last drain, in the order they were traced.
    pub fn drain(&mut self) -> std::vec::Drain<'_, (Packet, DropReason)> {
        self.settled.drain(..)
    }
}

impl Port {
    pub fn new(mut c: PortConfig) -> Self {
        c.qdisc.measure_from(c.warmup);
        Self {
            id: c.id,
            link: c.link,
            from: c.from,
            to: c.to,
            rate: c.rate,
            delay: c.delay,
            overhead: c.overhead,
            qdisc: c.qdisc.with_rng(c.qdisc_rng),
            device: DeviceQueue::new(c.device_queue),
            stats: QueueStats::new(c.warmup),
            busy_until: SimTime::ZERO,
            busy_until_key: 0,
            tx_pending: false,
            // empty: the wire grows to the most packets it holds at once (4, 8, 16, ...), early in
            // a run; reserving room up front cost 2 KB a port at 10 000 flows (docs/performance.md)
            pipeline: VecDeque::new(),
            reorders: false,
            loss: PortLoss::new(c.loss, c.loss_rng, c.loss_position),
            busy_time: SimTime::ZERO,
            tx_packets: 0,
            tx_bytes: 0,
            last_tx_size: 0,
            last_tx_time: SimTime::ZERO,
            rare: match &c.capacity {
                Some(Capacity::Schedule(s)) => Some(Box::new(rare_parts::RareParts {
                    schedule: Some(ScheduleTx::new(s.clone())),
                    ..Default::default()
                })),
                Some(Capacity::Trace(t)) => Some(Box::new(rare_parts::RareParts {
                    trace: Some(Box::new(TraceServer::new(t.clone()))),
                    ..Default::default()
                })),
                None => None,
            },
        }
    }

    // ---- what happens at a port ----

    /// A packet (its handle in the pool) arrives for the queue: loss before the queue (ns-2's
    /// `lossmodel`), then the discipline stores or drops it; an idle link takes it straight
    /// into service.
    #[inline(always)]
    pub fn receive<const NS2: bool>(&mut self, r: PacketRef, cx: &mut PortCx<NS2>) -> Wakeups {
        self.receive_from(r, 0, cx)
    }

    /// A timed action of this port is due (`PortTimer`, keyed now): a packet an error model
    /// held goes on from the module after the one that held it (errmodel.cc
    /// `ErrorModel::recv`: `delay_` later, to the model's target), or a Delayer's timer
    /// expires.
    pub fn fire_timer<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) -> Wakeups {
        let Some(i) = self.timers().iter().position(|t| t.0 == cx.now_key) else {
            return Wakeups::default();
        };
        match self.timers_mut().remove(i).1 {
            PortTimer::Release { next, r } => self.receive_from(r, next, cx),
            PortTimer::Alloc => {
                let mut w = Wakeups::default();
                if let Some(d) = self.delayer_mut() {
                    d.alloc_free = true;
                }
                self.delayer_try_send(cx, &mut w);
                self.delayer_done(cx);
                w
            }
            PortTimer::Spike => self.spike(cx),
            PortTimer::Shaper => self.shaper_wake(cx),
            PortTimer::Opportunity => self.opportunity(cx),
        }
    }

    /// This port as the taps name it.
    #[inline(always)]
    fn tap(&self) -> TapPort {
        TapPort {
            index: self.id.idx(),
            from: self.from.0,
            to: self.to.0,
        }
    }
}
