//! DualPI2, the DualQ Coupled AQM of L4S: RFC 9332 "Dual-Queue Coupled Active Queue Management
//! (AQM) for Low Latency, Low Loss, and Scalable Throughput (L4S)", its Appendix A pseudocode,
//! and Linux `net/sched/sch_dualpi2.c` (mainline 6.x, read through the search tool), whose
//! defaults it takes.
//!
//! * Classification (RFC 9332 section 2.5.1, Linux `dualpi2_skb_classify` with the default
//!   `ecn_mask` ECT(1)): ECT(1) and CE packets go to the L queue, all others to the C queue.
//!   One shared limit (`limit`, 10000 packets in Linux) tail-drops at enqueue.
//! * The base PI controller (RFC 9332 A.2 `dualpi2_update`, Linux `calculate_probability`),
//!   every `tupdate`: p' += alpha * (qdelay - target) + beta * (qdelay - qdelay_old), clamped to
//!   [0, 1], with qdelay the sojourn time of the head packet. Linux takes the larger of the two
//!   heads' sojourn times, the RFC the C queue's; `pi_delay` chooses (default `max`, Linux).
//!   alpha and beta are per second (Hz) of delay error: Linux 0.16 and 3.2 (RFC 9332 A.1
//!   derives 0.1 * Tupdate / RTT_max^2 = 0.16 and 0.3 / RTT_max = 3 for RTT_max = 100 ms).
//! * Coupling (RFC 9332 section 2.4, Linux `must_drop`), at dequeue and only while at least
//!   2 MTU (2 x 1514 bytes, Linux `psched_mtu`) remain queued: a C packet is marked (ECT) or
//!   dropped with p_C = p'^2 (two random draws); an L packet is marked with p_CL = k * p'.
//!   When k * p' > 1 (overload, Linux `drop_overload` on) L packets are treated as C packets,
//!   and the congestion signal becomes a drop.
//! * Native L4S AQM (Linux `do_step_aqm`, `step_thresh` 1 ms; RFC 9332 A.1 shows a ramp from
//!   800 us over 400 us, Linux a step): an L packet whose sojourn exceeds `step_thresh` is
//!   marked CE (dropped if it is not ECN-capable); with `step_packets` (Linux `step_thresh` in
//!   packets, `step_in_packets`), one that leaves more than that many packets behind it.
//! * Scheduler (Linux `dequeue_packet`, `c_protection` 10 %): weighted round robin by bytes on a
//!   credit. With both queues backlogged, L is served while credit <= 0; serving L adds
//!   w_C * size, serving C subtracts w_L * size (w_C = 10, w_L = 90). The credit starts at
//!   MTU * (w_C - w_L) and restarts when both queues are empty. RFC 9332 A.1 leaves the
//!   scheduler open ("time-shifted FIFO or WRR"); this is Linux's.
//! * `min_qlen_step` (Linux, default 0): the step applies only to an L packet that found at
//!   least that many packets in the L queue (`skb_apply_step`, decided at enqueue).
//!
//! Not modelled: GSO splitting, `drop_early` (enqueue-time drops).

use super::shared_config::{refuse_unknown, PiDefaults, PiGains, PiKnobs, UnknownKeys};
use super::{DropReason, QueueCtx, QueueDisc};
use crate::monitor::queue_stats::QueueStats;
use crate::packet::{Ecn, Packet};
use crate::units::{QueueLimit, SimTime};
use rand::RngExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Linux `psched_mtu` of an Ethernet device with a 1500-byte MTU (1500 + 14).
const MTU: u64 = 1514;

/// The base PI controller's defaults (Linux sch_dualpi2, RFC 9332 A.1): target 15 ms, tupdate
/// 16 ms, alpha 0.16 Hz and beta 3.2 Hz (RFC 9332 A.1 derives 0.1 Tupdate / RTT_max^2 = 0.16
/// and 0.3 / RTT_max = 3 for RTT_max = 100 ms; Linux rounds beta to 3.2).
pub const DUALPI2_DEFAULTS: PiDefaults = PiDefaults {
    source: "RFC 9332, Linux sch_dualpi2",
    target_text: "15ms",
    tupdate_text: "16ms",
    target: 0.015,
    tupdate: SimTime::from_millis(16),
    alpha: 0.16,
    beta: 3.2,
};

