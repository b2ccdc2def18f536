//! Queue limits in the units buffer sizing is discussed in: a multiple of the link's
//! bandwidth-delay product (`limit = "0.5BDP"`) or a time at the link's rate
//! (`limit = "20ms"`), besides packets and bytes. They are taken out of the queue tables when
//! the scenario is parsed ([`extract`]) and resolved once, when the network is built
//! ([`resolve`]), to the packets or bytes the discipline counts.
//!
//! * The BDP of a link is its rate C times RTT, the mean two-way propagation delay (the sum of
//!   the link delays of the data path and of the reverse path; no queueing, no serialisation)
//!   of the flows whose data crosses the link in either direction, each flow counted once.
//!   Villamizar and Song size a router buffer at RTT x C ("High performance TCP in ANSNET",
//!   ACM CCR 24(5), 1994); Appenzeller, Keslassy and McKeown take RTT as the flows' average
//!   two-way propagation delay and shrink the buffer to RTT x C / sqrt(n) for n long flows
//!   ("Sizing router buffers", SIGCOMM 2004, sections 2-3), which a multiple such as
//!   `"0.1BDP"` writes. A link no flow crosses has no BDP: an error.
//! * A time t is C x t / 8 bytes of the link's own rate (no flow needed, except to count
//!   packets).
//! * Unit and rounding: the discipline counts what its own default limit counts (bytes for
//!   RED's `ns2` and `linux` presets, packets for every other). In bytes the limit is
//!   m x C x RTT / 8 (or C x t / 8) rounded to the nearest byte; in packets that many bytes
//!   divided by the mean data packet (wire size) of the crossing flows, each flow once (as
//!   `bufferlab advise` counts), rounded to the nearest whole packet. Halves round up; a limit
//!   that rounds to 0 is an error.
//! * Forms: a positive finite number and the unit `BDP` in capitals (`"0.5BDP"`, `"0.5 BDP"`:
//!   a space is allowed, as in every unit of the grammar; `"bdp"` is refused with the fix),
//!   or a positive time in `s`, `ms`, `us`, `ns`, `ps` or `min`.

use super::topology::Topology;
use super::ScenarioError;
use crate::ids::{NodeId, PortId};
use crate::net::ecmp::FlowKey;
use crate::net::routing::{self, Routes};
use crate::notes::{SizedBdp, SizedLimit};
use crate::qdisc::QueueConfig;
use crate::units::{parse_time, QueueLimit, SimTime};
use std::collections::BTreeMap;

/// A limit given in the units of buffer sizing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LimitForm {
    /// A multiple of the link's bandwidth-delay product.
    Bdp(f64),
    /// The bytes the link sends in this time.
    Time(SimTime),
}

/// The time units of `units::parse_time` and their seconds.
const TIME_UNITS: [(&str, f64); 8] = [
    ("s", 1.0),
    ("sec", 1.0),
    ("ms", 1e-3),
    ("us", 1e-6),
    ("µs", 1e-6),
    ("ns", 1e-9),
    ("ps", 1e-12),
    ("min", 60.0),
];
const FORMS: &str = "\"0.5BDP\" (a multiple of the bandwidth-delay product), \"20ms\" (a time at \
                     the link's rate), \"100p\" or \"150KB\"";

