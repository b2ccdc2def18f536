//! Sans-IO tests: a sender and a receiver joined by a tiny two-way pipe (propagation delay,
//! an optional rate-limited FIFO in the data direction, a drop rule), with no simulation.
//! One banner per regime.

use super::app::TcpApp;
use super::config::{CcKind, Preset, TcpOptions, TcpParams};
use super::{TcpReceiver, TcpSender};
use crate::endpoint::{Endpoint, EndpointCtx};
use crate::ids::{FlowId, NodeId};
use crate::monitor::flow_stats::FlowStats;
use crate::packet::{tcp_flags, Ecn, Packet, PacketKind, TcpHeader};
use crate::units::{Bytes, QueueLimit, Rate, SimTime};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

mod dsack;
mod ect;
mod linux;

type DropRule = Box<dyn FnMut(u64, &Packet, SimTime) -> bool>;
type MarkRule = Box<dyn FnMut(u64, &Packet) -> bool>;

fn ms(v: u64) -> SimTime {
    SimTime::from_millis(v)
}

/// Sender at one end, receiver at the other.
struct Pipe {
    snd: TcpSender,
    rcv: TcpReceiver,
    stats: FlowStats,
    now: SimTime,
    delay: SimTime,
    rate: Option<Rate>,
    free_at: SimTime,
    /// Departure times of data packets still in the bottleneck FIFO (or being sent).
    fifo: VecDeque<SimTime>,
    heap: BinaryHeap<Reverse<(SimTime, u64, usize)>>,
    slots: Vec<Option<(bool, Packet)>>,
    seq: u64,
    out: Vec<Packet>,
    /// Decides whether the n-th data packet (0-based) is lost.
    drop: DropRule,
    /// Decides whether the n-th packet of the receiver (0-based) is lost.
    ack_drop: DropRule,
    acks_made: u64,
    /// Marks CE on the n-th data packet.
    mark: MarkRule,
    data_sent: u64,
    /// (time, seq, is retransmission) of every data packet sent.
    sent_log: Vec<(SimTime, u64, u32)>,
    /// Receiver -> sender ACK arrival times.
    ack_log: Vec<SimTime>,
    /// Their acknowledgement numbers.
    ack_nums: Vec<u64>,
    /// SYN-ACKs that reached the sender.
    synacks: u32,
    /// After every sender call: (time, cwnd, ssthresh, outstanding, rwnd).
    trace: Vec<(SimTime, f64, f64, u64, u64)>,
}

impl Pipe {
    fn new(p: TcpParams, app: TcpApp, delay: SimTime) -> Self {
        Self {
            snd: TcpSender::new(p.clone(), app, SimTime::ZERO, SimTime::MAX),
            rcv: TcpReceiver::new(p),
            stats: FlowStats::default(),
            now: SimTime::ZERO,
            delay,
            rate: None,
            free_at: SimTime::ZERO,
            fifo: VecDeque::new(),
            heap: BinaryHeap::new(),
            slots: Vec::new(),
            seq: 0,
            out: Vec::new(),
            drop: Box::new(|_, _, _| false),
            ack_drop: Box::new(|_, _, _| false),
            acks_made: 0,
            mark: Box::new(|_, _| false),
            data_sent: 0,
            sent_log: Vec::new(),
            ack_log: Vec::new(),
            ack_nums: Vec::new(),
            synacks: 0,
            trace: Vec::new(),
        }
    }

    fn push(&mut self, at: SimTime, to_rcv: bool, p: Packet) {
        self.slots.push(Some((to_rcv, p)));
        self.seq += 1;
        self.heap
            .push(Reverse((at, self.seq, self.slots.len() - 1)));
    }

    fn call(&mut self, sender: bool, pkt: Option<Packet>) {
        let mut out = std::mem::take(&mut self.out);
        {
            let mut cx = EndpointCtx {
                now: self.now,
                now_s: self.now.as_secs_f64(),
                stats: &mut self.stats,
                out: &mut out,
                warmup: SimTime::ZERO,
                flow: FlowId(0),
                from: NodeId(if sender { 0 } else { 1 }),
                to: NodeId(if sender { 1 } else { 0 }),
                class: 0,
                reverse: !sender,
            };
            let ep: &mut dyn Endpoint = if sender { &mut self.snd } else { &mut self.rcv };
            match pkt {
                Some(p) => ep.on_packet(p, &mut cx),
                None => ep.on_timeout(&mut cx),
            }
        }
        for mut p in out.drain(..) {
            if sender {
                let n = self.data_sent;
                self.data_sent += 1;
                if p.payload > 0 {
                    let retx = self.sent_log.iter().filter(|e| e.1 == p.tcp.seq).count() as u32;
                    self.sent_log.push((self.now, p.tcp.seq, retx));
                }
                if (self.drop)(n, &p, self.now) {
                    continue;
                }
                if (self.mark)(n, &p) && p.ecn.is_capable() {
                    p.ecn = Ecn::Ce;
                }
                let at = match self.rate {
                    Some(r) => {
                        let start = self.free_at.max(self.now);
                        self.free_at = start + r.tx_time(p.size as u64);
                        self.fifo.push_back(self.free_at);
                        self.free_at + self.delay
                    }
                    None => self.now + self.delay,
                };
                self.push(at, true, p);
            } else {
                let n = self.acks_made;
                self.acks_made += 1;
                if (self.ack_drop)(n, &p, self.now) {
                    continue;
                }
                let at = self.now + self.delay;
                self.push(at, false, p);
            }
        }
        self.out = out;
        if sender {
            self.trace.push((
                self.now,
                self.snd.cwnd(),
                self.snd.ssthresh(),
                self.snd.snd_max() - self.snd.snd_una(),
                self.snd.rwnd(),
            ));
        }
    }

    /// Data packets waiting in (or being sent by) the bottleneck now.
    fn queued(&mut self) -> usize {
        while self.fifo.front().is_some_and(|&t| t <= self.now) {
            self.fifo.pop_front();
        }
        self.fifo.len()
    }

    fn run_until(&mut self, end: SimTime) {
        loop {
            let pkt_t = self.heap.peek().map(|r| r.0 .0);
            let st = self.snd.next_timeout();
            let rt = self.rcv.next_timeout();
            let t = [pkt_t, st, rt].into_iter().flatten().min();
            let Some(t) = t else { break };
            if t > end {
                break;
            }
            self.now = t.max(self.now);
            if pkt_t == Some(t) {
                let Reverse((_, _, i)) = self.heap.pop().unwrap();
                let (to_rcv, p) = self.slots[i].take().unwrap();
                if to_rcv {
                    self.call(false, Some(p));
                } else {
                    self.ack_log.push(self.now);
                    self.ack_nums.push(p.tcp.ack);
                    self.synacks += (p.tcp.flags & tcp_flags::SYN != 0) as u32;
                    self.call(true, Some(p));
                }
            } else if st == Some(t) {
                self.call(true, None);
            } else {
                self.call(false, None);
            }
        }
        self.now = end;
    }

    fn cwnd_segs(&self) -> f64 {
        self.snd.cwnd() / self.snd.params().mss as f64
    }

    fn retransmissions(&self) -> usize {
        self.sent_log.iter().filter(|e| e.2 > 0).count()
    }
}

fn params(f: impl FnOnce(&mut TcpOptions)) -> TcpParams {
    let mut o = TcpOptions {
        preset: Some(Preset::Ns2),
        window: Some(QueueLimit::Packets(10_000)),
        // Data from t = 0 (an ns-2 agent with syn_ false), so each regime is timed from the
        // first data packet; ns2_opening_packet_then_initial_window tests the opening packet.
        handshake: Some(false),
        ..TcpOptions::default()
    };
    f(&mut o);
    TcpParams::resolve(&o, None)
}

/// The n-th data packet whose seq is `seq` (first transmission only) is dropped.
fn drop_seqs(seqs: Vec<u64>) -> DropRule {
    let mut done: Vec<u64> = Vec::new();
    Box::new(move |_, p, _| {
        if p.payload > 0 && seqs.contains(&p.tcp.seq) && !done.contains(&p.tcp.seq) {
            done.push(p.tcp.seq);
            true
        } else {
            false
        }
    })
}

fn seg(i: u64) -> u64 {
    1 + i * 1000
}

// ---- slow start doubles per RTT ----
#[test]
fn slow_start_doubles_every_rtt() {
    let p = params(|o| o.iw = Some(2));
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    for k in 1..=6u32 {
        // All ACKs of round k arrive at k*RTT (no serialisation); sample just after.
        pipe.run_until(ms(100 * k as u64) + SimTime(1));
        assert_eq!(
            pipe.cwnd_segs(),
            2.0 * 2f64.powi(k as i32),
            "after {k} RTTs"
        );
    }
    assert_eq!(pipe.snd.stats.retransmitted_segments, 0);
}

// ---- congestion avoidance adds one segment per RTT ----
#[test]
fn congestion_avoidance_adds_one_segment_per_rtt() {
    let p = params(|o| {
        o.iw = Some(10);
        o.initial_ssthresh = Some(QueueLimit::Packets(10));
    });
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    let mut prev = 10.0;
    for k in 1..=20u64 {
        pipe.run_until(ms(100 * k) + SimTime(1));
        let c = pipe.cwnd_segs();
        let grew = c - prev;
        // W ACKs of MSS*MSS/cwnd each: a little under one segment per RTT.
        // floor(cwnd) segments per RTT, each ACK adding MSS*MSS/cwnd: 0.8-1 segment.
        assert!((0.8..=1.0).contains(&grew), "RTT {k}: +{grew:.3} segments");
        prev = c;
    }
    assert!(
        (prev - 30.0).abs() < 2.0,
        "20 RTTs: 10 -> {prev:.2} segments"
    );
}

