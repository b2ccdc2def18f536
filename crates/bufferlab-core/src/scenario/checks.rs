//! Checks of single values a scenario gives its traffic, losses and names: what the types
//! accept but no model can run (a Pareto shape of inf panicked in the sampler; on/off periods
//! both of zero switch state forever at one instant).

use super::config::FlowConfig;
use super::ScenarioError;
use crate::net::loss::{LossConfig, LossPosition};
use crate::packet::Protocol;
use crate::tcp::TcpParams;
use crate::traffic::{self, AppConfig, Distribution, ObjectSize, OnOffFlavour};
use crate::units::{Bytes, SimTime};

/// The largest Pareto shape: above it the law is a constant to every digit that matters
/// (shape 100 puts 99 % of draws within 5 % of the scale), and heavy tails have 1 to 3.
pub const MAX_PARETO_SHAPE: f64 = 100.0;

/// The most bytes one transfer or one web object may carry: 2^50 (1.1 PB), more than a
/// 10 Gbit/s link carries in ten days; sequence arithmetic stays far from 64 bits.
pub const MAX_TRANSFER: Bytes = Bytes(1 << 50);

pub fn check_prob(path: String, p: f64) -> Result<(), ScenarioError> {
    if !(0.0..=1.0).contains(&p) {
        return Err(ScenarioError::field(
            path,
            format!("{p} is not a probability; use a value between 0 and 1"),
        ));
    }
    Ok(())
}

pub fn check_loss(path: String, l: &LossConfig) -> Result<(), ScenarioError> {
    match l {
        LossConfig::Bernoulli { rate, .. } => check_prob(format!("{path}.rate"), *rate),
        LossConfig::GilbertElliott {
            p_good_bad,
            p_bad_good,
            loss_good,
            loss_bad,
            ..
        } => {
            check_prob(format!("{path}.p_good_bad"), *p_good_bad)?;
            check_prob(format!("{path}.p_bad_good"), *p_bad_good)?;
            check_prob(format!("{path}.loss_good"), *loss_good)?;
            check_prob(format!("{path}.loss_bad"), *loss_bad)
        }
        LossConfig::PerFlow {
            models,
            unbound,
            then,
            position,
        } => {
            let field = |f: String, msg| ScenarioError::field(format!("{path}.{f}"), msg);
            crate::net::error_module::check(models, *unbound).map_err(|(f, m)| field(f, m))?;
            for (i, m) in then.iter().enumerate() {
                crate::net::error_module::check(&m.models, m.unbound)
                    .map_err(|(f, msg)| field(format!("then[{i}].{f}"), msg))?;
            }
            let held = models
                .iter()
                .chain(then.iter().flat_map(|m| &m.models))
                .any(|m| m.holds());
            if held && *position != LossPosition::BeforeQueue {
                return Err(field(
                    "position".into(),
                    "a model with `delay` holds packets before the queue only; set \
                     position = \"before_queue\""
                        .into(),
                ));
            }
            Ok(())
        }
    }
}

/// A Pareto shape: finite, above 1 (the mean exists) and at most [`MAX_PARETO_SHAPE`].
fn check_shape(path: String, shape: f64, common: &str) -> Result<(), ScenarioError> {
    if !(shape > 1.0 && shape <= MAX_PARETO_SHAPE) {
        return Err(ScenarioError::field(
            path,
            format!(
                "{shape}: a Pareto shape must be above 1 for the mean to exist and at most \
                 {MAX_PARETO_SHAPE} ({common} is common)"
            ),
        ));
    }
    Ok(())
}

pub fn check_distribution(path: String, d: &Distribution) -> Result<(), ScenarioError> {
    match d {
        Distribution::Uniform { min, max } if max < min => Err(ScenarioError::field(
            path,
            "uniform: max must not be below min",
        )),
        Distribution::Pareto { shape, .. } => check_shape(format!("{path}.shape"), *shape, "1.5")
            .and_then(|()| positive_mean(&path, d)),
        _ => positive_mean(&path, d),
    }
}

/// A Pareto law needs a positive mean (its scale); an exponential one of mean 0 is the
/// point 0, as ns-2's `ExponentialRandomVariable` with `avg_ 0` draws (an Exponential
/// source's `idle_time_ 0`: bursts back to back, each draw still taken from the stream).
fn positive_mean(path: &str, d: &Distribution) -> Result<(), ScenarioError> {
    match d {
        Distribution::Pareto { mean, .. } if *mean == SimTime::ZERO => Err(ScenarioError::field(
            format!("{path}.mean"),
            "must be positive",
        )),
        _ => Ok(()),
    }
}

/// Whether every draw of `d` is 0 (a constant or a uniform law of 0).
fn always_zero(d: &Distribution) -> bool {
    match d {
        Distribution::Constant { value } => *value == SimTime::ZERO,
        Distribution::Uniform { max, .. } => *max == SimTime::ZERO,
        Distribution::Exponential { mean } => *mean == SimTime::ZERO,
        _ => false,
    }
}

