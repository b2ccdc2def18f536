//! Class-based queueing: packets are classified (by the flow's `class`, by protocol or by flow)
//! into classes, each with its own discipline (any `QueueConfig`, so RED per class gives the
//! weighted RED that seed paper 003 asks for, and classes may nest), and the classes share the
//! link through a weighted scheduler:
//! * `drr` (default): deficit round robin (Shreedhar & Varghese 1995) with quantum
//!   `weight x quantum` bytes. A child discipline cannot be peeked, so a class may send while its
//!   deficit is positive and the deficit may go negative (the variant Linux `sch_sfq` uses);
//!   the long-run byte shares are still weight-proportional;
//! * `wrr`: up to `weight` packets per class per round;
//! * `priority`: strict priority in the order the classes are listed.
//!
//! Classification: a class takes the packets its `match` names (a number: class or flow index; a
//! protocol name "udp" / "tcp"; a list); packets no class names go to the class matching
//! "default" or "*", else to the last class. Per-class statistics (arrivals, departures, drops
//! by reason, marks, bytes, time-average length, sojourn times) are reported as
//! `queues[i].classes`; like the port's own they count from the warm-up on
//! (`QueueStats` per class).

use super::registry::QueueConfig;
use super::{build, QueueCtx, QueueDisc};
use crate::monitor::queue_stats::QueueStats;
use crate::packet::{Packet, PacketKind};
use crate::units::{Bytes, QueueLimit, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::VecDeque;

// ---------------------------------------------------------------- configuration

/// What a classful queue classifies packets by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClassifyBy {
    /// The flow's `class` (default).
    #[default]
    Class,
    /// The transport protocol: "udp" or "tcp" (TCP ACKs are "tcp").
    Protocol,
    /// The flow's index (position in the flow list after expansion).
    Flow,
}

/// How the classes share the link.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClassScheduler {
    /// Deficit round robin with quantum = weight x `quantum` bytes (default).
    #[default]
    Drr,
    /// Weighted round robin: up to `weight` packets per round.
    Wrr,
    /// Strict priority in the order the classes are listed.
    Priority,
}

/// Which packets a class takes: a number (class or flow index), a protocol name ("udp", "tcp"),
/// a list of those, or "default" / "*" for everything no other class takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ClassMatch {
    Number(u32),
    Name(String),
    List(Vec<ClassMatch>),
}

/// One class of a classful queue.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassConfig {
    /// Name in results (default "class{i}").
    #[serde(default)]
    pub name: Option<String>,
    #[serde(rename = "match")]
    pub matches: ClassMatch,
    /// Share of the link relative to the other classes (default 1).
    #[serde(default = "one_u32")]
    pub weight: u32,
    /// The class's own discipline (default DropTail 100p).
    #[serde(default)]
    pub queue: Box<QueueConfig>,
}

fn one_u32() -> u32 {
    1
}

/// Class-based queueing: packets are classified into separate queues, each with its own
/// discipline (RED per class gives weighted RED), served by a weighted scheduler.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassfulConfig {
    #[serde(default)]
    pub by: ClassifyBy,
    #[serde(default)]
    pub scheduler: ClassScheduler,
    /// DRR quantum per unit of weight (default 1500 B, one MTU).
    #[serde(default = "default_class_quantum")]
    pub quantum: Bytes,
    pub classes: Vec<ClassConfig>,
}

fn default_class_quantum() -> Bytes {
    Bytes(1500)
}

impl ClassfulConfig {
    /// The smallest limit of its classes (one packet must fit in each).
    pub fn limit(&self) -> QueueLimit {
        let mut best: Option<QueueLimit> = None;
        for c in &self.classes {
            let l = c.queue.limit();
            best = Some(match (best, l) {
                (None, l) => l,
                (Some(QueueLimit::Bytes(a)), QueueLimit::Bytes(b)) => QueueLimit::Bytes(a.min(b)),
                (Some(QueueLimit::Packets(a)), QueueLimit::Packets(b)) => {
                    QueueLimit::Packets(a.min(b))
                }
                (Some(QueueLimit::Bytes(a)), QueueLimit::Packets(_)) => QueueLimit::Bytes(a),
                (Some(QueueLimit::Packets(_)), QueueLimit::Bytes(b)) => QueueLimit::Bytes(b),
            });
        }
        best.unwrap_or(QueueLimit::Packets(0))
    }
}

