//! The Linux flavour's rules (`tcp/flavour/linux.rs`) on a sender fed by hand: PRR
//! (`tcp/sender/prr_linux.rs`, Linux `tcp_cwnd_reduction`) against RFC 6675's cwnd = ssthresh.

use super::*;

/// The `linux` preset with NewReno (ssthresh = FlightSize / 2) and 1000-byte segments, data
/// from t = 0 with an initial window of 20 segments.
pub(super) fn linux(f: impl FnOnce(&mut TcpOptions)) -> TcpParams {
    let mut o = TcpOptions {
        preset: Some(Preset::Linux),
        cc: Some(CcKind::Newreno),
        mss: Some(Bytes(1000)),
        iw: Some(20),
        handshake: Some(false),
        ..TcpOptions::default()
    };
    f(&mut o);
    TcpParams::resolve(&o, None)
}

/// RFC 6937 section 6's single loss: 20 segments out, segment 0 lost, then the ACKs of
/// segments 1 to 19, the k-th SACKing 1..=k at 100 + k ms. Returns what each ACK sent:
/// (segment number, transmission number).
fn single_loss(p: TcpParams) -> Vec<Vec<(u64, u32)>> {
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.call(true, None);
    assert_eq!(pipe.sent_log.len(), 20);
    (1..=19)
        .map(|k| {
            feed_sack(&mut pipe, 100 + k, seg(0), &[(1, k + 1)]);
            sent_at_ms(&pipe, 100 + k)
                .into_iter()
                .map(|(s, n)| ((s - 1) / 1000, n))
                .collect()
        })
        .collect()
}

#[test]
fn linux_prr_spreads_the_reduction_where_rfc6675_waits_half_a_round() {
    let prr = single_loss(linux(|_| {}));
    let rfc = single_loss(linux(|o| o.prr = Some(false)));
    // Both: nothing on the first two duplicates (cwnd 20 full), the fast retransmission of
    // segment 0 on the third.
    for sent in [&prr, &rfc] {
        assert!(sent[0].is_empty() && sent[1].is_empty());
        assert_eq!(sent[2], vec![(0, 1)]);
    }
    // PRR (prior_cwnd 20, ssthresh 10): ACK k >= 3 has delivered k - 2 segments in recovery,
    // and ceil(10 (k - 2) / 20) segments have left: one new segment on every other ACK from
    // the fifth, while pipe stays above ssthresh.
    let mut total = 0;
    for (i, sent) in prr.iter().enumerate().skip(2) {
        let k = i as u64 + 1;
        assert!(sent.len() <= 1, "ACK {k} sent {sent:?}");
        total += sent.len() as u64;
        if k <= 12 {
            assert_eq!(total, (10 * (k - 2)).div_ceil(20), "after ACK {k}: {prr:?}");
        }
    }
    assert_eq!(prr[4], vec![(20, 0)], "segment 20 on the fifth ACK");
    // RFC 6675: cwnd = ssthresh = 10 at once, pipe 20 - k: silent until pipe < 10 (ACK 11).
    assert!(rfc[3..10].iter().all(|s| s.is_empty()), "{rfc:?}");
    assert_eq!(rfc[10], vec![(20, 0)]);
    // PRR had sent 4 new segments by then, RFC 6675 one.
    let new = |s: &[Vec<(u64, u32)>]| s.iter().flatten().filter(|e| e.1 == 0).count();
    assert_eq!((new(&prr[..11]), new(&rfc[..11])), (4, 1));
}

#[test]
fn linux_prr_is_the_linux_flavours_only() {
    // The RFC flavour (the ns2 preset without its rules) ignores `prr`: RFC 6675 as before.
    let rfc_flavour = |prr| {
        let p = linux(|o| {
            o.preset = Some(Preset::Ns2);
            o.ns2_rules = Some(false);
            o.sack = Some(true);
            o.prr = Some(prr);
        });
        assert_eq!(p.flavour, super::super::flavour::Flavour::Rfc);
        single_loss(p)
    };
    assert_eq!(rfc_flavour(true), rfc_flavour(false));
    assert_ne!(
        single_loss(linux(|_| {})),
        single_loss(linux(|o| o.prr = Some(false)))
    );
}

