//! Accurate ECN feedback (RFC 9768; Linux 6.18 `tcp_accecn_*`; `tcp/accecn.rs`) on networks of
//! our own, against what the queue did:
//!
//! * with ACKs lost on the way back (20 % and 40 %; delayed ACKs, one per two segments), the
//!   CE-marked packets the sender counts from the ACE field and the AccECN option equal the
//!   packets the bottleneck marked (measured: 4212 of 4215, 3768 of 3768), where with the
//!   classic per-segment ECE echo (RFC 8257 section 3.2) an ACK that survives stands for the
//!   lost ones before it with its own CE state: +3.2 % and +7.4 % net (the errors go both
//!   ways and partly cancel);
//! * Prague's alpha, fed with those counts, follows the marking fraction of a step AQM;
//! * Prague and CUBIC over DualPI2 at 10 and 40 Mbit/s, with and without AccECN.

mod common;
use bufferlab_core::report::Report;
use common::{flow, queue, run_err, run_text, simulate};

/// One bulk flow through a 20 Mbit/s, 5 ms bottleneck with RED step marking at K = 10
/// packets (as examples/dctcp_red_step.toml) and `ack_loss` random loss on the way back.
fn step(cc: &str, feedback: &str, ack_loss: f64) -> String {
    format!(
        r#"name = "accecn-step"
duration = "20s"
seed = 1
[topology]
kind = "dumbbell"
pairs = 1
[links.access]
rate = "1Gbps"
delay = "1ms"
queue = {{ kind = "droptail", limit = "1000p" }}
[links.bottleneck]
rate = "20Mbps"
delay = "5ms"
queue = {{ kind = "red", preset = "ns3", limit = "200p", min_th = 10, max_th = 10, q_weight = 1.0, gentle = false, ecn = true, hard_drop = false, mean_pktsize = "1500B" }}
reverse_loss = {{ kind = "bernoulli", rate = {ack_loss} }}
[[flows]]
name = "f"
src = "s0"
dst = "d0"
app = {{ kind = "bulk" }}
tcp = {{ preset = "linux", cc = "{cc}", ecn = true, ecn_feedback = "{feedback}" }}
"#
    )
}

fn tcp_json(r: &Report, name: &str) -> serde_json::Value {
    serde_json::from_str(flow(r, name).tcp.as_ref().expect("a TCP flow").get()).expect("JSON")
}

/// The CE-marked bytes the sender handed its controller, over its MSS: marked packets as
/// the sender counted them.
fn counted_marks(text: &str) -> (f64, u64, u64) {
    let sim = simulate(text, 1);
    let f = &sim.flows[0];
    let ep = &sim.agents[f.sender.0 as usize].ep;
    let bytes = ep.probe_at("ecn_marked_bytes", sim.now).expect("probe");
    let r = run_text(text, 1);
    let q = queue(&r, "bottleneck", "r0");
    let mss = tcp_json(&r, "f")["mss"].as_f64().unwrap();
    (bytes / mss, q.marks, q.arrivals)
}

// ---- ACK loss: AccECN counts the queue's marks; the classic echo does not ----
#[test]
fn with_ack_loss_accecn_counts_the_marks_the_queue_made() {
    for loss in [0.0, 0.2, 0.4] {
        let (acc, marks, _) = counted_marks(&step("dctcp", "accecn", loss));
        let (classic, cmarks, _) = counted_marks(&step("dctcp", "classic", loss));
        let acc_err = (acc - marks as f64) / marks as f64;
        let classic_err = (classic - cmarks as f64) / cmarks as f64;
        println!(
            "ack loss {loss}: accecn {acc:.0} of {marks} marks ({:+.2} %), classic {classic:.0} of \
             {cmarks} ({:+.2} %)",
            100.0 * acc_err,
            100.0 * classic_err
        );
        assert!(marks > 1000, "the step marks: {marks}");
        // the marks of the last flight may not be acknowledged yet
        assert!(
            (acc - marks as f64).abs() <= 20.0,
            "loss {loss}: AccECN counted {acc} of {marks} marks"
        );
        if loss >= 0.4 {
            assert!(
                classic_err.abs() > 0.02,
                "loss {loss}: the classic echo counted {classic} of {cmarks}: as exact?"
            );
        }
    }
}

