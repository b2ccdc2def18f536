//! ns-2.35's default random number generator, shared as ns-2 shares it.
//!
//! Follows ns-2.35 `tools/rng.cc` (`RNG::MRG32k3a`, `RNG::U01`), itself L'Ecuyer's MRG32k3a
//! ("Good parameters and implementations for combined multiple recursive random number
//! generators", Operations Research 47(1), 1999), and `tools/random.h`: `Random::uniform()` is
//! the next value of the one default RNG. In ns-2 every object without an RNG of its own draws
//! from it in the order events run: RED's and PI's early-drop tests (`queue/red.cc`,
//! `queue/pi.cc` `drop_early`), a packet error model (`queue/errmodel.cc` `CorruptPkt`), CBR's `random_` jitter
//! (`tools/cbr_traffic.cc` `next_interval`).
//!
//! With `ns2_default_rng` set, those components of a bufferlab scenario draw from this one
//! stream instead of each from its own (see `rng::Rng::Ns2Default`), so that a script run by
//! `bufferlab run script.tcl` makes ns-2's random drops. The same double operations as
//! `RNG::MRG32k3a` give the same values bit for bit (the state is integers below 2^32, every
//! product below 2^53); `python/bufferlab/ns2/rng.py` is the script side of the same stream.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

const M1: f64 = 4_294_967_087.0;
const M2: f64 = 4_294_944_443.0;
const A12: f64 = 1_403_580.0;
const A13N: f64 = 810_728.0;
const A21: f64 = 527_612.0;
const A23N: f64 = 1_370_589.0;
const NORM: f64 = 1.0 / (M1 + 1.0);

/// Where ns-2's default RNG starts: `seed = N` is what `$defaultRNG seed N` gives (six N's,
/// `RNG::set_seed`; ns-2 seeds it with 1 at start-up, `tcl/lib/ns-random.tcl`), `state` the six
/// values of `$defaultRNG all-seeds` at some point of a run.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ns2RngConfig {
    /// `$defaultRNG seed N` (1 to 2147483646).
    #[serde(default)]
    pub seed: Option<u64>,
    /// The generator's six values (three below 4294967087, then three below 4294944443,
    /// neither three all zero).
    #[serde(default)]
    pub state: Option<[u64; 6]>,
}

impl Ns2RngConfig {
    /// The state the stream starts at, or the field and a message naming the fix.
    pub fn start(&self) -> Result<[u64; 6], (String, String)> {
        match (self.seed, self.state) {
            (Some(n), None) if (1..2_147_483_647).contains(&n) => Ok([n; 6]),
            (Some(n), None) => Err((
                "seed".into(),
                format!("{n} is not a seed ns-2 takes: give 1 to 2147483646"),
            )),
            (None, Some(s)) => {
                check_state(&s).map_err(|m| ("state".into(), m))?;
                Ok(s)
            }
            _ => Err((
                "seed".into(),
                "give either seed = N ($defaultRNG seed N) or state = [six values]".into(),
            )),
        }
    }
}

fn check_state(s: &[u64; 6]) -> Result<(), String> {
    let below = |x: &[u64], m: f64| x.iter().all(|&v| (v as f64) < m);
    if !below(&s[..3], M1) || !below(&s[3..], M2) {
        return Err(
            "the first three values must be below 4294967087, the last three below 4294944443"
                .into(),
        );
    }
    if s[..3].iter().all(|&v| v == 0) || s[3..].iter().all(|&v| v == 0) {
        return Err("neither the first three nor the last three values may be all zero".into());
    }
    Ok(())
}

/// One MRG32k3a stream (ns-2's `Cg_`).
#[derive(Debug, Clone, PartialEq)]
pub struct Mrg32k3a {
    c: [f64; 6],
}

impl Mrg32k3a {
    pub fn new(state: [u64; 6]) -> Self {
        Self {
            c: state.map(|v| v as f64),
        }
    }

