"""Writes the project's own Mahimahi packet-delivery traces (docs/models/trace_links.md).

Each line of a trace is a whole number of milliseconds: one 1504-byte delivery opportunity then
(mahimahi's ``link_queue.cc``); repeated lines are several opportunities in one millisecond; the
trace loops at its last line. Both traces are generated, not recorded, so they carry no third
party's data:

* ``const_12mbps.trace``: one opportunity a millisecond for one second, the usual "12 Mbit/s"
  trace of the congestion-control literature (1500-byte IP packets at 12.000 Mbit/s: each with
  mahimahi's 4-byte TUN header fills one opportunity, 12.032 Mbit/s of raw capacity).
* ``lte_synthetic.trace``: 30 s of an LTE-like downlink. Its rate changes every 100 ms (one
  step of a first-order autoregression of the log-rate around 8 Mbit/s, kept within
  0.5-40 Mbit/s), with outages (1 % of steps start one, of 100-500 ms, as handovers and fades
  do); within each millisecond the opportunities are a Poisson draw of mean rate x 1 ms /
  1504 bytes, so they come in bursts as a scheduler's grants do (Jiang et al., CellNet 2012
  and Winstein et al., NSDI 2013 describe such links; the numbers here are illustrative
  choices, not fitted to any measurement).

Deterministic (``random.Random(41)``): ``python3 examples/traces/make_traces.py`` rewrites the
same bytes; ``--check`` exits 1 if the files differ from what it would write.
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OPPORTUNITY_BITS = 1504 * 8


def const_12mbps() -> str:
    return "".join(f"{ms}\n" for ms in range(1, 1001))


def _poisson(rng: random.Random, lam: float) -> int:
    # Knuth's method: lam stays below ~4 here (40 Mbit/s is 3.3 opportunities a ms)
    limit, k, p = math.exp(-lam), 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


def lte_synthetic(seconds: int = 30) -> str:
    rng = random.Random(41)
    mean_log, phi, sigma = math.log(8e6), 0.9, 0.35
    log_rate, outage_ms = mean_log, 0
    lines: list[str] = []
    total_ms = seconds * 1000
    for step in range(total_ms // 100):
        log_rate = mean_log + phi * (log_rate - mean_log) + rng.gauss(0.0, sigma)
        rate = min(40e6, max(0.5e6, math.exp(log_rate)))
        if outage_ms == 0 and rng.random() < 0.01:
            outage_ms = rng.randrange(100, 501, 100)
        for ms in range(step * 100 + 1, step * 100 + 101):
            if outage_ms > 0:
                outage_ms -= 1
                continue
            lines.extend([f"{ms}\n"] * _poisson(rng, rate / 1000 / OPPORTUNITY_BITS))
    # the trace lasts until its last line: end it exactly at `seconds`
    if not lines or lines[-1] != f"{total_ms}\n":
        lines.append(f"{total_ms}\n")
    return "".join(lines)


TRACES = {"const_12mbps.trace": const_12mbps, "lte_synthetic.trace": lte_synthetic}


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for name, make in TRACES.items():
        text, path = make(), HERE / name
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
    if stale:
        print(f"stale: {', '.join(stale)}; run python3 examples/traces/make_traces.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
