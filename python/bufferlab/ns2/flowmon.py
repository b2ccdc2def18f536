"""ns-2's flow monitors as the validation suites use them (test-suite-red.tcl, -simple.tcl):
`$ns makeflowmon Fid`, `$ns attach-fmon $link $fm ?edrop?` (ns-2.35 tcl/lib/ns-lib.tcl),
the monitor's and its flows' counters (`$fm set pdrops_`, `$fm flows`, `$flow set
epdrops_`), `$fm reset`, `$flow reset`, and `$fm attach $chan` + `$fm dump` (tools/
flowmon.cc `FlowMon::dumpflows`). The counting is the engine's (monitor/ns2_flowmon.rs).
"""

from __future__ import annotations

from bufferlab.ns2.errors import Ns2Error
from bufferlab.ns2.model import FlowDesc, FlowMon, Link

# typing is imported for type checkers only (docs/performance.md, "ns-2 scripts: start-up").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import ClassVar

# The counters, in the order the engine gives them (ns2_flowmon.rs FlowCounts::NAMES).
COUNTERS = (
    "parrivals_",
    "barrivals_",
    "pdepartures_",
    "bdepartures_",
    "pdrops_",
    "bdrops_",
    "epdrops_",
    "ebdrops_",
    "pmarks_",
)
# ns-2.35 common/packet.h's packet_t numbers of the packet types a flow's record shows
# (checked with `ns`: a TCP flow's dump line says 0, a CBR's 2, TCP's ACKs 5).
PACKET_TYPES = {"tcp": 0, "udp": 1, "cbr": 2, "ack": 5}


class FlowMonitors:
    """The flow monitors part of Interp (interp.py), a mixin of it."""

    SIM_COMMANDS: ClassVar[dict[str, str]] = {
        "makeflowmon": "sim_makeflowmon",
        "attach-fmon": "sim_attach_fmon",
    }

    def sim_makeflowmon(self, m: str, a: list[str]) -> str:
        if not a or a[0] != "Fid":
            kind = a[0] if a else "(none)"
            raise Ns2Error(
                f"$ns makeflowmon {kind}: flow monitors classifying by Fid are modelled "
                "(ns-lib.tcl's Classifier/Hash/Fid); use $ns makeflowmon Fid"
            )
        fm = FlowMon(self._handle())
        self._register(fm)
        return fm.handle

    def sim_attach_fmon(self, m: str, a: list[str]) -> str:
        if len(a) not in (2, 3):
            raise Ns2Error("usage: $ns attach-fmon $link $fmon ?edrop?")
        link, fm = self.objects.get(a[0]), self.objects.get(a[1])
        if not isinstance(link, Link) or not isinstance(fm, FlowMon):
            raise Ns2Error("$ns attach-fmon takes a link ($ns link n1 n2) and a flow monitor")
        if fm.link is not None:
            raise Ns2Error("$ns attach-fmon: a flow monitor on a second link is not modelled")
        if self.runner is not None:
            self._not_while_running("$ns attach-fmon")
        fm.link = link
        fm.early = len(a) == 3 and a[2] not in ("0", "")
        return ""

    def _fm_counts(self, fm: FlowMon) -> tuple[list[int], list[tuple]]:
        if fm.final is not None:
            return fm.final
        if self.runner is None or fm.engine_id is None:
            return [0] * len(COUNTERS), []
        total, flows = self.runner.session.flow_monitor(fm.engine_id)
        return list(total), list(flows)

    def _fm_flow(self, fm: FlowMon, fid: int) -> FlowDesc:
        desc = fm.flows.get(fid)
        if desc is None:
            desc = FlowDesc(self._handle(), fm, fid)
            self._register(desc)
            fm.flows[fid] = desc
        return desc

    def flowmon_read(self, obj: FlowMon | FlowDesc, var: str) -> str | None:
        """`$fm set VAR` / `$flow set VAR`: None for a variable not counted here."""
        fm = obj if isinstance(obj, FlowMon) else obj.monitor
        total, flows = self._fm_counts(fm)
        if isinstance(obj, FlowMon):
            return _counter(total, var)
        row = next((f for f in flows if f[0] == obj.fid), None)
        if row is None:
            return None
        fields = {"flowid_": row[0], "src_": row[1], "dst_": row[2]}
        if var in fields:
            return str(fields[var])
        return _counter(row[5], var)

    def flowmon_method(self, obj: FlowMon | FlowDesc, method: str, args: list[str]) -> str:
        fm = obj if isinstance(obj, FlowMon) else obj.monitor
        if method == "reset":
            if self.runner is not None and fm.engine_id is not None and fm.final is None:
                fid = None if isinstance(obj, FlowMon) else obj.fid
                self.runner.session.reset_flow_monitor(fm.engine_id, fid)
            return ""
        if isinstance(obj, FlowMon) and method == "flows":
            _, flows = self._fm_counts(fm)
            return " ".join(self._fm_flow(fm, f[0]).handle for f in flows)
        if isinstance(obj, FlowMon) and method == "attach" and len(args) == 1:
            self._channel_path(args[0], "$fmon attach")
            fm.channel = args[0]
            return ""
        if isinstance(obj, FlowMon) and method == "classifier":
            return self.fm_classifier(obj, args)  # flowmon_classifier.py
        if isinstance(obj, FlowMon) and method == "traceDist":
            return self.fm_trace_dist(obj, args)  # flowmon_classifier.py
        if isinstance(obj, FlowMon) and method == "dump":
            self._fm_dump(fm)
            return ""
        raise Ns2Error(f"{obj.cls} method `{method}` is not modelled")

    def _fm_dump(self, fm: FlowMon) -> None:
        """flowmon.cc `FlowMon::dumpflows`: a line per flow, its counters and the monitor's
        (the format `ns` writes: time as %8.3f, then integers)."""
        if fm.channel is None:
            raise Ns2Error("$fmon dump without $fmon attach $chan: nothing to write to")
        total, flows = self._fm_counts(fm)
        now = self.runner.now if self.runner is not None else 0.0
        t = dict(zip(COUNTERS, total, strict=True))
        for fid, src, dst, _name, kind, counts in flows:
            c = dict(zip(COUNTERS, counts, strict=True))
            if kind not in PACKET_TYPES:
                raise Ns2Error(f"$fmon dump: the packet type number of {kind} is not known")
            words = [
                fid, 0, PACKET_TYPES[kind], fid, src, dst,
                c["parrivals_"], c["barrivals_"], c["epdrops_"], c["ebdrops_"],
                t["parrivals_"], t["barrivals_"], t["epdrops_"], t["ebdrops_"],
                t["pdrops_"], t["bdrops_"], c["pdrops_"], c["bdrops_"],
                0, 0, 0,
            ]  # fmt: skip
            line = f"{now:8.3f} " + " ".join(str(w) for w in words)
            self.tcl.call("puts", fm.channel, line)


def _counter(counts: Sequence[int], var: str) -> str | None:
    """A monitor's counter; `pkts_` and `size_` as queue-monitor.cc keeps them: arrivals less
    departures less drops (below 0 when a link's error model drops after the queue)."""
    if var in COUNTERS:
        return str(counts[COUNTERS.index(var)])
    if var in ("pkts_", "size_"):
        u = "p" if var == "pkts_" else "b"
        get = {n: counts[COUNTERS.index(f"{u}{n}_")] for n in ("arrivals", "departures", "drops")}
        return str(get["arrivals"] - get["departures"] - get["drops"])
    return None
