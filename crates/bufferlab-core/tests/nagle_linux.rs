//! Nagle as Linux applies it (`tcp/flavour/linux.rs`, rule `nagle_minshall`; Linux
//! `net/ipv4/tcp_output.c` `tcp_nagle_test`): the segment that carries the FIN is never held.
//! A transfer of one full segment and 100 bytes over an idle path: the small last segment goes
//! at once behind the first. Under RFC 1122's rule (no preset, the RFC flavour, with `nagle`) it waits
//! for the first segment's ACK, which the receiver delays (40 ms, Linux's TCP_DELACK_MIN) for
//! a lone segment.

mod common;
use common::run_text;

fn fct_ms(tcp: &str) -> f64 {
    let text = format!(
        r#"name = "nagle"
duration = "2s"
[topology]
kind = "custom"
nodes = ["a", "r", "b"]
[links.l1]
between = ["a", "r"]
rate = "100Mbps"
delay = "1ms"
[links.l2]
between = ["r", "b"]
rate = "10Mbps"
delay = "5ms"
[[flows]]
name = "t"
src = "a"
dst = "b"
start = "100ms"
app = {{ kind = "transfer", size = "1548B" }}
tcp = {tcp}
"#
    );
    let r = run_text(&text, 1);
    let f = r.flows.iter().find(|f| f.name == "t").expect("flow t");
    let tcp: serde_json::Value =
        serde_json::from_str(f.tcp.as_ref().expect("a TCP flow").get()).expect("JSON");
    tcp["completion_time_s"]
        .as_f64()
        .expect("the transfer completes")
        * 1e3
}

#[test]
fn linux_sends_the_fin_segment_at_once() {
    // base RTT 12 ms: the handshake's round trip, then the data's, plus serialisation
    let linux = fct_ms(r#"{ preset = "linux", mss = 1448 }"#);
    assert!(linux < 30.0, "linux preset: FCT {linux:.2} ms");
    // RFC 1122's Nagle with the same delayed ACK: the small segment waits for the ACK of the
    // first, which the receiver holds for 40 ms
    let rfc = fct_ms(
        r#"{ mss = 1448, nagle = true, delayed_ack = true, delack_count = 2, delack_timeout = "40ms" }"#,
    );
    assert!(
        rfc > linux + 35.0,
        "rfc Nagle: FCT {rfc:.2} ms against linux {linux:.2} ms"
    );
    eprintln!("FCT of 1 MSS + 100 B: linux {linux:.2} ms, RFC 1122 Nagle {rfc:.2} ms");
}
