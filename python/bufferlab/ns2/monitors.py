"""Queue monitors and integrators (ns-lib.tcl `monitor-queue`, SimpleLink
`queue-sample-timeout`; queue-monitor.cc, integrator.cc) and the AQMs' variable traces (red.cc
`REDQueue::trace`, rio.cc, rem.cc).
"""

from __future__ import annotations

from bufferlab.ns2.classes import INTEGRATOR_VARS
from bufferlab.ns2.errors import EvalInCaller, Ns2Error, TclScriptError
from bufferlab.ns2.model import Integrator, Link, Queue, QueueMonitor
from bufferlab.ns2.summary import printstats
from bufferlab.ns2.units import number

# typing is imported for type checkers only (docs/performance.md, "ns-2 scripts: start-up").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import ClassVar

# The procs of ns-lib.tcl's SimpleLink that a monitored link runs, in Tcl as ns-2 has them
# (Interp evaluates them at start-up).
MONITOR_TCL = r"""
# ns-lib.tcl's SimpleLink sample-queue-size: the queue's mean length in bytes and packets
# since the link's last sample (each integrator brought up to now by a newpoint at its own
# height, then restarted), and the monitor's counters. Its `expr`s are unbraced, as there.
proc ::ns2::sample_queue_size {ns link qmon} {
    variable last_sample
    set now [$ns now]
    set bint [$qmon get-bytes-integrator]
    set pint [$qmon get-pkts-integrator]
    $bint newpoint $now [$bint set lasty_]
    set bsum [$bint set sum_]
    $pint newpoint $now [$pint set lasty_]
    set psum [$pint set sum_]
    if {![info exists last_sample($link)]} { set last_sample($link) 0 }
    set dur [expr $now - $last_sample($link)]
    if {$dur != 0} {
        set meanb [expr $bsum / $dur]
        set meanp [expr $psum / $dur]
    } else {
        set meanb 0
        set meanp 0
    }
    $bint set sum_ 0.0
    $pint set sum_ 0.0
    set last_sample($link) $now
    set counts {}
    foreach v {parrivals_ pdepartures_ pdrops_ barrivals_ bdepartures_ bdrops_} {
        lappend counts [$qmon set $v]
    }
    return "$meanb $meanp [join $counts]"
}
# SimpleLink queue-sample-timeout: a sample written to the monitor's file (unless it is 0),
# and the next one sampleInterval later.
proc ::ns2::queue_sample_timeout {ns link qmon qtrace interval from to} {
    set qavg [::ns2::sample_queue_size $ns $link $qmon]
    if {$qtrace != 0} {
        puts $qtrace "[$ns now] $from $to $qavg"
    }
    $ns at [expr [$ns now] + $interval] "$link queue-sample-timeout"
}
"""


# The queue variables whose traces are written, per queue type: red.cc `REDQueue::trace`
# (ave_, curq_) and pi.cc `PIQueue::trace` (curq_, set as each packet arrives), both
# "Q %g %d" for curq_ and "%c %g %g" for the others.
_TRACED = {
    "RED": ("ave_", "curq_"),
    "PI": ("curq_",),
    # rio.cc RIOQueue::trace, rem.cc REMQueue::trace
    "RED/RIO": ("ave_", "curq_"),
    "REM": ("curq_",),
}


