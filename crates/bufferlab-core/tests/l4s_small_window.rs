//! TCP Prague's rate-based mode for small windows (`prague_cwnd_mode`, L4STeam tcp_prague.c
//! v0.7; `tcp/cc/prague_rate.rs`, docs/models/prague.md "Small windows") through DualPI2 with
//! Linux's defaults, against RFC 9332 (issue #39, "L4S at low rates"; numbers in
//! docs/validation.md, "L4S at low rates: Prague's rate-based mode").
//!
//! The argument the bounds come from:
//! * RFC 9332 sections 1 and 2.4: with the coupling p_CL = k p' (k = 2) and p_C = p'^2, a
//!   scalable flow in the L queue and a classic flow in the C queue get roughly equal rates;
//!   "roughly" is read as within a factor of two, as `tests/l4s.rs` does.
//! * At 10 Mbit/s a 1514 B packet takes 1.21 ms, more than Linux's 1 ms step: an L packet
//!   that arrives while a C packet is being sent waits long enough to be marked, whatever the
//!   L sender does. Those marks come on top of the coupled p_CL, so no sender-side rule can
//!   bring the rates to equality there: the L queue's marking fraction stays above k sqrt(p_C)
//!   (the coupled share derived from the C queue's drops) and Prague below half of CUBIC.
//!   With the step at RFC 9332 A.1's floor (2 MTU of serialization, 2.42 ms) the coupling
//!   alone marks, and equality holds again.
//! * The switch mode runs the rate rules only at windows of at most 4 MTU
//!   (`prague_cwnd_transit`): at 10 Mbit/s Prague's share of a 14 ms path is a few packets;
//!   at 100 Mbit/s it is tens of packets and the rate rules never run.

mod common;
use common::{flow, l4s_example, queue, run_text};

/// DualPI2's coupling factor (RFC 9332, Linux `sch_dualpi2.c` `coupling_factor` 2).
const K: f64 = 2.0;

struct Run {
    ratio: f64,
    /// The L queue's CE marks per arrival, and k sqrt(drops per arrival) of the C queue.
    p_l: f64,
    p_cl_from_c: f64,
    /// ACKs the rate rules handled.
    rate_acks: u64,
}

fn l4s(rate: u32, delay: u32, step: Option<&str>, mode: &str) -> Run {
    let step = step.map_or(String::new(), |s| format!(r#", step_thresh = "{s}""#));
    let text = l4s_example(
        rate,
        delay,
        &step,
        &format!(r#", prague_cwnd_mode = "{mode}""#),
    );
    let r = run_text(&text, 1);
    let p = flow(&r, "prague");
    let ratio = p.goodput_bps / flow(&r, "cubic").goodput_bps;
    let tcp: serde_json::Value =
        serde_json::from_str(p.tcp.as_ref().expect("a TCP flow").get()).expect("JSON");
    let rate_acks = tcp
        .pointer("/cc_state/cwnd_mode/rate_acks")
        .and_then(|v| v.as_u64());
    assert_eq!(
        rate_acks.is_some(),
        mode != "window",
        "the report gives the rate mode's state in the rate modes only"
    );
    let rate_acks = rate_acks.unwrap_or(0);
    let q = queue(&r, "bottleneck", "r0");
    let classes = q.classes.as_ref().expect("dualpi2 reports its two queues");
    let class = |name: &str| {
        let c = classes
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap();
        let n = c["arrivals"].as_f64().unwrap();
        (
            c["marks"].as_f64().unwrap() / n,
            c["drops"].as_f64().unwrap() / n,
        )
    };
    let (p_l, _) = class("l");
    let (_, p_c) = class("c");
    Run {
        ratio,
        p_l,
        p_cl_from_c: K * p_c.sqrt(),
        rate_acks,
    }
}

/// RFC 9332's "roughly equal" read as within a factor of two (module notes).
fn assert_roughly_equal(r: &Run, case: &str) {
    assert!(
        (0.5..2.0).contains(&r.ratio),
        "{case}: Prague / CUBIC {:.2}",
        r.ratio
    );
}

// ---- RFC 9332's rough equality from 20 to 100 Mbit/s, both RTTs, v0.7's default mode ----
#[test]
fn switch_mode_shares_roughly_equally_from_20_to_100_mbps() {
    for rate in [20, 40, 100] {
        for delay in [5, 20] {
            let r = l4s(rate, delay, None, "switch");
            assert_roughly_equal(&r, &format!("{rate} Mbit/s, {delay} ms"));
        }
    }
}

// ---- at 10 Mbit/s with RFC 9332's 2-MTU floor the coupling alone marks: rough equality ----
#[test]
fn switch_mode_at_10_mbps_is_roughly_equal_with_the_rfc_9332_floor() {
    for delay in [5, 20] {
        let r = l4s(10, delay, Some("2.42ms"), "switch");
        assert_roughly_equal(&r, &format!("{delay} ms, 2.42 ms step"));
    }
}

// ---- at 10 Mbit/s Linux's 1 ms step marks beyond the coupling: no sender rule fixes that ----
#[test]
fn at_10_mbps_the_1ms_step_keeps_prague_below_half_in_every_mode() {
    for mode in ["rate", "switch"] {
        for delay in [5, 20] {
            let r = l4s(10, delay, None, mode);
            assert!(
                r.ratio < 0.5,
                "{mode}, {delay} ms: Prague / CUBIC {:.2}",
                r.ratio
            );
            assert!(
                r.p_l > 1.5 * r.p_cl_from_c,
                "{mode}, {delay} ms: L marks {:.3} of arrivals, the coupling's k sqrt(p_C) {:.3}: \
                 the step's marks should come on top",
                r.p_l,
                r.p_cl_from_c
            );
        }
    }
}

// ---- the switch mode runs the rate rules at small windows only ----
#[test]
fn switch_mode_uses_the_rate_at_10_mbps_and_the_window_at_100() {
    let small = l4s(10, 5, None, "switch");
    assert!(
        small.rate_acks > 0,
        "10 Mbit/s, 5 ms: {} ACKs under the rate rules",
        small.rate_acks
    );
    let large = l4s(100, 5, None, "switch");
    assert_eq!(
        large.rate_acks, 0,
        "100 Mbit/s: the window never falls to 4 MTU"
    );
    let window = l4s(10, 5, None, "window");
    assert_eq!(window.rate_acks, 0, "the window mode has no rate rules");
}
