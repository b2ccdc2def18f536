//! ns-2.35's one-off agent and sink variables (the `ns2_agent` table,
//! [`super::Ns2AgentOptions`]). Defaults from `tcl/lib/ns-default.tcl`; rules from ns-2.35's
//! `tcp/tcp.cc`, `tcp/tcp-newreno.cc`, `tcp/tcp-sack1.cc` and `tcp/tcp-sink.cc` (read in a
//! public ns-2.35 mirror), applied by the sender (`tcp/sender/ns2_knobs.rs`), the receiver
//! (`tcp/receiver.rs`) and the RTT estimator (`tcp/rtt.rs`):
//!
//! * `ts_option_size_` (`TcpAgent::headersize`): with `timestamps_` each data packet carries
//!   `tcpip_base_hdr_size_ + ts_option_size_` bytes of headers; the opening packet
//!   (`output`, seqno 0 with `syn_`) and the sink's ACKs do not.
//! * `ts_resetRTO_` (`TcpAgent::newack`): with `timestamps_`, every new ACK's sample
//!   (`rtt_update(now - ts_echo)`) also ends the backoff (`t_backoff_ = 1`), unless ECN-echo
//!   holds a one-packet window (`ecn_backoff_`); without it only the ACK of the timed packet
//!   (`rtt_active_`, `rtt_seq_`) does.
//! * the sink's `ts_echo_rfc1323_` (`Acker::update_ts`): the timestamp to echo is taken from
//!   a packet whose seqno is at most `last_ack_sent_ + 1` when its timestamp is not older
//!   than the one held; with `ts_echo_rfc1323_`, from the packet `last_ack_sent_ + 1` (the
//!   one that advances the ACK) whatever its age.
//! * the sink's `RFC2581_immediate_ack_` (`DelAckSink::recv`): with no delayed ACK pending,
//!   an in-order packet below the highest seen (`seqno < Maxseen()`) is ACKed at once; off,
//!   its ACK is delayed like any in-order packet's. A packet that makes a run of held packets
//!   in order (the ACK jumps past it) is ACKed at once either way.
//! * `bugFix_ack_`, `bugFix_ts_` (`NewRenoTcpAgent::dupack_action`): with `bugFix_`, at the
//!   `numdupacks_`-th duplicate inside the window of the last fast retransmit or timeout
//!   (`highest_ack_ <= recover_`), after the ECN branch: fast retransmit anyway when
//!   `bugFix_ts_` and `tss[highest_ack_] == ts_echo_` (the last new ACK echoed the send time
//!   of the last transmission of the packet it acknowledged: it was for a retransmission), or
//!   when `bugFix_ack_` and `cwnd_ > 1` and `highest_ack_ - prev_highest_ack_ <=
//!   numdupacks_` (the last new ACK advanced by few packets).
//! * `old_ecn_` (`TcpAgent::recv_newack_helper`): a new ACK with ECN-echo opens the window
//!   (`opencwnd`) when `ecn_burst_`: the new ACK before it carried ECN-echo too.
//! * `T_SRTT_BITS`, `T_RTTVAR_BITS` (`rtt_init`, `rtt_update`, `rtt_backoff`): the
//!   estimator's fixed-point scales (`tcp/rtt.rs`).
//! * `numdupacksFrac_` (`TcpAgent::numdupacks`, read by `Sack1TcpAgent::recv` and
//!   `dupack_action`): when positive, the threshold is max(numdupacks_, int(cwnd_) /
//!   numdupacksFrac_) (integer division).
//! * `max_connects_` (`TcpAgent::output`): with `syn_`, each transmission of the opening
//!   packet counts (`syn_connects_`); past `max_connects_` (when positive) the packet is not
//!   sent, nothing more is (`curseq_ = 0`), and the timer is set 10000 s ahead.

use super::Ns2AgentOptions;

/// The resolved one-off variables (ns-2.35's defaults unless given).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ns2Knobs {
    pub ts_option_size: u32,
    pub ts_reset_rto: bool,
    pub ts_echo_rfc1323: bool,
    pub bug_fix_ack: bool,
    pub bug_fix_ts: bool,
    pub old_ecn: bool,
    pub srtt_bits: u32,
    pub rttvar_bits: u32,
    pub numdupacks_frac: i32,
    pub max_connects: i32,
}

