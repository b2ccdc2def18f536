"""Queue disciplines written in Python, named from scenarios as
``queue = { kind = "python", class = "python_queues.py:TailDrop", params = { limit = 20 } }``.

TailDrop is the built-in DropTail (standard flavour, packet limit) rewritten in Python: the
tests check that it gives exactly the built-in results for the same seed.
"""

from collections import deque

from bufferlab import QueueDisc


class TailDrop(QueueDisc):
    """FIFO with tail drop at `limit` packets, as the built-in `droptail` (standard flavour)."""

    def __init__(self, limit: int = 100):
        self.limit = limit
        self.q = deque()

    def enqueue(self, pkt, ctx):
        if len(self.q) + 1 > self.limit:
            return "drop", "queue_full"
        self.q.append(pkt)
        return "accept"

    def dequeue(self, ctx):
        return self.q.popleft() if self.q else None