// ---- three duplicate ACKs trigger fast retransmit ----
#[test]
fn three_dupacks_trigger_fast_retransmit() {
    let p = params(|o| {
        o.iw = Some(10);
        o.initial_ssthresh = Some(QueueLimit::Packets(10));
    });
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.drop = drop_seqs(vec![seg(3)]);
    // Segments 0..9 leave at t=0; 4..9 produce 6 duplicate ACKs at t=100 ms.
    pipe.run_until(ms(100) + SimTime(1));
    assert_eq!(pipe.snd.stats.fast_retransmits, 1);
    assert_eq!(pipe.snd.stats.timeouts, 0);
    let rx: Vec<_> = pipe.sent_log.iter().filter(|e| e.2 > 0).collect();
    assert_eq!(rx.len(), 1);
    assert_eq!(rx[0].1, seg(3));
    assert_eq!(
        rx[0].0,
        ms(100),
        "retransmitted when the third duplicate arrived"
    );
    pipe.run_until(ms(3000));
    assert_eq!(pipe.snd.stats.timeouts, 0);
    assert_eq!(pipe.retransmissions(), 1);
}

#[test]
fn two_dupacks_are_not_enough() {
    // Only 3 segments in flight: losing the first leaves 2 duplicates -> a timeout.
    let p = params(|o| {
        o.iw = Some(3);
        o.initial_ssthresh = Some(QueueLimit::Packets(3));
        o.window = Some(QueueLimit::Packets(3));
    });
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.drop = drop_seqs(vec![seg(0)]);
    pipe.run_until(ms(5000));
    assert_eq!(pipe.snd.stats.fast_retransmits, 0);
    assert_eq!(pipe.snd.stats.timeouts, 1);
}

// ---- Reno halves once per window ----
#[test]
fn reno_halves_once_per_loss_window() {
    let p = params(|o| {
        o.iw = Some(20);
        o.initial_ssthresh = Some(QueueLimit::Packets(20));
    });
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.drop = drop_seqs(vec![seg(25)]);
    pipe.run_until(ms(1000));
    assert_eq!(pipe.snd.stats.fast_retransmits, 1);
    assert_eq!(pipe.snd.stats.timeouts, 0);
    // ssthresh changed exactly once, to half the flight (about 21 segments -> 10.5).
    let mut values: Vec<f64> = pipe.trace.iter().map(|t| t.2).collect();
    values.dedup();
    assert_eq!(values.len(), 2, "one reduction: {values:?}");
    let ss = values[1] / 1000.0;
    assert!((10.0..=11.0).contains(&ss), "ssthresh {ss}");
    // After recovery cwnd = ssthresh, then grows again linearly.
    let after: Vec<f64> = pipe
        .trace
        .iter()
        .filter(|t| t.2 == values[1])
        .map(|t| t.1 / 1000.0)
        .collect();
    let min_after = after.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(
        min_after >= ss - 1e-9,
        "cwnd never below ssthresh outside recovery: {min_after}"
    );
}

// ---- NewReno recovers several losses of one window without timeout ----
#[test]
fn newreno_recovers_several_losses_without_timeout() {
    for sack in [false, true] {
        let p = params(|o| {
            o.cc = Some(CcKind::Newreno);
            o.sack = Some(sack);
            o.iw = Some(20);
            o.initial_ssthresh = Some(QueueLimit::Packets(20));
        });
        let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
        pipe.drop = drop_seqs(vec![seg(22), seg(25), seg(31)]);
        pipe.run_until(ms(3000));
        assert_eq!(pipe.snd.stats.timeouts, 0, "sack={sack}");
        assert_eq!(pipe.snd.stats.fast_retransmits, 1, "sack={sack}");
        assert_eq!(
            pipe.retransmissions(),
            3,
            "sack={sack}: only the lost segments"
        );
    }
}

#[test]
fn reno_without_sack_needs_more_for_several_losses() {
    let p = params(|o| {
        o.iw = Some(20);
        o.initial_ssthresh = Some(QueueLimit::Packets(20));
    });
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.drop = drop_seqs(vec![seg(22), seg(25), seg(31)]);
    pipe.run_until(ms(3000));
    // Classic Reno: each loss of the window halves again or waits for a timeout.
    assert!(pipe.snd.stats.fast_retransmits + pipe.snd.stats.timeouts >= 2);
}

// ---- Tahoe returns to slow start ----
#[test]
fn tahoe_restarts_from_one_segment() {
    let p = params(|o| {
        o.cc = Some(CcKind::Tahoe);
        o.iw = Some(16);
        o.initial_ssthresh = Some(QueueLimit::Packets(16));
    });
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.drop = drop_seqs(vec![seg(20)]);
    pipe.run_until(ms(3000));
    assert_eq!(pipe.snd.stats.fast_retransmits, 1);
    let i = pipe
        .trace
        .iter()
        .position(|t| t.1 == 1000.0)
        .expect("cwnd falls to one segment");
    let ss = pipe.trace[i].2;
    assert!(
        (8000.0..=9000.0).contains(&ss),
        "ssthresh half the flight: {ss}"
    );
    // Then slow start: cwnd reaches ssthresh growing by one segment per ACK.
    let later: Vec<f64> = pipe.trace[i..].iter().map(|t| t.1).collect();
    assert!(later.windows(2).any(|w| w[1] - w[0] == 1000.0));
    assert!(later.iter().any(|&c| c >= ss));
}

// ---- RTO doubles on repeated timeouts; Karn's rule ----
#[test]
fn rto_backs_off_and_karn_ignores_retransmissions() {
    let p = params(|o| {
        o.iw = Some(1);
        o.window = Some(QueueLimit::Packets(4));
        o.min_rto = Some(ms(200));
        o.clock_granularity = Some(ms(1));
    });
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    // Everything sent in [1 s, 4 s) is lost.
    pipe.drop = Box::new(|_, p, now| p.payload > 0 && now >= ms(1000) && now < ms(4000));
    pipe.run_until(ms(999));
    let rto0 = pipe.snd.rto();
    let samples0 = pipe.snd.rtt_estimator().samples;
    pipe.run_until(ms(5000));
    let retx: Vec<SimTime> = pipe
        .sent_log
        .iter()
        .filter(|e| e.2 > 0)
        .map(|e| e.0)
        .collect();
    assert!(retx.len() >= 3, "{retx:?}");
    let gaps: Vec<f64> = retx
        .windows(2)
        .map(|w| (w[1] - w[0]).as_secs_f64())
        .collect();
    for g in gaps.windows(2).take(2) {
        assert!(
            (g[1] / g[0] - 2.0).abs() < 1e-6,
            "backoff doubles: {gaps:?}"
        );
    }
    assert!(pipe.snd.stats.timeouts >= 3);
    // Karn: the ACK of the retransmitted segment gave no RTT sample (before new data was timed).
    let last_retx = *retx.last().unwrap();
    let e = pipe.snd.rtt_estimator();
    assert!(
        e.max_sample < 0.2,
        "no sample spans a retransmission: max {}",
        e.max_sample
    );
    assert!(e.samples > samples0, "fresh segments are timed again");
    assert!(last_retx >= ms(4000));
    assert_eq!(
        pipe.snd.rtt_estimator().backoff(),
        0,
        "the backoff ends with a new sample"
    );
    assert!(
        pipe.snd.rto() <= rto0 * 2,
        "{:?} vs {:?}",
        pipe.snd.rto(),
        rto0
    );
}

impl std::ops::Mul<u64> for SimTime {
    type Output = SimTime;
    fn mul(self, k: u64) -> SimTime {
        SimTime(self.0 * k)
    }
}

// ---- delayed ACK timer fires ----
#[test]
fn delayed_ack_timer_fires_for_a_lone_segment() {
    let p = params(|o| {
        o.iw = Some(1);
        o.delayed_ack = Some(true);
        o.delack_count = Some(2);
        o.delack_timeout = Some(ms(200));
    });
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.run_until(ms(500));
    // ns-2's sink answers packet 0 at once: sent at 0, received at 50 ms, back at 100 ms.
    assert_eq!(pipe.ack_log.first(), Some(&ms(100)));
    assert_eq!(pipe.rcv.delack_timeouts, 0);
    // Then cwnd 2: two segments, ACKed at once by the second one (every 2 segments).
    assert_eq!(pipe.ack_log.get(1), Some(&ms(200)));
    assert_eq!(pipe.rcv.delack_timeouts, 0);

    // After a handshake the first data segment is delayed like any other, by the timer.
    let p = params(|o| {
        o.iw = Some(1);
        o.delayed_ack = Some(true);
        o.delack_count = Some(2);
        o.delack_timeout = Some(ms(200));
        o.handshake = Some(true);
    });
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.run_until(ms(600));
    assert_eq!(pipe.rcv.delack_timeouts, 1);
}

// ---- Vegas settles with between alpha and beta segments queued ----
#[test]
fn vegas_keeps_alpha_to_beta_segments_queued() {
    let p = params(|o| {
        o.cc = Some(CcKind::Vegas);
    });
    let (alpha, beta) = (p.vegas_alpha, p.vegas_beta);
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(20));
    pipe.rate = Some(Rate(1_000_000)); // 1040-byte packets: 8.32 ms each
    pipe.run_until(ms(20_000));
    let mut sum = 0.0;
    let mut n = 0;
    let mut t = ms(20_000);
    while t < ms(40_000) {
        pipe.run_until(t);
        // Packets beyond the one in service are queued.
        sum += pipe.queued().saturating_sub(1) as f64;
        n += 1;
        t = t + ms(10);
    }
    let q = sum / n as f64;
    assert!(
        q >= alpha - 0.5 && q <= beta + 0.5,
        "mean queue {q:.2} segments, alpha {alpha} beta {beta}"
    );
    assert_eq!(
        pipe.snd.stats.retransmitted_segments, 0,
        "Vegas fills no buffer"
    );
}

