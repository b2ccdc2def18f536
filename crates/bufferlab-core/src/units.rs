//! Physical units: simulated time, data rates, byte sizes and queue limits, with the
//! string forms scenario files use ("10Mbps", "0.5MB/s", "20ms", "50KB", "25p").
//!
//! Conventions (written down because papers and simulators differ):
//! * Decimal SI prefixes, as ns-2 and ns-3 read them: "10Mb" = 10^7 bit/s, "50KB" = 50 000 bytes.
//!   Binary prefixes are spelled KiB/MiB/GiB.
//! * A rate in bytes per second is written with "/s": "0.5MB/s" = 4 Mbit/s.
//! * Time is an integer number of picoseconds, so a 1500-byte packet on a 10 Gbit/s link takes
//!   exactly 1 200 000 ps and no rounding accumulates over long runs.

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// Picoseconds per second.
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// Simulated time (or a duration) in integer picoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    /// `s` seconds rounded to the nearest picosecond, halves away from zero (as
    /// `(s * 1e12).round() as u64`, saturating at 0 and `u64::MAX`).
    #[inline]
    pub fn from_secs_f64(s: f64) -> SimTime {
        SimTime(round_to_u64(s * PS_PER_S as f64))
    }
    pub const fn from_millis(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000_000)
    }
    pub const fn from_micros(us: u64) -> SimTime {
        SimTime(us * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> SimTime {
        SimTime(s * PS_PER_S)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    pub fn as_nanos(self) -> u64 {
        self.0 / 1000
    }
    pub fn saturating_sub(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(o.0))
    }
    /// The earlier of two optional deadlines, `None` being "never". Written as a match
    /// because an endpoint's timers are folded with it after every packet, where
    /// `[..].into_iter().flatten().min()` cost ~75 instructions.
    #[inline]
    pub fn earliest(a: Option<SimTime>, b: Option<SimTime>) -> Option<SimTime> {
        match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        }
    }
}

/// `x.round() as u64` without calling libm's `round`, which x86-64 without SSE4.1 (the
/// baseline) cannot inline: ns-2's senders convert their RTO from doubles on every ACK, ~24
/// instructions a call. With the whole part `i` truncated, the fraction `x - i` is exact
/// (Sterbenz's lemma: `i` is 0 or at least x / 2; from 2^52 on x is whole and the fraction 0),
/// so comparing it with one half is `round`'s rule (halves away from zero) for non-negative x;
/// negative x and NaN give 0 and x past u64::MAX gives u64::MAX, as the cast of `round`'s
/// result does.
#[inline]
pub fn round_to_u64(x: f64) -> u64 {
    let i = x as u64;
    if x - i as f64 >= 0.5 {
        i.saturating_add(1)
    } else {
        i
    }
}

impl std::ops::Add for SimTime {
    type Output = SimTime;
    fn add(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(o.0))
    }
}

impl std::ops::Sub for SimTime {
    type Output = SimTime;
    fn sub(self, o: SimTime) -> SimTime {
        SimTime(self.0 - o.0)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}s", self.as_secs_f64())
    }
}

/// A data rate in bits per second.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    pub fn bps(self) -> u64 {
        self.0
    }
    /// Time to serialise `bytes` at this rate, rounded to the nearest picosecond.
    #[inline]
    pub fn tx_time(self, bytes: u64) -> SimTime {
        // 64-bit arithmetic while it cannot overflow (packets up to ~2 MB): a 128-bit
        // division is a library call, and this runs once per packet per link.
        if bytes < u64::MAX / (8 * PS_PER_S) {
            let num = bytes * 8 * PS_PER_S;
            return SimTime((num + self.0 / 2) / self.0);
        }
        let num = bytes as u128 * 8 * PS_PER_S as u128;
        let d = self.0 as u128;
        SimTime(((num + d / 2) / d) as u64)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}bps", self.0)
    }
}

/// A size in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Bytes(pub u64);

/// A queue limit: a number of packets ("25p") or of bytes ("50KB").
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
}

impl fmt::Display for QueueLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueueLimit::Packets(p) => write!(f, "{p}p"),
            QueueLimit::Bytes(b) => write!(f, "{b}B"),
        }
    }
}

/// Splits "12.5Mbps" into (12.5, "Mbps"); spaces between number and unit are allowed.
fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || ((c == 'e' || c == 'E')
                    && i > 0
                    && s[i + 1..]
                        .starts_with(|d: char| d.is_ascii_digit() || d == '-' || d == '+'))
                || ((c == '-' || c == '+') && (i == 0 || s[..i].ends_with(['e', 'E']))))
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let num: f64 = s[..end].parse().ok()?;
    Some((num, s[end..].trim()))
}

