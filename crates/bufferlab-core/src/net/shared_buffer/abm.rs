//! ABM, Active Buffer Management (Addanki, Apostolaki, Ghobadi, Schmid and Vanbever, "ABM:
//! Active Buffer Management in Datacenters", SIGCOMM 2022, section 3): queue i of priority p
//! may hold
//!
//! ```text
//! T_i(t) = alpha_p * (1 / n_p) * (B - Q(t)) * (mu_i / b)
//! ```
//!
//! of a buffer B whose occupancy is Q(t), where n_p is the number of congested queues of
//! priority p in the switch and mu_i / b queue i's drain rate normalised to its port's rate.
//! With N congested queues of one priority, each draining at its port's full rate, each
//! settles at `alpha B / (N (1 + alpha))` and the switch holds `alpha B / (1 + alpha)` in
//! all, whatever N: the buffer a burst finds free does not shrink as more queues congest,
//! which is the isolation and predictable burst tolerance the paper claims for ABM.
//!
//! The paper's text was not reachable from here, so how n_p and mu_i are measured and how
//! often follows the authors' published ns-3 implementation (inet-tub/ns3-datacenter,
//! `simulator/ns-3.35/src/traffic-control/model/gen-queue-disc.cc`,
//! `GenQueueDisc::ActiveBufferManagement` and `UpdateDequeueRate`, and `shared-memory.cc`,
//! `SharedMemoryBuffer::setSaturated` / `GetNofP`):
//!
//! * a queue's congestion is a level, not a yes/no: at each arrival (dropped or not) it is set
//!   to `min(1, length / sat)`, the length before the arrival, and n_p is the sum of the levels
//!   of the switch's queues of priority p, at least 1. The level changes only at arrivals: a
//!   queue that drained with no arrival since still counts as it last did (as in ns-3);
//! * `sat` defaults to ns-3's `sat` attribute, 20 x 1400 bytes (20 packets in a switch whose
//!   buffer counts packets);
//! * each port reads n_p and computes mu_i / b every `interval` (ns-3's `updateInterval`,
//!   30 us), on a grid that starts at the port's first arrival (ns-3 starts `InvokeUpdates`
//!   there); between updates the threshold uses the last values;
//! * mu_i / b is the bytes the queue sent in the last interval over what the port's rate
//!   sends in it; a value above 1 or below `1 / (queues of the port)` counts as 1 (ns-3's
//!   clamp: so a port with one queue always drains at 1). ns-3 also counts 1472 bytes for
//!   every time its scheduler finds a class empty; a bufferlab port does not poll an empty
//!   queue, so that is not modelled;
//! * a packet is admitted while the queue's length plus the packet is at most T_i and the
//!   unused buffer holds it (ns-3's comparison; the project's Dynamic Threshold, after
//!   Choudhury and Hahne, blocks a queue at or above its threshold instead).
//!
//! Unscheduled packets (the same implementation; the paper's section 3 gives ABM's first RTT a
//! threshold of its own): a packet tagged "unscheduled" is admitted with `alphaUnsched`
//! (`GenQueueDisc`'s attribute, default 1024) in place of its priority's alpha, everything else
//! as above. The artifact's TCP (`tcp-socket-base.cc`, `AddSocketTags` and `SendDataPacket`)
//! tags each packet it sends while the data bytes it has sent so far, retransmissions counted,
//! are below its `RTTBytes` attribute (one BDP in the study scripts): SYNs, the first RTT's
//! segments and, as a receiver sends no data, every pure ACK. [`UnscheduledTag`] is that
//! rule at a bufferlab endpoint (`tcp.unscheduled_bytes`); a switch's `abm_unscheduled_alpha`
//! is `alphaUnsched`. Dynamic Threshold reads no tag (as in the artifact).
//!
//! Not modelled: ns-3's `staticBuffer` reserved space.

use crate::packet::{Packet, PacketKind};
use crate::units::SimTime;

/// ns-3 GenQueueDisc's `alphaUnsched` default (ABM's authors' ns-3): the alpha of packets
/// tagged unscheduled.
pub const DEFAULT_UNSCHEDULED_ALPHA: f64 = 1024.0;

/// An endpoint's unscheduled tagging (the artifact's `TcpSocketBase::RTTBytes` rule): each
/// packet it sends is tagged while the data bytes sent before it are below `limit`.
#[derive(Debug, Clone, Copy)]
pub struct UnscheduledTag {
    limit: u64,
    sent: u64,
}

impl UnscheduledTag {
    /// Tags the packets sent within the first `limit` bytes of data (None for 0: no tag).
    pub fn new(limit: u64) -> Option<Self> {
        (limit > 0).then_some(Self { limit, sent: 0 })
    }

    /// Sets `pkt`'s tag, then counts its data (retransmissions too, as `SendDataPacket` does).
    #[inline]
    pub fn mark(&mut self, pkt: &mut Packet) {
        pkt.tcp.unscheduled = self.sent < self.limit;
        if pkt.kind == PacketKind::TcpData {
            self.sent += u64::from(pkt.payload);
        }
    }
}

/// ns-3 GenQueueDisc's `sat` default: 20 packets of 1400 bytes.
pub const DEFAULT_SATURATION_BYTES: u64 = 20 * 1400;
/// The same in a buffer that counts packets.
pub const DEFAULT_SATURATION_PACKETS: u64 = 20;
/// ns-3 GenQueueDisc's `updateInterval` default: 30 000 ns.
pub const DEFAULT_INTERVAL: SimTime = SimTime::from_micros(30);

