"""ns-2's classes as bufferlab models them: their heritage (a class's parent is its name up to
the last "/"), ns-2.35's defaults of their variables (``tcl/lib/ns-default.tcl``, checked with
``ns`` itself: ``NS_DEFAULTS``), and the tables that say which agents, sinks, applications
and queues are modelled.
"""

from __future__ import annotations

from bufferlab.ns2.rng import RANVAR_DEFAULTS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# ns-2.35 defaults of the classes bufferlab models (ns-default.tcl). A class inherits its
# parent's (the name up to its last "/").
NS_DEFAULTS: dict[str, dict[str, str]] = {
    "Agent": {"fid_": "0", "prio_": "0", "class_": "0", "packetSize_": "1000"},
    "Agent/TCP": {
        "window_": "20",
        "windowInit_": "2",
        "packetSize_": "1000",
        "tcpTick_": "0.01",
        "maxburst_": "0",
        "minrto_": "0.2",
        "maxrto_": "60",
        "rtxcur_init_": "3.0",
        "syn_": "true",
        "numdupacks_": "3",
        "ecn_": "0",
        "timestamps_": "false",
        "slow_start_restart_": "true",
        "singledup_": "1",
        "ssthresh_": "0",
        "maxcwnd_": "0",
        "overhead_": "0",
        "windowOption_": "1",
        "delay_growth_": "true",
        "bugfix_ss_": "1",
        "precisionReduce_": "true",
        "windowInitOption_": "1",
        "rfc2988_": "true",
        "useHeaders_": "true",
        "cwnd_": "1",
        "ack_": "-1",
        "t_seqno_": "0",
        "ndatapack_": "0",
        "ndatabytes_": "0",
        "nrexmitpack_": "0",
        "nrexmitbytes_": "0",
        "nrexmit_": "0",
        "nackpack_": "0",
        "rtt_": "0",
        "srtt_": "0",
        # tcp.cc rtt_init: t_rttvar_ = rttvar_init_ (12 s) in tcpTick_ (10 ms) ticks, << 2
        "rttvar_": "4800",
        "backoff_": "1",
        "maxseq_": "-1",
        "dupacks_": "0",
        # ns-default.tcl: the RTT estimator's fixed-point shifts (tcp.h T_SRTT_BITS 3,
        # T_RTTVAR_BITS 2)
        "T_SRTT_BITS": "3",
        "T_RTTVAR_BITS": "2",
    },
    "Agent/TCP/Vegas": {"v_alpha_": "1", "v_beta_": "3", "v_gamma_": "1"},
    # ns-default.tcl's Agent/TCP/Linux lines (printed by ns-2.35: `Agent/TCP/Linux info vars`)
    "Agent/TCP/Linux": {
        "rtxcur_init_": "3",
        "maxrto_": "120",
        "minrto_": "0.2",
        "ts_resetRTO_": "true",
        "next_pkts_in_flight_": "0",
        "delay_growth_": "false",
    },
    "Agent/TCPSink": {"packetSize_": "40", "maxSackBlocks_": "3", "bytes_": "0"},
    "Agent/TCPSink/DelAck": {"interval_": "100ms"},
    "Agent/TCPSink/Sack1/DelAck": {"interval_": "100ms"},
    "Agent/UDP": {"packetSize_": "1000"},
    "Agent/LossMonitor": {
        "bytes_": "0",
        "npkts_": "0",
        "nlost_": "0",
        "lastPktTime_": "0",
        "expected_": "-1",
    },
    "Queue": {"limit_": "50", "blocked_": "false", "unblock_on_resume_": "true"},
    "Queue/DropTail": {
        "drop_front_": "false",
        "queue_in_bytes_": "false",
        "mean_pktsize_": "500",
        "summarystats_": "false",
    },
    "Queue/RED": {
        "bytes_": "true",
        "queue_in_bytes_": "true",
        "thresh_": "0",
        "maxthresh_": "0",
        "mean_pktsize_": "500",
        "q_weight_": "-1",
        "wait_": "true",
        "linterm_": "10",
        "setbit_": "false",
        "gentle_": "true",
        "drop_tail_": "true",
        "drop_front_": "false",
        "drop_rand_": "false",
        "adaptive_": "0",
        "use_mark_p_": "true",
        "mark_p_": "0.1",
        "targetdelay_": "0.005",
        "cautious_": "0",
        "alpha_": "0.01",
        "beta_": "0.9",
        "interval_": "0.5",
        "top_": "0.5",
        "bottom_": "0",
        "feng_adaptive_": "0",
        "idle_pktsize_": "100",
        "ns1_compat_": "false",
        "summarystats_": "false",
        "ave_": "0",
        "curq_": "0",
    },
    "Queue/DRR": {"buckets_": "10", "blimit_": "25000", "quantum_": "250", "mask_": "0"},
    "Queue/SFQ": {"maxqueue_": "40", "buckets_": "16"},
    # ns-default.tcl (printed by ns-2.35: `Queue/PI set a_` 0.00001822, ...)
    "Queue/PI": {
        "a_": "0.00001822",
        "b_": "0.00001816",
        "w_": "170",
        "qref_": "50",
        "mean_pktsize_": "500",
        "bytes_": "false",
        "queue_in_bytes_": "false",
        "setbit_": "false",
        "prob_": "0",
        "curq_": "0",
    },
    # ns-default.tcl (printed by ns-2.35: `Queue/REM set gamma_` 0.001, ...)
    "Queue/REM": {
        "gamma_": "0.001",
        "phi_": "1.001",
        "inw_": "1",
        "mean_pktsize_": "1000",
        "pupdtime_": "0.002",
        "pbo_": "20.0",
        "prob_": "0.0",
        "curq_": "0.0",
        "pmark_": "0.0",
        "markpkts_": "false",
        "qib_": "false",
    },
    # ns-default.tcl (printed by ns-2.35: `Queue/RED/RIO set in_thresh_` 15, ...); the other
    # variables are Queue/RED's
    "Queue/RED/RIO": {
        "in_thresh_": "15",
        "in_maxthresh_": "30",
        "in_linterm_": "50",
        "out_thresh_": "5",
        "out_maxthresh_": "15",
        "out_linterm_": "5",
        "in_gentle_": "false",
        "out_gentle_": "false",
        "priority_method_": "0",
        "thresh_": "5",
        "maxthresh_": "15",
        "linterm_": "10",
        "q_weight_": "0.002",
        "mean_pktsize_": "500",
        "gentle_": "false",
        "wait_": "true",
        "bytes_": "false",
        "queue_in_bytes_": "false",
        "setbit_": "false",
        "in_ave_": "0.0",
        "out_ave_": "0.0",
        "in_prob1_": "0.0",
        "out_prob1_": "0.0",
    },
    # apps/telnet.cc binds interval_; ns-default.tcl gives 1.0 (printed by `ns`)
    "Application/Telnet": {"interval_": "1.0"},
    "Application/Traffic/CBR": {
        "rate_": "448Kb",
        "packetSize_": "210",
        "random_": "0",
        "maxpkts_": "268435456",
    },
    "Application/Traffic/Exponential": {
        "burst_time_": ".5",
        "idle_time_": ".5",
        "rate_": "64Kb",
        "packetSize_": "210",
    },
    "Application/Traffic/Pareto": {
        "burst_time_": "500ms",
        "idle_time_": "500ms",
        "rate_": "64Kb",
        "packetSize_": "210",
        "shape_": "1.5",
    },
    "ErrorModel": {
        "rate_": "0",
        "enable_": "1",
        "markecn_": "false",
        "delay_pkt_": "false",
        "delay_": "0",
    },
    # delay.cc's bound variables and delayer.cc's (ns-default.tcl)
    "DelayLink": {
        "bandwidth_": "1.5Mb",
        "delay_": "100ms",
        "debug_": "false",
        "avoidReordering_": "false",
    },
    "Delayer": {"debug_": "false"},
    # PeriodicErrorModel's bound variables (ns-default.tcl; printed with `ns`)
    "ErrorModel/Periodic": {
        "offset_": "0",
        "period_": "1",
        "burstlen_": "0",
        "default_drop_": "0",
    },
    # trace.cc's bound variables (ns-default.tcl; `Trace info vars` under `ns`): the traces made
    # after `Trace set show_tcphdr_ 1` write the TCP header's fields (traces.py)
    "Trace": {
        "src_": "-1",
        "dst_": "-1",
        "callback_": "0",
        "show_tcphdr_": "0",
        "show_sctphdr_": "0",
        "debug_": "false",
    },
    **RANVAR_DEFAULTS,
}

