//! RED, Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1(4), 1993), and Adaptive RED (Floyd, Gummadi &
//! Shenker, "Adaptive RED: An Algorithm for Increasing the Robustness of RED's Active Queue
//! Management", 2001), following ns-2.35 `queue/red.cc` (`REDQueue::enque`, `estimator`,
//! `calculate_p_new`, `modify_p`, `drop_early`, `updateMaxP`) and ns-3.44
//! `red-queue-disc.cc`, which ports it.
//!
//! * Average: `ave = (1 - w_q) ave + w_q q` at each arrival (F&J section 4), q measured before
//!   the arrival, in packets or bytes. After an idle period of length t, the average first decays
//!   as if m = floor(t C) packets had arrived to an empty queue, C = link rate / (8
//!   mean_pktsize) packets/s (ns-2 `ptc`, F&J section 11): `ave *= (1-w_q)^m`.
//! * Probability: `p_b = max_p (ave - min_th) / (max_th - min_th)`; gentle (Floyd 2000):
//!   `p_b = max_p + (1 - max_p)(ave - max_th)/max_th` between max_th and 2 max_th.
//!   Uniform spacing of drops (F&J section 7): `p_a = p_b / (1 - count p_b)`; with `wait`
//!   (ns-2 `wait_`): `p_a = 0` while `count p_b < 1`, `p_b / (2 - count p_b)` while `< 2`, else 1.
//!   Byte mode (ns-2 `bytes_`): count is `count_bytes / mean_pktsize` and
//!   `p_a *= size / mean_pktsize`.
//! * Decision (ns-2 `enque`): when `ave >= min_th` and more than one packet (byte) is queued:
//!   forced drop if `ave >= max_th` (`2 max_th` when gentle) unless ns-2's `use_mark_p`;
//!   the first arrival after crossing min_th only restarts `count`; otherwise drop (or mark an
//!   ECN-capable packet) with probability p_a. Independently, a packet arriving to a full buffer is
//!   a forced drop. ns-2 tests the hard limit as `qlen >= qlim` before enqueueing (in byte mode
//!   `bytes >= limit x mean_pktsize`, so the queue may exceed the limit by one packet); ns-3 and
//!   Linux drop when the packet would not fit.
//! * Drops are reported as `red_early` (probabilistic) or `red_forced` (average above the forced
//!   threshold, p = 1, or the hard limit).
//! * `hard_drop` off (ns-3 `UseHardDrop` false, Linux without tc-red's `harddrop`: `red_enqueue`
//!   RED_HARD_MARK marks ECT packets): with `ecn`, a forced drop on the average marks an ECT
//!   packet instead. With `min_th = max_th = K`, `q_weight = 1` and `gentle = false` this is the
//!   step marking at K that DCTCP deployments use (RFC 8257 section 3.1; ns-3's
//!   `examples/tcp/dctcp-example.cc` configures RED so). The hard limit always drops.
//! * Adaptive RED (ns-2 `updateMaxP`, Floyd et al. 2001 Fig. 4): every `interval`, if
//!   `ave < min_th + 0.4 (max_th - min_th)` and `max_p > bottom`: `max_p *= beta`; if
//!   `ave > max_th - 0.4 (max_th - min_th)` and `max_p < top`: `max_p += min(alpha, max_p / 4)`.
//!
//! Defaults, by preset (see `RedConfig`):
//!
//! | parameter | ns2 (ns-default.tcl) | ns3 (RedQueueDisc) | linux (tc-red) | floyd | paper003 |
//! |---|---|---|---|---|---|
//! | limit | 50 (x500 B in byte mode) | 25p | 100 x avpkt B | 50p | 25p |
//! | byte mode | yes | iff limit in bytes | yes | no | iff limit in bytes |
//! | mean_pktsize | 500 | 500 | 1000 (avpkt) | 1000 | 500 |
//! | min_th / max_th | auto: max(5, C x 5ms / 2), x3 | 5 / 15 | 7.5 % / 22.5 % of limit | 5 / 15 | 25 % / 75 % |
//! | max_p | 0.1 | 0.02 | 0.02 | 0.1 | 0.02 |
//! | w_q | -1 (RTT based) | 0.002 | from burst | 1-exp(-1/C) | 0.002 |
//! | gentle / wait | yes / yes | yes / yes | no / no | yes / yes | yes / yes |
//! | use_mark_p | yes (mark_p 0.1) | no | no | no | no |
//! | hard_drop | yes (forced drops are never marks) | yes (UseHardDrop) | no (tc-red `harddrop` off) | yes | yes |
//! | idle starts | link idle | queue empty | link idle | link idle | queue empty |
//!
//! `kind = "ared"` defaults, whatever the preset, to automatic thresholds, w_q = 1-exp(-1/C),
//! gentle, adaptive (ns-3 `ARED` attribute, Floyd et al. 2001 section 5).
//! The link rate used for C is the real rate of the link the queue feeds (ns-3's
//! `LinkBandwidth` attribute must be set by hand; bufferlab takes it from the link).

mod config;
mod ns2_knobs;

pub use config::{LalredScale, RedConfig, RedIdle, RedPreset, RedVictim, Threshold};
use ns2_knobs::{cautious_fraction, feng_update, victim_index, FengStatus};

use super::{DropReason, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::units::{QueueLimit, SimTime};
use std::collections::VecDeque;

/// Plain RED or Adaptive RED.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Variant {
    Red,
    Adaptive,
}

/// What RED did with the last arrival (LALRED learns from it).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Average below min_th (or queue nearly empty): accepted without a test.
    BelowMin,
    /// Average just crossed min_th: count restarted, accepted.
    CrossedMin,
    /// Between the thresholds, tested and accepted.
    Accepted,
    /// Probabilistic drop (or mark).
    Early,
    /// Forced drop on the average or on the hard limit.
    Forced,
}

fn preset_limit(cfg: &RedConfig) -> QueueLimit {
    cfg.limit.unwrap_or(match cfg.preset {
        RedPreset::Ns2 | RedPreset::Floyd => QueueLimit::Packets(50),
        RedPreset::Ns3 | RedPreset::Paper003 => QueueLimit::Packets(25),
        RedPreset::Linux => QueueLimit::Bytes(100 * mean_pktsize(cfg) as u64),
    })
}

