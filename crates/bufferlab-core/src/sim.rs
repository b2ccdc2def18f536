//! The simulation: arenas of nodes, ports, flows and endpoints, and the event loop.
//!
//! A packet's life: an endpoint sends it (`inject`), the source node routes it to an output
//! port (`enqueue`), the port queues, serialises and sends it (`net/port.rs`: `TxDone` after
//! size*8/rate), it propagates (`Arrive` after the delay) and the next node either delivers it
//! to the flow's endpoint or routes it on. Every packet ends received, dropped (with a reason
//! and a place) or still in the network when the run ends.
//!
//! The loop only dispatches: a port event goes to the port with a `PortCx` (time, warm-up,
//! taps, drop buffers); the engine schedules the `Wakeups` the port returns and charges what it
//! dropped to the packets' flows.

mod huge_pages;
mod prefetch;

use crate::clock::EventClock;
use crate::endpoint::{Endpoint, EndpointCtx};
use crate::ids::{AgentId, FlowId, LinkId, NodeId, PortId};
use crate::monitor::file_name;
use crate::monitor::flow_series::FlowSeriesSet;
use crate::monitor::flow_stats::FlowStats;
use crate::monitor::ns2_trace::{Ns2Trace, TraceFilter, TraceFlow};
use crate::monitor::pcap::PcapSet;
use crate::monitor::queue_series::QueueSeries;
use crate::monitor::taps::Taps;
use crate::net::ecmp::FlowKey;
use crate::net::packet_pool::{PacketPool, PacketRef};
use crate::net::port::{Drops, Port, PortCx, Wakeups};
use crate::net::routing::Routes;
use crate::net::shared_buffer::abm::UnscheduledTag;
use crate::packet::{Packet, Protocol};
use crate::sched::{Ns2Buckets, Packed32, Scheduler};
use crate::units::SimTime;

/// A port operation's context (`net::port::PortCx`) from the simulation's fields: a macro, so
/// that borrowing the taps and the drop buffers leaves the ports free.
macro_rules! port_cx {
    ($s:ident) => {
        PortCx::<NS2> {
            now: $s.now,
            now_key: if NS2 { $s.ns2_now_key } else { $s.now.0 },
            warmup: $s.warmup,
            taps: &mut $s.taps,
            drops: &mut $s.drops,
            pool: &mut $s.pool,
        }
    };
}

#[derive(Copy, Clone, Debug)]
pub(crate) enum Event {
    /// The port finished serialising its packet and others wait to be sent.
    TxDone(PortId),
    /// The head of the port's pipeline reaches the far node.
    Arrive(PortId),
    /// An endpoint's deadline.
    Timer(AgentId),
    /// Take one sample of the monitored queues.
    Sample,
    /// The port's device queue has room again: refill it from the discipline (ns-3 runs this
    /// as a `ScheduleNow` after everything already due at the same instant).
    DeviceWake(PortId),
    /// A timed action of the port: an error model before its queue releases a packet it held
    /// (ns-2's `delay_pkt_`), a Delayer's timer expires.
    PortTimer(PortId),
}

/// Two tag bits and a 30-bit index: a queue entry stays 16 bytes (see `sched`).
impl Packed32 for Event {
    #[inline]
    fn pack(self) -> u32 {
        match self {
            Event::TxDone(p) => p.0,
            Event::Arrive(p) => 1 << 30 | p.0,
            Event::Timer(a) => 2 << 30 | a.0,
            Event::Sample => 3 << 30,
            Event::DeviceWake(p) => 3 << 30 | (p.0 + 1),
            Event::PortTimer(p) => 3 << 30 | 1 << 29 | p.0,
        }
    }
    #[inline]
    fn unpack(bits: u32) -> Self {
        let id = bits & ((1 << 30) - 1);
        match bits >> 30 {
            0 => Event::TxDone(PortId(id)),
            1 => Event::Arrive(PortId(id)),
            2 => Event::Timer(AgentId(id)),
            _ if id == 0 => Event::Sample,
            _ if id >= 1 << 29 => Event::PortTimer(PortId(id - (1 << 29))),
            _ => Event::DeviceWake(PortId(id - 1)),
        }
    }
}

/// Ports and endpoints are numbered below this (an event packs the index into 30 bits).
pub(crate) const MAX_EVENT_INDEX: usize = 1 << 30;
/// Ports are numbered below this: `DeviceWake` and `PortTimer` share the fourth tag, told apart
/// by the index's top bit.
pub(crate) const MAX_PORT_INDEX: usize = (1 << 29) - 1;

pub struct Node {
    pub name: String,
    pub routes: Routes,
}

pub struct Link {
    pub name: String,
    pub ports: [PortId; 2],
}

