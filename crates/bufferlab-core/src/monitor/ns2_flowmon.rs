//! ns-2's flow monitor (`QueueMonitor/ED/Flowmon` with a `Classifier/Hash/Fid`, ns-2.35
//! `tools/flowmon.cc` and `tcl/lib/ns-lib.tcl` `makeflowmon` / `attach-fmon`), over one
//! queue: the packets that arrive at it, leave it and are dropped by it, counted in packets
//! and bytes for all of them and for each flow id (ns-2's `fid_`) apart.
//!
//! Rules, checked against `ns` itself (tests/test_ns2_flowmon.py):
//! * a flow is one `fid_` (`Classifier/Hash/Fid` hashes on it alone); its record is made when
//!   its first packet arrives, and `$fmon flows` lists them in that order;
//! * each arrival sets the flow's source, destination and packet type from the packet
//!   (`Flow::setfields`), so they are the last arrival's;
//! * arrivals count every packet handed to the queue, the ones it then drops too (the link's
//!   enqueue snoop sits in front of the queue);
//! * a drop counts in `pdrops_`/`bdrops_`; with `attach-fmon ... 1` RED's unforced drops go
//!   through the queue's early-drop target (`SnoopQueue/EDrop`), which counts them in
//!   `epdrops_`/`ebdrops_` as well (`EDQueueMonitor::edrop` calls `QueueMonitor::drop`);
//!   without it they are plain drops;
//! * a departure with the CE mark counts in `pmarks_` (queue-monitor.cc `QueueMonitor::out`);
//! * `reset` zeroes the counters (the monitor's or one flow's), the flows stay.

use crate::drop_reason::DropReason;
use crate::packet::Packet;

/// One set of counters (`QueueMonitor` and `EDQueueMonitor`'s variables).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowCounts {
    pub parrivals: u64,
    pub barrivals: u64,
    pub pdepartures: u64,
    pub bdepartures: u64,
    pub pdrops: u64,
    pub bdrops: u64,
    pub epdrops: u64,
    pub ebdrops: u64,
    /// Departures carrying the CE mark (`QueueMonitor::out`: `ce() && ect()`).
    pub pmarks: u64,
}

impl FlowCounts {
    /// The counters in the order [`FlowCounts::NAMES`] gives.
    pub fn as_array(&self) -> [u64; 9] {
        [
            self.parrivals,
            self.barrivals,
            self.pdepartures,
            self.bdepartures,
            self.pdrops,
            self.bdrops,
            self.epdrops,
            self.ebdrops,
            self.pmarks,
        ]
    }

    /// ns-2's names of the counters, in [`FlowCounts::as_array`]'s order.
    pub const NAMES: [&'static str; 9] = [
        "parrivals_",
        "barrivals_",
        "pdepartures_",
        "bdepartures_",
        "pdrops_",
        "bdrops_",
        "epdrops_",
        "ebdrops_",
        "pmarks_",
    ];
}

/// One flow's record (`QueueMonitor/ED/Flow`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowRecord {
    pub fid: u32,
    /// The last arrival's source and destination node ids, and whether it was an ACK.
    pub src: u32,
    pub dst: u32,
    /// The index of the engine's flow the last arrival belonged to.
    pub flow: usize,
    pub ack: bool,
    pub counts: FlowCounts,
}

/// A flow monitor over one queue.
#[derive(Clone, Debug, Default)]
pub struct Ns2FlowMonitor {
    /// ns-2's `fid_` of each engine flow (by flow index).
    fids: Vec<u32>,
    /// RED's unforced drops are counted as early drops (`attach-fmon $link $fm 1`).
    early_drops: bool,
    pub total: FlowCounts,
    pub flows: Vec<FlowRecord>,
}

impl Ns2FlowMonitor {
    pub fn new(fids: Vec<u32>, early_drops: bool) -> Self {
        Self {
            fids,
            early_drops,
            ..Self::default()
        }
    }

    fn record(&mut self, pkt: &Packet) -> &mut FlowRecord {
        let fid = self.fids.get(pkt.flow.idx()).copied().unwrap_or(0);
        let i = match self.flows.iter().position(|f| f.fid == fid) {
            Some(i) => i,
            None => {
                self.flows.push(FlowRecord {
                    fid,
                    src: pkt.src.0,
                    dst: pkt.dst.0,
                    flow: pkt.flow.idx(),
                    ack: false,
                    counts: FlowCounts::default(),
                });
                self.flows.len() - 1
            }
        };
        &mut self.flows[i]
    }

    /// A packet handed to the queue (`FlowMon::in`).
    pub fn arrival(&mut self, pkt: &Packet) {
        let size = u64::from(pkt.size);
        self.total.parrivals += 1;
        self.total.barrivals += size;
        let f = self.record(pkt);
        f.src = pkt.src.0;
        f.dst = pkt.dst.0;
        f.flow = pkt.flow.idx();
        f.ack = matches!(pkt.kind, crate::packet::PacketKind::TcpAck);
        f.counts.parrivals += 1;
        f.counts.barrivals += size;
    }

    /// A packet leaving the queue for the link (`FlowMon::out`; `QueueMonitor::out` counts
    /// it in `pmarks_` too when it carries the CE mark, which only an ECN-capable packet
    /// gets).
    pub fn departure(&mut self, pkt: &Packet) {
        let size = u64::from(pkt.size);
        let mark = u64::from(pkt.ecn == crate::packet::Ecn::Ce);
        self.total.pdepartures += 1;
        self.total.bdepartures += size;
        self.total.pmarks += mark;
        let f = self.record(pkt);
        f.counts.pdepartures += 1;
        f.counts.bdepartures += size;
        f.counts.pmarks += mark;
    }

    /// A packet the queue dropped (`FlowMon::drop`, or `FlowMon::edrop` for an early one).
    pub fn drop(&mut self, pkt: &Packet, reason: DropReason) {
        let size = u64::from(pkt.size);
        let early = self.early_drops && reason == DropReason::RedEarly;
        count_drop(&mut self.total, size, early);
        let f = self.record(pkt);
        count_drop(&mut f.counts, size, early);
    }

    /// `$fmon reset` (None) or `$flow reset` (Some(fid)).
    pub fn reset(&mut self, fid: Option<u32>) {
        match fid {
            None => self.total = FlowCounts::default(),
            Some(fid) => {
                for f in self.flows.iter_mut().filter(|f| f.fid == fid) {
                    f.counts = FlowCounts::default();
                }
            }
        }
    }
}

fn count_drop(c: &mut FlowCounts, size: u64, early: bool) {
    c.pdrops += 1;
    c.bdrops += size;
    if early {
        c.epdrops += 1;
        c.ebdrops += size;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;

    /// queue-monitor.cc `QueueMonitor::out`: a departure carrying the CE mark counts in
    /// `pmarks_`, the monitor's and its flow's; an unmarked one does not.
    #[test]
    fn marked_departures_count_in_pmarks() {
        let mut m = Ns2FlowMonitor::new(vec![7], false);
        let plain = Packet {
            size: 1040,
            ecn: Ecn::Ect0,
            ..Packet::default()
        };
        let marked = Packet {
            ecn: Ecn::Ce,
            ..plain
        };
        for p in [&plain, &marked, &marked] {
            m.arrival(p);
            m.departure(p);
        }
        assert_eq!((m.total.pmarks, m.total.pdepartures), (2, 3));
        assert_eq!(m.flows[0].fid, 7);
        assert_eq!(m.flows[0].counts.pmarks, 2);
        assert_eq!(FlowCounts::NAMES[8], "pmarks_");
    }
}
