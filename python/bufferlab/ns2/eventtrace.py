"""`$ns eventtrace-all`: the TCP agents' event lines in the trace-all file.

ns-2.35 tcl/lib/ns-lib.tcl `Simulator instproc eventtrace-all {{file ""}}` sets
`eventTraceAll_` and the file (the trace-all file without one); `Agent/TCP instproc init`
(ns-agent.tcl) calls `create-eventtrace Event $self`, which gives each TCP agent made from then
on a `BaseTrace/Event` writing into that file. tcp.cc `TcpAgent::trace_event` writes
`E time node peer TCP EVENT fid t_seqno_ int(cwnd_)` at the agent's timeouts, fast
retransmits and slow starts; the engine writes those lines into the ns-2 trace
(crates/bufferlab-core/src/tcp/sender/ns2_events.rs says where each comes from), and they
are routed to the trace-all file as the links' lines are (linktrace.py).

Modelled for Agent/TCP, TCP/Reno, TCP/Newreno and TCP/Sack1 senders without ECN (whose
`ecn()` and ECN branches call `slowdown` too, not followed here); others made after it, an
event trace into another file than the trace-all file, or one without a trace-all file are
refused in one line.
"""

from __future__ import annotations

from bufferlab.ns2.classes import is_a
from bufferlab.ns2.errors import Ns2Error
from bufferlab.ns2.units import boolean

# typing is imported for type checkers only (docs/performance.md, "ns-2 scripts: start-up").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar

    from bufferlab.ns2.linktrace import TracePlan
    from bufferlab.ns2.model import Agent

# The senders whose event lines the engine writes (ns2_events.rs).
_TRACED = ("Agent/TCP", "Agent/TCP/Reno", "Agent/TCP/Newreno", "Agent/TCP/Sack1")


class EventTraces:
    """`$ns eventtrace-all`, a mixin of Interp (interp.py)."""

    SIM_COMMANDS: ClassVar[dict[str, str]] = {"eventtrace-all": "sim_eventtrace_all"}

    # The agents made from this one on (their `order`) get an event trace; None: no
    # eventtrace-all yet.
    event_trace_from: int | None = None

    def sim_eventtrace_all(self, m: str, a: list[str]) -> str:
        if len(a) > 1:
            raise Ns2Error("usage: $ns eventtrace-all ?file?")
        if self.runner is not None:
            self._not_while_running("$ns eventtrace-all")
        channel = self.net.trace_channel
        if channel is None:
            # ns-lib.tcl reads traceAllFile_, which only trace-all sets
            raise Ns2Error("$ns eventtrace-all before $ns trace-all: ns-2 has no file to write to")
        if a and a[0] and a[0] != channel:
            raise Ns2Error(
                "$ns eventtrace-all $file: an event trace into another file than the trace-all "
                "file is not modelled"
            )
        if self.event_trace_from is None:
            self.event_trace_from = len(self.net.agents)
        return ""

    def event_traced(self) -> list[Agent]:
        """The TCP senders made after `$ns eventtrace-all` (Agent/TCP init's
        create-eventtrace), in creation order."""
        start = self.event_trace_from
        if start is None:
            return []
        return [
            ag
            for ag in self.net.agents
            if ag.order >= start and is_a(ag.cls, "Agent/TCP") and ag.flow is not None
        ]

    def event_trace_routes(self, plan: TracePlan) -> None:
        """Where the engine's E lines go: the trace-all file, unless the engine writes that
        file itself."""
        channel = self.net.trace_channel
        if channel is None or (plan.direct is not None and plan.direct == self.net.trace_path):
            return
        for ag in self.event_traced():
            assert ag.node is not None and ag.peer is not None and ag.peer.node is not None
            key = ("E", str(ag.node.id), str(ag.peer.node.id))
            if (channel, None) not in plan.routes.get(key, []):
                plan.routes.setdefault(key, []).append((channel, None))

    def start_event_traces(self, session: Any) -> None:
        """Asks the engine for the E lines of each traced sender (before the run's first
        event)."""
        for ag in self.event_traced():
            if ag.cls not in _TRACED:
                raise Ns2Error(
                    f"$ns eventtrace-all: the event lines of {ag.cls} are not modelled "
                    "(Agent/TCP, TCP/Reno, TCP/Newreno and TCP/Sack1 are)"
                )
            if boolean(ag.vars.get("ecn_", "0")):
                raise Ns2Error(
                    "$ns eventtrace-all with ecn_ on: the SLOW_START lines of tcp.cc ecn() are "
                    "not modelled"
                )
            if not session.record_ns2_events(ag.flow):
                raise Ns2Error(f"$ns eventtrace-all: the engine writes no event lines for {ag.cls}")
