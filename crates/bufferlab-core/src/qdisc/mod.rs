//! Queue disciplines. Every discipline implements [`QueueDisc`]; the port that owns it does all
//! the accounting (arrivals, departures, drops by reason, time-average occupancy, sojourn
//! times) in [`QueueStats`](crate::monitor::queue_stats::QueueStats), so a discipline only
//! decides who waits, who leaves and who is dropped, and the numbers are comparable across
//! disciplines. Each discipline's file holds its configuration too (fields, defaults with their
//! sources, presets, validation); [`registry`] names the kinds a scenario can ask for.
//!
//! Drops go through [`QueueCtx::drop`] (at enqueue or at dequeue, as CoDel and PIE need);
//! ECN marks through [`QueueCtx::mark`]. The context's drop buffer is reused, so nothing is
//! allocated per packet.

pub mod cake;
pub mod classful;
pub mod cobalt;
pub mod cobalt_vars;
pub mod codel;
pub mod docsis_pie;
pub mod droptail;
pub mod drr;
pub mod dualpi2;
pub mod fq;
pub mod fq_codel;
pub mod fq_ns2;
pub mod lalred;
pub mod pi;
pub mod pie;
pub mod police;
pub mod prio;
pub mod red;
pub mod registry;
pub mod rem;
pub mod rio;
pub mod sfq;
pub mod sfq_ns2;
pub mod shared_config;
pub mod tbf;

use crate::packet::{Ecn, Packet};
use crate::rng::{LazyRng, Rng};
use crate::units::{Rate, SimTime};

/// The shortest update period of a discipline that updates on a clock (PIE's and DualPI2's
/// `tupdate`): the updates due are run inside one dequeue, so over an idle second a 1 ps
/// period would be 10^12 steps of one event.
pub const MIN_UPDATE_INTERVAL: SimTime = SimTime::from_micros(1);

pub use registry::QueueConfig;

pub use crate::drop_reason::DropReason;

/// What a discipline sees of the world when it is called.
pub struct QueueCtx<'a> {
    pub now: SimTime,
    /// The discipline's own random stream, made at its first draw ([`QueueCtx::rng`]).
    rng: &'a mut LazyRng,
    /// Rate of the link this queue feeds (RED's idle decay and PIE need it).
    pub link_rate: Rate,
    /// A packet is being serialised on the link right now (ns-2 counts it against the limit).
    pub link_busy: bool,
    /// The time in ns-2's double seconds, under ns-2's clock (`clock.rs`; the port sets it):
    /// RED then counts its idle time in doubles as red.cc does.
    pub ns2_now_s: Option<f64>,
    drops: &'a mut Vec<(Packet, DropReason)>,
    marks: u64,
}

impl<'a> QueueCtx<'a> {
    pub fn new(
        now: SimTime,
        rng: &'a mut LazyRng,
        link_rate: Rate,
        link_busy: bool,
        drops: &'a mut Vec<(Packet, DropReason)>,
    ) -> Self {
        Self {
            now,
            rng,
            link_rate,
            link_busy,
            ns2_now_s: None,
            drops,
            marks: 0,
        }
    }

    /// The discipline's own random stream (made now if this is its first draw: a DropTail
    /// port never makes one).
    #[inline]
    pub fn rng(&mut self) -> &mut Rng {
        self.rng.get()
    }

    /// Drops `pkt` for `reason`; the port records it.
    #[inline]
    pub fn drop(&mut self, pkt: Packet, reason: DropReason) {
        self.drops.push((pkt, reason));
    }

    /// Marks `pkt` Congestion Experienced (RFC 3168) instead of dropping it. Returns false (and
    /// leaves the packet alone) when the packet is not ECN-capable: then the caller drops.
    #[inline]
    pub fn mark(&mut self, pkt: &mut Packet) -> bool {
        if !pkt.ecn.is_capable() {
            return false;
        }
        if pkt.ecn != Ecn::Ce {
            pkt.ecn = Ecn::Ce;
            self.marks += 1;
        }
        true
    }

