//! Flow completion times (`monitor/fct.rs`) on an idle path against an independent
//! calculation written from the model's rules, and the slowdown never below 1.
//!
//! The path: host `a` -- 100 Mbit/s, 1 ms -- router `r` -- 10 Mbit/s, 5 ms -- host `b`,
//! queues far larger than any window. The flow is the `ns2` preset's one-way Reno agent
//! (docs/models/tcp.md, ns-2.35 tcp.cc / tcp-reno.cc): a 40-byte opening packet sent alone,
//! acknowledged by a 40-byte ACK; then `windowInit_` 2 segments; no delayed ACK (TCPSink ACKs
//! every packet at once); slow start opens the window by one segment per ACK (`opencwnd`),
//! and with `window` and `initial_ssthresh` beyond the transfer it never leaves slow start,
//! so after k ACKs segments up to 2 + 2k may be out. A segment is its payload (1000 bytes,
//! the last one what is left) plus a 40-byte header; without the opening packet (`handshake =
//! false`) ns-2's packet 0 is the first data segment, sent without its header. Each hop serialises a packet when the
//! packet has arrived and the packet ahead has left (FIFO), then it propagates.

mod common;
use common::run_text;

const R1: f64 = 100e6;
const D1: f64 = 1e-3;
const R2: f64 = 10e6;
const D2: f64 = 5e-3;
const HDR: u64 = 40;
const ACK: u64 = 40;
const MSS: u64 = 1000;

fn scenario(size: &str, handshake: bool) -> String {
    format!(
        r#"name = "fct-idle"
duration = "30s"
[topology]
kind = "custom"
nodes = ["a", "r", "b"]
[links.l1]
between = ["a", "r"]
rate = "100Mbps"
delay = "1ms"
queue = {{ kind = "droptail", limit = "100000p" }}
[links.l2]
between = ["r", "b"]
rate = "10Mbps"
delay = "5ms"
queue = {{ kind = "droptail", limit = "100000p" }}
[[flows]]
name = "t"
src = "a"
dst = "b"
start = "1s"
app = {{ kind = "transfer", size = "{size}" }}
tcp = {{ preset = "ns2", window = "100000p", initial_ssthresh = "100000p", handshake = {handshake} }}
"#
    )
}

/// One FIFO hop: a packet of `bytes` ready at `ready` leaves the far end at the returned time.
struct Hop {
    rate: f64,
    delay: f64,
    free: f64,
}

impl Hop {
    fn new(rate: f64, delay: f64) -> Hop {
        Hop {
            rate,
            delay,
            free: 0.0,
        }
    }
    fn pass(&mut self, ready: f64, bytes: u64) -> f64 {
        let start = ready.max(self.free);
        self.free = start + bytes as f64 * 8.0 / self.rate;
        self.free + self.delay
    }
}

/// The FCT of `size` bytes from the rules in the module doc.
fn expected_fct(size: u64, handshake: bool) -> f64 {
    let (mut f1, mut f2) = (Hop::new(R1, D1), Hop::new(R2, D2));
    let (mut b2, mut b1) = (Hop::new(R2, D2), Hop::new(R1, D1));
    // the opening packet and its ACK
    let t0 = if handshake {
        let at_b = f2.pass(f1.pass(0.0, HDR), HDR);
        b1.pass(b2.pass(at_b, ACK), ACK)
    } else {
        0.0
    };
    let n = size.div_ceil(MSS);
    // segment j = 1..n; without the opening packet, ns-2's packet 0 is data and goes without
    // its header (tcp/flavour/ns2.rs `opening_data_without_headers`)
    let wire = |j: u64| {
        let payload = (size - (j - 1) * MSS).min(MSS);
        payload + if j == 1 && !handshake { 0 } else { HDR }
    };
    let mut ack_at = vec![0.0f64; n as usize + 1]; // ack_at[k]: the ACK of segment k arrives
                                                   // segment j may leave once the ACK of segment ceil((j - 2) / 2) is in (IW 2, +1 per ACK)
    for j in 1..=n {
        let k = (j.saturating_sub(2)).div_ceil(2);
        let release = if k == 0 { t0 } else { ack_at[k as usize] };
        let at_b = f2.pass(f1.pass(release, wire(j)), wire(j));
        ack_at[j as usize] = b1.pass(b2.pass(at_b, ACK), ACK);
    }
    ack_at[n as usize]
}

