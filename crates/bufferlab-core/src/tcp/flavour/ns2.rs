//! ns-2.35's agents (`ns2_rules`, on with the `ns2` preset): `tcp/tcp.cc` (`TcpAgent`),
//! `tcp-reno.cc`, `tcp-newreno.cc`, `tcp-vegas.cc`, and the `TCPSink` of `tcp-sink.cc`. Each
//! value cites the function that decides it; the unit tests are in `tcp/tests.rs` under
//! "ns-2.35 agent rules".

use super::Rules;

pub const RULES: Rules = Rules {
    // tcp.cc output(): the opening packet (seqno 0 with syn_) is a bare 40-byte header that is
    // acknowledged like data; nothing answers the ACK.
    third_handshake_segment: false,
    // tcp.cc timeout() -> slowdown(CLOSE_SSTHRESH_HALF): half of min(cwnd_ 1, window_), at
    // least 2 packets.
    ssthresh_two_segments_after_syn_loss: true,
    // tcp.cc newack(): t_backoff_ is reset only when a timed segment is acknowledged.
    backoff_kept_after_syn_loss: true,
    // tcp.cc has no SYN state to reset: the opening packet is packet 0 like any other.
    syn_ack_resets_window: false,
    // tcp-sink.cc acknowledges a retransmitted packet 0 again, and tcp-reno.cc recv() takes that
    // ACK (ackno == last_ack_) as a duplicate: ++dupacks_ (seen when the RTT exceeds the 3 s
    // rtxcur_init_, seed 002's 500 ms chain).
    repeated_syn_ack_is_an_ack: true,
    // tcp.cc timeout(): cwnd_ restarts from 1 after the opening packet's loss.
    full_initial_window_after_syn_loss: false,
    // tcp-sink.cc DelAckSink::recv: delays from the first packet after the opening one on.
    first_data_acked_at_once: false,
    // ns-2.35's DelAck sink answers packet 0 at once: a Reno agent's 40-byte opening packet
    // (bufferlab's SYN, answered at once anyway), and equally a Vegas agent's, which is a full
    // data packet, or any agent's with syn_ false (measured against ns-2.35 on 2026-11-27,
    // tests/test_ns2_tutorial_idioms.py; the Acker code alone would delay it).
    opening_data_acked_at_once: true,
    // tcp.cc output(): headersize() is added in the `else` of `if (seqno == 0)`, so packet 0
    // of an agent with syn_ false is size_ bytes (a 1000-byte packet where the others are
    // 1040; seen in ns-2.35's traces, test-suite-tcp-init-win.tcl tahoe2).
    opening_data_without_headers: true,
    // tcp.cc: `output()` sends packet 0 when `send_much` first finds data (`sendmsg`)
    opens_with_first_write: true,
    // tcp-sink.cc DelAckSink::recv delays a CE-marked packet's ACK like any other; ack() sets
    // the ECN-echo bit on the ACK it sends (ecn_unacked_ until the sender's CWR).
    ece_acked_at_once: false,
    // tcp-sink.cc DelAckSink::recv: with no timer pending and `th->seqno() ==
    // acker_->Seqno()` (a repeat of the highest in-order packet counts too) and nothing seen
    // above it (RFC2581_immediate_ack_), the ACK is saved and the timer started.
    repeat_of_last_segment_ack_delayed: true,
    // tcp.cc output() leaves rtt_active_ alone for a seqno at or below maxseq_ (a SACK or
    // partial-ACK retransmission); reset_rtx_timer() clears it, from dupack_action (the fast
    // retransmit, tcp-reno.cc, tcp-sack1.cc) and timeout().
    retransmission_keeps_timed_segment: true,
    // tcp.cc slowdown(): cong_action_ = TRUE whenever it closes cwnd_ (CLOSE_CWND_HALF,
    // _RESTART, _INIT, _ONE), and output() puts it on the next packet, retransmissions
    // included (SetCWRonRetransmit_ true, ns-default.tcl). Vegas has its own output().
    cwr_after_every_reduction: true,
    // tcp.cc / tcp-reno.cc / tcp-vegas.cc recv: `tcph->seqno() == last_ack_` counts a
    // duplicate, whatever is outstanding.
    dupack_without_data_outstanding: true,
    // Seen in ns-2.35's traces: the ACK of an ECN agent's opening packet is flagged `C`.
    opening_ack_echoes_ece: true,
    syn_ack_retransmission_timer: false,
    // tcp.cc: the opening packet is timed by the agent's RTO (rtxcur_init_), like data.
    syn_timer_is_conn_timeout: false,
    // TCPSink advertises no window (tcp-sink.cc ack() leaves it to the agent's window_); with a
    // finite recv_buffer bufferlab keeps the free-space window (the rfc flavour's rule).
    rx_window_from_next_expected: false,
    // tcp.cc rtt_update(): t_srtt_ and t_rttvar_ fixed-point in ticks of tcpTick_, rtt_timeout()
    // rounds up to whole ticks.
    rto_in_ticks: true,
    // tcp.cc headersize(): tcpip_base_hdr_size_ + ts_option_size_ with ts_option_ (data
    // packets: output adds it in the else of `if (seqno == 0)`); rtt_update: with ts_option_
    // t_rtt_ = int(tao / tcp_tick_ + 0.5); newack: t_backoff_ = 1 only for the timed packet
    // unless ts_resetRTO_.
    timestamps_as_ns2_agent: true,
    // tcp-sink.cc Acker::update_ts (ts_echo_bugfix_ true: ack() echoes ts_to_echo_).
    ts_echo_as_ns2_acker: true,
    // tcp-reno.cc dupack_action(): reset_rtx_timer(1, 0) after the fast retransmission.
    restart_timer_on_head_retransmit: true,
    // tcp.cc newack() -> newtimer() rearms the timer on the last new ACK (t_seqno_ > its
    // seqno); timeout() with highest_ack_ == maxseq_, slow_start_restart_ and restart_bugfix_
    // calls slowdown(CLOSE_CWND_ONE|NO_OUTSTANDING_DATA) and rearms it without backoff.
    idle_timeout_closes_cwnd_to_one: true,
    // ns-source.tcl Application/FTP stop: `advance 0` sets curseq_ = maxseq_ (tcp.cc command);
    // send_much and send_one send while t_seqno_ < curseq_, so not packet maxseq_ again.
    stop_withholds_highest_sent: true,
    // tcp.cc slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF) with precision_reduce_: windowd() =
    // min(cwnd_, window_) in packets; tcp-reno.cc window() = cwnd_ + dupwnd_; tcp-vegas.cc
    // timeout halves the same window.
    agent_window_halving: true,
    // tcp.cc dupack_action() bugfix_ss_: highest_ack_ == 0 also starts a fast retransmit.
    fast_retransmit_when_first_segment_lost: true,
    // tcp.cc recv(): send_much only when dupacks_ is 0 or >= numdupacks_ (send_one on the first
    // and second duplicate is limited transmit, `singledup_`).
    send_on_early_dupacks: false,
    // tcp.cc dupack_action() tahoe_action: slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_ONE), then
    // reset_rtx_timer(0, 0): set_rtx_timer(), t_seqno_ = highest_ack_ + 1 (mild 0), rtt_active_
    // = 0; recv's send_much sends from t_seqno_, and newack() keeps t_seqno_ >= last_ack_ + 1.
    tahoe_fast_retransmit_goes_back_n: true,
    // tcp.cc timeout() leaves dupacks_ alone (newack() is the only reset); tcp-reno.cc
    // RenoTcpAgent::timeout sets dupacks_ = 0 before it, so Reno and NewReno clear it.
    tahoe_timeout_keeps_dupacks: true,
    // tcp-newreno.cc partialnewack_helper with newreno_changes1_ 1 (ns-default.tcl, "Default
    // changed to 1 on 5/5/03"): newtimer() only while firstpartial_ is 0; the hole goes out with
    // output(last_ack_ + 1, 0), which sets the timer only when none is pending (tcp.cc output).
    partial_ack_restarts_timer_once: true,
    // tcp-newreno.cc partialnewack with partial_window_deflation_ 1 (ns-default.tcl): dupwnd_ -=
    // deflate - 1 while dupwnd_ > deflate, else cwnd_ -= deflate - dupwnd_ and dupwnd_ = 1.
    partial_ack_deflates_inflation_first: true,
    // tcp-newreno.cc recv with exit_recovery_fix_ 0 (ns-default.tcl): at seqno >= recover_ only
    // dupwnd_ = 0; cwnd_ keeps its value, then recv_newack_helper -> opencwnd().
    recovery_exit_keeps_reduced_window: true,
    // tcp-newreno.cc recv with newreno_changes_ 0: send_much(0, 0, 2) while dupacks_ >
    // numdupacks_ - 1 (partialnewack does not reset dupacks_, so all of recovery).
    recovery_burst_limit: Some(2),
    sack_sender_by_states: false,
    nagle_minshall: false,
    ecn_echo_enters_cwr: false,
    // tcp-sack1.cc (Agent/TCP/Sack1 with ns-default.tcl's partial_ack_ 0, LimTransmitFix_ 0):
    // recv, dupack_action, send_much, timeout and ScoreBoardRQ::GetNextRetran
    // (scoreboard-rq.cc); each rule in tcp/sender/ns2_sack1.rs.
    sack_sender_as_ns2_sack1: true,
    // tcp/linux/tcp_linux.cc (LinuxTcpAgent recv, tcp_fastretrans_alert, send_much, timeout)
    // and scoreboard1.cc (ScoreBoard1); each rule in tcp/sender/ns2_linux.rs.
    ns2_linux_agent: true,
    // tcp-sink.cc Sacker::append_ack and SackStack (maxSackBlocks_ 3, ns-default.tcl).
    sack_blocks_from_ns2_stack: true,
    remember_retransmitted_ranges: false,
    prr: None,
    // ns-2.35 has no RACK or TLP.
    rack_tlp: false,
    timeout_keeps_sack: false,
    linux_ack_policy: false,
    dsack: false,
    // ns-2.35 has no delivery-rate estimation; Linux's rule.
    rate_sample_persists: false,
    // ns-2.35 has no rate sampling; ns-3's count keeps BBR under ns2_rules as before.
    rate_sample_losses_abs_diff: true,
    segment_counting_newreno: false,
    linux_reno_keeps_ack_count: false,
    // tcp-vegas.cc: set_initial_window() gives cwnd_ 1 (syn_ and delay_growth_), recv raises it
    // to windowInit_ on the second new ACK; the fine-grained RTT of VegasTcpAgent::recv.
    vegas_as_ns2_agent: true,
    // tcp-vegas.cc recv (the duplicate-ACK branch, v_worried_, v_timeout_), vegas_expire,
    // output (v_sendtime_, v_transmits_) and timeout (t_cwnd_changed_).
    vegas_fine_grained_retransmit: true,
    // ns-2.35 has no CUBIC agent: the ns2 preset runs RFC 9438 with RFC 5681 slow start.
    cubic_as_ns3_tcp_cubic: false,
    cubic_hystart: None,
    // ns-2.35 has no BBR; the ns-3 choice (no long-term sampling) keeps BBR as in the bench.
    bbr_lt_bw_sampling: false,
    // ns-2.35 has no DCTCP agent: RFC 8257 section 3.3.
    dctcp_loss_uses_alpha: false,
    // Linux dctcp_ssthresh: max(cwnd - cwnd * alpha / 2, 2U)
    dctcp_two_segment_floor: true,
    // ns-2.35's agents set ECT on data packets only (tcp.cc output: hf->ect() with ecn_).
    ect_on_every_packet: false,
};
