"""The event loop of ``$ns run``: bufferlab's engine and the script's Tcl events take turns.

The network the script built becomes a scenario and a ``_core.Session``. The engine runs
until the next ``$ns at`` event, then Tcl runs it (a proc reading ``cwnd_`` sees the value at
that time, and may schedule more events), then the engine continues. The run ends at the
first event scheduled before ``$ns run`` that stops the simulation (a proc that calls
``exit`` or ``$ns halt``, like ``$ns at 10.0 "finish"``): there the engine's variables are
read once, the session is finished (its report made and the trace file closed), and the
events of that instant run, so ``finish`` can read the counters, close the trace and run
``awk`` over it.
"""

from __future__ import annotations

import heapq
import os

from bufferlab.ns2 import telnet
from bufferlab.ns2.classes import TCP_CC, VAR_TRACES
from bufferlab.ns2.engine_reads import (
    AQM_PROBES,
    MONITOR_PROBES,
    RECEIVER_PROBES,
    SENDER_PROBES,
    SOURCE_FTP_MAXPKTS,
    TCP_MAXSEQ,
    EngineReads,
    engine_var,
    is_sender,
    sends_syn,
)
from bufferlab.ns2.errors import Ns2Error, ScriptExit
from bufferlab.ns2.linktrace import TraceRouter, plan
from bufferlab.ns2.model import Agent, FlowMon, Queue, QueueMonitor
from bufferlab.ns2.private_file import PrivateFile
from bufferlab.ns2.run_end import end_time
from bufferlab.ns2.same_instant import run_static_starts, static_starts
from bufferlab.ns2.scenario import to_scenario
from bufferlab.ns2.sent_counters import SENT_COUNTERS, SentCounters
from bufferlab.ns2.summary import keep_summaries, snapshot_summaries
from bufferlab.ns2.toml_text import scenario_text
from bufferlab.ns2.units import number, time_s

# typing is imported for type checkers only (TYPE_CHECKING = False is their constant too):
# it is 2-4 ms of the command's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Events a script may schedule at the instant that is running ($ns at [$ns now] ...) before
# the run is stalled: simulated time no longer advances (ns-2 would spin forever). A script
# that starts or stops 100 000 things at one instant schedules them before that instant.
STALL_EVENTS = 100_000


class ImportStop(ScriptExit):
    """`bufferlab import-ns2` stops the script at `$ns run`, once the scenario is built."""

    def __init__(self) -> None:
        super().__init__(0)


