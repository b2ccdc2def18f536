//! Segments leaving the sender.
//!
//! * `emit`: data segments are ECT, SYN and pure ACKs are not (RFC 3168 section 6.1.1; ECT(1)
//!   for an L4S sender, RFC 9331 section 4.1); CWR on the first new data after a reduction
//!   (RFC 3168 section 6.1.2; on any packet after each of ns-2's reductions, `cong_action_`);
//!   one timed segment per RTT (ns-2 `rtt_seq_`), ended by a retransmission (Karn & Partridge
//!   1987, RFC 6298 section 3); the timer started if it is not running (RFC 6298 section 5.1).
//! * `next_new_segment`: the receive window, cwnd (ns-2's `window()` with F-RTO's
//!   `force_wnd(2)` and `QOption_`), Nagle (RFC 896, RFC 1122 4.2.3.4; Linux's
//!   `tcp_minshall_update` under `nagle_minshall`), the restart window
//!   after idle (RFC 5681 section 4.1).
//! * `send_data`: the send loop; in SACK recovery RFC 6675 section 5 step (C) (with RACK-TLP,
//!   Linux's pipe and lost segments); ns-2.35 tcp-newreno.cc's `send_much(0, 0, 2)` burst
//!   limit in recovery. The ns-3 SACK sender (`ns3.rs`) and ns-2's Sack1 and Linux agents
//!   (`ns2_sack1_send.rs`, `ns2_linux.rs`) have their own loops.
//! * Head retransmissions (fast retransmit, partial ACKs): the timer restarts as ns-2's
//!   `reset_rtx_timer` in `dupack_action` and Linux's `tcp_retransmit_skb` do (rule
//!   `restart_timer_on_head_retransmit`); RFC 6298 and ns-3 leave it running.
//! * The SYN (RFC 3168 section 6.1.1 ECN-setup SYN; ns-2.35 tcp.cc `output` for packet 0; ns-3
//!   `SendEmptyPacket`'s ConnTimeout doubling) and the third segment of the handshake
//!   (RFC 9293 section 3.5).

use super::{State, TcpSender, F};
use crate::endpoint::EndpointCtx;
use crate::packet::{Ecn, Packet, PacketKind, TcpHeader};
use crate::tcp::cc::Recovery;
use crate::tcp::flavour::PrrVariant;
use crate::units::SimTime;

impl TcpSender {
    pub(super) fn emit(&mut self, cx: &mut EndpointCtx, seq: u64, len: u64, flags: u8) {
        let now = cx.now;
        if len > 0 && (self.rate.is_some() || self.pacer.is_some()) {
            self.on_data_sent(now, seq, len);
        }
        let fin = self.closing && seq + len == self.data_end && flags & F::SYN == 0;
        let mut fl = flags | if fin { F::FIN } else { 0 };
        let retx = seq < self.snd_max;
        let ns2_mark = self.rules.cwr_after_every_reduction; // any packet, ns-2's opening one too
        if (ns2_mark || (!retx && len > 0)) && self.cwr_pending {
            fl |= F::CWR; // RFC 3168 section 6.1.2: CWR on the first new data after a reduction
            self.cwr_pending = false;
        }
        // ns-2 packet 0 without syn_ (rule `opening_data_without_headers`): size_ bytes
        let bare = self.rules.opening_data_without_headers && !self.p.handshake && seq == 1;
        cx.send(Packet {
            kind: PacketKind::TcpData,
            size: if bare { 0 } else { self.p.data_header() } + len as u32,
            payload: len as u32,
            ecn: if self.p.ecn && len > 0 {
                // RFC 3168 section 6.1.1: data segments are ECT; SYN and pure ACKs are not.
                // ECT(0), or ECT(1) for an L4S sender (RFC 9331 section 4.1).
                self.cc.ect()
            } else {
                // a bare FIN: ECT only where every packet is (`ect_on_every_packet`)
                self.p.ect_on_every_packet().unwrap_or(Ecn::NotEct)
            },
            tcp: TcpHeader {
                seq,
                ack: 1,
                flags: fl,
                window: 0,
                ts_val: now,
                ..TcpHeader::default()
            },
            ..Packet::default()
        });
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len;
        if len > 0 && self.vegas_loss.is_some() {
            self.vegas_on_send(seq, cx.now_s);
        }
        let end = seq + len + fin as u64;
        self.ns2_note_send(end, now);
        if self.rules.prr == Some(PrrVariant::Ns3) && (self.in_recovery || self.in_cwr) {
            // TcpPrrRecovery::UpdateBytesSent, from SendDataPacket in CA_RECOVERY and CA_CWR
            self.prr_out = self.prr_out.wrapping_add(len as u32);
        }
        if self.in_recovery && self.linux_prr() {
            // tcp_write_xmit / tcp_xmit_retransmit_queue: prr_out in recovery
            self.linux_prr_sent(len);
        }
        if retx {
            if self.rules.remember_retransmitted_ranges {
                self.note_retransmission_ns3(seq, seq + len);
            }
            self.stats.retransmitted_segments += 1;
            self.stats.retransmitted_bytes += len;
            if len > 0 {
                self.undo_note_retransmission(now); // Linux tcp_retransmit_skb
            }
            // Karn: a retransmission invalidates the timed segment (RFC 6298 section 3);
            // ns-2 ends it only at a fast retransmit or a timeout (fast_retransmit_head)
            if !self.rules.retransmission_keeps_timed_segment
                && self.timed.is_some_and(|(e, _)| e > seq)
            {
                self.timed = None;
            }
        } else if self.timed.is_none() && len > 0 && self.state == State::Established {
            // ns-2 rtt_seq_: one timed segment per RTT (the opening packet while unacknowledged)
            self.timed = Some((end, now));
        }
        if len > 0 && len < self.mss() && seq + len > self.snd_max {
            self.snd_sml = seq + len; // tcp_minshall_update: new data shorter than the MSS
        }
        self.snd_max = self.snd_max.max(end);
        self.last_send = now;
        // RFC 6298 section 5.1: start the timer if it is not running.
        if self.rto_at.is_none() {
            self.arm_rto(now);
        }
        if len > 0 && self.rack.is_some() {
            // RACK's transmission time; new data sets the probe timer (sender/rack_tlp.rs)
            self.rack_sent(seq, len, now, retx);
        }
    }

