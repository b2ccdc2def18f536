//! What the scenario builder found that the network itself does not hold, kept on the
//! `Simulation` for the report and `validate --json` (`resolved.rs`): the queue limits it sized
//! from BDP or time (`scenario/limits.rs`) and its warnings about the scenario as a whole
//! (`scenario/recipes.rs`).

use serde::Serialize;

/// A queue limit given as `"0.5BDP"` or `"20ms"`, sized when the network was built
/// (`scenario/limits.rs` says how).
#[derive(Debug, Clone, Serialize)]
pub struct SizedLimit {
    /// The output port whose queue it sizes.
    #[serde(skip)]
    pub port: u32,
    /// The queue's own `limit` (not one of its classes').
    #[serde(skip)]
    pub top: bool,
    pub link: String,
    pub from: String,
    pub to: String,
    /// The scenario field it was given in.
    pub field: String,
    /// As given (`"0.5BDP"`).
    pub given: String,
    /// As the discipline enforces it (`"29p"`, `"43750B"`).
    pub resolved: String,
    /// `packets` or `bytes`: what the discipline's own default limit counts.
    pub unit: &'static str,
    pub rate_bps: u64,
    /// The limit in bytes before rounding.
    pub bytes: f64,
    /// The packet size the bytes were counted in (the mean data packet of the crossing flows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packet_size_bytes: Option<f64>,
    /// The time given, for a limit in time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_s: Option<f64>,
    /// The bandwidth-delay product used, for a limit in BDP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bdp: Option<SizedBdp>,
}

/// A link's bandwidth-delay product: its rate times the RTT of the flows crossing it.
#[derive(Debug, Clone, Serialize)]
pub struct SizedBdp {
    pub rtt_s: f64,
    /// Which RTT: the mean two-way propagation delay of the crossing flows.
    pub rtt_is: &'static str,
    /// How many flows cross the link (the RTT's mean is over them).
    pub flows: usize,
    pub bits: f64,
    pub bytes: f64,
    /// In packets of `packet_size_bytes` (absent for a discipline counting bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packets: Option<f64>,
}

/// What the scenario builder found that the network itself does not hold: the limits it
/// sized and its warnings about the scenario as a whole (recipes, `scenario/recipes.rs`).
#[derive(Debug, Clone, Default)]
pub struct BuildNotes {
    pub sized_limits: Vec<SizedLimit>,
    pub warnings: Vec<String>,
}

impl BuildNotes {
    /// The limits sized for output port `port`.
    pub fn limits_of(&self, port: u32) -> Vec<SizedLimit> {
        self.sized_limits
            .iter()
            .filter(|l| l.port == port)
            .cloned()
            .collect()
    }
}