// ---- receive-buffer blocking stalls the sender ----
#[test]
fn a_full_receive_buffer_stalls_the_sender() {
    let p = params(|o| {
        o.iw = Some(20);
        o.initial_ssthresh = Some(QueueLimit::Packets(20));
        o.recv_buffer = Some(QueueLimit::Packets(8));
    });
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.drop = drop_seqs(vec![seg(12)]);
    pipe.run_until(ms(5000));
    // Out-of-order data behind the hole fills the 8-segment buffer: the advertised window
    // falls to one segment (the hole) while cwnd would allow far more, and nothing beyond
    // the buffer is ever outstanding.
    assert!(
        pipe.trace.iter().any(|t| t.4 <= 1000 && t.1 >= 10_000.0),
        "the receive window, not cwnd, holds the sender"
    );
    assert!(
        pipe.trace.iter().all(|t| t.3 <= 8000),
        "outstanding bounded by the buffer"
    );
    // Window-limited: at most 8 segments per RTT.
    let acked = pipe.snd.snd_una() - 1;
    let rate = acked as f64 / 5.0 / 1000.0; // segments per second
    assert!(rate <= 8.0 / 0.1 && rate > 8.0 / 0.1 * 0.8, "{rate}");
    assert_eq!(pipe.rcv.ooo_dropped, 0);
}

// ---- ECN: one reduction per window, CWR ----
#[test]
fn ecn_echo_reduces_once_per_window_and_sets_cwr() {
    let p = params(|o| {
        o.iw = Some(20);
        o.initial_ssthresh = Some(QueueLimit::Packets(20));
        o.ecn = Some(true);
    });
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.mark = Box::new(|n, _| (25..30).contains(&n));
    pipe.run_until(ms(2000));
    assert_eq!(pipe.snd.stats.ecn_reductions, 1);
    assert_eq!(pipe.snd.stats.retransmitted_segments, 0);
    assert_eq!(pipe.snd.stats.fast_retransmits, 0);
}

/// ns-2.35 tcp.cc `ecn()` at a window of one: cwnd_ halves to half a packet (no floor of one),
/// nothing goes out, `newtimer` keeps the timer running with nothing outstanding, and the
/// next packet leaves at its expiry (minrto_ 0.2 s), not on the ACK clock.
#[test]
fn ns2_ecn_echo_at_a_window_of_one_waits_for_the_timer() {
    let p = params(|o| {
        o.iw = Some(1);
        o.ecn = Some(true);
    });
    let mss = f64::from(p.mss);
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(20));
    // packet 1's echo halves 2 to 1, packet 3's (after the CWR) halves 1 to 0.5
    pipe.mark = Box::new(|n, _| n == 1 || n == 3);
    pipe.run_until(ms(1000));
    assert!(pipe.trace.iter().any(|t| (t.1 - mss / 2.0).abs() < 1e-9));
    let gap = pipe
        .sent_log
        .windows(2)
        .map(|w| w[1].0 - w[0].0)
        .max()
        .unwrap();
    assert!(gap >= ms(200), "{gap:?}");
    assert_eq!(pipe.snd.stats.ecn_reductions, 2);
}

/// The ACKs a receiver with parameters `p` sends while segments arrive one per millisecond:
/// `(segment index, ECN codepoint)` each, answered as (arrival index, ACK packet).
fn feed_receiver(p: TcpParams, segs: &[(u64, Ecn)]) -> Vec<(usize, Packet)> {
    let mut rcv = TcpReceiver::new(p);
    let mut stats = FlowStats::default();
    let mut acks = Vec::new();
    for (i, &(k, ecn)) in segs.iter().enumerate() {
        let mut out = Vec::new();
        let mut cx = EndpointCtx {
            now: ms(i as u64),
            now_s: ms(i as u64).as_secs_f64(),
            stats: &mut stats,
            out: &mut out,
            warmup: SimTime::ZERO,
            flow: FlowId(0),
            from: NodeId(0),
            to: NodeId(1),
            class: 0,
            reverse: false,
        };
        let pkt = Packet {
            kind: PacketKind::TcpData,
            size: 1040,
            payload: 1000,
            ecn,
            tcp: TcpHeader {
                seq: 1 + 1000 * k,
                ack: 1,
                flags: tcp_flags::ACK,
                ..TcpHeader::default()
            },
            ..Packet::default()
        };
        rcv.on_packet(pkt, &mut cx);
        acks.extend(out.into_iter().map(|a| (i, a)));
    }
    acks
}

// ---- RFC 8257 section 3.2: the DCTCP receiver echoes each segment's CE state ----
/// ACKs (ack number, ECE) the receiver sends for segments 0..ce.len(), `ce[i]` marking the i-th.
fn receiver_acks(preset: Preset, cc: CcKind, ce: &[bool]) -> Vec<(u64, bool)> {
    receiver_acks_after(preset, cc, 0, ce)
}

/// The same after `warm` unmarked segments (which Linux's quick-ACK mode answers first), the
/// ack numbers counted from the first marked-or-not segment of `ce`.
fn receiver_acks_after(preset: Preset, cc: CcKind, warm: u64, ce: &[bool]) -> Vec<(u64, bool)> {
    let p = params(|o| {
        o.preset = Some(preset);
        o.cc = Some(cc);
        o.ecn = Some(true);
        o.delayed_ack = Some(true);
        o.delack_count = Some(2);
        // the segments follow a handshake (ns-2's opening packet 0 is ACKed at once)
        o.handshake = Some(true);
    });
    let warm_up = std::iter::repeat_n(false, warm as usize);
    let segs: Vec<(u64, Ecn)> = (0..)
        .zip(warm_up.chain(ce.iter().copied()))
        .map(|(k, mark)| (k, if mark { Ecn::Ce } else { Ecn::Ect0 }))
        .collect();
    feed_receiver(p, &segs)
        .into_iter()
        .filter(|&(i, _)| i as u64 >= warm)
        .map(|(_, a)| (a.tcp.ack - 1000 * warm, a.tcp.flags & tcp_flags::ECE != 0))
        .collect()
}

/// ACK numbers a delayed-ACK receiver of `preset` sends for segments `segs` (indices, one per
/// millisecond), as (segment index, ack number).
fn receiver_acks_for_segments(preset: Preset, segs: &[u64]) -> Vec<(usize, u64)> {
    let p = params(|o| {
        o.preset = Some(preset);
        o.delayed_ack = Some(true);
        o.delack_count = Some(2);
        // the segments follow a handshake (ns-2's opening packet 0 is ACKed at once)
        o.handshake = Some(true);
    });
    let segs: Vec<(u64, Ecn)> = segs.iter().map(|&k| (k, Packet::default().ecn)).collect();
    feed_receiver(p, &segs)
        .into_iter()
        .map(|(i, a)| (i, a.tcp.ack))
        .collect()
}

#[test]
fn ns2_delack_sink_delays_the_ack_of_a_repeated_last_segment() {
    // 0 1 | 1 again | 2: tcp-sink.cc DelAckSink::recv saves the repeat's ACK and starts its
    // timer (seqno == Seqno(), no timer pending), so segment 2 is ACKed at once with it
    assert_eq!(
        receiver_acks_for_segments(Preset::Ns2, &[0, 1, 1, 2]),
        vec![(1, 2001), (3, 3001)]
    );
    // RFC 5681 4.2 (ns-3, which ACKs the first data segment at once): the duplicate is
    // ACKed at once, segment 2's ACK waits
    assert_eq!(
        receiver_acks_for_segments(Preset::Ns3, &[0, 1, 1, 2]),
        vec![(0, 1001), (2, 2001)]
    );
    // Linux: quick-ACK mode from the first data segment (tcp_event_data_recv), and the
    // duplicate enters it again (tcp_data_queue's out_of_window): every segment at once
    assert_eq!(
        receiver_acks_for_segments(Preset::Linux, &[0, 1, 1, 2]),
        vec![(0, 1001), (1, 2001), (2, 2001), (3, 3001)]
    );
    // an older repeat, or one with an ACK already waiting, is ACKed at once in ns-2 too
    assert_eq!(
        receiver_acks_for_segments(Preset::Ns2, &[0, 1, 0, 2]),
        vec![(1, 2001), (2, 2001)]
    );
    assert_eq!(
        receiver_acks_for_segments(Preset::Ns2, &[0, 1, 2, 2]),
        vec![(1, 2001), (3, 3001)]
    );
}

/// tcp-sink.cc DelAckSink::recv with RFC2581_immediate_ack_ false: a packet that fills a gap,
/// with data still held out of order above the next gap, waits as an in-order packet does;
/// one that releases held data is ACKed at once either way.
#[test]
fn ns2_delack_sink_without_rfc2581_immediate_ack_delays_a_gap_filler() {
    let acks = |immediate: bool, segs: &[u64]| {
        let p = params(|o| {
            o.delayed_ack = Some(true);
            o.delack_count = Some(2);
            o.handshake = Some(true);
            o.ns2_agent = Some(crate::tcp::ns2_agent::Ns2AgentOptions {
                rfc2581_immediate_ack: Some(immediate),
                ..Default::default()
            });
        });
        let segs: Vec<(u64, Ecn)> = segs.iter().map(|&k| (k, Packet::default().ecn)).collect();
        feed_receiver(p, &segs)
            .into_iter()
            .map(|(i, a)| (i, a.tcp.ack))
            .collect::<Vec<_>>()
    };
    // 0 1 | 3 (out of order: a duplicate ACK) | 2 fills the gap and releases 3
    assert_eq!(
        acks(false, &[0, 1, 3, 2]),
        vec![(1, 2001), (2, 2001), (3, 4001)]
    );
    // 0 1 | 4 | 2 fills the first gap, 4 stays held: at once by default, delayed without
    assert_eq!(
        acks(true, &[0, 1, 4, 2]),
        vec![(1, 2001), (2, 2001), (3, 3001)]
    );
    assert_eq!(acks(false, &[0, 1, 4, 2]), vec![(1, 2001), (2, 2001)]);
}

