"""Per-link trace files (`$ns trace-queue n1 n2 $file`): the lines of one link direction in
ns-2's trace format, written to the script's channel while the run goes on.

Follows ns-2.35 ``tcl/lib/ns-lib.tcl`` (``Simulator instproc trace-queue``, which gives the
link n1->n2 its own Enque, Deque, Drop and Recv traces on that file) and ``trace/trace.cc``
(the line format). A link's own traces write the same lines as ``trace-all`` writes for that
link: checked with ``ns`` on a two-hop script, where each ``trace-queue`` file equals the
``trace-all`` lines whose from and to nodes are that direction's (`awk '$3==1 && $4==2'`).
So the engine writes one ns-2 trace (the ``trace-all`` file, or a temporary one) and this
module hands each line of a traced direction to its channels, reading the engine's file as it
grows, a block at a time (the whole trace is never held in memory). ``e`` lines (an EDrop
trace's, `create-trace EDrop`) belong to that trace, not to the link's, and are left out.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

_BLOCK = 1 << 20  # bytes read at a time


class LinkTraceSplitter:
    def __init__(
        self,
        source: Path,
        directions: dict[tuple[int, int], list[str]],
        write: Callable[[str, str], None],
    ):
        """`source`: the engine's trace file; `directions`: (from node, to node) -> the Tcl
        channels of its `trace-queue`s; `write(channel, text)` writes to a channel."""
        self.source = source
        self.directions = {(str(a), str(b)): chans for (a, b), chans in directions.items()}
        self.write = write
        self.offset = 0
        self.rest = b""

    def pump(self) -> None:
        """Hands on every complete line the engine has written since the last call."""
        try:
            f = self.source.open("rb")
        except FileNotFoundError:
            return
        with f:
            f.seek(self.offset)
            while True:
                block = f.read(_BLOCK)
                if not block:
                    break
                self.offset += len(block)
                data = self.rest + block
                cut = data.rfind(b"\n") + 1
                self.rest = data[cut:]
                self._split(data[:cut].decode())

    def _split(self, text: str) -> None:
        out: dict[str, list[str]] = {}
        for line in text.splitlines(keepends=True):
            fields = line.split(" ", 4)
            if len(fields) < 5 or fields[0] == "e":
                continue
            chans = self.directions.get((fields[2], fields[3]))
            if chans:
                for ch in chans:
                    out.setdefault(ch, []).append(line)
        for ch, lines in out.items():
            self.write(ch, "".join(lines))
