//! ns-2.35's `Delayer` (queue/delayer.cc; tcl/lib/ns-queue.tcl `Simulator insert-delayer`,
//! `SimpleLink insert-delayer`): a one-packet stage between a link's queue and its wire that
//! can hold the link back, to model a radio link's delay spikes and channel allocation.
//!
//! `insert-delayer` makes the Delayer the queue's target, in front of the dequeue trace and
//! the link (`$delayer target [$queue_ target]; $queue_ target $delayer`), and the rules are
//! `Delayer::recv`, `try_send` and its timers':
//! * The queue hands the Delayer its next packet as soon as the Delayer's one place is empty
//!   (the queue stays blocked while the Delayer holds a packet: it calls the queue back only
//!   when it passes one on). A packet in the Delayer has left the queue: it is not counted in
//!   the queue's length, so a DropTail queue of limit N plus the Delayer holds one packet more.
//! * `try_send` passes the packet on to the link (its `-` line then) only while the link is
//!   free (the previous packet's transmission has ended), no channel allocation is under way
//!   and no delay spike (or `block`) holds the link; then it calls the queue back, which hands
//!   it its next packet at once.
//! * `alloc int len` (channel allocation): each packet the Delayer receives draws `int`; if the
//!   Delayer last passed a packet on longer ago than that, the channel must be allocated
//!   again: the packet waits `len` (drawn then) before `try_send`.
//! * `spike int len`: a timer `int` after the command starts a spike; a spike holds the link
//!   for `len`, then the next starts `int` later (each drawn when its timer is set).
//! * `block` / `unblock` hold the link and let it go (`block` only without `spike`).
//!
//! The random variables draw from ns-2's default RNG (`RandomVariable::value`, ranvar.cc), as
//! those of the validation suites do. The port runs these rules (`net/port.rs`); this file holds
//! the Delayer's state.

use crate::rng::Rng;

/// A RandomVariable of ns-2 (tools/ranvar.cc), drawn from the default RNG.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RanVar {
    /// `RandomVariable/Uniform`: `min_ + (max_ - min_) u` (`RNG::uniform(a, b)`).
    Uniform { min: f64, max: f64 },
    /// `RandomVariable/Exponential`: `avg_ * -log(u)` (`RNG::exponential(avg_)`).
    Exponential { avg: f64 },
    /// `RandomVariable/Constant`: `val_`, drawing nothing.
    Constant { val: f64 },
}

impl RanVar {
    /// From the session's words: `uniform` (min, max), `exponential` (avg, unused) or
    /// `constant` (val, unused).
    pub fn from_words(kind: &str, a: f64, b: f64) -> Option<Self> {
        match kind {
            "uniform" => Some(RanVar::Uniform { min: a, max: b }),
            "exponential" => Some(RanVar::Exponential { avg: a }),
            "constant" => Some(RanVar::Constant { val: a }),
            _ => None,
        }
    }

    pub fn value(&self, rng: &mut Rng) -> f64 {
        match *self {
            RanVar::Uniform { min, max } => rng.uniform_between(min, max),
            RanVar::Exponential { avg } => avg * -rng.uniform01().ln(),
            RanVar::Constant { val } => val,
        }
    }
}

/// A Delayer's state (delayer.h's members).
pub struct Delayer {
    /// The packet it holds (`pkt_`), its handle in the packet pool.
    pub slot: Option<super::packet_pool::PacketRef>,
    /// The link has finished sending the last packet passed on (`target_free`).
    pub target_free: bool,
    /// No channel allocation under way (`alloc_free`).
    pub alloc_free: bool,
    /// No spike, no `block` (`spike_free`).
    pub spike_free: bool,
    /// When it last passed a packet on, in ns-2's seconds (`last_sent`, -100000 at first).
    pub last_sent: f64,
    /// `alloc`'s (interval, length).
    pub alloc: Option<(RanVar, RanVar)>,
    /// `spike`'s (interval, length).
    pub spike: Option<(RanVar, RanVar)>,
    pub rng: Rng,
}

impl Delayer {
    pub fn new(rng: Rng) -> Self {
        Delayer {
            slot: None,
            target_free: true,
            alloc_free: true,
            spike_free: true,
            last_sent: -100000.0,
            alloc: None,
            spike: None,
            rng,
        }
    }

    /// `Delayer::recv`'s test: whether a packet received at `now_s` must wait for a channel
    /// allocation, and how long (`alloc_len` drawn only then; `alloc_int` for every packet).
    pub fn allocation(&mut self, now_s: f64) -> Option<f64> {
        let (int, len) = self.alloc?;
        if now_s - self.last_sent > int.value(&mut self.rng) {
            self.alloc_free = false;
            return Some(len.value(&mut self.rng));
        }
        None
    }

    /// Whether `try_send` may pass a packet on.
    pub fn open(&self) -> bool {
        self.target_free && self.alloc_free && self.spike_free
    }

    /// `SpikeTimer::expire`: a spike starts (its length) or ends (the time to the next); the
    /// caller then runs `try_send`.
    pub fn spike_turn(&mut self) -> Option<f64> {
        let (int, len) = self.spike?;
        if self.spike_free {
            self.spike_free = false;
            Some(len.value(&mut self.rng))
        } else {
            self.spike_free = true;
            Some(int.value(&mut self.rng))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ns2_rng::Ns2DefaultRng;

    fn rng() -> Rng {
        // ns-2's default RNG as `ns` seeds it at start-up ($defaultRNG seed 1)
        Rng::Ns2Default(Ns2DefaultRng::new([1; 6]))
    }

    #[test]
    fn allocation_draws_the_interval_for_every_packet_and_the_length_when_due() {
        let mut d = Delayer::new(rng());
        let mut r = rng();
        d.alloc = Some((
            RanVar::Uniform { min: 2.0, max: 5.0 },
            RanVar::Uniform {
                min: 0.16,
                max: 0.19,
            },
        ));
        // the first packet: last_sent -100000, always an allocation
        let int = 2.0 + 3.0 * r.uniform01();
        let len = 0.16 + 0.03 * r.uniform01();
        assert!(int > 2.0);
        assert_eq!(d.allocation(0.0), Some(len));
        assert!(!d.open());
        // one just after a send draws the interval and needs none
        d.alloc_free = true;
        d.last_sent = 1.0;
        let _ = r.uniform01();
        assert_eq!(d.allocation(1.0), None);
        assert!(d.open());
        // both streams drew the same numbers
        assert_eq!(d.rng.uniform01(), r.uniform01());
    }

    #[test]
    fn spikes_alternate_length_and_interval() {
        let mut d = Delayer::new(rng());
        d.spike = Some((
            RanVar::Constant { val: 0.5 },
            RanVar::Exponential { avg: 0.1 },
        ));
        let mut r = rng();
        let len = 0.1 * -r.uniform01().ln();
        assert_eq!(d.spike_turn(), Some(len));
        assert!(!d.open());
        assert_eq!(d.spike_turn(), Some(0.5));
        assert!(d.open());
    }
}
