//! PIE, Proportional Integral controller Enhanced (Pan, Natarajan, Piglione, Prabhu, Subramanian,
//! Baker & VerSteeg, RFC 8033, 2017), following the RFC's sections 4 and 5 and Linux
//! `net/sched/sch_pie.c`:
//! * every `tupdate` (T_UPDATE) the drop probability moves by
//!   `p = alpha (qdelay - target) + beta (qdelay - qdelay_old)` (seconds, alpha/beta in 1/s),
//!   scaled down while drop_prob is small (/2048 below 1e-6, /512 below 1e-5, /128 below 1e-4,
//!   /32 below 1e-3, /8 below 1e-2, /2 below 0.1; RFC 8033 section 4.2), capped at +0.02 per
//!   update once drop_prob >= 0.1 (section 4.2 / Linux), decayed by 0.98 when the queue delay
//!   is zero twice in a row, and kept in [0, 1];
//! * the burst allowance (MAX_BURST) shrinks by T_UPDATE at each update and is restored when
//!   drop_prob is 0 and both delays are below target / 2;
//! * at enqueue (section 4.1): no drop while there is burst allowance left, while
//!   `qdelay_old < target/2 and drop_prob < 0.2`, or while at most 2 mean packets are queued;
//!   otherwise drop with probability drop_prob (ECN-capable packets are marked instead while
//!   drop_prob <= 0.1 when `ecn`, section 5.1);
//! * the queue delay is the sojourn time of the last dequeued packet, 0 once the queue is empty
//!   (the timestamp method Linux and ns-3 use by default; RFC 8033 section 5.2 allows it in
//!   place of the departure-rate estimate). The optional de-randomisation (section 5.1) and
//!   Linux's extra +2 % above 250 ms are not modelled.
//!
//! Defaults: `linux` (RFC 8033, sch_pie): target 15 ms, T_UPDATE 15 ms, limit 1000p, mean packet
//! 1500 B; `ns3` (PieQueueDisc): target 20 ms, Tupdate 30 ms, limit 25p, MeanPktSize 1000 B.
//! Both: alpha 0.125, beta 1.25, MAX_BURST 150 ms. Updates run lazily at the first queue event at
//! or after each due time, as many as are due, with the state of that moment.

