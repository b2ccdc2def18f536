//! TBF, the token-bucket shaper, following Linux `net/sched/sch_tbf.c` (`tbf_enqueue`,
//! `tbf_dequeue`, `tbf_change`) and ns-3's `TbfQueueDisc` (src/traffic-control/model/
//! tbf-queue-disc.cc, `DoDequeue`, `CheckConfig`, `InitializeParams`), which ports it:
//!
//! * Packets wait in a child discipline (any `kind`; as ns-3's single `QueueDiscClass` and
//!   Linux's inner qdisc). The shaper only decides *when* the child's head may leave.
//! * A bucket of `burst` bytes fills at `rate`; a packet of L bytes leaves when the bucket
//!   holds L. With a `peak_rate`, a second bucket of `min_burst` bytes filling at the peak rate
//!   must hold L as well, which spaces the packets of a burst at the peak rate. Both buckets
//!   start full (Linux `tbf_change`, ns-3 `InitializeParams`).
//! * Tokens are kept as time, as Linux does (`q->tokens`, `q->ptokens` in ns, the bucket depth
//!   `q->buffer = psched_l2t_ns(rate, burst)`), here in integer picoseconds: at a dequeue the
//!   bucket gains the time since the last packet left, capped at the depth, and a packet costs
//!   its transmission time at the rate (`psched_l2t_ns`). Over any interval of length T the
//!   bytes let through are therefore at most `burst + rate T` (plus one picosecond's rounding
//!   per packet), and a long backlog leaves at exactly `rate`. ns-3 keeps bytes instead and
//!   adds `round(delta * rate / 8)` at each dequeue, so its buckets gain up to half a byte more
//!   or less per dequeue than the elapsed time is worth; docs/validation.md measures it.
//! * To look at the head, the child is dequeued and the packet held until the tokens allow it
//!   (Linux `qdisc_peek_dequeued`, ns-3 `QueueDisc::Peek`, which both dequeue and keep the
//!   packet): a child AQM such as CoDel takes its dequeue-time decision when the packet reaches
//!   the head of the shaper, as in both.
//! * When the tokens do not allow the head, the shaper asks to be woken when they will
//!   (`wake_at`: Linux `qdisc_watchdog_schedule_ns(now + max(-toks, -ptoks))`, ns-3
//!   `Simulator::Schedule(requiredDelayTime, &QueueDisc::Run)`); the port sets a timer.
//! * A packet longer than what the buckets can ever hold (`burst`, and `min_burst` with a peak
//!   rate: Linux `q->max_size`) is dropped at enqueue with reason `oversize`, as
//!   `tbf_enqueue` drops it (GSO segmentation is not modelled). ns-3 does not check: such a
//!   packet would block its queue for ever.
//!
//! Sizes are the packet's size (IP header and payload), as Linux `qdisc_pkt_len` without a
//! size table and ns-3 `QueueDiscItem::GetSize`; the link's framing `overhead` is not charged.
//!
//! Defaults: `rate` and `burst` have none (tc-tbf(8) requires both; ns-3's 125 KB/s and
//! 125000 B are placeholders). `peak_rate`: none (Linux and ns-3: no second bucket).
//! `min_burst`: 1500 B (ns-3 `Mtu` 0 takes the device MTU, PointToPointNetDevice's 1500; tc
//! requires `mtu` with `peakrate`). `child`: DropTail 1000p (ns-3 `CheckConfig` creates a
//! FifoQueueDisc of the TbfQueueDisc's MaxSize, 1000p).

