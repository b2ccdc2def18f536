"""ns-2's Simulator as a script drives it (tcl/lib/ns-lib.tcl): the commands of `$ns`, its
scheduler before the run (`$ns at`, `after`, `cancel`, `now`) and `$ns run`, which hands the
network and the events to the runner (runner.py); `halt` and `is-started`. The commands that
belong to another concept (nodes and links, agents, traces, monitors) are named in each
concept's SIM_COMMANDS and reached through `sim_method`.
"""

from __future__ import annotations

import _tkinter
import heapq
import math

from bufferlab.ns2.classes import FULL_TCP, TCP_CC
from bufferlab.ns2.errors import Ns2Error
from bufferlab.ns2.model import Agent, App, reset_ssthresh
from bufferlab.ns2.units import number, time_s

# typing is imported for type checkers only (docs/performance.md, "ns-2 scripts: start-up").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import ClassVar

# What to say about ns-2 features bufferlab does not model.
_UNSUPPORTED_SIM = {
    "node-config": "wireless nodes are not modelled (bufferlab simulates wired networks)",
    "namtrace-all-wireless": "wireless nodes are not modelled",
    "create-god": "wireless nodes are not modelled",
    "multicast": "multicast is not modelled",
    "mrtproto": "multicast is not modelled",
    "use-newtrace": "the new trace format is not written; bufferlab writes the classic "
    "trace-all format",
    "namtrace-queue": "nam traces are not written",
    "rtmodel": "link failures (rtmodel) are not modelled",
    "rtmodel-at": "link failures (rtmodel) are not modelled",
    "dynlink": "link failures are not modelled",
    # ns-lib.tcl maketbtagger: an edge tagger (token buckets writing the packets' pri_)
    "maketbtagger": "$ns maketbtagger (an edge tagger marking RIO's In/Out packets with "
    "token buckets) is not modelled",
}

_IGNORED_SIM = {
    "duplex-link-op",
    "simplex-link-op",
    "color",
    "use-scheduler",
    "set-animation-rate",
    "add-agent-trace",
    "monitor-agent-trace",
    "flush-trace",
    "gen-map",
    "puts-nam-config",
}