#[test]
fn dctcp_receiver_sends_the_held_ack_at_a_ce_change_with_the_old_state() {
    // Segments 0 1 | 2(CE) | 3 4: every second segment is ACKed, but the change 1 -> 0 at
    // segment 3 sends the held ACK of segment 2 at once, with ECE; then ECE is off again.
    let ce = [false, false, true, false, false];
    assert_eq!(
        receiver_acks(Preset::Ns2, CcKind::Dctcp, &ce),
        vec![(2001, false), (3001, true), (5001, false)]
    );
    // Linux, after its 16 quick ACKs: the CE state's change sends the segment's own ACK at
    // once too (dctcp_ece_ack_update's ICSK_ACK_NOW), both ways.
    assert_eq!(
        receiver_acks_after(Preset::Linux, CcKind::Dctcp, 32, &ce),
        vec![(2001, false), (3001, true), (4001, false)]
    );
    // RFC 3168 with Linux's quick ACK (every segment of the first 16 at once), ECE latched
    // until CWR.
    assert_eq!(
        receiver_acks(Preset::Linux, CcKind::Reno, &ce),
        vec![
            (1001, false),
            (2001, false),
            (3001, true),
            (4001, true),
            (5001, true)
        ]
    );
    // after the quick ACKs, a CE mark enters quick-ACK mode for two ACKs
    // (__tcp_ecn_check_ce): segments 2 and 3 at once, 4 waits
    assert_eq!(
        receiver_acks_after(Preset::Linux, CcKind::Reno, 32, &ce),
        vec![(2001, false), (3001, true), (4001, true)]
    );
    // ns-2's DelAck sink delays the CE segment's ACK like any other (ECE on it).
    assert_eq!(
        receiver_acks(Preset::Ns2, CcKind::Reno, &ce),
        vec![(2001, false), (4001, true)]
    );
}

// ---- handshake, SYN loss, transfer with FIN ----
#[test]
fn handshake_with_lost_syn_then_transfer_completes() {
    let p = params(|o| {
        o.preset = Some(Preset::Ns3);
        o.window = None;
        o.handshake = None;
    });
    assert!(p.handshake);
    let mut pipe = Pipe::new(p, TcpApp::Transfer { bytes: 100_000 }, ms(50));
    let mut first = true;
    pipe.drop = Box::new(move |_, p, _| {
        let syn = p.tcp.flags & tcp_flags::SYN != 0;
        let lose = syn && first;
        if syn {
            first = false;
        }
        lose
    });
    pipe.run_until(ms(3100) + SimTime(1));
    // SYN retransmitted after ns-3's ConnTimeout (3 s); ns-3 keeps its initial window of 10
    // segments after a SYN loss (RFC 5681's one segment is `iw_after_syn_loss = 1`).
    assert_eq!(pipe.snd.stats.syn_retransmits, 1);
    assert_eq!(pipe.snd.cwnd(), 5360.0);
    pipe.run_until(ms(20_000));
    assert_eq!(pipe.rcv.delivered, 100_000);
    let r = pipe.snd.report().unwrap();
    assert!(r["completion_time_s"].as_f64().unwrap() > 3.1);
    assert_eq!(pipe.snd.next_timeout(), None, "all done, no timer left");
}

#[test]
fn web_objects_report_response_times() {
    use crate::traffic::{Distribution, ObjectSize};
    let p = params(|_| {});
    let app = TcpApp::Web {
        size: ObjectSize::Constant {
            value: Bytes(10_000),
        },
        think: Distribution::Constant { value: ms(500) },
        objects: Some(3),
        rng: crate::rng::stream(1, "t"),
    };
    let mut pipe = Pipe::new(p, app, ms(50));
    pipe.run_until(ms(10_000));
    assert_eq!(pipe.rcv.delivered, 30_000);
    assert_eq!(pipe.snd.response_times.len(), 3);
    // 10 segments with IW 2 in slow start: 2+4+4 -> 3 RTTs; later objects restart after idle.
    assert!((pipe.snd.response_times[0] - 0.3).abs() < 1e-9);
}

// ---- ns-2.35 agent rules (`ns2_rules`, on with the ns2 preset) ----

/// ns-2 tcp.cc output (syn_ true) and tcp-reno.cc recv (delay_growth_): packet 0 is a bare
/// 40-byte header sent alone; windowInit_ data packets follow its ACK; nothing else is sent.
#[test]
fn ns2_opening_packet_then_initial_window() {
    let p = params(|o| o.handshake = None); // the preset's opening
    assert!(p.handshake && p.flavour == super::flavour::Flavour::Ns2);
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    let mut sizes: Vec<(SimTime, u32, u32)> = Vec::new();
    for k in 0..3u64 {
        let before = pipe.data_sent;
        pipe.run_until(ms(100 * k) + SimTime(1));
        sizes.push((pipe.now, (pipe.data_sent - before) as u32, 0));
    }
    // t = 0: the opening packet only; t = RTT: two data packets (windowInit_ 2).
    assert_eq!(sizes[0].1, 1, "one packet at t = 0");
    assert_eq!(
        pipe.sent_log.first().map(|e| e.0),
        Some(ms(100)),
        "data after the RTT"
    );
    assert_eq!(pipe.sent_log.iter().filter(|e| e.0 == ms(100)).count(), 2);
    // No third handshake segment: the sender's packets are the opening packet and data.
    assert_eq!(pipe.data_sent, 1 + pipe.sent_log.len() as u64);
    // A lost opening packet: retransmitted after rtxcur_init_ 3 s, then cwnd 1 (wnd_init_ 1)
    // and ssthresh 2 (slowdown of min(cwnd_ 1, window_)), backoff kept (no sample).
    let p = params(|o| o.handshake = None);
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    let mut first = true;
    pipe.drop = Box::new(move |_, p, _| {
        let syn = p.tcp.flags & tcp_flags::SYN != 0;
        let lose = syn && first;
        first &= !syn;
        lose
    });
    pipe.run_until(ms(3100) + SimTime(1));
    assert_eq!(pipe.snd.stats.syn_retransmits, 1);
    assert_eq!(pipe.snd.cwnd(), 1000.0);
    assert_eq!(pipe.snd.ssthresh(), 2000.0);
    assert_eq!(pipe.snd.rtt_estimator().backoff(), 1);
}

/// ns-2 tcp.cc output: with `useHeaders_ false` a data packet is packetSize_ bytes alone; the
/// opening packet keeps tcpip_base_hdr_size_ 40 and the sink's ACKs packetSize_ 40.
#[test]
fn ns2_use_headers_false_leaves_the_header_off_data_only() {
    for use_headers in [true, false] {
        let p = params(|o| {
            o.handshake = None;
            o.use_headers = Some(use_headers);
        });
        let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
        let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let log = seen.clone();
        pipe.drop = Box::new(move |_, p, _| {
            let syn = p.tcp.flags & tcp_flags::SYN != 0;
            log.borrow_mut().push((p.kind, syn, p.size));
            false
        });
        pipe.run_until(ms(500));
        let seen = seen.borrow();
        let data: Vec<u32> = seen
            .iter()
            .filter(|e| e.0 == PacketKind::TcpData && !e.1)
            .map(|e| e.2)
            .collect();
        assert!(data.len() > 3, "{seen:?}");
        let size = if use_headers { 1040 } else { 1000 };
        assert!(data.iter().all(|&s| s == size), "{data:?}");
        assert!(seen.contains(&(PacketKind::TcpData, true, 40)));
        assert!(seen
            .iter()
            .filter(|e| e.0 == PacketKind::TcpAck)
            .all(|e| e.2 == 40));
    }
}

/// ns-2 tcp-sink.cc ACKs a retransmitted opening packet again and tcp-reno.cc counts that ACK as
/// a duplicate; the RFC flavour discards a SYN-ACK that arrives when established (RFC 5961).
/// An RTT of 4 s beside the 3 s initial RTO retransmits the opening packet, so two SYN-ACKs come.
#[test]
fn ns2_a_repeated_opening_ack_is_a_duplicate_ack() {
    for ns2 in [true, false] {
        let p = params(|o| {
            o.handshake = None;
            o.ns2_rules = Some(ns2);
        });
        let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(2000));
        pipe.run_until(ms(7100));
        assert_eq!(pipe.synacks, 2, "ns2_rules = {ns2}");
        let dup = pipe.snd.stats.dupacks_received;
        assert_eq!(dup, u64::from(ns2), "ns2_rules = {ns2}");
    }
}

/// ns-2 tcp-reno.cc dupack_action with bugFix_: after a partial ACK ends recovery, the
/// duplicates of a second loss of the same window do not fast-retransmit; the timer fires.
/// Then tcp.cc timeout halves min(cwnd_, window_) -- the already halved cwnd_ -- not the flight.
#[test]
fn ns2_reno_second_loss_of_a_window_waits_for_the_timeout() {
    let p = params(|o| {
        o.iw = Some(20);
        o.initial_ssthresh = Some(QueueLimit::Packets(20));
    });
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.rate = Some(Rate(2_000_000));
    pipe.drop = drop_seqs(vec![seg(22), seg(30)]);
    pipe.run_until(ms(5000));
    assert_eq!(pipe.snd.stats.fast_retransmits, 1);
    assert_eq!(pipe.snd.stats.timeouts, 1);
    // The timeout: ssthresh = int(cwnd_/2) of the halved window (about 5), not flight/2.
    let i = pipe
        .trace
        .iter()
        .position(|t| t.1 == 1000.0)
        .expect("cwnd 1 after the timeout");
    let before = pipe.trace[i - 1].1 / 1000.0;
    let ss = pipe.trace[i].2 / 1000.0;
    assert_eq!(
        ss,
        (before / 2.0).floor(),
        "cwnd_ {before} -> ssthresh {ss}"
    );
    assert!(
        pipe.trace[i - 1].3 as f64 / 1000.0 > 2.0 * ss + 1.0,
        "flight/2 would be larger"
    );
}

