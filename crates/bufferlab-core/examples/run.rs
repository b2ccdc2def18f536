//! Runs a scenario file and prints the report JSON: `cargo run --release --example run -- FILE [key=value ...]`.
//! For profiling and benchmarking the core without Python.
use bufferlab_core::api::{run_json, RunRequest};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: run FILE [dotted.path=value ...]");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {path}: {e}");
            std::process::exit(2);
        }
    };
    let overrides = &args[1..];
    match run_json(&RunRequest {
        text: &text,
        source: path,
        seed: None,
        overrides,
        ..Default::default()
    }) {
        Ok(j) => println!("{j}"),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