/// Which head's sojourn time drives the PI controller.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PiDelay {
    /// The larger of the C and L heads' (Linux `calculate_probability`).
    #[default]
    Max,
    /// The C queue's head (RFC 9332 A.2, `cq.time()`).
    Classic,
}

/// DualPI2 (RFC 9332, Linux sch_dualpi2).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct DualPi2Config {
    /// Shared limit of both queues (default 10000p, Linux `limit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<QueueLimit>,
    /// The base PI controller's target, tupdate, alpha and beta (Hz), shared with PIE;
    /// defaults [`DUALPI2_DEFAULTS`].
    #[serde(flatten)]
    pub pi: PiKnobs,
    /// Coupling factor k: p_CL = k p' (default 2, RFC 9332 section 2.4 and Linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<f64>,
    /// L queue step-marking threshold on sojourn time (default 1 ms, Linux `step_thresh`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_thresh: Option<SimTime>,
    /// The L queue's step threshold in packets instead of time (Linux `step_thresh` given in
    /// packets, `TCA_DUALPI2_STEP_THRESH_PKTS`, `step_in_packets`): an L packet is marked when
    /// more than this many packets are left in the L queue as it leaves (`do_step_aqm`:
    /// `qdisc_qlen(l_queue) > step_thresh`). For links whose rate is low or varies, where one
    /// packet's serialisation passes the 1 ms time step. Default: none (the time step).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_packets: Option<u64>,
    /// An L packet is subject to the step only if the L queue held at least this many
    /// packets when it arrived (Linux `min_qlen_step`, `skb_apply_step` at enqueue; default 0,
    /// every L packet, as `tc` shows `min_qlen_step 0p`). A few packets keep one packet's
    /// serialisation at a low link rate from passing the time step alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_qlen_step: Option<u64>,
    /// Share of the C queue in the scheduler, in percent (default 10, Linux `c_protection`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c_protection: Option<u32>,
    /// Under overload (k p' > 1) drop instead of mark (default true, Linux `drop_overload`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_overload: Option<bool>,
    /// The PI controller's delay: `max` of both heads (default, Linux) or `classic` (RFC 9332 A.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pi_delay: Option<PiDelay>,
    /// Keys no field took, refused by `validate`.
    #[serde(flatten, skip_serializing)]
    #[schemars(skip)]
    pub unknown: UnknownKeys,
}

impl DualPi2Config {
    /// Checks values serde cannot: (field, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        let err = |f: &str, m: &str| Err((f.to_string(), m.to_string()));
        refuse_unknown(
            &self.unknown,
            &[
                &["limit"],
                PiKnobs::FIELDS,
                &[
                    "k",
                    "step_thresh",
                    "step_packets",
                    "min_qlen_step",
                    "c_protection",
                    "drop_overload",
                    "pi_delay",
                ],
            ],
        )?;
        self.pi.validate(&DUALPI2_DEFAULTS)?;
        if let Some(k) = self.k {
            if !(k.is_finite() && k > 0.0) {
                return err("k", "the coupling factor must be positive (RFC 9332: 2)");
            }
        }
        if self.step_thresh.is_some() && self.step_packets.is_some() {
            return err(
                "step_packets",
                "give the step in time (step_thresh) or in packets (step_packets), not both",
            );
        }
        if self.c_protection.is_some_and(|c| c > 100) {
            return err("c_protection", "is a percentage: give 0 to 100 (Linux: 10)");
        }
        Ok(())
    }
}

pub fn configured_limit(cfg: &DualPi2Config) -> QueueLimit {
    cfg.limit.unwrap_or(QueueLimit::Packets(10_000))
}

pub struct DualPi2 {
    limit: QueueLimit,
    /// target (s), tupdate, alpha, beta of the base PI controller.
    pi: PiGains,
    k: f64,
    step: SimTime,
    /// The step in packets (`step_packets`), when set.
    step_packets: Option<u64>,
    /// `min_qlen_step`, and per L packet in queue order whether the step applies to it
    /// (kept only when `min_qlen_step` > 0: with 0 it applies to all).
    min_qlen_step: u64,
    l_apply_step: VecDeque<bool>,
    w_c: i64,
    w_l: i64,
    drop_overload: bool,
    pi_delay: PiDelay,
    l: VecDeque<Packet>,
    c: VecDeque<Packet>,
    bytes: u64,
    /// p', the base probability.
    pub prob: f64,
    qdelay_old: f64,
    next_update: SimTime,
    credit: i64,
    /// Per queue (L, C): its statistics from the warm-up on, and the bytes it holds.
    stats: [QueueStats; 2],
    class_bytes: [u64; 2],
}

