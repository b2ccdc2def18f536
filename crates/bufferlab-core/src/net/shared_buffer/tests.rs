//! The pool's admission rules, each against what Choudhury and Hahne (1998) derive.

use super::config::SharedPolicy;
use super::pool::{Admission, SharedPool};
use crate::units::SimTime;

fn pool(buffer: u64, policy: SharedPolicy, alphas: &[f64]) -> SharedPool {
    let mut p = SharedPool::new("sw".into(), buffer, false, policy, SimTime::ZERO);
    for (i, a) in alphas.iter().enumerate() {
        p.add_queue(format!("l{i}"), format!("h{i}"), Some(*a), Some(buffer / 4));
    }
    p
}

/// N queues offered two packets for each one they send, round after round: each holds what
/// the policy lets it once the pool is in its steady state.
fn saturate(p: &mut SharedPool, rounds: u64) {
    let n = p.queues.len();
    for r in 0..rounds {
        let now = SimTime::from_micros(r);
        for i in 0..n {
            p.admit(i, 1, false, now);
            p.admit(i, 1, false, now);
            if p.queue_len(i) > 0 {
                p.release(i, 1, 1000, now);
            }
        }
    }
}

#[test]
fn dynamic_threshold_settles_at_the_closed_form() {
    // Section III: N overloaded queues each settle at alpha B / (1 + alpha N).
    for (buffer, alpha, n) in [
        (600u64, 1.0, 1usize),
        (600, 1.0, 2),
        (600, 2.0, 4),
        (1200, 0.5, 3),
        (1000, 4.0, 8),
    ] {
        let mut p = pool(buffer, SharedPolicy::DynamicThreshold, &vec![alpha; n]);
        saturate(&mut p, 5_000);
        let want = alpha * buffer as f64 / (1.0 + alpha * n as f64);
        for i in 0..n {
            let q = p.queue_len(i) as f64;
            // admitted while below the threshold, so a queue ends within one packet above it
            // (and one below, having just sent)
            assert!(
                (q - want).abs() <= 1.0 + 1e-9,
                "B={buffer} alpha={alpha} N={n}: queue {i} holds {q}, closed form {want}"
            );
        }
        // the unused buffer: B / (1 + alpha N)
        let free = (buffer - p.occupancy()) as f64;
        let want_free = buffer as f64 / (1.0 + alpha * n as f64);
        assert!(
            (free - want_free).abs() <= n as f64 + 1e-9,
            "free {free}, closed form {want_free}"
        );
    }
}

#[test]
fn per_queue_alpha_divides_the_buffer_in_proportion() {
    // alpha_i (B - Q) for each queue: with alphas 1 and 2 and B = 800, q1 = (B - Q),
    // q2 = 2 (B - Q), Q = q1 + q2 = 3 (B - Q), so B - Q = 200, q1 = 200, q2 = 400.
    let mut p = pool(800, SharedPolicy::DynamicThreshold, &[1.0, 2.0]);
    saturate(&mut p, 5_000);
    assert!(
        (p.queue_len(0) as f64 - 200.0).abs() <= 1.0,
        "{}",
        p.queue_len(0)
    );
    assert!(
        (p.queue_len(1) as f64 - 400.0).abs() <= 1.0,
        "{}",
        p.queue_len(1)
    );
}

#[test]
fn static_threshold_caps_each_queue_and_counts_threshold_drops() {
    let mut p = pool(100, SharedPolicy::StaticThreshold, &[1.0, 1.0]);
    for _ in 0..40 {
        p.admit(0, 1, false, SimTime::ZERO);
    }
    assert_eq!(p.queue_len(0), 25, "threshold = buffer / 4");
    assert_eq!(p.queues[0].drops_threshold, 15);
    assert_eq!(p.queues[0].drops_pool_full, 0);
}