fn si_prefix(p: &str) -> Option<f64> {
    Some(match p {
        "" => 1.0,
        "k" | "K" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "Ki" => 1024.0,
        "Mi" => 1024.0 * 1024.0,
        "Gi" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    })
}

pub const TIME_HELP: &str =
    "a duration such as \"20ms\", \"1.5s\", \"100us\", \"10ns\" or a number of seconds";
pub const RATE_HELP: &str =
    "a rate such as \"10Mbps\", \"10Mb\", \"1.5Gbit/s\", \"0.5MB/s\" (bytes per second) or a number of bit/s";
pub const SIZE_HELP: &str =
    "a size such as \"1500B\", \"50KB\" (1000 bytes), \"64KiB\" or a number of bytes";
pub const LIMIT_HELP: &str =
    "a queue limit in packets (\"25p\", \"25 packets\") or in bytes (\"50KB\", \"1500B\")";
/// The schema's description of [`QueueLimit`]: the forms a queue's `limit` takes in a scenario.
const LIMIT_SCHEMA_HELP: &str =
    "a queue limit in packets (\"25p\") or bytes (\"50KB\"); a queue's \
    limit may also be a multiple of the link's bandwidth-delay product (\"0.5BDP\") or a time at \
    its rate (\"20ms\"), docs/scenario.md; a TCP window takes packets or bytes only";

pub fn parse_time(s: &str) -> Result<SimTime, String> {
    let (v, unit) = split_number(s).ok_or_else(|| format!("\"{s}\" is not {TIME_HELP}"))?;
    let mult = match unit {
        "" | "s" | "sec" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" => 1e-6,
        "ns" => 1e-9,
        "ps" => 1e-12,
        "min" => 60.0,
        _ => {
            return Err(format!(
                "\"{s}\": unknown time unit \"{unit}\"; use {TIME_HELP}"
            ))
        }
    };
    if !(v.is_finite() && v >= 0.0) {
        return Err(format!("\"{s}\": a duration must be zero or positive"));
    }
    // The clock counts picoseconds in 64 bits: about 213 days. Longer would wrap silently.
    let max_s = u64::MAX as f64 / PS_PER_S as f64;
    if v * mult >= max_s {
        return Err(format!(
            "\"{s}\": longer than the simulator's clock reaches ({:.0} days, counted in picoseconds); give at most \"{:.0}s\"",
            (max_s / 86_400.0).floor(),
            max_s.floor()
        ));
    }
    let t = SimTime::from_secs_f64(v * mult);
    // a nonzero time the picosecond clock rounds to 0 would silently become "no time at all"
    if t == SimTime::ZERO && v > 0.0 {
        return Err(format!(
            "\"{s}\": nonzero but below the clock's resolution of 1ps; give 0 or at least \"1ps\""
        ));
    }
    Ok(t)
}

pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let (v, unit) = split_number(s).ok_or_else(|| format!("\"{s}\" is not {RATE_HELP}"))?;
    let bad = || format!("\"{s}\": unknown rate unit \"{unit}\"; use {RATE_HELP}");
    let (prefix, per_byte) = if let Some(p) = unit
        .strip_suffix("B/s")
        .or_else(|| unit.strip_suffix("Bps"))
    {
        (p, true)
    } else if let Some(p) = unit
        .strip_suffix("bps")
        .or_else(|| unit.strip_suffix("bit/s"))
        .or_else(|| unit.strip_suffix("bit"))
        .or_else(|| unit.strip_suffix("b/s"))
        .or_else(|| unit.strip_suffix('b'))
    {
        (p, false)
    } else if unit.is_empty() {
        ("", false)
    } else {
        return Err(bad());
    };
    let m = si_prefix(prefix).ok_or_else(bad)?;
    let bits = v * m * if per_byte { 8.0 } else { 1.0 };
    if !(bits.is_finite() && bits >= 1.0) {
        return Err(format!(
            "\"{s}\": a rate must be positive (at least 1 bit/s)"
        ));
    }
    Ok(Rate(bits.round() as u64))
}

