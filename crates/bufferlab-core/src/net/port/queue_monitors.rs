//! The queue's length as its statistics and ns-2's queue monitors follow it
//! (queue-monitor.cc `QueueMonitor`: `pkts_` and `size_` and their integrators, updated on
//! each arrival, departure and drop; `summarystats_` as `printstats` reads it). The ns-2
//! parts run only under ns-2's clock, where the session adds them.

use super::{Port, PortCx};
use crate::monitor::ns2_integrator::QueueIntegrators;

impl Port {
    /// The queue's length after a packet came, left or was dropped: the statistics' integral
    /// and, if a script monitors this queue, ns-2's integrators at the event's double. Only
    /// under ns-2's clock (the scripts' clock; [`crate::session::Session`] adds integrators
    /// to no other), so the picosecond clock's code has no branch for them.
    #[inline(always)]
    pub(super) fn note_length<const NS2: bool>(
        &mut self,
        cx: &PortCx<NS2>,
        packets: u64,
        bytes: u64,
    ) {
        self.stats.set_length(cx.now, packets, bytes);
        if NS2 && !self.stats.ns2_integrators().is_empty() {
            self.integrator_points(f64::from_bits(cx.now_key), packets, bytes);
        }
    }

    /// ns-2's queue monitors' integrators follow the monitor's `pkts_` and `size_`: the
    /// queue's length less what the link's loss models lost (`ns2_lost`).
    #[cold]
    pub(super) fn integrator_points(&mut self, x: f64, packets: u64, bytes: u64) {
        let (p, b) = self.ns2_monitor_length(packets, bytes);
        for i in self.stats.ns2_integrators() {
            i.new_point(x, p, b);
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn summary_point(&mut self, now_key: u64, packets: usize, bytes: u64) {
        if let Some(s) = self.stats.ns2_summary_mut() {
            s.update(f64::from_bits(now_key), packets as u64, bytes);
        }
    }

    /// A queue monitor's `pkts_` and `size_` (queue-monitor.cc): arrivals less departures
    /// less drops, the link's losses included.
    pub(super) fn ns2_monitor_length(&self, packets: u64, bytes: u64) -> (f64, f64) {
        (
            packets as f64 - self.ns2_lost().0 as f64,
            bytes as f64 - self.ns2_lost().1 as f64,
        )
    }

    /// The link's losses go elsewhere than its `drophead_` (`ns2_losses_monitored`).
    pub fn unmonitor_ns2_losses(&mut self) {
        self.rare_mut().ns2_losses_monitored = false;
    }

    /// What a queue monitor of ns-2's reads: (`pkts_`, `size_`, link losses in packets and
    /// bytes, which its `pdrops_` and `bdrops_` count beside the queue's drops).
    pub fn ns2_monitor(&self) -> (f64, f64, u64, u64) {
        let (p, b) = self.ns2_monitor_length(self.waiting_packets() as u64, self.waiting_bytes());
        let (lost_p, lost_b) = self.ns2_lost();
        (p, b, lost_p, lost_b)
    }

    /// Adds a queue monitor's pair of ns-2 integrators (all zero, as ns-2 makes them; they
    /// follow the queue only under ns-2's clock); its index among this port's.
    pub fn add_integrators(&mut self) -> usize {
        let all = &mut self.stats.ns2_monitors().integrators;
        all.push(QueueIntegrators::default());
        all.len() - 1
    }

    /// A queue monitor's integrators, to read or (a script's `set` and `newpoint`) to write.
    pub fn integrators_mut(&mut self, i: usize) -> Option<&mut QueueIntegrators> {
        self.stats.ns2_integrators().get_mut(i)
    }
}
