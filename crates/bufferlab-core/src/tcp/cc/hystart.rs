//! HyStart, hybrid slow start: Ha and Rhee, "Taming the elephants: New TCP slow start",
//! Computer Networks 55(9), 2011, as CUBIC runs it in Linux (`net/ipv4/tcp_cubic.c`,
//! `hystart_update`, v5.7 and later) and in ns-3.44 (`src/internet/model/tcp-cubic.cc`,
//! `TcpCubic::HystartUpdate`, read through the search tool). Slow start ends (ssthresh = cwnd)
//! before the first loss when either detector fires:
//!
//! * **ACK train**: ACKs keep arriving no more than `ack_delta` (2 ms) apart and the train has
//!   lasted longer than a threshold since the round began;
//! * **delay increase**: the smallest of the first `min_samples` (8) RTT samples of a round
//!   exceeds the smallest RTT seen (`delay_min`) by more than a clamped threshold.
//!
//! A round starts when the ACK passes the highest sequence sent at the previous round start
//! (`end_seq`). Both run only while cwnd >= `low_window` (16 segments) and in slow start.
//!
//! Where the two differ ([`HystartVariant`]):
//!
//! | | Linux `tcp_cubic.c` | ns-3.44 `TcpCubic` |
//! |---|---|---|
//! | ACK-train threshold | (delay_min + ack delay) / 2, the ack delay min(1 ms, 4 GSO_MAX_SIZE / pacing rate) (`hystart_ack_delay`), halved without pacing | delay_min |
//! | delay threshold | delay_min + clamp(delay_min / 8, 4 ms, 16 ms) (`HYSTART_DELAY_THRESH(delay_min >> 3)`) | delay_min + clamp(delay_min, `HyStartDelayMin` 4 ms, `HyStartDelayMax` 1000 ms) |
//! | RTT of the round | min over every sample of the round; the test after `min_samples` | min over the first `HyStartMinSamples` samples only |
//! | round reset | in `hystart_update`, before the tests | in `IncreaseWindow`, after them (slow start only) |
//! | slow start test | cwnd < ssthresh | cwnd <= ssthresh (`PktsAcked`) |
//!
//! The samples themselves (Linux: each ACK's RTT; ns-3: the smoothed RTT of `m_srtt`) and
//! which are discarded are the caller's (`cubic.rs`).

use crate::units::SimTime;

/// Whose HyStart (the table above).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HystartVariant {
    /// Linux `tcp_cubic.c` (v5.7+): `hystart_detect` 3 (both), `hystart_low_window` 16,
    /// `hystart_ack_delta_us` 2000, `HYSTART_MIN_SAMPLES` 8, `HYSTART_DELAY_MIN` 4 ms,
    /// `HYSTART_DELAY_MAX` 16 ms.
    Linux,
    /// ns-3.44 `TcpCubic`: `HyStartDetect` BOTH, `HyStartLowWindow` 16,
    /// `HyStartAckDelta` 2 ms, `HyStartMinSamples` 8, `HyStartDelayMin` 4 ms,
    /// `HyStartDelayMax` 1000 ms.
    Ns3,
}

/// Which detector fired (for the report and the tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    AckTrain,
    Delay,
}

#[derive(Debug, Clone)]
pub struct Hystart {
    variant: HystartVariant,
    /// Segments.
    pub low_window: f64,
    min_samples: u32,
    ack_delta: SimTime,
    delay_min_clamp: SimTime,
    delay_max_clamp: SimTime,
    /// The detector that ended slow start (cleared by [`Hystart::restart`]).
    pub found: Option<Exit>,
    round_start: SimTime,
    last_ack: SimTime,
    end_seq: u64,
    curr_rtt: Option<SimTime>,
    sample_cnt: u32,
}

impl Hystart {
    /// Both detectors on, with the variant's constants (see [`HystartVariant`]).
    pub fn new(variant: HystartVariant) -> Self {
        let delay_max = match variant {
            HystartVariant::Linux => SimTime::from_millis(16),
            HystartVariant::Ns3 => SimTime::from_millis(1000),
        };
        Self {
            variant,
            low_window: 16.0,
            min_samples: 8,
            ack_delta: SimTime::from_millis(2),
            delay_min_clamp: SimTime::from_millis(4),
            delay_max_clamp: delay_max,
            found: None,
            round_start: SimTime::ZERO,
            last_ack: SimTime::ZERO,
            end_seq: 0,
            curr_rtt: None,
            sample_cnt: 0,
        }
    }

