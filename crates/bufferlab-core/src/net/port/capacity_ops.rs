//! What a port does when its capacity comes from a Mahimahi trace (`net/capacity/mahimahi.rs`,
//! following mahimahi's `link_queue.cc`): the queue is served only at the trace's delivery
//! opportunities. An arrival first uses up the opportunities due by then with the queue as it
//! was (`LinkQueue::read_packet` calls `rationalize(now)` before the enqueue), then enters the
//! queue; while the link holds a packet a `PortTimer::Opportunity` is set at the next
//! opportunity, which serves the queue (`rationalize`) and sets the next one. An idle link
//! sets no timer: the opportunities it lets pass are skipped in one step at the next arrival.
//!
//! A packet leaves the queue (its `-` line, its sojourn) when an opportunity starts on it and
//! goes onto the wire at the opportunity that carries its last byte, arriving at the far node
//! the link's delay later. Busy time, for the report's utilisation, counts each packet's
//! bytes at the trace's mean rate (the port's `rate`), so a link's utilisation is the share
//! of the trace's capacity it used.

use super::{Port, PortCx, PortTimer, Wakeups};
use crate::net::capacity::mahimahi::{TraceFeed, TUN_HEADER_BYTES};
use crate::net::packet_pool::PacketRef;
use crate::net::port_queue::QueueCall;
use crate::units::SimTime;

/// The port's queue as the trace server sees it, during one call.
struct Feed<'p, 'c, 'a, const NS2: bool> {
    port: &'p mut Port,
    cx: &'c mut PortCx<'a, NS2>,
    w: Wakeups,
}

impl<const NS2: bool> TraceFeed<PacketRef> for Feed<'_, '_, '_, NS2> {
    fn is_empty(&self) -> bool {
        self.port.qdisc.len_packets() == 0
    }

    fn dequeue(&mut self, _at: SimTime) -> Option<PacketRef> {
        let p = &mut *self.port;
        let call = QueueCall {
            now: self.cx.now,
            link_rate: p.rate,
            link_busy: false,
            ns2_now_s: None,
        };
        let r = Port::dequeue(
            &mut p.qdisc,
            &mut p.stats,
            call,
            &mut self.cx.drops.queue,
            self.cx.pool,
        )?;
        p.leave_queue(r, self.cx);
        Some(r)
    }

    fn charge(&self, r: PacketRef) -> u64 {
        u64::from(self.cx.pool.get(r).size) + u64::from(self.port.overhead) + TUN_HEADER_BYTES
    }

    fn depart(&mut self, _at: SimTime, r: PacketRef) {
        let bytes = self.charge(r);
        let p = &mut *self.port;
        let now = self.cx.now;
        p.count_tx(r, self.cx);
        if now >= self.cx.warmup {
            p.busy_time = p.busy_time + p.rate.tx_time(bytes);
        }
        p.busy_until = now;
        let key = (now + p.delay).0;
        if p.pipeline.is_empty() {
            self.w.arrive = Some(key);
        }
        let bound = super::Bound::of(self.cx.pool.get(r), p.to);
        p.onto_wire(key, r, bound);
    }
}

impl Port {
    /// Uses the opportunities due by now (mahimahi `rationalize`), with the queue as it is.
    fn trace_catch_up<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) -> Wakeups {
        let Some(mut server) = self.rare.as_mut().and_then(|r| r.trace.take()) else {
            return Wakeups::default();
        };
        let mut feed = Feed {
            port: self,
            cx,
            w: Wakeups::default(),
        };
        server.serve_until(feed.cx.now, &mut feed);
        let w = feed.w;
        self.rare_mut().trace = Some(server);
        self.settle_drops(cx);
        w
    }

    /// Sets the timer of the next opportunity if the link holds a packet and none is set.
    fn trace_arm(&mut self, w: &mut Wakeups) {
        let backlog = self.qdisc.len_packets() > 0;
        let Some(server) = self.trace_mut() else {
            return;
        };
        if server.armed || (!backlog && server.in_transit().is_none()) {
            return;
        }
        server.armed = true;
        let key = server.next_opportunity().0;
        self.timers_mut().push((key, PortTimer::Opportunity));
        w.add_timer(key);
    }

    /// A packet arrives at a trace link's queue (after the loss before the queue).
    #[cold]
    pub(super) fn trace_receive<const NS2: bool>(
        &mut self,
        r: PacketRef,
        cx: &mut PortCx<NS2>,
    ) -> Wakeups {
        let mut w = self.trace_catch_up(cx);
        let busy = self.trace_ref().is_some_and(|t| t.in_transit().is_some());
        let idle = !busy && self.qdisc.len_packets() == 0;
        self.admit(r, busy, idle, cx);
        self.note_length(cx, self.waiting_packets() as u64, self.waiting_bytes());
        self.trace_arm(&mut w);
        w
    }

    /// A delivery opportunity is due (`PortTimer::Opportunity`).
    #[cold]
    pub(super) fn opportunity<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) -> Wakeups {
        if let Some(t) = self.trace_mut() {
            t.armed = false;
        }
        let mut w = self.trace_catch_up(cx);
        self.note_length(cx, self.waiting_packets() as u64, self.waiting_bytes());
        self.trace_arm(&mut w);
        w
    }
}