    pub fn marks(&self) -> u64 {
        self.marks
    }

    /// Drops recorded so far in this call (class-based queues count them per class).
    pub fn drops_len(&self) -> usize {
        self.drops.len()
    }

    /// The (size, reason) of the drops recorded in this call from index `from` of
    /// [`drops_len`](Self::drops_len) on.
    pub fn drops_since(&self, from: usize) -> impl Iterator<Item = (u32, DropReason)> + '_ {
        self.drops[from..].iter().map(|(p, r)| (p.size, *r))
    }
}

/// A queue discipline on one output port.
pub trait QueueDisc {
    /// Takes `pkt`: stores it, or drops it (or another packet) through `cx.drop`.
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx);
    /// The next packet to transmit, if any; may drop packets through `cx.drop` on the way.
    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet>;
    /// Packets waiting (not counting the one on the wire).
    fn len_packets(&self) -> usize;
    /// Bytes waiting.
    fn len_bytes(&self) -> u64;
    /// The discipline's name in results ("droptail", "red", ...).
    fn kind(&self) -> &'static str;
    /// The link fed by this queue finished its last transmission at `since` and found the
    /// queue empty; it stayed idle until the arrival about to be enqueued. ns-2 and Linux learn
    /// this from a dequeue that returns nothing (RED starts its idle period there); the port
    /// does not ask an empty queue, so it says so here, before that arrival's `enqueue`.
    fn link_idle(&mut self, _since: SimTime) {}
    /// After a dequeue that returned nothing while packets wait: when the discipline will have
    /// one (a shaper's tokens, `qdisc/tbf.rs`); the port sets a timer for it. None: the
    /// discipline is work-conserving, the next arrival or transmission end asks again.
    fn wake_at(&self) -> Option<SimTime> {
        None
    }
    /// Each engine flow's ns-2 flow id (`fid_`, the trace's flow id), by flow index, for a
    /// discipline that tells flows apart as ns-2 does (ns-2's FQ); given once the flows exist.
    fn set_flow_ids(&mut self, _fids: &[u32]) {}
    /// A smoothed queue estimate when the discipline keeps one (RED's EWMA average), for series.
    fn average(&self) -> Option<f64> {
        None
    }
    /// The queue length the last arrival found, in the unit of
    /// [`average`](QueueDisc::average), when the discipline keeps it (ns-2 RED's `curq_`, set in
    /// `REDQueue::enque` before the packet is added: queue/red.cc, ns-2.35).
    fn arrival_length(&self) -> Option<f64> {
        None
    }
    /// The drop probability as the discipline's periodic updates have left it at `now`, when
    /// it keeps one (ns-2 PI's `prob_`: queue/pi.cc `calculate_p`, every 1/w s).
    fn probability_at(&self, _now: SimTime) -> Option<f64> {
        None
    }
    /// The unit of [`average`](QueueDisc::average): `"packets"`, or `"bytes"` when the
    /// discipline averages bytes (RED in byte mode).
    fn average_unit(&self) -> &'static str {
        "packets"
    }
    /// Per-class counters of a class-based queue (reported as `queues[i].classes`), over
    /// [the start given to `measure_from`, `now`].
    fn class_stats(&self, _now: SimTime) -> Option<serde_json::Value> {
        None
    }
    /// Per-class statistics count events at or after `start` (the scenario's warm-up), as the
    /// port's own do; the port tells its discipline once, when it is built.
    fn measure_from(&mut self, _start: SimTime) {}
    /// Sizes the per-class sojourn histograms for waits up to `max` before the run, so that
    /// recording them never allocates (as the port's own, `Port::reserve_statistics`).
    fn reserve_class_statistics(&mut self, _max: SimTime) {}
    /// The settings it runs with on a link of `rate_bps`, every preset default resolved
    /// (thresholds in their units, weights, targets), for `bufferlab validate --json`. None
    /// when the scenario's own configuration already says everything.
    fn resolved_settings(&self, _rate_bps: f64) -> Option<serde_json::Value> {
        None
    }
    /// Settings under which the discipline would not act as its name says (RED whose limit is
    /// below max_th works as DropTail), in words naming the fix.
    fn warnings(&self, _rate_bps: f64) -> Vec<String> {
        Vec::new()
    }
}

