"""The network an ns-2 script describes (nodes, links, queues, agents, applications, error
models) and its translation to a bufferlab scenario (a dict of the scenario format).

Every ns-2 variable the translation reads is listed here with the scenario field it becomes;
ns-2.35's defaults (``tcl/lib/ns-default.tcl``, checked with ``ns`` itself) are in
``NS_DEFAULTS``. A variable left at its ns-2 default is left out of the scenario, where the
``ns2`` presets give the same value.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from bufferlab.ns2.errors import Ns2Error
from bufferlab.ns2.rng import RANVAR_DEFAULTS
from bufferlab.ns2.units import boolean, fmt_rate, fmt_time, number, rate_bps, time_s

# typing is imported for type checkers only (TYPE_CHECKING = False is their constant too):
# it is 2-4 ms of the command's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# ns-2.35 defaults of the classes bufferlab models (ns-default.tcl). A class inherits its
# parent's (the name up to its last "/").
NS_DEFAULTS: dict[str, dict[str, str]] = {
    "Agent": {"fid_": "0", "prio_": "0", "class_": "0", "packetSize_": "1000"},
    "Agent/TCP": {
        "window_": "20",
        "windowInit_": "2",
        "packetSize_": "1000",
        "tcpTick_": "0.01",
        "maxburst_": "0",
        "minrto_": "0.2",
        "maxrto_": "60",
        "rtxcur_init_": "3.0",
        "syn_": "true",
        "numdupacks_": "3",
        "ecn_": "0",
        "timestamps_": "false",
        "slow_start_restart_": "true",
        "singledup_": "1",
        "ssthresh_": "0",
        "maxcwnd_": "0",
        "overhead_": "0",
        "windowOption_": "1",
        "delay_growth_": "true",
        "cwnd_": "1",
        "ack_": "-1",
        "t_seqno_": "0",
        "ndatapack_": "0",
        "ndatabytes_": "0",
        "nrexmitpack_": "0",
        "nrexmitbytes_": "0",
        "nrexmit_": "0",
        "nackpack_": "0",
        "rtt_": "0",
        "srtt_": "0",
        # tcp.cc rtt_init: t_rttvar_ = rttvar_init_ (12 s) in tcpTick_ (10 ms) ticks, << 2
        "rttvar_": "4800",
        "backoff_": "1",
        "maxseq_": "-1",
        "dupacks_": "0",
    },
    "Agent/TCP/Vegas": {"v_alpha_": "1", "v_beta_": "3", "v_gamma_": "1"},
    # ns-default.tcl's Agent/TCP/Linux lines (printed by ns-2.35: `Agent/TCP/Linux info vars`)
    "Agent/TCP/Linux": {
        "rtxcur_init_": "3",
        "maxrto_": "120",
        "minrto_": "0.2",
        "ts_resetRTO_": "true",
        "next_pkts_in_flight_": "0",
        "delay_growth_": "false",
    },
    "Agent/TCPSink": {"packetSize_": "40", "maxSackBlocks_": "3", "bytes_": "0"},
    "Agent/TCPSink/DelAck": {"interval_": "100ms"},
    "Agent/TCPSink/Sack1/DelAck": {"interval_": "100ms"},
    "Agent/UDP": {"packetSize_": "1000"},
    "Agent/LossMonitor": {
        "bytes_": "0",
        "npkts_": "0",
        "nlost_": "0",
        "lastPktTime_": "0",
        "expected_": "-1",
    },
    "Queue": {"limit_": "50", "blocked_": "false", "unblock_on_resume_": "true"},
    "Queue/DropTail": {
        "drop_front_": "false",
        "queue_in_bytes_": "false",
        "mean_pktsize_": "500",
        "summarystats_": "false",
    },
    "Queue/RED": {
        "bytes_": "true",
        "queue_in_bytes_": "true",
        "thresh_": "0",
        "maxthresh_": "0",
        "mean_pktsize_": "500",
        "q_weight_": "-1",
        "wait_": "true",
        "linterm_": "10",
        "setbit_": "false",
        "gentle_": "true",
        "drop_tail_": "true",
        "drop_front_": "false",
        "drop_rand_": "false",
        "adaptive_": "0",
        "use_mark_p_": "true",
        "mark_p_": "0.1",
        "targetdelay_": "0.005",
        "cautious_": "0",
        "alpha_": "0.01",
        "beta_": "0.9",
        "interval_": "0.5",
        "top_": "0.5",
        "bottom_": "0",
        "feng_adaptive_": "0",
        "ave_": "0",
        "curq_": "0",
    },
    "Queue/DRR": {"buckets_": "10", "blimit_": "25000", "quantum_": "250", "mask_": "0"},
    "Queue/SFQ": {"maxqueue_": "40", "buckets_": "16"},
    # ns-default.tcl (printed by ns-2.35: `Queue/PI set a_` 0.00001822, ...)
    "Queue/PI": {
        "a_": "0.00001822",
        "b_": "0.00001816",
        "w_": "170",
        "qref_": "50",
        "mean_pktsize_": "500",
        "bytes_": "false",
        "queue_in_bytes_": "false",
        "setbit_": "false",
        "prob_": "0",
        "curq_": "0",
    },
    "Application/Traffic/CBR": {
        "rate_": "448Kb",
        "packetSize_": "210",
        "random_": "0",
        "maxpkts_": "268435456",
    },
    "Application/Traffic/Exponential": {
        "burst_time_": ".5",
        "idle_time_": ".5",
        "rate_": "64Kb",
        "packetSize_": "210",
    },
    "Application/Traffic/Pareto": {
        "burst_time_": "500ms",
        "idle_time_": "500ms",
        "rate_": "64Kb",
        "packetSize_": "210",
        "shape_": "1.5",
    },
    "ErrorModel": {"rate_": "0", "enable_": "1", "markecn_": "false", "delay_pkt_": "false"},
    **RANVAR_DEFAULTS,
}

# Variables `$tcp trace var_` writes, as ns-2's TcpAgent::traceVar (tcp.cc) formats them:
# a double with %-6.3f, an integer with %d.
VAR_TRACES = {"cwnd_": "double", "ssthresh_": "int", "ack_": "int", "t_seqno_": "int"}

# Variables that only label packets or feed nam/traces: accepted silently.
LABELS = {
    "fid_",
    "class_",
    "prio_",
    "flags_",
    "ttl_",
    "dst_addr_",
    "dst_port_",
    "agent_addr_",
    "agent_port_",
    "nam_tracevar_",
}

# The TCP sender: ns-2 variable -> (scenario field, converter). Only values that differ
# from ns-2's default are written; the `ns2` preset has the defaults.
_TCP_FIELDS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "window_": ("window", lambda v: f"{int(number(v))}p"),
    "windowInit_": ("iw", lambda v: int(number(v))),
    "packetSize_": ("mss", lambda v: int(number(v))),
    "tcpTick_": ("clock_granularity", lambda v: fmt_time(time_s(v))),
    "minrto_": ("min_rto", lambda v: fmt_time(time_s(v))),
    "maxrto_": ("max_rto", lambda v: fmt_time(time_s(v))),
    "rtxcur_init_": ("initial_rto", lambda v: fmt_time(time_s(v))),
    "numdupacks_": ("dupack_threshold", lambda v: int(number(v))),
    "ecn_": ("ecn", boolean),
    "timestamps_": ("timestamps", boolean),
    "slow_start_restart_": ("slow_start_restart", boolean),
    "singledup_": ("limited_transmit", boolean),
    "syn_": ("handshake", boolean),
    "v_alpha_": ("vegas_alpha", number),
    "v_beta_": ("vegas_beta", number),
    "v_gamma_": ("vegas_gamma", number),
}
# Variables whose non-default values change what ns-2 does and are not modelled (exit 2).
_TCP_UNMODELLED = {
    "maxburst_": "maxburst_ (a cap on packets sent per ACK) is not modelled",
    "maxcwnd_": "maxcwnd_ (a cap on cwnd_) is not modelled; window_ caps the window",
    "overhead_": "overhead_ (random sending delays) is not modelled",
    "windowOption_": "windowOption_ other than 1 (standard AIMD) is not modelled",
    "delay_growth_": "delay_growth_ false is not modelled",
}
# Read-only counters and state: setting them before the run is harmless and ignored.
TCP_STATE = {
    "cwnd_",
    "ack_",
    "t_seqno_",
    "ndatapack_",
    "ndatabytes_",
    "nrexmitpack_",
    "nrexmitbytes_",
    "nrexmit_",
    "nackpack_",
    "rtt_",
    "srtt_",
    "rttvar_",
    "backoff_",
    "maxseq_",
    "dupacks_",
}

TCP_CC = {
    "Agent/TCP": ("tahoe", False),
    "Agent/TCP/Reno": ("reno", False),
    "Agent/TCP/Newreno": ("newreno", False),
    "Agent/TCP/Sack1": ("newreno", True),
    "Agent/TCP/Vegas": ("vegas", False),
    # tcp/linux/tcp_linux.cc: cc and SACK are decided by `select_ca` (LINUX_CA below)
    "Agent/TCP/Linux": ("newreno", True),
}
# Agent/TCP/Linux (ns-2.35 tcp/linux/tcp_linux.cc, LinuxTcpAgent): without `select_ca` its
# congestion window is ns-2's own (icsk_ca_ops NULL: TcpAgent::opencwnd, and
# slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF) on a loss); `$tcp select_ca NAME` installs one
# of the Linux 2.6 modules compiled into ns-2.35 (tcp/linux/src/) and sets tcp_tick_ to
# 1 / JIFFY_RATIO = 1 ms (install_congestion_control). Its loss recovery is always its own
# SACK scoreboard (scoreboard1.cc); see docs/ns2-scripts.md, "Agent/TCP/Linux".
# Name -> the tcp table's cc and its parameters; a name listed in LINUX_CA_UNMODELLED exits 2.
LINUX_CA: dict[str | None, dict[str, Any]] = {
    None: {"cc": "newreno"},
    # tcp_reno (ns-linux-util): max(cwnd/2, 2) on a loss, +1 a new ACK in slow start,
    # +1/cwnd in congestion avoidance (snd_cwnd_cnt), as ns-2's opencwnd with windowOption_ 1
    "reno": {"cc": "newreno"},
    # tcp_cubic.c as ns-2.35 has it (`$tcp get_ca_param cubic`): beta 819/1024, bic_scale 41
    # (C = 41 x 10 / 1024 = 0.4), fast_convergence 1, tcp_friendliness 1, no HyStart
    "cubic": {"cc": "cubic", "cubic_beta": 0.8, "cubic_c": 0.4, "cubic_fast_convergence": True},
}
# The other modules ns-2.35 lists (`$tcp select_ca nosuch` prints the list).
LINUX_CA_UNMODELLED = (
    "naive_reno",
    "highspeed",
    "bic",
    "htcp",
    "scalable",
    "westwood",
    "vegas",
    "hybla",
    "illinois",
    "yeah",
    "veno",
    "compound",
    "lp",
)
TCP_SINKS = {
    "Agent/TCPSink",
    "Agent/TCPSink/DelAck",
    "Agent/TCPSink/Sack1",
    "Agent/TCPSink/Sack1/DelAck",
}
UDP_SINKS = {"Agent/Null", "Agent/LossMonitor"}
TRAFFIC = {
    "Application/Traffic/CBR",
    "Application/Traffic/Exponential",
    "Application/Traffic/Pareto",
}
QUEUE_KINDS = {"DropTail", "RED", "FQ", "DRR", "SFQ", "PI"}


def parent(cls: str) -> str | None:
    return cls.rsplit("/", 1)[0] if "/" in cls else None


def class_chain(cls: str) -> list[str]:
    out: list[str] = []
    c: str | None = cls
    while c:
        out.append(c)
        c = parent(c)
    return out


def is_a(cls: str, base: str) -> bool:
    return base in class_chain(cls)


# The ns-2 objects below are plain classes, not dataclasses: `bufferlab run script.tcl` starts
# faster without importing dataclasses (and inspect with it), the most of a small script's
# start-up. Each field's default is a class attribute; an instance assigns its own.
class Obj:
    """An ns-2 object: its handle (a Tcl command), class and instance variables."""

    line: str | None = None  # where it was created, for messages
    # The script's own class (`Class Foo`) when it made the object; `cls` is then the ns-2
    # class it extends, or "Object" for a pure OTcl class.
    ucls: str | None = None
    # A pure OTcl object keeps its variables in this Tcl namespace (`ns2::o::...`).
    ns: str | None = None
    # An ErrorModel's `ranvar` (the RandomVariable it draws from instead of the default RNG),
    # and whether that variable draws from the default RNG.
    ranvar: Obj | None = None
    ranvar_on_default: bool = True

    def __init__(
        self, handle: str, cls: str, *, ucls: str | None = None, ns: str | None = None
    ) -> None:
        self.handle = handle
        self.cls = cls
        self.vars: dict[str, str] = {}
        if ucls is not None:
            self.ucls = ucls
        if ns is not None:
            self.ns = ns

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.handle!r}, {self.cls!r})"

    @property
    def klass(self) -> str:
        """The class `$obj info class` names."""
        return self.ucls or self.cls


class Node(Obj):
    def __init__(self, handle: str, cls: str, *, id: int) -> None:
        super().__init__(handle, cls)
        self.id = id

    @property
    def name(self) -> str:
        return f"n{self.id}"


class Queue(Obj):
    limit_set: bool = False  # $ns queue-limit or $q set limit_ on this queue

    def __init__(self, handle: str, cls: str, *, kind: str) -> None:
        super().__init__(handle, cls)
        self.kind = kind
        # RED: the automatic parameters ns-2 computed when the queue got its link
        # (`red_automatic`), which its variables read from then on
        self.red_auto: dict[str, str] = {}


def reset_ssthresh(ag: Obj) -> None:
    """tcp.cc reset(), run when the agent is made and again at `$ns run`: ssthresh_ =
    int(window_), so a value the script set before the run is not the run's."""
    ag.vars["ssthresh_"] = str(int(number(ag.vars.get("window_", "20"))))