/// ns-2 tcp.cc dupack_action (Agent/TCP, Tahoe): reset_rtx_timer(0, 0) sets t_seqno_ back to
/// highest_ack_ + 1, so the fast retransmission is followed by a go-back-N slow start: the
/// ACK of the retransmitted packet points at the second hole of the window, which goes out at
/// once (with the packets after it, received or not), and no timeout is needed. With the rule
/// off (the RFC flavour) only the first hole is resent and the second waits for the timer.
#[test]
fn ns2_tahoe_fast_retransmit_goes_back_n() {
    for ns2 in [true, false] {
        let p = params(|o| {
            o.cc = Some(CcKind::Tahoe);
            o.iw = Some(20);
            o.initial_ssthresh = Some(QueueLimit::Packets(20));
            o.ns2_rules = Some(ns2);
        });
        let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
        pipe.rate = Some(Rate(2_000_000));
        pipe.drop = drop_seqs(vec![seg(22), seg(30)]);
        pipe.run_until(ms(5000));
        let st = &pipe.snd.stats;
        assert_eq!(st.fast_retransmits, 1, "ns2_rules = {ns2}");
        // The retransmissions, in order (segment numbers).
        let rx: Vec<u64> = pipe
            .sent_log
            .iter()
            .filter(|e| e.2 > 0)
            .map(|e| (e.1 - 1) / 1000)
            .collect();
        if ns2 {
            assert_eq!(st.timeouts, 0, "go back N recovers the second hole");
            // 22 alone (cwnd_ 1); its ACK (up to 29) sets t_seqno_ to 30: 30 and 31 go out
            // (cwnd_ 2), 31 although the receiver holds it; 30's ACK then covers the window.
            assert_eq!(rx, [22, 30, 31], "retransmissions");
        } else {
            assert_eq!(st.timeouts, 1, "the second hole waits for the timer");
            assert_eq!(&rx[..2], &[22, 30], "retransmissions {rx:?}");
        }
    }
}

/// ns-2 tcp.cc timeout() leaves dupacks_ alone (tcp-reno.cc's timeout clears it): duplicates
/// that arrive after an Agent/TCP timeout go on counting, so they send no limited-transmit
/// packet (send_one needs dupacks_ < numdupacks_). Segments 4-7 leave at 100 ms; 4 and 7 are
/// lost, 5 and 6 bring two duplicates at 200 ms, each sending one new segment (8, 9); the
/// timer (150 ms, maxrto_) fires at 250 ms and resends 4; the duplicates of 8 and 9 come at
/// 300 ms, before 4's ACK (350 ms). With the count kept they are duplicates 3 and 4: nothing
/// goes out. A cleared count would make them 1 and 2 and resend 5 and 6 at 300 ms.
#[test]
fn ns2_tahoe_timeout_keeps_the_duplicate_count() {
    let p = params(|o| {
        o.cc = Some(CcKind::Tahoe);
        o.iw = Some(4);
        o.initial_ssthresh = Some(QueueLimit::Packets(4));
        o.window = Some(QueueLimit::Packets(20));
        o.min_rto = Some(ms(10));
        o.max_rto = Some(ms(150));
    });
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.drop = drop_seqs(vec![seg(4), seg(7)]);
    pipe.run_until(ms(349));
    let sent: Vec<(u64, u64, u32)> = pipe
        .sent_log
        .iter()
        .map(|e| (e.0.as_nanos() / 1_000_000, (e.1 - 1) / 1000, e.2))
        .collect();
    assert_eq!(pipe.snd.stats.timeouts, 1);
    assert_eq!(pipe.snd.stats.fast_retransmits, 0);
    assert_eq!(pipe.snd.stats.dupacks_received, 4);
    let after: Vec<(u64, u64, u32)> = sent.into_iter().filter(|e| e.0 >= 200).collect();
    assert_eq!(
        after,
        [(200, 8, 0), (200, 9, 0), (250, 4, 1)],
        "limited transmit at 200 ms, the timeout's resend at 250 ms, nothing at 300 ms"
    );
}

/// ns-2 tcp.cc slowdown (precision_reduce_): ssthresh_ = int(W/2), cwnd_ = W/2 for
/// W = min(cwnd_, window_); tcp-reno.cc recv: the new ACK that ends recovery leaves cwnd_ = W/2
/// and opens it once (opencwnd, + 1/cwnd_ in congestion avoidance), not cwnd = ssthresh.
#[test]
fn ns2_reno_halves_min_cwnd_window_and_exits_at_half() {
    let p = params(|o| {
        o.iw = Some(10);
        o.initial_ssthresh = Some(QueueLimit::Packets(2));
        o.window = Some(QueueLimit::Packets(15));
    });
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.rate = Some(Rate(1_000_000));
    // cwnd grows past window_ (15) in congestion avoidance before the loss.
    pipe.drop = drop_seqs(vec![seg(400)]);
    pipe.run_until(ms(60_000));
    assert_eq!(pipe.snd.stats.fast_retransmits, 1);
    let i = pipe.trace.iter().position(|t| t.2 != 2000.0).unwrap();
    let w = pipe.trace[i - 1].1 / 1000.0;
    assert!(w > 15.0, "raw cwnd_ above window_: {w}");
    assert_eq!(pipe.trace[i].2, 7000.0, "int(min({w}, 15)/2)");
    // In recovery cwnd = 7.5 + 3 (+1 per further duplicate); the first new ACK: 7.5 + 1/7.5.
    let j = (i..pipe.trace.len())
        .find(|&j| pipe.trace[j].1 < 10_000.0)
        .unwrap();
    assert!(
        (pipe.trace[j].1 / 1000.0 - (7.5 + 1.0 / 7.5)).abs() < 1e-9,
        "cwnd after recovery {}",
        pipe.trace[j].1 / 1000.0
    );
}

/// ns-2 tcp.cc send_one (singledup_ 1): the first and second duplicate ACKs each send one
/// new packet while t_seqno_ <= highest_ack_ + cwnd_ + dupacks_.
#[test]
fn ns2_limited_transmit_on_the_first_two_duplicates() {
    let p = params(|o| {
        o.iw = Some(10);
        o.initial_ssthresh = Some(QueueLimit::Packets(10));
    });
    assert!(p.limited_transmit);
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.rate = Some(Rate(1_000_000));
    pipe.drop = drop_seqs(vec![seg(3)]);
    pipe.run_until(ms(2000));
    let t_fr = pipe.sent_log.iter().find(|e| e.2 > 0).map(|e| e.0).unwrap();
    let sent_at = |s: u64| pipe.sent_log.iter().find(|e| e.1 == s).unwrap().0;
    // Segments 10-12 leave on the new ACKs of 0-2; 13 and 14 on the first and second
    // duplicate, before the retransmission; 15 only once recovery has inflated the window.
    assert!(sent_at(seg(12)) < sent_at(seg(13)));
    assert!(sent_at(seg(13)) < sent_at(seg(14)));
    assert!(
        sent_at(seg(14)) < t_fr,
        "{:?} vs {:?}",
        sent_at(seg(14)),
        t_fr
    );
    assert!(sent_at(seg(15)) > t_fr);
    assert_eq!(pipe.snd.stats.fast_retransmits, 1);
    assert_eq!(pipe.snd.stats.timeouts, 0);
}

/// ns-2 tcp-vegas.cc: VegasTcpAgent::output sends packetSize_ bytes (no headersize()) from
/// packet 0, with cwnd_ 1 (set_initial_window); recv sets windowInit_ on the second new ACK
/// (last_ack_ == 0), the round that ends there finds Diff 0 and adds one: cwnd_ 3.
#[test]
fn ns2_vegas_opening() {
    let p = params(|o| {
        o.cc = Some(CcKind::Vegas);
        o.handshake = None;
    });
    assert_eq!((p.header, p.ack_size, p.handshake), (0, 40, false));
    assert!(!p.limited_transmit);
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.run_until(SimTime(1));
    assert_eq!(pipe.sent_log.len(), 1);
    pipe.run_until(ms(100) + SimTime(1));
    assert_eq!(pipe.cwnd_segs(), 1.0, "first round: no increase");
    assert_eq!(pipe.sent_log.len(), 2);
    pipe.run_until(ms(200) + SimTime(1));
    assert_eq!(pipe.cwnd_segs(), 3.0, "windowInit_ 2, then +1");
}

