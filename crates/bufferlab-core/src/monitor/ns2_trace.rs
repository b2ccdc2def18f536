//! ns-2 wired trace files (`$ns trace-all`), so that AWK scripts written for ns-2 work on
//! bufferlab runs. Format as ns-2.35 `Trace::format` (trace/trace.cc) writes it:
//!
//! ```text
//! event time from to type size flags fid src.port dst.port seq uid
//! +     0.1  0    2  tcp  1040 ------- 1   0.0      3.0      0   0
//! ```
//!
//! * events: `+` enqueue, `-` dequeue (start of transmission), `r` arrival at the link's far
//!   node, `d` drop (queue drops, and random link losses, which ns-2's `$ns lossmodel` also
//!   sends to the link's drop trace), `e` a random loss on a link direction listed in
//!   [`TraceFilter::error_drops`] (ns-2's `$ns create-trace EDrop $f n1 n2` made the error
//!   model's drop target: `Trace/EDrop` writes `e`, tcl/lib/ns-trace.tcl and trace/trace.cc);
//! * time: rounded to the microsecond and printed with `%.15g` (ns-2's `TIME_FORMAT` and
//!   `PRECISION` in trace/basetrace.h);
//! * from/to: node numbers (the scenario's node order); type: `tcp`, `ack`, `cbr`, `exp`,
//!   `pareto` or `udp` (ns-2 packet type names); size: bytes on the wire;
//! * flags: 7 characters `C P - A E F N` (ECN echo, priority, -, congestion action,
//!   congestion experienced, fast start, ECN-capable transport);
//! * fid: the flow's index; addresses: node.port, ports numbered per node in flow order as
//!   ns-2 numbers agents attached to a node;
//! * seq: the datagram number (UDP), the packet number (TCP: ns-2's one-way agents number the
//!   opening packet 0 and the data packets from 1, tcp.cc output(); without an opening packet
//!   the data from 0), or for a pure ACK the last packet received in order (ns-2 TCPSink's
//!   `seqno_` in the ACK);
//! * uid: the packet's unique id;
//! * with ns-2's `Trace set show_tcphdr_ 1` ([`TraceFilter::show_tcphdr`]), four more fields
//!   from the packet's TCP header, as trace.cc's `Trace::format` prints them (`%d 0x%x %d %d`):
//!   ackno, flags, hlen and sa_length. ns-2's one-way agents and sinks leave the first three
//!   at the zeroed header's 0 (ns-2's packets are allocated zeroed, packet.h `Packet::init`;
//!   their sequence and ACK numbers go in `seqno`); a SACK sink's ACK has its number of SACK
//!   blocks in sa_length (tcp-sink.cc `Sacker::append_ack`); every other packet 0 0x0 0 0.
//!   FullTcp's segments have their real header fields, a FullTcp/Sack segment's sa_length its
//!   SACK blocks (tcp-full.cc `sendpacket`, SackFullTcpAgent::build_options).
//!   Checked with `ns` itself (Reno, Newreno, Vegas, Sack1 and Linux senders, with and without
//!   delayed ACKs, CBR over UDP).

use crate::packet::{tcp_flags, Ecn, Packet, PacketKind};
use crate::units::SimTime;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Which events a trace records.
#[derive(Debug, Clone, Default)]
pub struct TraceFilter {
    /// Link names (empty: all).
    pub links: Vec<String>,
    /// Flow names (empty: all).
    pub flows: Vec<String>,
    /// Event characters among `+ - r d` (empty: all; `d` also selects `e`).
    pub events: String,
    /// Link directions (from node, to node) whose random losses are written as `e` events
    /// rather than `d` (default none).
    pub error_drops: Vec<(String, String)>,
    /// ns-2's `Trace set show_tcphdr_ 1`: each line also gets the TCP header fields.
    pub show_tcphdr: bool,
    /// Link directions (from node, to node) to trace (empty: all those `links` selects): an
    /// ns-2 script's trace files want only the directions they trace (`trace-queue`), which
    /// its router copies from the engine's trace.
    pub directions: Vec<(String, String)>,
}

