//! Queue length time series, sampled at a fixed interval (columnar, one Vec per column).

use crate::ids::PortId;

#[derive(Default, Clone)]
pub struct QueueSeries {
    pub port: PortId,
    pub t_s: Vec<f64>,
    pub packets: Vec<u32>,
    pub bytes: Vec<u64>,
    /// The discipline's smoothed estimate (RED's average) when it keeps one.
    pub average: Vec<Option<f64>>,
    /// The unit of `average` (`"packets"` or `"bytes"`), from the discipline.
    pub average_unit: &'static str,
}
