//! UDP: a datagram sender driven by a traffic generator, and a sink that counts what
//! arrives. No retransmission, no feedback (RFC 768). Each datagram carries its number in
//! the flow so the sink could detect reordering.
//!
//! Send jitter (a flow's `send_jitter`): each emission leaves a uniform random time in
//! [0, send_jitter) after the generator's time, drawn from the flow's own stream, and never
//! before the one before it (the datagrams keep their order), to break the phase effects of
//! Floyd and Jacobson, "On Traffic Phase Effects in Packet-Switched Gateways" (1992), as
//! ns-2's `overhead_` does for its TCP agents.

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
    /// The stop it was built with: a restart (`retime`) runs to it again.
    limit: SimTime,
    header: u32,
    next_seq: u64,
    /// Added to the generator's times: the application was started later than built
    /// (`retime`); zero otherwise.
    shift: SimTime,
    /// Held until a start comes (`retime` with `SimTime::MAX`).
    held: bool,
    /// The largest datagram: a larger message goes out as several (`with_max_datagram`).
    max_datagram: u32,
    /// Send jitter: the largest delay and its stream (`with_send_jitter`).
    jitter: Option<(SimTime, Rng)>,
    /// When the pending emission leaves, once its delay is drawn (send jitter).
    release: Option<SimTime>,
    /// When the last emission left (send jitter keeps the order).
    last_release: SimTime,
}

impl UdpSender {
    pub fn new(mut gen: Box<dyn Generator>, mut rng: Rng, stop: SimTime, header: u32) -> Self {
        let pending = gen.next(&mut rng);
        Self {
            gen,
            rng,
            pending,
            stop,
            limit: stop,
            header,
            next_seq: 0,
            shift: SimTime::ZERO,
            held: false,
            max_datagram: u32::MAX,
            jitter: None,
            release: None,
            last_release: SimTime::ZERO,
        }
    }

    /// Delays each emission by a uniform random time in [0, `max`) drawn from `rng`
    /// (`send_jitter`); zero leaves the sender as it was.
    pub fn with_send_jitter(mut self, max: SimTime, rng: Rng) -> Self {
        if max > SimTime::ZERO {
            self.jitter = Some((max, rng));
        }
        self
    }

    /// When the pending emission `at` leaves: `at` without jitter; with it, its drawn time.
    fn release_of(&mut self, at: SimTime) -> SimTime {
        let Some((max, rng)) = &mut self.jitter else {
            return at;
        };
        *self.release.get_or_insert_with(|| {
            let d = SimTime::from_secs_f64(rng.uniform_between(0.0, max.as_secs_f64()));
            (at + d).max(self.last_release)
        })
    }

    /// Splits each message larger than `max` bytes into datagrams sent at once: floor(size /
    /// max) of `max` bytes, then one of the remainder if any, numbered one after the other,
    /// as ns-2.35's `UdpAgent::sendmsg` (udp.cc) splits a message larger than the agent's
    /// `packetSize_`. `None`: one datagram per message.
    pub fn with_max_datagram(mut self, max: Option<u32>) -> Self {
        self.max_datagram = max.unwrap_or(u32::MAX).max(1);
        self
    }

    /// Whether the pending emission at `at` comes before the stop. A source that keeps ns-2's
    /// double sums compares those: 0.8 + 1200 x 0.016 s added up is just below 20 s, so it
    /// runs before a `finish` at 20 as in ns-2, though it rounds to 20 s in picoseconds.
    fn before_stop(&self, at: SimTime) -> bool {
        match self.gen.next_s() {
            Some(s) if self.shift == SimTime::ZERO => s < self.stop.as_secs_f64(),
            _ => at < self.stop,
        }
    }

    fn send_datagram(&mut self, size: u32, cx: &mut EndpointCtx) {
        cx.send(Packet {
            kind: PacketKind::UdpData,
            size,
            payload: size.saturating_sub(self.header),
            seq: self.next_seq,
            ..Packet::default()
        });
        self.next_seq += 1;
    }
}

impl Endpoint for UdpSender {
    fn on_packet(&mut self, _pkt: Packet, _cx: &mut EndpointCtx) {}

