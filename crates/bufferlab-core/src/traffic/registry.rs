//! The registry of application kinds: the `kind = "..."` of a flow's `app` table, with each
//! kind's parameters and defaults. UDP sources are built by `traffic::build`, TCP applications
//! by `tcp::app`. Adding a source: CONTRIBUTING.md, "Recipe: adding a traffic source".

use super::distribution::{Distribution, ObjectSize, SizeDistribution};
use crate::packet::Protocol;
use crate::units::{Bytes, Rate, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What the application sends.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppConfig {
    /// Constant bit rate: one packet every packet_size*8/rate.
    Cbr {
        rate: Rate,
        /// Size on the wire (default 1000 B, the packet size of the seed papers' ns-2 scripts).
        #[serde(default = "default_packet_size")]
        packet_size: Bytes,
        /// Randomise each gap uniformly in [0.5, 1.5] of the interval (ns-2 CBR `random_`), default false.
        #[serde(default)]
        random: bool,
        /// How emission times add up: `exact` (default, as ns-3's applications: whole
        /// picoseconds) or `ns2` (ns-2.35's scheduler: seconds in a double, each gap
        /// `size * 8 / rate` added to the last time, then rounded to picoseconds, so the times
        /// drift as ns-2's do; two emissions in one picosecond go in the order scheduled).
        #[serde(default)]
        clock: CbrClock,
        /// With `clock = "ns2"`: the gap in seconds as ns-2 holds it, cbr_traffic.cc `init`'s
        /// `(size_ << 3) / rate_` with `rate_` a double (a CBR given `interval_` gets rate_ =
        /// size * 8 / interval from ns-lib's `set`, seldom a whole number of bit/s). Default:
        /// from `rate`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ns2_interval_s: Option<f64>,
    },
    /// Poisson arrivals: exponential interarrival times with mean packet_size*8/rate.
    Poisson {
        /// Mean offered rate in bits per second on the wire.
        rate: Rate,
        /// (Mean) size on the wire (default 1000 B).
        #[serde(default = "default_packet_size")]
        packet_size: Bytes,
        /// `fixed` or `exponential` packet sizes (exponential with this mean: an M/M/1 source).
        #[serde(default)]
        size_distribution: SizeDistribution,
    },
    /// On/off source: sends at `rate` during on-periods, nothing during off-periods.
    Onoff {
        rate: Rate,
        #[serde(default = "default_packet_size")]
        packet_size: Bytes,
        on_time: Distribution,
        off_time: Distribution,
        /// `ns3` (default: ns-3's `OnOffApplication`, on- and off-periods of time, starting
        /// with an on-period) or `ns2` (ns-2.35's `Application/Traffic/Exponential` and
        /// `Pareto`: bursts of whole packets, int(X + 0.5) of them with X of mean `on_time /
        /// interval`, each followed by an idle time; the source starts idle; both times
        /// exponential, or both Pareto of one shape; traffic/ns2_onoff.rs).
        #[serde(default)]
        flavour: OnOffFlavour,
    },
    /// Two-state Markov-modulated Poisson process: Poisson arrivals at `rates[i]` while a
    /// Markov chain stays in state i for an exponential time of mean `mean_sojourns[i]`
    /// (bursty, correlated traffic).
    Mmpp {
        /// Offered rate in each of the two states, in bits per second on the wire.
        rates: [Rate; 2],
        /// Mean time the chain stays in each state.
        mean_sojourns: [SimTime; 2],
        /// Size on the wire (default 1000 B).
        #[serde(default = "default_packet_size")]
        packet_size: Bytes,
    },
    /// ns-2.35's Telnet application over a TCP agent (apps/telnet.cc; traffic/ns2_telnet.rs):
    /// one packet of the agent's `packetSize_` per timer expiry, each gap exponential of mean
    /// `interval_s` drawn from ns-2's default RNG when the run follows it. TCP only.
    Ns2Telnet {
        /// ns-2's `interval_` in seconds (above 0; ns-default.tcl: 1.0).
        interval_s: f64,
        /// The agent's `packetSize_`: bytes written per expiry (default 1000 B, ns-2's).
        #[serde(default = "default_packet_size")]
        packet_size: Bytes,
    },
    /// TCP bulk transfer: always has data (ns-2 FTP, ns-3 BulkSend).
    Bulk {},
    /// TCP transfer of one file of `size` bytes, then FIN; the completion time is reported.
    Transfer { size: Bytes },
    /// TCP request/response objects over one connection: each object's size is drawn from
    /// `object_size`; after it is delivered the client thinks for `think_time` and asks for
    /// the next. Response times per object are reported.
    Web {
        object_size: ObjectSize,
        think_time: Distribution,
        /// Number of objects (default: until the flow stops).
        #[serde(default)]
        objects: Option<u32>,
    },
}

fn default_packet_size() -> Bytes {
    Bytes(1000)
}

/// Which on/off source (`AppConfig::Onoff::flavour`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnOffFlavour {
    /// ns-3's `OnOffApplication`: periods of time (traffic/onoff.rs).
    #[default]
    Ns3,
    /// ns-2.35's EXPOO / POO sources: bursts of whole packets (traffic/ns2_onoff.rs).
    Ns2,
}

/// How a CBR source adds up its emission times (`AppConfig::Cbr::clock`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CbrClock {
    /// Whole picoseconds: the interval rounded once, then added exactly.
    #[default]
    Exact,
    /// ns-2.35's double-precision seconds (`TrafficGenerator::timeout` reschedules
    /// `next_interval` after the current time), rounded to the engine's picoseconds.
    Ns2,
}

impl AppConfig {
    pub fn kind(&self) -> &'static str {
        match self {
            AppConfig::Cbr { .. } => "cbr",
            AppConfig::Poisson { .. } => "poisson",
            AppConfig::Onoff { .. } => "onoff",
            AppConfig::Mmpp { .. } => "mmpp",
            AppConfig::Ns2Telnet { .. } => "ns2_telnet",
            AppConfig::Bulk { .. } => "bulk",
            AppConfig::Transfer { .. } => "transfer",
            AppConfig::Web { .. } => "web",
        }
    }
    /// The transport the application runs over unless the flow says `protocol`.
    pub fn protocol(&self) -> Protocol {
        match self {
            AppConfig::Bulk { .. }
            | AppConfig::Transfer { .. }
            | AppConfig::Web { .. }
            | AppConfig::Ns2Telnet { .. } => Protocol::Tcp,
            _ => Protocol::Udp,
        }
    }
    /// Whether it can run over `p`. The packet sources (cbr, poisson, onoff, mmpp) run over either:
    /// over TCP each emission is a write of `packet_size` bytes into the connection, as ns-3's
    /// `OnOffApplication` on a TCP socket (seed 003's on/off TCP); bulk, transfer, web and
    /// ns2_telnet are TCP only.
    pub fn runs_over(&self, p: Protocol) -> bool {
        p == Protocol::Tcp || self.protocol() == p
    }
    /// Size on the wire of a UDP source's packets; None for TCP applications, whose segment
    /// size comes from the flow's resolved TCP settings.
    pub fn packet_size(&self) -> Option<Bytes> {
        match self {
            AppConfig::Cbr { packet_size, .. }
            | AppConfig::Poisson { packet_size, .. }
            | AppConfig::Onoff { packet_size, .. }
            | AppConfig::Mmpp { packet_size, .. } => Some(*packet_size),
            AppConfig::Bulk { .. }
            | AppConfig::Transfer { .. }
            | AppConfig::Web { .. }
            | AppConfig::Ns2Telnet { .. } => None,
        }
    }
}