def red_automatic(q: Queue, rate: float, delay: float) -> None:
    """red.cc `initialize_params`, which ns-2 runs when a RED queue gets its link (`$q link`,
    from `duplex-link`): a threshold of 0 becomes max(5, targetdelay_ x ptc / 2) packets,
    a maxthresh_ of 0 three times that, and a q_weight_ of -1, 0 or -2 its automatic weight,
    for ptc = the link's packets of mean_pktsize_ per second. A script reads these values from
    then on (`$q set maxthresh_` before `$ns run` gives 15, not 0), and a later
    `$q set thresh_` leaves maxthresh_ as it was. The engine computes the same rules at the
    run (qdisc/red/mod.rs); the translation gives it only what differs from them."""
    v = q.vars
    ptc = rate / (8.0 * number(v["mean_pktsize_"]))
    th, mth, qw = number(v["thresh_"]), number(v["maxthresh_"]), number(v["q_weight_"])
    auto: dict[str, float] = {}
    if th == 0:
        th = auto["thresh_"] = max(5.0, time_s(v["targetdelay_"]) * ptc / 2.0)
    if mth == 0:
        auto["maxthresh_"] = 3.0 * th
    if qw == 0:
        auto["q_weight_"] = 1.0 - math.exp(-1.0 / ptc)
    elif qw == -1:
        rtt = max(3.0 * (delay + 1.0 / ptc), 0.1)
        auto["q_weight_"] = 1.0 - math.exp(-1.0 / (10.0 * rtt * ptc))
    elif qw == -2:
        auto["q_weight_"] = 1.0 - math.exp(-10.0 / ptc)
    # only the computed ones, as bound doubles print (tcl_precision 17)
    q.red_auto = {var: f"{x:.17g}" for var, x in auto.items()}
    v.update(q.red_auto)


