//! ns-2.35 agent variables of congestion window validation (RFC 2861) and of the window's
//! use, and `aggressive_maxburst_` (the `ns2_agent` table, [`super::Ns2AgentOptions`]).
//! Defaults from `tcl/lib/ns-default.tcl` (`Agent/TCP set QOption_ 0`, `EnblRTTCtr_ 0`,
//! `control_increase_ 0`, `aggressive_maxburst_ 1`); rules from ns-2.35's `tcp/tcp.cc`
//! (read in a public ns-2.35 mirror), applied by the sender (`tcp/sender/ns2_cwv.rs`):
//!
//! * `QOption_` (`TcpAgent::process_qoption_after_send`, called by `send_much` and
//!   `send_one` after each packet's `output`): with the tick clock's `tcp_now` and
//!   `rto = int(t_rtxcur_ / tcp_tick_)`, a send `rto` ticks or more after the previous one
//!   (`T_last`) is after an idle period: `slowdown(THREE_QUARTER_SSTHRESH)` (ssthresh_ at
//!   least 3/4 of cwnd_) and one `slowdown(CWND_HALF_WITH_MIN)` (cwnd_ = `decrease_num_` x
//!   the window) per whole `rto` idle. A send that fills the window starts a new period of
//!   use (`T_prev`, `W_used = 0`); the send of the application's last packet records the
//!   packets outstanding in `W_used`, and after `rto` ticks without a full window
//!   `slowdown(CLOSE_CWND_HALF_WAY)`: cwnd_ = W_used + `decrease_num_` x (window - W_used).
//!   `recv_newack_helper` cancels the timer once all the application's data is acknowledged.
//! * `EnblRTTCtr_` (`TcpAgent::rtt_counting`, `process_qoption_after_ack`): the same decay
//!   with the idle time counted in round trips, `2 x (t_srtt_ >> T_SRTT_BITS)` ticks each
//!   scaled by `RTT_goodcount` (the round trips counted in the last such interval, from the
//!   ACKs of timed packets, `W_timed`), less the application-limited decays (`Backoffs`)
//!   since; the application-limited decay after two counted round trips.
//! * `control_increase_` (`recv_newack_helper`, `network_limited`): a new ACK opens the
//!   window (`opencwnd`) only if `t_seqno_ > prev_highest_ack_ + window()`, i.e. the
//!   window that the previous ACK left was sent in full.
//! * `aggressive_maxburst_` (`TcpAgent::recv`, `RenoTcpAgent::recv`, `NewRenoTcpAgent::recv`,
//!   `Sack1TcpAgent::recv`): 0, an ACK below `last_ack_` (an old, reordered ACK: not
//!   `valid_ack`) sends nothing (`send_much` is not called).
//!
//! Every one of tcp.cc's `slowdown` calls ends with ssthresh_ at least 2, cwnd_ at least 1,
//! and `first_decrease_ = 0`.

use super::{Ns2Agent, Ns2AgentOptions};
use crate::tcp::cc::Window;

impl Ns2Agent {
    /// Lays the table's window validation fields over ns-2's defaults.
    pub(super) fn resolve_cwv(&mut self, o: &Ns2AgentOptions) {
        self.qoption = o.qoption.unwrap_or(self.qoption);
        self.rtt_counter = o.rtt_counter.unwrap_or(self.rtt_counter);
        self.control_increase = o.control_increase.unwrap_or(self.control_increase);
        self.aggressive_maxburst = o.aggressive_maxburst.unwrap_or(self.aggressive_maxburst);
    }

    /// tcp.cc `slowdown`'s window W: `windowd()` = min(cwnd_, window_) with
    /// `precisionReduce_`, else `window()` (its whole packets). `wnd`: window_ in packets.
    fn idle_win(&self, cwnd: f64, wnd: f64) -> f64 {
        let w = cwnd.min(wnd);
        if self.precision_reduce {
            w
        } else {
            w.floor()
        }
    }

