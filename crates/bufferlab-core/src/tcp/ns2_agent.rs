//! ns-2.35 agent variables that change what the one-way agents do and that no RFC or other
//! stack has: the `tcp = { ns2_agent = { ... } }` table of a flow (ns-2's names without the
//! trailing underscore). Each default is ns-2.35's (`tcl/lib/ns-default.tcl`, `Agent/TCP`,
//! checked with `ns`: `Agent/TCP set delay_growth_` ...), and each rule is cited from
//! `tcp/tcp.cc` (ns-2.35, read through the search tool):
//!
//! * `delay_growth_` (`set_initial_window`): with `syn_` and `delay_growth_` cwnd_ starts at 1,
//!   so packet 0 (the 40-byte opening packet) goes out alone and `recv` sets cwnd_ to
//!   `initial_window()` when it is acknowledged (`last_ack_ == 0 && delay_growth_`). Without
//!   it cwnd_ starts at `initial_window()`: packet 0 and the first data packets leave together,
//!   packet 0 holding one place of the window (`send_much`: `t_seqno_ <= highest_ack_ + win`,
//!   `highest_ack_` -1), and the ACK of packet 0 opens the window as any new ACK (`opencwnd`).
//! * `bugfix_ss_` (`dupack_action`, `timeout`): a fast retransmit also when
//!   `highest_ack_ == 0` (the first data packet lost, `recover_` still 0); and a lost opening
//!   packet (`highest_ack_ == -1` at a timeout) makes `wnd_init_` 1. Off: neither.
//! * `precisionReduce_` (`slowdown`): a halving sets cwnd_ to `windowd() / 2` (a fraction of
//!   a packet kept); off, to `int(window() / 2)` (whole packets). ssthresh_ is `int(W / 2)`
//!   either way.
//! * `maxburst_` (`send_much`): at most this many packets per call (per ACK, per timeout);
//!   0, no limit.
//! * `rfc2988_` (`rtt_timeout`, `rtt_backoff`): off, the backed-off RTO is raised to `minrto_`
//!   (not `minrto_` backed off) and the backoff stops at 64 whatever the RTO.
//! * `oldCode_` (`tcp/tcp-sack1.cc` `dupack_action`, read by Sack1 only): fast recovery starts
//!   with `pipe_ = int(cwnd_) - numdupacks_` (cwnd_ before the halving) instead of the packets
//!   outstanding less `numdupacks_`.
//! * the sink's `SYN_immediate_ack_` (`tcp/tcp-sink.cc` `DelAckSink::recv`): a delayed-ACK
//!   sink ACKs the opening packet at once; off, it delays that ACK as any in-order packet's
//!   (`interval_`), unless its timer is already running.
//! * `timerfix_` (`newack`): on, the retransmission timer restarted by a new ACK (`newtimer`)
//!   is set after the ACK's RTT sample and the end of the backoff (`t_backoff_ = 1`); off, it
//!   is set first, with the RTO (and backoff) as they were before the ACK.
//! * `rttvar_exp_` (`rtt_update`): the RTO is the smoothed RTT plus 2^rttvar_exp_ mean
//!   deviations (see `tcp/rtt.rs`).
//!
//! The variables of loss recovery and window decrease (`bugFix_`, `lessCareful_`,
//! `exitFastRetrans_`, `noFastRetrans_`, NewReno's `newreno_changes1_`, `partial_window_deflation_`,
//! `exit_recovery_fix_`, `decrease_num_`, `increase_num_`, `maxcwnd_`, Sack1's `partial_ack_`) are in
//! [`recovery`], with their rules. `exitFastRetrans_ false`, `partial_ack_ true` and F-RTO
//! (`frto_enabled_`, `sfrto_enabled_`) are the sender's (`tcp/sender/ns2_exit_fast_retrans.rs`,
//! `ns2_sack1_partial_ack.rs`, `ns2_frto.rs`), the sink's `RFC2581_immediate_ack_` the
//! receiver's (`tcp/receiver.rs`). The one-off variables of timestamps, ECN,
//! `numdupacksFrac_` and `max_connects_` are in [`knobs`]. Congestion window validation and
//! the window's use (`QOption_`, `EnblRTTCtr_`, `control_increase_`) and
//! `aggressive_maxburst_` are in [`cwv`].

