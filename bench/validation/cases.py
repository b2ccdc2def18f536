#!/usr/bin/env python3
"""Compare a bench case with ns-3 over an ensemble of start offsets (the ns3-TCP cases: a_*, c_ns3,
e_*, f_*, g_*; was bench/ns3_ensemble.py). For other networks, with access-delay jitter, seeds and
paired confidence intervals, use `python3 -m bench.validation run`.

Long-lived flows with equal round-trip times that all start at t = 0 are phase-locked: which
flow loses at a full queue depends on the order of near-simultaneous arrivals, so one run's drop
count is one sample of a chaotic process (docs/validation.md, "Against ns-3's TCP"). This script
runs bufferlab and the ns-3 peer side by side with flow i starting at i * s for K values of s
(ns-3's `--stagger`), and prints the mean and standard deviation of each measure.

    python3 -m bench.validation.cases a_droptail            # 8 offsets, 1..8 ms
    python3 -m bench.validation.cases g_dctcp --k 6         # DCTCP over RED step marking
    python3 -m bench.validation.cases e_reno_pie --k 4

It needs bench/.peers/ns3_dumbbell (bench/peers/build_ns3.sh) and the example runner
(`cargo build --release -p bufferlab-core --example run`).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics as st
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
from lab.cases import cases  # noqa: E402  (the case table)
from lab.normalise import jain  # noqa: E402


def staggered(toml: str, flows: int, step: float) -> str:
    """The case's scenario with its flow template replaced by one flow per sender."""
    head, tail = toml.split("[[flows]]", 1)
    tcp = re.search(r"^tcp = .*$", tail, re.M).group(0)
    body = "".join(
        f'\n[[flows]]\nname = "tcp{i}"\nsrc = "s{i}"\ndst = "d{i}"\nstart = "{i * step:.6f}s"\n'
        f'app = {{ kind = "bulk" }}\n{tcp}\n'
        for i in range(flows)
    )
    return head + body


PER_FLOW = False  # --per-flow: each flow's goodput as a column too


def flow_measures(flows: list[dict]) -> dict:
    """The per-flow sums both simulators report the same way (their `tcp` counters, goodput)."""
    t = [f["tcp"] for f in flows]
    gp = [f["goodput_bps"] for f in flows]
    per = {f"flow{i}_mbps": g / 1e6 for i, g in enumerate(gp)} if PER_FLOW else {}
    return dict(timeouts=sum(x["timeouts"] for x in t),
                fast_retransmits=sum(x["fast_retransmits"] for x in t),
                retransmits=sum(x["retransmitted_segments"] for x in t),
                goodput_mbps=sum(gp) / 1e6, jain=jain(gp), **per)


def measures_bufferlab(runner: Path, toml: Path, seed: int | None = None) -> dict:
    extra = [f"seed={seed}"] if seed is not None else []
    r = json.loads(subprocess.run([str(runner), str(toml), *extra], capture_output=True,
                                  text=True, check=True).stdout)
    q = next(q for q in r["queues"] if q["link"] == "bottleneck")
    return dict(drops=q["drops"], marks=q["marks"], queue_bytes=q["avg_bytes"],
                **flow_measures(r["flows"]))


def measures_ns3(args: list[str]) -> dict:
    r = json.loads(subprocess.run([str(BENCH / ".peers" / "ns3_dumbbell"), *args, "--tcpStats=1"],
                                  capture_output=True, text=True, check=True).stdout)
    q = r["queue"]
    # ns-3's queue disc plus its 1-packet device queue: bufferlab's port queue holds both.
    # "marks" only when the peer ran with ECN (--ecn / --redEcn).
    marks = {"marks": q["marks"]} if "marks" in q else {}
    return dict(drops=q["drops"], **marks, queue_bytes=q["avg_bytes"] + q["device_avg_bytes"],
                **flow_measures(r["flows"]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("case", help="a bench case paired with ns-3's TCP (a_*, c_ns3, e_*, f_*, g_*)")
    ap.add_argument("--k", type=int, default=8, help="number of offsets (default 8)")
    ap.add_argument("--step", type=float, default=0.001, help="offset unit in seconds (s = j*step)")
    ap.add_argument("--runner", default=str(ROOT / "target" / "release" / "examples" / "run"))
    ap.add_argument("--per-flow", action="store_true", help="each flow's goodput as a column")
    ap.add_argument("--vary-seed", action="store_true",
                    help="member j also uses seed j in both simulators (random draws of the "
                    "models, e.g. BBR's first PROBE_BW phase)")
    a = ap.parse_args()
    global PER_FLOW
    PER_FLOW = a.per_flow
    case = next((c for c in cases() if c["id"] == a.case), None)
    if case is None or not case.get("ns3") or "preset = \"ns3\"" not in case["toml"]:
        print(f"case: {a.case!r} is not a bench case paired with ns-3's TCP", file=sys.stderr)
        return 2
    flows = int(re.search(r"^pairs = (\d+)", case["toml"], re.M).group(1))
    out = {"bufferlab": [], "ns-3": []}
    tmp = BENCH / ".peers" / f"ensemble_{a.case}.toml"
    for j in range(1, a.k + 1):
        s = j * a.step
        tmp.write_text(staggered(case["toml"], flows, s))
        seed = j if a.vary_seed else None
        out["bufferlab"].append(measures_bufferlab(Path(a.runner), tmp, seed))
        out["ns-3"].append(measures_ns3([*case["ns3"], f"--stagger={s}",
                                         *([f"--seed={j}"] if seed is not None else [])]))
        print(f"s = {s:g} s: bufferlab drops {out['bufferlab'][-1]['drops']}, "
              f"ns-3 {out['ns-3'][-1]['drops']}", file=sys.stderr)
    keys = [k for k in out["bufferlab"][0] if k in out["ns-3"][0]]
    print(f"| {a.case}, {a.k} offsets | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for sim, rows in out.items():
        cells = []
        for k in keys:
            v = [r[k] for r in rows]
            sd = st.stdev(v) if len(v) > 1 else 0.0
            m = st.mean(v)
            cells.append(f"{m:.0f} ± {sd:.0f}" if abs(m) >= 100 else f"{m:.4g} ± {sd:.2g}")
        print(f"| {sim} | " + " | ".join(cells) + " |")
    b = {k: st.mean(r[k] for r in out["bufferlab"]) for k in keys}
    n = {k: st.mean(r[k] for r in out["ns-3"]) for k in keys}
    print("| bufferlab / ns-3 | " + " | ".join(f"{b[k] / n[k]:.3f}" if n[k] else "-" for k in keys)
          + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
