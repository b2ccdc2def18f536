//! Measurements: per-flow statistics, queue time series and fairness indices.

pub mod fairness;
pub mod fct;
pub mod fields;
pub mod file_name;
pub mod flow_series;
pub mod flow_stats;
pub mod histogram;
pub mod ns2_flowmon;
pub mod ns2_integrator;
pub mod ns2_summary;
pub mod ns2_trace;
pub mod pcap;
pub mod queue_series;
pub mod queue_stats;
pub mod taps;

/// A histogram of durations in nanoseconds for percentiles: HdrHistogram's layout with 2
/// significant digits (values within 1 %), 32-bit counts, holding only the range of values
/// recorded ([`histogram::Histogram`]), so an idle port or a quiet flow costs nothing and a
/// busy one a few hundred bytes. Means and maxima are kept exactly beside it.
pub fn new_histogram() -> histogram::Histogram {
    histogram::Histogram::new()
}

/// A histogram like [`new_histogram`] already sized for values up to `high_ns` (it still grows
/// past them): a histogram grows when a value falls outside every earlier one, which allocates.
pub fn new_histogram_up_to(high_ns: u64) -> histogram::Histogram {
    histogram::Histogram::with_max(high_ns)
}
