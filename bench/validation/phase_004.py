"""Is queues_004's Reno/DRR per-source spread a phase effect? (issue #20)

Runs the b_reno_* bench case (paper 004: 4 Reno flows, 2 Mb/s / 20 ms, 200 s, DRR with
blimit_ 20 800 B or DropTail limit 20) as an ensemble in ns-2.35 and in bufferlab: member m
shifts flow i's start from i * 0.5 s by U(0, jitter) (rounded to 0.1 ms; Python's
`random.Random(f"queues_004/{m}")`, the same draws in both simulators).
Nothing else changes by default (ns-2 seed 1 for every member).

With --script bufferlab runs the ns-2 peer script itself (`bufferlab run ns2_dumbbell.tcl ...`),
so each TCP agent gets the `boot_time_` ns-2 draws for it (`tcp.clock_phase`,
docs/ns2-scripts.md), and the tool also counts the members whose delivered packets per source
and drops are ns-2's exactly.

With --vary-seed member m also runs with seed m: in ns-2 that draws each TCP agent's
`boot_time_` (tcp.cc `reset`: uniform in [0, tcp_tick_), the phase of its RTT tick clock); in
bufferlab's scenario files that phase is 0 for every agent (`tcp.clock_phase` unset) and Reno
over DRR or DropTail draws no random numbers, so the seed changes nothing there (it does with
--script). --jitter 0 keeps the study's start times.

Per member and simulator: packets delivered in order per source (ns-2 `ack_ + 1`, bufferlab
goodput x active time / 1000 B), their population std, and the bottleneck's drops.

    python3 -m bench.validation.phase_004 --runner /tmp/run_h5 --members 20 --jitter 0.05
    python3 -m bench.validation.phase_004 --script --members 60 --jitter 0.05 --vary-seed
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NS2_SCRIPT = ROOT / "bench" / "peers" / "ns2_dumbbell.tcl"
SIMS = ("ns-2", "bufferlab")
SCENARIO = {"DRR": "b_reno_drr.toml", "DropTail": "b_reno_droptail.toml"}
NS2_ARGS = [
    "n=4",
    "bw=2Mb",
    "delay=20ms",
    "abw=10Mb",
    "adelay=2ms",
    "alimit=50",
    "limit=20",
    "tcp=Reno",
    "pkt=1000",
    "window=20",
    "time=200",
]
NS2_QUEUE = {"DRR": ["qtype=DRR", "drr_blimit=20800"], "DropTail": ["qtype=DropTail"]}


def starts(m: int, jitter: float) -> list[float]:
    """Flow start times of member m (member 0: the study's 0, 0.5, 1, 1.5 s)."""
    if m == 0 or jitter == 0:
        return [0.5 * i for i in range(4)]
    rng = random.Random(f"queues_004/{m}")
    return [round(0.5 * i + rng.uniform(0, jitter), 4) for i in range(4)]


def run_ns2(q: str, st: list[float], seed: int, cmd: tuple[str, ...] = ("ns",)) -> dict:
    args = [
        *cmd,
        str(NS2_SCRIPT),
        *NS2_ARGS,
        *NS2_QUEUE[q],
        "starts=" + ",".join(f"{s:g}" for s in st),
        f"seed={seed}",
    ]
    out = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return {"delivered": [f["acked_packets"] for f in out["flows"]], "drops": out["queue"]["drops"]}


def run_bufferlab(q: str, st: list[float], runner: str, seed: int) -> dict:
    scen = ROOT / "bench" / "scenarios" / SCENARIO[q]
    sets = [f'flows.{i}.start="{s:g}s"' for i, s in enumerate(st)] + [f"seed={seed}"]
    out = json.loads(
        subprocess.run(
            [runner, str(scen), *sets], check=True, capture_output=True, text=True
        ).stdout
    )
    fl = out["flows"]
    bq = next(x for x in out["queues"] if x["link"] == "bottleneck" and x["from"] == "r0")
    return {
        "delivered": [round(f["goodput_bps"] * (f["stop_s"] - f["start_s"]) / 8000) for f in fl],
        "rx": [f["rx_packets"] for f in fl],
        "drops": bq["drops"],
    }


def summary(rows: list[dict]) -> str:
    sd = [statistics.pstdev(r["delivered"]) for r in rows]
    dr = [r["drops"] for r in rows]
    tot = [sum(r["delivered"]) for r in rows]
    return (
        f"std mean {statistics.mean(sd):6.1f} sd {statistics.stdev(sd):6.1f} "
        f"median {statistics.median(sd):6.1f} min {min(sd):6.1f} max {max(sd):6.1f} | "
        f"drops mean {statistics.mean(dr):7.1f} sd {statistics.stdev(dr):5.1f} | "
        f"delivered mean {statistics.mean(tot):8.1f}"
    )


def rank_sum_p(a: list[float], b: list[float]) -> float:
    """Two-sided Mann-Whitney U test, normal approximation (no tie correction)."""
    pooled = sorted([(x, 0) for x in a] + [(x, 1) for x in b])
    ra = sum(i + 1 for i, (_, g) in enumerate(pooled) if g == 0)
    n1, n2 = len(a), len(b)
    u = ra - n1 * (n1 + 1) / 2
    z = (u - n1 * n2 / 2) / math.sqrt(n1 * n2 * (n1 + n2 + 1) / 12)
    return math.erfc(abs(z) / math.sqrt(2))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runner", default=str(ROOT / "target" / "release" / "examples" / "run"))
    ap.add_argument("--members", type=int, default=20, help="jittered members (1..M)")
    ap.add_argument("--jitter", type=float, default=0.05, help="start shift U(0, J) s")
    ap.add_argument("--queues", default="DRR,DropTail")
    ap.add_argument(
        "--vary-seed",
        action="store_true",
        help="member m also runs with seed m (ns-2: each agent's boot_time_, its RTT tick phase)",
    )
    ap.add_argument(
        "--script",
        action="store_true",
        help="bufferlab runs the ns-2 peer script (`bufferlab run`, ns-2's boot_time_ draws) "
        "instead of the scenario file with --runner",
    )
    ap.add_argument("--out", help="write every member's numbers to this JSON file")
    a = ap.parse_args()
    res: dict = {}
    for q in a.queues.split(","):
        for sim in SIMS:
            rows = []
            for m in range(a.members + 1):
                st = starts(m, a.jitter)
                seed = m if a.vary_seed and m > 0 else 1
                if sim == "ns-2":
                    r = run_ns2(q, st, seed)
                elif a.script:
                    r = run_ns2(q, st, seed, (sys.executable, "-m", "bufferlab", "run"))
                else:
                    r = run_bufferlab(q, st, a.runner, seed)
                rows.append({"member": m, "seed": seed, "starts": st, **r})
            res[f"{q}/{sim}"] = rows
            print(
                f"{q:8} {sim:9} member 0: std {statistics.pstdev(rows[0]['delivered']):6.1f} "
                f"drops {rows[0]['drops']:5} | members 1-{a.members}: {summary(rows[1:])}",
                flush=True,
            )
        if a.script:
            same = [
                x["delivered"] == y["delivered"] and x["drops"] == y["drops"]
                for x, y in zip(res[f"{q}/ns-2"][1:], res[f"{q}/bufferlab"][1:], strict=True)
            ]
            print(f"{q:8} members identical to ns-2: {sum(same)} of {len(same)}", flush=True)
        sd = [[statistics.pstdev(r["delivered"]) for r in res[f"{q}/{sim}"][1:]] for sim in SIMS]
        dr = [[r["drops"] for r in res[f"{q}/{sim}"][1:]] for sim in SIMS]
        print(
            f"{q:8} ns-2 vs bufferlab, Mann-Whitney p: std {rank_sum_p(*sd):.3f}, "
            f"drops {rank_sum_p(*dr):.3f}",
            flush=True,
        )
    if a.out:
        Path(a.out).write_text(json.dumps({"jitter": a.jitter, "runs": res}, indent=1) + "\n")


if __name__ == "__main__":
    main()
