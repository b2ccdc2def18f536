//! ns-2.35's `noFastRetrans_ true` (`tcp/tcp.h`, bound in `tcp/tcp.cc`; default false,
//! `tcl/lib/ns-default.tcl`). Only `TcpAgent::recv` (`tcp/tcp.cc`) reads it:
//!
//! ```text
//! if (++dupacks_ == numdupacks_ && !noFastRetrans_) dupack_action();
//! else if (dupacks_ < numdupacks_ && singledup_) send_one();
//! ```
//!
//! (paraphrased). With it true the `numdupacks_`-th duplicate ACK calls no `dupack_action()`:
//! no fast retransmit, no window decrease, not the ECN branch either; it sends nothing by
//! `send_one` (the duplicate count is not below `numdupacks_`), and recv's `send_much` (every
//! valid ACK, in Agent/TCP) finds the window full. The loss waits for the retransmission
//! timer (`timeout`: go back N, cwnd_ 1). Agent/TCP/Reno, Newreno, Sack1 and Vegas have their
//! own `recv` and never read it; the ns-2 script layer (`recovery_knobs.py`) passes it for
//! Agent/TCP only.

use super::TcpSender;
use crate::tcp::config::CcKind;

impl TcpSender {
    /// `noFastRetrans_` applies: ns-2's Agent/TCP (Tahoe rules) with it set.
    pub(super) fn ns2_no_fast_retrans(&self) -> bool {
        self.p.ns2.no_fast_retrans && self.ns2_aimd() && self.p.cc == CcKind::Tahoe
    }
}

#[cfg(test)]
mod tests {
    use super::super::TcpSender;
    use crate::tcp::app::TcpApp;
    use crate::tcp::config::{CcKind, Preset, TcpOptions, TcpParams};
    use crate::tcp::ns2_agent::Ns2AgentOptions;
    use crate::units::{QueueLimit, SimTime};

    fn sender(cc: CcKind, no_fast_retrans: bool) -> TcpSender {
        let o = TcpOptions {
            preset: Some(Preset::Ns2),
            cc: Some(cc),
            window: Some(QueueLimit::Packets(40)),
            ns2_agent: Some(Ns2AgentOptions {
                no_fast_retrans: Some(no_fast_retrans),
                ..Default::default()
            }),
            ..TcpOptions::default()
        };
        TcpSender::new(
            TcpParams::resolve(&o, None),
            TcpApp::Bulk,
            SimTime::ZERO,
            SimTime::MAX,
        )
    }

    /// tcp.cc TcpAgent::recv reads noFastRetrans_; tcp-reno.cc and tcp-newreno.cc recv do not.
    #[test]
    fn only_agent_tcp_reads_it() {
        assert!(sender(CcKind::Tahoe, true).ns2_no_fast_retrans());
        assert!(!sender(CcKind::Tahoe, false).ns2_no_fast_retrans());
        assert!(!sender(CcKind::Reno, true).ns2_no_fast_retrans());
        assert!(!sender(CcKind::Newreno, true).ns2_no_fast_retrans());
    }
}