class Link(Obj):
    """One direction of a link (ns-2 builds a duplex link from two simplex ones)."""

    loss: Obj | None = None
    loss_after: bool = False  # put by `$ns link-lossmodel` (after the link), not `lossmodel`
    monitor: QueueMonitor | None = None  # the last `$ns monitor-queue` on it (qMonitor_)

    def __init__(
        self,
        handle: str,
        cls: str,
        *,
        src: Node,
        dst: Node,
        rate: float,
        delay: float,
        queue: Queue,
        duplex: bool,
    ) -> None:
        super().__init__(handle, cls)
        self.src = src
        self.dst = dst
        self.rate = rate
        self.delay = delay
        self.queue = queue
        self.duplex = duplex
        # The channels of the link's Enque/Deque/Drop/Recv trace sets, in the order they
        # were added: the trace-all file when the link was made after `$ns trace-all`
        # (ns-2's simplex-link calls trace-queue then), then each `$ns trace-queue` /
        # `$link trace`.
        self.traces: list[str] = []


class Agent(Obj):
    node: Node | None = None
    peer: Agent | None = None
    app: App | None = None
    flow: str | None = None  # the scenario flow it became (sender and its sink)
    # Finite sends (`$ftp send`, `produce`, `producemore`, `$tcp advance`, `advanceby`):
    # ns-2's curseq_ (tcp.cc) once the script gave the agent a finite amount of data, None
    # before; `syn_counted` once the opening packet (seqno 0) added its one to it.
    curseq: int | None = None
    syn_counted: bool = False
    # tcp.cc closed_: `done` was called for the data so far (advance and advanceby reopen)
    closed: bool = False
    # The earliest `$ns at T "... send|advance|advanceby N"` scheduled before $ns run for it:
    # (T, op, N); import-ns2 makes it the flow's transfer.
    first_write: tuple[float, str, int] | None = None
    # `$tcp advance`/`advanceby`/`send` found in an event before $ns run on an agent with no
    # application: it still becomes a (held) flow.
    scripted: bool = False
    # When it was attached to its node (`$ns attach-agent`): ns-2's Node keeps its agents in
    # that order (`lappend agents_`, ns-node.tcl), and `$ns run` resets them in it.
    attach_seq: int = -1
    # A TCP sender's boot_time_ (seconds): the value TcpAgent::reset draws at `$ns run`
    # (tcp.cc), set by Interp.draw_boot_times.
    boot_time: float | None = None
    # Agent/TCP/Linux: the congestion control `$tcp select_ca NAME` installed (LINUX_CA)
    ca: str | None = None
    # `$ns detach-agent`: what reaches it is discarded (from $ns run on, if done before)
    detached: bool = False

    def __init__(self, handle: str, cls: str, *, order: int) -> None:
        super().__init__(handle, cls)
        self.order = order  # its place among the agents, in creation order


