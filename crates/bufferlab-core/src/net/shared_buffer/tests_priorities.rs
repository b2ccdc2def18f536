//! A port's priority queues (`port.rs`, `priorities.rs`): the scheduler between them, each
//! queue's Dynamic Threshold against Choudhury and Hahne's closed form with its own alpha, ECN
//! marking per queue, ABM's n_p per priority, and the settings' resolution and refusals.

use super::config::{PriorityConfig, SharedPolicy, SharedQueueConfig, SwitchConfig};
use super::pool::SharedPool;
use super::port::PriorityPort;
use super::priorities::QueueSettings;
use crate::packet::Ecn;
use crate::qdisc::classful::ClassScheduler;
use crate::qdisc::harness::Harness;
use crate::units::{Bytes, QueueLimit, Rate, SimTime};
use std::cell::RefCell;
use std::rc::Rc;

/// One port of a pool of `buffer` packets with a queue per entry of `alphas` (and `ks`).
fn port(
    buffer: u64,
    policy: SharedPolicy,
    scheduler: ClassScheduler,
    queues: &[(f64, u32, Option<QueueLimit>)],
) -> (Harness, Rc<RefCell<SharedPool>>) {
    let pool = Rc::new(RefCell::new(SharedPool::new(
        "sw".into(),
        buffer,
        false,
        policy,
        SimTime::ZERO,
    )));
    let mut built = Vec::new();
    for (p, &(alpha, weight, ecn_threshold)) in queues.iter().enumerate() {
        let mut pl = pool.borrow_mut();
        let i = pl.add_queue("l".into(), "h".into(), Some(alpha), Some(buffer));
        pl.set_port(i, p, 1e9, queues.len());
        pl.set_priority(i, p);
        built.push((
            i,
            QueueSettings {
                alpha: Some(alpha),
                threshold: None,
                ecn_threshold,
                weight,
            },
        ));
    }
    let q = PriorityPort::new(pool.clone(), &built, scheduler, Bytes(1500));
    (Harness::new(Box::new(q), Rate(1_000_000_000)), pool)
}

/// Each slot: `offered[c]` packets of class c arrive (a fraction: one every 1 / x slots), then
/// the port sends one. Returns the packets each class sent, from slot `from` on.
fn run(h: &mut Harness, offered: &[f64], slots: u64, from: u64, size: u32) -> Vec<u64> {
    let mut credit = vec![0.0; offered.len()];
    let mut sent = vec![0u64; offered.len()];
    for t in 0..slots {
        let now = SimTime::from_micros(t);
        for (c, &x) in offered.iter().enumerate() {
            credit[c] += x;
            while credit[c] >= 1.0 {
                credit[c] -= 1.0;
                let mut p = h.packet(c as u32, size);
                p.class = c as u8;
                p.ecn = Ecn::Ect0;
                h.enqueue(now, p);
            }
        }
        if let Some(p) = h.dequeue(now) {
            if t >= from {
                sent[p.class as usize] += 1;
            }
        }
    }
    sent
}

#[test]
fn strict_priority_gives_the_high_class_its_rate_and_the_low_one_the_rest() {
    // class 0 offers 70 % of the port (more than an equal share), class 1 200 %: class 0
    // loses nothing and waits at most behind one of its own packets; class 1 takes the 30 %
    // left
    let (mut h, pool) = port(
        200,
        SharedPolicy::DynamicThreshold,
        ClassScheduler::Priority,
        &[(1.0, 1, None), (1.0, 1, None)],
    );
    let sent = run(&mut h, &[0.7, 2.0], 20_000, 10_000, 1000);
    assert!(sent[0].abs_diff(7000) <= 1, "{sent:?}");
    assert_eq!(sent[0] + sent[1], 10_000, "{sent:?}");
    {
        let p = pool.borrow();
        assert_eq!(p.queues[0].drops_threshold + p.queues[0].drops_pool_full, 0);
        assert!(p.queues[1].drops_threshold > 0);
        assert!(p.queue_len(0) <= 1, "{}", p.queue_len(0));
    }
    // the statistics per queue, by name
    let s =
        h.q.class_stats(SimTime::from_micros(20_000))
            .expect("classes");
    assert_eq!(s[0]["name"], "p0");
    assert!(s[0]["max_packets"].as_u64().unwrap() <= 1, "{}", s[0]);
    assert_eq!(s[0]["drops"], 0);
    assert!(
        s[1]["drops_by_reason"]["shared_threshold"]
            .as_u64()
            .unwrap()
            > 0
    );
    // a class above the last queue's joins the last queue: min(class, P - 1)
    let mut p5 = h.packet(9, 1000);
    p5.class = 5;
    let before = s[1]["arrivals"].as_u64().unwrap();
    h.enqueue(SimTime::from_micros(20_000), p5);
    let s = h.q.class_stats(SimTime::from_micros(20_000)).unwrap();
    assert_eq!(s[1]["arrivals"].as_u64().unwrap(), before + 1);
}

