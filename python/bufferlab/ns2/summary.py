"""`$queue printstats` of ns-2's DropTail and RED queues whose `summarystats_` is true
(queue/drop-tail.cc and queue/red.cc `print_summarystats`, queue/queue.cc `updateStats`):
the time-weighted average length of the queue from time 0 to its last enqueue or dequeue,
and that time, printed `True average queue: %5.3f[ (in bytes)] time: %5.3f`. The engine keeps
the two numbers as ns-2 computes them (monitor/ns2_summary.rs, `Session.keep_queue_summary`)
for the queues that have `summarystats_` true at `$ns run`; a queue without them prints
ns-2's zeros.
"""

from __future__ import annotations

from bufferlab.ns2.errors import Ns2Error
from bufferlab.ns2.model import Queue
from bufferlab.ns2.units import boolean

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The queues whose C++ class has `printstats` (DropTail::command, REDQueue::command).
PRINTSTATS = ("Queue/DropTail", "Queue/RED")


def keep_summaries(runner: Any) -> None:
    """At `$ns run`: the engine keeps the statistics of each queue with summarystats_ true."""
    for obj in list(runner.ip.objects.values()):
        if not isinstance(obj, Queue) or obj.cls not in PRINTSTATS:
            continue
        if not boolean(obj.vars.get("summarystats_", "false")):
            continue
        where = _where(runner, obj)
        if where is not None:
            runner.session.keep_queue_summary(*where)


def snapshot_summaries(runner: Any) -> None:
    """At the run's end, before the session is finished: the values `finish` may print."""
    for obj in list(runner.ip.objects.values()):
        if isinstance(obj, Queue) and obj.cls in PRINTSTATS:
            where = _where(runner, obj)
            if where is not None:
                runner.snapshot[(obj.handle, "printstats")] = runner.session.queue_summary(*where)


def printstats(ip: Any, q: Queue, args: list[str]) -> str:
    """`$queue printstats`: ns-2 prints with printf; here on the script's stdout."""
    if q.cls not in PRINTSTATS:
        raise Ns2Error(f"{q.cls} method `printstats` is not modelled (DropTail and RED have it)")
    if args:
        raise Ns2Error("usage: $queue printstats")
    runner = ip.runner
    got = None
    if runner is not None:
        if runner.finished:
            got = runner.snapshot.get((q.handle, "printstats"))
        else:
            where = _where(runner, q)
            got = None if where is None else runner.session.queue_summary(*where)
    ave_p, ave_b, total = got if got is not None else (0.0, 0.0, 0.0)
    in_bytes = boolean(q.vars.get("queue_in_bytes_", "false"))
    ave = ave_b if in_bytes else ave_p
    unit = " (in bytes)" if in_bytes else ""
    ip.tcl.call("puts", f"True average queue: {ave:5.3f}{unit} time: {total:5.3f}")
    return ""


def _where(runner: Any, q: Queue) -> tuple[str, str, str] | None:
    link = runner._queue_link(q)
    if link is None:
        return None
    name = runner.ip.net.link_names.get((link.src.id, link.dst.id))
    return None if name is None else (name, link.src.name, link.dst.name)
