"""Agents of an ns-2 script (ns-agent.tcl, ns-lib.tcl `attach-agent`, `connect`,
`detach-agent`): TCP senders and sinks, UDP and its sinks, attached to nodes and connected in
pairs; their methods (tcp.cc's `send`/`advance`/`advanceby`, tcp_linux.cc's `select_ca`,
variable traces) and the null agent (`$ns set nullAgent_`).
"""

from __future__ import annotations

from bufferlab.ns2.classes import (
    LINUX_CA,
    LINUX_CA_UNMODELLED,
    TCP_CC,
    TCP_SINKS,
    UDP_SINKS,
    VAR_TRACES,
    is_a,
)
from bufferlab.ns2.errors import EvalInCaller, Ns2Error, TclScriptError
from bufferlab.ns2.fulltcp import check_full_pair, is_full_tcp
from bufferlab.ns2.model import Agent, App, Node, reset_ssthresh
from bufferlab.ns2.scan import integer_end, is_word, skip_space
from bufferlab.ns2.units import time_s

# Data written into a one-way TCP agent (tcp.cc command: send -> sendmsg, advance, advanceby)
# and FTP's procs that call them (ns-source.tcl; Application::send, app.cc).
_DATA_OPS = ("send", "advance", "advanceby")

_ATTACHED = {"FTP": "Application/FTP", "Telnet": "Application/Telnet"}

APP_DATA_OPS = {"send": "send", "produce": "advance", "producemore": "advanceby"}

_SCRIPTED_OPS = frozenset(("send", "advance", "advanceby", "produce", "producemore"))

# typing is imported for type checkers only (docs/performance.md, "ns-2 scripts: start-up").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import ClassVar


# ns-lib.tcl's Simulator instprocs that make a pair of agents (ns-2.35's, printed with
# `Simulator info instbody create-connection` under `ns`): each runs in a frame of its own
# (`apply`), so a script's own init procs and errors behave as under ns-2.
_PAIR = """
set s_agent [new Agent/$s_type]
set d_agent [new Agent/$d_type]
$s_agent set fid_ $pktClass
$d_agent set fid_ $pktClass
$self attach-agent $source $s_agent
$self attach-agent $dest $d_agent
"""
_CONNECTION_PROCS = {
    "create-connection": _PAIR + "$self connect $s_agent $d_agent\nreturn $s_agent",
    "create-connection-list": _PAIR
    + "$self connect $s_agent $d_agent\nreturn [list $s_agent $d_agent]",
    "create-connection-listen": _PAIR
    + "$self connect $s_agent $d_agent\n$d_agent listen\nreturn $s_agent",
    "create-tcp-connection": _PAIR + 'return "$s_agent $d_agent"',
}


def _atoi(text: str) -> int:
    """C's atoi, as tcp.cc and app.cc read their argument: the leading integer, else 0."""
    s = str(text)
    i = skip_space(s)
    j = integer_end(s, i)
    return int(s[i:j]) if j >= 0 else 0


def scripted_writes(script: str) -> list[tuple[str, str, str | None]]:
    """The data writes an event's script makes, (handle, op, count or None): what
    ``re.finditer(r"(?<![\\w$])(_o\\d+)\\s+(OP)(?![\\w-])(?:\\s+(-?\\d+))?", script)`` finds
    for OP one of _SCRIPTED_OPS (tests/test_ns2_scan.py)."""
    out = []
    n = len(script)
    i = script.find("_o")
    while i >= 0:
        end = i + 1  # where to look again if nothing matches here
        before = script[i - 1] if i > 0 else ""
        if not (before and (is_word(before) or before == "$")):
            h = i + 2
            while h < n and script[h].isdecimal():
                h += 1
            o = skip_space(script, h)
            if h > i + 2 and o > h:
                e = o
                while e < n and (is_word(script[e]) or script[e] == "-"):
                    e += 1
                if script[o:e] in _SCRIPTED_OPS:
                    count = None
                    end = e
                    c = skip_space(script, e)
                    if c > e:
                        d = c + 1 if c < n and script[c] == "-" else c
                        k = d
                        while k < n and script[k].isdecimal():
                            k += 1
                        if k > d:
                            count, end = script[c:k], k
                    out.append((script[i:h], script[o:e], count))
        i = script.find("_o", end)
    return out


