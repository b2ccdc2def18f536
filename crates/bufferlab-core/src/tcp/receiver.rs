//! The TCP receiver: cumulative ACKs, delayed ACKs, SACK blocks, a finite receive buffer and
//! the ECN echo, as a sans-IO endpoint.
//!
//! * RFC 9293 section 3.10.7.4: in-order data advances RCV.NXT; the application reads it at
//!   once (goodput), so the buffer holds only out-of-order data, whose size reduces the
//!   advertised window (free space), bounded by `max_adv_window`. Out-of-order data that does
//!   not fit in the buffer is dropped (and ACKed). ns-3.44 (`rx_window_from_next_expected`,
//!   `TcpSocketBase::AdvertisedWindowSize` = `TcpRxBuffer::MaxRxSequence()` −
//!   `NextRxSequence()`): the window is the whole buffer from RCV.NXT, out-of-order data does
//!   not shrink it.
//! * RFC 5681 section 4.2 / RFC 1122 4.2.3.2: with delayed ACKs, an ACK for at least every
//!   `delack_count` full segments and within `delack_timeout`; an immediate ACK for
//!   out-of-order data (a duplicate ACK), for a segment that fills a hole, and for a FIN.
//!   Without delayed ACKs every segment is ACKed (ns-2 `TCPSink`).
//! * RFC 2018 section 4: up to 3 SACK blocks; the first holds the most recently received
//!   segment, the others follow from the highest down (a simplification of "most recently
//!   reported first"). With `ns2_rules`, ns-2.35's choice instead (`tcp-sink.cc`
//!   `Sacker::append_ack`, `tcp/ns2_sacker.rs`).
//! * RFC 3168 section 6.1.3: after a CE-marked segment every ACK carries ECE until a segment
//!   with CWR arrives.
//! * RFC 9768 (AccECN, `ecn_feedback = "accecn"`, `tcp/accecn.rs`): every arriving segment is
//!   counted by codepoint; every ACK carries the CE packet count's low 3 bits (ACE) and the
//!   AccECN option with the byte counters (its length as Linux fits it); 6 CE marks pending
//!   send the ACK at once (Linux `TCP_ACCECN_ACE_MAX_DELTA`); no ECE flag, CWR ignored. For
//!   DCTCP, Prague and BBRv3 the CE-state ACK rule below still sends the held ACK when the
//!   CE state changes (Linux runs `dctcp_ece_ack_update` whatever the feedback).
//! * RFC 8257 section 3.2 (DCTCP, Prague, BBRv3 with classic feedback): the ECE
//!   of each ACK is the CE state of the segments it acknowledges; when a segment's CE state
//!   differs from the last one, the ACK held back by delayed ACKs goes out at once with the
//!   old state, then the state changes (ns-3 `TcpDctcp::CeState0to1` / `CeState1to0`, Linux
//!   `dctcp_ece_ack_update`). CWR is ignored.
//! * ns-3.44 (`ns3_rules`, `TcpSocketBase::ProcessSynRcvd`: "Always respond to first data
//!   packet to speed up the connection"): the first data segment after the handshake is ACKed
//!   at once.
//! * ns-3.44 (`ns3_rules`, `TcpSocketBase::SendEmptyPacket` in SYN_RCVD): until a segment
//!   other than a SYN arrives, the SYN-ACK is retransmitted after `ConnTimeout` (3 s), then
//!   6 s, 12 s ... (`m_cnTimeout` times 2^k, `SynRetries` 6).
//! * RFC 7323 section 4.3: the timestamp echoed is that of the segment at the left edge
//!   (TS.Recent is updated only when the segment arrives with no ACK pending).
//! * ns-2.35 `tcp-sink.cc` `DelAckSink::recv` without `SYN_immediate_ack_` (`ns2_agent`): the
//!   opening packet's ACK is delayed as an in-order packet's when no delayed ACK is pending;
//!   the ACK that goes out first (the timer's, or one for data) answers it. The same holds
//!   for a data packet 0 (an agent with `syn_` false): its ACK waits `interval_` too.
//! * ns-2.35 `tcp-sink.cc` `TcpSink::reset` (`$sink reset`, and `DelAckSink::reset`, which
//!   cancels the delayed-ACK timer first): the acker forgets what it saw (`next_ = 0`,
//!   `maxseen_ = 0`, `seen_` cleared), the saved ACK goes, and `lastreset_ = now`: `recv`
//!   drops a packet whose `ts()` (its send time) is before it, the previous incarnation's.
//!   `bytes_` is not reset: it goes on counting.
//! * ns-2.35 `tcp-sink.cc` `Acker::update_ts` (`Rules::ts_echo_as_ns2_acker`), for every
//!   packet before it is taken in: the timestamp to echo becomes the packet's when the packet
//!   starts at most one past the last ACK sent and its timestamp is not older than the one
//!   held (duplicates included); with `ts_echo_rfc1323_` (`ns2_agent`), whenever it starts
//!   exactly there.
//! * ns-2.35 `tcp-sink.cc` `DelAckSink::recv` with `RFC2581_immediate_ack_` false
//!   (`ns2_agent`): an in-order packet with a hole still above it is not ACKed at once (its
//!   ACK waits as any in-order packet's); one that brings held packets in order still is.
//! * Linux 6.x (`Rules::linux_ack_policy`, the `linux` preset): quick-ACK mode, the adaptive
//!   delayed-ACK timeout and SACK compression decide when an ACK goes (`tcp/linux_ack.rs`).
//! * RFC 2883 D-SACK as Linux sends it (`dsack`, the `linux` preset; `tcp_input.c`
//!   `tcp_data_queue`, `tcp_data_queue_ofo`, `tcp_dsack_set`): a segment wholly below RCV.NXT
//!   is reported whole, one partly below it up to RCV.NXT, one wholly inside a held
//!   out-of-order range whole, one overlapping the start of a held range up to that range's
//!   end. The report goes first in the next ACK's SACK blocks (the others after it, within
//!   the three that fit beside the timestamp) and only in that ACK (`tcp_options_write`
//!   clears it); the next data segment clears it too (`tcp_data_queue`: `rx_opt.dsack = 0`).

