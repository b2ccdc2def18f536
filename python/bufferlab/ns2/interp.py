"""The Tcl interpreter an ns-2 script runs in, and the OTcl-like layer of ns-2's API.

The script runs in a real Tcl 8.6 (tkinter's ``_tkinter``); only ns-2's commands are bufferlab's:
``new Class`` makes an object whose handle (``_o12``) is a Tcl command dispatched to Python,
``Class/Name set var_ value`` sets a class default that objects created later take (OTcl's
instvar initialisation), ``$obj set var value`` / ``$obj set var`` set and read instance
variables. The script's own classes (``Class Foo -superclass Bar``, ``instproc``, ``next``,
``instvar``, ``init``) follow OTcl, with the class table in ``otcl.py``; ``RNG`` and
``RandomVariable`` draw from ns-2's own generator (``rng.py``). As in ns-2, Tcl runs with
``tcl_precision`` 17 and ``$ns at`` events at the global level.

Tcl's ``exit`` is replaced (tkinter's would end Python): it stops the script and its code is
returned. ``exec`` of a program that is not installed (nam, xgraph) warns instead of failing.
"""

from __future__ import annotations

import _tkinter
import contextlib
import os
import sys
from collections.abc import Callable

from bufferlab.ns2.agents import Agents
from bufferlab.ns2.apps import Applications
from bufferlab.ns2.classes import FULL_TCP, QUEUE_KINDS, TCP_CC, TRAFFIC
from bufferlab.ns2.delayer import DelayerObj, Delayers
from bufferlab.ns2.errmodel import ErrModule, ErrorModels
from bufferlab.ns2.errors import EvalInCaller, Ns2Error, ScriptExit, TclScriptError
from bufferlab.ns2.eventtrace import EventTraces
from bufferlab.ns2.flowmon import FlowMonitors
from bufferlab.ns2.flowmon_classifier import FlowClassifier, FlowClassifiers
from bufferlab.ns2.model import (
    Agent,
    App,
    FlowDesc,
    FlowMon,
    Integrator,
    Link,
    Network,
    Node,
    Obj,
    Queue,
    QueueMonitor,
    Rng,
    TraceObj,
    reset_ssthresh,
)
from bufferlab.ns2.monitors import MONITOR_TCL, Monitors
from bufferlab.ns2.otcl import ROOTS, Classes, ObjectSystem, not_modelled_class
from bufferlab.ns2.randoms import RNG_TCL, RandomNumbers
from bufferlab.ns2.rng import MAXINT, Package, Stream
from bufferlab.ns2.simulator import Simulator
from bufferlab.ns2.stopper import Stopper
from bufferlab.ns2.telnet import SOURCE_TELNET_TCL
from bufferlab.ns2.topology import Topology
from bufferlab.ns2.traces import Traces
from bufferlab.ns2.units import number, rate_bps, time_s

# typing is imported for type checkers only (TYPE_CHECKING = False is their constant too):
# it is 2-4 ms of the command's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar


