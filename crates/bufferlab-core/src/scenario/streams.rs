//! The run's random streams: each component its own stream, labelled, from the root seed
//! (`rng.rs`), or, in a scenario that follows ns-2's default RNG (`ns2_default_rng`), the one
//! stream ns-2's `Random::uniform()` draws from for the components ns-2 makes draw there
//! (`ns2_rng.rs`).

use super::config::Scenario;
use super::ScenarioError;
use crate::ns2_rng::Ns2DefaultRng;
use crate::rng;

/// Where a component's random numbers come from.
pub(super) struct Streams {
    pub(super) seed: u64,
    /// ns-2's default RNG, when the scenario follows it.
    pub(super) ns2: Option<Ns2DefaultRng>,
}

impl Streams {
    /// The streams of a run of `s` with root seed `seed`, `ns2_default_rng` checked.
    pub(super) fn new(s: &Scenario, seed: u64) -> Result<Self, ScenarioError> {
        let ns2 = match &s.ns2_default_rng {
            Some(c) => {
                let start = c.start().map_err(|(field, msg)| {
                    ScenarioError::field(format!("ns2_default_rng.{field}"), msg)
                })?;
                // a run with another seed than the scenario's (`--seed`, a sweep's replications)
                // starts where `$defaultRNG seed N` would, N from that seed: replications differ,
                // as ns-2 runs with other seeds do
                Some(Ns2DefaultRng::new(if seed == s.seed {
                    start
                } else {
                    [1 + seed % 2_147_483_646; 6]
                }))
            }
            None => None,
        };
        Ok(Self { seed, ns2 })
    }

    /// The components ns-2 makes draw from its default RNG (`shared`) take that one stream,
    /// the others (and every component of a run without it) their own, named `label`.
    pub(super) fn get(&self, shared: bool, label: &str) -> rng::Rng {
        match &self.ns2 {
            Some(d) if shared => rng::Rng::Ns2Default(d.clone()),
            _ => rng::stream(self.seed, label),
        }
    }

    /// [`Streams::get`] made when first drawn from ([`rng::LazyRng`]): an own stream waits as
    /// its seed; ns-2's shared stream is made now (it is one handle, drawn in ns-2's order).
    pub(super) fn get_lazy(&self, shared: bool, label: &str) -> rng::LazyRng {
        match &self.ns2 {
            Some(_) if shared => self.get(shared, label).into(),
            _ => rng::lazy_stream(self.seed, label),
        }
    }
}
