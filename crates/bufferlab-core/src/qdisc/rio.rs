//! RIO, RED with In and Out: Clark & Fang, "Explicit Allocation of Best-Effort Packet Delivery
//! Service", IEEE/ACM Transactions on Networking 6(4), 1998 (section III.B: two RED algorithms
//! on one FIFO queue, In packets judged by the average of the In packets queued, Out packets by
//! the average of all packets queued), as ns-2.35 implements it (`queue/rio.cc`,
//! `RIOQueue::enque`, `deque`, `drop_in_early`, `drop_out_early`, on `queue/red.cc`'s
//! `estimator`, `calculate_p`, `modify_p`; defaults from `tcl/lib/ns-default.tcl`
//! `Queue/RED/RIO` and `Queue/RED`).
//!
//! * In or Out: with ns-2's `priority_method_ 1` a packet is In when its flow id (`fid_`) is
//!   not 0 (`hf->pri_ = iph->flowid()`). (ns-2's `priority_method_ 0` reads a priority an edge
//!   tagger wrote, which bufferlab does not model.)
//! * In arrival: the total average and the In average are updated (RED's EWMA with weight
//!   q_w over the queue length, and over the In packets queued; after an idle period, m =
//!   int(ptc x idle time) extra decays, ptc = rate / (8 mean_pktsize)), then RED's decision with
//!   the In thresholds on the In average (requiring more than one In packet queued):
//!   forced above in_max_th (2 in_max_th when gentle), the first arrival above in_min_th
//!   only restarts the count, else an early drop with RED's uniformised probability
//!   (`wait_`: p_a = 0 while count x p_b < 1, p_b / (2 - count p_b) below 2, else 1).
//! * Out arrival: the same decision with the Out thresholds on the total average, which an Out
//!   arrival does not update: ns-2's rio.cc computes no new average for Out packets (a bug
//!   reported in 2001 and 2002 and left as it is, rio.cc's header), and neither does this port.
//! * Either: the queue at its limit (the length before the arrival, `qlen >= qlim`) is a forced
//!   drop of the arrival (`drop_tail_`). A forced drop of an In packet restarts both the total
//!   and the In counts; of an Out packet, neither (rio.cc). Early drops are `red_early`, forced
//!   ones `red_forced`; with `ecn` an early drop below max_th marks an ECN-capable packet.
//! * Departure: a departing In packet leaves the In counts and ends the In idle period; an
//!   empty queue (a dequeue that finds nothing) starts the idle period of both averages, at
//!   that instant (red.cc `deque`: `idletime_` set at each empty dequeue).
//!
//! Defaults (ns-2.35, printed by ns-2 itself): in_thresh_ 15, in_maxthresh_ 30, in_linterm_ 50,
//! out_thresh_ 5, out_maxthresh_ 15, linterm_ 10 (the Out max_p is 1/linterm_), q_weight_
//! 0.002, mean_pktsize_ 500, wait_ true, gentle_ / in_gentle_ / out_gentle_ false, setbit_
//! false; the limit is ns-2's `Queue set limit_ 50` packets.

