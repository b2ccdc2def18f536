//! The parking-lot builder: its node and link names, the paths flows take over it, and
//! Floyd and Jacobson's (1991) observation that over DropTail a connection crossing every
//! congested gateway gets less than the one-hop connections beside it.

mod common;
use common::{flow, run_text};

/// Three 10 Mbit/s hops; TCP Reno from ls to ld across all three and one cross flow per hop.
fn parking_lot(hop_queue: &str, duration: &str) -> String {
    let mut t = format!(
        r#"
        duration = "{duration}"
        [topology]
        kind = "parking_lot"
        hops = 3
        [links.hop]
        rate = "10Mbps"
        delay = "10ms"
        queue = {hop_queue}
        [links.access]
        rate = "100Mbps"
        delay = "1ms"
        [[flows]]
        name = "long"
        src = "ls"
        dst = "ld"
        app = {{ kind = "bulk" }}
        tcp = {{ cc = "reno", window = "1000p" }}
        "#
    );
    for i in 0..3 {
        t.push_str(&format!(
            "[[flows]]\nname = \"cross{i}\"\nsrc = \"cs{i}\"\ndst = \"cd{i}\"\nstart = \"{}ms\"\napp = {{ kind = \"bulk\" }}\ntcp = {{ cc = \"reno\", window = \"1000p\" }}\n",
            37 * (i + 1)
        ));
    }
    t
}

#[test]
fn nodes_links_and_paths() {
    let r = run_text(
        &parking_lot(r#"{ kind = "droptail", limit = "50p" }"#, "2s"),
        1,
    );
    // Every bottleneck carries its cross flow; the long flow's packets cross all three, so each
    // hop sends more than its own cross flow delivered.
    for i in 0..3 {
        let hop = r
            .links
            .iter()
            .find(|l| l.link == format!("hop{i}") && l.from == format!("r{i}"))
            .unwrap_or_else(|| panic!("no link hop{i} from r{i}"));
        assert_eq!(hop.to, format!("r{}", i + 1));
        let cross = flow(&r, &format!("cross{i}"));
        assert!(cross.rx_packets > 0);
        assert!(
            hop.tx_packets > cross.rx_packets,
            "hop{i} carries the long flow too"
        );
    }
    for host in ["ls", "ld", "cs0", "cd0", "cs2", "cd2"] {
        assert!(
            r.links.iter().any(|l| l.link == format!("access_{host}")),
            "no access_{host}"
        );
    }
    assert!(flow(&r, "long").rx_packets > 0);
}

#[test]
fn long_flow_gets_less_than_one_hop_flows_over_droptail() {
    // 100 packets: more than the long flow's bandwidth-delay product (64 ms at 10 Mbit/s is 80
    // packets of 1000 B), so by the rule of thumb every hop stays busy.
    let r = run_text(
        &parking_lot(r#"{ kind = "droptail", limit = "100p" }"#, "60s"),
        1,
    );
    let long = flow(&r, "long").goodput_bps;
    for i in 0..3 {
        let cross = flow(&r, &format!("cross{i}")).goodput_bps;
        assert!(long < cross, "long {long} bps vs cross{i} {cross} bps");
        // each hop is shared by the long flow and its cross flow and stays busy
        let hop = r
            .links
            .iter()
            .find(|l| l.link == format!("hop{i}") && l.from == format!("r{i}"));
        let u = hop.expect("hop link").utilisation;
        assert!(u > 0.95, "hop{i} utilisation {u}");
    }
}

#[test]
fn red_lessens_the_bias_against_the_long_flow() {
    // Floyd and Jacobson (1991, 1993): DropTail's phase effects drop the long flow's bursts
    // at every hop; random early drop spreads the drops over flows in proportion to their
    // rates, so the long flow keeps more of its share.
    let long = |q: &str| flow(&run_text(&parking_lot(q, "60s"), 1), "long").goodput_bps;
    let droptail = long(r#"{ kind = "droptail", limit = "100p" }"#);
    let red = long(r#"{ kind = "red", limit = "100p" }"#);
    assert!(
        red > 2.0 * droptail,
        "RED {red} bps vs DropTail {droptail} bps"
    );
}
