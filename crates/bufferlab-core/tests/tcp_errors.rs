//! Bad TCP settings are answered with a message naming the field.

use bufferlab_core::api::{run, Error, RunRequest};

fn err(flow: &str, extra: &str) -> String {
    let text = format!(
        r#"
duration = "1s"
[topology]
kind = "dumbbell"
pairs = 1
[links.access]
rate = "10Mbps"
delay = "1ms"
[links.bottleneck]
rate = "1Mbps"
delay = "10ms"
[[flows]]
name = "f"
src = "s0"
dst = "d0"
{flow}
{extra}
"#
    );
    match run(&RunRequest {
        text: &text,
        ..RunRequest::default()
    }) {
        Err(Error::Scenario(m)) => m,
        other => panic!("expected a scenario error, got {other:?}"),
    }
}

// ---- messages name the field ----
#[test]
fn bad_tcp_settings_name_their_field() {
    let m = err(
        r#"app = { kind = "bulk" }
tcp = { iw = 0 }"#,
        "",
    );
    assert!(
        m.contains("flows[0].tcp.iw") && m.contains("at least 1"),
        "{m}"
    );

    let m = err(
        r#"app = { kind = "bulk" }
tcp = { windw = "20p" }"#,
        "",
    );
    assert!(
        m.contains("windw") && m.contains("window"),
        "unknown key and the known ones: {m}"
    );

    let m = err(
        r#"app = { kind = "cbr", rate = "1Mbps" }
tcp = { iw = 4 }"#,
        "",
    );
    assert!(m.contains("flows[0].tcp") && m.contains("UDP"), "{m}");

    let m = err(
        r#"protocol = "udp"
app = { kind = "bulk" }"#,
        "",
    );
    assert!(m.contains("flows[0].protocol") && m.contains("tcp"), "{m}");

    let m = err(r#"app = { kind = "transfer", size = "0B" }"#, "");
    assert!(m.contains("flows[0].app.size"), "{m}");

    let m = err(
        r#"app = { kind = "bulk" }"#,
        "[monitor]\ncwnd_interval = \"100ms\"\ncwnd_flows = [\"nope\"]",
    );
    assert!(
        m.contains("monitor.cwnd_flows[0]") && m.contains("nope"),
        "{m}"
    );

    let m = err(
        r#"app = { kind = "bulk" }
tcp = { mss = "2000B" }"#,
        "[links.bottleneck.queue]\nkind = \"droptail\"\nlimit = \"1500B\"",
    );
    assert!(
        m.contains("2040-byte packet"),
        "the segment on the wire must fit: {m}"
    );
}

// ---- pacing ratios (tcp/pacing.rs) ----
#[test]
fn bad_pacing_ratio_names_its_field() {
    let m = err(
        r#"app = { kind = "bulk" }
tcp = { preset = "linux", pacing = true, pacing_ca_ratio = 0 }"#,
        "",
    );
    assert!(
        m.contains("flows[0].tcp.pacing_ca_ratio") && m.contains("positive percentage"),
        "{m}"
    );
    let m = err(
        r#"app = { kind = "bulk" }
tcp = { cc = "bbrr" }"#,
        "",
    );
    assert!(m.contains("bbr"), "the known controllers are listed: {m}");
}

// ---- Prague's small-window mode (tcp/cc/prague_rate.rs) ----
#[test]
fn bad_prague_cwnd_mode_names_its_field_and_the_choices() {
    let m = err(
        r#"app = { kind = "bulk" }
tcp = { preset = "linux", cc = "prague", ecn = true, prague_cwnd_mode = "rated" }"#,
        "",
    );
    assert!(
        m.contains("flows[0].tcp.prague_cwnd_mode") && m.contains("window") && m.contains("switch"),
        "{m}"
    );
    let m = err(
        r#"app = { kind = "bulk" }
tcp = { preset = "linux", cc = "cubic", prague_cwnd_mode = "switch" }"#,
        "",
    );
    assert!(
        m.contains("flows[0].tcp.prague_cwnd_mode") && m.contains("set cc = \"prague\""),
        "{m}"
    );
}
