#!/usr/bin/env python3
"""L4S at low rates: examples/l4s_dualpi2.toml (one TCP Prague and one CUBIC flow of the
`linux` preset through DualPI2 with Linux's defaults, 30 s, statistics after 10 s) at bottleneck
rates of 10 to 100 Mbit/s and one-way bottleneck delays of 5 and 20 ms, with DualPI2's step at
Linux's defaults (1 ms, `min_qlen_step` 0: `sch_dualpi2.c`) and, for the rates where one packet's
serialization passes the 1 ms step, with `min_qlen_step = 1` (the step only for an L packet that
found the L queue non-empty, `skb_apply_step`) and with the step at RFC 9332 Appendix A.1's
floor for the link rate (the serialization time of 2 MTU: `Th_len = 2 * MTU`, `floor = Th_len *
8 / MIN_LINK_RATE`, which the RFC's pseudocode raises the L4S marking threshold to).

    python3 bench/l4s_rates.py [--cwnd-mode switch] [--runner target/release/examples/run]

`--cwnd-mode` sets the Prague flow's `tcp.prague_cwnd_mode` (window, rate, switch;
docs/models/prague.md, "Small windows"); `--runner` runs the core's example runner
(`cargo build --release -p bufferlab-core --examples`) instead of the Python package.
docs/gen/quoted_numbers.py writes the default table into docs/validation.md ("L4S at low link
rates") and `make test` fails when it is stale.

Rows: goodputs (Mbit/s), their ratio, the L queue's CE marks and mean sojourn, the C queue's
drops and mean sojourn (docs/models/dualpi2.md, "Low link rates").
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = "examples/l4s_dualpi2.toml"
MTU_WIRE = 1514  # Linux psched_mtu of a 1500-byte Ethernet device, as dualpi2.rs counts it
RATES = [10, 20, 40, 100]
DELAYS = [5, 20]
HEADER = [
    "| rate | one-way delay | DualPI2 step | Prague Mb/s | CUBIC Mb/s | Prague / CUBIC "
    "| L marks | L sojourn ms | C drops | C sojourn ms |",
    "|---|---|---|---|---|---|---|---|---|---|",
]


def overrides(rate: int, delay: int, queue: dict[str, str], mode: str | None) -> list[str]:
    sets = [f"links.bottleneck.rate={rate}Mbps", f"links.bottleneck.delay={delay}ms"]
    sets += [f"links.bottleneck.queue.{k}={v}" for k, v in queue.items()]
    if mode is not None:
        sets.append(f'flows.0.tcp.prague_cwnd_mode="{mode}"')
    return sets


def run_report(sets: list[str], runner: str | None) -> dict:
    """The example with `sets` applied: its report, from the example runner or the package."""
    if runner:
        out = subprocess.run([runner, EXAMPLE, *sets], capture_output=True, check=True, cwd=ROOT)
        return json.loads(out.stdout)
    import bufferlab

    path = ROOT / EXAMPLE
    sc = bufferlab.Scenario(text=path.read_text(), source=EXAMPLE).with_overrides(sets)
    return sc.run(1).raw


def measure(sets: list[str], runner: str | None = None) -> dict:
    r = run_report(sets, runner)
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


def variants(rate: int, linux_only: bool = False) -> list[tuple[str, dict[str, str]]]:
    """Linux's defaults, then, where 1 packet's serialization passes the 1 ms step,
    min_qlen_step = 1 and RFC 9332's 2-MTU floor."""
    out: list[tuple[str, dict[str, str]]] = [("1 ms (Linux)", {})]
    floor_ms = 2 * MTU_WIRE * 8 / (rate * 1e6) * 1e3
    if floor_ms > 1.0 and not linux_only:
        out.append(("1 ms, min_qlen_step 1", {"min_qlen_step": "1"}))
        out.append((f"{floor_ms:.2f} ms (2 MTU)", {"step_thresh": f"{floor_ms:.3f}ms"}))
    return out


def table(mode: str | None = None, runner: str | None = None, linux_only: bool = False) -> str:
    rows = list(HEADER)
    for rate in RATES:
        for delay in DELAYS:
            for label, queue in variants(rate, linux_only):
                r = measure(overrides(rate, delay, queue, mode), runner)
                rows.append(
                    f"| {rate} Mbit/s | {delay} ms | {label} | {r['prague']:.2f} "
                    f"| {r['cubic']:.2f} | {r['prague'] / r['cubic']:.2f} | {r['l_marks']} "
                    f"| {r['l_ms']:.2f} | {r['c_drops']} | {r['c_ms']:.1f} |"
                )
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runner", help="the core's example runner, used instead of the package")
    ap.add_argument("--cwnd-mode", choices=["window", "rate", "switch"])
    ap.add_argument("--linux-step-only", action="store_true", help="Linux's defaults only")
    a = ap.parse_args()
    print(table(a.cwnd_mode, a.runner, a.linux_step_only))


if __name__ == "__main__":
    main()
