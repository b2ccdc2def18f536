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
//! * **Three-colour, one rate** (`excess_burst` added): RFC 2697's srTCM in colour-blind mode
//!   (section 3), as ns-2's DiffServ `SRTCMPolicy` (dsPolicy.cc, `applyMeter`,
//!   `applyPolicer`) implements it: bucket C of CBS = `burst` bytes and bucket E of EBS =
//!   `excess_burst` bytes, both starting full, share one fill at CIR = `rate`: C fills first
//!   and what C cannot hold goes to E (RFC 2697 section 3: Tc is incremented while below CBS,
//!   else Te while below EBS). A packet of B bytes is green if C holds B (C loses B); else
//!   yellow if E holds B (E loses B); else red. Actions as for the two-rate meter.
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
//! `rate` and `burst` (tc-police requires both), nor `excess_burst` (RFC 2697: EBS is
//! configured). `child`: DropTail 1000p, as the shaper's.
//! Not modelled: the colour-aware mode of RFC 2697 and RFC 2698 (packets carry no colour here), act_police's
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
    /// The excess burst (EBS): with it the meter is RFC 2697's srTCM, a second bucket that
    /// keeps what the committed bucket cannot hold of the one fill at `rate` (default none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excess_burst: Option<Bytes>,
    /// What happens to a packet that exceeds the two-colour meter (default drop; tc-police's
    /// own default, reclassify, needs a classifier).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exceed: Option<PoliceAction>,
    /// What happens to a yellow packet of a three-colour meter (default mark: ECN CE, a
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
                if self.yellow.is_some() && self.excess_burst.is_none() {
                    return Err((
                        "yellow".into(),
                        "only a three-colour meter has yellow packets: give peak_rate and peak_burst (RFC 2698) or excess_burst (RFC 2697), or use `exceed`".into(),
                    ));
                }
            }
        }
        match self.excess_burst {
            Some(_) if self.peak_rate.is_some() => {
                return Err((
                    "excess_burst".into(),
                    "is the one-rate meter's (RFC 2697); with peak_rate the meter has two rates (RFC 2698): give one of them".into(),
                ))
            }
            Some(Bytes(0)) => {
                return Err((
                    "excess_burst".into(),
                    "must hold at least one packet; leave it out for two colours".into(),
                ))
            }
            _ => {}
        }
        if self.three_colour() && self.exceed.is_some() {
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

    /// A meter with yellow packets: RFC 2698's (peak_rate) or RFC 2697's (excess_burst).
    pub fn three_colour(&self) -> bool {
        self.peak_rate.is_some() || self.excess_burst.is_some()
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

    /// Adds the tokens since the last call, capped at the depth (ns-2 `applyMeter`); returns
    /// what the cap left over (RFC 2697's excess bucket takes it).
    fn fill(&mut self, now: SimTime) -> u128 {
        let dt = u128::from(now.saturating_sub(self.last).0);
        let sum = self.tokens + self.rate * dt;
        self.tokens = sum.min(self.depth);
        self.last = now;
        sum - self.tokens
    }
}

/// A packet's colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Colour {
    Green,
    Yellow,
    Red,
}

/// The second bucket of a three-colour meter.
#[derive(Debug, Clone)]
enum Second {
    /// Two colours.
    None,
    /// RFC 2698: the peak bucket, filling at its own rate.
    Peak(Bucket),
    /// RFC 2697: the excess bucket, filled by what the committed bucket overflows (its own
    /// `rate` and `last` unused), in the same units.
    Excess(Bucket),
}

/// The meter: the committed bucket, and the second bucket of a three-colour meter.
#[derive(Debug, Clone)]
pub struct Meter {
    c: Bucket,
    second: Second,
}

impl Meter {
    /// A meter with yellow packets (red ones are always dropped).
    fn three_colour(&self) -> bool {
        !matches!(self.second, Second::None)
    }

    pub fn new(cfg: &PoliceConfig) -> Self {
        let second = match (cfg.peak_rate.zip(cfg.peak_burst), cfg.excess_burst) {
            (Some((r, b)), _) => Second::Peak(Bucket::new(r, b)),
            (None, Some(ebs)) => Second::Excess(Bucket::new(Rate(0), ebs)),
            (None, None) => Second::None,
        };
        Self {
            c: Bucket::new(cfg.rate, cfg.burst),
            second,
        }
    }

