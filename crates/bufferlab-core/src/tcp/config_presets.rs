//! The named presets a flow's `tcp` table starts from (`preset = "ns2" | "ns3" | "linux"`):
//! every value written next to its source (ns-2.35 `ns-default.tcl` and `tcp.cc`,
//! ns-3.44's attribute defaults, Linux 6.x's `include/net/tcp.h` and sysctls, the RFCs; see the
//! sources in `tcp/config.rs`). docs/models/tcp.md has the same table.

use super::cc::prague_classic_ecn::EcnFallback;
use super::cc::prague_rate::CwndMode;
use super::config::EcnFeedbackScheme;
use super::config::{CcKind, Preset, TcpParams, UNLIMITED};
use super::flavour::Flavour;
use super::ns2_agent::Ns2Agent;
use crate::units::SimTime;

impl TcpParams {
    /// The values of a preset.
    pub fn preset(p: Preset) -> TcpParams {
        match p {
            Preset::Ns2 => ns2(),
            Preset::Ns3 => ns3(),
            Preset::Linux => linux(),
        }
    }
}

/// ns-2.35 tcl/lib/ns-default.tcl (Agent/TCP, Agent/TCPSink) and paper scripts' agents.
fn ns2() -> TcpParams {
    TcpParams {
        preset: Preset::Ns2,
        cc: CcKind::Reno,  // Agent/TCP/Reno, the seed papers' TCP (paper D, B, C)
        mss: 1000,         // packetSize_ 1000
        header: 40,        // tcpip_base_hdr_size_ 40 (ns-2 adds it to packetSize_)
        ack_size: 40,      // Agent/TCPSink packetSize_ 40
        syn_options: 0,    // ns-2 packets carry no TCP options
        use_headers: true, // useHeaders_ true
        sack_option_base: Some(0), // tcp-sink.cc Sacker::append_ack: += 8 per SACK block
        iw: 2,             // windowInit_ 2
        iw_after_syn_loss: 1,
        initial_ssthresh: 20 * 1000, // tcp.cc TcpAgent::reset(): ssthresh_ = int(wnd_)
        ssthresh_after_syn_loss: None,
        max_window: 20 * 1000,  // window_ 20 (packets)
        send_buffer: UNLIMITED, // one-way agents: FTP always has data
        recv_buffer: UNLIMITED, // TCPSink has no receive buffer
        max_adv_window: UNLIMITED,
        sack: false,        // Agent/TCP/Reno + TCPSink (Sack1 is a separate agent)
        delayed_ack: false, // TCPSink ACKs every packet (TCPSink/DelAck is separate)
        delack_count: 2,
        delack_timeout: SimTime::from_millis(100), // TCPSink/DelAck interval_ 100ms
        nagle: false,                              // one-way agents send whole packets
        ecn: false,                                // ecn_ 0
        // syn_ true + delay_growth_ true: packet 0 is a 40-byte opening packet sent
        // alone (cwnd_ 1); windowInit_ applies once it is acknowledged (tcp.cc output,
        // tcp-reno.cc recv). No third segment (`ns2_rules`).
        handshake: true,
        timestamps: false, // timestamps_ false: one timed packet per RTT (rtt_seq_)
        initial_rto: SimTime::from_secs(3), // rtxcur_init_ 3.0
        min_rto: SimTime::from_millis(200), // minrto_ 0.2
        max_rto: SimTime::from_secs(60), // maxrto_ 60
        clock_granularity: SimTime::from_millis(10), // tcpTick_ 0.01
        // boot_time_: ns-2 draws it per agent (tcp.cc reset); 0 unless given, so a
        // scenario's tick boundaries are multiples of tcpTick_
        clock_phase: SimTime::ZERO,
        dupack_threshold: 3,      // numdupacks_ 3
        slow_start_restart: true, // slow_start_restart_ true
        limited_transmit: true,   // singledup_ 1 (tcp.cc send_one)
        flavour: Flavour::Ns2,    // ns-2.35's agents (tcp/flavour/ns2.rs)
        prr: false,
        rack_tlp: false,         // ns-2.35 has no RACK-TLP
        linux_ack_policy: false, // TCPSink's fixed rules
        dsack: false,            // Sack1's sink sends none (generateDSacks_ false)
        slow_start: None,        // ns-2.35: no HyStart
        vegas_alpha: 1.0,        // Agent/TCP/Vegas v_alpha_ 1
        vegas_beta: 3.0,         // v_beta_ 3
        vegas_gamma: 1.0,        // v_gamma_ 1
        cubic_c: 0.4,
        cubic_beta: 0.7,
        cubic_fast_convergence: true,
        dctcp_g: 0.0625,       // RFC 8257 section 4.2 (ns-2.35 has no DCTCP)
        dctcp_alpha_init: 1.0, // Linux dctcp_alpha_on_init
        prague_rtt_target: SimTime::from_millis(25), // tcp_prague.c prague_rtt_target
        prague_ecn_fallback: EcnFallback::Off, // tcp_prague.c prague_ecn_fallback 0
        prague_cwnd_mode: CwndMode::Window, // prague_cwnd_mode 0 (v0.7's default is 2)
        ecn_feedback: EcnFeedbackScheme::Classic, // RFC 3168 / RFC 8257 section 3.2
        pacing: false,         // ns-2.35's agents do not pace
        pacing_ss_ratio: 200.0,
        pacing_ca_ratio: 120.0,
        unscheduled_bytes: 0, // mainline stacks tag no packet unscheduled (ABM, abm.rs)
        ns2: Ns2Agent::default(),
        full: None,
    }
}

