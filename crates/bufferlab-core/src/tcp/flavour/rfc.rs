//! The RFC flavour, with Linux where the RFCs leave a choice: the `linux` preset, and `ns2` or
//! `ns3` with their rules turned off. Each value cites the rule it follows.

use super::{HystartVariant, Rules};

pub const RULES: Rules = Rules {
    // RFC 9293 section 3.5: SYN, SYN-ACK, ACK.
    third_handshake_segment: true,
    // RFC 5681 section 3.1: a lost SYN leaves ssthresh alone; only the window drops to one.
    ssthresh_two_segments_after_syn_loss: false,
    // RFC 6298 section 5.7: after the handshake the RTO restarts from its initial value.
    backoff_kept_after_syn_loss: false,
    // RFC 9293: a duplicate SYN-ACK is acknowledged, nothing else changes.
    syn_ack_resets_window: false,
    // RFC 5961 section 4 (Linux tcp_validate_incoming): a SYN in ESTABLISHED gets a challenge
    // ACK and is discarded, not processed as an ACK.
    repeated_syn_ack_is_an_ack: false,
    // RFC 5681 section 3.1: after a lost SYN the initial window is one segment.
    full_initial_window_after_syn_loss: false,
    // RFC 1122 4.2.3.2 / RFC 5681 section 4.2: delayed ACKs from the first segment on.
    first_data_acked_at_once: false,
    opening_data_acked_at_once: false,
    opening_data_without_headers: false,
    // RFC 9293 section 3.5: the active open sends its SYN at once
    opens_with_first_write: false,
    // Linux tcp_ecn_check_ce: a CE mark enters quick-ACK mode
    ece_acked_at_once: true,
    // RFC 5681 section 4.2: a duplicate segment should be acknowledged at once.
    repeat_of_last_segment_ack_delayed: false,
    // RFC 6298 section 3 (Karn): no sample across a retransmission.
    retransmission_keeps_timed_segment: false,
    // RFC 3168 section 6.1.2: CWR on the first new data segment after an ECN reduction.
    cwr_after_every_reduction: false,
    // RFC 5681 section 2: a duplicate needs outstanding data.
    dupack_without_data_outstanding: false,
    opening_ack_echoes_ece: false,
    // The sender's SYN timer recovers a lost SYN-ACK (RFC 9293 section 3.8.1).
    syn_ack_retransmission_timer: false,
    // RFC 6298 section 2.1 and 5.7: the SYN is timed by the initial RTO (1 s), backed off.
    syn_timer_is_conn_timeout: false,
    // RFC 9293 section 3.8.6 (the window offers the buffer space the receiver has left) and
    // Linux __tcp_select_window -> tcp_space() (sk_rmem_alloc counts the out-of-order queue):
    // data held out of order shrinks the window.
    rx_window_from_next_expected: false,
    // RFC 6298: RTT variables in real time.
    rto_in_ticks: false,
    // the header holds the options; RFC 6298 / RFC 7323 samples.
    timestamps_as_ns2_agent: false,
    // RFC 7323 section 4.3: TS.Recent from the segment at the left edge.
    ts_echo_as_ns2_acker: false,
    // Linux tcp_retransmit_skb rearms the timer for the retransmitted head.
    restart_timer_on_head_retransmit: true,
    // RFC 5681 section 4.1: the restart window after an idle period longer than the RTO.
    idle_timeout_closes_cwnd_to_one: false,
    stop_withholds_highest_sent: false,
    // RFC 5681 equation (4): ssthresh = max(FlightSize / 2, 2 SMSS).
    agent_window_halving: false,
    // RFC 6582 section 3.2 step 1: the recovery point guards the window.
    fast_retransmit_when_first_segment_lost: false,
    // RFC 5681: an ACK that does not move the window does not stop sending what cwnd allows.
    send_on_early_dupacks: true,
    // RFC 5681 section 3.2 step 2: the fast retransmission is the lost segment only; sending
    // goes on from snd_nxt.
    tahoe_fast_retransmit_goes_back_n: false,
    // RFC 5681 leaves it open; this flavour starts a new count after a timeout.
    tahoe_timeout_keeps_dupacks: false,
    // RFC 6298 section 5.3: every ACK of new data restarts the timer (Linux tcp_rearm_rto).
    // RFC 6582 resets it for the first partial ACK only; this flavour keeps RFC 6298's rule.
    partial_ack_restarts_timer_once: false,
    // RFC 6582 section 3.2 step 4: deflate cwnd by the amount acknowledged, add back one SMSS.
    partial_ack_deflates_inflation_first: false,
    // RFC 6582 section 3.2 step 3 option (2): cwnd = ssthresh.
    recovery_exit_keeps_reduced_window: false,
    // RFC 6582 leaves the bursts of a partial ACK to cwnd.
    recovery_burst_limit: None,
    // RFC 6675 section 5: the SACK-based loss recovery loop.
    sack_sender_by_states: false,
    // RFC 1122 section 4.2.3.4 (Nagle, RFC 896): no small segment while data is in flight.
    nagle_minshall: false,
    // RFC 3168 section 6.1.2: the window halves at once.
    ecn_echo_enters_cwr: false,
    // RFC 6675 section 5 (the previous rule).
    sack_sender_as_ns2_sack1: false,
    ns2_linux_agent: false,
    sack_blocks_from_ns2_stack: false,
    remember_retransmitted_ranges: false,
    // RFC 6937 is an option the RFC flavour leaves off (RFC 6675 section 5: cwnd = ssthresh);
    // the `linux` flavour runs it as Linux does (flavour/linux.rs).
    prr: None,
    // RFC 8985 is optional; the RFC flavour keeps RFC 6675's DupThresh and the RTO.
    rack_tlp: false,
    timeout_keeps_sack: false,
    // RFC 1122 4.2.3.2 / RFC 5681 section 4.2: an ACK for every second full segment or
    // within the delayed-ACK timeout, no adaptive timeout.
    linux_ack_policy: false,
    dsack: false,
    // Linux tcp_rate.c: tcp_ack() builds a fresh `struct rate_sample` for every ACK.
    rate_sample_persists: false,
    // Linux tcp_ack: tcp_rate_gen(sk, delivered, tp->lost - lost, ...), newly lost only.
    rate_sample_losses_abs_diff: false,
    // RFC 5681 section 3.1 in bytes (appropriate byte counting is Linux's `linux_reno`).
    segment_counting_newreno: false,
    // Linux tcp_cong.c tcp_cong_avoid_ai: snd_cwnd_cnt is reset with the window.
    linux_reno_keeps_ack_count: false,
    // Brakmo & Peterson 1995 as written (cc/vegas.rs).
    vegas_as_ns2_agent: false,
    // Brakmo and Peterson section 3.1 is not modelled here: Reno's fast retransmit.
    vegas_fine_grained_retransmit: false,
    // RFC 9438 sections 4.2-4.8 as written (real-valued W_cubic, W_est).
    cubic_as_ns3_tcp_cubic: false,
    // RFC 9438 section 4.10 leaves slow start open; Linux tcp_cubic.c runs HyStart (hystart 1,
    // hystart_detect 3).
    cubic_hystart: Some(HystartVariant::Linux),
    // Linux tcp_bbr.c bbr_lt_bw_sampling (policer detection), on in every Linux since 4.9.
    bbr_lt_bw_sampling: true,
    // RFC 8257 section 3.3; Linux tcp_dctcp.c dctcp_react_to_loss halves cwnd.
    dctcp_loss_uses_alpha: false,
    // Linux dctcp_ssthresh: max(cwnd - cwnd * alpha / 2, 2U)
    dctcp_two_segment_floor: true,
    // RFC 3168 section 6.1.1: a SYN and a pure ACK are not ECN-capable.
    ect_on_every_packet: false,
};
