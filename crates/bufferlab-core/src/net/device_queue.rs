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
//! the port decides when to fill it and when to send from it. A port without one holds a null
//! pointer (8 bytes, not the queue's 56: most ports of a large run have none; docs/performance.md,
//! "What a flow holds after the report is streamed").

use super::packet_pool::PacketRef;
use super::port_queue::PortQueue;
use crate::units::SimTime;
use std::collections::VecDeque;

/// A port's device queue, None when it has none (`device_queue = 0`).
pub struct DeviceQueue(Option<Box<DeviceFifo>>);

/// The device queue itself.
struct DeviceFifo {
    /// Handles of the packets waiting (`net/packet_pool.rs`) with their sizes.
    packets: VecDeque<(PacketRef, u32)>,
    /// Room in packets (at least 1).
    limit: usize,
    bytes: u64,
    /// A `DeviceWake` event is in the queue for this port.
    wake_pending: bool,
}

impl DeviceQueue {
    /// A device queue of `limit` packets (0: none, allocates nothing).
    pub fn new(limit: usize) -> Self {
        Self((limit > 0).then(|| {
            Box::new(DeviceFifo {
                packets: VecDeque::with_capacity(limit),
                limit,
                bytes: 0,
                wake_pending: false,
            })
        }))
    }

    /// The port has a device queue (`device_queue` > 0).
    #[inline(always)]
    pub fn enabled(&self) -> bool {
        self.0.is_some()
    }

    /// Its size in packets (0: none).
    pub fn limit(&self) -> usize {
        self.0.as_ref().map_or(0, |d| d.limit)
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |d| d.packets.len())
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline(always)]
    pub fn bytes(&self) -> u64 {
        self.0.as_ref().map_or(0, |d| d.bytes)
    }

    /// Packets and bytes in it, with one test for a port without one.
    #[inline(always)]
    pub fn len_bytes(&self) -> (usize, u64) {
        match &self.0 {
            Some(d) => (d.packets.len(), d.bytes),
            None => (0, 0),
        }
    }

    /// The discipline should hand packets down now: there is a device queue and no wake-up is
    /// already pending (the wake-up will refill it).
    #[inline(always)]
    pub fn wants_fill(&self) -> bool {
        self.0.as_ref().is_some_and(|d| !d.wake_pending)
    }

    /// Takes the next packet for the wire (then ask for a wake-up, [`DeviceQueue::wake`]).
    #[inline]
    pub fn pop(&mut self) -> Option<PacketRef> {
        let d = self.0.as_mut()?;
        let (r, size) = d.packets.pop_front()?;
        d.bytes -= size as u64;
        Some(r)
    }

    /// A packet left for the wire: the discipline is to refill the queue (ns-3
    /// `NetDeviceQueue::PacketDequeued`). True when the caller must schedule a `DeviceWake`
    /// now, false when one is already pending (or there is no device queue).
    #[inline]
    pub fn wake(&mut self) -> bool {
        self.0
            .as_mut()
            .is_some_and(|d| !std::mem::replace(&mut d.wake_pending, true))
    }

    /// The `DeviceWake` event runs: none is pending any more.
    pub fn woken(&mut self) {
        if let Some(d) = self.0.as_mut() {
            d.wake_pending = false;
        }
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
        let Some(d) = self.0.as_mut() else {
            return;
        };
        while d.packets.len() < d.limit {
            if qdisc.len_packets() == 0 {
                qdisc.link_idle(now);
                break;
            }
            match dequeue(qdisc) {
                Some((r, size)) => {
                    d.bytes += size as u64;
                    d.packets.push_back((r, size));
                }
                None => break,
            }
        }
    }
}