class App(Obj):
    start: float | None = None
    stop: float | None = None
    # Made by `$tcp attach-source FTP`: ns-2's Source/FTP (ns-source.tcl), whose start is
    # `advance 268435456` (which reopens `done`, tcp.cc advanceby), where Application/FTP's
    # is `send -1` (which does not).
    source: bool = False

    def __init__(
        self, handle: str, cls: str, *, agent: Agent | None = None, held: bool = False
    ) -> None:
        super().__init__(handle, cls)
        self.agent = agent
        # Not started before $ns run: its flow waits (held) for a `$app start` during the run.
        self.held = held
        # `$ns at T "$app start"` / `"$app stop"` given before $ns run: (T, order, what).
        self.times: list[tuple[float, int, str]] = []


# ns-2's trace objects (trace/trace.cc, Trace::format): the event letter each type writes.
TRACE_EVENTS = {"Enque": "+", "Deque": "-", "Drop": "d", "Recv": "r", "EDrop": "e"}


class TraceObj(Obj):
    """A trace object of `$ns create-trace TYPE $file n1 n2`: it writes its type's letter,
    the time, its own two node ids and the packet, for each packet that passes through it
    (where the script attaches it: an error model's or a queue's drop-target), then hands the
    packet to its `target`."""

    target: Obj | None = None

    def __init__(
        self, handle: str, cls: str, *, event: str, channel: str | None, src: int, dst: int
    ) -> None:
        super().__init__(handle, cls)
        self.event = event
        self.channel = channel
        self.src = src
        self.dst = dst


class QueueMonitor(Obj):
    """`$ns monitor-queue n1 n2 qtrace [sampleInterval]` (ns-lib.tcl; SimpleLink init-monitor
    keeps the file and interval on the link, for `queue-sample-timeout`)."""

    def __init__(self, handle: str, link: Link, qtrace: str, interval: str):
        super().__init__(handle, "QueueMonitor")
        self.link = link
        self.qtrace = qtrace
        self.interval = interval
        # Its two integrators (tools/integrator.cc), each [lastx_, lasty_, sum_], here while
        # the engine does not hold them (before `$ns run`, after the run's end); during the
        # run the engine keeps them (monitor/ns2_integrator.rs) under `engine_id`.
        self.integrals: dict[str, list[float]] = {
            "packets": [0.0, 0.0, 0.0],
            "bytes": [0.0, 0.0, 0.0],
        }
        self.engine_id: int | None = None


# An integrator's variables, in the order of QueueMonitor.integrals' lists.
INTEGRATOR_VARS = ("lastx_", "lasty_", "sum_")