/// Builds the discipline a configuration describes ([`QueueConfig::build`]).
pub fn build(cfg: &QueueConfig) -> Box<dyn QueueDisc> {
    cfg.build()
}

#[cfg(test)]
pub(crate) mod harness {
    //! A small harness for discipline unit tests: enqueue and dequeue at chosen times and
    //! see what was dropped.
    use super::*;
    use crate::ids::FlowId;

    pub struct Harness {
        pub q: Box<dyn QueueDisc>,
        pub rng: crate::rng::LazyRng,
        pub rate: Rate,
        pub busy: bool,
        pub dropped: Vec<(Packet, DropReason)>,
        pub marks: u64,
        next_uid: u64,
    }

    impl Harness {
        pub fn new(q: Box<dyn QueueDisc>, rate: Rate) -> Self {
            Self {
                q,
                rng: crate::rng::stream(1, "harness").into(),
                rate,
                busy: false,
                dropped: Vec::new(),
                marks: 0,
                next_uid: 0,
            }
        }
        pub fn packet(&mut self, flow: u32, size: u32) -> Packet {
            self.next_uid += 1;
            Packet {
                uid: self.next_uid,
                flow: FlowId(flow),
                size,
                payload: size,
                ..Packet::default()
            }
        }
        pub fn enqueue(&mut self, now: SimTime, mut p: Packet) {
            p.enqueued = now;
            let mut cx = QueueCtx::new(now, &mut self.rng, self.rate, self.busy, &mut self.dropped);
            self.q.enqueue(p, &mut cx);
            self.marks += cx.marks();
        }
        pub fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
            let mut cx = QueueCtx::new(now, &mut self.rng, self.rate, self.busy, &mut self.dropped);
            let p = self.q.dequeue(&mut cx);
            self.marks += cx.marks();
            p
        }
    }
}

#[cfg(test)]
pub(crate) mod tests_common {
    //! Shared checks for the fair schedulers.
    use super::harness::Harness;
    use super::QueueDisc;
    use crate::units::{Rate, SimTime};

    /// Keeps one backlogged flow per entry of `sizes` (flow i sends packets of `sizes[i]` bytes,
    /// refilled to 20 waiting packets before each dequeue), dequeues 200 000 packets, and returns
    /// Jain's index of the bytes each flow got.
    pub fn backlogged_shares(q: Box<dyn QueueDisc>, sizes: &[u32]) -> f64 {
        let mut h = Harness::new(q, Rate(10_000_000));
        let mut waiting = vec![0usize; sizes.len()];
        let mut got = vec![0f64; sizes.len()];
        for step in 0..200_000u64 {
            let now = SimTime(step);
            for (f, &s) in sizes.iter().enumerate() {
                let mut tries = 0;
                while waiting[f] < 20 && tries < 40 {
                    tries += 1;
                    let p = h.packet(f as u32, s);
                    h.enqueue(now, p);
                    waiting[f] += 1;
                    for (d, _) in h.dropped.drain(..) {
                        waiting[d.flow.0 as usize] -= 1;
                    }
                }
            }
            if let Some(p) = h.dequeue(now) {
                waiting[p.flow.0 as usize] -= 1;
                got[p.flow.0 as usize] += p.size as f64;
            }
        }
        let n = got.len() as f64;
        let s: f64 = got.iter().sum();
        let s2: f64 = got.iter().map(|x| x * x).sum();
        s * s / (n * s2)
    }
}
