"""Queue disciplines written in Python, named from scenarios as
``queue = { kind = "python", class = "python_queues.py:TailDrop", params = { limit = 20 } }``,
and run with ``bufferlab run --allow-python`` (importing a class runs its code).

TailDrop is the built-in DropTail (standard flavour, packet limit) rewritten in Python: the
tests check that it gives exactly the built-in results for the same seed.
"""

import math
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


class Red(QueueDisc):
    """RED (Floyd & Jacobson 1993) in packet mode, written the way the built-in `red` computes
    it (crates/bufferlab-core/src/qdisc/red/, after ns-2 queue/red.cc): EWMA average with the
    idle-period decay, gentle region, `wait`, count-based spacing of drops, forced drops above
    2 max_th and at the hard limit. The defaults are the built-in `preset = "ns3"` ones, so
    `class = "python_queues.py:Red"` gives exactly `{ kind = "red", preset = "ns3" }` for the
    same seed (tests/test_extend.py checks it). Random numbers come from `ctx.random()`, the
    stream the built-in RED on the same link would use.
    """

    def __init__(
        self,
        limit: int = 25,
        min_th: float = 5.0,
        max_th: float = 15.0,
        max_p: float = 0.02,
        q_w: float = 0.002,
        gentle: bool = True,
        wait: bool = True,
        mean_pktsize: float = 500.0,
        idle: str = "queue_empty",
        reset_count_on_forced: bool = False,
    ):
        self.limit, self.min_th, self.max_th, self.max_p, self.q_w = (
            limit,
            min_th,
            max_th,
            max_p,
            q_w,
        )
        self.gentle, self.wait, self.mean = gentle, wait, mean_pktsize
        self.idle_on_empty_queue = idle == "queue_empty"
        self.reset_count_on_forced = reset_count_on_forced
        self.q = deque()
        self.ave = 0.0
        self.count = 0
        self.old = False
        self.idle = True
        self.idle_since_ps = 0

    def p_b(self) -> float:
        if self.ave >= self.max_th:
            if self.gentle:
                p = (1.0 - self.max_p) / self.max_th * self.ave + 2.0 * self.max_p - 1.0
            else:
                p = 1.0
        else:
            diff = self.max_th - self.min_th if self.max_th > self.min_th else 1.0
            p = self.max_p * (self.ave - self.min_th) / diff
        return min(p, 1.0)

    def p_a(self, p_b: float) -> float:
        c = float(self.count)
        if self.wait:
            p = 0.0 if c * p_b < 1.0 else (p_b / (2.0 - c * p_b) if c * p_b < 2.0 else 1.0)
        else:
            p = p_b / (1.0 - c * p_b) if c * p_b < 1.0 else 1.0
        return min(p, 1.0)

    def enqueue(self, pkt, ctx):
        ptc = ctx.link_rate_bps / (8.0 * self.mean)
        m = 0.0
        if self.idle:
            self.idle = False
            m = math.floor(ptc * (max(ctx.now_ps - self.idle_since_ps, 0) / 1e12))
        q = float(len(self.q))
        self.ave = self.ave * (1.0 - self.q_w) ** (m + 1.0) + self.q_w * q
        self.count += 1
        outcome, forced_by_p = "accept", False
        if self.ave >= self.min_th and q > 1.0:
            beyond = 2.0 * self.max_th if self.gentle else self.max_th
            if self.ave >= beyond:
                outcome = "forced"
            elif not self.old:
                self.count, self.old = 1, True
            else:
                p_b = self.p_b()
                p_a = self.p_a(p_b)
                if ctx.random() <= p_a and p_a > 0.0:
                    self.count = 0
                    outcome, forced_by_p = "early", p_b >= 1.0
        else:
            self.old = False
        if len(self.q) + 1 > self.limit:
            outcome = "forced"
        if outcome == "early":
            return "drop", "red_forced" if forced_by_p else "red_early"
        if outcome == "forced":
            if self.reset_count_on_forced:
                self.count = 0
            return "drop", "red_forced"
        self.q.append(pkt)
        return "accept"

    def dequeue(self, ctx):
        if self.q:
            pkt = self.q.popleft()
            self.idle = False
            if self.idle_on_empty_queue and not self.q:
                self.idle, self.idle_since_ps = True, ctx.now_ps
            return pkt
        if not self.idle_on_empty_queue and not self.idle:
            self.idle, self.idle_since_ps = True, ctx.now_ps
        return None

    def average(self) -> float:
        return self.ave