    /// tcp.cc `slowdown(THREE_QUARTER_SSTHRESH | TCP_IDLE)`: ssthresh_ = int(3 cwnd_ / 4) if
    /// below it.
    pub fn three_quarter_ssthresh(&self, w: &mut Window) {
        let (cwnd, mut ssthresh) = (w.cwnd / w.mss, (w.ssthresh / w.mss).floor());
        if ssthresh < 3.0 * cwnd / 4.0 {
            ssthresh = (3.0 * cwnd / 4.0).floor();
        }
        w.ssthresh = ssthresh.max(2.0) * w.mss;
        w.cwnd = cwnd.max(1.0) * w.mss;
    }

    /// tcp.cc `slowdown(CWND_HALF_WITH_MIN | TCP_IDLE)` (`wnd`: window_ in packets):
    /// cwnd_ = `decrease_num_` x W (W
    /// rounded down first without `precisionReduce_`, the product too), at least 1.
    pub fn half_with_min(&self, w: &mut Window, wnd: f64) {
        let win = self.idle_win(w.cwnd / w.mss, wnd);
        let mut cwnd = self.decrease_num * win;
        if !self.precision_reduce {
            cwnd = cwnd.floor();
        }
        w.cwnd = cwnd.max(1.0) * w.mss;
        w.ssthresh = (w.ssthresh / w.mss).floor().max(2.0) * w.mss;
    }

    /// tcp.cc `slowdown(CLOSE_CWND_HALF_WAY | TCP_IDLE)`: cwnd_ = W_used + `decrease_num_` x
    /// (W - W_used), at least 1 (`w_used` in packets).
    pub fn half_way(&self, w: &mut Window, wnd: f64, w_used: i64) {
        let win = self.idle_win(w.cwnd / w.mss, wnd);
        let used = w_used as f64;
        let cwnd = used + self.decrease_num * (win - used);
        w.cwnd = cwnd.max(1.0) * w.mss;
        w.ssthresh = (w.ssthresh / w.mss).floor().max(2.0) * w.mss;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn win(cwnd: f64, ssthresh: f64) -> Window {
        Window {
            cwnd: cwnd * 100.0,
            ssthresh: ssthresh * 100.0,
            mss: 100.0,
        }
    }

    #[test]
    fn idle_decay_follows_slowdown() {
        let a = Ns2Agent::default();
        let mut w = win(10.0, 4.0);
        a.three_quarter_ssthresh(&mut w);
        assert_eq!(w.ssthresh, 700.0); // int(3 x 10 / 4)
        a.half_with_min(&mut w, 25.0);
        assert_eq!(w.cwnd, 500.0);
        a.half_with_min(&mut w, 25.0);
        // windowd() keeps the fraction
        assert_eq!(w.cwnd, 250.0);

        // window_ caps the window that is halved
        let mut w = win(30.0, 40.0);
        a.three_quarter_ssthresh(&mut w);
        assert_eq!(w.ssthresh, 4000.0); // already above 3/4 of cwnd_
        a.half_with_min(&mut w, 25.0);
        assert_eq!(w.cwnd, 1250.0);
        // at least one packet
        let mut w = win(1.5, 2.0);
        a.half_with_min(&mut w, 25.0);
        assert_eq!(w.cwnd, 100.0);
        let coarse = Ns2Agent {
            precision_reduce: false,
            ..a
        };
        let mut w = win(7.9, 2.0);
        coarse.half_with_min(&mut w, 25.0);
        assert_eq!(w.cwnd, 300.0); // int(0.5 x int(7.9))
    }

    #[test]
    fn application_limited_decay_goes_half_way_to_the_window_used() {
        let a = Ns2Agent::default();
        let mut w = win(20.0, 30.0);
        a.half_way(&mut w, 100.0, 4);
        assert_eq!(w.cwnd, 1200.0); // 4 + 0.5 x (20 - 4)
        let mut w = win(20.0, 30.0);
        a.half_way(&mut w, 10.0, 4);
        assert_eq!(w.cwnd, 700.0); // window_ 10
    }
}