#[test]
fn complete_sharing_fills_the_pool_then_drops_as_pool_full() {
    let mut p = pool(10, SharedPolicy::CompleteSharing, &[1.0, 1.0]);
    for _ in 0..8 {
        assert_eq!(p.admit(0, 1, false, SimTime::ZERO), Admission::Admit);
    }
    assert_eq!(p.admit(1, 1, false, SimTime::ZERO), Admission::Admit);
    assert_eq!(p.admit(1, 1, false, SimTime::ZERO), Admission::Admit);
    assert_eq!(p.admit(1, 1, false, SimTime::ZERO), Admission::PoolFull);
    assert_eq!(p.queues[1].drops_pool_full, 1);
    assert_eq!(p.threshold(0), 8.0, "its length plus the unused buffer");
}

#[test]
fn dynamic_threshold_drops_a_packet_larger_than_the_unused_buffer_as_pool_full() {
    // bytes: the threshold admits a short queue, the pool has 100 B left for a 1500 B packet
    let mut p = SharedPool::new(
        "sw".into(),
        3100,
        true,
        SharedPolicy::DynamicThreshold,
        SimTime::ZERO,
    );
    p.add_queue("a".into(), "x".into(), Some(8.0), None);
    p.add_queue("b".into(), "y".into(), Some(8.0), None);
    assert_eq!(p.admit(0, 1500, false, SimTime::ZERO), Admission::Admit);
    assert_eq!(p.admit(0, 1500, false, SimTime::ZERO), Admission::Admit);
    assert_eq!(p.admit(1, 1500, false, SimTime::ZERO), Admission::PoolFull);
    assert_eq!(p.queues[1].drops_pool_full, 1);
}

#[test]
fn series_sample_the_state_left_before_each_grid_point() {
    let mut p = pool(100, SharedPolicy::DynamicThreshold, &[1.0]);
    p.sample_every(SimTime::from_millis(10));
    p.admit(0, 1, false, SimTime::from_millis(5));
    p.admit(0, 1, false, SimTime::from_millis(25));
    let r = p.report(SimTime::from_millis(40));
    let s = r.series.expect("sampled");
    assert_eq!(s.t_s, vec![0.0, 0.01, 0.02, 0.03, 0.04]);
    assert_eq!(s.occupancy, vec![0, 1, 1, 2, 2]);
    // alpha (B - Q)
    assert_eq!(s.thresholds[0], vec![100.0, 99.0, 99.0, 98.0, 98.0]);
    // time-average: 1 from 5 to 25 ms, 2 from 25 to 40 ms over 40 ms
    assert!((r.mean_occupancy - (20.0 + 30.0) / 40.0).abs() < 1e-9);
    assert_eq!(r.max_occupancy, 2);
}

/// A queue of a pool of `buffer` packets under complete sharing, marking at `k`.
fn marking_queue(k: crate::units::QueueLimit) -> crate::qdisc::harness::Harness {
    use super::queue::SharedQueue;
    use std::cell::RefCell;
    use std::rc::Rc;
    let mut p = SharedPool::new(
        "sw".into(),
        100,
        false,
        SharedPolicy::CompleteSharing,
        SimTime::ZERO,
    );
    let i = p.add_queue("l".into(), "h".into(), None, None);
    let pool = Rc::new(RefCell::new(p));
    crate::qdisc::harness::Harness::new(
        Box::new(SharedQueue::new(pool, i, Some(k))),
        crate::units::Rate(1_000_000_000),
    )
}

