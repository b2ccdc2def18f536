"""The translation of the network an ns-2 script built (model.py) to a bufferlab scenario (a
dict of the scenario format).

Every ns-2 variable the translation reads is listed here with the scenario field it becomes;
a variable left at its ns-2 default (classes.py, ``NS_DEFAULTS``) is left out of the scenario,
where the ``ns2`` presets give the same value.
"""

from __future__ import annotations

from collections.abc import Callable

from bufferlab.ns2 import telnet
from bufferlab.ns2.agent_knobs import knob_fields
from bufferlab.ns2.classes import (
    AIMD_AGENTS,
    FULL_TCP,
    LABELS,
    LINUX_CA,
    NS_DEFAULTS,
    TCP_CC,
    TCP_SINKS,
    TCP_STATE,
    TRAFFIC,
    class_chain,
    is_a,
    ns2_agent_default,
)
from bufferlab.ns2.cwv import CWV_FIELDS
from bufferlab.ns2.errmodel import loss_config
from bufferlab.ns2.errors import Ns2Error
from bufferlab.ns2.fulltcp import full_tcp_options
from bufferlab.ns2.model import App, Link, Obj, Queue
from bufferlab.ns2.recovery_knobs import recovery_knobs, sink_knobs
from bufferlab.ns2.units import (
    boolean,
    fmt_rate,
    fmt_time,
    number,
    rate_bps,
    same_value,
    time_s,
)

# typing is imported for type checkers only (TYPE_CHECKING = False is their constant too):
# it is 2-4 ms of the command's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from bufferlab.ns2.model import Agent, Network


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
    # tcp.cc output adds headersize() to data packets only when useHeaders_ is true
    "useHeaders_": ("use_headers", boolean),
    "v_alpha_": ("vegas_alpha", number),
    "v_beta_": ("vegas_beta", number),
    "v_gamma_": ("vegas_gamma", number),
}

# ns-2.35 agent variables of the `ns2_agent` table (tcp/ns2_agent.rs): ns-2 variable ->
# (field, converter).
_NS2_AGENT_FIELDS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "delay_growth_": ("delay_growth", boolean),
    "bugfix_ss_": ("bugfix_ss", boolean),
    "precisionReduce_": ("precision_reduce", boolean),
    "maxburst_": ("maxburst", lambda v: int(number(v))),
    "rfc2988_": ("rfc2988", boolean),
    "timerfix_": ("timerfix", boolean),
    "rttvar_exp_": ("rttvar_exp", lambda v: int(number(v))),
}

# ns-2.35 agent variables of loss recovery and window arithmetic (tcp/ns2_agent/recovery.rs):
# ns-2 variable -> (field, converter, the classes whose C++ reads it). tcp.cc's TcpAgent
# (dupack_action, slowdown, opencwnd) and the Reno, Newreno and Sack1 agents built on it;
# Vegas and Linux have their own recv and window rules, where the variable stays refused.
_RECOVERY_FIELDS: dict[str, tuple[str, Callable[[str], Any], tuple[str, ...]]] = {
    "bugFix_": ("bug_fix", boolean, AIMD_AGENTS),
    "decrease_num_": ("decrease_num", number, AIMD_AGENTS),
    "increase_num_": ("increase_num", number, AIMD_AGENTS),
    "maxcwnd_": ("maxcwnd", lambda v: int(number(v)), AIMD_AGENTS),
    # tcp-newreno.cc
    "lessCareful_": ("less_careful", boolean, ("Agent/TCP/Newreno",)),
    "newreno_changes1_": ("newreno_changes1", boolean, ("Agent/TCP/Newreno",)),
    "partial_window_deflation_": ("partial_window_deflation", boolean, ("Agent/TCP/Newreno",)),
    "exit_recovery_fix_": ("exit_recovery_fix", boolean, ("Agent/TCP/Newreno",)),
}


def _recovery_fields(cls: str) -> dict[str, tuple[str, Callable[[str], Any]]]:
    """The recovery and window validation variables the agent class reads (_RECOVERY_FIELDS,
    cwv.CWV_FIELDS)."""
    fields = {**_RECOVERY_FIELDS, **CWV_FIELDS}
    return {var: (key, conv) for var, (key, conv, classes) in fields.items() if cls in classes}


# ns-default.tcl gives these; ns-2.35's C++ binds no such variable, so no value changes a
# run (checked with `ns`: a script's trace is byte-identical with the variable false).
_NO_EFFECT = {"updated_rttvar_"}

