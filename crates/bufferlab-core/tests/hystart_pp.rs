//! HyStart++ (RFC 9406; tcp/cc/hystart_pp.rs, `slow_start = "hystart++"`) on a network:
//! one bulk flow of the `linux` preset alone on a 100 Mbit/s DropTail dumbbell with a large
//! buffer (bench/slow_start_compare.py runs the whole table). What the RFC says it is for:
//! fewer losses at the end of slow start than slow start until the first loss (section 1),
//! the delay rise of a round ending slow start and CSS then reaching congestion avoidance
//! without a loss when the buffer holds the growth (section 4.2); and what it must not change:
//! a flow without the option runs as before (no HyStart++ counters in its report).

mod common;
use common::{queue, run_text, Dumbbell};

/// One flow, bottleneck one-way delay `delay`, buffer `limit`, for `secs` seconds.
fn scenario(delay: &str, limit: u64, tcp: &str, secs: u32) -> String {
    Dumbbell::new(1)
        .duration(&format!("{secs}s"))
        .access("1Gbps", "1ms")
        .access_queue(r#"{ kind = "droptail", limit = "10000p" }"#)
        .bottleneck("100Mbps", delay)
        .queue(&format!(r#"{{ kind = "droptail", limit = "{limit}p" }}"#))
        .flow(&format!(
            "name = \"f0\"\nsrc = \"s0\"\ndst = \"d0\"\napp = {{ kind = \"bulk\" }}\ntcp = {tcp}"
        ))
        .toml()
}

/// The bottleneck's drops and the flow's `cc_state`.
fn outcome(delay: &str, limit: u64, tcp: &str, secs: u32) -> (u64, serde_json::Value) {
    let r = run_text(&scenario(delay, limit, tcp, secs), 1);
    let drops = queue(&r, "bottleneck", "r0").drops;
    let t = r.flows[0].tcp_json().expect("a TCP flow");
    (drops, t["cc_state"].clone())
}

#[test]
fn hystart_pp_drops_fewer_packets_than_slow_start_to_the_first_loss() {
    // 40 ms base RTT, 4 BDP of buffer (1333 packets of 1500 B). Linux Reno grows by the
    // segments acked in both (tcp_slow_start; HyStart++'s L = 8 does the same with delayed
    // ACKs), so only the exit differs. Measured: 1230 drops without, 417 with.
    let tcp =
        |ss: &str| format!(r#"{{ preset = "linux", cc = "linux_reno", slow_start = "{ss}" }}"#);
    let (plain, st) = outcome("18ms", 1333, &tcp("rfc5681"), 5);
    assert!(st.get("hystart_pp_css_entries").is_none(), "{st}");
    let (hspp, st) = outcome("18ms", 1333, &tcp("hystart++"), 5);
    assert_eq!(st["hystart_pp_css_entries"], 1, "{st}");
    assert!(
        hspp * 2 < plain,
        "HyStart++ {hspp} drops, slow start to the first loss {plain}"
    );
}

#[test]
fn css_reaches_congestion_avoidance_without_a_loss_when_the_buffer_holds_it() {
    // 100 ms base RTT and 4 BDP (3333 packets): the delay rise enters CSS, whose five rounds
    // at a quarter of the growth end in congestion avoidance (ssthresh = cwnd) before the
    // buffer fills.
    let tcp = r#"{ preset = "linux", slow_start = "hystart++" }"#;
    let (drops, st) = outcome("48ms", 3333, tcp, 5);
    assert_eq!(drops, 0);
    assert_eq!(st["hystart_pp_css_entries"], 1, "{st}");
    assert_eq!(st["hystart_pp_avoidance_entries"], 1, "{st}");
    assert_eq!(st["hystart_pp_css_resumes"], 0, "{st}");
}

#[test]
fn the_linux_preset_keeps_classic_hystart_and_reports_as_before() {
    // tcp_cubic.c's HyStart (the preset's default) exits before the queue overflows; the
    // report has its counter and none of HyStart++'s.
    let (drops, st) = outcome("18ms", 333, r#"{ preset = "linux" }"#, 5);
    assert_eq!(drops, 0);
    assert_eq!(st["hystart_exits"], 1, "{st}");
    assert!(st.get("hystart_pp_css_entries").is_none(), "{st}");
}
