//! A port's transmitter: a transmission ends (`TxDone`, htsim's `completeService`), the next
//! packet comes from the discipline or from ns-3's device queue (`NetDeviceQueue`, refilled
//! while it has room), leaves the queue (its `-` line, its sojourn) and goes onto the wire
//! with its arrival time known (delay.cc `LinkDelay::recv`: arrival at now + txt + delay,
//! the queue's resume at now + txt, under ns-2's clock in doubles), counted as transmitted
//! and as busy time from the warm-up on.

use super::{Port, PortCx, Wakeups};
use crate::monitor::ns2_trace::TraceEvent;
use crate::monitor::queue_stats::QueueStats;
use crate::net::packet_pool::{PacketPool, PacketRef};
use crate::net::port_queue::{PortQueue, QueueCall};
use crate::packet::Packet;
use crate::qdisc::DropReason;
use crate::units::SimTime;

impl Port {
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

    /// Starts sending the next packet of an idle port, if it has one. The packet goes straight
    /// onto the wire: its arrival at the far node is known now (end of serialisation plus the
    /// propagation delay), so a hop costs one event, the arrival; a `TxDone` wake-up is
    /// scheduled only while packets wait behind it.
    #[inline(always)]
    pub(super) fn start_tx<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) -> Wakeups {
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
            let call = QueueCall {
                now,
                link_rate: self.rate,
                link_busy: false,
                ns2_now_s: NS2.then(|| f64::from_bits(cx.now_key)),
            };
            Self::dequeue(
                &mut self.qdisc,
                &mut self.stats,
                call,
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
    pub(super) fn transmit<const NS2: bool>(
        &mut self,
        r: PacketRef,
        cx: &mut PortCx<NS2>,
        w: &mut Wakeups,
    ) {
        let now = cx.now;
        self.leave_queue(r, cx);
        let pkt = cx.pool.get(r);
        let bound = super::Bound::of(pkt, self.to);
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
        self.onto_wire(at_key, r, bound);
    }

    /// The packet leaves the queue for the link: its `-` line and the statistics.
    #[inline(always)]
    pub(super) fn leave_queue<const NS2: bool>(&mut self, r: PacketRef, cx: &mut PortCx<NS2>) {
        let pkt = cx.pool.get(r);
        cx.taps.trace(TraceEvent::Dequeue, cx.now, self.tap(), pkt);
        self.stats.on_departure(cx.now, pkt.size, pkt.enqueued);
        for m in self.stats.ns2_flowmons() {
            m.departure(pkt);
        }
    }

    /// The packet goes onto the wire: captured (pcap) and counted as transmitted.
    #[inline(always)]
    pub(super) fn count_tx<const NS2: bool>(&mut self, r: PacketRef, cx: &mut PortCx<NS2>) {
        let pkt = cx.pool.get(r);
        cx.taps.capture(cx.now, self.tap(), pkt);
        if cx.now >= cx.warmup {
            self.tx_packets += 1;
            self.tx_bytes += pkt.size as u64;
        }
    }

    /// ns-3's traffic-control flow control: the discipline hands packets down while the device
    /// queue has room (`DeviceQueue::fill`).
    pub(super) fn fill_device<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) {
        let now = cx.now;
        let call = QueueCall {
            now,
            link_rate: self.rate,
            link_busy: self.busy(cx),
            ns2_now_s: None,
        };
        let stats = &mut self.stats;
        let drops = &mut cx.drops.queue;
        let pool = &mut *cx.pool;
        self.device.fill(now, &mut self.qdisc, |q| {
            let r = Self::dequeue(q, stats, call, drops, pool)?;
            Some((r, pool.get(r).size))
        });
        self.settle_drops(cx);
    }

    /// Takes the discipline's next packet (its handle in `pool`), counting the ECN marks it
    /// made; its drops go to `drops` (settled by the caller). On the port's parts, for the
    /// device queue's refill.
    #[inline(always)]
    pub(super) fn dequeue(
        qdisc: &mut PortQueue,
        stats: &mut QueueStats,
        call: QueueCall,
        drops: &mut Vec<(Packet, DropReason)>,
        pool: &mut PacketPool,
    ) -> Option<PacketRef> {
        let (next, marks) = qdisc.dequeue(call, drops, pool);
        if marks > 0 {
            stats.on_marks(call.now, marks);
        }
        next
    }

    /// Time to serialise `size` bytes on this port's link (`Rate::tx_time`, remembered for
    /// the last size asked).
    #[inline]
    pub(super) fn tx_time(&mut self, size: u32) -> SimTime {
        if self.last_tx_size != size {
            self.last_tx_size = size;
            self.last_tx_time = self.rate.tx_time(size as u64 + self.overhead as u64);
        }
        self.last_tx_time
    }

    /// The key of `busy_until` (`clock.rs`; under the picosecond clock, itself).
    #[inline(always)]
    pub(super) fn busy_until_key<const NS2: bool>(&self) -> u64 {
        if NS2 {
            self.busy_until_key
        } else {
            self.busy_until.0
        }
    }

    /// A packet is being serialised now (or the port is about to send the next one).
    #[inline]
    pub(super) fn busy<const NS2: bool>(&self, cx: &PortCx<NS2>) -> bool {
        self.tx_pending
            || if NS2 {
                cx.now_key < self.busy_until_key
            } else {
                cx.now < self.busy_until
            }
    }
}
