//! Shared queue accounting, identical for every discipline: arrivals, departures, drops by
//! reason, ECN marks, exact time-average occupancy (an integral of the length over time, as
//! ns-2's QueueMonitor computes it), maxima, and sojourn times (enqueue to dequeue).
//! The packet on the wire is not counted as queued (as in ns-2's QueueMonitor and ns-3's
//! QueueDisc statistics). Counting starts at the scenario's warm-up time.

use crate::drop_reason::DropReason;
use crate::monitor::histogram::Histogram;
use crate::monitor::ns2_flowmon::Ns2FlowMonitor;
use crate::monitor::ns2_integrator::QueueIntegrators;
use crate::monitor::ns2_summary::Ns2Summary;
use crate::units::SimTime;

pub struct QueueStats {
    start: SimTime,
    pub arrivals: u64,
    pub arrival_bytes: u64,
    pub departures: u64,
    pub departure_bytes: u64,
    /// What few queues have, made when first needed: drops by reason ([`QueueStats::drops`];
    /// most queues of a large run, the access links, drop nothing, and the 17 counters were
    /// 136 bytes a port) and ns-2's monitors (usually none).
    rare: Option<Box<RareStats>>,
    pub drop_bytes: u64,
    pub marks: u64,
    area_packets: u128,
    area_bytes: u128,
    last_change: SimTime,
    cur_packets: u64,
    cur_bytes: u64,
    pub max_packets: u64,
    pub max_bytes: u64,
    sojourn_ns: Histogram,
    /// Departures that never waited, not yet added to `sojourn_ns` (most packets on a lightly
    /// loaded link: counting them is cheaper than a histogram update each).
    zero_sojourns: u64,
    sojourn_sum_ps: u128,
}

/// A queue's drop counters and ns-2 monitors, in one box made at the first drop or the first
/// monitor: one pointer a port, not 136 + 80 bytes (docs/performance.md, "What a flow
/// holds").
#[derive(Default)]
struct RareStats {
    drops: [u64; DropReason::COUNT],
    ns2: Ns2Monitors,
}

/// ns-2's monitors over one queue, made when a script asks for the first of them.
#[derive(Default)]
pub struct Ns2Monitors {
    /// Queue monitors' integrators (`$ns monitor-queue`, for the scripts that read or reset
    /// them during the run). The port brings them up to date (`Port::note_length`), under
    /// ns-2's clock.
    pub integrators: Vec<QueueIntegrators>,
    /// Flow monitors (`$ns attach-fmon`), told of each arrival, departure and drop by the
    /// port.
    pub flowmons: Vec<Ns2FlowMonitor>,
    /// Summary statistics (`summarystats_ true`, for `printstats`), brought up to date by
    /// the port under ns-2's clock.
    pub summary: Option<Ns2Summary>,
}

impl QueueStats {
    /// ns-2's monitors over this queue, made empty if there were none.
    pub fn ns2_monitors(&mut self) -> &mut Ns2Monitors {
        &mut self.rare.get_or_insert_with(Default::default).ns2
    }

    /// ns-2's flow monitors over this queue (usually none).
    #[inline(always)]
    pub fn ns2_flowmons(&mut self) -> &mut [Ns2FlowMonitor] {
        match &mut self.rare {
            Some(r) => &mut r.ns2.flowmons,
            None => &mut [],
        }
    }

    /// ns-2 queue monitors' integrators over this queue (usually none).
    #[inline(always)]
    pub fn ns2_integrators(&mut self) -> &mut [QueueIntegrators] {
        match &mut self.rare {
            Some(r) => &mut r.ns2.integrators,
            None => &mut [],
        }
    }

    /// ns-2's summary statistics of this queue, if kept.
    #[inline(always)]
    pub fn ns2_summary(&self) -> Option<&Ns2Summary> {
        self.rare.as_ref()?.ns2.summary.as_ref()
    }

    /// The same, to bring up to date.
    #[inline(always)]
    pub fn ns2_summary_mut(&mut self) -> Option<&mut Ns2Summary> {
        self.rare.as_mut()?.ns2.summary.as_mut()
    }

    pub fn new(start: SimTime) -> Self {
        Self {
            start,
            arrivals: 0,
            arrival_bytes: 0,
            departures: 0,
            departure_bytes: 0,
            rare: None,
            drop_bytes: 0,
            marks: 0,
            area_packets: 0,
            area_bytes: 0,
            last_change: start,
            cur_packets: 0,
            cur_bytes: 0,
            max_packets: 0,
            max_bytes: 0,
            sojourn_ns: super::new_histogram(),
            zero_sojourns: 0,
            sojourn_sum_ps: 0,
        }
    }

