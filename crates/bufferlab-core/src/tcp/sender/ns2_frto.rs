//! ns-2.35's F-RTO (`frto_enabled_`, and `sfrto_enabled_` for `Agent/TCP/Sack1`; both
//! default 0, `tcl/lib/ns-default.tcl`): the detection of spurious retransmission timeouts
//! that ns-2 took from Pasi Sarolahti (RFC 4138, later RFC 5682), as `tcp/tcp.cc` and
//! `tcp/tcp-sack1.cc` implement it with `spurious_response_` 1 (its default). The state is
//! `frto_`: 0 off, 1 after a timeout, 2 after its first new ACK.
//!
//! * `TcpAgent::timeout` sets `frto_ = 0`, keeps `pipe_prev_ = max(window(), ssthresh_)`
//!   (window() = min(int(cwnd_), window_) before the timeout's slowdown), and after the
//!   slowdown of a timeout with data outstanding (the usual one, or inside the window of an
//!   ECN reduction) sets `frto_ = 1` when either variable is on. `Sack1TcpAgent::timeout`
//!   sets it back to 0 when the timeout came in fast recovery (`fastrecov_`).
//! * `recv_newack_helper` (a new ACK, after `newack` and `opencwnd`): with `frto_ == 1`, F-RTO
//!   ends (`frto_ = 0`) when no new packet may follow the last one sent before the timeout
//!   (`recover_ + 1 >= highest_ack_ + wnd_` or `>= curseq_`) or when the ACK covers
//!   everything sent before it (`highest_ack_ == recover_`); otherwise the sender skips to
//!   new data (`t_seqno_ = recover_ + 1`) and `frto_ = 2`, where `window()` is
//!   `min(force_wnd(2), wnd_)` = `recover_ + 2 - highest_ack_`: two new packets may go.
//!   With `frto_ == 2` a second new ACK declares the timeout spurious (`spurious_timeout`).
//! * `recv_frto_helper` (Agent/TCP, Reno, Newreno `recv`, before the new-ACK and duplicate
//!   rules): a duplicate ACK with `frto_ != 0` means the timeout was real: `t_seqno_ =
//!   highest_ack_ + 1` (go back), `cwnd_ = frto_` (the state's number, 1 or 2, as ns-2 has
//!   it), `frto_ = 0`, `dupacks_ = -1` (recv's `++dupacks_` makes it 0).
//! * Sack1 (`Sack1TcpAgent::recv`, which does not call `recv_frto_helper`): a duplicate ACK
//!   (after the first new ACK clears `timeout_`) with `sfrto_enabled_` and `frto_ == 2`: if
//!   its SACK blocks changed the scoreboard (`IsChanged`) and none reaches past `recover_`
//!   (`is_sacked(tcph, recover_, maxseq_)`), the timeout was spurious; otherwise go back as
//!   above (`t_seqno_ = highest_ack_ + 1`, `cwnd_ = 2`, `frto_ = 0`, `dupacks_ = 0`).
//! * `spurious_timeout` (`spurious_response_` 1): `cwnd_ = t_seqno_ - prev_highest_ack_` (the
//!   packets outstanding before this ACK), `ssthresh_ = pipe_prev_`, `recover_ =
//!   highest_ack_ - 1` (a fast retransmit is allowed again), `frto_ = 0`.

use super::TcpSender;

/// ns-2's `frto_` and what F-RTO keeps (packets, as ns-2 counts them).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Frto {
    /// `frto_`: 0, 1 or 2.
    pub state: u8,
    /// `pipe_prev_` (packets).
    pub pipe_prev: f64,
    /// `prev_highest_ack_` (tcp.cc `newack`): the cumulative ACK before the last new one.
    pub prev_una: u64,
}

impl TcpSender {
    /// F-RTO is on for this agent (`frto_enabled_`, or `sfrto_enabled_`: timeout() reads
    /// either).
    fn ns2_frto_enabled(&self) -> bool {
        (self.ns2_aimd() || self.ns2_sack1())
            && (self.p.ns2.frto_enabled || self.p.ns2.sfrto_enabled)
    }

    /// `TcpAgent::timeout` before its slowdown: `frto_ = 0`, `pipe_prev_ = max(window(),
    /// ssthresh_)`.
    pub(super) fn ns2_frto_timeout_start(&mut self) {
        self.frto.state = 0;
        if self.ns2_frto_enabled() {
            let window = self.ns2_window().floor();
            self.frto.pipe_prev = window.max(self.w.ssthresh / self.w.mss);
        }
    }

