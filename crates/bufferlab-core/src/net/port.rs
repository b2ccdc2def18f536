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

mod capacity_ops;
mod delayer_ops;
mod rare_parts;
mod shaper_ops;

use super::capacity::{Capacity, ScheduleTx, TraceServer};
use super::device_queue::DeviceQueue;
use super::loss::{Fate, LossModel, LossPosition, PortLoss};
use super::packet_pool::{PacketPool, PacketRef};
use super::port_queue::PortQueue;
use crate::ids::{LinkId, NodeId, PortId};
use crate::monitor::ns2_integrator::QueueIntegrators;
use crate::monitor::ns2_trace::TraceEvent;
use crate::monitor::queue_stats::QueueStats;
use crate::monitor::taps::{TapPort, Taps};
use crate::packet::Packet;
use crate::qdisc::{DropReason, QueueCtx};
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
    qdisc: PortQueue,
    /// ns-3's device queue below the queue discipline (`device_queue` packets; 0 = none, the
    /// discipline feeds the wire). Packets leave the discipline for it as soon as it has room.
    device: DeviceQueue,
    qdisc_rng: LazyRng,
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
    pipeline: VecDeque<(u64, PacketRef)>,
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
    lost_packets: u64,
    /// The last packet size serialised and its transmission time: a port sees few sizes (data
    /// segments, ACKs), and this spares a 64-bit division per packet.
    last_tx: (u32, SimTime),
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
            qdisc: c.qdisc,
            device: DeviceQueue::new(c.device_queue),
            qdisc_rng: c.qdisc_rng,
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
            lost_packets: 0,
            last_tx: (0, SimTime::ZERO),
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

    /// A packet reaches the error modules before the queue from module `from` on, then the
    /// queue.
    #[inline(always)]
    fn receive_from<const NS2: bool>(
        &mut self,
        r: PacketRef,
        from: usize,
        cx: &mut PortCx<NS2>,
    ) -> Wakeups {
        if let Some(loss) = self.loss.as_mut() {
            match loss.before_queue(cx.pool.get_mut(r), from) {
                Fate::Pass => {}
                Fate::Lost => {
                    let pkt = cx.pool.take(r);
                    self.lose(pkt, cx);
                    return Wakeups::default();
                }
                Fate::Held { delay, next } => return self.hold(r, delay, next, cx),
            }
        }
        if self.has_trace() {
            return self.trace_receive(r, cx);
        }
        let busy = self.busy(cx);
        // an idle link has been idle since its last transmission ended
        self.admit(r, busy, !busy && !self.device.enabled(), cx);
        if NS2 && self.has_delayer() {
            // Queue::recv: the queue hands the Delayer its head if its place is empty
            let mut w = Wakeups::default();
            self.delayer_feed(cx, &mut w);
            self.delayer_done(cx);
            return w;
        }
        let mut shaped = None;
        if self.device.wants_fill() {
            self.fill_device(cx);
            shaped = self.shaper_timer(cx);
        }
        let mut w = if busy {
            let (queued, bytes) = self.waiting();
            self.note_length(cx, queued, bytes);
            // The transmitter wakes when the packet on the wire is out, and only if something
            // waits for it: an idle link costs no event.
            if queued > 0 && !self.tx_pending {
                self.tx_pending = true;
                Wakeups {
                    tx_done: Some(self.busy_until_key::<NS2>()),
                    ..Wakeups::default()
                }
            } else {
                Wakeups::default()
            }
        } else {
            // An idle link takes the packet straight into service: it never waits, so it
            // must not show up in the maximum (start_tx records the length).
            self.start_tx(cx)
        };
        if let Some(k) = shaped {
            w.add_timer(k);
        }
        w
    }

    /// The packet enters the queue: its `+` line, the statistics, RED's idle hook when the
    /// link has been `idle` (since `busy_until`), the discipline's enqueue, its marks and
    /// drops. `busy`: a packet is being sent.
    #[inline(always)]
    fn admit<const NS2: bool>(
        &mut self,
        r: PacketRef,
        busy: bool,
        idle: bool,
        cx: &mut PortCx<NS2>,
    ) {
        let now = cx.now;
        let pkt = cx.pool.get_mut(r);
        cx.taps.trace(TraceEvent::Enqueue, now, self.tap(), pkt);
        self.stats.on_arrival(now, pkt.size);
        for m in self.stats.ns2_flowmons() {
            m.arrival(pkt);
        }
        pkt.enqueued = now;
        if idle {
            self.qdisc.link_idle(self.busy_until);
        }
        if NS2 && self.stats.ns2_summary().is_some() {
            // ns-2's enque: updateStats with the length before the packet
            self.summary_point(cx.now_key, self.qdisc.len_packets(), self.qdisc.len_bytes());
        }
        let mut qcx = QueueCtx::new(
            now,
            &mut self.qdisc_rng,
            self.rate,
            busy,
            &mut cx.drops.queue,
        );
        if NS2 {
            qcx.ns2_now_s = Some(f64::from_bits(cx.now_key));
        }
        self.qdisc.enqueue(r, &mut qcx, cx.pool);
        let marks = qcx.marks();
        if marks > 0 {
            self.stats.on_marks(now, marks);
        }
        self.settle_drops(cx);
    }

    /// An error model holds the packet `delay` (ns-2: `Scheduler::schedule(target_, p,
    /// delay_)`, at `clock_ + delay_` in doubles), then it goes on from module `next`.
    #[cold]
    fn hold<const NS2: bool>(
        &mut self,
        r: PacketRef,
        delay: SimTime,
        next: usize,
        cx: &mut PortCx<NS2>,
    ) -> Wakeups {
        let key = if NS2 {
            (f64::from_bits(cx.now_key) + delay.as_secs_f64()).to_bits()
        } else {
            (cx.now + delay).0
        };
        self.timers_mut()
            .push((key, PortTimer::Release { next, r }));
        let mut w = Wakeups::default();
        w.add_timer(key);
        w
    }

    /// The packet on the wire is out (`TxDone`) and others wait: send the next one.
    #[inline(always)]
    pub fn complete_tx<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) -> Wakeups {
        self.tx_pending = false;
        if NS2 && self.has_delayer() {
            return self.target_free(cx);
        }
        self.start_tx(cx)
    }

    /// The deferred refill of the device queue (`DeviceWake`); an idle link then starts on
    /// what came down.
    pub fn device_wake<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) -> Wakeups {
        self.device.woken();
        self.fill_device(cx);
        let shaped = self.shaper_timer(cx);
        let mut w = if !self.busy(cx) && !self.device.is_empty() {
            self.start_tx(cx)
        } else if self.waiting_packets() > 0 && !self.tx_pending && self.busy(cx) {
            self.tx_pending = true;
            Wakeups {
                tx_done: Some(self.busy_until_key::<NS2>()),
                ..Wakeups::default()
            }
        } else {
            Wakeups::default()
        };
        if let Some(k) = shaped {
            w.add_timer(k);
        }
        w
    }

    /// The head of the wire reaches the far node (`Arrive`); the packet stays in the pool for
    /// the engine to route on or deliver, and the engine schedules the next arrival
    /// ([`Port::next_arrival`]). None if the link's loss model takes it there: a loss after
    /// the link is decided and traced as the packet arrives, as ns-2's `link-lossmodel` (after
    /// the link's delay) and ns-3's receive error model decide it.
    #[inline(always)]
    pub fn leave_wire<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) -> Option<PacketRef> {
        let (_, r) = if self.reorders {
            self.pop_first_due()
        } else {
            self.pipeline.pop_front()
        }
        .expect("Arrive only with a packet on the wire");
        if self
            .loss
            .as_mut()
            .is_some_and(|l| l.after_link(cx.pool.get_mut(r)))
        {
            let pkt = cx.pool.take(r);
            self.lose(pkt, cx);
            return None;
        }
        cx.taps
            .trace(TraceEvent::Receive, cx.now, self.tap(), cx.pool.get(r));
        Some(r)
    }

    /// The packet of the wire due first (the first sent of equal keys), once the delay has
    /// changed: under ns-2's clock each has its own `Arrive`, and they run in key order.
    #[cold]
    fn pop_first_due(&mut self) -> Option<(u64, PacketRef)> {
        let i = (0..self.pipeline.len()).min_by_key(|&i| self.pipeline[i].0)?;
        self.pipeline.remove(i)
    }

    /// A new rate for the packets sent from now on (ns-2's `$ns bandwidth` during a run:
    /// delay.cc `LinkDelay::txtime` reads `bandwidth_` as each packet starts); the packet
    /// being sent keeps its end.
    pub fn set_rate(&mut self, rate: Rate) {
        self.rate = rate;
        self.last_tx = (0, rate.tx_time(self.overhead as u64));
    }

    /// A new propagation delay for the packets sent from now on (ns-2's `$ns delay` during a
    /// run: `LinkDelay::recv` schedules each packet's arrival at `txt + delay_` as it starts);
    /// packets on the wire keep their arrival. Only under ns-2's clock, where every packet
    /// on the wire has its own arrival event (the session refuses it otherwise).
    pub fn set_delay(&mut self, delay: SimTime) {
        if delay != self.delay {
            self.delay = delay;
            self.reorders = true;
        }
    }

    /// DelayLink's `avoidReordering_` from now on.
    pub fn set_avoid_reordering(&mut self, on: bool) {
        if on || self.rare.is_some() {
            self.rare_mut().avoid_reordering = on;
        }
    }

    /// The arrival key of a packet starting at `now_s` with transmission time `txt` on a link
    /// that avoids reordering (delay.cc `LinkDelay::recv`, Andrei Gurtov's code: after the
    /// last scheduled arrival, one transmission time later, when the delay would bring it
    /// before that).
    #[cold]
    fn arrival_in_order(&mut self, now_s: f64, txt: f64) -> u64 {
        let delay = self.delay.as_secs_f64();
        let latest = &mut self.rare_mut().latest;
        if txt + delay < *latest - now_s && *latest > 0.0 {
            *latest += txt;
            (now_s + (*latest - now_s)).to_bits()
        } else {
            *latest = now_s + txt + delay;
            (now_s + (txt + delay)).to_bits()
        }
    }

    /// A new packet limit for the queue (`PortQueue::set_packet_limit`); false when the
    /// discipline keeps its own.
    pub fn set_queue_limit(&mut self, packets: u64) -> bool {
        self.qdisc.set_packet_limit(packets)
    }

    /// When the head of the wire reaches the far node, if a packet is on the wire and its
    /// arrival is not in the queue yet (under ns-2's clock each packet's is, from its start).
    #[inline(always)]
    pub fn next_arrival<const NS2: bool>(&self) -> Option<u64> {
        if NS2 {
            return None;
        }
        self.pipeline.front().map(|&(t, _)| t)
    }

    /// Starts sending the next packet of an idle port, if it has one. The packet goes straight
    /// onto the wire: its arrival at the far node is known now (end of serialisation plus the
    /// propagation delay), so a hop costs one event, the arrival; a `TxDone` wake-up is
    /// scheduled only while packets wait behind it.
    #[inline(always)]
    fn start_tx<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) -> Wakeups {
        let now = cx.now;
        let mut w = Wakeups::default();
        let next = if self.device.enabled() {
            let next = self.device.pop();
            if next.is_some() {
                w.device_wake = self.device.wake();
            }
            next
        } else {
            if NS2 && self.stats.ns2_summary().is_some() {
                // ns-2's deque, called at each resume of the link: updateStats first
                self.summary_point(cx.now_key, self.qdisc.len_packets(), self.qdisc.len_bytes());
            }
            Self::dequeue(
                &mut self.qdisc,
                &mut self.qdisc_rng,
                &mut self.stats,
                self.rate,
                now,
                NS2.then(|| f64::from_bits(cx.now_key)),
                false,
                &mut cx.drops.queue,
                cx.pool,
            )
        };
        // ns-2's queue monitor notes the length when a packet leaves or is dropped, not when
        // the link asks an empty queue for one (queue-monitor.cc: its snoops see packets)
        let moved = next.is_some() || !cx.drops.queue.is_empty();
        if let Some(r) = next {
            self.transmit(r, cx, &mut w);
        } else if !self.device.enabled() && self.qdisc.len_packets() > 0 {
            // a shaper holds its packets back: wake when it can send
            if let Some(k) = self.shaper_timer(cx) {
                w.add_timer(k);
            }
        }
        if !NS2 || moved {
            let (packets, bytes) = self.waiting();
            self.note_length(cx, packets, bytes);
        }
        self.settle_drops(cx);
        w
    }

    /// Puts the packet onto the wire: its `-` line, its transmission and its arrival.
    #[inline(always)]
    fn transmit<const NS2: bool>(&mut self, r: PacketRef, cx: &mut PortCx<NS2>, w: &mut Wakeups) {
        let now = cx.now;
        self.leave_queue(r, cx);
        let pkt = cx.pool.get(r);
        let overhead = u64::from(self.overhead);
        let tx = match self.schedule_mut() {
            None => self.tx_time(pkt.size),
            Some(s) => s.tx_time(now, u64::from(pkt.size) + overhead),
        };
        let end = now + tx;
        self.busy_until = end;
        let at_key = if NS2 {
            // delay.cc LinkDelay::recv: the arrival at now + (txt + delay_), the queue's
            // resume at now + txt; txtime() = 8. * size / bandwidth_
            let txt = 8.0 * (pkt.size + self.overhead) as f64 / self.rate.0 as f64;
            let now_s = f64::from_bits(cx.now_key);
            self.busy_until_key = (now_s + txt).to_bits();
            if self.avoids_reordering() {
                self.arrival_in_order(now_s, txt)
            } else {
                (now_s + (txt + self.delay.as_secs_f64())).to_bits()
            }
        } else {
            (end + self.delay).0
        };
        // Captured as it starts on the wire (starts are in order, so timestamps never go
        // back); counted as transmitted from then on.
        self.count_tx(r, cx);
        if end > cx.warmup {
            self.busy_time = self.busy_time + (end - now.max(cx.warmup));
        }
        // ns-2 schedules the queue's resume for every packet it sends (delay.cc: `intr_`
        // at now + txt), and which of two events at one double instant runs first is the
        // order they were scheduled in: under its clock the wake-up goes in now
        if NS2 || self.waiting_packets() > 0 {
            self.tx_pending = true;
            w.tx_done = Some(self.busy_until_key::<NS2>());
        }
        // ns-2: every packet's arrival is scheduled as it starts (the wire's head only
        // under the picosecond clock, the next one as it arrives)
        if NS2 || self.pipeline.is_empty() {
            w.arrive = Some(at_key);
        }
        self.pipeline.push_back((at_key, r));
    }

    /// The packet leaves the queue for the link: its `-` line and the statistics.
    #[inline(always)]
    fn leave_queue<const NS2: bool>(&mut self, r: PacketRef, cx: &mut PortCx<NS2>) {
        let pkt = cx.pool.get(r);
        cx.taps.trace(TraceEvent::Dequeue, cx.now, self.tap(), pkt);
        self.stats.on_departure(cx.now, pkt.size, pkt.enqueued);
        for m in self.stats.ns2_flowmons() {
            m.departure(pkt);
        }
    }

    /// The packet goes onto the wire: captured (pcap) and counted as transmitted.
    #[inline(always)]
    fn count_tx<const NS2: bool>(&mut self, r: PacketRef, cx: &mut PortCx<NS2>) {
        let pkt = cx.pool.get(r);
        cx.taps.capture(cx.now, self.tap(), pkt);
        if cx.now >= cx.warmup {
            self.tx_packets += 1;
            self.tx_bytes += pkt.size as u64;
        }
    }

    /// The queue's length after a packet came, left or was dropped: the statistics' integral
    /// and, if a script monitors this queue, ns-2's integrators at the event's double. Only
    /// under ns-2's clock (the scripts' clock; [`crate::session::Session`] adds integrators
    /// to no other), so the picosecond clock's code has no branch for them.
    #[inline(always)]
    fn note_length<const NS2: bool>(&mut self, cx: &PortCx<NS2>, packets: u64, bytes: u64) {
        self.stats.set_length(cx.now, packets, bytes);
        if NS2 && !self.stats.ns2_integrators().is_empty() {
            self.integrator_points(f64::from_bits(cx.now_key), packets, bytes);
        }
    }

    /// ns-2's queue monitors' integrators follow the monitor's `pkts_` and `size_`: the
    /// queue's length less what the link's loss models lost (`ns2_lost`).
    #[cold]
    fn integrator_points(&mut self, x: f64, packets: u64, bytes: u64) {
        let (p, b) = self.ns2_monitor_length(packets, bytes);
        for i in self.stats.ns2_integrators() {
            i.new_point(x, p, b);
        }
    }

    #[cold]
    #[inline(never)]
    fn summary_point(&mut self, now_key: u64, packets: usize, bytes: u64) {
        if let Some(s) = self.stats.ns2_summary_mut() {
            s.update(f64::from_bits(now_key), packets as u64, bytes);
        }
    }

    /// A queue monitor's `pkts_` and `size_` (queue-monitor.cc): arrivals less departures
    /// less drops, the link's losses included.
    fn ns2_monitor_length(&self, packets: u64, bytes: u64) -> (f64, f64) {
        (
            packets as f64 - self.ns2_lost().0 as f64,
            bytes as f64 - self.ns2_lost().1 as f64,
        )
    }

    /// The link's losses go elsewhere than its `drophead_` (`ns2_losses_monitored`).
    pub fn unmonitor_ns2_losses(&mut self) {
        self.rare_mut().ns2_losses_monitored = false;
    }

    /// What a queue monitor of ns-2's reads: (`pkts_`, `size_`, link losses in packets and
    /// bytes, which its `pdrops_` and `bdrops_` count beside the queue's drops).
    pub fn ns2_monitor(&self) -> (f64, f64, u64, u64) {
        let (p, b) = self.ns2_monitor_length(self.waiting_packets() as u64, self.waiting_bytes());
        let (lost_p, lost_b) = self.ns2_lost();
        (p, b, lost_p, lost_b)
    }

    /// Adds a queue monitor's pair of ns-2 integrators (all zero, as ns-2 makes them; they
    /// follow the queue only under ns-2's clock); its index among this port's.
    pub fn add_integrators(&mut self) -> usize {
        let all = &mut self.stats.ns2_monitors().integrators;
        all.push(QueueIntegrators::default());
        all.len() - 1
    }

    /// A queue monitor's integrators, to read or (a script's `set` and `newpoint`) to write.
    pub fn integrators_mut(&mut self, i: usize) -> Option<&mut QueueIntegrators> {
        self.stats.ns2_integrators().get_mut(i)
    }

    /// ns-3's traffic-control flow control: the discipline hands packets down while the device
    /// queue has room (`DeviceQueue::fill`).
    fn fill_device<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) {
        let now = cx.now;
        let busy = self.busy(cx);
        let (rng, stats, rate) = (&mut self.qdisc_rng, &mut self.stats, self.rate);
        let drops = &mut cx.drops.queue;
        let pool = &mut *cx.pool;
        self.device.fill(now, &mut self.qdisc, |q| {
            let r = Self::dequeue(q, rng, stats, rate, now, None, busy, drops, pool)?;
            Some((r, pool.get(r).size))
        });
        self.settle_drops(cx);
    }

    /// Takes the discipline's next packet (its handle in `pool`), counting the ECN marks it
    /// made; its drops go to `drops` (settled by the caller). On the port's parts, for the
    /// device queue's refill.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn dequeue(
        qdisc: &mut PortQueue,
        rng: &mut LazyRng,
        stats: &mut QueueStats,
        rate: Rate,
        now: SimTime,
        ns2_now_s: Option<f64>,
        busy: bool,
        drops: &mut Vec<(Packet, DropReason)>,
        pool: &mut PacketPool,
    ) -> Option<PacketRef> {
        let mut cx = QueueCtx::new(now, rng, rate, busy, drops);
        cx.ns2_now_s = ns2_now_s;
        let next = qdisc.dequeue(&mut cx, pool);
        let marks = cx.marks();
        if marks > 0 {
            stats.on_marks(now, marks);
        }
        next
    }

    /// Counts and traces the discipline's drops of this call and hands them to the engine.
    #[inline]
    fn settle_drops<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) {
        if !cx.drops.queue.is_empty() {
            self.settle_queue_drops(cx);
        }
    }

    #[cold]
    fn settle_queue_drops<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) {
        let tap = self.tap();
        for (pkt, reason) in cx.drops.queue.drain(..) {
            self.stats.on_drop(cx.now, pkt.size, reason);
            for m in self.stats.ns2_flowmons() {
                m.drop(&pkt, reason);
            }
            cx.taps.trace(TraceEvent::Drop, cx.now, tap, &pkt);
            cx.drops.settled.push((pkt, reason));
        }
    }

    /// A random loss on this link (before the queue or on the wire): counted, traced as a drop
    /// (as ns-2's `lossmodel` sends it to the drop trace; `e` where an EDrop trace was asked
    /// for) and handed to the engine.
    fn lose<const NS2: bool>(&mut self, pkt: Packet, cx: &mut PortCx<NS2>) {
        if cx.now >= cx.warmup {
            self.lost_packets += 1;
        }
        if NS2 && self.ns2_losses_monitored() {
            let lost = &mut self.rare_mut().ns2_lost;
            lost.0 += 1;
            lost.1 += u64::from(pkt.size);
            if !self.stats.ns2_integrators().is_empty() {
                let (p, b) = (self.waiting_packets() as u64, self.waiting_bytes());
                self.integrator_points(f64::from_bits(cx.now_key), p, b);
            }
            for m in self.stats.ns2_flowmons() {
                m.drop(&pkt, DropReason::LinkLoss);
            }
        }
        cx.taps.trace_loss(cx.now, self.tap(), &pkt);
        cx.drops.settled.push((pkt, DropReason::LinkLoss));
    }

    /// Time to serialise `size` bytes on this port's link (`Rate::tx_time`, remembered for
    /// the last size asked).
    #[inline]
    fn tx_time(&mut self, size: u32) -> SimTime {
        if self.last_tx.0 != size {
            self.last_tx = (size, self.rate.tx_time(size as u64 + self.overhead as u64));
        }
        self.last_tx.1
    }

    /// The key of `busy_until` (`clock.rs`; under the picosecond clock, itself).
    #[inline(always)]
    fn busy_until_key<const NS2: bool>(&self) -> u64 {
        if NS2 {
            self.busy_until_key
        } else {
            self.busy_until.0
        }
    }

    /// A packet is being serialised now (or the port is about to send the next one).
    #[inline]
    fn busy<const NS2: bool>(&self, cx: &PortCx<NS2>) -> bool {
        self.tx_pending
            || if NS2 {
                cx.now_key < self.busy_until_key
            } else {
                cx.now < self.busy_until
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

    // ---- what the report, the samplers and the builder read ----

    pub fn id(&self) -> PortId {
        self.id
    }

    pub fn link(&self) -> LinkId {
        self.link
    }

    pub fn from(&self) -> NodeId {
        self.from
    }

    #[inline]
    pub fn to(&self) -> NodeId {
        self.to
    }

    pub fn rate(&self) -> Rate {
        self.rate
    }

    pub fn delay(&self) -> SimTime {
        self.delay
    }

    /// Link-layer framing bytes serialised with every packet.
    pub fn overhead(&self) -> u32 {
        self.overhead
    }

    /// The queue discipline (its name, average, settings and class counters).
    /// The flows' ns-2 flow ids, by flow index, for the discipline (`QueueDisc::set_flow_ids`)
    /// and a per-flow loss model.
    pub fn set_flow_ids(&mut self, fids: &[u32]) {
        self.qdisc.set_flow_ids(fids);
        if let Some(l) = self.loss.as_mut() {
            l.model.set_flow_ids(fids);
        }
    }

    pub fn queue(&self) -> &PortQueue {
        &self.qdisc
    }

    /// The device queue's size in packets (0: none).
    pub fn device_queue_limit(&self) -> usize {
        self.device.limit()
    }

    pub fn stats(&self) -> &QueueStats {
        &self.stats
    }

    /// The statistics, for the report (closing the time integrals, reading percentiles).
    pub fn stats_mut(&mut self) -> &mut QueueStats {
        &mut self.stats
    }

    /// Sizes the sojourn histogram for waits up to `max`, so that recording never allocates.
    pub fn reserve_statistics(&mut self, max: SimTime) {
        self.stats.reserve_sojourns(max);
        self.qdisc.reserve_class_statistics(max);
    }

    /// Frees the packets queued (DropTail) and on the wire once the run is over
    /// (`Simulation::release_packets`); counters and statistics stay.
    pub fn release_packets(&mut self) {
        self.qdisc.release();
        self.pipeline = VecDeque::new();
        if let Some(r) = self.rare.as_mut() {
            r.timers = Vec::new();
        }
        if let Some(t) = self.trace_mut() {
            t.clear();
        }
        if let Some(d) = self.delayer_mut() {
            d.slot = None;
        }
    }

    /// Makes room for a full queue and a full wire (as many 1000-byte packets as the
    /// propagation delay holds back to back, plus two), so that packets moving through never
    /// allocate. Ports otherwise start empty and grow to their high-water marks as a run goes.
    /// Returns that number of packets, the port's share of the packet pool.
    pub fn reserve_packet_room(&mut self) -> usize {
        let queue = self.qdisc.reserve_full();
        let per_packet = self.rate.tx_time(1000).0.max(1);
        let wire = (self.delay.0 / per_packet) as usize + 2;
        self.pipeline
            .reserve(wire.saturating_sub(self.pipeline.len()));
        queue + wire + self.device.limit()
    }

    /// Packets whose transmission started from the warm-up on.
    pub fn tx_packets(&self) -> u64 {
        self.tx_packets
    }

    pub fn tx_bytes(&self) -> u64 {
        self.tx_bytes
    }

    /// Packets lost to the link's loss model from the warm-up on.
    pub fn lost_packets(&self) -> u64 {
        self.lost_packets
    }

    /// Time the link was busy from the warm-up up to `now`.
    pub fn busy_time_until(&self, now: SimTime) -> SimTime {
        if self.busy_until > now {
            self.busy_time.saturating_sub(self.busy_until - now)
        } else {
            self.busy_time
        }
    }

    /// Packets and bytes waiting at the port (the device queue tested once).
    #[inline(always)]
    fn waiting(&self) -> (u64, u64) {
        let (p, b) = self.device.len_bytes();
        (
            (self.qdisc.len_packets() + p) as u64,
            self.qdisc.len_bytes() + b,
        )
    }

    /// Packets waiting at the port: in the discipline and in the device queue.
    #[inline(always)]
    pub fn waiting_packets(&self) -> usize {
        self.qdisc.len_packets() + self.device.len()
    }

    /// Bytes waiting at the port: in the discipline and in the device queue.
    #[inline(always)]
    pub fn waiting_bytes(&self) -> u64 {
        self.qdisc.len_bytes() + self.device.bytes()
    }

    /// Packets on the wire (being serialised or propagating).
    pub fn on_wire(&self) -> usize {
        self.pipeline.len()
    }
}