impl ClassfulConfig {
    /// Checks values serde cannot: (field relative to the queue, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        if self.classes.is_empty() {
            return Err((
                "classes".into(),
                "give at least one class, e.g. classes = [{ match = \"default\", queue = { kind = \"droptail\" } }]".into(),
            ));
        }
        if self.quantum.0 == 0 {
            return Err((
                "quantum".into(),
                "must be at least 1B: a round gives each class weight x quantum bytes (default \
                 1500B)"
                    .into(),
            ));
        }
        let mut names = std::collections::BTreeSet::new();
        for (i, cl) in self.classes.iter().enumerate() {
            if cl.weight == 0 {
                return Err((
                    format!("classes[{i}].weight"),
                    "must be at least 1 (default 1): a class of weight 0 would never be served"
                        .into(),
                ));
            }
            if let Some(n) = &cl.name {
                if n.is_empty() || n.chars().any(char::is_control) {
                    return Err((
                        format!("classes[{i}].name"),
                        format!(
                            "{n:?} is empty or holds a control character; give a printable name"
                        ),
                    ));
                }
                if !names.insert(n.as_str()) {
                    return Err((
                        format!("classes[{i}].name"),
                        format!("\"{n}\" names two classes; give each class its own name"),
                    ));
                }
            }
            if matches!(*cl.queue, QueueConfig::Python(_)) {
                return Err((
                    format!("classes[{i}].queue.kind"),
                    "a python discipline cannot sit inside a classful queue yet; use it as the link's queue".into(),
                ));
            }
            cl.queue
                .validate()
                .map_err(|(f, m)| (format!("classes[{i}].queue.{f}"), m))?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- the discipline

struct Class {
    name: String,
    matches: ClassMatch,
    weight: u32,
    q: Box<dyn QueueDisc>,
    deficit: i64,
    active: bool,
    stats: QueueStats,
}

pub struct Classful {
    classes: Vec<Class>,
    by: ClassifyBy,
    scheduler: ClassScheduler,
    quantum: i64,
    round: VecDeque<usize>,
    /// Packets left in the current WRR turn of the class at the head of the round.
    wrr_left: u32,
    default: usize,
}

fn matches(m: &ClassMatch, num: u32, proto: &str) -> bool {
    match m {
        ClassMatch::Number(n) => *n == num,
        ClassMatch::Name(s) => s.eq_ignore_ascii_case(proto),
        ClassMatch::List(v) => v.iter().any(|x| matches(x, num, proto)),
    }
}

fn is_default(m: &ClassMatch) -> bool {
    match m {
        ClassMatch::Name(s) => s == "*" || s.eq_ignore_ascii_case("default"),
        ClassMatch::List(v) => v.iter().any(is_default),
        ClassMatch::Number(_) => false,
    }
}

/// One class of a [`Classful`] whose discipline is already built (a shared-buffer switch's
/// priority queues, `net/shared_buffer/port.rs`, each drawing from the switch's pool).
pub struct ClassParts {
    pub name: String,
    pub matches: ClassMatch,
    pub weight: u32,
    pub q: Box<dyn QueueDisc>,
}

impl Classful {
    pub fn new(cfg: &ClassfulConfig) -> Self {
        // Validation refuses an empty class list; an unused port could still hold one.
        let fallback = [ClassConfig {
            name: Some("default".into()),
            matches: ClassMatch::Name("default".into()),
            weight: 1,
            queue: Box::default(),
        }];
        let list = if cfg.classes.is_empty() {
            &fallback[..]
        } else {
            &cfg.classes[..]
        };
        let parts = list
            .iter()
            .enumerate()
            .map(|(i, c)| ClassParts {
                name: c.name.clone().unwrap_or_else(|| format!("class{i}")),
                matches: c.matches.clone(),
                weight: c.weight,
                q: build(&c.queue),
            })
            .collect();
        Self::from_parts(cfg.by, cfg.scheduler, cfg.quantum, parts)
    }

    /// Classes given with their disciplines built, classified `by`, served by `scheduler`
    /// (DRR: weight x `quantum` bytes per round).
    pub fn from_parts(
        by: ClassifyBy,
        scheduler: ClassScheduler,
        quantum: Bytes,
        parts: Vec<ClassParts>,
    ) -> Self {
        let classes: Vec<Class> = parts
            .into_iter()
            .map(|c| Class {
                name: c.name,
                matches: c.matches,
                weight: c.weight.max(1),
                q: c.q,
                deficit: 0,
                active: false,
                stats: QueueStats::new(SimTime::ZERO),
            })
            .collect();
        let default = classes
            .iter()
            .position(|c| is_default(&c.matches))
            .unwrap_or(classes.len().saturating_sub(1));
        Self {
            round: VecDeque::with_capacity(classes.len()),
            classes,
            by,
            scheduler,
            quantum: quantum.0.max(1) as i64,
            wrr_left: 0,
            default,
        }
    }

    fn classify(&self, p: &Packet) -> usize {
        let proto = match p.kind {
            PacketKind::UdpData => "udp",
            PacketKind::TcpData | PacketKind::TcpAck => "tcp",
        };
        let num = match self.by {
            ClassifyBy::Class => p.class as u32,
            ClassifyBy::Flow => p.flow.0,
            ClassifyBy::Protocol => u32::MAX,
        };
        self.classes
            .iter()
            .position(|c| !is_default(&c.matches) && matches(&c.matches, num, proto))
            .unwrap_or(self.default)
    }

    /// Dequeues from class `i`, keeping its counters; lets an emptied child see an empty dequeue
    /// (RED starts its idle period there).
    fn take(&mut self, i: usize, cx: &mut QueueCtx) -> Option<Packet> {
        let c = &mut self.classes[i];
        let d0 = cx.drops_len();
        let m0 = cx.marks();
        let p = c.q.dequeue(cx);
        if c.q.len_packets() == 0 {
            let _ = c.q.dequeue(cx);
        }
        if let Some(p) = &p {
            c.stats.on_departure(cx.now, p.size, p.enqueued);
        }
        c.count(cx, d0, m0);
        p
    }
}

impl QueueDisc for Classful {
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        let i = self.classify(&pkt);
        let c = &mut self.classes[i];
        c.stats.on_arrival(cx.now, pkt.size);
        let d0 = cx.drops_len();
        let m0 = cx.marks();
        c.q.enqueue(pkt, cx);
        c.count(cx, d0, m0);
        if !c.active && c.q.len_packets() > 0 {
            c.active = true;
            c.deficit = 0;
            self.round.push_back(i);
        }
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        if self.scheduler == ClassScheduler::Priority {
            for i in 0..self.classes.len() {
                // A child answering None with packets left must have dropped one (CoDel, PIE):
                // at most as many tries as it holds packets, so a child that answered None
                // without dropping could not spin this loop forever.
                let mut tries = self.classes[i].q.len_packets();
                while self.classes[i].q.len_packets() > 0 && tries > 0 {
                    tries -= 1;
                    if let Some(p) = self.take(i, cx) {
                        self.sync_round();
                        return Some(p);
                    }
                }
            }
            self.sync_round();
            return None;
        }
        loop {
            let i = *self.round.front()?;
            if self.classes[i].q.len_packets() == 0 {
                self.classes[i].active = false;
                self.round.pop_front();
                self.wrr_left = 0;
                continue;
            }
            match self.scheduler {
                ClassScheduler::Drr => {
                    if self.classes[i].deficit <= 0 {
                        self.classes[i].deficit += self.classes[i].weight as i64 * self.quantum;
                        self.round.rotate_left(1);
                        continue;
                    }
                }
                _ => {
                    if self.wrr_left == 0 {
                        self.wrr_left = self.classes[i].weight;
                    }
                }
            }
            let p = self.take(i, cx);
            if let Some(p) = &p {
                self.classes[i].deficit -= p.size as i64;
            }
            let empty = self.classes[i].q.len_packets() == 0;
            if self.scheduler == ClassScheduler::Wrr {
                self.wrr_left = self.wrr_left.saturating_sub(1);
                if self.wrr_left == 0 && !empty {
                    self.round.rotate_left(1);
                }
            }
            if empty {
                self.classes[i].active = false;
                self.classes[i].deficit = 0;
                self.round.pop_front();
                self.wrr_left = 0;
            }
            if p.is_some() {
                return p;
            }
        }
    }

    fn len_packets(&self) -> usize {
        self.classes.iter().map(|c| c.q.len_packets()).sum()
    }

    fn len_bytes(&self) -> u64 {
        self.classes.iter().map(|c| c.q.len_bytes()).sum()
    }

    fn kind(&self) -> &'static str {
        "classful"
    }

    fn class_stats(&self, now: SimTime) -> Option<serde_json::Value> {
        Some(serde_json::Value::Array(
            self.classes
                .iter()
                .map(|c| {
                    let mut r = json!({
                        "name": c.name,
                        "discipline": c.q.kind(),
                        "weight": c.weight,
                    });
                    let o = r.as_object_mut().expect("an object");
                    o.extend(c.stats.class_json(now));
                    o.insert("queued_packets".into(), c.q.len_packets().into());
                    o.insert("average".into(), c.q.average().into());
                    o.insert("classes".into(), c.q.class_stats(now).into());
                    r
                })
                .collect(),
        ))
    }

    fn measure_from(&mut self, start: SimTime) {
        for c in &mut self.classes {
            c.stats = QueueStats::new(start);
            c.q.measure_from(start);
        }
    }

    fn reserve_class_statistics(&mut self, max: SimTime) {
        for c in &mut self.classes {
            c.stats.reserve_sojourns(max);
            c.q.reserve_class_statistics(max);
        }
    }
}

