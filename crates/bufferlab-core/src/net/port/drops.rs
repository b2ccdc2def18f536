//! A port's drops and losses: the discipline's drops of one call counted, traced and handed
//! to the engine in the order they happened, and a random loss of the link's loss model
//! (before the queue or on the wire) counted, traced as a drop (ns-2's `lossmodel` sends it
//! to the drop trace) and, under ns-2's clock, counted by the queue monitors as
//! queue-monitor.cc counts what reaches its `drophead_`.

use super::{Port, PortCx};
use crate::monitor::ns2_trace::TraceEvent;
use crate::packet::Packet;
use crate::qdisc::DropReason;

impl Port {
    /// Counts and traces the discipline's drops of this call and hands them to the engine.
    #[inline]
    pub(super) fn settle_drops<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) {
        if !cx.drops.queue.is_empty() {
            self.settle_queue_drops(cx);
        }
    }

    #[cold]
    pub(super) fn settle_queue_drops<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) {
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
    pub(super) fn lose<const NS2: bool>(&mut self, pkt: Packet, cx: &mut PortCx<NS2>) {
        if cx.now >= cx.warmup {
            if let Some(l) = self.loss.as_mut() {
                l.lost += 1;
            }
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
}
