//! COBALT's per-queue state, "CoDel and BLUE Alternate" (Palmei, Gupta, Imputato, Morton,
//! Tahiliani, Avallone & Täht, IEEE LANMAN 2019; Høiland-Jørgensen, Täht & Morton, IEEE LANMAN
//! 2018), following Linux `net/sched/sch_cake.c` (`struct cobalt_vars`, `cobalt_newton_step`,
//! `cobalt_invsqrt`, `cobalt_cache_init`, `cobalt_control`, `cobalt_queue_full`,
//! `cobalt_queue_empty`, `cobalt_should_drop`) and ns-3.44
//! `src/traffic-control/model/cobalt-queue-disc.cc` (`CobaltQueueDisc::NewtonStep`, `CacheInit`,
//! `InvSqrt`, `ControlLaw`, `CobaltQueueFull`, `CobaltQueueEmpty`, `CobaltShouldDrop`), a port
//! of the same code. Where the two differ the parameters say which one runs ([`CobaltParams`]).
//!
//! * CoDel, simplified: the first packet whose sojourn exceeds `target` starts the dropping
//!   state with `drop_next = now + interval / sqrt(count)`; from then on each packet leaving at
//!   or after `drop_next` is marked (ECN) or dropped, `count` grows by one and `drop_next`
//!   moves by `interval / sqrt(count)`; a packet below target leaves the dropping state, and
//!   while not dropping each passed `drop_next` takes one from `count` (the count decays instead
//!   of restarting at 1 as RFC 8289's does). `1 / sqrt(count)` is kept in 0.32 fixed point,
//!   from a table of 16 values made with four Newton steps each (count < 16), else by one Newton
//!   step from the last value, exactly as both sources do (so the schedule differs from the
//!   exact square root at count 2, 3, ... and after a step down).
//! * BLUE: a queue overflow raises `p_drop` by `p_inc`, a dequeue that finds the queue empty
//!   lowers it by `p_dec`, each at most once per `target` (the BLUE timer); every dequeued packet
//!   is dropped with probability `p_drop` (never marked: "Lack of ECN is deliberate").
//! * `drop_next` doubles as an activity timer: with count 0 it is set to `now + interval`, and
//!   a packet kept while the schedule is in the past pulls it to `now`.
//!
//! Times are integer nanoseconds, as `ktime_t` and ns-3's `Time2CoDel`; the control law's
//! interval is a `u32` of nanoseconds in both (`reciprocal_scale`, `ReciprocalDivide`), so an
//! interval of more than 4.294967295 s is refused by the configuration.

use super::QueueCtx;
use crate::packet::Packet;

/// Entries of the `1/sqrt(count)` table (Linux and ns-3 `REC_INV_SQRT_CACHE`).
const REC_INV_SQRT_CACHE: usize = 16;

/// Linux `cobalt_newton_step` / ns-3 `NewtonStep`: one Newton step towards `1/sqrt(count)`,
/// in 0.32 fixed point (`new = invsqrt / 2 * (3 - count * invsqrt^2)`).
pub const fn newton_step(rec_inv_sqrt: u32, count: u32) -> u32 {
    let invsqrt = rec_inv_sqrt as u64;
    let invsqrt2 = (invsqrt * invsqrt) >> 32;
    let mut val = (3u64 << 32).wrapping_sub(count as u64 * invsqrt2);
    val >>= 2; // "avoid overflow in following multiply"
    val = val.wrapping_mul(invsqrt) >> (32 - 2 + 1);
    val as u32
}

/// Linux `cobalt_cache_init` / ns-3 `CacheInit`: entry 0 is 0xFFFFFFFF (1.0); entry `n` is
/// four Newton steps at count `n` from entry `n - 1`.
const fn rec_inv_sqrt_cache() -> [u32; REC_INV_SQRT_CACHE] {
    let mut cache = [0u32; REC_INV_SQRT_CACHE];
    let mut v = u32::MAX;
    cache[0] = v;
    let mut count = 1;
    while count < REC_INV_SQRT_CACHE {
        let c = count as u32;
        v = newton_step(newton_step(newton_step(newton_step(v, c), c), c), c);
        cache[count] = v;
        count += 1;
    }
    cache
}

/// The table, made once at compile time.
pub const REC_INV_SQRT: [u32; REC_INV_SQRT_CACHE] = rec_inv_sqrt_cache();

/// Linux `cobalt_control` / ns-3 `ControlLaw`: `t + interval * rec_inv_sqrt / 2^32`, with the
/// interval truncated to 32 bits as `reciprocal_scale` takes it.
pub fn control(t: i64, interval_ns: u64, rec_inv_sqrt: u32) -> i64 {
    t + (((interval_ns as u32) as u64 * rec_inv_sqrt as u64) >> 32) as i64
}

