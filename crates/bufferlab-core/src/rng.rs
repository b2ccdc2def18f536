//! Random streams. One root seed per run; every component (a traffic source, a RED queue,
//! a loss model) draws from its own PCG stream whose seed is derived from the root seed and
//! the component's stable label ("flow/3/app", "port/bottleneck:r0->r1/loss"). Adding a
//! component, or building them in another order, never changes another component's numbers.
//!
//! The exception is a run that follows ns-2's one default RNG (`ns2_default_rng`): there the
//! components ns-2 makes draw from `Random::uniform()` share that one stream
//! (`Rng::Ns2Default`, `ns2_rng.rs`).

use crate::ns2_rng::Ns2DefaultRng;
use rand::SeedableRng;
use rand::{RngExt, TryRng};
use rand_pcg::Pcg64Mcg;
use std::convert::Infallible;

/// A component's random stream.
#[derive(Debug, Clone)]
pub enum Rng {
    /// Its own PCG stream (every run that does not follow ns-2's default RNG).
    Own(Pcg64Mcg),
    /// ns-2's default RNG, shared with the other components that draw from it in ns-2.
    Ns2Default(Ns2DefaultRng),
}

impl Rng {
    /// A uniform in [0, 1): where ns-2 calls `Random::uniform()`, its default RNG's next value.
    #[inline]
    pub fn uniform01(&mut self) -> f64 {
        match self {
            Rng::Own(r) => r.random::<f64>(),
            Rng::Ns2Default(d) => d.u01(),
        }
    }

    /// A uniform in [a, b): ns-2's `Random::uniform(a, b)`, `a + (b - a) u`, on its default RNG.
    #[inline]
    pub fn uniform_between(&mut self, a: f64, b: f64) -> f64 {
        match self {
            Rng::Own(r) => r.random_range(a..b),
            Rng::Ns2Default(d) => a + (b - a) * d.u01(),
        }
    }

    /// An integer in [0, k): ns-2's `Random::integer(k)`, `uniform_positive_int() % k` with
    /// uniform_positive_int = (int)((MAXINT + 1) x u) (rng.h `uniform(int)`, rng.cc `RandInt`).
    #[inline]
    pub fn integer(&mut self, k: u64) -> u64 {
        match self {
            Rng::Own(r) => r.random_range(0..k),
            Rng::Ns2Default(d) => ((2_147_483_648.0 * d.u01()) as u64) % k,
        }
    }

    /// ns-2 draws even where the outcome is sure (an error model of rate 0), which moves the
    /// shared stream; an own stream need not.
    pub fn is_ns2_default(&self) -> bool {
        matches!(self, Rng::Ns2Default(_))
    }
}

// Generic draws (distributions, ranges): an own stream's words; on ns-2's default RNG, 32 bits
// of each uniform (ns-2's `next-random` is 31), for a component the ns-2 rules do not cover.
impl TryRng for Rng {
    type Error = Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(match self {
            Rng::Own(r) => r.try_next_u32()?,
            Rng::Ns2Default(d) => (d.u01() * 4_294_967_296.0) as u32,
        })
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(match self {
            Rng::Own(r) => r.try_next_u64()?,
            Rng::Ns2Default(_) => {
                let hi = self.try_next_u32()? as u64;
                (hi << 32) | self.try_next_u32()? as u64
            }
        })
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        match self {
            Rng::Own(r) => r.try_fill_bytes(dst),
            Rng::Ns2Default(_) => {
                for chunk in dst.chunks_mut(4) {
                    let w = self.try_next_u32()?.to_le_bytes();
                    chunk.copy_from_slice(&w[..chunk.len()]);
                }
                Ok(())
            }
        }
    }
}

/// A component's random stream made when it is first drawn from: until then its seed (16
/// bytes instead of the stream's 32). Most ports' disciplines (DropTail) never draw, and a
/// port is 4 a flow (docs/performance.md, "What a flow holds after the report is streamed").
/// The stream made is the one [`stream`] makes from the same seed, so the numbers drawn are
/// the same as with a stream made up front.
#[derive(Debug, Clone)]
pub enum LazyRng {
    /// The seed of an own stream not drawn from yet ([`stream_seed`]).
    Seed(u64),
    /// The stream, made.
    Made(Box<Rng>),
}

impl LazyRng {
    /// The stream, made now if it was not yet.
    #[inline]
    pub fn get(&mut self) -> &mut Rng {
        if let LazyRng::Seed(seed) = *self {
            self.make(seed);
        }
        match self {
            LazyRng::Made(r) => r,
            LazyRng::Seed(_) => unreachable!("made above"),
        }
    }

    /// Made at the first draw (it allocates once, the first time a discipline draws).
    #[cold]
    #[inline(never)]
    fn make(&mut self, seed: u64) {
        *self = LazyRng::Made(Box::new(Rng::Own(Pcg64Mcg::seed_from_u64(seed))));
    }

    /// Whether the stream has been made (drawn from).
    pub fn is_made(&self) -> bool {
        matches!(self, LazyRng::Made(_))
    }
}

impl From<Rng> for LazyRng {
    fn from(r: Rng) -> Self {
        LazyRng::Made(Box::new(r))
    }
}

/// SplitMix64 finaliser (Steele et al. 2014): a bijective, well-mixing 64-bit hash step.
pub(crate) fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a over the label: stable across Rust versions and platforms (std's hasher is not promised to be).
fn fnv1a(label: &str) -> u64 {
    label.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The seed of the stream named `label` under `root`.
pub fn stream_seed(root: u64, label: &str) -> u64 {
    splitmix(splitmix(root) ^ fnv1a(label))
}

/// An independent random stream for the component named `label`.
pub fn stream(root: u64, label: &str) -> Rng {
    Rng::Own(Pcg64Mcg::seed_from_u64(stream_seed(root, label)))
}

/// The stream named `label` under `root`, made when first drawn from ([`LazyRng`]).
pub fn lazy_stream(root: u64, label: &str) -> LazyRng {
    LazyRng::Seed(stream_seed(root, label))
}

/// Seeds for replications: the i-th replication of a sweep point under `root`.
pub fn replication_seed(root: u64, i: u64) -> u64 {
    splitmix(root ^ splitmix(i.wrapping_add(1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    // ---- streams are reproducible and independent ----
    #[test]
    fn same_label_same_numbers_other_label_other_numbers() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = stream(7, "flow/0/app");
                move |_| r.random()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = stream(7, "flow/0/app");
                move |_| r.random()
            })
            .collect();
        let c: Vec<u64> = (0..4)
            .map({
                let mut r = stream(7, "flow/1/app");
                move |_| r.random()
            })
            .collect();
        let d: Vec<u64> = (0..4)
            .map({
                let mut r = stream(8, "flow/0/app");
                move |_| r.random()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }

    // ---- a stream made at its first draw gives the numbers of one made up front ----
    #[test]
    fn lazy_stream_draws_what_stream_draws() {
        let mut eager = stream(7, "port/x/queue");
        let mut lazy = lazy_stream(7, "port/x/queue");
        assert!(!lazy.is_made());
        for _ in 0..5 {
            assert_eq!(lazy.get().uniform01(), eager.uniform01());
        }
        assert!(lazy.is_made());
        assert_eq!(std::mem::size_of::<LazyRng>(), 16);
    }
}
