//! TCP as sans-IO endpoints: a sender ([`sender::TcpSender`]) and a receiver
//! ([`receiver::TcpReceiver`]) driven by the simulation through [`crate::endpoint::Endpoint`].
//!
//! * [`config`]: the per-flow `tcp = { ... }` table, presets `ns2` / `ns3` / `linux`.
//! * [`rtt`]: RFC 6298 retransmission timer. [`sack`]: RFC 6675 scoreboard.
//! * [`cc`]: congestion control, one file per algorithm (Tahoe, Reno, NewReno, Vegas, CUBIC, BBR).
//! * [`pacing`]: paced release of segments. [`rate`]: delivery-rate estimation (for BBR).
//! * [`app`]: bulk, finite transfer and web (request/response) applications.
//!
//! docs/models/tcp.md describes the model, its defaults and their sources.

pub mod accecn;
pub mod app;
pub mod cc;
pub mod config;
mod config_checks;
mod config_presets;
pub mod flavour;
pub mod full;
pub mod linux_ack;
pub mod ns2_agent;
pub mod ns2_sacker;
pub mod pacing;
pub mod rack;
pub mod rate;
pub mod receiver;
pub mod rtt;
pub mod sack;
pub mod sender;

#[cfg(test)]
mod tests;

pub use config::{CcKind, Preset, TcpOptions, TcpParams};
pub use receiver::TcpReceiver;
pub use sender::TcpSender;