/// How BLUE's probability is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlueArith {
    /// Linux: a `u32` in 0.32 fixed point; an increment that wraps saturates at 0xFFFFFFFF, a
    /// decrement below zero gives 0 (`cobalt_queue_full`, `cobalt_queue_empty`).
    FixedPoint,
    /// ns-3: a double, `min(p + inc, 1)` and `max(p - dec, 0)` (`CobaltQueueFull`,
    /// `CobaltQueueEmpty`).
    Double,
}

/// COBALT's parameters (Linux `struct cobalt_params`, ns-3's attributes), resolved.
#[derive(Clone, Copy, Debug)]
pub struct CobaltParams {
    pub target_ns: u64,
    pub interval_ns: u64,
    /// Linux `mtu_time`: serialisation of one MTU at the configured rate; the sojourn must also
    /// exceed 4 of them (and 2 per bulk flow) to count as over target. 0 in ns-3.
    pub mtu_time_ns: u64,
    /// BLUE's steps, as fractions (Linux `p_inc = 1 << 24`, `p_dec = 1 << 20` in 0.32 fixed
    /// point: 1/256 and 1/4096; ns-3 Increment 1/256, Decrement 1/4096). With
    /// [`BlueArith::FixedPoint`] they are already [`fixed_point`] values.
    pub p_inc: f64,
    pub p_dec: f64,
    pub arith: BlueArith,
    /// Mark ECN-capable packets instead of CoDel's drops (Linux: always, `INET_ECN_set_ce`;
    /// ns-3: UseEcn).
    pub ecn: bool,
    /// ns-3.44 CeThreshold: mark an ECT packet whose sojourn is above it (when `ecn`).
    pub ce_threshold_ns: Option<u64>,
    /// ns-3.44 BlueThreshold: a dequeued packet whose sojourn is above it raises `p_drop` as an
    /// overflow would (at most once per target). None in Linux.
    pub blue_threshold_ns: Option<u64>,
    /// ns-3.44 keeps the BLUE timer in a `uint32_t` (`m_lastUpdateTimeBlue`, cobalt-queue-disc.h)
    /// though it is set from 64-bit nanoseconds: it wraps every 4.294967296 s, and from then on
    /// `now - timer` exceeds target at every call, so BLUE moves at every overflow and every
    /// empty dequeue rather than once per target. Linux keeps a `ktime_t`.
    pub blue_timer_u32: bool,
    /// `rec_inv_sqrt` of a fresh state: Linux `cobalt_vars_init` zeroes it (so the first
    /// schedule is due at once), ns-3 `InitializeParams` sets 0xFFFFFFFF (one interval).
    pub initial_rec_inv_sqrt: u32,
}

/// A fraction as Linux holds it: a `u32` in 0.32 fixed point (truncated, at most
/// 0xFFFFFFFF / 2^32). Sums and differences of such values are exact in an `f64`.
pub fn fixed_point(p: f64) -> f64 {
    ((p * 4294967296.0) as u64).min(u32::MAX as u64) as f64 / 4294967296.0
}

/// What [`CobaltVars::should_drop`] decided for a dequeued packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Deliver it (it may have been marked CE).
    Deliver,
    /// CoDel's schedule was due and the packet could not be marked.
    DropCodel,
    /// BLUE's coin came up (CoDel would have delivered it).
    DropBlue,
}

/// Linux `struct cobalt_vars` / ns-3 CobaltQueueDisc's state.
#[derive(Clone, Debug)]
pub struct CobaltVars {
    pub count: u32,
    pub rec_inv_sqrt: u32,
    pub drop_next: i64,
    pub blue_timer: i64,
    /// BLUE's drop probability, a fraction in [0, 1].
    pub p_drop: f64,
    pub dropping: bool,
}

impl CobaltVars {
    /// `cobalt_vars_init` (all zero) / ns-3 `InitializeParams` (count 0, timers 0).
    pub fn new(p: &CobaltParams) -> Self {
        Self {
            count: 0,
            rec_inv_sqrt: p.initial_rec_inv_sqrt,
            drop_next: 0,
            blue_timer: 0,
            p_drop: 0.0,
            dropping: false,
        }
    }
}

impl CobaltVars {
    /// Linux `cobalt_invsqrt` / ns-3 `InvSqrt`: the table below 16, else one Newton step.
    fn invsqrt(&mut self) {
        self.rec_inv_sqrt = match REC_INV_SQRT.get(self.count as usize) {
            Some(&v) => v,
            None => newton_step(self.rec_inv_sqrt, self.count),
        };
    }

