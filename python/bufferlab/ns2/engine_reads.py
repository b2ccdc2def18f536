"""What a script reads of the engine's state while ``$ns run`` goes on and after it ends
(ns-2's bound variables, tcp.cc and tcp-sink.cc; queue monitors, queue-monitor.cc; the AQMs'
`ave_`, `prob_`, `curq_`): an agent's variables from the engine's probes during the run and
from the snapshot and report after it, counters the script resets, and the queue monitors'
integrators the engine keeps (monitor/ns2_integrator.rs). A mixin of Runner (runner.py).
"""

from __future__ import annotations

from bufferlab.ns2.classes import FULL_TCP, TCP_CC, is_a
from bufferlab.ns2.errors import Ns2Error
from bufferlab.ns2.model import Agent, FlowMon, QueueMonitor
from bufferlab.ns2.units import boolean, number

# typing is imported for type checkers only (TYPE_CHECKING = False is their constant too):
# it is 2-4 ms of the command's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Variables the engine gives at any time (Session.probe), by side of the flow.
SENDER_PROBES = (
    "cwnd_",
    "ack_",
    "t_seqno_",
    "maxseq_",
    "ssthresh_",
    "rtt_",
    "srtt_",
    "rttvar_",
    "backoff_",
    "dupacks_",
)
RECEIVER_PROBES = ("bytes_", "npkts_", "nlost_")
# Counters taken from the report at the end: ns-2 variable -> report field of flows[].tcp.
SENDER_REPORT = {
    "ndatapack_": "segments_sent",
    "ndatabytes_": "bytes_sent",
    "nrexmitpack_": "retransmitted_segments",
    "nrexmitbytes_": "retransmitted_bytes",
    "nrexmit_": "timeouts",
    "nackpack_": "acks_received",
}
# QueueMonitor variables the engine gives at any time (Session.probe_queue).
MONITOR_PROBES = (
    "pkts_",
    "size_",
    "parrivals_",
    "barrivals_",
    "pdepartures_",
    "bdepartures_",
    "pdrops_",
    "bdrops_",
)
# The AQMs' variables the engine gives at any time: RED's average and the length the last
# arrival found (queue/red.cc); PI's and REM's probability and queue length (queue/pi.cc,
# queue/rem.cc).
AQM_PROBES = {
    "Queue/RED": ("ave_", "curq_"),
    "Queue/PI": ("prob_", "curq_"),
    "Queue/REM": ("prob_", "curq_"),
    "Queue/RED/RIO": ("ave_", "curq_"),
}
_INTEGER = {
    "ack_",
    "t_seqno_",
    "bytes_",
    "npkts_",
    "nlost_",
    "maxseq_",
    "dupacks_",
    *SENDER_REPORT,
    *MONITOR_PROBES,
}


def fmt_value(var: str, v: float) -> str:
    if var in _INTEGER or (float(v).is_integer() and abs(v) < 1e15):
        return str(int(v))
    return f"{v:g}"  # ns-2 prints its traced doubles with %g