    /// The colour of a packet of `bytes` arriving `now`, the buckets updated: two colours
    /// (act_police `tcf_police_act`: conform takes the tokens, exceed takes none: green or
    /// red), RFC 2698 section 3 (ns-2 `TRTCMPolicy::applyPolicer`) or RFC 2697 section 3
    /// (ns-2 `SRTCMPolicy::applyPolicer`), both colour-blind.
    pub fn colour(&mut self, now: SimTime, bytes: u64) -> Colour {
        let cost = u128::from(bytes) * 8 * u128::from(PS_PER_S);
        let overflow = self.c.fill(now);
        match &mut self.second {
            Second::None => {
                if self.c.tokens < cost {
                    return Colour::Red;
                }
                self.c.tokens -= cost;
                Colour::Green
            }
            Second::Peak(p) => {
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
            Second::Excess(e) => {
                e.tokens = (e.tokens + overflow).min(e.depth);
                if self.c.tokens >= cost {
                    self.c.tokens -= cost;
                    Colour::Green
                } else if e.tokens >= cost {
                    e.tokens -= cost;
                    Colour::Yellow
                } else {
                    Colour::Red
                }
            }
        }
    }
}

// ---------------------------------------------------------------- the discipline

pub struct Police {
    meter: Meter,
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
            Colour::Red if self.meter.three_colour() => cx.drop(pkt, DropReason::Policed),
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
            "meter": match self.meter.second {
                Second::None => "two_colour",
                Second::Peak(_) => "trtcm",
                Second::Excess(_) => "srtcm",
            },
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
            excess_burst: None,
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

    /// RFC 2697 section 3, colour-blind, step by step: CBS 2000 B and EBS 3000 B at CIR
    /// 1 Mbit/s (125 B/ms), both full at 0; C fills first, E takes C's overflow.
    #[test]
    fn srtcm_follows_rfc_2697_definitions() {
        let mut c = cfg(1_000_000, 2000, None);
        c.excess_burst = Some(Bytes(3000));
        assert!(c.validate().is_ok());
        let mut m = Meter::new(&c);
        // Tc 2000: 1500 B green (Tc 500); 1500 B more: Tc short, Te 3000: yellow (Te 1500)
        assert_eq!(m.colour(ms(0), 1500), Colour::Green);
        assert_eq!(m.colour(ms(0), 1500), Colour::Yellow);
        // 1501 B: neither holds it: red, nothing taken; 1500 B: yellow, Te 0
        assert_eq!(m.colour(ms(0), 1501), Colour::Red);
        assert_eq!(m.colour(ms(0), 1500), Colour::Yellow);
        // 8 ms: 1000 B go to C (Tc 1500 < CBS), none to E: 1600 B red, 1500 green
        assert_eq!(m.colour(ms(8), 1600), Colour::Red);
        assert_eq!(m.colour(ms(8), 1500), Colour::Green);
        // 20 ms: 2500 B: C fills to 2000, the other 500 B go to E
        assert_eq!(m.colour(ms(28), 2000), Colour::Green);
        assert_eq!(m.colour(ms(28), 500), Colour::Yellow);
        assert_eq!(m.colour(ms(28), 1), Colour::Red);
        // a long idle time fills both to their depths: 2000 green, 3000 yellow, then red
        assert_eq!(m.colour(ms(10_000), 2000), Colour::Green);
        assert_eq!(m.colour(ms(10_000), 3000), Colour::Yellow);
        assert_eq!(m.colour(ms(10_000), 1), Colour::Red);
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
        c = cfg(1_000_000, 1500, Some((2_000_000, 3000)));
        c.excess_burst = Some(Bytes(3000));
        assert_eq!(c.validate().unwrap_err().0, "excess_burst");
        c = cfg(1_000_000, 1500, None);
        c.excess_burst = Some(Bytes(0));
        assert_eq!(c.validate().unwrap_err().0, "excess_burst");
        c.excess_burst = Some(Bytes(1500));
        c.exceed = Some(PoliceAction::Pass);
        assert_eq!(c.validate().unwrap_err().0, "exceed");
        c.exceed = None;
        c.yellow = Some(PoliceAction::Drop);
        assert!(c.validate().is_ok());
    }
}
