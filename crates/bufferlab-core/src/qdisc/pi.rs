//! PI, the proportional-integral AQM controller of Hollot, Misra, Towsley & Gong, "On Designing
//! Improved Controllers for AQM Routers Supporting TCP Flows", IEEE INFOCOM 2001 (section IV,
//! the discrete controller of equation (14)), as ns-2.35 implements it (`queue/pi.cc`,
//! `PIQueue::enque`, `calculate_p`, `drop_early`; defaults from `tcl/lib/ns-default.tcl`).
//!
//! * Every 1/w seconds (`calculate_p`, a timer restarted at each update):
//!   `p = a (q - q_ref) - b (q_old - q_ref) + p_old`, clamped to [0, 1], then `q_old = q`.
//!   q is the queue length in packets (in `queue_in_bytes` mode in bytes / `mean_pktsize`).
//! * Arrival (`enque`): a full queue (`q >= limit`, tested before the arrival) drops it
//!   (forced, `queue_full`); otherwise it is dropped with probability p (`drop_early`,
//!   `u <= p`; with `byte_mode`, p x size / mean_pktsize), reported as `pi`, or marked CE when
//!   `ecn` is on and the packet is ECN-capable (ns-2 `setbit_`).
//!
//! The queue changes only at arrivals and departures, so the periodic updates are applied when
//! the next one happens, each with the length the queue had at its instant: the same values as
//! a timer, without an event per period. Updates fall at k/w from the start of the run.
//!
//! Defaults (ns-2.35 `ns-default.tcl` `Queue/PI`): a = 1.822e-5, b = 1.816e-5 (the design
//! example of Hollot et al. 2001, section V), w = 170 Hz, q_ref = 50 packets, mean_pktsize
//! 500 B, packet mode, no ECN; the limit is ns-2's `Queue set limit_ 50` packets.

