//! Workloads (`[[workloads]]`): many finite TCP transfers written as a few numbers, turned
//! into `[[flows]]` entries before the flows are expanded, each seeded from the run's seed
//! and the workload's name, so the same seed gives the same flows.
//!
//! * `kind = "poisson"`: flows arrive at each host of `hosts` as a Poisson process whose rate
//!   gives the host's link the target `load`: rate = load x link rate / (8 x mean size), the
//!   mean of the size CDF in payload bytes (the convention of the HPCC simulator's
//!   `traffic_gen/traffic_gen.py`: `avg_inter_arrival = 1 / (bandwidth * load / 8 / avg)` per
//!   host, and of pFabric's and DCTCP's load definitions). With `pairs = "random"` (the
//!   default, as traffic_gen.py) each arrival goes to a host drawn uniformly among the others;
//!   with `pairs = "all_to_all"` each ordered pair of hosts has its own Poisson process at the
//!   host's rate divided by the number of other hosts. By Poisson splitting both give each
//!   pair the same arrival law; they differ in which draws make the flows. Sizes come from an
//!   empirical CDF (`traffic/size_cdf.rs`: `web_search`, `data_mining`, `hadoop`, or the
//!   user's points). The load counts payload bytes: headers add about 4 % on the wire.
//! * `kind = "incast"`: a `client` asks each of `servers` for `response` bytes at once, every
//!   `interval` (or at Poisson times of that mean with `arrivals = "poisson"`); each answer is
//!   a transfer from its server to the client starting at the query's time (the request is
//!   not sent as a packet, as the `web` application's; DCTCP section 2.3.2 times a query from
//!   the request to the last response). The answers of one query share its name (`query`),
//!   and the report's `fct.queries` gives each query's completion time, that of its last
//!   answer.

use super::config::{FlowConfig, Scenario, StartTime};
use super::topology::Topology;
use super::ScenarioError;
use crate::rng::{self, Rng};
use crate::traffic::size_cdf::{SizeCdf, BUILT_IN};
use crate::traffic::{exp_sample, AppConfig};
use crate::units::{Bytes, Rate, SimTime};
use rand::RngExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a workload's flow sizes are drawn.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SizeSource {
    /// A built-in CDF: `web_search`, `data_mining` or `hadoop`.
    BuiltIn(String),
    /// A CDF file (one `size probability` point per line, probability in [0, 1] or percent),
    /// relative to the working directory.
    File { file: String },
    /// The CDF's points inline: `[[size, probability], ...]`, from probability 0 to 1.
    Points { points: Vec<(f64, f64)> },
}

/// Who talks to whom in a Poisson workload.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Pairs {
    /// Each flow from its host to another drawn uniformly (HPCC traffic_gen.py).
    #[default]
    Random,
    /// A Poisson process for every ordered pair of hosts.
    AllToAll,
}

/// When an incast client asks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Arrivals {
    /// Every `interval`.
    #[default]
    Periodic,
    /// At the times of a Poisson process of mean gap `interval`.
    Poisson,
}

/// A workload: flows generated from a size distribution and a load, or incast queries.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum WorkloadConfig {
    /// Flows arriving as a Poisson process at a target load of the hosts' links.
    Poisson {
        /// Flows are named NAME0, NAME1, ... (default "w{k}_", k the workload's position).
        #[serde(default)]
        name: Option<String>,
        /// The hosts that send and receive: node names, or `prefix*` for every node whose
        /// name starts with prefix, in the topology's order.
        hosts: Vec<String>,
        /// `random` (default) or `all_to_all`.
        #[serde(default)]
        pairs: Pairs,
        /// `web_search`, `data_mining`, `hadoop`, `{ file = "x.cdf" }` or `{ points = [...] }`.
        sizes: SizeSource,
        /// Offered load of each host's link, 0 < load <= 1 (payload bytes).
        load: f64,
        /// The link rate the load is of (default: the rate of the hosts' links, which must
        /// then all be the same).
        #[serde(default)]
        link_rate: Option<Rate>,
        /// First arrivals from (default 0).
        #[serde(default)]
        start: SimTime,
        /// No arrival from this time on (default: the scenario's duration).
        #[serde(default)]
        stop: Option<SimTime>,
        /// The flows' TCP settings (see `flows[].tcp`).
        #[serde(default)]
        tcp: Option<crate::tcp::TcpOptions>,
    },
    /// A client asking `servers` for `response` bytes each, repeatedly.
    Incast {
        /// Queries are named NAME0, NAME1, ...; answers NAME<q>_<j> (default "q{k}_").
        #[serde(default)]
        name: Option<String>,
        client: String,
        /// Node names, or `prefix*` as in `hosts`.
        servers: Vec<String>,
        /// Bytes each server sends back.
        response: Bytes,
        /// Time between queries (or its mean with `arrivals = "poisson"`).
        interval: SimTime,
        /// `periodic` (default) or `poisson`.
        #[serde(default)]
        arrivals: Arrivals,
        /// The first query (default 0).
        #[serde(default)]
        start: SimTime,
        /// No query from this time on (default: the scenario's duration).
        #[serde(default)]
        stop: Option<SimTime>,
        #[serde(default)]
        tcp: Option<crate::tcp::TcpOptions>,
    },
}