fn mean_pktsize(cfg: &RedConfig) -> f64 {
    cfg.mean_pktsize
        .map(|b| b.0 as f64)
        .unwrap_or(match cfg.preset {
            RedPreset::Ns2 | RedPreset::Ns3 | RedPreset::Paper003 => 500.0,
            RedPreset::Linux | RedPreset::Floyd => 1000.0,
        })
}

fn byte_mode(cfg: &RedConfig) -> bool {
    cfg.byte_mode.unwrap_or(match cfg.preset {
        RedPreset::Ns2 | RedPreset::Linux => true,
        RedPreset::Floyd => false,
        RedPreset::Ns3 | RedPreset::Paper003 => matches!(preset_limit(cfg), QueueLimit::Bytes(_)),
    })
}

/// The hard limit a scenario's RED queue enforces (ns-2 byte mode: limit x mean_pktsize bytes).
pub fn configured_limit(cfg: &RedConfig) -> QueueLimit {
    match (cfg.preset, preset_limit(cfg), byte_mode(cfg)) {
        (RedPreset::Ns2, QueueLimit::Packets(n), true) => {
            QueueLimit::Bytes(n * mean_pktsize(cfg) as u64)
        }
        (_, l, _) => l,
    }
}

/// Fully resolved parameters (thresholds in queue units: bytes in byte mode, else packets).
#[derive(Clone, Debug)]
pub struct Params {
    pub byte_mode: bool,
    /// ns-2 `bytes_`: `modify_p` counts in bytes and scales by the packet's size.
    pub byte_count: bool,
    pub mean_pktsize: f64,
    pub limit: QueueLimit,
    /// ns-2 hard-limit test (`qlen >= qlim` before enqueue).
    pub ns2_limit: bool,
    /// ns-2's arithmetic of the drop probability (`calculate_p_new` with reset()'s
    /// coefficients; the ns2 preset).
    pub ns2_arith: bool,
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub q_w: f64,
    pub gentle: bool,
    pub wait: bool,
    pub ecn: bool,
    pub use_mark_p: bool,
    pub mark_p: f64,
    pub idle: RedIdle,
    /// Packets per second of mean size the link carries (ns-2 `ptc`).
    pub ptc: f64,
    pub reset_count_on_forced: bool,
    /// Forced drops on the average stay drops even for ECT packets.
    pub hard_drop: bool,
    pub adaptive: bool,
    pub alpha: f64,
    pub beta: f64,
    pub interval: SimTime,
    pub top: f64,
    pub bottom: f64,
    /// ns-2's `cautious_`, `idle_pktsize_`, `feng_adaptive_` and forced-drop victim
    /// (`red/ns2_knobs.rs`).
    pub cautious: u8,
    pub idle_pktsize: f64,
    pub feng: bool,
    pub victim: RedVictim,
}

impl Params {
    /// Resolves a configuration for a link of `rate_bps`.
    pub fn resolve(cfg: &RedConfig, variant: Variant, rate_bps: f64) -> Params {
        let ared = variant == Variant::Adaptive;
        let preset = cfg.preset;
        let mean = mean_pktsize(cfg);
        let byte_mode = byte_mode(cfg);
        let limit = configured_limit(cfg);
        let ptc = rate_bps / (8.0 * mean);
        // the limit in queue units, for thresholds given as a share
        let limit_units = match (limit, byte_mode) {
            (QueueLimit::Packets(n), true) => n as f64 * mean,
            (QueueLimit::Packets(n), false) => n as f64,
            (QueueLimit::Bytes(b), true) => b as f64,
            (QueueLimit::Bytes(b), false) => b as f64 / mean,
        };
        let to_units = |t: Threshold| match (t, byte_mode) {
            (Threshold::Packets(p), true) => p * mean,
            (Threshold::Packets(p), false) => p,
            (Threshold::Bytes(b), true) => b,
            (Threshold::Bytes(b), false) => b / mean,
            (Threshold::Fraction(f), _) => f * limit_units,
        };
        let target_delay = cfg
            .target_delay
            .unwrap_or(SimTime::from_secs_f64(0.005))
            .as_secs_f64();
        // ns-2 initialize_params: th_min_pkts = max(5, targetdelay * ptc / 2), th_max = 3 th_min
        let auto_min = || {
            let p = 5.0f64.max(target_delay * ptc / 2.0);
            if byte_mode {
                p * mean
            } else {
                p
            }
        };
        let automatic = ared || preset == RedPreset::Ns2;
        let min_th = match cfg.min_th {
            Some(t) => to_units(t),
            None if automatic => auto_min(),
            None => match preset {
                RedPreset::Linux => 0.075 * limit_units,
                RedPreset::Paper003 => 0.25 * limit_units,
                _ => to_units(Threshold::Packets(5.0)),
            },
        };
        let max_th = match cfg.max_th {
            Some(t) => to_units(t),
            None if automatic || preset == RedPreset::Floyd => 3.0 * min_th,
            None => match preset {
                RedPreset::Linux => 3.0 * min_th,
                RedPreset::Paper003 => 0.75 * limit_units,
                _ => to_units(Threshold::Packets(15.0)),
            },
        };
        let max_p = cfg.max_p.unwrap_or(match preset {
            RedPreset::Ns2 | RedPreset::Floyd => 0.1,
            RedPreset::Ns3 | RedPreset::Paper003 | RedPreset::Linux => 0.02,
        });
        let code = cfg.q_weight.unwrap_or(if ared {
            0.0
        } else {
            match preset {
                RedPreset::Ns2 => -1.0,
                RedPreset::Floyd => 0.0,
                RedPreset::Linux => f64::NAN, // from burst, below
                RedPreset::Ns3 | RedPreset::Paper003 => 0.002,
            }
        });
        let q_w = if code.is_nan() {
            linux_ewma(min_th, max_th, mean, byte_mode)
        } else if code == 0.0 {
            1.0 - (-1.0 / ptc).exp()
        } else if code == -1.0 {
            let delay = cfg.link_delay.map(|d| d.as_secs_f64()).unwrap_or(0.0);
            let rtt = (3.0 * (delay + 1.0 / ptc)).max(0.1);
            1.0 - (-1.0 / (10.0 * rtt * ptc)).exp()
        } else if code == -2.0 {
            1.0 - (-10.0 / ptc).exp()
        } else {
            code
        };
        let linux = preset == RedPreset::Linux;
        Params {
            byte_mode,
            byte_count: cfg.byte_count.unwrap_or(byte_mode),
            mean_pktsize: mean,
            limit,
            ns2_limit: preset == RedPreset::Ns2,
            ns2_arith: preset == RedPreset::Ns2,
            min_th,
            max_th,
            max_p,
            q_w,
            gentle: cfg.gentle.unwrap_or(ared || !linux),
            wait: cfg.wait.unwrap_or(!linux),
            ecn: cfg.ecn.unwrap_or(false),
            use_mark_p: cfg.use_mark_p.unwrap_or(preset == RedPreset::Ns2),
            mark_p: cfg.mark_p.unwrap_or(0.1),
            idle: cfg.idle.unwrap_or(match preset {
                RedPreset::Ns3 | RedPreset::Paper003 => RedIdle::QueueEmpty,
                _ => RedIdle::LinkIdle,
            }),
            ptc,
            reset_count_on_forced: cfg
                .forced_drop_resets_count
                .unwrap_or(!matches!(preset, RedPreset::Ns3 | RedPreset::Paper003)),
            hard_drop: cfg.hard_drop.unwrap_or(!linux),
            adaptive: cfg.adaptive.unwrap_or(ared),
            alpha: cfg.alpha.unwrap_or((max_p / 4.0).min(0.01)),
            beta: cfg.beta.unwrap_or(0.9),
            interval: cfg.interval.unwrap_or(SimTime::from_secs_f64(0.5)),
            top: cfg.top.unwrap_or(0.5),
            bottom: cfg.bottom.unwrap_or((80_000.0 / rate_bps).min(0.01)),
            cautious: cfg.cautious.unwrap_or(0),
            idle_pktsize: cfg.idle_pktsize.map(|b| b.0 as f64).unwrap_or(100.0),
            feng: cfg.feng_adaptive.unwrap_or(false),
            victim: cfg.forced_victim.unwrap_or(RedVictim::Tail),
        }
    }