const L: usize = 0;
const C: usize = 1;

impl DualPi2 {
    pub fn new(cfg: &DualPi2Config) -> Self {
        let w_c = cfg.c_protection.unwrap_or(10).min(100) as i64;
        let pi = cfg.pi.gains(&DUALPI2_DEFAULTS);
        let tupdate = pi.tupdate;
        Self {
            limit: configured_limit(cfg),
            pi,
            k: cfg.k.unwrap_or(2.0),
            step: cfg.step_thresh.unwrap_or(SimTime::from_millis(1)),
            step_packets: cfg.step_packets,
            min_qlen_step: cfg.min_qlen_step.unwrap_or(0),
            l_apply_step: VecDeque::new(),
            w_c,
            w_l: 100 - w_c,
            drop_overload: cfg.drop_overload.unwrap_or(true),
            pi_delay: cfg.pi_delay.unwrap_or_default(),
            l: VecDeque::new(),
            c: VecDeque::new(),
            bytes: 0,
            prob: 0.0,
            qdelay_old: 0.0,
            next_update: tupdate,
            credit: MTU as i64 * (w_c - (100 - w_c)),
            stats: [
                QueueStats::new(SimTime::ZERO),
                QueueStats::new(SimTime::ZERO),
            ],
            class_bytes: [0; 2],
        }
    }

    /// Tells queue `class`'s statistics its length after a change.
    fn note_length(&mut self, class: usize, now: SimTime) {
        let n = if class == L {
            self.l.len()
        } else {
            self.c.len()
        };
        self.stats[class].set_length(now, n as u64, self.class_bytes[class]);
    }

    fn head_sojourn(q: &VecDeque<Packet>, t: SimTime) -> f64 {
        q.front()
            .map_or(0.0, |p| t.saturating_sub(p.enqueued).as_secs_f64())
    }

    /// RFC 9332 A.2 `dualpi2_update` at every `tupdate` boundary up to `now` (the queues do
    /// not change between two calls, so the heads' sojourn times at each boundary are exact).
    fn catch_up(&mut self, now: SimTime) {
        while now >= self.next_update {
            let t = self.next_update;
            let qc = Self::head_sojourn(&self.c, t);
            let qdelay = match self.pi_delay {
                PiDelay::Max => qc.max(Self::head_sojourn(&self.l, t)),
                PiDelay::Classic => qc,
            };
            let delta = self.pi.step(qdelay, self.qdelay_old);
            self.prob = (self.prob + delta).clamp(0.0, 1.0);
            if !self.drop_overload {
                self.prob = self.prob.min(1.0 / self.k);
            }
            self.qdelay_old = qdelay;
            self.next_update = t + self.pi.tupdate;
        }
    }

    fn full(&self, size: u32) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => (self.l.len() + self.c.len()) as u64 >= n,
            QueueLimit::Bytes(b) => self.bytes + size as u64 > b,
        }
    }

    /// Whether the step applies to the L packet just taken from the head (`min_qlen_step`).
    fn l_step_applies(&mut self) -> bool {
        self.min_qlen_step == 0 || self.l_apply_step.pop_front().unwrap_or(true)
    }

    /// Linux `must_drop`: the coupled signal. Returns true when the packet is to be dropped.
    fn coupled(&mut self, class: usize, pkt: &mut Packet, cx: &mut QueueCtx) -> bool {
        if self.bytes < 2 * MTU {
            return false;
        }
        let p = self.prob;
        let p_l = p * self.k;
        let overload = p_l > 1.0;
        let hit = if class == C || overload {
            cx.rng().random::<f64>() < p && cx.rng().random::<f64>() < p
        } else {
            cx.rng().random::<f64>() < p_l
        };
        if !hit {
            return false;
        }
        if overload && self.drop_overload {
            return true;
        }
        if cx.mark(pkt) {
            self.stats[class].on_marks(cx.now, 1);
            false
        } else {
            true
        }
    }
}