mod cwv;
mod knobs;
mod recovery;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The `ns2_agent` table of a flow's `tcp` settings: ns-2.35 agent variables (every field
/// optional; ns-2's default when left out). Only with ns-2's rules (`preset = "ns2"` or
/// `ns2_rules = true`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ns2AgentOptions {
    /// ns-2 `delay_growth_` (default true, ns-default.tcl; false for `Agent/TCP/Linux`): the
    /// opening packet goes out alone and the initial window follows its ACK. false: the
    /// opening packet and the first data packets leave together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_growth: Option<bool>,
    /// ns-2 `bugfix_ss_` (default true, ns-default.tcl `bugfix_ss_ 1`): fast retransmit when
    /// the first data packet is lost, and an initial window of 1 after a lost opening packet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bugfix_ss: Option<bool>,
    /// ns-2 `precisionReduce_` (default true, ns-default.tcl): a halved window keeps its
    /// fraction of a packet. false: it is rounded down to whole packets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision_reduce: Option<bool>,
    /// ns-2 `maxburst_` (default 0, ns-default.tcl: no limit): the most packets one ACK (or a
    /// timeout) may send.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maxburst: Option<u32>,
    /// ns-2 `rfc2988_` (default true, ns-default.tcl): RFC 2988's timer (the minimum RTO before
    /// the backoff). false: ns-2's older timer (the minimum after it, the backoff at most 64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rfc2988: Option<bool>,
    /// ns-2 `oldCode_` (default false, ns-default.tcl): Sack1's fast recovery starts with a
    /// pipe of int(cwnd) - numdupacks instead of the packets outstanding - numdupacks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_code: Option<bool>,
    /// ns-2 `Agent/TCPSink` `SYN_immediate_ack_` (default true, ns-default.tcl): a
    /// delayed-ACK sink answers the opening packet at once. false: after `delack_timeout`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub syn_immediate_ack: Option<bool>,
    /// ns-2 `bugFix_` (default true, ns-default.tcl): no second fast retransmit for duplicate
    /// ACKs of packets sent before the last one (`recover_`). false: one at every
    /// `numdupacks_`-th duplicate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bug_fix: Option<bool>,
    /// ns-2 `lessCareful_` (default false, ns-default.tcl; read by Agent/TCP/Newreno): with
    /// `bugFix_`, a fast retransmit also when the duplicates acknowledge exactly `recover_`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub less_careful: Option<bool>,
    /// ns-2 `exitFastRetrans_` (default true, ns-default.tcl; Reno and Newreno): false, the
    /// duplicates past `numdupacks_` inflate the window even when no fast retransmit
    /// started, and the `numdupacks_`-th sets the inflation to `numdupacks_`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_fast_retrans: Option<bool>,
    /// ns-2 `noFastRetrans_` (default false, ns-default.tcl; read by Agent/TCP only): true,
    /// the `numdupacks_`-th duplicate ACK starts no fast retransmit; the timeout recovers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_fast_retrans: Option<bool>,
    /// ns-2 `Agent/TCP/Newreno` `newreno_changes1_` (default 1, ns-default.tcl): only the
    /// first partial ACK of a recovery restarts the retransmission timer. 0: every one does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newreno_changes1: Option<bool>,
    /// ns-2 `Agent/TCP/Newreno` `partial_window_deflation_` (default 1, ns-default.tcl): a
    /// partial ACK deflates the window by what it acknowledges. 0: the inflation is dropped
    /// (`dupwnd_ = 0`), cwnd_ is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial_window_deflation: Option<bool>,
    /// ns-2 `Agent/TCP/Newreno` `exit_recovery_fix_` (default 0, ns-default.tcl): 1, the
    /// full ACK sets cwnd_ to min(ssthresh_, packets outstanding + 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_recovery_fix: Option<bool>,
    /// ns-2 `decrease_num_` (default 0.5, ns-default.tcl): the multiplicative decrease after
    /// the first one (which halves).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decrease_num: Option<f64>,
    /// ns-2 `maxcwnd_` (default 0, ns-default.tcl: no cap): opencwnd() caps cwnd_ at it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maxcwnd: Option<u32>,
    /// ns-2 `increase_num_` (default 1.0, ns-default.tcl): congestion avoidance adds
    /// increase_num_ / cwnd_ packets per new ACK.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub increase_num: Option<f64>,
    /// ns-2 `Agent/TCP/Sack1` `partial_ack_` (default false, ns-default.tcl): a partial ACK
    /// in fast recovery sends two packets (the next unacknowledged ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial_ack: Option<bool>,
    /// ns-2 `timerfix_` (default true, ns-default.tcl): a new ACK restarts the timer after
    /// its RTT sample. false: before it, with the RTO the ACK found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timerfix: Option<bool>,
    /// ns-2 `frto_enabled_` (default 0, ns-default.tcl): F-RTO (RFC 4138) after a timeout:
    /// two new packets after its first new ACK, and a second new ACK reverts the window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frto_enabled: Option<bool>,
    /// ns-2 `sfrto_enabled_` (default 0, ns-default.tcl): Sack1's SACK-based F-RTO (a
    /// duplicate ACK whose SACK blocks cover only data sent before the timeout).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sfrto_enabled: Option<bool>,
    /// ns-2 `Agent/TCPSink` `RFC2581_immediate_ack_` (default true, ns-default.tcl): a
    /// delayed-ACK sink answers a packet that fills a gap at once. false: it delays that
    /// ACK as an in-order packet's unless the packet releases data held out of order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rfc2581_immediate_ack: Option<bool>,
    /// ns-2 `rttvar_exp_` (default 2, ns-default.tcl): the RTO is the smoothed RTT plus
    /// 2^rttvar_exp_ mean deviations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rttvar_exp: Option<u32>,
    /// ns-2 `ts_option_size_` (default 10, ns-default.tcl): bytes the timestamp option adds
    /// to each data packet with `timestamps_` (tcp.cc `headersize`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts_option_size: Option<u32>,
    /// ns-2 `ts_resetRTO_` (default false, ns-default.tcl): with `timestamps_`, every new
    /// ACK's RTT sample ends the timer's backoff (not only the timed packet's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts_reset_rto: Option<bool>,
    /// ns-2 `Agent/TCPSink` `ts_echo_rfc1323_` (default false, ns-default.tcl): the sink
    /// echoes the timestamp of the packet that advances its ACK, even an older one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts_echo_rfc1323: Option<bool>,
    /// ns-2 `bugFix_ack_` (default false, ns-default.tcl; read by Agent/TCP/Newreno): with
    /// `bugFix_`, a fast retransmit also when the last new ACK advanced by at most
    /// `numdupacks_` packets and cwnd_ is above one packet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bug_fix_ack: Option<bool>,
    /// ns-2 `bugFix_ts_` (default false, ns-default.tcl; read by Agent/TCP/Newreno): with
    /// `bugFix_`, a fast retransmit also when the last new ACK echoed the send time of the
    /// last transmission of the packet it acknowledged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bug_fix_ts: Option<bool>,
    /// ns-2 `old_ecn_` (default 0, ns-default.tcl): an ACK with ECN-echo opens the window
    /// when the new ACK before it carried ECN-echo too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_ecn: Option<bool>,
    /// ns-2 `T_SRTT_BITS` (default 3, ns-default.tcl): the fixed-point scale of the smoothed
    /// RTT (gain 1/2^T_SRTT_BITS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srtt_bits: Option<u32>,
    /// ns-2 `T_RTTVAR_BITS` (default 2, ns-default.tcl): the fixed-point scale of the mean
    /// deviation (gain 1/2^T_RTTVAR_BITS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rttvar_bits: Option<u32>,
    /// ns-2 `numdupacksFrac_` (default -1, ns-default.tcl; read by Agent/TCP/Sack1): when
    /// positive, the duplicate-ACK threshold is max(numdupacks_, int(cwnd_) / it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numdupacks_frac: Option<i32>,
    /// ns-2 `max_connects_` (default -1, ns-default.tcl: no limit): when positive, the
    /// opening packet is sent at most this many times; the next try aborts the connection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_connects: Option<i32>,
    /// ns-2 `QOption_` (default 0, ns-default.tcl): RFC 2861's congestion window validation
    /// after each packet sent (the window decays after an idle or application-limited RTO).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qoption: Option<bool>,
    /// ns-2 `EnblRTTCtr_` (default 0, ns-default.tcl): with `QOption_`, idle time is counted
    /// in round trips (`rtt_counting`) instead of RTOs of the tick clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_counter: Option<bool>,
    /// ns-2 `control_increase_` (default 0, ns-default.tcl): a new ACK opens the window only
    /// when the window it acknowledges was used in full.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_increase: Option<bool>,
    /// ns-2 `aggressive_maxburst_` (default 1, ns-default.tcl): an ACK below the cumulative
    /// ACK may send data too. false: only valid ACKs do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggressive_maxburst: Option<bool>,
    /// ns-2 `Agent/TCP/Linux` (`tcp/linux/tcp_linux.cc`, with `scoreboard1.cc`): its own ACK
    /// processing, FACK loss marking, rate halving and timeout (`tcp/sender/ns2_linux.rs`),
    /// with the Linux module `select_ca` installed: `"none"` (ns-2's own window rules),
    /// `"reno"` or `"cubic"`. Left out (default): the agent named by `cc` and `sack`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linux: Option<LinuxCa>,
}