/// The trace event kinds of ns-2.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TraceEvent {
    Enqueue,
    Dequeue,
    Receive,
    Drop,
    /// A random loss traced by an `EDrop` trace (`e`).
    ErrorDrop,
}

impl TraceEvent {
    pub fn as_char(self) -> char {
        match self {
            TraceEvent::Enqueue => '+',
            TraceEvent::Dequeue => '-',
            TraceEvent::Receive => 'r',
            TraceEvent::Drop => 'd',
            TraceEvent::ErrorDrop => 'e',
        }
    }
}

/// One event trace line of a TCP agent ([`Ns2Trace::record_event`]): when, the event's
/// name, `t_seqno_` and `int(cwnd_)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpEventLine {
    pub at: SimTime,
    pub kind: &'static str,
    pub seqno: i64,
    pub cwnd: i64,
}

/// Per-flow facts the trace needs, fixed when the trace is opened.
#[derive(Debug, Clone)]
pub struct TraceFlow {
    pub src_port: u32,
    pub dst_port: u32,
    pub type_name: &'static str,
    /// Segment size for TCP sequence numbers in segments (1 for UDP).
    pub mss: u32,
    /// The TCP flow opens with a SYN, numbered 0 (its data from 1).
    pub opening_packet: bool,
    /// ns-2's FullTcp (tcp-full.cc): seq is the header's byte sequence number, the
    /// listener's packets are type `ack` (`listen`: `type_ = PT_ACK`) and the opener's `tcp`
    /// (pure ACKs too); with show_tcphdr the header's ackno, flags and hlen are written.
    pub full_tcp: bool,
    /// The flow id written in its lines (ns-2's `fid_`).
    pub fid: u32,
    pub traced: bool,
}

pub struct Ns2Trace {
    out: Box<dyn Write>,
    flows: Vec<TraceFlow>,
    /// Per port: traced or not.
    ports: Vec<bool>,
    /// Per port: random losses written as `e`.
    error_drops: Vec<bool>,
    events: [bool; 5],
    show_tcphdr: bool,
    line: String,
    error: Option<io::Error>,
}

/// Formats seconds as ns-2 does: rounded to 1 us, then `%.15g`.
pub fn ns2_time(t: SimTime) -> String {
    let mut s = String::with_capacity(16);
    push_ns2_time(&mut s, t);
    s
}

/// Appends `t` as [`ns2_time`] writes it, without allocating (a trace writes one per line).
pub fn push_ns2_time(out: &mut String, t: SimTime) {
    let us = (t.0 + 500_000) / 1_000_000; // round to microseconds
    if us == 0 {
        out.push('0');
        return;
    }
    if us < 100 {
        // %g switches to exponent form below 1e-4 (100 us): two-digit exponent as C prints it.
        let s = format!("{:e}", us as f64 / 1e6);
        let (m, e) = s.split_once('e').expect("exponent form");
        let e: i32 = e.parse().expect("exponent");
        let sign = if e < 0 { '-' } else { '+' };
        let _ = write!(out, "{m}e{sign}{:02}", e.abs());
        return;
    }
    let mut buf = itoa::Buffer::new();
    out.push_str(buf.format(us / 1_000_000));
    let mut frac = us % 1_000_000;
    if frac == 0 {
        return;
    }
    let mut width = 6;
    while frac.is_multiple_of(10) {
        frac /= 10;
        width -= 1;
    }
    out.push('.');
    let digits = buf.format(frac);
    for _ in digits.len()..width {
        out.push('0');
    }
    out.push_str(digits);
}

impl Ns2Trace {
    pub fn new(out: Box<dyn Write>, flows: Vec<TraceFlow>, ports: Vec<bool>, events: &str) -> Self {
        let all = events.is_empty();
        let ev = |c| all || events.contains(c);
        let error_drops = vec![false; ports.len()];
        Self {
            out,
            flows,
            ports,
            error_drops,
            events: [ev('+'), ev('-'), ev('r'), ev('d'), ev('d') || ev('e')],
            show_tcphdr: false,
            line: String::with_capacity(128),
            error: None,
        }
    }

