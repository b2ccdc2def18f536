#!/usr/bin/env python3
"""bufferlab beside htsim on the bench's dumbbells (issue #40's target: >= 2.5x htsim per
CPU-second at 100 and 10 000 flows; docs/performance.md, "Beside htsim").

htsim (the C++ simulator of NDP and EQDS; public source Broadcom/csg-htsim) is not part of the
repository and is not downloaded: HTSIM_SRC must point at a checkout of it. bench/peers/
build_htsim.sh compiles bufferlab's own driver, bench/peers/htsim_dumbbell.cpp, against it: the
dumbbell of bench/scenarios/d_N.toml (the same rates, delays, buffers and 1500-byte packets,
per flow three queues out and three back) with htsim's TcpSrc/TcpSink. The two simulators' TCPs
differ, so only the cost is compared: CPU seconds (user + system, GNU time) of the whole process
per packet-hop (a packet served by one queue / sent over one link direction), alternating runs,
medians. Writes bench/results/htsim.json, which docs/performance.md's targets table reads.

    HTSIM_SRC=/path/to/csg-htsim python3 bench/htsim_compare.py [--runs 5]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lab.paths import BENCH, RESULTS, ROOT, SCEN, log
from lab.peers import ensure_bufferlab, git_rev

# (case, simulated seconds, htsim's options for the same network as bench/scenarios/CASE.toml)
CASES = [
    ("d_100", 200, ["-flows", "100", "-bneck_mbps", "100", "-bneck_pkts", "202"]),
    ("d_10000", 2, ["-flows", "10000", "-bneck_mbps", "10000", "-bneck_pkts", "20161"]),
]
COMMON = ["-access_mbps", "1000", "-access_delay_us", "1000", "-access_pkts", "100",
          "-bneck_delay_us", "10000", "-pkt_bytes", "1500"]


def htsim_rev() -> str:
    """The htsim commit measured: its checkout's, or $HTSIM_REV for a copy without .git."""
    rev = git_rev(Path(os.environ["HTSIM_SRC"]))
    return os.environ.get("HTSIM_REV") or rev


def timed(cmd: list[str]) -> tuple[float, int, str, str]:
    """CPU seconds (user + system) and peak RSS (KB) of cmd, its stdout and stderr."""
    with tempfile.NamedTemporaryFile("r") as tf:
        p = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", "-o", tf.name, *cmd],
                           capture_output=True, text=True, check=True, cwd=ROOT)
        rss, user, sys_ = tf.read().split()[-3:]
    return float(user) + float(sys_), int(rss), p.stdout, p.stderr


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    build = subprocess.run(["bash", str(BENCH / "peers" / "build_htsim.sh")],
                           capture_output=True, text=True)
    if build.returncode != 0:
        print(build.stderr.strip().splitlines()[-1], file=sys.stderr)
        return 2
    htsim = build.stdout.strip().splitlines()[-1]
    runner, _ = ensure_bufferlab()
    out = {"date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
           "commit": git_rev(ROOT), "htsim": htsim_rev(),
           "runs": a.runs, "cases": {}}
    for case, secs, opts in CASES:
        b_cmd = [runner, str(SCEN / f"{case}.toml"), f"duration={secs}s"]
        h_cmd = [htsim, *opts, *COMMON, "-duration_s", str(secs)]
        b_cpu, h_cpu, ratios = [], [], []
        for i in range(a.runs + 1):  # the first pair warms the caches and is not counted
            bc, b_rss, b_out, _ = timed(b_cmd)
            hc, h_rss, _, h_err = timed(h_cmd)
            if i:
                b_cpu.append(bc)
                h_cpu.append(hc)
                ratios.append(hc / bc)
        b_hops = sum(x["tx_packets"] for x in json.loads(b_out)["links"])
        h_hops = json.loads(h_err.strip().splitlines()[-1])["packet_hops"]
        b_rate = b_hops / statistics.median(b_cpu) / 1e6
        h_rate = h_hops / statistics.median(h_cpu) / 1e6
        out["cases"][case] = {
            "simulated_s": secs, "bufferlab_packet_hops": b_hops, "htsim_packet_hops": h_hops,
            "bufferlab_cpu_s": round(statistics.median(b_cpu), 3),
            "htsim_cpu_s": round(statistics.median(h_cpu), 3),
            "bufferlab_mhops_per_cpu_s": round(b_rate, 2),
            "htsim_mhops_per_cpu_s": round(h_rate, 2),
            "per_hop_ratio": round(b_rate / h_rate, 2),
            "bufferlab_peak_rss_kb": b_rss, "htsim_peak_rss_kb": h_rss,
        }
        log(f"{case}: bufferlab {b_rate:.2f} M hops per CPU-s, htsim {h_rate:.2f}: "
            f"{b_rate / h_rate:.2f}x")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "htsim.json").write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