/// On and off periods that are both always 0: the source would change state forever
/// without time passing, inside one event.
pub fn check_on_off(
    path: &str,
    on: &Distribution,
    off: &Distribution,
) -> Result<(), ScenarioError> {
    if always_zero(on) && always_zero(off) {
        return Err(ScenarioError::field(
            format!("{path}.off_time"),
            "on_time and off_time are both 0: the source would switch forever at one instant; \
             give either a positive duration (e.g. off_time = { kind = \"exponential\", mean = \
             \"500ms\" })",
        ));
    }
    Ok(())
}

/// A web application's object law and number of objects.
pub fn check_web(path: &str, size: &ObjectSize, objects: Option<u32>) -> Result<(), ScenarioError> {
    if objects == Some(0) {
        return Err(ScenarioError::field(
            format!("{path}.objects"),
            "0 objects would send nothing; give at least 1, or leave it out (objects until the \
             flow stops)",
        ));
    }
    let (field, bytes) = match size {
        ObjectSize::Constant { value } => ("value", value.0),
        ObjectSize::Uniform { max, .. } => ("max", max.0),
        ObjectSize::Exponential { mean } | ObjectSize::Pareto { mean, .. } => ("mean", mean.0),
    };
    if bytes == 0 || bytes > MAX_TRANSFER.0 {
        return Err(ScenarioError::field(
            format!("{path}.object_size.{field}"),
            format!("{bytes}B: give an object size from 1B to 2^50 bytes (1.1PB), e.g. \"10KB\""),
        ));
    }
    if let ObjectSize::Uniform { min, max } = size {
        if max.0 < min.0 {
            return Err(ScenarioError::field(
                format!("{path}.object_size.max"),
                "uniform: max must not be below min",
            ));
        }
    }
    if let ObjectSize::Pareto { shape, .. } = size {
        check_shape(
            format!("{path}.object_size.shape"),
            *shape,
            "1.2 for web objects",
        )?;
    }
    Ok(())
}

/// A transfer's size.
pub fn check_transfer(path: &str, size: Bytes) -> Result<(), ScenarioError> {
    if size.0 == 0 || size > MAX_TRANSFER {
        return Err(ScenarioError::field(
            format!("{path}.size"),
            format!("{}B: give 1B to 2^50 bytes (1.1PB), e.g. \"10MB\"", size.0),
        ));
    }
    Ok(())
}

/// A name the user gives a node, link, flow or class: shown in results, tables and traces,
/// so neither empty nor holding control characters (a tab or an escape sequence would forge
/// columns or drive the terminal).
pub fn check_name(path: impl Into<String>, name: &str) -> Result<(), ScenarioError> {
    if name.is_empty() || name.chars().any(char::is_control) {
        return Err(ScenarioError::field(
            path,
            format!("{name:?} is empty or holds a control character; give a printable name"),
        ));
    }
    Ok(())
}

