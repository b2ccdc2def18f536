//! Packets by handle: the packets waiting in DropTail queues, in device queues and on the wires
//! live in one slab, and those hold a 4-byte [`PacketRef`] instead of the 128-byte packet.
//!
//! Why (docs/performance.md, "Packets by handle"): a port's queue and wire each grow to their
//! high-water mark, and with the packet by value every slot cost 128-136 bytes. At 10 000 flows
//! the wires and queues were 8.7 KB a flow, most of it slots that sit empty after a burst; by
//! handle they are 4-16 bytes a slot, and only the packets really in the network take 128 bytes.
//! The free list is a stack, so a packet entering the network takes the slot the last one left:
//! a line that is likely still in cache, where a per-port slot at 10 000 flows is cold.
//!
//! A packet enters the pool when its endpoint sends it and leaves it when it is delivered,
//! dropped or lost: between hops it stays in its slot and only the handle moves (the wire's
//! head to the next port's queue), except through a discipline behind the `QueueDisc` trait,
//! which takes the packet by value and gives it back at dequeue.
//!
//! The slab only stores packets: which packet goes where and when is decided as before, so
//! every result is byte for byte what it was with packets by value.

use crate::packet::Packet;

/// A packet's place in the [`PacketPool`]; valid from `put` until `take`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PacketRef(u32);

#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    /// Free slots, the last freed on top.
    free: Vec<u32>,
}

impl PacketPool {
    /// Stores a packet and returns its handle.
    #[inline(always)]
    pub fn put(&mut self, pkt: Packet) -> PacketRef {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = pkt;
                PacketRef(i)
            }
            None => self.grow(pkt),
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, pkt: Packet) -> PacketRef {
        let i = u32::try_from(self.slots.len()).expect("fewer than 2^32 packets in the network");
        self.slots.push(pkt);
        PacketRef(i)
    }

    /// The packet behind a handle.
    #[inline(always)]
    pub fn get(&self, r: PacketRef) -> &Packet {
        &self.slots[r.0 as usize]
    }

    #[inline(always)]
    pub fn get_mut(&mut self, r: PacketRef) -> &mut Packet {
        &mut self.slots[r.0 as usize]
    }

    /// Takes the packet out; the handle is no longer valid.
    #[inline(always)]
    pub fn take(&mut self, r: PacketRef) -> Packet {
        self.free.push(r.0);
        self.slots[r.0 as usize]
    }

    /// Packets stored now.
    pub fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Makes room for `n` packets at once, so that storing never allocates
    /// (`Simulation::reserve_packet_room`).
    pub fn reserve(&mut self, n: usize) {
        self.slots.reserve(n.saturating_sub(self.slots.len()));
        self.free.reserve(n.saturating_sub(self.free.len()));
    }

    /// Frees every packet and the storage (`Simulation::release_packets`).
    pub fn release(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(size: u32) -> Packet {
        Packet {
            size,
            ..Packet::default()
        }
    }

    #[test]
    fn a_freed_slot_is_the_next_one_used() {
        let mut pool = PacketPool::default();
        let a = pool.put(pkt(1));
        let b = pool.put(pkt(2));
        assert_eq!(pool.len(), 2);
        assert_eq!(pool.take(a).size, 1);
        let c = pool.put(pkt(3));
        assert_eq!(c, a, "the slot just freed is reused");
        assert_eq!(pool.get(b).size, 2);
        assert_eq!(pool.get(c).size, 3);
        assert_eq!(pool.take(b).size, 2);
        assert_eq!(pool.take(c).size, 3);
        assert!(pool.is_empty());
    }

    #[test]
    fn reserved_room_is_used_without_growing() {
        let mut pool = PacketPool::default();
        pool.reserve(8);
        let cap = pool.slots.capacity();
        let refs: Vec<_> = (0..8).map(|i| pool.put(pkt(i))).collect();
        for r in refs {
            pool.take(r);
        }
        assert_eq!(pool.slots.capacity(), cap);
    }
}
