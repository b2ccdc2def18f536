//! The `cubic` module of ns-2.35's `Agent/TCP/Linux`: `tcp/linux/src/tcp_cubic.c`, Linux
//! 2.6.22's CUBIC v2.1 (Ha, Rhee and Xu; BIC-style, in whole packets and jiffies of 1 ms,
//! `JIFFY_RATIO`), as `select_ca cubic` installs it. bufferlab's own CUBIC controller
//! (`tcp/cc/cubic.rs`, RFC 9438) differs from it in its units and clock; this is that code's
//! arithmetic, rule by rule:
//!
//! * `bictcp_reset` / `bictcp_init`: everything 0, `delayed_ack` 2 << 4; `bictcp_state`
//!   resets again on entering Loss (a timeout), so `loss_cwnd` is 0 until the next loss.
//! * `bictcp_acked` (`pkts_acked`, in Open only): the packets-per-ACK ratio
//!   `delayed_ack = 15/16 delayed_ack + cnt` (u32 arithmetic).
//! * `bictcp_recalc_ssthresh`: the epoch ends; `last_max_cwnd` is the window, or with
//!   `fast_convergence` below the last maximum `cwnd * (1024 + beta) / 2048`; `loss_cwnd =
//!   cwnd`; returns `max(cwnd * beta / 1024, 2)`.
//! * `bictcp_update` (above ssthresh, when `tcp_is_cwnd_limited`): at most once per
//!   `HZ / 32` jiffies for the same window; a new epoch starts with `tcp_cwnd = cwnd` and
//!   `K = cubic_root(cube_factor * (last_max_cwnd - cwnd))` (or K 0 at or above the last
//!   maximum); `t` is the epoch's age in 1/1024 s plus `delay_min / 8` (0: ns-2's agent has
//!   no timestamps, so `measure_delay` never samples and `min_cnt` never applies);
//!   `target = origin +- (410 * |t - K|^3) >> 40` (`cube_rtt_scale = bic_scale * 10`);
//!   `cnt = cwnd / (target - cwnd)`, or `100 * cwnd` at or above the target; `cnt = 50` while
//!   `loss_cwnd` is 0; TCP friendliness (`beta_scale = 8 (1024 + beta) / 3 / (1024 - beta)`,
//!   23): `tcp_cwnd` grows by one each `cwnd * beta_scale / 8` ACKs and caps `cnt` at
//!   `cwnd / (tcp_cwnd - cwnd)`; then `cnt = (cnt << 4) / delayed_ack`, at least 1.
//! * `bictcp_cong_avoid`: one packet more after `cnt` ACKs (`snd_cwnd_cnt`), capped at
//!   `snd_cwnd_clamp`; slow start below ssthresh is `tcp_slow_start` (`ns2_linux.rs`).
//! * `cubic_root`: the table lookup and one Newton-Raphson step of the source.
//!
//! Parameters: `beta` 819 and `bic_scale` 41 (ns-2.35's defaults, `$tcp get_ca_param
//! cubic`) from the flow's `cubic_beta` x 1024 and `cubic_c` x 1024 / 10;
//! `fast_convergence` from `cubic_fast_convergence`; `max_increment` 16 and
//! `tcp_friendliness` 1 (the source's defaults; `max_increment` is read only with a
//! `delay_min`).

const BICTCP_BETA_SCALE: u32 = 1024;
const BICTCP_HZ: u32 = 10;
const HZ: u32 = 1000;
const ACK_RATIO_SHIFT: u32 = 4;

/// `struct bictcp` and the module's parameters.
#[derive(Debug, Clone)]
pub(super) struct Bictcp {
    beta: u32,
    fast_convergence: bool,
    cube_rtt_scale: u32,
    beta_scale: u32,
    cube_factor: u64,
    cnt: u32,
    last_max_cwnd: u32,
    loss_cwnd: u32,
    last_cwnd: u32,
    last_time: u32,
    bic_origin_point: u32,
    bic_k: u32,
    delay_min: u32,
    epoch_start: u32,
    ack_cnt: u32,
    tcp_cwnd: u32,
    delayed_ack: u32,
}

impl Bictcp {
    /// `cubictcp_register`'s precomputed scales, then `bictcp_init`.
    pub(super) fn new(beta: f64, c: f64, fast_convergence: bool) -> Self {
        let beta = (beta * f64::from(BICTCP_BETA_SCALE)).round() as u32;
        let bic_scale = (c * 1024.0 / 10.0).round().max(1.0) as u32;
        let mut b = Bictcp {
            beta,
            fast_convergence,
            cube_rtt_scale: bic_scale * 10,
            beta_scale: 8 * (BICTCP_BETA_SCALE + beta) / 3 / (BICTCP_BETA_SCALE - beta).max(1),
            cube_factor: (1u64 << (10 + 3 * BICTCP_HZ)) / u64::from(bic_scale * 10),
            cnt: 0,
            last_max_cwnd: 0,
            loss_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            bic_origin_point: 0,
            bic_k: 0,
            delay_min: 0,
            epoch_start: 0,
            ack_cnt: 0,
            tcp_cwnd: 0,
            delayed_ack: 0,
        };
        b.reset();
        b
    }