_BOOT = r"""
# ns-2 runs its scripts with tcl_precision 17 (`puts $tcl_precision` under ns prints 17), so
# doubles print with 17 digits (0.10000000000000001), as ns-2 prints them
set tcl_precision 17
# ns-autoconf.tcl's globals, as Debian's ns-2.35 has them (`puts $PERL` under ns): the validation
# suites' finish procs run `exec $PERL ../../bin/getrc ...`
set PERL /usr/bin/perl
set TCLSH /usr/bin/tclsh8.6
set MAXSEQ 1073741824
namespace eval ::ns2 { variable chanpath; array set chanpath {} }
namespace eval ::ns2::ip {}
proc ::ns2::where {} {
    for {set l [expr {[info frame] - 1}]} {$l > 0} {incr l -1} {
        set f [info frame $l]
        if {[string match ::ns2::vtrace* [dict get $f cmd]] && [dict exists $f proc]} {
            # a variable linked by instvar, set in a method (Tcl keeps no line for it)
            set what "set [lindex [dict get $f cmd] 4] ..."
            return [list "@[dict get $f proc]:0" $what]
        }
        if {[dict exists $f file] && [dict exists $f line]} {
            return [list "[file tail [dict get $f file]]:[dict get $f line]" [dict get $f cmd]]
        }
        # a method's body: the script line is found from where its instproc was given
        if {[dict exists $f proc] && [string match ::ns2::ip::m* [dict get $f proc]]} {
            return [list "@[dict get $f proc]:[dict get $f line]" [dict get $f cmd]]
        }
    }
    return {}
}
proc ::ns2::dispatch {args} {
    if {[lindex $args 0] eq "obj"} {
        switch -exact -- [lindex $args 2] {
            next {
                # OTcl's next: the caller is a method, whose `class` and `proc` say where
                # the search goes on
                if {![uplevel 1 {info exists class}] || ![uplevel 1 {info exists proc}]} {
                    return -code error "no executing proc"
                }
                set args [list __next__ [lindex $args 1] [uplevel 1 {set class}] \
                    [uplevel 1 {set proc}] {*}[lrange $args 3 end]]
            }
            instvar {
                foreach v [lrange $args 3 end] {
                    lassign $v name local
                    if {[llength $v] != 2} { set name $v; set local $v }
                    set fq [::ns2::dispatch __varname__ [lindex $args 1] $name]
                    uplevel 1 [list upvar #0 $fq $local]
                }
                return ""
            }
        }
    }
    set r [::ns2::py {*}$args]
    switch -exact -- [lindex $r 0] {
        ok { return [lindex $r 1] }
        eval { return [uplevel 1 [lindex $r 1]] }
        exit { return -code error -errorcode [list NS2EXIT [lindex $r 1]] "exit [lindex $r 1]" }
        tclerror { return -code error [lindex $r 1] }
        default {
            ::ns2::py __where__ {*}[::ns2::where]
            return -code error -errorcode NS2 [lindex $r 1]
        }
    }
}
# `new Foo args` runs init ($cmd) in the caller's frame and gives the object's handle.
proc ::ns2::construct {h cmd} {
    uplevel 1 $cmd
    return $h
}
# An ns-2 object's variable linked into a proc by instvar: its value lives in bufferlab's
# model (and in the engine during the run), read and written through `$obj set`.
proc ::ns2::vtrace {h name fq n1 n2 op} {
    if {$n2 ne ""} {
        error "$name of $h is an ns-2 variable, not an array"
    }
    switch -exact -- $op {
        read { set $fq [::ns2::dispatch obj $h set $name] }
        write { ::ns2::dispatch obj $h set $name [set $fq] }
    }
}
proc bw_parse {bspec} { ::ns2::dispatch units bw $bspec }
proc delay_parse {dspec} { ::ns2::dispatch units delay $dspec }
proc time_parse {spec} { ::ns2::dispatch units time $spec }
# ns-packet.tcl's choice of packet headers (ns-2's validation suites call it first): bufferlab's
# packets have no header table to trim, so these change nothing
proc remove-all-packet-headers {} {}
proc add-packet-header {args} {}
proc remove-packet-header {args} {}
catch {rename exit ::ns2::tcl_exit}
proc exit {{code 0}} { ::ns2::dispatch __exit__ $code }
rename open ::ns2::tcl_open
proc open {args} {
    set ch [::ns2::tcl_open {*}$args]
    set ::ns2::chanpath($ch) [lindex $args 0]
    return $ch
}
rename exec ::ns2::tcl_exec
proc exec {args} {
    if {[catch {uplevel 1 [list ::ns2::tcl_exec {*}$args]} r opts]} {
        if {[lrange [dict get $opts -errorcode] 0 1] eq {POSIX ENOENT}} {
            set i 0
            while {[string match -* [lindex $args $i]]} { incr i }
            ::ns2::py __warn__ "exec [lindex $args $i]: not installed here; skipped"
            return ""
        }
        return -options $opts $r
    }
    return $r
}
rename unknown ::ns2::tcl_unknown
proc unknown {args} {
    set name [lindex $args 0]
    if {[string match */* $name] || $name in {Mac Phy LL Antenna Classifier Trace QueueMonitor}} {
        return [::ns2::dispatch __unknown__ {*}$args]
    }
    uplevel 1 [list ::ns2::tcl_unknown {*}$args]
}
"""

