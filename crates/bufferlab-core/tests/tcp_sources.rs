//! Packet sources over TCP (`protocol = "tcp"` on a cbr, poisson or onoff flow): each emission
//! writes `packet_size` bytes into the connection, as ns-3's OnOffApplication on a TCP socket.

mod common;

use bufferlab_core::report::Report;

fn tcp_field(r: &Report, flow: &str, key: &str) -> f64 {
    common::flow(r, flow).tcp_json().unwrap()[key]
        .as_f64()
        .unwrap_or_else(|| panic!("no tcp.{key}"))
}

#[test]
fn on_off_tcp_pauses_and_resumes_at_its_rate() {
    // 1 s on at 1 Mbit/s, 1 s off, over a 10 Mbit/s bottleneck: the application, not the
    // network, limits the flow. In 20 s there are 10 on-periods of 1 s, each writing
    // 1 Mbit/s x 1 s / (500 B x 8) = 250 writes of 500 B (the first on-period starts at 0).
    let text = common::Dumbbell::new(1)
        .duration("20s")
        .flow(
            r#"name = "onoff"
src = "s0"
dst = "d0"
protocol = "tcp"
tcp = { preset = "ns3" }
app = { kind = "onoff", rate = "1Mbps", packet_size = "500B", on_time = { kind = "constant", value = "1s" }, off_time = { kind = "constant", value = "1s" } }"#,
        )
        .monitor("cwnd_interval", "\"10ms\"")
        .toml();
    let r = common::run_text(&text, 1);
    let written = tcp_field(&r, "onoff", "app_written_bytes");
    assert!((written - 10.0 * 250.0 * 500.0).abs() <= 500.0, "{written}");
    assert_eq!(tcp_field(&r, "onoff", "app_refused_bytes"), 0.0);
    // everything written is acknowledged but what the last on-period wrote in its last RTT
    let acked = tcp_field(&r, "onoff", "bytes_acked");
    assert!(
        acked <= written && acked > written - 10_000.0,
        "{acked} of {written}"
    );
    // goodput over the run is half the on-rate, give or take the last RTT
    let g = common::flow(&r, "onoff").goodput_bps;
    assert!((g - 0.5e6).abs() < 0.02e6, "{g}");
    // the sender pauses: no segment leaves during the middle of an off-period
    // (packets go out only while the application writes, so the bottleneck idles half the time)
    let bn = r
        .links
        .iter()
        .find(|l| l.link == "bottleneck" && l.from == "r0")
        .unwrap();
    assert!(bn.utilisation < 0.06, "{}", bn.utilisation);
}

#[test]
fn a_full_send_buffer_refuses_writes() {
    // CBR at 4 Mbit/s into TCP over a 1 Mbit/s bottleneck with ns-3's 128 KiB send buffer: the
    // buffer fills, further writes fail (lost, as Socket::Send returns -1) and TCP carries
    // about the bottleneck rate.
    let text = common::Dumbbell::new(1)
        .duration("20s")
        .bottleneck("1Mbps", "10ms")
        .flow(
            r#"name = "cbr"
src = "s0"
dst = "d0"
protocol = "tcp"
tcp = { preset = "ns3" }
app = { kind = "cbr", rate = "4Mbps", packet_size = "1000B" }"#,
        )
        .toml();
    let r = common::run_text(&text, 1);
    let written = tcp_field(&r, "cbr", "app_written_bytes");
    let refused = tcp_field(&r, "cbr", "app_refused_bytes");
    // 4 Mbit/s for 20 s = 10 MB offered
    assert!(
        (written + refused - 10e6).abs() <= 1000.0,
        "{written} + {refused}"
    );
    assert!(refused > 7e6, "{refused}");
    let g = common::flow(&r, "cbr").goodput_bps;
    assert!(g > 0.85e6 && g < 1.0e6, "{g}");
    assert_eq!(common::flow(&r, "cbr").protocol, "tcp");
}

#[test]
fn protocol_and_application_must_agree() {
    let base = common::Dumbbell::new(1).duration("1s");
    let bulk_udp = base
        .clone()
        .flow("name = \"f\"\nsrc = \"s0\"\ndst = \"d0\"\nprotocol = \"udp\"\napp = { kind = \"bulk\" }")
        .toml();
    let e = common::run_err(&bulk_udp, &[]);
    assert!(
        e.contains("flows[0].protocol") && e.contains("runs over tcp"),
        "{e}"
    );
    let cbr_with_tcp_table = base
        .flow("name = \"f\"\nsrc = \"s0\"\ndst = \"d0\"\ntcp = { preset = \"ns3\" }\napp = { kind = \"cbr\", rate = \"1Mbps\" }")
        .toml();
    let e = common::run_err(&cbr_with_tcp_table, &[]);
    assert!(
        e.contains("flows[0].tcp") && e.contains("protocol = \"tcp\""),
        "{e}"
    );
}