/// What `$tcp select_ca` installed in an `Agent/TCP/Linux` (tcp_linux.cc
/// `install_congestion_control`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LinuxCa {
    /// No module: ns-2's `opencwnd()` and `slowdown()` (`icsk_ca_ops` NULL).
    #[serde(rename = "none")]
    Ns2,
    /// `tcp_reno` (`tcp/linux/src/tcp_cong.c`).
    Reno,
    /// `tcp_cubic.c` (the `cubic_*` fields of the `tcp` table give its parameters).
    Cubic,
}

/// The resolved `ns2_agent` variables (ns-2.35's defaults unless given).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ns2Agent {
    pub delay_growth: bool,
    pub bugfix_ss: bool,
    pub precision_reduce: bool,
    pub maxburst: u32,
    pub rfc2988: bool,
    pub old_code: bool,
    pub syn_immediate_ack: bool,
    // loss recovery and window decrease (`recovery.rs`)
    pub bug_fix: bool,
    pub less_careful: bool,
    pub exit_fast_retrans: bool,
    pub no_fast_retrans: bool,
    pub newreno_changes1: bool,
    pub partial_window_deflation: bool,
    pub exit_recovery_fix: bool,
    pub decrease_num: f64,
    pub increase_num: f64,
    pub maxcwnd: u32,
    pub partial_ack: bool,
    pub timerfix: bool,
    pub rttvar_exp: u32,
    // F-RTO (`tcp/sender/ns2_frto.rs`) and the sink's RFC2581_immediate_ack_
    pub frto_enabled: bool,
    pub sfrto_enabled: bool,
    pub rfc2581_immediate_ack: bool,
    /// The one-off variables (`knobs.rs`).
    pub knobs: knobs::Ns2Knobs,
    // window validation and the window's use (`cwv.rs`)
    pub qoption: bool,
    pub rtt_counter: bool,
    pub control_increase: bool,
    pub aggressive_maxburst: bool,
    /// `Agent/TCP/Linux` and its module (`tcp/sender/ns2_linux.rs`), if the agent is one.
    pub linux: Option<LinuxCa>,
}

