//! A [`Session`]'s changes to flows' applications while the run goes on, beyond their
//! start and stop (`Session::retime_flow`): a CBR source's rate and packet size (ns-2's
//! `$cbr set interval_`, tools/cbr_traffic.cc), a Telnet's mean gap (`$telnet set
//! interval_`, apps/telnet.cc), and a start the scenario gave that ns-2 runs
//! before a script's event of the same instant (common/scheduler.cc: events of one time in
//! the order they were scheduled).

use super::Session;
use crate::api::Error;

impl Session {
    /// Sets flow `flow`'s CBR source's `rate_` (bit/s) and `packetSize_` (bytes) while the
    /// run goes on (an ns-2 script's `$cbr set interval_ 0.002`, which ns-lib's
    /// `Application/Traffic/CBR instproc set` makes `rate_`, or `$cbr set rate_` /
    /// `packetSize_`). As in cbr_traffic.cc, the packet already scheduled keeps its time (the
    /// timer is not touched) and goes out with the new size, and the gap after it is
    /// `packetSize_ x 8 / rate_` (`next_interval`). Err for a flow whose source is no CBR or
    /// a rate that is not positive.
    pub fn set_cbr_rate_flow(&mut self, flow: &str, rate_bps: f64, size: u32) -> Result<(), Error> {
        let i = self.flow_index(flow)?;
        if !(rate_bps.is_finite() && rate_bps > 0.0) || size == 0 {
            return Err(Error::Scenario(format!(
                "flow {flow}: a CBR rate_ above 0 and a packetSize_ of a byte or more, got \
                 {rate_bps} bit/s and {size} B"
            )));
        }
        let sender = self.sim.flows[i].sender;
        self.sim.agents[sender.idx()]
            .ep
            .set_cbr_rate(rate_bps, size)
            .map_err(|e| Error::Scenario(format!("flow {flow}: {e}")))
    }

    /// Sets flow `flow`'s ns-2 Telnet's `interval_` (seconds) while the run goes on (`$telnet
    /// set interval_ 0.001`): telnet.cc reads it at each draw, so the packet already
    /// scheduled keeps its time and the gap drawn after it has the new mean. Err for a flow
    /// whose application is no Telnet or an interval that is not above 0.
    pub fn set_telnet_interval_flow(&mut self, flow: &str, interval_s: f64) -> Result<(), Error> {
        let i = self.flow_index(flow)?;
        if !(interval_s.is_finite() && interval_s > 0.0) {
            return Err(Error::Scenario(format!(
                "flow {flow}: a Telnet interval_ above 0 seconds, got {interval_s}"
            )));
        }
        let sender = self.sim.flows[i].sender;
        self.sim.agents[sender.idx()]
            .ep
            .set_telnet_interval(interval_s)
            .map_err(|e| Error::Scenario(format!("flow {flow}: {e}")))
    }

    /// Runs flow `flow`'s start now if the scenario gave it this instant and it has not run
    /// yet: its first packets leave now. ns-2's scheduler (common/scheduler.cc
    /// `Scheduler::schedule` numbers each event, `CalendarScheduler::insert` puts an event
    /// after those of the same time already queued) runs the events of one instant in the
    /// order they were scheduled, so `$ns at 0 "$ftp1 start"` written before `$ns at 0
    /// "$ftp2 producemore 300"` sends ftp1's first packet first; the engine runs the starts
    /// the scenario gives after the script's events of their instant unless the script
    /// layer calls this first (python/bufferlab/ns2/runner.py). A flow already started, or
    /// not starting now, is left alone.
    pub fn start_due(&mut self, flow: &str) -> Result<(), Error> {
        let i = self.flow_index(flow)?;
        if self.sim.flows[i].start == self.sim.now {
            let sender = self.sim.flows[i].sender;
            self.sim.endpoint_due_now(sender);
        }
        Ok(())
    }
}