/// ns-3.44 TcpSocket / TcpSocketBase attribute defaults.
fn ns3() -> TcpParams {
    TcpParams {
        preset: Preset::Ns3,
        cc: CcKind::Newreno, // TcpL4Protocol SocketType = TcpNewReno
        mss: 536,            // TcpSocket SegmentSize 536
        header: 52,          // IPv4 20 + TCP 20 + timestamp option 12 (Timestamp true)
        ack_size: 52,
        // TcpHeader pads the sum of its options to 4 bytes: a SYN's window scale (3),
        // SACK permitted (2) and timestamp (10) take 16; an ACK's timestamp (10) and
        // SACK (2 + 8n) take 12 + 8n (TcpSocketBase::AddOptions, TcpHeader::Serialize).
        syn_options: 4,
        use_headers: true,
        sack_option_base: Some(0),
        iw: 10, // TcpSocket InitialCwnd 10
        // ns-3 DoForwardUp sets cwnd = InitialCwnd on every SYN-ACK, lost SYN or not
        // (`resolve` keeps it equal to `iw` under `ns3_rules`).
        iw_after_syn_loss: 10,
        initial_ssthresh: UNLIMITED, // InitialSlowStartThreshold UINT32_MAX
        ssthresh_after_syn_loss: None,
        max_window: UNLIMITED,
        send_buffer: 131_072,      // SndBufSize 131072
        recv_buffer: 131_072,      // RcvBufSize 131072
        max_adv_window: UNLIMITED, // WindowScaling true
        sack: true,                // Sack true
        delayed_ack: true,
        delack_count: 2,                           // DelAckCount 2
        delack_timeout: SimTime::from_millis(200), // DelAckTimeout 200ms
        nagle: false,                              // TcpNoDelay true
        ecn: false,                                // UseEcn Off
        handshake: true,
        timestamps: true,                           // Timestamp true
        initial_rto: SimTime::from_secs(1),         // RttEstimator InitialEstimation 1s
        min_rto: SimTime::from_secs(1),             // MinRto 1s
        max_rto: SimTime::from_secs(60),            // backoff capped at 60 s (ReTxTimeout)
        clock_granularity: SimTime::from_millis(1), // ClockGranularity 1ms
        clock_phase: SimTime::ZERO,                 // ns-2's tick clock only
        dupack_threshold: 3,                        // ReTxThreshold 3
        slow_start_restart: false,
        // LimitedTransmit true; with SACK, ns-3 sends by the pipe in CA_DISORDER, which
        // is what `ns3_rules` models (tcp-socket-base.cc DupAck, AvailableWindow).
        limited_transmit: true,
        flavour: Flavour::Ns3,   // ns-3.44's TcpSocketBase (tcp/flavour/ns3.rs)
        prr: true,               // TcpSocketBase RecoveryType = TcpPrrRecovery
        rack_tlp: false,         // ns-3.44 has no RACK-TLP
        linux_ack_policy: false, // TcpSocketBase's DelAckCount / DelAckTimeout
        dsack: false,            // ns-3.44's TcpSocketBase sends no D-SACK
        slow_start: None,        // TcpCubic's HyStart (flavour rule cubic_hystart)
        vegas_alpha: 2.0,        // TcpVegas Alpha 2
        vegas_beta: 4.0,         // Beta 4
        vegas_gamma: 1.0,        // Gamma 1
        cubic_c: 0.4,            // TcpCubic C 0.4
        cubic_beta: 0.7,         // Beta 0.7
        cubic_fast_convergence: true,
        dctcp_g: 0.0625,                             // TcpDctcp DctcpShiftG 0.0625
        dctcp_alpha_init: 1.0,                       // TcpDctcp DctcpAlphaOnInit 1.0
        prague_rtt_target: SimTime::from_millis(25), // no Prague in ns-3.44: Linux's
        prague_ecn_fallback: EcnFallback::Off,       // tcp_prague.c prague_ecn_fallback 0
        prague_cwnd_mode: CwndMode::Window,          // prague_cwnd_mode 0 (v0.7's default is 2)
        ecn_feedback: EcnFeedbackScheme::Classic,    // RFC 3168 / RFC 8257 section 3.2
        pacing: false,                               // TcpSocketState EnablePacing false
        pacing_ss_ratio: 200.0,                      // TcpSocketState PacingSsRatio 200
        pacing_ca_ratio: 120.0,                      // TcpSocketState PacingCaRatio 120
        unscheduled_bytes: 0, // mainline stacks tag no packet unscheduled (ABM, abm.rs)
        ns2: Ns2Agent::default(),
        full: None,
    }
}