pub struct Flow {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub protocol: Protocol,
    pub app: &'static str,
    /// ns-2 packet type name for traces ("cbr", "exp", "tcp", ...).
    pub trace_type: &'static str,
    /// Segment size in bytes for TCP (traces number segments); 1 for UDP.
    pub mss: u32,
    /// A TCP flow that opens with a SYN (ns-2's opening packet): traces number it 0 and the
    /// data segments from 1.
    pub opening_packet: bool,
    /// ns-2's FullTcp at both ends (`tcp/full/`): traces write byte sequence numbers and the
    /// listener's packets as type `ack`.
    pub full_tcp: bool,
    /// Its start in ns-2's double seconds, where picoseconds do not hold it
    /// (`FlowConfig::ns2_start_s`): the key of its first event under ns-2's clock.
    pub ns2_start_s: Option<f64>,
    /// Its rank among flows that start at one instant (`FlowConfig::start_order`, default its
    /// index): their first events are scheduled in this order.
    pub start_order: u32,
    /// Bytes on the wire of a full data packet: a TCP segment with its headers (the resolved
    /// TCP settings), or the UDP source's packet size (the mean for a random size).
    pub packet_size: u64,
    pub class: u8,
    /// The flow id of its ns-2 trace lines (`trace_fid`, default its index).
    pub trace_fid: u32,
    /// The ports of its ends in ns-2 trace lines (`trace_ports`), or None: numbered per node
    /// in flow order.
    pub trace_ports: Option<[u32; 2]>,
    pub start: SimTime,
    pub stop: SimTime,
    pub sender: AgentId,
    pub receiver: AgentId,
    /// Its ends taken off their nodes (ns-2's `$ns detach-agent`; under ns-2's clock only),
    /// sender then receiver: the packets that reach a detached end are discarded (ns-2 hands
    /// them to the node's null agent); its own timers go on, and what it sends goes to the
    /// null agent too (its target, ns-node.tcl `detach`).
    pub detached: [bool; 2],
    /// The incast query it answers (`FlowConfig::query`), if any.
    pub query: Option<String>,
    pub stats: FlowStats,
}

pub struct Agent {
    pub ep: Box<dyn Endpoint>,
    pub flow: FlowId,
    pub node: NodeId,
    /// The receiving side of its flow (sends in the reverse direction).
    pub is_receiver: bool,
    /// The Timer event currently in the queue for it, if any: its key (`clock.rs`) and the
    /// deadline it was scheduled for.
    scheduled: Option<(u64, SimTime)>,
    /// ABM's unscheduled tag on what it sends (`tcp.unscheduled_bytes`), if it tags.
    unscheduled: Option<UnscheduledTag>,
}

pub struct Simulation {
    pub now: SimTime,
    /// What orders events (`clock.rs`), and under ns-2's clock the key of the event being
    /// run (its double seconds as bits; the picosecond clock's key is `now`).
    pub(crate) clock: EventClock,
    ns2_now_key: u64,
    pub end: SimTime,
    pub warmup: SimTime,
    pub seed: u64,
    pub name: String,
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    pub ports: Vec<Port>,
    pub flows: Vec<Flow>,
    pub agents: Vec<Agent>,
    pub events: u64,
    pub(crate) sched: Scheduler<Event>,
    /// The events under ns-2's clock, bucketed for double keys (`sched.rs`); the other
    /// scheduler stays empty then, as this one under the picosecond clock.
    sched_ns2: Scheduler<Event, Ns2Buckets>,
    pub(crate) sample_interval: Option<SimTime>,
    pub series: Vec<QueueSeries>,
    /// When the queue series take their next sample.
    next_queue_sample: SimTime,
    /// Per-flow series (`monitor.flow_interval`), if asked for.
    pub flow_series: Option<FlowSeriesSet>,
    /// Wall-time, memory and stall limits, checked every `guard::CHECK_EVERY` events.
    pub guard: Option<crate::guard::Guard>,
    /// Why the run stopped before its end, when a limit did it.
    pub stopped: Option<crate::guard::Stop>,
    /// Every event due at or before the end has run. Not `now >= end`: events due at the
    /// end itself may still wait when a slice stops after the first of them (a wall-time
    /// yield, `api.rs`), and whether they ran must not depend on where slices end.
    ran_to_end: bool,
    /// The ns-2 trace and pcap capture, when asked for.
    pub taps: Taps,
    next_uid: u64,
    /// What the ports dropped or lost, until charged to the flows (reused: no allocation).
    drops: Drops,
    /// The packets waiting in DropTail and device queues and on the wires, by handle
    /// (`net/packet_pool.rs`).
    pool: PacketPool,
    out_buf: Vec<Packet>,
    /// `Report::from_sim` has read (and freed) the statistics' histograms.
    pub(crate) reported: bool,
    /// The limits the builder sized and its scenario-wide warnings.
    pub notes: crate::notes::BuildNotes,
    /// ns-2's default RNG, when the scenario follows it (`ns2_default_rng`): the components
    /// hold it too; the simulation keeps it for a script that draws between events.
    pub ns2_rng: Option<crate::ns2_rng::Ns2DefaultRng>,
    /// The buffer pools of the shared-buffer switches (`net/shared_buffer`), which their
    /// ports' queues hold too; the report reads them.
    pub shared_buffers:
        Vec<std::rc::Rc<std::cell::RefCell<crate::net::shared_buffer::pool::SharedPool>>>,
    /// Upper edges in bytes of the flow-size buckets of the report's flow completion times
    /// (`[fct] buckets`, `monitor/fct.rs`).
    pub fct_edges: Vec<u64>,
    /// Where each flow's packets are delivered, for the prefetches (`sim/prefetch.rs`).
    deliveries: prefetch::Deliveries,
}

impl Simulation {
    pub(crate) fn new(name: String, seed: u64, end: SimTime, warmup: SimTime) -> Self {
        Self {
            now: SimTime::ZERO,
            clock: EventClock::Picoseconds,
            ns2_now_key: 0,
            end,
            warmup,
            seed,
            name,
            nodes: Vec::new(),
            links: Vec::new(),
            ports: Vec::new(),
            flows: Vec::new(),
            agents: Vec::new(),
            events: 0,
            sched: Scheduler::default(),
            sched_ns2: Scheduler::default(),
            sample_interval: None,
            series: Vec::new(),
            next_queue_sample: SimTime::ZERO,
            flow_series: None,
            guard: None,
            stopped: None,
            ran_to_end: false,
            taps: Taps::default(),
            next_uid: 0,
            drops: Drops::with_capacity(16),
            pool: PacketPool::default(),
            out_buf: Vec::with_capacity(64),
            reported: false,
            notes: Default::default(),
            ns2_rng: None,
            shared_buffers: Vec::new(),
            fct_edges: crate::monitor::fct::DEFAULT_EDGES.to_vec(),
            deliveries: Default::default(),
        }
    }