/// The form of a limit string: None when it is none of ours (packets and bytes are parsed by
/// `units::parse_limit`), an error with the fix when it is one of ours written wrongly.
pub fn parse_form(s: &str) -> Option<Result<LimitForm, String>> {
    let t = s.trim();
    let start = t
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphabetic())
        .last()
        .map_or(t.len(), |(i, _)| i);
    let (num, unit) = (t[..start].trim(), &t[start..]);
    let bdp = unit.eq_ignore_ascii_case("bdp");
    let secs = TIME_UNITS.iter().find(|(u, _)| *u == unit).map(|(_, m)| *m);
    if !bdp && secs.is_none() {
        return None;
    }
    if num.is_empty() {
        return Some(Err(format!(
            "\"{s}\" has no number; write the multiple, e.g. \"1BDP\", or use {FORMS}"
        )));
    }
    let v = match num.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => v,
        _ => {
            return Some(Err(format!(
                "\"{s}\": the number must be positive and finite; use {FORMS}"
            )))
        }
    };
    if bdp {
        if unit != "BDP" {
            return Some(Err(format!(
                "\"{s}\": write the unit in capitals, e.g. \"{num}BDP\""
            )));
        }
        return Some(Ok(LimitForm::Bdp(v)));
    }
    if v * secs.unwrap_or(1.0) < 1e-12 {
        return Some(Err(format!(
            "\"{s}\" is below the clock's resolution of 1ps; give a longer time, e.g. \"20ms\""
        )));
    }
    Some(parse_time(t).map(LimitForm::Time))
}

#[derive(Debug, Clone, PartialEq)]
enum Seg {
    Key(String),
    Index(usize),
}