impl Default for Ns2Agent {
    /// ns-2.35 ns-default.tcl: `Agent/TCP set delay_growth_ true`, `bugfix_ss_ 1`,
    /// `precisionReduce_ true`, `maxburst_ 0`, `rfc2988_ true`; `Agent/TCPSink set SYN_immediate_ack_ true`;
    /// `bugFix_ true`, `lessCareful_ false`, `exitFastRetrans_ true`, `noFastRetrans_ false`,
    /// `decrease_num_ 0.5`,
    /// `increase_num_ 1.0`, `maxcwnd_ 0`, `partial_ack_ false`; `Agent/TCP/Newreno set newreno_changes1_ 1`,
    /// `partial_window_deflation_ 1`, `exit_recovery_fix_ 0`;
    /// `timerfix_ true`, `rttvar_exp_ 2`; `QOption_ 0`, `EnblRTTCtr_ 0`, `control_increase_ 0`,
    /// `aggressive_maxburst_ 1`.
    fn default() -> Self {
        Ns2Agent {
            delay_growth: true,
            bugfix_ss: true,
            precision_reduce: true,
            maxburst: 0,
            rfc2988: true,
            old_code: false,
            syn_immediate_ack: true,
            bug_fix: true,
            less_careful: false,
            exit_fast_retrans: true,
            no_fast_retrans: false,
            newreno_changes1: true,
            partial_window_deflation: true,
            exit_recovery_fix: false,
            decrease_num: 0.5,
            increase_num: 1.0,
            maxcwnd: 0,
            partial_ack: false,
            timerfix: true,
            rttvar_exp: 2,
            frto_enabled: false,
            sfrto_enabled: false,
            rfc2581_immediate_ack: true,
            knobs: knobs::Ns2Knobs::default(),
            qoption: false,
            rtt_counter: false,
            control_increase: false,
            aggressive_maxburst: true,
            linux: None,
        }
    }
}

