//! Proportional Rate Reduction as Linux runs it (rule `prr` = `PrrVariant::Linux`, on in the
//! `linux` preset; `tcp/flavour/linux.rs`).
//!
//! Sources: RFC 6937 (PRR, 2013; obsoleted by RFC 9937, 2025, which describes what Linux runs
//! today) and Linux `net/ipv4/tcp_input.c`:
//! * `tcp_init_cwnd_reduction` (on entering recovery): `prior_cwnd` = cwnd before the
//!   reduction (RFC 6937's RecoverFS; Linux takes cwnd, not FlightSize), `prr_delivered` =
//!   `prr_out` = 0, ssthresh from the controller.
//! * `tcp_cwnd_reduction`, called from `tcp_cong_control` for every ACK in recovery that
//!   delivers something (`newly_acked_sacked` > 0), in segments:
//!   `delta = ssthresh - pipe`; while pipe > ssthresh the proportional part
//!   `sndcnt = ceil(ssthresh * prr_delivered / prior_cwnd) - prr_out`; else
//!   `sndcnt = min(delta, max(prr_delivered - prr_out, newly_acked_sacked) [+ 1])`, the `+ 1`
//!   (PRR-SSRB, slow start towards ssthresh) only when the ACK advances snd_una and marks
//!   nothing newly lost, else PRR-CRB (conservation); at least one segment while nothing has
//!   been sent in this recovery (the fast retransmit); then `cwnd = pipe + sndcnt`. This is
//!   the form since Linux 6.0 (2022, N. Cardwell and Y. Cheng: CRB by default, SSRB when
//!   snd_una advances without new loss); 3.2 to 5.19 took SSRB when the ACK acknowledged a
//!   retransmission (`FLAG_RETRANS_DATA_ACKED`) and no retransmission was lost.
//! * `tcp_output.c` `tcp_write_xmit` / `tcp_xmit_retransmit_queue`: every segment sent while
//!   in recovery adds to `prr_out`.
//! * `tcp_end_cwnd_reduction`: leaving recovery sets cwnd = ssthresh (the controller's
//!   `on_recovery_exit` here).
//!
//! The RFC 6675 sender's pipe stands for Linux's `tcp_packets_in_flight` (packets out less
//! SACKed and lost, plus retransmitted). Linux counts segments; so does this file (a short
//! last segment counts as one), so the proportional part rounds as Linux's does. Controllers
//! that own their window (BBR: `cong_control` in Linux) skip PRR as Linux does.

use super::TcpSender;
use crate::tcp::flavour::PrrVariant;

/// Linux's PRR state (`struct tcp_sock`: `prior_cwnd`, `prr_delivered`, `prr_out`), in
/// segments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct LinuxPrr {
    prior_cwnd: u64,
    delivered: u64,
    out: u64,
    /// The ACK being processed: bytes it delivered (newly cumulatively acknowledged or
    /// SACKed, RFC 6937's DeliveredData), whether it advanced snd_una, whether it made any
    /// byte newly lost; and whether it has run the reduction already (the ACK that entered
    /// recovery runs it before the fast retransmission, as `tcp_cong_control` runs before
    /// `tcp_xmit_recovery`).
    ack_delivered: u64,
    ack_advanced: bool,
    ack_newly_lost: bool,
    done_this_ack: bool,
}

/// `tcp_cwnd_reduction`'s send quota for one ACK, in segments (the state's `delivered` already
/// counts this ACK's `newly`). `ssrb`: the ACK advanced snd_una and marked nothing newly lost.
pub(super) fn sndcnt(
    ssthresh: u64,
    pipe: u64,
    prior_cwnd: u64,
    prr_delivered: u64,
    prr_out: u64,
    newly: u64,
    ssrb: bool,
) -> u64 {
    let n = if pipe > ssthresh {
        // RFC 6937 section 3.1 "proportional": ceil(prr_delivered * ssthresh / RecoverFS)
        let due = (ssthresh * prr_delivered).div_ceil(prior_cwnd.max(1));
        due.saturating_sub(prr_out)
    } else {
        let limit = prr_delivered.saturating_sub(prr_out).max(newly) + u64::from(ssrb);
        limit.min(ssthresh - pipe)
    };
    // "Force a fast retransmit upon entering fast recovery"
    n.max(u64::from(prr_out == 0))
}