// ---- Prague's alpha follows the step's marking fraction ----
#[test]
fn prague_alpha_follows_the_marking_fraction() {
    for feedback in ["accecn", "classic"] {
        let r = run_text(&step("prague", feedback, 0.0), 1);
        let q = queue(&r, "bottleneck", "r0");
        let frac = q.marks as f64 / q.arrivals as f64;
        let alpha = tcp_json(&r, "f")["cc_state"]["alpha"].as_f64().unwrap();
        println!("{feedback}: alpha {alpha:.3}, marked fraction {frac:.3}");
        assert!(
            (alpha - frac).abs() < 0.5 * frac + 0.02,
            "{feedback}: alpha {alpha:.3} against the marked fraction {frac:.3}"
        );
    }
}

/// examples/l4s_dualpi2.toml at `rate` Mbit/s, Prague with `feedback`.
fn dualpi2(rate: u32, feedback: &str) -> String {
    let text = include_str!("../../../examples/l4s_dualpi2.toml")
        .replace(r#"rate = "40Mbps""#, &format!(r#"rate = "{rate}Mbps""#))
        .replace(
            r#"cc = "prague", ecn = true"#,
            &format!(r#"cc = "prague", ecn = true, ecn_feedback = "{feedback}""#),
        );
    assert!(text.contains("ecn_feedback"));
    text
}

// ---- DualPI2: Prague and CUBIC, with and without AccECN ----
/// At 40 Mbit/s the two share the link (Prague / CUBIC within (0.25, 4)). At 10 Mbit/s, behind
/// Linux's 1 ms step, Prague gets the smaller share with either feedback (the low-rate regime
/// of docs/validation.md, "L4S at low rates": 0.25 with the classic echo, 0.22 with AccECN
/// since the receivers acknowledge as Linux does, `linux_ack_policy`); there AccECN must not
/// change the share by more than a third.
#[test]
fn dualpi2_prague_and_cubic_with_and_without_accecn() {
    for rate in [10, 40] {
        let mut shares = Vec::new();
        for feedback in ["classic", "accecn"] {
            let r = run_text(&dualpi2(rate, feedback), 1);
            let p = flow(&r, "prague").goodput_bps / 1e6;
            let c = flow(&r, "cubic").goodput_bps / 1e6;
            println!("{rate} Mbit/s, {feedback}: Prague {p:.2}, CUBIC {c:.2} Mbit/s");
            assert!(
                p + c > 0.85 * rate as f64,
                "{rate} Mbit/s {feedback}: link not full ({p:.2} + {c:.2})"
            );
            let band = if rate == 10 { 0.1..1.0 } else { 0.25..4.0 };
            assert!(
                band.contains(&(p / c)),
                "{rate} Mbit/s {feedback}: Prague/CUBIC {:.2}",
                p / c
            );
            shares.push(p / c);
        }
        let change = shares[1] / shares[0];
        assert!(
            (0.67..1.5).contains(&change),
            "{rate} Mbit/s: AccECN moves Prague/CUBIC {:.2} -> {:.2}",
            shares[0],
            shares[1]
        );
    }
}

// ---- the ACK carries the option: bigger ACKs, smaller segments ----
#[test]
fn accecn_takes_its_option_bytes_from_the_mss() {
    let r = run_text(&step("dctcp", "accecn", 0.0), 1);
    let t = tcp_json(&r, "f");
    assert_eq!(
        t["mss"],
        1448 - 12,
        "the 12-byte option comes out of the MSS"
    );
    assert_eq!(t["accecn"]["ace_wrapped"], 0, "no ACK loss, no wrap");
}

// ---- errors name the field and the fix ----
#[test]
fn accecn_needs_ecn_and_the_linux_rules() {
    let text = step("dctcp", "accecn", 0.0);
    let e = run_err(&text.replace("ecn = true, ", ""), &[]);
    assert!(
        e.contains("ecn_feedback") && e.contains("ecn = true"),
        "{e}"
    );
    let e = run_err(
        &text.replace(r#"preset = "linux""#, r#"preset = "ns3""#),
        &[],
    );
    assert!(e.contains("ecn_feedback") && e.contains("linux"), "{e}");
}