class Agents:
    """The agents part of Interp (interp.py), a mixin of it."""

    # `$ns NAME` -> the method that answers it (simulator.py sim_method)
    SIM_COMMANDS: ClassVar[dict[str, str]] = {
        "attach-agent": "sim_attach_agent",
        "connect": "sim_connect",
        "detach-agent": "sim_detach_agent",
        "set": "sim_set",
        "array": "sim_array",
        **{name: "sim_create_connection" for name in _CONNECTION_PROCS},
    }

    def sim_create_connection(self, m: str, a: list[str]) -> str:
        """`$ns create-connection TCP $n0 TCPSink $n1 $fid` and its kin (ns-lib.tcl)."""
        if len(a) != 5:
            raise TclScriptError(
                f'wrong # args: should be "$ns {m} s_type source d_type dest pktClass"'
            )
        assert self.sim is not None
        params = "self s_type source d_type dest pktClass"
        fn = self.tcl_list(params, _CONNECTION_PROCS[m])
        raise EvalInCaller(self.tcl_list("apply", fn, self.sim.handle, *a))

    def agent(self, h: str) -> Agent:
        obj = self.objects.get(h)
        if not isinstance(obj, Agent):
            raise Ns2Error(f"{h} is not an agent")
        return obj

    def check_pair(self, s: Agent, d: Agent) -> None:
        if is_full_tcp(s.cls) or is_full_tcp(d.cls):
            return check_full_pair(s, d)
        if s.cls in TCP_CC and d.cls not in TCP_SINKS:
            raise Ns2Error(f"{s.cls} must be connected to an Agent/TCPSink, not {d.cls}")
        # a UDP agent receives as a Null does (udp.cc UdpAgent::recv hands the packet to an
        # attached application, if any, and frees it), and may send back over the same pair
        if is_a(s.cls, "Agent/UDP") and d.cls not in UDP_SINKS and not is_a(d.cls, "Agent/UDP"):
            raise Ns2Error(
                f"Agent/UDP must be connected to an Agent/Null or LossMonitor, not {d.cls}"
            )
        if s.cls not in TCP_CC and not is_a(s.cls, "Agent/UDP"):
            if d.cls in TCP_CC or is_a(d.cls, "Agent/UDP"):
                self.check_pair(d, s)
            else:
                raise Ns2Error(f"connecting {s.cls} to {d.cls} is not modelled")

    def _attach(self, ag: Agent, n: Node) -> None:
        ag.node = n
        ag.port, n.ports_given = n.ports_given, n.ports_given + 1
        self._attach_seq += 1
        ag.attach_seq = self._attach_seq

    def agent_method(self, ag: Agent, m: str, a: list[str]) -> str:
        if m in ("attach-app", "attach-source", "attach-traffic"):
            # ns-lib.tcl attach-app: `new Application/$s_type`
            cls = _ATTACHED.get(a[0], a[0]) if a else ""
            if m == "attach-traffic":
                app = self.objects.get(a[0])
                if not isinstance(app, App):
                    raise Ns2Error("attach-traffic takes an application")
            else:
                telnet = m == "attach-app" and cls == "Application/Telnet"
                if cls != "Application/FTP" and not telnet:
                    what = a[0] if a else ""
                    raise Ns2Error(f"{m} {what}: only FTP and Telnet are modelled here")
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
            # tcp.cc TcpAgent::traceVar writes the value as the trace is set up only to a
            # channel already attached (`if (!channel_) return;`): `trace` before `attach`
            # writes the changes only
            attached = ag.handle in self.var_channels
            self.var_traces.append((ag, a[0], attached))
            if self.runner is not None:
                self.runner.start_var_trace(ag, a[0], attached)
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
        if m == "listen" and is_full_tcp(ag.cls) and not a:
            if self.runner is not None:
                raise Ns2Error(
                    "$agent listen during the run is not modelled: call it before $ns run"
                )
            ag.listening = True  # tcp-full.cc listen(): the passive end
            return ""
        if m == "reset" and not a and (ag.cls in TCP_CC or ag.cls in TCP_SINKS):
            return self.reset_agent(ag)
        if m in ("port", "dst-port") and not a:
            # ns-node.tcl attach: agent_port_ from the node's port classifier (alloc-port,
            # the first free slot: 0, 1, ... as agents are attached); dst-port the peer's
            who = ag if m == "port" else ag.peer
            return str(self.agent_port(who)) if who is not None else "-1"
        if m == "addr":
            return str(ag.node.id if ag.node else -1)
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

    def agent_port(self, ag: Agent) -> int:
        """The agent's port on its node, given at attach: the node's next (ns-node.tcl
        `attach`, Classifier/Port `alloc-port`: 0, 1, ... in attach order); -1 unattached."""
        return -1 if ag.node is None else ag.port

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

    def reset_agent(self, ag: Agent) -> str:
        """`$tcp reset` / `$sink reset` (tcp.cc `TcpAgent::reset`, tcp-sink.cc
        `TcpSink::reset`): a TCP sender draws a new `boot_time_ = Random::uniform(tcp_tick_)`
        from the default RNG and goes back to ssthresh_ = window_ (its other state is the
        engine's, reset during the run by the runner); before `$ns run` that is all, as `$ns
        run` resets every agent again."""
        if ag.cls in TCP_CC:
            tick = time_s(ag.vars.get("tcpTick_", "0.01"))
            boot = tick * self.default_rng.stream.u01()
            reset_ssthresh(ag)
        else:
            boot = None
        if self.runner is not None:
            self.runner.reset_event(ag, boot)
        return ""

    def mark_scripted_agents(self) -> None:
        """Agents that events scheduled before $ns run write to (`$ns at 1 "$tcp advance 10"`,
        `"$ftp send 1000"`): one with no application becomes a flow too, and the starts and
        stops of an application given data so stay events (a send may come before them)."""
        for t, _, script in self.events:
            for handle, op, count in scripted_writes(script):
                obj = self.objects.get(handle)
                if isinstance(obj, App) and op in APP_DATA_OPS:
                    obj, op = obj.agent, APP_DATA_OPS[op]
                if isinstance(obj, Agent) and obj.cls in TCP_CC:
                    obj.scripted = True
                    # the first write an event gives it (import-ns2's static transfer)
                    first = obj.first_write
                    if count is not None and (first is None or t < first[0]):
                        obj.first_write = (t, op, int(count))

    def sim_attach_agent(self, m: str, a: list[str]) -> str:
        n, ag = self.node(a[0]), self.agent(a[1])
        if self.runner is not None:
            self._not_while_running("$ns attach-agent")
        self._attach(ag, n)
        return ""

    def sim_connect(self, m: str, a: list[str]) -> str:
        s, d = self.agent(a[0]), self.agent(a[1])
        if self.runner is not None:
            self._not_while_running("$ns connect")
        self.check_pair(s, d)
        s.peer, d.peer = d, s
        return ""

    def sim_detach_agent(self, m: str, a: list[str]) -> str:
        if len(a) != 2:
            raise Ns2Error("usage: $ns detach-agent $node $agent")
        node, ag = self.node(a[0]), self.agent(a[1])
        if ag.node is not node:
            raise Ns2Error(f"detach-agent: {ag.handle} is not attached to node {node.id}")
        ag.detached = True
        if self.runner is not None:
            self.runner.detach(ag)
        return ""

    def sim_set(self, m: str, a: list[str]) -> str:
        if a == ["nullAgent_"]:
            if self.null_agent is None:
                self.null_agent = self.agent(self.new("Agent/Null", []))
            return self.null_agent.handle
        if len(a) == 1 and a[0].startswith("link_(") and a[0].endswith(")"):
            # ns-lib.tcl keeps each link in `link_($sid:$did)`
            link = self.net.links_by_key().get(a[0][len("link_(") : -1])
            if link is None:
                raise TclScriptError(f'can\'t read "{a[0]}": no such element in array')
            return link.handle
        if a == ["link_"]:
            raise TclScriptError('can\'t read "link_": variable is array')
        raise Ns2Error(f"Simulator variable {a[0] if a else ''} is not modelled")

    def sim_array(self, m: str, a: list[str]) -> str:
        """`$ns array names link_` / `exists` / `size` / `get` (OTcl's `array` on the
        simulator's instance variables): its one array a script reads, link_."""
        if len(a) < 2 or a[1] != "link_":
            raise Ns2Error(f"$ns array {' '.join(a)}: only the link_ array is modelled")
        links = self.net.links_by_key()
        op = a[0]
        if op == "exists":
            return "1"
        if op == "size":
            return str(len(links))
        if op in ("names", "get") and len(a) == 2:
            # in the order of a Tcl array of those keys (Tcl's hash order, as ns-2's)
            pairs = self.tcl_list(*(x for k, link in links.items() for x in (k, link.handle)))
            got = self.tcl.call("apply", f"p {{array set a $p; array {op} a}}", pairs)
            return self.tcl_list(*(str(x) for x in self.tcl.splitlist(got)))
        raise Ns2Error(f"$ns array {op} link_ {' '.join(a[2:])} is not modelled")