use super::{DropReason, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::units::{Bytes, QueueLimit, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

// ---------------------------------------------------------------- configuration

/// PI (Hollot et al. 2001), as ns-2's `Queue/PI`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PiConfig {
    /// Capacity in packets (or bytes with `queue_in_bytes`). Default 50p (ns-2 `Queue limit_`).
    #[serde(default = "default_limit")]
    pub limit: QueueLimit,
    /// Target queue length q_ref in packets (ns-2 `qref_` 50).
    #[serde(default = "default_qref")]
    pub qref: f64,
    /// Gain a on the current error (ns-2 `a_` 1.822e-5, Hollot et al. 2001 section V).
    #[serde(default = "default_a")]
    pub a: f64,
    /// Gain b on the previous error (ns-2 `b_` 1.816e-5).
    #[serde(default = "default_b")]
    pub b: f64,
    /// Sampling frequency w in Hz: p is updated every 1/w s (ns-2 `w_` 170).
    #[serde(default = "default_w")]
    pub w: f64,
    /// Mean packet size for byte mode and byte queues (ns-2 `mean_pktsize_` 500).
    #[serde(default = "default_mean_pktsize")]
    pub mean_pktsize: Bytes,
    /// Scale p by the packet's size / mean_pktsize (ns-2 `bytes_`, default false).
    #[serde(default)]
    pub byte_mode: bool,
    /// Measure the queue in bytes / mean_pktsize (ns-2 `queue_in_bytes_`, default false).
    #[serde(default)]
    pub queue_in_bytes: bool,
    /// Mark ECN-capable packets instead of dropping them (ns-2 `setbit_`, default false).
    #[serde(default)]
    pub ecn: bool,
}

fn default_limit() -> QueueLimit {
    QueueLimit::Packets(50)
}
fn default_qref() -> f64 {
    50.0
}
fn default_a() -> f64 {
    1.822e-5
}
fn default_b() -> f64 {
    1.816e-5
}
fn default_w() -> f64 {
    170.0
}
fn default_mean_pktsize() -> Bytes {
    Bytes(500)
}

impl Default for PiConfig {
    fn default() -> Self {
        Self {
            limit: default_limit(),
            qref: default_qref(),
            a: default_a(),
            b: default_b(),
            w: default_w(),
            mean_pktsize: default_mean_pktsize(),
            byte_mode: false,
            queue_in_bytes: false,
            ecn: false,
        }
    }
}

impl PiConfig {
    /// Checks values serde cannot: (field relative to the queue, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        for (field, v) in [("a", self.a), ("b", self.b), ("qref", self.qref)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err((
                    field.into(),
                    format!("{v}: give a finite value >= 0 (ns-2 defaults a 1.822e-5, b 1.816e-5, qref 50)"),
                ));
            }
        }
        if !(self.w.is_finite() && self.w > 0.0 && self.w <= 1e6) {
            return Err((
                "w".into(),
                format!(
                    "{}: give a sampling frequency in (0, 1e6] Hz (ns-2 default 170)",
                    self.w
                ),
            ));
        }
        if self.mean_pktsize.0 == 0 {
            return Err((
                "mean_pktsize".into(),
                "must be at least 1B (ns-2 default 500B)".into(),
            ));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- the discipline

pub struct Pi {
    cfg: PiConfig,
    q: VecDeque<Packet>,
    bytes: u64,
    /// The drop probability of the last update.
    p: f64,
    /// The queue length at the last update (ns-2 `qold`).
    q_old: f64,
    /// Updates applied so far: the next falls at (done + 1) / w.
    done: u64,
    /// ns-2's `curq_`: the queue (packets, or bytes in `queue_in_bytes` mode) the last arrival
    /// found, or what the last departure left (pi.cc `enque`, `deque`).
    curq: u64,
}

impl Pi {
    pub fn new(cfg: &PiConfig) -> Self {
        Self {
            cfg: cfg.clone(),
            q: VecDeque::new(),
            bytes: 0,
            p: 0.0,
            q_old: 0.0,
            done: 0,
            curq: 0,
        }
    }

    /// The queue length the controller sees (ns-2 `qlen`, or bytes / mean_pktsize).
    fn qlen(&self) -> f64 {
        if self.cfg.queue_in_bytes {
            self.bytes as f64 / self.cfg.mean_pktsize.0 as f64
        } else {
            self.q.len() as f64
        }
    }

    /// Applies every periodic update due by `now` (`calculate_p`), with the length the queue
    /// has had since the last arrival or departure.
    fn update(&mut self, now: SimTime) {
        if let Some((p, due)) = self.updated(now) {
            self.p = p;
            self.q_old = self.qlen();
            self.done = due;
        }
    }

    /// p after the updates due by `now` and the number of updates done then, or None when
    /// none is due.
    fn updated(&self, now: SimTime) -> Option<(f64, u64)> {
        let due = (now.as_secs_f64() * self.cfg.w).floor() as u64;
        if due <= self.done {
            return None;
        }
        let k = due - self.done;
        let (a, b, r) = (self.cfg.a, self.cfg.b, self.cfg.qref);
        let q = self.qlen();
        // The first update uses the previous sample; the k - 1 after it see q_old = q, so each
        // adds (a - b)(q - q_ref): a monotone walk, clamped once at the end.
        let p = (a * (q - r) - b * (self.q_old - r) + self.p).clamp(0.0, 1.0);
        Some((
            (p + (k - 1) as f64 * (a - b) * (q - r)).clamp(0.0, 1.0),
            due,
        ))
    }

    /// The queue in ns-2's `curq_` unit: packets, or bytes in `queue_in_bytes` mode.
    fn raw_len(&self) -> u64 {
        if self.cfg.queue_in_bytes {
            self.bytes
        } else {
            self.q.len() as u64
        }
    }

    /// The current drop probability (for tests and series).
    pub fn probability(&self) -> f64 {
        self.p
    }
}

impl QueueDisc for Pi {
    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QueueCtx) {
        self.update(cx.now);
        self.curq = self.raw_len();
        let full = match self.cfg.limit {
            QueueLimit::Packets(n) => self.q.len() as u64 >= n,
            // ns-2 byte queues: qlen >= qlim_ x mean_pktsize (here the limit is given in bytes)
            QueueLimit::Bytes(b) => self.bytes >= b,
        };
        if full {
            cx.drop(pkt, DropReason::QueueFull);
            return;
        }
        let mut p = self.p;
        if self.cfg.byte_mode {
            p = (p * pkt.size as f64 / self.cfg.mean_pktsize.0 as f64).min(1.0);
        }
        // ns-2 drop_early: u <= p drops (so p = 0 never does: u is drawn from [0, 1) here);
        // ns-2 draws u at every arrival it does not force-drop, which moves its default RNG
        let draw = p > 0.0 || cx.rng().is_ns2_default();
        if draw && cx.rng().uniform01() <= p && !(self.cfg.ecn && cx.mark(&mut pkt)) {
            cx.drop(pkt, DropReason::Pi);
            return;
        }
        self.bytes += pkt.size as u64;
        self.q.push_back(pkt);
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        self.update(cx.now);
        let pkt = self.q.pop_front()?;
        self.bytes -= pkt.size as u64;
        self.curq = self.raw_len();
        Some(pkt)
    }

    fn probability_at(&self, now: SimTime) -> Option<f64> {
        Some(self.updated(now).map_or(self.p, |(p, _)| p))
    }

    fn arrival_length(&self) -> Option<f64> {
        Some(self.curq as f64)
    }

    fn len_packets(&self) -> usize {
        self.q.len()
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn kind(&self) -> &'static str {
        "pi"
    }
}

