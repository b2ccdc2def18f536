"""ns-2.35 recovery variables the one-way agents' C++ reads in one class and not in others
(the core's tcp/sender/ns2_exit_fast_retrans.rs, ns2_sack1_partial_ack.rs, ns2_frto.rs; the
sink's rfc2581_immediate_ack in tcp/receiver.rs):

* `exitFastRetrans_` (tcp.h, bound in tcp.cc): read only by `RenoTcpAgent::recv`
  (tcp-reno.cc) and `NewRenoTcpAgent::recv` (tcp-newreno.cc); Agent/TCP, Sack1, Vegas and
  Linux never read it, so its value changes nothing there.
* `noFastRetrans_` (tcp.h, bound in tcp.cc): read only by `TcpAgent::recv` (tcp.cc), which
  Agent/TCP runs; Reno, Newreno, Sack1, Vegas and Linux have their own `recv`, so there it
  changes nothing (tcp/sender/ns2_no_fast_retrans.rs).
* `partial_ack_` (tcp-sack1.cc, also bound by tcp-fast.cc's agent, which bufferlab does not
  have): read only by `Sack1TcpAgent::recv`.
* `frto_enabled_`, `sfrto_enabled_` (tcp.cc `timeout`, `recv_frto_helper`,
  `recv_newack_helper`; tcp-sack1.cc `recv`, `timeout`): modelled for Agent/TCP, Reno,
  Newreno and Sack1 with `spurious_response_` 1 (its default); Vegas and Linux refuse them.
* the sink's `RFC2581_immediate_ack_` (tcp-sink.cc): read only by `DelAckSink::recv`.
"""

from __future__ import annotations

from collections.abc import Callable

from bufferlab.ns2.classes import AIMD_AGENTS
from bufferlab.ns2.units import boolean

# The TCP classes tcp_options translates whose C++ reads each variable.
_EXIT_FAST_RETRANS = ("Agent/TCP/Reno", "Agent/TCP/Newreno")


def recovery_knobs(
    cls: str, values: dict[str, str], changed: Callable[[str], str | None]
) -> tuple[set[str], dict[str, bool]]:
    """(the variables of this file that the translation reads for an agent of class `cls`,
    the `ns2_agent` fields they give). `values`: the agent's variables; `changed(var)`: its
    value when it differs from ns-2's default, else None."""
    read = {"exitFastRetrans_", "partial_ack_", "noFastRetrans_"}  # or never read by cls's C++
    agent: dict[str, bool] = {}
    if cls == "Agent/TCP" and changed("noFastRetrans_") is not None:
        agent["no_fast_retrans"] = boolean(values["noFastRetrans_"])
    if cls in _EXIT_FAST_RETRANS and changed("exitFastRetrans_") is not None:
        agent["exit_fast_retrans"] = boolean(values["exitFastRetrans_"])
    if cls == "Agent/TCP/Sack1" and changed("partial_ack_") is not None:
        agent["partial_ack"] = boolean(values["partial_ack_"])
    if cls in AIMD_AGENTS:
        read |= {"frto_enabled_", "sfrto_enabled_"}
        for var, key in (("frto_enabled_", "frto_enabled"), ("sfrto_enabled_", "sfrto_enabled")):
            if changed(var) is not None:
                agent[key] = boolean(values[var])
    return read, agent


def sink_knobs(sink_cls: str, values: dict[str, str]) -> tuple[set[str], dict[str, bool]]:
    """The sink's variables of this file: (read, `ns2_agent` fields)."""
    agent: dict[str, bool] = {}
    if "DelAck" in sink_cls and not boolean(values.get("RFC2581_immediate_ack_", "true")):
        agent["rfc2581_immediate_ack"] = False
    return {"RFC2581_immediate_ack_"}, agent