#[test]
fn idle_path_fct_matches_the_calculation_and_the_slowdown_is_at_least_one() {
    for handshake in [true, false] {
        for (text, size) in [
            ("1000B", 1000u64),
            ("1500B", 1500),
            ("20500B", 20_500),
            ("150KB", 150_000),
            ("1MB", 1_000_000),
        ] {
            let r = run_text(&scenario(text, handshake), 1);
            let fct = r.fct.as_ref().expect("a transfer gives an fct section");
            let rec = &fct.flows[0];
            assert_eq!(rec.size_bytes, size);
            let got = rec.fct_s.expect("finished");
            let want = expected_fct(size, handshake);
            // whole picoseconds per serialisation in the engine, doubles here
            let tol = 1e-11 * (size / MSS + 4) as f64 * 4.0;
            assert!(
                (got - want).abs() <= tol,
                "{size} B, handshake {handshake}: measured {got} s, calculated {want} s"
            );
            assert!((rec.start_s - 1.0).abs() < 1e-12);
            // a lower bound, reached (to the rounding of whole picoseconds) by a flow that the
            // initial window sends at once without the opening packet
            let s = rec.slowdown.unwrap();
            assert!(
                s >= 1.0 - 1e-9,
                "{size} B, handshake {handshake}: slowdown {s}"
            );
            if size.div_ceil(MSS) <= 2 && !handshake {
                assert!((s - 1.0).abs() < 1e-9, "{s}");
            } else {
                assert!(s > 1.0, "{size} B, handshake {handshake}: slowdown {s}");
            }
            // the ideal: every byte at 10 Mbit/s after the first packet at 100 Mbit/s, 12 ms
            // of propagation, the 40-byte ACK on both hops
            let n = size.div_ceil(MSS);
            let bare = if handshake { 0 } else { HDR };
            let first = (size.min(MSS) + HDR - bare) as f64 * 8.0 / R1;
            let all = (size + n * HDR - bare) as f64 * 8.0 / R2;
            let ideal = first + all + 2.0 * (D1 + D2) + ACK as f64 * 8.0 * (1.0 / R1 + 1.0 / R2);
            assert!(
                (rec.ideal_fct_s - ideal).abs() < 1e-12,
                "{} {ideal}",
                rec.ideal_fct_s
            );
        }
    }
}

#[test]
fn buckets_count_the_flows_by_size() {
    let text = scenario("150KB", true).replace(
        "[[flows]]",
        "[fct]\nbuckets = [\"10KB\", \"100KB\"]\n[[flows]]",
    ) + r#"[[flows]]
name = "small"
src = "a"
dst = "b"
start = "2s"
app = { kind = "transfer", size = "5KB" }
tcp = { preset = "ns2" }
"#;
    let r = run_text(&text, 1);
    let fct = r.fct.unwrap();
    let labels: Vec<&str> = fct.buckets.iter().map(|b| b.bucket.as_str()).collect();
    assert_eq!(labels, ["<10KB", "10KB-100KB", ">100KB", "all"]);
    let counts: Vec<usize> = fct.buckets.iter().map(|b| b.count).collect();
    assert_eq!(counts, [1, 0, 1, 2]);
    assert!(fct.buckets[0].slowdown_p99.unwrap() >= 1.0);
}

#[test]
fn a_scenario_without_transfers_has_no_fct_section_and_bad_edges_are_refused() {
    let bulk = scenario("1KB", true).replace(
        r#"app = { kind = "transfer", size = "1KB" }"#,
        r#"app = { kind = "bulk" }"#,
    );
    assert!(run_text(&bulk, 1).fct.is_none());
    let bad = scenario("1KB", true).replace(
        "[[flows]]",
        "[fct]\nbuckets = [\"1MB\", \"1KB\"]\n[[flows]]",
    );
    let e = common::run_err(&bad, &[]);
    assert!(e.contains("fct.buckets") && e.contains("increasing"), "{e}");
}
