"""The network an ns-2 script describes: nodes, links, queues, agents, applications, error
models, trace objects, queue monitors and RNGs, as the script's commands build them before
``$ns run`` (their translation to a bufferlab scenario is scenario.py's).
"""

from __future__ import annotations

import math

from bufferlab.ns2.errors import Ns2Error
from bufferlab.ns2.units import number, time_s

# typing is imported for type checkers only (TYPE_CHECKING = False is their constant too):
# it is 2-4 ms of the command's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from bufferlab.ns2.rng import Stream


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
    # An ErrorModel/List's `droplist` (sorted packet numbers or byte counts; errmodel.py).
    droplist: list[int] | None = None

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
        # ns-node.tcl's neighbor_: the far node of each link made from it (add-neighbor), in
        # order, a node once per link
        self.neighbors: list[Node] = []
        # ns-node.tcl alloc-port: the agents attached to it get ports 0, 1, ... in attach order
        self.ports_given = 0

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
        # the q_weight_ code (0, -1, -2) red_automatic computed its weight from, if any
        self.q_weight_code: float | None = None


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
    if qw in (0, -1, -2):
        q.q_weight_code = qw
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
    # error modules packets meet after `loss` (a second `$link errormodule` goes in front)
    loss_chain: list[Obj]
    delayer: Obj | None = None  # `insert-delayer` (delayer.py)
    avoid_reordering: bool = False  # DelayLink's avoidReordering_ when it was made
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
        self.loss_chain = []
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
    # Its port on its node (ns-node.tcl alloc-port at attach; ns-2's agent_port_ 0 before)
    port: int = 0
    # A FullTcp agent's `$agent listen` (tcp-full.cc listen): the passive end
    listening: bool = False

    def __init__(self, handle: str, cls: str, *, order: int) -> None:
        super().__init__(handle, cls)
        self.order = order  # its place among the agents, in creation order


class App(Obj):
    start: float | None = None
    # The place of its first `$ns at T "$app start"` among the script's events (ns-2 runs
    # the events of one instant in that order).
    start_seq: int | None = None
    stop: float | None = None
    # Made by `$tcp attach-source FTP`: ns-2's Source/FTP (ns-source.tcl), whose start is
    # `advance 268435456` (which reopens `done`, tcp.cc advanceby), where Application/FTP's
    # is `send -1` (which does not).
    source: bool = False
    # Application/Telnet (telnet.py): telnet.cc's running_, and whether its timer is pending.
    telnet_running: bool = False
    telnet_pending: bool = False
    # Its timer runs in the engine (telnet.engine_runs), not in the script's loop.
    telnet_engine: bool = False

    def __init__(
        self, handle: str, cls: str, *, agent: Agent | None = None, held: bool = False
    ) -> None:
        super().__init__(handle, cls)
        self.agent = agent
        # Not started before $ns run: its flow waits (held) for a `$app start` during the run.
        self.held = held
        # `$ns at T "$app start"` / `"$app stop"` given before $ns run: (T, order, what).
        self.times: list[tuple[float, int, str]] = []


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


class Integrator(Obj):
    def __init__(self, handle: str, monitor: QueueMonitor, what: str):
        super().__init__(handle, "Integrator")
        self.monitor = monitor
        self.what = what  # "packets" or "bytes"


class Rng(Obj):
    """An ns-2 RNG: one MRG32k3a stream of the script's package (rng.py)."""

    def __init__(self, handle: str, stream: Stream):
        super().__init__(handle, "RNG")
        self.stream = stream


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
        # Trace's class variables each link trace took when ns-2 would make it (trace-queue, a
        # link made after trace-all): (what, show_tcphdr_, callback_)
        self.trace_vars: list[tuple[str, str, str]] = []
        # The scenario's link name of each direction (node ids), made by to_scenario.
        self.link_names: dict[tuple[int, int], str] = {}

    def link(self, a: Node, b: Node) -> Link:
        try:
            return self.links[(a.id, b.id)]
        except KeyError:
            raise Ns2Error(f"there is no link from node {a.id} to node {b.id}") from None

    def links_by_key(self) -> dict[str, Link]:
        """The links as ns-lib.tcl's `link_` array holds them: `$sid:$did` -> link."""
        return {f"{s}:{d}": link for (s, d), link in self.links.items()}

    def flows(self) -> list[Agent]:
        """The sending agents that became flows, in creation order."""
        return [a for a in self.agents if a.flow is not None]


class FlowMon(Obj):
    """`$ns makeflowmon Fid` (ns-lib.tcl: a QueueMonitor/ED/Flowmon with a Classifier/Hash/Fid),
    put on a link's queue by `$ns attach-fmon $link $fm ?edrop?`; counted by the engine during
    the run (monitor/ns2_flowmon.rs) under `engine_id`."""

    def __init__(self, handle: str):
        super().__init__(handle, "QueueMonitor/ED/Flowmon")
        self.link: Link | None = None
        self.early = False
        self.channel: str | None = None  # `$fm attach $chan`: where `$fm dump` writes
        self.engine_id: tuple[int, int] | None = None
        self.flows: dict[int, FlowDesc] = {}  # fid -> its record's object
        # the counters as the run left them (read after its end)
        self.final: tuple[list[int], list[tuple]] | None = None


class FlowDesc(Obj):
    """One flow of a flow monitor (QueueMonitor/ED/Flow, made by the classifier's
    `unknown-flow` when the flow's first packet arrives)."""

    def __init__(self, handle: str, monitor: FlowMon, fid: int):
        super().__init__(handle, "QueueMonitor/ED/Flow")
        self.monitor = monitor
        self.fid = fid
