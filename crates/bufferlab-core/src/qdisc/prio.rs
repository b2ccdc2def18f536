//! Strict priority by the flow's `class`: band = min(class, bands - 1); the lowest non-empty
//! band is always served first (Linux `sch_prio` numbering: band 0 is the highest priority).
//! Each band is a FIFO with its own limit (tail drop, `len + 1 > limit`).
//!
//! Defaults: 3 bands (Linux `prio`), 100 packets per band (bufferlab's DropTail default).

use super::{DropReason, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::units::QueueLimit;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

// ---------------------------------------------------------------- configuration

/// Strict priority by the flow's `class`: band = min(class, bands - 1), band 0 served first
/// (Linux `prio` numbering).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PrioConfig {
    /// Number of bands (default 3, Linux `prio`).
    #[serde(default = "default_bands")]
    pub bands: u32,
    /// Limit of each band's FIFO (default 100p, bufferlab's DropTail default).
    #[serde(default = "default_band_limit")]
    pub limit: QueueLimit,
}

fn default_bands() -> u32 {
    3
}
fn default_band_limit() -> QueueLimit {
    QueueLimit::Packets(100)
}

impl PrioConfig {
    /// Checks values serde cannot: (field relative to the queue, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        // a flow's class (0 to 255) picks the band: more bands than 256 are never used, and
        // every band is allocated when the port is built
        if self.bands == 0 || self.bands > 256 {
            return Err((
                "bands".into(),
                "give 1 to 256 bands, one per flow class used (Linux default 3)".into(),
            ));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- the discipline

/// Bytes one port's bands take when it is built (for the estimate of `scenario/bounds.rs`).
pub fn state_bytes(cfg: &PrioConfig) -> u64 {
    cfg.bands as u64 * std::mem::size_of::<(VecDeque<Packet>, u64)>() as u64
}

pub struct Prio {
    bands: Vec<(VecDeque<Packet>, u64)>,
    limit: QueueLimit,
    len: usize,
    bytes: u64,
}

impl Prio {
    pub fn new(cfg: &PrioConfig) -> Self {
        Self {
            bands: (0..cfg.bands.max(1))
                .map(|_| (VecDeque::new(), 0))
                .collect(),
            limit: cfg.limit,
            len: 0,
            bytes: 0,
        }
    }
}

impl QueueDisc for Prio {
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        let b = (pkt.class as usize).min(self.bands.len() - 1);
        let (q, bytes) = &mut self.bands[b];
        let full = match self.limit {
            QueueLimit::Packets(l) => q.len() as u64 + 1 > l,
            QueueLimit::Bytes(l) => *bytes + pkt.size as u64 > l,
        };
        if full {
            cx.drop(pkt, DropReason::QueueFull);
            return;
        }
        *bytes += pkt.size as u64;
        self.bytes += pkt.size as u64;
        self.len += 1;
        q.push_back(pkt);
    }

    fn dequeue(&mut self, _cx: &mut QueueCtx) -> Option<Packet> {
        for (q, bytes) in self.bands.iter_mut() {
            if let Some(p) = q.pop_front() {
                *bytes -= p.size as u64;
                self.bytes -= p.size as u64;
                self.len -= 1;
                return Some(p);
            }
        }
        None
    }

    fn len_packets(&self) -> usize {
        self.len
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn kind(&self) -> &'static str {
        "prio"
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::*;
    use crate::units::{Rate, SimTime};

    // ---- the highest band always goes first ----
    #[test]
    fn bands_beyond_the_classes_are_refused() {
        let c = |bands| PrioConfig {
            bands,
            limit: default_band_limit(),
        };
        assert_eq!(c(0).validate().unwrap_err().0, "bands");
        assert_eq!(c(257).validate().unwrap_err().0, "bands");
        assert!(c(256).validate().is_ok());
    }

    #[test]
    fn lower_band_served_first() {
        let cfg = PrioConfig {
            bands: 3,
            limit: QueueLimit::Packets(10),
        };
        let mut h = Harness::new(Box::new(Prio::new(&cfg)), Rate(1_000_000));
        for class in [2u8, 1, 0, 5, 0] {
            let mut p = h.packet(class as u32, 100);
            p.class = class;
            h.enqueue(SimTime(0), p);
        }
        let order: Vec<u8> =
            std::iter::from_fn(|| h.dequeue(SimTime(1)).map(|p| p.class)).collect();
        assert_eq!(order, vec![0, 0, 1, 2, 5]);
    }
}
