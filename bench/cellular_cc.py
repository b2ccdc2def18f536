#!/usr/bin/env python3
"""Congestion controllers on a cellular downlink (issue #41): examples/cellular_trace.toml (a
bulk download and a 200 kbit/s voice flow through the base station's queue in front of the
synthetic LTE-like Mahimahi trace, 30 s, statistics after 2 s) with the download's controller
CUBIC, BBR v1, BBRv3 or TCP Prague (the `linux` preset) and the base station's queue a deep
DropTail (1000 packets), FQ-CoDel, or DualPI2 (Linux's defaults; Prague needs an L4S queue to
see its marks, the others land in DualPI2's classic queue), and for Prague also DualPI2 with
its step in packets.

    python3 bench/cellular_cc.py [--bufferlab .venv/bin/bufferlab]

Columns: the download's goodput (Mbit/s), the downlink's utilisation, the voice flow's mean and
99th-percentile one-way delay (ms), the download's retransmitted segments (docs/models/
trace_links.md, "Controllers on the LTE-like trace").
"""

from __future__ import annotations

import argparse
import json
import subprocess

EXAMPLE = "examples/cellular_trace.toml"
CCS = [
    ("CUBIC", ["tcp.cc=cubic"]),
    ("BBR v1", ["tcp.cc=bbr"]),
    ("BBRv3", ["tcp.cc=bbr3"]),
    ("Prague", ["tcp.cc=prague", "tcp.ecn=true"]),
]
QUEUES = [
    ("DropTail 1000p", []),
    ("FQ-CoDel", ["links.bottleneck.queue.kind=fq_codel"]),
    ("DualPI2", ["links.bottleneck.queue.kind=dualpi2"]),
]
#: DualPI2 with its L queue's step in packets (Linux `step_thresh` in packets): it only
#: changes what happens to L4S packets, so only Prague is run with it.
STEP_IN_PACKETS = (
    "DualPI2, step 2 packets",
    ["links.bottleneck.queue.kind=dualpi2", "links.bottleneck.queue.step_packets=2"],
)


def run(exe: str, cc: list[str], queue: list[str]) -> dict:
    args = [exe, "run", EXAMPLE, "--json"]
    for s in [f"flows.0.{c}" for c in cc] + queue:  # flow 0 is the download
        args += ["-s", s]
    r = json.loads(subprocess.run(args, capture_output=True, check=True).stdout)
    f = {x["name"]: x for x in r["flows"]}
    link = next(x for x in r["links"] if x["link"] == "bottleneck" and x["from"] == "r0")
    return {
        "goodput": f["download"]["goodput_bps"] / 1e6,
        "util": link["utilisation"],
        "voice_ms": f["voice"]["delay_mean_s"] * 1e3,
        "voice_p99_ms": f["voice"]["delay_p99_s"] * 1e3,
        "retx": f["download"]["tcp"]["retransmitted_segments"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bufferlab", default=".venv/bin/bufferlab")
    a = ap.parse_args()
    print(
        "| controller | base station queue | download Mb/s | downlink utilisation "
        "| voice delay ms (mean) | voice delay ms (p99) | retransmitted segments |"
    )
    print("|---|---|---|---|---|---|---|")
    for cc_name, cc in CCS:
        queues = QUEUES + ([STEP_IN_PACKETS] if cc_name == "Prague" else [])
        for q_name, q in queues:
            m = run(a.bufferlab, cc, q)
            print(
                f"| {cc_name} | {q_name} | {m['goodput']:.2f} | {m['util']:.2f} "
                f"| {m['voice_ms']:.0f} | {m['voice_p99_ms']:.0f} | {m['retx']} |"
            )


if __name__ == "__main__":
    main()
