//! Measurements: per-flow statistics, queue time series and fairness indices.

pub mod fairness;
pub mod flow_series;
pub mod flow_stats;
pub mod ns2_trace;
pub mod pcap;
pub mod queue_series;
pub mod queue_stats;
pub mod taps;

/// A histogram of durations in nanoseconds for percentiles: HdrHistogram (Tene) with 2
/// significant digits (values within 1 %), 32-bit counts, growing only as far as the values
/// recorded, so an idle port or a quiet flow costs about a kilobyte. Means and maxima are
/// kept exactly beside it.
pub fn new_histogram() -> hdrhistogram::Histogram<u32> {
    hdrhistogram::Histogram::new(2).expect("2 significant digits is a valid precision")
}

/// A histogram like [`new_histogram`] already sized for values up to `high_ns` (it still grows
/// past them): a histogram grows when a value exceeds every earlier one, which allocates.
pub fn new_histogram_up_to(high_ns: u64) -> hdrhistogram::Histogram<u32> {
    let mut h = hdrhistogram::Histogram::new_with_max(high_ns.max(2), 2)
        .expect("a bound of at least 2 with 2 significant digits is valid");
    h.auto(true);
    h
}