/// The hard limit (for the builder's check that one packet fits).
pub fn configured_limit(cfg: &PiConfig) -> QueueLimit {
    cfg.limit
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::*;
    use crate::units::Rate;

    fn harness(cfg: PiConfig) -> Harness {
        Harness::new(Box::new(Pi::new(&cfg)), Rate(10_000_000))
    }

    // ---- the controller (Hollot et al. 2001 eq. 14, ns-2 calculate_p) ----
    #[test]
    fn the_lazy_updates_equal_a_timer_at_every_period() {
        let cfg = PiConfig {
            a: 0.002,
            b: 0.0019,
            ..PiConfig::default()
        };
        let mut lazy = Pi::new(&cfg);
        let mut step = Pi::new(&cfg);
        // 80 packets standing from t = 0: the timer sees q = 80 at every period.
        for _ in 0..80 {
            let p = Packet {
                size: 1000,
                ..Packet::default()
            };
            lazy.bytes += 1000;
            lazy.q.push_back(p);
            step.bytes += 1000;
            step.q.push_back(p);
        }
        let period = 1.0 / cfg.w;
        for k in 1..=40u64 {
            step.update(SimTime::from_secs_f64(k as f64 * period + 1e-9));
        }
        lazy.update(SimTime::from_secs_f64(40.0 * period + 1e-9));
        assert!((lazy.p - step.p).abs() < 1e-12, "{} vs {}", lazy.p, step.p);
        // by hand: the first update a(80-50) - b(0-50), then 39 x (a - b) x 30
        let want = 0.002 * 30.0 + 0.0019 * 50.0 + 39.0 * 0.0001 * 30.0;
        assert!((lazy.p - want).abs() < 1e-12, "{} vs {want}", lazy.p);
    }

    #[test]
    fn p_is_clamped_to_zero_and_one() {
        let cfg = PiConfig {
            a: 0.5,
            b: 0.1,
            qref: 10.0,
            ..PiConfig::default()
        };
        let mut d = Pi::new(&cfg);
        d.update(SimTime::from_secs(10));
        assert_eq!(d.p, 0.0, "an empty queue below q_ref never goes negative");
        for _ in 0..40 {
            d.q.push_back(Packet::default());
        }
        d.update(SimTime::from_secs(20));
        assert_eq!(d.p, 1.0);
    }

    // ---- arrivals (ns-2 enque, drop_early) ----
    #[test]
    fn a_full_queue_drops_by_its_limit_and_p_zero_never_drops_early() {
        let mut h = harness(PiConfig {
            limit: QueueLimit::Packets(5),
            ..PiConfig::default()
        });
        for _ in 0..8 {
            let p = h.packet(0, 1000);
            h.enqueue(SimTime::ZERO, p);
        }
        assert_eq!(h.q.len_packets(), 5);
        assert_eq!(h.dropped.len(), 3);
        assert!(h.dropped.iter().all(|(_, r)| *r == DropReason::QueueFull));
    }

    #[test]
    fn early_drops_happen_with_probability_p() {
        let cfg = PiConfig {
            limit: QueueLimit::Packets(1_000_000),
            ..PiConfig::default()
        };
        let mut d = Pi::new(&cfg);
        d.p = 0.25;
        d.done = u64::MAX / 2; // no update during the test
        let mut h = Harness::new(Box::new(d), Rate(10_000_000));
        let n = 40_000;
        for _ in 0..n {
            let p = h.packet(0, 1000);
            h.enqueue(SimTime::ZERO, p);
        }
        let early = h
            .dropped
            .iter()
            .filter(|(_, r)| *r == DropReason::Pi)
            .count();
        let share = early as f64 / n as f64;
        assert!((share - 0.25).abs() < 0.01, "{share}");
    }

    #[test]
    fn validation_names_the_field() {
        let bad = PiConfig {
            w: 0.0,
            ..PiConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().0, "w");
        let bad = PiConfig {
            a: -1.0,
            ..PiConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().0, "a");
    }
}
