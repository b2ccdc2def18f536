//! The packet: a small plain value moved through queues and link pipelines, never boxed,
//! so the hot path allocates nothing per packet.

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
    /// SACK blocks [start, end) in use: `sack[..nsack]`.
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
    pub nsack: u8,
    /// Timestamp echo (RFC 7323 TSecr) in simulated time, for RTT samples.
    pub ts_echo: SimTime,
    /// Sender's timestamp (TSval).
    pub ts_val: SimTime,
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

#[derive(Copy, Clone, Debug, Default)]
pub struct Packet {
    /// Unique within a run, in order of creation (ns-2's `uid`).
    pub uid: u64,
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
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
    /// UDP: datagram number within the flow. TCP: unused (see `tcp.seq`).
    pub seq: u64,
    /// When the source emitted it (one-way delay starts here).
    pub created: SimTime,
    /// When it joined the queue it is in now (sojourn time starts here).
    pub enqueued: SimTime,
    /// True when it was emitted before the warm-up ended: then it is left out of flow statistics.
    pub in_warmup: bool,
    pub tcp: TcpHeader,
}
