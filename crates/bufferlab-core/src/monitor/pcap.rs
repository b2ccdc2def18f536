//! pcap capture of chosen links, for Wireshark and tshark: one file per direction,
//! `<link>_<from>-<to>.pcap`, and one per link with both directions in time order,
//! `<link>.pcap` (a tap on the wire, as ns-3's per-device capture shows both ways). Nanosecond
//! timestamps (simulated time), a record per packet when it starts transmission on the link
//! (what a capture on the sending interface sees).
//!
//! Headers are synthesised with etherparse: Ethernet II, IPv4 (ECN codepoint as simulated),
//! TCP (sequence and acknowledgement numbers folded to 32 bits, flags, window, SACK blocks) or
//! UDP. Addresses: node n is the (n+1)-th host of 10.0.0.0/8 (10.0.0.1 for node 0: the network
//! address itself is never a host); a flow's ports are 1024 + its
//! index (sender) and 5001 (receiver). Only the headers are stored (the payload is zeros and
//! left out, as with a short snap length); each record's original length is the packet's full
//! size on the wire plus the 14-byte Ethernet header, and the IPv4 total length is the
//! simulated size, so byte counts (`ip.len`, `frame.len`) and TCP analysis are exact.
//! Windows above 65 535 bytes are capped (no window-scale option is synthesised). TCP options
//! fill exactly the simulated header (SACK blocks, a timestamp, NOPs), so `tcp.len` is the
//! simulated payload.

use super::file_name;
use crate::packet::{tcp_flags, Ecn, Packet, PacketKind};
use crate::units::SimTime;
use etherparse::{
    EtherType, Ethernet2Header, IpEcn, IpNumber, Ipv4Header, TcpHeader, TcpOptionElement, UdpHeader,
};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, TsResolution};
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::time::Duration;

/// Receiver-side port of every flow.
pub const DST_PORT: u16 = 5001;

pub fn node_ip(n: u32) -> [u8; 4] {
    let h = n.wrapping_add(1);
    [10, (h >> 16) as u8, (h >> 8) as u8, h as u8]
}

fn node_mac(n: u32) -> [u8; 6] {
    let b = n.to_be_bytes();
    [0x02, 0, b[0], b[1], b[2], b[3]]
}

pub fn flow_port(flow: u32) -> u16 {
    (1024 + flow % 64_000) as u16
}

pub struct PcapSet {
    /// One writer per file.
    writers: Vec<Option<PcapWriter<BufWriter<File>>>>,
    /// Each writer's file, for its errors.
    paths: Vec<std::path::PathBuf>,
    /// Per port: the files its packets go to (its direction's, and its link's).
    files: Vec<Vec<usize>>,
    buf: Vec<u8>,
    error: Option<String>,
}

