//! Delivery-rate estimation: draft-cheng-iccrg-delivery-rate-estimation-02 ("Delivery Rate
//! Estimation", Cheng, Cardwell, Yeganeh, Jacobson), as ns-3.44's `TcpRateLinux`
//! (`src/internet/model/tcp-rate-ops.cc`) and Linux `net/ipv4/tcp_rate.c` implement it.
//!
//! * Section 3.2 (transmit): each data segment records the connection's `delivered`,
//!   `delivered_time`, `first_sent_time` and whether the connection was application-limited
//!   when it was sent; a send with nothing in flight restarts `first_sent_time` and
//!   `delivered_time` (ns-3 `SkbSent(isStartOfTransmission)`, Linux `tcp_rate_skb_sent`).
//! * Section 3.3 (ACK, per segment newly ACKed or SACKed): `delivered` grows by its length,
//!   `delivered_time` = now; the most recently sent segment delivered by the ACK gives the
//!   sample's `prior_delivered`, `prior_time`, send_elapsed (its send time minus its
//!   `first_sent_time`) and ack_elapsed (now minus its `delivered_time`); `first_sent_time`
//!   becomes its send time (ns-3 `SkbDelivered`, Linux `tcp_rate_skb_delivered`).
//! * Section 3.4 (sample): interval = max(send_elapsed, ack_elapsed), delivered = now's
//!   `delivered` - `prior_delivered`, rate = delivered / interval; the sample is invalid
//!   without a delivered segment or when the interval is below the minimum RTT
//!   (ns-3 `GenerateSample`, Linux `tcp_rate_gen`).
//! * Section 3.5 (application-limited): when the sender has nothing to send and less than
//!   cwnd in flight, `app_limited` = delivered + in flight; samples taken before that much is
//!   delivered are marked app-limited (ns-3 `CalculateAppLimited`, Linux
//!   `tcp_rate_check_app_limited`).
//!
//! * ns-3 (`Rules::rate_sample_persists`, `TcpRateLinux`): the sample under construction is
//!   kept across ACKs (`m_rateSample`): a segment updates it only if its `delivered` is above
//!   the kept `prior_delivered`; an interval below the minimum RTT clears `prior_time` and
//!   keeps the last rate; the rate is replaced only by a sample that is not app-limited or
//!   beats the last recorded delivered/interval (`m_rateDelivered`, `m_rateInterval`).
//!
//! One record per sent segment, kept in sequence order until the cumulative ACK passes it;
//! the ring only grows while the flight grows (no allocation in the steady state).

use crate::units::SimTime;
use std::collections::VecDeque;

/// The per-segment state of section 3.2.
#[derive(Debug, Clone, Copy)]
struct TxRecord {
    seq: u64,
    end: u64,
    delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    sent_time: SimTime,
    app_limited: bool,
    /// ACKed or SACKed already (ns-3 sets `m_deliveredTime` to `Time::Max`).
    done: bool,
}

/// One rate sample, handed to the congestion controller on every ACK (ns-3 `TcpRateSample`).
#[derive(Debug, Clone, Copy, Default)]
pub struct RateSample {
    /// Bytes per second; 0 when the sample is invalid.
    pub delivery_rate: f64,
    /// Bytes delivered over the interval (`None`: invalid sample).
    pub delivered: Option<u64>,
    pub interval: SimTime,
    /// `delivered` when the segment that gave the sample was sent.
    pub prior_delivered: u64,
    /// Bytes in flight before this ACK.
    pub prior_in_flight: u64,
    /// Bytes this ACK newly acknowledged or SACKed.
    pub acked_sacked: u64,
    /// Bytes newly marked lost (see the sender for how each flavour counts them).
    pub bytes_loss: u64,
    pub is_app_limited: bool,
}

/// The connection-level state of section 3.1 and the sample under construction.
#[derive(Debug, Clone, Default)]
pub struct RateEstimator {
    recs: VecDeque<TxRecord>,
    /// Total bytes delivered (ACKed or SACKed) so far.
    pub delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    /// Nonzero: the connection is application-limited until `delivered` passes it.
    app_limited: u64,
    // the sample of the ACK being processed
    have_prior: bool,
    prior_delivered: u64,
    prior_time: SimTime,
    send_elapsed: SimTime,
    ack_elapsed: SimTime,
    sample_app_limited: bool,
    acked_sacked: u64,
    /// Send time and end of the segment that gave the sample (Linux's choice of the newest).
    prior_sent: (SimTime, u64),
    /// ns-3's rules (`Rules::rate_sample_persists`) and their state.
    ns3: bool,
    last_rate: f64,
    rate_delivered: u64,
    rate_interval: SimTime,
}

impl RateEstimator {
    pub fn new() -> Self {
        Self::default()
    }

