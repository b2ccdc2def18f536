//! FullTcp between two agents over a fixed-delay path (no queue): the handshake and the
//! first window as ns-2.35 sends them (checked against `ns` traces: SYN 0xa, SYN+ACK 0x1a,
//! then the opener's ACK and two 536-byte segments), a loss repaired by each variant's
//! recovery, and the delayed-ACK timer's period.

use super::*;
use crate::ids::{FlowId, NodeId};
use crate::monitor::flow_stats::FlowStats;
use crate::packet::tcp_flags as th;
use crate::tcp::config::{Preset, TcpOptions};
use crate::tcp::full::FullTcpOptions;
use std::collections::BTreeMap;

fn params(variant: FullTcpVariant, segsperack: u32) -> TcpParams {
    let o = TcpOptions {
        preset: Some(Preset::Ns2),
        mss: Some(crate::units::Bytes(536)),
        full_tcp: Some(FullTcpOptions {
            variant: Some(variant),
            segsperack: Some(segsperack),
            ..FullTcpOptions::default()
        }),
        ..TcpOptions::default()
    };
    let p = TcpParams::resolve(&o, Some(crate::units::Bytes(40)));
    p.validate().unwrap();
    p
}

/// (time, from_opener, packet) as it left an agent.
type Sent = (SimTime, bool, Packet);

struct Pair {
    a: FullTcpAgent,
    b: FullTcpAgent,
    stats: FlowStats,
    /// in flight: (arrival, order) -> (to the listener?, packet)
    wire: BTreeMap<(SimTime, u64), (bool, Packet)>,
    order: u64,
    delay: SimTime,
    sent: Vec<Sent>,
    /// data segments of the opener (by byte seq) to drop once
    drop: Vec<i64>,
}

impl Pair {
    fn new(p: TcpParams, drop: Vec<i64>) -> Pair {
        Pair {
            a: FullTcpAgent::active(p.clone(), TcpApp::Bulk, SimTime::from_secs(1)),
            b: FullTcpAgent::listener(p),
            stats: FlowStats::default(),
            wire: BTreeMap::new(),
            order: 0,
            delay: SimTime::from_millis(50),
            sent: Vec::new(),
            drop,
        }
    }

    fn call(&mut self, now: SimTime, opener: bool, pkt: Option<Packet>) {
        let mut out = Vec::new();
        {
            let mut cx = EndpointCtx {
                now,
                now_s: now.as_secs_f64(),
                stats: &mut self.stats,
                out: &mut out,
                warmup: SimTime::ZERO,
                flow: FlowId(0),
                from: NodeId(if opener { 0 } else { 1 }),
                to: NodeId(if opener { 1 } else { 0 }),
                class: 0,
                reverse: !opener,
            };
            let ep: &mut dyn Endpoint = if opener { &mut self.a } else { &mut self.b };
            match pkt {
                Some(p) => ep.on_packet(p, &mut cx),
                None => ep.on_timeout(&mut cx),
            }
        }
        for p in out {
            self.sent.push((now, opener, p));
            let seq = p.tcp.seq as i64;
            if opener && p.payload > 0 {
                if let Some(i) = self.drop.iter().position(|&s| s == seq) {
                    self.drop.remove(i);
                    continue;
                }
            }
            self.order += 1;
            self.wire
                .insert((now + self.delay, self.order), (opener, p));
        }
    }

    fn run(&mut self, until: SimTime) {
        loop {
            let ta = self.a.next_timeout().unwrap_or(SimTime::MAX);
            let tb = self.b.next_timeout().unwrap_or(SimTime::MAX);
            let tw = self.wire.keys().next().map_or(SimTime::MAX, |k| k.0);
            let t = ta.min(tb).min(tw);
            if t > until {
                break;
            }
            if tw == t {
                let (k, (to_b, p)) = self.wire.pop_first().unwrap();
                self.call(k.0, !to_b, Some(p));
            } else if ta == t {
                self.call(t, true, None);
            } else {
                self.call(t, false, None);
            }
        }
    }
}

