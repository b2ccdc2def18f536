//! CAKE's flow and host hashing: the 8-way set-associative flow table and the host table that
//! counts each host's bulk flows.
//!
//! References: LANMAN 2018 paper section III-B ("Flow isolation": set-associative hashing
//! all but removes collisions; host isolation divides a flow's quantum by its host's number of
//! bulk flows); Linux `net/sched/sch_cake.c` `cake_hash` (CAKE_QUEUES 1024, CAKE_SET_WAYS 8;
//! fast path on a direct tag hit, else a tag in the set, else an empty queue in the set, else
//! the original queue is taken over, `way_collisions`), the host allocation in `cake_hash`
//! (`allocate_src`/`allocate_dst`: a host tag in the set, else a host with no bulk flows), and
//! `cake_dsrc`/`cake_ddst`.
//!
//! The keys: sch_cake hashes the 5-tuple (`flow_hash_from_keys`) and each address with the
//! other zeroed; here the flow is the engine's flow and direction (a flow's data and its ACKs
//! are two flows, as their 5-tuples differ), the hosts are the packet's source and destination
//! nodes, each through a fixed 64-bit mixer truncated to 32 bits.

use super::config::FlowMode;
use crate::packet::Packet;
use crate::qdisc::drr::mix;

/// sch_cake CAKE_QUEUES.
pub const CAKE_QUEUES: usize = 1024;
/// sch_cake CAKE_SET_WAYS.
pub const CAKE_SET_WAYS: usize = 8;

/// sch_cake `CAKE_SET_*`: which rotation a flow queue is counted in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Set {
    #[default]
    None,
    Sparse,
    /// Counted as sparse, actually in the bulk rotation.
    SparseWait,
    Bulk,
    Decaying,
}

/// A flow queue's identity (sch_cake `struct cake_flow`'s `set`, `srchost`, `dsthost`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Slot {
    pub set: Set,
    pub srchost: u16,
    pub dsthost: u16,
}

/// sch_cake `struct cake_host`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Host {
    pub srchost_tag: u32,
    pub dsthost_tag: u32,
    pub srchost_bulk_flow_count: u16,
    pub dsthost_bulk_flow_count: u16,
}

/// The hashes of a packet: (flow, source host, destination host).
pub fn keys(pkt: &Packet) -> (u32, u32, u32) {
    let flow = mix(((pkt.flow.0 as u64) << 1) | pkt.reverse as u64) as u32;
    let src = mix(0x5352_4300_0000_0000 ^ pkt.src.0 as u64) as u32;
    let dst = mix(0x4453_5400_0000_0000 ^ pkt.dst.0 as u64) as u32;
    (flow, src, dst)
}

/// One tin's tables (sch_cake `struct cake_tin_data`'s `tags`, `hosts`, and the flows' slots).
pub struct Tables {
    pub tags: Vec<u32>,
    pub hosts: Vec<Host>,
    pub slots: Vec<Slot>,
    /// `way_collisions`: a flow took over a queue another flow held.
    pub way_collisions: u64,
}

impl Default for Tables {
    fn default() -> Self {
        Self {
            tags: vec![0; CAKE_QUEUES],
            hosts: vec![Host::default(); CAKE_QUEUES],
            slots: vec![Slot::default(); CAKE_QUEUES],
            way_collisions: 0,
        }
    }
}