/// One queue's ABM state.
#[derive(Debug, Clone, Default)]
struct AbmQueue {
    priority: usize,
    /// The port's rate, and how many queues the port has (for the drain rate's clamp).
    rate_bps: f64,
    port_queues: usize,
    /// Its congestion level, min(1, length / sat), as its last arrival left it.
    level: f64,
    /// The next update of its snapshot; None before its first arrival.
    next_update: Option<SimTime>,
    /// Bytes sent since the last update.
    sent_bytes: u64,
    /// The snapshot the threshold reads: n_p and mu_i / b.
    n: f64,
    drain: f64,
}

/// The ABM state of a pool: each queue's, and the sum of the levels per priority.
#[derive(Debug, Clone)]
pub struct Abm {
    sat: u64,
    interval: SimTime,
    queues: Vec<AbmQueue>,
    /// Sum of the congestion levels of the queues of each priority.
    levels: Vec<f64>,
    /// The earliest update due (`SimTime::MAX` before any arrival).
    earliest: SimTime,
}

impl Abm {
    pub fn new(sat: u64, interval: SimTime) -> Self {
        Self {
            sat: sat.max(1),
            interval,
            queues: Vec::new(),
            levels: Vec::new(),
            earliest: SimTime::MAX,
        }
    }

    /// A queue of `priority` on a port of `rate_bps` that has `port_queues` queues.
    pub fn add_queue(&mut self, priority: usize, rate_bps: f64, port_queues: usize) {
        self.queues.push(AbmQueue {
            n: 1.0,
            drain: 1.0,
            ..AbmQueue::default()
        });
        self.set_queue(self.queues.len() - 1, priority, rate_bps, port_queues);
    }

    /// Queue `i`'s priority and port, before its first arrival.
    pub fn set_queue(&mut self, i: usize, priority: usize, rate_bps: f64, port_queues: usize) {
        if self.levels.len() <= priority {
            self.levels.resize(priority + 1, 0.0);
        }
        let q = &mut self.queues[i];
        q.priority = priority;
        q.rate_bps = rate_bps;
        q.port_queues = port_queues.max(1);
    }

    /// Before any change at `now`: every queue's updates due at or before `now` (ns-3's
    /// `InvokeUpdates` timers; an update at the instant of a packet event comes first). The
    /// levels and bytes sent change only at the pool's events, so the updates made here see
    /// what they would have seen at their own instants.
    pub fn catch_up(&mut self, now: SimTime) {
        if now < self.earliest {
            return;
        }
        let mut earliest = SimTime::MAX;
        for i in 0..self.queues.len() {
            if let Some(next) = self.queues[i].next_update {
                if now >= next {
                    // the last update due saw only its own interval: no departure in it if a
                    // whole interval passed since the first one due
                    let steps = (now - next).0 / self.interval.0 + 1;
                    let sent = if steps == 1 {
                        self.queues[i].sent_bytes
                    } else {
                        0
                    };
                    self.update(i, sent);
                    self.queues[i].next_update = Some(next + SimTime(steps * self.interval.0));
                }
                earliest = earliest.min(self.queues[i].next_update.unwrap_or(SimTime::MAX));
            }
        }
        self.earliest = earliest;
    }

    /// Queue `i`, holding `len`, sees an arrival at `now` (after [`catch_up`](Self::catch_up)):
    /// its congestion level is set (ns-3 `setSaturated`); on its first arrival its snapshot
    /// is taken and its update grid starts (ns-3 `InvokeUpdates` on `firstTimeUpdate`).
    pub fn on_arrival(&mut self, i: usize, len: u64, now: SimTime) {
        let level = (len as f64 / self.sat as f64).min(1.0);
        let p = self.queues[i].priority;
        self.levels[p] += level - self.queues[i].level;
        self.queues[i].level = level;
        if self.queues[i].next_update.is_none() {
            self.update(i, 0);
            let next = now + self.interval;
            self.queues[i].next_update = Some(next);
            self.earliest = self.earliest.min(next);
        }
    }

    /// Queue `i` sent `bytes` (after [`catch_up`](Self::catch_up)).
    pub fn on_departure(&mut self, i: usize, bytes: u32) {
        self.queues[i].sent_bytes += u64::from(bytes);
    }

    /// ns-3 `UpdateDequeueRate` and `UpdateNofP`: `sent` is the bytes of the interval just
    /// ended.
    fn update(&mut self, i: usize, sent: u64) {
        let interval_s = self.interval.as_secs_f64();
        let q = &mut self.queues[i];
        let mut drain = 8.0 * sent as f64 / interval_s / q.rate_bps;
        // outside [1 / queues, 1] (or no rate known: NaN) it counts 1
        if !(drain >= 1.0 / q.port_queues as f64 && drain <= 1.0) {
            drain = 1.0;
        }
        q.drain = drain;
        q.sent_bytes = 0;
        q.n = self.levels[q.priority].max(1.0);
    }

    /// Queue `i`'s threshold for `alpha` with `free` of the buffer unused:
    /// `alpha / n_p * free * mu_i / b`.
    pub fn threshold(&self, i: usize, alpha: f64, free: u64) -> f64 {
        let q = &self.queues[i];
        alpha / q.n * free as f64 * q.drain
    }

    /// n_p and mu_i / b as queue `i` last read them.
    pub fn snapshot(&self, i: usize) -> (f64, f64) {
        (self.queues[i].n, self.queues[i].drain)
    }
}
