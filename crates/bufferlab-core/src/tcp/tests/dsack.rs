//! D-SACK (RFC 2883) sent by the `linux` preset's receiver and read by its sender, and Linux's
//! undo of a reduction that reordering caused (`tcp/sender/dsack_undo.rs`, `tcp/rack.rs`).

use super::linux::linux;
use super::*;

/// An ACK as (arrival index, ack number, SACK blocks in segment numbers).
type AckBlocks = (usize, u64, Vec<(u64, u64)>);

/// The SACK blocks of the ACKs a receiver sends for segments `segs` (one a millisecond), as
/// (arrival index, ack number, blocks in segment numbers from 0).
fn blocks(p: TcpParams, segs: &[u64]) -> Vec<AckBlocks> {
    let segs: Vec<(u64, Ecn)> = segs.iter().map(|&k| (k, Ecn::NotEct)).collect();
    let n = |x: u64| (x - 1) / 1000;
    feed_receiver(p, &segs)
        .into_iter()
        .map(|(i, a)| {
            let b = a.tcp.sack_blocks().map(|(s, e)| (n(s), n(e))).collect();
            (i, n(a.tcp.ack), b)
        })
        .collect()
}

#[test]
fn a_linux_receiver_reports_a_duplicate_first_and_once() {
    let p = || linux(|o| o.delayed_ack = Some(false));
    // 0 1 1 2: the repeat of 1 is answered with [1, 2) below the cumulative ACK 2
    // (tcp_data_queue -> tcp_dsack_set); the ACK of 2 carries nothing
    assert_eq!(
        blocks(p(), &[0, 1, 1, 2]),
        vec![
            (0, 1, vec![]),
            (1, 2, vec![]),
            (2, 2, vec![(1, 2)]),
            (3, 3, vec![])
        ]
    );
    // 0 2 2 3: the repeat of 2 is held out of order: the D-SACK [2, 3) first, then the
    // block that holds it (RFC 2883 section 4, tcp_data_queue_ofo)
    assert_eq!(
        blocks(p(), &[0, 2, 2, 3]),
        vec![
            (0, 1, vec![]),
            (1, 1, vec![(2, 3)]),
            (2, 1, vec![(2, 3), (2, 3)]),
            (3, 1, vec![(2, 4)])
        ]
    );
    // dsack off (sysctl tcp_dsack 0), and the ns3 preset: no report
    let off = linux(|o| {
        o.delayed_ack = Some(false);
        o.dsack = Some(false);
    });
    let ns3 = linux(|o| {
        o.preset = Some(Preset::Ns3);
        o.sack = Some(true);
        o.delayed_ack = Some(false);
    });
    for p in [off, ns3] {
        assert_eq!(blocks(p, &[0, 1, 1, 2])[2], (2, 2, vec![]));
    }
}