pub fn parse_size(s: &str) -> Result<Bytes, String> {
    let (v, unit) = split_number(s).ok_or_else(|| format!("\"{s}\" is not {SIZE_HELP}"))?;
    let bad = || format!("\"{s}\": unknown size unit \"{unit}\"; use {SIZE_HELP}");
    let prefix = if unit.is_empty() {
        ""
    } else {
        unit.strip_suffix('B')
            .or_else(|| unit.strip_suffix("bytes"))
            .ok_or_else(bad)?
    };
    let m = si_prefix(prefix).ok_or_else(bad)?;
    let b = v * m;
    if !(b.is_finite() && b >= 0.0) {
        return Err(format!("\"{s}\": a size must be zero or positive"));
    }
    Ok(Bytes(b.round() as u64))
}

pub fn parse_limit(s: &str) -> Result<QueueLimit, String> {
    let (v, unit) = split_number(s).ok_or_else(|| format!("\"{s}\" is not {LIMIT_HELP}"))?;
    if matches!(unit, "p" | "pkt" | "pkts" | "packet" | "packets") {
        if v < 0.0 || v.fract() != 0.0 {
            return Err(format!(
                "\"{s}\": a limit in packets must be a whole number"
            ));
        }
        return Ok(QueueLimit::Packets(v as u64));
    }
    if unit.is_empty() {
        return Err(format!(
            "\"{s}\": say whether the limit counts packets or bytes; use {LIMIT_HELP}"
        ));
    }
    parse_size(s)
        .map(|b| QueueLimit::Bytes(b.0))
        .map_err(|_| format!("\"{s}\" is not {LIMIT_HELP}"))
}

/// What a scenario value with a unit means, in base units: `"25p"` -> (25, "packets"),
/// `"50KB"` -> (50000, "bytes"), `"20ms"` -> (0.02, "s"), `"10Mbps"` -> (1e7, "bit/s"); a bare
/// number -> (n, ""). None when the text is not a quantity the scenario grammar knows. Front
/// ends use it to place sweep values on axes without a grammar of their own.
pub fn quantity(s: &str) -> Option<(f64, &'static str)> {
    let (v, unit) = split_number(s)?;
    if unit.is_empty() {
        return Some((v, ""));
    }
    if let Ok(QueueLimit::Packets(n)) = parse_limit(s) {
        return Some((n as f64, "packets"));
    }
    if let Ok(t) = parse_time(s) {
        return Some((t.as_secs_f64(), "s"));
    }
    if let Ok(b) = parse_size(s) {
        return Some((b.0 as f64, "bytes"));
    }
    parse_rate(s).ok().map(|r| (r.bps() as f64, "bit/s"))
}

/// Accepts a string (parsed with `parse`) or a plain number (converted with `from_num`).
struct UnitVisitor<T> {
    expecting: &'static str,
    parse: fn(&str) -> Result<T, String>,
    from_num: fn(f64) -> Result<T, String>,
}

impl<'de, T> de::Visitor<'de> for UnitVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        (self.parse)(v).map_err(E::custom)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        (self.from_num)(v).map_err(E::custom)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        (self.from_num)(v as f64).map_err(E::custom)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        (self.from_num)(v as f64).map_err(E::custom)
    }
}

macro_rules! unit_serde {
    ($ty:ty, $help:expr, $parse:expr, $from_num:expr, $to_string:expr, $pattern:expr) => {
        unit_serde!($ty, $help, $parse, $from_num, $to_string, $pattern, $help);
    };
    ($ty:ty, $help:expr, $parse:expr, $from_num:expr, $to_string:expr, $pattern:expr, $schema_help:expr) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(UnitVisitor { expecting: $help, parse: $parse, from_num: $from_num })
            }
        }
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let f: fn(&$ty) -> String = $to_string;
                s.serialize_str(&f(self))
            }
        }
        impl JsonSchema for $ty {
            fn schema_name() -> Cow<'static, str> {
                stringify!($ty).into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({
                    "description": $schema_help,
                    "anyOf": [ { "type": "string", "pattern": $pattern }, { "type": "number", "minimum": 0 } ]
                })
            }
        }
    };
}