impl Tables {
    /// sch_cake `cake_hash`: the queue of a packet with `keys` under `mode`.
    pub fn cake_hash(&mut self, keys: (u32, u32, u32), mode: FlowMode) -> usize {
        let bits = mode.bits();
        if bits == 0 {
            return 0;
        }
        let (mut flow_hash, srchost_hash, dsthost_hash) = keys;
        if bits & 4 == 0 {
            flow_hash = 0;
            if bits & 1 != 0 {
                flow_hash ^= srchost_hash;
            }
            if bits & 2 != 0 {
                flow_hash ^= dsthost_hash;
            }
        }
        let reduced = flow_hash as usize % CAKE_QUEUES;
        // fast path: a direct hit
        if self.tags[reduced] == flow_hash && self.slots[reduced].set != Set::None {
            return reduced;
        }
        let inner = reduced % CAKE_SET_WAYS;
        let outer = reduced - inner;
        let (alloc_src, alloc_dst) = (mode.dual_src(), mode.dual_dst());
        let mut allocate = false;
        let mut k = inner;
        let mut found = None;
        // a queue in the set reserved for this flow
        for _ in 0..CAKE_SET_WAYS {
            if self.tags[outer + k] == flow_hash {
                allocate = self.slots[outer + k].set == Set::None;
                found = Some(outer + k);
                break;
            }
            k = (k + 1) % CAKE_SET_WAYS;
        }
        // else an empty one
        if found.is_none() {
            for _ in 0..CAKE_SET_WAYS {
                if self.slots[outer + k].set == Set::None {
                    allocate = true;
                    found = Some(outer + k);
                    break;
                }
                k = (k + 1) % CAKE_SET_WAYS;
            }
        }
        // else the original queue, accepting the collision (k is back at `inner`)
        let idx = match found {
            Some(i) => i,
            None => {
                self.way_collisions += 1;
                // the displaced bulk flow leaves its hosts' counts (sch_cake decrements both
                // in every mode, wrapping the u16 where the mode never counted; only the
                // counted sides are touched here, which the other modes never read)
                if self.slots[outer + k].set == Set::Bulk {
                    let s = self.slots[reduced];
                    if alloc_src {
                        let c = &mut self.hosts[s.srchost as usize].srchost_bulk_flow_count;
                        *c = c.saturating_sub(1);
                    }
                    if alloc_dst {
                        let c = &mut self.hosts[s.dsthost as usize].dsthost_bulk_flow_count;
                        *c = c.saturating_sub(1);
                    }
                }
                allocate = true;
                outer + k
            }
        };
        self.tags[idx] = flow_hash;
        if allocate && alloc_src {
            let h = self.host(srchost_hash, true);
            if self.slots[idx].set == Set::Bulk {
                self.hosts[h].srchost_bulk_flow_count += 1;
            }
            self.slots[idx].srchost = h as u16;
        }
        if allocate && alloc_dst {
            let h = self.host(dsthost_hash, false);
            if self.slots[idx].set == Set::Bulk {
                self.hosts[h].dsthost_bulk_flow_count += 1;
            }
            self.slots[idx].dsthost = h as u16;
        }
        idx
    }

