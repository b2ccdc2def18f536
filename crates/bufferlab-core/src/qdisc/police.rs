//! A policer: a token-bucket meter in front of a child discipline that drops (or marks ECN)
//! out-of-profile packets at once instead of queueing them (`kind = "police"`). Two meters:
//!
//! * **Two-colour** (`rate`, `burst`), as Linux's `act_police` (net/sched/act_police.c,
//!   `tcf_police_act`; tc-police(8)): a bucket of `burst` bytes fills at `rate`; a packet of
//!   L bytes conforms when the bucket holds L, and then takes L from it; a packet that exceeds
//!   takes nothing (act_police stores `toks` and `t_c` only on conform). Conforming packets
//!   go to the child; exceeding ones get the `exceed` action.
//! * **Three-colour, two-rate** (`peak_rate`, `peak_burst` added): RFC 2698's trTCM in
//!   colour-blind mode (section 3), as ns-2's DiffServ `TRTCMPolicy` (diffserv/dsPolicy.cc,
//!   `applyMeter`, `applyPolicer`) implements it: bucket C of CBS = `burst` bytes fills at CIR
//!   = `rate`, bucket P of PBS = `peak_burst` at PIR = `peak_rate`, both start full. A packet
//!   of B bytes is red if P holds less than B; else yellow if C holds less than B (P loses B);
//!   else green (both lose B). Green goes to the child, yellow gets the `yellow` action, red
//!   is dropped.
//!
//! Tokens are exact: each bucket counts bytes x 8 x 10^12 (rate in bit/s times time in
//! picoseconds), so filling is the continuous rate (ns-2 adds `cir * (now - arrivalTime)` in
//! doubles; RFC 2698 adds one byte every 1/CIR; Linux counts time at nanosecond resolution)
//! without rounding. Sizes are the packet's size (IP header and payload), as act_police's
//! `qdisc_pkt_len` and ns-2's `hdr_cmn::size`.
//!
//! Actions: `drop` (reason `policed`), `mark` (ECN CE if the packet is ECN-capable, else
//! dropped, as RFC 3168 section 5 has a router do for a packet it would mark) or `pass` (to
//! the child unchanged: a meter that only counts). Defaults: `exceed` = `drop` (tc-police's
//! own default is `reclassify`, which needs a classifier bufferlab's queues do not have; the
//! usual `police ... drop` of tc-police(8)); `yellow` = `mark` (RFC 2698 colours yellow
//! packets for the next hop to treat them as droppable first; with ECN the congestion signal
//! arrives without a loss). `peak_burst` has no default (RFC 2698: PBS is configured), nor do
//! `rate` and `burst` (tc-police requires both). `child`: DropTail 1000p, as the shaper's.
//! Not modelled: RFC 2698's colour-aware mode (packets carry no colour here), act_police's
//! `mtu`, `avrate` and packets-per-second rates.

use super::{DropReason, QueueConfig, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::units::{Bytes, Rate, SimTime, PS_PER_S};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------- configuration

/// What a policer does with a packet out of profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PoliceAction {
    /// Dropped (reason `policed`).
    Drop,
    /// Marked ECN CE if it is ECN-capable, else dropped.
    Mark,
    /// Passed to the child unchanged.
    Pass,
}

/// A policer: a two-colour token bucket (Linux act_police), or with `peak_rate` the RFC 2698
/// two-rate three-colour marker (colour-blind), in front of a child discipline.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PoliceConfig {
    /// The committed rate (CIR; act_police `rate`). Required.
    pub rate: Rate,
    /// The committed burst (CBS; act_police `burst`), the bucket filling at `rate`. Required.
    pub burst: Bytes,
    /// The peak rate (PIR): with it the meter is RFC 2698's trTCM (default none: two colours).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rate: Option<Rate>,
    /// The peak burst (PBS), the bucket filling at `peak_rate`; required with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_burst: Option<Bytes>,
    /// What happens to a packet that exceeds the two-colour meter (default drop; tc-police's
    /// own default, reclassify, needs a classifier).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exceed: Option<PoliceAction>,
    /// What happens to a yellow packet of the three-colour meter (default mark: ECN CE, a
    /// packet that is not ECN-capable dropped). Red packets are always dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yellow: Option<PoliceAction>,
    /// The discipline in-profile packets wait in (default DropTail 1000p, as the shaper's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child: Option<Box<QueueConfig>>,
}

impl PoliceConfig {
    /// The child's configuration, with its default (as the shaper's).
    pub fn child(&self) -> QueueConfig {
        super::tbf::child_or_default(&self.child)
    }