    pub(crate) fn add_agent(
        &mut self,
        ep: Box<dyn Endpoint>,
        flow: FlowId,
        node: NodeId,
        is_receiver: bool,
    ) -> AgentId {
        let id = AgentId(self.agents.len() as u32);
        self.agents.push(Agent {
            ep,
            flow,
            node,
            is_receiver,
            scheduled: None,
            unscheduled: None,
        });
        id
    }

    /// Agent `a` tags the packets it sends within its first `bytes` of data as unscheduled
    /// (`net/shared_buffer/abm.rs`).
    pub(crate) fn tag_unscheduled(&mut self, a: AgentId, bytes: u64) {
        self.agents[a.idx()].unscheduled = UnscheduledTag::new(bytes);
    }

    /// Schedules every endpoint's first deadline and the first queue sample. Called once by the builder.
    pub(crate) fn start(&mut self) {
        // Events of one instant run in the order they were scheduled (FIFO): the flows' first
        // events go in in their start order (ns-2: the script's `$ns at` order), each flow's
        // agents in the order they were added.
        let mut order: Vec<u32> = (0..self.agents.len() as u32).collect();
        order.sort_by_key(|&a| self.flows[self.agents[a as usize].flow.idx()].start_order);
        for a in order {
            self.update_timer(AgentId(a));
        }
        self.next_queue_sample = self.warmup;
        if let Some(t) = self.next_sample() {
            self.schedule_any(self.clock.key_at(t), Event::Sample);
        }
    }

    /// Runs on clock `clock` (`clock.rs`); before anything is scheduled.
    pub(crate) fn set_clock(&mut self, clock: EventClock) {
        self.clock = clock;
    }

    /// Schedules `ev` at key `key` in the scheduler of the run's clock (`NS2` must be it).
    #[inline(always)]
    fn schedule_in<const NS2: bool>(&mut self, key: u64, ev: Event) {
        if NS2 {
            self.sched_ns2.schedule_key(key, ev);
        } else {
            self.sched.schedule_key(key, ev);
        }
    }

    /// [`schedule_in`](Simulation::schedule_in) outside the event loop.
    fn schedule_any(&mut self, key: u64, ev: Event) {
        match self.clock {
            EventClock::Picoseconds => self.schedule_in::<false>(key, ev),
            EventClock::Ns2 => self.schedule_in::<true>(key, ev),
        }
    }

    /// The key of the event being run (`clock.rs`).
    pub(crate) fn now_key(&self) -> u64 {
        match self.clock {
            EventClock::Picoseconds => self.now.0,
            EventClock::Ns2 => self.ns2_now_key,
        }
    }

    /// The time now in seconds (ns-2's double under `EventClock::Ns2`).
    pub fn now_s(&self) -> f64 {
        self.clock.seconds_of(self.now_key())
    }

    /// Sets the clock to key `key` (a script's event; never back).
    pub(crate) fn set_now_key(&mut self, key: u64) {
        if key > self.now_key() {
            self.ns2_now_key = key;
            self.now = self.clock.time_of(key, self.now).min(self.end);
        }
    }

    /// Runs to the end of the scenario.
    pub fn run(&mut self) {
        self.run_until(self.end);
    }

    /// Runs every event due at or before `t` (never past the end). Lets front ends run in
    /// slices to show progress or stop early.
    pub fn run_until(&mut self, t: SimTime) {
        self.run_until_with(t, |_| false);
    }

    /// [`run_until`](Simulation::run_until), calling `after` once after each event (the ns-2
    /// script runner's variable traces and `done` callbacks; `run_until` passes a closure
    /// that does nothing, which the compiler removes). When `after` returns true the run
    /// stops there, the clock at that event's time.
    #[inline(always)]
    pub fn run_until_with(&mut self, t: SimTime, after: impl FnMut(&Simulation) -> bool) {
        let until = t.min(self.end);
        let key = self.clock.key_at(until);
        if self.run_until_key(key, after) {
            self.now = self.now.max(until);
            self.ns2_now_key = self.ns2_now_key.max(key);
        }
    }

    /// Runs every event whose key is at most `until` (never past the end), calling `after`
    /// after each; true when it ran out of such events (false: `after` or a limit stopped it).
    #[inline(always)]
    pub(crate) fn run_until_key(
        &mut self,
        until: u64,
        after: impl FnMut(&Simulation) -> bool,
    ) -> bool {
        let end = self.clock.key_at(self.end);
        let until = until.min(end);
        // One loop for each clock, fixed for the run: the picosecond clock pays nothing for
        // ns-2's (the `NS2` branches fold away)
        let drained = match self.clock {
            EventClock::Picoseconds => self.run_events::<false>(until, after),
            EventClock::Ns2 => self.run_events::<true>(until, after),
        };
        self.ran_to_end |= drained && until == end;
        drained
    }