#[test]
fn drr_and_wrr_share_the_port_by_weight() {
    // Shreedhar and Varghese: with both queues backlogged each gets w_i / sum w of the bytes
    for (scheduler, w) in [
        (ClassScheduler::Drr, [3u32, 1]),
        (ClassScheduler::Drr, [1, 2]),
        (ClassScheduler::Wrr, [4, 1]),
    ] {
        let (mut h, _) = port(
            400,
            SharedPolicy::DynamicThreshold,
            scheduler,
            &[(1.0, w[0], None), (1.0, w[1], None)],
        );
        let sent = run(&mut h, &[2.0, 2.0], 30_000, 10_000, 1000);
        let share = sent[0] as f64 / (sent[0] + sent[1]) as f64;
        let want = w[0] as f64 / (w[0] + w[1]) as f64;
        assert!(
            (share - want).abs() < 0.01,
            "{scheduler:?} {w:?}: {sent:?} share {share}, want {want}"
        );
    }
}

#[test]
fn per_priority_alpha_settles_at_the_closed_form() {
    // Choudhury and Hahne section III with an alpha per queue: q_i = alpha_i (B - Q) for
    // every overloaded queue, so B - Q = B / (1 + sum alpha) and q_i = alpha_i B / (1 + sum
    // alpha). B = 700, alphas 0.5 and 2: B - Q = 200, q = 100 and 400, under either scheduler
    // (strict priority leaves queue 1 blocked at its threshold, DRR drains both)
    for scheduler in [ClassScheduler::Priority, ClassScheduler::Drr] {
        let (mut h, pool) = port(
            700,
            SharedPolicy::DynamicThreshold,
            scheduler,
            &[(0.5, 1, None), (2.0, 1, None)],
        );
        run(&mut h, &[2.0, 2.0], 20_000, 0, 1000);
        let p = pool.borrow();
        for (i, want) in [(0, 100.0), (1, 400.0)] {
            let q = p.queue_len(i) as f64;
            assert!(
                (q - want).abs() <= 1.0 + 1e-9,
                "{scheduler:?}: queue {i} holds {q}, closed form {want}"
            );
        }
        let free = (700 - p.occupancy()) as f64;
        assert!((free - 200.0).abs() <= 2.0, "{scheduler:?}: free {free}");
    }
}

#[test]
fn ecn_threshold_of_one_queue_marks_that_queue_only() {
    // K = 5 packets on priority 1 only; both queues hold far more than 5
    let (mut h, pool) = port(
        400,
        SharedPolicy::DynamicThreshold,
        ClassScheduler::Drr,
        &[(1.0, 1, None), (1.0, 1, Some(QueueLimit::Packets(5)))],
    );
    run(&mut h, &[2.0, 2.0], 5_000, 0, 1000);
    let p = pool.borrow();
    assert_eq!(
        p.queues[0].marks, None,
        "an unmarked queue reports no marks"
    );
    let marks = p.queues[1].marks.expect("it marks");
    assert!(marks > 1000, "{marks}");
    assert_eq!(h.marks, marks);
    let s = h.q.class_stats(SimTime::from_micros(5_000)).unwrap();
    assert_eq!(s[0]["marks"], 0);
    assert_eq!(s[1]["marks"].as_u64().unwrap(), marks);
}

