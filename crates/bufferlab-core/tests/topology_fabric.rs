//! The datacenter fabrics: the leaf-spine and k-ary fat-tree builders (node and link counts
//! from their formulas, names, every host pair connected over paths of the lengths the
//! fabric's tiers give) and ECMP over them (flows across leaves use every spine, flows across
//! pods every core; without ECMP one path only).

mod common;
use bufferlab_core::api::{resolve_json, RunRequest};
use common::{run_err, run_text, simulate};
use serde_json::Value;

fn leaf_spine(leaves: u32, spines: u32, hosts: u32, extra: &str) -> String {
    format!(
        r#"
        duration = "20ms"
        [topology]
        kind = "leaf_spine"
        leaves = {leaves}
        spines = {spines}
        hosts_per_leaf = {hosts}
        [links.host]
        rate = "10Gbps"
        delay = "1us"
        [links.fabric]
        rate = "40Gbps"
        delay = "1us"
        {extra}
        "#
    )
}

fn fat_tree(k: u32, extra: &str) -> String {
    format!(
        r#"
        duration = "20ms"
        [topology]
        kind = "fat_tree"
        k = {k}
        [links.host]
        rate = "10Gbps"
        delay = "1us"
        [links.edge_agg]
        rate = "10Gbps"
        delay = "1us"
        [links.agg_core]
        rate = "10Gbps"
        delay = "1us"
        {extra}
        "#
    )
}

/// A small UDP flow from every host to every other (`hosts` by name).
fn all_pairs(hosts: &[String]) -> String {
    let mut t = String::new();
    for a in hosts {
        for b in hosts.iter().filter(|b| *b != a) {
            t.push_str(&format!(
                "[[flows]]\nname = \"{a}-{b}\"\nsrc = \"{a}\"\ndst = \"{b}\"\napp = {{ kind = \"cbr\", rate = \"1Mbps\", packet_size = \"500B\" }}\nstop = \"1ms\"\n"
            ));
        }
    }
    t
}

