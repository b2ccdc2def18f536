//! Physical bounds on values no network has, and the memory a run's time series would take.
//!
//! A scenario can be valid to the types and still take a machine down: a 1e40 bit/s source
//! emits every packet at the same instant, a 1 ps sampling interval over a minute is 6e13
//! samples. These are refused before the run with the field, the bound and the fix.

use super::ScenarioError;
use crate::units::{Rate, SimTime};

/// The fastest rate a link or a source may have: 10 Tbit/s, well above today's fastest
/// interfaces (800 Gbit/s - 1.6 Tbit/s). Above it a packet's transmission time rounds towards
/// the picosecond clock's resolution.
pub const MAX_RATE: Rate = Rate(10_000_000_000_000);

/// The shortest sampling interval of a time series: 1 us (a 1500-byte packet at 10 Gbit/s
/// takes 1.2 us).
pub const MIN_SAMPLE_INTERVAL: SimTime = SimTime::from_micros(1);

/// The most samples the time series of one run may hold, all series together: 20 million
/// (about 0.7 GB for queue samples of 36 bytes).
pub const MAX_SERIES_SAMPLES: f64 = 20e6;

/// A link's or a source's rate.
pub fn check_rate(path: &str, rate: Rate) -> Result<(), ScenarioError> {
    if rate > MAX_RATE {
        return Err(ScenarioError::field(
            path,
            "faster than any network link: give at most 10Tbps (e.g. \"100Mbps\")",
        ));
    }
    Ok(())
}

/// A sampling interval, and the samples it makes: `series` series over `duration`.
pub fn check_sampling(
    path: &str,
    interval: SimTime,
    duration: SimTime,
    series: usize,
) -> Result<(), ScenarioError> {
    if interval < MIN_SAMPLE_INTERVAL {
        return Err(ScenarioError::field(
            path,
            format!(
                "{} is shorter than any useful sample; give at least 1us, e.g. \"10ms\"",
                human(interval)
            ),
        ));
    }
    let samples = duration.as_secs_f64() / interval.as_secs_f64() * series as f64;
    if samples > MAX_SERIES_SAMPLES {
        let least =
            SimTime::from_secs_f64(duration.as_secs_f64() * series as f64 / MAX_SERIES_SAMPLES);
        return Err(ScenarioError::field(
            path,
            format!(
                "{} over {} on {series} series is {samples:.3e} samples, more than the \
                 {MAX_SERIES_SAMPLES:.0e} a run may hold; give at least {}, fewer series or a \
                 shorter duration",
                human(interval),
                human(duration),
                human(least)
            ),
        ));
    }
    Ok(())
}

/// A time in the unit that reads best: 1ps, 2.5us, 10ms, 20s.
fn human(t: SimTime) -> String {
    let ps = t.0 as f64;
    for (unit, scale) in [("s", 1e12), ("ms", 1e9), ("us", 1e6), ("ns", 1e3)] {
        if ps >= scale {
            return format!("{}{unit}", ps / scale);
        }
    }
    format!("{}ps", t.0)
}
