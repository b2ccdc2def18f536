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
