//! CUBIC, RFC 9438 "CUBIC for Fast and Long-Distance Networks" (Linux `tcp_cubic.c`, ns-3
//! `TcpCubic`). Windows are handled in segments inside, bytes outside.
//!
//! * Section 4.2: W_cubic(t) = C*(t-K)^3 + W_max, K = cbrt((W_max - cwnd_epoch)/C), t the
//!   time since the congestion-avoidance epoch began; the target is W_cubic(t + RTT), clamped
//!   to [cwnd, 1.5*cwnd] (section 4.4), and cwnd grows by (target - cwnd)/cwnd per segment acked.
//! * Section 4.3: Reno-friendly region: W_est += alpha_cubic * acked/cwnd with
//!   alpha_cubic = 3(1-beta)/(1+beta) (1 once W_est >= W_max); if W_cubic(t) < W_est, cwnd = W_est.
//! * Section 4.6: on congestion ssthresh = cwnd * beta_cubic (0.7), at least 2 segments.
//! * Section 4.7: fast convergence: if cwnd < the previous W_max, W_max = cwnd*(1+beta)/2.
//! * Section 4.8: timeout: ssthresh as in 4.6, cwnd = 1 segment, the epoch restarts.
//! * Slow start is RFC 5681's; HyStart++ (RFC 9406) is not modelled.
//! * RTT is the smallest fine-grained RTT seen (Linux `delay_min`).

use super::reno::aimd_increase;
use super::{Ack, CongestionControl, Recovery, Window};
use crate::units::SimTime;

pub struct Cubic {
    c: f64,
    beta: f64,
    fast_convergence: bool,
    /// Segments.
    pub w_max: f64,
    pub k: f64,
    epoch_start: Option<SimTime>,
    w_est: f64,
    min_rtt: f64,
}

impl Cubic {
    pub fn new(c: f64, beta: f64, fast_convergence: bool) -> Self {
        Self {
            c,
            beta,
            fast_convergence,
            w_max: 0.0,
            k: 0.0,
            epoch_start: None,
            w_est: 0.0,
            min_rtt: f64::INFINITY,
        }
    }

    /// Section 4.2, equation 1 (segments, t in seconds since the epoch began).
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.c * (t - self.k).powi(3) + self.w_max
    }

    fn reduce(&mut self, w: &Window) -> f64 {
        let cwnd = w.cwnd / w.mss;
        // Section 4.7 fast convergence.
        self.w_max = if self.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.beta) / 2.0
        } else {
            cwnd
        };
        self.epoch_start = None;
        (cwnd * self.beta).max(2.0) * w.mss
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }
    fn on_ack(&mut self, w: &mut Window, a: &Ack) {
        if let Some(r) = a.rtt {
            self.min_rtt = self.min_rtt.min(r.as_secs_f64());
        }
        if w.in_slow_start() {
            aimd_increase(w, a.acked);
            return;
        }
        let mss = w.mss;
        let cwnd = w.cwnd / mss;
        let start = match self.epoch_start {
            Some(s) => s,
            None => {
                // Section 4.2: a new epoch starts at the first ACK in congestion avoidance.
                self.epoch_start = Some(a.now);
                if cwnd < self.w_max {
                    self.k = ((self.w_max - cwnd) / self.c).cbrt();
                } else {
                    self.k = 0.0;
                    self.w_max = cwnd;
                }
                self.w_est = cwnd;
                a.now
            }
        };
        let t = a.now.saturating_sub(start).as_secs_f64();
        let rtt = if self.min_rtt.is_finite() {
            self.min_rtt
        } else {
            0.0
        };
        let acked = a.acked as f64 / mss;
        // Section 4.3: Reno-friendly estimate.
        let alpha = if self.w_est >= self.w_max {
            1.0
        } else {
            3.0 * (1.0 - self.beta) / (1.0 + self.beta)
        };
        self.w_est += alpha * acked / cwnd;
        let new = if self.w_cubic(t) < self.w_est {
            self.w_est
        } else {
            // Section 4.4: concave and convex regions.
            let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
            cwnd + (target - cwnd) / cwnd * acked
        };
        w.cwnd = new.max(cwnd) * mss;
    }
    fn ssthresh_on_loss(&mut self, w: &Window, _flight: u64, _now: SimTime) -> f64 {
        self.reduce(w)
    }
    fn on_timeout(&mut self, w: &mut Window, _flight: u64, _now: SimTime) {
        w.ssthresh = self.reduce(w);
        w.cwnd = w.mss;
    }
    fn report(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({ "w_max_segments": self.w_max, "k_s": self.k }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- CUBIC follows W(t) = C(t-K)^3 + Wmax ----
    #[test]
    fn window_follows_the_cubic_curve() {
        let mss = 1000.0;
        let mut cc = Cubic::new(0.4, 0.7, true);
        let mut w = Window {
            cwnd: 100.0 * mss,
            ssthresh: f64::INFINITY,
            mss,
        };
        w.ssthresh = cc.ssthresh_on_loss(&w, 100_000, SimTime::ZERO);
        w.cwnd = w.ssthresh;
        assert!((w.cwnd / mss - 70.0).abs() < 1e-9, "beta 0.7");
        let rtt = 0.1;
        let mut now = 1.0f64;
        let t0 = now;
        let mut checked = 0;
        let mut next_check = 0.5;
        while now - t0 < 6.0 {
            // one RTT of ACKs, one per segment
            let n = (w.cwnd / mss).floor() as usize;
            for _ in 0..n {
                now += rtt / n as f64;
                cc.on_ack(
                    &mut w,
                    &Ack {
                        now: SimTime::from_secs_f64(now),
                        acked: mss as u64,
                        flight_before: 0,
                        snd_una: 0,
                        snd_nxt: 0,
                        rtt: Some(SimTime::from_secs_f64(rtt)),
                    },
                );
            }
            let t = now - t0;
            if t >= next_check {
                let expect = cc.w_cubic(t);
                let got = w.cwnd / mss;
                // cwnd aims at W_cubic(t + RTT) one RTT ahead: allow the RTT lag and rounding.
                let ahead = cc.w_cubic(t + rtt);
                assert!(
                    got >= expect.min(ahead) - 2.0 && got <= expect.max(ahead) + 2.0,
                    "t={t:.2}: cwnd {got:.2} vs W_cubic {expect:.2}..{ahead:.2}"
                );
                checked += 1;
                next_check += 0.5;
            }
        }
        assert!(checked >= 10);
        assert!(
            (cc.k - (30.0f64 / 0.4).cbrt()).abs() < 1e-9,
            "K = cbrt(Wmax(1-b)/C)"
        );
        // After K the curve is convex and the window passes W_max.
        assert!(w.cwnd / mss > 100.0);
    }
}