use super::accecn::{option_fit, AccEcnReceiver};
use super::config::{CcKind, TcpParams};
use super::linux_ack::{AckNow, LinuxAck};
use super::ns2_sacker::Sacker;
use crate::endpoint::{Endpoint, EndpointCtx};
use crate::packet::{
    tcp_flags as F, AccEcnWire, Ecn, Packet, PacketKind, TcpHeader, MAX_SACK_BLOCKS,
};
use crate::units::SimTime;

/// `TCP_NUM_SACKS`: the SACK blocks a Linux receiver remembers (include/linux/tcp.h).
const LINUX_SACK_BLOCKS: usize = 4;

/// ns-3.44 `TcpSocket` attributes `ConnTimeout` (3 s) and `SynRetries` (6).
pub(super) const NS3_CONN_TIMEOUT: SimTime = SimTime::from_secs(3);
const NS3_SYN_RETRIES: u32 = 6;

/// Out-of-order ranges `reserve_room` makes room for: the holes a receiver of the
/// allocation test's cases holds at once, with room to spare.
const OOO_RESERVED: usize = 16;

pub struct TcpReceiver {
    /// Shared with the sender and the flows of one configuration (`scenario/flows.rs`).
    p: std::rc::Rc<TcpParams>,
    rcv_nxt: u64,
    /// Out-of-order [start, end) ranges above rcv_nxt, sorted and disjoint (capacity reused).
    ooo: Vec<(u64, u64)>,
    ooo_bytes: u64,
    fin_seq: Option<u64>,
    unacked: u32,
    delack_at: Option<SimTime>,
    ts_recent: SimTime,
    ece: bool,
    /// RFC 8257 section 3.2: ECE echoes the CE state of each segment (DCTCP, Prague).
    ce_state_echo: bool,
    last_block: Option<(u64, u64)>,
    /// ns-3: the next in-order segment is ACKed at once (the first after the handshake).
    ack_next_at_once: bool,
    /// ns-3: when the SYN-ACK goes out again if nothing but SYNs has arrived, and how many
    /// times it has been sent.
    synack_at: Option<SimTime>,
    synacks: u32,
    pub acks_sent: u64,
    pub delack_timeouts: u64,
    pub ooo_dropped: u64,
    pub delivered: u64,
    /// The opening SYN arrived (ns-2's sink counts its header bytes as delivered).
    syn_received: bool,
    /// The SYN whose answer waits for the delayed-ACK timer (its flags): ns-2's sink without
    /// `SYN_immediate_ack_`.
    held_syn: Option<u8>,
    /// ns-2's `lastreset_` (tcp-sink.cc `reset`): packets sent before it are dropped.
    last_reset: Option<SimTime>,
    /// `sink_bytes_` when the sink was last reset (ns-2's `bytes_` goes on counting).
    bytes_at_reset: f64,
    /// ns-2's `SackStack` (`Rules::sack_blocks_from_ns2_stack`, tcp/ns2_sacker.rs).
    sacker: Option<Sacker>,
    /// The first byte of the last packet received: the packet an ACK answers.
    last_seq: u64,
    /// The cumulative ACK of the last ACK sent (ns-2's `last_ack_sent_ + 1`, in bytes).
    last_ack_sent: u64,
    /// AccECN's counters (`ecn_feedback = "accecn"`).
    pub accecn: Option<AccEcnReceiver>,
    /// The codepoint of its ACKs: ECT where the controller needs ECN and the flavour says so
    /// (`TcpParams::ect_on_every_packet`), else not ECN-capable (RFC 3168 section 6.1.1).
    ack_ecn: Ecn,
    /// Linux's delayed-ACK engine (`Rules::linux_ack_policy` with delayed ACKs).
    linux: Option<Box<LinuxAck>>,
    /// The duplicate the next ACK reports first (RFC 2883; `dsack` with `sack`): start, length.
    dsack: Option<(u64, u32)>,
}