    #[inline(always)]
    fn run_events<const NS2: bool>(
        &mut self,
        until: u64,
        mut after: impl FnMut(&Simulation) -> bool,
    ) -> bool {
        // only where the ports outgrow the caches (`sim/prefetch.rs`)
        let prefetch = self.worth_prefetching();
        if prefetch {
            self.note_deliveries();
            if self.events == 0 {
                // the state as built on huge pages (`sim/huge_pages.rs`); again as it grows, below
                huge_pages::collapse_resident();
            }
        }
        while let Some((key, ev)) = if NS2 {
            self.sched_ns2.pop_until_key(until)
        } else {
            self.sched.pop_until_key(until)
        } {
            let time = if NS2 {
                EventClock::Ns2.time_of(key, self.now)
            } else {
                SimTime(key)
            };
            self.now = time;
            if NS2 {
                self.ns2_now_key = key;
            }
            self.events += 1;
            // the front end's turn (Ctrl-C), after this event: `guard.rs` `yield_due`
            let mut yield_after = false;
            if self.events & (crate::guard::CHECK_EVERY - 1) == 0 {
                if prefetch {
                    huge_pages::after_events(self.events);
                }
                if let Some(mut g) = self.guard.take() {
                    let stop = g.check(time, &|| self.describe(ev));
                    yield_after = g.yield_due();
                    self.guard = Some(g);
                    if let Some(stop) = stop {
                        // The event is not run: the report is of what happened before it.
                        self.stopped = Some(stop);
                        return false;
                    }
                }
            }
            if prefetch {
                self.prefetch_ahead::<NS2>();
            }
            match ev {
                Event::TxDone(p) => self.tx_done::<NS2>(p),
                Event::Arrive(p) => self.arrive::<NS2>(p),
                Event::Timer(a) => self.timer::<NS2>(a),
                Event::Sample => self.sample(),
                Event::DeviceWake(p) => self.device_wake::<NS2>(p),
                Event::PortTimer(p) => self.port_timer::<NS2>(p),
            }
            if after(self) || yield_after {
                return false;
            }
        }
        true
    }

    /// Events waiting in the scheduler (for diagnostics).
    pub fn pending_events(&self) -> usize {
        self.sched.len() + self.sched_ns2.len()
    }

    /// True once every event due at or before the end has run, or a limit stopped the run.
    pub fn finished(&self) -> bool {
        self.ran_to_end || self.stopped.is_some()
    }

    /// What an event is about, for a stall message ("a timer of flow tcp0").
    fn describe(&self, ev: Event) -> String {
        match ev {
            Event::TxDone(p) => format!("a transmission end on link {}", self.link_name(p)),
            Event::Arrive(p) => format!("an arrival over link {}", self.link_name(p)),
            Event::DeviceWake(p) => format!("a device-queue wake-up on link {}", self.link_name(p)),
            Event::PortTimer(p) => format!("a timed action on link {}", self.link_name(p)),
            Event::Timer(a) => {
                let agent = &self.agents[a.idx()];
                let side = if agent.is_receiver {
                    "receiver"
                } else {
                    "sender"
                };
                format!(
                    "a timer of flow {}'s {side}",
                    self.flows[agent.flow.idx()].name
                )
            }
            Event::Sample => "a series sample".into(),
        }
    }

    // ---- endpoints ----

    fn endpoint_call<const NS2: bool>(&mut self, a: AgentId, pkt: Option<Packet>) {
        let agent = &mut self.agents[a.idx()];
        let flow = &mut self.flows[agent.flow.idx()];
        let (from, to) = if agent.is_receiver {
            (flow.dst, flow.src)
        } else {
            (flow.src, flow.dst)
        };
        let mut cx = EndpointCtx {
            now: self.now,
            now_s: if NS2 {
                f64::from_bits(self.ns2_now_key)
            } else {
                self.now.as_secs_f64()
            },
            stats: &mut flow.stats,
            out: &mut self.out_buf,
            warmup: self.warmup,
            flow: agent.flow,
            from,
            to,
            class: flow.class,
            reverse: agent.is_receiver,
        };
        match pkt {
            Some(p) => agent.ep.on_packet(p, &mut cx),
            None => agent.ep.on_timeout(&mut cx),
        }
        if NS2 && self.taps.ns2_events && !agent.is_receiver {
            // the event trace lines of this call, before the packets it sent (tcp.cc
            // trace_event runs before output)
            let events = agent.ep.take_ns2_events();
            if let Some(t) = self.taps.ns2_trace.as_mut() {
                for e in &events {
                    t.record_event(agent.flow.idx(), from.0, to.0, e);
                }
            }
        }
        let node = agent.node;
        if !self.out_buf.is_empty() {
            let mut out = std::mem::take(&mut self.out_buf);
            if let Some(tag) = &mut agent.unscheduled {
                out.iter_mut().for_each(|p| tag.mark(p));
            }
            for p in out.drain(..) {
                self.inject::<NS2>(node, p);
            }
            self.out_buf = out;
        }
        self.update_timer_in::<NS2>(a);
    }

    /// Runs endpoint `a`'s timeout now if it is due (a script that gave a sender data acts
    /// at once, as ns-2's sendmsg calls send_much; `session.rs`), else reschedules its timer.
    pub(crate) fn endpoint_due_now(&mut self, a: AgentId) {
        let due = self.agents[a.idx()]
            .ep
            .next_timeout()
            .is_some_and(|t| t <= self.now);
        if due && self.stopped.is_none() && self.now < self.end {
            match self.clock {
                EventClock::Picoseconds => self.endpoint_call::<false>(a, None),
                EventClock::Ns2 => self.endpoint_call::<true>(a, None),
            }
        } else {
            self.update_timer(a);
        }
    }

