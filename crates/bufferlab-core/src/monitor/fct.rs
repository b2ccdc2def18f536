//! Flow completion times (FCT) of finite transfers, their ideal on an idle path, the slowdown,
//! and the summaries by flow size that datacenter studies report.
//!
//! References and conventions:
//!
//! * **What is measured.** A finite TCP flow (`app = { kind = "transfer", size = ... }`) runs
//!   from its start (the application's write: the sender opens the connection then) to the
//!   arrival at the sender of the ACK that covers its last byte. That is the convention of
//!   the HPCC simulator (Li et al., SIGCOMM 2019; alibaba-edu/High-Precision-Congestion-Control,
//!   `simulation/scratch/third.cc`, `qp_finish`, called on `QpComplete` when the sender's
//!   queue pair has every byte acknowledged) and of pFabric's and DCTCP's evaluations, which
//!   time a flow (or a query) at the side that started it. The sender of bufferlab sends the
//!   FIN with the last data segment (`tcp/sender.rs`), so that ACK also acknowledges the FIN.
//! * **The ideal FCT.** pFabric (Alizadeh et al., SIGCOMM 2013, section 5) normalises each
//!   FCT by "the best possible completion time for that flow size", the flow alone in the
//!   fabric at line rate; HPCC calls the ratio the *FCT slowdown* and computes the ideal as
//!   `base_rtt + total_bytes * 8 / b` (third.cc `qp_finish`): `b` the path's bottleneck
//!   rate, `total_bytes` the payload plus a header per packet, and `base_rtt` twice the
//!   one-way propagation plus one packet's serialisation at each hop (third.cc
//!   `CalculateRoute`, `pairTxDelay`). No handshake and no slow start: the ideal is the
//!   network's, not the transport's, so a TCP flow on an idle path has a slowdown above 1
//!   (its handshake and slow-start rounds), which is what those papers' TCP curves show.
//!   bufferlab takes the same quantity as an exact lower bound of a store-and-forward path
//!   ([`ideal_fct`]): the forward and reverse propagation, the bytes on the wire of every
//!   packet (payload, header, link framing) serialised at the hop that takes longest, the
//!   first packet's serialisation on the hops before that one and the last packet's on the
//!   hops after it, and the ACK's serialisation on the way back. HPCC's formula counts the
//!   bottleneck's first packet twice and the ACK not at all; the difference is one packet time
//!   and is written down in docs/models/fct.md. Being a lower bound, a slowdown is never
//!   below 1 (tests/fct.rs checks it against an independent calculation).
//! * **Summaries.** By size bucket (default edges 100 KB and 1 MB, i.e. < 100 KB,
//!   100 KB - 1 MB, > 1 MB: pFabric's (0, 100KB] "small flows" bucket and the split of
//!   the rest; configurable as `[fct] buckets`), each with the count of finished and unfinished
//!   flows and the mean, p50, p99 and p99.9 of the FCT and of the slowdown (nearest rank:
//!   the value at rank ceil(q n), as the TCP report's response-time percentiles). Flows that
//!   start before the warm-up ends are left out; unfinished flows are counted, not ranked
//!   (HPCC's fct.txt lists finished flows only).

use crate::units::{Bytes, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The default bucket edges in bytes: < 100 KB, 100 KB - 1 MB, > 1 MB (see the module doc).
pub const DEFAULT_EDGES: [u64; 2] = [100_000, 1_000_000];

/// The `[fct]` table of a scenario: how flow completion times are summarised.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FctConfig {
    /// Upper edges of the size buckets, increasing (default `["100KB", "1MB"]`: < 100 KB,
    /// 100 KB - 1 MB, > 1 MB). A flow of exactly an edge's size falls below it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buckets: Option<Vec<Bytes>>,
}

impl FctConfig {
    /// The bucket edges in bytes, checked: positive and increasing.
    pub fn edges(&self) -> Result<Vec<u64>, String> {
        let Some(b) = &self.buckets else {
            return Ok(DEFAULT_EDGES.to_vec());
        };
        let e: Vec<u64> = b.iter().map(|x| x.0).collect();
        if e.first() == Some(&0) || e.windows(2).any(|w| w[0] >= w[1]) {
            return Err(format!(
                "bucket edges must be positive and increasing, got {e:?} bytes"
            ));
        }
        Ok(e)
    }
}

/// How a finite transfer's packets look on the wire (its sender's settings).
#[derive(Debug, Clone, Copy)]
pub struct WireFormat {
    /// Payload bytes of a full segment.
    pub mss: u32,
    /// Header bytes each data packet adds on the wire.
    pub header: u32,
    /// Bytes on the wire of the ACK.
    pub ack: u32,
    /// The first data packet goes without its header (ns-2's packet 0 without `syn_`, rule
    /// `opening_data_without_headers` of `tcp/flavour/ns2.rs`).
    pub bare_first: bool,
}

