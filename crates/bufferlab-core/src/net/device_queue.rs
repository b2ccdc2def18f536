//! ns-3's device queue: the `TxQueue` of a `NetDevice`, below the queue discipline.
//!
//! In ns-3 the traffic-control layer hands packets down from the queue discipline while the
//! device's queue has room (`QueueDisc::Run`, stopped by `NetDeviceQueue` flow control), and the
//! device transmits from its own queue. When the device takes a packet out
//! (`NetDeviceQueue::PacketDequeued`), it wakes the discipline with `ScheduleNow`: the refill
//! runs after everything already due at the same instant, so an arrival at that instant still
//! finds the discipline full. A port with `device_queue = 0` (ns-2, and the default) has none:
//! its discipline feeds the wire.
//!
//! This type holds the queue, its byte count and whether a wake-up (`DeviceWake`) is pending;
//! the port decides when to fill it and when to send from it.

use super::packet_pool::PacketRef;
use super::port_queue::PortQueue;
use crate::units::SimTime;
use std::collections::VecDeque;

pub struct DeviceQueue {
    /// Handles of the packets waiting (`net/packet_pool.rs`) with their sizes.
    packets: VecDeque<(PacketRef, u32)>,
    /// Room in packets; 0: no device queue.
    limit: usize,
    bytes: u64,
    /// A `DeviceWake` event is in the queue for this port.
    wake_pending: bool,
}

impl DeviceQueue {
    /// A device queue of `limit` packets (0: none, allocates nothing).
    pub fn new(limit: usize) -> Self {
        Self {
            packets: VecDeque::with_capacity(limit),
            limit,
            bytes: 0,
            wake_pending: false,
        }
    }

    /// The port has a device queue (`device_queue` > 0).
    #[inline(always)]
    pub fn enabled(&self) -> bool {
        self.limit > 0
    }

    /// Its size in packets (0: none).
    pub fn limit(&self) -> usize {
        self.limit
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.packets.len()
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    #[inline(always)]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The discipline should hand packets down now: there is a device queue and no wake-up is
    /// already pending (the wake-up will refill it).
    #[inline(always)]
    pub fn wants_fill(&self) -> bool {
        self.limit > 0 && !self.wake_pending
    }

    /// Takes the next packet for the wire (then ask for a wake-up, [`DeviceQueue::wake`]).
    #[inline]
    pub fn pop(&mut self) -> Option<PacketRef> {
        let (r, size) = self.packets.pop_front()?;
        self.bytes -= size as u64;
        Some(r)
    }

    /// A packet left for the wire: the discipline is to refill the queue (ns-3
    /// `NetDeviceQueue::PacketDequeued`). True when the caller must schedule a `DeviceWake`
    /// now, false when one is already pending.
    #[inline]
    pub fn wake(&mut self) -> bool {
        !std::mem::replace(&mut self.wake_pending, true)
    }

    /// The `DeviceWake` event runs: none is pending any more.
    pub fn woken(&mut self) {
        self.wake_pending = false;
    }

    /// ns-3's traffic-control flow control (`NetDeviceQueue` wake, `QueueDisc::Run`): takes
    /// packets from `qdisc` through `dequeue` while there is room. A dequeue that finds the
    /// discipline empty starts its idle period (RED's `link_idle`); a `None` from `dequeue`
    /// (everything left was dropped at the head, as CoDel and PIE do) stops the refill.
    pub fn fill(
        &mut self,
        now: SimTime,
        qdisc: &mut PortQueue,
        mut dequeue: impl FnMut(&mut PortQueue) -> Option<(PacketRef, u32)>,
    ) {
        while self.packets.len() < self.limit {
            if qdisc.len_packets() == 0 {
                qdisc.link_idle(now);
                break;
            }
            match dequeue(qdisc) {
                Some((r, size)) => {
                    self.bytes += size as u64;
                    self.packets.push_back((r, size));
                }
                None => break,
            }
        }
    }
}