    /// The resolved settings, thresholds in RED's own unit (`unit`), for `validate --json`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "unit": if self.byte_mode { "bytes" } else { "packets" },
            "mean_pktsize_bytes": self.mean_pktsize,
            "limit": self.limit.to_string(),
            "min_th": self.min_th,
            "max_th": self.max_th,
            "max_p": self.max_p,
            "q_weight": self.q_w,
            "gentle": self.gentle,
            "wait": self.wait,
            "ecn": self.ecn,
            "use_mark_p": self.use_mark_p,
            "idle": self.idle,
            "ns2_hard_limit": self.ns2_limit,
            "adaptive": self.adaptive,
        });
        if self.byte_count != self.byte_mode {
            // Only where ns-2's bytes_ and queue_in_bytes_ differ (earlier outputs keep theirs).
            v["byte_count"] = self.byte_count.into();
        }
        if self.ecn {
            // Only with ECN, where it decides something (earlier outputs keep their bytes).
            v["hard_drop"] = self.hard_drop.into();
        }
        if self.cautious != 0 {
            v["cautious"] = self.cautious.into();
            v["idle_pktsize_bytes"] = self.idle_pktsize.into();
        }
        if self.victim != RedVictim::Tail {
            v["forced_victim"] = serde_json::to_value(self.victim).unwrap_or_default();
        }
        if self.feng {
            v["feng_adaptive"] = true.into();
        }
        if self.adaptive {
            let extra = serde_json::json!({
                "alpha": self.alpha,
                "beta": self.beta,
                "interval_s": self.interval.as_secs_f64(),
                "top": self.top,
                "bottom": self.bottom,
            });
            if let (Some(m), serde_json::Value::Object(e)) = (v.as_object_mut(), extra) {
                m.extend(e);
            }
        }
        v
    }

    /// The limit in RED's unit (bytes in byte mode, else mean-size packets).
    fn limit_units(&self) -> f64 {
        match (self.limit, self.byte_mode) {
            (QueueLimit::Packets(n), true) => n as f64 * self.mean_pktsize,
            (QueueLimit::Packets(n), false) => n as f64,
            (QueueLimit::Bytes(b), true) => b as f64,
            (QueueLimit::Bytes(b), false) => b as f64 / self.mean_pktsize,
        }
    }

    /// RED whose hard limit is below max_th overflows before its average reaches the
    /// forced-drop region: the tail drops of a full queue do the work (Floyd and Jacobson 1993
    /// size the buffer above max_th).
    pub fn warnings(&self) -> Vec<String> {
        let unit = if self.byte_mode { "bytes" } else { "packets" };
        let limit = self.limit_units();
        if limit < self.max_th {
            let which = if limit <= self.min_th {
                "min_th"
            } else {
                "max_th"
            };
            let th = if limit <= self.min_th {
                self.min_th
            } else {
                self.max_th
            };
            let num = |v: f64| {
                if (v - v.round()).abs() < 1e-6 {
                    format!("{}", v.round())
                } else {
                    format!("{v:.1}")
                }
            };
            vec![format!(
                "RED's queue limit ({} {unit}) is below {which} ({} {unit}): the queue overflows \
                 before RED's average gets there, so it drops mostly at the tail like DropTail; \
                 raise `limit` above max_th or lower the thresholds",
                num(limit),
                num(th)
            )]
        } else {
            Vec::new()
        }
    }

    /// p_b as ns-2 `calculate_p_new`. Under the ns2 preset with ns-2's own arithmetic: the
    /// slope and offset red.cc's `reset()` computes once (`v_a = 1 / th_diff`, `v_b =
    /// -th_min / th_diff`, `p = (v_a ave + v_b) max_p`), and the gentle region's `v_c`, `v_d`
    /// from the max_p of that reset, which Adaptive RED's later max_p does not change.
    pub fn p_b(&self, ave: f64, max_p: f64) -> f64 {
        let p = if ave >= self.max_th {
            if self.gentle {
                let m = if self.ns2_arith { self.max_p } else { max_p };
                (1.0 - m) / self.max_th * ave + 2.0 * m - 1.0
            } else {
                1.0
            }
        } else if self.ns2_arith {
            let mut diff = self.max_th - self.min_th;
            if diff == 0.0 {
                diff = 1.0;
            }
            (1.0 / diff * ave + -self.min_th / diff) * max_p
        } else {
            let diff = if self.max_th > self.min_th {
                self.max_th - self.min_th
            } else {
                1.0
            };
            max_p * (ave - self.min_th) / diff
        };
        p.min(1.0)
    }

    /// p_a as ns-2 `modify_p`: uniform spacing with the count, `wait`, and byte scaling
    /// (ns-2 `bytes_`, `byte_count`).
    pub fn p_a(&self, p_b: f64, count: u64, count_bytes: u64, size: u32) -> f64 {
        let count1 = if self.byte_count {
            (count_bytes as f64 / self.mean_pktsize).floor()
        } else {
            count as f64
        };
        let mut p = if self.wait {
            if count1 * p_b < 1.0 {
                0.0
            } else if count1 * p_b < 2.0 {
                p_b / (2.0 - count1 * p_b)
            } else {
                1.0
            }
        } else if count1 * p_b < 1.0 {
            p_b / (1.0 - count1 * p_b)
        } else {
            1.0
        };
        if self.byte_count && p < 1.0 {
            p = p * size as f64 / self.mean_pktsize;
        }
        p.min(1.0)
    }
}

