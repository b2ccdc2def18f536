"""ns-2's Telnet application over a one-way TCP agent (apps/telnet.cc, `TelnetApp`), and
`Source/Telnet` (tcl/lib/ns-source.tcl, an OTcl subclass of it whose `attach` is
`attach-agent`).

ns-2.35's TelnetApp keeps a timer: `start` sets `running_` and schedules it `next()` seconds
ahead; each expiry, while running, writes one packet to the agent (`agent_->sendmsg(
agent_->size())`, tcp.cc `sendmsg`: ceil(size_ / size_) = 1 packet added to `curseq_`, then
`send_much`) and schedules it again `next()` ahead; `stop` clears `running_` (the pending
expiry then does nothing). `next()` is `Random::exponential() * interval_` (rng.h
`exponential()`: -log(uniform()) from the default RNG), `interval_` read at each draw (a
script may change it while the run goes on; ns-default.tcl: 1.0). With `interval_` 0 ns-2
draws from tcplib's empirical distribution of telnet inter-arrival times (tcp/tcplib-telnet.cc,
a table of 10 000 measured values): not modelled, refused in one line.

When nothing else draws from the default RNG within a packet's send (its agent's
`overhead_` is 0, and the links out of its node have DropTail queues and no error model: in
ns-2 those draw inside `sendmsg`, before the timer's next draw), and the script starts it
once (a final stop allowed), the engine runs the timer (`kind = "ns2_telnet"`,
traffic/ns2_telnet.rs): the same draws in the same order from the same RNG, without a
script event per packet; `$telnet set interval_` during the run reaches it through
Session.set_telnet_interval. Otherwise the timer is an event of the run's loop (runner.py),
scheduled at `now + next()` as ns-2's scheduler adds it (in the same order among the events
of an instant), and run by the loop itself, not by Tcl (a C++ timer in ns-2: the script never
sees it): its draw comes from the default RNG where the engine left it, and its packet is the
agent's next write (Runner.data_event, the finite-send path of `$tcp send`). The agent's flow
is held until the first write.
"""

from __future__ import annotations

from bufferlab.ns2.classes import is_a
from bufferlab.ns2.errors import Ns2Error
from bufferlab.ns2.units import number, time_s

TELNET = "Application/Telnet"
# A heap entry that is not a script: the timer of the Telnet whose handle follows.
EXPIRY = "\0telnet "

# tcl/lib/ns-source.tcl (printed by `ns`: `Source/Telnet info superclass`, `instbody attach`)
SOURCE_TELNET_TCL = r"""
Class Source/Telnet -superclass Application/Telnet
Source/Telnet instproc attach o {
    $self instvar agent_
    set agent_ $o
    $self attach-agent $o
}
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from bufferlab.ns2.model import App


def interval_s(app: App) -> float:
    """The Telnet's `interval_` in seconds (ns-default.tcl: 1.0)."""
    return time_s(app.vars.get("interval_", "1.0"))


def engine_runs(ip: Any, app: App, times: list[tuple[float, int, str]]) -> bool:
    """Whether the engine can run this Telnet's timer (see the module's doc): `times` are its
    `$ns at` starts and stops, in order."""
    ag = app.agent
    if ag is None or ag.scripted or ag.node is None or not is_a(ag.cls, "Agent/TCP"):
        return False
    if "FullTcp" in ag.cls or [w for _, _, w in times].count("start") != 1:
        return False
    try:
        if interval_s(app) <= 0:
            return False  # refused at its start (tcplib's table)
        if number(ag.vars.get("overhead_", "0")) != 0:
            return False
    except Ns2Error:
        return False
    for (a, _), link in ip.net.links.items():
        if a != ag.node.id:
            continue
        q = link.queue
        if q is None or not q.cls.startswith("Queue/DropTail") or link.loss is not None:
            return False
        if link.loss_chain or link.delayer is not None:
            return False
    return True


def engine_app(app: App) -> dict[str, Any]:
    """The flow's `app` table of a Telnet the engine runs."""
    ag = app.agent
    assert ag is not None
    size = int(number(ag.vars.get("packetSize_", "1000"), "packetSize_"))
    return {
        "kind": "ns2_telnet",
        "interval_s": interval_s(app),
        "packet_size": f"{size}B",
    }


def interval_changed(runner: Any, app: App) -> None:
    """`$telnet set interval_ X` during the run, for a Telnet the engine runs: the draw after
    the next packet uses it (telnet.cc `next` reads it at each draw)."""
    ag = app.agent
    if runner.finished or ag is None or ag.flow is None:
        return
    interval = interval_s(app)
    if interval == 0:
        raise Ns2Error(_TCPLIB.format(handle=app.handle))
    try:
        runner.session.set_telnet_interval(ag.flow, interval)
    except Exception as e:  # ScenarioError: what the engine cannot change
        raise Ns2Error(f"{TELNET} {app.handle} set at {runner.now:g} s: {e}") from None


_TCPLIB = (
    TELNET + " {handle} interval_ 0 (tcplib's empirical telnet inter-arrival "
    "times, tcp/tcplib-telnet.cc) is not modelled; give interval_ > 0 (exponential "
    "inter-arrival times of that mean)"
)


def next_interval(ip: Any, app: App) -> float:
    """TelnetApp::next(): an exponential draw times interval_ from ns-2's default RNG."""
    interval = interval_s(app)
    if interval == 0:
        raise Ns2Error(_TCPLIB.format(handle=app.handle))
    # rng.h: exponential() = -log(uniform()); telnet.cc multiplies it by interval_
    return ip.default_rng.stream.exponential(1.0) * interval


def telnet_method(ip: Any, app: App, m: str, a: list[str]) -> str | None:
    """`$telnet start` / `stop` during the run; None for the other methods (the application's
    common ones)."""
    runner = ip.runner
    if m not in ("start", "stop") or runner is None or app.telnet_engine:
        return None  # (the engine's timer starts and stops as the flow does)
    if a:
        raise Ns2Error(f"usage: $telnet {m}")
    ag = app.agent
    if ag is None or ag.flow is None:
        raise Ns2Error(
            f"{TELNET} {app.handle} {m}: its agent is not a connected TCP flow (attach it to "
            "an agent that $ns connect joined to a sink, before $ns run)"
        )
    if m == "start":
        if app.telnet_pending:
            # ns-2: TimerHandler::sched on a pending timer aborts the simulator
            raise Ns2Error(
                f"{TELNET} {app.handle} started again while its timer is pending: ns-2 "
                'aborts ("Couldn\'t schedule timer")'
            )
        app.telnet_running = True
        _schedule(ip, runner, app)
    else:
        app.telnet_running = False
    return ""


def expire(ip: Any, app: App) -> None:
    """TelnetApp::timeout (telnet.cc): while running, one packet to the agent, and the timer
    again `next()` ahead."""
    app.telnet_pending = False
    if app.telnet_running:
        ag = app.agent
        assert ag is not None
        size = int(float(ag.vars.get("packetSize_", "1000")))
        ip.runner.data_event(ag, "send", size, said="send")
        _schedule(ip, ip.runner, app)


def _schedule(ip: Any, runner: Any, app: App) -> None:
    t = next_interval(ip, app)
    app.telnet_pending = True
    ip.schedule(runner.now + t, EXPIRY + app.handle)
