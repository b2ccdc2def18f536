//! The report written as it is read out of a finished simulation, entry by entry, without
//! the [`Report`](super::Report) value: each flow's entry is made, written and dropped, and
//! its endpoints and delay histogram freed; then each port's queue entry (freeing its sojourn
//! histogram) and link entry. Nothing the size of the report is held beside the run's tables,
//! and with a writer (the example runner's stdout) no JSON text either, so a run's memory
//! peak is the run's own (issue #40, docs/performance.md "What a flow holds").
//!
//! The JSON is the same bytes as `serde_json` writes for [`Report::from_sim`](super::Report)
//! (the same fields in the same order, each entry made by the same function;
//! `tests/report_stream.rs` checks it), except `wall_s`, which here is the wall time
//! up to the start of the writing.

use super::{fairness, fct_report, flow_entry, link_entry, queue_entry, series_report};
use crate::sim::Simulation;
use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};
use std::cell::RefCell;

/// A finished simulation to be written out as its report (once: it is freed as it is read).
pub struct Streamed<'a> {
    sim: RefCell<&'a mut Simulation>,
    fairness_flows: Option<&'a [String]>,
    wall_s: f64,
}

impl<'a> Streamed<'a> {
    pub fn new(sim: &'a mut Simulation, fairness_flows: Option<&'a [String]>, wall_s: f64) -> Self {
        Self {
            sim: RefCell::new(sim),
            fairness_flows,
            wall_s,
        }
    }
}

/// An array whose entries are made one at a time from the simulation, each written before the
/// next is made: `flows` (each flow's run state freed after its entry) and `queues` (each
/// port's sojourn histogram freed after its entry).
struct Entries<'s, 'a, T> {
    sim: &'s RefCell<&'a mut Simulation>,
    len: usize,
    entry: fn(&mut Simulation, usize, bool) -> T,
}

impl<T: Serialize> Serialize for Entries<'_, '_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len))?;
        for i in 0..self.len {
            let entry = (self.entry)(&mut self.sim.borrow_mut(), i, true);
            seq.serialize_element(&entry)?;
        }
        seq.end()
    }
}

/// The `links` array.
struct Links<'s, 'a>(&'s RefCell<&'a mut Simulation>);

impl Serialize for Links<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let sim = self.0.borrow();
        let mut seq = s.serialize_seq(Some(sim.ports.len()))?;
        for i in 0..sim.ports.len() {
            seq.serialize_element(&link_entry(&sim, i))?;
        }
        seq.end()
    }
}

impl Serialize for Streamed<'_> {
    /// The fields of [`Report`](super::Report) in its order, with its `skip_serializing_if`
    /// rules.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (series, fct, warnings, fairness, head) = {
            let mut sim = self.sim.borrow_mut();
            assert!(!sim.reported, "a simulation is reported once");
            sim.reported = true;
            let now = sim.now;
            // what reads the endpoints and ports as a whole, before they are freed (as in
            // `Report::read`)
            let series = series_report(&sim, now);
            let fct = fct_report(&sim);
            let warnings = crate::resolved::warnings(&sim);
            let fairness = fairness(&sim, self.fairness_flows);
            let head = (
                sim.name.clone(),
                sim.seed,
                now.as_secs_f64(),
                sim.warmup.as_secs_f64(),
                sim.events,
                now < sim.end,
            );
            (series, fct, warnings, fairness, head)
        };
        let (name, seed, sim_time_s, warmup_s, events, partial) = head;
        let mut st = s.serialize_struct("Report", 17)?;
        st.serialize_field("bufferlab_version", crate::VERSION)?;
        st.serialize_field("scenario", &name)?;
        st.serialize_field("seed", &seed)?;
        st.serialize_field("sim_time_s", &sim_time_s)?;
        st.serialize_field("warmup_s", &warmup_s)?;
        st.serialize_field("events", &events)?;
        st.serialize_field("wall_s", &self.wall_s)?;
        st.serialize_field("partial", &partial)?;
        let flows = self.sim.borrow().flows.len();
        let ports = self.sim.borrow().ports.len();
        st.serialize_field(
            "flows",
            &Entries {
                sim: &self.sim,
                len: flows,
                entry: flow_entry,
            },
        )?;
        st.serialize_field(
            "queues",
            &Entries {
                sim: &self.sim,
                len: ports,
                entry: queue_entry,
            },
        )?;
        st.serialize_field("links", &Links(&self.sim))?;
        st.serialize_field("fairness", &fairness)?;
        st.serialize_field("series", &series)?;
        if fct.is_some() {
            st.serialize_field("fct", &fct)?;
        }
        if !warnings.is_empty() {
            st.serialize_field("warnings", &warnings)?;
        }
        let sim = self.sim.borrow();
        if sim.stopped.is_some() {
            st.serialize_field("stopped", &sim.stopped)?;
        }
        if !sim.shared_buffers.is_empty() {
            let now = sim.now;
            let switches: Vec<_> = sim
                .shared_buffers
                .iter()
                .map(|p| p.borrow_mut().report(now))
                .collect();
            st.serialize_field("switches", &switches)?;
        }
        st.end()
    }
}