#[test]
fn abm_counts_n_p_per_priority() {
    // two ports of two priorities; priority 1 congested on both ports, priority 0 on one:
    // n_0 = 1, n_1 = 2 (Addanki et al. section 3: n_p counts the congested queues of p)
    let mut p = SharedPool::new("sw".into(), 1000, false, SharedPolicy::Abm, SimTime::ZERO)
        .with_abm(
            5,
            super::abm::DEFAULT_INTERVAL,
            super::abm::DEFAULT_UNSCHEDULED_ALPHA,
        );
    for port in 0..2 {
        for prio in 0..2 {
            let i = p.add_queue(format!("l{port}"), "h".into(), Some(1.0), None);
            p.set_port(i, prio, 1e9, 2);
        }
    }
    // queues: 0 = (port 0, p0), 1 = (port 0, p1), 2 = (port 1, p0), 3 = (port 1, p1)
    for i in [0, 1, 3] {
        for _ in 0..6 {
            p.admit(i, 1, false, SimTime::ZERO);
        }
    }
    let t = SimTime::from_micros(30);
    for i in 0..4 {
        p.admit(i, 1, false, t);
    }
    // (the levels are summed incrementally, so within rounding)
    for (i, want) in [(0, 1.0), (2, 1.0), (1, 2.0), (3, 2.0)] {
        let n = p.abm_snapshot(i).unwrap().0;
        assert!((n - want).abs() < 1e-9, "queue {i}: n_p {n}, want {want}");
    }
}

fn switch(text: &str) -> SwitchConfig {
    toml::from_str(text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn settings_resolve_from_the_most_specific_table() {
    let mut c = switch(
        r#"buffer = "100p"
        policy = "dynamic_threshold"
        alpha = 1.0
        ecn_threshold = "30p"
        priorities = [{ alpha = 2.0, weight = 3 }, { ecn_threshold = "10p" }]"#,
    );
    let s = |c: &SwitchConfig, p| c.queue_settings("a", p);
    assert_eq!(s(&c, Some(0)).alpha, Some(2.0));
    assert_eq!(s(&c, Some(0)).weight, 3);
    assert_eq!(s(&c, Some(0)).ecn_threshold, Some(QueueLimit::Packets(30)));
    assert_eq!(s(&c, Some(1)).alpha, Some(1.0));
    assert_eq!(s(&c, Some(1)).ecn_threshold, Some(QueueLimit::Packets(10)));
    assert_eq!(s(&c, Some(1)).weight, 1);
    c.queues.insert(
        "a".into(),
        SharedQueueConfig {
            alpha: Some(4.0),
            priorities: vec![
                PriorityConfig::default(),
                PriorityConfig {
                    alpha: Some(8.0),
                    ..PriorityConfig::default()
                },
            ],
            ..SharedQueueConfig::default()
        },
    );
    assert_eq!(
        s(&c, Some(0)).alpha,
        Some(4.0),
        "the port's beats the priority's"
    );
    assert_eq!(
        s(&c, Some(1)).alpha,
        Some(8.0),
        "the port's priority beats all"
    );
    assert_eq!(c.queue_settings("b", Some(1)).alpha, Some(1.0));
    assert!(c.validate().is_ok());
}

#[test]
fn bad_priority_settings_are_refused_with_their_field() {
    let field = |text: &str| switch(text).validate().unwrap_err().0;
    let base = "buffer = \"100p\"\npolicy = \"complete_sharing\"\n";
    assert_eq!(
        field(&format!(
            "{base}priorities = [{{}}, {{}}, {{}}, {{}}, {{}}, {{}}, {{}}, {{}}, {{}}]"
        )),
        "priorities"
    );
    assert_eq!(field(&format!("{base}scheduler = \"drr\"")), "scheduler");
    assert_eq!(field(&format!("{base}quantum = \"1500B\"")), "quantum");
    assert_eq!(
        field(&format!("{base}priorities = [{{}}]\nquantum = \"0B\"")),
        "quantum"
    );
    assert_eq!(
        field(&format!("{base}priorities = [{{ weight = 0 }}]")),
        "priorities[0].weight"
    );
    assert_eq!(
        field(&format!("{base}priorities = [{{}}, {{ alpha = -1.0 }}]")),
        "priorities[1].alpha"
    );
    assert_eq!(
        field(&format!("{base}priorities = [{{ threshold = \"10KB\" }}]")),
        "priorities[0].threshold"
    );
    assert_eq!(
        field(&format!(
            "{base}priorities = [{{ ecn_threshold = \"0p\" }}]"
        )),
        "priorities[0].ecn_threshold"
    );
    assert_eq!(
        field(&format!(
            "{base}priorities = [{{}}]\nqueues.a.priorities = [{{}}, {{}}]"
        )),
        "queues.a.priorities"
    );
}
