//! When a Linux receiver acknowledges (`tcp/linux_ack.rs`, the `linux` preset's rule
//! `linux_ack_policy`; Linux 6.x `tcp_event_data_recv`, `__tcp_ack_snd_check`,
//! `tcp_send_delayed_ack`, `tcp_delack_timer_handler`), end to end on paths of our own, against
//! the same preset with the option off (an ACK every second segment or after 40 ms).

mod common;
use common::{run_text, Dumbbell};

/// One flow over a 10 Mbit/s bottleneck with `delay` each way (100 Mbit/s, 1 ms access links,
/// 100-packet DropTail queues), the linux preset with `app` and `linux_ack_policy` as given.
fn scenario(app: &str, delay: &str, duration: &str, policy: bool) -> String {
    let protocol = if app.contains("cbr") {
        "protocol = \"tcp\"\n"
    } else {
        ""
    };
    Dumbbell::new(1)
        .duration(duration)
        .access("100Mbps", "1ms")
        .access_queue(r#"{ kind = "droptail", limit = "100p" }"#)
        .bottleneck("10Mbps", delay)
        .queue(r#"{ kind = "droptail", limit = "100p" }"#)
        .flow(&format!(
            r#"name = "f"
src = "s0"
dst = "d0"
{protocol}app = {app}
tcp = {{ preset = "linux", linux_ack_policy = {policy} }}"#
        ))
        .toml()
}

/// (segments sent, ACKs received, mean RTT sample in s) of the flow.
fn counts(text: &str) -> (u64, u64, f64) {
    let r = run_text(text, 1);
    let tcp = r.flows[0].tcp_json().expect("a TCP flow");
    let n = |k: &str| tcp[k].as_u64().unwrap();
    (
        n("segments_sent"),
        n("acks_received"),
        tcp["rtt_mean_s"].as_f64().unwrap(),
    )
}

/// A transfer of 32 full segments without loss: quick-ACK mode answers the first 16 one by
/// one, the other 16 go in pairs (the last carries the FIN): 16 + 8 ACKs and the SYN-ACK.
/// With the option off the pairs start at once (and a flight's odd segment waits 40 ms).
#[test]
fn the_first_sixteen_segments_are_acknowledged_one_by_one() {
    let app = r#"{ kind = "transfer", size = "46336B" }"#;
    let (segs, acks, _) = counts(&scenario(app, "20ms", "5s", true));
    assert_eq!(segs, 32);
    assert_eq!(acks, 1 + 16 + 8);
    let (segs, acks, _) = counts(&scenario(app, "20ms", "5s", false));
    assert_eq!(segs, 32);
    assert!(acks < 1 + 16 + 4, "fixed rule: {acks} ACKs");
}

/// One segment every 100 ms on a path of about 300 ms RTT. With a fixed 40 ms timer every
/// segment is acknowledged alone. Linux's `ato` grows with the timer's misses (doubling, then
/// `ato / 2 + gap`), bounded by the handshake's RTT, past the 100 ms gap, so after the 16
/// quick ACKs the receiver acknowledges every second segment, the first of each pair held
/// about 100 ms: half the ACKs, and RTT samples longer by about half that on average.
#[test]
fn a_slow_flow_on_a_long_path_is_acknowledged_every_second_segment() {
    let app = r#"{ kind = "cbr", rate = "115840bps", packet_size = "1448B" }"#;
    let (segs, acks, rtt) = counts(&scenario(app, "148ms", "60s", true));
    let (segs_off, acks_off, rtt_off) = counts(&scenario(app, "148ms", "60s", false));
    assert_eq!(segs, segs_off);
    assert!(segs >= 590, "{segs} segments");
    assert_eq!(acks, 16 + (segs - 16) / 2, "{segs} segments, {acks} ACKs");
    assert!(
        acks_off + 8 > segs,
        "{segs} segments, {acks_off} ACKs with the fixed rule"
    );
    assert!(
        (0.03..0.08).contains(&(rtt - rtt_off)),
        "mean RTT {rtt:.4} s against {rtt_off:.4} s"
    );
}

/// The option is the linux preset's: the other presets refuse it, with the fix.
#[test]
fn other_presets_refuse_the_option() {
    let text = scenario(r#"{ kind = "bulk" }"#, "10ms", "1s", true)
        .replace(r#"preset = "linux""#, r#"preset = "ns3""#);
    let err = common::run_err(&text, &[]);
    assert!(
        err.contains("linux_ack_policy") && err.contains(r#"preset = "linux""#),
        "{err}"
    );
}