/// ns-2 tcp-vegas.cc (`vegas_expire`, Brakmo section 3.1): a duplicate ACK resends the lost
/// packet once it has been out for the fine-grained timeout `v_timeout_`, before the third
/// duplicate. Packet 0 at 0 s, its ACK at 100 ms (v_rtt_ 0.1 s: v_sa_ 0.8, v_sd_ 0.1,
/// v_timeout_ 0.15 s), packet 1 then, its ACK at 200 ms (a 0.1 s sample: v_sd_ 0.075,
/// v_timeout_ 0.1375 * 17/16 = 0.146 s) with cwnd_ 3: packets 2-4 at 200 ms. Packet 2 is
/// lost: the duplicate at 300 ms (out 0.1 s) does nothing, the one at 360 ms (0.16 s) resends
/// it, cwnd_ falls to 2 (window() 3 <= 3) + 2 duplicates, dupacks_ becomes 3 and packet 5 goes
/// out too; the coarse timer backs off (`reset_rtx_timer(1)`). With the rule off only the third
/// duplicate would resend it.
#[test]
fn ns2_vegas_resends_on_an_early_duplicate_after_the_fine_grained_timeout() {
    let p = params(|o| {
        o.cc = Some(CcKind::Vegas);
        o.handshake = None;
    });
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.run_until(SimTime(1)); // packet 0 leaves; the pipe is not run again
    feed_ack(&mut pipe, 100, seg(1));
    feed_ack(&mut pipe, 200, seg(2));
    let sent = |pipe: &Pipe, t: u64| -> Vec<(u64, u32)> {
        let v = pipe.sent_log.iter().filter(|e| e.0 == ms(t));
        v.map(|e| ((e.1 - 1) / 1000, e.2)).collect()
    };
    assert_eq!(sent(&pipe, 200), [(2, 0), (3, 0), (4, 0)]);
    feed_ack(&mut pipe, 300, seg(2));
    assert!(sent(&pipe, 300).is_empty(), "out 0.1 s < v_timeout_");
    assert_eq!(pipe.snd.rtt_estimator().backoff(), 0);
    feed_ack(&mut pipe, 360, seg(2));
    assert_eq!(
        sent(&pipe, 360),
        [(2, 1), (5, 0)],
        "packet 2 resent, then 5"
    );
    assert_eq!(pipe.snd.stats.fast_retransmits, 1);
    assert_eq!(pipe.cwnd_segs(), 4.0, "v_newcwnd_ 2 + dupacks_ 2");
    assert_eq!(
        pipe.snd.rtt_estimator().backoff(),
        1,
        "reset_rtx_timer(1) backs off"
    );
    // dupacks_ = numdupacks_: the next duplicate inflates the window by one packet.
    feed_ack(&mut pipe, 370, seg(2));
    assert_eq!(pipe.cwnd_segs(), 5.0);
}

/// A scripted ACK of `ack` reaching the sender at `t_ms` (the receiver is bypassed).
fn feed_ack(pipe: &mut Pipe, t_ms: u64, ack: u64) {
    pipe.now = ms(t_ms);
    let p = Packet {
        kind: PacketKind::TcpAck,
        size: 40,
        tcp: TcpHeader {
            seq: 1,
            ack,
            flags: tcp_flags::ACK,
            window: 1 << 30,
            ..TcpHeader::default()
        },
        ..Packet::default()
    };
    pipe.call(true, Some(p));
}

/// ns-2 Agent/TCP/Newreno with `iw` packets sent at t = 0 and `dups` duplicate ACKs of packet 0
/// at t = 100 ms (the third starts fast retransmit).
fn ns2_newreno_after_dupacks(iw: u32, window: u64, dups: u32) -> Pipe {
    let p = params(|o| {
        o.cc = Some(CcKind::Newreno);
        o.iw = Some(iw);
        o.initial_ssthresh = Some(QueueLimit::Packets(1000));
        o.window = Some(QueueLimit::Packets(window));
    });
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.call(true, None);
    for _ in 0..dups {
        feed_ack(&mut pipe, 100, seg(0));
    }
    assert_eq!(pipe.snd.stats.fast_retransmits, 1);
    pipe
}

/// ns-2 tcp-newreno.cc recv with exit_recovery_fix_ 0: the full ACK sets dupwnd_ = 0 and leaves
/// cwnd_ at the halved window W/2 (not ssthresh_ = int(W/2)), then opencwnd() grows it.
#[test]
fn ns2_newreno_full_ack_leaves_the_halved_window_and_opens_it() {
    // W = 11: limited transmit sends packets 11 and 12, the third duplicate halves to 5.5.
    let mut pipe = ns2_newreno_after_dupacks(11, 10_000, 3);
    assert_eq!((pipe.snd.ssthresh(), pipe.cwnd_segs()), (5000.0, 8.5));
    feed_ack(&mut pipe, 200, seg(13)); // the full ACK
    assert!(!pipe.snd.in_recovery());
    let want = 5500.0 + 1000.0 * 1000.0 / 5500.0; // congestion avoidance: 5.5 >= ssthresh 5
    assert!(
        (pipe.snd.cwnd() - want).abs() < 1e-9,
        "cwnd {} after the full ACK, ns-2 {want}",
        pipe.snd.cwnd()
    );
}

/// ns-2 tcp-newreno.cc partialnewack with partial_window_deflation_ 1: a partial ACK of more
/// packets than dupwnd_ holds takes the rest off cwnd_ (dupwnd_ = 1), so the window the full ACK
/// leaves is below ssthresh_ and slow start resumes.
#[test]
fn ns2_newreno_partial_ack_deflates_the_inflation_first() {
    // 10 packets, 0 lost; limited transmit sends 10 and 11; 7 duplicates: W/2 = 5 + dupwnd_ 7.
    let mut pipe = ns2_newreno_after_dupacks(10, 10_000, 7);
    assert_eq!(pipe.cwnd_segs(), 12.0);
    // The partial ACK of 0-8 (9 packets; 9 lost too): cwnd_ 5 - (9 - 7) = 3, dupwnd_ 1.
    feed_ack(&mut pipe, 200, seg(9));
    assert!(pipe.snd.in_recovery());
    assert_eq!(pipe.cwnd_segs(), 4.0);
    feed_ack(&mut pipe, 300, seg(12)); // the full ACK: cwnd_ 3 < ssthresh_ 5, slow start + 1
    assert!(!pipe.snd.in_recovery());
    assert_eq!(pipe.cwnd_segs(), 4.0);
}

/// ns-2 tcp-newreno.cc partialnewack_helper with newreno_changes1_ 1: only the first partial ACK
/// of a recovery restarts the retransmission timer; the next ones (and the retransmissions they
/// send) leave it running, so a window with many losses ends in a timeout.
#[test]
fn ns2_newreno_only_the_first_partial_ack_restarts_the_timer() {
    let mut pipe = ns2_newreno_after_dupacks(10, 10_000, 3);
    feed_ack(&mut pipe, 200, seg(3));
    let deadline = pipe.snd.next_timeout().unwrap();
    assert_eq!(deadline, ms(200) + pipe.snd.rto());
    feed_ack(&mut pipe, 300, seg(6));
    assert!(pipe.snd.in_recovery());
    assert_eq!(pipe.retransmissions(), 3, "0, 3 and 6 retransmitted");
    assert_eq!(
        pipe.snd.next_timeout(),
        Some(deadline),
        "the second left it alone"
    );
}

/// ns-2 tcp-newreno.cc recv with newreno_changes_ 0: send_much(0, 0, 2) while dupacks_ >=
/// numdupacks_, i.e. through all of recovery: at most two new packets per ACK.
#[test]
fn ns2_newreno_sends_at_most_two_new_packets_per_ack_in_recovery() {
    // window_ 10 caps the inflated window (5 + 8 duplicates); the partial ACK of 0-4 deflates
    // it to 9 with 5 packets out: four could go, two do (and the retransmission of 5).
    let mut pipe = ns2_newreno_after_dupacks(10, 10, 8);
    assert_eq!(
        pipe.sent_log.len(),
        11,
        "no new packet on the duplicates: window_ 10"
    );
    feed_ack(&mut pipe, 200, seg(5));
    assert_eq!(pipe.cwnd_segs(), 9.0);
    let at_200: Vec<(u64, u32)> = pipe
        .sent_log
        .iter()
        .filter(|e| e.0 == ms(200))
        .map(|e| (e.1, e.2))
        .collect();
    assert_eq!(at_200, vec![(seg(5), 1), (seg(10), 0), (seg(11), 0)]);
}

/// tcp-sink.cc Sacker::append_ack (`ch->size() += sack_index * 8`): a TCPSink/Sack1 ACK is
/// packetSize_ (40) plus 8 bytes per SACK block.
#[test]
fn ns2_sack_sink_acks_grow_by_eight_bytes_a_block() {
    let p = params(|o| o.sack = Some(true));
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    for i in [0, 2, 4] {
        let data = Packet {
            kind: PacketKind::TcpData,
            size: 1000,
            payload: 1000,
            tcp: TcpHeader {
                seq: seg(i),
                flags: tcp_flags::ACK,
                ..TcpHeader::default()
            },
            ..Packet::default()
        };
        pipe.call(false, Some(data));
    }
    let sizes: Vec<u32> = pipe.slots.iter().flatten().map(|(_, p)| p.size).collect();
    assert_eq!(sizes, vec![40, 48, 56]);
}

/// A scripted ACK of `ack` with SACK blocks given in segment numbers, [a, b).
fn feed_sack(pipe: &mut Pipe, t_ms: u64, ack: u64, blocks: &[(u64, u64)]) {
    feed_sack_echo(pipe, t_ms, ack, blocks, 0);
}

/// The same with the timestamp echo `echo_ms`.
fn feed_sack_echo(pipe: &mut Pipe, t_ms: u64, ack: u64, blocks: &[(u64, u64)], echo_ms: u64) {
    pipe.now = ms(t_ms);
    let mut h = TcpHeader {
        seq: 1,
        ack,
        flags: tcp_flags::ACK,
        window: 1 << 30,
        ts_echo: ms(echo_ms),
        ..TcpHeader::default()
    };
    for &(a, b) in blocks {
        h.push_sack(seg(a), seg(b));
    }
    let p = Packet {
        kind: PacketKind::TcpAck,
        size: 40,
        tcp: h,
        ..Packet::default()
    };
    pipe.call(true, Some(p));
}

/// ns-2 Agent/TCP/Sack1 (the ns2 preset, NewReno with SACK): 10 packets at t = 0, packet 0 lost,
/// and at t = 100 ms `dups` duplicate ACKs, the k-th SACKing packets 1 to k (the first two send
/// packets 10 and 11 by limited transmit, the third starts fast recovery).
fn ns2_sack1_after_dupacks(dups: u64) -> Pipe {
    let p = params(|o| {
        o.cc = Some(CcKind::Newreno);
        o.sack = Some(true);
        o.iw = Some(10);
        o.initial_ssthresh = Some(QueueLimit::Packets(1000));
    });
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.call(true, None);
    for k in 1..=dups {
        feed_sack(&mut pipe, 100, seg(0), &[(1, k + 1)]);
    }
    pipe
}

