"""ns-2's trace files from the engine's one trace: `$ns trace-all`, `$ns trace-queue`,
`$link trace`, and trace objects of `$ns create-trace` attached by hand.

Follows ns-2.35 ``tcl/lib/ns-lib.tcl`` and ``ns-link.tcl`` (printed with ``ns`` itself:
``Simulator info instbody simplex-link`` etc.):

* ``trace-all`` only records its file; ``simplex-link`` (so each direction of a
  ``duplex-link``) calls ``trace-queue`` on it when a trace-all file is set. A link made before
  ``trace-all`` is not traced (checked with ``ns``: its lines are absent).
* ``trace-queue n1 n2 file`` (``$link trace $ns file``) gives the direction a new set of
  Enque, Deque, Drop and Recv traces, chained in front of those it has: a direction traced
  twice into one file writes each of its lines twice there.
* ``create-trace TYPE file n1 n2`` makes a trace object that writes nothing until the script
  puts it in a packet's path. Modelled: as the drop-target of an error model (``$em
  drop-target $t``: the model's losses go to it instead of the link's drop traces) or of a
  link's queue (``$q drop-target $t``: the queue's drops go to it instead), and ``$t target
  $t2`` chaining another trace object. A trace writes its own letter (Enque ``+``, Deque ``-``,
  Drop ``d``, Recv ``r``, EDrop ``e``, trace/trace.cc) and its own two node ids.

The engine writes one ns-2 trace (every event of the link directions some file traces; the
losses of each link direction with an error model as ``e``, so that they are told apart from
its queue's drops) and :class:`TraceRouter` hands each line to the files that would have it
in ns-2, reading the engine's file as it grows, a block at a time (the whole trace is never
held in memory). When
the trace-all file would get exactly the engine's trace (every link made after ``trace-all``,
traced once there, no drop-target but an EDrop trace of the link into that file), the engine
writes it directly and the router only copies lines to the other files.
"""

from __future__ import annotations

from collections.abc import Callable

from bufferlab.ns2.model import Link, Network, Obj, TraceObj

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

_BLOCK = 1 << 20  # bytes read at a time

# (event, from node, to node) of a line -> where it goes: (channel, None to write it as it is,
# or (event, from, to) to write instead).
Routes = dict[tuple[str, str, str], list[tuple[str, tuple[str, str, str] | None]]]


class TracePlan:
    """What the engine writes and where its lines go."""

    def __init__(self, direct: str | None) -> None:
        # The file the engine writes: the trace-all file itself, or None for one of its own.
        self.direct = direct
        # Link directions (from node, to node names) whose random losses the engine writes
        # as `e`.
        self.error_drops: list[tuple[str, str]] = []
        self.routes: Routes = {}

    @property
    def needed(self) -> bool:
        return self.direct is not None or bool(self.routes)

    def directions(self) -> list[tuple[str, str]]:
        """The link directions (from node, to node names) some route takes lines of (the
        engine's E lines are not a link's)."""
        return sorted({(f"n{a}", f"n{b}") for ev, a, b in self.routes if ev != "E"})


def chain(obj: Obj | None) -> list[TraceObj]:
    """The trace objects a packet handed to `obj` passes through (its `target`s)."""
    out: list[TraceObj] = []
    while isinstance(obj, TraceObj) and obj not in out:
        out.append(obj)
        obj = obj.target
    return out


def _writers(traces: list[TraceObj]) -> list[tuple[str, tuple[str, str, str]]]:
    return [(t.channel, (t.event, str(t.src), str(t.dst))) for t in traces if t.channel]


def plan(net: Network) -> TracePlan:
    direct = _direct(net)
    out = TracePlan(direct=direct)
    routes = out.routes
    for (a, b), link in net.links.items():
        assert link.queue is not None
        ab = (str(a), str(b))
        sets = [ch for ch in link.traces if ch != (net.trace_channel if direct else None)]
        for ev in "+-r":
            for ch in sets:
                routes.setdefault((ev, *ab), []).append((ch, None))
        queue_target = net.drop_targets.get(link.queue.handle)
        if queue_target is None:
            for ch in sets:
                routes.setdefault(("d", *ab), []).append((ch, None))
        else:
            for ch, to in _writers(chain(queue_target)):
                routes.setdefault(("d", *ab), []).append((ch, to))
        if link.loss is None:
            continue
        if direct is not None:
            if link.loss.handle in net.drop_targets:  # an EDrop trace into the trace-all file
                out.error_drops.append((f"n{a}", f"n{b}"))
            else:  # `d` lines, which the other files of the link's drop traces also get
                continue
        else:
            out.error_drops.append((f"n{a}", f"n{b}"))
        loss_target = net.drop_targets.get(link.loss.handle)
        if loss_target is None:  # the link's drophead: its drop traces
            for ch in sets:
                routes.setdefault(("e", *ab), []).append((ch, ("d", *ab)))
        else:
            for ch, to in _writers(chain(loss_target)):
                if direct is None or ch != net.trace_channel:
                    routes.setdefault(("e", *ab), []).append((ch, to))
    for key in [k for k, v in routes.items() if not v]:
        del routes[key]
    return out


def _direct(net: Network) -> str | None:
    """The trace-all file when it is exactly the engine's trace (see the module's doc)."""
    ch = net.trace_channel
    if ch is None or net.trace_path is None or not net.links:
        return None
    for link in net.links.values():
        assert link.queue is not None
        if link.traces.count(ch) != 1 or link.queue.handle in net.drop_targets:
            return None
        em = link.loss
        target = net.drop_targets.get(em.handle) if em is not None else None
        if target is not None and not _edrop_into(target, link, ch):
            return None
    return net.trace_path


def _edrop_into(target: Obj, link: Link, channel: str) -> bool:
    traces = chain(target)
    assert link.src is not None and link.dst is not None
    return _writers(traces) == [(channel, ("e", str(link.src.id), str(link.dst.id)))]


class TraceRouter:
    def __init__(self, source: str, routes: Routes, write: Callable[[str, str], None]):
        """`source`: the engine's trace file; `routes`: where each line goes;
        `write(channel, text)` writes to a Tcl channel."""
        self.source = source
        self.routes = routes
        self.write = write
        self.rest = b""
        # Opened once, at the first pump that finds the file, and read on from where the last
        # pump stopped: a script event pumps, and opening the file each time cost more than
        # the reads (underutilized_100ms_Q: 889 opens).
        self.file: BinaryIO | None = None

    def pump(self) -> None:
        """Hands on every complete line the engine has written since the last call."""
        f = self.file
        if f is None:
            try:
                f = self.file = open(self.source, "rb")  # noqa: SIM115 (closed by close())
            except FileNotFoundError:
                return
        while True:
            block = f.read(_BLOCK)
            if not block:
                break
            data = self.rest + block
            cut = data.rfind(b"\n") + 1
            self.rest = data[cut:]
            self._split(data[:cut].decode())

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None

    def _split(self, text: str) -> None:
        out: dict[str, list[str]] = {}
        routes = self.routes
        for line in text.splitlines(keepends=True):
            fields = line.split(" ", 4)
            if len(fields) < 5:
                continue
            sinks = routes.get((fields[0], fields[2], fields[3]))
            if not sinks:
                continue
            for ch, to in sinks:
                text_ = line if to is None else f"{to[0]} {fields[1]} {to[1]} {to[2]} {fields[4]}"
                out.setdefault(ch, []).append(text_)
        for ch, lines in out.items():
            self.write(ch, "".join(lines))