// ---- RACK-TLP (RFC 8985; tcp/rack.rs, tcp/sender/rack_tlp.rs) ----

/// After `single_loss`'s round (segment 0 retransmitted at 103 ms, new segments from 105 ms),
/// the ACK at 205 ms SACKs everything but segment 0, segment 20 (sent at 105 ms) included.
fn lost_retransmission(p: TcpParams) -> Pipe {
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.call(true, None);
    for k in 1..=19 {
        feed_sack(&mut pipe, 100 + k, seg(0), &[(1, k + 1)]);
    }
    assert!(pipe
        .sent_log
        .iter()
        .any(|e| e.1 == seg(20) && e.0 == ms(105)));
    feed_sack(&mut pipe, 205, seg(0), &[(1, 21)]);
    pipe
}

#[test]
fn rack_detects_a_lost_retransmission_by_time() {
    // RACK: segment 20, sent 2 ms after the retransmission of 0, is delivered 100 ms later;
    // the retransmission is then lost (103 + 100 ms + a zero window in recovery <= 205 ms)
    // and goes a third time at once.
    let pipe = lost_retransmission(linux(|_| {}));
    assert_eq!(
        sent_at_ms(&pipe, 205).first(),
        Some(&(seg(0), 2)),
        "{:?}",
        pipe.sent_log
    );
    assert_eq!(pipe.snd.stats.timeouts, 0);
    // RFC 6675's scoreboard has retransmitted segment 0 once (HighRxt past it): only the
    // RTO can send it again.
    let pipe = lost_retransmission(linux(|o| o.rack_tlp = Some(false)));
    assert!(
        !sent_at_ms(&pipe, 205).iter().any(|e| e.0 == seg(0)),
        "{:?}",
        pipe.sent_log
    );
}

#[test]
fn rack_does_not_mark_reordering_within_the_window_lost() {
    // Segment 0 arrives after segment 1 (RACK sees reordering), then segment 4 after 5, 6, 7:
    // three duplicate ACKs, which RFC 6675 takes for a loss.
    let run = |p: TcpParams| {
        let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
        pipe.call(true, None);
        feed_sack(&mut pipe, 101, seg(0), &[(1, 2)]);
        feed_sack(&mut pipe, 102, seg(2), &[]);
        feed_sack(&mut pipe, 103, seg(4), &[]);
        for k in 5..=7 {
            feed_sack(&mut pipe, 99 + k, seg(4), &[(5, k + 1)]);
        }
        feed_sack(&mut pipe, 107, seg(8), &[]);
        pipe.retransmissions()
    };
    // RACK: the window is min_rtt / 4 = 25 ms once reordering was seen; segment 4 (sent at 0,
    // RACK.rtt 106 ms) would be lost only at 131 ms, and arrives at 107 ms.
    assert_eq!(run(linux(|_| {})), 0);
    assert_eq!(run(linux(|o| o.rack_tlp = Some(false))), 1);
}

/// Ten segments of a transfer, the last two lost once, 50 ms each way.
fn tail_loss(p: TcpParams) -> Pipe {
    let mut pipe = Pipe::new(p, TcpApp::Transfer { bytes: 10_000 }, ms(50));
    pipe.drop = drop_seqs(vec![seg(8), seg(9)]);
    pipe.run_until(SimTime::from_secs(5));
    pipe
}