# Classes `new` can make (and `Class set var value` can configure).
_CLASSES = sorted(
    {
        "Simulator",
        "Agent",
        "Agent/TCP",
        "Agent/TCP/Reno",
        "Agent/TCP/Newreno",
        "Agent/TCP/Sack1",
        "Agent/TCP/Vegas",
        "Agent/TCP/Linux",
        "Agent/TCP/FullTcp",
        *FULL_TCP,
        "Agent/TCPSink",
        "Agent/TCPSink/DelAck",
        "Agent/TCPSink/Sack1",
        "Agent/TCPSink/Sack1/DelAck",
        "Agent/UDP",
        "Agent/Null",
        "Agent/LossMonitor",
        "Application",
        "Application/FTP",
        "Application/Telnet",
        "Application/Traffic",
        *TRAFFIC,
        "Queue",
        *(f"Queue/{k}" for k in QUEUE_KINDS),
        "ErrorModel",
        "ErrorModel/Uniform",
        "ErrorModel/Periodic",
        "ErrorModel/List",
        "ErrorModule",
        "Delayer",
        "DelayLink",
        "RNG",
        "RandomVariable",
        "RandomVariable/Uniform",
        "RandomVariable/Exponential",
        "RandomVariable/Pareto",
        "RandomVariable/Constant",
        "RandomVariable/Normal",
        "RandomVariable/LogNormal",
        "RandomVariable/ParetoII",
        "RandomVariable/Erlang",
        "Trace",
    }
)

# Draws from the default RNG that making each TCP sender costs in ns-2 (see _make).
_TCP_CREATION_DRAWS = {c: 2 if c == "Agent/TCP/Vegas" else 1 for c in TCP_CC}
# FullTcp's constructor resets twice as Vegas's does (measured with `ns`: after
# `new Agent/TCP/FullTcp` ns-random gives the stream's third value)
_TCP_CREATION_DRAWS.update({c: 2 for c in FULL_TCP})