#[test]
fn ecn_marks_ect_arrivals_at_or_above_k_and_leaves_the_rest() {
    use crate::packet::Ecn;
    use crate::units::QueueLimit;
    // K = 3 packets: the 4th arrival finds 3 waiting and is the first marked (DCTCP section
    // 3.1; ns-3 RED with MinTh = MaxTh = K, QW = 1: qAvg = length before the arrival >= K)
    let mut h = marking_queue(QueueLimit::Packets(3));
    for _ in 0..6 {
        let mut p = h.packet(0, 1000);
        p.ecn = Ecn::Ect0;
        h.enqueue(SimTime::ZERO, p);
    }
    let got: Vec<Ecn> = (0..6)
        .map(|_| h.dequeue(SimTime::ZERO).expect("queued").ecn)
        .collect();
    assert_eq!(
        got,
        vec![Ecn::Ect0, Ecn::Ect0, Ecn::Ect0, Ecn::Ce, Ecn::Ce, Ecn::Ce]
    );
    assert_eq!(h.marks, 3);
    // a packet that is not ECN-capable is neither marked nor dropped above K
    for _ in 0..5 {
        let p = h.packet(0, 1000);
        h.enqueue(SimTime::ZERO, p);
    }
    assert!(h.dropped.is_empty());
    assert_eq!(h.marks, 3);
    // K in bytes: 2500 B; a third 1000 B packet finds 2000 B (not marked), a fourth 3000 B
    let mut h = marking_queue(QueueLimit::Bytes(2500));
    for _ in 0..4 {
        let mut p = h.packet(0, 1000);
        p.ecn = Ecn::Ect1;
        h.enqueue(SimTime::ZERO, p);
    }
    assert_eq!(h.marks, 1);
}

/// A pool under ABM with `n` queues of alpha `alpha`, each alone on a 1 Gbit/s port, counting
/// a queue congested from `sat` packets, updated every 30 us.
fn abm_pool(buffer: u64, alpha: f64, n: usize, sat: u64) -> SharedPool {
    let mut p = SharedPool::new("sw".into(), buffer, false, SharedPolicy::Abm, SimTime::ZERO)
        .with_abm(sat, super::abm::DEFAULT_INTERVAL, 1024.0);
    for i in 0..n {
        let q = p.add_queue(format!("l{i}"), format!("h{i}"), Some(alpha), None);
        p.set_port(q, 0, 1e9, 1);
    }
    p
}

#[test]
fn abm_settles_at_its_closed_form_whatever_the_number_of_congested_queues() {
    // Addanki et al. section 3: T = alpha / n (B - Q) with n congested queues each draining
    // at its port's rate; at the fixed point q = alpha (B - n q) / n, so each queue holds
    // alpha B / (n (1 + alpha)) and the switch alpha B / (1 + alpha), for every n
    for (buffer, alpha, n) in [
        (600u64, 1.0, 1usize),
        (600, 1.0, 2),
        (1200, 2.0, 4),
        (1200, 0.5, 3),
        (2000, 4.0, 8),
    ] {
        let mut p = abm_pool(buffer, alpha, n, 1);
        saturate(&mut p, 5_000);
        let want = alpha * buffer as f64 / (n as f64 * (1.0 + alpha));
        // ns-3's comparison admits while q + 1 <= T, so the fixed point in whole packets is
        // q + 1 = alpha (B - n q) / n: 1 / (1 + alpha) below the closed form
        let fixed = (alpha * buffer as f64 / n as f64 - 1.0) / (1.0 + alpha);
        for i in 0..n {
            let q = p.queue_len(i) as f64;
            assert!(
                (q - fixed).abs() <= 1.0 + 1e-9,
                "B={buffer} alpha={alpha} N={n}: queue {i} holds {q}, fixed point {fixed} (closed form {want})"
            );
            assert_eq!(p.abm_snapshot(i), Some((n as f64, 1.0)));
        }
        let total = p.occupancy() as f64;
        let want_total = alpha * buffer as f64 / (1.0 + alpha);
        assert!(
            (total - want_total).abs() <= 2.0 * n as f64 + 1e-9,
            "occupancy {total}, closed form {want_total}"
        );
    }
}

