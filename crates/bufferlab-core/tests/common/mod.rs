//! Helpers shared by the integration tests: run scenario text, read the report.
#![allow(dead_code)]

use bufferlab_core::api::{run, RunRequest};
use bufferlab_core::report::Report;
use bufferlab_core::scenario::{build::build, parse};
use bufferlab_core::sim::Simulation;

pub fn run_text(text: &str, seed: u64) -> Report {
    run(&RunRequest {
        text,
        source: "test.toml",
        seed: Some(seed),
        overrides: &[],
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

pub fn run_err(text: &str, overrides: &[&str]) -> String {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    match run(&RunRequest {
        text,
        source: "bad.toml",
        seed: None,
        overrides: &o,
        ..Default::default()
    }) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

/// Builds and runs a simulation, returning it for inspection.
pub fn simulate(text: &str, seed: u64) -> Simulation {
    let s = parse(text, &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = build(&s, seed).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    sim
}

/// Each flow's lost packets, in the order of the report's flows (a report as JSON).
pub fn drops_per_flow(r: &serde_json::Value) -> Vec<u64> {
    r["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["lost_packets"].as_u64().unwrap())
        .collect()
}

pub fn flow<'a>(r: &'a Report, name: &str) -> &'a bufferlab_core::report::FlowReport {
    r.flows
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no flow {name}"))
}

pub fn queue<'a>(r: &'a Report, link: &str, from: &str) -> &'a bufferlab_core::report::QueueReport {
    r.queues
        .iter()
        .find(|q| q.link == link && q.from == from)
        .unwrap_or_else(|| panic!("no queue {link} from {from}"))
}

/// A dumbbell scenario written as TOML text, the one builder the integration tests share:
/// `pairs` senders s0.. and receivers d0.., access links (default 100 Mbit/s, 1 ms) and a
/// bottleneck (default 10 Mbit/s, 10 ms). Values are given as TOML (`"\"10s\""`, inline
/// tables as text), so a test reads like the scenario file it stands for.
#[derive(Clone, Debug)]
pub struct Dumbbell {
    top: Vec<(String, String)>,
    pairs: usize,
    access: (String, String),
    access_queue: Option<String>,
    bottleneck: (String, String),
    queue: Option<String>,
    loss: Option<String>,
    monitor: Vec<(String, String)>,
    flows: Vec<String>,
}

impl Dumbbell {
    pub fn new(pairs: usize) -> Self {
        Self {
            top: Vec::new(),
            pairs,
            access: ("100Mbps".into(), "1ms".into()),
            access_queue: None,
            bottleneck: ("10Mbps".into(), "10ms".into()),
            queue: None,
            loss: None,
            monitor: Vec::new(),
            flows: Vec::new(),
        }
    }
    /// A top-level key (`name`, `duration`, `warmup`, `seed`) with its TOML value.
    pub fn set(mut self, key: &str, value: &str) -> Self {
        self.top.push((key.into(), value.into()));
        self
    }
    pub fn duration(self, d: &str) -> Self {
        self.set("duration", &format!("\"{d}\""))
    }
    pub fn access(mut self, rate: &str, delay: &str) -> Self {
        self.access = (rate.into(), delay.into());
        self
    }
    pub fn access_queue(mut self, queue: &str) -> Self {
        self.access_queue = Some(queue.into());
        self
    }
    pub fn bottleneck(mut self, rate: &str, delay: &str) -> Self {
        self.bottleneck = (rate.into(), delay.into());
        self
    }
    /// The bottleneck's queue, a TOML inline table.
    pub fn queue(mut self, queue: &str) -> Self {
        self.queue = Some(queue.into());
        self
    }
    /// The bottleneck's loss model, a TOML inline table.
    pub fn loss(mut self, loss: &str) -> Self {
        self.loss = Some(loss.into());
        self
    }
    pub fn monitor(mut self, key: &str, value: &str) -> Self {
        self.monitor.push((key.into(), value.into()));
        self
    }
    /// One `[[flows]]` table: its `key = value` lines.
    pub fn flow(mut self, body: &str) -> Self {
        self.flows.push(body.trim().into());
        self
    }
    pub fn toml(&self) -> String {
        let mut s = String::new();
        for (k, v) in &self.top {
            s += &format!("{k} = {v}\n");
        }
        s += &format!("[topology]\nkind = \"dumbbell\"\npairs = {}\n", self.pairs);
        s += &format!(
            "[links.access]\nrate = \"{}\"\ndelay = \"{}\"\n",
            self.access.0, self.access.1
        );
        if let Some(q) = &self.access_queue {
            s += &format!("queue = {q}\n");
        }
        s += &format!(
            "[links.bottleneck]\nrate = \"{}\"\ndelay = \"{}\"\n",
            self.bottleneck.0, self.bottleneck.1
        );
        if let Some(q) = &self.queue {
            s += &format!("queue = {q}\n");
        }
        if let Some(l) = &self.loss {
            s += &format!("loss = {l}\n");
        }
        if !self.monitor.is_empty() {
            s += "[monitor]\n";
            for (k, v) in &self.monitor {
                s += &format!("{k} = {v}\n");
            }
        }
        for f in &self.flows {
            s += &format!("[[flows]]\n{f}\n");
        }
        s
    }
}

/// A one-pair dumbbell named `name` (access links 1 Gbit/s, 1 ms) whose bottleneck (`rate`,
/// `delay`) has the queue `queue`, carrying one CBR flow `f0` (s0 -> d0) of `cbr` in packets
/// of `size`: the setting of the shaper, policer and trace-link tests.
pub fn cbr_dumbbell(
    name: &str,
    bottleneck: (&str, &str),
    queue: &str,
    cbr: (&str, &str),
) -> Dumbbell {
    Dumbbell::new(1)
        .set("name", &format!("{name:?}"))
        .access("1Gbps", "1ms")
        .bottleneck(bottleneck.0, bottleneck.1)
        .queue(queue)
        .flow(&format!(
            "name = \"f0\"\nsrc = \"s0\"\ndst = \"d0\"\napp = {{ kind = \"cbr\", rate = \"{}\", packet_size = \"{}\" }}",
            cbr.0, cbr.1
        ))
}

/// examples/l4s_dualpi2.toml (one Prague and one CUBIC flow through DualPI2) at `rate` Mbit/s
/// and a one-way bottleneck delay of `delay` ms, with more fields for its DualPI2 queue
/// (`queue_extra`, e.g. `, min_qlen_step = 1`) and its Prague flow's `tcp` (`prague_extra`).
/// Panics naming the line when the example no longer has it.
pub fn l4s_example(rate: u32, delay: u32, queue_extra: &str, prague_extra: &str) -> String {
    const L4S: &str = include_str!("../../../../examples/l4s_dualpi2.toml");
    const RATE: &str = r#"rate = "40Mbps""#;
    const DELAY: &str = r#"delay = "5ms""#;
    const QUEUE: &str = r#"queue = { kind = "dualpi2" }"#;
    const PRAGUE: &str = r#"tcp = { preset = "linux", cc = "prague", ecn = true }"#;
    for line in [RATE, DELAY, QUEUE, PRAGUE] {
        assert!(
            L4S.contains(line),
            "the example has no {line}: update l4s_example"
        );
    }
    L4S.replace(RATE, &format!(r#"rate = "{rate}Mbps""#))
        .replace(DELAY, &format!(r#"delay = "{delay}ms""#))
        .replace(
            QUEUE,
            &format!(r#"queue = {{ kind = "dualpi2"{queue_extra} }}"#),
        )
        .replace(
            PRAGUE,
            &format!(r#"tcp = {{ preset = "linux", cc = "prague", ecn = true{prague_extra} }}"#),
        )
}