class Interp(
    ObjectSystem,
    Simulator,
    Topology,
    ErrorModels,
    Delayers,
    Agents,
    Applications,
    Monitors,
    FlowMonitors,
    FlowClassifiers,
    Traces,
    EventTraces,
    RandomNumbers,
):
    """One ns-2 script in one Tcl interpreter. Each ns-2 concept's commands are a part of it
    (a mixin in its own module): the OTcl object system (otcl.py), the Simulator
    (simulator.py), nodes and links (topology.py), error models (errmodel.py), Delayers
    (delayer.py), agents
    (agents.py), applications (apps.py), queue monitors (monitors.py), flow monitors
    (flowmon.py), traces (traces.py)
    and random numbers (randoms.py); this class holds the Tcl interpreter, the objects and
    the dispatcher."""

    SIM_COMMANDS: ClassVar[dict[str, str]] = {
        **Simulator.SIM_COMMANDS,
        **Topology.SIM_COMMANDS,
        "insert-delayer": "sim_insert_delayer",
        **Agents.SIM_COMMANDS,
        **Traces.SIM_COMMANDS,
        **EventTraces.SIM_COMMANDS,
        **Monitors.SIM_COMMANDS,
        **FlowMonitors.SIM_COMMANDS,
    }

    def __init__(
        self,
        script: str | os.PathLike[str],
        argv: list[str],
        *,
        seed: int | None = None,
        session_factory: Callable[..., Any] | None = None,
        import_only: bool = False,
        warn: Callable[[str], None] | None = None,
        max_wall: float | None = None,
    ):
        self.script = os.fspath(script)
        self.max_wall = max_wall  # --max-wall: seconds for the whole script (stopper.py)
        self.stopper: Stopper | None = None
        self.interrupted = False  # Ctrl-C reached this layer's Python
        self.stop_error: Ns2Error | None = None  # --max-wall or a stall: what ends the run
        self.argv = list(argv)
        self.seed = seed
        self.session_factory = session_factory
        self.import_only = import_only
        self._warn = warn or (lambda m: print(f"warning: {m}", file=sys.stderr))
        self.warned: set[str] = set()
        self.net = Network()
        self.objects: dict[str, Obj] = {}
        self.class_vars: dict[str, dict[str, str]] = {}
        # defaults the script set on ns-2 classes bufferlab does not model (_unmodelled_class)
        self.unmodelled_defaults: dict[str, dict[str, str]] = {}
        self.sim: Obj | None = None
        self.events: list[tuple[float, int, str]] = []  # (time, seq, script) before $ns run
        self.cancelled: set[int] = set()
        self._seq = 0
        self._count = 0
        self._fm_classifiers: dict[str, FlowClassifier] = {}  # flow monitor -> its classifier
        self._attach_seq = 0
        self._ca_at_zero: list[Agent] = []  # Agent/TCP/Linux given `$ns at 0 "$tcp select_ca"`
        self.runner: Any = None  # the Runner once $ns run has started
        self.failure: Ns2Error | None = None
        self.bug: BaseException | None = None
        self.exit_code: int | None = None
        self.scenario: dict[str, Any] | None = None  # import_only: what $ns run would run
        self.null_agent: Agent | None = None
        self.var_channels: dict[str, str] = {}  # agent or queue -> channel of `attach`
        # `$agent trace var_`, in order, and whether a channel was attached then
        self.var_traces: list[tuple[Agent, str, bool]] = []
        self.queue_traces: list[tuple[Queue, str]] = []  # `$redq trace ave_`, in order
        # The interpreter of tkinter.Tcl() (wantobjects 1, no Tk) without tkinter's classes,
        # which took longer to import than a small script takes to run (docs/performance.md,
        # "ns-2 scripts: start-up"), and without the user's ~/.Tk.tcl (ns-2 reads none).
        self.tcl = _tkinter.create(None, "bufferlab", "Tk", False, 1, False, False, None)
        self.tcl.createcommand("::ns2::py", self._py)
        self.tcl.eval(_BOOT)
        self.tcl.eval(MONITOR_TCL)
        self.tcl.call("interp", "alias", "", "new", "", "::ns2::dispatch", "new")
        self.tcl.call("interp", "alias", "", "delete", "", "::ns2::dispatch", "delete")
        self.tcl.call("interp", "alias", "", "ns-random", "", "::ns2::dispatch", "ns-random")
        for cls in (*_CLASSES, *ROOTS):
            self.tcl.call("interp", "alias", "", cls, "", "::ns2::dispatch", "class", cls)
        self.tcl.call("interp", "alias", "", "Class", "", "::ns2::dispatch", "Class")
        self.classes = Classes(_CLASSES)
        self.linked: set[tuple[str, str]] = set()  # ns-2 variables linked by instvar
        self.own_vars: dict[str, set[str]] = {}  # the script's variables of ns-2 objects
        self.proc_sites: dict[str, str] = {}  # a method's Tcl proc -> file:line it was given
        self._spaces = 0
        # ns-random.tcl at ns-2's start-up: `set defaultRNG [new RNG]; $defaultRNG seed 1;
        # $defaultRNG default` (--seed N seeds it with N instead)
        self.rng_package = Package()
        rng = Rng(self._handle(), Stream(self.rng_package))
        rng.stream.seed(seed if seed is not None and 0 < seed < MAXINT else 1)
        self._register(rng)
        self.default_rng = rng  # RNG::defaultrng(), which `$rng default` changes
        self.tcl.call("set", "::defaultRNG", rng.handle)
        # ns-2.35's start-up makes a second RNG after it (`RNG info instances` under `ns`: _o2
        # _o1), so that the script's first object is _o3 there: its handles are ns-2's
        self._handle()
        self.tcl.eval(RNG_TCL)
        self.tcl.eval(SOURCE_TELNET_TCL)  # ns-source.tcl's Source/Telnet

    def warn(self, message: str) -> None:
        if message not in self.warned:
            self.warned.add(message)
            self._warn(message)

    def _handle(self) -> str:
        self._count += 1
        return f"_o{self._count}"

    def _register(self, obj: Obj) -> Obj:
        self.objects[obj.handle] = obj
        self.tcl.call("interp", "alias", "", obj.handle, "", "::ns2::dispatch", "obj", obj.handle)
        return obj

    def _py(self, *args: str) -> tuple[str, str | float]:
        """Every ns-2 command arrives here (through ::ns2::dispatch)."""
        try:
            return ("ok", self._dispatch(list(args)))
        except Ns2Error as e:
            return self._py_failed(e)
        except ScriptExit as e:
            self.exit_code = e.code
            return ("exit", str(e.code))
        except EvalInCaller as e:
            return ("eval", e.script)
        except TclScriptError as e:
            return ("tclerror", e.message)
        except KeyboardInterrupt:  # Ctrl-C in this layer or the engine: Tcl unwinds, then
            self.interrupted = True  # source() raises it (stopper.py cancels Tcl's own)
            return ("error", "interrupted")
        except Exception as e:  # a bug in this layer: keep it for the caller
            if isinstance(e, ValueError | OverflowError) and "cannot convert float" in str(e):
                # int() of the script's nan or inf: the script's value, not a bug
                return self._py_failed(
                    Ns2Error(f"a value is not a finite number ({e}); give a finite one")
                )
            if self.bug is None:
                self.bug = e
            return ("error", f"internal error: {e!r}")

    def _py_failed(self, e: Ns2Error) -> tuple[str, str]:
        if self.failure is None:
            self.failure = e
        return ("error", e.message)

    def source(self) -> None:
        """Runs the script; raises Ns2Error, ScriptExit or the bug that stopped it."""
        self.tcl.call("set", "::argv0", str(self.script))
        self.tcl.call("set", "::argv", tuple(self.argv) if self.argv else "")
        self.tcl.call("set", "::argc", len(self.argv))
        try:
            with Stopper(self.tcl, self.max_wall) as self.stopper:
                self.tcl.call("source", str(self.script))
        except _tkinter.TclError as e:
            self._raise_from_tcl(e)
        finally:
            self._flush()
            if self.runner is not None:
                self.runner.close()
        if self.exit_code is not None:
            raise ScriptExit(self.exit_code)

    def eval_event(self, script: str, t: float) -> None:
        """Runs one `$ns at` script at the global level, as ns-2's scheduler evaluates it (the
        engine runs inside `$ns run`, whose frame the script must not see); raises like
        source()."""
        try:
            self.tcl.call("uplevel", "#0", script)
        except _tkinter.TclError as e:
            self._raise_from_tcl(e, f'the event at {t:g} s "{script}"')
        if self.exit_code is not None:
            raise ScriptExit(self.exit_code)

    def _flush(self) -> None:
        """What Tcl's exit does at the end of an ns-2 run (ns ends with Tcl_Exit, with or
        without the script's `exit`): the channels the script left open are flushed and
        closed, so no line it wrote is lost (Python's exit never deletes the interpreter)."""
        with contextlib.suppress(_tkinter.TclError):
            for ch in self.tcl.splitlist(self.tcl.call("file", "channels")):
                with contextlib.suppress(_tkinter.TclError):
                    self.tcl.call("flush" if ch in ("stdin", "stdout", "stderr") else "close", ch)

    def _raise_from_tcl(self, e: _tkinter.TclError, context: str | None = None) -> None:
        self._raise_stop(context)
        if self.bug is not None:
            raise self.bug
        if self.exit_code is not None:
            raise ScriptExit(self.exit_code)
        if self.failure is not None:
            f = self.failure
            if f.where is None and context:
                f.where = context
            raise f
        import re  # only an error's message needs it (scan.py)

        info = str(self.tcl.call("set", "::errorInfo"))
        where = None
        for m in re.finditer(r'\(file "([^"]+)" line (\d+)\)', info):
            where = f"{os.path.basename(m.group(1))}:{m.group(2)}"
        detail = ""
        for m in re.finditer(r'\(procedure "([^"]+)" line (\d+)\)', info):
            name = m.group(1)
            if name.startswith("::ns2::") and name not in self.classes.labels:
                continue  # this layer's own procs
            name = self.classes.labels.get(name, f"proc {name}")
            detail = f" (in {name}, line {m.group(2)} of its body)"
            break
        message = re.sub(
            r"::ns2::ip::m\d+", lambda m: self.classes.labels.get(m.group(0), m.group(0)), str(e)
        )
        raise Ns2Error(f"Tcl error: {message}{detail}", where=where or context)

    def stopping(self, e: Ns2Error) -> Ns2Error:
        """`e` ends the run, even if the script catches it (the runner raises it again)."""
        if self.stop_error is None:
            self.stop_error = e
        return self.stop_error

    def _raise_stop(self, context: str | None) -> None:
        """Ctrl-C, --max-wall or a stall ended the run: that, not what it made Tcl say."""
        stopper = self.stopper
        if self.interrupted or (stopper is not None and stopper.interrupted):
            raise KeyboardInterrupt
        if self.stop_error is None and stopper is not None and stopper.reason == "max_wall":
            runner = self.runner
            at = 0.0 if runner is None else runner.now
            self.stop_error = Ns2Error(
                f"stopped by --max-wall after {stopper.elapsed():.1f} s of wall time, at "
                f"{at:g} s of simulated time; the script's output is incomplete (raise "
                "--max-wall, or shorten the script's run)"
            )
        if self.stop_error is not None:
            if self.stop_error.where is None:  # Tcl cancelled before ::ns2::where said it
                # getvar, not `set`: a cancelled interpreter evaluates nothing more
                import re  # only an error's message needs it (scan.py)

                info = str(self.tcl.getvar("::errorInfo"))
                for m in re.finditer(r'\(file "([^"]+)" line (\d+)\)', info):
                    self.stop_error.where = f"{os.path.basename(m.group(1))}:{m.group(2)}"
                self.stop_error.where = self.stop_error.where or context
            raise self.stop_error

    def tcl_list(self, *words: str) -> str:
        # a tuple argument is a Tcl list; `format %s` gives its string form (tkinter would
        # turn the result of `list` back into a tuple)
        return str(self.tcl.call("format", "%s", tuple(str(w) for w in words)))

    def _make(self, cls: str, h: str, ucls: str | None = None) -> Obj:
        """An object of one of ns-2's classes bufferlab models (of the script's class `ucls`
        when it extends that ns-2 class)."""
        obj: Obj
        if cls == "Simulator":
            if self.sim is not None:
                raise Ns2Error("a second Simulator is not modelled")
            obj = Obj(h, cls)
            self.sim = obj
        elif cls.startswith("Agent"):
            obj = Agent(h, cls, order=len(self.net.agents))
            if cls in ("Agent",):
                if ucls:
                    raise Ns2Error(
                        f"new {ucls}: an agent written in OTcl (Class {ucls} -superclass Agent, "
                        "its recv and send in Tcl) is not modelled; extend a modelled agent "
                        "(Agent/TCP/Reno, Agent/UDP, ...) to add procs to it"
                    )
                raise Ns2Error("new Agent: give a concrete agent class (Agent/TCP, Agent/UDP, ...)")
            self.net.agents.append(obj)  # type: ignore[arg-type]
            # ns-2's TCP senders draw from the default RNG when made (TcpAgent's reset, which
            # Vegas runs twice): measured with `ns`, a value drawn after `new Agent/TCP` is the
            # stream's second, after `new Agent/TCP/Vegas` its third; sinks and UDP draw none
            for _ in range(_TCP_CREATION_DRAWS.get(cls, 0)):
                self.default_rng.stream.u01()
        elif cls.startswith("Application"):
            if cls in ("Application", "Application/Traffic"):
                if ucls:
                    raise Ns2Error(
                        f"new {ucls}: an application written in OTcl (Class {ucls} -superclass "
                        f"{cls}, its recv or send in Tcl) is not modelled; extend a modelled "
                        "application (Application/FTP, Application/Traffic/CBR, ...) to add "
                        "procs to it"
                    )
                raise Ns2Error(f"new {cls}: give a concrete application (FTP, Traffic/CBR, ...)")
            obj = App(h, cls)
        elif cls == "RNG":
            obj = Rng(h, Stream(self.rng_package))
        elif cls == "Trace":
            raise Ns2Error(
                "new Trace: trace objects made by hand are not modelled; use $ns trace-all, "
                "trace-queue or create-trace"
            )
        elif cls == "ErrorModule":
            obj = ErrModule(h, cls)
        elif cls == "Delayer":
            obj = DelayerObj(h, cls)
        elif cls.startswith("Queue"):
            raise Ns2Error(
                "new Queue/...: a queue made outside a link is not modelled; give the queue "
                "type to $ns duplex-link"
            )
        else:
            obj = Obj(h, cls)
        obj.ucls = ucls
        self.init_vars(obj)
        if cls in TCP_CC or cls in FULL_TCP:
            reset_ssthresh(obj)  # the constructor's reset()
        if cls.startswith("RandomVariable"):
            obj.vars.setdefault("rng", self.default_rng.handle)
        self._register(obj)
        return obj

    def _dispatch(self, args: list[str]) -> str | float:
        kind = args[0]
        if kind == "obj":
            obj = self.objects.get(args[1])
            if obj is None:
                raise Ns2Error(f"{args[1]} has been deleted")
            if len(args) < 3:
                raise Ns2Error(f"{args[1]}: a method name is missing")
            return self.method(obj, args[2], args[3:])
        if kind == "class":
            return self.class_method(args[1], args[2] if len(args) > 2 else "", args[3:])
        if kind == "new":
            if len(args) < 2:
                raise Ns2Error("new: the class is missing")
            return self.new(args[1], args[2:])
        if kind == "delete":
            gone = self.objects.get(args[1]) if len(args) > 1 else None
            if gone is not None and gone.ucls is not None:
                raise EvalInCaller(self.tcl_list(gone.handle, "destroy"))
            return ""  # ns-2's own objects stay in the network they were built into
        if kind == "Class":
            return self.make_class(args[1:])
        if kind == "__next__":
            return self.next_method(args[1], args[2], args[3], args[4:])
        if kind == "__varname__":
            return self.var_name(args[1], args[2])
        if kind == "units":
            if len(args) != 3:
                raise Ns2Error(f"usage: {args[1] if len(args) > 1 else 'bw'}_parse value")
            v = rate_bps(args[2]) if args[1] == "bw" else time_s(args[2])
            return v  # a Tcl double, printed as ns-2's expr prints it (10000000.0)
        if kind == "ns-random":  # misc.cc: Random::random(), or Random::seed(N)
            if len(args) > 1:
                return self.seed_rng(self.default_rng, args[1])
            return str(self.default_rng.stream.next_random())
        if kind == "__exit__":
            code = int(number(args[1], "exit code")) if len(args) > 1 else 0
            raise ScriptExit(code)
        if kind == "__warn__":
            self.warn(args[1])
            return ""
        if kind == "__where__":
            if self.failure is not None and self.failure.where is None and len(args) > 2:
                self.failure.where, self.failure.command = self._site(args[1]), args[2]
            return ""
        if kind == "__unknown__":
            return self._unmodelled_class(args[1], args[2:])
        raise Ns2Error(f"unknown command {kind}")

    def _unmodelled_class(self, cls: str, args: list[str]) -> str:
        """A command named after an ns-2 class bufferlab does not model. `Class set var value`
        (a default, as ns-2's suites set them for every test at the top of a file) is kept,
        and read back by `Class set var`: the refusal comes when the script makes an object
        of the class (`new`), or asks it anything else."""
        if args[:1] == ["set"] and len(args) in (2, 3):
            kept = self.unmodelled_defaults.setdefault(cls, {})
            if len(args) == 3:
                kept[args[1]] = args[2]
                return args[2]
            if args[1] in kept:
                return kept[args[1]]
        raise Ns2Error(not_modelled_class(cls))

    def builtin_method(self, obj: Obj, method: str, args: list[str]) -> str:
        """The methods of ns-2's (and OTcl's) classes: what `$obj method` reaches past the
        script's procs, each answered by the part of the interpreter its class belongs to."""
        if method == "set" and obj is not self.sim:
            return self.obj_set(obj, args)
        if method == "proc":
            return self._define_proc(("o", obj.handle), args, "$obj proc")
        if method == "info":
            return self.obj_info(obj, args)
        if method == "class" and not args:
            return obj.klass
        if method == "init":
            return self._configure_now(obj, args) if obj.ns is not None else ""
        if method == "destroy":
            if obj.ucls is not None:
                self._destroy(obj)
            return ""
        if obj.ns is not None:
            if method == "unset" and len(args) == 1:
                raise EvalInCaller(self.tcl_list("unset", f"{obj.ns}::{args[0]}"))
            if method == "array" and len(args) >= 2:
                raise EvalInCaller(
                    self.tcl_list("array", args[0], f"{obj.ns}::{args[1]}", *args[2:])
                )
            raise TclScriptError(f"{obj.handle}: unable to dispatch method {method}")
        if obj is self.sim:
            return self.sim_method(method, args)
        if isinstance(obj, Node):
            return self.node_method(obj, method, args)
        if isinstance(obj, Agent):
            return self.agent_method(obj, method, args)
        if isinstance(obj, App):
            return self.app_method(obj, method, args)
        if isinstance(obj, Link):
            return self.link_method(obj, method, args)
        if isinstance(obj, Queue):
            return self.queue_method(obj, method, args)
        if isinstance(obj, TraceObj):
            return self._trace_obj_method(obj, method, args)
        if isinstance(obj, Rng):
            return self.rng_method(obj, method, args)
        if obj.cls.startswith("RandomVariable"):
            return self.ranvar_method(obj, method, args)
        if obj.cls.startswith("ErrorModel"):
            return self.error_model_method(obj, method, args)
        if isinstance(obj, ErrModule):
            return self.error_module_method(obj, method, args)
        if isinstance(obj, DelayerObj):
            return self.delayer_method(obj, method, args)
        if isinstance(obj, Integrator | QueueMonitor):
            return self.monitor_method(obj, method, args)
        if isinstance(obj, FlowMon | FlowDesc):
            return self.flowmon_method(obj, method, args)
        if isinstance(obj, FlowClassifier):
            return self.classifier_method(obj, method, args)
        raise Ns2Error(f"{obj.cls} method `{method}` is not modelled")
