//! What a port with ns-2's Delayer does (`net/delayer.rs` for the model and its sources):
//! the queue feeds the Delayer's one place, the Delayer passes its packet onto the wire when
//! the link, the channel and the spikes let it (queue/delayer.cc `Delayer::recv`, `try_send`,
//! `TargetHandler::handle`, `AllocTimer::expire`, `SpikeTimer::expire`). Under ns-2's clock
//! only: the session adds a Delayer to no other run.

use super::{Port, PortCx, PortTimer, Wakeups};
use crate::net::delayer::{Delayer, RanVar};
use crate::net::packet_pool::PacketRef;
use crate::net::port_queue::QueueCall;
use crate::rng::Rng;

impl Port {
    /// Puts a Delayer between the queue and the wire (`insert-delayer`), drawing from `rng`.
    pub fn add_delayer(&mut self, rng: Rng) {
        self.rare_mut().delayer = Some(Box::new(Delayer::new(rng)));
    }

    /// `$delayer alloc int len`: channel allocation delays.
    pub fn delayer_alloc(&mut self, int: RanVar, len: RanVar) -> bool {
        let Some(d) = self.delayer_mut() else {
            return false;
        };
        d.alloc = Some((int, len));
        true
    }

    /// `$delayer spike int len`: delay spikes, the first starting at key `first` (the
    /// command's `st_.sched(int)`, drawn by the script as it ran); the caller schedules the
    /// `PortTimer` event at that key.
    pub fn delayer_spike(&mut self, int: RanVar, len: RanVar, first: u64) -> bool {
        let Some(d) = self.delayer_mut() else {
            return false;
        };
        d.spike = Some((int, len));
        self.timers_mut().push((first, PortTimer::Spike));
        true
    }

    /// `$delayer block` (true) / `unblock` (false): unblocking runs `try_send`.
    pub fn delayer_block(&mut self, block: bool, cx: &mut PortCx<true>) -> Wakeups {
        let mut w = Wakeups::default();
        let Some(d) = self.delayer_mut() else {
            return w;
        };
        d.spike_free = !block;
        if !block {
            self.delayer_try_send(cx, &mut w);
            self.delayer_done(cx);
        }
        w
    }

    /// `Queue::recv` / `Queue::resume` with the Delayer as the queue's target: when the
    /// Delayer's place is empty, the queue hands it its next packet (`Delayer::recv`).
    pub(super) fn delayer_feed<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>, w: &mut Wakeups) {
        if self.delayer_ref().is_none_or(|d| d.slot.is_some()) {
            return;
        }
        let now_s = f64::from_bits(cx.now_key);
        let call = QueueCall {
            now: cx.now,
            link_rate: self.rate,
            link_busy: false,
            ns2_now_s: Some(now_s),
        };
        let Some(r) = Self::dequeue(
            &mut self.qdisc,
            &mut self.stats,
            call,
            &mut cx.drops.queue,
            cx.pool,
        ) else {
            return;
        };
        self.delayer_recv(r, cx, w);
    }

    /// `Delayer::recv`: the packet takes the place; a channel allocation due makes it wait
    /// (`at_.resched(alloc_len)`), else `try_send`.
    fn delayer_recv<const NS2: bool>(
        &mut self,
        r: PacketRef,
        cx: &mut PortCx<NS2>,
        w: &mut Wakeups,
    ) {
        let now_s = f64::from_bits(cx.now_key);
        let d = self.delayer_mut().expect("a Delayer");
        d.slot = Some(r);
        if let Some(len) = d.allocation(now_s) {
            let key = (now_s + len).to_bits();
            self.timers_mut().push((key, PortTimer::Alloc));
            w.add_timer(key);
            return;
        }
        self.delayer_try_send(cx, w);
    }

    /// `Delayer::try_send`: while the link, the channel and the spikes let it, the packet goes
    /// onto the wire (`target_->recv`, then `last_sent`, `target_free = 0`), and the queue is
    /// called back (`prev_h_->handle`), which hands over its next packet.
    pub(super) fn delayer_try_send<const NS2: bool>(
        &mut self,
        cx: &mut PortCx<NS2>,
        w: &mut Wakeups,
    ) {
        let now_s = f64::from_bits(cx.now_key);
        let Some(d) = self.delayer_mut() else {
            return;
        };
        if !d.open() {
            return;
        }
        if let Some(r) = d.slot.take() {
            d.last_sent = now_s;
            d.target_free = false;
            self.transmit(r, cx, w);
        }
        self.delayer_feed(cx, w);
    }

    /// The link has sent the Delayer's last packet (`TargetHandler::handle`, the `TxDone`
    /// of ns-2's `intr_` at the transmission's end): `target_free`, then `try_send`.
    pub(super) fn target_free<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) -> Wakeups {
        let mut w = Wakeups::default();
        if let Some(d) = self.delayer_mut() {
            d.target_free = true;
        }
        self.delayer_try_send(cx, &mut w);
        self.delayer_done(cx);
        w
    }

    /// `SpikeTimer::expire`: a spike starts (the timer set to its length) or ends (set to
    /// the next interval, then `try_send`).
    pub(super) fn spike<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) -> Wakeups {
        let mut w = Wakeups::default();
        let now_s = f64::from_bits(cx.now_key);
        let Some(d) = self.delayer_mut() else {
            return w;
        };
        let starts = d.spike_free;
        if let Some(t) = d.spike_turn() {
            let key = (now_s + t).to_bits();
            self.timers_mut().push((key, PortTimer::Spike));
            w.add_timer(key);
        }
        if !starts {
            self.delayer_try_send(cx, &mut w);
        }
        self.delayer_done(cx);
        w
    }

    /// After a Delayer operation: the queue's length and the discipline's drops.
    pub(super) fn delayer_done<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) {
        self.note_length(cx, self.waiting_packets() as u64, self.waiting_bytes());
        self.settle_drops(cx);
    }
}
