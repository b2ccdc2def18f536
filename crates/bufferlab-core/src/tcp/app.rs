//! Applications over TCP: what the sender has to send and when.
//!
//! * `bulk`: always has data (ns-2 `Application/FTP`, ns-3 `BulkSendApplication`).
//! * `transfer`: one file of N bytes, then FIN; the completion time is when the FIN is acknowledged.
//! * `web`: a persistent connection carrying objects one after another (HTTP/1.1 without
//!   pipelining): an object of a random size is written; once it is fully acknowledged the
//!   client "thinks" for a random time and the next object is written. The response time of
//!   an object is from its write to its last byte acknowledged. The request itself is not
//!   sent as a packet (it would add one one-way delay to each response time).
//! * a packet source (`cbr`, `poisson`, `onoff`) with `protocol = "tcp"`: each emission of the
//!   source writes its `packet_size` bytes into the connection, as ns-3's `OnOffApplication`
//!   on a TCP socket (`OnOffApplication::SendPacket` calls `Socket::Send` with `PacketSize`
//!   bytes every `PacketSize * 8 / DataRate` during an on-period). TCP sends them as the
//!   window allows, so an on/off source is bulk TCP that pauses and resumes (seed 003). A
//!   write that does not fit the send buffer is refused and lost, as `Socket::Send` fails
//!   there; with an unlimited send buffer (the ns2 preset) nothing is refused.

use crate::rng::Rng;
use crate::traffic::{Distribution, Generator, ObjectSize};
use crate::units::SimTime;
use rand::RngExt;
use rand_distr::Distribution as _;

pub enum TcpApp {
    Bulk,
    Transfer {
        bytes: u64,
    },
    Web {
        size: ObjectSize,
        think: Distribution,
        /// Objects to fetch (None: until the flow stops).
        objects: Option<u32>,
        rng: Rng,
    },
    /// A packet source's emissions, written into the connection.
    Writes {
        gen: Box<dyn Generator>,
        rng: Rng,
        /// The next emission (time, bytes), if any.
        pending: Option<(SimTime, u32)>,
        /// Bytes written into the connection.
        written_bytes: u64,
        /// Bytes written while the send buffer was full (lost, as a failed `Socket::Send`).
        refused_bytes: u64,
    },
}

impl TcpApp {
    /// A packet source written into the connection.
    pub fn writes(mut gen: Box<dyn Generator>, mut rng: Rng) -> TcpApp {
        let pending = gen.next(&mut rng);
        TcpApp::Writes {
            gen,
            rng,
            pending,
            written_bytes: 0,
            refused_bytes: 0,
        }
    }

    /// A CBR source's new `rate_` and `packetSize_` (`Endpoint::set_cbr_rate`): the
    /// pending write keeps its time and writes the new size (trafgen.cc
    /// `TrafficGenerator::timeout` sends `size_` as it is then, through the agent's
    /// `sendmsg`); the gap after it is the new one.
    pub fn set_cbr_rate(&mut self, rate_bps: f64, size: u32) -> Result<(), String> {
        let TcpApp::Writes { gen, pending, .. } = self else {
            return Err("its application is not a CBR source".into());
        };
        if !gen.set_cbr_rate(rate_bps, size) {
            return Err("its application is not a CBR source".into());
        }
        if let Some((_, s)) = pending {
            *s = size;
        }
        Ok(())
    }

    /// A Telnet's new `interval_` (`Endpoint::set_telnet_interval`): the gap drawn after
    /// the pending write uses it (telnet.cc `next`).
    pub fn set_telnet_interval(&mut self, interval_s: f64) -> Result<(), String> {
        match self {
            TcpApp::Writes { gen, .. } => {
                if gen.set_telnet_interval(interval_s) {
                    return Ok(());
                }
                Err("its application is not an ns-2 Telnet".into())
            }
            _ => Err("its application is not an ns-2 Telnet".into()),
        }
    }

    /// The pending write's time and, for a source that adds its times up in ns-2's double
    /// seconds (a CBR with `clock = "ns2"`), that double: the engine keys the write's event
    /// with it, so a script's `$ns at 2.0` runs before a CBR packet at 2.0000000000000013
    /// (0.01 + 199 x 0.01 s), as in ns-2's scheduler.
    pub fn pending_s(&self) -> Option<(SimTime, f64)> {
        let TcpApp::Writes { gen, pending, .. } = self else {
            return None;
        };
        Some(((*pending)?.0, gen.next_s()?))
    }

    pub fn kind(&self) -> &'static str {
        match self {
            TcpApp::Bulk => "bulk",
            TcpApp::Transfer { .. } => "transfer",
            TcpApp::Web { .. } => "web",
            TcpApp::Writes { .. } => "writes",
        }
    }
}

/// Draws an object size in bytes (at least 1).
pub fn sample_size(d: &ObjectSize, rng: &mut Rng) -> u64 {
    let v = match d {
        ObjectSize::Constant { value } => value.0 as f64,
        ObjectSize::Uniform { min, max } => {
            if max.0 <= min.0 {
                min.0 as f64
            } else {
                rng.random_range(min.0..=max.0) as f64
            }
        }
        ObjectSize::Exponential { mean } => crate::traffic::exp_sample(rng, mean.0 as f64),
        ObjectSize::Pareto { mean, shape } => {
            let scale = mean.0 as f64 * (shape - 1.0) / shape;
            rand_distr::Pareto::new(scale, *shape)
                .map(|p| p.sample(rng))
                .unwrap_or(mean.0 as f64)
        }
    };
    (v.round() as u64).max(1)
}

/// Draws a think time.
pub fn sample_think(d: &Distribution, rng: &mut Rng) -> SimTime {
    crate::traffic::sample(d, rng)
}
