//! pcap files read by tshark (Debian's package; `make test` installs it): the frames and bytes
//! tshark counts on a link direction are the packets and bytes bufferlab says it sent there,
//! and `tshark -z io,stat` throughput equals bufferlab's link throughput.

mod common;
use bufferlab_core::api::{run, RunRequest};
use std::process::Command;

fn scenario() -> String {
    common::Dumbbell::new(2)
        .duration("5s")
        .bottleneck("2Mbps", "20ms")
        .queue(r#"{ kind = "droptail", limit = "20p" }"#)
        .flow(r#"name = "cbr"
src = "s0"
dst = "d0"
app = { kind = "cbr", rate = "1.5Mbps", packet_size = "1000B" }"#)
        .flow(r#"name = "poisson"
src = "s1"
dst = "d1"
app = { kind = "poisson", rate = "1Mbps", packet_size = "700B", size_distribution = "exponential" }"#)
        .toml()
}

fn tshark(args: &[&str]) -> String {
    let out = Command::new("tshark")
        .args(args)
        .output()
        .expect("tshark is needed for this test: `make system-deps` (or apt-get install tshark) installs it");
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

// ---- tshark reads the capture and counts what bufferlab sent ----
#[test]
fn tshark_counts_match_the_link() {
    let dir = std::env::temp_dir().join(format!("bufferlab-pcap-{}", std::process::id()));
    let r = run(&RunRequest {
        text: &scenario(),
        source: "t.toml",
        seed: Some(1),
        pcap_dir: Some(&dir),
        pcap_links: vec!["bottleneck".into()],
        ..Default::default()
    })
    .unwrap();
    let file = dir.join("bottleneck_r0-r1.pcap");
    assert!(file.exists());
    assert!(
        !dir.join("access_s0_s0-r0.pcap").exists(),
        "only the chosen link is captured"
    );
    let link = r
        .links
        .iter()
        .find(|l| l.link == "bottleneck" && l.from == "r0")
        .unwrap();
    let f = file.to_str().unwrap();
    // one line per frame: IP total length, protocol, ECN
    let lines = tshark(&["-r", f, "-T", "fields", "-e", "ip.len", "-e", "udp.dstport"]);
    let (frames, bytes) = lines.lines().fold((0u64, 0u64), |(n, b), l| {
        (
            n + 1,
            b + l.split('\t').next().unwrap().parse::<u64>().unwrap(),
        )
    });
    assert_eq!(frames, link.tx_packets);
    assert_eq!(bytes, link.tx_bytes);
    assert!(
        lines.lines().all(|l| l.ends_with("5001")),
        "UDP headers decode with the receiver port"
    );
    // io,stat over the whole run: SUM(ip.len) bits / 5 s is the link's throughput
    let stat = tshark(&["-q", "-r", f, "-z", "io,stat,0,SUM(ip.len)ip.len"]);
    let sum_line = stat
        .lines()
        .find(|l| l.contains("<>"))
        .expect("an io,stat row");
    let cols: Vec<&str> = sum_line
        .split('|')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    let sum: u64 = cols.last().unwrap().parse().unwrap();
    assert_eq!(sum, link.tx_bytes);
    // Frames are captured (and counted) when they start on the wire, while utilisation is the
    // time the link spent serialising: they differ by the unsent part of the frame on the wire
    // at the end, less than one 1000-byte frame over the 5 s.
    let thr = sum as f64 * 8.0 / 5.0;
    let gap = thr - link.utilisation * 2e6;
    assert!(
        (0.0..1000.0 * 8.0 / 5.0).contains(&gap),
        "io,stat {thr} vs {}",
        link.utilisation * 2e6
    );
    std::fs::remove_dir_all(&dir).ok();
}

fn tcp_scenario() -> String {
    common::Dumbbell::new(2)
        .duration("20s")
        .access("10Mbps", "2ms")
        .bottleneck("2Mbps", "20ms")
        .queue(r#"{ kind = "droptail", limit = "15p" }"#)
        .flow(
            r#"name = "a"
src = "s0"
dst = "d0"
app = { kind = "bulk" }
tcp = { preset = "linux", cc = "newreno" }"#,
        )
        .flow(
            r#"name = "b"
src = "s1"
dst = "d1"
start = "1s"
app = { kind = "bulk" }
tcp = { preset = "linux", cc = "newreno" }"#,
        )
        .toml()
}

// ---- tshark's TCP analysis finds the retransmissions bufferlab counted ----
#[test]
fn tshark_tcp_analysis_sees_the_retransmissions() {
    let dir = std::env::temp_dir().join(format!("bufferlab-pcap-tcp-{}", std::process::id()));
    let r = run(&RunRequest {
        text: &tcp_scenario(),
        source: "t.toml",
        seed: Some(1),
        pcap_dir: Some(&dir),
        pcap_links: vec!["access_s0".into(), "access_d0".into()],
        ..Default::default()
    })
    .unwrap();
    let f = common::flow(&r, "a");
    let tcp = f.tcp_json().expect("a TCP section");
    let rexmit = tcp["retransmitted_segments"].as_u64().unwrap();
    assert!(rexmit > 0, "the scenario loses packets");
    let file = dir.join("access_s0_s0-r0.pcap");
    let fname = file.to_str().unwrap();
    let count = |filter: &str| {
        tshark(&[
            "-r",
            fname,
            "-Y",
            filter,
            "-T",
            "fields",
            "-e",
            "frame.number",
        ])
        .lines()
        .count() as u64
    };
    let frames = count("tcp");
    let link = r
        .links
        .iter()
        .find(|l| l.link == "access_s0" && l.from == "s0")
        .unwrap();
    assert_eq!(
        frames, link.tx_packets,
        "every segment of the flow was captured"
    );
    // Wireshark (packet-tcp.c, tcp_analyze_sequence_number) calls a segment below the highest
    // one sent "out-of-order" rather than a retransmission when it follows the previous
    // segment within 3 ms (its threshold when the capture holds no handshake RTT, as this
    // one-way capture does); at the sender's own link every original passes in order, so
    // such a segment is a retransmission too (one here: 2.07 ms after a new segment).
    let flagged = count(
        "tcp.analysis.retransmission || tcp.analysis.fast_retransmission \
         || tcp.analysis.out_of_order",
    );
    assert_eq!(
        flagged, rexmit,
        "tshark flags exactly the segments bufferlab retransmitted"
    );
    // The receiver's side: the SYN-ACK takes one sequence number, so its pure ACKs are not
    // keep-alives (each was one, 2 309 in a 10 s run, when the SYN-ACK did not), and no host
    // has the network address 10.0.0.0.
    let acks = dir.join("access_d0_d0-r1.pcap");
    let acks = acks.to_str().unwrap();
    let expert = tshark(&[
        "-r",
        acks,
        "-Y",
        "tcp.analysis.keep_alive",
        "-T",
        "fields",
        "-e",
        "frame.number",
    ]);
    let pure_acks = tshark(&[
        "-r",
        acks,
        "-Y",
        "tcp.len == 0",
        "-T",
        "fields",
        "-e",
        "frame.number",
    ]);
    assert!(
        pure_acks.lines().count() > 100,
        "the receiver's ACKs were captured"
    );
    assert_eq!(
        expert.lines().count(),
        0,
        "keep-alive notes on a plain transfer"
    );
    // The link file holds both directions of access_s0 (data one way, ACKs the other) in
    // time order.
    let both = dir.join("access_s0.pcap");
    let times = tshark(&[
        "-r",
        both.to_str().unwrap(),
        "-T",
        "fields",
        "-e",
        "frame.time_epoch",
    ]);
    let t: Vec<f64> = times.lines().map(|l| l.parse().unwrap()).collect();
    let sent: u64 = r
        .links
        .iter()
        .filter(|l| l.link == "access_s0")
        .map(|l| l.tx_packets)
        .sum();
    assert_eq!(t.len() as u64, sent, "both directions in the link file");
    assert!(t.windows(2).all(|w| w[0] <= w[1]), "in time order");
    let addrs = tshark(&["-r", fname, "-T", "fields", "-e", "ip.src", "-e", "ip.dst"]);
    assert!(
        !addrs.split_whitespace().any(|a| a == "10.0.0.0"),
        "{addrs}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