fn render(base: &str, at: &[Seg]) -> String {
    let mut s = base.to_string();
    for seg in at {
        match seg {
            Seg::Key(k) => {
                s.push('.');
                s.push_str(k);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

#[derive(Debug, Clone)]
struct DeferredLimit {
    /// Where the `limit` key sits inside the queue table (its last segment is `limit`).
    at: Vec<Seg>,
    form: LimitForm,
    given: String,
}

/// A queue table with limits in BDP or time, kept with those limits taken out.
#[derive(Debug, Clone)]
struct DeferredQueue {
    table: toml::Value,
    limits: Vec<DeferredLimit>,
}

/// The limits [`extract`] took out of a scenario's queue tables, by link entry and field
/// (`queue` or `reverse_queue`). Until [`resolve`] sizes them, the parsed queue holds its
/// discipline's default limit.
#[derive(Debug, Clone, Default)]
pub struct Deferred {
    queues: BTreeMap<(String, String), DeferredQueue>,
}

impl Deferred {
    pub fn is_empty(&self) -> bool {
        self.queues.is_empty()
    }

    /// Puts the limits as given back into a serialised scenario (`validate --json`), where the
    /// parsed scenario holds the discipline's default in their place.
    pub fn restore(&self, scenario: &mut serde_json::Value) {
        for ((link, field), q) in &self.queues {
            for l in &q.limits {
                let mut node = scenario.pointer_mut(&format!("/links/{link}/{field}"));
                for seg in &l.at {
                    node = node.and_then(|n| match seg {
                        Seg::Key(k) if k == "limit" => n
                            .as_object_mut()
                            .map(|o| o.entry("limit").or_insert(serde_json::Value::Null)),
                        Seg::Key(k) => n.get_mut(k.as_str()),
                        Seg::Index(i) => n.get_mut(*i),
                    });
                }
                if let Some(n) = node {
                    *n = serde_json::Value::String(l.given.clone());
                }
            }
        }
    }
}

/// Takes the BDP and time limits out of every `links.*.queue` and `links.*.reverse_queue`
/// table of `doc` (classes' queues included); a wrongly written one is an error naming it.
pub fn extract(doc: &mut toml::Value) -> Result<Deferred, ScenarioError> {
    let mut out = Deferred::default();
    let Some(links) = doc.get_mut("links").and_then(|l| l.as_table_mut()) else {
        return Ok(out);
    };
    for (name, link) in links.iter_mut() {
        for field in ["queue", "reverse_queue"] {
            let Some(q) = link.get_mut(field).filter(|q| q.is_table()) else {
                continue;
            };
            let mut found = Vec::new();
            walk(
                q,
                &mut Vec::new(),
                &format!("links.{name}.{field}"),
                &mut found,
            )?;
            if !found.is_empty() {
                out.queues.insert(
                    (name.clone(), field.to_string()),
                    DeferredQueue {
                        table: q.clone(),
                        limits: found,
                    },
                );
            }
        }
    }
    Ok(out)
}

fn walk(
    v: &mut toml::Value,
    at: &mut Vec<Seg>,
    base: &str,
    found: &mut Vec<DeferredLimit>,
) -> Result<(), ScenarioError> {
    match v {
        toml::Value::Table(t) => {
            if let Some(toml::Value::String(s)) = t.get("limit") {
                if let Some(form) = parse_form(s) {
                    at.push(Seg::Key("limit".into()));
                    let form = form.map_err(|m| ScenarioError::field(render(base, at), m))?;
                    found.push(DeferredLimit {
                        at: at.clone(),
                        form,
                        given: s.clone(),
                    });
                    at.pop();
                    t.remove("limit");
                }
            }
            for (k, child) in t.iter_mut() {
                at.push(Seg::Key(k.clone()));
                walk(child, at, base, found)?;
                at.pop();
            }
        }
        toml::Value::Array(a) => {
            for (i, child) in a.iter_mut().enumerate() {
                at.push(Seg::Index(i));
                walk(child, at, base, found)?;
                at.pop();
            }
        }
        _ => {}
    }
    Ok(())
}

/// What the builder knows of a flow before the network is built.
#[derive(Debug, Clone)]
pub struct FlowInfo {
    pub name: String,
    /// Output ports of the data path, src to dst (empty when unrouted: the builder reports it).
    pub path: Vec<PortId>,
    /// Two-way propagation delay (data path plus reverse path).
    pub rtt: SimTime,
    /// Bytes on the wire of a full data packet.
    pub size: u64,
    /// The TCP congestion controller and whether the connection negotiates ECN (None: UDP).
    pub tcp: Option<(crate::tcp::CcKind, bool)>,
}

/// The output ports of the topology's nodes in the builder's numbering (link k: port 2k from
/// `a` to `b`, port 2k+1 back).
pub fn adjacency(topo: &Topology) -> Vec<Vec<(PortId, NodeId)>> {
    let mut adj: Vec<Vec<(PortId, NodeId)>> = vec![Vec::new(); topo.nodes.len()];
    for (k, l) in topo.links.iter().enumerate() {
        adj[l.a].push((PortId(2 * k as u32), NodeId(l.b as u32)));
        adj[l.b].push((PortId(2 * k as u32 + 1), NodeId(l.a as u32)));
    }
    adj
}

/// The routed data path of the flow of `k` and the two-way propagation delay of its data
/// and return paths (under ECMP each direction hashes its own 5-tuple).
pub fn route(topo: &Topology, routes: &[Routes], k: &FlowKey) -> (Vec<PortId>, SimTime) {
    let port_to = |p: PortId| {
        let l = &topo.links[p.idx() / 2];
        NodeId(if p.0.is_multiple_of(2) { l.b } else { l.a } as u32)
    };
    let fwd = routing::path(routes, &port_to, k).unwrap_or_default();
    let rev = routing::path(routes, &port_to, &k.reversed()).unwrap_or_default();
    let delay = |ports: &[PortId]| {
        ports
            .iter()
            .map(|p| topo.links[p.idx() / 2].delay.0)
            .sum::<u64>()
    };
    (
        fwd.clone(),
        SimTime(delay(&fwd).saturating_add(delay(&rev))),
    )
}

/// Where the queue of direction `dir` (0: a to b) of a built link came from: the links entry
/// and field whose table it is (a link's own entry before its template's, `reverse_queue`
/// before `queue` for the way back, as `LinkConfig::over` and `Topology::add_link` merge them).
fn source(s: &super::config::Scenario, name: &str, dir: usize) -> Option<(String, String)> {
    let entries = [
        Some(name.to_string()),
        super::topology::template_of(s, name),
    ];
    let fields: &[&str] = if dir == 0 {
        &["queue"]
    } else {
        &["reverse_queue", "queue"]
    };
    for field in fields {
        for key in entries.iter().flatten() {
            let Some(c) = s.links.get(key) else {
                continue;
            };
            let has = if *field == "queue" {
                c.queue.is_some()
            } else {
                c.reverse_queue.is_some()
            };
            if has {
                return Some((key.clone(), field.to_string()));
            }
        }
    }
    None
}

/// Sizes every deferred limit of the built links' queues (replacing them in `topo`) and says
/// how each was sized.
pub fn resolve(
    s: &super::config::Scenario,
    topo: &mut Topology,
    flows: &[FlowInfo],
) -> Result<Vec<SizedLimit>, ScenarioError> {
    let mut out = Vec::new();
    if s.deferred_limits.is_empty() {
        return Ok(out);
    }
    for k in 0..topo.links.len() {
        let crossing: Vec<&FlowInfo> = flows
            .iter()
            .filter(|f| f.path.iter().any(|p| p.idx() / 2 == k))
            .collect();
        for dir in 0..2 {
            let l = &topo.links[k];
            let Some(key) = source(s, &l.name, dir) else {
                continue;
            };
            let Some(dq) = s.deferred_limits.queues.get(&key) else {
                continue;
            };
            let mut table = dq.table.clone();
            let (from, to) = if dir == 0 { (l.a, l.b) } else { (l.b, l.a) };
            for d in &dq.limits {
                let field = render(&format!("links.{}.{}", key.0, key.1), &d.at);
                let holder = holder(&mut table, &d.at[..d.at.len() - 1]);
                let bytes_unit = counts_bytes(holder);
                let mut sized = size(
                    d,
                    l.rate_of(dir).bps(),
                    &crossing,
                    bytes_unit,
                    &field,
                    &l.name,
                )?;
                super::bounds::check_queue_limit(&field, sized.1)?;
                if let Some(t) = holder.as_table_mut() {
                    t.insert("limit".into(), toml::Value::String(sized.1.to_string()));
                }
                sized.0.link = l.name.clone();
                sized.0.from = topo.nodes[from].clone();
                sized.0.to = topo.nodes[to].clone();
                sized.0.port = (2 * k + dir) as u32;
                sized.0.top = d.at.len() == 1;
                out.push(sized.0);
            }
            let path = format!("links.{}.{}", key.0, key.1);
            let q: QueueConfig = serde_path_to_error::deserialize(table).map_err(|e| {
                ScenarioError::field(format!("{path}.{}", e.path()), e.into_inner().to_string())
            })?;
            if dir == 0 {
                topo.links[k].queue_ab = q;
            } else {
                topo.links[k].queue_ba = q;
            }
        }
    }
    Ok(out)
}

/// The table at `at` inside `table`.
fn holder<'a>(table: &'a mut toml::Value, at: &[Seg]) -> &'a mut toml::Value {
    let mut node = table;
    for seg in at {
        let next = match seg {
            Seg::Key(k) => node.get_mut(k.as_str()),
            Seg::Index(i) => node.get_mut(*i),
        };
        node = next.expect("the path was walked by `extract`");
    }
    node
}

/// Whether the queue table (without its limit) counts bytes: its discipline's default limit
/// is in bytes.
fn counts_bytes(holder: &toml::Value) -> bool {
    holder
        .clone()
        .try_into::<QueueConfig>()
        .is_ok_and(|q| matches!(q.limit(), QueueLimit::Bytes(_)))
}

/// One limit sized on a link of `rate_bps` crossed by `crossing`.
fn size(
    d: &DeferredLimit,
    rate_bps: u64,
    crossing: &[&FlowInfo],
    bytes_unit: bool,
    field: &str,
    link: &str,
) -> Result<(SizedLimit, QueueLimit), ScenarioError> {
    let none_crosses = || {
        ScenarioError::field(
            field,
            format!(
                "\"{}\" needs the flows crossing link \"{link}\" ({}), and none does; give the limit in packets or bytes (\"100p\", \"150KB\"), or route a flow over the link",
                d.given,
                match d.form {
                    LimitForm::Bdp(_) => "their RTT",
                    LimitForm::Time(_) => "their packet size, to count packets",
                }
            ),
        )
    };
    let rate = rate_bps as f64;
    let (bytes, bdp, time_s) = match d.form {
        LimitForm::Bdp(m) => {
            if crossing.is_empty() {
                return Err(none_crosses());
            }
            let sum: u128 = crossing.iter().map(|f| f.rtt.0 as u128).sum();
            let rtt_s = (sum as f64 / crossing.len() as f64) / 1e12;
            let bits = rate * rtt_s;
            (m * bits / 8.0, Some((rtt_s, bits)), None)
        }
        LimitForm::Time(t) => (rate * t.as_secs_f64() / 8.0, None, Some(t.as_secs_f64())),
    };
    // the mean data packet of the crossing flows, each flow once (as `bufferlab advise`)
    let sizes: Vec<u64> = crossing.iter().map(|f| f.size).filter(|&p| p > 0).collect();
    let packet = (!sizes.is_empty()).then(|| sizes.iter().sum::<u64>() as f64 / sizes.len() as f64);
    let limit = if bytes_unit {
        QueueLimit::Bytes(bytes.round() as u64)
    } else {
        let p = packet.ok_or_else(none_crosses)?;
        QueueLimit::Packets((bytes / p).round() as u64)
    };
    if matches!(limit, QueueLimit::Packets(0) | QueueLimit::Bytes(0)) {
        return Err(ScenarioError::field(
            field,
            format!(
                "\"{}\" is {bytes:.0} bytes on this link{}, which rounds to an empty queue; give a larger value or a limit in packets (\"10p\")",
                d.given,
                packet.map_or(String::new(), |p| format!(" ({:.2} packets of {p} B)", bytes / p))
            ),
        ));
    }
    Ok((
        SizedLimit {
            port: 0,
            top: false,
            link: String::new(),
            from: String::new(),
            to: String::new(),
            field: field.to_string(),
            given: d.given.clone(),
            resolved: limit.to_string(),
            unit: if bytes_unit { "bytes" } else { "packets" },
            rate_bps,
            bytes,
            packet_size_bytes: if bytes_unit { None } else { packet },
            time_s,
            bdp: bdp.map(|(rtt_s, bits)| SizedBdp {
                rtt_s,
                rtt_is: "mean two-way propagation delay of the flows crossing the link",
                flows: crossing.len(),
                bits,
                bytes: bits / 8.0,
                packets: packet.map(|p| bits / 8.0 / p),
            }),
        },
        limit,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> String {
        parse_form(s).expect("one of ours").unwrap_err()
    }

    #[test]
    fn forms_parse_and_bad_ones_say_the_fix() {
        assert_eq!(parse_form("0.5BDP"), Some(Ok(LimitForm::Bdp(0.5))));
        assert_eq!(parse_form("2 BDP"), Some(Ok(LimitForm::Bdp(2.0))));
        assert_eq!(
            parse_form("20ms"),
            Some(Ok(LimitForm::Time(SimTime::from_millis(20))))
        );
        // packets, bytes and bare numbers are not ours
        for s in ["25p", "10KB", "1500B", "10", "2 packets"] {
            assert_eq!(parse_form(s), None, "{s}");
        }
        assert!(err("-1BDP").contains("positive"));
        assert!(err("0BDP").contains("positive"));
        assert!(err("BDP").contains("no number"));
        assert!(err("0.5 bdp").contains("capitals"));
        assert!(err("1e400ms").contains("positive and finite"));
        assert!(err("1e-15s").contains("resolution of 1ps"));
        assert!(err("1e9min").contains("clock reaches"));
    }
}