fn resolve(text: &str) -> Value {
    let json = resolve_json(&RunRequest {
        text,
        source: "test.toml",
        seed: Some(1),
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_str::<Value>(&json).unwrap()["resolved"].clone()
}

/// Each resolved flow's name with the number of links of its data and return paths.
fn path_lengths(r: &Value) -> Vec<(String, usize, usize)> {
    r["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let n = |p: &Value| p.as_array().unwrap().len();
            (
                f["name"].as_str().unwrap().to_string(),
                n(&f["path"]),
                n(&f["reverse_path"]),
            )
        })
        .collect()
}

#[test]
fn leaf_spine_counts_names_and_path_lengths() {
    let (leaves, spines, hosts) = (3, 2, 2);
    let names: Vec<String> = (0..leaves)
        .flat_map(|l| (0..hosts).map(move |i| format!("h{l}_{i}")))
        .collect();
    let text = leaf_spine(leaves, spines, hosts, &all_pairs(&names));
    let sim = simulate(&text, 1);
    // leaves + spines + leaves x hosts nodes; leaves x (spines + hosts) links
    assert_eq!(sim.nodes.len(), 3 + 2 + 3 * 2);
    assert_eq!(sim.links.len(), 3 * (2 + 2));
    let node_names: Vec<&str> = sim.nodes.iter().map(|n| n.name.as_str()).collect();
    for n in ["leaf0", "leaf2", "spine0", "spine1", "h0_0", "h2_1"] {
        assert!(node_names.contains(&n), "{n} in {node_names:?}");
    }
    let link_names: Vec<&str> = sim.links.iter().map(|l| l.name.as_str()).collect();
    for n in ["fabric0_0", "fabric2_1", "host0_0", "host2_1"] {
        assert!(link_names.contains(&n), "{n} in {link_names:?}");
    }
    let r = resolve(&text);
    let lengths = path_lengths(&r);
    assert_eq!(lengths.len(), 6 * 5, "every ordered host pair has a path");
    for (name, fwd, rev) in lengths {
        let (a, b) = name.split_once('-').unwrap();
        let same_leaf = a.split('_').next() == b.split('_').next();
        let want = if same_leaf { 2 } else { 4 };
        assert_eq!((fwd, rev), (want, want), "{name}");
    }
    // every packet of every flow arrived: all pairs reachable, nothing lost on an idle fabric
    let rep = run_text(&text, 1);
    for f in &rep.flows {
        assert!(f.rx_packets > 0 && f.lost_packets == 0, "{}", f.name);
    }
}

#[test]
fn fat_tree_counts_names_and_path_lengths() {
    let k = 4;
    let names: Vec<String> = (0..k)
        .flat_map(|p| {
            (0..k / 2).flat_map(move |e| (0..k / 2).map(move |i| format!("h{p}_{e}_{i}")))
        })
        .collect();
    assert_eq!(names.len(), k * k * k / 4);
    let text = fat_tree(k as u32, &all_pairs(&names));
    let sim = simulate(&text, 1);
    // k^3/4 hosts + 5k^2/4 switches; 3k^3/4 links
    assert_eq!(sim.nodes.len(), 16 + 20);
    assert_eq!(sim.links.len(), 48);
    let node_names: Vec<&str> = sim.nodes.iter().map(|n| n.name.as_str()).collect();
    for n in [
        "core0", "core3", "agg0_0", "agg3_1", "edge0_0", "edge3_1", "h3_1_1",
    ] {
        assert!(node_names.contains(&n), "{n}");
    }
    for (name, fwd, rev) in path_lengths(&resolve(&text)) {
        let (a, b) = name.split_once('-').unwrap();
        let (pa, pb): (Vec<&str>, Vec<&str>) = (a.split('_').collect(), b.split('_').collect());
        let want = if pa[0] != pb[0] {
            6
        } else if pa[1] != pb[1] {
            4
        } else {
            2
        };
        assert_eq!((fwd, rev), (want, want), "{name}");
    }
}

/// Packets each link direction sent, by link name and sending node.
fn sent(rep: &bufferlab_core::report::Report, link: &str, from: &str) -> u64 {
    rep.links
        .iter()
        .find(|l| l.link == link && l.from == from)
        .unwrap_or_else(|| panic!("no link {link} from {from}"))
        .tx_packets
}

#[test]
fn flows_across_leaves_use_every_spine_and_keep_their_path() {
    // 64 TCP flows from the 8 hosts of leaf 0 to the 8 of leaf 1, over 4 spines
    let mut flows = String::new();
    for i in 0..8 {
        for j in 0..8 {
            flows.push_str(&format!(
                "[[flows]]\nname = \"f{i}_{j}\"\nsrc = \"h0_{i}\"\ndst = \"h1_{j}\"\napp = {{ kind = \"transfer\", size = \"30KB\" }}\n"
            ));
        }
    }
    let text = leaf_spine(2, 4, 8, &flows);
    let rep = run_text(&text, 1);
    let per_spine: Vec<u64> = (0..4)
        .map(|s| sent(&rep, &format!("fabric0_{s}"), "leaf0"))
        .collect();
    let total: u64 = per_spine.iter().sum();
    assert!(
        total > 64 * 20,
        "the transfers crossed the fabric: {per_spine:?}"
    );
    for (s, &n) in per_spine.iter().enumerate() {
        // a quarter each on average; every spine carries at least a tenth
        assert!(
            n * 10 > total,
            "spine {s} carries {n} of {total}: {per_spine:?}"
        );
    }
    // each flow keeps one path: its data crosses one spine only
    let r = resolve(&text);
    for f in r["flows"].as_array().unwrap() {
        let spines: Vec<&str> = f["path"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|h| h["to"].as_str().filter(|n| n.starts_with("spine")))
            .collect();
        assert_eq!(spines.len(), 1, "{}", f["name"]);
    }
    // without ECMP every flow takes the first spine (and, 80 Gbit/s of senders on one
    // 40 Gbit/s uplink, loses packets there that ECMP's spread did not)
    let single = run_text(
        &text.replace("duration", "routing = { multipath = \"none\" }\nduration"),
        1,
    );
    assert!(sent(&single, "fabric0_0", "leaf0") > 64 * 10);
    for s in 1..4 {
        assert_eq!(sent(&single, &format!("fabric0_{s}"), "leaf0"), 0);
    }
}

#[test]
fn flows_across_pods_use_every_core() {
    // 16 flows from pod 0 to pod 1 of a k = 4 fat-tree: 4 cores, each a path of its own;
    // with one hash secret for every switch the edge and aggregation choices would repeat
    // each other and half the cores would stay idle (hash polarisation)
    let mut flows = String::new();
    for f in 0..16 {
        let (e, i) = (f / 2 % 2, f % 2);
        flows.push_str(&format!(
            "[[flows]]\nname = \"f{f}\"\nsrc = \"h0_{e}_{i}\"\ndst = \"h1_{}_{}\"\napp = {{ kind = \"cbr\", rate = \"10Mbps\", packet_size = \"1000B\" }}\n",
            (f / 4) % 2,
            (f / 8) % 2,
        ));
    }
    // more flows than that: every (source, destination) pair four times over, other flow ids
    let mut more = flows.clone();
    for rep in 1..4 {
        more.push_str(&flows.replace("name = \"f", &format!("name = \"r{rep}_")));
    }
    let rep = run_text(&fat_tree(4, &more), 1);
    for c in 0..4 {
        let (a, j) = (c / 2, c % 2);
        let up = sent(&rep, &format!("agg_core0_{a}_{j}"), &format!("agg0_{a}"));
        assert!(up > 0, "core{c} carries none of pod 0's flows");
    }
}

#[test]
fn oversubscription_sets_or_checks_the_fabric_rate() {
    // 8 hosts x 10 Gbit/s over 2 spines at 2:1: 20 Gbit/s uplinks
    let text = leaf_spine(2, 2, 8, "")
        .replace("rate = \"40Gbps\"\n", "")
        .replace(
            "hosts_per_leaf = 8",
            "hosts_per_leaf = 8\noversubscription = 2.0",
        )
        + "[[flows]]\nsrc = \"h0_0\"\ndst = \"h1_0\"\napp = { kind = \"cbr\", rate = \"1Mbps\" }\n";
    let r = resolve(&text);
    let fabric = r["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["link"] == "fabric0_0")
        .unwrap();
    assert_eq!(fabric["rate_bps"], 20_000_000_000u64);
    // given with a fabric rate that makes another ratio: refused, naming both
    let bad = leaf_spine(2, 2, 8, "").replace(
        "hosts_per_leaf = 8",
        "hosts_per_leaf = 8\noversubscription = 3.0",
    )
        + "[[flows]]\nsrc = \"h0_0\"\ndst = \"h1_0\"\napp = { kind = \"cbr\", rate = \"1Mbps\" }\n";
    let e = run_err(&bad, &[]);
    assert!(
        e.contains("topology.oversubscription") && e.contains("1.000"),
        "{e}"
    );
}

#[test]
fn fabric_mistakes_name_the_field() {
    let flow =
        "[[flows]]\nsrc = \"h0_0\"\ndst = \"h1_0\"\napp = { kind = \"cbr\", rate = \"1Mbps\" }\n";
    let e = run_err(
        &(leaf_spine(2, 2, 2, "[links.fabric5_0]\nrate = \"1Gbps\"") + flow),
        &[],
    );
    assert!(
        e.contains("links.fabric5_0") && e.contains("leaf_spine topology has no link"),
        "{e}"
    );
    let e = run_err(&(leaf_spine(0, 2, 2, "") + flow), &[]);
    assert!(
        e.contains("topology.leaves") && e.contains("at least 1"),
        "{e}"
    );
    let e = run_err(&(fat_tree(3, "") + "[[flows]]\nsrc = \"h0_0_0\"\ndst = \"h1_0_0\"\napp = { kind = \"cbr\", rate = \"1Mbps\" }\n"), &[]);
    assert!(e.contains("topology.k") && e.contains("even"), "{e}");
    let e = run_err(
        &(leaf_spine(2, 2, 2, "") + &flow.replace("h1_0", "h5_0")),
        &[],
    );
    assert!(e.contains("unknown node \"h5_0\""), "{e}");
}

#[test]
fn random_packet_sprays_one_flow_over_every_spine_and_repeats_with_its_seed() {
    // ns-3's RandomEcmpRouting (ns-3.44 Ipv4GlobalRouting::LookupGlobal): each packet draws a
    // spine. One 4 Gbit/s CBR flow for 20 ms, 10 000 packets: about 2 500 on each of 4 spines
    // (binomial standard deviation 43), where the per-flow hash puts all of them on one.
    let flow = "[[flows]]\nsrc = \"h0_0\"\ndst = \"h1_0\"\napp = { kind = \"cbr\", rate = \"4Gbps\", packet_size = \"1000B\" }\n";
    let with = |multipath: &str| {
        leaf_spine(2, 4, 2, "").replace(
            "duration",
            &format!("routing = {{ multipath = \"{multipath}\" }}\nduration"),
        ) + flow
    };
    let per_spine = |text: &str, seed: u64| -> Vec<u64> {
        let rep = run_text(text, seed);
        (0..4)
            .map(|s| sent(&rep, &format!("fabric0_{s}"), "leaf0"))
            .collect()
    };
    let spray = per_spine(&with("random_packet"), 1);
    assert_eq!(spray.iter().sum::<u64>(), 10_000, "{spray:?}");
    for &n in &spray {
        assert!((2_200..=2_800).contains(&n), "{spray:?}");
    }
    assert_eq!(per_spine(&with("random_packet"), 1), spray, "same seed");
    assert_ne!(per_spine(&with("random_packet"), 2), spray, "other seed");
    let hashed = per_spine(&with("ecmp"), 1);
    assert_eq!(hashed.iter().filter(|&&n| n > 0).count(), 1, "{hashed:?}");
    // the hash's secret seeds nothing here: refused, naming the field and the fix
    let e = run_err(
        &with("random_packet").replace("random_packet\" }", "random_packet\", hash_seed = 3 }"),
        &[],
    );
    assert!(
        e.contains("routing.hash_seed") && e.contains("multipath = \"ecmp\""),
        "{e}"
    );
}