impl TcpSender {
    /// Linux's PRR runs for this connection (rule and option on, a controller that does not
    /// own the window, the RFC 6675 SACK sender).
    pub(super) fn linux_prr(&self) -> bool {
        self.rules.prr == Some(PrrVariant::Linux) && self.p.prr && self.p.sack && !self.owns_window
    }

    fn segs(&self, bytes: u64) -> u64 {
        bytes.div_ceil(self.mss().max(1))
    }

    /// `tcp_init_cwnd_reduction`: called on entering recovery with cwnd before the reduction;
    /// the ACK being processed stays noted.
    pub(super) fn linux_prr_enter(&mut self, prior_cwnd: f64) {
        self.prr_linux = LinuxPrr {
            prior_cwnd: self.segs(prior_cwnd.max(0.0) as u64).max(1),
            delivered: 0,
            out: 0,
            ..self.prr_linux
        };
    }

    /// A segment of `len` bytes left while in recovery (`prr_out`).
    pub(super) fn linux_prr_sent(&mut self, len: u64) {
        if len > 0 {
            self.prr_linux.out += self.segs(len);
        }
    }

    /// Before an ACK's SACK blocks enter the scoreboard: the bytes SACKed, and the bytes
    /// `IsLost` holds lost above what the ACK acknowledges.
    pub(super) fn linux_prr_before_sack(&self, ack: u64) -> (u64, u64) {
        let from = ack.clamp(self.snd_una, self.snd_max);
        (self.sb.sacked_bytes(), self.lost_from(from))
    }

    /// After the SACK blocks, before snd_una moves: notes what the ACK delivered (RFC 6937
    /// DeliveredData: the change of snd_una plus the change of the SACKed bytes) and whether
    /// it made bytes newly lost (Linux `rs->losses`, `tcp_cong_control`'s `newly_lost`).
    pub(super) fn linux_prr_after_sack(&mut self, ack: u64, (sacked, lost): (u64, u64)) {
        let advanced = ack > self.snd_una && ack <= self.snd_max;
        let acked = if advanced { ack - self.snd_una } else { 0 };
        let sacked_below = if advanced {
            self.sb.sacked_between(self.snd_una, ack)
        } else {
            0
        };
        let sacked_after = self.sb.sacked_bytes() - sacked_below;
        let delivered = (acked + sacked_after).saturating_sub(sacked);
        let from = if advanced { ack } else { self.snd_una };
        let newly_lost = self.lost_from(from) > lost;
        self.linux_prr_note_ack(delivered, advanced, newly_lost);
    }

    fn lost_from(&self, from: u64) -> u64 {
        let (dt, mss) = (self.p.dupack_threshold, self.mss());
        self.sb
            .lost_bytes(self.snd_una, self.snd_max, from, dt, mss)
    }

    /// Notes an ACK before its processing: `delivered` bytes newly acknowledged or SACKed,
    /// `advanced` whether snd_una moves, `newly_lost` whether it makes any byte lost.
    pub(super) fn linux_prr_note_ack(&mut self, delivered: u64, advanced: bool, newly_lost: bool) {
        let s = &mut self.prr_linux;
        (s.ack_delivered, s.ack_advanced, s.ack_newly_lost) = (delivered, advanced, newly_lost);
        s.done_this_ack = false;
    }

    /// With RACK-TLP, whether the ACK marked bytes newly lost is RACK's answer.
    pub(super) fn linux_prr_set_newly_lost(&mut self, lost: bool) {
        self.prr_linux.ack_newly_lost = lost;
    }

    /// `tcp_cwnd_reduction` for the ACK being processed (once; nothing when it delivered
    /// nothing: `newly_acked_sacked <= 0`).
    pub(super) fn linux_prr_reduce(&mut self) {
        let (delivered, advanced, newly_lost) = {
            let s = &self.prr_linux;
            (s.ack_delivered, s.ack_advanced, s.ack_newly_lost)
        };
        if self.prr_linux.done_this_ack || delivered == 0 {
            return;
        }
        self.prr_linux.done_this_ack = true;
        let mss = self.mss();
        let newly = self.segs(delivered);
        self.prr_linux.delivered += newly;
        let pipe_bytes = self.recovery_pipe();
        let ssthresh = (self.w.ssthresh / self.w.mss).floor().max(0.0) as u64;
        let s = &self.prr_linux;
        let n = sndcnt(
            ssthresh,
            self.segs(pipe_bytes),
            s.prior_cwnd,
            s.delivered,
            s.out,
            newly,
            advanced && !newly_lost,
        );
        self.w.cwnd = (pipe_bytes + n * mss) as f64;
    }
}

