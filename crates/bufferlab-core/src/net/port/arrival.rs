//! A packet arriving for a port's queue (`Port::receive`, as htsim's `Queue::receivePacket`
//! and ns-2's `Queue::recv`): the link's loss model and error modules before the queue (an
//! error model may hold the packet, errmodel.cc `ErrorModel::recv`), a trace link's server,
//! then the discipline's enqueue with its `+` line, statistics, RED's idle hook
//! (`QueueDisc::link_idle`), marks and drops; an idle link takes the packet straight into
//! service, a busy one asks for a `TxDone` only if packets wait.

use super::{Port, PortCx, PortTimer, Wakeups};
use crate::monitor::ns2_trace::TraceEvent;
use crate::net::loss::Fate;
use crate::net::packet_pool::PacketRef;
use crate::net::port_queue::QueueCall;
use crate::units::SimTime;

impl Port {
    /// A packet reaches the error modules before the queue from module `from` on, then the
    /// queue.
    #[inline(always)]
    pub(super) fn receive_from<const NS2: bool>(
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
    pub(super) fn admit<const NS2: bool>(
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
        let call = QueueCall {
            now,
            link_rate: self.rate,
            link_busy: busy,
            ns2_now_s: NS2.then(|| f64::from_bits(cx.now_key)),
        };
        let marks = self.qdisc.enqueue(r, call, &mut cx.drops.queue, cx.pool);
        if marks > 0 {
            self.stats.on_marks(now, marks);
        }
        self.settle_drops(cx);
    }

    /// An error model holds the packet `delay` (ns-2: `Scheduler::schedule(target_, p,
    /// delay_)`, at `clock_ + delay_` in doubles), then it goes on from module `next`.
    #[cold]
    pub(super) fn hold<const NS2: bool>(
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
}