unit_serde!(
    SimTime,
    TIME_HELP,
    parse_time,
    |v| parse_time(&v.to_string()),
    |t| format!("{}s", t.as_secs_f64()),
    "^[0-9.eE+-]+\\s*(s|sec|ms|us|µs|ns|ps|min)?$"
);
unit_serde!(
    Rate,
    RATE_HELP,
    parse_rate,
    |v| parse_rate(&v.to_string()),
    |r| format!("{}bps", r.0),
    "^[0-9.eE+-]+\\s*([kKMGT]i?)?(bps|bit/s|bit|b/s|b|B/s|Bps)?$"
);
unit_serde!(
    Bytes,
    SIZE_HELP,
    parse_size,
    |v| parse_size(&v.to_string()),
    |b| format!("{}B", b.0),
    "^[0-9.eE+-]+\\s*([kKMGT]i?)?(B|bytes)?$"
);
unit_serde!(
    QueueLimit,
    LIMIT_HELP,
    parse_limit,
    |_| Err(format!("a bare number is ambiguous; use {LIMIT_HELP}")),
    |l| l.to_string(),
    // A queue's limit may also be a multiple of the link's BDP or a time at its rate
    // (scenario/limits.rs resolves them before this type reads the value); the schema lets
    // editors accept them. A TCP window of this type is refused in those forms by the core.
    "^[0-9.eE+-]+\\s*(p|pkt|pkts|packet|packets|([kKMGT]i?)?(B|bytes)|BDP|s|sec|ms|us|µs|ns)$",
    LIMIT_SCHEMA_HELP
);

#[cfg(test)]
mod tests {
    use super::*;

    // ---- parsing: the forms the docs promise ----
    #[test]
    fn parses_rates() {
        assert_eq!(parse_rate("10Mbps").unwrap(), Rate(10_000_000));
        assert_eq!(parse_rate("10Mb").unwrap(), Rate(10_000_000));
        assert_eq!(parse_rate("1.5 Gbit/s").unwrap(), Rate(1_500_000_000));
        assert_eq!(parse_rate("0.5MB/s").unwrap(), Rate(4_000_000));
        assert_eq!(parse_rate("448Kb").unwrap(), Rate(448_000));
        assert_eq!(parse_rate("1e6").unwrap(), Rate(1_000_000));
        assert!(parse_rate("10Mbpz")
            .unwrap_err()
            .contains("unknown rate unit"));
        assert!(parse_rate("-5Mbps").unwrap_err().contains("positive"));
        assert!(parse_rate("0Mbps").unwrap_err().contains("positive"));
    }

    #[test]
    fn parses_times_sizes_limits() {
        assert_eq!(parse_time("20ms").unwrap(), SimTime::from_millis(20));
        assert_eq!(parse_time("1.5s").unwrap(), SimTime(1_500_000_000_000));
        assert_eq!(parse_time("100us").unwrap(), SimTime::from_micros(100));
        assert_eq!(parse_time("3").unwrap(), SimTime::from_secs(3));
        assert!(parse_time("-1s").is_err());
        assert_eq!(parse_size("50KB").unwrap(), Bytes(50_000));
        assert_eq!(parse_size("64KiB").unwrap(), Bytes(65_536));
        assert_eq!(parse_size("1500").unwrap(), Bytes(1500));
        assert_eq!(parse_limit("25p").unwrap(), QueueLimit::Packets(25));
        assert_eq!(parse_limit("25 packets").unwrap(), QueueLimit::Packets(25));
        assert_eq!(parse_limit("10KB").unwrap(), QueueLimit::Bytes(10_000));
        assert!(parse_limit("25").unwrap_err().contains("packets or bytes"));
    }

    // ---- seconds round to picoseconds as f64::round does ----
    #[test]
    fn rounding_to_u64_follows_round_at_the_edges() {
        let edges = [
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            0.49999999999999994,
            -0.4,
            -0.5,
            -3.7,
            4503599627370495.5,
            4503599627370496.0,
            9007199254740993.0,
            1.8446744073709552e19,
            1e30,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MAX,
            f64::MIN_POSITIVE,
        ];
        for x in edges {
            assert_eq!(round_to_u64(x), x.round() as u64, "{x:e}");
        }
    }

    proptest::proptest! {
        #[test]
        fn rounding_to_u64_agrees_with_round(bits in proptest::prelude::any::<u64>(), s in 0.0f64..1e3) {
            let x = f64::from_bits(bits);
            proptest::prop_assert_eq!(round_to_u64(x), x.round() as u64);
            let y = s * PS_PER_S as f64;
            proptest::prop_assert_eq!(round_to_u64(y), y.round() as u64);
        }
    }

    // ---- serialisation time is exact in picoseconds ----
    #[test]
    fn tx_time_is_exact() {
        assert_eq!(Rate(10_000_000_000).tx_time(1500), SimTime(1_200_000));
        assert_eq!(Rate(1_000_000).tx_time(1000), SimTime::from_millis(8));
        // rounding to the nearest picosecond, on both sides of the 64-bit fast path
        assert_eq!(Rate(3).tx_time(1), SimTime(2_666_666_666_667));
        assert_eq!(
            Rate(3).tx_time(1 << 22),
            SimTime(11_184_810_666_666_666_667)
        );
    }
}