#[cfg(test)]
mod tests {
    use super::sndcnt;

    /// One round of a recovery: each ACK delivers one segment, PRR sends its quota, pipe
    /// falls by one and rises by what was sent. Returns what each ACK sent and pipe after it.
    fn round(prior: u64, ssthresh: u64, pipe: u64, acks: usize, ssrb: bool) -> Vec<(u64, u64)> {
        let (mut pipe, mut delivered, mut out) = (pipe + 1, 0, 0);
        let mut sent = Vec::new();
        for _ in 0..acks {
            delivered += 1;
            pipe -= 1;
            let n = sndcnt(ssthresh, pipe, prior, delivered, out, 1, ssrb);
            out += n;
            pipe += n;
            sent.push((n, pipe));
        }
        sent
    }

    #[test]
    fn a_single_loss_spreads_the_reduction_over_the_round() {
        // RFC 6937 section 6 (RFC 9937 section 8, example 1): cwnd = FlightSize = 20, one
        // segment lost, ssthresh 10, no limited transmit. The third duplicate ACK enters
        // recovery with 3 segments SACKed and 1 lost: pipe 16, and 17 ACKs follow in the round
        // (segments 3 to 19).
        let round = round(20, 10, 16, 17, false);
        assert_eq!(round[0].0, 1, "the fast retransmission");
        let mut total = 0;
        let mut at_ssthresh = false;
        for (k, &(n, pipe)) in round.iter().enumerate() {
            total += n;
            assert!(n <= 1, "no burst: ACK {k} sent {n}");
            if pipe - n > 10 && !at_ssthresh {
                // above ssthresh: one segment for every two delivered (ssthresh / RecoverFS)
                assert_eq!(total, (10 * (k as u64 + 1)).div_ceil(20), "after ACK {k}");
            } else {
                // from there on, packet conservation holds pipe at ssthresh
                at_ssthresh = true;
                assert_eq!(pipe, 10, "ACK {k}");
            }
        }
        assert!(at_ssthresh, "the round ends with ssthresh in flight");
        assert_eq!(round.last().unwrap().1, 10);
        // RFC 6675 would send nothing until pipe fell below cwnd = ssthresh (half the round),
        // then one segment per ACK: the same total, in one burst-free half of the round
        // instead of spread over it.
    }

    #[test]
    fn below_ssthresh_ssrb_slow_starts_and_crb_conserves() {
        // RFC 6937 section 3.1 reduction bounds (RFC 9937 section 8 example 2: a burst of
        // losses leaves pipe far below ssthresh). prior 20, ssthresh 10, pipe 4.
        // PRR-SSRB: each ACK that advances snd_una without new loss sends delivered + 1.
        let ssrb = round(20, 10, 4, 6, true);
        assert_eq!(ssrb[0].0, 2, "max(1 - 0, 1) + 1");
        // one more than delivered per ACK: pipe 6, 7, 8, 9, 10, then capped at ssthresh
        // (delta = ssthresh - pipe)
        assert_eq!(
            ssrb.iter().map(|r| r.0).collect::<Vec<_>>(),
            vec![2, 2, 2, 2, 2, 1]
        );
        assert_eq!(
            ssrb.iter().map(|r| r.1).collect::<Vec<_>>(),
            vec![6, 7, 8, 9, 10, 10]
        );
        // PRR-CRB (an ACK that marks new losses, or SACKs only): conservation, one for one,
        // after the forced first segment.
        let crb = round(20, 10, 4, 4, false);
        assert_eq!(
            crb.iter().map(|r| r.0).collect::<Vec<_>>(),
            vec![1, 1, 1, 1]
        );
        assert!(
            crb.iter().all(|r| r.1 == 5),
            "pipe does not grow towards ssthresh"
        );
    }

    #[test]
    fn the_quota_never_takes_pipe_past_ssthresh_below_it() {
        for pipe in 0..10 {
            for newly in 1..5 {
                let n = sndcnt(10, pipe, 20, 30, 25, newly, true);
                assert!(pipe + n <= 10, "pipe {pipe} newly {newly} sent {n}");
            }
        }
        // above ssthresh the proportional part holds even with many segments delivered
        assert_eq!(sndcnt(10, 15, 20, 8, 3, 4, true), 1);
        // and nothing is forced once the retransmission has left
        assert_eq!(sndcnt(10, 15, 20, 1, 1, 1, true), 0);
    }
}
