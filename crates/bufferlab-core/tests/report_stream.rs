//! The report written as it is read out of the simulation (`report/stream.rs`, `Streamed`,
//! used by `api::run_json`, the Python module and the example runner) is the same bytes as the
//! `Report` value's JSON (issue #40's memory work; docs/performance.md, "What a flow holds after
//! the report is streamed"). An integration test: the library's `report` module does not import
//! `api`.

use bufferlab_core::api::{run, run_json, RunRequest};

/// The report's JSON with its wall time zeroed (the one field the two ways differ in).
fn zero_wall(json: &str) -> String {
    let at = json.find("\"wall_s\":").expect("a wall_s field") + "\"wall_s\":".len();
    let end = at + json[at..].find(',').expect("a field after wall_s");
    format!("{}0{}", &json[..at], &json[end..])
}

/// The streamed JSON is the same bytes as the `Report`'s, on scenarios with every
/// optional part: queue series, shared-buffer switches, flow completion times (the
/// incast), TCP series and two controllers (BBR against CUBIC).
#[test]
fn streamed_is_the_report() {
    let cases = [
        (
            include_str!("../../../examples/datacenter/shared_buffer_incast.toml"),
            "duration=20ms",
            ["\"switches\"", "\"fct\""],
        ),
        (
            include_str!("../../../examples/bbr_vs_cubic.toml"),
            "duration=12s",
            ["\"tcp\":[{", "\"flows\":[{\"flow\""],
        ),
    ];
    for (text, cut, parts) in cases {
        let overrides = [
            cut.to_string(),
            "monitor.flow_interval=\"100ms\"".to_string(),
        ];
        let req = RunRequest {
            text,
            overrides: &overrides,
            ..Default::default()
        };
        let report = serde_json::to_string(&run(&req).expect("runs")).expect("serialises");
        let streamed = run_json(&req).expect("runs");
        for part in parts {
            assert!(report.contains(part), "{part} is in the report");
        }
        assert_eq!(zero_wall(&report), zero_wall(&streamed));
    }
}