    #[inline]
    fn counting(&self, now: SimTime) -> bool {
        now >= self.start
    }

    /// Records that the waiting queue now holds `packets` / `bytes` (call after every change).
    #[inline]
    pub fn set_length(&mut self, now: SimTime, packets: u64, bytes: u64) {
        if now > self.last_change {
            let dt = (now - self.last_change).0 as u128;
            self.area_packets += self.cur_packets as u128 * dt;
            self.area_bytes += self.cur_bytes as u128 * dt;
            self.last_change = now;
        }
        self.cur_packets = packets;
        self.cur_bytes = bytes;
        if self.counting(now) {
            self.max_packets = self.max_packets.max(packets);
            self.max_bytes = self.max_bytes.max(bytes);
        }
    }

    #[inline]
    pub fn on_arrival(&mut self, now: SimTime, size: u32) {
        if self.counting(now) {
            self.arrivals += 1;
            self.arrival_bytes += size as u64;
        }
    }

    #[inline]
    pub fn on_departure(&mut self, now: SimTime, size: u32, enqueued: SimTime) {
        if self.counting(now) {
            self.departures += 1;
            self.departure_bytes += size as u64;
            let sojourn = now.saturating_sub(enqueued);
            if sojourn == SimTime::ZERO {
                self.zero_sojourns += 1;
            } else {
                self.sojourn_sum_ps += sojourn.0 as u128;
                self.sojourn_ns.record(sojourn.as_nanos());
            }
        }
    }

    #[inline]
    pub fn on_drop(&mut self, now: SimTime, size: u32, reason: DropReason) {
        if self.counting(now) {
            self.count_drop(reason);
            self.drop_bytes += size as u64;
        }
    }

    pub fn on_marks(&mut self, now: SimTime, n: u64) {
        if self.counting(now) {
            self.marks += n;
        }
    }

    /// One more drop for `reason`; the counters are made at the first (once, outside the
    /// steady state of a run: `tests/no_allocation.rs` counts the packet path's allocations
    /// after the first drops of its cases).
    #[inline]
    fn count_drop(&mut self, reason: DropReason) {
        match self.rare.as_mut() {
            Some(r) => r.drops[reason.index()] += 1,
            None => self.first_drop(reason),
        }
    }

    #[cold]
    #[inline(never)]
    fn first_drop(&mut self, reason: DropReason) {
        let mut r = Box::<RareStats>::default();
        r.drops[reason.index()] = 1;
        self.rare = Some(r);
    }

    /// The drops for `reason` counted so far.
    #[inline]
    pub fn drops(&self, reason: DropReason) -> u64 {
        self.rare.as_ref().map_or(0, |r| r.drops[reason.index()])
    }

    pub fn total_drops(&self) -> u64 {
        self.rare.as_ref().map_or(0, |r| r.drops.iter().sum())
    }

    /// Closes the integral at `end` and returns (mean packets, mean bytes) over [start, end].
    pub fn averages(&mut self, end: SimTime) -> (f64, f64) {
        let (p, b) = (self.cur_packets, self.cur_bytes);
        self.set_length(end, p, b);
        let span = end.saturating_sub(self.start).0 as f64;
        if span <= 0.0 {
            return (0.0, 0.0);
        }
        (
            self.area_packets as f64 / span,
            self.area_bytes as f64 / span,
        )
    }

    /// The integrals of the waiting queue's length up to its last change, in packet-seconds
    /// and byte-seconds: ns-2's QueueMonitor integrators' `sum_` (tools/integrator.cc
    /// `newPoint` adds the piece before each change, so `sum_` stops at the last one).
    pub fn integrals_to_last_change(&self) -> (f64, f64) {
        (
            self.area_packets as f64 / 1e12,
            self.area_bytes as f64 / 1e12,
        )
    }

    pub fn sojourn_mean_s(&self) -> Option<f64> {
        (self.departures > 0).then(|| self.sojourn_sum_ps as f64 / self.departures as f64 / 1e12)
    }

    /// Adds the departures that never waited to the histogram (before reading it).
    fn settle_sojourns(&mut self) {
        while self.zero_sojourns > 0 {
            let n = self.zero_sojourns.min(u32::MAX as u64);
            self.sojourn_ns.record_n(0, n as u32);
            self.zero_sojourns -= n;
        }
    }