    /// The host entry of `hash` (`cake_hash`'s `found_src` / `found_dst`): a tag in its set,
    /// else the first entry of the set with no bulk flows, else the entry the hash points at.
    fn host(&mut self, hash: u32, src: bool) -> usize {
        let idx = hash as usize % CAKE_QUEUES;
        let inner = idx % CAKE_SET_WAYS;
        let outer = idx - inner;
        let tag = |h: &Host| if src { h.srchost_tag } else { h.dsthost_tag };
        let count = |h: &Host| {
            if src {
                h.srchost_bulk_flow_count
            } else {
                h.dsthost_bulk_flow_count
            }
        };
        let mut k = inner;
        for _ in 0..CAKE_SET_WAYS {
            if tag(&self.hosts[outer + k]) == hash {
                return outer + k;
            }
            k = (k + 1) % CAKE_SET_WAYS;
        }
        for _ in 0..CAKE_SET_WAYS {
            if count(&self.hosts[outer + k]) == 0 {
                break;
            }
            k = (k + 1) % CAKE_SET_WAYS;
        }
        let h = &mut self.hosts[outer + k];
        if src {
            h.srchost_tag = hash;
        } else {
            h.dsthost_tag = hash;
        }
        outer + k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occupy(t: &mut Tables, idx: usize) {
        t.slots[idx].set = Set::Sparse;
    }

    // ---- cake_hash: a flow keeps its queue; flows that collide find another way in the set ----
    #[test]
    fn colliding_flows_take_other_ways_of_the_set() {
        let mut t = Tables::default();
        let a = t.cake_hash((5, 0, 0), FlowMode::Flows);
        assert_eq!(a, 5);
        occupy(&mut t, a);
        // same flow again: same queue (fast path)
        assert_eq!(t.cake_hash((5, 0, 0), FlowMode::Flows), 5);
        // 5 + 1024 reduces to 5 too: the next way of the set (set 0..8)
        let b = t.cake_hash((5 + 1024, 0, 0), FlowMode::Flows);
        assert_eq!(b, 6);
        occupy(&mut t, b);
        assert_eq!(t.cake_hash((5 + 1024, 0, 0), FlowMode::Flows), 6);
        // fill the set: the ninth flow takes over its own direct queue, a collision
        for i in 2..8u32 {
            let q = t.cake_hash((5 + i * 1024, 0, 0), FlowMode::Flows);
            assert!(q < 8);
            occupy(&mut t, q);
        }
        assert_eq!(t.way_collisions, 0);
        let q = t.cake_hash((5 + 8 * 1024, 0, 0), FlowMode::Flows);
        assert_eq!((q, t.way_collisions), (5, 1));
    }

    // ---- the flow modes: what a queue is keyed by ----
    #[test]
    fn host_modes_key_queues_by_host() {
        let mut t = Tables::default();
        assert_eq!(t.cake_hash((1, 2, 3), FlowMode::Flowblind), 0);
        // srchost: two flows of one source share a queue
        let a = t.cake_hash((100, 7, 3), FlowMode::Srchost);
        occupy(&mut t, a);
        assert_eq!(t.cake_hash((200, 7, 9), FlowMode::Srchost), a);
        // dual-srchost: flows get their own queues but share the host entry
        let mut t = Tables::default();
        let f1 = t.cake_hash((100, 7, 3), FlowMode::DualSrchost);
        occupy(&mut t, f1);
        let f2 = t.cake_hash((200, 7, 9), FlowMode::DualSrchost);
        assert_ne!(f1, f2);
        assert_eq!(t.slots[f1].srchost, t.slots[f2].srchost);
        // triple-isolate: a host entry on both sides
        let mut t = Tables::default();
        let f = t.cake_hash((100, 7, 3), FlowMode::TripleIsolate);
        assert_eq!(t.hosts[t.slots[f].srchost as usize].srchost_tag, 7);
        assert_eq!(t.hosts[t.slots[f].dsthost as usize].dsthost_tag, 3);
        assert!(FlowMode::TripleIsolate.dual_src() && FlowMode::TripleIsolate.dual_dst());
        assert!(FlowMode::DualSrchost.dual_src() && !FlowMode::DualSrchost.dual_dst());
        assert!(!FlowMode::Hosts.dual_src() && !FlowMode::Flows.dual_dst());
    }

    // ---- a collision takes the queue over: the displaced bulk flow leaves its hosts' counts ----
    #[test]
    fn a_collision_moves_the_bulk_count_to_the_new_hosts() {
        let mut t = Tables::default();
        let mode = FlowMode::DualSrchost;
        // fill set 0 with bulk flows of source host 7
        for i in 0..8u32 {
            let q = t.cake_hash((i * 1024, 7, 0), mode);
            t.slots[q].set = Set::Bulk;
            let h = t.slots[q].srchost as usize;
            t.hosts[h].srchost_bulk_flow_count += 1;
        }
        let h7 = t.slots[0].srchost as usize;
        assert_eq!(t.hosts[h7].srchost_bulk_flow_count, 8);
        // a ninth flow, of host 9, collides into queue 0: host 7 loses one, host 9 gains it
        let q = t.cake_hash((8 * 1024, 9, 0), mode);
        assert_eq!((q, t.way_collisions), (0, 1));
        let h9 = t.slots[0].srchost as usize;
        assert_ne!(h9, h7);
        assert_eq!(t.hosts[h7].srchost_bulk_flow_count, 7);
        assert_eq!(t.hosts[h9].srchost_bulk_flow_count, 1);
    }
}