impl PcapSet {
    /// Opens the files of the chosen ports; `ports[i]` names the files port i writes to (none
    /// when it is not captured), each `<dir>/<name>.pcap`. A name shared by several ports is
    /// one file: the link file holds both directions in time order. Names become paths only
    /// through [`file_name::child_path`]: none can leave `dir`.
    pub fn create(dir: &Path, ports: Vec<Vec<String>>) -> Result<Self, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("{}: cannot create the pcap directory: {e}", dir.display()))?;
        let mut by_name = std::collections::BTreeMap::new();
        let mut writers = Vec::new();
        let mut paths = Vec::new();
        let mut files = Vec::with_capacity(ports.len());
        for names in ports {
            let mut mine = Vec::with_capacity(names.len());
            for n in names {
                if let Some(&i) = by_name.get(&n) {
                    mine.push(i);
                    continue;
                }
                let path =
                    file_name::child_path(dir, &n, ".pcap").map_err(|e| format!("pcap: {e}"))?;
                let f = File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                let header = PcapHeader {
                    datalink: DataLink::ETHERNET,
                    ts_resolution: TsResolution::NanoSecond,
                    snaplen: 65535,
                    ..PcapHeader::default()
                };
                writers.push(Some(
                    PcapWriter::with_header(BufWriter::new(f), header)
                        .map_err(|e| write_error(&path, e))?,
                ));
                paths.push(path);
                by_name.insert(n, writers.len() - 1);
                mine.push(writers.len() - 1);
            }
            files.push(mine);
        }
        Ok(Self {
            writers,
            paths,
            files,
            buf: Vec::with_capacity(128),
            error: None,
        })
    }

    #[inline]
    pub fn wants(&self, port: usize) -> bool {
        !self.files[port].is_empty()
    }

    pub fn record(&mut self, port: usize, now: SimTime, pkt: &Packet) {
        if self.error.is_some() {
            return;
        }
        self.buf.clear();
        let (src_port, dst_port) = if pkt.reverse {
            (DST_PORT, flow_port(pkt.flow.0))
        } else {
            (flow_port(pkt.flow.0), DST_PORT)
        };
        let eth = Ethernet2Header {
            source: node_mac(pkt.src.0),
            destination: node_mac(pkt.dst.0),
            ether_type: EtherType::IPV4,
        };
        let proto = if pkt.kind == PacketKind::UdpData {
            IpNumber::UDP
        } else {
            IpNumber::TCP
        };
        let ip_payload = (pkt.size as usize)
            .saturating_sub(Ipv4Header::MIN_LEN)
            .min(u16::MAX as usize - 60) as u16;
        let Ok(mut ip) = Ipv4Header::new(
            ip_payload,
            64,
            proto,
            node_ip(pkt.src.0),
            node_ip(pkt.dst.0),
        ) else {
            return;
        };
        ip.ecn = match pkt.ecn {
            Ecn::NotEct => IpEcn::NotEct,
            Ecn::Ect0 => IpEcn::Ect0,
            Ecn::Ect1 => IpEcn::Ect1,
            Ecn::Ce => IpEcn::CongestionExperienced,
        };
        ip.identification = pkt.uid as u16;
        ip.header_checksum = ip.calc_header_checksum();
        let res = eth
            .write(&mut self.buf)
            .and_then(|_| ip.write(&mut self.buf));
        let res = res.and_then(|_| {
            if proto == IpNumber::UDP {
                let mut udp = UdpHeader {
                    source_port: src_port,
                    destination_port: dst_port,
                    length: ip_payload,
                    checksum: 0,
                };
                udp.length = ip_payload;
                udp.write(&mut self.buf)
            } else {
                let t = &pkt.tcp;
                // Data segments travel one way: the sender's own receive window is not modelled,
                // so a zero there is written as 65535 (tshark would report zero-window stalls).
                let window = if t.window == 0 && !pkt.reverse {
                    65_535
                } else {
                    t.window.min(65_535)
                };
                // The receiver's SYN-ACK takes its own initial sequence number, one below its
                // later segments' (the SYN consumes one, RFC 9293 section 3.4); the model gives
                // every receiver segment the number after it.
                let synack = pkt.reverse && t.flags & tcp_flags::SYN != 0;
                let seq = if synack { t.seq.wrapping_sub(1) } else { t.seq };
                let mut tcp = TcpHeader::new(src_port, dst_port, seq as u32, window as u16);
                tcp.acknowledgment_number = t.ack as u32;
                tcp.ack = t.flags & tcp_flags::ACK != 0;
                tcp.syn = t.flags & tcp_flags::SYN != 0;
                tcp.fin = t.flags & tcp_flags::FIN != 0;
                tcp.psh = t.flags & tcp_flags::PSH != 0;
                tcp.rst = t.flags & tcp_flags::RST != 0;
                tcp.ece = t.flags & tcp_flags::ECE != 0;
                tcp.cwr = t.flags & tcp_flags::CWR != 0;
                if let Some(ace) = pkt.accecn.ace() {
                    // AccECN (RFC 9768 section 3.2.2): ACE in the AE (old NS), CWR, ECE bits
                    tcp.ns = ace & 4 != 0;
                    tcp.cwr = ace & 2 != 0;
                    tcp.ece = ace & 1 != 0;
                }
                // The simulated header size (size - payload - 20 IP bytes) fixes the TCP option
                // space, so tcp.len equals the simulated payload: SACK blocks first, then a
                // timestamp, padded with NOPs.
                let hdr = (pkt.size.saturating_sub(pkt.payload).saturating_sub(20) as usize)
                    .clamp(20, 60);
                let room = (hdr - 20) / 4 * 4;
                let mut opts: Vec<TcpOptionElement> = Vec::with_capacity(8);
                let mut used = 0usize;
                let wire = t.sack_wire();
                let n = wire.len();
                if n > 0 {
                    let fit = ((room.saturating_sub(2)) / 8).min(n);
                    if fit > 0 {
                        let b = |i: usize| wire[i];
                        let rest = [(fit > 1).then(|| b(1)), (fit > 2).then(|| b(2)), None];
                        opts.push(TcpOptionElement::SelectiveAcknowledgement(b(0), rest));
                        used += 2 + 8 * fit;
                    }
                }
                if room >= used + 10 {
                    opts.push(TcpOptionElement::Timestamp(
                        t.ts_val.as_nanos() as u32 / 1000,
                        t.ts_echo.as_nanos() as u32 / 1000,
                    ));
                    used += 10;
                }
                while used < room {
                    opts.push(TcpOptionElement::Noop);
                    used += 1;
                }
                if !opts.is_empty() {
                    let _ = tcp.set_options(&opts);
                }
                tcp.write(&mut self.buf)
            }
        });
        if let Err(e) = res {
            self.error = Some(e.to_string());
            return;
        }
        let orig_len = (pkt.size + 14).max(self.buf.len() as u32);
        let rec = PcapPacket::new(Duration::from_nanos(now.as_nanos()), orig_len, &self.buf);
        for &i in &self.files[port] {
            if let Some(w) = self.writers[i].as_mut() {
                if let Err(e) = w.write_packet(&rec) {
                    self.error = Some(write_error(&self.paths[i], e));
                }
            }
        }
    }

    /// Flushes every file; reports the first error.
    pub fn finish(&mut self) -> Result<(), String> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        for (w, path) in self.writers.iter_mut().zip(&self.paths) {
            if let Some(w) = w.take() {
                use std::io::Write;
                w.into_writer()
                    .flush()
                    .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
            }
        }
        Ok(())
    }
}

/// A pcap write error as the OS gave it, with the file: pcap_file's own words for an I/O
/// error are "Error reading bytes", even for a full disk.
fn write_error(path: &Path, e: pcap_file::PcapError) -> String {
    match e {
        pcap_file::PcapError::IoError(io) => format!("{}: cannot write: {io}", path.display()),
        e => format!("{}: {e}", path.display()),
    }
}