use super::droptail::DropTailConfig;
use super::{DropReason, QueueConfig, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::units::{Bytes, QueueLimit, Rate, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------- configuration

/// TBF, a token-bucket shaper in front of a child discipline (Linux sch_tbf, ns-3
/// TbfQueueDisc).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TbfConfig {
    /// Token rate: the long-run rate of what leaves (required: tc-tbf `rate`, ns-3 `Rate`).
    pub rate: Rate,
    /// Bucket depth: the largest burst sent at link speed (required: tc-tbf `burst`, ns-3
    /// `Burst`). At least the largest packet: longer packets are dropped (`oversize`).
    pub burst: Bytes,
    /// Rate of the second bucket, which spaces a burst's packets (default none: tc-tbf
    /// `peakrate`, ns-3 `PeakRate` 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rate: Option<Rate>,
    /// Depth of the second bucket (default 1500B: ns-3 `Mtu` 0 = the device MTU; tc-tbf
    /// `mtu`/`minburst`). Used only with `peak_rate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_burst: Option<Bytes>,
    /// The discipline the packets wait in (default DropTail 1000p: ns-3 `CheckConfig` makes a
    /// FifoQueueDisc of MaxSize 1000p).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child: Option<Box<QueueConfig>>,
}

/// A wrapping discipline's child (a shaper's, a policer's): the one given, else DropTail
/// 1000p (ns-3 TbfQueueDisc `CheckConfig` makes a FifoQueueDisc of MaxSize 1000p).
pub(super) fn child_or_default(child: &Option<Box<QueueConfig>>) -> QueueConfig {
    match child {
        Some(c) => (**c).clone(),
        None => QueueConfig::Droptail(DropTailConfig {
            limit: QueueLimit::Packets(1000),
            ..DropTailConfig::default()
        }),
    }
}

/// ns-3 TbfQueueDisc `Mtu` 0 takes the device's MTU, PointToPointNetDevice's default 1500.
const DEFAULT_MIN_BURST: u64 = 1500;

impl TbfConfig {
    /// The child's configuration, with its default.
    pub fn child(&self) -> QueueConfig {
        child_or_default(&self.child)
    }

    fn min_burst(&self) -> u64 {
        self.min_burst.map_or(DEFAULT_MIN_BURST, |b| b.0)
    }

    /// Checks values serde cannot: (field relative to the queue, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        if self.rate.0 == 0 {
            return Err((
                "rate".into(),
                "must be positive: nothing would ever leave (e.g. rate = \"10Mbps\")".into(),
            ));
        }
        if self.burst.0 == 0 {
            return Err((
                "burst".into(),
                "must hold at least one packet, e.g. burst = \"15KB\" (tc-tbf: at least the MTU)"
                    .into(),
            ));
        }
        if self.peak_rate.is_some_and(|p| p.0 == 0) {
            return Err((
                "peak_rate".into(),
                "must be positive; leave it out for no second bucket".into(),
            ));
        }
        if self.min_burst == Some(Bytes(0)) {
            return Err((
                "min_burst".into(),
                "must hold at least one packet (default 1500B, the device MTU as in ns-3)".into(),
            ));
        }
        if let Some(c) = &self.child {
            match **c {
                QueueConfig::Python(_) | QueueConfig::Tbf(_) => {
                    return Err((
                        "child.kind".into(),
                        "a python or tbf discipline cannot be a shaper's child yet; give a \
                         built-in discipline (default droptail)"
                            .into(),
                    ))
                }
                _ => c.validate().map_err(|(f, m)| (format!("child.{f}"), m))?,
            }
        }
        Ok(())
    }

    /// Settings under which the shaper would not act as one, in words naming the fix.
    pub fn warnings(&self, link_bps: f64) -> Vec<String> {
        let mut w = Vec::new();
        if self.rate.0 as f64 >= link_bps {
            w.push(format!(
                "tbf rate {} is not below the link's {} bit/s: the link, not the shaper, sets \
                 the pace (give a lower rate)",
                self.rate, link_bps
            ));
        }
        if self.peak_rate.is_some_and(|p| p.0 <= self.rate.0) {
            w.push(
                "tbf peak_rate is not above rate: the second bucket then limits the long-run \
                 rate (ns-3 CheckConfig warns the same; give a peak_rate above rate)"
                    .into(),
            );
        }
        if self.peak_rate.is_some() && self.burst.0 <= self.min_burst() {
            w.push("tbf burst is not above min_burst (ns-3 CheckConfig warns the same)".into());
        }
        w
    }
}

// ---------------------------------------------------------------- the discipline

