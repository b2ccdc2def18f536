//! The packet: a small plain value, never boxed, so the hot path allocates nothing per packet.
//! Inside the network it sits in the packet pool (`net/packet_pool.rs`) and queues and wires
//! move its handle; endpoints and disciplines behind the `QueueDisc` trait get it by value.

use crate::ids::{FlowId, NodeId};
use crate::units::SimTime;

/// Transport protocol of a flow.
#[derive(
    Copy,
    Clone,
    Debug,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    Udp,
    Tcp,
}

impl Protocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Udp => "udp",
            Protocol::Tcp => "tcp",
        }
    }
}

/// ECN codepoint of the IP header (RFC 3168 section 5).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect0,
    Ect1,
    Ce,
}

impl Ecn {
    pub fn is_capable(self) -> bool {
        !matches!(self, Ecn::NotEct)
    }
}

/// TCP flag bits as on the wire.
pub mod tcp_flags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const RST: u8 = 0x04;
    pub const PSH: u8 = 0x08;
    pub const ACK: u8 = 0x10;
    pub const ECE: u8 = 0x40;
    pub const CWR: u8 = 0x80;
}

/// The AccECN feedback a TCP segment carries (RFC 9768 section 3.2): the 3-bit ACE field
/// (the AE, CWR and ECE flags, here kept apart from `TcpHeader::flags`) and of the AccECN
/// option the number of fields and the ECEB field (24 bits), the one field the sender reads.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AccEcnWire {
    /// Bit 7: the segment is in AccECN mode; bits 0-2: ACE; bits 3-4: option fields carried;
    /// bit 5: an option is carried.
    bits: u8,
    eceb: [u8; 3],
}

impl AccEcnWire {
    /// A segment in AccECN mode carrying `ace` and, if any, an option of `fields` fields
    /// whose ECEB (the second field in either order) is `eceb`.
    pub fn new(ace: u8, option_fields: Option<u8>, eceb: u32) -> Self {
        let mut bits = 0x80 | (ace & 7);
        if let Some(n) = option_fields {
            bits |= 0x20 | ((n.min(3)) << 3);
        }
        let b = eceb.to_be_bytes();
        Self {
            bits,
            eceb: [b[1], b[2], b[3]],
        }
    }
    /// The ACE field, if the segment is in AccECN mode.
    pub fn ace(&self) -> Option<u8> {
        (self.bits & 0x80 != 0).then_some(self.bits & 7)
    }
    /// The ECEB field, when the option carries it (two fields or more).
    pub fn eceb(&self) -> Option<u32> {
        let fields = (self.bits >> 3) & 3;
        (self.bits & 0x20 != 0 && fields >= 2)
            .then(|| u32::from_be_bytes([0, self.eceb[0], self.eceb[1], self.eceb[2]]))
    }
}

/// Maximum number of SACK blocks carried (RFC 2018: 3 fit beside the timestamp option).
pub const MAX_SACK_BLOCKS: usize = 3;

/// The TCP header fields the models use. Sequence numbers count bytes, 64 bits wide so they
/// never wrap in a simulation; trace and pcap writers fold them to 32 bits.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    pub seq: u64,
    pub ack: u64,
    pub flags: u8,
    /// Advertised receive window in bytes.
    pub window: u32,
    /// SACK blocks [start, end) as on the wire: the low 32 bits of each edge (RFC 2018), so
    /// the packet stays small. `sack_blocks` widens them again against `ack`.
    pub(crate) sack: [(u32, u32); MAX_SACK_BLOCKS],
    pub(crate) nsack: u8,
    /// Timestamp echo (RFC 7323 TSecr) in simulated time, for RTT samples.
    pub ts_echo: SimTime,
    /// Sender's timestamp (TSval).
    pub ts_val: SimTime,
    /// Not a header field: the "unscheduled" packet tag of ABM's authors' ns-3 (`UnSchedTag`),
    /// set by a connection on the packets it sends within its first `tcp.unscheduled_bytes`
    /// of data, which an ABM switch admits with its own alpha (`net/shared_buffer/abm.rs`).
    /// Kept with the header because only TCP sets it and only an ABM switch reads it.
    pub unscheduled: bool,
}

impl TcpHeader {
    /// Appends a SACK block [start, end); it must lie within 2^31 bytes of `ack` (above it, or
    /// below it for a D-SACK). Blocks past the third are ignored.
    pub fn push_sack(&mut self, start: u64, end: u64) {
        if (self.nsack as usize) < MAX_SACK_BLOCKS {
            self.sack[self.nsack as usize] = (start as u32, end as u32);
            self.nsack += 1;
        }
    }

    /// Number of SACK blocks carried.
    pub fn sack_count(&self) -> usize {
        self.nsack as usize
    }

    /// The SACK blocks as full 64-bit sequence numbers, widened against `ack` in serial-number
    /// arithmetic (RFC 1982, as TCP's `before` / `after`): an edge up to 2^31 bytes below
    /// `ack` (a D-SACK, RFC 2883) stays below it.
    pub fn sack_blocks(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let base = self.ack;
        let widen =
            move |x: u32| base.wrapping_add_signed(i64::from(x.wrapping_sub(base as u32) as i32));
        self.sack[..self.nsack as usize]
            .iter()
            .map(move |&(s, e)| (widen(s), widen(e)))
    }

