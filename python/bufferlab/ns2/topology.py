"""Nodes and links of an ns-2 script (ns-lib.tcl `node`, `duplex-link`, `simplex-link`,
`queue-limit`, `link`; ns-link.tcl's SimpleLink): the nodes, the link of each direction with
its queue, and what a link's own methods do; `$ns lossmodel` (ns-lib.tcl) puts an error model
on a link (the error models themselves are errmodel.py's).
"""

from __future__ import annotations

from bufferlab.ns2.classes import QUEUE_KINDS
from bufferlab.ns2.delayer import delay_link_default
from bufferlab.ns2.errors import Ns2Error, TclScriptError
from bufferlab.ns2.model import Link, Node, Queue, red_automatic
from bufferlab.ns2.units import number, rate_bps, time_s

# typing is imported for type checkers only (docs/performance.md, "ns-2 scripts: start-up").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import ClassVar

_IGNORED_NODE = {"color", "shape", "label", "label-color", "label-at", "add-mark", "delete-mark"}


class Topology:
    """The topology part of Interp (interp.py), a mixin of it."""

    # `$ns NAME` -> the method that answers it (simulator.py sim_method)
    SIM_COMMANDS: ClassVar[dict[str, str]] = {
        "node": "sim_node",
        "duplex-link": "sim_link",
        "simplex-link": "sim_link",
        "queue-limit": "sim_queue_limit",
        "delay": "sim_delay",
        "bandwidth": "sim_bandwidth",
        "link": "sim_link_of",
        "lossmodel": "sim_lossmodel",
        "link-lossmodel": "sim_lossmodel",
        "rtproto": "sim_rtproto",
    }

    def node(self, h: str) -> Node:
        obj = self.objects.get(h)
        if not isinstance(obj, Node):
            raise Ns2Error(f"{h} is not a node")
        return obj

    def node_method(self, n: Node, m: str, a: list[str]) -> str:
        if m in ("id", "node-addr", "address?"):
            return str(n.id)
        if m == "neighbors" and not a:  # ns-node.tcl: `return [lsort $neighbor_]`
            order = self.tcl.call("lsort", tuple(x.handle for x in n.neighbors))
            return self.tcl_list(*[str(h) for h in self.tcl.splitlist(order)])
        if m == "attach":
            self._attach(self.agent(a[0]), n)
            return ""
        if m == "agent" and len(a) == 1:
            # ns-node.tcl `Node instproc agent port`: the agent at that port, else ""
            for ag in self.net.agents:
                if ag.node is n and str(self.agent_port(ag)) == a[0]:
                    return ag.handle
            return ""
        if m == "detach":
            # ns-node.tcl `Node instproc detach { agent nullagent }`: the agent's port hands
            # what arrives to the null agent; `$ns detach-agent` is this with $nullAgent_
            if len(a) != 2:
                raise TclScriptError(
                    f'{n.handle} detach: wrong # args: should be "{n.handle} detach agent '
                    'nullagent"'
                )
            return self.sim_detach_agent("detach-agent", [n.handle, a[0]])  # type: ignore[attr-defined]
        if m in _IGNORED_NODE:
            return ""
        raise Ns2Error(f"Node method `{m}` is not modelled")

    def sim_node(self, m: str, a: list[str]) -> str:
        net = self.net
        if a:
            raise Ns2Error("$ns node with arguments (hierarchical or wireless) is not modelled")
        n = Node(self._handle(), "Node", id=len(net.nodes))
        net.nodes.append(n)
        self._register(n)
        return n.handle

    def sim_link(self, m: str, a: list[str]) -> str:
        net = self.net
        if len(a) < 5:
            raise Ns2Error(f"usage: $ns {m} n1 n2 bandwidth delay queue-type")
        if self.runner is not None:
            self._not_while_running(f"$ns {m}")
        n1, n2 = self.node(a[0]), self.node(a[1])
        qtype = a[4]
        if qtype == "CBQ" or qtype.startswith("CBQ/"):
            raise Ns2Error(
                f"queue type {qtype} (class-based queueing, Floyd and Jacobson 1995) is not "
                "modelled: its link sharing (classes borrowing a parent's unused bandwidth) is "
                "not; give the link DropTail, RED, DRR or SFQ"
            )
        if qtype not in QUEUE_KINDS:
            raise Ns2Error(
                f"queue type {qtype} is not modelled (DropTail, RED, RED/RIO, FQ, DRR, SFQ, PI "
                "and REM are); see docs/ns2-scripts.md"
            )
        if len(a) > 5:
            raise Ns2Error(f"$ns {m} with extra arguments {a[5:]} is not modelled")
        rate, delay = rate_bps(a[2]), time_s(a[3])
        ends = [(n1, n2), (n2, n1)] if m == "duplex-link" else [(n1, n2)]
        for s, d in ends:
            # a second link between the same two nodes takes the first's place in ns-lib.tcl's
            # link_ array (simplex-link: `set link_($sid:$did) [new $linkType ...]`), from
            # which the routes are computed: the first one carries nothing from then on, and
            # what the script set on it stays on it (checked with `ns`)
            q = Queue(self._handle(), f"Queue/{qtype}", kind=qtype)
            self.init_vars(q)
            if qtype == "RED":
                red_automatic(q, rate, delay)
            self._register(q)
            link = Link(
                self._handle(),
                "SimpleLink",  # ns-lib.tcl: `new $linkType` with linkType_ SimpleLink
                src=s,
                dst=d,
                rate=rate,
                delay=delay,
                queue=q,
                duplex=m == "duplex-link",
            )
            link.avoid_reordering = delay_link_default(self)
            if net.trace_channel is not None:  # simplex-link: trace-queue n1 n2 $traceall
                link.traces.append(net.trace_channel)
                self.trace_made(f"the trace of link {s.id}->{d.id}")
            self._register(link)
            net.links[(s.id, d.id)] = link
            s.neighbors.append(d)  # ns-lib.tcl simplex-link: `$n1 add-neighbor $n2`
        # simplex-link's last command leaves the link's handle as its result (checked with
        # `ns`: `[$ns simplex-link ...] == [$ns link $n1 $n2]`); duplex-link returns nothing
        return link.handle if m == "simplex-link" else ""

    def fq_flow_queues(self) -> None:
        """At `$ns run`: ns-queue.tcl's FQLink makes each flow's queue (`new-flow`, when the
        flow's first packet comes) a `new Queue/$queueManagement_`, so its limit_ is the class
        default then, not when the link was made (test-suite-schedule.tcl fq_small_queue sets
        `Queue set limit_ 12` after its topology)."""
        manage = self.default("FQLink", "queueManagement_") or "DropTail"
        for q in self.objects.values():
            if not isinstance(q, Queue) or q.kind != "FQ":
                continue
            if manage != "DropTail":
                raise Ns2Error(
                    f"FQLink queueManagement_ {manage}: per-flow queues other than DropTail "
                    "are not modelled"
                )
            q.vars["flow_limit_"] = self.default("Queue/DropTail", "limit_") or "50"

    def sim_queue_limit(self, m: str, a: list[str]) -> str:
        net = self.net
        if len(a) != 3:
            raise Ns2Error("usage: $ns queue-limit n1 n2 limit")
        link = net.link(self.node(a[0]), self.node(a[1]))
        q = link.queue
        assert q is not None
        limit = int(number(a[2], "queue limit"))
        if self.runner is not None:  # from now on (DropTail::enque reads qlim_ per arrival)
            self._change_link(link, "limit", limit, "$ns queue-limit")
        q.vars["limit_"] = str(limit)
        q.limit_set = True
        return ""

    def sim_delay(self, m: str, a: list[str]) -> str:
        """ns-lib.tcl `$ns delay n1 n2 delay ?type?`: the link n1->n2 (and n2->n1 when type
        is duplex) gets that propagation delay (`$link set delay_`); a direction with no
        link is left alone."""
        if len(a) not in (3, 4):
            raise TclScriptError('wrong # args: should be "$ns delay n1 n2 delay ?type?"')
        return self._set_links(a, "delay", time_s(a[2]))

    def sim_bandwidth(self, m: str, a: list[str]) -> str:
        """ns-lib.tcl `$ns bandwidth n1 n2 bw ?type?`: the link n1->n2 (and n2->n1 when type
        is duplex) gets that rate (`$link set bandwidth_`, bind_bw); a direction with no link
        is left alone."""
        if len(a) not in (3, 4):
            raise TclScriptError('wrong # args: should be "$ns bandwidth n1 n2 bw ?type?"')
        return self._set_links(a, "rate", rate_bps(a[2]))

    def _set_links(self, a: list[str], what: str, value: float) -> str:
        """`$ns delay` / `$ns bandwidth`: before the run the links' own value, during it the
        engine's (what the link sends from now on: delay.cc LinkDelay::recv reads delay_ and
        bandwidth_ as each packet starts)."""
        n1, n2 = self.node(a[0]), self.node(a[1])
        ends = [(n1, n2), (n2, n1)] if len(a) == 4 and a[3] == "duplex" else [(n1, n2)]
        for s, d in ends:
            link = self.net.links.get((s.id, d.id))
            if link is None:
                continue
            if self.runner is not None:
                said = "$ns bandwidth" if what == "rate" else "$ns delay"
                self._change_link(link, what, value, said)
            if what == "rate":
                link.rate = value
            else:
                link.delay = value
        return ""

    def _change_link(self, link: Link, what: str, value: float, said: str) -> None:
        """A link direction changes while the run goes on: the engine's port from now on."""
        runner = self.runner
        name = self.net.link_names.get((link.src.id, link.dst.id))
        if name is None or runner.session is None:
            raise Ns2Error(f"{said} {link.src.id} {link.dst.id}: the engine has no such link")
        try:
            runner.session.set_link(name, link.src.name, link.dst.name, what, value)
        except Exception as e:  # ScenarioError: what the engine cannot change
            raise Ns2Error(f"{said} during the run: {e}; not modelled") from None

    def sim_link_of(self, m: str, a: list[str]) -> str:
        net = self.net
        return net.link(self.node(a[0]), self.node(a[1])).handle

    def sim_lossmodel(self, m: str, a: list[str]) -> str:
        net = self.net
        em = self.objects.get(a[0]) if a else None
        if em is None or not em.cls.startswith("ErrorModel") or len(a) != 3:
            raise Ns2Error(f"usage: $ns {m} $errormodel n1 n2")
        link = net.link(self.node(a[1]), self.node(a[2]))
        if m == "lossmodel":  # ns-lib.tcl: `$link errormodule $lossobj`
            return self.link_errormodule(link, [em.handle])  # type: ignore[attr-defined]
        if self.runner is not None:
            self._not_while_running(f"$ns {m}")
        if link.loss is not None:
            raise Ns2Error(
                f"a second error model on link {link.src.id}->{link.dst.id} is not modelled"
            )
        link.loss, link.loss_after = em, True
        # SimpleLink insert-linkloss: the link's drophead becomes its drop-target
        net.drop_targets.pop(em.handle, None)
        return ""

    def sim_rtproto(self, m: str, a: list[str]) -> str:
        if a and a[0] not in ("Static",):
            raise Ns2Error(f"rtproto {a[0]}: only static routing is modelled")
        return ""

    def link_method(self, link: Link, method: str, args: list[str]) -> str:
        """A link's own methods (ns-link.tcl SimpleLink)."""
        if method == "queue":
            assert link.queue is not None
            return link.queue.handle
        if method in ("src", "dst") and not args:  # ns-link.tcl Link: fromNode_, toNode_
            return (link.src if method == "src" else link.dst).handle
        if method == "trace-dynamics":
            return self._trace_dynamics(link, args)
        if method == "errormodule":
            return self.link_errormodule(link, args)  # type: ignore[attr-defined]
        if method == "insert-delayer":
            return self.link_insert_delayer(link, args)  # type: ignore[attr-defined]
        if method == "install-error":
            raise Ns2Error("link install-error: use $link errormodule $em")
        if method in ("queue-sample-timeout", "sample-queue-size") and not args:
            return self._queue_sample(link, method)
        if method == "start-tracing":
            raise Ns2Error(
                "link start-tracing (the queue monitor's per-packet `q` lines) is not "
                "written; use queue-sample-timeout or a proc that reads the monitor"
            )
        if method == "trace" and len(args) in (2, 3) and self.objects.get(args[0]) is self.sim:
            if len(args) == 3 and args[2]:
                raise Ns2Error(f"$link trace with op {args[2]}: nam traces are not written")
            return self._trace_link(link, args[1])
        raise Ns2Error(f"{link.cls} method `{method}` is not modelled")

    def _trace_dynamics(self, link: Link, args: list[str]) -> str:
        """ns-link.tcl's SimpleLink trace-dynamics {ns f op}: a Generic trace of the link's
        up and down events, and the link's drophead made the target of the packets a failing
        link drops in transit (transit-drop-trace, linkfail-drop-trace). Link failures are
        not modelled (rtmodel exits 2), so neither ever writes a line (checked with `ns`)."""
        if len(args) not in (2, 3):
            raise TclScriptError('wrong # args: should be "$link trace-dynamics ns f ?op?"')
        if len(args) == 3 and args[2]:
            raise Ns2Error(f"$link trace-dynamics with op {args[2]}: nam traces are not written")
        return ""