pub struct Tbf {
    cfg: TbfConfig,
    child: Box<dyn QueueDisc>,
    /// The child's head, taken out to look at it (Linux `qdisc_peek_dequeued`).
    held: Option<Packet>,
    rate: Rate,
    peak: Option<Rate>,
    /// Bucket depths in time (Linux `q->buffer`, `q->mtu`), picoseconds.
    buffer: i64,
    mtu: i64,
    /// Largest packet that can ever leave (Linux `q->max_size`), bytes.
    max_size: u64,
    tokens: i64,
    ptokens: i64,
    /// When the last packet left (Linux `q->t_c`).
    t_c: SimTime,
    /// When the tokens allow the head that could not leave at the last dequeue.
    wake: Option<SimTime>,
}

impl Tbf {
    pub fn new(cfg: &TbfConfig, child: Box<dyn QueueDisc>) -> Self {
        let rate = Rate(cfg.rate.0.max(1));
        let peak = cfg.peak_rate.filter(|p| p.0 > 0);
        let buffer = rate.tx_time(cfg.burst.0).0 as i64;
        let min_burst = cfg.min_burst();
        let mtu = peak.map_or(0, |p| p.tx_time(min_burst).0 as i64);
        let max_size = if peak.is_some() {
            cfg.burst.0.min(min_burst)
        } else {
            cfg.burst.0
        };
        Self {
            cfg: cfg.clone(),
            child,
            held: None,
            rate,
            peak,
            buffer,
            mtu,
            max_size,
            // both buckets start full (Linux tbf_change, ns-3 InitializeParams)
            tokens: buffer,
            ptokens: mtu,
            t_c: SimTime::ZERO,
            wake: None,
        }
    }

    /// The tokens (time, ps) each bucket would hold after sending `len` bytes now: Linux
    /// `tbf_dequeue`'s `toks` and `ptoks`.
    fn after(&self, now: SimTime, len: u64) -> (i64, i64) {
        let elapsed = now.saturating_sub(self.t_c).0.min(i64::MAX as u64) as i64;
        let toks = elapsed.min(self.buffer);
        let ptoks = match self.peak {
            Some(p) => (toks + self.ptokens).min(self.mtu) - p.tx_time(len).0 as i64,
            None => 0,
        };
        let toks = (toks + self.tokens).min(self.buffer) - self.rate.tx_time(len).0 as i64;
        (toks, ptoks)
    }
}

