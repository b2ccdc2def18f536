//! Which packets are ECN-capable (`Rules::ect_on_every_packet`): a controller that needs ECN
//! (DCTCP, Prague) makes the SYN and the pure ACKs ECT too under Linux's and ns-3's rules
//! (`TCP_CONG_NEEDS_ECN` / `DctcpEcn`); RFC 3168 section 6.1.1 and ns-2 keep them not-ECT. And
//! DCTCP's reduced window: at least two segments (Linux `dctcp_ssthresh`), no floor in ns-3.44
//! (`TcpDctcp::GetSsThresh`).

use super::*;
use std::cell::RefCell;
use std::rc::Rc;

fn with(preset: Preset, cc: CcKind, ecn: bool) -> TcpParams {
    params(|o| {
        o.preset = Some(preset);
        o.cc = Some(cc);
        o.ecn = Some(ecn);
        o.handshake = Some(true);
    })
}

/// The codepoints of the sender's first packets (the SYN first) and of the receiver's ACKs.
fn codepoints(p: TcpParams) -> (Vec<(u8, Ecn, bool)>, Vec<Ecn>) {
    let sent = Rc::new(RefCell::new(Vec::new()));
    let log = sent.clone();
    let mut pipe = Pipe::new(p.clone(), TcpApp::Transfer { bytes: 20_000 }, ms(5));
    pipe.drop = Box::new(move |_, pkt, _| {
        log.borrow_mut()
            .push((pkt.tcp.flags, pkt.ecn, pkt.payload > 0));
        false
    });
    pipe.run_until(ms(500));
    let acks = feed_receiver(p, &[(0, Ecn::Ect0), (1, Ecn::Ect0)])
        .into_iter()
        .map(|(_, a)| a.ecn)
        .collect();
    let sent = sent.borrow().clone();
    (sent, acks)
}

#[test]
fn dctcp_and_prague_send_every_packet_ect_under_linux_and_ns3_rules() {
    for (preset, cc, ect) in [
        (Preset::Ns3, CcKind::Dctcp, Ecn::Ect0),
        (Preset::Linux, CcKind::Dctcp, Ecn::Ect0),
        (Preset::Linux, CcKind::Prague, Ecn::Ect1),
    ] {
        let (sent, acks) = codepoints(with(preset, cc, true));
        let (syn_flags, syn_ecn, _) = sent[0];
        assert!(syn_flags & tcp_flags::SYN != 0, "{preset:?} {cc:?}");
        assert_eq!(syn_ecn, ect, "{preset:?} {cc:?}: the SYN");
        assert!(
            sent.iter().all(|&(_, e, _)| e == ect),
            "{preset:?} {cc:?}: {sent:?}"
        );
        assert!(
            !acks.is_empty() && acks.iter().all(|&e| e == ect),
            "{acks:?}"
        );
    }
}

#[test]
fn classic_ecn_and_rfc_rules_keep_syn_and_acks_not_ect() {
    for (preset, cc, ecn) in [
        (Preset::Linux, CcKind::Cubic, true),
        (Preset::Ns3, CcKind::Newreno, true),
        (Preset::Ns2, CcKind::Dctcp, true),
        (Preset::Ns3, CcKind::Dctcp, false),
    ] {
        let p = with(preset, cc, ecn);
        assert_eq!(p.ect_on_every_packet(), None, "{preset:?} {cc:?}");
        let (sent, acks) = codepoints(p);
        assert_eq!(sent[0].1, Ecn::NotEct, "{preset:?} {cc:?}: the SYN");
        // data segments are ECT exactly when ECN is on, the rest (the handshake's third
        // segment, a pure ACK) never (RFC 3168 section 6.1.1)
        let data = if ecn { Ecn::Ect0 } else { Ecn::NotEct };
        for &(_, e, has_data) in &sent[1..] {
            assert_eq!(e, if has_data { data } else { Ecn::NotEct }, "{sent:?}");
        }
        assert!(acks.iter().all(|&e| e == Ecn::NotEct), "{acks:?}");
    }
}

#[test]
fn dctcp_cuts_to_two_segments_at_least_in_linux_and_without_floor_in_ns3() {
    use crate::tcp::cc::Window;
    for (preset, floor) in [(Preset::Linux, 2.0), (Preset::Ns3, 0.0)] {
        let p = with(preset, CcKind::Dctcp, true);
        let mut cc = crate::tcp::cc::build(&p);
        // alpha starts at 1: a window of 3 segments is cut to 1.5 (ns-3) or 2 (Linux)
        let w = Window {
            cwnd: 3.0 * f64::from(p.mss),
            ssthresh: f64::MAX,
            mss: f64::from(p.mss),
        };
        let cut = cc.ssthresh_on_ecn(&w, 0, SimTime::ZERO) / f64::from(p.mss);
        assert!(
            (cut - f64::max(1.5, floor)).abs() < 1e-9,
            "{preset:?}: {cut}"
        );
    }
}
