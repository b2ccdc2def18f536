//! CAKE's shaper: the rate as time per byte, overhead compensation and the per-tin and global
//! schedules.
//!
//! References: LANMAN 2018 paper section III-A ("the shaper ... schedules packets by their
//! time of departure, a virtual clock", and overhead compensation, III-A-1); Linux
//! `net/sched/sch_cake.c`:
//! * `cake_set_rate`: a byte rate becomes `rate_ns` (ns per byte << `rate_shft`, at most 34
//!   bits), MIN_RATE 64 bytes/s; `flow_quantum = clamp(rate >> 12, 300, 1514)` (1514 unshaped);
//!   COBALT's target is at least 1.5 MTU times (`byte_target_ns`), its interval `rtt + target -
//!   configured target`, at least twice the target;
//! * `cake_calc_overhead`: `len + overhead`, at least `mpu`, then ATM cells (`(len + 47) / 48 *
//!   53`) or PTM (`len + ceil(len / 64)`);
//! * `cake_advance_shaper`: a dequeued (or, in ingress mode, dropped) packet's adjusted length
//!   advances its tin's `time_next_packet` (from its old value if that is past, else from now)
//!   and the global `time_next_packet`.

use super::config::{AtmMode, MTU};
use crate::qdisc::cobalt_vars::{fixed_point, BlueArith, CobaltParams};

/// sch_cake `cake_set_rate` MIN_RATE (bytes/s).
const MIN_RATE: u64 = 64;

/// A rate as sch_cake holds it: `rate_ns / 2^rate_shft` ns per byte; 0 = unlimited.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ByteTime {
    pub rate_ns: u64,
    pub shift: u32,
}

impl ByteTime {
    /// `cake_set_rate`'s conversion of `bytes_per_s` (0: unlimited).
    pub fn new(bytes_per_s: u64) -> Self {
        if bytes_per_s == 0 {
            return Self::default();
        }
        let mut shift = 34u32;
        let mut rate_ns = (1_000_000_000u64 << 34) / bytes_per_s.max(MIN_RATE);
        while rate_ns >> 34 != 0 {
            rate_ns >>= 1;
            shift -= 1;
        }
        Self { rate_ns, shift }
    }
    /// Nanoseconds `len` bytes take.
    pub fn duration_ns(self, len: u64) -> u64 {
        (len * self.rate_ns) >> self.shift
    }
    pub fn unlimited(self) -> bool {
        self.rate_ns == 0
    }
}

/// One tin's rate-derived settings (sch_cake `cake_set_rate`).
#[derive(Clone, Copy, Debug)]
pub struct TinRate {
    pub bytes_per_s: u64,
    pub byte_time: ByteTime,
    pub flow_quantum: u32,
    pub cparams: CobaltParams,
}

/// `cake_set_rate(b, rate, mtu, target_ns, rtt_est_ns)`.
pub fn set_rate(bytes_per_s: u64, target_ns: u64, rtt_ns: u64) -> TinRate {
    let byte_time = ByteTime::new(bytes_per_s);
    let flow_quantum = if bytes_per_s == 0 {
        1514
    } else {
        (bytes_per_s >> 12).clamp(300, 1514) as u32
    };
    let mtu_time = byte_time.duration_ns(MTU);
    let target = (mtu_time * 3 / 2).max(target_ns);
    TinRate {
        bytes_per_s,
        byte_time,
        flow_quantum,
        cparams: CobaltParams {
            target_ns: target,
            interval_ns: (rtt_ns + target - target_ns).max(target * 2),
            mtu_time_ns: mtu_time,
            // p_inc = 1 << 24 (1/256), p_dec = 1 << 20 (1/4096) in 0.32 fixed point
            p_inc: fixed_point(1.0 / 256.0),
            p_dec: fixed_point(1.0 / 4096.0),
            arith: BlueArith::FixedPoint,
            // INET_ECN_set_ce: CAKE always marks an ECN-capable packet rather than drop it
            ecn: true,
            ce_threshold_ns: None,
            blue_threshold_ns: None,
            blue_timer_u32: false,
            // cobalt_vars_init zeroes the state
            initial_rec_inv_sqrt: 0,
        },
    }
}

/// The shaper's length adjustment (`cake_calc_overhead`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Overhead {
    /// None: `raw`, no `CAKE_FLAG_OVERHEAD`.
    pub overhead: Option<i32>,
    pub mpu: u32,
    pub atm: AtmMode,
}