class Runner(EngineReads):
    def __init__(self, interp: Any):
        self.ip = interp
        self.now = 0.0
        self.end = 0.0
        self.session: Any = None
        self.finished = False
        self.halted = False
        self.snapshot: dict[tuple[str, str], float | None] = {}
        self._report_text: str | None = None  # the engine's report (JSON), parsed when read
        self._report: dict[str, Any] | None = None
        self.offsets: dict[tuple[str, str], float] = {}  # counters the script has set
        self.splitter: TraceRouter | None = None
        self.private_trace: PrivateFile | None = None
        self.heap: list[tuple[float, int, str]] = list(interp.events)
        heapq.heapify(self.heap)
        self.done_flows: dict[str, Agent] = {}  # flows whose `done` the engine watches for
        self.current = ""  # the event being run (for a stall's message)
        self.same_instant = 0  # events it and its like scheduled at the instant running

    # -- the loop ---------------------------------------------------------------------------------

    def run(self) -> None:
        ip = self.ip
        self.end = end_time(ip, self.heap)
        if self.end <= 0:
            raise Ns2Error(f"the simulation ends at {self.end:g} s: nothing to simulate")
        factory = ip.session_factory
        if factory is None and not ip.import_only:
            from bufferlab import _core

            factory = getattr(_core, "Session", None)
        # applications a proc may start during the run need the engine's Session.retime
        held = factory is not None and hasattr(factory, "retime")
        scenario = to_scenario(
            ip.net,
            self.end,
            os.path.splitext(os.path.basename(ip.script))[0],
            ip.warn,
            held=held,
            rng_state=ip.default_rng.stream.all_seeds(),
        )
        ip.scenario = scenario
        if ip.import_only:
            raise ImportStop()
        if factory is None:
            raise Ns2Error(
                "this build of bufferlab's core has no Session (needed to run ns-2 "
                "scripts): rebuild it (make build); `bufferlab import-ns2` works without it"
            )
        extra: dict[str, Any] = {}
        # the trace files are the engine's one trace, routed (linktrace.py): the trace-all
        # file itself when it is exactly that trace, else one of its own that goes away
        traces = plan(ip.net)
        ip.event_trace_routes(traces)  # `$ns eventtrace-all` (eventtrace.py)
        if traces.error_drops:
            extra["ns2_error_drops"] = traces.error_drops
        if ip.show_tcphdr():  # `Trace set show_tcphdr_ 1`
            extra["ns2_show_tcphdr"] = True
        elsewhere = [  # an error model whose drop-target is the script's own, not drophead_
            (link.src.name, link.dst.name)
            for link in ip.net.links.values()
            if link.loss is not None and link.loss.handle in ip.net.drop_targets
        ]
        if elsewhere:
            extra["ns2_unmonitored_losses"] = elsewhere
        trace = traces.direct
        if traces.routes:
            if trace is None:
                self.private_trace = PrivateFile("links.tr")
                trace = self.private_trace.path
                # the engine's own trace, for the router alone: only the directions it routes
                extra["ns2_trace_directions"] = traces.directions()
            self.splitter = TraceRouter(trace, traces.routes, self._write)
        wall = None if ip.stopper is None else ip.stopper.remaining()
        if wall is not None:
            extra["max_wall"] = wall  # the engine's own guard: what is left of --max-wall
        self.session = factory(
            scenario_text(scenario),
            source=f"{os.path.basename(ip.script)} (translated)",
            seed=ip.seed,
            ns2_trace=trace,
            **extra,
        )
        ip.links_to_engine(self.session)  # Delayers, avoidReordering_ (delayer.py)
        ip.start_event_traces(self.session)  # the senders' E lines (eventtrace.py)
        for obj in list(ip.objects.values()):
            if isinstance(obj, QueueMonitor):
                self.add_monitor(obj)
            elif isinstance(obj, FlowMon) and obj.link is not None:
                self.add_flow_monitor(obj)
        keep_summaries(self)  # the queues' summarystats_ (printstats)
        for ag in ip.net.agents:
            if ag.detached:
                self.detach(ag)
        for ag in ip.net.flows():
            app = ag.app
            if app is not None and app.held:
                self.session.retime(ag.flow, start=float("inf"))
            elif (
                app is not None
                and _tcp_ftp(ag, app)
                and app.stop is not None
                and app.stop < self.end
            ):
                # an FTP stop given before $ns run is the flow's stop; its `advance 0` (curseq_
                # becomes maxseq_, `done` watched) is kept here, before that instant's events
                heapq.heappush(self.heap, (app.stop, -1, _STOPPED + ag.handle))
        self._ports = _agent_ports(ip.net.flows(), scenario)
        self.static_starts = static_starts(ip.net.flows())
        self.watches: dict[int, tuple[Agent | Queue, str]] = {}
        # the traced senders whose maxseq_ or t_seqno_ is traced, by handle (sent_counters.py)
        self.sends: dict[str, SentCounters] = {}
        for ag, var, attached in ip.var_traces:
            self.start_var_trace(ag, var, attached)
        for q, var in ip.queue_traces:
            self.start_queue_trace(q, var)
        self.loop()

    # -- variable traces ($tcp trace cwnd_) -------------------------------------------------------

    def start_var_trace(self, ag: Agent, var: str, attached: bool = True) -> None:
        """Writes the value now if a channel was attached when the trace was set up, then each
        change (ns-2 writes the value when the trace is set up, then at each assignment;
        tcp.cc `TcpAgent::traceVar` writes nothing without a channel)."""
        if ag.flow is None:
            self.ip.warn(f"$agent trace {var}: {ag.handle} is not a flow; nothing written")
            return
        got = self.session.watch(ag.flow, var)
        if got is None:
            raise Ns2Error(f"the engine has no {var} for flow {ag.flow}")
        w, value = got
        self.watches[w] = (ag, var)
        sent = self.sends.get(ag.handle)
        if sent is None and var in SENT_COUNTERS:
            # the packet counters' lines are written by SentCounters, from watches of its own
            sent = self.sends[ag.handle] = SentCounters(
                ag, lambda t, v, x: self._write_var(t, ag, v, x), self.session.probe
            )
            for v in ("ack_", *SENT_COUNTERS):
                hidden = self.session.watch(ag.flow, v)
                assert hidden is not None
                self.watches[hidden[0]] = (ag, v)
                sent.follow(hidden[0], v, written=False)
            for w2, (o, v) in self.watches.items():
                if o is ag and v == "ack_" and w2 not in sent.hidden:
                    sent.follow(w2, v, written=True)  # traced before
        if sent is not None and sent.owns(var):
            sent.follow(w, var, written=True)
        if attached:
            self._write_var(self.now, ag, var, value)

    def _write_var(self, t: float, ag: Agent, var: str, value: float) -> None:
        channel = self.ip.var_channels.get(ag.handle)
        if channel is None:
            self.ip.warn(f"$agent trace {var} without $agent attach: nothing written")
            return
        sport, daddr, dport = self._ports.get(ag.handle, (0, -1, 0))
        addr = ag.node.id if ag.node is not None else -1
        v = _var_text(ag, VAR_TRACES[var], value)
        line = f"{t:<8.5f} {addr:<2d} {sport:<2d} {daddr:<2d} {dport:<2d} {var} {v}"
        self.ip.tcl.call("puts", channel, line)

    def start_queue_trace(self, q: Queue, var: str) -> None:
        """RED writes a line at each change of a traced variable, none when it is set up."""
        link = self._queue_link(q)
        name = None if link is None else self.ip.net.link_names.get((link.src.id, link.dst.id))
        got = None
        if name is not None:
            got = self.session.watch_queue(name, link.src.name, link.dst.name, var)
        if got is None:
            raise Ns2Error(f"$queue trace {var}: the engine has no such queue")
        self.watches[got[0]] = (q, var)

    def _write_queue_var(self, t: float, q: Queue, var: str, value: float) -> None:
        channel = self.ip.var_channels.get(q.handle)
        if channel is None:
            self.ip.warn(f"$queue trace {var} without $queue attach: nothing written")
            return
        # red.cc REDQueue::trace: "Q %g %d" for curq_, else "%c %g %g" (its first letter)
        line = f"Q {t:g} {int(value)}" if var == "curq_" else f"{var[0]} {t:g} {value:g}"
        self.ip.tcl.call("puts", channel, line)

    def flush_var_traces(self) -> None:
        if not self.watches:
            return
        for t, w, value in self.session.take_changes():
            obj, var = self.watches[w]
            sent = self.sends.get(obj.handle) if isinstance(obj, Agent) else None
            if sent is not None and sent.owns(var):
                sent.change(t, w, value)
                continue
            for other in self.sends.values():
                other.settle()
            if isinstance(obj, Agent):
                self._write_var(t, obj, var, value)
            else:
                self._write_queue_var(t, obj, var, value)
        for other in self.sends.values():
            other.settle()

    def schedule(self, t: float, seq: int, script: str) -> None:
        if t <= self.now and self.current:
            self.same_instant += 1
            if self.same_instant > STALL_EVENTS:
                raise self.ip.stopping(
                    Ns2Error(
                        f"simulated time stalled at {self.now:g} s: the event "
                        f'"{_short(self.current)}" and those it scheduled have scheduled '
                        f"{STALL_EVENTS} events at that same instant; an event that reschedules "
                        'itself must do it later ($ns at [expr {[$ns now] + 0.1}] "...")'
                    )
                )
        heapq.heappush(self.heap, (max(t, self.now), seq, script))

    def app_event(self, app: Any, what: str) -> None:
        """`$app start` / `$app stop` run by the script while the run goes on: the flow's
        application starts or stops now (Session.retime)."""
        ag = app.agent
        if what == "stop" and self.finished:
            # at the run's last instant, after the engine's end: a stop sends nothing more
            # (FTP's `advance 0`, a source's timer cancelled), so nothing is left to change
            app.stop = self.now if app.stop is None else app.stop
            return
        if ag is None or ag.flow is None:
            raise Ns2Error(
                f"{app.cls} {app.handle} {what}: its agent is not a connected flow (attach the "
                "application to an agent that $ns connect joined to a sink, before $ns run)"
            )
        if (
            what == "start"
            and ag.curseq is not None
            and not (app.stop is not None and app.stop <= self.now)
        ):
            self.unlimited(ag, app)  # after finite sends
            return
        if what == "start":
            if not app.held and app.start is not None and app.start > self.now:
                raise Ns2Error(
                    f"{app.cls} {app.handle} is started at {self.now:g} s, before the start "
                    f"at {app.start:g} s that $ns at gave it: not modelled"
                )
            running = not app.held and (app.stop is None or app.stop > self.now)
            if running:
                raise Ns2Error(
                    f"{app.cls} {app.handle} is started while it runs: not modelled (stop it first)"
                )
            stopped = app.stop is not None and app.stop <= self.now
            if stopped and _tcp_ftp(ag, app):
                # the connection goes on with its window and sequence space
                self.unlimited(ag, app)
            else:
                # held: its first start; stopped: a restart of a UDP source (the engine says
                # what it cannot restart)
                self._retime(app, ag.flow, start=self.now)
            app.held, app.start, app.stop = False, self.now, None
        else:
            if app.held or (app.stop is not None and app.stop <= self.now):
                return  # not started, or stopped already (a second stop changes nothing)
            self._retime(app, ag.flow, stop=self.now)
            app.stop = self.now
            if _tcp_ftp(ag, app):
                self.stopped(ag)

    def data_event(self, ag: Agent, op: str, n: int, said: str | None = None) -> None:
        """`$tcp send n` / `advance n` / `advanceby n` while the run goes on (FTP's send,
        produce, producemore call them). ns-2.35 tcp.cc: sendmsg adds ceil(n / size_) packets
        to curseq_ (n = -1: TCP_MAXSEQ, FTP's start), advanceby adds n, advance sets curseq_
        to n (to maxseq_ when n is not above it); each then calls send_much. With syn_, the
        opening packet (seqno 0) adds one to curseq_ when it goes out (output()), so the data
        packets are 1 .. curseq_ - 1. The engine gets the number of data segments."""
        app = ag.app
        if ag.flow is None or app is None:
            raise Ns2Error(
                f"{self._data_what(ag, op, n, said)}: its agent is not a connected flow "
                "(connect it to a sink with $ns connect before $ns run)"
            )
        if not hasattr(self.session, "set_data"):
            raise Ns2Error(
                "this build of bufferlab's core has no Session.set_data (needed for finite "
                "sends): rebuild it (make build)"
            )
        if op == "send" and n == -1:  # sendmsg(-1): as much as it can send (FTP start)
            self.app_event(app, "start")
            return
        if app.stop is not None and app.stop <= self.now:
            # FTP stop was `advance 0` (ns-source.tcl): curseq_ is maxseq_, and more data goes
            # on from there; a later stop stops again
            app.stop = None
        if ag.curseq is None:
            if not app.held:
                if app.start is not None and app.start > self.now:
                    raise Ns2Error(
                        f"{self._data_what(ag, op, n, said)}: before the start at "
                        f"{app.start:g} s that $ns at gave it, not modelled"
                    )
                # a started FTP: curseq_ is TCP_MAXSEQ (Source/FTP: 268435456); only an
                # advance to less (`advance 0`, what FTP stop does) changes what it sends
                ag.curseq = SOURCE_FTP_MAXPKTS if app.source else TCP_MAXSEQ
                ag.syn_counted = True
            else:
                ag.curseq = 0
        maxseq = self.session.probe(ag.flow, "maxseq_") if ag.syn_counted else -1
        vegas = ag.cls == "Agent/TCP/Vegas"
        if vegas and maxseq >= 0 and self.session.probe(ag.flow, "ack_") >= maxseq:
            # tcp-vegas.cc timeout(): with nothing outstanding a full timeout (ssthresh_
            # halved, cwnd_ v_slowstart_, the timer backed off), each RTO
            raise Ns2Error(
                f"{self._data_what(ag, op, n, said)}: more data for a Vegas agent that sent "
                "everything is not modelled (ns-2's Vegas times out while idle)"
            )
        size = int(number(ag.vars.get("packetSize_", "1000"), "packetSize_"))
        before = ag.curseq
        if op == "send":
            q = int(n / size)  # C's integer division and remainder
            ag.curseq += q + (1 if n - q * size else 0)
        elif op == "advanceby":
            ag.curseq += n
        else:
            ag.curseq = n if n > maxseq else int(maxseq)
        if op != "send" and ag.curseq > before:
            ag.closed = False  # tcp.cc advanceby: `if (delta > 0) closed_ = 0`
        syn = sends_syn(ag)
        if syn and not ag.syn_counted and ag.curseq > 0:
            ag.curseq += 1  # the opening packet goes out now (tcp.cc output(): seqno 0)
            ag.syn_counted = True
        data = max(0, ag.curseq - (1 if syn else 0))
        if data == 0 and app.held:
            return  # nothing to send yet: ns-2's send_much sends nothing
        try:
            self.session.set_data(ag.flow, data)
        except Exception as e:  # ScenarioError: what the engine cannot give more data
            raise Ns2Error(f"{self._data_what(ag, op, n, said)}: {e}") from None
        ag.syn_counted = ag.syn_counted or not syn
        if app.held:
            app.held, app.start, app.stop = False, self.now, None
        self.watch_done(ag)

    def reset_event(self, ag: Agent, boot_time: float | None) -> None:
        """`$tcp reset` / `$sink reset` while the run goes on (tcp.cc `TcpAgent::reset`,
        tcp-sink.cc `TcpSink::reset`): the engine puts that end back in its initial state and
        drops the packets of its previous incarnation (Session.reset); a sender's `curseq_`
        is 0 again, so the application's next write opens the connection anew (the opening
        packet first with syn_)."""
        if ag.flow is None:
            raise Ns2Error(
                f"{ag.cls} {ag.handle} reset at {self.now:g} s: it is not a connected flow "
                "(connect it to a peer with $ns connect before $ns run)"
            )
        sender = is_sender(ag)
        try:
            self.session.reset(ag.flow, receiver=not sender, phase=boot_time)
        except Exception as e:  # ScenarioError: what the engine cannot reset
            raise Ns2Error(f"{ag.cls} {ag.handle} reset at {self.now:g} s: {e}") from None
        if sender:
            ag.curseq = 0
            ag.syn_counted = False
            ag.closed = False

    def _retime(self, app: Any, flow: str, **times: float) -> None:
        try:
            self.session.retime(flow, **times)
        except Exception as e:  # ScenarioError: what the engine cannot move
            what = next(iter(times))
            raise Ns2Error(f"{app.cls} {app.handle} {what} at {self.now:g} s: {e}") from None

    def halt(self) -> None:
        self.halted = True

    def loop(self) -> None:
        ip = self.ip
        while self.heap and not self.halted:
            t, seq, script = self.heap[0]
            if t > self.end + 1e-12:
                if not self.finished:
                    self._finish(self.end)
                ip.warn(
                    f"events after {self.end:g} s (the end of the run) are not run, "
                    f'first: "{_short(script)}" at {t:g} s'
                )
                break
            heapq.heappop(self.heap)
            if seq in ip.cancelled:
                continue
            if t > self.now:
                self.same_instant = 0
            self.current = script
            if t >= self.end - 1e-12:
                if not self.finished:
                    self._finish(self.end)
                # its own double for `$ns now` (4.9999999999999982, the sum of fifty 0.1s,
                # is the end in picoseconds)
                self.now = t
            else:
                self.advance_to(t)
                if self.halted:
                    break
                # before the default RNG comes to the script: a start draws from it (overhead_)
                if not script.startswith(_STOPPED):
                    run_static_starts(self.session, self.static_starts, t, seq)
                self.flush_var_traces()
                self.pump()
                self.now = t
                self.rng_from_engine()
            if script.startswith(_STOPPED):
                self.stopped(ip.objects[script.removeprefix(_STOPPED)])
                continue
            if script.startswith(telnet.EXPIRY):  # a timer of the loop's own, not Tcl's
                telnet.expire(ip, ip.objects[script.removeprefix(telnet.EXPIRY)])
            else:
                ip.eval_event(script, t)
            if ip.stop_error is not None:  # a stall the script caught
                raise ip.stop_error
            if not self.finished:
                self.rng_to_engine()
        if not self.finished:
            if self.now < self.end:
                ip.warn(
                    f"$ns halt at {self.now:g} s: the engine's report runs to {self.end:g} s; "
                    "values read after the halt are those at the halt"
                )
            self._finish(self.now)

    def _finish(self, t: float) -> None:
        if t > self.now:
            self.advance_to(t)
            if self.halted:  # by a `done` proc
                t = self.now
        self.flush_var_traces()
        self.now = t
        for ag in self.ip.net.agents:
            if ag.flow is None:
                continue
            probes = SENDER_PROBES if is_sender(ag) else RECEIVER_PROBES
            for var in probes:
                self.snapshot[(ag.handle, var)] = self.session.probe(ag.flow, engine_var(ag, var))
        for obj in list(self.ip.objects.values()):
            if isinstance(obj, FlowMon) and obj.engine_id is not None:
                total, flows = self.session.flow_monitor(obj.engine_id)
                obj.final = (list(total), list(flows))
            if isinstance(obj, QueueMonitor):
                for var in MONITOR_PROBES:
                    self.snapshot[(obj.handle, var)] = self._probe_queue(obj.link, var)
                if obj.engine_id is not None:  # the integrators go on in the script's hands
                    for what in obj.integrals:
                        obj.integrals[what] = self.integral(obj.engine_id, what)
                    obj.engine_id = None
            elif getattr(obj, "cls", "") in AQM_PROBES:
                link = self._queue_link(obj)
                if link is not None:
                    for var in AQM_PROBES[obj.cls]:
                        self.snapshot[(obj.handle, var)] = self._probe_queue(link, var)
        snapshot_summaries(self)
        self.rng_from_engine()
        self._report_text = self.session.finish()
        self.finished = True
        self.pump()  # the engine's trace is complete and closed: the last lines
        self.close()

    # -- the engine up to the next script event, and `$tcp done` on the way ---------------------

    def _data_what(self, ag: Agent, op: str, n: int, said: str | None) -> str:
        """Who asked for more data, how, and when: the start of an error's line (made only
        when there is one: a Telnet asks once per packet)."""
        app = ag.app
        who = f"{app.cls} {app.handle}" if app is not None else f"{ag.cls} {ag.handle}"
        return f"{who} {said or op} {n} at {self.now:g} s"

    def advance_to(self, t: float) -> None:
        """Runs the engine's events before `t`. When a watched TCP agent has all its data
        acknowledged, the engine stops after that ACK and the script's `done` runs then
        (tcp.cc recv_newack_helper: `highest_ack_ >= curseq_ - 1 && !closed_`: `closed_ = 1;
        finish()`, which evaluates `$tcp done`)."""
        take_acked = getattr(self.session, "take_acked", None)
        stopped = getattr(self.session, "stopped", lambda: None)
        while True:
            self.session.run_until(t)
            why = stopped()
            if why is not None:  # the engine's guard: --max-wall, or its own stall
                stopper = self.ip.stopper
                if why.startswith("stopped by --max-wall") and stopper is not None:
                    # the wall time of the whole script, not of the engine's part
                    why = (
                        f"stopped by --max-wall after {stopper.elapsed():.1f} s of wall time, at "
                        f"{self.session.now():g} s of simulated time; the script's output is "
                        "incomplete (raise --max-wall, or shorten the script's run)"
                    )
                raise self.ip.stopping(Ns2Error(why))
            # the engine may have stopped early at a watched ACK: go on until it reaches t
            fired = take_acked() if take_acked is not None else []
            if not fired:
                return
            for when, flow in fired:
                ag = self.done_flows.pop(flow, None)
                if ag is None:
                    continue  # its FTP started since: curseq_ is TCP_MAXSEQ, no done
                ag.closed = True
                if self.ip.classes.find(ag.handle, ag.klass, "done") is None:
                    continue  # no done proc (ns-2's default does nothing)
                self.flush_var_traces()
                self.pump()
                self.now = when
                self.rng_from_engine()
                self.ip.eval_event(self.ip.tcl_list(ag.handle, "done"), when)
                if self.halted:
                    return
                self.rng_to_engine()

    def unlimited(self, ag: Agent, app: Any) -> None:
        """`$ftp start` on a connection that was given finite data or stopped (ns-source.tcl:
        `send -1`, curseq_ TCP_MAXSEQ; Source/FTP's `advance 268435456` reopens `done`): it goes
        on with all it can send, and no `done` is due."""
        self.session.set_data(ag.flow, _UNLIMITED)
        ag.curseq = None
        ag.closed = ag.closed and not app.source
        self.done_flows.pop(ag.flow, None)

    def stopped(self, ag: Agent) -> None:
        """FTP stop (`advance 0`, ns-source.tcl): curseq_ becomes maxseq_, and `done` comes
        when a new ACK reaches curseq_ - 1."""
        ag.curseq = int(self.session.probe(ag.flow, "maxseq_"))
        self.watch_done(ag)

    def watch_done(self, ag: Agent) -> None:
        """After new data: `done` comes when `ack_` reaches `curseq_ - 1`."""
        if ag.closed or ag.curseq is None or not hasattr(self.session, "watch_ack"):
            return
        self.session.watch_ack(ag.flow, float(ag.curseq - 1))
        self.done_flows[ag.flow] = ag

    # -- ns-2's default RNG, shared by the engine and the script ---------------------------------

    def rng_from_engine(self) -> None:
        """The engine's RED, error models and CBRs drew from ns-2's default RNG up to now: the
        script's draws go on from there."""
        state = getattr(self.session, "ns2_rng_state", lambda: None)()
        if state is not None:
            self.ip.default_rng.stream.cg = [float(x) for x in state]

    def rng_to_engine(self) -> None:
        """The script drew (or made another RNG the default, `$rng default`): the engine goes
        on from the default RNG's state."""
        if hasattr(self.session, "set_ns2_rng_state"):
            self.session.set_ns2_rng_state(self.ip.default_rng.stream.all_seeds())

    # -- per-link traces ---------------------------------------------------------------------------

    def pump(self) -> None:
        if self.splitter is not None:
            self.splitter.pump()

    def _write(self, channel: str, text: str) -> None:
        try:
            self.ip.tcl.call("puts", "-nonewline", channel, text)
        except Exception as e:  # the script closed it: ns-2 would fail too; say it once
            stopper = self.ip.stopper
            if stopper is not None and (stopper.reason is not None or stopper.interrupted):
                raise  # Tcl was cancelled (Ctrl-C, --max-wall): that is what is said
            self.ip.warn(f"trace channel {channel}: {e}; its lines are not written")

    def close(self) -> None:
        """Closes the engine's trace and removes it if it is the engine's own (only made for
        trace-queue)."""
        if self.splitter is not None:
            self.splitter.close()
        if self.private_trace is not None:
            self.private_trace.remove()
            self.private_trace = None