    /// Retransmits the segment starting at snd_una (fast retransmit, partial ACK).
    pub(super) fn retransmit_head(&mut self, cx: &mut EndpointCtx) {
        self.resend_head(cx);
        // Restart the timer for the retransmitted head, as ns-2 (`reset_rtx_timer` in
        // `dupack_action`) and Linux (`tcp_retransmit_skb` rearms for the queue head) do;
        // RFC 6298 alone would let it run from the last new ACK, and so does ns-3
        // (`SendDataPacket` starts it only when it is not running; `emit` does that).
        if self.rules.restart_timer_on_head_retransmit {
            self.arm_rto(cx.now);
        }
    }

    /// The fast retransmit of the segment at snd_una: ns-2's `reset_rtx_timer(1, 0)` in
    /// `dupack_action` ends the RTT measurement (`rtt_active_ = 0`) before `output()`.
    pub(super) fn fast_retransmit_head(&mut self, cx: &mut EndpointCtx) {
        if self.rules.retransmission_keeps_timed_segment {
            self.timed = None;
        }
        self.retransmit_head(cx);
    }

    /// Sends the segment starting at snd_una again; the timer starts only if it is not running.
    pub(super) fn resend_head(&mut self, cx: &mut EndpointCtx) {
        let seq = self.snd_una;
        let len = self.mss().min(self.data_end.saturating_sub(seq));
        self.emit(cx, seq, len, F::ACK);
        self.high_rxt = self.high_rxt.max(seq + len.max(1));
    }

