#!/usr/bin/env python3
"""L4S at low rates: examples/l4s_dualpi2.toml (one TCP Prague and one CUBIC flow of the
`linux` preset through DualPI2 with Linux's defaults, 30 s, statistics after 10 s) at bottleneck
rates of 10 to 100 Mbit/s and one-way bottleneck delays of 5 and 20 ms, with DualPI2's step
threshold at Linux's default (1 ms, `sch_dualpi2.c`) and at RFC 9332 Appendix A.1's floor for
the link rate (the serialization time of 2 MTU: `Th_len = 2 * MTU`, `floor = Th_len * 8 /
MIN_LINK_RATE`, which the RFC's pseudocode raises the L4S marking threshold to when it is
higher), for the rates where the two differ.

    python3 bench/l4s_rates.py [--bufferlab .venv/bin/bufferlab] [--cwnd-mode switch]
    python3 bench/l4s_rates.py --runner target/release/examples/run --cwnd-mode switch

`--cwnd-mode` sets the Prague flow's `tcp.prague_cwnd_mode` (window, rate, switch;
docs/models/prague.md, "Small windows"); `--runner` runs the core's example runner
(`cargo build --release -p bufferlab-core --examples`) instead of the CLI.

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


def run(
    exe: str, rate: int, delay: int, step_ms: float | None, mode: str | None, runner: bool
) -> dict:
    sets = [f"links.bottleneck.rate={rate}Mbps", f"links.bottleneck.delay={delay}ms"]
    if step_ms is not None:
        sets.append(f"links.bottleneck.queue.step_thresh={step_ms:.3f}ms")
    if mode is not None:
        sets.append(f'flows.0.tcp.prague_cwnd_mode="{mode}"')
    if runner:
        args = [exe, EXAMPLE, *sets]
    else:
        args = [exe, "run", EXAMPLE, "--json"]
        for x in sets:
            args += ["-s", x]
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
    ap.add_argument("--runner", help="the core's example runner, used instead of the CLI")
    ap.add_argument("--cwnd-mode", choices=["window", "rate", "switch"])
    ap.add_argument("--linux-step-only", action="store_true", help="skip the 2-MTU step rows")
    a = ap.parse_args()
    exe = a.runner or a.bufferlab
    print(
        "| rate | one-way delay | step_thresh | Prague Mb/s | CUBIC Mb/s | Prague / CUBIC "
        "| L marks | L sojourn ms | C drops | C sojourn ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for rate in RATES:
        floor_ms = 2 * MTU_WIRE * 8 / (rate * 1e6) * 1e3
        steps: list[float | None] = [None]
        if floor_ms > 1.0 and not a.linux_step_only:
            steps.append(floor_ms)
        for delay in DELAYS:
            for step in steps:
                r = run(exe, rate, delay, step, a.cwnd_mode, a.runner is not None)
                label = "1 ms (Linux)" if step is None else f"{step:.2f} ms (2 MTU)"
                print(
                    f"| {rate} Mbit/s | {delay} ms | {label} | {r['prague']:.2f} "
                    f"| {r['cubic']:.2f} | {r['prague'] / r['cubic']:.2f} | {r['l_marks']} "
                    f"| {r['l_ms']:.2f} | {r['c_drops']} | {r['c_ms']:.1f} |"
                )


if __name__ == "__main__":
    main()