/// A finite transfer as its sender sees it: size, wire format, and when its last byte was
/// acknowledged (`Endpoint::finite_transfer`).
#[derive(Debug, Clone, Copy)]
pub struct FiniteTransfer {
    pub bytes: u64,
    pub wire: WireFormat,
    pub done: Option<SimTime>,
}

/// One direction of one link on a path: its rate, propagation delay and link framing.
#[derive(Debug, Clone, Copy)]
pub struct PathHop {
    pub rate_bps: u64,
    pub delay: SimTime,
    /// Framing bytes the link serialises with every packet.
    pub overhead: u32,
}

impl PathHop {
    fn tx_s(&self, bytes: u64) -> f64 {
        (bytes + self.overhead as u64) as f64 * 8.0 / self.rate_bps as f64
    }
}

/// The ideal FCT in seconds of `bytes` sent alone at line rate over `fwd`, acknowledged over
/// `rev` (see the module doc): the exact completion time of back-to-back packets through a
/// chain of store-and-forward hops, the maximum over the hops k of the first packet's time
/// on the hops before k, every packet's time on k and the last packet's time after k.
pub fn ideal_fct(bytes: u64, wire: WireFormat, fwd: &[PathHop], rev: &[PathHop]) -> f64 {
    let mss = wire.mss.max(1) as u64;
    let bytes = bytes.max(1);
    let packets = bytes.div_ceil(mss);
    let bare = if wire.bare_first {
        wire.header as u64
    } else {
        0
    };
    let first = bytes.min(mss) + wire.header as u64 - bare;
    let mut last = bytes - (packets - 1) * mss + wire.header as u64;
    if packets == 1 {
        last = first;
    }
    let mut best = 0.0f64;
    for (k, hop) in fwd.iter().enumerate() {
        let before: f64 = fwd[..k].iter().map(|h| h.tx_s(first)).sum();
        let after: f64 = fwd[k + 1..].iter().map(|h| h.tx_s(last)).sum();
        let wire_bytes = bytes + packets * (wire.header as u64 + hop.overhead as u64) - bare;
        let all = wire_bytes as f64 * 8.0 / hop.rate_bps as f64;
        best = best.max(before + all + after);
    }
    let prop: f64 = fwd.iter().chain(rev).map(|h| h.delay.as_secs_f64()).sum();
    let ack: f64 = rev.iter().map(|h| h.tx_s(wire.ack as u64)).sum();
    best + prop + ack
}

/// One finite flow's completion.
#[derive(Debug, Clone, Serialize)]
pub struct FctRecord {
    pub flow: String,
    pub size_bytes: u64,
    pub start_s: f64,
    /// When the sender had its last byte acknowledged (None: not finished by the end).
    pub finish_s: Option<f64>,
    pub fct_s: Option<f64>,
    pub ideal_fct_s: f64,
    pub slowdown: Option<f64>,
}

impl FctRecord {
    pub fn new(flow: String, t: &FiniteTransfer, start: SimTime, ideal_s: f64) -> FctRecord {
        let fct = t.done.map(|d| d.saturating_sub(start).as_secs_f64());
        FctRecord {
            flow,
            size_bytes: t.bytes,
            start_s: start.as_secs_f64(),
            finish_s: t.done.map(|d| d.as_secs_f64()),
            fct_s: fct,
            ideal_fct_s: ideal_s,
            slowdown: fct.map(|f| f / ideal_s),
        }
    }
}

/// The summary of the flows of one size bucket.
#[derive(Debug, Clone, Serialize)]
pub struct FctBucket {
    /// `"<100KB"`, `"100KB-1MB"`, `">1MB"`, or `"all"`.
    pub bucket: String,
    /// Sizes in the bucket: above `min_bytes` (exclusive; 0 for the first), up to
    /// `max_bytes` (inclusive; None for the last).
    pub min_bytes: u64,
    pub max_bytes: Option<u64>,
    /// Finished flows (the ones ranked).
    pub count: usize,
    pub unfinished: usize,
    pub fct_mean_s: Option<f64>,
    pub fct_p50_s: Option<f64>,
    pub fct_p99_s: Option<f64>,
    pub fct_p999_s: Option<f64>,
    pub slowdown_mean: Option<f64>,
    pub slowdown_p50: Option<f64>,
    pub slowdown_p99: Option<f64>,
    pub slowdown_p999: Option<f64>,
}

/// One incast query: its answers, and the completion of the last one.
#[derive(Debug, Clone, Serialize)]
pub struct QueryRecord {
    pub query: String,
    pub responses: usize,
    pub start_s: f64,
    /// When its last answer completed (None: one is not finished by the end).
    pub finish_s: Option<f64>,
    /// Query completion time: `finish_s - start_s`.
    pub qct_s: Option<f64>,
}

