"""Applications of an ns-2 script (ns-source.tcl, app.cc, trafgen.cc): FTP and the traffic
generators (CBR, Exponential, Pareto) on an agent, their `start`/`stop` (which become the
flow's start and stop, or events during the run) and finite sends.
"""

from __future__ import annotations

import heapq

from bufferlab.ns2.agents import APP_DATA_OPS
from bufferlab.ns2.classes import is_a
from bufferlab.ns2.errors import Ns2Error, TclScriptError
from bufferlab.ns2.model import App
from bufferlab.ns2.telnet import TELNET, engine_runs, telnet_method
from bufferlab.ns2.units import number, rate_bps, time_s

# typing is imported for type checkers only (TYPE_CHECKING = False is their constant too): it
# brings `re` and 2-4 ms of the command's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CBR = "Application/Traffic/CBR"
# The variables of a CBR that a script may set while the run goes on: cbr_traffic.cc's
# next_interval reads rate_ and size_ (packetSize_) at every packet; interval_ and
# packet_size_ become rate_ and packetSize_ through ns-lib's `set` (_traffic_set).
CBR_LIVE = frozenset({"rate_", "interval_", "packetSize_", "packet_size_"})


def cbr_rate_changed(runner: Any, app: App) -> None:
    """`$cbr set interval_ 0.002` (or rate_, packetSize_) run by the script while the run
    goes on. ns-2.35 (tools/cbr_traffic.cc, trafgen.cc): the variable is bound to C++, the
    timer already set is not touched (no resched), `TrafficGenerator::timeout` sends `size_`
    as it is when the timer expires and then calls `next_interval`, which recomputes
    `interval_ = (size_ << 3) / rate_`. So the packet pending keeps its time and the new
    rate counts from the gap after it (Session.set_cbr_rate). A CBR not attached to a
    connected agent sends nothing: its variables only change."""
    ag = app.agent
    if runner.finished or ag is None or ag.flow is None:
        return
    rate = rate_bps(app.vars["rate_"])
    size = int(number(app.vars["packetSize_"], "packetSize_"))
    try:
        runner.session.set_cbr_rate(ag.flow, rate, size)
    except Exception as e:  # ScenarioError: what the engine cannot change
        raise Ns2Error(f"{app.cls} {app.handle} set at {runner.now:g} s: {e}") from None


class Applications:
    """The apps part of Interp (interp.py), a mixin of it."""

    def _traffic_set(self, app: App, var: str, value: str) -> tuple[str, str]:
        """ns-lib's `Application/Traffic instproc set` (packet_size_ is packetSize_) and
        `Application/Traffic/CBR instproc set` (an interval_ sets rate_ = packetSize_ * 8 /
        interval: ns-2 keeps the rate, and CBR's init computes its interval from it)."""
        if not is_a(app.cls, "Application/Traffic"):
            return var, value
        if var == "packet_size_":
            return "packetSize_", value
        if var == "interval_" and is_a(app.cls, "Application/Traffic/CBR"):
            interval = time_s(value)
            if interval == 0:
                raise TclScriptError("divide by zero")
            return "rate_", repr(number(app.vars["packetSize_"]) * 8.0 / interval)
        return var, value

    def resolve_app_times(self) -> None:
        """At $ns run: each application's first start and the first stop after it become its
        flow's `start` and `stop`; its later starts and stops (a CBR switched on and off) run
        as events during the run. A stop before the first start does nothing (as in ns-2)."""
        for app in self.objects.values():
            if not isinstance(app, App) or not app.times:
                continue
            times = sorted(x for x in app.times if x[1] not in self.cancelled)
            starts = [i for i, x in enumerate(times) if x[2] == "start"]
            # a Telnet's starts and stops run its timer during the run (telnet.py), unless
            # the engine runs its timer
            if app.cls == TELNET:
                app.telnet_engine = engine_runs(self, app, times)
            telnet_loop = app.cls == TELNET and not app.telnet_engine
            scripted = (app.agent is not None and app.agent.scripted) or telnet_loop
            if not starts or scripted:
                # never started: its stops run during the run (after finite sends they stop
                # the connection; before any they change nothing); an application given
                # finite data by events keeps its starts and stops as events too
                for t, seq, what in times:
                    heapq.heappush(self.events, (t, seq, self.tcl_list(app.handle, what)))
                continue
            first = starts[0]
            app.start, app.start_seq = times[first][0], times[first][1]
            rest = times[first + 1 :]
            stop = next((i for i, x in enumerate(rest) if x[2] == "stop"), None)
            if stop is not None and "start" not in {x[2] for x in rest[stop:]}:
                app.stop = rest[stop][0]  # stopped for good: the flow's stop
                rest = rest[stop + 1 :]
            # the rest (a restarted source's stops and starts) runs during the run
            for t, seq, what in rest:
                heapq.heappush(self.events, (t, seq, self.tcl_list(app.handle, what)))

    def app_method(self, app: App, m: str, a: list[str]) -> str:
        if app.cls == TELNET:
            done = telnet_method(self, app, m, a)
            if done is not None:
                return done
        if m == "attach-agent":
            ag = self.agent(a[0])
            app.agent, ag.app = ag, app
            return ""
        if m in ("start", "stop"):
            if a:
                raise Ns2Error(f"usage: $app {m}")
            if self.runner is None:  # before $ns run: now, time 0
                self.schedule(0.0, self.tcl_list(app.handle, m))
            else:
                self.runner.app_event(app, m)
            return ""
        if m in APP_DATA_OPS:
            # ns-2.35: Application::send -> agent sendmsg (apps/app.cc); FTP's produce and
            # producemore call the agent's advance and advanceby (tcl/lib/ns-source.tcl)
            if m != "send" and app.cls != "Application/FTP":
                raise Ns2Error(f"{app.cls} method `{m}` is not modelled (FTP has it)")
            if app.cls != "Application/FTP":
                raise Ns2Error(f"{app.cls} send: finite sends are modelled for FTP over TCP")
            if len(a) != 1:
                raise Ns2Error(f"usage: $ftp {m} n")
            if app.agent is None:
                raise Ns2Error(f"$ftp {m}: the application is not attached to an agent")
            return self.data_op(app.agent, APP_DATA_OPS[m], a[0], said=m)
        raise Ns2Error(f"{app.cls} method `{m}` is not modelled")
