//! The sender's side of ns-2.35's one-off agent variables (the rules and their sources are in
//! `tcp/ns2_agent/knobs.rs`): timestamps as ns-2's agent takes them (`ts_resetRTO_`), NewReno's
//! `bugFix_ack_` and `bugFix_ts_` heuristics, `old_ecn_`, `numdupacksFrac_` (Sack1) and
//! `max_connects_`.

use std::collections::BTreeMap;

use super::TcpSender;
use crate::packet::{tcp_flags as F, TcpHeader};
use crate::tcp::cc::Recovery;
use crate::units::SimTime;

/// tcp.cc `output`: an aborted connection's timer is set this far ahead
/// (`rtx_timer_.resched(10000)`).
const ABORTED_CONNECT_TIMER: SimTime = SimTime::from_secs(10_000);

/// The sender's state for these variables.
#[derive(Debug, Clone, Default)]
pub(super) struct KnobState {
    /// ns-2 `prev_highest_ack_` (tcp.cc `newack`): where the cumulative ACK stood before the
    /// last new ACK, in bytes (signed: packet -1 before the opening packet's ACK).
    prev_una: i64,
    /// ns-2 `ts_echo_` (tcp.cc `newack`, with `ts_option_`): the timestamp the last new ACK
    /// echoed.
    ts_echo: SimTime,
    /// ns-2 `tss[]` (tcp.cc `output`, with `bugFix_ts_`): the send time of the last
    /// transmission of each packet, by the packet's end.
    tss: BTreeMap<u64, SimTime>,
    /// ns-2 `ecn_burst_` (tcp.cc `recv_newack_helper`): the last new ACK carried ECN-echo.
    ecn_burst: bool,
    /// ns-2 `syn_connects_` (tcp.cc `output`): transmissions of the opening packet.
    syn_connects: u32,
}

impl KnobState {
    /// Packet -1's end: the `prev_highest_ack_` the opening packet's ACK leaves.
    pub(super) fn new(packet0_end: u64, mss: u32) -> Self {
        KnobState {
            prev_una: packet0_end as i64 - i64::from(mss),
            ..KnobState::default()
        }
    }
}

impl TcpSender {
    /// ns-2's agent takes timestamps its own way (`Rules::timestamps_as_ns2_agent`).
    pub(super) fn ns2_timestamps(&self) -> bool {
        self.p.timestamps && self.rules.timestamps_as_ns2_agent && self.rtt.is_ns2()
    }

    /// tcp.cc `newack` with `ts_option_`: `ts_echo_` and `rtt_update(now - ts_echo)` for every
    /// new ACK; the backoff ends (`t_backoff_ = 1`) with `ts_resetRTO_`, and for the ACK of
    /// the timed packet (`rtt_active_ && seqno >= rtt_seq_`, which takes no sample of its
    /// own then), unless ECN-echo holds a one-packet window (`ecn_backoff_`). `timed`: the
    /// ACK covers the timed packet.
    pub(super) fn ns2_ts_new_ack(&mut self, h: &TcpHeader, now: SimTime, timed: bool) {
        let ece = self.p.ecn && h.flags & F::ECE != 0;
        self.knobs.ts_echo = h.ts_echo;
        self.rtt.ns2_ts_sample(now.saturating_sub(h.ts_echo));
        let ends = !self.ecn_backoff || !ece;
        if ends && (self.p.ns2.knobs.ts_reset_rto || timed) {
            self.rtt.reset_backoff();
            self.ecn_backoff = false;
        }
        if timed {
            self.timed = None;
        }
    }

    /// Before a new ACK moves `snd_una`: `prev_highest_ack_ = highest_ack_` (tcp.cc `newack`),
    /// and the send times below the new ACK are no longer needed.
    pub(super) fn ns2_note_new_ack(&mut self, ack: u64) {
        self.knobs.prev_una = self.snd_una as i64;
        if !self.knobs.tss.is_empty() {
            self.knobs.tss = self.knobs.tss.split_off(&ack);
        }
    }

    /// tcp.cc `output` with `bugFix_ts_`: `tss[seqno] = now` for each transmission.
    pub(super) fn ns2_note_send(&mut self, end: u64, now: SimTime) {
        if self.p.ns2.knobs.bug_fix_ts {
            self.knobs.tss.insert(end, now);
        }
    }

    /// tcp-newreno.cc `dupack_action` with `bugFix_` inside the window of the last fast
    /// retransmit or timeout, past the ECN branch: `bugFix_ts_` (the last new ACK echoed the
    /// last transmission of the packet it acknowledged) or `bugFix_ack_` (cwnd_ above one
    /// packet and the last new ACK advanced by at most `numdupacks_` packets) allows the
    /// fast retransmit.
    pub(super) fn ns2_newreno_heuristic(&self) -> bool {
        let k = &self.p.ns2.knobs;
        if !(k.bug_fix_ack || k.bug_fix_ts)
            || !self.p.ns2.bug_fix
            || self.p.sack
            || !self.ns2_aimd()
            || self.cc.recovery() != Recovery::NewReno
            || (self.p.ecn && self.last_action_ecn)
        {
            return false;
        }
        if k.bug_fix_ts && self.knobs.tss.get(&self.snd_una) == Some(&self.knobs.ts_echo) {
            return true;
        }
        let advanced = self.snd_una as i64 - self.knobs.prev_una;
        k.bug_fix_ack
            && self.w.cwnd > self.w.mss
            && advanced <= i64::from(self.p.dupack_threshold) * self.mss() as i64
    }

    /// tcp.cc `recv_newack_helper`: whether a new ACK opens the window (`!ect_ || !ecnecho ||
    /// (old_ecn_ && ecn_burst_)`), then `ecn_burst_` follows its ECN-echo.
    pub(super) fn ns2_ecn_opens(&mut self, ece: bool) -> bool {
        let opens = !ece || (self.p.ns2.knobs.old_ecn && self.knobs.ecn_burst);
        if self.p.ecn {
            self.knobs.ecn_burst = ece;
        }
        opens
    }

    /// tcp.cc `numdupacks(cwnd_)` for Sack1 (`numdupacksFrac_`), cwnd_ as it stands.
    pub(super) fn sack1_numdupacks(&self) -> u32 {
        let cwnd = if self.in_recovery {
            self.ns2_base
        } else {
            self.w.cwnd
        };
        self.p
            .ns2
            .knobs
            .numdupacks(self.p.dupack_threshold, cwnd / self.w.mss)
    }

    /// tcp.cc `output` of the opening packet with `syn_`: counts `syn_connects_`; past
    /// `max_connects_` the connection is aborted (true): the packet is not sent, and the timer
    /// is set 10000 s ahead (`curseq_ = 0`: nothing else goes out).
    pub(super) fn ns2_connect_aborts(&mut self, now: SimTime) -> bool {
        self.knobs.syn_connects += 1;
        if !self.p.ns2.knobs.connect_aborts(self.knobs.syn_connects) {
            return false;
        }
        self.rto_at = Some(now + ABORTED_CONNECT_TIMER);
        self.rto_at_s = None;
        true
    }
}