#[test]
fn a_tail_loss_is_recovered_by_the_probe_without_a_timeout() {
    let pipe = tail_loss(linux(|o| o.delayed_ack = Some(false)));
    assert!(pipe.snd.snd_una() > 10_000, "all delivered");
    assert_eq!(pipe.snd.stats.timeouts, 0, "{:?}", pipe.sent_log);
    // the probe resends segment 9 (the highest, no new data); its SACK makes RACK mark 8 lost
    let retx: Vec<u64> = pipe
        .sent_log
        .iter()
        .filter(|e| e.2 > 0)
        .map(|e| e.1)
        .collect();
    assert_eq!(retx, vec![seg(9), seg(8)]);
    // without RACK-TLP the RTO recovers
    let pipe = tail_loss(linux(|o| {
        o.delayed_ack = Some(false);
        o.rack_tlp = Some(false);
    }));
    assert!(pipe.snd.snd_una() > 10_000);
    assert_eq!(pipe.snd.stats.timeouts, 1);
}

#[test]
fn rack_tlp_is_refused_outside_the_linux_rules() {
    let p = linux(|o| {
        o.ns3_rules = Some(true);
        o.rack_tlp = Some(true);
    });
    assert_eq!(p.validate().map_err(|e| e.0), Err("rack_tlp"));
    // the linux preset under ns-3's rules drops its own default silently
    assert!(!linux(|o| o.ns3_rules = Some(true)).rack_tlp);
}

// ---- slow_start (cc/hystart_pp.rs: HyStart++, RFC 9406; CUBIC's classic HyStart) ----

#[test]
fn slow_start_is_refused_where_it_is_not_modelled() {
    use crate::tcp::config::SlowStart::{Hystart, HystartPp, Rfc5681};
    let refused = |f: &dyn Fn(&mut TcpOptions)| {
        let p = linux(f);
        p.validate().map_err(|e| e.0)
    };
    // HyStart++ for the AIMD controllers and CUBIC under the RFC and linux rules
    for cc in [
        CcKind::Reno,
        CcKind::Newreno,
        CcKind::LinuxReno,
        CcKind::Cubic,
    ] {
        assert_eq!(
            refused(&|o| {
                o.cc = Some(cc);
                o.slow_start = Some(HystartPp);
            }),
            Ok(())
        );
    }
    // not for controllers with a start-up of their own, nor under ns-2's or ns-3's rules
    for f in [
        &(|o: &mut TcpOptions| {
            o.cc = Some(CcKind::Bbr);
            o.slow_start = Some(HystartPp);
        }) as &dyn Fn(&mut TcpOptions),
        &|o| {
            o.ns3_rules = Some(true);
            o.slow_start = Some(HystartPp);
        },
        &|o| {
            o.ns2_rules = Some(true);
            o.slow_start = Some(HystartPp);
        },
        // classic HyStart is CUBIC's
        &|o| o.slow_start = Some(Hystart),
        &|o| {
            o.cc = Some(CcKind::Vegas);
            o.slow_start = Some(Rfc5681);
        },
    ] {
        assert_eq!(refused(f), Err("slow_start"));
    }
}

#[test]
fn slow_start_picks_cubics_hystart_and_shows_only_when_given() {
    use crate::tcp::cc::hystart_pp::cubic_hystart;
    use crate::tcp::config::SlowStart::{HystartPp, Rfc5681};
    use crate::tcp::flavour::HystartVariant;
    let cubic = |s| {
        linux(|o| {
            o.cc = Some(CcKind::Cubic);
            o.slow_start = s;
        })
    };
    assert_eq!(cubic_hystart(&cubic(None)), Some(HystartVariant::Linux));
    assert_eq!(cubic_hystart(&cubic(Some(Rfc5681))), None);
    assert_eq!(cubic_hystart(&cubic(Some(HystartPp))), None);
    // validate --json: the setting appears only when given, so other reports keep their bytes
    assert!(cubic(None).to_json().get("slow_start").is_none());
    assert_eq!(cubic(Some(HystartPp)).to_json()["slow_start"], "hystart++");
}
