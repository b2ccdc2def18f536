//! TCP Prague's detection of a classic ECN AQM (L4STeam `tcp_prague.c` v0.6
//! `prague_ecn_fallback`; Briscoe and Ahmed, "TCP Prague Fall-back on Detection of a Classic
//! ECN AQM", arXiv:1911.00710; RFC 9331 section 4.3), on networks of our own:
//!
//! * behind a single-queue classic ECN AQM (PIE, CoDel and RED with ECN), a Prague flow
//!   reduces by alpha / 2 per round of marks where CUBIC halves, so without the fall-back it
//!   takes most of the link; with it, the detection finds the classic queue and the two
//!   share the link far more evenly;
//! * behind DualPI2 (an L4S AQM) the score stays at its floor: the fall-back never engages
//!   and the shares are those without it.

mod common;
use bufferlab_core::report::Report;
use common::{flow, run_text};

const L4S: &str = include_str!("../../../examples/l4s_dualpi2.toml");

/// The L4S example with the bottleneck's discipline, rate and delay replaced, CUBIC made
/// ECN-capable (a classic ECN flow) and Prague's fall-back mode set.
fn scenario(queue: &str, rate_mbps: u32, delay_ms: u32, fallback: &str) -> String {
    let text = L4S
        .replace(r#"queue = { kind = "dualpi2" }"#, queue)
        .replace(
            r#"rate = "40Mbps""#,
            &format!(r#"rate = "{rate_mbps}Mbps""#),
        )
        .replace(r#"delay = "5ms""#, &format!(r#"delay = "{delay_ms}ms""#))
        .replace(
            r#"cc = "prague", ecn = true"#,
            &format!(r#"cc = "prague", ecn = true, prague_ecn_fallback = "{fallback}""#),
        )
        .replace(r#"cc = "cubic" }"#, r#"cc = "cubic", ecn = true }"#);
    assert!(text.contains("prague_ecn_fallback") && text.contains(r#""cubic", ecn = true"#));
    text
}

/// Prague's goodput over CUBIC's, and Prague's classic-ECN score at the end.
fn share(r: &Report) -> (f64, f64) {
    let p = flow(r, "prague");
    let c = flow(r, "cubic");
    let tcp: serde_json::Value =
        serde_json::from_str(p.tcp.as_ref().expect("a TCP flow").get()).expect("JSON");
    let score = tcp
        .pointer("/cc_state/classic_ecn/score")
        .and_then(|v| v.as_f64())
        .unwrap_or(f64::NAN);
    (p.goodput_bps / c.goodput_bps, score)
}

const CLASSIC: [&str; 3] = [
    r#"queue = { kind = "pie", ecn = true }"#,
    r#"queue = { kind = "codel", ecn = true }"#,
    r#"queue = { kind = "red", ecn = true, limit = "400p", min_th = 20, max_th = 60 }"#,
];

/// Without the fall-back Prague takes 9.5-13.0x CUBIC's goodput on these six networks, with
/// it 0.93-1.26x, the score at its ceiling (docs/models/prague.md; AccECN, the linux preset's
/// default for Prague).
#[test]
fn behind_classic_ecn_aqms_the_fallback_evens_the_shares() {
    for queue in CLASSIC {
        for (rate, delay) in [(40, 5), (20, 20)] {
            let case = format!("{queue}, {rate} Mbit/s, {delay} ms");
            let off = run_text(&scenario(queue, rate, delay, "off"), 1);
            let detect = run_text(&scenario(queue, rate, delay, "detect"), 1);
            let (r_off, _) = share(&off);
            let (r_detect, s_detect) = share(&detect);
            assert_eq!(r_off, r_detect, "{case}: detection alone changes nothing");
            assert!(s_detect > 9.0, "{case}: classic score {s_detect}");
            assert!(
                r_off > 5.0,
                "{case}: Prague/CUBIC without fall-back {r_off:.2}"
            );
            let (r_on, _) = share(&run_text(&scenario(queue, rate, delay, "fallback"), 1));
            // docs/validation.md's table: `-- --nocapture` prints it
            eprintln!("{case}: Prague/CUBIC {r_off:.2} without fall-back, {r_on:.2} with");
            assert!(
                (0.6..1.7).contains(&r_on),
                "{case}: Prague/CUBIC with fall-back {r_on:.2} (without {r_off:.2})"
            );
        }
    }
}

#[test]
fn behind_dualpi2_from_40_mbps_the_score_stays_at_its_floor() {
    for (rate, delay) in [(40, 5), (40, 20), (100, 5), (100, 20)] {
        let case = format!("{rate} Mbit/s, {delay} ms");
        let q = r#"queue = { kind = "dualpi2" }"#;
        let (r_detect, s_detect) = share(&run_text(&scenario(q, rate, delay, "detect"), 1));
        let (r_on, s_on) = share(&run_text(&scenario(q, rate, delay, "fallback"), 1));
        assert_eq!((s_detect, s_on), (0.0, 0.0), "{case}");
        assert_eq!(r_detect, r_on, "{case}: the fall-back never engaged");
    }
}

/// At 10 Mbit/s one packet's serialisation (1.2 ms) is above V0 = 750 us, so the RTT of an
/// L4S queue holding a packet or two already varies as a classic queue's would: behind Linux's
/// 1 ms step the detector (with Linux's constants) takes DualPI2's L queue for classic. Behind
/// RFC 9332's 2-MTU floor (2.42 ms) it did so only while the receivers held their ACKs by a
/// fixed 40 ms timer (`linux_ack_policy = false`: score 17); with Linux's ACK policy (quick
/// ACKs, a CE change acknowledged at once) the score stays at 0 (docs/models/prague.md).
#[test]
fn at_10_mbps_the_detector_takes_dualpi2_for_classic() {
    let fixed_acks = |text: String| {
        text.replace(
            r#"prague_ecn_fallback = "detect""#,
            r#"prague_ecn_fallback = "detect", linux_ack_policy = false"#,
        )
        .replace(
            r#"cc = "cubic", ecn = true }"#,
            r#"cc = "cubic", ecn = true, linux_ack_policy = false }"#,
        )
    };
    for delay in [5, 20] {
        let q = r#"queue = { kind = "dualpi2" }"#;
        let (_, score) = share(&run_text(&scenario(q, 10, delay, "detect"), 1));
        assert!(
            score > 8.0,
            "10 Mbit/s, {delay} ms, 1 ms step: score {score}"
        );
        let q = r#"queue = { kind = "dualpi2", step_thresh = "2.42ms" }"#;
        let linux = scenario(q, 10, delay, "detect");
        let fixed = fixed_acks(linux.clone());
        assert_eq!(fixed.matches("linux_ack_policy = false").count(), 2);
        let (_, on) = share(&run_text(&linux, 1));
        let (_, off) = share(&run_text(&fixed, 1));
        assert!(
            on < 1.0 && off > 8.0,
            "10 Mbit/s, {delay} ms, 2-MTU step: score {on} (Linux's ACKs), {off} (fixed timer)"
        );
    }
}