/// Idle packets per second for the average's decay: ptc, or with `cautious_` 3 ptc x
/// mean_pktsize / idle_pktsize (red.cc enque, in that order of operations).
#[inline]
fn idle_ptc(p: &Params) -> f64 {
    if p.cautious == 3 {
        p.ptc * p.mean_pktsize / p.idle_pktsize
    } else {
        p.ptc
    }
}

/// Linux `tc_red_eval_ewma` (iproute2 tc/tc_red.c): the smallest W = 2^-Wlog with
/// `burst + 1 - qmin/avpkt <= (1 - (1-W)^burst) / W`, burst = (2 qmin + qmax) / (3 avpkt).
fn linux_ewma(min_th: f64, max_th: f64, mean: f64, byte_mode: bool) -> f64 {
    let (qmin, qmax) = if byte_mode {
        (min_th, max_th)
    } else {
        (min_th * mean, max_th * mean)
    };
    let burst = ((2.0 * qmin + qmax) / (3.0 * mean)).floor().max(1.0);
    let a = burst + 1.0 - qmin / mean;
    let mut w: f64 = 0.5;
    for _ in 1..32 {
        if a <= (1.0 - (1.0 - w).powf(burst)) / w {
            return w;
        }
        w /= 2.0;
    }
    w
}

pub struct Red {
    cfg: RedConfig,
    variant: Variant,
    pub(crate) p: Option<Params>,
    q: VecDeque<Packet>,
    bytes: u64,
    ave: f64,
    /// The queue length the last arrival found (ns-2's `curq_`), in the unit of `ave`.
    curq: f64,
    count: u64,
    count_bytes: u64,
    old: bool,
    idle: bool,
    idle_since: SimTime,
    /// `idle_since` in ns-2's double seconds, under ns-2's clock (`QueueCtx::ns2_now_s`).
    idle_since_s: f64,
    cur_max_p: f64,
    lastset: SimTime,
    /// Multiplies p_b between the thresholds (1 for RED; LALRED's automaton sets it).
    pub(crate) p_scale: f64,
    /// What happened to the last arrival.
    pub(crate) last_outcome: Outcome,
    /// Feng's adaptation's status (`feng_adaptive`).
    feng_status: FengStatus,
}

impl Red {
    pub fn new(cfg: &RedConfig, variant: Variant) -> Self {
        // Start small and let the deque grow to what is really used: preallocating the limit
        // made idle access queues 85 % of the heap at 1000 flows (bench profile).
        let cap = match preset_limit(cfg) {
            QueueLimit::Packets(p) => p.min(16) as usize,
            QueueLimit::Bytes(b) => (b / 500).min(16) as usize,
        };
        Self {
            cfg: cfg.clone(),
            variant,
            p: None,
            q: VecDeque::with_capacity(cap),
            bytes: 0,
            ave: 0.0,
            curq: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            idle: true,
            idle_since: SimTime(0),
            idle_since_s: 0.0,
            cur_max_p: 0.0,
            lastset: SimTime(0),
            p_scale: 1.0,
            last_outcome: Outcome::BelowMin,
            feng_status: FengStatus::default(),
        }
    }

    fn params(&mut self, rate_bps: f64) -> &Params {
        if self.p.is_none() {
            let p = Params::resolve(&self.cfg, self.variant, rate_bps);
            self.cur_max_p = p.max_p;
            self.p = Some(p);
        }
        self.p.as_ref().unwrap()
    }

    /// The queue in RED's units (bytes in byte mode, else packets).
    fn qlen(&self, byte_mode: bool) -> f64 {
        if byte_mode {
            self.bytes as f64
        } else {
            self.q.len() as f64
        }
    }

    /// The current max_p (changes under Adaptive RED).
    pub fn cur_max_p(&self) -> f64 {
        self.cur_max_p
    }

    #[cfg(test)]
    pub(crate) fn set_average(&mut self, v: f64) {
        self.ave = v;
    }

    fn hard_limit_hit(&self, p: &Params, size: u32) -> bool {
        let len = self.q.len() as u64;
        match (p.limit, p.ns2_limit) {
            (QueueLimit::Packets(l), _) => len + 1 > l,
            (QueueLimit::Bytes(l), true) => self.bytes >= l,
            (QueueLimit::Bytes(l), false) => self.bytes + size as u64 > l,
        }
    }
}

impl Red {
    /// The average as red.cc computes it under ns-2's clock, to its last bit: the idle
    /// packets `m = int(edp_.ptc * (now - idletime_))` from double times (enque), then
    /// `estimator()`, which multiplies by (1 - q_w) m + 1 times.
    #[cold]
    #[inline(never)]
    fn ns2_average(&mut self, p: &Params, now_s: f64) {
        let mut m = 0u64;
        if self.idle {
            self.idle = false;
            m = (idle_ptc(p) * (now_s - self.idle_since_s)).max(0.0) as u64;
        }
        let q = self.qlen(p.byte_mode);
        self.curq = q;
        let mut a = self.ave;
        while m > 0 && a != 0.0 {
            a *= 1.0 - p.q_w;
            m -= 1;
        }
        self.ave = a * (1.0 - p.q_w) + p.q_w * q;
    }
}