impl Default for Ns2Knobs {
    /// ns-2.35 ns-default.tcl: `Agent/TCP set ts_option_size_ 10`, `ts_resetRTO_ false`,
    /// `bugFix_ack_ false`, `bugFix_ts_ false`, `old_ecn_ 0`, `T_SRTT_BITS 3`,
    /// `T_RTTVAR_BITS 2`, `numdupacksFrac_ -1`, `max_connects_ -1`; `Agent/TCPSink set
    /// ts_echo_rfc1323_ false` (`RFC2581_immediate_ack_` is `Ns2Agent`'s own field).
    fn default() -> Self {
        Ns2Knobs {
            ts_option_size: crate::tcp::config::NS2_TS_OPTION_BYTES,
            ts_reset_rto: false,
            ts_echo_rfc1323: false,
            bug_fix_ack: false,
            bug_fix_ts: false,
            old_ecn: false,
            srtt_bits: 3,
            rttvar_bits: 2,
            numdupacks_frac: -1,
            max_connects: -1,
        }
    }
}

impl Ns2Knobs {
    /// ns-2's defaults with the table's fields laid over them.
    pub fn resolve(o: &Ns2AgentOptions) -> Ns2Knobs {
        let d = Ns2Knobs::default();
        Ns2Knobs {
            ts_option_size: o.ts_option_size.unwrap_or(d.ts_option_size),
            ts_reset_rto: o.ts_reset_rto.unwrap_or(d.ts_reset_rto),
            ts_echo_rfc1323: o.ts_echo_rfc1323.unwrap_or(d.ts_echo_rfc1323),
            bug_fix_ack: o.bug_fix_ack.unwrap_or(d.bug_fix_ack),
            bug_fix_ts: o.bug_fix_ts.unwrap_or(d.bug_fix_ts),
            old_ecn: o.old_ecn.unwrap_or(d.old_ecn),
            srtt_bits: o.srtt_bits.unwrap_or(d.srtt_bits),
            rttvar_bits: o.rttvar_bits.unwrap_or(d.rttvar_bits),
            numdupacks_frac: o.numdupacks_frac.unwrap_or(d.numdupacks_frac),
            max_connects: o.max_connects.unwrap_or(d.max_connects),
        }
    }

    /// The variables for `bufferlab validate --json`.
    pub fn to_json(self) -> serde_json::Value {
        serde_json::json!({
            "ts_option_size": self.ts_option_size,
            "ts_reset_rto": self.ts_reset_rto,
            "ts_echo_rfc1323": self.ts_echo_rfc1323,
            "bug_fix_ack": self.bug_fix_ack,
            "bug_fix_ts": self.bug_fix_ts,
            "old_ecn": self.old_ecn,
            "srtt_bits": self.srtt_bits,
            "rttvar_bits": self.rttvar_bits,
            "numdupacks_frac": self.numdupacks_frac,
            "max_connects": self.max_connects,
        })
    }

    /// tcp.cc `TcpAgent::numdupacks(cwnd)`: `numdupacks_`, or `int(cwnd_) /
    /// numdupacksFrac_` (C integer division) when that is larger; `cwnd` in packets.
    pub fn numdupacks(&self, numdupacks: u32, cwnd: f64) -> u32 {
        if self.numdupacks_frac <= 0 {
            // -1 (the default): a negative fraction; 0 is refused by the translation
            return numdupacks;
        }
        let fraction = (cwnd as i64) / i64::from(self.numdupacks_frac);
        numdupacks.max(fraction.clamp(0, i64::from(u32::MAX)) as u32)
    }

    /// tcp.cc `output`: the opening packet's `syn_connects_`-th transmission aborts the
    /// connection (`max_connects_ > 0 && syn_connects_ > max_connects_`).
    pub fn connect_aborts(&self, syn_connects: u32) -> bool {
        self.max_connects > 0 && i64::from(syn_connects) > i64::from(self.max_connects)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numdupacks_grows_with_the_window_when_the_fraction_is_positive() {
        let d = Ns2Knobs::default();
        assert_eq!(d.numdupacks(3, 40.0), 3);
        let frac = Ns2Knobs {
            numdupacks_frac: 4,
            ..d
        };
        assert_eq!(frac.numdupacks(3, 15.9), 3); // int(15.9) / 4 = 3
        assert_eq!(frac.numdupacks(3, 16.0), 4);
        assert_eq!(frac.numdupacks(3, 33.5), 8);
    }

    #[test]
    fn max_connects_counts_transmissions_of_the_opening_packet() {
        let d = Ns2Knobs::default();
        assert!(!d.connect_aborts(100));
        let five = Ns2Knobs {
            max_connects: 5,
            ..d
        };
        assert!(!five.connect_aborts(5));
        assert!(five.connect_aborts(6));
    }
}