    pub fn variant(&self) -> HystartVariant {
        self.variant
    }

    /// `bictcp_hystart_reset` / `HystartReset`: a new round from `now`, ending when the ACK
    /// passes `snd_nxt` (the highest sequence sent).
    pub fn reset_round(&mut self, now: SimTime, snd_nxt: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_nxt;
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }

    /// After a retransmission timeout (`bictcp_reset` + `bictcp_hystart_reset` on
    /// `TCP_CA_Loss`, ns-3 `CubicReset` + `HystartReset` on `CA_LOSS`): detect again.
    pub fn restart(&mut self, now: SimTime, snd_nxt: u64) {
        self.found = None;
        self.reset_round(now, snd_nxt);
    }

    /// ns-3's round reset (`IncreaseWindow` in slow start: `m_lastAckedSeq > m_endSeq`).
    pub fn ns3_round_check(&mut self, now: SimTime, snd_una: u64, snd_nxt: u64) {
        if snd_una > self.end_seq {
            self.reset_round(now, snd_nxt);
        }
    }

    /// Whether the detectors run on this ACK: not yet found, in slow start, cwnd at least the
    /// low window (segments).
    pub fn active(&self, cwnd_segs: f64, ssthresh_segs: f64) -> bool {
        let in_ss = match self.variant {
            HystartVariant::Linux => cwnd_segs < ssthresh_segs,
            HystartVariant::Ns3 => cwnd_segs <= ssthresh_segs,
        };
        self.found.is_none() && in_ss && cwnd_segs >= self.low_window
    }

