//! ns-2.35's event trace of a TCP agent (`$ns eventtrace-all`, ns-lib.tcl; `Agent/TCP
//! instproc init` calls `create-eventtrace`, ns-agent.tcl): tcp.cc `TcpAgent::trace_event`
//! writes `E time node peer TCP EVENT fid t_seqno_ int(cwnd_)` at
//!
//! * `TIMEOUT`: the start of `TcpAgent::timeout` for the retransmission timer (Reno, NewReno
//!   and Sack1 call it from their own `timeout`);
//! * `FAST_RETX` (tcp.cc `TcpAgent::dupack_action`, Tahoe), `RENO_FAST_RETX` (tcp-reno.cc),
//!   `NEWRENO_FAST_RETX` (tcp-newreno.cc), `FAST_RECOVERY` (tcp-sack1.cc `sack_action`):
//!   before the window is cut;
//! * `NEWRENO_FAST_RECOVERY` (tcp-newreno.cc `recv`): each duplicate past `numdupacks_`
//!   while the window is inflated after a fast retransmit;
//! * `SLOW_START`: at the end of `slowdown` when `cwnd_` is 1 or was below `ssthresh_` (the
//!   window cut of a timeout or of a fast retransmit: `t_seqno_` is not moved yet).
//!
//! The sender records them when asked ([`TcpSender::record_ns2_events`]); `sim.rs` writes
//! them into the ns-2 trace after the call that made them, before the packets it sent.

use super::TcpSender;
use crate::endpoint::Ns2TcpEvent;
use crate::units::SimTime;

impl TcpSender {
    /// `trace_event(kind)` now, with `t_seqno_` and `int(cwnd_)` as they are.
    pub(super) fn ns2_event(&mut self, at: SimTime, kind: &'static str) {
        if self.ns2_events.is_none() {
            return;
        }
        let cwnd = self.ns2_var("cwnd_");
        self.ns2_event_with(at, kind, cwnd);
    }

    /// `slowdown`'s `SLOW_START` line: when the window was in slow start before the cut
    /// (`cwnd_ < ssthresh_`) or is one packet after it (`cwnd_after`, packets).
    pub(super) fn ns2_slowdown_event(&mut self, at: SimTime, slow_start: bool, cwnd_after: f64) {
        if self.ns2_events.is_some() && (slow_start || cwnd_after == 1.0) {
            self.ns2_event_with(at, "SLOW_START", cwnd_after);
        }
    }

    /// Whether ns-2's `slowdown` would find the window in slow start now (`cwnd_ <
    /// ssthresh_`, ns-2's own cwnd_ without the fast-recovery inflation).
    pub(super) fn ns2_in_slow_start(&self) -> bool {
        self.ns2_var("cwnd_") < self.ns2_var("ssthresh_")
    }

    fn ns2_var(&self, var: &str) -> f64 {
        crate::endpoint::Endpoint::probe(self, var).unwrap_or(0.0)
    }

    fn ns2_event_with(&mut self, at: SimTime, kind: &'static str, cwnd: f64) {
        let seqno = self.ns2_var("t_seqno_") as i64;
        if let Some(log) = self.ns2_events.as_mut() {
            log.push(Ns2TcpEvent {
                at,
                kind,
                seqno,
                cwnd: cwnd as i64,
            });
        }
    }
}
