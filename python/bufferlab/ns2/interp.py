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
import fnmatch
import heapq
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path

from bufferlab.ns2.errors import Ns2Error, ScriptExit
from bufferlab.ns2.model import (
    INTEGRATOR_VARS,
    LABELS,
    LINUX_CA,
    LINUX_CA_UNMODELLED,
    NS_DEFAULTS,
    QUEUE_KINDS,
    TCP_CC,
    TCP_SINKS,
    TCP_STATE,
    TRACE_EVENTS,
    TRAFFIC,
    UDP_SINKS,
    VAR_TRACES,
    Agent,
    App,
    Integrator,
    Link,
    Network,
    Node,
    Obj,
    Queue,
    QueueMonitor,
    TraceObj,
    class_chain,
    is_a,
    red_automatic,
    reset_ssthresh,
)
from bufferlab.ns2.otcl import ROOTS, Classes
from bufferlab.ns2.rng import MAXINT, RANVAR_DEFAULTS, Package, Stream, ranvar_value
from bufferlab.ns2.stopper import Stopper
from bufferlab.ns2.units import bound_text, number, rate_bps, time_s

# typing is imported for type checkers only (TYPE_CHECKING = False is their constant too):
# it is 2-4 ms of the command's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_BOOT = r"""
# ns-2 runs its scripts with tcl_precision 17 (`puts $tcl_precision` under ns prints 17), so
# doubles print with 17 digits (0.10000000000000001), as ns-2 prints them
set tcl_precision 17
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
    if {[string match */* $name] || $name in {Mac Phy LL Antenna Classifier Trace}} {
        ::ns2::dispatch __unknown__ {*}$args
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
        "Agent/TCPSink",
        "Agent/TCPSink/DelAck",
        "Agent/TCPSink/Sack1",
        "Agent/TCPSink/Sack1/DelAck",
        "Agent/UDP",
        "Agent/Null",
        "Agent/LossMonitor",
        "Application",
        "Application/FTP",
        "Application/Traffic",
        *TRAFFIC,
        "Queue",
        *(f"Queue/{k}" for k in QUEUE_KINDS),
        "ErrorModel",
        "ErrorModel/Uniform",
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
    }
)

# Draws from the default RNG that making each TCP sender costs in ns-2 (see _make).
# Data written into a one-way TCP agent (tcp.cc command: send -> sendmsg, advance, advanceby)
# and FTP's procs that call them (ns-source.tcl; Application::send, app.cc).
_DATA_OPS = ("send", "advance", "advanceby")
_APP_DATA_OPS = {"send": "send", "produce": "advance", "producemore": "advanceby"}
_SCRIPTED = re.compile(
    r"(?<![\w$])(_o\d+)\s+(send|advance|advanceby|produce|producemore)(?![\w-])(?:\s+(-?\d+))?"
)


def _atoi(text: str) -> int:
    """C's atoi, as tcp.cc and app.cc read their argument: the leading integer, else 0."""
    m = re.match(r"\s*([+-]?\d+)", str(text))
    return int(m.group(1)) if m else 0


_TCP_CREATION_DRAWS = {c: 2 if c == "Agent/TCP/Vegas" else 1 for c in TCP_CC}

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
_IGNORED_NODE = {"color", "shape", "label", "label-color", "label-at", "add-mark", "delete-mark"}


class Rng(Obj):
    """An ns-2 RNG: one MRG32k3a stream of the script's package (rng.py)."""

    def __init__(self, handle: str, stream: Stream):
        super().__init__(handle, "RNG")
        self.stream = stream


class Interp:
    """One ns-2 script in one Tcl interpreter."""

    def __init__(
        self,
        script: Path,
        argv: list[str],
        *,
        seed: int | None = None,
        session_factory: Callable[..., Any] | None = None,
        import_only: bool = False,
        warn: Callable[[str], None] | None = None,
        max_wall: float | None = None,
    ):
        self.script = Path(script)
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
        self.sim: Obj | None = None
        self.events: list[tuple[float, int, str]] = []  # (time, seq, script) before $ns run
        self.cancelled: set[int] = set()
        self._seq = 0
        self._count = 0
        self._attach_seq = 0
        self._ca_at_zero: list[Agent] = []  # Agent/TCP/Linux given `$ns at 0 "$tcp select_ca"`
        self.runner: Any = None  # the Runner once $ns run has started
        self.failure: Ns2Error | None = None
        self.bug: BaseException | None = None
        self.exit_code: int | None = None
        self.scenario: dict[str, Any] | None = None  # import_only: what $ns run would run
        self.null_agent: Agent | None = None
        self.var_channels: dict[str, str] = {}  # agent or queue -> channel of `attach`
        self.var_traces: list[tuple[Agent, str]] = []  # `$agent trace var_`, in order
        self.queue_traces: list[tuple[Queue, str]] = []  # `$redq trace ave_`, in order
        # The interpreter of tkinter.Tcl() (wantobjects 1, no Tk) without tkinter's classes,
        # which took longer to import than a small script takes to run (docs/performance.md,
        # "ns-2 scripts: start-up"), and without the user's ~/.Tk.tcl (ns-2 reads none).
        self.tcl = _tkinter.create(None, "bufferlab", "Tk", False, 1, False, False, None)
        self.tcl.createcommand("::ns2::py", self._py)
        self.tcl.eval(_BOOT)
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
        self.tcl.eval(_RNG_TCL)

    # -- plumbing -----------------------------------------------------------------------------

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
        except _Eval as e:
            return ("eval", e.script)
        except _TclError as e:
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
        info = str(self.tcl.call("set", "::errorInfo"))
        where = None
        for m in re.finditer(r'\(file "([^"]+)" line (\d+)\)', info):
            where = f"{Path(m.group(1)).name}:{m.group(2)}"
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
        reason = None if self.stopper is None else self.stopper.reason
        if self.interrupted or reason == "interrupt":
            raise KeyboardInterrupt
        if self.stop_error is None and reason == "max_wall":
            assert self.stopper is not None
            runner = self.runner
            at = 0.0 if runner is None else runner.now
            where = None
            # getvar, not `set`: a cancelled interpreter evaluates nothing more
            info = str(self.tcl.getvar("::errorInfo"))
            for m in re.finditer(r'\(file "([^"]+)" line (\d+)\)', info):
                where = f"{Path(m.group(1)).name}:{m.group(2)}"
            self.stop_error = Ns2Error(
                f"stopped by --max-wall after {self.stopper.elapsed():.1f} s of wall time, at "
                f"{at:g} s of simulated time; the script's output is incomplete (raise "
                "--max-wall, or shorten the script's run)",
                where=where or context,
            )
        if self.stop_error is not None:
            raise self.stop_error

    def tcl_list(self, *words: str) -> str:
        # a tuple argument is a Tcl list; `format %s` gives its string form (tkinter would
        # turn the result of `list` back into a tuple)
        return str(self.tcl.call("format", "%s", tuple(str(w) for w in words)))

    # -- objects and classes --------------------------------------------------------------------

    def _chain(self, obj_or_cls: Obj | str) -> list[str]:
        """The classes whose variables an ns-2 object takes as defaults: its user classes
        (ns-2's init-instvar searches the object's whole heritage), then its ns-2 classes."""
        if isinstance(obj_or_cls, str):
            return class_chain(obj_or_cls)
        obj = obj_or_cls
        mro = self.classes.mro(obj.ucls) if obj.ucls else []
        users = [c for c in mro if c in self.classes.user]
        return [*users, *class_chain(obj.cls)]

    def default(self, cls: Obj | str, var: str) -> str | None:
        for c in self._chain(cls):
            if var in self.class_vars.get(c, {}):
                return self.class_vars[c][var]
            if var in NS_DEFAULTS.get(c, {}):
                return NS_DEFAULTS[c][var]
        return None

    def init_vars(self, obj: Obj) -> None:
        """OTcl instvar initialisation: the class defaults as they are now."""
        names: set[str] = set()
        for c in self._chain(obj):
            names |= set(NS_DEFAULTS.get(c, {})) | set(self.class_vars.get(c, {}))
        for n in names:
            value = self.default(obj, n)
            if value is not None:
                obj.vars[n] = value

    def new(self, cls: str, args: list[str], handle: str | None = None) -> str:
        """`new Class args` (ns-lib.tcl): makes the object, then runs the first `init` of its
        heritage with args; with none, OTcl's Object init takes `-method value` options."""
        if not self.classes.exists(cls):
            raise Ns2Error(_not_modelled_class(cls))
        if handle is not None and (
            handle in self.objects or self.tcl.call("info", "commands", handle)
        ):
            raise _TclError(f'cannot create "{handle}": a command of that name exists')
        user = self.classes.user.get(cls)
        base = self.classes.builtin_base(cls) if user is not None else None
        if user is None and cls not in ROOTS:
            obj = self._make(cls, handle or self._handle())
        elif base is None:  # a pure OTcl object: its variables live in a Tcl namespace
            self._spaces += 1
            obj = Obj(handle or self._handle(), "Object", ucls=cls, ns=f"::ns2::o::v{self._spaces}")
            self.tcl.eval(f"namespace eval {obj.ns} {{}}")
            self._register(obj)
        else:
            obj = self._make(base, handle or self._handle(), ucls=cls)
        if user is not None:
            user.instances.append(obj.handle)
        h = obj.handle
        found = self.classes.find(h, obj.klass, "init")
        if found is not None:
            p, where = found
            call = self.tcl_list(p.tcl_name, h, where, "init", *args)
            raise _Eval(self.tcl_list("::ns2::construct", h, call))
        if obj.ns is not None and args:
            raise _Eval(self.tcl_list("::ns2::construct", h, self._configure(h, args)))
        return h

    def _configure(self, h: str, args: list[str]) -> str:
        """OTcl's Object init: `-name a b -other c` calls `$obj name a b` and `$obj other c`."""
        cmds: list[list[str]] = []
        for a in args:
            if re.match(r"-[A-Za-z_]", a):
                cmds.append([h, a[1:]])
            elif not cmds:
                raise _TclError(f"{h}: unable to dispatch method {a}")
            else:
                cmds[-1].append(a)
        return "\n".join(self.tcl_list(*c) for c in cmds)

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
        elif cls.startswith("Queue"):
            raise Ns2Error(
                "new Queue/...: a queue made outside a link is not modelled; give the queue "
                "type to $ns duplex-link"
            )
        else:
            obj = Obj(h, cls)
        obj.ucls = ucls
        self.init_vars(obj)
        if cls in TCP_CC:
            reset_ssthresh(obj)  # the constructor's reset()
        if cls.startswith("RandomVariable"):
            obj.vars.setdefault("rng", self.default_rng.handle)
        self._register(obj)
        return obj

    # -- the dispatcher ---------------------------------------------------------------------------

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
                raise _Eval(self.tcl_list(gone.handle, "destroy"))
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
            raise Ns2Error(_not_modelled_class(args[1]))
        raise Ns2Error(f"unknown command {kind}")

    # -- OTcl classes (otcl.py) ----------------------------------------------------------------

    def make_class(self, a: list[str]) -> str:
        """`Class Foo ?-superclass {Bar ...}?` (also `Class create Foo ...`)."""
        if a[:1] == ["create"]:
            a = a[1:]
        if not a or a[0].startswith("-"):
            raise Ns2Error("usage: Class Name ?-superclass {Super ...}?")
        name, opts = a[0], a[1:]
        supers: list[str] | None = None
        while opts:
            if opts[0] == "-superclass" and len(opts) >= 2:
                supers = [str(w) for w in self.tcl.splitlist(opts[1])]
                opts = opts[2:]
            else:
                raise Ns2Error(f"Class {name} {opts[0]}: only -superclass is modelled")
        known = name in self.classes.user
        if known:  # `Class Foo` again makes it anew, as OTcl does: no procs, no variables
            self.classes.forget_class(name)
            self.class_vars.pop(name, None)
        self.classes.define(name, supers if supers is not None else ["Object"])
        if not known:
            self.tcl.call("interp", "alias", "", name, "", "::ns2::dispatch", "class", name)
        return name

    def _site(self, where: str) -> str:
        """`file:line` of a frame ::ns2::where names; `@proc:N` is line N of a method's body,
        counted from the line of the instproc that gave it."""
        m = re.fullmatch(r"@(.+):(\d+)", where)
        if m is None:
            return where
        site = self.proc_sites.get(m.group(1))
        if site is None:
            return self.classes.labels.get(m.group(1), m.group(1))
        file, line = site.rsplit(":", 1)
        if m.group(2) == "0":  # somewhere in the method: its instproc's line, and its name
            return f"{file}:{line} (in {self.classes.labels.get(m.group(1), m.group(1))})"
        return f"{file}:{int(line) + int(m.group(2)) - 1}"

    def _define_proc(self, key: tuple[str, str], a: list[str], usage: str) -> str:
        if len(a) != 3:
            raise Ns2Error(f"usage: {usage} name args body")
        name, params, body = a
        p = self.classes.define_proc(key, name, params, body)
        here = [str(w) for w in self.tcl.splitlist(self.tcl.eval("::ns2::where"))]
        if here and not here[0].startswith("@"):
            self.proc_sites[p.tcl_name] = here[0]
        # OTcl's methods take self, class (the one that defines it) and proc (its name)
        self.tcl.call("proc", p.tcl_name, f"self class proc {params}", body)
        return ""

    def class_method(self, cls: str, method: str, args: list[str]) -> str:
        user = self.classes.user.get(cls)
        if method == "set":
            if len(args) == 1:
                v = self.default(cls, args[0]) if user is None else None
                if v is None:
                    v = self.class_vars.get(cls, {}).get(args[0])
                if v is None:
                    if user is not None or cls in ROOTS:
                        raise _TclError(f'can\'t read "{args[0]}": no such variable')
                    raise Ns2Error(f"{cls} has no class variable {args[0]}")
                return v
            if len(args) != 2:
                raise Ns2Error(f"usage: {cls} set var_ ?value?")
            if self.runner is not None and user is None:
                self._not_while_running(f"{cls} set {args[0]}")
            self.class_vars.setdefault(cls, {})[args[0]] = args[1]
            return args[1]
        if method == "unset" and len(args) == 1:
            self.class_vars.get(cls, {}).pop(args[0], None)
            return ""
        if method == "instproc":
            return self._define_proc(("c", cls), args, f"{cls} instproc")
        if method == "proc":
            return self._define_proc(("o", cls), args, f"{cls} proc")
        if method == "create":
            if not args:
                raise Ns2Error(f"usage: {cls} create name ?args?")
            return self.new(cls, args[1:], handle=args[0])
        if method == "superclass":
            if user is None:
                raise Ns2Error(f"{cls} superclass: the heritage of ns-2's classes is fixed")
            if not args:
                return self.tcl_list(*user.supers)
            self.classes.set_supers(user, [str(w) for w in self.tcl.splitlist(args[0])])
            return ""
        if method == "info":
            return self.class_info(cls, args)
        p = self.classes.procs.get((("o", cls), method))
        if p is not None:
            raise _Eval(self.tcl_list(p.tcl_name, cls, "", method, *args))
        if user is not None or cls in ROOTS:
            raise _TclError(f"{cls}: unable to dispatch method {method}")
        raise Ns2Error(f"{cls} {method}: not an ns-2 class method bufferlab models")

    def class_info(self, cls: str, a: list[str]) -> str:
        what = a[0] if a else ""
        user = self.classes.user.get(cls)
        instprocs = {m: p for (k, m), p in self.classes.procs.items() if k == ("c", cls)}
        if what == "superclass":
            if user is not None:
                return self.tcl_list(*user.supers)
            h = self.classes.heritage(cls)
            return h[0] if h else ""
        if what == "heritage":
            return self.tcl_list(*self.classes.heritage(cls))
        if what == "subclass":
            return self.tcl_list(*self.classes.subclasses(cls))
        if what == "instances":
            alive = [h for h in (user.instances if user else []) if h in self.objects]
            return self.tcl_list(*alive)
        if what == "instprocs":
            return self.tcl_list(*instprocs)
        if what in ("instargs", "instbody") and len(a) == 2 and a[1] in instprocs:
            p = instprocs[a[1]]
            if what == "instbody":
                return p.body
            return self.tcl_list(*[str(w) for w in self.tcl.call("info", "args", p.tcl_name)][3:])
        if what == "procs":
            return self.tcl_list(*[m for (k, m) in self.classes.procs if k == ("o", cls)])
        if what == "class":
            return "Class"
        if what == "vars":
            return self.tcl_list(*self.class_vars.get(cls, {}))
        raise _TclError(f"{cls} info {what}: not an OTcl class query bufferlab models")

    def method(self, obj: Obj, method: str, args: list[str]) -> str:
        found = self.classes.find(obj.handle, obj.klass, method)
        if found is not None:
            p, where = found
            raise _Eval(self.tcl_list(p.tcl_name, obj.handle, where, method, *args))
        return self.builtin_method(obj, method, args)

    def next_method(self, h: str, after: str, method: str, args: list[str]) -> str:
        """`$self next args` in the method `method` that class `after` defines."""
        obj = self.objects.get(h)
        if obj is None:
            raise Ns2Error(f"{h} has been deleted")
        found = self.classes.find(h, obj.klass, method, after=after)
        if found is not None:
            p, where = found
            raise _Eval(self.tcl_list(p.tcl_name, h, where, method, *args))
        if method == "init":  # past the script's constructors: ns-2's object is made already
            return self._configure_now(obj, args) if obj.ns is not None else ""
        return self.builtin_method(obj, method, args)

    def _configure_now(self, obj: Obj, args: list[str]) -> str:
        script = self._configure(obj.handle, args)
        if script:
            raise _Eval(script)
        return ""

    def var_name(self, h: str, var: str) -> str:
        """The global name `$obj instvar var` links to: the variable itself for a pure OTcl
        object; for an ns-2 object, a variable traced to bufferlab's (::ns2::vtrace)."""
        obj = self.objects.get(h)
        if obj is None:
            raise Ns2Error(f"{h} has been deleted")
        if obj.ns is not None:
            return f"{obj.ns}::{var}"
        space = f"::ns2::b::{h.replace(':', '_')}"
        fq = f"{space}::{var}"
        if (h, var) not in self.linked:
            self.linked.add((h, var))
            self.tcl.eval(f"namespace eval {space} {{}}")
            with contextlib.suppress(Ns2Error):  # not set yet: `info exists` says 0, as in ns-2
                self.tcl.call("set", fq, self.get_var(obj, var))
            self.tcl.call(
                "trace", "add", "variable", fq, "read write", ("::ns2::vtrace", h, var, fq)
            )
        return fq

    def builtin_method(self, obj: Obj, method: str, args: list[str]) -> str:
        """The methods of ns-2's (and OTcl's) classes: what `$obj method` reaches past the
        script's procs."""
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
                raise _Eval(self.tcl_list("unset", f"{obj.ns}::{args[0]}"))
            if method == "array" and len(args) >= 2:
                raise _Eval(self.tcl_list("array", args[0], f"{obj.ns}::{args[1]}", *args[2:]))
            raise _TclError(f"{obj.handle}: unable to dispatch method {method}")
        if obj is self.sim:
            return self.sim_method(method, args)
        if isinstance(obj, Node):
            return self.node_method(obj, method, args)
        if isinstance(obj, Agent):
            return self.agent_method(obj, method, args)
        if isinstance(obj, App):
            return self.app_method(obj, method, args)
        if isinstance(obj, Link):
            if method == "queue":
                assert obj.queue is not None
                return obj.queue.handle
            if method in ("errormodule", "install-error", "trace-dynamics"):
                raise Ns2Error(f"link {method}: use $ns lossmodel $em n1 n2")
            if method in ("queue-sample-timeout", "sample-queue-size") and not args:
                return self._queue_sample(obj, method)
            if method == "start-tracing":
                raise Ns2Error(
                    "link start-tracing (the queue monitor's per-packet `q` lines) is not "
                    "written; use queue-sample-timeout or a proc that reads the monitor"
                )
            if method == "trace" and len(args) in (2, 3) and self.objects.get(args[0]) is self.sim:
                if len(args) == 3 and args[2]:
                    raise Ns2Error(f"$link trace with op {args[2]}: nam traces are not written")
                return self._trace_link(obj, args[1])
        if method == "drop-target" and (isinstance(obj, Queue) or obj.cls.startswith("ErrorModel")):
            return self._drop_target(obj, args)
        if isinstance(obj, Queue) and method in ("attach", "trace"):
            return self._queue_trace(obj, method, args)
        if isinstance(obj, TraceObj):
            return self._trace_obj_method(obj, method, args)
        if isinstance(obj, Rng):
            return self.rng_method(obj, method, args)
        if obj.cls.startswith("RandomVariable"):
            return self.ranvar_method(obj, method, args)
        if obj.cls.startswith("ErrorModel"):
            if method == "unit":
                obj.vars["unit_"] = args[0] if args else "pkt"
                return ""
            if method == "ranvar" and args:
                rv = self.objects.get(args[0])
                if rv is None or not rv.cls.startswith("RandomVariable"):
                    raise Ns2Error(f"ErrorModel ranvar {args[0]}: not a RandomVariable")
                obj.ranvar = rv
                obj.ranvar_on_default = rv.vars.get("rng") == self.default_rng.handle
                return ""
            if method in ("ranvar", "target"):
                return obj.ranvar.handle if method == "ranvar" and obj.ranvar else ""
        if isinstance(obj, Integrator) and method == "newpoint":
            if len(args) != 2:
                raise _TclError(f"{obj.handle} newpoint: usage: $int newpoint x y")
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

    def obj_info(self, obj: Obj, a: list[str]) -> str:
        what = a[0] if a else ""
        if what == "class":
            if len(a) == 2:  # `$obj info class Foo`: is it a Foo (or a subclass of Foo)?
                return "1" if a[1] in self.classes.mro(obj.klass) else "0"
            return obj.klass
        if what == "vars":
            pattern = a[1] if len(a) > 1 else "*"
            if obj.ns is not None:
                names = self.tcl.splitlist(self.tcl.call("info", "vars", f"{obj.ns}::{pattern}"))
                return self.tcl_list(*[str(n).rsplit("::", 1)[-1] for n in names])
            return self.tcl_list(*[v for v in obj.vars if fnmatch.fnmatchcase(v, pattern)])
        own = {m: p for (k, m), p in self.classes.procs.items() if k == ("o", obj.handle)}
        if what == "procs":
            return self.tcl_list(*own)
        if what in ("args", "body") and len(a) == 2 and a[1] in own:
            p = own[a[1]]
            if what == "body":
                return p.body
            return self.tcl_list(*[str(w) for w in self.tcl.call("info", "args", p.tcl_name)][3:])
        raise _TclError(f"{obj.handle} info {what}: not an OTcl object query bufferlab models")

    def _destroy(self, obj: Obj) -> None:
        """OTcl's Object destroy: the object, its command and its variables go away (an ns-2
        object made as part of a user class stays in the network it was built into)."""
        if obj.ns is None:
            return
        del self.objects[obj.handle]
        self.tcl.call("interp", "alias", "", obj.handle, "")
        self.tcl.call("namespace", "delete", obj.ns)
        self.classes.forget_object(obj.handle)

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
            raise _TclError(f'can\'t read "qMonitor_": no such variable ({link.handle} {method})')
        assert link.src is not None and link.dst is not None and self.sim is not None
        ns = self.sim.handle
        if method == "sample-queue-size":
            raise _Eval(self.tcl_list("::ns2::sample_queue_size", ns, link.handle, qm.handle))
        raise _Eval(
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
        """RED's variable traces (red.cc `REDQueue::trace`): `$redq trace ave_` / `curq_`,
        written to the channel of `$redq attach $f` at each change."""
        if len(args) != 1:
            raise Ns2Error(f"usage: $queue {method} {'channel' if method == 'attach' else 'var_'}")
        if method == "attach":
            self._channel_path(args[0], "$queue attach")
            self.var_channels[q.handle] = args[0]
            return ""
        if q.kind != "RED" or args[0] not in ("ave_", "curq_"):
            raise Ns2Error(
                f"$queue trace {args[0]}: RED's ave_ and curq_ traces are written; sample "
                "other queue variables with a proc rescheduled by $ns at"
            )
        self.queue_traces.append((q, args[0]))
        if self.runner is not None:
            self.runner.start_queue_trace(q, args[0])
        return ""

    def _not_while_running(self, what: str) -> None:
        raise Ns2Error(
            f"{what} after $ns run has started is not supported yet; set it before $ns run"
        )

    def obj_set(self, obj: Obj, args: list[str]) -> str:
        if obj.ns is not None:  # a pure OTcl object: a Tcl variable of its own
            fq = f"{obj.ns}::{args[0]}" if args else ""
            if len(args) == 1:
                try:  # eval gives the value as Tcl has it (call would make a list a tuple)
                    return str(self.tcl.eval(self.tcl_list("set", fq)))
                except _tkinter.TclError:
                    raise _TclError(f'can\'t read "{args[0]}": no such variable') from None
            if len(args) != 2:
                raise _TclError(f'wrong # args: should be "{obj.handle} set var ?value?"')
            self.tcl.call("set", fq, args[1])
            return args[1]
        if len(args) == 1:
            return self.get_var(obj, args[0])
        if len(args) != 2:
            raise Ns2Error("usage: $obj set var_ ?value?")
        var, value = args
        # a variable of the script's own (a class that extends an ns-2 class) is not ns-2's
        own = obj.ucls is not None and var not in obj.vars and var not in LABELS
        own = own or (obj.ucls is not None and var in self.own_vars.get(obj.handle, ()))
        if own:
            self.own_vars.setdefault(obj.handle, set()).add(var)
            obj.vars[var] = value
            return value
        if isinstance(obj, Integrator):
            state = self.integral(obj)
            state[self._integrator_var(var)] = number(value, var)
            self.set_integral(obj, state)
            return value
        if self.runner is not None and isinstance(obj, Agent) and self.runner.resets(obj, var):
            self.runner.reset(obj, var, value)
            return value
        if (
            self.runner is not None
            and not isinstance(obj, Rng | Integrator)
            and not (obj.cls.startswith("RandomVariable"))
        ):
            self._not_while_running(f"setting {var} of {obj.cls}")
        if isinstance(obj, Queue) and var == "limit_":
            obj.limit_set = True
        if isinstance(obj, App):
            var, value = self._traffic_set(obj, var, value)
        if isinstance(obj, Agent) and var not in obj.vars and var not in LABELS:
            self.warn(f"{obj.cls} {var} is not modelled; ignored")
        if isinstance(obj, Link):
            if var == "bandwidth_":
                obj.rate = rate_bps(value)
            elif var == "delay_":
                obj.delay = time_s(value)
            elif var in ("drpT_", "enqT_", "deqT_", "rcvT_"):
                pass  # trace targets: the engine's trace-all covers them
            else:
                raise Ns2Error(f"link variable {var} is not modelled")
        if isinstance(obj, Agent) and var in TCP_STATE:
            self.warn(f"setting {var} (engine state) before the run is ignored")
        obj.vars[var] = value
        return value

    def get_var(self, obj: Obj, var: str) -> str:
        if var in self.own_vars.get(obj.handle, ()):
            return obj.vars[var]
        if isinstance(obj, Integrator):
            # a bound double of ns-2's, as Tcl prints it with tcl_precision 17
            return f"{self.integral(obj)[self._integrator_var(var)]:.17g}"
        if self.runner is not None:
            v = self.runner.read(obj, var)
            if v is not None:
                return v
        if isinstance(obj, Link):
            if var == "bandwidth_":
                return f"{obj.rate:g}"
            if var == "delay_":
                return f"{obj.delay:g}"
        if isinstance(obj, QueueMonitor):
            if self.runner is None:
                return "0"  # nothing has arrived before the run (ns-2's initial values)
            raise Ns2Error(
                f"{obj.cls} {var} is read from the run's report: it is available in the proc "
                "that ends the run (finish), not before"
            )
        if isinstance(obj, App) and is_a(obj.cls, "Application/Traffic"):
            if var == "packet_size_":
                var = "packetSize_"
            elif var == "interval_" and is_a(obj.cls, "Application/Traffic/CBR"):
                # Application/Traffic/CBR instproc set: `expr $packetSize_ * 8.0/$rate_`
                rate = rate_bps(obj.vars["rate_"])
                if rate == 0:
                    raise _TclError("divide by zero")
                return f"{number(obj.vars['packetSize_']) * 8.0 / rate:.17g}"
        if var in obj.vars:
            default = self.ns_default(obj, var)
            return obj.vars[var] if default is None else bound_text(default, obj.vars[var])
        raise Ns2Error(f"{obj.cls} {obj.handle} has no variable {var}")

    def ns_default(self, obj: Obj, var: str) -> str | None:
        """ns-2's own default of a variable of obj's class (ns-default.tcl): there is one for
        each variable ns-2 binds to C++."""
        for c in self._chain(obj):
            if var in NS_DEFAULTS.get(c, {}):
                return NS_DEFAULTS[c][var]
        return None

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
                raise _TclError("divide by zero")
            return "rate_", repr(number(app.vars["packetSize_"]) * 8.0 / interval)
        return var, value

    # -- Simulator ---------------------------------------------------------------------------------

    def sim_method(self, m: str, a: list[str]) -> str:
        net = self.net
        if m == "node":
            if a:
                raise Ns2Error("$ns node with arguments (hierarchical or wireless) is not modelled")
            n = Node(self._handle(), "Node", id=len(net.nodes))
            net.nodes.append(n)
            self._register(n)
            return n.handle
        if m in ("duplex-link", "simplex-link"):
            if len(a) < 5:
                raise Ns2Error(f"usage: $ns {m} n1 n2 bandwidth delay queue-type")
            if self.runner is not None:
                self._not_while_running(f"$ns {m}")
            n1, n2 = self.node(a[0]), self.node(a[1])
            qtype = a[4]
            if qtype not in QUEUE_KINDS:
                raise Ns2Error(
                    f"queue type {qtype} is not modelled (DropTail, RED, FQ, DRR, SFQ and PI "
                    "are); "
                    "see docs/ns2-scripts.md"
                )
            if len(a) > 5:
                raise Ns2Error(f"$ns {m} with extra arguments {a[5:]} is not modelled")
            rate, delay = rate_bps(a[2]), time_s(a[3])
            ends = [(n1, n2), (n2, n1)] if m == "duplex-link" else [(n1, n2)]
            for s, d in ends:
                if (s.id, d.id) in net.links:
                    raise Ns2Error(f"a second link from node {s.id} to node {d.id}")
                q = Queue(self._handle(), f"Queue/{qtype}", kind=qtype)
                self.init_vars(q)
                if qtype == "RED":
                    red_automatic(q, rate, delay)
                if qtype == "FQ":
                    q.vars["flow_limit_"] = self.default("Queue/DropTail", "limit_") or "50"
                self._register(q)
                link = Link(
                    self._handle(),
                    "Link",
                    src=s,
                    dst=d,
                    rate=rate,
                    delay=delay,
                    queue=q,
                    duplex=m == "duplex-link",
                )
                if net.trace_channel is not None:  # simplex-link: trace-queue n1 n2 $traceall
                    link.traces.append(net.trace_channel)
                self._register(link)
                net.links[(s.id, d.id)] = link
            return ""
        if m == "queue-limit":
            if len(a) != 3:
                raise Ns2Error("usage: $ns queue-limit n1 n2 limit")
            if self.runner is not None:
                self._not_while_running("$ns queue-limit")
            q = net.link(self.node(a[0]), self.node(a[1])).queue
            assert q is not None
            q.vars["limit_"] = str(int(number(a[2], "queue limit")))
            q.limit_set = True
            return ""
        if m == "link":
            return net.link(self.node(a[0]), self.node(a[1])).handle
        if m in _IGNORED_SIM:
            return ""
        if m in _UNSUPPORTED_SIM:
            raise Ns2Error(_UNSUPPORTED_SIM[m])
        if m == "now":
            # the scheduler's clock as ns-2 gives it (%.17g: 0.10000000000000001)
            return f"{self.runner.now if self.runner is not None else 0.0:.17g}"
        if m in ("at", "after"):
            if len(a) != 2:
                raise Ns2Error(f"usage: $ns {m} time script")
            t = number(a[0], "time")
            now = self.runner.now if self.runner is not None else 0.0
            if m == "after":
                t += now
            # scheduler.cc `at`: the event is `t - clock_` after `clock_`, added in doubles
            # (not always t itself; the engine's clock follows ns-2's, clock.rs)
            return str(self.schedule(now + (t - now), a[1]))
        if m == "cancel":
            self.cancelled.add(int(number(a[0])))
            return ""
        if m == "attach-agent":
            n, ag = self.node(a[0]), self.agent(a[1])
            if self.runner is not None:
                self._not_while_running("$ns attach-agent")
            self._attach(ag, n)
            return ""
        if m == "connect":
            s, d = self.agent(a[0]), self.agent(a[1])
            if self.runner is not None:
                self._not_while_running("$ns connect")
            self.check_pair(s, d)
            s.peer, d.peer = d, s
            return ""
        if m == "trace-all":
            if len(a) != 1:
                raise Ns2Error("usage: $ns trace-all channel")
            path = str(self.tcl.call("array", "get", "::ns2::chanpath", a[0]))
            words = self.tcl.splitlist(path)
            if len(words) != 2 or str(words[1]).startswith("|"):
                raise Ns2Error(
                    "trace-all takes a channel from `open FILE w` (pipes are not supported)"
                )
            if self.runner is not None:
                self._not_while_running("$ns trace-all")
            net.trace_channel = a[0]
            net.trace_path = str(Path(str(words[1])).resolve())
            return ""
        if m == "create-trace":
            return self.create_trace(a)
        if m == "trace-queue":
            return self.trace_queue(a)
        if m == "namtrace-all":
            self.warn("namtrace-all: bufferlab writes no nam trace (the file stays empty)")
            return ""
        if m == "run":
            return self.run()
        if m == "halt":
            if self.runner is None:
                raise Ns2Error("$ns halt before $ns run")
            self.runner.halt()
            return ""
        if m == "lossmodel" or m == "link-lossmodel":
            em = self.objects.get(a[0]) if a else None
            if em is None or not em.cls.startswith("ErrorModel") or len(a) != 3:
                raise Ns2Error(f"usage: $ns {m} $errormodel n1 n2")
            if self.runner is not None:
                self._not_while_running(f"$ns {m}")
            link = net.link(self.node(a[1]), self.node(a[2]))
            link.loss, link.loss_after = em, m == "link-lossmodel"
            # SimpleLink errormodule: the link's drophead becomes its drop-target
            net.drop_targets.pop(em.handle, None)
            return ""
        if m == "detach-agent":
            # ns-lib: `$node detach $agent $nullAgent_`: the node's port demux hands what
            # arrives for the agent to a null agent from now on
            if len(a) != 2:
                raise Ns2Error("usage: $ns detach-agent $node $agent")
            node, ag = self.node(a[0]), self.agent(a[1])
            if ag.node is not node:
                raise Ns2Error(f"detach-agent: {ag.handle} is not attached to node {node.id}")
            ag.detached = True
            if self.runner is not None:
                self.runner.detach(ag)
            return ""
        if m == "monitor-queue":
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
        if m == "rtproto":
            if a and a[0] not in ("Static",):
                raise Ns2Error(f"rtproto {a[0]}: only static routing is modelled")
            return ""
        if m == "set":
            if a == ["nullAgent_"]:
                if self.null_agent is None:
                    self.null_agent = self.agent(self.new("Agent/Null", []))
                return self.null_agent.handle
            raise Ns2Error(f"Simulator variable {a[0] if a else ''} is not modelled")
        if m == "is-started":
            return "1" if self.runner is not None else "0"
        raise Ns2Error(f"Simulator method `{m}` is not modelled")

    def _channel_path(self, channel: str, what: str) -> str:
        words = self.tcl.splitlist(self.tcl.call("array", "get", "::ns2::chanpath", channel))
        if len(words) != 2 or str(words[1]).startswith("|"):
            raise Ns2Error(f"{what} takes a channel from `open FILE w` (pipes are not supported)")
        return str(Path(str(words[1])).resolve())

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

    def node(self, h: str) -> Node:
        obj = self.objects.get(h)
        if not isinstance(obj, Node):
            raise Ns2Error(f"{h} is not a node")
        return obj

    def agent(self, h: str) -> Agent:
        obj = self.objects.get(h)
        if not isinstance(obj, Agent):
            raise Ns2Error(f"{h} is not an agent")
        return obj

    def check_pair(self, s: Agent, d: Agent) -> None:
        if s.cls in TCP_CC and d.cls not in TCP_SINKS:
            raise Ns2Error(f"{s.cls} must be connected to an Agent/TCPSink, not {d.cls}")
        if is_a(s.cls, "Agent/UDP") and d.cls not in UDP_SINKS:
            raise Ns2Error(
                f"Agent/UDP must be connected to an Agent/Null or LossMonitor, not {d.cls}"
            )
        if s.cls not in TCP_CC and not is_a(s.cls, "Agent/UDP"):
            if d.cls in TCP_CC or is_a(d.cls, "Agent/UDP"):
                self.check_pair(d, s)
            else:
                raise Ns2Error(f"connecting {s.cls} to {d.cls} is not modelled")

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

    def resolve_app_times(self) -> None:
        """At $ns run: each application's first start and the first stop after it become its
        flow's `start` and `stop`; its later starts and stops (a CBR switched on and off) run
        as events during the run. A stop before the first start does nothing (as in ns-2)."""
        for app in self.objects.values():
            if not isinstance(app, App) or not app.times:
                continue
            times = sorted(x for x in app.times if x[1] not in self.cancelled)
            starts = [i for i, x in enumerate(times) if x[2] == "start"]
            scripted = app.agent is not None and app.agent.scripted
            if not starts or scripted:
                # never started: its stops run during the run (after finite sends they stop
                # the connection; before any they change nothing); an application given
                # finite data by events keeps its starts and stops as events too
                for t, seq, what in times:
                    heapq.heappush(self.events, (t, seq, self.tcl_list(app.handle, what)))
                continue
            first = starts[0]
            app.start = times[first][0]
            rest = times[first + 1 :]
            stop = next((i for i, x in enumerate(rest) if x[2] == "stop"), None)
            if stop is not None and "start" not in {x[2] for x in rest[stop:]}:
                app.stop = rest[stop][0]  # stopped for good: the flow's stop
                rest = rest[stop + 1 :]
            # the rest (a restarted source's stops and starts) runs during the run
            for t, seq, what in rest:
                heapq.heappush(self.events, (t, seq, self.tcl_list(app.handle, what)))

    def _attach(self, ag: Agent, n: Node) -> None:
        ag.node = n
        self._attach_seq += 1
        ag.attach_seq = self._attach_seq

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
                if ag.cls in TCP_CC:
                    tick = time_s(ag.vars.get("tcpTick_", "0.01"))
                    ag.boot_time = tick * self.default_rng.stream.u01()
                    reset_ssthresh(ag)  # the same reset()

    def run(self) -> str:
        if self.runner is not None:
            raise Ns2Error("$ns run called twice")
        self.mark_scripted_agents()
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

    # -- nodes, agents, applications ---------------------------------------------------------------

    def node_method(self, n: Node, m: str, a: list[str]) -> str:
        if m in ("id", "node-addr", "address?"):
            return str(n.id)
        if m == "attach":
            self._attach(self.agent(a[0]), n)
            return ""
        if m in _IGNORED_NODE:
            return ""
        raise Ns2Error(f"Node method `{m}` is not modelled")

    def agent_method(self, ag: Agent, m: str, a: list[str]) -> str:
        if m in ("attach-app", "attach-source", "attach-traffic"):
            cls = {"FTP": "Application/FTP"}.get(a[0], a[0]) if a else ""
            if m == "attach-traffic":
                app = self.objects.get(a[0])
                if not isinstance(app, App):
                    raise Ns2Error("attach-traffic takes an application")
            else:
                if cls != "Application/FTP":
                    raise Ns2Error(f"{m} {a[0] if a else ''}: only FTP is modelled here")
                app = self.objects[self.new(cls, [])]  # type: ignore[assignment]
                app.source = m == "attach-source"  # type: ignore[attr-defined]
            assert isinstance(app, App)
            app.agent, ag.app = ag, app
            return app.handle
        if m == "attach":
            if len(a) != 1:
                raise Ns2Error("usage: $agent attach channel")
            self._channel_path(a[0], "$agent attach")
            self.var_channels[ag.handle] = a[0]  # the channel of its variable traces
            return ""
        if m == "trace":
            if len(a) != 1:
                raise Ns2Error("usage: $agent trace var_")
            if ag.cls not in TCP_CC or a[0] not in VAR_TRACES:
                raise Ns2Error(
                    f"$agent trace {a[0]}: variable traces of TCP senders' "
                    f"{', '.join(VAR_TRACES)} are written; sample others with a proc "
                    "rescheduled by $ns at"
                )
            self.var_traces.append((ag, a[0]))
            if self.runner is not None:
                self.runner.start_var_trace(ag, a[0])
            return ""
        if ag.cls == "Agent/TCP/Linux" and m == "select_ca" and len(a) >= 1:
            if self.runner is not None:
                raise Ns2Error(
                    "select_ca during the run is not modelled: call it before $ns run "
                    '(or with $ns at 0 "$tcp select_ca NAME")'
                )
            self._select_ca(ag, a[0])
            return ""
        if ag.cls == "Agent/TCP/Linux" and m in (
            "set_ca_param",
            "set_ca_default_param",
            "get_ca_param",
            "get_ca_default_param",
        ):
            raise Ns2Error(
                f"$tcp {m}: the Linux modules' parameters are not modelled; bufferlab runs "
                "ns-2.35's defaults (docs/ns2-scripts.md, Agent/TCP/Linux)"
            )
        if m in _DATA_OPS and ag.cls in TCP_CC:
            if len(a) != 1:
                raise Ns2Error(f"usage: $tcp {m} n")
            return self.data_op(ag, m, a[0])
        if m in ("port", "addr"):
            return str(ag.order if m == "port" else (ag.node.id if ag.node else -1))
        if m in ("clear",):
            return ""
        raise Ns2Error(f"{ag.cls} method `{m}` is not modelled")

    def _select_ca(self, ag: Agent, name: str, at_zero: bool = False) -> None:
        """tcp_linux.cc `select_ca`: prints the command as ns-2.35 does (`printf`), installs a
        module bufferlab models (LINUX_CA) and with it tcp_tick_ = 1 / JIFFY_RATIO (1 ms); a
        name ns-2.35 does not have leaves the agent as it was, with ns-2's two lines."""
        self.tcl.call("puts", f"cmd select_ca {name}")
        if name in LINUX_CA_UNMODELLED:
            raise Ns2Error(
                f"select_ca {name}: ns-2.35's Linux module {name} is not modelled (bufferlab "
                "maps reno and cubic); use `select_ca cubic` or `reno`, or run it with ns-2"
            )
        if name not in LINUX_CA:
            self.tcl.call("puts", f"Error: do not find {name} as a congestion control algorithm")
            names = ("reno", *LINUX_CA_UNMODELLED[:5], "cubic", *LINUX_CA_UNMODELLED[5:])
            self.tcl.call("puts", f"List of cc (total {len(names)}) : {' '.join(names)}")
            return
        ag.ca = name
        if at_zero:
            self._ca_at_zero.append(ag)
        else:
            ag.vars["tcpTick_"] = "0.001"

    def app_method(self, app: App, m: str, a: list[str]) -> str:
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
        if m in _APP_DATA_OPS:
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
            return self.data_op(app.agent, _APP_DATA_OPS[m], a[0], said=m)
        raise Ns2Error(f"{app.cls} method `{m}` is not modelled")

    def data_op(self, ag: Agent, op: str, arg: str, said: str | None = None) -> str:
        """`$tcp send n` / `advance n` / `advanceby n` (and FTP's send, produce, producemore):
        before $ns run it runs at time 0, as `$ftp start` does; during the run the runner
        gives the flow its new data (Session.set_data)."""
        if ag.cls not in TCP_CC:
            raise Ns2Error(f"{ag.cls} {op}: finite sends are modelled for TCP agents")
        n = _atoi(arg)
        if self.runner is None:
            ag.scripted = True
            self.schedule(0.0, self.tcl_list(ag.handle, op, str(n)))
        else:
            self.runner.data_event(ag, op, n, said or op)
        return ""

    def mark_scripted_agents(self) -> None:
        """Agents that events scheduled before $ns run write to (`$ns at 1 "$tcp advance 10"`,
        `"$ftp send 1000"`): one with no application becomes a flow too, and the starts and
        stops of an application given data so stay events (a send may come before them)."""
        for t, _, script in self.events:
            for m in _SCRIPTED.finditer(script):
                obj = self.objects.get(m.group(1))
                op = m.group(2)
                if isinstance(obj, App) and op in _APP_DATA_OPS:
                    obj, op = obj.agent, _APP_DATA_OPS[op]
                if isinstance(obj, Agent) and obj.cls in TCP_CC:
                    obj.scripted = True
                    # the first write an event gives it (import-ns2's static transfer)
                    first = obj.first_write
                    if m.group(3) is not None and (first is None or t < first[0]):
                        obj.first_write = (t, op, int(m.group(3)))

    # -- random numbers ----------------------------------------------------------------------------

    def seed_rng(self, r: Rng, text: str) -> str:
        """`$rng seed N` / `ns-random N`: N > 0 seeds the stream (and the package); 0 takes a
        seed from the clock, as ns-2 does. The default RNG's seed is also the scenario's
        (`--seed` replaces both)."""
        s = int(number(text, "seed"))
        if r is self.default_rng:
            if self.runner is not None:
                self._not_while_running("seeding defaultRNG")
            if self.seed is not None:
                s = self.seed
            if s == 0:
                self.warn(
                    "defaultRNG seed 0: the script's random numbers come from the clock (as in "
                    "ns-2); the engine's seed is 1 (give --seed N for both)"
                )
            self.net.seed = s if s > 0 else 1
        if s == 0:
            r.stream.seed_heuristically()
            return str(r.stream.current_seed())
        try:
            r.stream.seed(s)
        except ValueError as e:
            raise _TclError(str(e)) from None
        return str(s)

    def rng_method(self, r: Rng, m: str, a: list[str]) -> str:
        """The RNG's commands of rng.cc (uniform, integer and exponential are Tcl instprocs,
        _RNG_TCL, as in ns-random.tcl)."""
        st = r.stream
        if m == "seed":
            if not a:
                return str(st.current_seed())
            if len(a) == 2 and a[0] in ("raw", "heuristic"):
                self.seed_rng(r, a[1] if a[0] == "raw" else "0")
                return ""
            if len(a) != 1:
                raise Ns2Error(f"RNG seed {' '.join(a)}: predefined seeds are not modelled")
            self.seed_rng(r, a[0])
            return ""
        if m == "next-random" and not a:
            return str(st.next_random())
        if m == "next-substream" and not a:
            st.next_substream()
            return ""
        if m == "reset-start-substream" and not a:
            st.reset_start_substream()
            return ""
        if m == "all-seeds" and not a:
            return " ".join(str(x) for x in st.all_seeds())
        if m == "default" and not a:
            self.default_rng = r
            return ""
        if m in ("normal", "lognormal") and len(a) == 2:
            f = st.normal if m == "normal" else st.lognormal
            return _c_format("%g", f(_strtod(a[0]), _strtod(a[1])))
        if m == "testint" and len(a) == 1:
            return str(st.integer(int(number(a[0]))))
        if m == "testdouble" and len(a) == 1:
            return _c_format("%6e", st.uniform(0.0, _strtod(a[0])))
        raise Ns2Error(f"RNG method `{m}` is not modelled")

    def ranvar_method(self, rv: Obj, m: str, a: list[str]) -> str:
        if m == "use-rng" and len(a) == 1:
            if not isinstance(self.objects.get(a[0]), Rng):
                raise _TclError(f"no such RNG {a[0]}")
            rv.vars["rng"] = a[0]
            return ""
        if m == "value" and not a:
            r = self.objects.get(rv.vars.get("rng", ""))
            stream = r.stream if isinstance(r, Rng) else self.default_rng.stream
            kind = rv.cls.split("/")[-1]
            names = RANVAR_DEFAULTS.get(rv.cls, {})
            bound = {k: _strtod(rv.vars.get(k, d)) for k, d in names.items()}
            return _c_format("%6e", ranvar_value(kind, bound, stream))
        if m == "test" and len(a) == 1:  # ns-random.tcl's RandomVariable instproc test
            for _ in range(int(number(a[0]))):
                self.tcl.call("puts", "stdout", self.ranvar_method(rv, "value", []))
            return ""
        raise Ns2Error(f"{rv.cls} method `{m}` is not modelled")


def _c_format(fmt: str, x: float) -> str:
    """C's printf of a double (Python's % follows it, inf and nan aside)."""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if math.isnan(x):
        return "nan"
    return fmt % x


def _strtod(text: str) -> float:
    """A bound double as ns-2 reads it (units aside: RandomVariable's are plain numbers)."""
    try:
        return float(text)
    except ValueError:
        return number(text)


# ns-random.tcl's RNG procs, in Tcl as ns-2 has them: uniform, integer and exponential draw
# through next-random (so they are ns-2's values to the last digit); the global procs use
# $defaultRNG.
_RNG_TCL = r"""
RNG instproc uniform {a b} {
    expr {$a + (($b - $a) * ([$self next-random] * 1.0 / 0x7fffffff))}
}
RNG instproc integer {k} {
    expr {[$self next-random] % abs($k)}
}
RNG instproc exponential {{mu 1.0}} {
    expr {- $mu * log(([$self next-random] + 1.0) / (0x7fffffff + 1.0))}
}
proc uniform {args} { global defaultRNG; $defaultRNG uniform {*}$args }
proc integer {args} { global defaultRNG; $defaultRNG integer {*}$args }
proc exponential {args} { global defaultRNG; $defaultRNG exponential {*}$args }
"""


class _TclError(Exception):
    """A Tcl error of the script's own making (a method its class lacks, a variable never
    set), raised as Tcl raises it: `catch` sees it, and uncaught it stops the script."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class _Eval(Exception):  # a control-flow signal, not an error
    """Tells ::ns2::dispatch to evaluate a Tcl command in the caller's frame."""

    def __init__(self, script: str):
        super().__init__(script)
        self.script = script


def _not_modelled_class(cls: str) -> str:
    root = cls.split("/")[0]
    what = {
        "Mac": "wireless and LAN MAC layers are not modelled",
        "Phy": "wireless physical layers are not modelled",
        "Antenna": "wireless nodes are not modelled",
        "LL": "link layers (LAN) are not modelled",
        "Classifier": "custom classifiers are not modelled",
        "Trace": "custom trace objects are not modelled",
    }.get(root)
    if what:
        return f"{cls}: {what}"
    return f"ns-2 class {cls} is not modelled; see docs/ns2-scripts.md for what is"
