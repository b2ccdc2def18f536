//! A [`Session`]'s ns-2 flow monitors (`$ns makeflowmon Fid` + `$ns attach-fmon`,
//! monitor/ns2_flowmon.rs): made on a queue while the run goes on, read and reset by the
//! script's procs.

use super::Session;
use crate::monitor::ns2_flowmon::Ns2FlowMonitor;

impl Session {
    /// A flow monitor on the queue of direction `from` -> `to` of `link` (node names), from
    /// now on; `early_drops`: RED's unforced drops also count as early drops (`attach-fmon
    /// $link $fm 1`). Its id (port index, slot at that port), or None if there is no such
    /// queue.
    pub fn add_flow_monitor(
        &mut self,
        link: &str,
        from: &str,
        to: &str,
        early_drops: bool,
    ) -> Option<(usize, usize)> {
        let port = self.port_index(link, from, to)?;
        let fids = self.sim.flows.iter().map(|f| f.trace_fid).collect();
        let all = &mut self.sim.ports[port].stats_mut().ns2_monitors().flowmons;
        all.push(Ns2FlowMonitor::new(fids, early_drops));
        Some((port, all.len() - 1))
    }

    /// Flow monitor `id` (from [`Session::add_flow_monitor`]), to read or reset.
    pub fn flow_monitor(&mut self, id: (usize, usize)) -> Option<&mut Ns2FlowMonitor> {
        let port = self.sim.ports.get_mut(id.0)?;
        port.stats_mut().ns2_flowmons().get_mut(id.1)
    }

    /// The name and ns-2 packet type name of engine flow `i` (`ack` for its ACKs).
    pub fn flow_type(&self, i: usize, ack: bool) -> Option<(&str, &'static str)> {
        let f = self.sim.flows.get(i)?;
        Some((&f.name, if ack { "ack" } else { f.trace_type }))
    }
}
