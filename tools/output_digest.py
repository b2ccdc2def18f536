#!/usr/bin/env python3
"""Digest of every output the core writes, for checking that a refactor changes no byte.

Runs each scenario file of the repository (examples/, bench/scenarios/, studies/) through the
core's example runner (`target/<profile>/examples/run`) and records a SHA-256 of its report JSON
(with the wall-clock field zeroed), of the resolved-scenario validation JSON, of the JSON Schema,
and of the ns-2 trace and pcap files of a few scenarios. Compare two digests with `diff`:

    python3 tools/output_digest.py > /tmp/before.txt     # on the old commit
    python3 tools/output_digest.py > /tmp/after.txt      # on the new one
    diff /tmp/before.txt /tmp/after.txt && echo identical

Long scenarios are cut to `--max-duration` simulated seconds (the same cut on both sides), so a
whole digest takes a few minutes on two cores.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# minutes each: d_100 and examples/datacenter/ cover the same code
SKIP = {"d_100000.toml", "d_10000.toml", "d_1000.toml", "dc_leafspine_128.toml"}
# Scenarios whose ns-2 trace and pcap files are hashed too, with extra overrides: CoDel's drops
# at dequeue under a device queue and a loss on the wire, RED, loss before the queue.
TRACED = [
    ("examples/dumbbell_tcp.toml", []),
    ("examples/dumbbell_udp.toml", []),
    ("bench/scenarios/a_red.toml", []),
    ("bench/scenarios/e_reno_codel.toml", ['links.bottleneck.loss={kind="bernoulli",rate=0.01}']),
    ("bench/scenarios/e_vegas_fq_codel.toml", []),
    ("studies/red_qos_000/scenario.toml", []),
]


def scenario_files() -> list[Path]:
    files = sorted(ROOT.glob("examples/*.toml"))
    files += sorted(ROOT.glob("bench/scenarios/*.toml"))
    files += sorted(ROOT.glob("studies/*/*.toml"))
    return [f for f in files if f.name not in SKIP and f.name != "study.toml" and not is_sweep(f)]


def is_sweep(path: Path) -> bool:
    text = path.read_text()
    return bool(re.search(r"^\s*\[(sweep|axes)\b", text, re.M)) or "base =" in text.split("\n", 3)[0]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def run_one(
    runner: Path, path: Path, max_duration: str, env_extra: dict | None = None, extra=()
) -> str:
    args = [str(runner), str(path), *extra, f"duration={max_duration}"]
    env = dict(os.environ, **(env_extra or {}))
    proc = subprocess.run(args, capture_output=True, env=env, cwd=ROOT)
    if proc.returncode != 0:
        # A scenario whose own duration is shorter, or that rejects the override, runs as written.
        proc = subprocess.run(args[:-1], capture_output=True, env=env, cwd=ROOT)
    if proc.returncode != 0:
        return f"exit {proc.returncode}: {sha(proc.stderr)}"
    report = json.loads(proc.stdout)
    zero_wall(report)
    return sha(json.dumps(report, sort_keys=True).encode())


def zero_wall(obj) -> None:
    if isinstance(obj, dict):
        for k in list(obj):
            if k in ("wall_s", "events_per_s", "packets_per_s"):
                obj[k] = 0
            else:
                zero_wall(obj[k])
    elif isinstance(obj, list):
        for v in obj:
            zero_wall(v)


def traced(runner: Path, rel: str, extra: list[str], max_duration: str) -> list[str]:
    name = " ".join([rel, *extra])
    with tempfile.TemporaryDirectory() as d:
        trace = Path(d) / "trace.tr"
        pcaps = Path(d) / "pcap"
        env = {"BUFFERLAB_PCAP": str(pcaps), "BUFFERLAB_NS2_TRACE": str(trace)}
        out = [f"{name} report+pcap {run_one(runner, ROOT / rel, max_duration, env, extra)}"]
        out.append(f"{name} ns2 trace {sha(trace.read_bytes()) if trace.exists() else 'none'}")
        for f in sorted(pcaps.iterdir()) if pcaps.exists() else []:
            out.append(f"{name} pcap {f.name} {sha(f.read_bytes())}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", default="release")
    ap.add_argument("--max-duration", default="20s")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    subprocess.run(
        ["cargo", "build", "--quiet", "--profile", args.profile, "-p", "bufferlab-core",
         "--example", "run"],
        check=True, cwd=ROOT,
    )
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    runner = target / args.profile / "examples" / "run"
    files = scenario_files()
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        digests = list(pool.map(lambda f: run_one(runner, f, args.max_duration), files))
        traces = list(pool.map(lambda t: traced(runner, t[0], t[1], "5s"), TRACED))
    for f, d in zip(files, digests):
        print(f"{f.relative_to(ROOT)} {d}")
    for lines in traces:
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
