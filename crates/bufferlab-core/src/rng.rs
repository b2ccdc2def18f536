//! Random streams. One root seed per run; every component (a traffic source, a RED queue,
//! a loss model) draws from its own PCG stream whose seed is derived from the root seed and
//! the component's stable label ("flow/3/app", "port/bottleneck:r0->r1/loss"). Adding a
//! component, or building them in another order, never changes another component's numbers.

use rand::SeedableRng;
pub use rand_pcg::Pcg64Mcg as Rng;

/// SplitMix64 finaliser (Steele et al. 2014): a bijective, well-mixing 64-bit hash step.
fn splitmix(mut z: u64) -> u64 {
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
    Rng::seed_from_u64(stream_seed(root, label))
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
}
