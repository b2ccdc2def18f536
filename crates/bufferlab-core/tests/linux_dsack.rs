//! D-SACK and undo in the `linux` preset (`tcp/sender/dsack_undo.rs`, `tcp/rack.rs`; RFC 2883,
//! RFC 8985 section 6.2 step 4, Linux `tcp_check_dsack`, `tcp_rack_update_reo_wnd`,
//! `tcp_try_undo_*`) end to end, where reordering is the rule: a leaf-spine fabric that sprays
//! every packet over four spines (ns-3's `RandomEcmpRouting`, `multipath = "random_packet"`),
//! 24 transfers of 2 MB from leaf 0, against the same preset with `dsack` off.

mod common;
use common::run_text;

/// examples/datacenter/leaf_spine_ecmp.toml with per-packet spraying, every flow's TCP `tcp`.
fn sprayed(tcp: &str) -> String {
    let mut flows = String::new();
    for leaf in 1..=3 {
        flows += &format!(
            r#"
[[flows]]
name = "to_leaf{leaf}_{{i}}"
count = 8
src = "h0_{{i}}"
dst = "h{leaf}_{{i}}"
app = {{ kind = "transfer", size = "2MB" }}
tcp = {tcp}
"#
        );
    }
    let leaves: String = (0..4)
        .map(|l| {
            format!(
                "[switches.leaf{l}]\nbuffer = \"4MB\"\npolicy = \"dynamic_threshold\"\nalpha = 1.0\n"
            )
        })
        .collect();
    format!(
        r#"duration = "100ms"
routing = {{ multipath = "random_packet" }}
[topology]
kind = "leaf_spine"
leaves = 4
spines = 4
hosts_per_leaf = 8
[links.host]
rate = "10Gbps"
delay = "1us"
queue = {{ kind = "droptail", limit = "200p" }}
[links.fabric]
rate = "10Gbps"
delay = "1us"
queue = {{ kind = "droptail", limit = "200p" }}
{leaves}{flows}"#
    )
}

/// Summed over the flows: retransmitted segments, fast recoveries, D-SACKs taken, undos by
/// D-SACK, the mean `reo_wnd_steps`; and the median completion time in ms.
struct Totals {
    retx: u64,
    recoveries: u64,
    dsacks: u64,
    dsack_undos: u64,
    mean_steps: f64,
    median_fct_ms: f64,
}

fn totals(tcp: &str, seed: u64) -> Totals {
    let r = run_text(&sprayed(tcp), seed);
    let mut t = Totals {
        retx: 0,
        recoveries: 0,
        dsacks: 0,
        dsack_undos: 0,
        mean_steps: 0.0,
        median_fct_ms: 0.0,
    };
    let mut fct = Vec::new();
    for f in &r.flows {
        let tcp = f.tcp_json().expect("TCP flows");
        let n = |v: &serde_json::Value| v.as_u64().unwrap();
        t.retx += n(&tcp["retransmitted_segments"]);
        t.recoveries += n(&tcp["fast_retransmits"]);
        assert_eq!(n(&tcp["timeouts"]), 0, "{tcp}");
        let rack = &tcp["rack"];
        t.dsacks += n(&rack["dsacks_received"]);
        t.dsack_undos += n(&rack["dsack_undos"]);
        t.mean_steps += n(&rack["reo_wnd_steps"]) as f64;
        fct.push(
            tcp["completion_time_s"]
                .as_f64()
                .expect("every transfer completes")
                * 1e3,
        );
    }
    t.mean_steps /= r.flows.len() as f64;
    fct.sort_by(f64::total_cmp);
    t.median_fct_ms = fct[fct.len() / 2];
    t
}

/// The fabric drops nothing, so every retransmission is spurious and reported as a duplicate;
/// the D-SACKs widen RACK's reordering window (a step a round) and undo the reductions, so far
/// fewer recoveries start and the transfers finish sooner than with `dsack` off (where only
/// the timestamps' undo is left). Measured (seeds 1-3): 721-815 recoveries against
/// 2966-3061, median completion 10.51-10.66 ms against 11.75-11.89 ms.
#[test]
fn dsack_widens_the_reordering_window_and_undoes_spurious_recoveries() {
    for seed in [1, 2] {
        let on = totals(r#"{ preset = "linux" }"#, seed);
        let off = totals(r#"{ preset = "linux", dsack = false }"#, seed);
        assert!(
            on.retx > 1000,
            "reordering makes retransmissions: {}",
            on.retx
        );
        assert_eq!(on.dsacks, on.retx, "every retransmission arrived twice");
        assert!(on.dsack_undos > 100, "{}", on.dsack_undos);
        assert!(on.mean_steps > 4.0, "reo_wnd_steps {}", on.mean_steps);
        assert_eq!((off.dsacks, off.mean_steps), (0, 1.0));
        assert!(
            2 * on.recoveries < off.recoveries,
            "recoveries {} vs {}",
            on.recoveries,
            off.recoveries
        );
        assert!(
            on.median_fct_ms < 0.95 * off.median_fct_ms,
            "median completion {:.2} vs {:.2} ms",
            on.median_fct_ms,
            off.median_fct_ms
        );
    }
}

/// 20 bulk flows through a 10 Mbit/s, 20 ms bottleneck with a 10-packet DropTail queue: windows
/// of a few segments, and hundreds of timeouts. After a timeout Linux keeps the SACK scoreboard
/// and resends only what it does not hold (`tcp_timeout_mark_lost`, the rule
/// `timeout_keeps_sack`), so the receiver reports almost no duplicate: before the rule the
/// sender went back N and resent SACKed data, which came back as D-SACKs (measured here: 334
/// timeouts, 3 358 retransmissions, 0 D-SACKs).
#[test]
fn after_a_timeout_sacked_data_is_not_sent_again() {
    let mut text = String::from(
        r#"duration = "30s"
[topology]
kind = "dumbbell"
pairs = 20
[links.access]
rate = "100Mbps"
delay = "1ms"
queue = { kind = "droptail", limit = "1000p" }
[links.bottleneck]
rate = "10Mbps"
delay = "20ms"
queue = { kind = "droptail", limit = "10p" }
"#,
    );
    for i in 0..20 {
        text += &format!(
            "[[flows]]\nname = \"f{i}\"\nsrc = \"s{i}\"\ndst = \"d{i}\"\napp = {{ kind = \"bulk\" }}\n\
             start = \"{}ms\"\ntcp = {{ preset = \"linux\" }}\n",
            10 * i
        );
    }
    let r = run_text(&text, 1);
    let (mut timeouts, mut retx, mut dsacks) = (0, 0, 0);
    for f in &r.flows {
        let tcp = f.tcp_json().expect("TCP flows");
        timeouts += tcp["timeouts"].as_u64().unwrap();
        retx += tcp["retransmitted_segments"].as_u64().unwrap();
        dsacks += tcp["rack"]["dsacks_received"].as_u64().unwrap();
    }
    assert!(
        timeouts > 100,
        "the Loss state is exercised: {timeouts} timeouts"
    );
    assert!(
        dsacks * 100 < retx,
        "{dsacks} of {retx} retransmissions arrived twice"
    );
}