    /// ns-3's `TcpRateLinux` (see the module comment).
    pub fn ns3() -> Self {
        Self {
            ns3: true,
            ..Self::default()
        }
    }

    /// Section 3.2: a data segment [seq, end) leaves at `now`; `idle` when nothing was in flight.
    pub fn on_send(&mut self, now: SimTime, seq: u64, end: u64, idle: bool) {
        if idle {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let rec = TxRecord {
            seq,
            end,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            sent_time: now,
            app_limited: self.app_limited != 0,
            done: false,
        };
        if self.recs.back().is_none_or(|b| seq >= b.end) {
            self.recs.push_back(rec);
            return;
        }
        // A retransmission: the record that holds `seq` takes the new send's state.
        let i = self.recs.partition_point(|r| r.end <= seq);
        if let Some(r) = self.recs.get_mut(i) {
            if r.seq <= seq {
                let (s, e) = (r.seq, r.end.max(end));
                *r = TxRecord {
                    seq: s,
                    end: e,
                    ..rec
                };
            }
        }
    }

    /// Section 3.3 for one record.
    fn deliver(&mut self, i: usize, now: SimTime) {
        let r = self.recs[i];
        if r.done {
            return;
        }
        self.recs[i].done = true;
        let len = r.end - r.seq;
        self.delivered += len;
        self.delivered_time = now;
        self.acked_sacked += len;
        // ns-3: a larger `delivered` at send time; Linux (`tcp_skb_sent_after`): sent later
        // (ties by sequence)
        let newer = if self.ns3 {
            self.prior_delivered == 0 || r.delivered > self.prior_delivered
        } else {
            !self.have_prior || (r.sent_time, r.end) > self.prior_sent
        };
        if newer {
            self.prior_sent = (r.sent_time, r.end);
            self.have_prior = true;
            self.prior_delivered = r.delivered;
            self.prior_time = r.delivered_time;
            self.sample_app_limited = r.app_limited;
            self.send_elapsed = r.sent_time.saturating_sub(r.first_sent_time);
            self.ack_elapsed = now.saturating_sub(r.delivered_time);
            self.first_sent_time = r.sent_time;
        }
    }

    /// Segments inside the SACK block [s, e) are delivered.
    pub fn on_sacked(&mut self, now: SimTime, s: u64, e: u64) {
        let mut i = self.recs.partition_point(|r| r.seq < s);
        while i < self.recs.len() && self.recs[i].end <= e {
            self.deliver(i, now);
            i += 1;
        }
    }

    /// Everything below the cumulative ACK `ack` is delivered; its records are dropped.
    pub fn on_cum_ack(&mut self, now: SimTime, ack: u64) {
        let mut i = 0;
        while i < self.recs.len() && self.recs[i].seq < ack {
            if self.recs[i].end <= ack {
                self.deliver(i, now);
            }
            i += 1;
        }
        while self.recs.front().is_some_and(|r| r.end <= ack) {
            self.recs.pop_front();
        }
    }

    /// Section 3.5: the sender has no data to send and `in_flight` < cwnd.
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// Section 3.4: the sample of this ACK; resets the per-ACK state.
    pub fn sample(
        &mut self,
        prior_in_flight: u64,
        bytes_loss: u64,
        min_rtt: SimTime,
    ) -> RateSample {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let mut rs = RateSample {
            prior_in_flight,
            bytes_loss,
            acked_sacked: std::mem::take(&mut self.acked_sacked),
            prior_delivered: self.prior_delivered,
            is_app_limited: self.sample_app_limited,
            ..RateSample::default()
        };
        if self.ns3 {
            return self.sample_ns3(rs, min_rtt);
        }
        if std::mem::take(&mut self.have_prior) {
            let interval = self.send_elapsed.max(self.ack_elapsed);
            let delivered = self.delivered - self.prior_delivered;
            if interval >= min_rtt && interval > SimTime::ZERO {
                rs.interval = interval;
                rs.delivered = Some(delivered);
                rs.delivery_rate = delivered as f64 / interval.as_secs_f64();
            }
        }
        rs
    }

    /// ns-3 `TcpRateLinux::GenerateSample`.
    fn sample_ns3(&mut self, mut rs: RateSample, min_rtt: SimTime) -> RateSample {
        rs.delivery_rate = self.last_rate;
        if !self.have_prior {
            return rs; // m_priorTime zero: m_delivered -1, the last rate kept
        }
        let interval = self.send_elapsed.max(self.ack_elapsed);
        let delivered = self.delivered - self.prior_delivered;
        rs.delivered = Some(delivered);
        if interval < min_rtt || interval == SimTime::ZERO {
            self.have_prior = false; // m_priorTime = 0
            return rs;
        }
        rs.interval = interval;
        let beats = delivered as f64 * self.rate_interval.as_secs_f64()
            >= self.rate_delivered as f64 * interval.as_secs_f64();
        if !rs.is_app_limited || beats {
            self.rate_delivered = delivered;
            self.rate_interval = interval;
            self.last_rate = delivered as f64 / interval.as_secs_f64();
            rs.delivery_rate = self.last_rate;
        }
        rs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    // ---- a pipe at a fixed rate gives that rate ----
    #[test]
    fn steady_pipe_measures_its_bottleneck_rate() {
        // 1000-byte segments leave every 1 ms (1 MB/s), each ACKed 100 ms later.
        let mut r = RateEstimator::new();
        let mut last = None;
        for k in 0..400u64 {
            let t = ms(k);
            // ACKs due by now
            if k >= 100 {
                let acked_seg = k - 100;
                r.on_cum_ack(t, (acked_seg + 1) * 1000);
                last = Some(r.sample(100_000, 0, ms(100)));
            }
            r.on_send(t, k * 1000, (k + 1) * 1000, k == 0);
        }
        let rs = last.unwrap();
        let rate = rs.delivery_rate;
        assert!((rate - 1e6).abs() / 1e6 < 0.02, "rate {rate}");
        assert_eq!(rs.acked_sacked, 1000);
        assert!(!rs.is_app_limited);
    }

    // ---- draft section 3.4: an interval shorter than min RTT is no sample ----
    #[test]
    fn interval_below_min_rtt_is_invalid() {
        let mut r = RateEstimator::new();
        r.on_send(ms(0), 0, 1000, true);
        r.on_cum_ack(ms(10), 1000);
        let rs = r.sample(1000, 0, ms(50));
        assert_eq!(rs.delivery_rate, 0.0);
        assert!(rs.delivered.is_none());
        assert_eq!(rs.acked_sacked, 1000);
        // no ACK at all: invalid too
        let rs = r.sample(0, 0, ms(1));
        assert!(rs.delivered.is_none());
    }

    // ---- SACKed segments count once, when SACKed ----
    #[test]
    fn sacked_bytes_are_delivered_once() {
        let mut r = RateEstimator::new();
        for k in 0..4u64 {
            r.on_send(ms(k), k * 1000, (k + 1) * 1000, k == 0);
        }
        r.on_sacked(ms(100), 1000, 3000);
        let rs = r.sample(4000, 0, ms(1));
        assert_eq!(rs.acked_sacked, 2000);
        assert_eq!(r.delivered, 2000);
        r.on_cum_ack(ms(101), 4000);
        let rs = r.sample(2000, 0, ms(1));
        assert_eq!(rs.acked_sacked, 2000, "only segments 0 and 3 are new");
        assert_eq!(r.delivered, 4000);
    }

    // ---- ns-3: an ACK of segments sent at an older `delivered` reuses the last interval ----
    #[test]
    fn ns3_sample_persists_across_acks() {
        // four segments leave between two deliveries (same `delivered`); the ACKs cover two each
        let run = |mut r: RateEstimator| {
            r.on_send(ms(0), 0, 1000, true);
            r.on_cum_ack(ms(100), 1000);
            r.sample(1000, 0, ms(1));
            for k in 1..5u64 {
                r.on_send(ms(100 + k), k * 1000, (k + 1) * 1000, false);
            }
            r.on_cum_ack(ms(200), 3000);
            let a = r.sample(4000, 0, ms(1));
            r.on_cum_ack(ms(202), 5000);
            let b = r.sample(2000, 0, ms(1));
            (a, b)
        };
        let (a, b) = run(RateEstimator::new());
        let (na, nb) = run(RateEstimator::ns3());
        assert_eq!(a.delivered, na.delivered);
        // Linux: the second ACK's newest segment (sent at 104 ms, first_sent 0): 104 ms
        assert_eq!(b.delivered, Some(4000));
        assert_eq!(b.interval, ms(104));
        // ns-3: segments 3 and 4 were sent at the same `delivered` as segment 1, which gave the
        // first ACK's sample: the kept state gives its 101 ms for 4000 bytes
        assert_eq!(nb.delivered, Some(4000));
        assert_eq!(nb.interval, ms(101));
        assert!(
            nb.delivery_rate > b.delivery_rate,
            "{} vs {}",
            nb.delivery_rate,
            b.delivery_rate
        );
    }

    // ---- section 3.5: app-limited marks samples until the mark is delivered ----
    #[test]
    fn app_limited_marks_following_samples() {
        let mut r = RateEstimator::new();
        r.on_send(ms(0), 0, 1000, true);
        r.mark_app_limited(1000);
        r.on_send(ms(1), 1000, 2000, false);
        r.on_cum_ack(ms(100), 1000);
        assert!(!r.sample(2000, 0, ms(1)).is_app_limited);
        r.on_cum_ack(ms(101), 2000);
        assert!(r.sample(1000, 0, ms(1)).is_app_limited);
    }
}
