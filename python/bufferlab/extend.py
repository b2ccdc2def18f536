"""Extending bufferlab in Python: queue disciplines and congestion controllers.

Write a subclass, name it in a scenario, and the engine calls it through the same interface
and the same accounting (arrivals, drops by reason, averages, sojourn times) as the built-in
ones. The simulation then runs with the GIL held for each call, so a Python discipline costs
microseconds per packet instead of nanoseconds (see docs/extending.md for measured numbers).

Queue discipline::

    # myqueues.py
    from bufferlab import QueueDisc

    class TailDrop(QueueDisc):
        def __init__(self, limit=20):
            self.limit = limit
            self.q = collections.deque()

        def enqueue(self, pkt, ctx):
            if len(self.q) >= self.limit:
                return "drop", "queue_full"
            self.q.append(pkt)
            return "accept"

        def dequeue(self, ctx):
            return self.q.popleft() if self.q else None

    # scenario.toml
    queue = { kind = "python", class = "myqueues:TailDrop", params = { limit = 20 } }

``class`` is ``module:Class`` (a module on ``sys.path``; the scenario's directory is added)
or ``path/to/file.py:Class`` (relative to the scenario file). Importing it runs its code, so a
scenario naming a class runs only with ``bufferlab run --allow-python`` or
``bufferlab.run(..., allow_python=True)`` (a scenario file is otherwise data).

Congestion control (TCP flows)::

    class MyReno(CongestionControl):
        def on_ack(self, w, ack): ...            # grow w.cwnd (bytes)
        def ssthresh_on_loss(self, w, flight, now): return max(flight / 2, 2 * w.mss)
        def on_timeout(self, w, flight, now): ...

    tcp = { cc = "python", cc_class = "mycc:MyReno" }
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

#: What `QueueDisc.enqueue` may return.
ACCEPT = "accept"
MARK = "mark"
DROP = "drop"

#: Drop reasons the engine reports by name (others are reported as "custom").
DROP_REASONS = (
    "queue_full",
    "red_early",
    "red_forced",
    "longest_queue",
    "codel",
    "pie",
    "custom",
)


class QueueDisc:
    """Base class of queue disciplines written in Python.

    The engine calls:

    * ``enqueue(pkt, ctx)`` when a packet arrives. Return ``"accept"`` to store it (keep the
      ``pkt`` object: ``dequeue`` returns it later), ``"mark"`` to store it marked Congestion
      Experienced (a packet that is not ECN-capable is dropped instead, as RFC 3168 says), or
      ``("drop", reason)`` / ``"drop"`` to drop it.
    * ``dequeue(ctx)`` when the link is free: return one of the stored packets, or None. A
      discipline that drops at dequeue (CoDel-like) calls ``ctx.drop(pkt, reason)`` for each
      stored packet it discards.
    * ``average()`` (optional): a smoothed queue estimate for the queue time series.

    The packet (read-only) has ``uid``, ``flow``, ``size`` (bytes on the wire), ``protocol``
    (``"udp"``/``"tcp"``), ``kind`` (``"udp"``, ``"tcp_data"``, ``"tcp_ack"``), ``ecn``
    (``"not_ect"``, ``"ect0"``, ``"ect1"``, ``"ce"``), ``ecn_capable``, ``class_`` (the flow's
    class), ``created`` and ``arrival`` (seconds). The context has ``now`` (seconds),
    ``link_rate_bps``, ``link_busy``, ``len_packets``, ``len_bytes`` (what the engine counts as
    stored), ``random()`` (a uniform float in [0, 1) from the queue's own random stream: the
    same stream a built-in discipline on this link would use) and ``drop(pkt, reason)``.
    """

    def enqueue(self, pkt: Any, ctx: Any) -> str | tuple[str, str]:
        raise NotImplementedError("a QueueDisc must implement enqueue(pkt, ctx)")

    def dequeue(self, ctx: Any) -> Any | None:
        raise NotImplementedError("a QueueDisc must implement dequeue(ctx)")

    def average(self) -> float | None:
        return None


class CongestionControl:
    """Base class of TCP congestion controllers written in Python.

    ``w`` (the window) has ``cwnd``, ``ssthresh`` and ``mss`` in bytes (floats; assign
    ``w.cwnd`` and ``w.ssthresh`` to change them). ``ack`` has ``bytes_acked``, ``rtt_s``
    (None when the ACK gives no sample), ``min_rtt_s``, ``srtt_s`` and ``now``.

    * ``on_ack(w, ack)``: new data acknowledged outside loss recovery.
    * ``ssthresh_on_loss(w, flight, now)``: loss detected by duplicate ACKs or ECN: return the
      new ssthresh (bytes); the sender then runs its recovery (``recovery`` = ``"reno"``,
      ``"newreno"`` or ``"tahoe"``).
    * ``on_recovery_exit(w, now)``: recovery is over (default: cwnd = ssthresh).
    * ``on_timeout(w, flight, now)``: retransmission timeout (default: ssthresh =
      max(flight/2, 2 mss), cwnd = 1 mss, RFC 5681 section 3.1).
    """

    recovery = "newreno"

    def on_ack(self, w: Any, ack: Any) -> None:
        raise NotImplementedError("a CongestionControl must implement on_ack(w, ack)")

    def ssthresh_on_loss(self, w: Any, flight: float, now: float) -> float:
        return max(flight / 2.0, 2.0 * w.mss)

    def on_recovery_exit(self, w: Any, now: float) -> None:
        w.cwnd = w.ssthresh

    def on_timeout(self, w: Any, flight: float, now: float) -> None:
        w.ssthresh = max(flight / 2.0, 2.0 * w.mss)
        w.cwnd = w.mss


def blame(e: BaseException, scenario_text: str) -> None:
    """Marks an exception raised during a run whose scenario names Python classes as the
    user's: ``e.bufferlab_extension`` says which class and method (the outermost frame of the
    user's code the engine called; where it was raised follows in their traceback), and a note
    says so. The exception itself is raised unchanged, so ``except ZeroDivisionError`` and its
    traceback still work; the command line prints their frames and exits 2 (cli/_boundary.py).
    """
    import bufferlab

    ours = str(Path(bufferlab.__file__).parent)
    tb = e.__traceback__
    culprit = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if not code.co_filename.startswith(ours) and not code.co_filename.startswith("<"):
            name = getattr(code, "co_qualname", code.co_name)
            culprit = f"{name} ({Path(code.co_filename).name}:{tb.tb_lineno})"
            break
        tb = tb.tb_next
    if culprit is None:
        # raised for the class by the engine's side (an enqueue that returned "maybe"): name the
        # classes the scenario gives
        classes = sorted(set(re.findall(r'\b(?:cc_)?class\s*=\s*"([^"]+)"', scenario_text)))
        culprit = "the Python class " + (" or ".join(classes) or "the scenario names")
    e.bufferlab_extension = culprit  # type: ignore[attr-defined]
    e.add_note(f"raised by {culprit}, a Python class the scenario names (docs/extending.md)")


def user_frames(e: BaseException) -> list[str]:
    """The lines of ``e``'s traceback in the user's code (none of bufferlab's own frames)."""
    import traceback

    import bufferlab

    ours = str(Path(bufferlab.__file__).parent)
    frames = [f for f in traceback.extract_tb(e.__traceback__) if not f.filename.startswith(ours)]
    return traceback.format_list(frames)
