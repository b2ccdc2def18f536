//! A [`Session`]'s ns-2 summary statistics of queues (`summarystats_ true`, read by
//! `$queue printstats`; monitor/ns2_summary.rs).

use super::Session;
use crate::clock::EventClock;
use crate::monitor::ns2_summary::Ns2Summary;

impl Session {
    /// Keeps ns-2's summary statistics of the queue of direction `from` -> `to` of `link`
    /// from now on (`summarystats_ true`, monitor/ns2_summary.rs); false if there is no such
    /// queue or the scenario is not on ns-2's clock.
    pub fn keep_queue_summary(&mut self, link: &str, from: &str, to: &str) -> bool {
        if self.sim.clock != EventClock::Ns2 {
            return false;
        }
        let Some(port) = self.port_index(link, from, to) else {
            return false;
        };
        let stats = self.sim.ports[port].stats_mut();
        stats
            .ns2_monitors()
            .summary
            .get_or_insert_with(Default::default);
        true
    }

    /// ns-2's summary statistics of that queue now (`printstats`), if kept.
    pub fn queue_summary(&self, link: &str, from: &str, to: &str) -> Option<Ns2Summary> {
        let port = self.port_index(link, from, to)?;
        self.sim.ports[port].stats().ns2_summary().copied()
    }
}
