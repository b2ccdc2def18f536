//! Workloads (`scenario/workloads.rs`): a Poisson workload offers its target load, the same
//! seed writes the same flows, and incast queries complete with their last answer.

mod common;
use bufferlab_core::scenario::{build::build, parse};
use bufferlab_core::sim::Simulation;
use common::run_text;

/// A star: `n` hosts h0.. around switch `sw`, each link `rate`, 5 us.
fn star(n: usize, rate: &str, duration: &str, workloads: &str) -> String {
    let mut t = format!(
        "name = \"wl\"\nduration = \"{duration}\"\n[topology]\nkind = \"custom\"\nnodes = [\"sw\""
    );
    for i in 0..n {
        t += &format!(", \"h{i}\"");
    }
    t += "]\n";
    for i in 0..n {
        t += &format!(
            "[links.l{i}]\nbetween = [\"sw\", \"h{i}\"]\nrate = \"{rate}\"\ndelay = \"5us\"\nqueue = {{ kind = \"droptail\", limit = \"1000p\" }}\n"
        );
    }
    t + workloads
}

fn built(text: &str, seed: u64) -> Simulation {
    let s = parse(text, &[]).unwrap_or_else(|e| panic!("{e}"));
    build(&s, seed).unwrap_or_else(|e| panic!("{e}"))
}

/// (name, src, dst, start in ps, size) of every transfer.
fn transfers(sim: &Simulation) -> Vec<(String, u32, u32, u64, u64)> {
    sim.flows
        .iter()
        .map(|f| {
            let t = sim.agents[f.sender.idx()]
                .ep
                .finite_transfer()
                .expect("a transfer");
            (f.name.clone(), f.src.0, f.dst.0, f.start.0, t.bytes)
        })
        .collect()
}

const WEB: &str = r#"[[workloads]]
kind = "poisson"
name = "ws"
hosts = ["h*"]
sizes = "web_search"
load = 0.5
"#;

#[test]
fn offered_load_is_the_target_over_a_long_run() {
    // 4 hosts at 10 Gbit/s for 20 s at load 0.5: 365 flows a second from each, about 29 000
    // flows. Web search's sizes have a coefficient of variation of 2.3, so the offered bytes
    // have a relative standard error of sqrt((1 + 2.3^2) / 29 000) = 1.5 %; the bound, 5 %, is
    // over three of them. The load counts payload bytes (docs/models/workloads.md).
    for pairs in ["random", "all_to_all"] {
        let w = WEB.replace("load = 0.5", &format!("load = 0.5\npairs = \"{pairs}\""));
        let sim = built(&star(4, "10Gbps", "20s", &w), 3);
        let fl = transfers(&sim);
        let bytes: u64 = fl.iter().map(|f| f.4).sum();
        let offered = bytes as f64 * 8.0 / (4.0 * 10e9 * 20.0);
        assert!(
            (offered / 0.5 - 1.0).abs() < 0.05,
            "{pairs}: offered load {offered}"
        );
        // each host sends and receives its share, never to itself
        for h in 1..=4u32 {
            let sent = fl.iter().filter(|f| f.1 == h).count() as f64;
            let got = fl.iter().filter(|f| f.2 == h).count() as f64;
            let n = fl.len() as f64 / 4.0;
            assert!((sent / n - 1.0).abs() < 0.05 && (got / n - 1.0).abs() < 0.05);
        }
        assert!(fl.iter().all(|f| f.1 != f.2));
        // in time order, named in that order
        assert!(fl.windows(2).all(|w| w[0].3 <= w[1].3));
        assert_eq!(fl[0].0, "ws0");
    }
}

#[test]
fn the_same_seed_writes_the_same_flows() {
    let text = star(4, "1Gbps", "2s", WEB);
    let a = transfers(&built(&text, 1));
    let b = transfers(&built(&text, 1));
    let c = transfers(&built(&text, 2));
    assert!(a.len() > 100);
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn incast_queries_complete_with_their_last_answer() {
    let w = r#"[[workloads]]
kind = "incast"
name = "q"
client = "h0"
servers = ["h1", "h2", "h3", "h4"]
response = "20KB"
interval = "10ms"
stop = "95ms"
tcp = { preset = "linux" }
"#;
    let r = run_text(&star(5, "1Gbps", "200ms", w), 1);
    let fct = r.fct.expect("transfers");
    assert_eq!(fct.flows.len(), 40);
    assert_eq!(fct.queries.len(), 10);
    let q = fct.qct.expect("queries");
    assert_eq!((q.count, q.unfinished), (10, 0));
    for (k, query) in fct.queries.iter().enumerate() {
        assert_eq!(query.query, format!("q{k}"));
        assert_eq!(query.responses, 4);
        assert!((query.start_s - k as f64 * 0.01).abs() < 1e-9);
        let last = fct
            .flows
            .iter()
            .filter(|f| f.flow.starts_with(&format!("q{k}_")))
            .map(|f| f.finish_s.unwrap())
            .fold(0.0f64, f64::max);
        assert_eq!(query.finish_s, Some(last));
        // the four answers share the client's link: 80 KB of payload at 1 Gbit/s at least
        assert!(query.qct_s.unwrap() > 80_000.0 * 8.0 / 1e9);
    }
}

#[test]
fn workload_mistakes_name_their_field() {
    let bad = |w: &str| common::run_err(&star(3, "1Gbps", "1s", w), &[]);
    let e = bad(&WEB.replace("web_search", "websearch"));
    assert!(
        e.contains("workloads[0].sizes") && e.contains("web_search"),
        "{e}"
    );
    let e = bad(&WEB.replace("load = 0.5", "load = 1.5"));
    assert!(e.contains("workloads[0].load"), "{e}");
    let e = bad(&WEB.replace("[\"h*\"]", "[\"x*\"]"));
    assert!(e.contains("workloads[0].hosts"), "{e}");
    let e = bad(&WEB.replace(
        "\"web_search\"",
        "{ points = [[0, 0], [100, 0.5], [50, 1]] }",
    ));
    assert!(e.contains("point 3") && e.contains("increase"), "{e}");
}

#[test]
fn a_cdf_file_is_read_from_the_scenario_folder_and_never_outside_it() {
    let dir = std::env::temp_dir().join(format!("bl-cdf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("two.cdf"), "# size p\n1000 0\n1500 0.5\n2000 1\n").unwrap();
    let with = |file: &str| {
        let text = star(
            3,
            "1Gbps",
            "200ms",
            &WEB.replace("\"web_search\"", &format!("{{ file = \"{file}\" }}")),
        );
        let mut s = parse(&text, &[]).unwrap_or_else(|e| panic!("{e}"));
        s.base_dir = Some(dir.clone());
        build(&s, 1)
            .map(|sim| transfers(&sim))
            .map_err(|e| e.to_string())
    };
    let flows = with("two.cdf").unwrap();
    assert!(!flows.is_empty());
    assert!(
        flows.iter().all(|f| (1000..=2000).contains(&f.4)),
        "{flows:?}"
    );
    for outside in ["../two.cdf", "/dev/zero", "/etc/hostname"] {
        let e = with(outside).unwrap_err();
        assert!(
            e.contains("workloads[0].sizes") && e.contains("outside"),
            "{outside}: {e}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
