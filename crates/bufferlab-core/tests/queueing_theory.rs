//! Analytic checks: a Poisson source with exponential packet sizes feeding a K-packet DropTail
//! queue on a fixed-rate link is an M/M/1/K queue; with fixed sizes and an unbounded buffer it
//! is M/D/1. Loss probability and mean waiting time must match the closed forms (Kleinrock,
//! Queueing Systems vol. 1, sections 3.6 and 5.6) within 3 %, pooled over several seeds.

mod common;
use common::{queue, run_text};

/// M/M/1/K with system capacity k (queue + server): (loss probability, mean wait in queue in s).
fn mm1k(rho: f64, k: u32, mu: f64) -> (f64, f64) {
    let kf = k as f64;
    let p = |n: f64| (1.0 - rho) * rho.powf(n) / (1.0 - rho.powf(kf + 1.0));
    let p_loss = p(kf);
    let l = rho / (1.0 - rho) - (kf + 1.0) * rho.powf(kf + 1.0) / (1.0 - rho.powf(kf + 1.0));
    let lq = l - (1.0 - p(0.0));
    let lambda_eff = rho * mu * (1.0 - p_loss);
    (p_loss, lq / lambda_eff)
}

/// One source attached straight to the measured link, so arrivals at the queue are exactly Poisson.
fn scenario(rho: f64, limit: &str, flavour: &str, sizes: &str, duration_s: f64) -> String {
    // 10 Mbit/s, mean 1000 B: mu = 1250 packets/s.
    let rate_bps = rho * 10e6;
    format!(
        r#"
        duration = "{duration_s}s"
        [topology]
        kind = "custom"
        nodes = ["src", "dst"]
        [links.l]
        between = ["src", "dst"]
        rate = "10Mbps"
        delay = "1ms"
        queue = {{ kind = "droptail", limit = "{limit}", flavour = "{flavour}" }}
        [[flows]]
        name = "p"
        src = "src"
        dst = "dst"
        app = {{ kind = "poisson", rate = "{rate_bps}bps", packet_size = "1000B", size_distribution = "{sizes}" }}
        "#
    )
}

/// Pools drops/arrivals and waiting times over seeds.
fn measure(text: &str, seeds: std::ops::Range<u64>) -> (f64, f64) {
    let (mut drops, mut arrivals, mut wait_sum, mut deps) = (0u64, 0u64, 0.0, 0u64);
    for seed in seeds {
        let r = run_text(text, seed);
        let q = queue(&r, "l", "src");
        drops += q.drops;
        arrivals += q.arrivals;
        wait_sum += q.sojourn_mean_s.unwrap() * q.departures as f64;
        deps += q.departures;
    }
    (drops as f64 / arrivals as f64, wait_sum / deps as f64)
}

fn check_mm1k(rho: f64, k: u32, flavour: &str) {
    let mu = 1250.0;
    // About 1.5 million arrivals in all; where losses are rare (p ~ 5e-4) enough for about
    // 4000 of them, so the sampling error (about 1/sqrt(losses)) stays well inside 3 %.
    let arrivals = if rho < 0.6 && k >= 10 {
        8_000_000.0
    } else {
        1_500_000.0
    };
    let duration = arrivals / (3.0 * rho * mu);
    let limit = if flavour == "ns2" { k } else { k - 1 }; // ns-2 counts the packet in service
    let (loss, wait) = measure(
        &scenario(rho, &format!("{limit}p"), flavour, "exponential", duration),
        1..4,
    );
    let (p_th, w_th) = mm1k(rho, k, mu);
    let (el, ew) = ((loss / p_th - 1.0).abs(), (wait / w_th - 1.0).abs());
    println!("rho {rho} K {k} {flavour}: loss {loss:.5} vs {p_th:.5} ({el:.3}), wait {wait:.6} vs {w_th:.6} ({ew:.3})");
    assert!(
        el < 0.03,
        "loss {loss} vs theory {p_th} at rho {rho}, K {k}"
    );
    assert!(
        ew < 0.03,
        "wait {wait} vs theory {w_th} at rho {rho}, K {k}"
    );
}

// ---- M/M/1/K: loss probability and mean wait, three loads, two buffer sizes ----
#[test]
fn mm1k_k5() {
    for rho in [0.5, 0.9, 1.2] {
        check_mm1k(rho, 5, "standard");
    }
}

#[test]
fn mm1k_k10() {
    for rho in [0.5, 0.9, 1.2] {
        check_mm1k(rho, 10, "standard");
    }
}

// ---- the ns-2 flavour holds K packets in all, the one in service included ----
#[test]
fn mm1k_ns2_flavour_counts_the_packet_in_service() {
    check_mm1k(0.9, 8, "ns2");
}

// ---- M/D/1: Pollaczek-Khinchine mean wait rho / (2 mu (1 - rho)) ----
#[test]
fn md1_pollaczek_khinchine() {
    let mu = 1250.0;
    for rho in [0.5, 0.8] {
        let duration = 1_500_000.0 / (3.0 * rho * mu);
        let (loss, wait) = measure(
            &scenario(rho, "1000000p", "standard", "fixed", duration),
            1..4,
        );
        let w_th = rho / (2.0 * mu * (1.0 - rho));
        println!("M/D/1 rho {rho}: wait {wait:.6} vs {w_th:.6}");
        assert_eq!(loss, 0.0);
        assert!(
            (wait / w_th - 1.0).abs() < 0.03,
            "wait {wait} vs {w_th} at rho {rho}"
        );
    }
}

// ---- MMPP/D/1 with slow modulation: the quasi-static limit ----
#[test]
fn mmpp_d1_slow_modulation_is_quasi_static() {
    // A two-state MMPP (9 and 1 Mbit/s, 10 s in each on average) into the 10 Mbit/s link. The
    // state lasts far longer than the queue takes to settle (about 1 / (mu (1 - sqrt rho)^2),
    // 0.3 s at rho 0.9), so each state sees its own M/D/1 queue and a packet's mean wait is
    // the arrival-weighted mix of the two Pollaczek-Khinchine waits (the quasi-static
    // approximation; e.g. Heffes and Lucantoni, IEEE JSAC 4(6), 1986, section V): 90 % of the
    // packets arrive at rho 0.9, 10 % at rho 0.1. A Poisson source of the same mean rate
    // (rho 0.5) would wait 0.4 ms, eight times less.
    let mu = 1250.0;
    let pk = |rho: f64| rho / (2.0 * mu * (1.0 - rho));
    let w_th = 0.9 * pk(0.9) + 0.1 * pk(0.1);
    let text = scenario(0.5, "1000000p", "standard", "fixed", 4000.0).replace(
        r#"kind = "poisson", rate = "5000000bps", packet_size = "1000B", size_distribution = "fixed""#,
        r#"kind = "mmpp", rates = ["9Mbps", "1Mbps"], mean_sojourns = ["10s", "10s"], packet_size = "1000B""#,
    );
    assert!(text.contains("mmpp"), "{text}");
    let (loss, wait) = measure(&text, 1..5);
    println!("MMPP/D/1: wait {wait:.6} vs quasi-static {w_th:.6}");
    assert_eq!(loss, 0.0);
    assert!((wait / w_th - 1.0).abs() < 0.05, "wait {wait} vs {w_th}");
}
