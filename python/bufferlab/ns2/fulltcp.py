"""ns-2.35's two-way TCP agents in a script (tcp/tcp-full.cc): `Agent/TCP/FullTcp`,
`/Newreno`, `/Tahoe` and `/Sack` at both ends of a connection (`$ns connect $src $sink`, then
`$sink listen`), translated to a flow whose `tcp` table has a `full_tcp` table
(crates/bufferlab-core/src/tcp/full/). The source is the agent with the application; the
listener has none. SackFullTcpAgent's own variables (sack_block_size_, max_sack_blocks_,
clear_on_timeout_, sack_rtx_*) are modelled at their defaults only: another value is refused.
"""

from __future__ import annotations

from bufferlab.ns2.classes import FULL_TCP, ns2_agent_default
from bufferlab.ns2.errors import Ns2Error
from bufferlab.ns2.units import boolean, fmt_time, number, same_value, time_s

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from bufferlab.ns2.model import Agent

# The FullTcp variables the translation reads: ns-2 variable -> (key, table, converter);
# table "tcp" is the flow's `tcp` table, "full" its `full_tcp`, "agent" its `ns2_agent`.
_FIELDS: dict[str, tuple[str, str, Any]] = {
    "window_": ("window", "tcp", lambda v: f"{int(number(v))}p"),
    "windowInit_": ("iw", "tcp", lambda v: int(number(v))),
    "segsize_": ("mss", "tcp", lambda v: int(number(v))),
    "tcpTick_": ("clock_granularity", "tcp", lambda v: fmt_time(time_s(v))),
    "minrto_": ("min_rto", "tcp", lambda v: fmt_time(time_s(v))),
    "maxrto_": ("max_rto", "tcp", lambda v: fmt_time(time_s(v))),
    "rtxcur_init_": ("initial_rto", "tcp", lambda v: fmt_time(time_s(v))),
    "slow_start_restart_": ("slow_start_restart", "tcp", boolean),
    "segsperack_": ("segsperack", "full", lambda v: int(number(v))),
    "interval_": ("interval_s", "full", time_s),
    "nodelay_": ("nodelay", "full", boolean),
    "tcprexmtthresh_": ("tcprexmtthresh", "full", lambda v: int(number(v))),
    "recov_maxburst_": ("recov_maxburst", "full", lambda v: int(number(v))),
    "bugFix_": ("bug_fix", "full", boolean),
    "delay_growth_": ("delay_growth", "agent", boolean),
    "precisionReduce_": ("precision_reduce", "agent", boolean),
    "maxburst_": ("maxburst", "agent", lambda v: int(number(v))),
    "rfc2988_": ("rfc2988", "agent", boolean),
}

# Set by the variant's class (ns-default.tcl's instproc init), not read from the script.
_BY_CLASS = {"reno_fastrecov_", "open_cwnd_on_pack_"}

# Variables that label the agent or only feed traces: accepted whatever their value.
_IGNORED = {
    "packetSize_",  # foutput: size_ = maxseg_ + headersize(); segsize_ rules
    "debug_",
    "ts_option_size_",  # no timestamps here
    "updated_rttvar_",  # no such C++ variable in ns-2.35
    "ssthresh_",  # reset() makes it int(window_)
}

# Agent/TCP variables of the one-way agents that tcp-full.cc never reads, nor the tcp.cc
# functions it calls (reset, rtt_*, slowdown, opencwnd, window, initial_window): a suite's
# `Agent/TCP set singledup_ 0` changes nothing for FullTcp (checked by grep of ns-2.35's
# tcp-full.cc; their readers are TcpAgent's recv, dupack_action, timeout, output, send_much).
_UNREAD = {
    "singledup_",
    "numdupacks_",
    "numdupacksFrac_",
    "LimTransmitFix_",
    "noFastRetrans_",
    "exitFastRetrans_",
    "bugfix_ss_",
    "useHeaders_",
    "oldCode_",
    "partial_ack_",
    "timerfix_",
    "bugFix_ack_",
    "bugFix_ts_",
    "aggressive_maxburst_",
    "lessCareful_",
    "frto_enabled_",
    "sfrto_enabled_",
    "spurious_response_",
    "QOption_",
    "EnblRTTCtr_",
    "CoarseTimer_",
    "trace_all_oneline_",
    "print_request_",
    "eln_",
    "eln_rxmit_thresh_",
    "control_increase_",
}


def is_full_tcp(cls: str) -> bool:
    return cls in FULL_TCP


def check_full_pair(s: Agent, d: Agent) -> None:
    """Both ends of a FullTcp connection are FullTcp agents of the same class."""
    if s.cls != d.cls:
        raise Ns2Error(
            f"connecting {s.cls} to {d.cls} is not modelled: a FullTcp connection has "
            "agents of the same class at both ends"
        )


def _changed(ag: Agent, var: str) -> str | None:
    value = ag.vars.get(var)
    default = ns2_agent_default(ag.cls, var)
    if value is None or default is None or same_value(value, default):
        return None
    return value


def full_tcp_options(ag: Agent) -> dict[str, Any]:
    """The flow's `tcp` table for a FullTcp source `ag` (its peer the listener): the
    variables that differ from ns-2.35's defaults; any other variable set away from its
    default on either end stops the translation (one line naming it)."""
    from bufferlab.ns2.classes import LABELS, TCP_STATE

    assert ag.peer is not None
    tcp: dict[str, Any] = {"preset": "ns2"}
    full: dict[str, Any] = {"variant": FULL_TCP[ag.cls]}
    agent: dict[str, Any] = {}
    tables = {"tcp": tcp, "full": full, "agent": agent}
    # segsize_ is the MSS whatever packetSize_ says (tcp-full.cc foutput)
    tcp["mss"] = int(number(ag.vars.get("segsize_", "536"), "segsize_"))
    skip = LABELS | TCP_STATE | _IGNORED | _BY_CLASS | _UNREAD
    for end in (ag, ag.peer):
        for var, value in sorted(end.vars.items()):
            if var in skip or var in _FIELDS:
                continue
            default = ns2_agent_default(end.cls, var)
            if default is not None and not same_value(value, default):
                raise Ns2Error(
                    f"{end.cls} {var} {value}: ns-2's {var} other than its default {default} "
                    "is not modelled for FullTcp"
                )
    for var, (key, table, conv) in _FIELDS.items():
        # the receiver's ACK variables are the listener's, the sender's the source's
        end = ag.peer if table == "full" and var in ("segsperack_", "interval_") else ag
        v = _changed(end, var)
        if v is not None and key != "mss":
            tables[table][key] = conv(v)
        if table == "full" and var in ("segsperack_", "interval_"):
            # the source's own ACK variables must agree: one table holds both ends'
            other = _changed(ag, var)
            if other is not None and (v is None or not same_value(other, v)):
                raise Ns2Error(
                    f"{ag.cls} {var} {other} on the source differs from the listener's: "
                    "not modelled (one value for both ends)"
                )
    for var in ("minrto_", "maxrto_", "rtxcur_init_", "tcpTick_"):
        a, b = ag.vars.get(var), ag.peer.vars.get(var)
        if a is not None and b is not None and not same_value(a, b):
            raise Ns2Error(
                f"{ag.peer.cls} {var} {b} differs from the source's {a}: not modelled (the "
                "listener's timers follow the source's)"
            )
    if ag.boot_time:
        tcp["clock_phase"] = ag.boot_time
    if agent:
        tcp["ns2_agent"] = agent
    tcp["full_tcp"] = full
    return tcp