/// What a workload is expanded against: the scenario, its topology, the run's seed and the
/// workload's position in `[[workloads]]`.
#[derive(Clone, Copy)]
struct At<'a> {
    s: &'a Scenario,
    topo: &'a Topology,
    seed: u64,
    k: usize,
}

/// `s` with its workloads' flows appended to its own (the workloads checked against `topo`).
pub(super) fn with_workload_flows(
    s: &Scenario,
    topo: &Topology,
    seed: u64,
) -> Result<Scenario, ScenarioError> {
    let mut out = s.clone();
    for (k, w) in s.workloads.iter().enumerate() {
        let at = At { s, topo, seed, k };
        match w {
            WorkloadConfig::Poisson { .. } => poisson(&mut out.flows, &at, w)?,
            WorkloadConfig::Incast { .. } => incast(&mut out.flows, &at, w)?,
        }
    }
    Ok(out)
}

/// The names `pattern`s stand for: a node name, or every node starting with `prefix*`.
fn resolve_hosts(
    topo: &Topology,
    patterns: &[String],
    field: &str,
) -> Result<Vec<String>, ScenarioError> {
    let mut out: Vec<String> = Vec::new();
    for p in patterns {
        let matched: Vec<&String> = match p.strip_suffix('*') {
            Some(prefix) => topo
                .nodes
                .iter()
                .filter(|n| n.starts_with(prefix))
                .collect(),
            None => topo.nodes.iter().filter(|n| *n == p).collect(),
        };
        if matched.is_empty() {
            return Err(ScenarioError::field(
                field,
                format!("no node is named {p:?}; nodes are {:?}", topo.nodes),
            ));
        }
        for m in matched {
            if !out.contains(m) {
                out.push(m.clone());
            }
        }
    }
    Ok(out)
}

/// The rate of the links attached to `hosts`, which must all be one.
fn host_link_rate(topo: &Topology, hosts: &[String], field: &str) -> Result<Rate, ScenarioError> {
    let mut rate: Option<(Rate, &str)> = None;
    for h in hosts {
        let i = topo.nodes.iter().position(|n| n == h).expect("resolved");
        for l in topo.links.iter().filter(|l| l.a == i || l.b == i) {
            match rate {
                None => rate = Some((l.rate, h)),
                Some((r, first)) if r != l.rate => {
                    return Err(ScenarioError::field(
                        format!("{field}.link_rate"),
                        format!("the hosts' links differ ({first}: {r}, {h}: {}); say which rate the load is of", l.rate),
                    ))
                }
                _ => {}
            }
        }
    }
    rate.map(|r| r.0)
        .ok_or_else(|| ScenarioError::field(field, "the hosts have no links"))
}

/// The largest flow-size CDF file read (1 MiB: published CDFs have tens of lines).
pub const MAX_CDF_BYTES: u64 = 1 << 20;

fn size_cdf(
    src: &SizeSource,
    field: &str,
    base: Option<&std::path::Path>,
) -> Result<SizeCdf, ScenarioError> {
    let field = format!("{field}.sizes");
    match src {
        SizeSource::BuiltIn(name) => SizeCdf::built_in(name).ok_or_else(|| {
            ScenarioError::field(
                &field,
                format!("unknown CDF {name:?}; built in: {BUILT_IN:?}, or {{ file = \"...\" }}, or {{ points = [[size, p], ...] }}"),
            )
        }),
        SizeSource::File { file } => {
            let text = super::files::read_inside(
                &field,
                base,
                file,
                MAX_CDF_BYTES,
                "a CDF",
                "give fewer points",
            )?;
            SizeCdf::parse(&text).map_err(|e| ScenarioError::field(&field, format!("{file}: {e}")))
        }
        SizeSource::Points { points } => SizeCdf::new(points.clone()).map_err(|(i, e)| {
            ScenarioError::field(&field, format!("point {i}: {e}"))
        }),
    }
}

fn window(
    s: &Scenario,
    start: SimTime,
    stop: Option<SimTime>,
    field: &str,
) -> Result<(f64, f64), ScenarioError> {
    let stop = stop.unwrap_or(s.duration).min(s.duration);
    if start >= stop {
        return Err(ScenarioError::field(
            format!("{field}.start"),
            format!("{start} is not before the workload's stop {stop}"),
        ));
    }
    Ok((start.as_secs_f64(), stop.as_secs_f64()))
}

fn transfer(
    name: String,
    src: &str,
    dst: &str,
    at: f64,
    size: u64,
    tcp: &Option<crate::tcp::TcpOptions>,
) -> FlowConfig {
    FlowConfig {
        name: Some(name),
        src: src.to_string(),
        dst: dst.to_string(),
        count: None,
        protocol: None,
        start: StartTime::At(SimTime::from_secs_f64(at)),
        ns2_start_s: None,
        start_order: None,
        stop: None,
        class: 0,
        trace_fid: None,
        trace_ports: None,
        header: None,
        max_datagram: None,
        send_jitter: None,
        app: AppConfig::Transfer { size: Bytes(size) },
        tcp: tcp.clone(),
        query: None,
    }
}