#[test]
fn abm_counts_congestion_as_a_level_of_the_saturation_length() {
    // sat = 10 packets: a queue that holds 5 at its last arrival counts 0.5 in n_p; n_p is
    // read at the first arrival and then every 30 us, at least 1
    let mut p = abm_pool(1000, 1.0, 3, 10);
    let t0 = SimTime::ZERO;
    for _ in 0..6 {
        p.admit(0, 1, false, t0); // arrivals at lengths 0..5: level 5 / 10 at the last
    }
    for _ in 0..11 {
        p.admit(1, 1, false, t0); // level 1 (10 / 10) at the last
    }
    // queue 2's first arrival reads n_p = 0.5 + 1 + 0 (its own length 0 counts 0)
    p.admit(2, 1, false, t0);
    assert_eq!(p.abm_snapshot(2), Some((1.5, 1.0)));
    // queue 0 read n_p = max(1, 0) at its first arrival, and keeps it until 30 us
    assert_eq!(p.abm_snapshot(0), Some((1.0, 1.0)));
    p.admit(0, 1, false, SimTime::from_micros(29));
    assert_eq!(p.abm_snapshot(0).unwrap().0, 1.0);
    // at 30 us, before queue 1's arrival: levels 0.6 (queue 0 held 6 at its arrival at
    // 29 us), 1 and 0 (queue 2 held nothing at its one arrival)
    p.admit(1, 1, false, SimTime::from_micros(30));
    let (n, _) = p.abm_snapshot(0).unwrap();
    assert!((n - 1.6).abs() < 1e-12, "{n}");
    // the threshold: alpha / n_p (B - Q) x drain; B - Q = 1000 - (7 + 12 + 1)
    let t = p.threshold(0);
    assert!((t - (1000.0 - 20.0) / 1.6).abs() < 1e-9, "{t}");
}

#[test]
fn abm_drain_rate_is_the_share_of_the_port_clamped_as_ns3_does() {
    // a port with 4 queues at 1 Gbit/s: 30 us send 3750 B at full rate; a queue that sent
    // 1875 B drains at 0.5, one that sent 500 B (below 1/4) counts 1, as ns-3 clamps
    let mut p = SharedPool::new(
        "sw".into(),
        1_000_000,
        true,
        SharedPolicy::Abm,
        SimTime::ZERO,
    )
    .with_abm(28_000, super::abm::DEFAULT_INTERVAL, 1024.0);
    for i in 0..2 {
        let q = p.add_queue(format!("l{i}"), "h".into(), Some(1.0), None);
        p.set_port(q, 0, 1e9, 4);
    }
    p.admit(0, 1875, false, SimTime::ZERO);
    p.admit(1, 500, false, SimTime::ZERO);
    p.release(0, 1875, 1875, SimTime::from_micros(10));
    p.release(1, 500, 500, SimTime::from_micros(10));
    p.admit(0, 1000, false, SimTime::from_micros(30));
    assert_eq!(p.abm_snapshot(0), Some((1.0, 0.5)));
    assert_eq!(p.abm_snapshot(1), Some((1.0, 1.0)));
    // an interval with nothing sent: below 1/4, so 1 again
    p.admit(0, 1000, false, SimTime::from_micros(60));
    assert_eq!(p.abm_snapshot(0), Some((1.0, 1.0)));
    // ABM refuses a packet that would take the queue past its threshold
    let t = p.threshold(0);
    assert!(t > 2000.0);
    let mut q = SharedPool::new("sw".into(), 3000, true, SharedPolicy::Abm, SimTime::ZERO)
        .with_abm(28_000, super::abm::DEFAULT_INTERVAL, 1024.0);
    q.add_queue("a".into(), "x".into(), Some(1.0), None);
    // T = 1 x 3000 at the first arrival: 1500 fits (1500 <= 3000), then T = 1500 and the
    // second 1500 B packet makes 3000 > 1500
    assert_eq!(q.admit(0, 1500, false, SimTime::ZERO), Admission::Admit);
    assert_eq!(q.admit(0, 1500, false, SimTime::ZERO), Admission::Threshold);
}

