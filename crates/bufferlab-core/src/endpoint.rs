//! Transport endpoints as sans-IO state machines. The simulation calls `on_packet` when a
//! packet reaches the endpoint and `on_timeout` when the endpoint's own deadline
//! (`next_timeout`) has come; the endpoint answers by sending packets through the context.
//! It never sees the event queue, so endpoints (UDP today, TCP next) are unit-testable alone.

use crate::ids::{FlowId, NodeId};
use crate::monitor::flow_stats::FlowStats;
use crate::packet::Packet;
use crate::units::SimTime;

/// What an endpoint may touch while it runs.
pub struct EndpointCtx<'a> {
    pub now: SimTime,
    /// The same time in seconds as the event clock holds it: ns-2's double under
    /// `clock = "ns2"` (`clock.rs`), which models that count in ns-2's doubles read.
    pub now_s: f64,
    /// Statistics of the endpoint's flow (the receiver adds goodput here).
    pub stats: &'a mut FlowStats,
    pub(crate) out: &'a mut Vec<Packet>,
    pub(crate) warmup: SimTime,
    pub(crate) flow: FlowId,
    pub(crate) from: NodeId,
    pub(crate) to: NodeId,
    pub(crate) class: u8,
    pub(crate) reverse: bool,
}

impl<'a> EndpointCtx<'a> {
    /// Sends `pkt` towards the other end of the flow. The context fills in addressing, the
    /// creation time and the flow; the endpoint sets kind, size, payload and headers.
    #[inline]
    pub fn send(&mut self, mut pkt: Packet) {
        pkt.flow = self.flow;
        pkt.src = self.from;
        pkt.dst = self.to;
        pkt.class = self.class;
        pkt.reverse = self.reverse;
        pkt.created = self.now;
        pkt.in_warmup = self.now < self.warmup;
        self.out.push(pkt);
    }

    /// True once the warm-up is over (statistics count from then on).
    pub fn measuring(&self) -> bool {
        self.now >= self.warmup
    }
}

/// One line of ns-2's event trace of a TCP agent (`$ns eventtrace-all`; tcp.cc
/// `TcpAgent::trace_event`): when, the event's name, `t_seqno_` and `int(cwnd_)` then.
pub use crate::monitor::ns2_trace::TcpEventLine as Ns2TcpEvent;

/// A transport endpoint.
pub trait Endpoint {
    fn on_packet(&mut self, pkt: Packet, cx: &mut EndpointCtx);
    fn on_timeout(&mut self, cx: &mut EndpointCtx);
    /// The next time `on_timeout` must run, if any.
    fn next_timeout(&self) -> Option<SimTime>;
    /// The same deadline in ns-2's double seconds, where the endpoint adds its times up as
    /// ns-2's scheduler does (a CBR source with `clock = "ns2"`); the engine keys the timer
    /// with it under `EventClock::Ns2` (`clock.rs`). None: keyed at now + the delay.
    fn next_timeout_s(&self) -> Option<f64> {
        None
    }
    /// Protocol-specific results (the `tcp` section of a flow), if any.
    fn report(&self) -> Option<serde_json::Value> {
        None
    }
    /// A finite transfer's size, wire format and the time its last byte was acknowledged
    /// (`monitor/fct.rs`), if the endpoint is the sender of one.
    fn finite_transfer(&self) -> Option<crate::monitor::fct::FiniteTransfer> {
        None
    }
    /// The settings it runs with, every preset default resolved (TCP's), if any.
    fn settings(&self) -> Option<serde_json::Value> {
        None
    }
    /// Time series recorded by the endpoint (TCP cwnd/RTT), completed up to `end`, if any.
    fn series(&self, _end: SimTime) -> Option<serde_json::Value> {
        None
    }
    /// A state variable by its ns-2 name (`cwnd_`, `ack_`, ...; `session.rs`), if it has it.
    fn probe(&self, _var: &str) -> Option<f64> {
        None
    }
    /// Starts recording ns-2's event trace lines (an ns-2 TCP sender's; `sim.rs` writes
    /// them into the ns-2 trace): false if this endpoint writes none.
    fn record_ns2_events(&mut self) -> bool {
        false
    }
    /// The event trace lines recorded since the last call, in order.
    fn take_ns2_events(&mut self) -> Vec<Ns2TcpEvent> {
        Vec::new()
    }
    /// Grows its buffers to the size a lossy run reaches, so that later packets do not
    /// allocate (`Simulation::reserve_packet_room`; `tests/no_allocation.rs`): results do
    /// not change. Buffers otherwise start empty and grow as needed (memory at scale).
    fn reserve_room(&mut self) {}
    /// [`probe`](Endpoint::probe) at time `now`, for a variable a timer would have changed
    /// by then without an event of the endpoint's own (ns-2's idle timeout of `cwnd_`).
    fn probe_at(&self, var: &str, _now: SimTime) -> Option<f64> {
        self.probe(var)
    }
    /// Moves a sender's application start and/or stop while the run goes on (an ns-2
    /// script's `$ftp start` / `$ftp stop` run by a proc; `session.rs`). `from` is the start
    /// it was built with, `now` the time now; a start of `SimTime::MAX` holds the application
    /// until a later start. Err says what this endpoint cannot move.
    fn retime(
        &mut self,
        _now: SimTime,
        _from: SimTime,
        _start: Option<SimTime>,
        _stop: Option<SimTime>,
    ) -> Result<(), String> {
        Err("its start and stop are fixed".into())
    }

    /// Sets how much data a sender's application has written in all, in full segments
    /// (ns-2's `curseq_` of a one-way agent: `$ftp send`, `produce`, `producemore`,
    /// `$tcp advance` / `advanceby` run by a script; `session.rs`). A held sender starts now;
    /// an idle one sends the new data now. Returns whether it started the connection; Err
    /// says this endpoint's data is not the script's to set.
    fn set_data(&mut self, _now: SimTime, _segments: u64) -> Result<bool, String> {
        Err("its data is its application's".into())
    }

    /// ns-2's `$agent reset` while the run goes on (`session.rs`): the endpoint goes back to
    /// the state it started in and drops the packets of its previous incarnation (sent
    /// before now). `phase`: a TCP sender's new tick-clock phase (`boot_time_`, drawn by
    /// the reset). Err says this endpoint cannot be reset.
    fn reset(&mut self, _now: SimTime, _phase: Option<SimTime>) -> Result<(), String> {
        Err("resetting it is not modelled".into())
    }

    /// A CBR source's `rate_` (bit/s) and `packetSize_` set by a script while the run goes
    /// on (ns-2's `$cbr set interval_` / `rate_` / `packetSize_`; `session.rs`): the packet
    /// already scheduled keeps its time and goes out with the new size, the gap after it is
    /// the new one (`traffic::Generator::set_cbr_rate`). Err says this sender's application
    /// has no such variables.
    fn set_cbr_rate(&mut self, _rate_bps: f64, _size: u32) -> Result<(), String> {
        Err("its application is not a CBR source".into())
    }

    /// An ns-2 Telnet's `interval_` (seconds) set by a script while the run goes on: the gap
    /// drawn after the pending packet uses it (`traffic::Generator::set_telnet_interval`).
    /// Err says this sender's application is no Telnet.
    fn set_telnet_interval(&mut self, _interval_s: f64) -> Result<(), String> {
        Err("its application is not an ns-2 Telnet".into())
    }
}