/// The packets sent at `t_ms`: (sequence number, transmission number).
fn sent_at_ms(pipe: &Pipe, t_ms: u64) -> Vec<(u64, u32)> {
    pipe.sent_log
        .iter()
        .filter(|e| e.0 == ms(t_ms))
        .map(|e| (e.1, e.2))
        .collect()
}

/// tcp-sack1.cc dupack_action: pipe_ = maxseq_ - highest_ack_ - numdupacks_ (12 out - 3 = 9),
/// cwnd_ = W/2 = 5, the fast retransmission is not counted; every later ACK takes one off
/// pipe_ and send_much sends while pipe_ < int(cwnd_): the 8th duplicate (pipe_ 4) lets packet
/// 12 out, the 7th (pipe_ 5) nothing.
#[test]
fn ns2_sack1_sends_while_the_packet_pipe_is_below_cwnd() {
    let mut pipe = ns2_sack1_after_dupacks(7);
    assert_eq!(pipe.snd.stats.fast_retransmits, 1);
    assert_eq!((pipe.cwnd_segs(), pipe.snd.ssthresh()), (5.0, 5000.0));
    assert_eq!(
        pipe.sent_log.len(),
        13,
        "10, limited transmit 10 and 11, retransmission of 0"
    );
    feed_sack(&mut pipe, 100, seg(0), &[(1, 9)]);
    assert_eq!(pipe.sent_log.len(), 14);
    assert_eq!(pipe.sent_log[13].1, seg(12));
    assert_eq!(pipe.cwnd_segs(), 5.0, "cwnd_ does not move in recovery");
}

/// tcp-sack1.cc recv with partial_ack_ 0: a partial ACK takes a second packet off pipe_ and
/// restarts the timer (newtimer) every time, not only the first.
#[test]
fn ns2_sack1_partial_acks_take_one_more_off_the_pipe_and_restart_the_timer() {
    let mut pipe = ns2_sack1_after_dupacks(3); // pipe_ 9, cwnd_ 5
    feed_sack(&mut pipe, 200, seg(5), &[(6, 8), (9, 12)]); // pipe_ 9 - 2 = 7
    assert_eq!(pipe.snd.next_timeout(), Some(ms(200) + pipe.snd.rto()));
    feed_sack(&mut pipe, 300, seg(8), &[(9, 12)]); // pipe_ 5: nothing goes out
    assert!(pipe.snd.in_recovery());
    assert_eq!(pipe.snd.next_timeout(), Some(ms(300) + pipe.snd.rto()));
    assert_eq!(pipe.sent_log.len(), 13);
    // A duplicate: pipe_ 4 < 5, the hole below the SACKed 9-11 goes out again.
    feed_sack(&mut pipe, 310, seg(8), &[(9, 12)]);
    assert_eq!(sent_at_ms(&pipe, 310), vec![(seg(8), 1)]);
}

/// tcp-sack1.cc recv: the ACK of recover_ calls newack() only: cwnd_ stays W/2 (no opencwnd on
/// that ACK), the next new ACK grows it.
#[test]
fn ns2_sack1_full_ack_leaves_cwnd_at_half_the_window() {
    let mut pipe = ns2_sack1_after_dupacks(3);
    feed_ack(&mut pipe, 200, seg(12));
    assert!(!pipe.snd.in_recovery());
    assert_eq!(pipe.cwnd_segs(), 5.0);
    feed_ack(&mut pipe, 210, seg(13));
    assert!((pipe.snd.cwnd() - (5000.0 + 1000.0 * 1000.0 / 5000.0)).abs() < 1e-9);
}

/// ScoreBoardRQ::GetNextRetran: any unSACKed packet below a SACKed block is retransmitted when
/// pipe_ allows, though only one packet is SACKed above it (RFC 6675's IsLost needs three and
/// would send new data first).
#[test]
fn ns2_sack1_retransmits_any_hole_below_the_highest_sack() {
    let mut pipe = ns2_sack1_after_dupacks(7); // 1-7 SACKed, pipe_ 5
    feed_sack(&mut pipe, 120, seg(0), &[(1, 8), (9, 10)]); // 8 missing, pipe_ 4
    assert_eq!(sent_at_ms(&pipe, 120), vec![(seg(8), 1)]);
}

/// tcp-sack1.cc timeout: the scoreboard is cleared and timeout_ set; until a new ACK, duplicate
/// ACKs neither count nor send (no limited transmit, no fast retransmit).
#[test]
fn ns2_sack1_ignores_duplicates_after_a_timeout() {
    let p = params(|o| {
        o.cc = Some(CcKind::Newreno);
        o.sack = Some(true);
        o.iw = Some(10);
    });
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    pipe.drop = Box::new(|_, _, _| true);
    pipe.run_until(ms(3500));
    assert_eq!(pipe.snd.stats.timeouts, 1);
    let sent = pipe.sent_log.len();
    for k in 1..=4 {
        feed_sack(&mut pipe, 3600, seg(0), &[(1, k + 1)]);
    }
    assert_eq!(pipe.snd.stats.fast_retransmits, 0);
    assert_eq!(pipe.sent_log.len(), sent, "nothing sent on the duplicates");
}

// ---- ns-3.44 TcpSocketBase rules (`ns3_rules`, on with the ns3 preset; sender/ns3.rs) ----

/// The ns3 preset with 1000-byte segments, data from t = 0 (no handshake) unless `f` says.
fn ns3(f: impl FnOnce(&mut TcpOptions)) -> TcpParams {
    params(|o| {
        o.preset = Some(Preset::Ns3);
        o.window = None;
        o.mss = Some(Bytes(1000));
        f(o)
    })
}

/// Time of the first transmission of `seq` numbered `nth` (0 = original).
fn sent_at(pipe: &Pipe, seq: u64, nth: u32) -> Option<SimTime> {
    pipe.sent_log
        .iter()
        .find(|e| e.1 == seq && e.2 == nth)
        .map(|e| e.0)
}

/// ns-3 ProcessSynRcvd ("Always respond to first data packet"): the first data segment after
/// the handshake is ACKed at once; then delayed ACKs cover two segments each.
#[test]
fn ns3_first_data_segment_is_acked_at_once() {
    for rules in [true, false] {
        let p = ns3(|o| {
            o.handshake = Some(true);
            o.ns3_rules = Some(rules);
        });
        let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
        pipe.rate = Some(Rate(10_000_000));
        pipe.run_until(ms(300));
        let acks: Vec<u64> = pipe
            .ack_nums
            .iter()
            .copied()
            .filter(|&a| a > 1)
            .take(2)
            .collect();
        let want = if rules {
            vec![seg(1), seg(3)]
        } else {
            vec![seg(2), seg(4)]
        };
        assert_eq!(acks, want, "ns3_rules = {rules}");
    }
}

/// ns-3 ProcessAck (`isDupack = scoreboardUpdated`): an ACK that moves the cumulative ACK and
/// SACKs new data is a duplicate; DupAck moves the sender to CA_DISORDER, where the window does
/// not grow. RFC 5681 counts it as a new ACK (slow start adds a segment).
#[test]
fn ns3_an_ack_that_sacks_new_data_counts_as_a_duplicate() {
    for rules in [true, false] {
        let p = ns3(|o| {
            o.cc = Some(CcKind::LinuxReno);
            o.iw = Some(10);
            o.ns3_rules = Some(rules);
        });
        let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
        pipe.rate = Some(Rate(1_000_000));
        // Delayed ACKs cover segments 0-1 and 2-3 (slow start: 10 -> 12 -> 14); 5 is lost, so
        // segment 6 triggers an ACK that covers 4 and SACKs 6.
        pipe.drop = drop_seqs(vec![seg(5)]);
        pipe.run_until(ms(500));
        assert_eq!(pipe.snd.stats.fast_retransmits, 1);
        assert_eq!(pipe.snd.stats.timeouts, 0);
        // linux_reno: ssthresh = cwnd / 2 at the fast retransmit.
        let cwnd_at_loss = pipe.trace.iter().find(|t| t.2.is_finite()).unwrap().2 * 2.0 / 1000.0;
        assert_eq!(
            cwnd_at_loss,
            if rules { 14.0 } else { 15.0 },
            "ns3_rules = {rules}"
        );
    }
}

/// ns-3 ProcessAck, CA_RECOVERY -> CA_OPEN: cwnd = ssthresh, then IncreaseWindow with every
/// segment the full ACK covers (linux_reno: one segment per cwnd's worth of segments).
#[test]
fn ns3_the_ack_that_ends_recovery_grows_the_window() {
    for rules in [true, false] {
        let p = ns3(|o| {
            o.cc = Some(CcKind::LinuxReno);
            o.iw = Some(20);
            o.initial_ssthresh = Some(QueueLimit::Packets(20));
            o.ns3_rules = Some(rules);
        });
        let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
        pipe.rate = Some(Rate(2_000_000));
        pipe.drop = drop_seqs(vec![seg(25)]);
        let mut was = false;
        let mut exit = None;
        for t in 1..2000 {
            pipe.run_until(ms(t));
            let now = pipe.snd.in_recovery();
            if was && !now {
                exit = Some((pipe.snd.cwnd(), pipe.snd.ssthresh()));
                break;
            }
            was = now;
        }
        let (cwnd, ssthresh) = exit.expect("recovery ends");
        let grown = (cwnd - ssthresh) / 1000.0;
        if rules {
            // The full ACK covers the ~20 segments outstanding at the loss; with w = ssthresh
            // (10 segments) that is two more.
            assert!(grown >= 1.0, "cwnd {cwnd} ssthresh {ssthresh}");
        } else {
            assert_eq!(grown, 0.0, "RFC 6675: cwnd = ssthresh");
        }
    }
}