/// A flow's application, transport and sizes.
pub fn check_app(entry: usize, f: &FlowConfig) -> Result<(), ScenarioError> {
    let app = &f.app;
    if let Some(p) = f.protocol {
        if !app.runs_over(p) {
            return Err(ScenarioError::field(
                format!("flows[{entry}].protocol"),
                format!("the {} application runs over {}, not {}; remove `protocol` or pick another app", app.kind(), app.protocol().as_str(), p.as_str()),
            ));
        }
    }
    let header = f.header.unwrap_or(Bytes(28));
    if let Some(max) = f.max_datagram {
        if f.protocol() == Protocol::Tcp {
            return Err(ScenarioError::field(
                format!("flows[{entry}].max_datagram"),
                "max_datagram splits UDP messages; a TCP flow sends segments of its mss",
            ));
        }
        if max.0 <= header.0 || max.0 > 65_535 {
            return Err(ScenarioError::field(
                format!("flows[{entry}].max_datagram"),
                format!(
                    "{}B: a datagram must be larger than the {}B header and at most 65535 bytes",
                    max.0,
                    f.header.unwrap_or(Bytes(28)).0
                ),
            ));
        }
    }
    if f.protocol() == Protocol::Tcp && app.protocol() == Protocol::Tcp {
        return super::agents::tcp_params(entry, f).map(|_| ());
    }
    if f.tcp.is_some() || f.protocol() == Protocol::Tcp {
        super::agents::tcp_params(entry, f)?;
    }
    // A TCP application is checked with a full segment of the default (`ns2`) settings,
    // 1000 + 40 bytes; the flow's resolved TCP settings size its packets later.
    let size = app
        .packet_size()
        .unwrap_or_else(|| Bytes(TcpParams::default().wire_size() as u64));
    if size.0 == 0 || size.0 > 65_535 {
        return Err(ScenarioError::field(
            format!("flows[{entry}].app.packet_size"),
            format!("{}B: a packet must be 1 to 65535 bytes", size.0),
        ));
    }
    // Over TCP the size is what each emission writes (the segments carry their own headers).
    let over_tcp = f.protocol() == Protocol::Tcp;
    if header.0 >= size.0 && !over_tcp && !matches!(app, AppConfig::Poisson { .. }) {
        return Err(ScenarioError::field(
            format!("flows[{entry}].app.packet_size"),
            format!(
                "{}B leaves no payload after the {}B header; packet_size is the size on the wire",
                size.0, header.0
            ),
        ));
    }
    if let AppConfig::Cbr { rate, .. }
    | AppConfig::Poisson { rate, .. }
    | AppConfig::Onoff { rate, .. } = app
    {
        crate::scenario::bounds::check_rate(&format!("flows[{entry}].app.rate"), *rate)?;
    }
    if let AppConfig::Cbr {
        ns2_interval_s: Some(i),
        clock,
        ..
    } = app
    {
        if !(i.is_finite() && *i > 0.0 && *i <= 1e6) || *clock != traffic::CbrClock::Ns2 {
            return Err(ScenarioError::field(
                format!("flows[{entry}].app.ns2_interval_s"),
                format!(
                    "{i} is not used: give a gap in seconds in (0, 1e6] with clock = \"ns2\", \
                     or leave it out (the gap comes from rate)"
                ),
            ));
        }
    }
    if let AppConfig::Onoff {
        on_time,
        off_time,
        flavour,
        ..
    } = app
    {
        check_distribution(format!("flows[{entry}].app.on_time"), on_time)?;
        check_distribution(format!("flows[{entry}].app.off_time"), off_time)?;
        check_on_off(&format!("flows[{entry}].app"), on_time, off_time)?;
        if *flavour == OnOffFlavour::Ns2 {
            if traffic::ns2_onoff_params(on_time, off_time).is_none() {
                return Err(ScenarioError::field(
                    format!("flows[{entry}].app.off_time"),
                    "ns-2's on/off sources take an exponential on_time and off_time, or two Pareto of one shape; give those or flavour = \"ns3\"",
                ));
            }
            if over_tcp {
                return Err(ScenarioError::field(
                    format!("flows[{entry}].app.flavour"),
                    "ns-2's on/off sources are modelled over UDP; use flavour = \"ns3\" over TCP",
                ));
            }
        }
    }
    if let AppConfig::Mmpp {
        rates,
        mean_sojourns,
        ..
    } = app
    {
        for (i, r) in rates.iter().enumerate() {
            crate::scenario::bounds::check_rate(&format!("flows[{entry}].app.rates[{i}]"), *r)?;
        }
        for (i, s) in mean_sojourns.iter().enumerate() {
            // Each state change costs a step of the generator: below a microsecond the chain
            // would change state millions of times per simulated second.
            if *s < SimTime::from_micros(1) {
                return Err(ScenarioError::field(
                    format!("flows[{entry}].app.mean_sojourns[{i}]"),
                    "below 1us: give the mean time the source stays in that state (e.g. \"100ms\")",
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(r: Result<(), ScenarioError>) -> String {
        r.unwrap_err().path.unwrap()
    }

    #[test]
    fn non_finite_and_absurd_pareto_shapes_are_refused() {
        let p = |shape| Distribution::Pareto {
            mean: SimTime::from_millis(1),
            shape,
        };
        for s in [f64::INFINITY, f64::NAN, 1e308, 1.0, 100.5] {
            assert_eq!(
                field(check_distribution("d".into(), &p(s))),
                "d.shape",
                "{s}"
            );
        }
        assert!(check_distribution("d".into(), &p(1.5)).is_ok());
        assert!(check_distribution("d".into(), &p(MAX_PARETO_SHAPE)).is_ok());
    }

    #[test]
    fn on_and_off_both_zero_are_refused() {
        let zero = Distribution::Constant {
            value: SimTime::ZERO,
        };
        let some = Distribution::Constant {
            value: SimTime::from_millis(1),
        };
        assert_eq!(field(check_on_off("a", &zero, &zero)), "a.off_time");
        assert!(check_on_off("a", &zero, &some).is_ok());
        assert!(check_on_off("a", &some, &zero).is_ok());
    }

    #[test]
    fn web_and_transfer_sizes() {
        let c = |b| ObjectSize::Constant { value: Bytes(b) };
        assert_eq!(field(check_web("w", &c(10), Some(0))), "w.objects");
        assert_eq!(field(check_web("w", &c(0), None)), "w.object_size.value");
        assert_eq!(
            field(check_web("w", &c(u64::MAX), None)),
            "w.object_size.value"
        );
        let inf = ObjectSize::Pareto {
            mean: Bytes(1000),
            shape: f64::INFINITY,
        };
        assert_eq!(field(check_web("w", &inf, None)), "w.object_size.shape");
        assert!(check_web("w", &c(10_000), Some(3)).is_ok());
        assert_eq!(field(check_transfer("t", Bytes(u64::MAX))), "t.size");
        assert_eq!(field(check_transfer("t", Bytes(0))), "t.size");
        assert!(check_transfer("t", MAX_TRANSFER).is_ok());
    }

    #[test]
    fn empty_and_control_character_names_are_refused() {
        for bad in ["", "a\tb", "x\u{1b}[2J", "\u{7f}"] {
            assert_eq!(field(check_name("n", bad)), "n", "{bad:?}");
        }
        assert!(check_name("n", "s0 → d0").is_ok());
    }
}