    /// Whether one new segment [snd_nxt, +len) may go out now; returns its length.
    pub(super) fn next_new_segment(&mut self, now: SimTime, use_cwnd: bool) -> Option<u64> {
        // After a timeout (go-back-N) skip what the receiver SACKed.
        if self.p.sack {
            while let Some(e) = self.sb.sacked_until(self.snd_nxt) {
                self.snd_nxt = e;
            }
        }
        let avail = self.avail_end();
        if self.snd_nxt >= avail {
            return None;
        }
        let len = self.mss().min(avail - self.snd_nxt);
        let mut win = self.rwnd.min(self.p.max_window);
        if use_cwnd {
            // ns-2 window(): force_wnd(2) instead of cwnd_ while F-RTO sends new data; with
            // QOption_, send_much's window as its loop began
            let cwnd = self.send_much_win.unwrap_or(self.w.cwnd) as u64;
            win = win.min(self.ns2_frto_window().unwrap_or(cwnd));
        }
        win = win.saturating_sub(self.opening_slot());
        if self.snd_nxt + len > self.snd_una + win {
            return None;
        }
        // Nagle (RFC 1122 4.2.3.4): no small segment while data is unacknowledged; as Linux
        // (`nagle_minshall`): never the FIN's segment, and only while a small one is in flight.
        if self.p.nagle && len < self.mss() && self.snd_max > self.snd_una {
            let hold = if self.rules.nagle_minshall {
                let fin = self.closing && self.snd_nxt + len == self.data_end;
                !fin && self.snd_sml > self.snd_una && self.snd_sml <= self.snd_nxt
            } else {
                true
            };
            if hold {
                return None;
            }
        }
        // RFC 5681 section 4.1: restart window after an idle period longer than the RTO.
        if self.p.slow_start_restart
            && self.snd_max == self.snd_una
            && self.snd_max > 1
            && now.saturating_sub(self.last_send) > self.rtt.rto()
        {
            self.w.cwnd = self.w.cwnd.min(self.p.iw as f64 * self.w.mss);
            if self.snd_nxt + len > self.snd_una + self.w.cwnd as u64 {
                return None;
            }
        }
        Some(len)
    }

    pub(super) fn send_data(&mut self, cx: &mut EndpointCtx) {
        let opening = self.state == State::SynSent && self.opening_with_data();
        if !(self.state == State::Established || opening) || self.send_delayed(cx) {
            return;
        }
        if self.ns3_sack() {
            self.send_data_ns3(cx);
            return;
        }
        if self.lx.is_some() {
            return self.send_data_ns2_linux(cx);
        }
        if self.ns2_sack1() && self.in_recovery {
            self.send_data_sack1(cx);
            return;
        }
        if self.ns2_sack1() && !self.sb.is_empty() {
            self.send_data_sack1_open(cx);
            return;
        }
        let mss = self.mss();
        let dt = self.p.dupack_threshold;
        // ns-2 NewReno sends at most `recovery_burst_limit` new packets per ACK in recovery
        // (tcp-newreno.cc recv: send_much(0, 0, 2) once dupacks_ >= numdupacks_, also for the
        // inflation outside recovery and a duplicate dupack_action declined).
        let mut burst = match self.rules.recovery_burst_limit {
            Some(n)
                if (self.in_recovery
                    || self.ns2_dupwnd_out
                    || (self.dupacks >= dt && self.ns2_aimd()))
                    && !self.p.sack
                    && self.cc.recovery() == Recovery::NewReno =>
            {
                n
            }
            _ => u32::MAX,
        };
        let mut sent = 0;
        if self.p.ns2.qoption && self.ns2_sack1() {
            self.send_much_win = Some(self.w.cwnd);
        }
        loop {
            if self.pace_blocked(cx.now) {
                break;
            }
            if (self.in_recovery || self.rack_loss_state()) && self.p.sack {
                // RFC 6675 section 5 step (C): send while cwnd - pipe >= 1 SMSS (with RACK-TLP
                // Linux's pipe and its lost segments, in Recovery and in the Loss state after
                // a timeout: sender/rack_tlp.rs).
                let pipe = self.recovery_pipe();
                if self.w.cwnd - (pipe as f64) < mss as f64 {
                    break;
                }
                let lost = match &self.rack {
                    Some(r) => r.rack.next_lost(),
                    None => {
                        self.sb
                            .next_seg(self.snd_una, self.snd_max, self.high_rxt, dt, mss, false)
                    }
                };
                if let Some((s, l)) = lost {
                    self.retransmit_range(cx, s, l);
                    continue;
                }
                self.snd_nxt = self.snd_nxt.max(self.snd_max);
                if let Some(len) = self.next_new_segment(cx.now, false) {
                    let s = self.snd_nxt;
                    self.emit(cx, s, len, F::ACK);
                    self.snd_nxt = self.snd_max;
                    continue;
                }
                let rule3 = if self.rack.is_some() {
                    None // Linux retransmits only what is marked lost
                } else {
                    self.sb
                        .next_seg(self.snd_una, self.snd_max, self.high_rxt, dt, mss, true)
                };
                if let Some((s, l)) = rule3 {
                    self.retransmit_range(cx, s, l);
                    continue;
                }
                break;
            }
            if burst == 0 || self.burst_done(sent) {
                break;
            }
            burst -= 1;
            match self.next_new_segment(cx.now, true) {
                Some(len) => {
                    let s = self.snd_nxt;
                    self.emit(cx, s, len, F::ACK);
                    sent += 1;
                    let fin = (self.closing && s + len == self.data_end) as u64;
                    self.snd_nxt = s + len + fin;
                    // t_seqno_ at process_qoption_after_send: the packet's own number
                    // (tcp.cc send_much), the next one (tcp-sack1.cc send_much)
                    let sack1 = i64::from(self.ns2_sack1());
                    let t_seqno = self.ns2_pkts(s + len) - 1 + sack1;
                    self.ns2_qoption_after_send(cx.now_s, t_seqno);
                }
                None => break,
            }
        }
        self.send_much_win = None;
    }

