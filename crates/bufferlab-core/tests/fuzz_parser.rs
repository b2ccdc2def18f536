//! The parser and builder under hostile input (docs/reliability.md): any override value on any
//! field of the examples, and mangled scenario text, gives an `Error::Scenario` saying what is
//! wrong (the CLI makes it one line), or a simulation that builds; never a panic. A short run of each built one must not
//! panic either. proptest, a fixed number of cases (`make test`); `tests/test_fuzz_scenarios.py`
//! does the same from Python with report invariants.

use bufferlab_core::api::{run, Error, RunRequest};
use bufferlab_core::guard::Limits;
use proptest::prelude::*;
use std::time::Duration;

const EXAMPLES: &[&str] = &[
    include_str!("../../../examples/dumbbell_tcp.toml"),
    include_str!("../../../examples/dumbbell_udp.toml"),
    include_str!("../../../examples/fair_queueing_udp.toml"),
    include_str!("../../../examples/paper001_lalred.toml"),
    include_str!("../../../examples/paper004_drr.toml"),
    include_str!("../../../examples/weighted_red_udp.toml"),
];

/// Fields the examples have (and some they do not), written as override paths.
const PATHS: &[&str] = &[
    "duration",
    "warmup",
    "seed",
    "topology.pairs",
    "topology.kind",
    "links.access.rate",
    "links.access.delay",
    "links.bottleneck.rate",
    "links.bottleneck.delay",
    "links.bottleneck.queue",
    "links.bottleneck.queue.limit",
    "links.bottleneck.queue.kind",
    "links.bottleneck.queue.min_th",
    "links.bottleneck.queue.max_p",
    "links.bottleneck.loss",
    "links.bottleneck.overhead",
    "flows.0.app.rate",
    "flows.0.app.packet_size",
    "flows.0.app",
    "flows.0.start",
    "flows.0.stop",
    "flows.0.count",
    "flows.0.tcp.mss",
    "flows.0.tcp.window",
    "flows.0.protocol",
    "flows.1.src",
    "monitor.queue_interval",
    "monitor.cwnd_interval",
    "monitor.flow_interval",
    "fairness.flows",
    "nonsense.path",
];

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| format!("{v:e}")),
        "[a-z]{0,6}",
        (
            prop_oneof![
                Just("0"),
                Just("1"),
                Just("-3"),
                Just("1e-12"),
                Just("1e40"),
                Just("0.5")
            ],
            prop_oneof![
                Just("ps"),
                Just("s"),
                Just("ms"),
                Just("bps"),
                Just("Tbps"),
                Just("B"),
                Just("GB"),
                Just("p"),
                Just("%"),
                Just("")
            ],
        )
            .prop_map(|(n, u)| format!("\"{n}{u}\"")),
        Just("{ kind = \"red\", max_p = 7.0 }".to_string()),
        Just("{ kind = \"codel\", target = \"0s\" }".to_string()),
        Just("{ kind = \"onoff\", rate = \"1Mbps\" }".to_string()),
        Just("[]".to_string()),
        Just("{}".to_string()),
    ]
}

/// Runs one request; `Ok` when it was answered without a panic (an error is an answer).
fn answered(text: &str, overrides: &[String]) -> Result<(), String> {
    let req = RunRequest {
        text,
        source: "fuzz.toml",
        overrides,
        limits: Limits {
            max_wall: Some(Duration::from_millis(300)),
            max_memory_bytes: Some(4 << 30),
        },
        ..Default::default()
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&req))) {
        Err(_) => Err(format!("panicked on {overrides:?}")),
        Ok(Err(Error::Internal(e))) => Err(format!("internal error {e} on {overrides:?}")),
        Ok(Err(Error::Scenario(msg))) if msg.trim().is_empty() => {
            Err(format!("an empty error on {overrides:?}"))
        }
        Ok(_) => Ok(()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn any_override_is_answered(
        ex in 0..EXAMPLES.len(),
        sets in prop::collection::vec((0..PATHS.len(), value()), 1..4),
    ) {
        let overrides: Vec<String> =
            sets.iter().map(|(p, v)| format!("{}={v}", PATHS[*p])).collect();
        prop_assert_eq!(answered(EXAMPLES[ex], &overrides), Ok(()));
    }

    #[test]
    fn mangled_text_is_answered(ex in 0..EXAMPLES.len(), cut in 0usize..4000, junk in "[ -~]{0,12}") {
        let text = EXAMPLES[ex];
        let at = text.char_indices().map(|(i, _)| i).nth(cut).unwrap_or(text.len());
        let mangled = format!("{}{junk}{}", &text[..at], &text[at..]);
        prop_assert_eq!(answered(&mangled, &[]), Ok(()));
    }
}