/// Linux 6.x host defaults.
fn linux() -> TcpParams {
    TcpParams {
        preset: Preset::Linux,
        cc: CcKind::Cubic, // net.ipv4.tcp_congestion_control = cubic
        mss: 1448,         // 1500-byte MTU minus 52 bytes of headers
        header: 52,        // IPv4 20 + TCP 20 + timestamps 12
        ack_size: 52,
        // tcp_output.c tcp_options_write: a SYN's MSS (4), SACK permitted + timestamp
        // (12) and NOP + window scale (4) take 20; SACK blocks come as NOP NOP kind
        // length (4) + 8n after the aligned timestamp.
        syn_options: 8,
        use_headers: true,
        sack_option_base: Some(4),
        iw: 10, // TCP_INIT_CWND 10 (RFC 6928)
        iw_after_syn_loss: 1,
        initial_ssthresh: UNLIMITED, // TCP_INFINITE_SSTHRESH
        ssthresh_after_syn_loss: None,
        max_window: UNLIMITED,
        send_buffer: 4_194_304,    // tcp_wmem max (autotuning upper bound)
        recv_buffer: 6_291_456,    // tcp_rmem max (autotuning upper bound)
        max_adv_window: UNLIMITED, // window scaling on
        sack: true,                // tcp_sack 1
        delayed_ack: true,
        delack_count: 2, // ACK every second full segment (__tcp_ack_snd_check)
        delack_timeout: SimTime::from_millis(40), // TCP_DELACK_MIN
        nagle: true,     // TCP_NODELAY off
        ecn: false,      // tcp_ecn 2: only when asked
        handshake: true,
        timestamps: true,                           // tcp_timestamps 1
        initial_rto: SimTime::from_secs(1),         // TCP_TIMEOUT_INIT (RFC 6298)
        min_rto: SimTime::from_millis(200),         // TCP_RTO_MIN
        max_rto: SimTime::from_secs(120),           // TCP_RTO_MAX
        clock_granularity: SimTime::from_millis(1), // jiffies at HZ=1000
        clock_phase: SimTime::ZERO,                 // ns-2's tick clock only
        dupack_threshold: 3,                        // tcp_reordering 3
        slow_start_restart: true,                   // tcp_slow_start_after_idle 1
        limited_transmit: false, // Linux does RFC 3042; not modelled in this preset yet
        // the RFCs, and Linux's own recovery where they leave it open (tcp/flavour/linux.rs)
        flavour: Flavour::Linux,
        // PRR in fast recovery: tcp_input.c tcp_cwnd_reduction, on since Linux 3.2
        // (no sysctl turns it off; tcp/sender/prr_linux.rs)
        prr: true,
        // RACK-TLP: sysctl tcp_recovery 1 (RACK, default since 4.18) and
        // tcp_early_retrans 3 (TLP); tcp/rack.rs, tcp/sender/rack_tlp.rs
        rack_tlp: true,
        // tcp_input.c / tcp_output.c / tcp_timer.c: quick-ACK mode, ato, SACK compression
        // (no sysctl turns them off; tcp/linux_ack.rs)
        linux_ack_policy: true,
        // sysctl tcp_dsack 1: D-SACKs sent (tcp_dsack_set) and read (tcp_check_dsack), with
        // the undo of spurious reductions (tcp/sender/dsack_undo.rs)
        dsack: true,
        // tcp_cubic.c's HyStart (flavour rule cubic_hystart); no HyStart++ in Linux
        slow_start: None,
        vegas_alpha: 2.0, // tcp_vegas alpha 2
        vegas_beta: 4.0,  // beta 4
        vegas_gamma: 1.0, // gamma 1
        cubic_c: 0.4,     // RFC 9438 C
        cubic_beta: 0.7,  // beta 717/1024
        cubic_fast_convergence: true,
        dctcp_g: 0.0625,                             // tcp_dctcp.c dctcp_shift_g 4
        dctcp_alpha_init: 1.0, // tcp_dctcp.c dctcp_alpha_on_init DCTCP_MAX_ALPHA
        prague_rtt_target: SimTime::from_millis(25), // tcp_prague.c prague_rtt_target
        prague_ecn_fallback: EcnFallback::Off, // tcp_prague.c prague_ecn_fallback 0
        prague_cwnd_mode: CwndMode::Window, // prague_cwnd_mode 0 (v0.7's default is 2)
        ecn_feedback: EcnFeedbackScheme::Classic, // RFC 3168 / RFC 8257 section 3.2
        // the default qdisc (fq_codel) gives no pacing to CUBIC (tcp_needs_internal_pacing)
        pacing: false,
        pacing_ss_ratio: 200.0, // sysctl tcp_pacing_ss_ratio 200
        pacing_ca_ratio: 120.0, // sysctl tcp_pacing_ca_ratio 120
        unscheduled_bytes: 0,   // mainline stacks tag no packet unscheduled (ABM, abm.rs)
        ns2: Ns2Agent::default(),
        full: None,
    }
}