/// The query completion times summarised.
#[derive(Debug, Clone, Serialize)]
pub struct QctSummary {
    pub count: usize,
    pub unfinished: usize,
    pub qct_mean_s: Option<f64>,
    pub qct_p50_s: Option<f64>,
    pub qct_p99_s: Option<f64>,
    pub qct_p999_s: Option<f64>,
}

/// The `fct` section of a report.
#[derive(Debug, Clone, Serialize)]
pub struct FctReport {
    /// Upper edges of the buckets in bytes.
    pub edges_bytes: Vec<u64>,
    /// One entry per bucket, then `"all"`.
    pub buckets: Vec<FctBucket>,
    pub flows: Vec<FctRecord>,
    /// Incast queries (transfers sharing a `query`), when there are any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queries: Vec<QueryRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qct: Option<QctSummary>,
}

/// Queries from their transfers' records, `of[i]` the query of `flows[i]`, in the order of
/// their first transfer.
pub fn queries(flows: &[FctRecord], of: &[Option<&str>]) -> Vec<QueryRecord> {
    let mut out: Vec<QueryRecord> = Vec::new();
    let mut index: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for (r, q) in flows.iter().zip(of) {
        let Some(q) = q else { continue };
        let i = *index.entry(q).or_insert_with(|| {
            out.push(QueryRecord {
                query: q.to_string(),
                responses: 0,
                start_s: r.start_s,
                finish_s: Some(r.start_s),
                qct_s: None,
            });
            out.len() - 1
        });
        let e = &mut out[i];
        e.responses += 1;
        e.start_s = e.start_s.min(r.start_s);
        e.finish_s = match (e.finish_s, r.finish_s) {
            (Some(a), Some(b)) => Some(a.max(b)),
            _ => None,
        };
    }
    for e in &mut out {
        e.qct_s = e.finish_s.map(|f| f - e.start_s);
    }
    out
}

/// The summary of query completion times, None without queries.
pub fn qct_summary(q: &[QueryRecord]) -> Option<QctSummary> {
    if q.is_empty() {
        return None;
    }
    let mut v: Vec<f64> = q.iter().filter_map(|r| r.qct_s).collect();
    v.sort_by(f64::total_cmp);
    Some(QctSummary {
        count: v.len(),
        unfinished: q.len() - v.len(),
        qct_mean_s: (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64),
        qct_p50_s: nearest_rank(&v, 0.5),
        qct_p99_s: nearest_rank(&v, 0.99),
        qct_p999_s: nearest_rank(&v, 0.999),
    })
}

/// A size as the bucket labels write it: `100KB`, `1MB`, `1500B` (decimal prefixes, whole
/// numbers only; otherwise bytes).
pub fn size_label(b: u64) -> String {
    for (unit, name) in [(1_000_000_000, "GB"), (1_000_000, "MB"), (1_000, "KB")] {
        if b >= unit && b.is_multiple_of(unit) {
            return format!("{}{name}", b / unit);
        }
    }
    format!("{b}B")
}

/// The value at rank ceil(q n) of `sorted` (nearest rank), None when empty.
pub fn nearest_rank(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let i = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1;
    Some(sorted[i])
}

