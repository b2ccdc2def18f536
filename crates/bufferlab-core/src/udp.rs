//! UDP: a datagram sender driven by a traffic generator, and a sink that counts what
//! arrives. No retransmission, no feedback (RFC 768). Each datagram carries its number in
//! the flow so the sink could detect reordering.

use crate::endpoint::{Endpoint, EndpointCtx};
use crate::packet::{Packet, PacketKind};
use crate::rng::Rng;
use crate::traffic::Generator;
use crate::units::SimTime;

pub struct UdpSender {
    gen: Box<dyn Generator>,
    rng: Rng,
    pending: Option<(SimTime, u32)>,
    stop: SimTime,
    header: u32,
    next_seq: u64,
}

impl UdpSender {
    pub fn new(mut gen: Box<dyn Generator>, mut rng: Rng, stop: SimTime, header: u32) -> Self {
        let pending = gen.next(&mut rng);
        Self {
            gen,
            rng,
            pending,
            stop,
            header,
            next_seq: 0,
        }
    }
}

impl Endpoint for UdpSender {
    fn on_packet(&mut self, _pkt: Packet, _cx: &mut EndpointCtx) {}

    fn on_timeout(&mut self, cx: &mut EndpointCtx) {
        while let Some((at, size)) = self.pending {
            if at > cx.now || at >= self.stop {
                break;
            }
            cx.send(Packet {
                kind: PacketKind::UdpData,
                size,
                payload: size.saturating_sub(self.header),
                seq: self.next_seq,
                ..Packet::default()
            });
            self.next_seq += 1;
            self.pending = self.gen.next(&mut self.rng);
        }
    }

    fn next_timeout(&self) -> Option<SimTime> {
        self.pending.map(|(t, _)| t).filter(|&t| t < self.stop)
    }
}

/// Counts application bytes received (the simulation records packets and delays).
#[derive(Default)]
pub struct UdpSink;

impl Endpoint for UdpSink {
    fn on_packet(&mut self, pkt: Packet, cx: &mut EndpointCtx) {
        if !pkt.in_warmup {
            cx.stats.goodput_bytes += pkt.payload as u64;
        }
    }
    fn on_timeout(&mut self, _cx: &mut EndpointCtx) {}
    fn next_timeout(&self) -> Option<SimTime> {
        None
    }
}