use super::{DropReason, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::scenario::queue_config::{AqmPreset, PieConfig};
use crate::units::{QueueLimit, SimTime};
use rand::RngExt;
use std::collections::VecDeque;

pub fn configured_limit(cfg: &PieConfig) -> QueueLimit {
    cfg.limit.unwrap_or(match cfg.preset {
        AqmPreset::Linux => QueueLimit::Packets(1000),
        AqmPreset::Ns3 => QueueLimit::Packets(25),
    })
}

#[derive(Clone, Debug)]
pub struct PieParams {
    pub target: f64,
    pub tupdate: SimTime,
    pub alpha: f64,
    pub beta: f64,
    pub max_burst: f64,
    pub ecn: bool,
    pub mean_pktsize: u64,
}

/// RFC 8033 section 4.2: the probability step for the current state.
pub fn pie_step(p: &PieParams, drop_prob: f64, qdelay: f64, qdelay_old: f64) -> f64 {
    let mut d = p.alpha * (qdelay - p.target) + p.beta * (qdelay - qdelay_old);
    d /= if drop_prob < 1e-6 {
        2048.0
    } else if drop_prob < 1e-5 {
        512.0
    } else if drop_prob < 1e-4 {
        128.0
    } else if drop_prob < 1e-3 {
        32.0
    } else if drop_prob < 1e-2 {
        8.0
    } else if drop_prob < 0.1 {
        2.0
    } else {
        1.0
    };
    if drop_prob >= 0.1 && d > 0.02 {
        d = 0.02;
    }
    d
}

pub struct Pie {
    q: VecDeque<Packet>,
    bytes: u64,
    limit: QueueLimit,
    pub params: PieParams,
    pub drop_prob: f64,
    qdelay: f64,
    qdelay_old: f64,
    burst_allowance: f64,
    next_update: SimTime,
}

impl Pie {
    pub fn new(cfg: &PieConfig) -> Self {
        let linux = cfg.preset == AqmPreset::Linux;
        let params = PieParams {
            target: cfg.target.map(|t| t.as_secs_f64()).unwrap_or(if linux {
                0.015
            } else {
                0.020
            }),
            tupdate: cfg.tupdate.unwrap_or(SimTime::from_secs_f64(if linux {
                0.015
            } else {
                0.030
            })),
            alpha: cfg.alpha.unwrap_or(0.125),
            beta: cfg.beta.unwrap_or(1.25),
            max_burst: cfg.max_burst.map(|t| t.as_secs_f64()).unwrap_or(0.150),
            ecn: cfg.ecn.unwrap_or(false),
            mean_pktsize: cfg
                .mean_pktsize
                .map(|b| b.0)
                .unwrap_or(if linux { 1500 } else { 1000 }),
        };
        Self {
            q: VecDeque::new(),
            bytes: 0,
            limit: configured_limit(cfg),
            next_update: params.tupdate,
            burst_allowance: params.max_burst,
            params,
            drop_prob: 0.0,
            qdelay: 0.0,
            qdelay_old: 0.0,
        }
    }

    /// One T_UPDATE step (RFC 8033 section 4.2).
    pub fn update(&mut self) {
        let p = &self.params;
        let d = pie_step(p, self.drop_prob, self.qdelay, self.qdelay_old);
        self.drop_prob += d;
        if self.qdelay == 0.0 && self.qdelay_old == 0.0 {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        self.burst_allowance = (self.burst_allowance - p.tupdate.as_secs_f64()).max(0.0);
        if self.drop_prob == 0.0 && self.qdelay < p.target / 2.0 && self.qdelay_old < p.target / 2.0
        {
            self.burst_allowance = p.max_burst;
        }
        self.qdelay_old = self.qdelay;
    }

    fn catch_up(&mut self, now: SimTime) {
        while now >= self.next_update {
            self.update();
            self.next_update = self.next_update + self.params.tupdate;
        }
    }

    #[cfg(test)]
    pub(crate) fn set_state(&mut self, drop_prob: f64, qdelay: f64, qdelay_old: f64) {
        self.drop_prob = drop_prob;
        self.qdelay = qdelay;
        self.qdelay_old = qdelay_old;
    }
}

impl QueueDisc for Pie {
    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QueueCtx) {
        self.catch_up(cx.now);
        let full = match self.limit {
            QueueLimit::Packets(l) => self.q.len() as u64 + 1 > l,
            QueueLimit::Bytes(l) => self.bytes + pkt.size as u64 > l,
        };
        if full {
            cx.drop(pkt, DropReason::QueueFull);
            return;
        }
        let p = &self.params;
        let exempt = self.burst_allowance > 0.0
            || (self.qdelay_old < p.target / 2.0 && self.drop_prob < 0.2)
            || self.bytes <= 2 * p.mean_pktsize;
        if !exempt {
            let u: f64 = cx.rng.random();
            if u < self.drop_prob {
                let marked = p.ecn && self.drop_prob <= 0.1 && cx.mark(&mut pkt);
                if !marked {
                    cx.drop(pkt, DropReason::Pie);
                    return;
                }
            }
        }
        self.bytes += pkt.size as u64;
        self.q.push_back(pkt);
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        self.catch_up(cx.now);
        let p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        self.qdelay = if self.q.is_empty() {
            0.0
        } else {
            cx.now.saturating_sub(p.enqueued).as_secs_f64()
        };
        Some(p)
    }

    fn len_packets(&self) -> usize {
        self.q.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn kind(&self) -> &'static str {
        "pie"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pie(preset: AqmPreset) -> Pie {
        Pie::new(&PieConfig {
            preset,
            ..Default::default()
        })
    }

    // ---- the probability update follows RFC 8033 section 4.2 ----
    #[test]
    fn update_follows_rfc8033() {
        let mut q = pie(AqmPreset::Linux);
        // drop_prob 0.05 (< 0.1: step halved), qdelay 25 ms, old 20 ms, target 15 ms
        q.set_state(0.05, 0.025, 0.020);
        q.update();
        let want = 0.05 + (0.125 * (0.025 - 0.015) + 1.25 * (0.025 - 0.020)) / 2.0;
        assert!((q.drop_prob - want).abs() < 1e-12, "{}", q.drop_prob);
        // tiny probabilities move in tiny steps
        q.set_state(0.0, 0.025, 0.020);
        q.update();
        let want = (0.125 * 0.010 + 1.25 * 0.005) / 2048.0;
        assert!((q.drop_prob - want).abs() < 1e-15);
        // above 0.1 the increase is capped at 2 %
        q.set_state(0.3, 0.5, 0.1);
        q.update();
        assert!((q.drop_prob - 0.32).abs() < 1e-12);
        // decay when the queue stays empty
        q.set_state(0.5, 0.0, 0.0);
        q.update();
        let want = (0.5 + pie_step(&q.params, 0.5, 0.0, 0.0)) * 0.98;
        assert!((q.drop_prob - want).abs() < 1e-12);
        // never negative
        q.set_state(0.0001, 0.0, 0.05);
        q.update();
        assert!(q.drop_prob >= 0.0);
    }

    #[test]
    fn presets_differ_in_target_and_tupdate() {
        let l = pie(AqmPreset::Linux);
        let n = pie(AqmPreset::Ns3);
        assert_eq!(
            (l.params.target, l.params.tupdate),
            (0.015, SimTime::from_secs_f64(0.015))
        );
        assert_eq!(
            (n.params.target, n.params.tupdate),
            (0.020, SimTime::from_secs_f64(0.030))
        );
        assert_eq!(
            configured_limit(&PieConfig::default()),
            QueueLimit::Packets(1000)
        );
    }

    // ---- under a standing queue the probability rises and packets are dropped ----
    #[test]
    fn standing_queue_raises_probability() {
        use super::super::harness::Harness;
        use crate::units::Rate;
        let mut h = Harness::new(Box::new(pie(AqmPreset::Linux)), Rate(10_000_000));
        // 2 arrivals per ms, 1 departure per ms: the queue builds up
        for i in 0..2000u64 {
            let now = SimTime::from_secs_f64(i as f64 / 1000.0);
            for _ in 0..2 {
                let p = h.packet(0, 1000);
                h.enqueue(now, p);
            }
            h.dequeue(now);
        }
        assert!(h.dropped.iter().any(|(_, r)| *r == DropReason::Pie));
    }
}