impl Ns2Agent {
    /// ns-2's defaults with the table's fields laid over them.
    pub fn resolve(o: Option<&Ns2AgentOptions>) -> Ns2Agent {
        let mut a = Ns2Agent::default();
        if let Some(o) = o {
            a.delay_growth = o.delay_growth.unwrap_or(a.delay_growth);
            a.bugfix_ss = o.bugfix_ss.unwrap_or(a.bugfix_ss);
            a.precision_reduce = o.precision_reduce.unwrap_or(a.precision_reduce);
            a.maxburst = o.maxburst.unwrap_or(a.maxburst);
            a.rfc2988 = o.rfc2988.unwrap_or(a.rfc2988);
            a.old_code = o.old_code.unwrap_or(a.old_code);
            a.syn_immediate_ack = o.syn_immediate_ack.unwrap_or(a.syn_immediate_ack);
            a.resolve_recovery(o);
            a.timerfix = o.timerfix.unwrap_or(a.timerfix);
            a.rttvar_exp = o.rttvar_exp.unwrap_or(a.rttvar_exp);
            a.frto_enabled = o.frto_enabled.unwrap_or(a.frto_enabled);
            a.sfrto_enabled = o.sfrto_enabled.unwrap_or(a.sfrto_enabled);
            a.rfc2581_immediate_ack = o.rfc2581_immediate_ack.unwrap_or(a.rfc2581_immediate_ack);
            a.knobs = knobs::Ns2Knobs::resolve(o);
            a.resolve_cwv(o);
            a.linux = o.linux;
        }
        a
    }

    /// The variables for `bufferlab validate --json`; None at ns-2's defaults (so that the
    /// settings of other flows read as before).
    pub fn to_json(&self) -> Option<serde_json::Value> {
        (*self != Ns2Agent::default()).then(|| {
            let mut j = serde_json::json!({
                "delay_growth": self.delay_growth,
                "bugfix_ss": self.bugfix_ss,
                "precision_reduce": self.precision_reduce,
                "maxburst": self.maxburst,
                "rfc2988": self.rfc2988,
                "old_code": self.old_code,
                "syn_immediate_ack": self.syn_immediate_ack,
                "bug_fix": self.bug_fix,
                "less_careful": self.less_careful,
                "exit_fast_retrans": self.exit_fast_retrans,
                "no_fast_retrans": self.no_fast_retrans,
                "newreno_changes1": self.newreno_changes1,
                "partial_window_deflation": self.partial_window_deflation,
                "exit_recovery_fix": self.exit_recovery_fix,
                "decrease_num": self.decrease_num,
                "increase_num": self.increase_num,
                "maxcwnd": self.maxcwnd,
                "partial_ack": self.partial_ack,
                "timerfix": self.timerfix,
                "rttvar_exp": self.rttvar_exp,
                "frto_enabled": self.frto_enabled,
                "sfrto_enabled": self.sfrto_enabled,
                "rfc2581_immediate_ack": self.rfc2581_immediate_ack,
                "knobs": self.knobs.to_json(),
                "qoption": self.qoption,
                "rtt_counter": self.rtt_counter,
                "control_increase": self.control_increase,
                "aggressive_maxburst": self.aggressive_maxburst,
            });
            if let Some(ca) = self.linux {
                j["linux"] = serde_json::json!(ca); // only then: other outputs unchanged
            }
            j
        })
    }

    /// cwnd_ after a halving of the window W (packets), ns-2 tcp.cc `slowdown`
    /// `CLOSE_CWND_HALF`: `windowd() / 2` with `precisionReduce_`, else `int(window() / 2)`
    /// (window() is `int(W)`).
    pub fn halved(&self, w: f64) -> f64 {
        if self.precision_reduce {
            w / 2.0
        } else {
            (w.floor() / 2.0).floor()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halving_keeps_or_drops_the_fraction() {
        let precise = Ns2Agent::default();
        let coarse = Ns2Agent {
            precision_reduce: false,
            ..precise
        };
        assert_eq!(precise.halved(15.0), 7.5);
        assert_eq!(coarse.halved(15.0), 7.0);
        // window() is int(cwnd_): 15.9 packets halve as 15
        assert_eq!(coarse.halved(15.9), 7.0);
        assert_eq!(precise.halved(15.9), 7.95);
        assert!(precise.to_json().is_none());
        assert!(coarse.to_json().is_some());
    }
}