# Variables whose non-default values change what ns-2 does and are not modelled (exit 2).
_TCP_UNMODELLED = {
    "maxcwnd_": "maxcwnd_ (a cap on cwnd_) is not modelled; window_ caps the window",
    "windowOption_": "windowOption_ other than 1 (standard AIMD) is not modelled",
}


def to_scenario(
    net: Network,
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
    if not net.nodes:
        raise Ns2Error("the script creates no nodes ($ns node)")
    links: dict[str, Any] = {}
    done: set[tuple[int, int]] = set()
    for (a, b), fwd in net.links.items():
        if (a, b) in done:
            continue
        rev = net.links.get((b, a))
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
            loss = (
                loss_config(way.loss, way.loss_after, net, warn, way.loss_chain)
                if way.loss
                else None
            )
            if loss is not None:
                entry[key] = loss
        links[f"n{a}_n{b}"] = entry
        net.link_names[(a, b)] = net.link_names[(b, a)] = f"n{a}_n{b}"
    flows = []
    seqs: list[int | None] = []
    index = 0
    numbered: dict[str, int] = {}  # the engine's default: ports per node in flow order
    for ag in net.agents:
        f = _flow(ag, index, duration, warn, held)
        if f is not None:
            ports = [numbered.get(f[end], 0) for end in ("src", "dst")]
            for end in ("src", "dst"):
                numbered[f[end]] = numbered.get(f[end], 0) + 1
            assert ag.peer is not None
            if ports != [ag.port, ag.peer.port]:
                # ns-2's ports: the agents' attach order on each node (ns-node.tcl)
                f["trace_ports"] = [ag.port, ag.peer.port]
            flows.append(f)
            seqs.append(ag.app.start_seq if ag.app is not None else None)
            index += 1
    _start_order(flows, seqs)
    scenario: dict[str, Any] = {
        "name": name,
        "description": f"translated from the ns-2 script {name}.tcl",
        "duration": fmt_time(duration),
    }
    if net.seed is not None:
        scenario["seed"] = net.seed
    if rng_state is not None:
        scenario["ns2_default_rng"] = {"state": list(rng_state)}
    # events of one instant in ns-2's order: its clock adds delays in double seconds
    scenario["clock"] = "ns2"
    scenario["topology"] = {"kind": "custom", "nodes": [n.name for n in net.nodes]}
    scenario["links"] = links
    scenario["flows"] = flows
    return scenario


def _start_order(flows: list[dict[str, Any]], seqs: list[int | None]) -> None:
    """Flows started at one instant by the script's `$ns at` events start in the order the
    script scheduled those events, as ns-2's scheduler runs them (FIFO among equal times);
    where that is not their index order, each flow of the instant gets its `start_order`
    (the instant's indices, dealt out in the script's order)."""
    groups: dict[str, list[int]] = {}
    for i, f in enumerate(flows):
        groups.setdefault(f["start"], []).append(i)
    for members in groups.values():
        if len(members) < 2 or any(seqs[i] is None for i in members):
            continue
        by_script = sorted(members, key=lambda i: seqs[i])  # type: ignore[arg-type, return-value]
        if by_script != members:
            for rank, i in zip(members, by_script, strict=True):
                flows[i]["start_order"] = rank


def _flow(
    ag: Agent, index: int, duration: float, warn: Callable[[str], None], held: bool
) -> dict[str, Any] | None:
    full = ag.cls in FULL_TCP
    tcp = ag.cls in TCP_CC or full
    if not tcp and not is_a(ag.cls, "Agent/UDP"):
        return None  # sinks, Null
    if full and (ag.listening or ag.app is None):
        if ag.app is not None:
            raise Ns2Error(
                f"{ag.cls} {ag.handle}: a listening FullTcp with an application (data both "
                "ways) is not modelled"
            )
        return None  # the listener: the flow's destination
    if ag.peer is None or ag.node is None or ag.peer.node is None:
        if ag.app is not None:
            warn(f"{ag.cls} {ag.handle} is not connected ($ns connect): left out")
        return None
    app = ag.app
    if app is None and tcp and ag.scripted and held:
        # written to by the script's `$tcp advance`/`advanceby`/`send` during the run
        app = ag.app = App(ag.handle, "Application/FTP", agent=ag, held=True)
    if app is None and not tcp and is_a(ag.peer.cls, "Agent/UDP"):
        return None  # the receiving end of a UDP pair (udp.cc: it receives as a Null)
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
        if full:
            raise Ns2Error(
                f"{app.cls} {app.handle} stop on {ag.cls}: stopping a FullTcp source's "
                "application is not modelled"
            )
        flow["stop"] = fmt_time(app.stop)
    if transfer is not None:
        # import-ns2: the first write the script schedules, a transfer of that much
        flow["app"] = {"kind": "transfer", "size": f"{transfer[1]}B"}
    elif app.cls in ("Application/FTP", "Application/Telnet"):
        if not tcp:
            raise Ns2Error(f"{app.cls} {app.handle} is attached to a UDP agent")
        # a Telnet's timer runs in the engine, or its flow is held and written to packet by
        # packet by the script's loop (telnet.py)
        flow["app"] = telnet.engine_app(app) if app.telnet_engine else {"kind": "bulk"}
    elif app.cls in TRAFFIC:
        flow["app"] = traffic_app(app, ag)
        if tcp:
            flow["protocol"] = "tcp"
    else:
        raise Ns2Error(f"{app.cls} is not modelled (FTP, CBR, Exponential, Pareto are)")
    if full:
        if not ag.peer.listening:
            raise Ns2Error(
                f"{ag.peer.cls} {ag.peer.handle} does not listen ($sink listen): a "
                "simultaneous open is not modelled"
            )
        flow["tcp"] = full_tcp_options(ag)
    elif tcp:
        flow["tcp"] = tcp_options(ag, warn)
        overhead = _changed(ag, "overhead_")
        if overhead is not None:
            # tcp.cc send_much: each send delayed by Random::uniform(overhead_)
            seconds = time_s(overhead)
            if seconds < 0:
                raise Ns2Error(f"{ag.cls} {ag.handle} overhead_ {overhead}: must be >= 0")
            flow["send_jitter"] = fmt_time(seconds)
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
    recovery = _recovery_fields(ag.cls)
    for var, why in _TCP_UNMODELLED.items():
        if var not in recovery and _changed(ag, var) is not None:
            raise Ns2Error(f"{ag.cls} {var} {ag.vars[var]}: {why}")
    read = {
        *_TCP_FIELDS,
        *_NS2_AGENT_FIELDS,
        *recovery,
        *_NO_EFFECT,
        "overhead_",
        "windowInitOption_",
    }
    if ag.cls.endswith("Sack1"):
        read.add("oldCode_")  # tcp-sack1.cc dupack_action: the only reader here
    # exitFastRetrans_, noFastRetrans_, partial_ack_, F-RTO (recovery_knobs.py); one-off
    # variables of timestamps, ECN and the sink (agent_knobs.py)
    knobs_read, knobs = recovery_knobs(ag.cls, ag.vars, lambda var: _changed(ag, var))
    one_off_read, sink_one_off_read, one_off = knob_fields(ag)
    knobs.update(one_off)
    read |= knobs_read | one_off_read
    unmodelled_variables(ag, read | {"window_", "ssthresh_"})  # ssthresh_: reset_ssthresh
    if ag.peer is not None:
        sink_read, sink_fields = sink_knobs(ag.peer.cls, ag.peer.vars)
        knobs.update(sink_fields)
        sink_read |= {"interval_", "SYN_immediate_ack_", *sink_one_off_read}
        unmodelled_variables(ag.peer, sink_read)
    for var, (key, conv) in _TCP_FIELDS.items():
        v = _changed(ag, var)
        if v is None:
            continue
        opts[key] = conv(v)
    agent = {
        key: conv(v)
        for var, (key, conv) in {**_NS2_AGENT_FIELDS, **recovery}.items()
        if (v := _changed(ag, var)) is not None
    }
    if "oldCode_" in read and (v := _changed(ag, "oldCode_")) is not None:
        agent["old_code"] = boolean(v)
    if ag.peer is not None and not boolean(ag.peer.vars.get("SYN_immediate_ack_", "true")):
        agent["syn_immediate_ack"] = False  # tcp-sink.cc DelAckSink::recv
    agent.update(knobs)
    if not boolean(ag.vars.get("delay_growth_", lookup_default(ag.cls, "delay_growth_") or "1")):
        # Agent/TCP/Linux's default (ns-default.tcl) is false, the table's (Agent/TCP's) true
        agent["delay_growth"] = False
    if ag.cls == "Agent/TCP/Linux" and sack and sink_sack:
        # tcp_linux.cc's own recv, scoreboard1.cc and timeout (tcp/sender/ns2_linux.rs), with
        # the module select_ca installed (none: ns-2's own window rules)
        agent["linux"] = ag.ca or "none"
    if agent:
        opts["ns2_agent"] = agent
    _initial_window_option(ag, opts)
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


def _initial_window_option(ag: Agent, opts: dict[str, Any]) -> None:
    """tcp.cc initial_window(): `windowInitOption_ 2` gives 4 packets for packetSize_ up to
    1095 bytes, 3 below 2190, else 2 (RFC 3390's rule); a lost opening packet sets it back to
    option 1 (`timeout`: wnd_init_option_ = 1), windowInit_ packets."""
    option = ag.vars.get("windowInitOption_", "1")
    if same_value(option, "1"):
        return
    if not same_value(option, "2"):
        raise Ns2Error(
            f"{ag.cls} {ag.handle} windowInitOption_ {option}: ns-2 has options 1 and 2 only"
        )
    size = int(number(ag.vars.get("packetSize_", "1000"), "packetSize_"))
    opts["iw"] = 4 if size <= 1095 else 3 if size < 2190 else 2
    opts["iw_after_syn_loss"] = int(number(ag.vars.get("windowInit_", "2"), "windowInit_"))


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
        if rate > 0 and rate != round(rate):
            # cbr_traffic.cc init: interval_ = (size_ << 3) / rate_ in doubles; a rate_ made
            # from interval_ (ns-lib's CBR set) is no whole number of bit/s
            out["ns2_interval_s"] = (size * 8) / rate
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
    if q.kind == "REM":
        return rem_config(q, limit)
    if q.kind == "RED/RIO":
        return rio_config(q, limit)
    raise Ns2Error(
        f"queue type {q.kind} is not modelled (DropTail, RED, RED/RIO, FQ, DRR, SFQ, PI and REM "
        "are)"
    )


def rem_config(q: Queue, limit: int) -> dict[str, Any]:
    """queue/rem.cc, bufferlab's qdisc/rem.rs: the drop test (markpkts_ false) or the mark test
    at each departure (markpkts_ true) draws from the default RNG."""
    v = q.vars
    in_bytes = boolean(v["qib_"])
    mean = int(number(v["mean_pktsize_"], "mean_pktsize_"))
    return {
        "kind": "rem",
        "limit": f"{limit * mean}B" if in_bytes else f"{limit}p",
        "gamma": number(v["gamma_"], "gamma_"),
        "phi": number(v["phi_"], "phi_"),
        "inw": number(v["inw_"], "inw_"),
        "pbo": number(v["pbo_"], "pbo_"),
        "update_interval": fmt_time(time_s(v["pupdtime_"])),
        "mean_pktsize": f"{mean}B",
        "queue_in_bytes": in_bytes,
        "ecn": boolean(v["markpkts_"]),
    }


def rio_config(q: Queue, limit: int) -> dict[str, Any]:
    """queue/rio.cc, bufferlab's qdisc/rio.rs: In = a packet whose flow id is not 0
    (priority_method_ 1); its early-drop tests draw from the default RNG."""
    v = q.vars
    if int(number(v["priority_method_"], "priority_method_")) != 1:
        raise Ns2Error(
            "Queue/RED/RIO priority_method_ 0 (In/Out from an edge tagger's priority) is not "
            "modelled; set priority_method_ 1 (In = flow id not 0)"
        )
    for var in ("bytes_", "queue_in_bytes_"):
        if boolean(v[var]):
            raise Ns2Error(f"Queue/RED/RIO {var} true is not modelled (packet mode only)")
    for var, want in (("drop_tail_", "true"), ("drop_front_", "false"), ("drop_rand_", "false")):
        if var in v and boolean(v[var]) != boolean(want):
            raise Ns2Error(f"Queue/RED/RIO {var} {v[var]} is not modelled ({var} {want} is)")
    q_w = number(v["q_weight_"], "q_weight_")
    if q_w <= 0:
        raise Ns2Error(
            f"Queue/RED/RIO q_weight_ {v['q_weight_']} (automatic) is not modelled; give a weight"
        )
    gentle = boolean(v["gentle_"])  # rio.cc reset: gentle_ makes both bands gentle
    return {
        "kind": "rio",
        "limit": f"{limit}p",
        "in_min_th": number(v["in_thresh_"], "in_thresh_"),
        "in_max_th": number(v["in_maxthresh_"], "in_maxthresh_"),
        "in_linterm": number(v["in_linterm_"], "in_linterm_"),
        "out_min_th": number(v["out_thresh_"], "out_thresh_"),
        "out_max_th": number(v["out_maxthresh_"], "out_maxthresh_"),
        # rio.cc: the Out probability uses RED's linterm_ (out_linterm_ is never read)
        "out_linterm": number(v["linterm_"], "linterm_"),
        "q_weight": q_w,
        "mean_pktsize": f"{int(number(v['mean_pktsize_'], 'mean_pktsize_'))}B",
        "wait": boolean(v["wait_"]),
        "in_gentle": gentle or boolean(v["in_gentle_"]),
        "out_gentle": gentle or boolean(v["out_gentle_"]),
        "ecn": boolean(v["setbit_"]),
    }


def red_config(q: Queue, link: Link, limit: int) -> dict[str, Any]:
    v = q.vars
    byte_mode = boolean(v["queue_in_bytes_"])
    mean = int(number(v["mean_pktsize_"]))
    adaptive = boolean(v["adaptive_"])
    out: dict[str, Any] = {"kind": "ared" if adaptive else "red", "preset": "ns2"}
    out["limit"] = f"{limit * mean}B" if byte_mode else f"{limit}p"
    if not byte_mode:
        out["byte_mode"] = False
    if boolean(v["bytes_"]) != byte_mode:
        # red.cc: queue_in_bytes_ measures the queue, its thresholds and limit; bytes_ only
        # makes modify_p count arrivals in bytes and scale by the packet's size
        out["byte_count"] = boolean(v["bytes_"])
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
    elif q.q_weight_code is not None and q.q_weight_code != (0.0 if adaptive else -1.0):
        # the automatic weight ns-2 computed (red_automatic) from a code other than the
        # engine's default for the kind (qdisc/red/mod.rs: -1 for red's ns2 preset, 0 for
        # ared): the engine computes it from the same code (longlinkAdapt1: -1 with ARED)
        out["q_weight"] = q.q_weight_code
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
    red_ns2_knobs(q, out, adaptive)
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


def red_ns2_knobs(q: Queue, out: dict[str, Any], adaptive: bool) -> None:
    """red.cc's experimental knobs (the core's qdisc/red/ns2_knobs.rs): ns1_compat_,
    pickPacketToDrop's
    victim of a forced drop (drop_front_ before drop_rand_; drop_tail_ is never read there,
    so false changes nothing), cautious_ (and its idle_pktsize_), and feng_adaptive_ (read only
    with adaptive_ 1, with alpha_ and beta_ as its factors)."""
    v = q.vars
    if boolean(v["drop_front_"]):
        out["forced_victim"] = "front"
    elif boolean(v["drop_rand_"]):
        out["forced_victim"] = "random"
    cautious = int(number(v["cautious_"], "cautious_"))
    if cautious not in (0, 1, 2, 3):
        raise Ns2Error(f"Queue/RED cautious_ {v['cautious_']}: red.cc knows 0, 1, 2 and 3")
    if cautious:
        out["cautious"] = cautious
        if cautious == 3 and _changed(q, "idle_pktsize_") is not None:
            out["idle_pktsize"] = f"{int(number(v['idle_pktsize_']))}B"
    if boolean(v["ns1_compat_"]):
        # red.cc enque: with ns1_compat_, a forced drop leaves the count since the last drop
        out["forced_drop_resets_count"] = False
    if adaptive and int(number(v["feng_adaptive_"], "feng_adaptive_")) == 1:
        out["feng_adaptive"] = True
        out["alpha"] = number(v["alpha_"], "alpha_")
        out["beta"] = number(v["beta_"], "beta_")


def unmodelled_variables(ag: Obj, read: set[str]) -> None:
    """Stops at a variable of ns-2's (NS2_AGENT_DEFAULTS) that the script set away from its
    default and that the translation does not read (`read`): ignoring it would run another
    model than the script's. Labels and the state an agent reports are not settings."""
    for var, value in sorted(ag.vars.items()):  # the first by name: the same every run
        if var in read or var in LABELS or var in TCP_STATE:
            continue
        default = ns2_agent_default(ag.cls, var)
        if default is None or same_value(value, default):
            continue
        raise Ns2Error(
            f"{ag.cls} {var} {value}: ns-2's {var} other than its default {default} is not modelled"
        )
