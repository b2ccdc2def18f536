"""ns-2.35's one-off TCP agent and sink variables and the `ns2_agent` fields they become
(the core's tcp/ns2_agent/knobs.rs states each rule with its ns-2.35 source):

* `ts_option_size_`, `ts_resetRTO_` (tcp.cc `headersize`, `newack`), `old_ecn_` (tcp.cc
  `recv_newack_helper`), `T_SRTT_BITS`, `T_RTTVAR_BITS` (tcp.cc `rtt_init`, `rtt_update`),
  `max_connects_` (tcp.cc `output`): read by Agent/TCP and the Reno, Newreno and Sack1
  agents built on it.
* `bugFix_ack_`, `bugFix_ts_`: read only by `NewRenoTcpAgent::dupack_action`
  (tcp-newreno.cc); other agents never read them (tcp.cc `output` keeps the send-time table
  for `bugFix_ts_`, and nothing else reads it), so they change nothing there.
* `numdupacksFrac_`: read only through `TcpAgent::numdupacks`, which only
  `Sack1TcpAgent` calls (tcp-sack1.cc); 0 would divide by zero there.
* the sink's `ts_echo_rfc1323_` (tcp-sink.cc `Acker::update_ts`, every sink) and
  `RFC2581_immediate_ack_` (`DelAckSink::recv`: read by the DelAck sinks only; a TCPSink
  ACKs every packet whatever it says).
"""

from __future__ import annotations

from collections.abc import Callable

from bufferlab.ns2.classes import AIMD_AGENTS, ns2_agent_default
from bufferlab.ns2.errors import Ns2Error
from bufferlab.ns2.units import boolean, number, same_value

# typing is imported for type checkers only (see scenario.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from bufferlab.ns2.model import Agent


def _int(v: str) -> int:
    return int(number(v))


# ns-2 variable -> (ns2_agent field, converter, the agent classes whose C++ reads it)
_AGENT_KNOBS: dict[str, tuple[str, Callable[[str], Any], tuple[str, ...]]] = {
    "ts_option_size_": ("ts_option_size", _int, AIMD_AGENTS),
    "ts_resetRTO_": ("ts_reset_rto", boolean, AIMD_AGENTS),
    "old_ecn_": ("old_ecn", boolean, AIMD_AGENTS),
    "T_SRTT_BITS": ("srtt_bits", _int, AIMD_AGENTS),
    "T_RTTVAR_BITS": ("rttvar_bits", _int, AIMD_AGENTS),
    "max_connects_": ("max_connects", _int, AIMD_AGENTS),
    "bugFix_ack_": ("bug_fix_ack", boolean, ("Agent/TCP/Newreno",)),
    "bugFix_ts_": ("bug_fix_ts", boolean, ("Agent/TCP/Newreno",)),
    "numdupacksFrac_": ("numdupacks_frac", _int, ("Agent/TCP/Sack1",)),
}

# Read by no C++ of these agents (see the module notes): any value runs as the default.
_NOT_READ = {
    "bugFix_ack_": AIMD_AGENTS,
    "bugFix_ts_": AIMD_AGENTS,
    "numdupacksFrac_": AIMD_AGENTS,
}

# The sink's: ns-2 variable -> (field, converter, whether only DelAck sinks read it)
_SINK_KNOBS: dict[str, tuple[str, Callable[[str], Any], bool]] = {
    "ts_echo_rfc1323_": ("ts_echo_rfc1323", boolean, False),
}


def _is_default(cls: str, var: str, value: str) -> bool:
    """Whether `value` is ns-default.tcl's value of `var` for `cls` (classes.py)."""
    default = ns2_agent_default(cls, var)
    return default is not None and same_value(value, default)


def knob_fields(ag: Agent) -> tuple[set[str], set[str], dict[str, Any]]:
    """(the agent's variables read here, the sink's, the `ns2_agent` fields they give) for
    a one-way agent and its sink; only values away from ns-2's defaults become fields."""
    read: set[str] = set()
    fields: dict[str, Any] = {}
    for var, (key, conv, classes) in _AGENT_KNOBS.items():
        if ag.cls in _NOT_READ.get(var, ()) and ag.cls not in classes:
            read.add(var)  # not read by this agent's C++: nothing changes
            continue
        if ag.cls not in classes:
            continue
        read.add(var)
        value = ag.vars.get(var)
        if value is None or _is_default(ag.cls, var, value):
            continue
        fields[key] = conv(value)
    if fields.get("numdupacks_frac") == 0:
        raise Ns2Error(
            f"{ag.cls} {ag.handle} numdupacksFrac_ 0: ns-2 divides int(cwnd_) by it "
            "(tcp.cc numdupacks) and stops at the first duplicate ACK"
        )
    bits = (fields.get("srtt_bits", 3), fields.get("rttvar_bits", 2))
    if not (0 <= bits[0] <= 16 and 1 <= bits[1] <= 16):
        raise Ns2Error(
            f"{ag.cls} {ag.handle} T_SRTT_BITS {bits[0]}, T_RTTVAR_BITS {bits[1]}: shifts of "
            "0 to 16 (T_RTTVAR_BITS at least 1) are modelled"
        )
    sink_read: set[str] = set()
    sink = ag.peer
    if sink is not None:
        delack = "DelAck" in sink.cls
        for var, (key, conv, delack_only) in _SINK_KNOBS.items():
            sink_read.add(var)
            value = sink.vars.get(var)
            if value is None or _is_default(sink.cls, var, value) or (delack_only and not delack):
                continue
            fields[key] = conv(value)
    return read, sink_read, fields
