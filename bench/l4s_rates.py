#!/usr/bin/env python3
"""L4S at low rates: examples/l4s_dualpi2.toml (one TCP Prague and one CUBIC flow of the
`linux` preset through DualPI2 with Linux's defaults, 30 s, statistics after 10 s) at bottleneck
rates of 10 to 100 Mbit/s and one-way bottleneck delays of 5 and 20 ms, with DualPI2's step
threshold at Linux's default (1 ms, `sch_dualpi2.c`) and at RFC 9332 Appendix A.1's floor for
the link rate (the serialization time of 2 MTU: `Th_len = 2 * MTU`, `floor = Th_len * 8 /
MIN_LINK_RATE`, which the RFC's pseudocode raises the L4S marking threshold to when it is
higher), for the rates where the two differ.

    python3 bench/l4s_rates.py [--bufferlab .venv/bin/bufferlab]

Rows: goodputs (Mbit/s), their ratio, the L queue's CE marks and mean sojourn, the C queue's
drops and mean sojourn (docs/models/dualpi2.md, "Low link rates").
"""

from __future__ import annotations

import argparse
import json
import subprocess

EXAMPLE = "examples/l4s_dualpi2.toml"
MTU_WIRE = 1514  # Linux psched_mtu of a 1500-byte Ethernet device, as dualpi2.rs counts it
RATES = [10, 20, 40, 100]
DELAYS = [5, 20]


def run(exe: str, rate: int, delay: int, step_ms: float | None) -> dict:
    args = [exe, "run", EXAMPLE, "--json"]
    args += ["-s", f"links.bottleneck.rate={rate}Mbps", "-s", f"links.bottleneck.delay={delay}ms"]
    if step_ms is not None:
        args += ["-s", f"links.bottleneck.queue.step_thresh={step_ms:.3f}ms"]
    r = json.loads(subprocess.run(args, capture_output=True, check=True).stdout)
    g = {f["name"]: f["goodput_bps"] / 1e6 for f in r["flows"]}
    q = next(q for q in r["queues"] if q["link"] == "bottleneck")
    cls = {c["name"]: c for c in q["classes"]}
    return {
        "prague": g["prague"],
        "cubic": g["cubic"],
        "l_marks": cls["l"]["marks"],
        "l_ms": cls["l"]["mean_sojourn_s"] * 1e3,
        "c_drops": cls["c"]["drops"],
        "c_ms": cls["c"]["mean_sojourn_s"] * 1e3,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bufferlab", default=".venv/bin/bufferlab")
    a = ap.parse_args()
    print(
        "| rate | one-way delay | step_thresh | Prague Mb/s | CUBIC Mb/s | Prague / CUBIC "
        "| L marks | L sojourn ms | C drops | C sojourn ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for rate in RATES:
        floor_ms = 2 * MTU_WIRE * 8 / (rate * 1e6) * 1e3
        steps: list[float | None] = [None] + ([floor_ms] if floor_ms > 1.0 else [])
        for delay in DELAYS:
            for step in steps:
                r = run(a.bufferlab, rate, delay, step)
                label = "1 ms (Linux)" if step is None else f"{step:.2f} ms (2 MTU)"
                print(
                    f"| {rate} Mbit/s | {delay} ms | {label} | {r['prague']:.2f} "
                    f"| {r['cubic']:.2f} | {r['prague'] / r['cubic']:.2f} | {r['l_marks']} "
                    f"| {r['l_ms']:.2f} | {r['c_drops']} | {r['c_ms']:.1f} |"
                )


if __name__ == "__main__":
    main()