    /// Keeps at most one Timer event per endpoint in the queue (outside the event loop).
    pub(crate) fn update_timer(&mut self, a: AgentId) {
        match self.clock {
            EventClock::Picoseconds => self.update_timer_in::<false>(a),
            EventClock::Ns2 => self.update_timer_in::<true>(a),
        }
    }

    /// Keeps at most one Timer event per endpoint in the queue, at or before its deadline.
    fn update_timer_in<const NS2: bool>(&mut self, a: AgentId) {
        let agent = &mut self.agents[a.idx()];
        if let Some(t) = agent.ep.next_timeout() {
            if agent.scheduled.is_none_or(|(_, s)| t < s) {
                let t = t.max(self.now);
                let key = if NS2 {
                    // the endpoint's own double where it keeps one (CBR), the flow's start as
                    // the script computed it, else now + delay
                    let flow = &self.flows[agent.flow.idx()];
                    let start_s = flow.ns2_start_s.filter(|_| t == flow.start);
                    match agent.ep.next_timeout_s().or(start_s) {
                        Some(s) if s.to_bits() >= self.ns2_now_key => s.to_bits(),
                        _ => EventClock::Ns2.key_after(self.ns2_now_key, self.now, t - self.now),
                    }
                } else {
                    t.0
                };
                agent.scheduled = Some((key, t));
                self.schedule_in::<NS2>(key, Event::Timer(a));
            }
        }
    }

    fn timer<const NS2: bool>(&mut self, a: AgentId) {
        let agent = &mut self.agents[a.idx()];
        let Some((key, deadline)) = agent.scheduled else {
            return;
        };
        if key != if NS2 { self.ns2_now_key } else { self.now.0 } {
            return; // superseded by an earlier deadline that already ran
        }
        agent.scheduled = None;
        if NS2 && deadline > self.now && agent.ep.next_timeout() == Some(deadline) {
            // the key's double, rounded to picoseconds, fell just before the deadline the
            // endpoint computed in picoseconds: this is that deadline's event
            self.now = deadline;
        }
        if agent.ep.next_timeout().is_some_and(|t| t <= self.now) {
            self.endpoint_call::<NS2>(a, None);
        } else {
            self.update_timer_in::<NS2>(a);
        }
    }

    // ---- packets through the network ----

    fn inject<const NS2: bool>(&mut self, node: NodeId, mut pkt: Packet) {
        pkt.uid = self.next_uid;
        self.next_uid += 1;
        // ns-node.tcl `Node instproc detach`: a detached agent's target is the null agent, so
        // what it sends from then on (its uid taken, agent.cc allocpkt) never reaches a link
        if NS2 && self.flows[pkt.flow.idx()].detached[usize::from(pkt.reverse)] {
            return;
        }
        if !pkt.in_warmup {
            let st = &mut self.flows[pkt.flow.idx()].stats;
            if pkt.reverse {
                st.reverse_tx_packets += 1;
            } else {
                st.on_sent(pkt.size);
            }
        }
        // In the pool from here until delivered, dropped or lost (`net/packet_pool.rs`).
        let r = self.pool.put(pkt);
        self.forward::<NS2>(node, r);
    }

    #[inline(always)]
    fn forward<const NS2: bool>(&mut self, node: NodeId, r: PacketRef) {
        let pkt = self.pool.get(r);
        let next = match &mut self.nodes[node.idx()].routes {
            // a multipath node hashes the packet's 5-tuple, or draws (`net/ecmp.rs`)
            Routes::Ecmp(t) => t.pick_packet(&FlowKey::of(pkt)),
            routes => routes.next_port(pkt.dst),
        };
        match next {
            Some(p) => self.enqueue::<NS2>(p, r),
            // Unreachable destinations are rejected when the scenario is built.
            None => unreachable!(
                "no route from {} for flow {}",
                self.nodes[node.idx()].name,
                self.pool.get(r).flow.0
            ),
        }
    }

    /// A packet arrives at an output port's queue.
    #[inline(always)]
    fn enqueue<const NS2: bool>(&mut self, pid: PortId, r: PacketRef) {
        let mut cx = port_cx!(self);
        let w = self.ports[pid.idx()].receive(r, &mut cx);
        self.port_done::<NS2>(pid, w);
    }

    /// The packet on the wire is out and others wait: the port sends the next one.
    fn tx_done<const NS2: bool>(&mut self, pid: PortId) {
        let mut cx = port_cx!(self);
        let w = self.ports[pid.idx()].complete_tx(&mut cx);
        self.port_done::<NS2>(pid, w);
    }

    /// The port's device queue has room again: it refills from the discipline.
    fn device_wake<const NS2: bool>(&mut self, pid: PortId) {
        let mut cx = port_cx!(self);
        let w = self.ports[pid.idx()].device_wake(&mut cx);
        self.port_done::<NS2>(pid, w);
    }

    /// A timed action of a port (`Port::fire_timer`).
    fn port_timer<const NS2: bool>(&mut self, pid: PortId) {
        let mut cx = port_cx!(self);
        let w = self.ports[pid.idx()].fire_timer(&mut cx);
        self.port_done::<NS2>(pid, w);
    }

    /// Runs `op` on port `pid` now, outside the event loop, under ns-2's clock (a script's
    /// command to a Delayer), and schedules what it asks for.
    pub(crate) fn port_command(
        &mut self,
        pid: PortId,
        op: impl FnOnce(&mut Port, &mut PortCx<true>) -> Wakeups,
    ) {
        const NS2: bool = true;
        let mut cx = port_cx!(self);
        let w = op(&mut self.ports[pid.idx()], &mut cx);
        self.port_done::<NS2>(pid, w);
    }

