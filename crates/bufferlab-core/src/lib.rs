//! bufferlab-core: a deterministic packet-level network simulator for router buffer sizing
//! and queue management studies. Pure Rust, no Python; the bindings live in `bufferlab-py`.
//!
//! Entry point for front ends: [`api`]. For Rust users: [`scenario::parse`], then
//! [`scenario::build::build`] to get a [`sim::Simulation`], `run()` it and read
//! [`report::Report::from_sim`].

pub mod api;
pub mod clock;
pub mod drop_reason;
pub mod endpoint;
pub mod ext;
pub mod guard;
pub mod ids;
pub mod monitor;
pub mod net;
pub mod notes;
pub mod ns2_rng;
pub mod packet;
pub mod qdisc;
pub mod report;
pub mod resolved;
pub mod rng;
pub mod scenario;
pub mod sched;
pub mod session;
pub mod sim;
pub mod tcp;
pub mod traffic;
pub mod udp;
pub mod units;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