    /// `TcpAgent::timeout` after the slowdown of a timeout with data outstanding: `frto_ = 1`
    /// (not after a Sack1 fast recovery, `Sack1TcpAgent::timeout`: `no_frto`).
    pub(super) fn ns2_frto_timeout_end(&mut self, was_sack1_recovery: bool) {
        if self.ns2_frto_enabled() && !was_sack1_recovery {
            self.frto.state = 1;
        }
    }

    /// `window()` with `frto_ == 2`: `force_wnd(2)`, up to two packets past the last one sent
    /// before the timeout (bytes, from snd_una); None otherwise.
    pub(super) fn ns2_frto_window(&self) -> Option<u64> {
        (self.frto.state == 2).then(|| (self.recover + 2 * self.mss()).saturating_sub(self.snd_una))
    }

    /// `recv_newack_helper`'s F-RTO rules, after `newack` and `opencwnd`; `prev_una` is the
    /// cumulative ACK before this one (`newack`: `prev_highest_ack_ = highest_ack_`).
    pub(super) fn ns2_frto_new_ack(&mut self, prev_una: u64) {
        self.frto.prev_una = prev_una;
        match self.frto.state {
            1 => {
                let mss = self.mss();
                let wnd = self.p.max_window.max(mss);
                // recover_ + 1 >= highest_ack_ + wnd_: packet recover_ + 1 starts at `recover`,
                // packet highest_ack_ + wnd_ at snd_una + (wnd_ - 1) packets
                if self.recover >= self.snd_una.saturating_add(wnd - mss)
                    || self.recover >= self.avail_end()
                {
                    self.frto.state = 0;
                } else if self.snd_una >= self.recover {
                    self.frto.state = 0; // F-RTO step 2a: the whole window acknowledged
                } else {
                    self.snd_nxt = self.recover; // t_seqno_ = recover_ + 1
                    self.frto.state = 2;
                }
            }
            2 => self.ns2_spurious_timeout(),
            _ => {}
        }
    }

    /// `spurious_timeout()` with `spurious_response_` 1.
    fn ns2_spurious_timeout(&mut self) {
        self.frto.state = 0;
        let mss = self.mss();
        // cwnd_ = t_seqno_ - prev_highest_ack_: packets from prev_highest_ack_ + 1 to
        // t_seqno_ - 1, plus one
        let packets = self
            .snd_nxt
            .saturating_sub(self.frto.prev_una)
            .div_ceil(mss)
            + 1;
        self.w.cwnd = packets as f64 * self.w.mss;
        self.w.ssthresh = self.frto.pipe_prev * self.w.mss;
        // recover_ = highest_ack_ - 1: bufferlab's recover is one past recover_'s packet
        self.recover = self.snd_una.saturating_sub(mss);
    }

    /// `recv_frto_helper`: a duplicate ACK in F-RTO (Agent/TCP, Reno, Newreno). Returns true
    /// when it applied: the caller counts the duplicate as `dupacks_` 0 (`-1`, then `++`).
    pub(super) fn ns2_frto_dupack(&mut self) -> bool {
        if self.frto.state == 0 || self.ns2_sack1() {
            return false;
        }
        self.snd_nxt = self.snd_una; // t_seqno_ = highest_ack_ + 1
        self.w.cwnd = f64::from(self.frto.state) * self.w.mss; // cwnd_ = frto_
        self.frto.state = 0;
        true
    }

    /// Sack1's duplicate ACK with `sfrto_enabled_` and `frto_ == 2` (after the duplicate
    /// rules): `changed`, the ACK's blocks told the scoreboard something (`IsChanged`);
    /// `past_recover`, one of them reaches past `recover_` (`is_sacked(tcph, recover_,
    /// maxseq_)`).
    pub(super) fn ns2_sfrto_dupack(&mut self, changed: bool, past_recover: bool) {
        if !(self.p.ns2.sfrto_enabled && self.frto.state == 2) {
            return;
        }
        if changed && !past_recover {
            self.ns2_spurious_timeout();
        } else {
            self.snd_nxt = self.snd_una;
            self.w.cwnd = 2.0 * self.w.mss; // cwnd_ = frto_
            self.frto.state = 0;
            self.dupacks = 0;
        }
    }

    /// Whether a SACK block of this ACK covers a packet after `recover_` up to `maxseq_`
    /// (tcp-sack1.cc `is_sacked`).
    pub(super) fn sack_past_recover(&self, pkt: &crate::packet::Packet) -> bool {
        let (lo, hi) = (self.recover, self.snd_max);
        pkt.tcp
            .sack_blocks()
            .any(|(l, r)| (r > lo && r <= hi) || (l >= lo && l < hi) || (l < lo && r > hi))
    }
}