impl Class {
    /// Counts what the child did in this call (drops from index `d0` of the context's, marks
    /// past `m0`) and its length after it.
    fn count(&mut self, cx: &QueueCtx, d0: usize, m0: u64) {
        for (size, reason) in cx.drops_since(d0) {
            self.stats.on_drop(cx.now, size, reason);
        }
        self.stats.on_marks(cx.now, cx.marks() - m0);
        let (p, b) = (self.q.len_packets() as u64, self.q.len_bytes());
        self.stats.set_length(cx.now, p, b);
    }
}

impl Classful {
    /// Priority mode keeps no round; clear stale activity flags.
    fn sync_round(&mut self) {
        for c in &mut self.classes {
            c.active = c.q.len_packets() > 0;
        }
        self.round.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::*;
    use crate::qdisc::droptail::DropTailConfig;
    use crate::units::{Bytes, QueueLimit, Rate, SimTime};

    fn two_classes(scheduler: ClassScheduler, w0: u32, w1: u32) -> ClassfulConfig {
        let dt = |n| {
            Box::new(QueueConfig::Droptail(DropTailConfig {
                limit: QueueLimit::Packets(n),
                ..Default::default()
            }))
        };
        ClassfulConfig {
            by: ClassifyBy::Class,
            scheduler,
            quantum: Bytes(1500),
            classes: vec![
                ClassConfig {
                    name: Some("a".into()),
                    matches: ClassMatch::Number(0),
                    weight: w0,
                    queue: dt(10_000),
                },
                ClassConfig {
                    name: Some("b".into()),
                    matches: ClassMatch::Name("default".into()),
                    weight: w1,
                    queue: dt(10_000),
                },
            ],
        }
    }

    // ---- bad values named ----
    #[test]
    fn bad_values_are_refused_with_their_field() {
        let field = |c: ClassfulConfig| c.validate().unwrap_err().0;
        assert_eq!(
            field(two_classes(ClassScheduler::Drr, 0, 1)),
            "classes[0].weight"
        );
        let mut c = two_classes(ClassScheduler::Drr, 1, 1);
        c.quantum = Bytes(0);
        assert_eq!(field(c), "quantum");
        for bad in ["a", "", "x\u{7}"] {
            let mut c = two_classes(ClassScheduler::Drr, 1, 1);
            c.classes[1].name = Some(bad.into());
            assert_eq!(field(c), "classes[1].name", "{bad:?}");
        }
        assert!(two_classes(ClassScheduler::Drr, 1, 1).validate().is_ok());
    }

    fn shares(cfg: ClassfulConfig, sizes: [u32; 2], n: usize) -> [u64; 2] {
        let mut h = Harness::new(Box::new(Classful::new(&cfg)), Rate(1_000_000));
        for k in 0..5000 {
            for (c, &s) in sizes.iter().enumerate() {
                let mut p = h.packet(c as u32, s);
                p.class = c as u8;
                h.enqueue(SimTime(k), p);
            }
        }
        let mut got = [0u64; 2];
        for _ in 0..n {
            let p = h.dequeue(SimTime(10_000)).unwrap();
            got[p.class as usize] += p.size as u64;
        }
        got
    }

    // ---- DRR classes share bytes by weight, whatever the packet sizes ----
    #[test]
    fn drr_weights_share_bytes() {
        let got = shares(two_classes(ClassScheduler::Drr, 3, 1), [1500, 200], 3000);
        let r = got[0] as f64 / got[1] as f64;
        assert!((r - 3.0).abs() < 0.05, "{got:?}");
    }

    // ---- WRR counts packets ----
    #[test]
    fn wrr_weights_share_packets() {
        let got = shares(two_classes(ClassScheduler::Wrr, 2, 1), [1000, 1000], 3000);
        let r = got[0] as f64 / got[1] as f64;
        assert!((r - 2.0).abs() < 0.01, "{got:?}");
    }

    // ---- priority serves the first class first; counters per class ----
    #[test]
    fn priority_and_class_stats() {
        let got = shares(
            two_classes(ClassScheduler::Priority, 1, 1),
            [1000, 1000],
            3000,
        );
        assert_eq!(got[1], 0);
        let c = Classful::new(&two_classes(ClassScheduler::Drr, 1, 1));
        let s = c.class_stats(SimTime::ZERO).unwrap();
        assert_eq!(s[0]["name"], "a");
        assert_eq!(s[1]["discipline"], "droptail");
    }
}