use super::{DropReason, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::units::{Bytes, QueueLimit, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

// ---------------------------------------------------------------- configuration

/// RIO (Clark & Fang 1998), as ns-2's `Queue/RED/RIO` with `priority_method_ 1`: packets of
/// flows whose ns-2 flow id (`trace_fid`) is not 0 are In, the others Out. Packet mode.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RioConfig {
    /// Capacity in packets (RIO runs in ns-2's packet mode: a byte limit is refused); an
    /// arrival finding the queue at the limit is dropped. Default 50p (ns-2 `Queue limit_`).
    #[serde(default = "default_limit")]
    pub limit: QueueLimit,
    /// In min threshold on the In average, packets (ns-2 `in_thresh_` 15).
    #[serde(default = "default_in_min_th")]
    pub in_min_th: f64,
    /// In max threshold, packets (ns-2 `in_maxthresh_` 30).
    #[serde(default = "default_in_max_th")]
    pub in_max_th: f64,
    /// 1 / max_p of the In packets (ns-2 `in_linterm_` 50).
    #[serde(default = "default_in_linterm")]
    pub in_linterm: f64,
    /// Out min threshold on the total average, packets (ns-2 `out_thresh_` 5).
    #[serde(default = "default_out_min_th")]
    pub out_min_th: f64,
    /// Out max threshold, packets (ns-2 `out_maxthresh_` 15).
    #[serde(default = "default_out_max_th")]
    pub out_max_th: f64,
    /// 1 / max_p of the Out packets (ns-2 `linterm_` 10, RED's).
    #[serde(default = "default_out_linterm")]
    pub out_linterm: f64,
    /// EWMA weight of both averages (ns-2 `q_weight_` 0.002).
    #[serde(default = "default_q_weight")]
    pub q_weight: f64,
    /// Mean packet size: the packets the link sends per second of idle time (ns-2
    /// `mean_pktsize_` 500).
    #[serde(default = "default_mean_pktsize")]
    pub mean_pktsize: Bytes,
    /// RED's uniformised inter-drop gaps, `wait_` (ns-2 default true).
    #[serde(default = "default_true")]
    pub wait: bool,
    /// Gentle In region between in_max_th and 2 in_max_th (ns-2 `in_gentle_`, default false).
    #[serde(default)]
    pub in_gentle: bool,
    /// Gentle Out region (ns-2 `out_gentle_`, default false).
    #[serde(default)]
    pub out_gentle: bool,
    /// Mark ECN-capable packets instead of early drops below max_th (ns-2 `setbit_`, false).
    #[serde(default)]
    pub ecn: bool,
}

fn default_limit() -> QueueLimit {
    QueueLimit::Packets(50)
}
fn default_in_min_th() -> f64 {
    15.0
}
fn default_in_max_th() -> f64 {
    30.0
}
fn default_in_linterm() -> f64 {
    50.0
}
fn default_out_min_th() -> f64 {
    5.0
}
fn default_out_max_th() -> f64 {
    15.0
}
fn default_out_linterm() -> f64 {
    10.0
}
fn default_q_weight() -> f64 {
    0.002
}
fn default_mean_pktsize() -> Bytes {
    Bytes(500)
}
fn default_true() -> bool {
    true
}

impl Default for RioConfig {
    fn default() -> Self {
        Self {
            limit: default_limit(),
            in_min_th: default_in_min_th(),
            in_max_th: default_in_max_th(),
            in_linterm: default_in_linterm(),
            out_min_th: default_out_min_th(),
            out_max_th: default_out_max_th(),
            out_linterm: default_out_linterm(),
            q_weight: default_q_weight(),
            mean_pktsize: default_mean_pktsize(),
            wait: true,
            in_gentle: false,
            out_gentle: false,
            ecn: false,
        }
    }
}

impl RioConfig {
    /// Checks values serde cannot: (field relative to the queue, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        for (lo, hi, min, max) in [
            ("in_min_th", "in_max_th", self.in_min_th, self.in_max_th),
            ("out_min_th", "out_max_th", self.out_min_th, self.out_max_th),
        ] {
            if !(min.is_finite() && min >= 0.0) {
                return Err((lo.into(), format!("{min}: give a threshold >= 0 packets")));
            }
            if !(max.is_finite() && max > min) {
                return Err((
                    hi.into(),
                    format!("{max}: give a max threshold above {lo} ({min})"),
                ));
            }
        }
        for (field, v) in [
            ("in_linterm", self.in_linterm),
            ("out_linterm", self.out_linterm),
        ] {
            if !(v.is_finite() && v >= 1.0) {
                return Err((
                    field.into(),
                    format!("{v}: give 1 / max_p, at least 1 (ns-2 defaults 50 In, 10 Out)"),
                ));
            }
        }
        if !(self.q_weight > 0.0 && self.q_weight <= 1.0) {
            return Err((
                "q_weight".into(),
                format!(
                    "{}: give a weight in (0, 1] (ns-2 default 0.002)",
                    self.q_weight
                ),
            ));
        }
        if self.mean_pktsize.0 == 0 {
            return Err((
                "mean_pktsize".into(),
                "must be at least 1B (ns-2 default 500B)".into(),
            ));
        }
        match self.limit {
            QueueLimit::Packets(0) => {
                return Err(("limit".into(), "give at least 1 packet (\"1p\")".into()));
            }
            QueueLimit::Bytes(_) => {
                return Err((
                    "limit".into(),
                    format!(
                        "{}: RIO counts packets (ns-2's packet mode); give the limit in packets \
                         (\"50p\")",
                        self.limit
                    ),
                ));
            }
            QueueLimit::Packets(_) => {}
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- one RED instance

/// The state and settings of one of the two RED algorithms (rio.cc `edp_in_`/`edv_in_`,
/// `edp_out_`/`edv_out_`).
#[derive(Debug, Clone)]
struct Band {
    min_th: f64,
    max_th: f64,
    max_p_inv: f64,
    gentle: bool,
    /// Slope and intercept of p_b between the thresholds (`v_a`, `v_b`), and in the gentle
    /// region (`v_c`, `v_d`).
    a: f64,
    b: f64,
    c: f64,
    d: f64,
    /// Arrivals since the last early drop (`count`), and whether the average was above
    /// min_th at the last arrival (`old`).
    count: u64,
    old: bool,
}

impl Band {
    fn new(min_th: f64, max_th: f64, max_p_inv: f64, gentle: bool) -> Self {
        let (c, d) = if gentle {
            ((1.0 - 1.0 / max_p_inv) / max_th, 2.0 / max_p_inv - 1.0)
        } else {
            (0.0, 0.0)
        };
        Self {
            min_th,
            max_th,
            max_p_inv,
            gentle,
            a: 1.0 / (max_th - min_th),
            b: -min_th / (max_th - min_th),
            c,
            d,
            count: 0,
            old: false,
        }
    }

    /// p_b at average `ave` (red.cc `calculate_p` with max_p = 1 / max_p_inv).
    fn p_b(&self, ave: f64) -> f64 {
        let p = if self.gentle && ave >= self.max_th {
            self.c * ave + self.d
        } else {
            (self.a * ave + self.b) * (1.0 / self.max_p_inv)
        };
        p.min(1.0)
    }

    /// p_a from p_b and the count (red.cc `modify_p`, packet mode).
    fn p_a(&self, p_b: f64, wait: bool) -> f64 {
        let n = self.count as f64;
        let p = if wait {
            if n * p_b < 1.0 {
                0.0
            } else if n * p_b < 2.0 {
                p_b / (2.0 - n * p_b)
            } else {
                1.0
            }
        } else if n * p_b < 1.0 {
            p_b / (1.0 - n * p_b)
        } else {
            1.0
        };
        p.min(1.0)
    }

    /// RED's decision for an arrival of this band at average `ave` with `queued` packets of
    /// the band's measure waiting (rio.cc enque's drop logic, before the hard limit).
    fn decide(&mut self, ave: f64, queued: usize, wait: bool, cx: &mut QueueCtx) -> Verdict {
        if !(ave >= self.min_th && queued > 1) {
            self.old = false;
            return Verdict::Keep;
        }
        let beyond = if self.gentle {
            2.0 * self.max_th
        } else {
            self.max_th
        };
        if ave >= beyond {
            return Verdict::Forced;
        }
        if !self.old {
            self.count = 1;
            self.old = true;
            return Verdict::Keep;
        }
        let p_a = self.p_a(self.p_b(ave), wait);
        // ns-2's uniform is never 0, so p_a = 0 never drops
        if cx.rng().uniform01() <= p_a && p_a > 0.0 {
            self.count = 0;
            return if ave < self.max_th {
                Verdict::EarlyOrMark
            } else {
                Verdict::Early
            };
        }
        Verdict::Keep
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Keep,
    /// An early drop, which an ECN-capable packet turns into a mark (average below max_th).
    EarlyOrMark,
    Early,
    Forced,
}

// ---------------------------------------------------------------- the discipline

pub struct Rio {
    cfg: RioConfig,
    /// The waiting packets and whether each is In.
    q: VecDeque<(Packet, bool)>,
    bytes: u64,
    in_len: usize,
    /// The total average (ns-2 `ave_`) and the In average (`in_ave_`).
    ave: f64,
    in_ave: f64,
    inb: Band,
    outb: Band,
    /// Idle flags of the total and the In average, and when the queue was last found empty
    /// (red.cc `idle_`, rio.cc `in_idle_`, `idletime_` in seconds).
    idle: bool,
    in_idle: bool,
    idle_since_s: f64,
    /// ns-2's flow id of each engine flow; a flow beyond the table is its index.
    fids: Vec<u32>,
    /// ns-2's `curq_`: the queue length the last arrival found.
    curq: usize,
}

impl Rio {
    pub fn new(cfg: &RioConfig) -> Self {
        Self {
            cfg: cfg.clone(),
            q: VecDeque::new(),
            bytes: 0,
            in_len: 0,
            ave: 0.0,
            in_ave: 0.0,
            inb: Band::new(cfg.in_min_th, cfg.in_max_th, cfg.in_linterm, cfg.in_gentle),
            outb: Band::new(
                cfg.out_min_th,
                cfg.out_max_th,
                cfg.out_linterm,
                cfg.out_gentle,
            ),
            idle: true,
            in_idle: true,
            idle_since_s: 0.0,
            fids: Vec::new(),
            curq: 0,
        }
    }

    fn is_in(&self, pkt: &Packet) -> bool {
        let i = pkt.flow.0 as usize;
        self.fids.get(i).copied().unwrap_or(pkt.flow.0) != 0
    }

    /// red.cc `estimator`: `m` extra decays of (1 - q_w), then one step towards `q`.
    fn estimate(ave: f64, q: usize, mut m: u64, w: f64) -> f64 {
        let mut a = ave;
        while m > 0 && a != 0.0 {
            a *= 1.0 - w;
            m -= 1;
        }
        a * (1.0 - w) + w * q as f64
    }

    /// The In average (red.cc estimator over rio.cc's `in_len_`), for tests and series.
    pub fn in_average(&self) -> f64 {
        self.in_ave
    }
}

impl QueueDisc for Rio {
    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QueueCtx) {
        let is_in = self.is_in(&pkt);
        // rio.cc: `hf->pri_ = iph->flowid()`, kept by the packet (ns-2 traces show it as P)
        pkt.ns2_pri = is_in;
        let qlen = self.q.len();
        self.curq = qlen;
        let verdict = if is_in {
            let now_s = cx.ns2_now_s.unwrap_or_else(|| cx.now.as_secs_f64());
            let ptc = cx.link_rate.0 as f64 / (8.0 * self.cfg.mean_pktsize.0 as f64);
            let idle_pkts = || (ptc * (now_s - self.idle_since_s)).max(0.0) as u64;
            let m_in = if self.in_idle { idle_pkts() } else { 0 };
            let m = if self.idle { idle_pkts() } else { 0 };
            self.in_idle = false;
            self.idle = false;
            let w = self.cfg.q_weight;
            self.ave = Self::estimate(self.ave, qlen, m, w);
            self.in_ave = Self::estimate(self.in_ave, self.in_len, m_in, w);
            self.inb.count += 1;
            let in_ave = self.in_ave;
            self.inb.decide(in_ave, self.in_len, self.cfg.wait, cx)
        } else {
            self.outb.count += 1;
            let ave = self.ave;
            self.outb.decide(ave, qlen, self.cfg.wait, cx)
        };
        let full = match self.cfg.limit {
            QueueLimit::Packets(n) => qlen as u64 >= n,
            QueueLimit::Bytes(_) => unreachable!("validate refuses a byte limit for RIO"),
        };
        let verdict = if full { Verdict::Forced } else { verdict };
        match verdict {
            Verdict::Keep => {}
            Verdict::EarlyOrMark if self.cfg.ecn && cx.mark(&mut pkt) => {}
            Verdict::EarlyOrMark | Verdict::Early => {
                cx.drop(pkt, DropReason::RedEarly);
                return;
            }
            Verdict::Forced => {
                if is_in {
                    // rio.cc: the bug-fix of Philip Liu (counts restart after a forced
                    // drop), on the In path only; the total count decides nothing in RIO
                    self.inb.count = 0;
                }
                cx.drop(pkt, DropReason::RedForced);
                return;
            }
        }
        if is_in {
            self.in_len += 1;
        }
        self.bytes += pkt.size as u64;
        self.q.push_back((pkt, is_in));
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        match self.q.pop_front() {
            Some((pkt, is_in)) => {
                self.bytes -= pkt.size as u64;
                self.idle = false;
                if is_in {
                    self.in_idle = false;
                    self.in_len -= 1;
                }
                Some(pkt)
            }
            None => {
                self.idle = true;
                self.in_idle = true;
                self.idle_since_s = cx.ns2_now_s.unwrap_or_else(|| cx.now.as_secs_f64());
                None
            }
        }
    }

    fn link_idle(&mut self, since: SimTime) {
        // outside ns-2's clock the port does not ask an empty queue: it says when the link
        // found it empty (ns-2's empty `deque`)
        if !self.idle {
            self.idle = true;
            self.in_idle = true;
            self.idle_since_s = since.as_secs_f64();
        }
    }

    fn set_flow_ids(&mut self, fids: &[u32]) {
        self.fids = fids.to_vec();
    }

    fn average(&self) -> Option<f64> {
        Some(self.ave)
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
        "rio"
    }
}

#[cfg(test)]
#[path = "rio_tests.rs"]
mod tests;