impl TcpReceiver {
    pub fn new(p: impl Into<std::rc::Rc<TcpParams>>) -> Self {
        let p: std::rc::Rc<TcpParams> = p.into();
        let sacker = (p.sack && p.rules().sack_blocks_from_ns2_stack).then(Sacker::new);
        Self {
            ack_next_at_once: if p.handshake {
                p.rules().first_data_acked_at_once
            } else {
                // tcp-sink.cc DelAckSink::recv: packet 0 (data here, syn_ false) is answered
                // at once only with SYN_immediate_ack_; off, it is delayed like any other
                p.rules().opening_data_acked_at_once && p.ns2.syn_immediate_ack
            },
            ce_state_echo: p.ecn && matches!(p.cc, CcKind::Dctcp | CcKind::Prague | CcKind::Bbr3),
            synack_at: None,
            synacks: 0,
            rcv_nxt: 1,
            // empty until the first gap, then 4, 8, ... ranges: most receivers never hold
            // more than a few holes at once, and 16 reserved up front were 256 bytes a flow
            // (docs/performance.md, "What a flow holds")
            ooo: Vec::new(),
            ooo_bytes: 0,
            fin_seq: None,
            unacked: 0,
            delack_at: None,
            ts_recent: SimTime::ZERO,
            ece: false,
            last_block: None,
            acks_sent: 0,
            delack_timeouts: 0,
            ooo_dropped: 0,
            delivered: 0,
            syn_received: false,
            held_syn: None,
            last_reset: None,
            bytes_at_reset: 0.0,
            sacker,
            last_seq: 0,
            // ns-2 Acker: last_ack_sent_ 0, i.e. packet 1 (the first data packet with syn_)
            last_ack_sent: if p.handshake { 1 } else { 1 + u64::from(p.mss) },
            accecn: p.accecn().then(AccEcnReceiver::default),
            ack_ecn: p.ect_on_every_packet().unwrap_or(Ecn::NotEct),
            linux: (p.linux_ack_policy && p.rules().linux_ack_policy && p.delayed_ack)
                .then(|| Box::new(LinuxAck::new(p.initial_rto, p.min_rto, p.max_rto, p.mss))),
            dsack: None,
            p,
        }
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// ns-2's `bytes_` since the last reset: the in-order segments times (mss + header),
    /// plus the opening packet's header bytes (see `probe`).
    fn sink_bytes(&self) -> f64 {
        let segments = self.delivered.div_ceil(u64::from(self.p.mss.max(1)));
        let syn = if self.syn_received { self.p.header } else { 0 };
        let segment = u64::from(self.p.wire_size());
        // packet 0 without syn_ came without its headers (opening_data_without_headers)
        let bare = self.p.rules().opening_data_without_headers && !self.p.handshake && segments > 0;
        let bare = if bare { self.p.data_header() } else { 0 };
        (segments * segment + u64::from(syn) - u64::from(bare)) as f64
    }

    /// The advertised window, bounded by the largest advertisement: the free receive buffer,
    /// or with `rx_window_from_next_expected` (ns-3) the whole buffer from RCV.NXT.
    pub fn window(&self) -> u64 {
        let held = if self.p.rules().rx_window_from_next_expected {
            0
        } else {
            self.ooo_bytes
        };
        self.p
            .recv_buffer
            .saturating_sub(held)
            .min(self.p.max_adv_window)
    }

    fn send_ack(&mut self, cx: &mut EndpointCtx, mut flags: u8) {
        if let Some(syn_flags) = self.held_syn.take() {
            flags |= F::SYN | self.syn_echo(syn_flags);
        }
        let mut h = TcpHeader {
            seq: 1,
            ack: self.rcv_nxt,
            flags: F::ACK
                | flags
                | if self.ece && self.accecn.is_none() {
                    F::ECE
                } else {
                    0
                },
            window: self.window().min(u32::MAX as u64) as u32,
            ts_echo: self.ts_recent,
            ts_val: cx.now,
            ..TcpHeader::default()
        };
        if let Some(sacker) = self.sacker.as_mut() {
            let max_seen = self.ooo.last().map_or(self.rcv_nxt, |r| r.1);
            sacker.blocks(self.last_seq, self.rcv_nxt, &self.ooo, max_seen, |s, e| {
                h.push_sack(s, e)
            });
        } else if let Some((s, len)) = self.dsack.take().filter(|_| self.p.sack) {
            // RFC 2883 section 4: the duplicate first, then the blocks RFC 2018 orders
            h.push_sack(s, s + u64::from(len));
            self.push_sack_blocks(&mut h);
        } else if self.p.sack && !self.ooo.is_empty() {
            self.push_sack_blocks(&mut h);
        }
        self.finish_ack(cx, flags, h);
    }

    /// RFC 2018 section 4's blocks after any D-SACK: the one holding the latest segment, then
    /// the others from the highest down.
    fn push_sack_blocks(&self, h: &mut TcpHeader) {
        let first = self
            .last_block
            .and_then(|(s, _)| self.ooo.iter().copied().find(|r| r.0 <= s && s < r.1));
        if let Some(b) = first {
            h.push_sack(b.0, b.1);
        }
        for &r in self.ooo.iter().rev() {
            if h.sack_count() >= MAX_SACK_BLOCKS {
                break;
            }
            if Some(r) != first {
                h.push_sack(r.0, r.1);
            }
        }
    }

    /// Sizes and sends the ACK built by `send_ack`.
    fn finish_ack(&mut self, cx: &mut EndpointCtx, flags: u8, h: TcpHeader) {
        let mut size = self.p.ack_size;
        if flags & F::SYN != 0 {
            size += self.p.syn_options;
        }
        let mut sack_bytes = 0;
        if let (Some(base), n @ 1..) = (self.p.sack_option_base, h.sack_count()) {
            sack_bytes = base + 8 * n as u32;
            size += sack_bytes;
        }
        let mut accecn = AccEcnWire::default();
        if let Some(r) = self.accecn.as_mut() {
            // tcp_established_options: the option in what is left beside TS and SACK
            let used = self.p.ts_option_bytes() + sack_bytes;
            let (bytes, fields) = option_fit(used, sack_bytes > 0);
            let carried = (bytes > 0 || sack_bytes > 0).then_some(fields);
            accecn = AccEcnWire::new(r.ace(), carried, r.eceb());
            size += bytes;
            r.ce_pending = 0;
        }
        cx.send(Packet {
            kind: PacketKind::TcpAck,
            size,
            ecn: self.ack_ecn,
            tcp: h,
            accecn,
            ..Packet::default()
        });
        self.acks_sent += 1;
        if let Some(la) = self.linux.as_deref_mut() {
            la.on_ack_sent(flags & F::SYN == 0);
        }
        self.unacked = 0;
        self.delack_at = None;
        self.last_ack_sent = self.rcv_nxt;
    }

    /// ns-2.35 tcp-sink.cc `Acker::update_ts(seqno, ts, ts_echo_rfc1323_)`, in bytes: the
    /// packet starting at `seq` (ns-2's seqno), sent at `ts`.
    fn ns2_update_ts(&mut self, seq: u64, ts: SimTime) {
        // rfc1323: the packet that advances the ACK; else (rfc1323-bis) one up to there,
        // duplicates included, not older than the timestamp held
        let advances = self.p.ns2.knobs.ts_echo_rfc1323 && seq == self.last_ack_sent;
        if advances || (ts >= self.ts_recent && seq <= self.last_ack_sent) {
            self.ts_recent = ts;
        }
    }

    /// A SYN-ACK; with `ns3_rules` its retransmission timer (ns-3 `ConnTimeout` 3 s, doubled
    /// each time, `SynRetries` 6 transmissions).
    fn send_synack(&mut self, cx: &mut EndpointCtx, syn_flags: u8) {
        let delack = self.delack_at;
        let echo = self.syn_echo(syn_flags);
        if let Some(la) = self.linux.as_deref_mut() {
            la.on_synack_sent(cx.now);
        }
        self.send_ack(cx, F::SYN | echo);
        self.delack_at = delack;
        if self.p.rules().syn_ack_retransmission_timer {
            self.synacks += 1;
            self.synack_at = (self.synacks < NS3_SYN_RETRIES)
                .then(|| cx.now + SimTime(NS3_CONN_TIMEOUT.0 << (self.synacks - 1)));
        }
    }

    /// The ECN echo of the SYN-ACK answering a SYN with these flags.
    fn syn_echo(&self, syn_flags: u8) -> u8 {
        if self.p.rules().opening_ack_echoes_ece {
            syn_flags & F::ECE
        } else {
            0
        }
    }

    /// Linux's reasons to acknowledge an in-order segment at once (`ICSK_ACK_NOW`, or a pushed
    /// segment the application has read with nothing held out of order), with
    /// `tcp_event_data_recv` run on it when it carries data (`tcp/linux_ack.rs`).
    fn linux_now(&mut self, now: SimTime, pkt: &Packet, ce_changed: bool) -> bool {
        let (wnd, codepoint, dctcp_like, cwr) = self.linux_inputs(pkt);
        let read_all = self.ooo.is_empty();
        let Some(la) = self.linux.as_deref_mut() else {
            return false;
        };
        let cwr_now = cwr && la.on_cwr();
        if pkt.payload == 0 {
            return cwr_now;
        }
        let seg = la.on_data(now, wnd, pkt.payload, codepoint, dctcp_like, ce_changed);
        cwr_now || seg.ack_now || (seg.pushed && read_all)
    }

    /// The same for a segment above a hole (`tcp_data_queue_ofo` checks its ECN field).
    fn linux_ofo(&mut self, pkt: &Packet, ce_changed: bool) -> bool {
        let data = pkt.payload > 0;
        let (wnd, codepoint, dctcp_like, cwr) = self.linux_inputs(pkt);
        let Some(la) = self.linux.as_deref_mut() else {
            return false;
        };
        let cwr_now = cwr && la.on_cwr();
        let ce_now = data && la.check_ce(wnd, codepoint, dctcp_like, ce_changed);
        cwr_now || ce_now
    }

    /// The receive window, the codepoint when ECN is on, whether the CE state is echoed per
    /// segment (DCTCP-like, or AccECN's counters), and a CWR on data (`tcp_ecn_accept_cwr`
    /// acts in RFC 3168 mode only).
    fn linux_inputs(&self, pkt: &Packet) -> (u64, Option<Ecn>, bool, bool) {
        let cwr = pkt.payload > 0 && self.accecn.is_none() && pkt.tcp.flags & F::CWR != 0;
        (
            self.window(),
            self.p.ecn.then_some(pkt.ecn),
            self.ce_state_echo || self.accecn.is_some(),
            cwr,
        )
    }

    /// What of the segment [s, e) arrived before (RFC 2883, Linux `tcp_data_queue` /
    /// `tcp_data_queue_ofo` -> `tcp_dsack_set`, `tcp_dsack_extend`): below RCV.NXT, or the hull
    /// of its overlap with the held out-of-order ranges; as (start, length).
    fn duplicate_in(&self, s: u64, e: u64) -> Option<(u64, u32)> {
        let dup = if s < self.rcv_nxt {
            Some((s, e.min(self.rcv_nxt)))
        } else {
            let mut held = self.ooo.iter().filter(|r| r.0 < e && s < r.1);
            let first = held.next()?;
            let last = held.next_back().unwrap_or(first);
            Some((s.max(first.0), e.min(last.1)))
        };
        dup.map(|(a, b)| (a, (b - a).min(u64::from(u32::MAX)) as u32))
    }

    /// Inserts [s, e) into the out-of-order list; returns false when it does not fit.
    fn store(&mut self, s: u64, e: u64) -> bool {
        let i = self.ooo.partition_point(|r| r.1 < s);
        let mut j = i;
        let (mut a, mut b) = (s, e);
        let mut covered = 0;
        while j < self.ooo.len() && self.ooo[j].0 <= b {
            a = a.min(self.ooo[j].0);
            b = b.max(self.ooo[j].1);
            covered += self.ooo[j].1 - self.ooo[j].0;
            j += 1;
        }
        let added = (b - a) - covered;
        if self.ooo_bytes + added > self.p.recv_buffer {
            return false;
        }
        if j > i {
            self.ooo[i] = (a, b);
            self.ooo.drain(i + 1..j);
        } else {
            self.ooo.insert(i, (a, b));
        }
        self.ooo_bytes += added;
        true
    }
}

impl Endpoint for TcpReceiver {
    fn reserve_room(&mut self) {
        self.ooo
            .reserve(OOO_RESERVED.saturating_sub(self.ooo.len()));
    }