/// ns-3 SendDataPacket starts the retransmission timer only when it is not running: a fast
/// retransmission does not restart it (RFC 6298 5.1), so when the retransmission is lost too
/// the timeout comes earlier than when the fast retransmit rearms the timer (ns-2, Linux).
#[test]
fn ns3_fast_retransmit_does_not_restart_the_timer() {
    let mut rto = Vec::new();
    for rules in [true, false] {
        let p = ns3(|o| {
            o.iw = Some(10);
            o.ns3_rules = Some(rules);
        });
        let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
        pipe.rate = Some(Rate(1_000_000));
        // Segment 3 and its fast retransmission are lost.
        let mut n3 = 0;
        pipe.drop = Box::new(move |_, p, _| {
            let hit = p.payload > 0 && p.tcp.seq == seg(3) && n3 < 2;
            n3 += hit as u32;
            hit
        });
        pipe.run_until(ms(3000));
        assert_eq!(pipe.snd.stats.timeouts, 1);
        let fr = sent_at(&pipe, seg(3), 1).unwrap();
        let to = sent_at(&pipe, seg(3), 2).unwrap();
        rto.push((fr, to));
    }
    let (fr_ns3, to_ns3) = rto[0];
    let (fr_rfc, to_rfc) = rto[1];
    assert!(
        to_rfc - fr_rfc >= ms(1000),
        "rearmed at the fast retransmit"
    );
    assert!(
        to_ns3 - fr_ns3 < ms(1000),
        "ns-3: the timer ran on from the last new ACK"
    );
    assert!(to_ns3 < to_rfc);
}

/// ns-3 AdvertisedWindowSize = TcpRxBuffer::MaxRxSequence() - NextRxSequence(): with the
/// application reading at once that is the whole buffer, whatever is held out of order. The RFC
/// flavour advertises the free space, which the segments behind a hole take.
#[test]
fn ns3_out_of_order_data_does_not_shrink_the_advertised_window() {
    for rules in [true, false] {
        let p = ns3(|o| {
            o.iw = Some(20);
            o.recv_buffer = Some(QueueLimit::Packets(8));
            o.ns3_rules = Some(rules);
        });
        let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
        pipe.drop = drop_seqs(vec![seg(2)]);
        pipe.run_until(ms(3000));
        assert!(pipe.rcv.ooo_dropped == 0 && pipe.snd.stats.fast_retransmits == 1);
        let smallest = pipe.trace.iter().map(|t| t.4).min().unwrap();
        // The ACK of 0-1 lets 8 and 9 out: segments 3-9 wait behind the hole, 7000 bytes.
        let want = if rules { 8000 } else { 1000 };
        assert_eq!(smallest, want, "ns3_rules = {rules}");
    }
}

/// ns-3's receiver retransmits its SYN-ACK after ConnTimeout (3 s) while only a SYN has arrived,
/// and ns-3's sender takes cwnd = InitialCwnd, ssthresh = unlimited from any SYN-ACK: a flow
/// whose handshake ACK and first window were all lost (timeouts at 1 s and 3 s) halves a
/// window of 10 at its second timeout, not of 1.
#[test]
fn ns3_synack_retransmission_reinitialises_the_window() {
    for rules in [true, false] {
        let p = ns3(|o| {
            o.cc = Some(CcKind::LinuxReno);
            o.handshake = Some(true);
            o.ns3_rules = Some(rules);
        });
        let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(10));
        // Everything the sender sends after its SYN is lost until t = 2 s.
        pipe.drop = Box::new(|_, p, now| p.tcp.flags & tcp_flags::SYN == 0 && now < ms(2000));
        pipe.run_until(ms(3025));
        // The SYN-ACK came again at 3.01 s with the rules; the timeouts were at 1.02 and 3.02 s.
        let synacks = pipe.synacks;
        assert_eq!(pipe.snd.stats.timeouts, 2, "ns3_rules = {rules}");
        let ssthresh = pipe.snd.ssthresh() / 1000.0;
        if rules {
            assert_eq!(synacks, 2);
            assert_eq!(ssthresh, 5.0, "cwnd 10 from the SYN-ACK, halved at 3.02 s");
        } else {
            assert_eq!(synacks, 1);
            assert_eq!(
                ssthresh, 2.0,
                "cwnd 1 after the first timeout, halved to the 2-segment floor"
            );
        }
    }
}

/// ns-3 SendEmptyPacket: a SYN is retransmitted after ConnTimeout (3 s), doubled for each
/// retransmission (3 s, then 6 s later); the RFC sender uses its initial RTO (1 s, then 2 s).
#[test]
fn ns3_syn_timer_is_the_connection_timeout() {
    for rules in [true, false] {
        let p = ns3(|o| {
            o.handshake = Some(true);
            o.ns3_rules = Some(rules);
        });
        let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(10));
        let mut syns = 0;
        let sent = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let log = sent.clone();
        pipe.drop = Box::new(move |_, p, now| {
            let syn = p.tcp.flags & tcp_flags::SYN != 0;
            if syn {
                log.borrow_mut().push(now);
                syns += 1;
            }
            syn && syns <= 2
        });
        pipe.run_until(ms(12_000));
        let want = if rules {
            vec![ms(0), ms(3000), ms(9000)]
        } else {
            vec![ms(0), ms(1000), ms(3000)]
        };
        assert_eq!(*sent.borrow(), want, "ns3_rules = {rules}");
        assert_eq!(pipe.snd.stats.syn_retransmits, 2);
    }
}

/// ns-2 tcp.cc newack with timerfix_ false: the timer a new ACK restarts is set before the
/// ACK's RTT sample and the end of the backoff (newtimer first), so after a timeout the ACK of
/// the first timed packet leaves it backed off; with timerfix_ (the default) it is set after.
#[test]
fn ns2_timerfix_off_restarts_the_timer_with_the_rto_the_ack_found() {
    let deadline = |timerfix: bool| {
        let p = params(|o| {
            o.iw = Some(1);
            o.ns2_agent = Some(crate::tcp::ns2_agent::Ns2AgentOptions {
                timerfix: Some(timerfix),
                ..Default::default()
            });
        });
        let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
        // packet 0 lost: timeout at 3 s (rtxcur_init_), backoff 2; its retransmission's ACK
        // (not timed) at 3.1 s sends 1 (timed) and 2 (lost); the ACK of 1 comes at 3.2 s
        pipe.drop = drop_seqs(vec![seg(0), seg(2)]);
        pipe.run_until(ms(3250));
        assert_eq!(pipe.snd.stats.timeouts, 1);
        pipe.snd.next_timeout().unwrap()
    };
    // without timerfix_: 3.2 s + the backed-off RTO the ACK found, 2 x 3 s
    assert_eq!(deadline(false), ms(9200));
    // with it: the sample of 100 ms (30 ticks of RTO) and backoff 1: 3.2 s + 0.3 s
    assert_eq!(deadline(true), ms(3500));
}

/// ns-2 tcp.cc TcpAgent::reset and tcp-sink.cc TcpSink::reset: both ends go back to their
/// initial state, the sender with no data and no timer; the packets sent before the reset
/// (ts() < lastreset_) are dropped at either end.
#[test]
fn ns2_reset_starts_afresh_and_drops_the_previous_incarnation() {
    let p = params(|o| o.iw = Some(2));
    let mut pipe = Pipe::new(p, TcpApp::Bulk, ms(50));
    let ssthresh = pipe.snd.ssthresh();
    pipe.run_until(ms(420)); // data in flight both ways
    assert!(pipe.snd.snd_max() > seg(10) && pipe.rcv.rcv_nxt() > seg(5));
    pipe.snd.reset(pipe.now, None).unwrap();
    pipe.rcv.reset(pipe.now, None).unwrap();
    assert_eq!((pipe.snd.snd_una(), pipe.snd.snd_max()), (1, 1));
    assert_eq!((pipe.cwnd_segs(), pipe.snd.ssthresh()), (2.0, ssthresh));
    assert_eq!(pipe.snd.next_timeout(), None, "no data, no timer");
    assert_eq!(pipe.rcv.rcv_nxt(), 1);
    let acks = pipe.snd.stats.acks_received;
    pipe.run_until(ms(600)); // what was in flight arrives and is dropped
    assert_eq!(pipe.snd.stats.acks_received, acks);
    assert_eq!(pipe.rcv.rcv_nxt(), 1);
    assert_eq!((pipe.snd.snd_una(), pipe.snd.snd_max()), (1, 1));
    // new data: the connection opens again from packet 0's window
    pipe.snd.set_data(pipe.now, 5).unwrap();
    pipe.run_until(ms(1200));
    assert_eq!(pipe.snd.snd_una(), seg(5));
    assert_eq!(pipe.rcv.rcv_nxt(), seg(5));
}

/// ns-2 tcp.cc `TcpAgent::headersize`: with `timestamps_` a data packet's header is
/// `tcpip_base_hdr_size_` + `ts_option_size_` (40 + 10); the opening packet of `syn_` keeps
/// `tcpip_base_hdr_size_` (tcp.cc `output`), and Vegas adds no header at all.
#[test]
fn ns2_timestamps_add_the_option_bytes_to_data_packets() {
    let p = params(|o| o.timestamps = Some(true));
    assert_eq!((p.header, p.data_header(), p.wire_size()), (40, 50, 1050));
    let plain = params(|_| {});
    assert_eq!(plain.data_header(), 40);
    let vegas = params(|o| {
        o.timestamps = Some(true);
        o.cc = Some(CcKind::Vegas);
    });
    assert_eq!(vegas.data_header(), 0);
}