    /// Sizes the (still empty) sojourn histogram for sojourns up to `max`, so that recording
    /// them never allocates (see [`super::new_histogram_up_to`]).
    pub fn reserve_sojourns(&mut self, max: SimTime) {
        if self.departures == 0 {
            self.sojourn_ns = super::new_histogram_up_to(max.as_nanos());
        }
    }

    /// Frees the sojourn histogram once the report has read it (`Report::from_sim`, which
    /// reads a simulation once), so that it does not add to the report's memory at the peak.
    pub fn release_sojourns(&mut self) {
        self.sojourn_ns = Histogram::default();
    }

    pub fn sojourn_quantile_s(&mut self, q: f64) -> Option<f64> {
        self.settle_sojourns();
        (self.departures > 0).then(|| self.sojourn_ns.value_at_quantile(q) as f64 / 1e9)
    }

    pub fn sojourn_max_s(&mut self) -> Option<f64> {
        self.settle_sojourns();
        (self.departures > 0).then(|| self.sojourn_ns.max() as f64 / 1e9)
    }

    /// The counters of one class of a class-based queue, over [start, `end`] (the class's
    /// own `QueueStats`, fed by its discipline): what `queues[].classes[]` reports beside the
    /// class's name and settings. Reads without changing anything (a report at a time `t` of a
    /// run that goes on, `Session::report_now`).
    pub fn class_json(&self, end: SimTime) -> serde_json::Map<String, serde_json::Value> {
        let mut me = Self {
            sojourn_ns: self.sojourn_ns.clone(),
            rare: self.rare.as_ref().map(|r| {
                Box::new(RareStats {
                    drops: r.drops,
                    ns2: Ns2Monitors::default(),
                })
            }),
            ..*self
        };
        let (avg_p, avg_b) = me.averages(end.max(self.start));
        let by_reason: serde_json::Map<String, serde_json::Value> = DropReason::ALL
            .iter()
            .filter(|&&r| me.drops(r) > 0)
            .map(|&r| (r.as_str().to_string(), me.drops(r).into()))
            .collect();
        let v = serde_json::json!({
            "arrivals": me.arrivals,
            "arrival_bytes": me.arrival_bytes,
            "departures": me.departures,
            "departure_bytes": me.departure_bytes,
            "drops": me.total_drops(),
            "drops_by_reason": by_reason,
            "marks": me.marks,
            "avg_packets": avg_p,
            "avg_bytes": avg_b,
            "max_packets": me.max_packets,
            "max_bytes": me.max_bytes,
            "sojourn_mean_s": me.sojourn_mean_s(),
            "sojourn_p50_s": me.sojourn_quantile_s(0.5),
            "sojourn_p99_s": me.sojourn_quantile_s(0.99),
            "sojourn_max_s": me.sojourn_max_s(),
        });
        match v {
            serde_json::Value::Object(m) => m,
            _ => unreachable!("a JSON object"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- the time average is an exact integral ----
    #[test]
    fn time_average_integrates_length_over_time() {
        let mut s = QueueStats::new(SimTime(0));
        s.set_length(SimTime(0), 2, 2000);
        s.set_length(SimTime(10), 4, 4000);
        // 2 for 10 ps, 4 for 30 ps -> (20 + 120) / 40 = 3.5
        // ns-2's integrator: up to the last change only (2 for 10 ps)
        let (ip, ib) = s.integrals_to_last_change();
        assert!((ip - 20e-12).abs() < 1e-20 && (ib - 20e-9).abs() < 1e-17);
        let (p, b) = s.averages(SimTime(40));
        assert!((p - 3.5).abs() < 1e-12);
        assert!((b - 3500.0).abs() < 1e-9);
        assert_eq!(s.max_packets, 4);
    }

    // ---- nothing before the warm-up counts ----
    #[test]
    fn warmup_excludes_early_events() {
        let mut s = QueueStats::new(SimTime(100));
        s.on_arrival(SimTime(50), 1000);
        s.on_drop(SimTime(50), 1000, DropReason::QueueFull);
        s.set_length(SimTime(50), 9, 9000);
        s.on_arrival(SimTime(150), 1000);
        assert_eq!(s.arrivals, 1);
        assert_eq!(s.total_drops(), 0);
        assert_eq!(s.max_packets, 0);
        // length 9 held from 100 to 200
        let (p, _) = s.averages(SimTime(200));
        assert!((p - 9.0).abs() < 1e-12);
    }
}
