//! A run is the same however its front end slices it. The CLI and the example runner run in
//! slices of simulated time and also stop every 100 ms of wall time to look for Ctrl-C
//! (`api.rs`); where those stops fall depends on the machine, so nothing the run does may
//! depend on them. Found on the 128-host bench case (issue #38): the 1 s run counted 35 541
//! more events through the bench than by hand, because a wall-time stop right after the
//! first event due at the end made the run look finished (`now >= end`) while the other
//! events due at that instant had not run.

use bufferlab_core::scenario::{build::build, parse};
use bufferlab_core::units::SimTime;

/// Three CBR senders started together: their packets meet at the same instants, and the run
/// ends at one where three events fall due (`several_events_fall_due_at_the_end`).
const SCENARIO: &str = r#"
name = "slicing"
duration = "73.08ms"
seed = 1

[topology]
kind = "dumbbell"
pairs = 3

[links.access]
rate = "100Mbps"
delay = "1ms"

[links.bottleneck]
rate = "10Mbps"
delay = "5ms"
queue = { kind = "droptail", limit = "50p" }

[[flows]]
name = "cbr"
count = 3
src = "s{i}"
dst = "d{i}"
app = { kind = "cbr", rate = "1Mbps", packet_size = "1000B" }
"#;

fn sim() -> bufferlab_core::sim::Simulation {
    let s = parse(SCENARIO, &[]).expect("scenario parses");
    build(&s, 1).expect("scenario builds")
}

/// Events run by one `run()` to the end.
fn whole() -> u64 {
    let mut sim = sim();
    sim.run();
    assert!(sim.finished());
    sim.events
}

#[test]
fn several_events_fall_due_at_the_end() {
    let mut sim = sim();
    let end = sim.end;
    let mut at_end = 0;
    sim.run_until_with(end, |s| {
        at_end += u32::from(s.now == end);
        false
    });
    assert!(
        at_end >= 2,
        "{at_end} events at the end: the test below needs several"
    );
}

#[test]
fn a_stop_after_the_first_event_at_the_end_leaves_the_rest_to_run() {
    let mut sim = sim();
    let end = sim.end;
    // stop after the first event due at the end, as a wall-time yield can
    sim.run_until_with(end, |s| s.now == end);
    assert_eq!(sim.now, end);
    assert!(
        !sim.finished(),
        "events due at the end are still waiting: the run is not finished"
    );
    let mut slices = 0;
    while !sim.finished() {
        sim.run_until(end);
        slices += 1;
        assert!(slices < 10, "the run does not finish");
    }
    assert_eq!(sim.events, whole());
}

#[test]
fn events_do_not_depend_on_where_slices_end() {
    let expected = whole();
    for step_us in [1u64, 37, 1000, 8000] {
        let mut sim = sim();
        let step = SimTime::from_micros(step_us);
        while !sim.finished() {
            let next = sim.now + step;
            sim.run_until(next);
        }
        assert_eq!(sim.events, expected, "slices of {step_us} us");
    }
}