    fn on_timeout(&mut self, cx: &mut EndpointCtx) {
        while let Some((at, size)) = self.pending {
            if at > cx.now || !self.before_stop(at) {
                break;
            }
            let release = self.release_of(at);
            if release > cx.now {
                break;
            }
            self.release = None;
            self.last_release = release;
            let max = self.max_datagram;
            for _ in 0..size / max {
                self.send_datagram(max, cx);
            }
            if size % max > 0 {
                self.send_datagram(size % max, cx);
            }
            let shift = self.shift;
            self.pending = self.gen.next(&mut self.rng).map(|(t, s)| (t + shift, s));
        }
    }

    /// trafgen.cc `TrafficGenerator::timeout` sends `size_` as it is when the timer
    /// expires: the pending emission takes the new size; its time stays.
    fn set_cbr_rate(&mut self, rate_bps: f64, size: u32) -> Result<(), String> {
        if !self.gen.set_cbr_rate(rate_bps, size) {
            return Err("its application is not a CBR source".into());
        }
        if let Some((_, s)) = &mut self.pending {
            *s = size;
        }
        Ok(())
    }

    fn next_timeout(&self) -> Option<SimTime> {
        if self.held {
            return None;
        }
        self.pending
            .map(|(t, _)| t)
            .filter(|&t| self.before_stop(t))
            .map(|t| self.release.unwrap_or(t))
    }

    fn next_timeout_s(&self) -> Option<f64> {
        // a source moved by a script's start runs on its own times shifted: not ns-2's sums;
        // a jittered one on its drawn times
        if self.shift > SimTime::ZERO || self.jitter.is_some() {
            return None;
        }
        self.next_timeout().and(self.gen.next_s())
    }

    fn retime(
        &mut self,
        now: SimTime,
        from: SimTime,
        start: Option<SimTime>,
        stop: Option<SimTime>,
    ) -> Result<(), String> {
        if let Some(t) = start {
            if self.next_seq > 0 || self.shift > SimTime::ZERO {
                // a restart after a stop (ns-2's `$cbr stop` ... `$cbr start`): the source
                // goes on from `t`, its next emission moved there
                if now < self.stop || t == SimTime::MAX {
                    return Err("it is running; starting it again is not modelled".into());
                }
                let t = t.max(now);
                if let Some((at, _)) = &mut self.pending {
                    if *at < t {
                        self.shift = self.shift + (t - *at);
                        *at = t;
                    }
                }
                self.stop = self.limit;
                if let Some(s) = stop {
                    self.stop = self.stop.min(s.max(now));
                }
                return Ok(());
            }
            if t == SimTime::MAX {
                self.held = true;
            } else {
                // the generator's emissions, built from `from`, move to start at `t`
                let t = t.max(now).max(from);
                self.shift = t - from;
                self.held = false;
                let shift = self.shift;
                if let Some((at, _)) = &mut self.pending {
                    *at = *at + shift;
                }
            }
        }
        if let Some(t) = stop {
            self.stop = self.stop.min(t.max(now));
        }
        Ok(())
    }
}

/// Counts application bytes received (the simulation records packets and delays), and the
/// packets missing from the sequence as ns-2.35's `Agent/LossMonitor` counts them
/// (loss-monitor.cc `recv`): when a packet arrives, `nlost_ += seqno - expected` if positive,
/// then `expected = seqno + 1`. A loss shows only when a later packet arrives. `expected`
/// starts at 0 (ns-default.tcl's `Agent/LossMonitor set expected_ 0`, which overrides the
/// constructor's -1), so the packets lost before the first arrival count too.
#[derive(Default)]
pub struct UdpSink {
    expected: u64,
    gaps: u64,
}

impl Endpoint for UdpSink {
    fn on_packet(&mut self, pkt: Packet, cx: &mut EndpointCtx) {
        self.gaps += pkt.seq.saturating_sub(self.expected);
        self.expected = pkt.seq + 1;
        if !pkt.in_warmup {
            cx.stats.goodput_bytes += pkt.payload as u64;
        }
    }
    fn on_timeout(&mut self, _cx: &mut EndpointCtx) {}
    fn next_timeout(&self) -> Option<SimTime> {
        None
    }
    fn probe(&self, var: &str) -> Option<f64> {
        (var == "nlost_").then_some(self.gaps as f64)
    }
}