class Integrator(Obj):
    def __init__(self, handle: str, monitor: QueueMonitor, what: str):
        super().__init__(handle, "Integrator")
        self.monitor = monitor
        self.what = what  # "packets" or "bytes"


class Network:
    """What the script built before ``$ns run``."""

    seed: int | None = None
    # `$ns trace-all $f`: its channel and file (the links made after it are traced there).
    trace_channel: str | None = None
    trace_path: str | None = None

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.links: dict[tuple[int, int], Link] = {}
        self.agents: list[Agent] = []
        # `$x drop-target $y` of error models and queues (handle -> object); an error model
        # without one (or put on a link by $ns lossmodel after it) drops into the link's
        # drop traces, as ns-2's SimpleLink errormodule makes the link's drophead its
        # drop-target.
        self.drop_targets: dict[str, Obj] = {}
        # The scenario's link name of each direction (node ids), made by to_scenario.
        self.link_names: dict[tuple[int, int], str] = {}

    def link(self, a: Node, b: Node) -> Link:
        try:
            return self.links[(a.id, b.id)]
        except KeyError:
            raise Ns2Error(f"there is no link from node {a.id} to node {b.id}") from None

    def flows(self) -> list[Agent]:
        """The sending agents that became flows, in creation order."""
        return [a for a in self.agents if a.flow is not None]

    # -- translation ----------------------------------------------------------------------

    def to_scenario(
        self,
        duration: float,
        name: str,
        warn: Callable[[str], None],
        held: bool = False,
        rng_state: list[int] | None = None,
    ) -> dict[str, Any]:
        """With `held`, an application not started before $ns run still becomes a flow, which
        the runner holds until the script starts it (`$app start` during the run).
        `rng_state`: where the script's default RNG stands at `$ns run`; RED, error models and
        CBR's `random_` go on drawing from it, as in ns-2 (`ns2_default_rng`)."""
        if not self.nodes:
            raise Ns2Error("the script creates no nodes ($ns node)")
        links: dict[str, Any] = {}
        done: set[tuple[int, int]] = set()
        for (a, b), fwd in self.links.items():
            if (a, b) in done:
                continue
            rev = self.links.get((b, a))
            if rev is None:
                raise Ns2Error(
                    f"the simplex link n{a}->n{b} has no reverse link: bufferlab's links are "
                    "duplex (both directions, same rate and delay); add the reverse simplex "
                    "link or use duplex-link"
                )
            if rev.rate != fwd.rate or rev.delay != fwd.delay:
                raise Ns2Error(
                    f"the simplex links n{a}->n{b} and n{b}->n{a} differ in rate or delay: "
                    "bufferlab's links have one rate and one delay for both directions"
                )
            done |= {(a, b), (b, a)}
            assert fwd.queue is not None and rev.queue is not None
            entry: dict[str, Any] = {
                "between": [f"n{a}", f"n{b}"],
                "rate": fmt_rate(fwd.rate),
                "delay": fmt_time(fwd.delay),
            }
            q = queue_config(fwd.queue, fwd, warn)
            rq = queue_config(rev.queue, rev, warn)
            entry["queue"] = q
            if rq != q:
                entry["reverse_queue"] = rq
            for key, way in (("loss", fwd), ("reverse_loss", rev)):
                loss = loss_config(way.loss, way.loss_after, warn) if way.loss else None
                if loss is not None:
                    entry[key] = loss
            links[f"n{a}_n{b}"] = entry
            self.link_names[(a, b)] = self.link_names[(b, a)] = f"n{a}_n{b}"
        flows = []
        index = 0
        for ag in self.agents:
            f = self._flow(ag, index, duration, warn, held)
            if f is not None:
                flows.append(f)
                index += 1
        scenario: dict[str, Any] = {
            "name": name,
            "description": f"translated from the ns-2 script {name}.tcl",
            "duration": fmt_time(duration),
        }
        if self.seed is not None:
            scenario["seed"] = self.seed
        if rng_state is not None:
            scenario["ns2_default_rng"] = {"state": list(rng_state)}
        # events of one instant in ns-2's order: its clock adds delays in double seconds
        scenario["clock"] = "ns2"
        scenario["topology"] = {"kind": "custom", "nodes": [n.name for n in self.nodes]}
        scenario["links"] = links
        scenario["flows"] = flows
        return scenario

    def _flow(
        self, ag: Agent, index: int, duration: float, warn: Callable[[str], None], held: bool
    ) -> dict[str, Any] | None:
        tcp = ag.cls in TCP_CC
        if not tcp and not is_a(ag.cls, "Agent/UDP"):
            return None  # sinks, Null
        if ag.peer is None or ag.node is None or ag.peer.node is None:
            if ag.app is not None:
                warn(f"{ag.cls} {ag.handle} is not connected ($ns connect): left out")
            return None
        app = ag.app
        if app is None and tcp and ag.scripted and held:
            # written to by the script's `$tcp advance`/`advanceby`/`send` during the run
            app = ag.app = App(ag.handle, "Application/FTP", agent=ag, held=True)
        if app is None:
            warn(f"{ag.cls} {ag.handle} has no application: left out")
            return None
        if app.start is None and held and tcp and app.cls in TRAFFIC:
            warn(
                f"{app.cls} {app.handle} over TCP is not started before $ns run: left out (a "
                "packet source over TCP starts only at its scenario start)"
            )
            return None
        transfer = None
        if app.start is None and not held:
            transfer = _static_transfer(ag)
            if transfer is None:
                warn(
                    f"{ag.cls} {ag.handle}: its application is not started before $ns run: "
                    "left out (bufferlab run starts it when a proc of the script does)"
                )
                return None
            app.start = transfer[0]
        app.held = app.start is None
        if app.start is not None and app.start >= duration:
            warn(f"{app.cls} {app.handle} starts at {app.start:g} s, after the end: left out")
            return None
        name = f"{'tcp' if tcp else 'udp'}{index}"
        ag.flow = name
        ag.peer.flow = name
        flow: dict[str, Any] = {
            "name": name,
            "src": ag.node.name,
            "dst": ag.peer.node.name,
            # a held flow is built to start at 0 and held until the script starts it
            "start": fmt_time(app.start if app.start is not None else 0.0),
        }
        if app.start is not None and round(app.start * 1e12) / 1e12 != app.start:
            # the script's double (0.1 * 7 = 0.7000000000000001), which ns-2's clock keys
            flow["ns2_start_s"] = app.start
        # ns-2's trace writes the packet's fid_: the sending agent's (default 0), which the
        # TCP sink copies into its ACKs (TCPSink::ack, tcp-sink.cc).
        fid = _fid(ag)
        if fid != index:
            flow["trace_fid"] = fid
        if app.stop is not None and app.stop < duration:
            flow["stop"] = fmt_time(app.stop)
        if transfer is not None:
            # import-ns2: the first write the script schedules, a transfer of that much
            flow["app"] = {"kind": "transfer", "size": f"{transfer[1]}B"}
        elif app.cls == "Application/FTP":
            if not tcp:
                raise Ns2Error(f"Application/FTP {app.handle} is attached to a UDP agent")
            flow["app"] = {"kind": "bulk"}
        elif app.cls in TRAFFIC:
            flow["app"] = traffic_app(app, ag)
            if tcp:
                flow["protocol"] = "tcp"
        else:
            raise Ns2Error(f"{app.cls} is not modelled (FTP, CBR, Exponential, Pareto are)")
        if tcp:
            flow["tcp"] = tcp_options(ag, warn)
        else:
            flow["header"] = "0B"  # ns-2's UDP agent adds no header to packetSize_
            # UdpAgent::sendmsg (udp.cc): a message larger than the agent's packetSize_ goes
            # out as packets of packetSize_ bytes and one of the remainder
            mtu = int(number(ag.vars.get("packetSize_", "1000"), "packetSize_"))
            if mtu <= 0:
                raise Ns2Error(f"{ag.cls} {ag.handle} packetSize_ {mtu}: must be positive")
            if int(number(app.vars["packetSize_"], "packet size")) > mtu:
                flow["max_datagram"] = f"{mtu}B"
        return flow


