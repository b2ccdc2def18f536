//! An output port: one direction of a link. It holds the queue discipline and the wire.
//!
//! A packet goes onto the wire when its transmission starts: since the rate and the
//! propagation delay are constant, its arrival time at the far node is known then (end of
//! serialisation plus delay), and arrivals leave the wire in the order they entered it. So the
//! wire is a FIFO with a single pending arrival event per port (htsim's trick), and a hop costs
//! one event. The transmitter needs a wake-up (`TxDone` at `busy_until`) only while packets wait
//! in the queue behind the one being sent: an idle or lightly loaded link schedules nothing else.
//! The event queue holds at most two events per port however many packets are on the wire.

use super::device_queue::DeviceQueue;
use super::loss::LossModel;
use super::loss::LossPosition;
use super::port_queue::PortQueue;
use crate::ids::{LinkId, NodeId, PortId};
use crate::monitor::queue_stats::QueueStats;
use crate::monitor::taps::TapPort;
use crate::packet::Packet;
use crate::qdisc::{DropReason, QueueCtx};
use crate::rng::Rng;
use crate::units::{Rate, SimTime};
use std::collections::VecDeque;

pub struct Port {
    pub id: PortId,
    pub link: LinkId,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: SimTime,
    /// Link-layer framing bytes serialised with every packet (not counted in its size).
    pub overhead: u32,
    pub qdisc: PortQueue,
    /// ns-3's device queue below the queue discipline (`device_queue` packets; 0 = none, the
    /// discipline feeds the wire). Packets leave the discipline for it as soon as it has room.
    pub device: DeviceQueue,
    pub qdisc_rng: Rng,
    pub stats: QueueStats,
    /// When the packet being serialised (if any) is completely sent.
    pub busy_until: SimTime,
    /// A `TxDone` event is in the queue for this port.
    pub tx_pending: bool,
    /// Packets on the wire (being serialised or propagating), with their arrival times at `to`.
    pub pipeline: VecDeque<(SimTime, Packet)>,
    pub loss: LossModel,
    pub loss_rng: Rng,
    pub loss_position: LossPosition,
    /// Time spent serialising since the warm-up, counted when a transmission starts (up to
    /// its end); `busy_time_until` removes what lies past the present.
    pub busy_time: SimTime,
    /// Counted from the warm-up on, when a transmission starts.
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub lost_packets: u64,
    /// The last packet size serialised and its transmission time: a port sees few sizes (data
    /// segments, ACKs), and this spares a 64-bit division per packet.
    pub last_tx: (u32, SimTime),
}

impl Port {
    /// Time the link was busy from the warm-up up to `now`.
    pub fn busy_time_until(&self, now: SimTime) -> SimTime {
        if self.busy_until > now {
            self.busy_time.saturating_sub(self.busy_until - now)
        } else {
            self.busy_time
        }
    }

    /// Time to serialise `size` bytes on this port's link (`Rate::tx_time`, remembered for
    /// the last size asked).
    #[inline]
    pub fn tx_time(&mut self, size: u32) -> SimTime {
        if self.last_tx.0 != size {
            self.last_tx = (size, self.rate.tx_time(size as u64 + self.overhead as u64));
        }
        self.last_tx.1
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

    /// Takes the discipline's next packet, counting the ECN marks it made; its drops go to
    /// `drops` for the caller to record.
    #[inline(always)]
    pub fn dequeue(
        &mut self,
        now: SimTime,
        busy: bool,
        drops: &mut Vec<(Packet, DropReason)>,
    ) -> Option<Packet> {
        Self::dequeue_from(
            &mut self.qdisc,
            &mut self.qdisc_rng,
            &mut self.stats,
            self.rate,
            now,
            busy,
            drops,
        )
    }

    /// [`Port::dequeue`] on borrowed parts of a port (for the device queue's refill).
    #[inline(always)]
    pub fn dequeue_from(
        qdisc: &mut PortQueue,
        rng: &mut Rng,
        stats: &mut QueueStats,
        rate: Rate,
        now: SimTime,
        busy: bool,
        drops: &mut Vec<(Packet, DropReason)>,
    ) -> Option<Packet> {
        let mut cx = QueueCtx::new(now, rng, rate, busy, drops);
        let next = qdisc.dequeue(&mut cx);
        let marks = cx.marks();
        if marks > 0 {
            stats.on_marks(now, marks);
        }
        next
    }

    /// This port as the taps name it.
    #[inline(always)]
    pub fn tap(&self) -> TapPort {
        TapPort {
            index: self.id.idx(),
            from: self.from.0,
            to: self.to.0,
        }
    }

    /// A packet is being serialised at `now` (or the port is about to send the next one).
    #[inline]
    pub fn busy(&self, now: SimTime) -> bool {
        self.tx_pending || now < self.busy_until
    }
}