fn bucket(label: String, lo: u64, hi: Option<u64>, rows: &[&FctRecord]) -> FctBucket {
    let stats = |pick: &dyn Fn(&FctRecord) -> Option<f64>| {
        let mut v: Vec<f64> = rows.iter().filter_map(|r| pick(r)).collect();
        v.sort_by(f64::total_cmp);
        let mean = (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
        [
            mean,
            nearest_rank(&v, 0.5),
            nearest_rank(&v, 0.99),
            nearest_rank(&v, 0.999),
        ]
    };
    let [fm, f50, f99, f999] = stats(&|r| r.fct_s);
    let [sm, s50, s99, s999] = stats(&|r| r.slowdown);
    let count = rows.iter().filter(|r| r.fct_s.is_some()).count();
    FctBucket {
        bucket: label,
        min_bytes: lo,
        max_bytes: hi,
        count,
        unfinished: rows.len() - count,
        fct_mean_s: fm,
        fct_p50_s: f50,
        fct_p99_s: f99,
        fct_p999_s: f999,
        slowdown_mean: sm,
        slowdown_p50: s50,
        slowdown_p99: s99,
        slowdown_p999: s999,
    }
}

/// The report section of `flows` summarised over the buckets whose upper edges are `edges`.
pub fn summarise(flows: Vec<FctRecord>, edges: &[u64]) -> FctReport {
    let mut buckets = Vec::with_capacity(edges.len() + 2);
    let mut lo = 0u64;
    for i in 0..=edges.len() {
        let hi = edges.get(i).copied();
        let label = match (i, hi) {
            (0, Some(h)) => format!("<{}", size_label(h)),
            (_, Some(h)) => format!("{}-{}", size_label(lo), size_label(h)),
            (_, None) => format!(">{}", size_label(lo)),
        };
        let rows: Vec<&FctRecord> = flows
            .iter()
            .filter(|r| r.size_bytes > lo && hi.is_none_or(|h| r.size_bytes <= h))
            .collect();
        buckets.push(bucket(label, lo, hi, &rows));
        lo = hi.unwrap_or(lo);
    }
    let all: Vec<&FctRecord> = flows.iter().collect();
    buckets.push(bucket("all".into(), 0, None, &all));
    FctReport {
        edges_bytes: edges.to_vec(),
        buckets,
        flows,
        queries: Vec::new(),
        qct: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hop(mbps: u64, ms: u64) -> PathHop {
        PathHop {
            rate_bps: mbps * 1_000_000,
            delay: SimTime::from_millis(ms),
            overhead: 0,
        }
    }

    const W: WireFormat = WireFormat {
        mss: 1000,
        header: 40,
        ack: 40,
        bare_first: false,
    };

    #[test]
    fn ideal_on_one_hop_is_serialisation_plus_rtt_plus_ack() {
        // 3 full packets of 1040 bytes at 8 Mb/s: 3.12 ms; 2 x 1 ms; ACK 40 B: 0.04 ms
        let t = ideal_fct(3000, W, &[hop(8, 1)], &[hop(8, 1)]);
        assert!((t - (3.12e-3 + 2e-3 + 0.04e-3)).abs() < 1e-12, "{t}");
    }

    #[test]
    fn ideal_pipelines_through_the_slowest_hop() {
        // 10 Mb/s then 1 Mb/s: the first packet at 10 Mb/s, all 4 at 1 Mb/s, nothing after
        let fwd = [hop(10, 0), hop(1, 0)];
        let t = ideal_fct(4000, W, &fwd, &[]);
        let want = 1040.0 * 8.0 / 10e6 + 4.0 * 1040.0 * 8.0 / 1e6;
        assert!((t - want).abs() < 1e-12, "{t} {want}");
        // the fast hop last: all at 1 Mb/s, then the last (partial) packet at 10 Mb/s
        let fwd = [hop(1, 0), hop(10, 0)];
        let t = ideal_fct(3500, W, &fwd, &[]);
        let want = (3500.0 + 4.0 * 40.0) * 8.0 / 1e6 + 540.0 * 8.0 / 10e6;
        assert!((t - want).abs() < 1e-12, "{t} {want}");
        // ns-2's packet 0 without syn_ goes without its 40-byte header
        let bare = WireFormat {
            bare_first: true,
            ..W
        };
        let t = ideal_fct(1000, bare, &[hop(8, 0)], &[]);
        assert!((t - 1e-3).abs() < 1e-12, "{t}");
    }

    #[test]
    fn buckets_split_at_their_edges_and_rank_by_nearest_rank() {
        let rec = |size: u64, fct: Option<f64>| FctRecord {
            flow: format!("f{size}"),
            size_bytes: size,
            start_s: 0.0,
            finish_s: fct,
            fct_s: fct,
            ideal_fct_s: 1.0,
            slowdown: fct,
        };
        let flows = vec![
            rec(100_000, Some(2.0)),
            rec(1, Some(4.0)),
            rec(100_001, Some(3.0)),
            rec(5_000_000, None),
        ];
        let r = summarise(flows, &DEFAULT_EDGES);
        let labels: Vec<&str> = r.buckets.iter().map(|b| b.bucket.as_str()).collect();
        assert_eq!(labels, ["<100KB", "100KB-1MB", ">1MB", "all"]);
        assert_eq!((r.buckets[0].count, r.buckets[0].unfinished), (2, 0));
        assert_eq!(r.buckets[0].slowdown_mean, Some(3.0));
        assert_eq!(r.buckets[0].slowdown_p50, Some(2.0));
        assert_eq!(r.buckets[0].slowdown_p99, Some(4.0));
        assert_eq!((r.buckets[2].count, r.buckets[2].unfinished), (0, 1));
        assert_eq!(r.buckets[2].fct_p50_s, None);
        assert_eq!(r.buckets[3].count, 3);
        assert_eq!(nearest_rank(&[1.0, 2.0, 3.0, 4.0], 0.5), Some(2.0));
    }

    #[test]
    fn edges_are_checked() {
        let c = FctConfig {
            buckets: Some(vec![Bytes(10), Bytes(10)]),
        };
        assert!(c.edges().is_err());
        assert_eq!(FctConfig::default().edges().unwrap(), DEFAULT_EDGES);
        assert_eq!(size_label(1_500), "1500B");
    }
}