impl Overhead {
    /// The length the shaper charges for a packet of `len` bytes.
    pub fn adjusted(&self, len: u32) -> u32 {
        let mut len = (len as i64 + self.overhead.unwrap_or(0) as i64).max(0) as u32;
        len = len.max(self.mpu);
        match self.atm {
            AtmMode::None => len,
            AtmMode::Atm => len.div_ceil(48) * 53,
            AtmMode::Ptm => len + len.div_ceil(64),
        }
    }
}

/// A tin's schedule after it sent (or, in ingress mode, dropped) `tin_dur` ns worth of
/// bytes at `now` (`cake_advance_shaper`'s per-tin rule).
pub fn advance_tin(time_next: i64, now: i64, tin_dur: i64) -> i64 {
    if time_next < now {
        time_next + tin_dur
    } else if time_next < now + tin_dur {
        now + tin_dur
    } else {
        time_next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- cake_set_rate: time per byte, quantum and COBALT's parameters from the rate ----
    #[test]
    fn a_rate_becomes_time_per_byte() {
        // 1 Mbyte/s: 1000 ns a byte
        let t = ByteTime::new(1_000_000);
        assert_eq!(t.duration_ns(1500), 1_500_000);
        // 20 Mbit/s = 2.5 MB/s: 1514 B in 605.6 us
        let t = ByteTime::new(2_500_000);
        assert!((t.duration_ns(1514) as i64 - 605_600).abs() <= 1);
        assert!(ByteTime::new(0).unlimited());
        // below MIN_RATE the rate is taken as 64 B/s
        assert_eq!(
            ByteTime::new(1).duration_ns(64),
            ByteTime::new(64).duration_ns(64)
        );
    }

    #[test]
    fn the_quantum_and_target_follow_the_rate() {
        // 2 Mbit/s: 250000 B/s >> 12 = 61 -> 300; mtu_time 6.056 ms -> target 9.084 ms,
        // interval 100 + 9.084 - 5 = 104.084 ms (sch_cake's tc output at 2 Mbit/s)
        let r = set_rate(250_000, 5_000_000, 100_000_000);
        assert_eq!(r.flow_quantum, 300);
        assert!((r.cparams.target_ns as i64 - 9_084_000).abs() < 10);
        assert_eq!(
            r.cparams.interval_ns,
            100_000_000 + r.cparams.target_ns - 5_000_000
        );
        // 100 Mbit/s: quantum 1514 (12.5e6 >> 12 = 3051), target stays 5 ms
        let r = set_rate(12_500_000, 5_000_000, 100_000_000);
        assert_eq!(r.flow_quantum, 1514);
        assert_eq!(r.cparams.target_ns, 5_000_000);
        assert_eq!(r.cparams.interval_ns, 100_000_000);
        // unlimited: quantum 1514, no mtu time
        let r = set_rate(0, 5_000_000, 100_000_000);
        assert_eq!((r.flow_quantum, r.cparams.mtu_time_ns), (1514, 0));
    }

    // ---- cake_calc_overhead: overhead, mpu, ATM and PTM framing ----
    #[test]
    fn overhead_mpu_and_cell_framing() {
        let raw = Overhead::default();
        assert_eq!(raw.adjusted(1500), 1500);
        let eth = Overhead {
            overhead: Some(18),
            mpu: 64,
            atm: AtmMode::None,
        };
        assert_eq!(eth.adjusted(1500), 1518);
        assert_eq!(eth.adjusted(40), 64);
        let atm = Overhead {
            overhead: Some(44),
            mpu: 0,
            atm: AtmMode::Atm,
        };
        // 1544 bytes: 33 cells (32 hold 1536) of 53 = 1749
        assert_eq!(atm.adjusted(1500), 33 * 53);
        // a 40-byte ACK + 44 = 84: two cells
        assert_eq!(atm.adjusted(40), 106);
        let ptm = Overhead {
            overhead: Some(0),
            mpu: 0,
            atm: AtmMode::Ptm,
        };
        assert_eq!(ptm.adjusted(1500), 1500 + 24);
        assert_eq!(ptm.adjusted(64), 65);
        assert_eq!(ptm.adjusted(65), 67);
    }

    // ---- cake_advance_shaper: a tin's schedule ----
    #[test]
    fn a_tin_schedule_keeps_credit_only_from_its_past() {
        // behind now: advanced from its own value (credit is spent, not lost)
        assert_eq!(advance_tin(100, 1000, 50), 150);
        // ahead of now but by less than the packet: now + the packet
        assert_eq!(advance_tin(1020, 1000, 50), 1050);
        // further ahead: unchanged
        assert_eq!(advance_tin(2000, 1000, 50), 2000);
    }
}