class Monitors:
    """The monitors part of Interp (interp.py), a mixin of it."""

    # `$ns NAME` -> the method that answers it (simulator.py sim_method)
    SIM_COMMANDS: ClassVar[dict[str, str]] = {"monitor-queue": "sim_monitor_queue"}

    def _integrator(self, qm: QueueMonitor, what: str) -> str:
        key = f"integrator_{what}"
        if key not in qm.vars:
            integ = Integrator(self._handle(), qm, what)
            self._register(integ)
            qm.vars[key] = integ.handle
        return qm.vars[key]

    @staticmethod
    def _integrator_var(var: str) -> int:
        if var not in INTEGRATOR_VARS:
            raise Ns2Error(f"Integrator {var} is not modelled ({', '.join(INTEGRATOR_VARS)} are)")
        return INTEGRATOR_VARS.index(var)

    def integral(self, integ: Integrator) -> list[float]:
        """The integrator's [lastx_, lasty_, sum_] now: the engine's during the run."""
        qm = integ.monitor
        if self.runner is not None and qm.engine_id is not None:
            return self.runner.integral(qm.engine_id, integ.what)
        return list(qm.integrals[integ.what])

    def set_integral(self, integ: Integrator, state: list[float]) -> None:
        qm = integ.monitor
        if self.runner is not None and qm.engine_id is not None:
            self.runner.set_integral(qm.engine_id, integ.what, state)
        else:
            qm.integrals[integ.what] = state

    def _queue_sample(self, link: Link, method: str) -> str:
        """ns-lib.tcl's SimpleLink `sample-queue-size` and `queue-sample-timeout`, over the
        link's last `$ns monitor-queue` (::ns2::sample_queue_size in _BOOT)."""
        qm = link.monitor
        if qm is None:
            raise TclScriptError(
                f'can\'t read "qMonitor_": no such variable ({link.handle} {method})'
            )
        assert link.src is not None and link.dst is not None and self.sim is not None
        ns = self.sim.handle
        if method == "sample-queue-size":
            raise EvalInCaller(
                self.tcl_list("::ns2::sample_queue_size", ns, link.handle, qm.handle)
            )
        raise EvalInCaller(
            self.tcl_list(
                "::ns2::queue_sample_timeout",
                ns,
                link.handle,
                qm.handle,
                qm.qtrace,
                qm.interval,
                str(link.src.id),
                str(link.dst.id),
            )
        )

    def _queue_trace(self, q: Queue, method: str, args: list[str]) -> str:
        """RED's, PI's, RIO's and REM's variable traces (red.cc `REDQueue::trace`, pi.cc
        `PIQueue::trace`, rio.cc, rem.cc):
        `$redq trace ave_` / `curq_`, written to the channel of `$q attach $f` at each
        change."""
        if len(args) != 1:
            raise Ns2Error(f"usage: $queue {method} {'channel' if method == 'attach' else 'var_'}")
        if method == "attach":
            self._channel_path(args[0], "$queue attach")
            self.var_channels[q.handle] = args[0]
            return ""
        if args[0] not in _TRACED.get(q.kind, ()):
            raise Ns2Error(
                f"$queue trace {args[0]}: RED's and RIO's ave_ and curq_ traces and PI's and "
                "REM's curq_ are written; sample other queue variables with a proc rescheduled "
                "by $ns at"
            )
        self.queue_traces.append((q, args[0]))
        if self.runner is not None:
            self.runner.start_queue_trace(q, args[0])
        return ""

    def sim_monitor_queue(self, m: str, a: list[str]) -> str:
        net = self.net
        if not 2 <= len(a) <= 4:
            raise Ns2Error("usage: $ns monitor-queue n1 n2 qtrace ?sampleInterval?")
        link = net.link(self.node(a[0]), self.node(a[1]))
        qtrace = a[2] if len(a) > 2 else ""
        interval = a[3] if len(a) > 3 else "0.1"  # ns-lib.tcl's default
        qm = QueueMonitor(self._handle(), link, qtrace, interval)
        self._register(qm)
        link.monitor = qm  # SimpleLink init-monitor: the link's qMonitor_ from now on
        if self.runner is not None:
            self.runner.add_monitor(qm)
        return qm.handle

    def queue_method(self, q: Queue, method: str, args: list[str]) -> str:
        """A queue's methods: its drop-target, and RED's variable traces."""
        if method == "drop-target":
            return self._drop_target(q, args)
        if method in ("attach", "trace"):
            return self._queue_trace(q, method, args)
        if method == "printstats":
            return printstats(self, q, args)
        raise Ns2Error(f"{q.cls} method `{method}` is not modelled")

    def monitor_method(self, obj: Integrator | QueueMonitor, method: str, args: list[str]) -> str:
        """An integrator's newpoint, a queue monitor's integrators and reset."""
        if isinstance(obj, Integrator) and method == "newpoint":
            if len(args) != 2:
                raise TclScriptError(f"{obj.handle} newpoint: usage: $int newpoint x y")
            lastx, lasty, total = self.integral(obj)
            x, y = number(args[0], "newpoint x"), number(args[1], "newpoint y")
            # tools/integrator.cc Integrator::newPoint, in the same double arithmetic
            self.set_integral(obj, [x, y, total + (x - lastx) * lasty])
            return ""
        if isinstance(obj, QueueMonitor):
            if method == "get-pkts-integrator":
                return self._integrator(obj, "packets")
            if method == "get-bytes-integrator":
                return self._integrator(obj, "bytes")
            if method == "reset":
                if self.runner is not None:
                    self._not_while_running("resetting a queue monitor")
                return ""
        raise Ns2Error(f"{obj.cls} method `{method}` is not modelled")
