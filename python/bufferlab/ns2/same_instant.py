"""The starts a scenario gives and a script's events of the same instant, in ns-2's order.

ns-2.35's scheduler (common/scheduler.cc) numbers each event as it is scheduled
(`Scheduler::schedule`: `e->uid_ = uid_++`), and `CalendarScheduler::insert` queues an event
after those of the same time already there: the events of one instant run in the order they
were scheduled. In test-suite-adaptive-red.tcl's red3, `$ns at 0.0 "$ftp1 start"`
(maketraffic) is scheduled before `$ns at 0.0 "$ftp(0) producemore 300"` (newtraffic), so
ftp1's first packet leaves first and is first in the queue.

bufferlab makes an application's first start scheduled before `$ns run` its flow's `start`
(apps.py `resolve_app_times`), an event of the engine; the runner runs the engine up to an
instant, then the script's events of that instant, then the engine's own of that instant
(runner.py `loop`). So before each script event, the flows whose start is that instant and
was scheduled before the event start now (the core's `Session::start_due`, which sends
their first packets as a `$ftp start` run then would); the others start after it, as
before. Starts scheduled after every script event of their instant, and the engine's
events of an instant scheduled during the run (ns-2 numbers them after all of `$ns at`'s
before `$ns run`), keep the engine's order."""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from bufferlab.ns2.model import Agent

# typing is imported for type checkers only (TYPE_CHECKING = False is their constant too): it
# brings `re` and 2-4 ms of the command's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# (start time, the `$ns at` event's number, flow)
Start = tuple[float, int, str]


def static_starts(flows: Iterable[Agent]) -> list[Start]:
    """The flows' starts given before `$ns run` (not held), in ns-2's order, as a heap."""
    starts = [
        (ag.app.start, ag.app.start_seq, ag.flow)
        for ag in flows
        if ag.app is not None
        and ag.flow is not None
        and not ag.app.held
        and ag.app.start is not None
        and ag.app.start_seq is not None
    ]
    heapq.heapify(starts)
    return starts


def run_static_starts(session: Any, starts: list[Start], t: float, seq: int) -> None:
    """Before the script's event `seq` at `t`: the starts at `t` scheduled before it run now
    (`Session.start_due`); those before `t` have run in the engine already."""
    while starts and starts[0][:2] < (t, seq):
        at, _, flow = heapq.heappop(starts)
        if at == t:
            session.start_due(flow)