def _agent_ports(agents: list[Agent], scenario: dict[str, Any]) -> dict[str, tuple[int, int, int]]:
    """Each sender's (port, peer node, peer port): the ports its node and its peer's gave
    them at attach (ns-node.tcl alloc-port), which the flows' `trace_ports` give the engine."""
    senders = {ag.flow: ag for ag in agents if is_sender(ag)}
    out: dict[str, tuple[int, int, int]] = {}
    for f in scenario.get("flows", []):
        ag = senders.get(f["name"])
        if ag is not None and ag.peer is not None and ag.peer.node is not None:
            out[ag.handle] = (ag.port, ag.peer.node.id, ag.peer.port)
    return out


# Data segments of an application that always has data (the engine's bulk flows).
_UNLIMITED = 2**40
_STOPPED = "\0stopped "  # a heap entry that is not a script: an FTP's stop given before $ns run


def _short(script: str) -> str:
    """An event as a message names it: the loop's own entries in words, a script cut short."""
    if script.startswith(telnet.EXPIRY):
        return f"the timer of {telnet.TELNET} {script.removeprefix(telnet.EXPIRY)}"
    if script.startswith(_STOPPED):
        return f"the stop of {script.removeprefix(_STOPPED)}'s application"
    return script if len(script) <= 60 else script[:57] + "..."


def _tcp_ftp(ag: Agent, app: Any) -> bool:
    """An FTP on a TCP agent: its start and stop write the agent's data (ns-source.tcl)."""
    return ag.cls in TCP_CC and app.cls == "Application/FTP"


def _var_text(ag: Agent, kind: str, value: float) -> str:
    """A traced TCP variable as ns-2.35's TcpAgent::traceVar (tcp.cc) prints it."""
    if kind == "int":
        return str(int(value))
    if kind != "double":
        tick = time_s(ag.vars.get("tcpTick_", "0.01"))
        raw = int(value)
        if kind == "rtt":
            value = raw * tick
        elif kind == "srtt":
            value = (raw >> int(ag.vars.get("T_SRTT_BITS", "3"))) * tick
        else:
            value = raw * tick / 4.0
    return f"{value:<6.3f}"
