//! Pacing and delivery-rate samples, and the sender's count of bytes in flight and lost.
//!
//! * Pacing (`tcp/pacing.rs`, ns-3.44 `TcpSocketBase` `m_pacingTimer`): each data segment
//!   starts the pacing timer at the controller's rate, or the ss/ca ratio over srtt.
//! * Delivery-rate samples for controllers that own the window (`tcp/rate.rs`,
//!   draft-cheng-iccrg-delivery-rate-estimation; ns-3 `TcpRateLinux`, Linux `tcp_rate.c`):
//!   after the ACK's loss-recovery processing the sample goes to the controller (ns-3
//!   `ReceivedAck` with `HasCongControl`), bytes lost as ns-3 (`|lost after - lost before|`)
//!   or Linux (the increase) count them (rule `rate_sample_losses_abs_diff`).
//! * Bytes in flight: ns-3 `BytesInFlight`, the RFC 6675 pipe in SACK recovery, else
//!   FlightSize (RFC 5681); bytes lost: RFC 6675 IsLost, ns-3 `TcpTxBuffer::GetLost`.

use super::TcpSender;
use crate::tcp::cc::Conn;
use crate::units::SimTime;

impl TcpSender {
    /// A data segment [seq, seq+len) leaves: its rate-estimation record, the pacing timer.
    pub(super) fn on_data_sent(&mut self, now: SimTime, seq: u64, len: u64) {
        let idle = self.snd_max == self.snd_una;
        if let Some(r) = &mut self.rate {
            r.on_send(now, seq, seq + len, idle);
        }
        let rate = self.pacing_rate();
        if let Some(p) = &mut self.pacer {
            p.on_sent(now, len, rate);
        }
    }

    /// The rate the sender paces at (payload bytes/s): the controller's own, else the ss/ca
    /// rule over srtt (`tcp/pacing.rs`).
    pub(super) fn pacing_rate(&self) -> Option<f64> {
        let p = self.pacer.as_ref()?;
        self.cc.pacing_rate().or_else(|| {
            let in_flight = self.bytes_in_flight() as f64;
            p.window_rate(self.w.cwnd, self.w.ssthresh, in_flight, self.rtt.srtt())
        })
    }

    /// Whether the pacing timer holds the next data segment back.
    pub(super) fn pace_blocked(&mut self, now: SimTime) -> bool {
        self.pacer.as_mut().is_some_and(|p| p.blocked(now))
    }

    /// Bytes in flight as the sender counts them (ns-3 `BytesInFlight`, the RFC 6675 pipe,
    /// or FlightSize without SACK).
    pub(super) fn bytes_in_flight(&self) -> u64 {
        if self.ns3_sack() {
            self.pipe_ns3()
        } else if self.p.sack && self.in_recovery {
            let mss = self.mss();
            self.sb.pipe(
                self.snd_una,
                self.snd_max,
                self.high_rxt,
                self.p.dupack_threshold,
                mss,
            )
        } else {
            self.flight()
        }
    }

    /// Bytes the scoreboard holds lost (ns-3 `TcpTxBuffer::GetLost`; RFC 6675 IsLost).
    pub(super) fn lost_bytes(&self) -> u64 {
        if !self.p.sack {
            return 0;
        }
        if self.ns3_sack() {
            return self.lost_ns3();
        }
        let (una, max) = (self.snd_una, self.snd_max);
        self.sb
            .lost_bytes(una, max, una, self.p.dupack_threshold, self.mss())
    }

    /// The connection as a window-owning controller sees it.
    pub(super) fn conn(&self, now: SimTime) -> Conn {
        let r = &self.rtt;
        Conn {
            now,
            in_flight: self.bytes_in_flight(),
            delivered: self.rate.as_ref().map_or(0, |r| r.delivered),
            min_rtt: (r.samples > 0).then(|| SimTime::from_secs_f64(r.min_sample)),
            last_rtt: (r.samples > 0).then(|| SimTime::from_secs_f64(r.last_sample)),
            iw_bytes: self.p.iw as f64 * self.w.mss,
        }
    }

    /// ns-3 `ReceivedAck` with `HasCongControl`: after the ACK's loss-recovery processing,
    /// the rate sample (`GenerateSample`, with bytes lost = |lost after - lost before| as
    /// ns-3 computes it, or the increase only as Linux does: flavour rule
    /// `rate_sample_losses_abs_diff`) goes to the controller, which sets cwnd and the pacing rate.
    pub(super) fn rate_sample_to_cc(&mut self, now: SimTime) {
        let Some((prior_in_flight, lost_before)) = self.ack_ctx.take() else {
            return;
        };
        let lost = if self.p.rules().rate_sample_losses_abs_diff {
            self.lost_bytes().abs_diff(lost_before)
        } else {
            self.lost_bytes().saturating_sub(lost_before)
        };
        let c = self.conn(now);
        let min_rtt = c.min_rtt.unwrap_or(SimTime::ZERO);
        let Some(r) = &mut self.rate else { return };
        let rs = r.sample(prior_in_flight, lost, min_rtt);
        self.cc.on_rate_sample(&mut self.w, &rs, &c);
    }
}