# ns-2.35's FullTcp agents (tcp/tcp-full.cc; ns-default.tcl's `Agent/TCP/FullTcp set ...`
# lines, printed by `ns`: `[new Agent/TCP/FullTcp] set segsize_` 536, ...). Tahoe's and
# Newreno's `instproc init` set reno_fastrecov_ / open_cwnd_on_pack_ false on the object.
FULL_TCP_DEFAULTS: dict[str, dict[str, str]] = {
    "Agent/TCP/FullTcp": {
        "segsperack_": "1",
        "spa_thresh_": "0",
        "segsize_": "536",
        "tcprexmtthresh_": "3",
        "iss_": "0",
        "nodelay_": "false",
        "data_on_syn_": "false",
        "dupseg_fix_": "true",
        "dupack_reset_": "false",
        "interval_": "0.1",
        "close_on_empty_": "false",
        "signal_on_empty_": "false",
        "ts_option_size_": "10",
        "reno_fastrecov_": "true",
        "pipectrl_": "false",
        "open_cwnd_on_pack_": "true",
        "halfclose_": "false",
        "nopredict_": "false",
        "ecn_syn_": "false",
        "ecn_syn_wait_": "0",
        "debug_": "false",
    },
    "Agent/TCP/FullTcp/Tahoe": {"reno_fastrecov_": "false"},
    "Agent/TCP/FullTcp/Newreno": {"open_cwnd_on_pack_": "false", "recov_maxburst_": "2"},
    # ns-default.tcl's `Agent/TCP/FullTcp/Sack set ...` lines and its `instproc init`
    # (reno_fastrecov_, open_cwnd_on_pack_ false); tcp/full/sack.rs models these values only
    "Agent/TCP/FullTcp/Sack": {
        "reno_fastrecov_": "false",
        "open_cwnd_on_pack_": "false",
        "sack_block_size_": "8",
        "sack_option_size_": "2",
        "max_sack_blocks_": "3",
        "clear_on_timeout_": "true",
        "sack_rtx_cthresh_": "1",
        "sack_rtx_bthresh_": "1",
        "sack_rtx_threshmode_": "1",
    },
}