    /// Schedules a port's timed action at `key` (`Port::delayer_spike`'s first spike).
    pub(crate) fn schedule_port_timer(&mut self, pid: PortId, key: u64) {
        self.schedule_any(key, Event::PortTimer(pid));
    }

    /// Schedules what a port operation asked for and charges its drops to their flows.
    #[inline(always)]
    fn port_done<const NS2: bool>(&mut self, pid: PortId, w: Wakeups) {
        // Slot by slot, as `add_timer` fills them (the second only after the first): iterating
        // the array copied it with 16-byte loads over the 8-byte stores that had just written
        // it, a load the CPU cannot take from its store buffer, so it waited for every
        // earlier store to reach the cache, those to the cold lines of the port and packet
        // an endpoint's answer had just filled included (perf, d_10000: 0.97x the CPU).
        if let Some(k) = w.timers[0] {
            self.schedule_in::<NS2>(k, Event::PortTimer(pid));
            if let Some(k) = w.timers[1] {
                self.schedule_in::<NS2>(k, Event::PortTimer(pid));
            }
        }
        if w.device_wake {
            let key = self.now_key();
            self.schedule_in::<NS2>(key, Event::DeviceWake(pid));
        }
        if NS2 {
            // delay.cc LinkDelay::recv schedules the arrival, then the queue's resume
            if let Some(k) = w.arrive {
                self.schedule_in::<NS2>(k, Event::Arrive(pid));
            }
            if let Some(k) = w.tx_done {
                self.schedule_in::<NS2>(k, Event::TxDone(pid));
            }
        } else {
            if let Some(k) = w.tx_done {
                self.schedule_in::<NS2>(k, Event::TxDone(pid));
            }
            if let Some(k) = w.arrive {
                self.schedule_in::<NS2>(k, Event::Arrive(pid));
            }
        }
        if !self.drops.is_empty() {
            self.charge_drops(pid);
        }
    }

    /// The head of a port's wire reaches the far node: routed on or delivered.
    fn arrive<const NS2: bool>(&mut self, pid: PortId) {
        let mut cx = port_cx!(self);
        let port = &mut self.ports[pid.idx()];
        let arrived = port.leave_wire(&mut cx);
        let (next, node) = (port.next_arrival::<NS2>(), port.to());
        if let Some(k) = next {
            self.schedule_in::<NS2>(k, Event::Arrive(pid));
        }
        let Some(r) = arrived else {
            self.charge_drops(pid); // lost on the wire
            return;
        };
        if self.pool.get(r).dst == node {
            let pkt = self.pool.take(r);
            self.deliver::<NS2>(pkt);
        } else {
            self.forward::<NS2>(node, r);
        }
    }

    fn deliver<const NS2: bool>(&mut self, pkt: Packet) {
        let flow = &mut self.flows[pkt.flow.idx()];
        // only the scripts' clock: the picosecond clock's deliveries have no branch for it
        if NS2 && flow.detached[usize::from(!pkt.reverse)] {
            return;
        }
        let agent = if pkt.reverse {
            if !pkt.in_warmup {
                flow.stats.reverse_rx_packets += 1;
            }
            flow.sender
        } else {
            if !pkt.in_warmup {
                flow.stats.on_received(pkt.size, self.now - pkt.created);
            }
            flow.receiver
        };
        self.endpoint_call::<NS2>(agent, Some(pkt));
    }

    /// Charges what port `pid` dropped or lost to the packets' flows (the port counted and
    /// traced them).
    #[cold]
    fn charge_drops(&mut self, pid: PortId) {
        for (pkt, reason) in self.drops.drain() {
            if pkt.in_warmup {
                continue;
            }
            let st = &mut self.flows[pkt.flow.idx()].stats;
            if pkt.reverse {
                st.reverse_lost_packets += 1;
            } else {
                st.on_lost(pkt.size, pid, reason);
            }
        }
    }

    // ---- monitors ----

    /// When the next sample of any series falls: queue series from the warm-up on, each
    /// interval; flow series at the end of each interval.
    fn next_sample(&self) -> Option<SimTime> {
        let queues = (self.sample_interval.is_some() && !self.series.is_empty())
            .then_some(self.next_queue_sample);
        let flows = self.flow_series.as_ref().map(|f| f.due());
        SimTime::earliest(queues, flows)
    }

    fn sample(&mut self) {
        let now = self.now;
        // by key: under ns-2's clock a sample's time rounded to picoseconds can fall short
        let (key, clock) = (self.now_key(), self.clock);
        let due = |t: SimTime| key >= clock.key_at(t);
        if let Some(dt) = self.sample_interval {
            if due(self.next_queue_sample) {
                let t = now.as_secs_f64();
                for s in &mut self.series {
                    let port = &self.ports[s.port.idx()];
                    s.t_s.push(t);
                    s.packets.push(port.waiting_packets() as u32);
                    s.bytes.push(port.waiting_bytes());
                    s.average.push(port.queue().disc().average());
                }
                self.next_queue_sample = now.max(self.next_queue_sample) + dt;
            }
        }
        let flows_due = self.flow_series.as_ref().is_some_and(|f| due(f.due()));
        if let Some(fs) = &mut self.flow_series {
            if flows_due {
                let flows = &self.flows;
                fs.sample(|i| &flows[i].stats);
            }
        }
        if let Some(t) = self.next_sample() {
            self.schedule_any(self.clock.key_at(t), Event::Sample);
        }
    }