    pub fn state(&self) -> [u64; 6] {
        self.c.map(|v| v as u64)
    }

    /// The next uniform in (0, 1): `RNG::U01` (without `incPrec_`, not antithetic).
    pub fn u01(&mut self) -> f64 {
        let c = &mut self.c;
        let mut p1 = A12 * c[1] - A13N * c[0];
        p1 -= (p1 / M1).trunc() * M1;
        if p1 < 0.0 {
            p1 += M1;
        }
        c[0] = c[1];
        c[1] = c[2];
        c[2] = p1;
        let mut p2 = A21 * c[5] - A23N * c[3];
        p2 -= (p2 / M2).trunc() * M2;
        if p2 < 0.0 {
            p2 += M2;
        }
        c[3] = c[4];
        c[4] = c[5];
        c[5] = p2;
        if p1 > p2 {
            (p1 - p2) * NORM
        } else {
            (p1 - p2 + M1) * NORM
        }
    }
}

/// The run's one default RNG, held by every component that draws from it (and by the
/// simulation, which hands its state to and from the script between events).
#[derive(Debug, Clone)]
pub struct Ns2DefaultRng(Arc<Mutex<Mrg32k3a>>);

impl Ns2DefaultRng {
    pub fn new(state: [u64; 6]) -> Self {
        Self(Arc::new(Mutex::new(Mrg32k3a::new(state))))
    }

    fn with<T>(&self, f: impl FnOnce(&mut Mrg32k3a) -> T) -> T {
        // one thread only ever holds it; a poisoned lock still holds a valid state
        let mut g = self.0.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut g)
    }

    pub fn u01(&self) -> f64 {
        self.with(Mrg32k3a::u01)
    }

    pub fn state(&self) -> [u64; 6] {
        self.with(|g| g.state())
    }

    pub fn set_state(&self, state: [u64; 6]) -> Result<(), String> {
        check_state(&state)?;
        self.with(|g| *g = Mrg32k3a::new(state));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- the values ns-2.35 gives ----
    #[test]
    fn seed_one_gives_ns2s_first_values() {
        // `ns` (ns-2.35) prints 729236 1193744747 30504276 for `set r [new RNG]; $r seed 1`
        // and three `$r next-random` (int(2^31 u), tools/rng.cc uniform_positive_int)
        let mut g = Mrg32k3a::new([1; 6]);
        let got: Vec<i64> = (0..3).map(|_| (2_147_483_648.0 * g.u01()) as i64).collect();
        assert_eq!(got, vec![729236, 1193744747, 30504276]);
    }

    #[test]
    fn shared_handles_draw_one_sequence() {
        let a = Ns2DefaultRng::new([12345; 6]);
        let b = a.clone();
        let mut alone = Mrg32k3a::new([12345; 6]);
        let seq = [a.u01(), b.u01(), a.u01()];
        let own = [alone.u01(), alone.u01(), alone.u01()];
        assert_eq!(seq, own);
        assert_eq!(a.state(), alone.state());
        a.set_state([1; 6]).unwrap();
        assert_eq!(b.state(), [1; 6]);
    }

    // ---- bad input is an answer ----
    #[test]
    fn bad_starts_name_the_field() {
        let cfg = |seed, state| Ns2RngConfig { seed, state };
        assert_eq!(cfg(Some(1), None).start().unwrap(), [1; 6]);
        assert_eq!(cfg(Some(0), None).start().unwrap_err().0, "seed");
        assert_eq!(cfg(None, None).start().unwrap_err().0, "seed");
        assert_eq!(cfg(Some(1), Some([1; 6])).start().unwrap_err().0, "seed");
        assert_eq!(
            cfg(None, Some([0, 0, 0, 1, 1, 1])).start().unwrap_err().0,
            "state"
        );
        assert_eq!(
            cfg(None, Some([4_294_967_087, 1, 1, 1, 1, 1]))
                .start()
                .unwrap_err()
                .0,
            "state"
        );
    }
}