# The FullTcp classes bufferlab models -> the `full_tcp` table's variant (tcp/full/).
FULL_TCP = {
    "Agent/TCP/FullTcp": "reno",
    "Agent/TCP/FullTcp/Newreno": "newreno",
    "Agent/TCP/FullTcp/Tahoe": "tahoe",
    "Agent/TCP/FullTcp/Sack": "sack",
}
NS_DEFAULTS.update(FULL_TCP_DEFAULTS)

# Every variable ns-2.35's ns-default.tcl gives the TCP agents and sinks (printed by `ns`:
# `Agent/TCP info vars` and `set`), with its default: a script that sets one away from it
# changes what ns-2 does, so one that bufferlab does not model stops the script
# (scenario.py, unmodelled_variables) rather than being ignored.
NS2_AGENT_DEFAULTS: dict[str, dict[str, str]] = {
    "Agent/TCP": {
        "CoarseTimer_": "0",
        "EnblRTTCtr_": "0",
        "LimTransmitFix_": "false",
        "QOption_": "0",
        "SetCWRonRetransmit_": "true",
        "T_RTTVAR_BITS": "2",
        "T_SRTT_BITS": "3",
        "ack_": "0",
        "aggressive_maxburst_": "1",
        "awnd_": "0",
        "backoff_": "0",
        "bugFix_": "true",
        "bugFix_ack_": "false",
        "bugFix_ts_": "false",
        "bugfix_ss_": "1",
        "control_increase_": "0",
        "cwnd_": "0",
        "cwnd_range_": "0",
        "decrease_num_": "0.5",
        "delay_growth_": "true",
        "dupacks_": "0",
        "ecn_": "0",
        "eln_": "0",
        "eln_rxmit_thresh_": "1",
        "exitFastRetrans_": "true",
        "frto_enabled_": "0",
        "high_decrease_": "0.1",
        "high_p_": "0.0000001",
        "high_window_": "83000",
        "increase_num_": "1.0",
        "k_parameter_": "0.0",
        "l_parameter_": "1.0",
        "lessCareful_": "false",
        "low_window_": "38",
        "max_connects_": "-1",
        "max_ssthresh_": "0",
        "maxburst_": "0",
        "maxcwnd_": "0",
        "maxrto_": "60",
        "maxseq_": "0",
        "minrto_": "0.2",
        "nackpack_": "0",
        "nam_tracevar_": "false",
        "ncwndcuts1_": "0",
        "ncwndcuts_": "0",
        "ndatabytes_": "0",
        "ndatapack_": "0",
        "necnresponses_": "0",
        "noFastRetrans_": "false",
        "nrexmit_": "0",
        "nrexmitbytes_": "0",
        "nrexmitpack_": "0",
        "numdupacksFrac_": "-1",
        "numdupacks_": "3",
        "oldCode_": "false",
        "old_ecn_": "0",
        "overhead_": "0",
        "packetSize_": "1000",
        "partial_ack_": "false",
        "precisionReduce_": "true",
        "print_request_": "false",
        "qs_enabled_": "false",
        "qs_request_mode_": "1",
        "qs_rtt_": "50",
        "qs_thresh_": "4",
        "rate_request_": "0",
        "restart_bugfix_": "true",
        "rfc2988_": "true",
        "rtt_": "0",
        "rttvar_": "0",
        "rttvar_exp_": "2",
        "rttvar_init_": "12",
        "rtxcur_init_": "3.0",
        "seqno_": "0",
        "sfrto_enabled_": "0",
        "singledup_": "1",
        "slow_start_restart_": "true",
        "spurious_response_": "1",
        "srtt_": "0",
        "srtt_init_": "0",
        "ssthresh_": "0",
        "syn_": "true",
        "t_seqno_": "0",
        "tcpTick_": "0.01",
        "tcp_qs_recovery_": "true",
        "tcpip_base_hdr_size_": "40",
        "timerfix_": "true",
        "timestamps_": "false",
        "trace_all_oneline_": "false",
        "ts_option_size_": "10",
        "ts_resetRTO_": "false",
        "updated_rttvar_": "true",
        "useHeaders_": "true",
        "windowConstant_": "4",
        "windowInitOption_": "1",
        "windowInit_": "2",
        "windowOption_": "1",
        "windowThresh_": "0.002",
        "window_": "20",
    },
    "Agent/TCP/Newreno": {
        "exit_recovery_fix_": "0",
        "newreno_changes1_": "1",
        "newreno_changes_": "0",
        "partial_window_deflation_": "1",
    },
    "Agent/TCP/Vegas": {"v_alpha_": "1", "v_beta_": "3", "v_gamma_": "1", "v_rtt_": "0"},
    "Agent/TCP/Linux": {
        "delay_growth_": "false",
        "maxrto_": "120",
        "minrto_": "0.2",
        "next_pkts_in_flight_": "0",
        "rtxcur_init_": "3",
        "ts_resetRTO_": "true",
    },
    "Agent/TCPSink": {
        "RFC2581_immediate_ack_": "true",
        "SYN_immediate_ack_": "true",
        "bytes_": "0",
        "dport_": "0",
        "ecn_syn_": "false",
        "generateDSacks_": "false",
        "maxSackBlocks_": "3",
        "packetSize_": "40",
        "qs_enabled_": "false",
        "sport_": "0",
        "ts_echo_bugfix_": "true",
        "ts_echo_rfc1323_": "false",
    },
    "Agent/TCPSink/DelAck": {"interval_": "100ms"},
    "Agent/TCPSink/Sack1/DelAck": {"interval_": "100ms"},
}
NS2_AGENT_DEFAULTS.update(FULL_TCP_DEFAULTS)