    fn on_packet(&mut self, pkt: Packet, cx: &mut EndpointCtx) {
        let h = pkt.tcp;
        if self.last_reset.is_some_and(|t| h.ts_val < t) {
            return; // tcp-sink.cc recv: a packet of the previous incarnation
        }
        let ns2_ts = self.p.rules().ts_echo_as_ns2_acker;
        if ns2_ts {
            self.ns2_update_ts(h.seq, h.ts_val);
        }
        if h.flags & F::SYN != 0 {
            // RFC 9293 section 3.5: answer every SYN (a retransmitted one too) with a SYN-ACK.
            if !ns2_ts {
                self.ts_recent = h.ts_val;
            }
            self.syn_received = true;
            if self.p.delayed_ack && !self.p.ns2.syn_immediate_ack && self.delack_at.is_none() {
                // tcp-sink.cc DelAckSink::recv: no timer pending, in order: delay the ACK
                self.held_syn = Some(h.flags);
                self.delack_at = Some(cx.now + self.p.delack_timeout);
                return;
            }
            self.send_synack(cx, h.flags);
            return;
        }
        self.synack_at = None; // the handshake is complete
        if let Some(la) = self.linux.as_deref_mut() {
            la.on_handshake_ack(cx.now, h.ts_echo);
        }
        let len = pkt.payload as u64;
        let fin = h.flags & F::FIN != 0;
        if len == 0 && !fin {
            return; // the handshake's final ACK
        }
        let ce = pkt.ecn == Ecn::Ce;
        let ce_changed = self.ce_state_echo && ce != self.ece;
        // RFC 9768 section 3.2.1: every segment counts, duplicates too
        let ace_full = match self.accecn.as_mut() {
            Some(r) => r.on_segment(pkt.ecn, len),
            None => false,
        };
        if self.ce_state_echo {
            // RFC 8257 section 3.2.
            if ce != self.ece && self.unacked > 0 {
                self.send_ack(cx, 0);
            }
            self.ece = ce;
        } else if self.accecn.is_none() {
            // RFC 3168 section 6.1.3.
            if h.flags & F::CWR != 0 {
                self.ece = false;
            }
            if ce {
                self.ece = true;
            }
        }
        let s = h.seq;
        self.last_seq = s;
        let e = s + len + fin as u64;
        if fin {
            self.fin_seq = Some(s + len);
        }
        if self.p.dsack {
            self.dsack = self.duplicate_in(s, e);
        }
        if e <= self.rcv_nxt {
            // Entirely old: a spurious retransmission; ACK at once (ns-2's delayed-ACK sink
            // delays it like new data when it repeats the last in-order segment).
            // (with RFC2581_immediate_ack_ false, also with packets held above it)
            if self.p.rules().repeat_of_last_segment_ack_delayed
                && self.p.delayed_ack
                && e == self.rcv_nxt
                // below the highest seen, RFC2581_immediate_ack_ answers at once
                && (self.ooo.is_empty() || !self.p.ns2.rfc2581_immediate_ack)
                && self.delack_at.is_none()
                && self.unacked == 0
            {
                self.unacked = 1;
                self.delack_at = Some(cx.now + self.p.delack_timeout);
                return;
            }
            let wnd = self.window();
            if let Some(la) = self.linux.as_deref_mut() {
                la.on_old_data(wnd);
            }
            self.send_ack(cx, 0);
            return;
        }
        if s <= self.rcv_nxt {
            if self.unacked == 0 && !ns2_ts {
                self.ts_recent = h.ts_val;
            }
            let old = self.rcv_nxt;
            self.rcv_nxt = e;
            // a packet below the highest seen (acker_->Maxseen()) fills a gap
            let filled = !self.ooo.is_empty();
            // Pull in out-of-order data that is now contiguous.
            while let Some(&(a, b)) = self.ooo.first() {
                if a > self.rcv_nxt {
                    break;
                }
                self.rcv_nxt = self.rcv_nxt.max(b);
                self.ooo_bytes -= b - a;
                self.ooo.remove(0);
            }
            let mut delivered = self.rcv_nxt - old;
            if self.fin_seq.is_some_and(|f| f >= old && f < self.rcv_nxt) {
                delivered -= 1;
            }
            self.delivered += delivered;
            if cx.measuring() {
                cx.stats.goodput_bytes += delivered;
            }
            self.unacked += 1;
            // ns-2 DelAckSink::recv without RFC2581_immediate_ack_: a gap filler waits as an
            // in-order packet does, unless it released data held out of order (th->seqno()
            // != acker_->Seqno(): the ACK goes at once)
            let filled = filled && (self.p.ns2.rfc2581_immediate_ack || self.rcv_nxt > e);
            let at_once = std::mem::replace(&mut self.ack_next_at_once, false);
            let fin_in = self.fin_seq.is_some_and(|f| f < self.rcv_nxt);
            if self.linux.is_some() {
                let now_due = self.linux_now(cx.now, &pkt, ce_changed);
                let due = now_due
                    || self.unacked >= self.p.delack_count
                    || filled
                    || fin_in
                    || at_once
                    || ace_full;
                let pending = self.delack_at;
                match self
                    .linux
                    .as_deref_mut()
                    .map(|la| la.in_order(cx.now, due, pending))
                {
                    Some(AckNow::At(t)) => self.delack_at = Some(t),
                    Some(AckNow::Held) => {}
                    _ => self.send_ack(cx, 0),
                }
            } else if !self.p.delayed_ack
                || self.unacked >= self.p.delack_count
                || filled
                || fin_in
                || at_once
                || ace_full
                || (self.ece && !self.ce_state_echo && self.p.rules().ece_acked_at_once)
            {
                self.send_ack(cx, 0);
            } else if self.delack_at.is_none() {
                self.delack_at = Some(cx.now + self.p.delack_timeout);
            }
        } else {
            // Out of order: keep it if it fits, send a duplicate ACK at once.
            if self.linux.is_some() && self.ooo.len() >= LINUX_SACK_BLOCKS {
                // tcp_sack_new_ofo_skb: a block of its own (not touching a held range) finds
                // Linux's table of blocks full
                let own = !self.ooo.iter().any(|r| r.0 <= e && s <= r.1);
                if own
                    && self
                        .linux
                        .as_deref_mut()
                        .is_some_and(|la| la.sack_table_full())
                {
                    self.send_ack(cx, 0);
                }
            }
            if !self.store(s, e) {
                self.ooo_dropped += 1;
            }
            self.last_block = Some((s, e));
            if self.linux.is_some() {
                let ack_now = self.linux_ofo(&pkt, ce_changed) || ace_full;
                let (now, rcv_nxt, sack) = (cx.now, self.rcv_nxt, self.p.sack);
                let la = self.linux.as_deref_mut().expect("checked");
                if la.out_of_order(now, rcv_nxt, sack, ack_now) != AckNow::Yes {
                    return;
                }
            }
            self.send_ack(cx, 0);
        }
    }