#[cfg(test)]
mod tests {
    use super::super::TcpSender;
    use crate::tcp::app::TcpApp;
    use crate::tcp::config::{CcKind, Preset, TcpOptions, TcpParams};
    use crate::tcp::ns2_agent::Ns2AgentOptions;
    use crate::units::{QueueLimit, SimTime};

    const MSS: u64 = 1000;

    fn seg(i: u64) -> u64 {
        1 + i * MSS
    }

    /// An ns-2 Reno sender with F-RTO, 20 packets sent, a timeout taken at packet 10.
    fn after_timeout() -> TcpSender {
        let o = TcpOptions {
            preset: Some(Preset::Ns2),
            cc: Some(CcKind::Reno),
            window: Some(QueueLimit::Packets(40)),
            handshake: Some(false),
            ns2_agent: Some(Ns2AgentOptions {
                frto_enabled: Some(true),
                ..Default::default()
            }),
            ..TcpOptions::default()
        };
        let mut s = TcpSender::new(
            TcpParams::resolve(&o, None),
            TcpApp::Bulk,
            SimTime::ZERO,
            SimTime::MAX,
        );
        s.snd_una = seg(10);
        s.snd_max = seg(20);
        s.w.cwnd = 10.0 * s.w.mss;
        s.w.ssthresh = 6.0 * s.w.mss;
        s.ns2_frto_timeout_start();
        // TcpAgent::timeout: recover_ = maxseq_, slowdown, cwnd_ 1, go back to highest_ack_ + 1
        s.recover = s.snd_max;
        s.w.ssthresh = 5.0 * s.w.mss;
        s.w.cwnd = s.w.mss;
        s.snd_nxt = s.snd_una;
        s.ns2_frto_timeout_end(false);
        s
    }

    /// tcp.cc recv_newack_helper: the first new ACK after the timeout sends two new packets
    /// (t_seqno_ = recover_ + 1, window() = force_wnd(2)); a second declares the timeout
    /// spurious: cwnd_ = t_seqno_ - prev_highest_ack_, ssthresh_ = pipe_prev_.
    #[test]
    fn two_new_acks_declare_the_timeout_spurious() {
        let mut s = after_timeout();
        assert_eq!((s.frto.state, s.frto.pipe_prev), (1, 10.0));
        s.snd_una = seg(11);
        s.ns2_frto_new_ack(seg(10));
        assert_eq!(s.frto.state, 2);
        assert_eq!(s.snd_nxt, seg(20));
        assert_eq!(s.ns2_frto_window(), Some(seg(22) - seg(11)));
        s.snd_nxt = seg(22); // the two new packets went
        s.snd_una = seg(12);
        s.ns2_frto_new_ack(seg(11));
        assert_eq!(s.frto.state, 0);
        assert_eq!(s.ns2_frto_window(), None);
        // t_seqno_ 22 - prev_highest_ack_ 10 (packets 0 to 10 were acknowledged before it)
        assert_eq!(s.w.cwnd, 12.0 * s.w.mss);
        assert_eq!(s.w.ssthresh, 10.0 * s.w.mss);
        // recover_ = highest_ack_ - 1: a fast retransmit is allowed again
        assert!(s.snd_una > s.recover);
    }

    /// tcp.cc recv_frto_helper: a duplicate ACK in F-RTO goes back to highest_ack_ + 1 with
    /// cwnd_ = frto_.
    #[test]
    fn a_duplicate_ack_means_the_timeout_was_real() {
        let mut s = after_timeout();
        s.snd_una = seg(11);
        s.ns2_frto_new_ack(seg(10));
        s.snd_nxt = seg(22);
        assert!(s.ns2_frto_dupack());
        assert_eq!((s.frto.state, s.snd_nxt), (0, seg(11)));
        assert_eq!(s.w.cwnd, 2.0 * s.w.mss);
        assert!(!s.ns2_frto_dupack());
    }

    /// F-RTO step 2a and the window test: an ACK of everything sent before the timeout, or
    /// no room for a new packet, ends F-RTO.
    #[test]
    fn frto_ends_without_room_for_new_data() {
        let mut s = after_timeout();
        s.snd_una = seg(20);
        s.ns2_frto_new_ack(seg(10));
        assert_eq!(s.frto.state, 0);
        let mut s = after_timeout();
        std::rc::Rc::make_mut(&mut s.p).max_window = 10 * MSS; // recover_ + 1 >= highest_ack_ + wnd_
        s.snd_una = seg(11);
        s.ns2_frto_new_ack(seg(10));
        assert_eq!(s.frto.state, 0);
    }
}