# Variables `$tcp trace var_` writes, as ns-2.35's TcpAgent::traceVar (tcp.cc) formats them:
# a double with %-6.3f, an integer with %d; the RTT estimator's integers (tcpTick_ ticks) as
# seconds with %-6.3f: rtt_ `t_rtt_ * tcp_tick_`, srtt_ `(t_srtt_ >> T_SRTT_BITS) *
# tcp_tick_`, rttvar_ `t_rttvar_ * tcp_tick_ / 4.0` (whatever T_RTTVAR_BITS is).
VAR_TRACES = {
    "cwnd_": "double",
    "ssthresh_": "int",
    "ack_": "int",
    "t_seqno_": "int",
    "maxseq_": "int",
    "dupacks_": "int",
    "backoff_": "int",
    "rtt_": "rtt",
    "srtt_": "srtt",
    "rttvar_": "rttvar",
}

# Variables that only label packets or feed nam/traces: accepted silently.
LABELS = {
    "fid_",
    "class_",
    "prio_",
    "flags_",
    "ttl_",
    "dst_addr_",
    "dst_port_",
    "agent_addr_",
    "agent_port_",
    "nam_tracevar_",
}

# Read-only counters and state: setting them before the run is harmless and ignored.
TCP_STATE = {
    "cwnd_",
    "ack_",
    "t_seqno_",
    "ndatapack_",
    "ndatabytes_",
    "nrexmitpack_",
    "nrexmitbytes_",
    "nrexmit_",
    "nackpack_",
    "rtt_",
    "srtt_",
    "rttvar_",
    "backoff_",
    "maxseq_",
    "dupacks_",
}

