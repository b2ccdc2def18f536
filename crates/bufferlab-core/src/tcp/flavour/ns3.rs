//! ns-3.44's `TcpSocketBase` (`ns3_rules`, on with the `ns3` preset):
//! `src/internet/model/tcp-socket-base.cc` and its helpers (`tcp-tx-buffer.cc`,
//! `tcp-prr-recovery.cc`, `tcp-congestion-ops.cc`, `tcp-linux-reno.cc`). The SACK sender's
//! algorithm is `tcp/sender/ns3.rs`; the unit tests are in `tcp/tests.rs` under "ns-3.44
//! TcpSocketBase rules", and `tests/tcp_ns3.rs` checks five flows packet for packet.

use super::{HystartVariant, PrrVariant, Rules};

pub const RULES: Rules = Rules {
    // ProcessSynSent: the SYN-ACK is answered with an ACK.
    third_handshake_segment: true,
    ssthresh_two_segments_after_syn_loss: false,
    backoff_kept_after_syn_loss: false,
    // DoForwardUp: cwnd and ssthresh are initialised on every SYN received, even established.
    syn_ack_resets_window: true,
    // DoForwardUp handles the SYN in ProcessEstablished's "else" branch: no ACK processing.
    repeated_syn_ack_is_an_ack: false,
    // ProcessSynSent keeps m_initialCWnd after a SYN retransmission (no RFC 5681 3.1 rule).
    full_initial_window_after_syn_loss: true,
    // ProcessSynRcvd: "Always respond to first data packet to speed up the connection".
    first_data_acked_at_once: true,
    opening_data_acked_at_once: false,
    opening_data_without_headers: false,
    // TcpSocketBase::Connect sends the SYN at once
    opens_with_first_write: false,
    ece_acked_at_once: true,
    // tcp-socket-base.cc ReceivedData: a segment below m_rxBuffer's next sequence is
    // answered with an ACK at once.
    repeat_of_last_segment_ack_delayed: false,
    // tcp-socket-base.cc: a retransmitted segment is never an RTT sample (m_history marks
    // it retransmitted; Karn).
    retransmission_keeps_timed_segment: false,
    // tcp-socket-base.cc: CWR after an ECN reduction only (m_ecnState ECN_CWR_SENT).
    cwr_after_every_reduction: false,
    // tcp-socket-base.cc ReceivedAck: a duplicate only while bytes are in flight.
    dupack_without_data_outstanding: false,
    opening_ack_echoes_ece: false,
    // SendEmptyPacket in SYN_RCVD: ConnTimeout 3 s, doubled, SynRetries transmissions.
    syn_ack_retransmission_timer: true,
    // SendEmptyPacket with SYN: m_rto = m_cnTimeout (ConnTimeout 3 s) * 2^(SynRetries - m_synCount).
    syn_timer_is_conn_timeout: true,
    // AdvertisedWindowSize: MaxRxSequence() - NextRxSequence(); TcpRxBuffer::MaxRxSequence is
    // m_nextRxSeq + m_maxBuffer unless in-order data waits to be read (then the first buffered
    // byte + m_maxBuffer): out-of-order data above m_nextRxSeq does not shrink the window.
    rx_window_from_next_expected: true,
    rto_in_ticks: false,
    // the header (52) already holds the timestamp option; RFC 6298 samples.
    timestamps_as_ns2_agent: false,
    // RFC 7323 section 4.3: TS.Recent from the segment at the left edge.
    ts_echo_as_ns2_acker: false,
    // SendDataPacket starts the timer only when it is not running.
    restart_timer_on_head_retransmit: false,
    // no idle timeout: the preset runs without slow_start_restart (the RFC rule where set).
    idle_timeout_closes_cwnd_to_one: false,
    stop_withholds_highest_sent: false,
    // EnterRecovery / ReTxTimeout: ssthresh from BytesInFlight() (the controller's GetSsThresh).
    agent_window_halving: false,
    fast_retransmit_when_first_segment_lost: false,
    send_on_early_dupacks: true,
    // ns-3.44 has no Tahoe: the RFC flavour's fast retransmit.
    tahoe_fast_retransmit_goes_back_n: false,
    // ns-3.44 has no Tahoe.
    tahoe_timeout_keeps_dupacks: false,
    // Without SACK the sender runs RFC 6582 as the RFC flavour (NewAck reschedules m_retxEvent
    // on every ACK of new data; ExitRecovery sets cwnd to ssthresh).
    partial_ack_restarts_timer_once: false,
    partial_ack_deflates_inflation_first: false,
    recovery_exit_keeps_reduced_window: false,
    recovery_burst_limit: None,
    // ProcessAck, DupAck, SendPendingData, ReTxTimeout: the congestion states and the SACK pipe.
    sack_sender_by_states: true,
    // ns-3's Nagle (TcpSocketBase::SendPendingData: hold while UnAckDataCount() > 0)
    nagle_minshall: false,
    // tcp-socket-base.cc EnterCwr, ReceivedAck (CA_CWR exit), ProcessAck (CA_CWR: DoRecovery).
    ecn_echo_enters_cwr: true,
    sack_sender_as_ns2_sack1: false,
    ns2_linux_agent: false,
    sack_blocks_from_ns2_stack: false,
    // TcpTxBuffer: m_retrans marks on the sent list.
    remember_retransmitted_ranges: true,
    // TcpPrrRecovery, the default RecoveryType.
    prr: Some(PrrVariant::Ns3),
    // ns-3.44 has no RACK or TLP (its recovery ops are TcpClassicRecovery and TcpPrrRecovery).
    rack_tlp: false,
    timeout_keeps_sack: false,
    linux_ack_policy: false,
    dsack: false,
    // tcp-rate-ops.cc: m_rateSample is a member (SkbDelivered compares with its
    // m_priorDelivered, GenerateSample returns it with the last m_deliveryRate).
    rate_sample_persists: true,
    // tcp-socket-base.cc ReceivedAck: GenerateSample(..., std::abs(lost - previousLost), ...).
    rate_sample_losses_abs_diff: true,
    // TcpNewReno::SlowStart / CongestionAvoidance: whole segments, integer MSS^2/cwnd.
    segment_counting_newreno: true,
    // TcpLinuxReno never clears m_cWndCnt.
    linux_reno_keeps_ack_count: true,
    vegas_as_ns2_agent: false,
    // ns-3.44's TcpVegas changes the window only; recovery is TcpSocketBase's.
    vegas_fine_grained_retransmit: false,
    // tcp-cubic.cc (ns-3.44): IncreaseWindow, Update, GetSsThresh, PktsAcked(m_srtt),
    // CubicReset without m_lastMaxCwnd (issue #1085).
    cubic_as_ns3_tcp_cubic: true,
    // TcpCubic HyStart true, HyStartDetect BOTH (HystartUpdate).
    cubic_hystart: Some(HystartVariant::Ns3),
    // ns-3.44 tcp-bbr.cc has no long-term (policer) bandwidth sampling.
    bbr_lt_bw_sampling: false,
    // TcpDctcp::GetSsThresh serves the ECN echo and a loss alike.
    dctcp_loss_uses_alpha: true,
    // TcpDctcp::GetSsThresh: (1 - alpha / 2) * cWnd, no floor.
    dctcp_two_segment_floor: false,
    // TcpDctcp::Init: m_ecnMode = DctcpEcn; AddSocketTags then tags every packet ECT.
    ect_on_every_packet: true,
};