    fn set_blue_timer(&mut self, p: &CobaltParams, now: i64) {
        self.blue_timer = if p.blue_timer_u32 {
            now as u32 as i64
        } else {
            now
        };
    }

    fn p_up(&mut self, p: &CobaltParams) {
        let ceiling = match p.arith {
            BlueArith::FixedPoint => u32::MAX as f64 / 4294967296.0,
            BlueArith::Double => 1.0,
        };
        self.p_drop = (self.p_drop + p.p_inc).min(ceiling);
    }

    /// Linux `cobalt_queue_full` / ns-3 `CobaltQueueFull`: an overflow drop. BLUE's probability
    /// rises once per target; the CoDel side is put in the dropping state with its schedule due.
    pub fn queue_full(&mut self, p: &CobaltParams, now: i64) {
        if now - self.blue_timer > p.target_ns as i64 {
            self.p_up(p);
            self.set_blue_timer(p, now);
        }
        self.dropping = true;
        self.drop_next = now;
        if self.count == 0 {
            self.count = 1;
        }
    }

    /// Linux `cobalt_queue_empty` / ns-3 `CobaltQueueEmpty`: a dequeue found the queue empty.
    /// BLUE's probability falls once per target; the dropping state ends, and a passed schedule
    /// takes one from the count.
    pub fn queue_empty(&mut self, p: &CobaltParams, now: i64) {
        if self.p_drop > 0.0 && now - self.blue_timer > p.target_ns as i64 {
            self.p_drop = (self.p_drop - p.p_dec).max(0.0);
            self.set_blue_timer(p, now);
        }
        self.dropping = false;
        if self.count > 0 && now - self.drop_next >= 0 {
            self.count -= 1;
            self.invsqrt();
            self.drop_next = control(self.drop_next, p.interval_ns, self.rec_inv_sqrt);
        }
    }

    /// Linux `cobalt_should_drop` / ns-3 `CobaltShouldDrop`, for a packet just taken from the
    /// queue at `now` (ns) that waited `sojourn` ns; `bulk_flows` is Linux's (0 for one queue
    /// that is not in ingress mode). Marks the packet CE where the rules say so.
    pub fn should_drop(
        &mut self,
        p: &CobaltParams,
        now: i64,
        sojourn: i64,
        bulk_flows: u64,
        pkt: &mut Packet,
        cx: &mut QueueCtx,
    ) -> Verdict {
        let mut verdict = Verdict::Deliver;
        let mut schedule = now - self.drop_next;
        let over_target = sojourn > p.target_ns as i64
            && sojourn > (p.mtu_time_ns * bulk_flows * 2) as i64
            && sojourn > (p.mtu_time_ns * 4) as i64;
        let mut next_due = self.count > 0 && schedule >= 0;
        let mut marked = false;

        if over_target {
            if !self.dropping {
                self.dropping = true;
                self.drop_next = control(now, p.interval_ns, self.rec_inv_sqrt);
            }
            if self.count == 0 {
                self.count = 1;
            }
        } else if self.dropping {
            self.dropping = false;
        }

        if next_due && self.dropping {
            marked = p.ecn && cx.mark(pkt);
            if !marked {
                verdict = Verdict::DropCodel;
            }
            self.count = self.count.saturating_add(1);
            self.invsqrt();
            self.drop_next = control(self.drop_next, p.interval_ns, self.rec_inv_sqrt);
            schedule = now - self.drop_next;
        } else {
            while next_due {
                self.count -= 1;
                self.invsqrt();
                self.drop_next = control(self.drop_next, p.interval_ns, self.rec_inv_sqrt);
                schedule = now - self.drop_next;
                next_due = self.count > 0 && schedule >= 0;
            }
        }

        // ns-3.44: CeThreshold marking (not when the packet was just marked)
        if let Some(ce) = p.ce_threshold_ns {
            if !marked && p.ecn && sojourn > ce as i64 {
                cx.mark(pkt);
            }
        }
        // ns-3.44: BlueThreshold, a long sojourn raises BLUE as an overflow would
        if let Some(bt) = p.blue_threshold_ns {
            if sojourn > bt as i64 && now - self.blue_timer > p.target_ns as i64 {
                self.p_up(p);
                self.set_blue_timer(p, now);
            }
        }
        // BLUE: "Lack of ECN is deliberate"
        if self.p_drop > 0.0 {
            let u = cx.rng().uniform01();
            if u < self.p_drop && verdict == Verdict::Deliver {
                verdict = Verdict::DropBlue;
            }
        }
        let drop = verdict != Verdict::Deliver;
        // drop_next doubles as an activity timeout
        if self.count == 0 {
            self.drop_next = now + p.interval_ns as i64;
        } else if schedule > 0 && !drop {
            self.drop_next = now;
        }
        verdict
    }
}
