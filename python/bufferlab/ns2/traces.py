"""ns-2's traces as a script asks for them (ns-lib.tcl `trace-all`, `trace-queue`,
`create-trace`; ns-link.tcl `$link trace`; trace.cc): which file each link direction's
Enque, Deque, Drop and Recv lines go to, trace objects as drop targets. The lines themselves
are written by linktrace.py during the run.
"""

from __future__ import annotations

import os

from bufferlab.ns2.classes import TRACE_EVENTS
from bufferlab.ns2.errors import Ns2Error
from bufferlab.ns2.model import Link, Obj, TraceObj
from bufferlab.ns2.units import number

# typing is imported for type checkers only (docs/performance.md, "ns-2 scripts: start-up").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import ClassVar


class Traces:
    """The traces part of Interp (interp.py), a mixin of it."""

    # `$ns NAME` -> the method that answers it (simulator.py sim_method)
    SIM_COMMANDS: ClassVar[dict[str, str]] = {
        "trace-all": "sim_trace_all",
        "create-trace": "sim_create_trace",
        "trace-queue": "sim_trace_queue",
        "namtrace-all": "sim_namtrace_all",
    }

    def _channel_path(self, channel: str, what: str) -> str:
        words = self.tcl.splitlist(self.tcl.call("array", "get", "::ns2::chanpath", channel))
        if len(words) != 2 or str(words[1]).startswith("|"):
            raise Ns2Error(f"{what} takes a channel from `open FILE w` (pipes are not supported)")
        return os.path.realpath(str(words[1]))

    def trace_queue(self, a: list[str]) -> str:
        """`$ns trace-queue n1 n2 ?$file?`: a new set of Enque, Deque, Drop and Recv traces on
        the direction n1->n2 writing into that file (the trace-all file without one; nothing
        when there is none), as ns-2's `$link trace` (linktrace.py)."""
        if len(a) not in (2, 3):
            raise Ns2Error("usage: $ns trace-queue n1 n2 ?channel?")
        n1, n2 = self.node(a[0]), self.node(a[1])
        link = self.net.link(n1, n2)  # the direction must exist
        channel = a[2] if len(a) == 3 and a[2] else self.net.trace_channel
        if channel is None:
            return ""  # ns-2 returns when there is no trace-all file
        return self._trace_link(link, channel)

    def _trace_link(self, link: Link, channel: str) -> str:
        if self.runner is not None:
            self._not_while_running("tracing a link")
        self._channel_path(channel, "a link's trace")
        link.traces.append(channel)
        assert link.src is not None and link.dst is not None
        self.trace_made(f"the trace of link {link.src.id}->{link.dst.id}")
        # SimpleLink trace sets the queue's drop-target back to the link's drophead
        assert link.queue is not None
        self.net.drop_targets.pop(link.queue.handle, None)
        return ""

    def create_trace(self, a: list[str]) -> str:
        """`$ns create-trace TYPE $f n1 n2 ?op?`: a trace object (TraceObj) writing TYPE's
        letter and the nodes n1 n2 into $f for each packet passed to it: where the script
        makes it an error model's or a queue's drop-target (linktrace.py)."""
        if len(a) not in (4, 5):
            raise Ns2Error("usage: $ns create-trace type file n1 n2 ?op?")
        kind, channel = a[0], a[1]
        n1, n2 = self.node(a[2]), self.node(a[3])
        if self.runner is not None:
            self._not_while_running("$ns create-trace")
        if len(a) == 5 and a[4]:
            raise Ns2Error(f"create-trace with op {a[4]}: nam traces are not written")
        if kind not in TRACE_EVENTS:
            raise Ns2Error(
                f"create-trace {kind}: trace objects of the types Enque, Deque, Drop, Recv and "
                "EDrop are modelled; for a link's lines use $ns trace-queue n1 n2 $file"
            )
        if channel:
            self._channel_path(channel, "create-trace")
        obj = TraceObj(
            self._handle(),
            f"Trace/{kind}",
            event=TRACE_EVENTS[kind],
            channel=channel or None,
            src=n1.id,
            dst=n2.id,
        )
        self.init_vars(obj)  # Trace's class variables, as ns-2's init-instvar
        self._register(obj)
        return obj.handle

    def _trace_obj_method(self, tr: TraceObj, method: str, args: list[str]) -> str:
        if method == "target" and not args:
            return tr.target.handle if tr.target is not None else ""
        if method in ("target", "attach", "detach") and self.runner is not None:
            self._not_while_running(f"$trace {method}")
        if method == "target" and len(args) == 1:
            tr.target = self.objects.get(args[0])  # the null agent, or another trace
            return ""
        if method == "attach" and len(args) == 1:
            self._channel_path(args[0], "$trace attach")
            tr.channel = args[0]
            return ""
        if method == "detach" and not args:
            tr.channel = None
            return ""
        raise Ns2Error(f"{tr.cls} method `{method}` is not modelled (target, attach, detach are)")

    def _drop_target(self, obj: Obj, args: list[str]) -> str:
        """`$em drop-target $t` / `$queue drop-target $t`: where the error model's losses or the
        queue's drops go (a trace object writes them; the null agent discards them)."""
        if not args:
            t = self.net.drop_targets.get(obj.handle)
            return t.handle if t is not None else ""
        if len(args) != 1:
            raise Ns2Error("usage: $obj drop-target ?target?")
        if self.runner is not None:
            self._not_while_running(f"{obj.cls} drop-target")
        target = self.objects.get(args[0])
        if target is None:
            raise Ns2Error(f"drop-target {args[0]}: not an ns-2 object")
        self.net.drop_targets[obj.handle] = target
        return ""

    def sim_trace_all(self, m: str, a: list[str]) -> str:
        net = self.net
        if len(a) != 1:
            raise Ns2Error("usage: $ns trace-all channel")
        path = str(self.tcl.call("array", "get", "::ns2::chanpath", a[0]))
        words = self.tcl.splitlist(path)
        if len(words) != 2 or str(words[1]).startswith("|"):
            raise Ns2Error("trace-all takes a channel from `open FILE w` (pipes are not supported)")
        if self.runner is not None:
            self._not_while_running("$ns trace-all")
        net.trace_channel = a[0]
        net.trace_path = os.path.realpath(str(words[1]))
        return ""

    def sim_create_trace(self, m: str, a: list[str]) -> str:
        return self.create_trace(a)

    def sim_trace_queue(self, m: str, a: list[str]) -> str:
        return self.trace_queue(a)

    def sim_namtrace_all(self, m: str, a: list[str]) -> str:
        self.warn("namtrace-all: bufferlab writes no nam trace (the file stays empty)")
        return ""

    def trace_made(self, what: str) -> None:
        """ns-2 makes a link's trace objects now (ns-lib.tcl create-trace): they take Trace's
        class variables as they are now (init-instvar)."""
        show = self.default("Trace", "show_tcphdr_") or "0"
        self.net.trace_vars.append((what, show, self.default("Trace", "callback_") or "0"))

    def show_tcphdr(self) -> bool:
        """Whether the trace lines carry the TCP header's fields: ns-2's `Trace set
        show_tcphdr_ 1` (trace.cc `Trace::format` appends ackno, flags, hlen and sa_length to
        the lines of each trace made after it). The engine writes one trace for all files,
        so the script's traces must agree; a trace's `callback_` is not modelled."""
        values = list(self.net.trace_vars)
        for obj in self.objects.values():
            if isinstance(obj, TraceObj) and obj.channel:
                show, callback = obj.vars.get("show_tcphdr_", "0"), obj.vars.get("callback_", "0")
                values.append((f"the trace object {obj.handle}", show, callback))
        for what, _, callback in values:
            if number(callback, "Trace callback_") != 0:
                raise Ns2Error(
                    f"Trace callback_ {callback} ({what}): handing each trace line to "
                    "`$trace handle` is not modelled"
                )
        shows = {number(show, "Trace show_tcphdr_") != 0 for _, show, _ in values}
        if len(shows) > 1:
            on = next(what for what, show, _ in values if number(show) != 0)
            off = next(what for what, show, _ in values if number(show) == 0)
            raise Ns2Error(
                f"Trace show_tcphdr_ differs between the script's traces ({on} has it, {off} "
                "not): bufferlab writes one trace; set it once, before the traces are made"
            )
        return shows == {True}
