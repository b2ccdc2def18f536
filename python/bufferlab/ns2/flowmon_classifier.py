"""A flow monitor's classifier and its `traceDist`, as test-suite-simple.tcl's `printdrops`
and `stats4` use them (its `pmarks_` is counted by the engine with the others, flowmon.py).

* `$fmon classifier` (ns-2.35 tools/flowmon.cc `FlowMon::command`, "classifier" with no
  argument): the Classifier/Hash/Fid that ns-lib.tcl's `makeflowmon` gave the monitor.
* `$fcl lookup HASHBUCKET SRC DST FID` (classifier/classifier-hash.cc
  `HashClassifier::command`, "lookup"): the flow object of the slot of that flow id, or ""
  when no packet of that flow has reached the monitor yet (the slot is made by the
  classifier's `unknown-flow` at the flow's first packet). A Fid classifier compares the flow
  id only, so SRC and DST are not read (the suite passes 0 0); HASHBUCKET ("auto") is ignored
  by ns-2 too.
* `$fmon traceDist $chan` (tools/queue-monitor.cc `QueueMonitor::command`): the channel
  the RTT and sequence-number histograms are written to by `printRTTs` and `printSeqnos`,
  which write only with `keepRTTstats_` / `keepSeqnoStats_` (ns-default.tcl: 0). At those
  defaults the monitor writes nothing there, which is what is modelled; a monitor keeping
  either histogram is refused.
"""

from __future__ import annotations

from bufferlab.ns2.classes import class_chain
from bufferlab.ns2.errors import Ns2Error
from bufferlab.ns2.model import FlowMon, Obj


class FlowClassifier(Obj):
    """The Classifier/Hash/Fid of a flow monitor (`$fmon classifier`)."""

    def __init__(self, handle: str, monitor: FlowMon):
        super().__init__(handle, "Classifier/Hash/Fid")
        self.monitor = monitor


class FlowClassifiers:
    """The flow monitors' classifiers, a mixin of Interp (interp.py) beside FlowMonitors."""

    def fm_classifier(self, fm: FlowMon, args: list[str]) -> str:
        """`$fmon classifier`: the monitor's classifier (one per monitor)."""
        if args:
            raise Ns2Error(
                "QueueMonitor/ED/Flowmon `classifier $cl`: replacing a flow monitor's "
                "classifier is not modelled"
            )
        cl = self._fm_classifiers.get(fm.handle)
        if cl is None:
            cl = FlowClassifier(self._handle(), fm)
            self._register(cl)
            self._fm_classifiers[fm.handle] = cl
        return cl.handle

    def classifier_method(self, cl: FlowClassifier, method: str, args: list[str]) -> str:
        if method != "lookup":
            raise Ns2Error(f"{cl.cls} method `{method}` is not modelled")
        if len(args) != 4:
            raise Ns2Error("usage: $classifier lookup hashbucket src dst fid")
        fid = _atoi(args[3])
        _, flows = self._fm_counts(cl.monitor)
        if not any(row[0] == fid for row in flows):
            return ""  # no slot for that flow yet
        return self._fm_flow(cl.monitor, fid).handle

    def fm_trace_dist(self, fm: FlowMon, args: list[str]) -> str:
        """`$fmon traceDist $chan` (see the module's doc)."""
        if len(args) != 1:
            raise Ns2Error("usage: $fmon traceDist $channel")
        if args[0] not in ("stdout", "stderr"):
            self._channel_path(args[0], "$fmon traceDist")
        for var in ("keepRTTstats_", "keepSeqnoStats_"):
            value = self._monitor_default(fm.cls, var)
            if _atoi(value) != 0:
                raise Ns2Error(
                    f"QueueMonitor {var} {value}: a queue monitor's RTT and sequence-number "
                    "histograms (queue-monitor.cc printRTTs, printSeqnos) are not modelled"
                )
        return ""  # nothing is written there at those defaults

    def _monitor_default(self, cls: str, var: str) -> str:
        """A queue monitor class's default as the script set it (`QueueMonitor set var v`,
        kept by interp.py's `_unmodelled_class`), else ns-default.tcl's 0."""
        for c in class_chain(cls):
            for table in (self.class_vars, self.unmodelled_defaults):
                if var in table.get(c, {}):
                    return table[c][var]
        return "0"


def _atoi(word: str) -> int:
    """C's atoi, as classifier-hash.cc reads its words: the leading integer, else 0."""
    digits = ""
    for i, ch in enumerate(word.strip()):
        if ch.isdigit() or (i == 0 and ch in "+-"):
            digits += ch
        else:
            break
    try:
        return int(digits)
    except ValueError:
        return 0