    /// Sizes every port's sojourn histogram for waits up to `max`, and every flow's delay
    /// histogram for one-way delays up to `max`, before the run, so that recording statistics
    /// never allocates (histograms otherwise grow with each value outside every earlier one).
    pub fn reserve_statistics(&mut self, max: SimTime) {
        for p in &mut self.ports {
            p.reserve_statistics(max);
        }
        for f in &mut self.flows {
            f.stats.reserve_delays(max);
        }
    }

    /// Frees what only the run needs once it is over (the pending events, the packets queued
    /// and on the wire), before the report is read, so that the report's memory does not add
    /// to theirs at the peak (7 KB a flow at 10 000 flows, docs/performance.md). The report
    /// reads counters only; the simulation cannot run on after this.
    pub fn release_packets(&mut self) {
        self.sched = Scheduler::default();
        self.sched_ns2 = Scheduler::default();
        for p in &mut self.ports {
            p.release_packets();
        }
        self.pool.release();
    }

    /// Makes room in every port for a full queue and a full wire, in every endpoint for its
    /// buffers (a receiver's out-of-order ranges) and in every flow for four places of loss,
    /// before the run (they start empty and
    /// grow to their high-water marks; growing allocates): results do not change.
    pub fn reserve_packet_room(&mut self) {
        let mut room = 0;
        for p in &mut self.ports {
            room += p.reserve_packet_room();
        }
        self.pool.reserve(room);
        for a in &mut self.agents {
            a.ep.reserve_room();
        }
        for f in &mut self.flows {
            f.stats.reserve_drops(4);
        }
    }

    /// Sizes the event calendar up front (`Scheduler::reserve`): results do not change.
    pub fn reserve_events(&mut self, per_bucket: usize, far: usize) {
        self.sched.reserve(per_bucket, far);
    }

    /// Packets inside the network right now: queued, being serialised or propagating.
    pub fn packets_in_network(&self) -> u64 {
        self.ports
            .iter()
            .map(|p| p.waiting_packets() as u64 + p.on_wire() as u64)
            .sum()
    }

    /// The losses of the link direction `from` -> `to` go to a drop-target of the script's
    /// own, not the link's `drophead_`: its ns-2 queue and flow monitors do not count them.
    pub fn unmonitor_losses(&mut self, from: &str, to: &str) -> Result<(), String> {
        let port = self.ports.iter().position(|p| {
            self.nodes[p.from().idx()].name == from && self.nodes[p.to().idx()].name == to
        });
        match port {
            Some(i) => {
                self.ports[i].unmonitor_ns2_losses();
                Ok(())
            }
            None => Err(format!("no link goes from \"{from}\" to \"{to}\"")),
        }
    }

    /// Starts writing an ns-2 trace of the events `filter` selects to `out`.
    /// The sender of flow `flow` (its index) records ns-2's event trace lines from now on,
    /// written into the ns-2 trace under ns-2's clock (`$ns eventtrace-all`; `Endpoint::
    /// record_ns2_events`). False if that sender writes none.
    pub fn record_ns2_events(&mut self, flow: usize) -> bool {
        let Some(f) = self.flows.get(flow) else {
            return false;
        };
        let on = self.agents[f.sender.idx()].ep.record_ns2_events();
        self.taps.ns2_events |= on;
        on
    }

    /// Per port: whether it is one of these link directions (from node, to node).
    fn direction_ports(&self, directions: &[(String, String)]) -> Result<Vec<bool>, String> {
        let mut out = vec![false; self.ports.len()];
        // (see unmonitor_losses for the same lookup of a direction)
        for (from, to) in directions {
            let port = self.ports.iter().position(|p| {
                &self.nodes[p.from().idx()].name == from && &self.nodes[p.to().idx()].name == to
            });
            match port {
                Some(i) => out[i] = true,
                None => {
                    return Err(format!(
                        "trace filter: no link goes from \"{from}\" to \"{to}\""
                    ))
                }
            }
        }
        Ok(out)
    }

    pub fn open_ns2_trace(
        &mut self,
        out: Box<dyn std::io::Write>,
        filter: &TraceFilter,
    ) -> Result<(), String> {
        for l in &filter.links {
            if !self.links.iter().any(|k| &k.name == l) {
                return Err(format!("trace filter: no link is named \"{l}\""));
            }
        }
        for f in &filter.flows {
            if !self.flows.iter().any(|k| &k.name == f) {
                return Err(format!("trace filter: no flow is named \"{f}\""));
            }
        }
        if let Some(c) = filter.events.chars().find(|c| !"+-rde, ".contains(*c)) {
            return Err(format!(
                "trace filter: unknown event '{c}'; events are + - r d e"
            ));
        }
        let error_drops = self.direction_ports(&filter.error_drops)?;
        let wanted = self.direction_ports(&filter.directions)?;
        // ns-2 numbers the agents attached to a node 0, 1, ... in the order they are attached.
        let mut next_port = vec![0u32; self.nodes.len()];
        let flows = self
            .flows
            .iter()
            .map(|f| {
                let src_port = next_port[f.src.idx()];
                next_port[f.src.idx()] += 1;
                let dst_port = next_port[f.dst.idx()];
                next_port[f.dst.idx()] += 1;
                let [src_port, dst_port] = f.trace_ports.unwrap_or([src_port, dst_port]);
                TraceFlow {
                    src_port,
                    dst_port,
                    type_name: f.trace_type,
                    mss: f.mss,
                    opening_packet: f.opening_packet,
                    full_tcp: f.full_tcp,
                    fid: f.trace_fid,
                    traced: filter.flows.is_empty() || filter.flows.contains(&f.name),
                }
            })
            .collect();
        let ports = self
            .ports
            .iter()
            .enumerate()
            .map(|(i, p)| {
                (filter.links.is_empty() || filter.links.contains(&self.links[p.link().idx()].name))
                    && (filter.directions.is_empty() || wanted[i])
            })
            .collect();
        let mut trace = Ns2Trace::new(out, flows, ports, &filter.events);
        trace.set_error_drops(error_drops);
        trace.set_show_tcphdr(filter.show_tcphdr);
        self.taps.ns2_trace = Some(trace);
        Ok(())
    }

