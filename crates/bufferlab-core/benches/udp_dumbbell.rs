//! Throughput of the engine on a UDP-only dumbbell: packet-hops (a packet crossing one link)
//! and events per second of wall time. `make bench` runs it; numbers go to docs/performance.md.

use bufferlab_core::scenario::{build::build, parse};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn scenario(pairs: u32) -> String {
    format!(
        r#"
        duration = "10s"
        [topology]
        kind = "dumbbell"
        pairs = {pairs}
        [links.access]
        rate = "1Gbps"
        delay = "1ms"
        [links.bottleneck]
        rate = "100Mbps"
        delay = "20ms"
        queue = {{ kind = "droptail", limit = "100p" }}
        [[flows]]
        count = {pairs}
        name = "p{{i}}"
        src = "s{{i}}"
        dst = "d{{i}}"
        app = {{ kind = "poisson", rate = "{}bps", packet_size = "1000B" }}
        "#,
        110_000_000 / pairs
    )
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("udp_dumbbell");
    g.sample_size(10);
    for pairs in [10u32, 100] {
        let text = scenario(pairs);
        let s = parse(&text, &[]).unwrap();
        // One run to count the work: packet-hops and events.
        let mut sim = build(&s, 1).unwrap();
        sim.run();
        let hops: u64 = sim.ports.iter().map(|p| p.tx_packets()).sum();
        let events = sim.events;
        eprintln!("udp_dumbbell/{pairs}: {hops} packet-hops, {events} events per run");
        g.throughput(Throughput::Elements(hops));
        g.bench_function(format!("{pairs}_pairs_packet_hops"), |b| {
            b.iter(|| {
                let mut sim = build(&s, 1).unwrap();
                sim.run();
                sim.events
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