    fn on_timeout(&mut self, cx: &mut EndpointCtx) {
        if self.synack_at.is_some_and(|t| t <= cx.now) {
            self.send_synack(cx, 0); // ns-3's timer: no ECN opening modelled
        }
        if let Some(la) = self.linux.as_deref_mut() {
            if la.comp_at.is_some_and(|t| t <= cx.now) && la.compression_due() {
                self.send_ack(cx, 0);
            }
        }
        if self.delack_at.is_some_and(|t| t <= cx.now) {
            self.delack_timeouts += 1;
            if let Some(la) = self.linux.as_deref_mut() {
                la.on_delack_timer();
            }
            self.send_ack(cx, 0);
        }
    }

    fn next_timeout(&self) -> Option<SimTime> {
        let comp = self.linux.as_deref().and_then(|la| la.comp_at);
        SimTime::earliest(SimTime::earliest(self.delack_at, self.synack_at), comp)
    }

    /// `sink_bytes_`: ns-2's `Agent/TCPSink` `bytes_`, the bytes of the packets delivered in
    /// order, headers included (tcp-sink.cc `TcpSink::recv`: `bytes_ += numToDeliver`, the
    /// sizes Acker::update releases). ns-2's one-way TCP sends only whole `size_` packets, so
    /// it is the in-order segments times (mss + header), plus the opening packet's header
    /// bytes with `syn_` (packet 0, header only); duplicates and packets held out of order do
    /// not count, where the flow's `rx_bytes` counts every arrival.
    fn probe(&self, var: &str) -> Option<f64> {
        match var {
            "sink_bytes_" => Some(self.bytes_at_reset + self.sink_bytes()),
            _ => None,
        }
    }

    /// `$sink reset` (tcp-sink.cc `TcpSink::reset`, see the module notes).
    fn reset(&mut self, now: SimTime, _phase: Option<SimTime>) -> Result<(), String> {
        if !self.p.rules().rto_in_ticks {
            return Err("resetting a sink is modelled for ns-2's sinks (preset ns2)".into());
        }
        let mut fresh = TcpReceiver::new(self.p.clone());
        fresh.bytes_at_reset = self.bytes_at_reset + self.sink_bytes();
        fresh.acks_sent = self.acks_sent;
        fresh.delack_timeouts = self.delack_timeouts;
        fresh.ooo_dropped = self.ooo_dropped;
        fresh.last_reset = Some(now);
        *self = fresh;
        Ok(())
    }
}