    /// One delay sample (`hystart_update` / `HystartUpdate`); `delay_min` is the controller's
    /// smallest delay, `pacing_rate` (bytes/s) Linux's `sk_pacing_rate` for the ACK-train
    /// threshold. Returns the detector that fired on this sample, if one did: the caller then
    /// sets ssthresh = cwnd.
    pub fn update(
        &mut self,
        now: SimTime,
        delay: SimTime,
        delay_min: SimTime,
        snd_una: u64,
        snd_nxt: u64,
        pacing_rate: f64,
    ) -> Option<Exit> {
        if self.found.is_some() {
            return None;
        }
        let linux = self.variant == HystartVariant::Linux;
        if linux && snd_una > self.end_seq {
            self.reset_round(now, snd_nxt);
        }
        // ACK-train detection.
        if now.saturating_sub(self.last_ack) <= self.ack_delta {
            self.last_ack = now;
            let threshold = if linux {
                // hystart_ack_delay: min(1 ms, 4 * GSO_MAX_SIZE (65536 B) / pacing rate), 0
                // without a rate; halved when the socket does not pace (SK_PACING_NONE).
                let ack_delay = if pacing_rate > 0.0 {
                    SimTime::from_secs_f64((4.0 * 65536.0 / pacing_rate).min(1e-3))
                } else {
                    SimTime::ZERO
                };
                SimTime((delay_min + ack_delay).0 / 2)
            } else {
                delay_min
            };
            if now.saturating_sub(self.round_start) > threshold {
                self.found = Some(Exit::AckTrain);
                return self.found;
            }
        }
        // Delay-increase detection.
        if linux {
            self.curr_rtt = Some(self.curr_rtt.map_or(delay, |c| c.min(delay)));
            if self.sample_cnt < self.min_samples {
                self.sample_cnt += 1;
                return None;
            }
        } else if self.sample_cnt < self.min_samples {
            self.curr_rtt = Some(self.curr_rtt.map_or(delay, |c| c.min(delay)));
            self.sample_cnt += 1;
            return None;
        }
        let base = if linux {
            SimTime(delay_min.0 / 8)
        } else {
            delay_min
        };
        let thresh = base.max(self.delay_min_clamp).min(self.delay_max_clamp);
        if self.curr_rtt.is_some_and(|c| c > delay_min + thresh) {
            self.found = Some(Exit::Delay);
        }
        self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    #[test]
    fn a_delay_rise_of_more_than_the_threshold_ends_slow_start() {
        // delay_min 20 ms: ns-3 needs the round's minimum above 20 + clamp(20, 4, 1000) = 40 ms,
        // Linux above 20 + clamp(20 / 8, 4, 16) = 24 ms.
        for (variant, rtt, fires) in [
            (HystartVariant::Ns3, 35, false),
            (HystartVariant::Ns3, 41, true),
            (HystartVariant::Linux, 23, false),
            (HystartVariant::Linux, 25, true),
        ] {
            let mut h = Hystart::new(variant);
            h.reset_round(ms(0), 1_000_000);
            let mut got = None;
            // ACKs 5 ms apart: no ACK train.
            for k in 1..=12 {
                got = got.or(h.update(ms(5 * k), ms(rtt), ms(20), 1000 * k, 1_000_000, 0.0));
            }
            assert_eq!(got.is_some(), fires, "{variant:?} at {rtt} ms");
            if fires {
                assert_eq!(got, Some(Exit::Delay));
            }
        }
    }

    #[test]
    fn a_dense_ack_train_longer_than_the_threshold_ends_slow_start() {
        // ACKs 1 ms apart from the round start, delay_min 20 ms: ns-3 fires once the train is
        // longer than 20 ms, Linux (no pacing rate) longer than 10 ms.
        for (variant, at) in [(HystartVariant::Ns3, 21), (HystartVariant::Linux, 11)] {
            let mut h = Hystart::new(variant);
            h.reset_round(ms(0), 1_000_000);
            let mut fired = None;
            for k in 1..=30u64 {
                if h.update(ms(k), ms(20), ms(20), 1000 * k, 1_000_000, 0.0)
                    .is_some()
                {
                    fired = Some(k);
                    break;
                }
            }
            assert_eq!(fired, Some(at), "{variant:?}");
            assert_eq!(h.found, Some(Exit::AckTrain));
            // Found stays found until a timeout restarts detection.
            assert_eq!(h.update(ms(40), ms(20), ms(20), 1, 1, 0.0), None);
            h.restart(ms(50), 2_000_000);
            assert_eq!(h.found, None);
        }
    }

    #[test]
    fn sparse_acks_never_make_a_train() {
        let mut h = Hystart::new(HystartVariant::Ns3);
        h.reset_round(ms(0), 1_000_000);
        for k in 1..=100u64 {
            assert_eq!(
                h.update(ms(3 * k), ms(20), ms(20), 1000 * k, 1_000_000, 0.0),
                None
            );
        }
    }

    #[test]
    fn ns3_keeps_the_minimum_of_the_first_samples_only() {
        // Eight samples at 50 ms, then low ones: ns-3's round minimum stays 50 ms (> 20 + 20),
        // Linux's follows the later samples down and does not fire.
        for (variant, fires) in [(HystartVariant::Ns3, true), (HystartVariant::Linux, false)] {
            let mut h = Hystart::new(variant);
            h.reset_round(ms(0), 1_000_000);
            let mut got = None;
            for k in 1..=8u64 {
                got = got.or(h.update(ms(5 * k), ms(50), ms(20), 1000 * k, 1_000_000, 0.0));
            }
            assert_eq!(got, None, "{variant:?}: no test before eight samples");
            got = h.update(ms(45), ms(21), ms(20), 9000, 1_000_000, 0.0);
            assert_eq!(got.is_some(), fires, "{variant:?}");
        }
    }

    #[test]
    fn only_at_or_above_the_low_window_in_slow_start() {
        let ns3 = Hystart::new(HystartVariant::Ns3);
        let linux = Hystart::new(HystartVariant::Linux);
        assert!(!ns3.active(15.0, 100.0));
        assert!(ns3.active(16.0, 100.0));
        assert!(ns3.active(20.0, 20.0), "ns-3 tests cwnd <= ssthresh");
        assert!(!linux.active(20.0, 20.0), "Linux tests cwnd < ssthresh");
        assert!(!ns3.active(21.0, 20.0));
    }
}
