#!/usr/bin/env python3
"""Run the study's networks on ns-3.44 (TcpBbr, TcpCubic) and write peers.json.

The grid, the replications' start times, the duration and the warm-up are read from study.toml
and scenario.toml, so the peer runs exactly the points bufferlab runs: flows 0..n-1 are CUBIC and
the last flow is BBR, as in scenario.toml. Every measure counts from the warm-up on
(the peer's --warmup), as bufferlab's report does.

    bash bench/peers/build_ns3.sh                      # once: ns-3 and the peer program
    python3 studies/bbr_ware_2019/ns3_peer.py          # all points (about 6 minutes)
    python3 studies/bbr_ware_2019/ns3_peer.py --check  # re-run and fail if peers.json differs

ns-3 is deterministic for a given command line, so --check compares exactly.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PEER = ROOT / "bench" / ".peers" / "ns3_dumbbell"
BDP_PACKETS = 37  # as study.toml: 10 Mbit/s x 44 ms / 1502 bytes on the wire, rounded


def seconds(text: str) -> float:
    assert text.endswith("s") and not text.endswith("ms"), text
    return float(text[:-1])


def ns3_args(scenario: dict, n_cubic: int, buffer_bdp: float, starts: tuple[str, str]) -> list:
    """The peer's command line for one run: the scenario's links, n CUBIC flows and one BBR."""
    acc, bn = scenario["links"]["access"], scenario["links"]["bottleneck"]
    cubic_start, bbr_start = (seconds(s) for s in starts)
    return [
        f"--nTcp={n_cubic + 1}",
        "--tcpTypes=" + ",".join(["TcpCubic"] * n_cubic + ["TcpBbr"]),
        "--starts=" + ",".join([f"{cubic_start:g}"] * n_cubic + [f"{bbr_start:g}"]),
        f"--accessRate={acc['rate']}",
        f"--accessDelay={acc['delay']}",
        f"--accessQueue={acc['queue']['limit']}",
        f"--bnRate={bn['rate']}",
        f"--bnDelay={bn['delay']}",
        f"--qlimit={round(buffer_bdp * BDP_PACKETS)}p",
        "--qdisc=DropTail",
        "--segSize=1448",
        "--sndBuf=16000000",
        "--rcvBuf=16000000",
        f"--simTime={seconds(scenario['duration']):g}",
        f"--warmup={seconds(scenario['warmup']):g}",
        "--flowmon=0",
    ]


def measure(args: list[str]) -> dict:
    r = json.loads(
        subprocess.run([str(PEER), *args], capture_output=True, text=True, check=True).stdout
    )
    w = r["after_warmup"]
    gp = w["goodput_bps"]
    return {
        "bbr_share": gp[-1] / sum(gp),
        "bbr_mbps": gp[-1] / 1e6,
        "cubic_mbps": sum(gp[:-1]) / 1e6,
        "loss": w["drops"] / w["arrivals"],
        # the queue disc and the 1-packet device queue below it (bufferlab's port queue)
        "queue_pkts": w["avg_packets"] + w["device_avg_packets"],
    }


def points(study: dict) -> list[tuple[str, dict, list[list]]]:
    """(experiment, labels, [ns-3 command line per replication]) for every grid point."""
    scenario = tomllib.loads((HERE / "scenario.toml").read_text())
    out = []
    for e in study["experiment"]:
        params = e["params"]
        if "bbr" in params:
            continue  # BBRv3 (buffer_v3): ns-3.44 has no BBRv3, so no peer
        bdps = params["buffer_bdp"]["values"]
        counts = [c["label"] for c in params["n_cubic"]] if "n_cubic" in params else [1]
        reps = e["replications"]
        pr = e["per_replication"]
        starts = list(zip(pr["flows.0.start"], pr["flows.1.start"], strict=True))[:reps]
        for b, n in itertools.product(bdps, counts):
            labels = {"buffer_bdp": b, **({"n_cubic": n} if "n_cubic" in params else {})}
            out.append((e["name"], labels, [ns3_args(scenario, n, b, s) for s in starts]))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if peers.json would change")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    if not PEER.exists():
        print(f"{PEER} is missing: run bash bench/peers/build_ns3.sh", file=sys.stderr)
        return 2
    study = tomllib.loads((HERE / "study.toml").read_text())
    pts = points(study)
    runs = [args for _, _, reps in pts for args in reps]
    with ThreadPoolExecutor(a.jobs) as ex:
        results = iter(list(ex.map(measure, runs)))
    tables: dict[str, list] = {}
    each_run: list[dict] = []
    for exp, labels, reps in pts:
        ms = [next(results) for _ in reps]
        each_run += [
            {"experiment": exp, "labels": labels, "replication": i, "args": args, "measures": x}
            for i, (args, x) in enumerate(zip(reps, ms, strict=True))
        ]
        row = dict(labels)
        for k in ms[0]:
            row[k] = round(statistics.fmean(x[k] for x in ms), 6)
        row["replications"] = len(ms)
        tables.setdefault(exp, []).append(row)
    peers = {
        "ns-3": {
            "_source": "ns-3.44 (PyPI ns3 3.44.post0) TcpBbr and TcpCubic on bench/peers/"
            "ns3_dumbbell.cc, the networks of scenario.toml and study.toml (same start times, "
            "16 MB socket buffers, PRR, SACK, timestamps, 1-packet device queue); means over "
            "the replications, measured after the warm-up; written by "
            "studies/bbr_ware_2019/ns3_peer.py",
            **tables,
            # every run's command line and measures, so that a test can re-run a few of them
            "_runs": each_run,
        }
    }
    text = json.dumps(peers, indent=1) + "\n"
    path = HERE / "peers.json"
    if a.check:
        if path.read_text() != text:
            print(
                "peers.json is stale: run python3 studies/bbr_ware_2019/ns3_peer.py",
                file=sys.stderr,
            )
            return 1
        print("peers.json matches ns-3")
        return 0
    path.write_text(text)
    print(f"wrote {path} ({len(runs)} ns-3 runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