impl QueueDisc for Red {
    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QueueCtx) {
        let now = cx.now;
        let p = self.params(cx.link_rate.bps() as f64).clone();
        // ---- average, with the idle-period decay (ns-2 enque + estimator)
        if let Some(now_s) = cx.ns2_now_s {
            self.ns2_average(&p, now_s);
        } else {
            let mut m = 0.0;
            if self.idle {
                self.idle = false;
                m = (idle_ptc(&p) * now.saturating_sub(self.idle_since).as_secs_f64()).floor();
            }
            let q = self.qlen(p.byte_mode);
            self.curq = q;
            self.ave = self.ave * (1.0 - p.q_w).powf(m + 1.0) + p.q_w * q;
        }
        let q = self.curq;
        if p.adaptive && p.feng {
            self.cur_max_p = feng_update(
                &mut self.feng_status,
                self.ave,
                p.min_th,
                p.max_th,
                self.cur_max_p,
                p.alpha,
                p.beta,
            );
        } else if p.adaptive && now > self.lastset + p.interval {
            let part = 0.4 * (p.max_th - p.min_th);
            if self.ave < p.min_th + part && self.cur_max_p > p.bottom {
                self.cur_max_p *= p.beta;
                self.lastset = now;
            } else if self.ave > p.max_th - part && p.top > self.cur_max_p {
                self.cur_max_p += p.alpha.min(0.25 * self.cur_max_p);
                self.lastset = now;
            }
        }
        // ---- decision
        self.count += 1;
        self.count_bytes += pkt.size as u64;
        let mut outcome = Outcome::BelowMin;
        let mut forced_by_p = false;
        if self.ave >= p.min_th && q > 1.0 {
            let beyond = if p.gentle { 2.0 * p.max_th } else { p.max_th };
            if !p.use_mark_p && self.ave >= beyond {
                outcome = Outcome::Forced;
                if !p.hard_drop && p.ecn && cx.mark(&mut pkt) {
                    outcome = Outcome::Accepted;
                }
            } else if !self.old {
                self.count = 1;
                self.count_bytes = pkt.size as u64;
                self.old = true;
                outcome = Outcome::CrossedMin;
            } else {
                let in_band = self.ave < p.max_th;
                let mut p_b = p.p_b(self.ave, self.cur_max_p);
                if in_band {
                    p_b = (p_b * self.p_scale).min(1.0);
                }
                let p_a = p.p_a(p_b, self.count, self.count_bytes, pkt.size);
                outcome = Outcome::Accepted;
                // red.cc drop_early: cautious_ 1 skips the test (and its draw) while the
                // queue is below fraction x ave; 2 scales the draw up there
                let fraction = if p.cautious == 1 || p.cautious == 2 {
                    cautious_fraction(p.q_w, p.ptc)
                } else {
                    0.0
                };
                let skip = p.cautious == 1 && q < fraction * self.ave;
                let mut u = if skip {
                    f64::INFINITY
                } else {
                    cx.rng().uniform01()
                };
                if p.cautious == 2 {
                    let ratio = q / (fraction * self.ave);
                    if ratio < 1.0 {
                        u *= 1.0 / ratio;
                    }
                }
                if u <= p_a && p_a > 0.0 {
                    self.count = 0;
                    self.count_bytes = 0;
                    // red.cc drop_early marks only while `v_prob1 < mark_p_` (strictly)
                    let may_mark = p.ecn && (!p.use_mark_p || p_b < p.mark_p);
                    if may_mark && cx.mark(&mut pkt) {
                        outcome = Outcome::Accepted;
                    } else {
                        outcome = Outcome::Early;
                        forced_by_p = p_b >= 1.0;
                    }
                }
            }
        } else {
            self.old = false;
        }
        if self.hard_limit_hit(&p, pkt.size) {
            outcome = Outcome::Forced;
        }
        self.last_outcome = outcome;
        match outcome {
            Outcome::Early => cx.drop(
                pkt,
                if forced_by_p {
                    DropReason::RedForced
                } else {
                    DropReason::RedEarly
                },
            ),
            Outcome::Forced => {
                if p.reset_count_on_forced {
                    self.count = 0;
                    self.count_bytes = 0;
                }
                if p.victim == RedVictim::Tail {
                    cx.drop(pkt, DropReason::RedForced)
                } else {
                    // red.cc enque: the arrival is queued, then pickPacketToDrop's victim goes
                    self.bytes += pkt.size as u64;
                    self.q.push_back(pkt);
                    let i = victim_index(p.victim, self.q.len(), cx.rng());
                    let victim = self.q.remove(i).expect("a victim in the queue");
                    self.bytes -= victim.size as u64;
                    cx.drop(victim, DropReason::RedForced)
                }
            }
            _ => {
                self.bytes += pkt.size as u64;
                self.q.push_back(pkt);
            }
        }
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        let idle_mode = self.p.as_ref().map(|p| p.idle).unwrap_or(RedIdle::LinkIdle);
        match self.q.pop_front() {
            Some(pkt) => {
                self.bytes -= pkt.size as u64;
                self.idle = false;
                if idle_mode == RedIdle::QueueEmpty && self.q.is_empty() {
                    self.idle = true;
                    self.idle_since = cx.now;
                    self.idle_since_s = cx.ns2_now_s.unwrap_or(0.0);
                }
                Some(pkt)
            }
            None => {
                if idle_mode == RedIdle::LinkIdle && !self.idle {
                    self.idle = true;
                    self.idle_since = cx.now;
                    self.idle_since_s = cx.ns2_now_s.unwrap_or(0.0);
                }
                None
            }
        }
    }

    fn link_idle(&mut self, since: SimTime) {
        // ns-2 `REDQueue::deque` / Linux `red_start_of_idle_period`: the link asked and found
        // the queue empty when its last transmission ended
        let idle_mode = self.p.as_ref().map(|p| p.idle).unwrap_or(RedIdle::LinkIdle);
        if idle_mode == RedIdle::LinkIdle && !self.idle {
            self.idle = true;
            self.idle_since = since;
        }
    }

    fn len_packets(&self) -> usize {
        self.q.len()
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn kind(&self) -> &'static str {
        match self.variant {
            Variant::Red => "red",
            Variant::Adaptive => "ared",
        }
    }

    fn average(&self) -> Option<f64> {
        Some(self.ave)
    }

    fn arrival_length(&self) -> Option<f64> {
        Some(self.curq)
    }

    fn resolved_settings(&self, rate_bps: f64) -> Option<serde_json::Value> {
        Some(Params::resolve(&self.cfg, self.variant, rate_bps).to_json())
    }

    fn warnings(&self, rate_bps: f64) -> Vec<String> {
        Params::resolve(&self.cfg, self.variant, rate_bps).warnings()
    }

    fn average_unit(&self) -> &'static str {
        // In byte mode `ave` is compared with thresholds in bytes (ns-2 `bytes_`).
        if byte_mode(&self.cfg) {
            "bytes"
        } else {
            "packets"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::*;
    use crate::packet::Ecn;
    use crate::units::Rate;

    fn cfg() -> RedConfig {
        RedConfig {
            preset: RedPreset::Ns3,
            ..Default::default()
        }
    }

    fn harness(c: RedConfig, rate: u64) -> Harness {
        Harness::new(Box::new(Red::new(&c, Variant::Red)), Rate(rate))
    }

    fn red_mut(h: &mut Harness) -> &mut Red {
        // SAFETY: every harness in this module is built from a `Red` (see `harness`), so the
        // data pointer of the trait object points to a `Red`.
        unsafe { &mut *(h.q.as_mut() as *mut dyn QueueDisc as *mut Red) }
    }

    /// Keeps `n` packets waiting with the average pinned at `ave` (w_q tiny); sends `arrivals`
    /// packets of `size`, dequeuing one after each accepted one. Returns the arrival indices dropped.
    fn drive(h: &mut Harness, n: usize, ave: f64, arrivals: usize, size: u32) -> Vec<usize> {
        for _ in 0..n {
            let p = h.packet(0, size);
            h.enqueue(SimTime(0), p);
        }
        red_mut(h).set_average(ave);
        // cross min_th once: the first test only restarts count
        let mut dropped = Vec::new();
        for i in 0..arrivals {
            let before = h.dropped.len();
            let p = h.packet(0, size);
            h.enqueue(SimTime(1), p);
            red_mut(h).set_average(ave);
            if h.dropped.len() > before {
                dropped.push(i);
            } else {
                h.dequeue(SimTime(1));
            }
        }
        dropped
    }

    // ---- drop probability follows the formula ----
    #[test]
    fn p_b_is_linear_between_thresholds_and_gentle_above() {
        let mut c = cfg();
        c.max_p = Some(0.1);
        let p = Params::resolve(&c, Variant::Red, 10e6);
        assert_eq!((p.min_th, p.max_th), (5.0, 15.0));
        assert!((p.p_b(10.0, 0.1) - 0.05).abs() < 1e-12);
        assert!((p.p_b(5.0, 0.1)).abs() < 1e-12);
        // gentle: max_p at max_th, 1 at 2 max_th, linear in between
        assert!((p.p_b(15.0, 0.1) - 0.1).abs() < 1e-12);
        assert!((p.p_b(22.5, 0.1) - 0.55).abs() < 1e-12);
        assert!((p.p_b(30.0, 0.1) - 1.0).abs() < 1e-12);
        c.gentle = Some(false);
        let p = Params::resolve(&c, Variant::Red, 10e6);
        assert_eq!(p.p_b(15.0, 0.1), 1.0);
    }

    #[test]
    fn count_correction_is_p_b_over_one_minus_count_p_b() {
        let mut c = cfg();
        c.wait = Some(false);
        let p = Params::resolve(&c, Variant::Red, 10e6);
        for count in 0..10u64 {
            let want = 0.05 / (1.0 - count as f64 * 0.05);
            assert!((p.p_a(0.05, count, 0, 500) - want).abs() < 1e-12);
        }
        assert_eq!(p.p_a(0.05, 20, 0, 500), 1.0);
        // with wait: nothing before count*p_b reaches 1, then p_b/(2 - count p_b)
        c.wait = Some(true);
        let p = Params::resolve(&c, Variant::Red, 10e6);
        assert_eq!(p.p_a(0.05, 19, 0, 500), 0.0);
        assert!((p.p_a(0.05, 30, 0, 500) - 0.05 / 0.5).abs() < 1e-12);
        assert_eq!(p.p_a(0.05, 40, 0, 500), 1.0);
    }

    #[test]
    fn drops_are_uniformly_spaced_at_the_formula_rate() {
        // ave pinned at 10 (p_b = 0.05 with max_p 0.1). ns-2 counts the arriving packet before the
        // test (count = n at the n-th packet after a drop), so P(gap > n) = (1-(n+1)p_b)/(1-p_b):
        // gaps uniform on 1..=19, mean 10 (F&J's X uniform on 1..=1/p_b counts one more).
        let mut c = cfg();
        c.max_p = Some(0.1);
        c.wait = Some(false);
        c.q_weight = Some(1e-12);
        c.limit = Some(QueueLimit::Packets(1000));
        let mut h = harness(c, 10_000_000);
        let drops = drive(&mut h, 5, 10.0, 200_000, 1000);
        let gaps: Vec<usize> = drops.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.iter().all(|&g| (1..=19).contains(&g)), "{gaps:?}");
        let mean = gaps.iter().sum::<usize>() as f64 / gaps.len() as f64;
        assert!((mean - 10.0).abs() < 0.15, "mean gap {mean}");
        // every gap length about equally likely
        let mut hist = [0usize; 20];
        for g in &gaps {
            hist[*g] += 1;
        }
        let expect = gaps.len() as f64 / 19.0;
        for (g, &n) in hist.iter().enumerate().skip(1) {
            assert!(
                (n as f64 - expect).abs() < 0.1 * expect,
                "gap {g}: {n} vs {expect}"
            );
        }
        assert!(h.dropped.iter().all(|(_, r)| *r == DropReason::RedEarly));
    }

    #[test]
    fn gentle_region_drop_rate_and_forced_above_twice_max_th() {
        let mut c = cfg();
        c.max_p = Some(0.1);
        c.wait = Some(false);
        c.q_weight = Some(1e-12);
        c.limit = Some(QueueLimit::Packets(1000));
        // ave 22.5: p_b = 0.55; gaps uniform on 1..=ceil(1/0.55) -> drop fraction 2/(1/p_b + 1)-ish
        let mut h = harness(c.clone(), 10_000_000);
        let drops = drive(&mut h, 5, 22.5, 50_000, 1000);
        let gaps: Vec<usize> = drops.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.iter().all(|&g| g <= 2));
        // forced above 2 max_th
        let mut h = harness(c, 10_000_000);
        let drops = drive(&mut h, 5, 31.0, 100, 1000);
        assert_eq!(drops.len(), 100);
        assert!(h.dropped.iter().all(|(_, r)| *r == DropReason::RedForced));
    }

    // ---- the average decays over idle periods as if ptc*t empty arrivals were seen ----
    #[test]
    fn idle_decay_uses_link_rate_over_mean_packet_size() {
        let mut c = cfg();
        c.q_weight = Some(0.002);
        c.idle = Some(RedIdle::LinkIdle);
        let mut h = harness(c, 10_000_000); // ptc = 10e6 / (8*500) = 2500 pkt/s
        let p = h.packet(0, 500);
        h.enqueue(SimTime(0), p);
        red_mut(&mut h).set_average(10.0);
        assert!(h.dequeue(SimTime(0)).is_some());
        assert!(h.dequeue(SimTime(0)).is_none()); // link idle from t = 0
        let p = h.packet(0, 500);
        h.enqueue(SimTime::from_secs_f64(0.1), p); // m = 250
        let want = 10.0 * (1.0f64 - 0.002).powi(251);
        let got = h.q.average().unwrap();
        assert!((got - want).abs() < 1e-9, "{got} vs {want}");
    }

    // ---- byte mode: thresholds, counts and probability in bytes ----
    #[test]
    fn byte_mode_scales_probability_with_packet_size() {
        let mut c = cfg();
        c.byte_mode = Some(true);
        c.wait = Some(false);
        let p = Params::resolve(&c, Variant::Red, 10e6);
        assert_eq!((p.min_th, p.max_th), (2500.0, 7500.0));
        // count in mean-size packets, probability scaled by size / mean_pktsize
        let small = p.p_a(0.01, 0, 2000, 100);
        let big = p.p_a(0.01, 0, 2000, 1000);
        let base = 0.01 / (1.0 - 4.0 * 0.01);
        assert!((small - base * 0.2).abs() < 1e-12);
        assert!((big - base * 2.0).abs() < 1e-12);
        // and in the queue: small packets see fewer drops than large ones
        let mut c2 = c.clone();
        c2.max_p = Some(0.1);
        c2.q_weight = Some(1e-12);
        c2.limit = Some(QueueLimit::Bytes(10_000_000));
        let mut h = harness(c2.clone(), 10_000_000);
        let d_small = drive(&mut h, 5, 5000.0, 20_000, 100).len();
        let mut h = harness(c2, 10_000_000);
        let d_big = drive(&mut h, 5, 5000.0, 20_000, 1000).len();
        assert!(d_big as f64 > 3.0 * d_small as f64, "{d_big} vs {d_small}");
    }

    // ---- ns-2's arithmetic: reset()'s coefficients, the gentle region from the first max_p ----
    #[test]
    fn ns2_gentle_region_keeps_the_max_p_of_reset() {
        let c = RedConfig {
            preset: RedPreset::Ns2,
            byte_mode: Some(false),
            min_th: Some(Threshold::Packets(5.0)),
            max_th: Some(Threshold::Packets(15.0)),
            ..Default::default()
        };
        let p = Params::resolve(&c, Variant::Adaptive, 10e6);
        assert!(p.ns2_arith);
        // between the thresholds the current max_p scales p ...
        assert!((p.p_b(10.0, 0.2) - 0.1).abs() < 1e-15);
        // ... above max_th red.cc's v_c, v_d keep reset()'s max_p (0.1), not the adapted 0.2
        let want = (1.0 - 0.1) / 15.0 * 20.0 + 2.0 * 0.1 - 1.0;
        assert_eq!(p.p_b(20.0, 0.2), want);
        let ns3 = Params::resolve(&cfg(), Variant::Adaptive, 10e6);
        assert!(!ns3.ns2_arith);
    }

    // ---- ns-2's bytes_ apart from queue_in_bytes_ (red.cc modify_p reads only bytes_) ----
    #[test]
    fn byte_count_apart_from_the_queue_unit() {
        let mut c = cfg();
        c.byte_mode = Some(false);
        c.byte_count = Some(true);
        c.wait = Some(false);
        let p = Params::resolve(&c, Variant::Red, 10e6);
        // thresholds and queue in packets, the probability counted in bytes
        assert_eq!((p.min_th, p.max_th), (5.0, 15.0));
        let base = 0.01 / (1.0 - 4.0 * 0.01);
        assert!((p.p_a(0.01, 99, 2000, 100) - base * 0.2).abs() < 1e-12);
        // and the other way: queue in bytes, probability per packet
        c.byte_mode = Some(true);
        c.byte_count = Some(false);
        let p = Params::resolve(&c, Variant::Red, 10e6);
        assert_eq!((p.min_th, p.max_th), (2500.0, 7500.0));
        assert!((p.p_a(0.01, 4, 99_999, 100) - base).abs() < 1e-12);
        assert_eq!(p.to_json()["byte_count"], false);
    }

    #[test]
    fn ns2_preset_automatic_thresholds_weight_and_byte_limit() {
        let c = RedConfig {
            preset: RedPreset::Ns2,
            limit: Some(QueueLimit::Packets(20)),
            ..Default::default()
        };
        // 0.8 Mb/s: ptc = 200, target queue 1 -> th_min 5 mean packets = 2500 B (paper A)
        let p = Params::resolve(&c, Variant::Red, 0.8e6);
        assert!(p.byte_mode);
        assert_eq!((p.min_th, p.max_th), (2500.0, 7500.0));
        assert_eq!(p.limit, QueueLimit::Bytes(10_000));
        assert!((p.q_w - (1.0 - (-1.0f64 / (10.0 * 0.1 * 200.0)).exp())).abs() < 1e-15);
        assert!((p.max_p - 0.1).abs() < 1e-15);
        // 10 Mb/s: ptc 2500, target queue 12.5 -> th_min 6.25 packets
        let p = Params::resolve(&c, Variant::Red, 10e6);
        assert!((p.min_th - 3125.0).abs() < 1e-9);
        assert!((p.max_th - 9375.0).abs() < 1e-9);
        // forced drop tests bytes >= limit before enqueue: the queue may pass the limit by one packet
        let mut h = harness(c, 800_000);
        for _ in 0..30 {
            let pkt = h.packet(0, 1040);
            h.enqueue(SimTime(0), pkt);
        }
        assert_eq!(h.q.len_bytes(), 10 * 1040);
    }

    #[test]
    fn paper003_and_floyd_presets() {
        let c = RedConfig {
            preset: RedPreset::Paper003,
            limit: Some(QueueLimit::Bytes(5000)),
            ..Default::default()
        };
        let p = Params::resolve(&c, Variant::Red, 1e6);
        assert!(p.byte_mode);
        assert_eq!((p.min_th, p.max_th), (1250.0, 3750.0));
        assert!((p.max_p - 0.02).abs() < 1e-15);
        let c = RedConfig {
            preset: RedPreset::Floyd,
            min_th: Some(Threshold::Packets(8.0)),
            ..Default::default()
        };
        let p = Params::resolve(&c, Variant::Red, 10e6);
        assert_eq!(p.max_th, 24.0);
        assert!((p.q_w - (1.0 - (-1.0f64 / 1250.0).exp())).abs() < 1e-15);
        let c = RedConfig {
            preset: RedPreset::Linux,
            ..Default::default()
        };
        let p = Params::resolve(&c, Variant::Red, 10e6);
        assert_eq!(p.limit, QueueLimit::Bytes(100_000));
        assert!(!p.gentle && !p.wait);
        assert!(p.q_w > 0.0 && p.q_w < 0.5);
    }

    // ---- ECN-capable packets are marked instead of dropped ----
    #[test]
    fn ecn_marks_instead_of_early_drops() {
        let mut c = cfg();
        c.max_p = Some(0.1);
        c.wait = Some(false);
        c.ecn = Some(true);
        c.q_weight = Some(1e-12);
        c.limit = Some(QueueLimit::Packets(100_000));
        let mut h = harness(c, 10_000_000);
        for _ in 0..5 {
            let p = h.packet(0, 1000);
            h.enqueue(SimTime(0), p);
        }
        red_mut(&mut h).set_average(10.0);
        let mut marked = 0;
        for _ in 0..10_000 {
            let mut p = h.packet(0, 1000);
            p.ecn = Ecn::Ect0;
            h.enqueue(SimTime(1), p);
            red_mut(&mut h).set_average(10.0);
            if let Some(out) = h.dequeue(SimTime(1)) {
                if out.ecn == Ecn::Ce {
                    marked += 1;
                }
            }
        }
        assert!(h.dropped.is_empty());
        assert_eq!(h.marks as usize, marked);
        // about one in 10 marked
        assert!((850..1150).contains(&marked), "{marked}");
    }

    // ---- hard limit ----
    #[test]
    fn hard_limit_is_a_forced_drop() {
        let mut c = cfg();
        c.limit = Some(QueueLimit::Packets(3));
        let mut h = harness(c, 10_000_000);
        for _ in 0..5 {
            let p = h.packet(0, 1000);
            h.enqueue(SimTime(0), p);
        }
        assert_eq!(h.q.len_packets(), 3);
        assert!(h.dropped.iter().all(|(_, r)| *r == DropReason::RedForced));
    }

    /// red.cc `enque`: a forced drop restarts the count (Philip Liu's fix) unless ns-2's
    /// `ns1_compat_` (`forced_drop_resets_count = false`) keeps it counting.
    #[test]
    fn forced_drop_restarts_the_count_unless_ns1_compat() {
        for (resets, want) in [(None, 0), (Some(false), 5)] {
            let mut c = cfg();
            c.preset = RedPreset::Ns2;
            c.limit = Some(QueueLimit::Packets(3));
            c.forced_drop_resets_count = resets;
            let mut h = harness(c, 10_000_000);
            for _ in 0..5 {
                let p = h.packet(0, 1000);
                h.enqueue(SimTime(0), p);
            }
            assert_eq!(h.dropped.len(), 3); // the ns2 preset's hard limit, `hard_limit_hit`
            assert_eq!(red_mut(&mut h).count, want, "{resets:?}");
        }
    }

    // ---- Adaptive RED moves max_p towards the target band ----
    #[test]
    fn adaptive_red_raises_max_p_when_average_is_high() {
        let c = RedConfig {
            limit: Some(QueueLimit::Packets(1000)),
            min_th: Some(Threshold::Packets(5.0)),
            max_th: Some(Threshold::Packets(15.0)),
            max_p: Some(0.02),
            q_weight: Some(1e-12),
            ..Default::default()
        };
        let mut h = Harness::new(Box::new(Red::new(&c, Variant::Adaptive)), Rate(10_000_000));
        let p = h.packet(0, 1000);
        h.enqueue(SimTime(0), p);
        red_mut(&mut h).set_average(14.0);
        for i in 1..=10u64 {
            let p = h.packet(0, 1000);
            h.enqueue(SimTime::from_secs_f64(0.51 * i as f64), p);
            red_mut(&mut h).set_average(14.0);
        }
        // ten increases of min(0.01, max_p/4)
        let mut want = 0.02f64;
        for _ in 0..10 {
            want += 0.005f64.min(want / 4.0);
        }
        assert!((red_mut(&mut h).cur_max_p() - want).abs() < 1e-12);
        // and lowers it (x0.9) when the average is low
        red_mut(&mut h).set_average(5.5);
        let p = h.packet(0, 1000);
        h.enqueue(SimTime::from_secs_f64(6.0), p);
        assert!((red_mut(&mut h).cur_max_p() - want * 0.9).abs() < 1e-12);
    }
}