impl QueueDisc for Tbf {
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        if pkt.size as u64 > self.max_size {
            cx.drop(pkt, DropReason::Oversize);
            return;
        }
        self.child.enqueue(pkt, cx);
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        self.wake = None;
        if self.held.is_none() {
            self.held = self.child.dequeue(cx);
        }
        let len = self.held.as_ref()?.size as u64;
        let (toks, ptoks) = self.after(cx.now, len);
        if toks >= 0 && ptoks >= 0 {
            self.t_c = cx.now;
            self.tokens = toks;
            self.ptokens = ptoks;
            return self.held.take();
        }
        let wait = (-toks).max(-ptoks).max(1) as u64;
        self.wake = Some(cx.now + SimTime(wait));
        None
    }

    fn wake_at(&self) -> Option<SimTime> {
        self.wake
    }

    fn len_packets(&self) -> usize {
        self.child.len_packets() + usize::from(self.held.is_some())
    }
    fn len_bytes(&self) -> u64 {
        self.child.len_bytes() + self.held.as_ref().map_or(0, |p| p.size as u64)
    }
    fn kind(&self) -> &'static str {
        "tbf"
    }
    fn link_idle(&mut self, since: SimTime) {
        self.child.link_idle(since);
    }
    fn set_flow_ids(&mut self, fids: &[u32]) {
        self.child.set_flow_ids(fids);
    }
    fn average(&self) -> Option<f64> {
        self.child.average()
    }
    fn arrival_length(&self) -> Option<f64> {
        self.child.arrival_length()
    }
    fn probability_at(&self, now: SimTime) -> Option<f64> {
        self.child.probability_at(now)
    }
    fn average_unit(&self) -> &'static str {
        self.child.average_unit()
    }
    fn class_stats(&self, now: SimTime) -> Option<serde_json::Value> {
        self.child.class_stats(now)
    }
    fn measure_from(&mut self, start: SimTime) {
        self.child.measure_from(start);
    }
    fn warnings(&self, rate_bps: f64) -> Vec<String> {
        let mut w = self.cfg.warnings(rate_bps);
        w.extend(self.child.warnings(rate_bps));
        w
    }
    fn resolved_settings(&self, rate_bps: f64) -> Option<serde_json::Value> {
        let mut v = serde_json::json!({
            "rate_bps": self.rate.0,
            "burst_s": SimTime(self.buffer as u64).as_secs_f64(),
            "max_size_bytes": self.max_size,
            "child": self.child.kind(),
        });
        if let Some(p) = self.peak {
            v["peak_rate_bps"] = p.0.into();
            v["min_burst_s"] = SimTime(self.mtu as u64).as_secs_f64().into();
        }
        if let Some(c) = self.child.resolved_settings(rate_bps) {
            v["child_settings"] = c;
        }
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::*;
    use crate::units::Rate;

    fn tbf(rate: u64, burst: u64, peak: Option<u64>, min_burst: Option<u64>) -> Tbf {
        let cfg = TbfConfig {
            rate: Rate(rate),
            burst: Bytes(burst),
            peak_rate: peak.map(Rate),
            min_burst: min_burst.map(Bytes),
            child: Some(Box::new(QueueConfig::Droptail(DropTailConfig {
                limit: QueueLimit::Packets(100_000),
                ..DropTailConfig::default()
            }))),
        };
        assert!(cfg.validate().is_ok());
        let child = cfg.child().build();
        Tbf::new(&cfg, child)
    }

    /// Keeps the shaper backlogged with `size`-byte packets and asks for a packet at every
    /// time it could send (a link much faster than the rate: each ask at the later of the
    /// shaper's wake-up and the end of the previous packet at `link_bps`). Returns each
    /// departure's (time, size).
    fn drain(q: Tbf, sizes: &[u32], link_bps: u64, until: SimTime) -> Vec<(SimTime, u32)> {
        let mut h = Harness::new(Box::new(q), Rate(link_bps));
        let mut out = Vec::new();
        let mut now = SimTime::ZERO;
        let mut i = 0;
        while now < until {
            while h.q.len_packets() < 50 {
                let p = h.packet(0, sizes[i % sizes.len()]);
                i += 1;
                h.enqueue(now, p);
            }
            match h.dequeue(now) {
                Some(p) => {
                    out.push((now, p.size));
                    now = now + Rate(link_bps).tx_time(p.size as u64);
                }
                None => {
                    now =
                        h.q.wake_at()
                            .expect("a backlogged shaper names its wake-up")
                }
            }
        }
        assert!(h.dropped.is_empty());
        out
    }

    /// Largest sum of sizes sent in any window [t, t + T] (T given), by a two-pointer sweep.
    fn max_in_window(d: &[(SimTime, u32)], t: SimTime) -> u64 {
        let (mut j, mut sum, mut best) = (0, 0u64, 0u64);
        for i in 0..d.len() {
            sum += d[i].1 as u64;
            while d[i].0 - d[j].0 > t {
                sum -= d[j].1 as u64;
                j += 1;
            }
            best = best.max(sum);
        }
        best
    }

    // ---- conformance: bytes in any interval T <= burst + rate T ----
    #[test]
    fn any_interval_conforms_to_the_token_bucket() {
        // 8 Mbit/s: one byte is exactly 1 us, so no rounding enters the bound
        let rate = 8_000_000u64;
        let burst = 10_000u64;
        let d = drain(
            tbf(rate, burst, None, None),
            &[1500, 40, 576, 1000],
            1_000_000_000,
            SimTime::from_secs(2),
        );
        for t_ms in [0u64, 1, 2, 5, 10, 50, 200, 1000] {
            let t = SimTime::from_millis(t_ms);
            let bound = burst + rate / 8 * t_ms / 1000;
            let got = max_in_window(&d, t);
            assert!(got <= bound, "T = {t_ms} ms: {got} B > {bound} B");
        }
        // the initial burst is used: at t = 0 the full bucket goes out back to back
        let first: u64 = d
            .iter()
            .take_while(|(t, _)| *t < SimTime::from_micros(200))
            .map(|x| x.1 as u64)
            .sum();
        // (plus what 200 us of tokens add: 200 B)
        assert!(first > burst - 1500 && first <= burst + 200, "{first}");
    }

    // ---- a long backlog leaves at exactly the rate ----
    #[test]
    fn backlog_leaves_at_exactly_the_rate() {
        let rate = 8_000_000u64; // 1 byte per us
        let d = drain(
            tbf(rate, 3000, None, None),
            &[1000],
            1_000_000_000,
            SimTime::from_secs(3),
        );
        // after the first burst every 1000-byte packet leaves 1 ms after the one before
        let late: Vec<_> = d
            .iter()
            .filter(|(t, _)| *t > SimTime::from_millis(10))
            .collect();
        for w in late.windows(2) {
            assert_eq!(w[1].0 - w[0].0, SimTime::from_millis(1));
        }
        // bytes from 1 s to 3 s: 2 s at 1 MB/s
        let bytes: u64 = d
            .iter()
            .filter(|(t, _)| *t >= SimTime::from_secs(1))
            .map(|x| x.1 as u64)
            .sum();
        assert_eq!(bytes, 2_000_000);
    }

    // ---- the peak bucket spaces a burst at the peak rate ----
    #[test]
    fn peak_rate_spaces_the_burst() {
        // rate 1 MB/s, burst 20 KB, peak 10 MB/s (80 Mbit/s), min_burst 1500 B
        let d = drain(
            tbf(8_000_000, 20_000, Some(80_000_000), Some(1500)),
            &[1000],
            1_000_000_000,
            SimTime::from_millis(100),
        );
        // the burst's packets leave 100 us apart (1000 B at 10 MB/s), not at the 1 Gbit/s link
        // speed (8 us); the second leaves 50 us after the first (the peak bucket starts full
        // with 1500 B = 150 us of tokens)
        assert_eq!(d[1].0 - d[0].0, SimTime::from_micros(50));
        for w in d[2..10].windows(2) {
            assert_eq!(w[1].0 - w[0].0, SimTime::from_micros(100), "{d:?}");
        }
        // and over the long run the rate still holds
        let bound = 20_000u64 + 1_000_000 / 10;
        let sent: u64 = d.iter().map(|x| x.1 as u64).sum();
        assert!(sent <= bound, "{sent}");
    }

    // ---- packets the buckets can never hold are dropped, as Linux tbf_enqueue does ----
    #[test]
    fn oversize_packet_is_dropped_at_enqueue() {
        let mut h = Harness::new(
            Box::new(tbf(8_000_000, 1000, None, None)),
            Rate(1_000_000_000),
        );
        let p = h.packet(0, 1001);
        h.enqueue(SimTime::ZERO, p);
        assert_eq!(h.dropped.len(), 1);
        assert_eq!(h.dropped[0].1, DropReason::Oversize);
        let p = h.packet(0, 1000);
        h.enqueue(SimTime::ZERO, p);
        assert!(h.dequeue(SimTime::ZERO).is_some());
    }

    #[test]
    fn bad_values_are_refused_with_their_field() {
        let base = TbfConfig {
            rate: Rate(1_000_000),
            burst: Bytes(10_000),
            peak_rate: None,
            min_burst: None,
            child: None,
        };
        let field = |c: TbfConfig| c.validate().unwrap_err().0;
        assert_eq!(
            field(TbfConfig {
                rate: Rate(0),
                ..base.clone()
            }),
            "rate"
        );
        assert_eq!(
            field(TbfConfig {
                burst: Bytes(0),
                ..base.clone()
            }),
            "burst"
        );
        assert_eq!(
            field(TbfConfig {
                peak_rate: Some(Rate(0)),
                ..base.clone()
            }),
            "peak_rate"
        );
        assert_eq!(
            field(TbfConfig {
                child: Some(Box::new(QueueConfig::Tbf(base.clone()))),
                ..base.clone()
            }),
            "child.kind"
        );
        assert!(base.validate().is_ok());
    }
}
