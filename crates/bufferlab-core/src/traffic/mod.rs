//! Traffic generators: when the next packet leaves the application and how big it is.
//! A generator is a pure sequence of (time, size) pairs driven by its own random stream;
//! the transport endpoint that owns it (UDP today) turns them into packets.

pub mod cbr;
pub mod distribution;
pub mod mmpp;
pub mod ns2_onoff;
pub mod ns2_telnet;
pub mod onoff;
pub mod poisson;
pub mod registry;
pub mod size_cdf;

use crate::rng::Rng;
use crate::units::SimTime;
pub use distribution::{Distribution, ObjectSize, SizeDistribution};
use rand::RngExt;
use rand_distr::Distribution as _;
pub use registry::{AppConfig, CbrClock, OnOffFlavour};

/// A sequence of packet emissions.
pub trait Generator {
    /// The next emission (absolute time, size on the wire), or None when the source is done.
    /// Size 0 sends nothing: the source only wakes then to decide (ns-2's on/off sources draw
    /// their first burst when they start, not when they are built).
    fn next(&mut self, rng: &mut Rng) -> Option<(SimTime, u32)>;
    /// The time of the emission `next` last gave in ns-2's double seconds, for a source that
    /// adds its times up as ns-2's scheduler does (CBR with `clock = "ns2"`), else None.
    fn next_s(&self) -> Option<f64> {
        None
    }
    /// Starts the source's double sums at `s` seconds, its start as ns-2's scheduler holds
    /// it (`FlowConfig::ns2_start_s`); a source without such sums ignores it.
    fn set_start_s(&mut self, _s: f64) {}
    /// ns-2's `rate_` (bit/s, a double) and `packetSize_` (bytes) of a CBR source set by a
    /// script while the run goes on: the gap drawn after the next emission uses them
    /// (cbr_traffic.cc `next_interval` recomputes `interval_ = (size_ << 3) / rate_` at
    /// every packet), and the emission already scheduled keeps its time. False for a source
    /// that has no such variables (its rate is fixed).
    fn set_cbr_rate(&mut self, _rate_bps: f64, _size: u32) -> bool {
        false
    }
    /// ns-2's Telnet `interval_` (seconds) set by a script while the run goes on: the draw
    /// after the next emission uses it (telnet.cc `next` reads it at each draw). False for a
    /// source that has no such variable.
    fn set_telnet_interval(&mut self, _interval_s: f64) -> bool {
        false
    }
}

/// The mean burst and idle times and the kind of ns-2's on/off source whose on- and
/// off-times are `on` and `off`: both exponential, or both Pareto of one shape (ns-2's
/// `shape_` serves both); None otherwise.
pub fn ns2_onoff_params(
    on: &Distribution,
    off: &Distribution,
) -> Option<(SimTime, SimTime, ns2_onoff::Ns2OnOffKind)> {
    match (on, off) {
        (Distribution::Exponential { mean: a }, Distribution::Exponential { mean: b }) => {
            Some((*a, *b, ns2_onoff::Ns2OnOffKind::Exponential))
        }
        (
            Distribution::Pareto { mean: a, shape: s },
            Distribution::Pareto { mean: b, shape: t },
        ) if s == t => Some((*a, *b, ns2_onoff::Ns2OnOffKind::Pareto { shape: *s })),
        _ => None,
    }
}

/// Builds the generator of a UDP application sending from `start` until `stop`; `header` is
/// the smallest possible packet (random sizes never go below it).
pub fn build(app: &AppConfig, start: SimTime, stop: SimTime, header: u32) -> Box<dyn Generator> {
    match app {
        AppConfig::Cbr {
            rate,
            packet_size,
            random,
            clock,
            ns2_interval_s,
        } => {
            let mut g = cbr::Cbr::new(start, *rate, packet_size.0 as u32, *random, *clock);
            if let Some(i) = ns2_interval_s {
                g.set_ns2_interval(*i);
            }
            Box::new(g)
        }
        AppConfig::Poisson {
            rate,
            packet_size,
            size_distribution,
        } => Box::new(poisson::Poisson::new(
            start,
            *rate,
            packet_size.0 as u32,
            *size_distribution,
            header,
        )),
        AppConfig::Onoff {
            rate,
            packet_size,
            on_time,
            off_time,
            flavour: OnOffFlavour::Ns2,
        } => {
            let (burst, idle, kind) = ns2_onoff_params(on_time, off_time)
                .expect("validated: both exponential or both Pareto of one shape");
            Box::new(ns2_onoff::Ns2OnOff::new(
                start,
                *rate,
                packet_size.0 as u32,
                burst,
                idle,
                kind,
            ))
        }
        AppConfig::Onoff {
            rate,
            packet_size,
            on_time,
            off_time,
            flavour: OnOffFlavour::Ns3,
        } => Box::new(onoff::OnOff::new(
            start,
            *rate,
            packet_size.0 as u32,
            on_time.clone(),
            off_time.clone(),
        )),
        AppConfig::Mmpp {
            rates,
            mean_sojourns,
            packet_size,
        } => Box::new(mmpp::Mmpp::new(
            start,
            stop,
            *rates,
            *mean_sojourns,
            packet_size.0 as u32,
        )),
        AppConfig::Ns2Telnet {
            interval_s,
            packet_size,
        } => Box::new(ns2_telnet::Ns2Telnet::new(
            start,
            *interval_s,
            packet_size.0 as u32,
        )),
        // TCP applications are driven by the TCP sender (tcp/app.rs), not by a generator.
        AppConfig::Bulk { .. } | AppConfig::Transfer { .. } | AppConfig::Web { .. } => {
            Box::new(Silent)
        }
    }
}

/// A generator that never emits (what a TCP application looks like to UDP code).
struct Silent;

impl Generator for Silent {
    fn next(&mut self, _rng: &mut Rng) -> Option<(SimTime, u32)> {
        None
    }
}

/// Draws one duration from a distribution.
pub fn sample(d: &Distribution, rng: &mut Rng) -> SimTime {
    match d {
        Distribution::Constant { value } => *value,
        Distribution::Uniform { min, max } => {
            if max <= min {
                *min
            } else {
                SimTime(rng.random_range(min.0..=max.0))
            }
        }
        Distribution::Exponential { mean } => {
            SimTime::from_secs_f64(exp_sample(rng, mean.as_secs_f64()))
        }
        Distribution::Pareto { mean, shape } => {
            // Pareto(scale x_m, shape a) has mean a*x_m/(a-1), so x_m = mean*(a-1)/a.
            let scale = mean.as_secs_f64() * (shape - 1.0) / shape;
            let p =
                rand_distr::Pareto::new(scale, *shape).expect("validated: scale > 0, shape > 1");
            SimTime::from_secs_f64(p.sample(rng))
        }
    }
}

/// An exponential variate with the given mean (mean 0 gives 0).
pub fn exp_sample(rng: &mut Rng, mean: f64) -> f64 {
    if mean <= 0.0 {
        return 0.0;
    }
    rand_distr::Exp::new(1.0 / mean)
        .expect("positive rate")
        .sample(rng)
}