def _static_transfer(ag: Agent) -> tuple[float, int] | None:
    """(start, bytes) of the transfer import-ns2 writes for an agent whose application the
    script never starts but writes to by `$ns at T "$ftp send N"` (ceil(N / packetSize_)
    packets, tcp.cc sendmsg) or `producemore` / `advanceby N` (N packets); None for anything
    else (a write from a proc, `produce`, `advance`)."""
    if ag.first_write is None or ag.cls not in TCP_CC:
        return None
    t, op, n = ag.first_write
    size = int(number(ag.vars.get("packetSize_", "1000"), "packetSize_"))
    if op == "send" and n > 0:
        packets = -(-n // size)
    elif op == "advanceby" and n > 0:
        packets = n
    else:
        return None
    return t, packets * size


def _fid(ag: Agent) -> int:
    text = ag.vars.get("fid_", "0")
    try:
        fid = int(float(text))
    except ValueError:
        raise Ns2Error(f"{ag.cls} {ag.handle} fid_ {text}: not a number") from None
    if not 0 <= fid <= 2**31 - 1:
        raise Ns2Error(f"{ag.cls} {ag.handle} fid_ {text}: a flow id is 0 to 2147483647")
    return fid


def _changed(obj: Obj, var: str) -> str | None:
    """The object's value of var when it differs from ns-2's default for its class."""
    value = obj.vars.get(var)
    default = lookup_default(obj.cls, var)
    if value is None or value == default:
        return None
    try:
        if default is not None and float(value) == float(default):
            return None
    except ValueError:
        pass
    return value


def lookup_default(cls: str, var: str) -> str | None:
    for c in class_chain(cls):
        if var in NS_DEFAULTS.get(c, {}):
            return NS_DEFAULTS[c][var]
    return None


def tcp_options(ag: Agent, warn: Callable[[str], None]) -> dict[str, Any]:
    cc, sack = TCP_CC[ag.cls]
    linux = dict(LINUX_CA[ag.ca]) if ag.cls == "Agent/TCP/Linux" else {}
    cc = linux.pop("cc", cc)
    sink = ag.peer.cls if ag.peer is not None else "Agent/TCPSink"
    if sink not in TCP_SINKS:
        raise Ns2Error(f"{ag.cls} {ag.handle} is connected to a {sink}; use an Agent/TCPSink")
    sink_sack = "Sack1" in sink
    if sack != sink_sack:
        warn(
            f"{ag.cls} {ag.handle} with {sink}: SACK needs Agent/TCP/Sack1 and "
            f"Agent/TCPSink/Sack1 together; running {'with' if sack and sink_sack else 'without'}"
            " SACK"
        )
    opts: dict[str, Any] = {"preset": "ns2", "cc": cc}
    if sack and sink_sack:
        opts["sack"] = True
    opts.update(linux)
    if ag.cls == "Agent/TCP/Linux":
        warn(
            "Agent/TCP/Linux: its loss recovery (scoreboard1.cc: FACK loss marking, rate "
            "halving) is not modelled; bufferlab runs Agent/TCP/Sack1's (RFC 6675's with cubic):"
            " aggregate goodput and mean queue agree with ns-2.35, drops and per-flow shares "
            "may not (docs/ns2-scripts.md, Agent/TCP/Linux)"
        )
    for var, why in _TCP_UNMODELLED.items():
        if _changed(ag, var) is not None:
            raise Ns2Error(f"{ag.cls} {var} {ag.vars[var]}: {why}")
    for var, (key, conv) in _TCP_FIELDS.items():
        v = _changed(ag, var)
        if v is None:
            continue
        opts[key] = conv(v)
    if ag.boot_time:
        # tcp.cc rtt_update: the tick clock's phase, boot_time_ (Interp.draw_boot_times)
        opts["clock_phase"] = ag.boot_time
    if "DelAck" in sink:
        opts["delayed_ack"] = True
        assert ag.peer is not None
        interval = ag.peer.vars.get("interval_", "100ms")
        if time_s(interval) != 0.1:
            opts["delack_timeout"] = fmt_time(time_s(interval))
    return opts


def traffic_app(app: App, ag: Agent) -> dict[str, Any]:
    v = app.vars
    size = int(number(v["packetSize_"], "packet size"))
    if app.cls == "Application/Traffic/CBR":
        # a class-level interval_ does nothing in ns-2 (CBR_Traffic::init computes the
        # interval from rate_), and an instance's is made rate_ by ns-lib's CBR set
        rate = rate_bps(v["rate_"])
        if _changed(app, "maxpkts_") is not None:
            raise Ns2Error(
                'CBR maxpkts_ (stop after N packets) is not modelled; use $ns at T "$cbr stop"'
            )
        # ns-2's scheduler adds the gaps up in double seconds (cbr_traffic.cc)
        out: dict[str, Any] = {
            "kind": "cbr",
            "rate": fmt_rate(rate),
            "packet_size": f"{size}B",
            "clock": "ns2",
        }
        if boolean(v.get("random_", "0")):
            out["random"] = True
    else:
        rate = rate_bps(v["rate_"])
        on, off = time_s(v["burst_time_"]), time_s(v["idle_time_"])
        if app.cls.endswith("Exponential"):
            on_t = {"kind": "exponential", "mean": fmt_time(on)}
            off_t = {"kind": "exponential", "mean": fmt_time(off)}
        else:
            shape = number(v["shape_"], "shape")
            on_t = {"kind": "pareto", "mean": fmt_time(on), "shape": shape}
            off_t = {"kind": "pareto", "mean": fmt_time(off), "shape": shape}
        # ns-2's EXPOO / POO: bursts of whole packets drawn from the default RNG (expoo.cc,
        # pareto.cc; traffic/ns2_onoff.rs)
        out = {
            "kind": "onoff",
            "rate": fmt_rate(rate),
            "packet_size": f"{size}B",
            "on_time": on_t,
            "off_time": off_t,
            "flavour": "ns2",
        }
    return out


def queue_config(q: Queue, link: Link, warn: Callable[[str], None]) -> dict[str, Any]:
    v = q.vars
    limit = int(number(v.get("limit_", "50"), "queue limit"))
    if q.kind == "DropTail":
        if boolean(v.get("drop_front_", "false")):
            raise Ns2Error("Queue/DropTail drop_front_ true is not modelled")
        if boolean(v.get("queue_in_bytes_", "false")):
            mean = int(number(v.get("mean_pktsize_", "500")))
            return {"kind": "droptail", "limit": f"{limit * mean}B", "flavour": "ns2"}
        return {"kind": "droptail", "limit": f"{limit}p", "flavour": "ns2"}
    if q.kind == "RED":
        return red_config(q, link, limit)
    if q.kind == "FQ":
        if q.limit_set:
            warn("queue-limit on an FQ link does not reach its per-flow queues (as in ns-2)")
        per_flow = int(number(v.get("flow_limit_", "50")))
        # ns-2's own scheduler (queue/fq.cc): flows by fid_, finish times in seconds
        return {"kind": "fq", "limit": f"{per_flow}p", "flavour": "ns2", "preset": "ns2"}
    if q.kind == "DRR":
        if _changed(q, "mask_") is not None:
            warn("Queue/DRR mask_: bufferlab hashes the source node (mask_ 0)")
        return {
            "kind": "drr",
            "limit": f"{int(number(v['blimit_']))}B",
            "quantum": f"{int(number(v['quantum_']))}B",
            "buckets": int(number(v["buckets_"])),
        }
    if q.kind == "SFQ":
        # ns-2's own SFQ (sfq.cc, the `ns2` preset): its limit is maxqueue_, and the link's
        # queue-limit (limit_) is never read by it.
        return {
            "kind": "sfq",
            "preset": "ns2",
            "limit": f"{int(number(v['maxqueue_']))}p",
            "divisor": int(number(v["buckets_"])),
        }
    if q.kind == "PI":
        # queue/pi.cc, bufferlab's qdisc/pi.rs: its drop test draws from the default RNG
        in_bytes = boolean(v["queue_in_bytes_"])
        mean = int(number(v["mean_pktsize_"], "mean_pktsize_"))
        return {
            "kind": "pi",
            "limit": f"{limit * mean}B" if in_bytes else f"{limit}p",
            "qref": number(v["qref_"], "qref_"),
            "a": number(v["a_"], "a_"),
            "b": number(v["b_"], "b_"),
            "w": number(v["w_"], "w_"),
            "mean_pktsize": f"{mean}B",
            "byte_mode": boolean(v["bytes_"]),
            "queue_in_bytes": in_bytes,
            "ecn": boolean(v["setbit_"]),
        }
    raise Ns2Error(f"queue type {q.kind} is not modelled (DropTail, RED, FQ, DRR, SFQ and PI are)")


def red_config(q: Queue, link: Link, limit: int) -> dict[str, Any]:
    v = q.vars
    for var, why in (
        ("drop_tail_", "drop_tail_ false (random or front drop on overflow)"),
        ("drop_front_", "drop_front_ true"),
        ("drop_rand_", "drop_rand_ true"),
        ("cautious_", "cautious_"),
        ("feng_adaptive_", "feng_adaptive_"),
    ):
        if _changed(q, var) is not None:
            raise Ns2Error(f"Queue/RED {why} is not modelled")
    byte_mode = boolean(v["queue_in_bytes_"])
    if boolean(v["bytes_"]) != byte_mode:
        raise Ns2Error(
            "Queue/RED with bytes_ and queue_in_bytes_ different is not modelled: bufferlab's "
            "byte_mode sets both; give them the same value"
        )
    mean = int(number(v["mean_pktsize_"]))
    adaptive = boolean(v["adaptive_"])
    out: dict[str, Any] = {"kind": "ared" if adaptive else "red", "preset": "ns2"}
    out["limit"] = f"{limit * mean}B" if byte_mode else f"{limit}p"
    if not byte_mode:
        out["byte_mode"] = False
    if _changed(q, "mean_pktsize_") is not None:
        out["mean_pktsize"] = f"{mean}B"
    # What the script changed after the link was made: ns-2 keeps the rest as computed then
    # (`red_automatic`), which the engine's own automatic rules give again.
    auto = q.red_auto
    th, mth = number(v["thresh_"]), number(v["maxthresh_"])
    th_changed = v["thresh_"] != auto.get("thresh_") and th > 0
    if th_changed:
        out["min_th"] = th
    if mth > 0 and (v["maxthresh_"] != auto.get("maxthresh_") or th_changed):
        out["max_th"] = mth
    if _changed(q, "linterm_") is not None:
        out["max_p"] = 1.0 / number(v["linterm_"])
    if _changed(q, "q_weight_") is not None and v["q_weight_"] != auto.get("q_weight_"):
        out["q_weight"] = number(v["q_weight_"])
    for var, key in (
        ("wait_", "wait"),
        ("gentle_", "gentle"),
        ("setbit_", "ecn"),
        ("use_mark_p_", "use_mark_p"),
    ):
        if _changed(q, var) is not None:
            out[key] = boolean(v[var])
    if _changed(q, "mark_p_") is not None:
        out["mark_p"] = number(v["mark_p_"])
    if _changed(q, "targetdelay_") is not None:
        out["target_delay"] = fmt_time(time_s(v["targetdelay_"]))
    if adaptive:
        for var, key in (
            ("alpha_", "alpha"),
            ("beta_", "beta"),
            ("top_", "top"),
            ("bottom_", "bottom"),
        ):
            if _changed(q, var) is not None:
                out[key] = number(v[var])
        if _changed(q, "interval_") is not None:
            out["interval"] = fmt_time(time_s(v["interval_"]))
    out["link_delay"] = fmt_time(link.delay)
    return out


def loss_config(em: Obj, after_link: bool, warn: Callable[[str], None]) -> dict[str, Any] | None:
    """errmodel.cc CorruptPkt: a packet is lost when `u < rate_`, u the ranvar's value or the
    default RNG's next (`Random::uniform()`); a disabled model (`enable_ 0`) draws nothing.
    `$ns lossmodel` puts it at the link's head, before the queue (SimpleLink errormodule);
    `$ns link-lossmodel` after the link's delay, where it decides as the packet arrives
    (SimpleLink insert-linkloss)."""
    unit = em.vars.get("unit_", "pkt")
    if unit not in ("pkt", "packet", "pkts"):
        raise Ns2Error(f"ErrorModel unit {unit}: only packet units (unit pkt) are modelled")
    rv = em.ranvar
    if rv is not None:
        bounds = (number(rv.vars.get("min_", "0")), number(rv.vars.get("max_", "1")))
        if rv.cls != "RandomVariable/Uniform" or bounds != (0.0, 1.0):
            raise Ns2Error(
                f"ErrorModel ranvar {rv.cls}: only a RandomVariable/Uniform from 0 to 1 is "
                "modelled (the loss rate is then rate_); drop the ranvar line"
            )
        if not em.ranvar_on_default:
            warn(
                f"ErrorModel {em.handle}: its ranvar draws from an RNG of its own; bufferlab "
                "draws from the default RNG (the same loss rate, other packets lost)"
            )
    if not boolean(em.vars.get("enable_", "1")):
        return None
    return {
        "kind": "bernoulli",
        "rate": number(em.vars.get("rate_", "0")),
        "position": "after_link" if after_link else "before_queue",
    }