    /// Starts pcap capture of both directions of the named links (all links when empty) into `dir`.
    pub fn open_pcap(&mut self, dir: &std::path::Path, links: &[String]) -> Result<(), String> {
        for l in links {
            if !self.links.iter().any(|k| &k.name == l) {
                return Err(format!("pcap: no link is named \"{l}\""));
            }
        }
        // File name -> what it captures, in words: two captures that would share a file (link
        // "x" from a to b, and a link named "x_a-b") are refused rather than mixed in one file.
        let mut owner = std::collections::BTreeMap::<String, String>::new();
        let mut names = Vec::with_capacity(self.ports.len());
        for p in &self.ports {
            let link = &self.links[p.link().idx()].name;
            if !(links.is_empty() || links.contains(link)) {
                names.push(Vec::new());
                continue;
            }
            let (from, to) = (
                &self.nodes[p.from().idx()].name,
                &self.nodes[p.to().idx()].name,
            );
            let fix = |e: String| format!("pcap: {e}");
            file_name::check_name("link name", link).map_err(fix)?;
            file_name::check_name("node name", from).map_err(fix)?;
            file_name::check_name("node name", to).map_err(fix)?;
            let (l, f, t) = (
                file_name::shown(link),
                file_name::shown(from),
                file_name::shown(to),
            );
            let mine = [
                (
                    format!("{link}_{from}-{to}"),
                    format!("link {l} from {f} to {t}"),
                ),
                (link.clone(), format!("link {l}")),
            ];
            for (n, what) in &mine {
                match owner.get(n) {
                    Some(other) if other != what => {
                        return Err(format!(
                            "pcap: the captures of {other} and of {what} would both be {}; \
                             rename a link or a node",
                            file_name::shown(&format!("{n}.pcap"))
                        ))
                    }
                    _ => owner.insert(n.clone(), what.clone()),
                };
            }
            names.push(mine.into_iter().map(|(n, _)| n).collect());
        }
        self.taps.pcap = Some(PcapSet::create(dir, names)?);
        Ok(())
    }

    /// Flushes and closes the trace and capture files.
    pub fn close_traces(&mut self) -> Result<(), String> {
        self.taps.close()
    }

    pub fn link_name(&self, pid: PortId) -> String {
        let p = &self.ports[pid.idx()];
        format!(
            "{}:{}->{}",
            self.links[p.link().idx()].name,
            self.nodes[p.from().idx()].name,
            self.nodes[p.to().idx()].name
        )
    }

    pub fn link_of(&self, pid: PortId) -> LinkId {
        self.ports[pid.idx()].link()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoint::{Endpoint, EndpointCtx};
    use crate::guard::{Guard, Limits, StopKind};

    /// An endpoint whose timer is always due now: simulated time never moves again.
    struct Spinner;
    impl Endpoint for Spinner {
        fn on_packet(&mut self, _pkt: Packet, _cx: &mut EndpointCtx) {}
        fn on_timeout(&mut self, _cx: &mut EndpointCtx) {}
        fn next_timeout(&self) -> Option<SimTime> {
            Some(SimTime::ZERO)
        }
    }

    /// A UDP flow from `src` to `dst` with agents [sender, receiver], for tests that build a
    /// simulation by hand (here and in `sim/prefetch.rs`).
    pub(super) fn udp_flow(
        name: &str,
        id: FlowId,
        src: NodeId,
        dst: NodeId,
        [sender, receiver]: [AgentId; 2],
    ) -> Flow {
        Flow {
            name: name.into(),
            src,
            dst,
            protocol: crate::packet::Protocol::Udp,
            app: "cbr",
            trace_type: "cbr",
            mss: 1,
            opening_packet: false,
            full_tcp: false,
            ns2_start_s: None,
            start_order: id.0,
            packet_size: 100,
            class: 0,
            trace_fid: id.0,
            trace_ports: None,
            start: SimTime::ZERO,
            stop: SimTime::from_secs(1),
            sender,
            receiver,
            detached: [false; 2],
            query: None,
            stats: FlowStats::default(),
        }
    }

    #[test]
    fn a_stalled_run_stops_and_names_what_loops() {
        let mut sim = Simulation::new("stall".into(), 1, SimTime::from_secs(1), SimTime::ZERO);
        sim.nodes.push(Node {
            name: "a".into(),
            routes: Routes::Isolated,
        });
        let fid = FlowId(0);
        let sender = sim.add_agent(Box::new(Spinner), fid, NodeId(0), false);
        sim.flows.push(udp_flow(
            "spin",
            fid,
            NodeId(0),
            NodeId(0),
            [sender, sender],
        ));
        sim.start();
        sim.guard = Some(Guard::new(Limits::default()));
        sim.run();
        let stop = sim.stopped.as_ref().expect("stopped");
        assert_eq!(stop.kind, StopKind::Stalled);
        assert!(
            stop.message.contains("a timer of flow spin's sender"),
            "{}",
            stop.message
        );
        assert!(sim.finished() && sim.now == SimTime::ZERO);
    }
}
