//! The observers a port reports its packets to, besides its own statistics: the ns-2 trace
//! (`+` enqueue, `-` start of transmission, `r` arrival at the far node, `d` drop) and pcap
//! capture (a record when a transmission starts). Both are off unless asked for, and then cost
//! one branch each per event: no dynamic dispatch, no allocation.

use super::ns2_trace::{Ns2Trace, TraceEvent};
use super::pcap::PcapSet;
use crate::packet::Packet;
use crate::units::SimTime;

/// Where one port sits, as the taps name it: its index and its link's two node numbers.
#[derive(Copy, Clone, Debug)]
pub struct TapPort {
    pub index: usize,
    pub from: u32,
    pub to: u32,
}

#[derive(Default)]
pub struct Taps {
    /// An ns-2 trace file being written, if asked for.
    pub ns2_trace: Option<Ns2Trace>,
    /// pcap files being written, if asked for.
    pub pcap: Option<PcapSet>,
    /// Some sender records ns-2's event trace lines (`$ns eventtrace-all`), which go into
    /// the ns-2 trace (`Simulation::record_ns2_events`).
    pub ns2_events: bool,
}

impl Taps {
    /// Writes one trace line if a trace is open and wants this event (one branch when off).
    #[inline]
    pub fn trace(&mut self, ev: TraceEvent, now: SimTime, port: TapPort, pkt: &Packet) {
        if let Some(t) = &mut self.ns2_trace {
            if t.wants(ev, port.index, pkt) {
                t.record(ev, now, port.from, port.to, pkt);
            }
        }
    }

    /// A random loss: `d`, or `e` where an EDrop trace was asked for (ns-2's `create-trace
    /// EDrop`, which an error model's drop target writes to).
    #[inline]
    pub fn trace_loss(&mut self, now: SimTime, port: TapPort, pkt: &Packet) {
        if let Some(t) = &mut self.ns2_trace {
            let ev = t.loss_event(port.index);
            if t.wants(ev, port.index, pkt) {
                t.record(ev, now, port.from, port.to, pkt);
            }
        }
    }

    /// Captures a packet starting on the wire if its port is captured (one branch when off).
    #[inline]
    pub fn capture(&mut self, now: SimTime, port: TapPort, pkt: &Packet) {
        if let Some(pc) = &mut self.pcap {
            if pc.wants(port.index) {
                pc.record(port.index, now, pkt);
            }
        }
    }

    /// Flushes and closes the trace and capture files.
    pub fn close(&mut self) -> Result<(), String> {
        if let Some(mut t) = self.ns2_trace.take() {
            t.finish().map_err(|e| format!("ns-2 trace: {e}"))?;
        }
        if let Some(mut p) = self.pcap.take() {
            p.finish().map_err(|e| format!("pcap: {e}"))?;
        }
        Ok(())
    }
}