#[test]
fn abm_admits_unscheduled_packets_with_their_own_alpha() {
    // the artifact's GenQueueDisc: a tagged packet's threshold is alphaUnsched / n_p (B - Q)
    // x drain; one queue of alpha 0.5 on a 300-packet buffer admits untagged packets while
    // q + 1 <= 0.5 (300 - q), that is at q = 0..99 (100 packets), and tagged ones (alpha
    // 1024) then fill the buffer, until the pool has no room
    let mut p = abm_pool(300, 0.5, 1, 20);
    let t = SimTime::ZERO;
    let mut admitted = 0;
    while p.admit(0, 1, false, t) == Admission::Admit {
        admitted += 1;
    }
    assert_eq!(admitted, 100);
    assert_eq!(p.admit(0, 1, false, t), Admission::Threshold);
    while p.admit(0, 1, true, t) == Admission::Admit {
        admitted += 1;
    }
    assert_eq!(admitted, 300);
    assert_eq!(p.occupancy(), 300);
    // at a full pool the tagged packet's threshold is 0 too
    assert_eq!(p.admit(0, 1, true, t), Admission::Threshold);
    // the series' threshold stays the queue's own alpha's
    assert_eq!(p.threshold(0), 0.0);
    // a smaller unscheduled alpha admits less: q + 1 <= 2 (300 - q) at q = 0..199
    let mut p = SharedPool::new("sw".into(), 300, false, SharedPolicy::Abm, SimTime::ZERO)
        .with_abm(20, super::abm::DEFAULT_INTERVAL, 2.0);
    let q = p.add_queue("l".into(), "h".into(), Some(0.5), None);
    p.set_port(q, 0, 1e9, 1);
    let mut n = 0;
    while p.admit(0, 1, true, t) == Admission::Admit {
        n += 1;
    }
    assert_eq!(n, 200);
}

#[test]
fn dynamic_threshold_reads_no_unscheduled_tag() {
    // the artifact's DT (GenQueueDisc::DynamicThresholds) takes no tag: the same packets,
    // tagged or not, stop at alpha (B - Q)
    for tagged in [false, true] {
        let mut p = pool(200, SharedPolicy::DynamicThreshold, &[1.0]);
        let mut n = 0;
        while p.admit(0, 1, tagged, SimTime::ZERO) == Admission::Admit {
            n += 1;
        }
        assert_eq!(n, 100);
    }
}

#[test]
fn unscheduled_tag_covers_the_first_bytes_of_data_retransmissions_counted() {
    use super::abm::UnscheduledTag;
    use crate::packet::{Packet, PacketKind};
    assert!(UnscheduledTag::new(0).is_none());
    let mut tag = UnscheduledTag::new(3000).unwrap();
    let seg = |kind, payload| Packet {
        kind,
        payload,
        ..Packet::default()
    };
    // SYN (no data), three 1448-byte segments (0, 1448 and 2896 sent before each: tagged),
    // a fourth and a retransmission (4344 and 5792 before: not)
    let mut tags = Vec::new();
    for (kind, payload) in [
        (PacketKind::TcpData, 0),
        (PacketKind::TcpData, 1448),
        (PacketKind::TcpData, 1448),
        (PacketKind::TcpData, 1448),
        (PacketKind::TcpData, 1448),
        (PacketKind::TcpData, 1448),
    ] {
        let mut p = seg(kind, payload);
        tag.mark(&mut p);
        tags.push(p.tcp.unscheduled);
    }
    assert_eq!(tags, [true, true, true, true, false, false]);
    // a receiver sends no data: every ACK is tagged
    let mut rcv = UnscheduledTag::new(1).unwrap();
    for _ in 0..5 {
        let mut a = seg(PacketKind::TcpAck, 0);
        rcv.mark(&mut a);
        assert!(a.tcp.unscheduled);
    }
}
