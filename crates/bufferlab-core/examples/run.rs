//! Runs a scenario file and prints the report JSON: `cargo run --release --example run -- FILE [key=value ...]`.
//! For profiling and benchmarking the core without Python. With `BUFFERLAB_PCAP=DIR` it also
//! writes a pcap of every link direction into DIR (for trace comparisons with ns-3), and with
//! `BUFFERLAB_NS2_TRACE=FILE` an ns-2 trace of every event into FILE.
use bufferlab_core::api::{write_json_with_progress, RunRequest};
use std::io::Write;

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
    let pcap = std::env::var_os("BUFFERLAB_PCAP").map(std::path::PathBuf::from);
    if let Some(dir) = &pcap {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("error: BUFFERLAB_PCAP {}: {e}", dir.display());
            std::process::exit(2);
        }
    }
    let ns2_trace = std::env::var_os("BUFFERLAB_NS2_TRACE").map(std::path::PathBuf::from);
    // files the scenario names (a link's `trace`) are read from its folder, as `bufferlab run`
    // reads them
    let base_dir = std::path::Path::new(path).parent();
    // the report is written to stdout as it is read out of the simulation (no JSON text held
    // whole: docs/performance.md, "What a flow holds")
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let req = RunRequest {
        text: &text,
        source: path,
        seed: None,
        overrides,
        pcap_dir: pcap.as_deref(),
        ns2_trace: ns2_trace.as_deref(),
        base_dir,
        ..Default::default()
    };
    let written = write_json_with_progress(&req, &mut |_| true, &mut out).and_then(|()| {
        writeln!(out)
            .and_then(|()| out.flush())
            .map_err(|e| bufferlab_core::api::Error::Internal(format!("writing: {e}")))
    });
    if let Err(e) = written {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}