impl QueueDisc for DualPi2 {
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        self.catch_up(cx.now);
        let class = if matches!(pkt.ecn, Ecn::Ect1 | Ecn::Ce) {
            L
        } else {
            C
        };
        self.stats[class].on_arrival(cx.now, pkt.size);
        if self.full(pkt.size) {
            self.stats[class].on_drop(cx.now, pkt.size, DropReason::QueueFull);
            cx.drop(pkt, DropReason::QueueFull);
            return;
        }
        self.bytes += pkt.size as u64;
        self.class_bytes[class] += pkt.size as u64;
        if class == L {
            if self.min_qlen_step > 0 {
                // skb_apply_step: the L queue's length before this packet joins it
                let apply = self.l.len() as u64 >= self.min_qlen_step;
                self.l_apply_step.push_back(apply);
            }
            self.l.push_back(pkt);
        } else {
            self.c.push_back(pkt);
        }
        self.note_length(class, cx.now);
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        let now = cx.now;
        self.catch_up(now);
        loop {
            let (class, mut pkt) = if !self.l.is_empty() && (self.c.is_empty() || self.credit <= 0)
            {
                (L, self.l.pop_front()?)
            } else if let Some(p) = self.c.pop_front() {
                (C, p)
            } else {
                self.credit = MTU as i64 * (self.w_c - self.w_l);
                return None;
            };
            let apply_step = class == L && self.l_step_applies();
            let size = pkt.size as i64;
            let change = match class {
                L if !self.c.is_empty() => self.w_c * size,
                C if !self.l.is_empty() => -self.w_l * size,
                _ => 0,
            };
            self.bytes -= pkt.size as u64;
            self.class_bytes[class] -= pkt.size as u64;
            self.note_length(class, now);
            if self.coupled(class, &mut pkt, cx) {
                self.stats[class].on_drop(now, pkt.size, DropReason::DualPi2);
                cx.drop(pkt, DropReason::DualPi2);
                continue;
            }
            let sojourn = now.saturating_sub(pkt.enqueued);
            let above_step = match self.step_packets {
                Some(n) => self.l.len() as u64 > n, // do_step_aqm with step_in_packets
                None => sojourn > self.step,
            };
            if apply_step && above_step {
                if cx.mark(&mut pkt) {
                    self.stats[L].on_marks(now, 1);
                } else {
                    self.stats[L].on_drop(now, pkt.size, DropReason::DualPi2);
                    cx.drop(pkt, DropReason::DualPi2);
                    continue;
                }
            }
            self.credit += change;
            self.stats[class].on_departure(now, pkt.size, pkt.enqueued);
            return Some(pkt);
        }
    }

    fn len_packets(&self) -> usize {
        self.l.len() + self.c.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn kind(&self) -> &'static str {
        "dualpi2"
    }
    fn measure_from(&mut self, start: SimTime) {
        self.stats = [QueueStats::new(start), QueueStats::new(start)];
    }
    fn reserve_class_statistics(&mut self, max: SimTime) {
        for s in &mut self.stats {
            s.reserve_sojourns(max);
        }
    }
    fn class_stats(&self, now: SimTime) -> Option<serde_json::Value> {
        let one = |name: &str, i: usize, q: &VecDeque<Packet>| {
            let mut r = self.stats[i].class_json(now);
            // the name it had before the common per-class fields (kept: fields are not removed)
            let mean = r["sojourn_mean_s"].as_f64().unwrap_or(0.0);
            r.insert("mean_sojourn_s".into(), mean.into());
            r.insert("name".into(), name.into());
            r.insert("queued_packets".into(), q.len().into());
            serde_json::Value::Object(r)
        };
        Some(serde_json::json!([
            one("l", L, &self.l),
            one("c", C, &self.c),
        ]))
    }
    fn resolved_settings(&self, _rate_bps: f64) -> Option<serde_json::Value> {
        let mut j = serde_json::json!({
            "limit": self.limit.to_string(),
            "target_s": self.pi.target,
            "tupdate_s": self.pi.tupdate.as_secs_f64(),
            "alpha_hz": self.pi.alpha,
            "beta_hz": self.pi.beta,
            "k": self.k,
            "step_thresh_s": self.step.as_secs_f64(),
            "c_protection_percent": self.w_c,
            "drop_overload": self.drop_overload,
            "pi_delay": self.pi_delay,
        });
        // only when set, so that the settings of a time step read as before
        if let Some(n) = self.step_packets {
            j["step_packets"] = n.into();
        }
        if self.min_qlen_step > 0 {
            j["min_qlen_step"] = self.min_qlen_step.into();
        }
        Some(j)
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::*;
    use crate::units::Rate;

    #[test]
    fn an_update_period_below_a_microsecond_is_refused() {
        let c = |t| DualPi2Config {
            pi: PiKnobs {
                tupdate: Some(t),
                ..PiKnobs::default()
            },
            ..DualPi2Config::default()
        };
        assert_eq!(c(SimTime(999_999)).validate().unwrap_err().0, "tupdate");
        assert!(c(SimTime::from_micros(1)).validate().is_ok());
    }

    fn h(cfg: DualPi2Config) -> Harness {
        Harness::new(Box::new(DualPi2::new(&cfg)), Rate(10_000_000))
    }

    fn pkt(h: &mut Harness, flow: u32, ecn: Ecn) -> Packet {
        let mut p = h.packet(flow, 1500);
        p.ecn = ecn;
        p
    }

    // ---- classification: ECT(1) and CE to L, ECT(0) and Not-ECT to C ----
    #[test]
    fn ect1_and_ce_go_to_the_l_queue() {
        let mut q = DualPi2::new(&DualPi2Config::default());
        let mut hh = h(DualPi2Config::default());
        for (i, e) in [Ecn::Ect1, Ecn::Ce, Ecn::Ect0, Ecn::NotEct]
            .into_iter()
            .enumerate()
        {
            let p = pkt(&mut hh, i as u32, e);
            let mut cx = QueueCtx::new(SimTime::ZERO, &mut hh.rng, hh.rate, false, &mut hh.dropped);
            q.enqueue(p, &mut cx);
        }
        assert_eq!((q.l.len(), q.c.len()), (2, 2));
    }

    // ---- scheduler: with both backlogged, L gets 90 % of the bytes (c_protection 10) ----
    #[test]
    fn weighted_scheduler_gives_c_its_protection_share() {
        let mut hh = h(DualPi2Config {
            step_thresh: Some(SimTime::from_secs(100)),
            ..Default::default()
        });
        for _ in 0..2000 {
            let a = pkt(&mut hh, 0, Ecn::Ect1);
            hh.enqueue(SimTime::ZERO, a);
            let b = pkt(&mut hh, 1, Ecn::NotEct);
            hh.enqueue(SimTime::ZERO, b);
        }
        let mut got = [0u32; 2];
        for _ in 0..1000 {
            let p = hh.dequeue(SimTime::ZERO).expect("backlogged");
            got[p.flow.0 as usize] += 1;
        }
        assert!((895..=905).contains(&got[0]), "L got {} of 1000", got[0]);
    }

    // ---- PI: p' moves by alpha (qdelay - target) + beta (qdelay - old) each tupdate ----
    #[test]
    fn pi_update_follows_rfc9332_a2() {
        let mut q = DualPi2::new(&DualPi2Config::default());
        q.c.push_back(Packet {
            enqueued: SimTime::ZERO,
            ..Packet::default()
        });
        q.catch_up(SimTime::from_millis(16));
        // qdelay 16 ms: 0.16 * (0.016 - 0.015) + 3.2 * 0.016
        let expect = 0.16 * 0.001 + 3.2 * 0.016;
        assert!((q.prob - expect).abs() < 1e-12, "{}", q.prob);
        q.catch_up(SimTime::from_millis(32));
        let expect2 = expect + 0.16 * (0.032 - 0.015) + 3.2 * 0.016;
        assert!((q.prob - expect2).abs() < 1e-12);
        // Empty queue: the integral term pulls p' back to 0.
        q.c.clear();
        q.catch_up(SimTime::from_secs(10));
        assert_eq!(q.prob, 0.0);
    }

    // ---- coupling: L marked with k p', C with p'^2 ----
    #[test]
    fn coupled_probabilities_are_k_p_and_p_squared() {
        let n = 20_000;
        let mut counts = [0u32; 2];
        for (i, e) in [Ecn::Ect1, Ecn::Ect0].into_iter().enumerate() {
            let mut q = DualPi2::new(&DualPi2Config::default());
            q.prob = 0.2;
            q.next_update = SimTime::from_secs(1000);
            let mut hh = h(DualPi2Config::default());
            for _ in 0..n {
                let mut p = pkt(&mut hh, 0, e);
                q.bytes = 10 * MTU; // keep above the 2 MTU floor
                let mut cx =
                    QueueCtx::new(SimTime::ZERO, &mut hh.rng, hh.rate, false, &mut hh.dropped);
                let class = if i == 0 { L } else { C };
                assert!(!q.coupled(class, &mut p, &mut cx));
                counts[i] += (p.ecn == Ecn::Ce) as u32;
            }
        }
        let (pl, pc) = (counts[0] as f64 / n as f64, counts[1] as f64 / n as f64);
        assert!(
            (pl - 0.4).abs() < 0.02,
            "L marked {pl}, expected k p' = 0.4"
        );
        assert!(
            (pc - 0.04).abs() < 0.01,
            "C marked {pc}, expected p'^2 = 0.04"
        );
    }

    // ---- L step in packets (Linux step_in_packets): marked when more than N stay behind ----
    #[test]
    fn a_step_in_packets_marks_by_the_l_queue_left_behind() {
        let mut hh = h(DualPi2Config {
            step_packets: Some(2),
            ..DualPi2Config::default()
        });
        for _ in 0..4 {
            let p = pkt(&mut hh, 0, Ecn::Ect1);
            hh.enqueue(SimTime::ZERO, p);
        }
        // the sojourn (0.5 ms, below the 1 ms time step) does not matter: 3 left behind > 2
        // marks, then 2, 1, 0 do not
        let ecn: Vec<Ecn> = (0..4)
            .map(|_| hh.dequeue(SimTime::from_micros(500)).expect("L").ecn)
            .collect();
        assert_eq!(ecn, [Ecn::Ce, Ecn::Ect1, Ecn::Ect1, Ecn::Ect1]);
        let both = DualPi2Config {
            step_thresh: Some(SimTime::from_millis(1)),
            step_packets: Some(2),
            ..DualPi2Config::default()
        };
        assert_eq!(both.validate().unwrap_err().0, "step_packets");
    }

    // ---- min_qlen_step: the step applies to an L packet that found that many in L ----
    #[test]
    fn min_qlen_step_exempts_packets_that_found_a_short_l_queue() {
        let run = |min_qlen_step| {
            let mut hh = h(DualPi2Config {
                min_qlen_step,
                ..DualPi2Config::default()
            });
            // four L packets at t = 0, all leave at 5 ms (sojourn 5 ms > the 1 ms step);
            // they found 0, 1, 2 and 3 packets in the L queue
            for _ in 0..4 {
                let p = pkt(&mut hh, 0, Ecn::Ect1);
                hh.enqueue(SimTime::ZERO, p);
            }
            (0..4)
                .map(|_| hh.dequeue(SimTime::from_millis(5)).expect("L").ecn)
                .collect::<Vec<_>>()
        };
        assert_eq!(run(None), [Ecn::Ce; 4], "Linux's default 0: every L packet");
        assert_eq!(
            run(Some(2)),
            [Ecn::Ect1, Ecn::Ect1, Ecn::Ce, Ecn::Ce],
            "the first two found fewer than 2"
        );
    }

    // ---- L step: sojourn above 1 ms marks; non-ECT in L cannot happen, C is never stepped ----
    #[test]
    fn l_packets_above_the_step_are_marked() {
        let mut hh = h(DualPi2Config::default());
        let a = pkt(&mut hh, 0, Ecn::Ect1);
        hh.enqueue(SimTime::ZERO, a);
        let b = pkt(&mut hh, 0, Ecn::Ect1);
        hh.enqueue(SimTime::from_micros(1500), b);
        let c = pkt(&mut hh, 1, Ecn::Ect0);
        hh.enqueue(SimTime::ZERO, c);
        let first = hh.dequeue(SimTime::from_micros(2000)).expect("L head");
        assert_eq!(first.ecn, Ecn::Ce, "waited 2 ms > 1 ms");
        let second = hh
            .dequeue(SimTime::from_micros(2000))
            .expect("C after L's credit");
        let third = hh.dequeue(SimTime::from_micros(2000)).expect("last");
        let (l, cq) = if second.flow.0 == 0 {
            (second, third)
        } else {
            (third, second)
        };
        assert_eq!(l.ecn, Ecn::Ect1, "waited 0.5 ms");
        assert_eq!(cq.ecn, Ecn::Ect0, "the C queue has no step");
    }

    #[test]
    fn bad_values_name_the_field() {
        let c = DualPi2Config {
            c_protection: Some(150),
            ..Default::default()
        };
        assert_eq!(c.validate().unwrap_err().0, "c_protection");
    }
}
