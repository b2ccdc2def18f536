//! Measurements: per-flow statistics, queue time series and fairness indices.

pub mod fairness;
pub mod flow_stats;
pub mod ns2_trace;
pub mod pcap;
pub mod queue_series;

/// A histogram of durations in nanoseconds for percentiles: HdrHistogram (Tene) with 2
/// significant digits (values within 1 %), 32-bit counts, growing only as far as the values
/// recorded, so an idle port or a quiet flow costs about a kilobyte. Means and maxima are
/// kept exactly beside it.
pub fn new_histogram() -> hdrhistogram::Histogram<u32> {
    hdrhistogram::Histogram::new(2).expect("2 significant digits is a valid precision")
}
