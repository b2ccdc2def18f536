//! Simulator flavours: whose TCP a connection follows where the implementations differ.
//!
//! The RFCs leave choices open and the simulators made their own: ns-2.35's one-way agents
//! (`tcp.cc`, `tcp-reno.cc`, `tcp-vegas.cc`, ...), ns-3.44's `TcpSocketBase`, and Linux. Each
//! rule on which they part is a named field of [`Rules`]; each flavour sets every field in its
//! own file, with the source line it follows, so they can be read side by side:
//! [`rfc`] (the RFCs, Linux where they leave a choice), [`linux`] (the RFC flavour with the
//! loss recovery Linux runs where the RFCs offer it as an option: PRR), [`ns2`] and [`ns3`].
//! The sender, receiver, RTT estimator and controllers ask `params.rules()` instead of testing
//! flags.
//!
//! The scenario names a flavour through the preset (`ns2`, `ns3`, `linux`) and the
//! `ns2_rules` / `ns3_rules` options, which override it (both off: the RFC flavour, or the
//! Linux flavour under the `linux` preset).
//!
//! Adding a rule (CONTRIBUTING.md, "Recipe: adding a simulator-flavour rule"): a field here with
//! what it decides, its value with the citation in each flavour file, the code that asks for it,
//! and a unit test that fails without it.

pub mod linux;
pub mod ns2;
pub mod ns3;
pub mod rfc;

pub use super::cc::hystart::HystartVariant;

/// Whose Proportional Rate Reduction (RFC 6937) a flavour runs ([`Rules::prr`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PrrVariant {
    /// ns-3.44 `TcpPrrRecovery::DoRecovery` (`tcp-prr-recovery.cc`).
    Ns3,
    /// Linux `tcp_cwnd_reduction` (`net/ipv4/tcp_input.c`).
    Linux,
}

/// Which simulator's rules a connection follows.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Flavour {
    /// The RFCs, and Linux where they leave a choice.
    #[default]
    Rfc,
    /// ns-2.35's agents (`ns2_rules`).
    Ns2,
    /// ns-3.44's `TcpSocketBase` (`ns3_rules`).
    Ns3,
    /// The RFC flavour with Linux's own loss recovery (the `linux` preset).
    Linux,
}

impl Flavour {
    /// The flavour of a preset's default (`ns2_rules`, `ns3_rules`) and the options that
    /// override it. Both on is an error: a connection follows one simulator. Both off is the
    /// RFC flavour, except under the `linux` preset (`preset` is `Linux`), which keeps its own.
    pub fn from_options(
        preset: Flavour,
        ns2_rules: Option<bool>,
        ns3_rules: Option<bool>,
    ) -> Result<Flavour, (&'static str, String)> {
        let ns2 = ns2_rules.unwrap_or(preset == Flavour::Ns2);
        let ns3 = ns3_rules.unwrap_or(preset == Flavour::Ns3);
        match (ns2, ns3) {
            (true, true) => Err((
                if ns3_rules == Some(true) {
                    "ns3_rules"
                } else {
                    "ns2_rules"
                },
                "ns2_rules and ns3_rules are both on; a connection follows one simulator's \
                 rules: turn one off (the ns2 preset turns ns2_rules on, ns3 ns3_rules)"
                    .into(),
            )),
            (true, false) => Ok(Flavour::Ns2),
            (false, true) => Ok(Flavour::Ns3),
            (false, false) if preset == Flavour::Linux => Ok(Flavour::Linux),
            (false, false) => Ok(Flavour::Rfc),
        }
    }

    /// The rules of this flavour.
    pub fn rules(self) -> &'static Rules {
        match self {
            Flavour::Rfc => &rfc::RULES,
            Flavour::Ns2 => &ns2::RULES,
            Flavour::Ns3 => &ns3::RULES,
            Flavour::Linux => &linux::RULES,
        }
    }
}