    /// Checks values serde cannot: (field relative to the queue, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        if self.burst.0 == 0 {
            return Err((
                "burst".into(),
                "must hold at least one packet, e.g. burst = \"15KB\"".into(),
            ));
        }
        match (self.peak_rate, self.peak_burst) {
            (Some(_), None) => {
                return Err((
                    "peak_burst".into(),
                    "give the peak bucket's size (RFC 2698 PBS) with peak_rate".into(),
                ))
            }
            (None, Some(_)) => {
                return Err((
                    "peak_rate".into(),
                    "give the peak rate (RFC 2698 PIR) with peak_burst, or remove peak_burst"
                        .into(),
                ))
            }
            (Some(pir), Some(pbs)) => {
                if pir.0 < self.rate.0 {
                    return Err((
                        "peak_rate".into(),
                        "must be at least rate (RFC 2698: PIR >= CIR)".into(),
                    ));
                }
                if pbs.0 == 0 {
                    return Err(("peak_burst".into(), "must hold at least one packet".into()));
                }
            }
            (None, None) => {
                if self.yellow.is_some() {
                    return Err((
                        "yellow".into(),
                        "only the three-colour meter has yellow packets: give peak_rate and peak_burst, or use `exceed`".into(),
                    ));
                }
            }
        }
        if self.peak_rate.is_some() && self.exceed.is_some() {
            return Err((
                "exceed".into(),
                "the three-colour meter drops red packets and acts on yellow ones with `yellow`; remove `exceed`".into(),
            ));
        }
        if let Some(c) = &self.child {
            match **c {
                QueueConfig::Python(_) | QueueConfig::Police(_) => {
                    return Err((
                        "child.kind".into(),
                        "a python or police discipline cannot be a policer's child; give a built-in discipline (default droptail)".into(),
                    ))
                }
                _ => c.validate().map_err(|(f, m)| (format!("child.{f}"), m))?,
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- the meter

/// One token bucket, its tokens in bytes x 8 x 10^12 (rate x picoseconds).
#[derive(Debug, Clone)]
struct Bucket {
    rate: u128,
    depth: u128,
    tokens: u128,
    last: SimTime,
}

impl Bucket {
    fn new(rate: Rate, depth: Bytes) -> Self {
        let depth = u128::from(depth.0) * 8 * u128::from(PS_PER_S);
        Self {
            rate: u128::from(rate.0),
            depth,
            tokens: depth,
            last: SimTime::ZERO,
        }
    }

    /// Adds the tokens since the last call, capped at the depth (ns-2 `applyMeter`).
    fn fill(&mut self, now: SimTime) {
        let dt = u128::from(now.saturating_sub(self.last).0);
        self.tokens = (self.tokens + self.rate * dt).min(self.depth);
        self.last = now;
    }
}

/// A packet's colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Colour {
    Green,
    Yellow,
    Red,
}

/// The meter: the committed bucket, and the peak bucket of a three-colour meter.
#[derive(Debug, Clone)]
pub struct Meter {
    c: Bucket,
    p: Option<Bucket>,
}

impl Meter {
    pub fn new(cfg: &PoliceConfig) -> Self {
        Self {
            c: Bucket::new(cfg.rate, cfg.burst),
            p: cfg
                .peak_rate
                .zip(cfg.peak_burst)
                .map(|(r, b)| Bucket::new(r, b)),
        }
    }

    /// The colour of a packet of `bytes` arriving `now`, the buckets updated: two colours
    /// (act_police `tcf_police_act`: conform takes the tokens, exceed takes none: green or
    /// red) or RFC 2698 section 3, colour-blind (ns-2 `TRTCMPolicy::applyPolicer`).
    pub fn colour(&mut self, now: SimTime, bytes: u64) -> Colour {
        let cost = u128::from(bytes) * 8 * u128::from(PS_PER_S);
        self.c.fill(now);
        let Some(p) = self.p.as_mut() else {
            if self.c.tokens < cost {
                return Colour::Red;
            }
            self.c.tokens -= cost;
            return Colour::Green;
        };
        p.fill(now);
        if p.tokens < cost {
            Colour::Red
        } else if self.c.tokens < cost {
            p.tokens -= cost;
            Colour::Yellow
        } else {
            p.tokens -= cost;
            self.c.tokens -= cost;
            Colour::Green
        }
    }
}

// ---------------------------------------------------------------- the discipline

pub struct Police {
    meter: Meter,
    three_colour: bool,
    exceed: PoliceAction,
    yellow: PoliceAction,
    child: Box<dyn QueueDisc>,
    /// Packets of each colour (green, yellow, red) from `measure_from` on.
    counts: [u64; 3],
    start: SimTime,
}

impl Police {
    pub fn new(cfg: &PoliceConfig, child: Box<dyn QueueDisc>) -> Self {
        Self {
            meter: Meter::new(cfg),
            three_colour: cfg.peak_rate.is_some(),
            exceed: cfg.exceed.unwrap_or(PoliceAction::Drop),
            yellow: cfg.yellow.unwrap_or(PoliceAction::Mark),
            child,
            counts: [0; 3],
            start: SimTime::ZERO,
        }
    }

    fn act(&mut self, action: PoliceAction, mut pkt: Packet, cx: &mut QueueCtx) {
        match action {
            PoliceAction::Pass => self.child.enqueue(pkt, cx),
            PoliceAction::Mark if cx.mark(&mut pkt) => self.child.enqueue(pkt, cx),
            PoliceAction::Mark | PoliceAction::Drop => cx.drop(pkt, DropReason::Policed),
        }
    }
}

impl QueueDisc for Police {
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        let colour = self.meter.colour(cx.now, u64::from(pkt.size));
        if cx.now >= self.start {
            self.counts[colour as usize] += 1;
        }
        match colour {
            Colour::Green => self.child.enqueue(pkt, cx),
            Colour::Yellow => self.act(self.yellow, pkt, cx),
            Colour::Red if self.three_colour => cx.drop(pkt, DropReason::Policed),
            Colour::Red => self.act(self.exceed, pkt, cx),
        }
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        self.child.dequeue(cx)
    }
    fn wake_at(&self) -> Option<SimTime> {
        self.child.wake_at()
    }
    fn len_packets(&self) -> usize {
        self.child.len_packets()
    }
    fn len_bytes(&self) -> u64 {
        self.child.len_bytes()
    }
    fn kind(&self) -> &'static str {
        "police"
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
    fn measure_from(&mut self, start: SimTime) {
        self.start = start;
        self.child.measure_from(start);
    }
    fn class_stats(&self, _now: SimTime) -> Option<serde_json::Value> {
        let class = |name: &str, n: u64| serde_json::json!({ "name": name, "arrivals": n });
        let [green, yellow, red] = self.counts;
        Some(serde_json::json!([
            class("green", green),
            class("yellow", yellow),
            class("red", red)
        ]))
    }
    fn resolved_settings(&self, rate_bps: f64) -> Option<serde_json::Value> {
        let mut v = serde_json::json!({
            "meter": if self.three_colour { "trtcm" } else { "two_colour" },
            "exceed": format!("{:?}", self.exceed).to_lowercase(),
            "yellow": format!("{:?}", self.yellow).to_lowercase(),
            "child": self.child.kind(),
        });
        if let Some(c) = self.child.resolved_settings(rate_bps) {
            v["child_settings"] = c;
        }
        Some(v)
    }
    fn warnings(&self, rate_bps: f64) -> Vec<String> {
        self.child.warnings(rate_bps)
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::*;
    use crate::packet::Ecn;

    fn cfg(rate: u64, burst: u64, peak: Option<(u64, u64)>) -> PoliceConfig {
        PoliceConfig {
            rate: Rate(rate),
            burst: Bytes(burst),
            peak_rate: peak.map(|p| Rate(p.0)),
            peak_burst: peak.map(|p| Bytes(p.1)),
            exceed: None,
            yellow: None,
            child: None,
        }
    }

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    /// RFC 2698 section 3, colour-blind, step by step: CBS 2000 B at CIR 1 Mbit/s (125 B/ms),
    /// PBS 3000 B at PIR 2 Mbit/s (250 B/ms), both full at 0.
    #[test]
    fn trtcm_follows_rfc_2698_definitions() {
        let mut m = Meter::new(&cfg(1_000_000, 2000, Some((2_000_000, 3000))));
        // Tc 2000, Tp 3000: 1500 B is green (Tc 500, Tp 1500)
        assert_eq!(m.colour(ms(0), 1500), Colour::Green);
        // Tc - B < 0 but Tp - B >= 0: yellow, Tp 0, Tc stays 500
        assert_eq!(m.colour(ms(0), 1500), Colour::Yellow);
        // Tp - B < 0: red, nothing taken
        assert_eq!(m.colour(ms(0), 1), Colour::Red);
        // 4 ms later: Tc 500 + 500 = 1000, Tp 0 + 1000 = 1000; 1000 B green, both at 0
        assert_eq!(m.colour(ms(4), 1000), Colour::Green);
        // 2 ms: Tc 250, Tp 500: 400 B is yellow (Tp 100), a red packet takes nothing
        assert_eq!(m.colour(ms(6), 400), Colour::Yellow);
        assert_eq!(m.colour(ms(6), 101), Colour::Red);
        // 100 B fits both (Tc 250, Tp 100): green, Tc 150, Tp 0
        assert_eq!(m.colour(ms(6), 100), Colour::Green);
        // buckets cap at CBS and PBS: after 1 s, 2000 B green, then 1000 yellow, then red
        assert_eq!(m.colour(ms(1006), 2000), Colour::Green);
        assert_eq!(m.colour(ms(1006), 1000), Colour::Yellow);
        assert_eq!(m.colour(ms(1006), 1), Colour::Red);
    }

    /// Two colours (act_police): conform takes the tokens, exceed none; over any window T at
    /// most burst + rate T bytes conform, and a long overload conforms at exactly the rate.
    #[test]
    fn two_colour_passes_rate_and_burst() {
        let mut m = Meter::new(&cfg(8_000_000, 3000, None)); // 1000 B/ms
        assert_eq!(m.colour(ms(0), 3000), Colour::Green);
        assert_eq!(m.colour(ms(0), 1), Colour::Red);
        assert_eq!(m.colour(ms(1), 1000), Colour::Green);
        // 1500-byte packets every 0.5 ms (24 Mbit/s) for 10 s: 8 Mbit/s conforms
        let mut m = Meter::new(&cfg(8_000_000, 3000, None));
        let mut green = 0u64;
        for i in 0..20_000u64 {
            if m.colour(SimTime(i * 500_000_000), 1500) == Colour::Green {
                green += 1500;
            }
        }
        let bound = 3000 + 1000 * 10_000; // burst + rate x 9.9995 s, rounded up
        assert!(green <= bound, "{green}");
        assert!(green >= bound - 3000, "{green}");
    }

    /// As a discipline: green to the child, red dropped (`policed`), yellow marked when
    /// ECN-capable and dropped otherwise; the colours are counted.
    #[test]
    fn the_discipline_drops_and_marks() {
        let c = cfg(1_000_000, 1500, Some((2_000_000, 3000)));
        assert!(c.validate().is_ok());
        let mut h = Harness::new(
            Box::new(Police::new(&c, c.child().build())),
            Rate(10_000_000),
        );
        let p = h.packet(0, 1500);
        h.enqueue(ms(0), p); // green
        let mut p = h.packet(0, 1500);
        p.ecn = Ecn::Ect0;
        h.enqueue(ms(0), p); // yellow, marked
        let p = h.packet(0, 1500);
        h.enqueue(ms(0), p); // red
        let p = h.packet(0, 1000);
        h.enqueue(ms(4), p); // Tc 500, Tp 1000: yellow, not ECN-capable: dropped
        assert_eq!(h.marks, 1);
        assert_eq!(h.dropped.len(), 2);
        assert!(h.dropped.iter().all(|d| d.1 == DropReason::Policed));
        assert_eq!(h.q.len_packets(), 2);
        let first = h.dequeue(ms(5)).unwrap();
        let second = h.dequeue(ms(5)).unwrap();
        assert_eq!((first.ecn, second.ecn), (Ecn::NotEct, Ecn::Ce));
        let counts = h.q.class_stats(ms(5)).unwrap();
        let n: Vec<u64> = (0..3)
            .map(|i| counts[i]["arrivals"].as_u64().unwrap())
            .collect();
        assert_eq!(n, vec![1, 2, 1]);
        assert_eq!(counts[1]["name"], "yellow");
    }

    #[test]
    fn checks_name_the_field() {
        let mut c = cfg(1_000_000, 1500, None);
        c.peak_rate = Some(Rate(2_000_000));
        assert_eq!(c.validate().unwrap_err().0, "peak_burst");
        let mut c = cfg(2_000_000, 1500, Some((1_000_000, 3000)));
        assert_eq!(c.validate().unwrap_err().0, "peak_rate");
        c = cfg(1_000_000, 1500, None);
        c.yellow = Some(PoliceAction::Drop);
        assert_eq!(c.validate().unwrap_err().0, "yellow");
        c = cfg(1_000_000, 0, None);
        assert_eq!(c.validate().unwrap_err().0, "burst");
    }
}