fn poisson(flows: &mut Vec<FlowConfig>, at: &At, w: &WorkloadConfig) -> Result<(), ScenarioError> {
    let At { s, topo, seed, k } = *at;
    let WorkloadConfig::Poisson {
        name,
        hosts,
        pairs,
        sizes,
        load,
        link_rate,
        start,
        stop,
        tcp,
    } = w
    else {
        unreachable!()
    };
    let field = format!("workloads[{k}]");
    let hosts = resolve_hosts(topo, hosts, &format!("{field}.hosts"))?;
    if hosts.len() < 2 {
        return Err(ScenarioError::field(
            format!("{field}.hosts"),
            "needs at least two hosts",
        ));
    }
    if !(*load > 0.0 && *load <= 1.0) {
        return Err(ScenarioError::field(
            format!("{field}.load"),
            format!("{load} is not in (0, 1]"),
        ));
    }
    let rate = match link_rate {
        Some(r) => *r,
        None => host_link_rate(topo, &hosts, &field)?,
    };
    let cdf = size_cdf(sizes, &field, s.base_dir.as_deref())?;
    let (t0, t1) = window(s, *start, *stop, &field)?;
    let prefix = name.clone().unwrap_or_else(|| format!("w{k}_"));
    // flows per second from each host
    let per_host = load * rate.bps() as f64 / (8.0 * cdf.mean());
    let label = format!("workload/{prefix}");
    let mut sizes_rng = rng::stream(seed, &format!("{label}/sizes"));
    let mut made: Vec<(f64, usize, usize)> = Vec::new();
    let h = hosts.len();
    for a in 0..h {
        match pairs {
            Pairs::Random => {
                let mut r = rng::stream(seed, &format!("{label}/{}", hosts[a]));
                let mut t = t0 + exp_sample(&mut r, 1.0 / per_host);
                while t < t1 {
                    let mut b = r.random_range(0..h - 1);
                    if b >= a {
                        b += 1;
                    }
                    made.push((t, a, b));
                    t += exp_sample(&mut r, 1.0 / per_host);
                }
            }
            Pairs::AllToAll => {
                for b in (0..h).filter(|&b| b != a) {
                    let mut r = rng::stream(seed, &format!("{label}/{}/{}", hosts[a], hosts[b]));
                    let gap = (h - 1) as f64 / per_host;
                    let mut t = t0 + exp_sample(&mut r, gap);
                    while t < t1 {
                        made.push((t, a, b));
                        t += exp_sample(&mut r, gap);
                    }
                }
            }
        }
    }
    // in time order (ties: by source, then destination), sizes drawn in that order
    made.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    for (n, (t, a, b)) in made.into_iter().enumerate() {
        let size = cdf.sample(&mut sizes_rng);
        flows.push(transfer(
            format!("{prefix}{n}"),
            &hosts[a],
            &hosts[b],
            t,
            size,
            tcp,
        ));
    }
    Ok(())
}

fn incast(flows: &mut Vec<FlowConfig>, at: &At, w: &WorkloadConfig) -> Result<(), ScenarioError> {
    let At { s, topo, seed, k } = *at;
    let WorkloadConfig::Incast {
        name,
        client,
        servers,
        response,
        interval,
        arrivals,
        start,
        stop,
        tcp,
    } = w
    else {
        unreachable!()
    };
    let field = format!("workloads[{k}]");
    let client = resolve_hosts(
        topo,
        std::slice::from_ref(client),
        &format!("{field}.client"),
    )?;
    let servers = resolve_hosts(topo, servers, &format!("{field}.servers"))?;
    if servers.iter().any(|x| *x == client[0]) {
        return Err(ScenarioError::field(
            format!("{field}.servers"),
            "the client is among the servers",
        ));
    }
    if response.0 == 0 {
        return Err(ScenarioError::field(
            format!("{field}.response"),
            "must be at least 1 byte",
        ));
    }
    if *interval == SimTime::ZERO {
        return Err(ScenarioError::field(
            format!("{field}.interval"),
            "must be positive",
        ));
    }
    let (t0, t1) = window(s, *start, *stop, &field)?;
    let prefix = name.clone().unwrap_or_else(|| format!("q{k}_"));
    let mut r: Rng = rng::stream(seed, &format!("workload/{prefix}"));
    let gap = interval.as_secs_f64();
    let mut t = t0;
    let mut q = 0u64;
    while t < t1 {
        let query = format!("{prefix}{q}");
        for (j, srv) in servers.iter().enumerate() {
            let mut f = transfer(format!("{query}_{j}"), srv, &client[0], t, response.0, tcp);
            f.query = Some(query.clone());
            flows.push(f);
        }
        q += 1;
        t = match arrivals {
            Arrivals::Periodic => t0 + q as f64 * gap,
            Arrivals::Poisson => t + exp_sample(&mut r, gap),
        };
    }
    Ok(())
}