    /// The SACK blocks' edges as on the wire (32 bits), for capture files.
    pub fn sack_wire(&self) -> &[(u32, u32)] {
        &self.sack[..self.nsack as usize]
    }
}

/// What a packet is, for traces, classifiers and statistics.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum PacketKind {
    #[default]
    UdpData,
    /// A TCP segment carrying data (or SYN/FIN).
    TcpData,
    /// A pure TCP acknowledgement.
    TcpAck,
}

/// Laid out by hand (`repr(C)`), 64-byte aligned: what a packet needs at every hop (where it
/// goes, its size, flow and class, ECN, when it joined the queue) is in its first cache line and
/// the TCP header, read only at the endpoints, in the second. At 10 000 flows the packets in
/// flight do not fit in the last-level cache, and the first read of a packet on arrival at a
/// port was the costliest instruction of a run (perf: a fifth of its samples, on `dst`, which
/// the compiler's own order had put in the second line); docs/performance.md, "Packets by
/// handle".
#[derive(Copy, Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct Packet {
    pub dst: NodeId,
    pub src: NodeId,
    pub flow: FlowId,
    /// Size on the wire in bytes (headers included): what queues and links see.
    pub size: u32,
    /// Application bytes carried (size minus headers).
    pub payload: u32,
    pub kind: PacketKind,
    /// True when travelling from the flow's receiver back to its sender (ACKs).
    pub reverse: bool,
    pub ecn: Ecn,
    /// Class for class-based queues (from the flow's `class`, 0 by default).
    pub class: u8,
    /// True when it was emitted before the warm-up ended: then it is left out of flow statistics.
    pub in_warmup: bool,
    /// ns-2's `hdr_flags::pri_` as a queue set it: RIO's In mark (rio.cc enque, priority_method_
    /// 1), which stays with the packet and shows as `P` in ns-2 trace lines from then on.
    pub ns2_pri: bool,
    /// AccECN feedback (`tcp/accecn.rs`): the ACE field and the option's ECEB, in the first
    /// line's padding.
    pub accecn: AccEcnWire,
    /// When it joined the queue it is in now (sojourn time starts here).
    pub enqueued: SimTime,
    /// When the source emitted it (one-way delay starts here).
    pub created: SimTime,
    /// Unique within a run, in order of creation (ns-2's `uid`).
    pub uid: u64,
    /// UDP: datagram number within the flow. TCP: unused (see `tcp.seq`).
    pub seq: u64,
    pub tcp: TcpHeader,
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- the packet stays small: it is copied on every hop ----
    #[test]
    fn a_packet_fits_in_two_cache_lines() {
        // Measured: at 152 bytes every move was a memmove call and a quarter of the run time
        // (perf, bench case c_ns2); at 128 the copies are inlined.
        assert!(
            std::mem::size_of::<Packet>() <= 128,
            "{}",
            std::mem::size_of::<Packet>()
        );
        // The fields every hop reads share the first line; the TCP header starts the second.
        assert_eq!(std::mem::align_of::<Packet>(), 64);
        assert!(std::mem::offset_of!(Packet, seq) + 8 <= 64);
        assert_eq!(std::mem::offset_of!(Packet, tcp), 64);
        assert!(std::mem::offset_of!(Packet, accecn) + 4 <= 64);
    }

    // ---- the AccECN fields survive the trip ----
    #[test]
    fn accecn_wire_carries_ace_and_eceb() {
        assert_eq!(AccEcnWire::default().ace(), None);
        let w = AccEcnWire::new(13, Some(3), 0x0123_4567);
        assert_eq!(w.ace(), Some(5));
        assert_eq!(w.eceb(), Some(0x23_4567));
        assert_eq!(
            AccEcnWire::new(2, Some(1), 9).eceb(),
            None,
            "one field: EE0B or EE1B only"
        );
        assert_eq!(AccEcnWire::new(2, None, 9).eceb(), None);
    }

    // ---- SACK blocks are carried as 32-bit wire values and widened against the ACK ----
    #[test]
    fn sack_blocks_widen_against_the_ack() {
        let wrap = 6u64 << 32; // beyond 32 bits, as a long transfer gets
        let mut h = TcpHeader {
            ack: wrap - 2000,
            ..TcpHeader::default()
        };
        h.push_sack(wrap - 5000, wrap - 3552); // a D-SACK below the ACK (RFC 2883)
        h.push_sack(wrap - 500, wrap + 948); // crosses the 32-bit wrap
        h.push_sack(wrap + 9000, wrap + 9100);
        h.push_sack(wrap + 9900, wrap + 9999); // a fourth does not fit
        let b: Vec<_> = h.sack_blocks().collect();
        assert_eq!(
            b,
            vec![
                (wrap - 5000, wrap - 3552),
                (wrap - 500, wrap + 948),
                (wrap + 9000, wrap + 9100)
            ]
        );
        assert_eq!(h.sack_wire()[1], (u32::MAX - 499, 948));
    }
}