    /// Writes the random losses of these ports as `e` events.
    pub fn set_error_drops(&mut self, ports: Vec<bool>) {
        self.error_drops = ports;
    }

    /// Writes the TCP header fields after each line's uid (`Trace set show_tcphdr_ 1`).
    pub fn set_show_tcphdr(&mut self, on: bool) {
        self.show_tcphdr = on;
    }

    /// The event a random loss at `port` is written as: `e` or `d`.
    #[inline]
    pub fn loss_event(&self, port: usize) -> TraceEvent {
        if self.error_drops.get(port).copied().unwrap_or(false) {
            TraceEvent::ErrorDrop
        } else {
            TraceEvent::Drop
        }
    }

    #[inline]
    pub fn wants(&self, ev: TraceEvent, port: usize, pkt: &Packet) -> bool {
        self.events[ev as usize] && self.ports[port] && self.flows[pkt.flow.idx()].traced
    }

    pub fn record(&mut self, ev: TraceEvent, now: SimTime, from: u32, to: u32, pkt: &Packet) {
        let f = &self.flows[pkt.flow.idx()];
        let (type_name, seq) = match pkt.kind {
            _ if f.full_tcp => (
                if pkt.reverse { "ack" } else { "tcp" },
                pkt.tcp.seq as u32 as i32 as i64,
            ),
            PacketKind::UdpData => (f.type_name, pkt.seq as i64),
            // byte sequence numbers start at 1 (the SYN takes 0)
            PacketKind::TcpData if pkt.tcp.flags & tcp_flags::SYN != 0 => ("tcp", 0),
            PacketKind::TcpData => (
                "tcp",
                (pkt.tcp.seq.saturating_sub(1) / f.mss.max(1) as u64) as i64
                    + f.opening_packet as i64,
            ),
            PacketKind::TcpAck => (
                "ack",
                (pkt.tcp.ack.saturating_sub(1) / f.mss.max(1) as u64) as i64 - 1
                    + f.opening_packet as i64,
            ),
        };
        let flags = [
            if pkt.tcp.flags & tcp_flags::ECE != 0 {
                'C'
            } else {
                '-'
            },
            if pkt.ns2_pri { 'P' } else { '-' },
            '-',
            if pkt.tcp.flags & tcp_flags::CWR != 0 {
                'A'
            } else {
                '-'
            },
            if pkt.ecn == Ecn::Ce { 'E' } else { '-' },
            '-',
            if pkt.ecn.is_capable() { 'N' } else { '-' },
        ];
        let (sport, dport) = if pkt.reverse {
            (f.dst_port, f.src_port)
        } else {
            (f.src_port, f.dst_port)
        };
        let line = &mut self.line;
        line.clear();
        let mut num = itoa::Buffer::new();
        line.push(ev.as_char());
        line.push(' ');
        push_ns2_time(line, now);
        for (v, sep) in [(from, ' '), (to, ' ')] {
            line.push(sep);
            line.push_str(num.format(v));
        }
        line.push(' ');
        line.push_str(type_name);
        line.push(' ');
        line.push_str(num.format(pkt.size));
        line.push(' ');
        line.extend(flags);
        line.push(' ');
        line.push_str(num.format(f.fid));
        line.push(' ');
        line.push_str(num.format(pkt.src.0));
        line.push('.');
        line.push_str(num.format(sport));
        line.push(' ');
        line.push_str(num.format(pkt.dst.0));
        line.push('.');
        line.push_str(num.format(dport));
        line.push(' ');
        line.push_str(num.format(seq));
        line.push(' ');
        line.push_str(num.format(pkt.uid));
        if self.show_tcphdr {
            // ackno 0x<flags> hlen sa_length (see the module's doc)
            let sa_length = match pkt.kind {
                PacketKind::TcpAck => pkt.tcp.sack_count(),
                _ => 0,
            };
            if f.full_tcp {
                // tcp-full.cc sendpacket: ackno, flags, hlen = tcpip_base_hdr_size_ plus the
                // options, sa_length = SackFullTcpAgent::build_options' blocks (0 otherwise)
                let _ = write!(
                    self.line,
                    " {} 0x{:x} {} {}",
                    pkt.tcp.ack as u32 as i32,
                    pkt.tcp.flags,
                    pkt.size - pkt.payload,
                    pkt.tcp.sack_count()
                );
            } else {
                let _ = write!(self.line, " 0 0x0 0 {sa_length}");
            }
        }
        self.line.push('\n');
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(self.line.as_bytes()) {
                self.error = Some(e);
            }
        }
    }

    /// An event trace line of a TCP agent (`$ns eventtrace-all`): tcp.cc
    /// `TcpAgent::trace_event`'s `"E " TIME_FORMAT " %d %d TCP %s %d %d %d"`: time (rounded
    /// as the other lines, basetrace.h `round`), the agent's node, its peer's node, the
    /// event, the flow id (of `flow`, the flow's index), `t_seqno_` and `int(cwnd_)`.
    pub fn record_event(&mut self, flow: usize, node: u32, peer: u32, e: &TcpEventLine) {
        let fid = self.flows.get(flow).map_or(0, |f| f.fid);
        self.line.clear();
        let _ = writeln!(
            self.line,
            "E {} {} {} TCP {} {} {} {}",
            ns2_time(e.at),
            node,
            peer,
            e.kind,
            fid,
            e.seqno,
            e.cwnd
        );
        if self.error.is_none() {
            if let Err(err) = self.out.write_all(self.line.as_bytes()) {
                self.error = Some(err);
            }
        }
    }

    /// Flushes the file; reports the first write error, if any.
    pub fn finish(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A buffer the trace writes into and the test reads back.
    #[derive(Clone, Default)]
    struct Shared(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn event_lines_print_as_tcp_cc_trace_event() {
        let buf = Shared::default();
        let flow = TraceFlow {
            src_port: 0,
            dst_port: 0,
            type_name: "tcp",
            mss: 1000,
            opening_packet: false,
            full_tcp: false,
            fid: 1,
            traced: true,
        };
        let mut t = Ns2Trace::new(Box::new(buf.clone()), vec![flow], vec![true], "");
        let e = TcpEventLine {
            at: SimTime(2_509_816_400_000),
            kind: "FAST_RECOVERY",
            seqno: 20,
            cwnd: 5,
        };
        t.record_event(0, 0, 3, &e);
        t.finish().unwrap();
        let text = String::from_utf8(buf.0.borrow().clone()).unwrap();
        assert_eq!(text, "E 2.509816 0 3 TCP FAST_RECOVERY 1 20 5\n");
    }

    // ---- ns-2's time format ----
    #[test]
    fn times_print_like_percent_g() {
        assert_eq!(ns2_time(SimTime::ZERO), "0");
        assert_eq!(ns2_time(SimTime::from_millis(100)), "0.1");
        assert_eq!(ns2_time(SimTime::from_secs(12)), "12");
        assert_eq!(ns2_time(SimTime(1_234_567_400_000)), "1.234567");
        assert_eq!(ns2_time(SimTime(1_234_567_600_000)), "1.234568");
        assert_eq!(ns2_time(SimTime::from_micros(10)), "1e-05");
        assert_eq!(ns2_time(SimTime::from_micros(250)), "0.00025");
        assert_eq!(ns2_time(SimTime::from_micros(100)), "0.0001");
        assert_eq!(ns2_time(SimTime::from_micros(99)), "9.9e-05");
    }

    /// From 1e-4 s on, %.15g of a whole number of microseconds is its shortest decimal
    /// (those decimals are 1e-6 apart, far more than a double's spacing below 1e9 s): the
    /// digit-by-digit writer must agree with Rust's shortest round-trip form.
    /// (Up to 2e6 s times 7: SimTime holds 1.8e7 s.)
    #[test]
    fn times_agree_with_the_shortest_decimal() {
        let mut us: u64 = 100;
        while us < 2_000_000_000_000 {
            for k in [us, us + 1, us + 10, us + 999, us * 7 + 3] {
                let t = SimTime::from_micros(k);
                assert_eq!(ns2_time(t), format!("{}", k as f64 / 1e6), "{k} us");
            }
            us = us * 3 + 1;
        }
    }
}