class EngineReads:
    """The reading part of Runner (runner.py), a mixin of it: the engine's state as the
    script reads it."""

    # -- reading the engine's state ---------------------------------------------------------------

    def read(self, obj: Any, var: str) -> str | None:
        """The value of an engine variable, or None for a variable the script set (static)."""
        if isinstance(obj, Agent):
            return self._agent(obj, var)
        if isinstance(obj, QueueMonitor):
            return self._monitor(obj, var)
        if var in AQM_PROBES.get(getattr(obj, "cls", ""), ()):
            if self.finished:
                v = self.snapshot.get((obj.handle, var))
            else:
                link = self._queue_link(obj)
                v = None if link is None else self._probe_queue(link, var)
            return None if v is None else fmt_value(var, v)
        return None

    def detach(self, ag: Agent) -> None:
        """`$ns detach-agent`: the engine discards what reaches the agent from now on."""
        if ag.flow is not None:  # an agent in no flow receives nothing anyway
            self.session.detach(ag.flow, not is_sender(ag))

    # -- queue monitors' integrators (monitor/ns2_integrator.rs) ---------------------------------

    def add_monitor(self, qm: QueueMonitor) -> None:
        """Hands a queue monitor's integrators to the engine, which brings them up to date at
        every change of the queue from now on."""
        link = qm.link
        name = self.ip.net.link_names.get((link.src.id, link.dst.id))
        ident = None
        if name is not None:
            ident = self.session.add_queue_integrators(name, link.src.name, link.dst.name)
        if ident is None:
            raise Ns2Error(
                f"monitor-queue {link.src.id} {link.dst.id}: the engine has no such queue"
            )
        for what, state in qm.integrals.items():
            self.session.set_queue_integrator(ident, what, *state)
        qm.engine_id = ident

    def add_flow_monitor(self, fm: FlowMon) -> None:
        """Hands a flow monitor to the engine (monitor/ns2_flowmon.rs)."""
        link = fm.link
        assert link is not None and link.src is not None and link.dst is not None
        name = self.ip.net.link_names.get((link.src.id, link.dst.id))
        ident = None
        if name is not None:
            ident = self.session.add_flow_monitor(name, link.src.name, link.dst.name, fm.early)
        if ident is None:
            raise Ns2Error(f"attach-fmon {link.src.id} {link.dst.id}: the engine has no such queue")
        fm.engine_id = tuple(ident)

    def integral(self, ident: int, what: str) -> list[float]:
        return list(self.session.queue_integrator(ident, what))

    def set_integral(self, ident: int, what: str, state: list[float]) -> None:
        lastx, lasty, total = state
        self.session.set_queue_integrator(ident, what, lastx, lasty, total)

    def _queue_link(self, q: Any) -> Any:
        for link in self.ip.net.links.values():
            if link.queue is q:
                return link
        return None

    def _probe_queue(self, link: Any, var: str) -> float | None:
        name = self.ip.net.link_names.get((link.src.id, link.dst.id))
        if name is None:
            return None
        return self.session.probe_queue(name, link.src.name, link.dst.name, var)

    def resets(self, ag: Agent, var: str) -> bool:
        """A receiver's counter the script may set while the run goes on (the tutorials'
        `$sink set bytes_ 0` after each sample): ns-2's are plain counters."""
        return ag.flow is not None and not is_sender(ag) and var in RECEIVER_PROBES

    def reset(self, ag: Agent, var: str, value: str) -> None:
        self.offsets[(ag.handle, var)] = 0.0
        now = self._raw(ag, var)
        self.offsets[(ag.handle, var)] = (now or 0.0) - number(value, var)

    def _raw(self, ag: Agent, var: str) -> float | None:
        assert ag.flow is not None
        if self.finished:
            v = self.snapshot.get((ag.handle, var))
            return self._from_report(ag, var) if v is None else v
        return self.session.probe(ag.flow, engine_var(ag, var))

    def _agent(self, ag: Agent, var: str) -> str | None:
        if ag.flow is None:
            return None
        if var == "seqno_" and ag.cls in TCP_CC:
            return str(self._curseq(ag))
        sender = is_sender(ag)
        probes = SENDER_PROBES if sender else RECEIVER_PROBES
        if var in probes:
            v = self._raw(ag, var)
            if v is None:
                if not self.finished:
                    self.ip.warn(f"the engine has no {var} for flow {ag.flow}; using the script's")
                return None
            return fmt_value(var, v - self.offsets.get((ag.handle, var), 0.0))
        if sender and var in SENDER_REPORT:
            if not self.finished:
                v = self.session.probe(ag.flow, var)  # tcp.cc's counters so far
                if v is not None:
                    return fmt_value(var, v)
                raise Ns2Error(
                    f"{var} is counted in the run's report: read it in the proc that ends the "
                    "run (finish); during the run the engine gives " + ", ".join(SENDER_PROBES)
                )
            v = self._from_report(ag, var)
            return None if v is None else fmt_value(var, v)
        return None

    def _curseq(self, ag: Agent) -> int:
        """tcp.cc's `curseq_` (bound as `seqno_`): what the script has written, or, for a
        started FTP, TCP_MAXSEQ (Source/FTP: 268435456); 0 before anything."""
        if ag.curseq is not None:
            return ag.curseq
        app = ag.app
        if app is None or app.held or app.start is None or app.start > self.now:
            return 0
        # the opening packet adds one as it goes out (tcp.cc output(), with syn_)
        opening = 1 if sends_syn(ag) and not ag.syn_counted else 0
        return (SOURCE_FTP_MAXPKTS if app.source else TCP_MAXSEQ) + opening

    def _flow_report(self, ag: Agent) -> dict[str, Any]:
        if self._report is None:
            assert self._report_text is not None
            import json  # only a variable read after the run needs it: 2 ms of start-up

            self._report = json.loads(self._report_text)
        for f in self._report.get("flows", []):
            if f.get("name") == ag.flow:
                return f
        raise Ns2Error(f"flow {ag.flow} is missing from the report")

    def _from_report(self, ag: Agent, var: str) -> float | None:
        f = self._flow_report(ag)
        tcp = f.get("tcp") or {}
        mss = tcp.get("mss") or 1
        if var in SENDER_REPORT:
            v = tcp.get(SENDER_REPORT[var])
            if v is not None and sends_syn(ag):
                # tcp.cc output() counts every packet it sends, the opening packet and its
                # retransmissions too: ++ndatapack_, and ++nrexmitpack_ for a seqno not
                # above maxseq_
                if var == "ndatapack_":
                    return f.get("tx_packets", v)
                if var == "nrexmitpack_":
                    return v + tcp.get("syn_retransmits", 0)
            return v
        if var == "cwnd_":
            return tcp.get("cwnd_segments")
        if var == "ssthresh_":
            s = tcp.get("ssthresh_bytes")
            return None if s is None else s / mss
        if var == "ack_":
            return tcp.get("bytes_acked", 0) // mss
        if var in ("t_seqno_", "maxseq_"):
            sent = tcp.get("segments_sent", 0) - tcp.get("retransmitted_segments", 0)
            return sent if var == "t_seqno_" else sent - 1
        if var in ("rtt_", "srtt_"):
            return tcp.get("srtt_s")
        if var == "bytes_":
            return f.get("rx_bytes")
        if var == "npkts_":
            return f.get("rx_packets")
        if var == "nlost_":
            return f.get("lost_packets")
        return None

    def _monitor(self, qm: Any, var: str) -> str:
        if var not in MONITOR_PROBES:
            raise Ns2Error(
                f"QueueMonitor {var} is not available ({', '.join(MONITOR_PROBES)} are, and "
                "its integrators' lastx_, lasty_, sum_)"
            )
        if self.finished:
            v = self.snapshot.get((qm.handle, var))
        else:
            v = self._probe_queue(qm.link, var)
        if v is None:
            raise Ns2Error(f"QueueMonitor {var}: the engine has no such queue")
        return fmt_value(var, v)


TCP_MAXSEQ = 1073741824  # tcp.h
SOURCE_FTP_MAXPKTS = 268435456  # ns-source.tcl, Source/FTP maxpkts_


def sends_syn(ag: Agent) -> bool:
    """Whether the agent sends ns-2's opening packet (syn_, true by default; Vegas's own
    output() sends packet 0 as data)."""
    return boolean(ag.vars.get("syn_", "true")) and ag.cls != "Agent/TCP/Vegas"


def engine_var(ag: Agent, var: str) -> str:
    """The engine's name for an agent's variable: a TCPSink's `bytes_` counts only what it
    delivered in order (tcp-sink.cc), a LossMonitor's every packet that arrived."""
    if var == "bytes_" and is_a(ag.cls, "Agent/TCPSink"):
        return "sink_bytes_"
    return var


def is_sender(ag: Agent) -> bool:
    if ag.cls in FULL_TCP:
        return not ag.listening  # the FullTcp source; the listener receives
    return ag.cls in TCP_CC or is_a(ag.cls, "Agent/UDP")
