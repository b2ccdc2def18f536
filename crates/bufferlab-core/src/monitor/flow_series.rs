//! Per-flow time series (`monitor.flow_interval`): in each interval, the packets a flow sent,
//! delivered and lost, the ACKs its sender got back, and the bits per second it delivered on
//! the wire and to the application. What ns-2 studies draw from trace files with AWK (seed
//! 004's Figures 8-18: sent, received and dropped packets per source over time), recorded
//! directly. Columnar, one Vec per column; counts are per interval, not cumulative.

use super::flow_stats::FlowStats;
use crate::units::SimTime;

/// The counters a sample differences.
#[derive(Default, Clone, Copy)]
struct Totals {
    tx_packets: u64,
    rx_packets: u64,
    lost_packets: u64,
    acks: u64,
    rx_bytes: u64,
    goodput_bytes: u64,
}

impl Totals {
    fn of(s: &FlowStats) -> Totals {
        Totals {
            tx_packets: s.tx_packets,
            rx_packets: s.rx_packets,
            lost_packets: s.lost_packets,
            acks: s.reverse_rx_packets,
            rx_bytes: s.rx_bytes,
            goodput_bytes: s.goodput_bytes,
        }
    }
}

/// The series of one flow.
#[derive(Default, Clone)]
pub struct FlowSeries {
    /// Index of the flow in the simulation.
    pub flow: usize,
    last: Totals,
    /// End of each interval (s).
    pub t_s: Vec<f64>,
    pub tx_packets: Vec<u64>,
    pub rx_packets: Vec<u64>,
    pub lost_packets: Vec<u64>,
    /// Packets of the reverse direction received by the sender (TCP ACKs).
    pub acks_received: Vec<u64>,
    /// Bytes on the wire delivered, x 8 / interval.
    pub throughput_bps: Vec<f64>,
    /// Application bytes delivered, x 8 / interval.
    pub goodput_bps: Vec<f64>,
}

/// Every recorded flow and when the next sample falls.
pub struct FlowSeriesSet {
    pub interval: SimTime,
    pub next: SimTime,
    pub series: Vec<FlowSeries>,
}

impl FlowSeriesSet {
    /// Series for `flows` (indices), the first interval starting at `from`.
    pub fn new(interval: SimTime, from: SimTime, flows: impl Iterator<Item = usize>) -> Self {
        Self {
            interval,
            next: from + interval,
            series: flows
                .map(|flow| FlowSeries {
                    flow,
                    ..FlowSeries::default()
                })
                .collect(),
        }
    }

    /// When the sample closing the current interval [a, b) runs: 1 ps before b, ahead of
    /// anything due at b itself, so that a packet sent at exactly b counts in the next
    /// interval (the binning floor(t / interval) of a trace-file analysis).
    pub fn due(&self) -> SimTime {
        SimTime(self.next.0.saturating_sub(1))
    }

    /// Closes the current interval (reported at its end, `next`) for every recorded flow.
    pub fn sample<'a>(&mut self, stats: impl Fn(usize) -> &'a FlowStats) {
        let now = self.next;
        let t = now.as_secs_f64();
        let dt = self.interval.as_secs_f64();
        for s in &mut self.series {
            let cur = Totals::of(stats(s.flow));
            let d = |f: fn(&Totals) -> u64| f(&cur) - f(&s.last);
            s.t_s.push(t);
            s.tx_packets.push(d(|x| x.tx_packets));
            s.rx_packets.push(d(|x| x.rx_packets));
            s.lost_packets.push(d(|x| x.lost_packets));
            s.acks_received.push(d(|x| x.acks));
            s.throughput_bps.push(d(|x| x.rx_bytes) as f64 * 8.0 / dt);
            s.goodput_bps.push(d(|x| x.goodput_bytes) as f64 * 8.0 / dt);
            s.last = cur;
        }
        self.next = now + self.interval;
    }
}