    /// RFC 6675 NextSeg rules 1 and 3 (or RACK's lost segment): resends `[s, s + l)` during
    /// recovery and moves HighRxt past it.
    fn retransmit_range(&mut self, cx: &mut EndpointCtx, s: u64, l: u64) {
        self.emit(cx, s, l, F::ACK);
        self.high_rxt = s + l;
    }

    pub(super) fn send_syn(&mut self, cx: &mut EndpointCtx) {
        if self.ns2_connect_aborts(cx.now) {
            return; // ns-2 max_connects_ (sender/ns2_knobs.rs)
        }
        // ns-2's opening packet after a timeout carries cong_action (`note_ns2_cong_action`)
        let cwr = if self.rules.cwr_after_every_reduction && self.cwr_pending {
            self.cwr_pending = false;
            F::CWR
        } else {
            0
        };
        cx.send(Packet {
            kind: PacketKind::TcpData,
            size: self.p.header + self.p.syn_options,
            payload: 0,
            // not ECN-capable (RFC 3168 section 6.1.1) unless the controller needs ECN where
            // the flavour makes every packet ECT (Linux INET_ECN_xmit, ns-3 DctcpEcn)
            ecn: self.p.ect_on_every_packet().unwrap_or(Ecn::NotEct),
            tcp: TcpHeader {
                seq: 0,
                // RFC 3168 section 6.1.1 ECN-setup SYN; ns-2's opening packet echoes only
                // (tcp.cc output: ecnecho, no cong_action)
                flags: F::SYN
                    | match (self.p.ecn, self.rules.cwr_after_every_reduction) {
                        (true, false) => F::ECE | F::CWR,
                        (true, true) => F::ECE | cwr,
                        (false, _) => cwr,
                    },
                ts_val: cx.now,
                ..TcpHeader::default()
            },
            ..Packet::default()
        });
        self.syn_sent_at = cx.now;
        // packet 0 leaves through send_much: process_qoption_after_send, t_seqno_ 0 (tcp.cc)
        // or 1 (tcp-sack1.cc counts it first)
        let t_seqno = i64::from(self.ns2_sack1());
        self.ns2_qoption_after_send(cx.now_s, t_seqno);
        let timer = if self.rules.syn_timer_is_conn_timeout {
            // ns-3 SendEmptyPacket: ConnTimeout * 2^(SYNs sent before this one).
            let k = self.stats.syn_retransmits.min(30);
            SimTime(crate::tcp::receiver::NS3_CONN_TIMEOUT.0 << k)
        } else {
            self.rtt.rto()
        };
        self.rto_at = Some(cx.now + timer);
    }

    pub(super) fn establish(&mut self, cx: &mut EndpointCtx) {
        self.state = State::Established;
        // ns-2's opening packet is acknowledged like data; nothing answers the ACK
        // (tcp.cc output: seqno 0 with syn_ is a bare header).
        if self.p.handshake && self.rules.third_handshake_segment {
            // Third segment of the handshake (RFC 9293 section 3.5).
            cx.send(Packet {
                kind: PacketKind::TcpAck,
                size: self.p.header,
                // a pure ACK: ECT only where every packet is (`ect_on_every_packet`)
                ecn: self.p.ect_on_every_packet().unwrap_or(Ecn::NotEct),
                tcp: TcpHeader {
                    seq: 1,
                    ack: 1,
                    flags: F::ACK,
                    ts_val: cx.now,
                    ..TcpHeader::default()
                },
                ..Packet::default()
            });
        }
        self.rto_at = None;
        if self.snd_max > self.snd_una || self.newack_rto.is_some() {
            // data left beside ns-2's opening packet: newack() -> newtimer() rearms the timer;
            // without timerfix_ newtimer() runs first (t_seqno_ > 0 sets it) and send_much
            // leaves the pending timer alone
            self.arm_newack_rto(cx.now);
        }
        self.start_object(cx.now);
        self.send_data(cx);
    }
}