#[test]
fn dsack_is_the_linux_flavours_only() {
    let o = TcpOptions {
        preset: Some(Preset::Ns3),
        dsack: Some(true),
        ..TcpOptions::default()
    };
    let err = TcpParams::resolve(&o, None).validate().unwrap_err();
    assert_eq!(err.0, "dsack");
    assert!(err.1.contains(r#"preset = "linux""#), "{}", err.1);
}

/// 20 segments sent at 1 ms; segment 0 is reordered, not lost: segments 1-3 are SACKed at
/// 101-103 ms (the third makes RACK, with no reordering seen, mark 0 lost and retransmit it at
/// 103 ms), the original 0 arrives at 104 ms (cumulative ACK 4, echoing its timestamp, 1 ms),
/// the retransmission at 105 ms (a D-SACK of [0, 1) below ACK 4). Returns the sender's report
/// counters (`tcp.rack`) and cwnd in segments after the reduction and at the end.
fn reordered_head(p: TcpParams) -> (serde_json::Value, f64, f64) {
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.now = ms(1);
    pipe.call(true, None);
    assert_eq!(pipe.sent_log.len(), 20);
    for k in 1..=3 {
        feed_sack_echo(&mut pipe, 100 + k, seg(0), &[(1, k + 1)], 0);
    }
    assert_eq!(pipe.snd.stats.fast_retransmits, 1, "segment 0 marked lost");
    assert!(sent_at_ms(&pipe, 103).contains(&(seg(0), 1)));
    let reduced = pipe.cwnd_segs();
    feed_sack_echo(&mut pipe, 104, seg(4), &[], 1);
    feed_sack_echo(&mut pipe, 105, seg(4), &[(0, 1)], 103);
    let rack = pipe.snd.report().expect("a sender report")["rack"].clone();
    (rack, reduced, pipe.cwnd_segs())
}

#[test]
fn a_reduction_that_reordering_caused_is_undone() {
    // Timestamps (the linux preset's): the original's echo (1 ms) is older than the
    // retransmission (103 ms), so the partial ACK undoes the reduction (tcp_try_undo_partial:
    // no retransmission left in flight) and notes reordering; the D-SACK then widens RACK's
    // window by a step (tcp_rack_update_reo_wnd)
    let (rack, reduced, end) = reordered_head(linux(|_| {}));
    assert!(reduced < 20.0, "the reduction: {reduced}");
    assert!(end >= 20.0, "cwnd back to prior_cwnd: {end}");
    assert_eq!(rack["partial_undos"], 1, "{rack}");
    assert_eq!(rack["dsacks_received"], 1);
    assert_eq!(rack["reo_wnd_steps"], 2);
    // Without timestamps the D-SACK alone shows the one retransmission was a duplicate
    // (undo_retrans 0: tcp_try_undo_dsack); no reordering was seen, so the window stays
    let (rack, _, end) = reordered_head(linux(|o| o.timestamps = Some(false)));
    assert!(end >= 20.0, "{end}");
    assert_eq!(
        (rack["partial_undos"].clone(), rack["dsack_undos"].clone()),
        (0.into(), 1.into())
    );
    assert_eq!(rack["reo_wnd_steps"], 1);
    // Neither: the reduction stands
    let (rack, reduced, end) = reordered_head(linux(|o| {
        o.timestamps = Some(false);
        o.dsack = Some(false);
    }));
    assert!(end < 20.0 && end <= reduced + 2.0, "{reduced} -> {end}");
    assert_eq!(rack["dsacks_received"], 0);
}

/// Two web objects of 10 segments, 500 ms apart, 50 ms each way; the ACK of the first
/// object's last segment is lost, so the tail loss probe sends that segment again although it
/// arrived (no new data to probe with). Returns the sender's `tcp.rack` counters.
fn probe_of_a_lost_ack(p: TcpParams) -> serde_json::Value {
    use crate::traffic::{Distribution, ObjectSize};
    let app = TcpApp::Web {
        size: ObjectSize::Constant {
            value: Bytes(10_000),
        },
        think: Distribution::Constant { value: ms(500) },
        objects: Some(2),
        rng: crate::rng::stream(1, "t"),
    };
    let mut pipe = Pipe::new(p, app, ms(50));
    let mut dropped = false;
    pipe.ack_drop = Box::new(move |_, a, _| {
        let first = !dropped && a.tcp.ack == seg(10);
        dropped |= first;
        first
    });
    pipe.run_until(SimTime::from_secs(3));
    assert_eq!(pipe.rcv.delivered, 20_000, "both objects delivered");
    assert_eq!(pipe.snd.stats.timeouts, 0);
    pipe.snd.report().expect("a sender report")["rack"].clone()
}

#[test]
fn a_dsack_of_the_probe_tells_that_nothing_was_lost() {
    // Linux tcp_process_tlp_ack: the probe's D-SACK (its end is tlp_high_seq,
    // FLAG_DSACK_TLP) ends the episode without a reduction
    let rack = probe_of_a_lost_ack(linux(|o| o.delayed_ack = Some(false)));
    assert_eq!(rack["loss_probes"], 1, "{rack}");
    assert_eq!(rack["dsacks_received"], 1);
    assert_eq!(rack["loss_probe_recoveries"], 0);
    // Without D-SACK the ACK of the probe is no duplicate (it advances SND.UNA), so the
    // episode stays open and the next object's first ACK above tlp_high_seq counts as a loss
    // the probe repaired: a needless reduction
    let rack = probe_of_a_lost_ack(linux(|o| {
        o.delayed_ack = Some(false);
        o.dsack = Some(false);
    }));
    assert_eq!(rack["loss_probes"], 1, "{rack}");
    assert_eq!(rack["loss_probe_recoveries"], 1);
}