class Simulator:
    """The simulator part of Interp (interp.py), a mixin of it."""

    # `$ns NAME` -> the method of this class that answers it; Interp's SIM_COMMANDS joins
    # those of every part (nodes and links, agents, traces, monitors)
    SIM_COMMANDS: ClassVar[dict[str, str]] = {
        "now": "sim_now",
        "at": "sim_at",
        "after": "sim_at",
        "cancel": "sim_cancel",
        "run": "sim_run",
        "halt": "sim_halt",
        "is-started": "sim_is_started",
    }

    def sim_method(self, m: str, a: list[str]) -> str:
        name = self.SIM_COMMANDS.get(m)
        if name is not None:
            return getattr(self, name)(m, a)
        if m in _IGNORED_SIM:
            return ""
        if m in _UNSUPPORTED_SIM:
            raise Ns2Error(_UNSUPPORTED_SIM[m])
        raise Ns2Error(f"Simulator method `{m}` is not modelled")

    def schedule(self, t: float, script: str) -> int:
        self._seq += 1
        if self.runner is not None:
            self.runner.schedule(t, self._seq, script)
            return self._seq
        try:
            words = [str(w) for w in self.tcl.splitlist(script)] if script.strip() else []
        except _tkinter.TclError:  # a script that is no list (`puts "a"; exit 0`)
            words = []
        if len(words) == 3 and words[1] == "select_ca" and t == 0:
            ag = self.objects.get(words[0])
            if isinstance(ag, Agent) and ag.cls == "Agent/TCP/Linux":
                # `$ns at 0 "$tcp select_ca cubic"` (the TCP-Linux tutorial's form): the module
                # is installed at 0, after `$ns run` drew boot_time_ with tcp_tick_ 0.01
                self._select_ca(ag, words[2], at_zero=True)
                return self._seq
        if len(words) == 2 and words[1] in ("start", "stop"):
            app = self.objects.get(words[0])
            if isinstance(app, App):  # the flow's start and stop (resolve_app_times)
                app.times.append((t, self._seq, words[1]))
                return self._seq
        heapq.heappush(self.events, (t, self._seq, script))
        return self._seq

    def draw_boot_times(self) -> None:
        """The draws `$ns run` makes before the first event: Simulator's run resets every node
        in the order `array names Node_` gives (ns-lib.tcl), each node its agents in the order
        they were attached (ns-node.tcl), and a TCP sender's reset draws its tick clock's phase,
        `boot_time_ = Random::uniform(tcp_tick_)` from the default RNG (tcp.cc, Vegas's reset
        too). Tcl 8.6 orders the array as ns-2.35's Tcl 8.6 does (checked with `ns`)."""
        nodes = self.net.nodes
        ids = " ".join(str(n.id) for n in nodes)
        order = self.tcl.eval(
            "apply {{ids} {foreach i $ids {set a($i) {}}; array names a}} " + self.tcl_list(ids)
        )
        by_node: dict[int, list[Agent]] = {}
        for ag in self.net.agents:
            if ag.node is not None:
                by_node.setdefault(ag.node.id, []).append(ag)
        for nid in (int(x) for x in self.tcl.splitlist(order)):
            for ag in sorted(by_node.get(nid, []), key=lambda g: g.attach_seq):
                if ag.cls in TCP_CC or ag.cls in FULL_TCP:
                    tick = time_s(ag.vars.get("tcpTick_", "0.01"))
                    ag.boot_time = tick * self.default_rng.stream.u01()
                    reset_ssthresh(ag)  # the same reset()
        # A FullTcp source resets once more when its application starts (tcp-full.cc
        # advance_bytes in CLOSED: reset(), connect()): its clock's phase is that draw,
        # the next of the default RNG when nothing else draws from it before the start.
        sources = [
            ag
            for ag in self.net.agents
            if ag.cls in FULL_TCP and ag.app is not None and ag.app.start is not None
        ]
        for ag in sorted(sources, key=lambda g: (g.app.start, g.attach_seq)):  # type: ignore[union-attr]
            tick = time_s(ag.vars.get("tcpTick_", "0.01"))
            ag.boot_time = tick * self.default_rng.stream.u01()

    def run(self) -> str:
        if self.runner is not None:
            raise Ns2Error("$ns run called twice")
        self.mark_scripted_agents()
        self.fq_flow_queues()
        self.resolve_app_times()
        self.draw_boot_times()
        for ag in self._ca_at_zero:  # select_ca at 0, after the draws (tcp_tick_ then 1 ms)
            ag.vars["tcpTick_"] = "0.001"
            if ag.boot_time:
                ag.boot_time = math.fmod(ag.boot_time, 0.001)
        from bufferlab.ns2.runner import Runner

        self.runner = Runner(self)
        self.runner.run()
        return ""

    def sim_now(self, m: str, a: list[str]) -> str:
        return f"{self.runner.now if self.runner is not None else 0.0:.17g}"

    def sim_at(self, m: str, a: list[str]) -> str:
        if len(a) != 2:
            raise Ns2Error(f"usage: $ns {m} time script")
        t = number(a[0], "time")
        now = self.runner.now if self.runner is not None else 0.0
        if m == "after":
            t += now
        # scheduler.cc `at`: the event is `t - clock_` after `clock_`, added in doubles
        # (not always t itself; the engine's clock follows ns-2's, clock.rs)
        return str(self.schedule(now + (t - now), a[1]))

    def sim_cancel(self, m: str, a: list[str]) -> str:
        self.cancelled.add(int(number(a[0])))
        return ""

    def sim_run(self, m: str, a: list[str]) -> str:
        return self.run()

    def sim_halt(self, m: str, a: list[str]) -> str:
        if self.runner is None:
            raise Ns2Error("$ns halt before $ns run")
        self.runner.halt()
        return ""

    def sim_is_started(self, m: str, a: list[str]) -> str:
        return "1" if self.runner is not None else "0"