    /// `bictcp_reset` (also `bictcp_state(TCP_CA_Loss)`).
    pub(super) fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.loss_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.bic_origin_point = 0;
        self.bic_k = 0;
        self.delay_min = 0;
        self.epoch_start = 0;
        self.delayed_ack = 2 << ACK_RATIO_SHIFT;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
    }

    /// `bictcp_acked(sk, cnt)` in the Open state.
    pub(super) fn acked(&mut self, cnt: u32) {
        if cnt > 0 {
            let cnt = cnt.wrapping_sub(self.delayed_ack >> ACK_RATIO_SHIFT);
            self.delayed_ack = self.delayed_ack.wrapping_add(cnt);
        }
    }

    /// `bictcp_recalc_ssthresh` for the window `cwnd` (packets).
    pub(super) fn ssthresh(&mut self, cwnd: u32) -> u32 {
        self.epoch_start = 0;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.fast_convergence {
            cwnd * (BICTCP_BETA_SCALE + self.beta) / (2 * BICTCP_BETA_SCALE)
        } else {
            cwnd
        };
        self.loss_cwnd = cwnd;
        (cwnd * self.beta / BICTCP_BETA_SCALE).max(2)
    }

    /// `bictcp_cong_avoid` above ssthresh: the window after this ACK, with `cwnd_cnt` the
    /// agent's `snd_cwnd_cnt` and `now` `tcp_time_stamp` (jiffies).
    pub(super) fn cong_avoid(
        &mut self,
        cwnd: u32,
        cwnd_cnt: &mut u32,
        clamp: u32,
        now: u32,
    ) -> u32 {
        self.update(cwnd, now);
        if *cwnd_cnt >= self.cnt {
            *cwnd_cnt = 0;
            if cwnd < clamp {
                return cwnd + 1;
            }
        } else {
            *cwnd_cnt += 1;
        }
        cwnd
    }

    /// `bictcp_update`.
    fn update(&mut self, cwnd: u32, now: u32) {
        self.ack_cnt = self.ack_cnt.wrapping_add(1);
        if self.last_cwnd == cwnd && (now.wrapping_sub(self.last_time) as i32) <= (HZ / 32) as i32 {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now;
        if self.epoch_start == 0 {
            self.epoch_start = now;
            self.ack_cnt = 1;
            self.tcp_cwnd = cwnd;
            if self.last_max_cwnd <= cwnd {
                self.bic_k = 0;
                self.bic_origin_point = cwnd;
            } else {
                let a = self
                    .cube_factor
                    .wrapping_mul(u64::from(self.last_max_cwnd - cwnd));
                self.bic_k = cubic_root(a);
                self.bic_origin_point = self.last_max_cwnd;
            }
        }
        let t = (now
            .wrapping_add(self.delay_min >> 3)
            .wrapping_sub(self.epoch_start)
            << BICTCP_HZ)
            / HZ;
        let offs = u64::from(t.abs_diff(self.bic_k));
        let delta = (u64::from(self.cube_rtt_scale)
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            >> (10 + 3 * BICTCP_HZ)) as u32;
        let target = if t < self.bic_k {
            self.bic_origin_point.wrapping_sub(delta)
        } else {
            self.bic_origin_point.wrapping_add(delta)
        };
        self.cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            100 * cwnd
        };
        if self.loss_cwnd == 0 {
            self.cnt = 50; // slow start and low utilization
        }
        // TCP friendliness (tcp_friendliness 1)
        let d = (cwnd * self.beta_scale) >> 3;
        while d > 0 && self.ack_cnt > d {
            self.ack_cnt -= d;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > cwnd {
            let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
            self.cnt = self.cnt.min(max_cnt);
        }
        self.cnt = (self.cnt << ACK_RATIO_SHIFT) / self.delayed_ack.max(1);
        if self.cnt == 0 {
            self.cnt = 1;
        }
    }
}

/// `fls64`: the position of the highest set bit, 1-based (0 for 0).
fn fls64(a: u64) -> u32 {
    64 - a.leading_zeros()
}

/// `cubic_root`: a table lookup, then one Newton-Raphson iteration (avg error ~0.195 %).
fn cubic_root(a: u64) -> u32 {
    // cbrt(x) MSB values for x MSB values in [0..63] (the source's table)
    const V: [u8; 64] = [
        0, 54, 54, 54, 118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156, 157, 161, 164,
        168, 170, 173, 176, 179, 181, 185, 187, 190, 192, 194, 197, 199, 200, 202, 204, 206, 209,
        211, 213, 215, 217, 219, 221, 222, 224, 225, 227, 229, 231, 232, 234, 236, 237, 239, 240,
        242, 244, 245, 246, 248, 250, 251, 252, 254,
    ];
    let b = fls64(a);
    if b < 7 {
        return (u32::from(V[a as usize]) + 35) >> 6;
    }
    let b = ((b * 84) >> 8) - 1;
    let shift = (a >> (b * 3)) as usize;
    let mut x = ((u32::from(V[shift]) + 10) << b) >> 6;
    let div = u64::from(x) * u64::from(x.wrapping_sub(1));
    x = (2u32.wrapping_mul(x)).wrapping_add((a / div.max(1)) as u32);
    x.wrapping_mul(341) >> 10
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cubic_root_is_close() {
        for a in [1u64, 8, 27, 1000, 1 << 30, 123_456_789_012] {
            let x = cubic_root(a) as f64;
            let exact = (a as f64).cbrt();
            assert!(
                (x - exact).abs() <= exact * 0.02 + 1.0,
                "{a}: {x} vs {exact}"
            );
        }
    }

    /// ns-2.35's defaults (beta 819, bic_scale 41): beta_scale 23, the reduction to 819/1024
    /// in whole packets, fast convergence below the last maximum.
    #[test]
    fn scales_and_ssthresh() {
        let mut b = Bictcp::new(0.8, 0.4, true);
        assert_eq!((b.beta, b.cube_rtt_scale, b.beta_scale), (819, 410, 23));
        assert_eq!(b.ssthresh(41), 32);
        assert_eq!(b.last_max_cwnd, 41);
        assert_eq!(b.ssthresh(5), 3); // 5 * 819 / 1024 = 3.99
        assert_eq!(b.last_max_cwnd, 5 * 1843 / 2048);
    }
}