/// Every rule on which the flavours differ. Each field says what it decides; each flavour file
/// sets it with its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    // ---- connection set-up
    /// The opening handshake ends with a third segment (a bare ACK of the SYN-ACK).
    pub third_handshake_segment: bool,
    /// After a lost SYN, ssthresh becomes two segments (half of the one-segment window).
    pub ssthresh_two_segments_after_syn_loss: bool,
    /// After a lost SYN, the RTO back-off is kept until a timed segment is acknowledged.
    pub backoff_kept_after_syn_loss: bool,
    /// A SYN-ACK arriving when established sets cwnd and ssthresh back to their initial values.
    pub syn_ack_resets_window: bool,
    /// A SYN-ACK arriving when established is an ordinary ACK (a duplicate of the opening
    /// packet's): it counts towards fast retransmit like any duplicate ACK.
    pub repeated_syn_ack_is_an_ack: bool,
    /// The initial window after a lost SYN is the ordinary initial window (not one segment).
    pub full_initial_window_after_syn_loss: bool,
    /// The receiver acknowledges the first data segment at once, not delayed.
    pub first_data_acked_at_once: bool,
    /// A delayed-ACK receiver acknowledges the opening packet at once when it is data (a
    /// sender without a handshake: ns-2's packet 0).
    pub opening_data_acked_at_once: bool,
    /// The opening packet, when it is data (a sender without a handshake), is sent without
    /// its headers: `mss` bytes on the wire, retransmissions too.
    pub opening_data_without_headers: bool,
    /// With a packet source writing into the connection, the opening packet leaves with the
    /// source's first write, not at the connection's start (ns-2's one-way agents send
    /// packet 0 at their first `output()`, from the first `sendmsg`; a socket connects at
    /// its start whether or not the application has written).
    pub opens_with_first_write: bool,
    /// A delayed-ACK receiver acknowledges at once while it echoes congestion (ECE set, RFC
    /// 3168), instead of delaying as usual with ECE on the delayed ACK.
    pub ece_acked_at_once: bool,
    /// A retransmission leaves the RTT measurement of the timed segment running; only the
    /// fast retransmit and the timeout end it (else Karn's rule: any retransmission below
    /// the timed segment's end ends it).
    pub retransmission_keeps_timed_segment: bool,
    /// Every window reduction (fast retransmit, timeout, ECN echo, restart after idle) marks
    /// the next segment sent, a retransmission too, with CWR (ns-2's `cong_action`, `A` in
    /// its traces), where RFC 3168 marks only the first new segment after an ECN reduction.
    pub cwr_after_every_reduction: bool,
    /// An ACK that repeats the last one is a duplicate even with nothing outstanding (ns-2
    /// compares the sequence number only), not only while data is in flight (RFC 5681
    /// section 2).
    pub dupack_without_data_outstanding: bool,
    /// The receiver's answer to an opening packet that carries ECE echoes it (ns-2's sink on
    /// its ECN opening packet, `C` in the traces of both); else the SYN-ACK carries no ECE.
    pub opening_ack_echoes_ece: bool,
    /// A delayed-ACK receiver delays the ACK of a repeat of its last in-order segment (nothing
    /// held above it, no ACK waiting) as it would a new one, instead of answering at once.
    pub repeat_of_last_segment_ack_delayed: bool,
    /// The receiver retransmits an unanswered SYN-ACK on its own timer.
    pub syn_ack_retransmission_timer: bool,
    /// The sender's SYN is retransmitted after a connection timeout of its own (3 s, doubled
    /// for each retransmission), not after the RTO estimator's initial RTO.
    pub syn_timer_is_conn_timeout: bool,
    /// The receiver's advertised window runs from the next expected byte: the whole buffer
    /// (the application reads in-order data at once), whatever out-of-order data it holds.
    /// Off: the buffer's free space (out-of-order data shrinks the window).
    pub rx_window_from_next_expected: bool,

    // ---- retransmission timer
    /// The RTO is kept in whole clock ticks with fixed-point averages (needs a clock
    /// granularity).
    pub rto_in_ticks: bool,
    /// With timestamps, the timestamp option's bytes (`ns2_agent.ts_option_size`) are added
    /// to the header of data packets only (not to the opening packet or ACKs), and a
    /// timestamp RTT sample is the nearest whole number of ticks and ends the backoff only
    /// as `ts_resetRTO_` says (`tcp/ns2_agent/knobs.rs`).
    pub timestamps_as_ns2_agent: bool,
    /// The receiver echoes the timestamp that ns-2's `Acker::update_ts` keeps (any packet up
    /// to one past the last ACK sent, not older than the one held), not RFC 7323's TS.Recent.
    pub ts_echo_as_ns2_acker: bool,
    /// A fast retransmission of the head restarts the retransmission timer.
    pub restart_timer_on_head_retransmit: bool,
    /// With `slow_start_restart`, the retransmission timer keeps running once everything
    /// is acknowledged and its expiry closes cwnd to one segment (ns-2's idle timeout),
    /// instead of RFC 5681's restart window after an idle RTO counted from the last send.
    /// Applied where a script writes more data into an idle connection (`set_data`).
    pub idle_timeout_closes_cwnd_to_one: bool,
    /// When the application stops (`$ftp stop`), new transmissions (after a timeout's go-back-N,
    /// or limited transmit) stop before the highest segment sent instead of at its end:
    /// ns-2's FTP stop is `advance 0`, curseq_ = maxseq_, and tcp.cc sends t_seqno_ < curseq_.
    pub stop_withholds_highest_sent: bool,

    // ---- loss recovery and windows
    /// The agents' own window arithmetic for Tahoe, Reno, NewReno and Vegas: ssthresh is half of
    /// min(cwnd, window) in whole packets (not FlightSize / 2), Reno inflates from W / 2.
    pub agent_window_halving: bool,
    /// Fast retransmit is allowed when the very first data segment is lost, even inside the
    /// window that a previous recovery guards.
    pub fast_retransmit_when_first_segment_lost: bool,
    /// New data may go out on duplicate ACKs below the threshold (besides limited transmit).
    pub send_on_early_dupacks: bool,
    /// Tahoe's fast retransmit goes back N: the next segment to send becomes the lost one
    /// (cwnd one segment), so the slow start that follows resends everything from each new
    /// cumulative ACK, a second hole of the window included, and the timed segment is given
    /// up. Off: only the lost segment is retransmitted and the sender goes on from snd_nxt (a
    /// second loss of the window waits for the timeout).
    pub tahoe_fast_retransmit_goes_back_n: bool,
    /// Tahoe's duplicate-ACK count survives a timeout (only a new ACK clears it), so the
    /// duplicates that follow the timeout go on counting from where they were: fewer of them
    /// fall below the threshold and send a limited-transmit segment. Off: a timeout clears it.
    pub tahoe_timeout_keeps_dupacks: bool,
    /// NewReno fast recovery: only the first partial ACK restarts the retransmission timer, and
    /// the retransmission of the next hole does not (a window with many losses ends in a
    /// timeout rather than one retransmission per RTT). Off: every partial ACK restarts it.
    pub partial_ack_restarts_timer_once: bool,
    /// NewReno fast recovery keeps the reduced window apart from the duplicate-ACK inflation: a
    /// partial ACK deflates the inflation first and the reduced window only past it (plus one
    /// segment back). Off: the deflation applies to cwnd as a whole.
    pub partial_ack_deflates_inflation_first: bool,
    /// Leaving NewReno fast recovery (the full ACK) drops only the inflation: cwnd is the
    /// reduced window (less what partial ACKs took off it) and the ACK then grows it as any new
    /// ACK does. Off: cwnd = ssthresh.
    pub recovery_exit_keeps_reduced_window: bool,
    /// At most this many new segments leave per ACK while NewReno is in fast recovery (no
    /// limit when `None`).
    pub recovery_burst_limit: Option<u32>,
    /// The SACK sender follows ns-3's congestion states and pipe (`tcp/sender/ns3.rs`) instead
    /// of RFC 6675's loop.
    pub sack_sender_by_states: bool,
    /// With `sack_sender_by_states`: an ECN echo enters ns-3's `CA_CWR` (`EnterCwr`): ssthresh
    /// from `BytesInFlight()`, cwnd brought down by the recovery algorithm (PRR, or at once
    /// with the classic one) on each ACK, no window growth and no fast-recovery entry until an
    /// ACK passes the highest byte sent at the echo, and then cwnd = ssthresh (`ReceivedAck`).
    /// Off: cwnd = ssthresh at once and the window grows on the next ACKs (RFC 3168 section
    /// 6.1.2). Controllers that read the extent of marking (DCTCP, Prague) keep their own rule
    /// either way (`sender/ns3.rs`, `cwr_by_states`).
    pub ecn_echo_enters_cwr: bool,
    /// The SACK sender of Reno and NewReno follows ns-2's `Agent/TCP/Sack1`
    /// (`tcp/sender/ns2_sack1.rs`): an integer pipe counted per ACK and per packet sent, cwnd
    /// W/2 through and after recovery, any hole below the highest SACK retransmitted, the
    /// scoreboard cleared by new ACKs and timeouts; instead of RFC 6675's loop.
    pub sack_sender_as_ns2_sack1: bool,
    /// A flow that names ns-2's `Agent/TCP/Linux` (`ns2_agent.linux`) runs that agent's ACK
    /// processing, FACK scoreboard (`scoreboard1.cc`), rate halving and timeout
    /// (`tcp/sender/ns2_linux.rs`). Off: `ns2_agent.linux` changes nothing.
    pub ns2_linux_agent: bool,
    /// A SACK receiver chooses its blocks as ns-2's `Sacker` (`tcp/ns2_sacker.rs`): the run of
    /// the packet received, then the first blocks of its last ACKs from a stack of three,
    /// which forgets older runs. Off: that run, then the highest runs held (RFC 2018).
    pub sack_blocks_from_ns2_stack: bool,
    /// Retransmitted ranges are remembered until acknowledged (ns-3's `m_retrans`).
    pub remember_retransmitted_ranges: bool,
    /// Proportional Rate Reduction (RFC 6937) as this implementation runs it, when `prr` is on:
    /// ns-3.44's `TcpPrrRecovery` (bytes, RecoverFS = pipe at entry; `sender/ns3.rs`) or
    /// Linux's `tcp_cwnd_reduction` (segments, RecoverFS = cwnd before the reduction;
    /// `sender/prr_linux.rs`). `None`: `prr` has no effect (RFC 6675's cwnd = ssthresh).
    pub prr: Option<PrrVariant>,
    /// RACK-TLP (RFC 8985) can be turned on (`rack_tlp`, with SACK): time-based loss
    /// detection with a reordering window (`tcp/rack.rs`) instead of RFC 6675's DupThresh, and
    /// the tail loss probe (`tcp/sender/rack_tlp.rs`), as Linux runs them.
    pub rack_tlp: bool,
    /// A retransmission timeout keeps the SACK scoreboard and marks lost what it does not
    /// hold (Linux `tcp_enter_loss` -> `tcp_timeout_mark_lost`; with RACK-TLP): the Loss state
    /// retransmits the lost segments, skipping SACKed ones, then sends new data, until the
    /// data sent before the timeout is acknowledged. Off: RFC 2018 section 8's clearing of the
    /// SACK information and a go-back-N from SND.UNA.
    pub timeout_keeps_sack: bool,
    /// When the receiver acknowledges: Linux's quick-ACK mode (16 immediate ACKs from the
    /// first data segment, after an idle longer than the RTO and for a retransmission; 2
    /// after a CE mark), its adaptive delayed-ACK timeout and SACK compression
    /// (`tcp/linux_ack.rs`), in place of a fixed `delack_timeout` and a count.
    pub linux_ack_policy: bool,
    /// D-SACK can be turned on (`dsack`, with SACK): the receiver reports duplicates (RFC
    /// 2883), the sender reads them (RACK's reordering window, the undo of a reduction whose
    /// retransmissions all arrived twice), and Linux's undo runs (`tcp/sender/dsack_undo.rs`).
    pub dsack: bool,
    /// Nagle as Linux applies it (`net/ipv4/tcp_output.c` `tcp_nagle_test`,
    /// `tcp_nagle_check`, `tcp_minshall_check`): the segment that carries the FIN goes out
    /// whatever its size (`tcp_send_fin` pushes with `TCP_NAGLE_OFF`), and a small segment is
    /// held only while an earlier small segment is unacknowledged (Minshall's variant:
    /// `snd_sml`, the end of the last small segment sent, after `snd_una`). Off: RFC 1122
    /// 4.2.3.4, no small segment while any data is unacknowledged.
    pub nagle_minshall: bool,
    /// Delivery-rate samples as ns-3's `TcpRateLinux` keeps them (`tcp/rate.rs`): the sample's
    /// prior state persists across ACKs (an ACK whose segments were all sent at the same or an
    /// older `delivered` reuses the last interval with the new `delivered`), a too-short
    /// interval leaves the last rate in place, and an app-limited sample below the last
    /// recorded one does not replace it. Off: Linux `tcp_rate.c`, a fresh sample per ACK.
    pub rate_sample_persists: bool,
    /// The bytes lost a rate sample reports are the absolute change of the lost count over
    /// the ACK (ns-3 `TcpSocketBase::ReceivedAck`: `std::abs(lost - previousLost)`), so bytes
    /// leaving the lost set when their repair is ACKed count too. Off: only bytes newly marked
    /// lost (Linux `tcp_ack`: `tp->lost - lost`, `rs->losses`).
    pub rate_sample_losses_abs_diff: bool,

    // ---- congestion controllers
    /// Reno and NewReno grow in whole segments with integer arithmetic (ns-3 `TcpNewReno`).
    pub segment_counting_newreno: bool,
    /// Linux Reno's ACK counter survives a loss (ns-3 `TcpLinuxReno`).
    pub linux_reno_keeps_ack_count: bool,
    /// Vegas as ns-2's `tcp-vegas.cc`: opens with one segment and raises the window on the
    /// second new ACK, measures with its own fine-grained clock.
    pub vegas_as_ns2_agent: bool,
    /// Vegas's loss handling as ns-2's `tcp-vegas.cc` (`tcp/sender/ns2_vegas.rs`): a
    /// fine-grained timeout per packet lets any duplicate ACK (and the first two new ACKs after
    /// a retransmission) resend a packet that has been out longer than it, the window falls only
    /// if it has not changed since that packet was sent, and the coarse timer backs off. Off:
    /// Reno's fast retransmit on the third duplicate.
    pub vegas_fine_grained_retransmit: bool,
    /// CUBIC as ns-3.44's `TcpCubic` (`cc/cubic.rs`): whole-segment slow start, the integer
    /// ACK counter of `Update` (one segment per ACK at most, `CntClamp`, the TCP-friendly
    /// estimate in whole segments), W_max and ssthresh in whole segments, the smoothed RTT as
    /// the delay sample, W_max kept over a timeout. Off: RFC 9438's real-valued window.
    pub cubic_as_ns3_tcp_cubic: bool,
    /// CUBIC's slow start ends early by HyStart (`cc/hystart.rs`), with this implementation's
    /// thresholds (Linux's or ns-3's). `None`: RFC 5681 slow start until the first loss.
    pub cubic_hystart: Option<HystartVariant>,
    /// BBR keeps Linux's long-term bandwidth sampling (`tcp_bbr.c` `bbr_lt_bw_sampling`,
    /// `cc/bbr/long_term.rs`): after 4 to 16 lossy rounds (lost / delivered >= 50/256) whose delivery
    /// rate matches the previous such interval within 1/8 (or 500 B/s), it takes their mean as
    /// the bandwidth (a token-bucket policer) and paces at gain 1 for 48 rounds. ns-3.44's
    /// `TcpBbr` has no such sampling.
    pub bbr_lt_bw_sampling: bool,
    /// DCTCP answers a loss with its ECN rule, ssthresh = cwnd * (1 - alpha / 2), instead of
    /// halving (RFC 8257 section 3.3 says a loss is handled as by a conventional TCP).
    pub dctcp_loss_uses_alpha: bool,
    /// DCTCP's reduced window is at least two segments (Linux `dctcp_ssthresh`:
    /// `max(cwnd - cwnd * alpha / 2, 2)`). ns-3.44's `TcpDctcp::GetSsThresh` has no floor
    /// (`(1 - alpha / 2) * cWnd` in bytes), and its CWR state takes cwnd down to it by PRR.
    pub dctcp_two_segment_floor: bool,
    /// A controller that needs ECN (DCTCP; Prague) makes every packet of the connection
    /// ECN-capable, SYN, SYN-ACK and pure ACKs included, at both ends: Linux's
    /// `TCP_CONG_NEEDS_ECN` (`tcp_ecn_send_syn` and `tcp_ecn_make_synack` call `INET_ECN_xmit`,
    /// and `tcp_ecn_send` leaves ECT on a pure ACK), ns-3.44's `DctcpEcn` mode (`TcpDctcp::Init`;
    /// `TcpSocketBase::AddSocketTags` marks every packet ECT in it). RFC 3168 section 6.1.1
    /// makes a SYN and a pure ACK not ECN-capable, so an AQM that cannot mark them drops them.
    pub ect_on_every_packet: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::{Preset, TcpParams};

    #[test]
    fn presets_pick_their_simulator_and_the_options_override_it() {
        assert_eq!(TcpParams::preset(Preset::Ns2).flavour, Flavour::Ns2);
        assert_eq!(TcpParams::preset(Preset::Ns3).flavour, Flavour::Ns3);
        assert_eq!(TcpParams::preset(Preset::Linux).flavour, Flavour::Linux);
        let f = |p, a, b| Flavour::from_options(p, a, b).map_err(|e| e.0);
        assert_eq!(
            f(Flavour::Linux, Some(false), Some(false)),
            Ok(Flavour::Linux)
        );
        assert_eq!(f(Flavour::Linux, None, Some(true)), Ok(Flavour::Ns3));
        assert_eq!(f(Flavour::Ns2, Some(false), None), Ok(Flavour::Rfc));
        assert_eq!(f(Flavour::Rfc, None, Some(true)), Ok(Flavour::Ns3));
        assert_eq!(f(Flavour::Ns2, Some(false), Some(true)), Ok(Flavour::Ns3));
        assert_eq!(f(Flavour::Ns3, Some(true), None), Err("ns2_rules"));
        assert_eq!(f(Flavour::Ns2, None, Some(true)), Err("ns3_rules"));
    }

    #[test]
    fn the_flavours_differ_where_they_say_they_do() {
        // A flavour whose table equals another's would be a preset in name only.
        assert_ne!(rfc::RULES, ns2::RULES);
        assert_ne!(rfc::RULES, ns3::RULES);
        assert_ne!(ns2::RULES, ns3::RULES);
        assert_ne!(rfc::RULES, linux::RULES);
    }
}
