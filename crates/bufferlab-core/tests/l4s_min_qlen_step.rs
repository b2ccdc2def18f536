//! DualPI2's `min_qlen_step` at a low link rate (issue #39, "L4S at low rates";
//! docs/models/dualpi2.md, "Low link rates"): Linux's `sch_dualpi2.c` applies the 1 ms step only
//! to an L packet that found at least `min_qlen_step` packets in the L queue (`skb_apply_step`).
//! At 10 Mbit/s one 1514-byte packet takes 1.21 ms on the wire, so with the default 0 an L
//! packet that arrives behind any packet is marked and Prague gets a fraction of CUBIC's rate;
//! with 1, a packet that finds the L queue empty waits at most behind the packet on the wire
//! (or a C packet the scheduler sends first) without being marked, and RFC 9332's coupling
//! (k = 2, section 2.4) aims at rough rate equality.

mod common;
use common::{flow, l4s_example, run_text};

/// The example at 10 Mbit/s, a one-way bottleneck delay of `delay` ms and DualPI2 with
/// `min_qlen_step`: Prague's goodput over CUBIC's.
fn ratio_at_10_mbps(delay: u32, min_qlen_step: u32) -> f64 {
    let text = l4s_example(10, delay, &format!(", min_qlen_step = {min_qlen_step}"), "");
    let r = run_text(&text, 1);
    flow(&r, "prague").goodput_bps / flow(&r, "cubic").goodput_bps
}

#[test]
fn at_10_mbps_min_qlen_step_1_lets_prague_and_cubic_share_roughly_evenly() {
    for delay in [5, 20] {
        let linux_default = ratio_at_10_mbps(delay, 0);
        assert!(
            linux_default < 0.4,
            "{delay} ms, min_qlen_step 0: Prague / CUBIC {linux_default:.2}"
        );
        let one = ratio_at_10_mbps(delay, 1);
        assert!(
            (0.5..2.0).contains(&one),
            "{delay} ms, min_qlen_step 1: Prague / CUBIC {one:.2}"
        );
    }
}
