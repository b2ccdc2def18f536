//! Per-flow statistics: what was sent, received and lost (and where and why), one-way
//! delay (mean, percentiles, max) and jitter. Jitter is the mean of |D(i-1, i)|, the
//! difference between the transit times of consecutive received packets as RFC 3550
//! section 6.4.1 defines D (without RFC 3550's 1/16 smoothing, so it is a plain mean).
//! Packets created during the warm-up are left out of every counter, so that
//! sent = received + lost + in flight holds exactly.

use crate::drop_reason::DropReason;
use crate::ids::PortId;
use crate::monitor::histogram::Histogram;
use crate::units::SimTime;

pub struct FlowStats {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub rx_packets: u64,
    pub rx_bytes: u64,
    pub lost_packets: u64,
    pub lost_bytes: u64,
    /// Application bytes delivered to the receiving application (in order for TCP).
    pub goodput_bytes: u64,
    /// Packets in the reverse direction (TCP ACKs): sent, lost and received.
    pub reverse_tx_packets: u64,
    pub reverse_lost_packets: u64,
    pub reverse_rx_packets: u64,
    /// (port, reason, count), few entries, kept in first-seen order.
    pub drops: Vec<(PortId, DropReason, u64)>,
    delay_ns: Histogram,
    delay_sum_ps: u128,
    delay_max: SimTime,
    last_transit: Option<SimTime>,
    jitter_sum_ps: u128,
    jitter_n: u64,
}

impl Default for FlowStats {
    fn default() -> Self {
        Self {
            tx_packets: 0,
            tx_bytes: 0,
            rx_packets: 0,
            rx_bytes: 0,
            lost_packets: 0,
            lost_bytes: 0,
            goodput_bytes: 0,
            reverse_tx_packets: 0,
            reverse_lost_packets: 0,
            reverse_rx_packets: 0,
            drops: Vec::new(),
            delay_ns: crate::monitor::new_histogram(),
            delay_sum_ps: 0,
            delay_max: SimTime::ZERO,
            last_transit: None,
            jitter_sum_ps: 0,
            jitter_n: 0,
        }
    }
}

impl FlowStats {
    #[inline]
    pub fn on_sent(&mut self, size: u32) {
        self.tx_packets += 1;
        self.tx_bytes += size as u64;
    }

    #[inline]
    pub fn on_received(&mut self, size: u32, transit: SimTime) {
        self.rx_packets += 1;
        self.rx_bytes += size as u64;
        self.delay_sum_ps += transit.0 as u128;
        self.delay_max = self.delay_max.max(transit);
        self.delay_ns.record(transit.as_nanos());
        if let Some(prev) = self.last_transit {
            self.jitter_sum_ps += prev.0.abs_diff(transit.0) as u128;
            self.jitter_n += 1;
        }
        self.last_transit = Some(transit);
    }

    #[inline]
    pub fn on_lost(&mut self, size: u32, port: PortId, reason: DropReason) {
        self.lost_packets += 1;
        self.lost_bytes += size as u64;
        match self
            .drops
            .iter_mut()
            .find(|(p, r, _)| *p == port && *r == reason)
        {
            Some(e) => e.2 += 1,
            None => {
                // most flows lose packets at one place for one reason: room for one entry,
                // not the four a first push reserves (48 bytes a flow at 10 000 flows)
                if self.drops.capacity() == 0 {
                    self.drops.reserve_exact(1);
                }
                self.drops.push((port, reason, 1));
            }
        }
    }

    /// Room for `n` places of loss, so that later drops do not allocate
    /// (`Simulation::reserve_packet_room`, for `tests/no_allocation.rs`).
    pub fn reserve_drops(&mut self, n: usize) {
        self.drops.reserve(n.saturating_sub(self.drops.len()));
    }

    /// Sizes the (still empty) delay histogram for delays up to `max`, so that recording them
    /// never allocates (see [`crate::monitor::new_histogram_up_to`]).
    pub fn reserve_delays(&mut self, max: SimTime) {
        if self.rx_packets == 0 {
            self.delay_ns = crate::monitor::new_histogram_up_to(max.as_nanos());
        }
    }

    /// Frees the delay histogram once the report has read its percentiles
    /// (`Report::from_sim`, which reads a simulation once): at 10 000 flows the histograms
    /// would otherwise add to the report's memory at the peak (docs/performance.md).
    pub fn release_delays(&mut self) {
        self.delay_ns = Histogram::default();
    }

    pub fn delay_mean_s(&self) -> Option<f64> {
        (self.rx_packets > 0).then(|| self.delay_sum_ps as f64 / self.rx_packets as f64 / 1e12)
    }
    pub fn delay_quantile_s(&self, q: f64) -> Option<f64> {
        (self.rx_packets > 0).then(|| self.delay_ns.value_at_quantile(q) as f64 / 1e9)
    }
    pub fn delay_max_s(&self) -> Option<f64> {
        (self.rx_packets > 0).then(|| self.delay_max.as_secs_f64())
    }
    pub fn jitter_s(&self) -> Option<f64> {
        (self.jitter_n > 0).then(|| self.jitter_sum_ps as f64 / self.jitter_n as f64 / 1e12)
    }
}