#[test]
fn handshake_then_the_initial_window() {
    let mut x = Pair::new(params(FullTcpVariant::Reno, 1), vec![]);
    // 50 ms each way: the SYN at 1 s, the SYN+ACK back at 1.1 s, the first data at 1.15 s
    x.run(SimTime::from_millis(1140));
    let s: Vec<(bool, i64, i64, u8, u32)> = x
        .sent
        .iter()
        .map(|(_, o, p)| {
            (
                *o,
                p.tcp.seq as i64,
                p.tcp.ack as u32 as i32 as i64,
                p.tcp.flags,
                p.size,
            )
        })
        .collect();
    // tcp-full.cc: SYN (PUSH: an infinite send's dataless SYN), SYN+ACK (PUSH: nothing
    // buffered), the opener's ACK, then cwnd_ = initial_window() = 2 segments
    assert_eq!(s[0], (true, 0, -1, th::SYN | th::PSH, 40));
    assert_eq!(s[1], (false, 0, 1, th::SYN | th::ACK | th::PSH, 40));
    assert_eq!(s[2], (true, 1, 1, th::ACK, 40));
    assert_eq!(s[3], (true, 1, 1, th::ACK, 576));
    assert_eq!(s[4], (true, 537, 1, th::ACK, 576));
    assert_eq!(s.len(), 5);
    // segsperack_ 1: every segment is ACKed at once, with PUSH (the listener has no data)
    x.run(SimTime::from_millis(1160));
    let acks: Vec<_> = x.sent.iter().filter(|(_, o, _)| !o).skip(1).collect();
    assert_eq!(acks[0].2.tcp.ack, 537);
    assert_eq!(acks[0].2.tcp.flags, th::ACK | th::PSH);
}

fn retransmissions(x: &Pair) -> Vec<i64> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for (_, o, p) in &x.sent {
        if *o && p.payload > 0 && !seen.insert(p.tcp.seq) {
            out.push(p.tcp.seq as i64);
        }
    }
    out
}

#[test]
fn reno_fast_retransmit_halves_the_window() {
    let lost = 1 + 10 * 536;
    let mut x = Pair::new(params(FullTcpVariant::Reno, 1), vec![lost]);
    x.run(SimTime::from_secs(3));
    assert_eq!(retransmissions(&x), vec![lost]);
    assert_eq!(x.a.nrexmit, 0, "no timeout");
    assert!(x.a.ssthresh >= 2 && x.a.ssthresh < 20, "{}", x.a.ssthresh);
    assert!(!x.a.fastrecov);
    assert_eq!(x.b.rcv_nxt, x.a.highest_ack);
}

#[test]
fn newreno_repairs_two_losses_without_a_timeout() {
    let l1 = 1 + 10 * 536;
    let l2 = 1 + 12 * 536;
    let mut x = Pair::new(params(FullTcpVariant::Newreno, 1), vec![l1, l2]);
    x.run(SimTime::from_secs(3));
    assert_eq!(retransmissions(&x), vec![l1, l2]);
    assert_eq!(x.a.nrexmit, 0);
}

#[test]
fn tahoe_goes_back_to_one_segment() {
    let lost = 1 + 10 * 536;
    let mut x = Pair::new(params(FullTcpVariant::Tahoe, 1), vec![lost]);
    // stop just after the third duplicate ACK arrives
    let mut t = SimTime::from_secs(1);
    while x.a.dupacks < 3 && t < SimTime::from_secs(3) {
        t = t + SimTime::from_millis(1);
        x.run(t);
    }
    assert_eq!(x.a.cwnd, 1.0);
    assert_eq!(
        x.a.t_seqno,
        lost + 536,
        "went back to highest_ack_ and sent the hole"
    );
}

#[test]
fn delayed_acks_every_second_segment_and_on_the_interval() {
    let mut x = Pair::new(params(FullTcpVariant::Reno, 2), vec![]);
    x.run(SimTime::from_millis(1400));
    let acks: Vec<u64> = x
        .sent
        .iter()
        .filter(|(_, o, p)| !o && p.tcp.flags & th::SYN == 0)
        .map(|(_, _, p)| p.tcp.ack)
        .collect();
    // the first two segments are ACKed together (segsperack_ 2)
    assert_eq!(acks[0], 1073);
    // the listener's timer ticks on multiples of interval_ (recv: int(now / 0.1) + 1)
    let d = x.b.delack_at.unwrap();
    assert!((d * 10.0 - (d * 10.0).round()).abs() < 1e-9, "{d}");
}