TCP_CC = {
    "Agent/TCP": ("tahoe", False),
    "Agent/TCP/Reno": ("reno", False),
    "Agent/TCP/Newreno": ("newreno", False),
    "Agent/TCP/Sack1": ("newreno", True),
    "Agent/TCP/Vegas": ("vegas", False),
    # tcp/linux/tcp_linux.cc: cc and SACK are decided by `select_ca` (LINUX_CA below)
    "Agent/TCP/Linux": ("newreno", True),
}

# Agent/TCP/Linux (ns-2.35 tcp/linux/tcp_linux.cc, LinuxTcpAgent): without `select_ca` its
# congestion window is ns-2's own (icsk_ca_ops NULL: TcpAgent::opencwnd, and
# slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF) on a loss); `$tcp select_ca NAME` installs one
# of the Linux 2.6 modules compiled into ns-2.35 (tcp/linux/src/) and sets tcp_tick_ to
# 1 / JIFFY_RATIO = 1 ms (install_congestion_control). Its loss recovery is always its own
# SACK scoreboard (scoreboard1.cc); see docs/ns2-scripts.md, "Agent/TCP/Linux".
# Name -> the tcp table's cc and its parameters; a name listed in LINUX_CA_UNMODELLED exits 2.
LINUX_CA: dict[str | None, dict[str, Any]] = {
    None: {"cc": "newreno"},
    # tcp_reno (ns-linux-util): max(cwnd/2, 2) on a loss, +1 a new ACK in slow start,
    # +1/cwnd in congestion avoidance (snd_cwnd_cnt), as ns-2's opencwnd with windowOption_ 1
    "reno": {"cc": "newreno"},
    # tcp_cubic.c as ns-2.35 has it (`$tcp get_ca_param cubic`): beta 819/1024, bic_scale 41
    # (C = 41 x 10 / 1024 = 0.4), fast_convergence 1, tcp_friendliness 1, no HyStart
    "cubic": {"cc": "cubic", "cubic_beta": 0.8, "cubic_c": 0.4, "cubic_fast_convergence": True},
}

# The other modules ns-2.35 lists (`$tcp select_ca nosuch` prints the list).
LINUX_CA_UNMODELLED = (
    "naive_reno",
    "highspeed",
    "bic",
    "htcp",
    "scalable",
    "westwood",
    "vegas",
    "hybla",
    "illinois",
    "yeah",
    "veno",
    "compound",
    "lp",
)

TCP_SINKS = {
    "Agent/TCPSink",
    "Agent/TCPSink/DelAck",
    "Agent/TCPSink/Sack1",
    "Agent/TCPSink/Sack1/DelAck",
}

UDP_SINKS = {"Agent/Null", "Agent/LossMonitor"}

TRAFFIC = {
    "Application/Traffic/CBR",
    "Application/Traffic/Exponential",
    "Application/Traffic/Pareto",
}

# ns-2's one-way agents whose C++ reads the window and recovery variables (tcp.cc and the Reno,
# Newreno and Sack1 agents built on it; Vegas and Linux have their own rules)
AIMD_AGENTS = ("Agent/TCP", "Agent/TCP/Reno", "Agent/TCP/Newreno", "Agent/TCP/Sack1")

QUEUE_KINDS = {"DropTail", "RED", "RED/RIO", "FQ", "DRR", "SFQ", "PI", "REM"}

# ns-2's trace objects (trace/trace.cc, Trace::format): the event letter each type writes.
TRACE_EVENTS = {"Enque": "+", "Deque": "-", "Drop": "d", "Recv": "r", "EDrop": "e"}

# An integrator's variables, in the order of QueueMonitor.integrals' lists.
INTEGRATOR_VARS = ("lastx_", "lasty_", "sum_")


def parent(cls: str) -> str | None:
    return cls.rsplit("/", 1)[0] if "/" in cls else None


def class_chain(cls: str) -> list[str]:
    out: list[str] = []
    c: str | None = cls
    while c:
        out.append(c)
        c = parent(c)
    return out


def ns2_agent_default(cls: str, var: str) -> str | None:
    """ns-2.35's default of an agent variable (NS2_AGENT_DEFAULTS) for a class, inherited
    from its parents; None for a variable ns-2 does not give it."""
    for c in class_chain(cls):
        if var in NS2_AGENT_DEFAULTS.get(c, {}):
            return NS2_AGENT_DEFAULTS[c][var]
    return None


def is_a(cls: str, base: str) -> bool:
    return base in class_chain(cls)
